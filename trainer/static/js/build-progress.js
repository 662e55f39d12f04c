// A deck or a lexicon being built (templates/drills/building.html, templates/lexicons/lexicon.html), a word list being
// read (templates/lexicons/reading.html): asks for its progress every second and moves the bar; once its status
// changes from the page's (data-status, "building" by default: built, read, or could not be), the page is loaded
// again and says so.
"use strict";
(function () {
  const region = document.querySelector("[data-build-progress]");
  if (!region) return;
  const bar = region.querySelector("progress");
  const said = region.querySelector("[data-per-cent]");
  async function look() {
    try {
      const answer = await fetch(region.dataset.statusUrl, { headers: { Accept: "application/json" } });
      if (answer.ok) {
        const build = await answer.json();
        if (build.status !== (region.dataset.status || "building")) {
          window.location.reload();
          return;
        }
        bar.value = build.progress;
        bar.textContent = `${build.progress} %`;
        said.textContent = String(build.progress);
      }
    } catch (error) {
      // the server is away for a moment: ask again
    }
    window.setTimeout(look, 1000);
  }
  window.setTimeout(look, 1000);
})();
