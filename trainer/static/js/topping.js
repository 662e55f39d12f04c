// Topping alone (docs/rules.md §6.28): the round's clock, counting up from the seconds the server says have passed
// since it first showed the round (data-elapsed), so a reload or a phone waking up shows the server's time. At the
// limit the page is read again: the server ends the round, not found. The server's clock is the one that counts.
"use strict";

(function () {
  const clock = document.querySelector("[data-topping-clock]");
  if (!clock) return;
  const shown = clock.querySelector("[data-clock]");
  const limit = Number(clock.dataset.limit);
  const started = performance.now() - Number(clock.dataset.elapsed) * 1000;
  const format = (s) => Math.floor(s / 60) + ":" + String(Math.floor(s % 60)).padStart(2, "0");
  let reloading = false;

  function tick() {
    const elapsed = (performance.now() - started) / 1000;
    shown.textContent = format(Math.min(elapsed, limit));
    if (elapsed >= limit - 10) clock.classList.add("ending");
    if (elapsed >= limit + 2 && !reloading) {
      reloading = true;
      window.location.reload();
      return;
    }
    window.setTimeout(tick, 250);
  }
  tick();
})();
