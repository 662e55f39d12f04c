// Keeps a page's live region in step with its game, and runs the countdown.
//
// The region (#live) names two addresses: data-events-url, the game's Server-Sent Events, and
// data-live-url, an HTML fragment of the region rendered by the server. Each event (but those in
// data-ignore-events) fetches the fragment again; a lost connection shows a notice, and the
// reconnection (the browser's own, with Last-Event-ID) fetches the fragment to catch up. The
// countdown counts down from the seconds left that the server wrote into the fragment, measured
// on the browser's monotonic clock, so a phone whose clock is wrong still shows the right time.
"use strict";

(function () {
  const region = document.getElementById("live");
  if (!region) return;
  const liveUrl = region.dataset.liveUrl;
  const ignored = new Set((region.dataset.ignoreEvents || "").split(" ").filter(Boolean));
  const lostNotice = document.querySelector("[data-connection-lost]");
  const KINDS = ["created", "joined", "round_started", "submission", "paused", "resumed", "extended",
    "round_closed", "placed", "corrected", "finished"];
  const RESYNC_MS = 30000;

  let clockStart = 0;
  let clockLeft = null;
  let fetching = false;
  let again = false;
  let deferred = false;

  function readClock() {
    const clock = region.querySelector(".clock[data-seconds-left]");
    clockLeft = clock ? parseFloat(clock.dataset.secondsLeft) : null;
    clockStart = performance.now();
  }

  function showClock() {
    if (clockLeft === null) return;
    for (const clock of region.querySelectorAll(".clock[data-seconds-left]")) {
      if (clock.dataset.running !== "1") continue;
      const left = Math.max(0, clockLeft - (performance.now() - clockStart) / 1000);
      const whole = Math.ceil(left);
      const text = Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
      if (clock.textContent !== text) clock.textContent = text;
      clock.classList.toggle("ending", whole <= 10);
    }
  }

  function typing() {
    // Never replace a form the reader is filling in (a correction, say): wait for them to leave it.
    const active = document.activeElement;
    return active && region.contains(active) && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName);
  }

  async function refresh() {
    if (fetching) { again = true; return; }
    if (typing()) { deferred = true; return; }
    fetching = true;
    try {
      const asked = performance.now();
      const response = await fetch(liveUrl, { headers: { Accept: "text/html" }, credentials: "same-origin" });
      if (response.ok) {
        const html = await response.text();
        region.innerHTML = html;
        readClock();
        // Half the round trip had passed when the server wrote the seconds left.
        if (clockLeft !== null) clockLeft -= (performance.now() - asked) / 2000;
        showClock();
        region.dispatchEvent(new CustomEvent("tirage:refreshed", { bubbles: true }));
      }
    } catch (error) {
      // Offline for a moment: the event stream's reconnection brings us back.
    } finally {
      fetching = false;
      if (again) { again = false; refresh(); }
    }
  }

  function connect() {
    const source = new EventSource(region.dataset.eventsUrl);
    let wasLost = false;
    source.addEventListener("open", function () {
      if (lostNotice) lostNotice.hidden = true;
      if (wasLost) { wasLost = false; refresh(); }
    });
    source.addEventListener("error", function () {
      wasLost = true;
      if (lostNotice) lostNotice.hidden = false;
    });
    for (const kind of KINDS) {
      source.addEventListener(kind, function (event) {
        if (kind === "submission") {
          const data = JSON.parse(event.data);
          for (const counter of document.querySelectorAll("[data-submissions]")) {
            counter.textContent = data.submissions;
          }
        }
        if (!ignored.has(kind) && kind !== "submission") refresh();
      });
    }
    return source;
  }

  region.addEventListener("focusout", function () {
    if (deferred) { deferred = false; setTimeout(refresh, 0); }
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") refresh();
  });
  readClock();
  setInterval(showClock, 200);
  setInterval(refresh, RESYNC_MS);
  connect();
})();
