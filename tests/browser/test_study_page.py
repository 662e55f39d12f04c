"""The study page in Chromium, with the keyboard only: type words and press Enter (each checked at
once), Space reveals, a digit grades and goes on, Escape gives up, U undoes."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.axe import format_violations, serious_violations
from tests.processes import TirageServer


def test_a_learner_studies_with_the_keyboard_only(
    page: Page, live_server: TirageServer, axe: Callable[..., list[dict[str, Any]]]
) -> None:
    base = live_server.base_url
    page.goto(f"{base}/study/signup")
    page.keyboard.type("keyboard-learner")
    page.keyboard.press("Tab")
    page.keyboard.type("password123")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/study/$"))

    page.goto(f"{base}/study/decks/new")
    page.fill("#name", "sevens")
    page.fill("#first", "3")
    page.fill("#last", "20")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/study/decks/\d+$"))
    # Built in the background (the server's worker process): the page shows the progress, then the first card.
    expect(page.locator("#deck-status")).to_contain_text("Building this deck; the page goes on by itself.")
    expect(page.locator("progress.deck-progress")).to_be_visible()
    assert not serious_violations(axe(page))

    # From rank 3 of the seven-letter alphagrams that make words in the bundled list (ENABLE: rank 1,
    # ADEINOR, makes one word), the likeliest is AEILNOT, with its two words ELATION and TOENAIL.
    expect(page.locator(".prompt")).to_have_text("AEILNOT", timeout=60_000)
    expect(page.locator("#answers")).to_be_focused()
    serious = serious_violations(axe(page))
    assert not serious, format_violations(serious)
    page.keyboard.type("toenail")
    page.keyboard.press("Enter")
    page.keyboard.type("zzzzzzz")
    page.keyboard.press("Enter")
    expect(page.locator("[data-typed] li.right")).to_have_text(["TOENAIL"])
    expect(page.locator("[data-typed] li.wrong")).to_have_text(["ZZZZZZZ"])
    page.keyboard.press(" ")  # Space on an empty line reveals

    expect(page).to_have_url(re.compile(r"/reviews/\d+$"))
    expect(page.locator(".word.right")).to_have_text(["TOENAIL"])
    expect(page.locator(".word.missed")).to_have_text(["ELATION"])
    expect(page.get_by_text("Grade: Again")).to_be_visible()
    serious = serious_violations(axe(page))
    assert not serious, format_violations(serious)
    page.keyboard.press("3")  # the learner overrides: Good, and goes on

    expect(page).to_have_url(re.compile(r"/study/decks/\d+$"))
    second = page.locator(".prompt").inner_text()
    assert second != "AEILNOT"
    page.keyboard.press("Escape")  # gives up: missed
    expect(page.get_by_text("Grade: Again")).to_be_visible()
    page.keyboard.press("u")  # undo: the card comes back
    expect(page).to_have_url(re.compile(r"/study/decks/\d+$"))
    expect(page.locator(".prompt")).to_have_text(second)
    expect(page.get_by_text("The last grade is undone.")).to_be_visible()
