// The New game form's preset (docs/rules.md §6.14): choosing one fills the time per round and the reveal pause;
// changing either time chooses the preset the two times make, or "None". Without this script the form still works:
// the server lets the chosen preset set the times left at their defaults.
(() => {
  const preset = document.querySelector("form.settings-form select[data-presets]");
  const round = document.getElementById("round_seconds");
  const reveal = document.getElementById("reveal_seconds");
  if (!preset || !round || !reveal) return;
  const times = JSON.parse(preset.dataset.presets);
  preset.addEventListener("change", () => {
    const chosen = times[preset.value];
    if (chosen) [round.value, reveal.value] = chosen.map(String);
  });
  const follow = () => {
    const found = Object.keys(times).find(
      (name) => String(times[name][0]) === round.value.trim() && String(times[name][1]) === reveal.value.trim(),
    );
    preset.value = found || "";
  };
  round.addEventListener("input", follow);
  reveal.addEventListener("input", follow);
})();
