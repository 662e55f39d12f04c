// The projector: the director's keyboard shortcuts (those that cannot be undone act on a second press),
// the reveal's panels in turn (the round's details, then the standings in pages sized to the screen, paced by
// the reveal's length: docs/rules.md §6.6), and the game's optional cues: the "30 seconds left" banner and
// sound, the last seconds' beeps, the spoken draw and top.
//
// live.js renders #live again after every event and every 30 s; what must outlive that (the rotation's
// position, what was already said or beeped) is kept here or in sessionStorage, never in the region.
"use strict";

(function () {
  const region = document.getElementById("live");
  if (!region) return;
  const settings = region.dataset;
  const actionsUrl = settings.actionsUrl;
  const token = document.querySelector("meta[name=csrf-token]").content;
  const toast = document.querySelector("[data-toast]");
  const prompt = document.querySelector("[data-key-prompt]");
  const banner = document.querySelector("[data-cue-banner]");
  const soundWaiting = document.querySelector("[data-sound-waiting]");
  const PAGE_MS = 10000; // each panel of the reveal, at most
  const BRISK_PAGE_MS = 5000; // a page of the standings when a timed reveal has many to show
  const CONFIRM_MS = 2000; // the second press of a key that cannot be undone
  const BANNER_MS = 5000;
  const cueThirty = settings.thirtySecondsCue === "1";
  const endBeeps = settings.endBeeps === "1";
  const speech = settings.spokenAnnouncements === "1" && "speechSynthesis" in window;

  // ---------------------------------------------------------------- what outlives a page of this tab

  const memory = {};
  function remembered(key) {
    try { return sessionStorage.getItem(key); } catch (error) { return memory[key] || null; }
  }
  function remember(key, value) {
    try { sessionStorage.setItem(key, value); } catch (error) { memory[key] = value; }
  }

  function state() {
    return region.querySelector(".live-state");
  }

  // ---------------------------------------------------------------- the director's keys

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

  let pending = null; // the key pressed once: {key, timer}

  function forget() {
    if (pending) clearTimeout(pending.timer);
    pending = null;
    if (prompt) prompt.hidden = true;
  }

  // A key that cannot be undone acts on its second press within CONFIRM_MS; the first says what the second does.
  function twice(key, message, action) {
    if (pending && pending.key === key) {
      forget();
      act(action);
      return;
    }
    forget();
    pending = { key, timer: setTimeout(forget, CONFIRM_MS) };
    if (prompt) {
      prompt.textContent = message;
      prompt.hidden = false;
    }
  }

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (/^(INPUT|TEXTAREA|SELECT|BUTTON|A)$/.test(document.activeElement.tagName) && event.key === " ") return;
    const current = state();
    const status = current ? current.dataset.status : "";
    const key = event.key === "R" ? "r" : event.key;
    if (key !== " " && key !== "ArrowRight" && key !== "r") return;
    event.preventDefault();
    if (event.repeat) return; // a key held down is one press
    if (key === " " && status !== "lobby") {
      forget();
      act("toggle"); // pause and resume undo each other: at once
    } else if (key === " ") {
      twice(key, settings.promptStart, "start");
    } else if (key === "ArrowRight") {
      twice(key, settings.promptNext, "next");
    } else {
      twice(key, settings.promptClose, "close");
    }
  });

  // ---------------------------------------------------------------- the reveal's panels

  // A timed reveal (the game's reveal_seconds) is shared between the round's details (a third of it, 10 s at
  // most) and the pages of the standings (the rest, in equal parts, 10 s each at most); the rotation starts
  // again if time is left. An open reveal (the director's) and the finished game give every panel 10 s, round
  // and round. docs/rules.md §6.6 works an example.
  function timing(pages) {
    const standings = region.querySelector("[data-standings]");
    const reveal = standings ? Number(standings.dataset.revealSeconds) * 1000 : 0;
    if (!reveal) return { reveal: 0, details: PAGE_MS, page: PAGE_MS };
    const details = Math.min(PAGE_MS, reveal / 3);
    return { reveal, details, page: Math.min(PAGE_MS, (reveal - details) / Math.max(1, pages)) };
  }

  // The panel shown follows the time since this round's reveal began (the server says how much of a timed reveal
  // is left; an open one begins when this tab first shows it), so a refresh (every event, every 30 s) or a reload
  // finds the same panel, and every page of the standings comes in turn.
  function showPanel() {
    const current = state();
    const details = region.querySelector(".reveal");
    if (!current || !details) return;
    const pages = Array.from(region.querySelectorAll("[data-standings-page]"));
    const standings = region.querySelector("[data-standings]");
    const key = "tirage:rotation:" + current.dataset.game + ":" + current.dataset.round;
    let start = Number(remembered(key));
    if (!start) {
      const { reveal } = timing(pages.length);
      const left = standings ? Number(standings.dataset.revealLeft) * 1000 : 0;
      start = Date.now() - (reveal && left ? Math.max(0, reveal - left) : 0);
      remember(key, String(start));
    }
    const times = timing(pages.length);
    const round = times.details + pages.length * times.page;
    const elapsed = Math.max(0, Date.now() - start) % round;
    const shown = elapsed < times.details ? 0 : Math.min(pages.length, 1 + Math.floor((elapsed - times.details) / times.page));
    const panel = shown === 0 ? "details" : "standings-" + shown;
    if (current.dataset.panel === panel) return;
    current.dataset.panel = panel;
    current.classList.toggle("showing-standings", shown > 0);
    pages.forEach((page, i) => { page.hidden = i + 1 !== shown; });
    fit();
  }

  // ---------------------------------------------------------------- the standings' pages

  const COLUMN_GAP_EM = 0.5; // between two columns of standings
  const MAX_COLUMNS = 4;

  // The rows of the standings in pages that fill the screen, in as many columns as its width takes. The text is
  // as large as the stylesheet makes it (a 30th of the screen's height or more) when the pages fit the time; a
  // timed reveal with more pages than it has time for at 10 s each has them smaller, down to that 30th, then,
  // if pages of 5 s do not fit either, down to a 45th (a room of 200 on a 1024×768 screen). The sizes tried go
  // down by 6 % at a time; each is measured (long names wrap, so rows differ in height).
  function layOut() {
    const standings = region.querySelector("[data-standings]");
    const template = standings && standings.querySelector("template[data-standings-source]");
    if (!template) return;
    standings.querySelectorAll("[data-standings-page], .standings-source").forEach((page) => page.remove());
    // The rows are laid out out of sight from the template, measured, then copied into the pages.
    const source = document.createElement("div");
    source.className = "standings-source measuring";
    source.append(template.content.cloneNode(true));
    standings.append(source);
    const rows = Array.from(source.querySelectorAll("tbody tr"));
    // Measured as a page is shown: the room under the bar, the standings' own font size.
    const width = region.clientWidth, height = region.getBoundingClientRect().height;
    const base = parseFloat(getComputedStyle(source).fontSize);
    const legible = Math.min(base, window.innerHeight / 30);
    const smallest = Math.min(legible, window.innerHeight / 45);
    const columnEm = parseFloat(getComputedStyle(source.querySelector("table")).getPropertyValue("--column-em")) || 24;
    const sizes = [];
    for (let size = base; size > legible; size *= 0.94) sizes.push(size);
    sizes.push(legible);
    for (let size = legible * 0.94; size > smallest; size *= 0.94) sizes.push(size);
    sizes.push(smallest);

    const cache = new Map();
    function pagesAt(size) {
      if (cache.has(size)) return cache.get(size);
      const gap = COLUMN_GAP_EM * size;
      const columns = Math.max(1, Math.min(MAX_COLUMNS, Math.floor((width + gap) / (columnEm * size + gap))));
      const columnWidth = (width - (columns - 1) * gap) / columns;
      source.style.fontSize = size + "px";
      source.style.width = columnWidth + "px";
      const table = source.querySelector("table");
      const body = table.tBodies[0];
      const top = table.getBoundingClientRect().top;
      const head = body.getBoundingClientRect().top - top;
      const note = source.getBoundingClientRect().bottom - table.getBoundingClientRect().bottom;
      const room = height - head - note - 4; // for the rows of a column
      // A name longer than its column is made smaller, by a quarter at most and not below a 30th of the screen's
      // height, then wraps as it must: all of it is shown.
      const names = rows.map((row) => row.cells[1]);
      names.forEach((cell) => { cell.style.fontSize = ""; });
      const smaller = Math.max(0.75 * size, Math.min(size, legible)) + "px";
      const tall = names.filter((cell) => cell.getBoundingClientRect().height > 1.6 * size);
      tall.forEach((cell) => { cell.style.fontSize = smaller; });
      const heights = rows.map((row) => row.getBoundingClientRect().height);
      const filled = []; // the columns, each a list of rows
      let column = [], used = 0;
      heights.forEach((rowHeight, i) => {
        if (column.length && used + rowHeight > room) {
          filled.push(column);
          column = [];
          used = 0;
        }
        column.push(rows[i]);
        used += rowHeight;
      });
      if (column.length) filled.push(column);
      const laid = { size, gap, columns, pages: [], long: new Set(tall.map((cell) => cell.parentElement)), smaller };
      for (let i = 0; i < filled.length; i += columns) laid.pages.push(filled.slice(i, i + columns));
      cache.set(size, laid);
      return laid;
    }

    const reveal = timing(1).reveal;
    const budget = reveal ? reveal - timing(1).details : Infinity;
    const fits = (pageMs) => (size) => size >= legible - 0.01 && pagesAt(size).pages.length * pageMs <= budget;
    let chosen = sizes.find(fits(PAGE_MS)) || sizes.find(fits(BRISK_PAGE_MS));
    if (!chosen) chosen = sizes.find((size) => pagesAt(size).pages.length * BRISK_PAGE_MS <= budget) || smallest;
    const laid = pagesAt(chosen);
    build(standings, source, laid);
    source.remove();
  }

  // The pages themselves: a copy of the table for each column, its caption shown over the first.
  function build(standings, source, laid) {
    const wrap = source.querySelector(".table-wrap");
    const note = source.querySelector(".note");
    const empty = wrap.cloneNode(true);
    empty.removeAttribute("role");
    empty.removeAttribute("tabindex");
    empty.removeAttribute("aria-label");
    empty.querySelector("tbody").replaceChildren();
    const total = laid.pages.length;
    const fill = (text, page) => text.replace("{page}", page).replace("{pages}", total);
    const current = state();
    const shown = current && current.dataset.panel ? current.dataset.panel.replace("standings-", "") : "";
    laid.pages.forEach((columns, i) => {
      const section = document.createElement("section");
      section.className = "standings-page";
      section.dataset.standingsPage = String(i + 1);
      section.setAttribute("aria-label", fill(standings.dataset.pageLabel, i + 1));
      section.hidden = shown !== String(i + 1);
      section.style.fontSize = laid.size + "px";
      const grid = document.createElement("div");
      grid.className = "standings-columns";
      grid.style.gridTemplateColumns = "repeat(" + laid.columns + ", minmax(0, 1fr))";
      grid.style.columnGap = laid.gap + "px";
      columns.forEach((rows, c) => {
        const column = empty.cloneNode(true);
        const caption = column.querySelector("caption");
        caption.textContent = fill(standings.dataset.caption, i + 1);
        if (c > 0) caption.classList.add("continued"); // the first column's says it; the others keep the space
        column.querySelector("tbody").append(...rows.map((row) => {
          const copy = row.cloneNode(true);
          copy.cells[1].style.fontSize = laid.long.has(row) ? laid.smaller : ""; // as measured at this size
          return copy;
        }));
        grid.append(column);
      });
      section.append(grid);
      if (note) section.append(note.cloneNode(true));
      standings.append(section);
    });
  }

  // ---------------------------------------------------------------- nothing cut

  // The stylesheet sizes the text from the screen; a panel of the side with more to say than usual (a dozen tops,
  // long names) is made smaller until it ends above the bottom of the screen. The standings' pages are sized as
  // they are laid out; one that still ends below it (a name wrapped once more than measured) is made smaller too.
  function fit() {
    for (const panel of region.querySelectorAll(".screen-side > section")) {
      panel.style.fontSize = "";
      shrink(panel, window.innerHeight - 2, 0.92);
    }
    const page = region.querySelector(".standings-page:not([hidden])");
    if (page) shrink(page, region.getBoundingClientRect().bottom + 1, 0.97);
  }

  function shrink(panel, bottom, step) {
    let size = parseFloat(getComputedStyle(panel).fontSize);
    for (let i = 0; i < 12 && panel.getBoundingClientRect().bottom > bottom; i++) {
      size *= step;
      panel.style.fontSize = size + "px";
    }
  }

  // ---------------------------------------------------------------- sound

  let audio = null;
  let unlocked = false;

  // Browsers keep a page silent until its first key press or click: the projector's first key unlocks it.
  function unlock() {
    if (unlocked || !soundWaiting) return;
    unlocked = true;
    const Context = window.AudioContext || window.webkitAudioContext;
    if ((cueThirty || endBeeps) && Context) {
      try {
        audio = new Context();
        audio.resume();
      } catch (error) {
        audio = null;
      }
    }
    soundWaiting.hidden = true;
  }

  function tone(frequency, seconds, delay) {
    if (!audio) return;
    const start = audio.currentTime + (delay || 0);
    const oscillator = audio.createOscillator();
    const gain = audio.createGain();
    oscillator.type = "sine";
    oscillator.frequency.value = frequency;
    // A short fade in and out: a sound cut dead clicks.
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(0.5, start + 0.02);
    gain.gain.setValueAtTime(0.5, start + seconds - 0.05);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + seconds);
    oscillator.connect(gain).connect(audio.destination);
    oscillator.start(start);
    oscillator.stop(start + seconds);
  }

  function speak(text) {
    const utterance = new SpeechSynthesisUtterance(text);
    utterance.lang = settings.speechLang;
    utterance.rate = 0.85;
    window.speechSynthesis.speak(utterance);
  }

  if (soundWaiting) {
    document.addEventListener("keydown", unlock, true);
    document.addEventListener("pointerdown", unlock, true);
    const button = soundWaiting.querySelector("[data-sound-on]");
    if (button) button.addEventListener("click", function () { unlock(); button.blur(); });
    if (navigator.userActivation && navigator.userActivation.hasBeenActive) unlock();
  }

  // ---------------------------------------------------------------- spoken announcements

  // Once per round in this tab: a refresh or a reload does not say it again.
  function once(what) {
    const current = state();
    const key = "tirage:spoken:" + current.dataset.game + ":" + current.dataset.round + ":" + what;
    if (remembered(key)) return false;
    remember(key, "1");
    return true;
  }

  // The draw as an arbiter reads it: the letters in order, the blanks last, each on its own.
  function drawText(letters) {
    const tiles = letters.filter((letter) => letter !== "?").sort();
    const blanks = letters.filter((letter) => letter === "?").map(() => settings.sayBlank);
    return tiles.concat(blanks).join(", ");
  }

  function announce() {
    const current = state();
    if (!speech || !current) return;
    const status = current.dataset.status;
    const rack = region.querySelector(".round .rack");
    if ((status === "playing" || status === "paused") && rack && once("draw")) {
      const letters = Array.from(rack.querySelectorAll("[data-letter]"), (tile) => tile.dataset.letter);
      if (letters.length) speak(drawText(letters));
    }
    const top = region.querySelector(".reveal .top-play[data-top]");
    if (top && top.dataset.top && once("top")) {
      const [square, word] = top.dataset.top.split(" ");
      speak(settings.sayTop.replace("{square}", square).replace("{word}", topWord(word || ""))
        .replace("{score}", top.dataset.topScore));
    }
  }

  // The top's word as the arbiter says it: read as a word (in capitals it may be spelt out), then which letter each
  // blank stands for ("blank as S"), as the notation writes a blank in lower case.
  function topWord(word) {
    const blanks = Array.from(word).filter((letter) => letter !== letter.toUpperCase())
      .map((letter) => settings.sayBlankAs.replace("{letter}", letter.toUpperCase()));
    return [word.toLowerCase()].concat(blanks).join(", ");
  }

  // ---------------------------------------------------------------- the clock's cues

  const rounds = {}; // by round number: what was seen and given of its cues

  function seconds(text) {
    const match = /^(\d+):(\d\d)$/.exec(text.trim());
    return match ? Number(match[1]) * 60 + Number(match[2]) : null;
  }

  function hideBanner() {
    if (banner) banner.hidden = true;
  }

  // Reads the countdown live.js shows, so the cues keep time with what the room sees.
  function cues() {
    const current = state();
    if (!current) return;
    const number = current.dataset.round;
    const seen = rounds[number] || (rounds[number] = { above: 0, beeped: {}, running: false, closed: false });
    const clock = region.querySelector(".clock[data-seconds-left]");
    const running = current.dataset.status === "playing" && clock && clock.dataset.running === "1";
    const left = running ? seconds(clock.textContent) : null;
    document.body.classList.toggle("last-seconds", cueThirty && left !== null && left <= 30);
    if (left === null) {
      hideBanner();
      // Closed before the clock ran out (the director's R): the close is still marked.
      const closed = current.dataset.status === "revealing" || current.dataset.status === "finished";
      if (closed && seen.running && !seen.closed) {
        seen.closed = true;
        if (endBeeps) tone(660, 0.9);
      }
      return;
    }
    seen.running = true;
    seen.above = Math.max(seen.above, left);
    if (cueThirty && !seen.thirty && left <= 30 && left > 0 && seen.above > 30) {
      seen.thirty = true;
      if (banner) {
        banner.hidden = false;
        setTimeout(hideBanner, BANNER_MS);
      }
      tone(660, 0.18);
      tone(990, 0.3, 0.2);
    }
    if (endBeeps && left >= 1 && left <= 5 && !seen.beeped[left]) {
      seen.beeped[left] = true;
      tone(880, 0.15);
    }
    if (endBeeps && left === 0 && !seen.closed) {
      seen.closed = true;
      tone(660, 0.9);
    }
  }

  // ---------------------------------------------------------------- in step with the region

  function update() {
    layOut();
    showPanel();
    fit();
    announce();
    cues();
  }

  region.addEventListener("tirage:refreshed", update);
  window.addEventListener("resize", function () {
    layOut();
    showPanel();
    fit();
  });
  setInterval(showPanel, 500);
  setInterval(cues, 200);
  update();
})();
