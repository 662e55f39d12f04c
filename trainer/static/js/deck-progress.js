// A deck being built (templates/drills/building.html): asks for its progress every second and moves the bar;
// once the deck is built (or could not be), the page is loaded again and shows the first card or why.
"use strict";
(function () {
  const region = document.getElementById("deck-progress");
  if (!region) return;
  const bar = region.querySelector("progress");
  const said = region.querySelector("[data-per-cent]");
  async function look() {
    try {
      const answer = await fetch(region.dataset.statusUrl, { headers: { Accept: "application/json" } });
      if (answer.ok) {
        const deck = await answer.json();
        if (deck.status !== "building") {
          window.location.reload();
          return;
        }
        bar.value = deck.progress;
        bar.textContent = `${deck.progress} %`;
        said.textContent = String(deck.progress);
      }
    } catch (error) {
      // the server is away for a moment: ask again
    }
    window.setTimeout(look, 1000);
  }
  window.setTimeout(look, 1000);
})();
