// Solo practice's clock (docs/rules.md §6.27): it counts down from the seconds left that the server wrote into the
// page, on the browser's monotonic clock (as live.js does on the phone page). When it reaches 0 and the round's
// grace is over, the page is asked again: the server has ended the round, and shows its reveal.
"use strict";

(function () {
  const clock = document.querySelector(".clock[data-seconds-left]");
  if (!clock) return;
  const GRACE_MS = 1600; // the round's grace (1.5 s, §6.6) and a little more
  const left = parseFloat(clock.dataset.secondsLeft);
  const start = performance.now();
  let reloading = false;

  function tick() {
    const now = Math.max(0, left - (performance.now() - start) / 1000);
    const whole = Math.ceil(now);
    const text = Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
    if (clock.textContent !== text) clock.textContent = text;
    clock.classList.toggle("ending", whole <= 10);
    if (now <= 0 && !reloading) {
      reloading = true;
      setTimeout(() => window.location.reload(), GRACE_MS);
    }
  }

  tick();
  setInterval(tick, 250);
})();
