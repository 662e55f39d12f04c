// The director's console: who has handed in a play in the round in progress (templates/director/_handins.html).
//
// The game's stream says only how many plays are in (live.js dispatches "tirage:submission" on the live region for
// each); the list of who is in is fetched again from the server, at most every THROTTLE_MS whatever the number of
// plays, and only that list, not the whole console. The reader orders it by state (not yet first) or by name; the
// choice is kept in sessionStorage, so it outlives the live region's refreshes and a reload of the page. The list is
// ordered as soon as a new one is in the page, before the browser paints it.
"use strict";

(function () {
  const region = document.getElementById("live");
  if (!region) return;
  const KEY = "tirage.console.handInsOrder";
  const THROTTLE_MS = 2500;
  const collator = new Intl.Collator(document.documentElement.lang || undefined, { sensitivity: "base", numeric: true });

  let chosen = "state"; // the choice when sessionStorage is refused (a private window)
  let lastFetch = -Infinity;
  let timer = null;

  function order() {
    try {
      const kept = sessionStorage.getItem(KEY);
      if (kept === "name" || kept === "state") return kept;
    } catch (error) {
      // Storage refused: the choice made on this page.
    }
    return chosen;
  }

  function arrange() {
    const panel = region.querySelector("[data-hand-ins]");
    if (!panel) return;
    const by = order();
    for (const button of panel.querySelectorAll("button[data-sort]")) {
      button.setAttribute("aria-pressed", String(button.dataset.sort === by));
    }
    const list = panel.querySelector("[data-hand-ins-list]");
    if (!list) return;
    const items = Array.from(list.children);
    items.sort(function (a, b) {
      const state = by === "state" ? Number(a.dataset.in) - Number(b.dataset.in) : 0;
      return state || collator.compare(a.dataset.name, b.dataset.name);
    });
    list.append(...items);
  }

  async function fetchList() {
    timer = null;
    const panel = region.querySelector("[data-hand-ins]");
    if (!panel) return; // no round in progress
    lastFetch = performance.now();
    try {
      const response = await fetch(panel.dataset.url, { headers: { Accept: "text/html" }, credentials: "same-origin",
        cache: "no-store" });
      if (!response.ok) return; // the next play or the live region's refresh brings it
      const html = await response.text();
      const body = region.querySelector("[data-hand-ins-body]");
      const fresh = document.createElement("template");
      fresh.innerHTML = html;
      const next = fresh.content.querySelector("[data-hand-ins-body]");
      // The region may have moved on meanwhile (the round closed): only the same round's list replaces it.
      if (!body || !next || next.dataset.round !== body.dataset.round) return;
      body.replaceWith(next);
      arrange();
    } catch (error) {
      // Offline for a moment: the live region's own refresh brings the list back.
    }
  }

  function plays() {
    if (timer !== null) return;
    timer = setTimeout(fetchList, Math.max(0, lastFetch + THROTTLE_MS - performance.now()));
  }

  region.addEventListener("tirage:submission", plays);
  region.addEventListener("tirage:refreshed", arrange);
  region.addEventListener("click", function (event) {
    const button = event.target.closest("[data-hand-ins] button[data-sort]");
    if (!button) return;
    chosen = button.dataset.sort;
    try {
      sessionStorage.setItem(KEY, button.dataset.sort);
    } catch (error) {
      // Not kept: ordered for now all the same.
    }
    arrange();
  });
  arrange();
})();
