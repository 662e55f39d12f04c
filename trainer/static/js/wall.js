// The word wall's pages (phone, room's screen, director's console): keep the live region in step
// with the wall, count down, and send the phone's words without leaving the page.
//
// The region (#live) names data-live-url, an HTML fragment rendered by the server; it is fetched
// every two seconds (a wall changes only when a word is found, so polling is enough). The region
// is only replaced when the fragment changed, so the page neither flickers nor loses its scroll.
// A page whose live parts are apart (the phone: name and clock above the input, the wall below)
// marks them data-live-part; the fragment then holds one element per part, each put in its place.
// The countdown counts down from the seconds left that the server wrote, on the browser's
// monotonic clock, so a phone whose own clock is wrong still shows the right time.
"use strict";

(function () {
  const region = document.getElementById("live");
  if (!region) return;
  const liveUrl = region.dataset.liveUrl;
  const lostNotice = document.querySelector("[data-connection-lost]");
  const form = document.getElementById("wall-form");
  const POLL_MS = 2000;
  const FEEDBACK_KEPT = 6;
  const SECONDS = /data-seconds-left="([^"]*)"/;
  const CLOCK = /data-seconds-left="[^"]*"([^>]*)>[^<]*</; // the seconds left and the time they show
  const TOKENS = /name="csrf_token" value="[^"]*"/g; // signed afresh on every render: not a change

  // The fragment as it matters to the reader: the clock ticks on its own, so a new time is no change.
  function comparable(html) {
    return html.replace(CLOCK, "$1><").replace(TOKENS, "");
  }

  let clockStart = performance.now();
  let clockLeft = null;
  let shown = null; // the fragment on screen, without its seconds left
  let fetching = false;
  let ended = false;

  function readClock() {
    const clock = document.querySelector(".clock[data-seconds-left]");
    clockLeft = clock ? parseFloat(clock.dataset.secondsLeft) : null;
    clockStart = performance.now();
  }

  function showClock() {
    if (clockLeft === null) return;
    const left = Math.max(0, clockLeft - (performance.now() - clockStart) / 1000);
    const whole = Math.ceil(left);
    const text = Math.floor(whole / 60) + ":" + String(whole % 60).padStart(2, "0");
    for (const clock of document.querySelectorAll(".clock[data-seconds-left]")) {
      if (clock.textContent !== text) clock.textContent = text;
      clock.classList.toggle("ending", whole <= 10);
    }
    if (left <= 0 && !ended) {
      ended = true; // the server finishes the wall on the next read: ask at once
      refresh();
    }
  }

  function place(html) {
    const parts = document.querySelectorAll("[data-live-part]");
    if (!parts.length) { region.innerHTML = html; return; }
    const fresh = document.createElement("div");
    fresh.innerHTML = html;
    for (const part of parts) {
      const content = fresh.querySelector(`[data-live-part="${part.dataset.livePart}"]`);
      if (content) part.innerHTML = content.innerHTML;
    }
  }

  function busy() {
    // Never swap a control the reader is using (a focused button of the console, say) under them.
    const active = document.activeElement;
    return active && region.contains(active) && /^(INPUT|TEXTAREA|SELECT|BUTTON|SUMMARY)$/.test(active.tagName);
  }

  function status() {
    const state = region.querySelector(".live-state");
    return state ? state.dataset.status : "";
  }

  async function refresh() {
    if (fetching) return;
    fetching = true;
    try {
      const asked = performance.now();
      const response = await fetch(liveUrl, { headers: { Accept: "text/html" }, credentials: "same-origin" });
      if (lostNotice) lostNotice.hidden = true;
      if (!response.ok) return;
      const html = await response.text();
      const without = comparable(html);
      if (without !== shown && !busy()) {
        // A <details> the reader opened (the console's "End now") stays open.
        const open = Array.from(region.querySelectorAll("details[open]"), (d) => d.className);
        place(html);
        for (const details of region.querySelectorAll("details")) {
          if (open.includes(details.className)) details.open = true;
        }
        shown = without;
        readClock();
      } else {
        const match = SECONDS.exec(html);
        clockLeft = match ? parseFloat(match[1]) : null;
        clockStart = performance.now();
      }
      // Half the round trip had passed when the server wrote the seconds left.
      if (clockLeft !== null) clockLeft -= (performance.now() - asked) / 2000;
      ended = clockLeft === null;
      showClock();
      followStatus();
    } catch (error) {
      if (lostNotice) lostNotice.hidden = false;
    } finally {
      fetching = false;
    }
  }

  // ---- the phone: one or more words, each judged by the server, the verdicts under the input
  function followStatus() {
    if (!form) return;
    const running = status() === "running";
    if (form.hidden === running) {
      form.hidden = !running;
      if (running) form.querySelector("input[name=word]").focus();
    }
  }

  function say(items) {
    const list = form.querySelector("[data-feedback]");
    for (const item of items.slice().reverse()) {
      const line = document.createElement("li");
      line.className = item.ok ? "success" : "error";
      line.textContent = item.message;
      list.prepend(line);
    }
    while (list.children.length > FEEDBACK_KEPT) list.lastElementChild.remove();
  }

  if (form) {
    const input = form.querySelector("input[name=word]");
    form.addEventListener("submit", async function (event) {
      event.preventDefault();
      if (!input.value.trim()) { input.focus(); return; }
      const body = new FormData(form); // with its csrf_token
      input.value = "";
      input.focus();
      let response;
      try {
        response = await fetch(form.action, { method: "POST", body, headers: { Accept: "application/json" },
          credentials: "same-origin" });
      } catch (error) {
        // No answer at all: offline for a moment. Keep the words and say so.
        input.value = body.get("word");
        say([{ ok: false, message: form.dataset.offlineError }]);
        return;
      }
      let answer;
      try {
        answer = await response.json();
      } catch (error) {
        window.location.reload(); // an error page (an expired form, say): the server's page explains
        return;
      }
      say(answer.results || []);
      refresh();
    });
  }

  // ---- the room's screen: Space starts the wall from the lobby
  const startUrl = region.dataset.startUrl;
  const tokenMeta = document.querySelector("meta[name=csrf-token]");
  if (startUrl && tokenMeta) {
    document.addEventListener("keydown", async function (event) {
      if (event.key !== " " || event.altKey || event.ctrlKey || event.metaKey || status() !== "lobby") return;
      if (/^(INPUT|TEXTAREA|SELECT|BUTTON|A)$/.test(document.activeElement.tagName)) return;
      event.preventDefault();
      const body = new FormData();
      body.set("csrf_token", tokenMeta.content);
      body.set("back", "screen");
      try {
        const response = await fetch(startUrl, { method: "POST", body, headers: { Accept: "application/json" },
          credentials: "same-origin" });
        const answer = await response.json();
        const toast = document.querySelector("[data-toast]");
        if (!answer.ok && toast) {
          toast.textContent = answer.error;
          toast.hidden = false;
          setTimeout(() => { toast.hidden = true; }, 4000);
        }
      } catch (error) {
        if (lostNotice) lostNotice.hidden = false;
      }
      refresh();
    });
  }

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") refresh();
  });
  shown = null; // the first answer is put in place (the page's own copy is serialised differently)
  readClock();
  ended = clockLeft === null;
  setInterval(showClock, 200);
  setInterval(refresh, POLL_MS);
})();
