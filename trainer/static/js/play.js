// The player's play: tap a start square, choose the direction, type the word (or type the whole
// play in notation); the play is previewed on the board and handed in without leaving the page.
// The server checks everything again: this script only helps to write the play.
"use strict";

(function () {
  const form = document.getElementById("play-form");
  const region = document.getElementById("live");
  if (!form || !region) return;
  const input = form.querySelector("#move");
  const roundField = form.querySelector("input[name=round]");
  const errorLine = form.querySelector("[data-play-error]");
  const statusLine = form.querySelector("[data-play-status]");
  const directionButtons = form.querySelectorAll("[data-direction]");
  const french = form.dataset.notation === "french";
  let across = true;

  const letterName = (i) => String.fromCharCode(65 + i);

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

  function cell(row, col) {
    return region.querySelector(`td.sq[data-row="${row}"][data-col="${col}"]`);
  }

  function rackLetters() {
    return Array.from(region.querySelectorAll(".rack [data-letter]"), (t) => t.dataset.letter);
  }

  // The squares a play covers, and the letter it puts on each new one (blanks in lower case when a
  // letter is missing from the rack and a blank is left).
  function placement(text) {
    const parts = text.trim().split(/\s+/);
    if (parts.length !== 2) return null;
    const start = parseCoordinate(parts[0]);
    if (!start) return null;
    const rack = rackLetters();
    const squares = [];
    let row = start.row, col = start.col;
    for (const ch of parts[1].replace(/[()]/g, "")) {
      const square = cell(row, col);
      if (!square) return null;
      const onBoard = square.dataset.letter;
      if (onBoard || ch === ".") {
        squares.push({ square, through: true });
      } else {
        let letter = ch;
        const upper = ch.toUpperCase();
        if (ch === upper && rack.includes(upper)) {
          rack.splice(rack.indexOf(upper), 1);
        } else if (rack.includes("?")) {
          rack.splice(rack.indexOf("?"), 1);
          letter = ch.toLowerCase();
        }
        squares.push({ square, letter, through: false });
      }
      if (start.horizontal) col += 1; else row += 1;
    }
    return { start, squares, coordinate: parts[0] };
  }

  function clearPreview() {
    for (const square of region.querySelectorAll("td.sq.preview, td.sq.preview-through, td.sq.selected")) {
      square.classList.remove("preview", "preview-through", "selected");
      const ghost = square.querySelector(".ghost");
      if (ghost) ghost.remove();
    }
  }

  // The direction buttons show the direction of the play as written, however it was written.
  function showDirection(horizontal) {
    across = horizontal;
    for (const button of directionButtons) {
      button.setAttribute("aria-pressed", String((button.dataset.direction === "across") === horizontal));
    }
  }

  function preview() {
    clearPreview();
    const typed = parseCoordinate(input.value.trim().split(/\s+/)[0] || "");
    if (typed) showDirection(typed.horizontal);
    const play = placement(input.value);
    if (!play) {
      if (typed) { const s = cell(typed.row, typed.col); if (s) s.classList.add("selected"); }
      return null;
    }
    for (const item of play.squares) {
      if (item.through) { item.square.classList.add("preview-through"); continue; }
      item.square.classList.add("preview");
      const ghost = document.createElement("span");
      ghost.className = "ghost tile" + (item.letter === item.letter.toLowerCase() ? " blank" : "");
      ghost.textContent = item.letter.toUpperCase();
      ghost.setAttribute("aria-hidden", "true");
      (item.square.querySelector("button") || item.square).appendChild(ghost);
    }
    return play;
  }

  // The play as it will be handed in: the blanks the preview chose written in lower case.
  function written() {
    const play = placement(input.value);
    if (!play) return input.value.trim();
    const word = play.squares.map((item) => item.through ? item.square.dataset.letter.toUpperCase() : item.letter).join("");
    return play.coordinate + " " + word;
  }

  function setDirection(horizontal) {
    showDirection(horizontal);
    const parts = input.value.trim().split(/\s+/);
    const start = parseCoordinate(parts[0] || "");
    if (start) {
      input.value = coordinate(start.row, start.col, horizontal) + " " + (parts[1] || "");
      preview();
    }
  }

  region.addEventListener("click", function (event) {
    const square = event.target.closest("td.sq");
    if (!square || !square.querySelector("button")) return;
    const row = parseInt(square.dataset.row, 10), col = parseInt(square.dataset.col, 10);
    const parts = input.value.trim().split(/\s+/);
    const start = parseCoordinate(parts[0] || "");
    // Tapping the chosen square again turns the direction.
    if (start && start.row === row && start.col === col) across = !across;
    showDirection(across);
    const word = start ? (parts[1] || "") : "";
    input.value = coordinate(row, col, across) + " " + word;
    preview();
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  });

  for (const button of directionButtons) {
    button.addEventListener("click", () => setDirection(button.dataset.direction === "across"));
  }
  input.addEventListener("input", function () { errorLine.textContent = ""; input.removeAttribute("aria-invalid"); preview(); });

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

  // Taken: the input is cleared and the page says which play counts, without fetching the page again.
  function handedIn(move, score) {
    input.value = "";
    clearPreview();
    const line = region.querySelector(".submitted");
    if (!line) return;
    line.textContent = form.dataset.submittedText.replace("{move}", move).replace("{score}", score);
    line.dataset.submitted = move;
    line.classList.remove("none");
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
      errorLine.textContent = form.dataset.offlineError;
      return;
    }
    let answer;
    try {
      answer = await response.json();
    } catch (error) {
      form.submit(); // an answer that is not the script's (an error page): let the browser show it
      return;
    }
    if (answer.ok) {
      handedIn(answer.move, answer.score);
    } else {
      errorLine.textContent = answer.error;
      input.setAttribute("aria-invalid", "true");
    }
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    const text = written();
    statusLine.textContent = "";
    errorLine.textContent = "";
    const taken = await handInThroughApi(text);
    if (taken) handedIn(taken.move, taken.score);
    else await handInThroughForm(text);
  });

  // A new round, a reveal: follow the page's state.
  region.addEventListener("tirage:refreshed", function () {
    const state = region.querySelector(".live-state");
    if (!state) return;
    const open = state.dataset.roundOpen === "1";
    form.hidden = !open;
    if (roundField.value !== state.dataset.round) {
      roundField.value = state.dataset.round;
      input.value = "";
      errorLine.textContent = "";
    }
    preview();
  });
  preview();
})();
