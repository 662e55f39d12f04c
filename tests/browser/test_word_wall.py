"""A club word wall in real Chromium against the real ``tirage serve``: the director makes a wall with
the form and opens its screen, two phones join with the join link and find words, and the words
come up on the screen with the finder's name; axe-core checks the phone and the screen.

The words typed are the anagrams of the alphagrams the screen shows, computed in the test process
from the same word list with :func:`drills.words.anagrams`: the test never guesses a word.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from drills.words import anagrams
from tests.browser.axe import format_violations, serious_violations
from tests.browser.game_night import PASSWORD, Night, live
from tests.processes import TirageServer
from trainer.engine import Lexicon

THEMES = ("standard", "contrast")
AAA_CONTRAST = "color-contrast-enhanced"


@pytest.fixture(scope="module")
def director_name(live_server: TirageServer) -> str:
    live_server.create_director("wallclub", PASSWORD)
    return "wallclub"


def accessibility_problems(axe: Callable[..., list[dict[str, Any]]], page: Page, where: str, theme: str) -> list[str]:
    """Serious or critical axe violations; in the contrast theme also text below AAA contrast (its promise)."""
    options = {"rules": {AAA_CONTRAST: {"enabled": True}}} if theme == "contrast" else None
    violations = axe(page, None, options)
    problems = []
    serious = serious_violations([v for v in violations if v["id"] != AAA_CONTRAST])
    if serious:
        problems.append(f"{where}, {theme} theme: serious violations:\n{format_violations(serious)}")
    below_aaa = [v for v in violations if v["id"] == AAA_CONTRAST]
    if below_aaa:
        problems.append(f"{where}, {theme} theme: text below AAA contrast:\n{format_violations(below_aaa)}")
    return problems


def send(page: Page, word: str) -> None:
    """Type a word on the phone and press Enter."""
    field = page.locator("#word")
    field.fill(word)
    field.press("Enter")
    expect(field).to_have_value("")


def test_two_phones_find_words_and_the_screen_shows_them_with_the_finders_names(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon, axe: Callable[..., list[dict[str, Any]]]
) -> None:
    director = night.director()
    console = director.console

    # The director's page leads to the walls; the form makes a wall of the 7s ranked 1-12.
    console.goto(f"{live_server.base_url}/director/")
    console.locator('a[href$="/director/walls/"]').click()
    console.locator('a[href$="/director/walls/new"]').click()
    console.locator("#lexicon").select_option("en")
    console.locator("#source-0").check()
    console.locator("#length").fill("7")
    console.locator("#first").fill("1")
    console.locator("#last").fill("12")
    console.locator("#seconds").fill("600")
    console.locator("form.wall-form button[type=submit]").click()
    expect(console).to_have_url(re.compile(r"/director/walls/\d+$"))
    wall_id = int(console.url.rsplit("/", 1)[1])
    expect(live(console)).to_have_attribute("data-status", "lobby")
    code = console.locator(".lobby-panel .join-code").inner_text().strip()
    join_url = console.locator('.join-box a[href*="?code="]').get_attribute("href") or ""
    assert join_url.endswith(f"/walls/join?code={code}"), join_url

    with director.context.expect_page() as opened:
        console.locator(f'a[href$="/walls/{wall_id}/screen"]').click()
    screen = opened.value
    screen.wait_for_load_state()
    expect(live(screen)).to_have_attribute("data-status", "lobby")
    expect(screen.locator(".join-code")).to_have_text(code)
    screen.set_viewport_size({"width": 1920, "height": 1080})

    ann, bea = night.player("Ann"), night.player("Bea")
    for player in (ann, bea):
        page = player.page
        page.goto(join_url)
        expect(page.locator("#code")).to_have_value(code)
        page.locator("#name").fill(player.name)
        page.locator("form.stack-form button[type=submit]").tap()
        expect(page).to_have_url(re.compile(rf"/walls/{wall_id}/play$"))
        expect(page.locator(".phone-head .who")).to_have_text(player.name)
        expect(live(page)).to_have_attribute("data-status", "lobby")
        expect(page.locator("#wall-form")).to_be_hidden()
    expect(screen.locator("[data-players]")).to_have_text("2 players")
    expect(screen.locator(".player-list li")).to_have_text(["Ann", "Bea"])

    # Space on the screen starts the wall: every page follows, the countdown runs.
    screen.keyboard.press(" ")
    for page in (screen, ann.page, bea.page, console):
        expect(live(page)).to_have_attribute("data-status", "running")
    for player in (ann, bea):
        expect(player.page.locator("#wall-form")).to_be_visible()
        expect(player.page.locator(".phone-head .clock")).to_have_text(re.compile(r"^(10:00|9:\d\d)$"))
    expect(screen.locator("#live .clock")).to_have_text(re.compile(r"^(10:00|9:\d\d)$"))

    keys = screen.locator("#live .wall-tile").evaluate_all("tiles => tiles.map(t => t.dataset.alphagram)")
    assert len(keys) == 12 and all(len(key) == 7 for key in keys), keys
    words = {key: anagrams(en_lexicon, key) for key in keys}
    with_two = [key for key in keys if len(words[key]) >= 2]
    assert len(with_two) >= 2, words
    ann_word, bea_word, bea_second = words[with_two[0]][0], words[with_two[1]][0], words[with_two[0]][1]

    send(ann.page, ann_word.lower())
    expect(ann.page.locator("[data-feedback] li").first).to_have_text(f"{ann_word}: found!")
    send(bea.page, f"{bea_word} {bea_second}")
    expect(bea.page.locator("[data-feedback] li")).to_have_text([f"{bea_word}: found!", f"{bea_second}: found!"])
    send(bea.page, ann_word)
    expect(bea.page.locator("[data-feedback] li").first).to_have_text(f"{ann_word}: already found by Ann.")
    send(bea.page, "ZZZZZZZ")
    expect(bea.page.locator("[data-feedback] li").first).to_contain_text("not on this wall")

    # The screen (polling) shows every find on its alphagram with the finder's name.
    for word, key, finder in (
        (ann_word, with_two[0], "Ann"),
        (bea_word, with_two[1], "Bea"),
        (bea_second, with_two[0], "Bea"),
    ):
        found = screen.locator(f'#live .wall-tile[data-alphagram="{key}"] [data-word="{word}"]')
        expect(found.locator(".wall-finder")).to_have_text(finder)
        expect(ann.page.locator(f'#live [data-word="{word}"] .wall-finder')).to_have_text(finder)
    expect(screen.locator("#live .wall-scores tbody tr")).to_have_count(2)
    expect(screen.locator("#live .wall-scores tbody tr").first).to_have_attribute("data-player", "Bea")
    expect(ann.page.locator("#live .wall-word.mine")).to_have_count(1)

    problems: list[str] = []
    screen_url = f"{live_server.base_url}/walls/{wall_id}/screen"
    phone_url = f"{live_server.base_url}/walls/{wall_id}/play"
    for theme in THEMES:
        for where, page, url in (("screen", screen, screen_url), ("phone", ann.page, phone_url)):
            page.goto(f"{url}?theme={theme}")
            expect(page.locator("html")).to_have_attribute("data-theme", theme)
            expect(live(page)).to_have_attribute("data-status", "running")
            if where == "phone":
                send(page, "QQQQQQQ")  # a refusal under the input, checked with the rest
                expect(page.locator("[data-feedback] li").first).to_contain_text("not on this wall")
            problems += accessibility_problems(axe, page, f"{where} (running)", theme)

    # The director ends the wall: the screen shows the results, the phones stop taking words.
    console.locator(".end-game summary").click()
    console.locator('#live button[data-action="end"]').click()
    for page in (screen, ann.page, bea.page):
        expect(live(page)).to_have_attribute("data-status", "finished")
    expect(ann.page.locator("#wall-form")).to_be_hidden()
    rows = screen.locator("#live .wall-scores tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0).locator("td")).to_have_text(["1", "Bea", "2"])
    expect(rows.nth(1).locator("td")).to_have_text(["2", "Ann", "1"])
    expect(screen.locator("#live .wall-word.missed").first).to_be_visible()
    problems += accessibility_problems(axe, screen, "screen (finished)", "contrast")
    assert not problems, "accessibility problems:\n" + "\n".join(problems)
    night.errors.check()
