"""The director's console during a round in Chromium (docs/rules.md §6.6; issue 28 item 6): who has handed in and
who has not, ordered by state or by name, the choice kept across the console's live refreshes and a reload; the
console's landmarks told apart (axe's landmark-unique) in the lobby, during a round and at the reveal.

Phones join and play through the JSON API (the console only reads what the game stored); the director watches the
console in Chromium. The data behind the list, on SQLite and PostgreSQL, is tests/test_console_handins.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.axe import format_violations
from tests.browser.game_night import PASSWORD, Night
from tests.processes import TirageServer, best_play
from trainer.engine import Lexicon
from trainer.engine.rules import ruleset

LANDMARK_UNIQUE = {"runOnly": {"type": "rule", "values": ["landmark-unique"]}}
NAMES = ("zoé", "Bob", "Ann", "cy", "Dan")


def _names(page: Page) -> list[str]:
    names: list[str] = page.locator("[data-hand-ins-list] li").evaluate_all("items => items.map(i => i.dataset.name)")
    return names


def _states(page: Page) -> list[str]:
    return page.locator("[data-hand-ins-list] li [data-state]").all_inner_texts()


def test_the_console_shows_who_has_not_handed_in_sorted_and_kept_across_refreshes(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon, axe: Callable[..., list[dict[str, Any]]]
) -> None:
    token = live_server.ok("POST", "/api/auth/token", {"username": "club", "password": PASSWORD})["token"]
    settings = {"rules": "en", "max_rounds": 3, "reveal_seconds": None, "round_seconds": 600}
    game = live_server.ok("POST", "/api/games", settings, token, status=201)
    gid = game["id"]
    phones = {
        name: live_server.ok("POST", "/api/join", {"code": game["join_code"], "name": name}, status=201)
        for name in NAMES
    }
    console = night.director().console
    console.goto(f"{live_server.base_url}/director/games/{gid}")
    expect(console.locator(".live-state")).to_have_attribute("data-status", "lobby")
    violations = axe(console, None, LANDMARK_UNIQUE)
    assert not violations, "lobby:\n" + format_violations(violations)

    live_server.ok("POST", f"/api/games/{gid}/start", token=token)
    panel = console.locator("[data-hand-ins]")
    expect(panel.locator("[data-hand-ins-count]")).to_have_text("0 of 5 handed in · 5 not yet")
    assert _names(console) == ["Ann", "Bob", "cy", "Dan", "zoé"]  # all missing: by name
    violations = axe(console, None, LANDMARK_UNIQUE)
    assert not violations, "during a round:\n" + format_violations(violations)

    # Plays come in: the stream says only how many; the console fetches who (its count first, then the list).
    state = live_server.ok("GET", f"/api/games/{gid}", token=token)
    top, _score, lesser = best_play(state, ruleset("en"), en_lexicon)
    for name in ("Bob", "zoé"):
        live_server.ok("POST", f"/api/games/{gid}/rounds/1/plays", {"move": lesser}, phones[name]["token"])
    expect(console.locator("[data-submissions]")).to_have_text("2")
    expect(panel.locator("[data-hand-ins-count]")).to_have_text("2 of 5 handed in · 3 not yet")
    assert _names(console) == ["Ann", "cy", "Dan", "Bob", "zoé"]  # the missing first
    assert _states(console) == ["not yet"] * 3 + ["handed in"] * 2
    assert top not in panel.inner_text() and lesser not in panel.inner_text()  # who, never what

    # By name; kept when the whole live region is refreshed (more time given) and when the page is loaded again.
    panel.get_by_role("button", name="By name").click()
    expect(panel.get_by_role("button", name="By name")).to_have_attribute("aria-pressed", "true")
    assert _names(console) == ["Ann", "Bob", "cy", "Dan", "zoé"]
    assert _states(console) == ["not yet", "handed in", "not yet", "not yet", "handed in"]
    console.locator("#live").evaluate("region => { region.querySelector('[data-hand-ins]').dataset.old = '1'; }")
    live_server.ok("POST", f"/api/games/{gid}/extend", {"seconds": 30}, token)
    expect(console.locator("[data-hand-ins][data-old]")).to_have_count(0)  # a new live region came in
    expect(panel.get_by_role("button", name="By name")).to_have_attribute("aria-pressed", "true")
    assert _names(console) == ["Ann", "Bob", "cy", "Dan", "zoé"]
    live_server.ok("POST", f"/api/games/{gid}/rounds/1/plays", {"move": lesser}, phones["Ann"]["token"])
    expect(panel.locator("[data-hand-ins-count]")).to_have_text("3 of 5 handed in · 2 not yet")
    assert _names(console) == ["Ann", "Bob", "cy", "Dan", "zoé"]  # a fetched list is ordered as chosen too
    console.reload()
    expect(panel.get_by_role("button", name="By name")).to_have_attribute("aria-pressed", "true")
    assert _names(console) == ["Ann", "Bob", "cy", "Dan", "zoé"]

    # Back to the missing first.
    panel.get_by_role("button", name="Not yet first").click()
    expect(panel.get_by_role("button", name="Not yet first")).to_have_attribute("aria-pressed", "true")
    assert _names(console) == ["cy", "Dan", "Ann", "Bob", "zoé"]

    # The reveal: no list (the results say who played what), landmarks still told apart.
    live_server.ok("POST", f"/api/games/{gid}/close", token=token)
    expect(console.locator(".live-state")).to_have_attribute("data-status", "revealing")
    expect(panel).to_have_count(0)
    violations = axe(console, None, LANDMARK_UNIQUE)
    assert not violations, "at the reveal:\n" + format_violations(violations)
    night.errors.check()
