// The study page for the keyboard: Enter adds a word (checked at once, nothing recorded), Space on
// an empty line reveals, Escape gives up; on the answer page 1–4 grade, Enter goes on, U undoes.
// Without this script the same forms work by hand.
"use strict";

(function () {
  const started = performance.now();
  const form = document.querySelector("[data-answer-form]");
  const undoForm = document.querySelector("[data-undo-form]");

  function typing(event) {
    return /^(INPUT|TEXTAREA|SELECT)$/.test(event.target.tagName);
  }

  if (form) {
    const card = form.closest("[data-study]");
    const box = form.querySelector("#answers");
    const list = form.querySelector("[data-typed]");
    const seconds = form.querySelector("input[name=seconds]");
    const token = form.querySelector("input[name=csrf_token]").value;
    const cardId = form.querySelector("input[name=card]").value;
    const words = [];
    const found = card.querySelector("[data-found]");
    const rightWords = new Set();
    // The textarea keeps every word for the form; the list shows each one checked. Words already there (a card
    // asked again after a typo) go to the list first.
    const already = box.value;
    box.value = "";
    box.rows = 1;

    async function add(word) {
      word = word.trim().toUpperCase();
      if (!word || words.includes(word)) return;
      words.push(word);
      const item = document.createElement("li");
      item.textContent = word;
      list.appendChild(item);
      const body = new FormData();
      body.set("csrf_token", token);
      body.set("card", cardId);
      body.set("word", word);
      try {
        const response = await fetch(card.dataset.checkUrl, { method: "POST", body, credentials: "same-origin",
          headers: { Accept: "application/json" } });
        const answer = await response.json();
        item.className = answer.right && answer.right.length ? "word right" : "word wrong";
        (answer.right || []).forEach(function (right) { rightWords.add(right); });
        if (found) found.textContent = String(rightWords.size);
      } catch (error) {
        // No feedback this time; the reveal still judges every word.
      }
    }

    already.split(/[\s,;\/]+/).forEach(function (word) { add(word); });

    function submit(missed) {
      seconds.value = ((performance.now() - started) / 1000).toFixed(1);
      const pending = box.value.trim();
      if (pending) add(pending);
      box.value = words.join(" ");
      if (missed) form.querySelector("[data-give-up]").click(); else form.requestSubmit();
    }

    box.addEventListener("keydown", function (event) {
      if (event.key === "Enter") {
        event.preventDefault();
        if (box.value.trim()) { add(box.value); box.value = ""; } else { submit(false); }
      } else if (event.key === " " && !box.value.trim()) {
        event.preventDefault();
        submit(false);
      } else if (event.key === " ") {
        event.preventDefault(); // a space ends a word, like Enter
        add(box.value); box.value = "";
      } else if (event.key === "Escape") {
        event.preventDefault();
        submit(true);
      }
    });
    form.addEventListener("submit", function () {
      seconds.value = ((performance.now() - started) / 1000).toFixed(1);
      if (words.length && !box.value.includes(words[0])) box.value = (words.join(" ") + " " + box.value).trim();
    });
  }

  const gradeForm = document.querySelector("[data-grade-form]");
  const next = document.querySelector("[data-next]");
  document.addEventListener("keydown", function (event) {
    if (typing(event) || event.altKey || event.ctrlKey || event.metaKey) return;
    if (gradeForm && /^[1-4]$/.test(event.key)) {
      event.preventDefault();
      gradeForm.querySelector(`[data-rating="${event.key}"]`).click();
    } else if (next && event.key === "Enter") {
      event.preventDefault();
      next.click();
    } else if (undoForm && (event.key === "u" || event.key === "U")) {
      event.preventDefault();
      undoForm.requestSubmit();
    }
  });
})();
