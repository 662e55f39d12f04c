// Keeps a page's live region in step with its game, and runs the countdown.
//
// The region (#live) names two addresses: data-events-url, the game's Server-Sent Events, and
// data-live-url, an HTML fragment of the region rendered by the server. Each event (but those in
// data-ignore-events) fetches the fragment again. The countdown counts down from the seconds left
// that the server wrote into the fragment, measured on the browser's monotonic clock, so a phone
// whose clock is wrong still shows the right time.
//
// Connections die without saying so (a phone leaves the Wi-Fi, a proxy drops an idle stream): the
// server sends a named "heartbeat" event every few seconds, and a stream silent for more than two
// heartbeats is closed and opened again from the last event seen. A fetch of the fragment that fails
// is tried again after 1 s, 2 s, 4 s... (at most 10 s apart) until it works, and the page says
// "reconnecting" meanwhile; coming back online reconnects at once.
//
// A fragment may carry parts that the page shows outside the region: an element with
// data-live-part="name" replaces the content of the page's [data-live-part-target="name"] (the
// phone keeps its clock, rack and play line in a bar stuck to the top of the screen).
//
// A phone whose place was taken over by another (a rejoin) or whose player was removed is told so on its stream
// (a "revoked" event, data {"reason": "taken_over" | "player_removed"}): the page shows its
// [data-revoked="<reason>"] notice, hides the play form and stops listening and refreshing. So it does when the
// fragment is answered 401 with an X-Tirage-Revoked header, or when another script dispatches "tirage:revoked"
// (detail: the reason) on the region (play.js, when a play is refused for that reason).
//
// Events the page's other scripts can listen to, on the region: "tirage:refreshed" after each new
// fragment, "tirage:tick" (detail: whole seconds left) each time the running clock shows a new second,
// "tirage:submission" (detail: the event's data, the count of plays in) for each play handed in.
"use strict";

(function () {
  const region = document.getElementById("live");
  if (!region) return;
  const liveUrl = region.dataset.liveUrl;
  const ignored = new Set((region.dataset.ignoreEvents || "").split(" ").filter(Boolean));
  const lostNotice = document.querySelector("[data-connection-lost]");
  // ruled, ruling_cancelled and bulletin_declared change a closed round's results (docs/rules.md §6.19, §6.21).
  const KINDS = ["created", "joined", "round_started", "submission", "paused", "resumed", "extended",
    "round_closed", "placed", "corrected", "ruled", "ruling_cancelled", "bulletin_declared", "finished", "renamed",
    "removed"];
  const RESYNC_MS = 30000;
  const HEARTBEAT_MS = (parseFloat(region.dataset.heartbeatSeconds) || 15) * 1000;
  const SILENCE_MS = 2 * HEARTBEAT_MS + 3000; // no event and no heartbeat for this long: the stream is dead
  const RETRY_FIRST_MS = 1000;
  const RETRY_MAX_MS = 10000;

  let clockStart = 0;
  let clockLeft = null;
  let shownSecond = null;
  let fetching = false;
  let again = false;
  let deferred = false;
  let refreshFailures = 0;
  let refreshTimer = null;
  let source = null;
  let lastEventId = "";
  let lastHeard = performance.now();
  let streamFailures = 0;
  let streamTimer = null;
  let streamLost = false;
  let refreshLost = false;
  let revoked = false;

  const backoff = (failures) => Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.max(0, failures - 1));

  function showLost() {
    if (lostNotice) lostNotice.hidden = !(streamLost || refreshLost);
  }

  function readClock() {
    const clock = region.querySelector(".clock[data-seconds-left]") ||
      document.querySelector("[data-live-part] .clock[data-seconds-left]");
    clockLeft = clock ? parseFloat(clock.dataset.secondsLeft) : null;
    clockStart = performance.now();
    shownSecond = null;
  }

  function clocks() {
    return document.querySelectorAll("#live .clock[data-seconds-left], [data-live-part] .clock[data-seconds-left]");
  }

  function showClock() {
    if (clockLeft === null) return;
    let running = false;
    const left = Math.max(0, clockLeft - (performance.now() - clockStart) / 1000);
    const whole = Math.ceil(left);
    for (const clock of clocks()) {
      if (clock.dataset.running !== "1") continue;
      running = true;
      const text = Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
      if (clock.textContent !== text) clock.textContent = text;
      clock.classList.toggle("ending", whole <= 10);
    }
    if (running && whole !== shownSecond) {
      shownSecond = whole;
      region.dispatchEvent(new CustomEvent("tirage:tick", { bubbles: true, detail: { left: whole } }));
    }
  }

  function typing() {
    // Never replace a form the reader is filling in (a correction, say): wait for them to leave it.
    const active = document.activeElement;
    return active && region.contains(active) && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName);
  }

  // Parts of the fragment shown elsewhere on the page.
  function placeParts() {
    for (const part of region.querySelectorAll("[data-live-part]")) {
      const target = document.querySelector(`[data-live-part-target="${part.dataset.livePart}"]`);
      if (!target) continue;
      target.replaceChildren(part);
    }
  }

  function retryRefresh() {
    refreshFailures += 1;
    refreshLost = true;
    showLost();
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refresh, backoff(refreshFailures));
  }

  async function refresh() {
    if (revoked) return;
    if (fetching) { again = true; return; }
    if (typing()) { deferred = true; return; }
    clearTimeout(refreshTimer);
    refreshTimer = null;
    fetching = true;
    let done = false;
    try {
      const asked = performance.now();
      const response = await fetch(liveUrl, { headers: { Accept: "text/html" }, credentials: "same-origin",
        cache: "no-store" });
      if (response.ok) {
        const html = await response.text();
        region.innerHTML = html;
        placeParts();
        readClock();
        // Half the round trip had passed when the server wrote the seconds left.
        if (clockLeft !== null) clockLeft -= (performance.now() - asked) / 2000;
        showClock();
        done = true;
        region.dispatchEvent(new CustomEvent("tirage:refreshed", { bubbles: true }));
      } else if (response.status === 401 && response.headers.get("X-Tirage-Revoked")) {
        revoke(response.headers.get("X-Tirage-Revoked"));
        done = true;
      } else if (response.status < 500 && response.status !== 429 && response.status !== 408) {
        done = true; // an answer that trying again will not change (the player was removed, say)
      }
    } catch (error) {
      // Offline for a moment: try again below.
    } finally {
      fetching = false;
      if (done) {
        refreshFailures = 0;
        refreshLost = false;
        showLost();
      } else {
        retryRefresh();
      }
      if (again) { again = false; refresh(); }
    }
  }

  function heard() {
    lastHeard = performance.now();
  }

  function reconnectLater() {
    streamFailures += 1;
    clearTimeout(streamTimer);
    streamTimer = setTimeout(connect, backoff(streamFailures));
  }

  function connect() {
    if (revoked) return;
    clearTimeout(streamTimer);
    streamTimer = null;
    if (source) source.close();
    const url = new URL(region.dataset.eventsUrl, location.href);
    if (lastEventId) url.searchParams.set("last_event_id", lastEventId);
    const opened = new EventSource(url);
    source = opened;
    heard();
    let wasLost = streamLost;
    opened.addEventListener("open", function () {
      heard();
      streamFailures = 0;
      streamLost = false;
      showLost();
      if (wasLost) { wasLost = false; refresh(); }
    });
    opened.addEventListener("error", function () {
      if (source !== opened) return;
      wasLost = true;
      streamLost = true;
      showLost();
      // A stream the browser gave up on (an error status) is not retried by EventSource itself.
      if (opened.readyState === EventSource.CLOSED) reconnectLater();
    });
    opened.addEventListener("heartbeat", heard);
    opened.addEventListener("revoked", function (event) {
      let reason = "";
      try { reason = JSON.parse(event.data).reason; } catch (error) { /* shown as taken over below */ }
      revoke(reason);
    });
    for (const kind of KINDS) {
      opened.addEventListener(kind, function (event) {
        heard();
        if (event.lastEventId) lastEventId = event.lastEventId;
        // A topping page (data-refresh-on-plays) shows who found the top: a play changes it.
        if (kind === "submission" && !("refreshOnPlays" in region.dataset)) {
          const data = JSON.parse(event.data);
          for (const counter of document.querySelectorAll("[data-submissions]")) {
            counter.textContent = data.submissions;
          }
          region.dispatchEvent(new CustomEvent("tirage:submission", { bubbles: true, detail: data }));
          return;
        }
        if (!ignored.has(kind)) refresh();
      });
    }
  }

  // This phone plays no more: say why, and stop.
  function revoke(reason) {
    revoked = true;
    if (source) source.close();
    clearTimeout(streamTimer);
    clearTimeout(refreshTimer);
    streamLost = refreshLost = false;
    showLost();
    const notice = document.querySelector(`[data-revoked="${reason}"]`) ||
      document.querySelector('[data-revoked="taken_over"]');
    if (notice) {
      notice.hidden = false;
      notice.scrollIntoView({ block: "nearest" });
    }
    const playForm = document.getElementById("play-form");
    if (playForm) playForm.hidden = true;
  }

  // A stream that has said nothing for two heartbeats is dead, whatever the browser thinks of it.
  function watch() {
    if (revoked) return;
    if (performance.now() - lastHeard > SILENCE_MS) {
      streamLost = true;
      showLost();
      connect();
    }
  }

  // Another script asks for the fragment again (the play page, after a topping play: found, or one more wrong play).
  region.addEventListener("tirage:refresh", function () { refresh(); });
  region.addEventListener("tirage:revoked", function (event) { revoke(event.detail); });
  region.addEventListener("focusout", function () {
    if (deferred) { deferred = false; setTimeout(refresh, 0); }
  });
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") refresh();
  });
  window.addEventListener("online", function () {
    refreshFailures = 0;
    streamFailures = 0;
    connect();
    refresh();
  });
  window.addEventListener("offline", function () {
    streamLost = true;
    showLost();
  });
  placeParts();
  readClock();
  setInterval(showClock, 200);
  setInterval(refresh, RESYNC_MS);
  setInterval(watch, 2000);
  connect();
})();
