// The player's play, three ways (the page's help says them in these words):
//   1. type it in notation ("8D HUMBLE");
//   2. tap the first square, tap Across or Down, type the word (the letters keep going into the input);
//   3. tap the first square, then tap the rack's tiles in order (the blank asks for its letter).
// Whatever the way, the input holds the play in notation, the board previews it with its direction in
// words, and the play is handed in without leaving the page. After the round's close the input is
// cleared. The server checks everything again: this script only helps to write the play.
//
// Case (docs/rules.md §5.4): a word all in small letters (or all in capitals) is the keyboard's case:
// capitals. Small letters among capitals are blanks (HUMbLE). A blank is only ever used where the player
// marks it: a capital the rack lacks is refused by the server, never silently played with the blank.
"use strict";

(function () {
  const form = document.getElementById("play-form");
  const region = document.getElementById("live");
  if (!form || !region) return;
  const input = form.querySelector("#move");
  const roundField = form.querySelector("input[name=round]");
  const errorLine = form.querySelector("[data-play-error]");
  const previewLine = form.querySelector("[data-play-preview]");
  const picker = form.querySelector("[data-blank-picker]");
  const directionButtons = form.querySelectorAll("[data-direction]");
  const zoomButton = document.querySelector("[data-zoom]");
  const announcer = document.querySelector("[data-announcer]");
  const french = form.dataset.notation === "french";
  const ZOOM_KEY = "tirage.board-zoomed";
  let across = true;
  let written = ""; // the coordinate this script last wrote (a typed one may deserve a word on notation)
  let tiled = null; // the input as tapping tiles last wrote it: its case is the tiles' own, not the keyboard's
  let announcedRound = null;
  let announcedReveal = null;

  const fill = (template, values) => template.replace(/\{(\w+)\}/g, (match, key) => (key in values ? values[key] : match));
  const letterName = (i) => String.fromCharCode(65 + i);

  function now() {
    return document.querySelector('[data-live-part-target="now"]') || region;
  }

  function state() {
    return region.querySelector(".live-state");
  }

  // ---------------------------------------------------------------- notation

  function coordinate(row, col, horizontal) {
    // English: 8D across, D8 down. French: H4 across, 4H down.
    if (french) return horizontal ? letterName(row) + (col + 1) : (col + 1) + letterName(row);
    return horizontal ? (row + 1) + letterName(col) : letterName(col) + (row + 1);
  }

  function parseCoordinate(text) {
    let m = /^([A-Za-z])(\d{1,2})$/.exec(text);
    if (m) {
      const letter = m[1].toUpperCase().charCodeAt(0) - 65, number = parseInt(m[2], 10) - 1;
      return french ? { row: letter, col: number, horizontal: true } : { row: number, col: letter, horizontal: false };
    }
    m = /^(\d{1,2})([A-Za-z])$/.exec(text);
    if (m) {
      const number = parseInt(m[1], 10) - 1, letter = m[2].toUpperCase().charCodeAt(0) - 65;
      return french ? { row: letter, col: number, horizontal: false } : { row: number, col: letter, horizontal: true };
    }
    return null;
  }

  // The row and the column of a square as the board's labels name them.
  function labels(row, col) {
    return french ? { row: letterName(row), col: col + 1 } : { row: row + 1, col: letterName(col) };
  }

  function keyboardCase(word) {
    return /[A-Z]/.test(word) && /[a-z]/.test(word) ? word : word.toUpperCase();
  }

  function split(text) {
    const parts = text.trim().split(/\s+/);
    return { square: parts[0] || "", word: parts.slice(1).join("") };
  }

  // ---------------------------------------------------------------- the board

  function cell(row, col) {
    return region.querySelector(`td.sq[data-row="${row}"][data-col="${col}"]`);
  }

  function rackLetters() {
    return Array.from(now().querySelectorAll(".rack [data-letter]"), (tile) => tile.dataset.letter);
  }

  // The squares a written play covers: letters on the board are "through", the others new.
  function squaresOf(start, word) {
    const squares = [];
    let row = start.row, col = start.col;
    for (const ch of word.replace(/[()]/g, "")) {
      const square = cell(row, col);
      if (!square) return null;
      const through = Boolean(square.dataset.letter) || ch === ".";
      squares.push({ square, letter: through ? square.dataset.letter : ch, through });
      if (start.horizontal) col += 1; else row += 1;
    }
    return squares;
  }

  // The play in the input as it would be handed in: which tiles of the rack it takes (small letters take
  // the blanks) and how many blanks it lacks.
  function placement(text) {
    const { square, word } = split(text);
    const start = parseCoordinate(square);
    if (!start || !word) return null;
    const squares = squaresOf(start, text === tiled ? word : keyboardCase(word));
    if (!squares) return null;
    const rack = rackLetters();
    const used = [];
    const take = (letter) => {
      const i = rack.findIndex((t, j) => t === letter && !used.includes(j));
      if (i >= 0) used.push(i);
      return i >= 0;
    };
    let blanksMissing = 0;
    for (const item of squares) {
      if (!item.through && item.letter !== item.letter.toUpperCase() && !take("?")) blanksMissing += 1;
    }
    for (const item of squares) {
      if (item.through || item.letter !== item.letter.toUpperCase()) continue;
      take(item.letter);
    }
    return { start, squares, square, used, blanksMissing };
  }

  function ghost(square, letter, kind) {
    const tile = document.createElement("span");
    tile.className = `ghost tile ${kind}` + (letter !== letter.toUpperCase() ? " blank" : "");
    tile.textContent = letter.toUpperCase();
    tile.setAttribute("aria-hidden", "true");
    (square.querySelector("button") || square).appendChild(tile);
  }

  function clearMarks(kinds) {
    for (const square of region.querySelectorAll(kinds.map((k) => "td.sq." + k).join(","))) {
      square.classList.remove(...kinds);
      for (const tile of square.querySelectorAll(".ghost")) {
        if (kinds.some((k) => tile.classList.contains(k))) tile.remove();
      }
    }
  }

  function clearPreview() {
    clearMarks(["preview", "preview-through", "selected"]);
    for (const square of region.querySelectorAll("td.sq[data-play-direction]")) delete square.dataset.playDirection;
    for (const tile of now().querySelectorAll(".rack .tile.used")) tile.classList.remove("used");
    previewLine.textContent = "";
  }

  // The play handed in, drawn on the board in the player's own colour until the reveal.
  function drawMine() {
    clearMarks(["mine"]);
    const line = now().querySelector(".submitted[data-submitted]");
    const open = state() && state().dataset.roundOpen === "1";
    if (!line || !open) return;
    const { square, word } = split(line.dataset.submitted);
    const start = parseCoordinate(square);
    const squares = start ? squaresOf(start, word) : null;
    for (const item of squares || []) {
      if (item.through) continue;
      item.square.classList.add("mine");
      ghost(item.square, item.letter, "mine");
    }
  }

  // The direction buttons show the direction of the play as written, however it was written.
  function showDirection(horizontal) {
    across = horizontal;
    for (const button of directionButtons) {
      button.setAttribute("aria-pressed", String((button.dataset.direction === "across") === horizontal));
    }
  }

  function describe(start, typed) {
    const where = labels(start.row, start.col);
    let text = fill(start.horizontal ? form.dataset.acrossText : form.dataset.downText, where);
    if (typed && !start.horizontal) {
      text += ". " + fill(form.dataset.otherNotationText, { square: typed, across: coordinate(start.row, start.col, true) });
    }
    return text;
  }

  function preview() {
    clearPreview();
    const { square } = split(input.value);
    const start = parseCoordinate(square);
    if (!start) return null;
    showDirection(start.horizontal);
    previewLine.textContent = describe(start, square.toUpperCase() === written ? "" : square.toUpperCase());
    // The direction on the square the play starts from, big enough to notice before typing the word.
    const first = cell(start.row, start.col);
    if (first) first.dataset.playDirection = start.horizontal ? "across" : "down";
    const play = placement(input.value);
    if (!play) {
      if (first) first.classList.add("selected");
      return null;
    }
    for (const item of play.squares) {
      if (item.through) { item.square.classList.add("preview-through"); continue; }
      item.square.classList.add("preview");
      ghost(item.square, item.letter, "preview");
    }
    const tiles = now().querySelectorAll(".rack .tile");
    for (const i of play.used) if (tiles[i]) tiles[i].classList.add("used");
    return play;
  }

  // The play as it is handed in: capitals, blanks in small letters, letters on the board as they are.
  function handedInText() {
    const play = placement(input.value);
    if (!play) return input.value.trim();
    const word = play.squares.map((item) => (item.through ? item.letter.toUpperCase() : item.letter)).join("");
    return play.square.toUpperCase() + " " + word;
  }

  function write(square, word) {
    written = square;
    input.value = square + " " + word;
    preview();
  }

  function caretToEnd() {
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  }

  function setError(message) {
    errorLine.textContent = message;
    if (message) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
  }

  // ---------------------------------------------------------------- the three ways in

  region.addEventListener("click", function (event) {
    const square = event.target.closest("td.sq");
    if (!square || !square.querySelector("button") || input.disabled) return;
    const row = parseInt(square.dataset.row, 10), col = parseInt(square.dataset.col, 10);
    const { square: typed, word } = split(input.value);
    const start = parseCoordinate(typed);
    // Tapping the chosen square again turns the direction.
    if (start && start.row === row && start.col === col) across = !across;
    setError("");
    write(coordinate(row, col, across), start ? word : "");
    caretToEnd();
  });

  // Tapping a button must not take the letters away from the input: the focus stays where it was.
  function keepFocus(button) {
    button.addEventListener("mousedown", (event) => event.preventDefault());
  }

  for (const button of directionButtons) {
    keepFocus(button);
    button.addEventListener("click", function () {
      const horizontal = button.dataset.direction === "across";
      showDirection(horizontal);
      const { square, word } = split(input.value);
      const start = parseCoordinate(square);
      if (start) write(coordinate(start.row, start.col, horizontal), word);
      caretToEnd();
    });
  }

  // A tile tapped goes after the word, stepping over the letters already on the board.
  function addLetter(letter) {
    const { square, word } = split(input.value);
    const start = parseCoordinate(square);
    if (!start) { setError(form.dataset.squareFirstText); return; }
    setError("");
    let next = word.replace(/[()]/g, "");
    let row = start.row + (start.horizontal ? 0 : next.length), col = start.col + (start.horizontal ? next.length : 0);
    const step = () => { if (start.horizontal) col += 1; else row += 1; };
    const boardLetters = () => {
      let letters = "";
      for (let onBoard = cell(row, col); onBoard && onBoard.dataset.letter; onBoard = cell(row, col)) {
        letters += onBoard.dataset.letter.toUpperCase();
        step();
      }
      return letters;
    };
    const typed = input.value !== tiled;
    next += boardLetters();
    // The word so far (typed: in the keyboard's case rule, all small meaning capitals), then the tile: a capital
    // from the rack, a small letter for the blank; then the letters of the board it runs into, which the word
    // holds too.
    next = (typed ? keyboardCase(next) : next) + letter;
    step();
    next += boardLetters();
    write(square.toUpperCase(), next);
    tiled = input.value;
  }

  now().addEventListener("click", onRackTap);
  function onRackTap(event) {
    const button = event.target.closest(".rack .tile-button");
    if (!button || form.hidden || input.disabled) return;
    const tile = button.closest(".tile");
    if (tile.classList.contains("used")) return;
    if (tile.dataset.letter === "?") {
      if (!parseCoordinate(split(input.value).square)) { setError(form.dataset.squareFirstText); return; }
      picker.hidden = false;
      const first = picker.querySelector("button");
      if (first) first.focus();
      return;
    }
    addLetter(tile.dataset.letter);
  }

  picker.addEventListener("click", function (event) {
    const button = event.target.closest("[data-blank-letter]");
    if (!button) return;
    picker.hidden = true;
    addLetter(button.dataset.blankLetter.toLowerCase());
  });

  const erase = form.querySelector("[data-erase]");
  keepFocus(erase);
  erase.addEventListener("click", function () {
    const { square, word } = split(input.value);
    const start = parseCoordinate(square);
    if (!start || !word) { input.value = ""; written = ""; preview(); return; }
    // The last tile of the player's goes, with the letters of the board around it at the end of the word.
    const squares = squaresOf(start, word) || [];
    let left = word.replace(/[()]/g, "");
    const dropBoardLetters = () => {
      while (left && squares.length && squares[squares.length - 1].through) { squares.pop(); left = left.slice(0, -1); }
    };
    dropBoardLetters();
    squares.pop();
    left = left.slice(0, -1);
    dropBoardLetters();
    const wasTiled = input.value === tiled;
    write(square.toUpperCase(), left);
    if (wasTiled) tiled = input.value;
  });

  input.addEventListener("input", function () { setError(""); preview(); });

  // ---------------------------------------------------------------- handing in

  // The play goes first to the API with the player's token: the server takes a whole room's plays there
  // in its event loop. On anything but "taken" the form itself is posted, whose answer says what is
  // wrong in the page's language.
  async function handInThroughApi(text) {
    if (!form.dataset.token || !form.dataset.gameApi) return null;
    try {
      const response = await fetch(`${form.dataset.gameApi}/rounds/${roundField.value}/plays`, {
        method: "POST", body: JSON.stringify({ move: text }), credentials: "omit",
        headers: { "Content-Type": "application/json", Accept: "application/json",
          Authorization: "Bearer " + form.dataset.token } });
      return response.ok ? await response.json() : null;
    } catch (error) {
      return null;
    }
  }

  // Taken: the input is cleared, the bar says which play counts and the board shows it.
  function handedIn(move) {
    input.value = "";
    written = "";
    picker.hidden = true;
    clearPreview();
    const line = now().querySelector(".submitted");
    if (line) {
      line.textContent = fill(form.dataset.handedInText, { move });
      line.dataset.submitted = move;
      line.classList.remove("none");
    }
    drawMine();
  }

  async function handInThroughForm(text) {
    const body = new FormData(form);
    body.set("move", text);
    let response;
    try {
      response = await fetch(form.action, { method: "POST", body, headers: { Accept: "application/json" },
        credentials: "same-origin" });
    } catch (error) {
      // No answer at all: the phone is offline for a moment. Posting the form would only swap the
      // page for the browser's error page; keep the page and the play, and say so.
      setError(form.dataset.offlineError);
      return;
    }
    let answer;
    try {
      answer = await response.json();
    } catch (error) {
      form.submit(); // an answer that is not the script's (an error page): let the browser show it
      return;
    }
    if (answer.ok && answer.location) window.location.assign(answer.location); // solo practice: its reveal
    else if (answer.revoked) { // taken over by another phone, or removed: live.js shows the notice (§6.16)
      region.dispatchEvent(new CustomEvent("tirage:revoked", { detail: answer.revoked }));
      return;
    } else if (answer.ok) handedIn(answer.move);
    else setError(answer.error);
    // Topping (docs/rules.md §6.26): the live region says whether the top is found, and the wrong plays so far.
    if ("refreshOnPlays" in region.dataset) region.dispatchEvent(new CustomEvent("tirage:refresh"));
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    const play = placement(input.value);
    if (play && play.blanksMissing) {
      const blanks = rackLetters().filter((t) => t === "?").length;
      setError(blanks ? form.dataset.fewBlanksText : form.dataset.noBlankText);
      return;
    }
    const text = handedInText();
    setError("");
    const taken = await handInThroughApi(text);
    if (taken) handedIn(taken.move);
    else await handInThroughForm(text);
  });

  // ---------------------------------------------------------------- zoom

  function zoom(on) {
    region.classList.toggle("zoomed", on);
    zoomButton.setAttribute("aria-pressed", String(on));
    try { localStorage.setItem(ZOOM_KEY, on ? "1" : ""); } catch (error) { /* private mode: not kept */ }
    const selected = region.querySelector("td.sq.selected, td.sq.preview");
    if (on && selected) selected.scrollIntoView({ block: "nearest", inline: "center" });
  }

  if (zoomButton) {
    zoomButton.addEventListener("click", () => zoom(zoomButton.getAttribute("aria-pressed") !== "true"));
    let kept = "";
    try { kept = localStorage.getItem(ZOOM_KEY) || ""; } catch (error) { kept = ""; }
    if (kept) zoom(true);
  }

  // ---------------------------------------------------------------- what a screen reader says

  function announce(text) {
    if (!announcer || !text) return;
    announcer.textContent = text;
  }

  function announceState(first) {
    const current = state();
    if (!current) return;
    const status = current.dataset.status;
    const number = current.dataset.round;
    if (status === "playing" && announcedRound !== number) {
      announcedRound = number;
      const letters = rackLetters().map((t) => (t === "?" ? announcer.dataset.blankText : t)).join(", ");
      if (!first) announce(fill(announcer.dataset.roundText, { n: number, letters }));
    }
    const result = region.querySelector(".my-result");
    if (result && announcedReveal !== number) {
      announcedReveal = number;
      const parts = [result.querySelector("h2"), result.querySelector(".top-play")].filter(Boolean).map((e) => e.textContent.trim());
      const figures = result.querySelector(".figures");
      if (figures) {
        const terms = figures.querySelectorAll("dt"), values = figures.querySelectorAll("dd");
        terms.forEach((term, i) => parts.push(term.textContent.trim() + ": " + (values[i] ? values[i].textContent.trim() : "")));
      }
      for (const line of result.querySelectorAll("p:not(.top-play)")) parts.push(line.textContent.trim());
      // Sentences joined by ". ", without doubling the end of one that has its own ("Solo top!").
      const sentences = parts.filter(Boolean).map((part) => part.replace(/[.!?:]+$/, (end) => (end === ":" ? "" : end)));
      if (!first) announce(sentences.map((s) => (/[.!?]$/.test(s) ? s : s + ".")).join(" ").replace(/\s+/g, " "));
    }
  }

  region.addEventListener("tirage:tick", function (event) {
    if (event.detail.left === 30) announce(announcer.dataset.thirtyText);
  });

  // ---------------------------------------------------------------- topping: the top found

  // A topping game (docs/rules.md §6.26) ends a player's round at the top: the live region's panel says it is found
  // ([data-topping-found]), and until the next round the form's controls are off, its line saying why.
  const topFoundNote = form.querySelector("[data-top-found]");
  function showTopFound() {
    if (!topFoundNote) return;
    const found = Boolean(region.querySelector("[data-topping-found]"));
    topFoundNote.hidden = !found;
    for (const control of form.querySelectorAll("input:not([type=hidden]), button")) control.disabled = found;
    if (found) picker.hidden = true;
  }

  // ---------------------------------------------------------------- a new round, a reveal

  region.addEventListener("tirage:refreshed", function () {
    const current = state();
    if (!current) return;
    const open = current.dataset.roundOpen === "1";
    form.hidden = !open;
    if (roundField.value !== current.dataset.round || !open) {
      // A new round, or the deadline passed: what was being written is gone, never drawn over the top.
      roundField.value = current.dataset.round;
      input.value = "";
      written = "";
      picker.hidden = true;
      setError("");
      showDirection(true); // every round starts Across, as the help says: last round's Down is not kept
    }
    showTopFound();
    drawMine();
    preview();
    announceState(false);
  });
  showTopFound();
  drawMine();
  preview();
  announceState(true);
})();
