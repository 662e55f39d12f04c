// The bulletin form, keyboard only: Enter in the player field goes on to the play (it would send the form
// half filled); Enter in the play field sends it. The page comes back with the player field focused.
document.querySelectorAll("[data-bulletin-form]").forEach((form) => {
  const who = form.querySelector("#who");
  const move = form.querySelector("#move");
  if (!who || !move) return;
  who.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && who.value.trim() !== "") {
      event.preventDefault();
      move.focus();
    }
  });
});
