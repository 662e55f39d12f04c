// The projector: the director's keyboard shortcuts (those that cannot be undone act on a second press),
// the reveal's panels in turn (the round's details, then each page of the standings), and the game's
// optional cues: the "30 seconds left" banner and sound, the last seconds' beeps, the spoken draw and top.
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
  const PAGE_MS = 10000; // each panel of the reveal
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

  // The panel shown follows the time since this round's reveal was first shown in this tab, so a refresh
  // (every event, every 30 s) finds the same panel, and every page of the standings comes in turn.
  function showPanel() {
    const current = state();
    const details = region.querySelector(".reveal");
    if (!current || !details) return;
    const pages = Array.from(region.querySelectorAll("[data-standings-page]"));
    const key = "tirage:rotation:" + current.dataset.game + ":" + current.dataset.round;
    let start = Number(remembered(key));
    if (!start) {
      start = Date.now();
      remember(key, String(start));
    }
    const shown = Math.floor(Math.max(0, Date.now() - start) / PAGE_MS) % (pages.length + 1);
    const panel = shown === 0 ? "details" : "standings-" + shown;
    if (current.dataset.panel === panel) return;
    current.dataset.panel = panel;
    current.classList.toggle("showing-standings", shown > 0);
    pages.forEach((page, i) => { page.hidden = i + 1 !== shown; });
    fit();
  }

  // ---------------------------------------------------------------- nothing cut

  // The stylesheet sizes the text from the screen; a panel with more to say than usual (a dozen tops, long
  // names) is made smaller until it ends above the bottom of the screen.
  function fit() {
    const panels = region.querySelectorAll(".screen-side > section, .standings-page:not([hidden])");
    for (const panel of panels) {
      panel.style.fontSize = "";
      let size = parseFloat(getComputedStyle(panel).fontSize);
      for (let i = 0; i < 12 && panel.getBoundingClientRect().bottom > window.innerHeight - 2; i++) {
        size *= 0.92;
        panel.style.fontSize = size + "px";
      }
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
    showPanel();
    fit();
    announce();
    cues();
  }

  region.addEventListener("tirage:refreshed", update);
  window.addEventListener("resize", fit);
  setInterval(showPanel, 500);
  setInterval(cues, 200);
  update();
})();
