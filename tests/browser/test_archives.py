"""The archive in Chromium on a phone (390×844, touch), in both themes: a finished game found with the filters from
the keyboard alone, its page opened, no page wider than the screen (the wide tables scroll in their own box), and
no serious axe finding. One short game played through the JSON API; the figures are tests/test_archives.py's."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect

from tests.browser.axe import format_violations, serious_violations
from tests.browser.conftest import TIMEOUT_MS
from tests.browser.game_night import PASSWORD
from tests.processes import TirageServer, best_play
from trainer.engine import Lexicon
from trainer.engine.rules import ruleset


def _finished_game(server: TirageServer, en_lexicon: Lexicon) -> tuple[int, str]:
    """Two rounds, Ann finding the tops and Bob playing less: (game id, join code)."""
    token = server.ok("POST", "/api/auth/token", {"username": "club", "password": PASSWORD})["token"]
    game = server.ok("POST", "/api/games", {"rules": "en", "max_rounds": 2, "reveal_seconds": None}, token, status=201)
    gid = game["id"]
    ann, bob = (server.ok("POST", "/api/join", {"code": game["join_code"], "name": n}, status=201) for n in "AB")
    server.ok("POST", f"/api/games/{gid}/start", token=token)
    for number in (1, 2):
        top, _score, lesser = best_play(server.ok("GET", f"/api/games/{gid}"), ruleset("en"), en_lexicon)
        server.ok("POST", f"/api/games/{gid}/rounds/{number}/plays", {"move": top}, ann["token"])
        server.ok("POST", f"/api/games/{gid}/rounds/{number}/plays", {"move": lesser}, bob["token"])
        server.ok("POST", f"/api/games/{gid}/close", token=token)
        server.ok("POST", f"/api/games/{gid}/next", token=token)
    return gid, game["join_code"]


def test_a_phone_finds_a_game_in_the_archive_from_the_keyboard_in_both_themes(
    browser: Browser,
    live_server: TirageServer,
    director_name: str,
    en_lexicon: Lexicon,
    axe: Callable[..., list[dict[str, Any]]],
    screenshot_dir: Path,
) -> None:
    _gid, code = _finished_game(live_server, en_lexicon)
    for theme in ("standard", "contrast"):
        context = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844}, has_touch=True)
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        page.goto(f"{live_server.base_url}/?theme={theme}")
        page.locator(".site-nav").get_by_role("link", name="Archives").click()
        expect(page.locator("h1")).to_have_text("Archives")
        page.locator("summary", has_text="Filters").focus()
        page.keyboard.press("Enter")  # unfolds the filters
        page.get_by_label("Director").focus()
        page.keyboard.press("ArrowDown")  # from "Any" to the club's director
        page.get_by_label("At least (players)").fill("2")
        page.keyboard.press("Enter")  # the form is sent from the keyboard
        expect(page).to_have_url(f"{live_server.base_url}/archives?kind=&rules=&lexicon=&director={director_name}"
                                 "&date_from=&date_to=&min_players=2&max_players=")  # fmt: skip
        link = page.get_by_role("link", name=f"Game {code}")
        expect(link).to_have_count(1)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, "the list is wider than the phone"
        page.screenshot(path=screenshot_dir / f"archives-{theme}.png", full_page=True)
        serious = serious_violations(axe(page))
        assert not serious, format_violations(serious)

        link.focus()
        page.keyboard.press("Enter")
        expect(page.locator("h1")).to_have_text(f"Game {code}")
        expect(page.locator("table.archive-rounds tbody tr")).to_have_count(2)
        expect(page.locator("table.archive-rounds tbody tr").first).to_contain_text("1 of 2")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, "the game's page is wider than the phone"
        page.screenshot(path=screenshot_dir / f"archived-game-{theme}.png", full_page=True)
        serious = serious_violations(axe(page))
        assert not serious, format_violations(serious)
        context.close()
