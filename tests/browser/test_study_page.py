"""The study page in Chromium, with the keyboard only: type words and press Enter (each checked at
once), Space reveals, a digit grades and goes on, Escape gives up, U undoes."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from drills.cardbox import CardboxRow, write_cardbox
from tests.browser.axe import format_violations, serious_violations
from tests.processes import TirageServer

AAA_CONTRAST = "color-contrast-enhanced"  # axe's WCAG AAA text-contrast rule, off unless enabled


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
    page.keyboard.type("aeilnot")  # the card's letters, no word (a word of other letters is a typo, asked again)
    page.keyboard.press("Enter")
    expect(page.locator("[data-typed] li.right")).to_have_text(["TOENAIL"])
    expect(page.locator("[data-typed] li.wrong")).to_have_text(["AEILNOT"])
    page.keyboard.press(" ")  # Space on an empty line reveals

    expect(page).to_have_url(re.compile(r"/reviews/\d+$"))
    expect(page.locator(".word.right")).to_have_text(["TOENAIL"])
    expect(page.locator(".word.missed")).to_have_text(["ELATION"])
    expect(page.get_by_text("Grade: Again")).to_be_visible()
    serious = serious_violations(axe(page))
    assert not serious, format_violations(serious)
    page.wait_for_load_state("load")
    page.keyboard.press("3")  # the learner overrides: Good, and goes on

    expect(page).to_have_url(re.compile(r"/study/decks/\d+$"))
    second = page.locator(".prompt").inner_text()
    assert second != "AEILNOT"
    page.wait_for_load_state("load")
    page.keyboard.press("Escape")  # gives up: missed
    expect(page.get_by_text("Grade: Again")).to_be_visible()
    # The page's text shows before its deferred script listens to the keys (a slow, busy machine): a person
    # presses U once the page has loaded.
    page.wait_for_load_state("load")
    page.keyboard.press("u")  # undo: the card comes back
    expect(page).to_have_url(re.compile(r"/study/decks/\d+$"))
    expect(page.locator(".prompt")).to_have_text(second)
    expect(page.get_by_text("The last grade is undone.")).to_be_visible()


def test_a_learner_back_from_a_break_on_a_phone(
    browser: Browser,
    live_server: TirageServer,
    axe: Callable[..., list[dict[str, Any]]],
    tmp_path: Path,
    screenshot_dir: Path,
) -> None:
    """Issue 18's study ergonomics on a phone, by keyboard: a cardbox of overdue cards imported, its backlog spread
    over 3 days from the deck's page, a card found in the card browser by one of its words and marked missed; the
    deck's, the browser's and the card's pages fit the phone, and pass axe in both themes (AAA contrast in the
    high-contrast one)."""
    base = live_server.base_url
    now = datetime.now(UTC)
    cardbox = tmp_path / "Anagrams.db"
    write_cardbox(cardbox, [CardboxRow(q, 2, now - timedelta(days=3)) for q in ("AEINRST", "AEIRST", "AEILNOT")])
    context = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844}, has_touch=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{base}/study/signup")
    page.keyboard.type("back-from-a-break")
    page.keyboard.press("Tab")
    page.keyboard.type("password123")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/study/$"))
    page.goto(f"{base}/study/decks/import")
    page.get_by_label("Deck name").fill("zyzzyva")
    page.set_input_files("#file", str(cardbox))
    page.get_by_role("button", name="Import", exact=True).click()
    expect(page.locator(".prompt")).to_be_visible(timeout=60_000)  # built in the background, then its first card

    page.goto(f"{base}/study/")
    page.get_by_role("link", name="Cards, backlog and exports of zyzzyva").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_text("3 reviews are due today (3 of them since before today).")).to_be_visible()
    page.get_by_label("Days (2 to 30)").fill("3")
    page.keyboard.press("Enter")  # spread: the first of the two choices, checked already
    expect(page.get_by_text("2 reviews moved.")).to_be_visible()
    expect(page.get_by_text("1 review is due today")).to_be_visible()

    page.get_by_role("link", name="Browse the cards").focus()
    page.keyboard.press("Enter")
    page.get_by_label("A question or an answer").fill("nastier")
    page.keyboard.press("Enter")
    expect(page.locator(".card-count")).to_have_text("1 card.")
    page.get_by_role("link", name="AEINRST").focus()
    page.keyboard.press("Enter")
    expect(page.locator("h1")).to_have_text("AEINRST")
    page.get_by_role("button", name="I got this wrong").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_text("Marked missed: the card is graded Again and comes back soon.")).to_be_visible()
    expect(page.locator(".card-history tbody tr")).to_have_count(1)
    card_url = page.url

    deck_url = card_url.split("/cards/")[0]
    problems = []
    for theme in ("standard", "contrast"):
        for name, url in (("deck", f"{deck_url}/overview"), ("cards", f"{deck_url}/cards"), ("card", card_url)):
            page.goto(f"{url}?theme={theme}")
            if page.evaluate("document.documentElement.scrollWidth") > 390:
                problems.append(f"{name}, {theme}: wider than the phone")
            page.screenshot(path=screenshot_dir / f"study-{name}-{theme}.png", full_page=True)
            options = {"rules": {AAA_CONTRAST: {"enabled": True}}} if theme == "contrast" else None
            violations = axe(page, None, options)
            serious = serious_violations([v for v in violations if v["id"] != AAA_CONTRAST])
            below_aaa = [v for v in violations if v["id"] == AAA_CONTRAST]
            if serious or below_aaa:
                problems.append(f"{name}, {theme}:\n{format_violations(serious + below_aaa)}")
    context.close()
    assert not problems, "\n".join(problems)


def test_a_stem_card_on_a_phone(browser: Browser, live_server: TirageServer, screenshot_dir: Path) -> None:
    """Issue 28's stem card on a 390×844 phone (docs/rules.md §7.4): AEIRST + ? made from the deck form, its 69
    answers counted while typing, answered;
    its 69 sevens at the reveal in columns (one block per added letter), the grade buttons on screen at the top of
    the answers and at their end, and nothing wider than the phone; then the progress charts' labels drawn whole."""
    base = live_server.base_url
    context = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844}, has_touch=True)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto(f"{base}/study/signup")
    page.get_by_label("Your name").fill("stem-phone")
    page.get_by_label("Password").fill("password123")
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"/study/$"))
    page.goto(f"{base}/study/decks/new")
    page.get_by_label("Deck name").fill("stems")
    page.get_by_label("Cards", exact=True).select_option("stem")
    page.get_by_label("Number of stems").fill("1")
    page.get_by_label("Each stem card asks for").select_option("words")
    page.get_by_role("button", name="Create the deck").click()
    expect(page.locator(".prompt")).to_have_text("AEIRST + ?", timeout=60_000)
    page.screenshot(path=screenshot_dir / "study-stem-phone-question.png")
    expect(page.locator("[data-answer-count]")).to_have_text("69 answers · found: 0")
    page.wait_for_load_state("load")
    page.locator("#answers").press_sequentially("satires")
    page.keyboard.press("Enter")  # checked at once: the count of words found goes up (issue 28, item 13)
    expect(page.locator("[data-answer-count]")).to_have_text("69 answers · found: 1")
    page.get_by_role("button", name="Reveal the answers").click()
    expect(page).to_have_url(re.compile(r"/reviews/\d+$"))

    grades = page.locator("[data-grade-bar] [data-rating]")
    expect(grades).to_have_count(4)

    def on_screen() -> bool:
        boxes = [grades.nth(n).bounding_box() for n in range(4)]
        return all(box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 844 for box in boxes)

    assert on_screen(), "the grades are below the fold at the reveal"
    page.screenshot(path=screenshot_dir / "study-stem-phone-reveal.png")
    blocks = page.locator(".answer-groups.stem-columns .answer-group")
    lefts = {round(blocks.nth(n).bounding_box()["x"]) for n in range(blocks.count())}  # type: ignore[index]
    assert len(lefts) >= 2, f"the added letters' blocks are in one column: {lefts}"
    page.locator(".answer-groups .answer-group").nth(blocks.count() // 2).scroll_into_view_if_needed()
    assert on_screen(), "the grades scrolled away in the middle of the answers"
    height = page.evaluate("document.documentElement.scrollHeight")
    width = page.evaluate("document.documentElement.scrollWidth")
    print(f"stem reveal on a 390 px phone: {height} px tall, {width} px wide, {len(lefts)} columns")
    assert width <= 390 and height < 2000
    page.get_by_role("button", name=re.compile("Good")).click()  # the bar's grade works from where it stays
    expect(page.locator(".prompt, #done-title")).to_be_visible()

    # The progress charts' value labels are drawn whole: "100 %" was cut to "00 %" (issue 28, item 14).
    page.goto(f"{base}/study/progress")
    cut = page.evaluate(
        """[...document.querySelectorAll('.chart svg')].flatMap(svg => [...svg.querySelectorAll('text.axis')]
             .filter(t => t.getBBox().x < svg.viewBox.baseVal.x).map(t => t.textContent))"""
    )
    assert not cut, f"value labels cut at the chart's left edge: {cut}"
    expect(page.locator("#retention-weeks-title + svg text.axis", has_text="100 %")).to_have_count(1)
    context.close()
