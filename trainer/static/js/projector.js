// The projector: the director's keyboard shortcuts, and the reveal's pages (the round's details,
// then the standings a page at a time) shown in turn.
"use strict";

(function () {
  const region = document.getElementById("live");
  if (!region) return;
  const actionsUrl = region.dataset.actionsUrl;
  const token = document.querySelector("meta[name=csrf-token]").content;
  const toast = document.querySelector("[data-toast]");
  const PAGE_MS = 10000;
  let rotation = null;

  async function act(action) {
    const body = new FormData();
    body.set("csrf_token", token);
    body.set("back", "projector");
    try {
      const response = await fetch(actionsUrl + "/" + action, {
        method: "POST", body, headers: { Accept: "application/json" }, credentials: "same-origin" });
      const answer = await response.json();
      if (!answer.ok) say(answer.error);
    } catch (error) {
      // The event stream's notice already says when the server cannot be reached.
    }
  }

  function say(message) {
    if (!toast) return;
    toast.textContent = message;
    toast.hidden = false;
    setTimeout(() => { toast.hidden = true; }, 4000);
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (/^(INPUT|TEXTAREA|SELECT|BUTTON|A)$/.test(document.activeElement.tagName) && event.key === " ") return;
    const state = region.querySelector(".live-state");
    const status = state ? state.dataset.status : "";
    if (event.key === " ") {
      event.preventDefault();
      act(status === "lobby" ? "start" : "toggle");
    } else if (event.key === "ArrowRight") {
      event.preventDefault();
      act("next");
    } else if (event.key === "r" || event.key === "R") {
      event.preventDefault();
      act("close");
    }
  });

  // During a reveal, show the details, then each page of the standings, and again.
  function rotate() {
    if (rotation) clearInterval(rotation);
    rotation = null;
    const panels = [region.querySelector(".reveal"), ...region.querySelectorAll("[data-standings-page]")].filter(Boolean);
    if (panels.length < 2) return;
    let shown = 0;
    const show = () => panels.forEach((panel, i) => { panel.hidden = i !== shown; });
    show();
    rotation = setInterval(() => { shown = (shown + 1) % panels.length; show(); }, PAGE_MS);
  }

  region.addEventListener("tirage:refreshed", rotate);
  rotate();
})();
