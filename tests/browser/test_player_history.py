"""A player's history and the "From my games" deck in Chromium on a phone (docs/rules.md §6.25, §7.12): Lea, logged
in to her word-study account, joins club games from the join page (the box that keeps her plays ticked), misses a
bingo, and finds it as a card the next day; with three games, her history page plots her percentage and breaks down
her points lost, in both themes, in English and French, with no serious axe finding.

"The next day" is the database's clock moved, never a wait: the game's times are put back a day (the way the study
tests give ``now``), and Lea opens her decks today."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.browser.axe import format_violations, serious_violations
from tests.browser.game_night import PASSWORD, PHONE, night_of
from tests.processes import TirageServer, best_play
from trainer.engine import Lexicon
from trainer.engine.rules import ruleset


def _director(server: TirageServer) -> str:
    return str(server.ok("POST", "/api/auth/token", {"username": "club", "password": PASSWORD})["token"])


def _sign_up(page: Page, server: TirageServer, name: str) -> None:
    page.goto(f"{server.base_url}/study/signup")
    page.locator("#username").fill(name)
    page.locator("#password").fill(PASSWORD)
    page.locator("form.stack-form button[type=submit]").tap()
    expect(page).to_have_url(re.compile(r"/study/$"))


def _join(page: Page, server: TirageServer, code: str, name: str) -> None:
    """The join page, logged in: the box that keeps the plays in the account is there, ticked."""
    page.goto(f"{server.base_url}/join?code={code}")
    box = page.locator('input[name="link"]')
    expect(box).to_be_checked()
    page.locator("#name").fill(name)
    page.locator("form.stack-form button[type=submit]").tap()
    expect(page).to_have_url(re.compile(r"/play/\d+$"))


def _hand_in(page: Page, move: str) -> None:
    page.locator("#move").fill(move)
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/plays")) as taken:
        page.locator("#play-form button[type=submit]").tap()
    assert taken.value.status == 200, taken.value.text()


def _one_round_game(
    server: TirageServer, lea: Page, en_lexicon: Lexicon, lea_plays: str, draws: str | None = None
) -> int:
    """A game of one round: Lea (on her phone) and Bob (through the API, the top). Lea hands in the top ("top"), the
    round's lowest legal play ("low") or nothing ("none"). Ended by the director."""
    token = _director(server)
    body: dict[str, Any] = {"rules": "en", "max_rounds": 1, "reveal_seconds": None}
    if draws:
        body["draws"] = draws
    game = server.ok("POST", "/api/games", body, token, status=201)
    gid = game["id"]
    _join(lea, server, game["join_code"], "Lea")
    bob = server.ok("POST", "/api/join", {"code": game["join_code"], "name": "Bob"}, status=201)
    server.ok("POST", f"/api/games/{gid}/start", token=token)
    top, _score, lesser = best_play(server.ok("GET", f"/api/games/{gid}"), ruleset("en"), en_lexicon)
    server.ok("POST", f"/api/games/{gid}/rounds/1/plays", {"move": top}, bob["token"])
    expect(lea.locator("#live .live-state")).to_have_attribute("data-status", "playing")
    if lea_plays != "none":
        _hand_in(lea, top if lea_plays == "top" else lesser)
    server.ok("POST", f"/api/games/{gid}/close", token=token)
    server.ok("POST", f"/api/games/{gid}/end", token=token)
    return int(gid)


def _a_day_earlier(server: TirageServer, game_id: int) -> None:
    """The game was played yesterday: its times, its rounds', plays' and events' put back 24 hours."""
    with sqlite3.connect(server.instance / "tirage.sqlite") as db:
        shift = "datetime({0}, '-1 day')"
        db.execute(f"UPDATE game SET created_at = {shift.format('created_at')} WHERE id = ?", (game_id,))
        db.execute(
            f"UPDATE round SET started_at = {shift.format('started_at')}, closed_at = {shift.format('closed_at')}, "
            f"deadline = {shift.format('deadline')} WHERE game_id = ?",
            (game_id,),
        )
        db.execute(f"UPDATE player SET joined_at = {shift.format('joined_at')} WHERE game_id = ?", (game_id,))
        db.execute(
            f"UPDATE submission SET received_at = {shift.format('received_at')} "
            "WHERE round_id IN (SELECT id FROM round WHERE game_id = ?)",
            (game_id,),
        )


def test_a_missed_bingo_is_a_card_the_next_day(
    browser: Browser, live_server: TirageServer, director_name: str, en_lexicon: Lexicon
) -> None:
    with night_of(browser, live_server, director_name) as night:
        lea = night.context("Lea", **PHONE).new_page()
        _sign_up(lea, live_server, "lea-bingo")
        # The draw AEINRST: on the empty board the top is a bingo (RETAINS and its six anagrams); Lea plays lower.
        gid = _one_round_game(live_server, lea, en_lexicon, "low", draws="AEINRST")
        rounds = live_server.ok("GET", f"/api/archives/{gid}")["rounds"]
        assert sorted(str(rounds[0]["top"]).split()[-1].upper()) == sorted("AEINRST"), rounds[0]
        _a_day_earlier(live_server, gid)

        lea.goto(f"{live_server.base_url}/study/")  # the next day: her decks
        deck = lea.get_by_role("link", name="From my games", exact=True)
        expect(deck).to_be_visible()
        deck.tap()
        expect(lea.locator(".prompt")).to_have_text("AEINRST")  # the anagram card of the bingo, a new card
        night.errors.check()


def _check_page(page: Page, axe: Callable[..., list[dict[str, Any]]]) -> None:
    serious = serious_violations(axe(page))
    assert not serious, format_violations(serious)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px phone"
    # Nor does a table scroll sideways in its frame (issue 28, item 14).
    sideways = page.evaluate(
        "[...document.querySelectorAll('.table-wrap')].filter(w => w.scrollWidth > w.clientWidth + 1)"
        ".map(w => w.querySelector('table').className + ': ' + w.scrollWidth + ' > ' + w.clientWidth)"
    )
    assert not sideways, sideways


def test_the_history_of_three_games_plots_and_breaks_down(
    browser: Browser,
    live_server: TirageServer,
    director_name: str,
    en_lexicon: Lexicon,
    axe: Callable[..., list[dict[str, Any]]],
    screenshot_dir: Path,
) -> None:
    with night_of(browser, live_server, director_name) as night:
        context = night.context("Lea", **PHONE)
        lea = context.new_page()
        _sign_up(lea, live_server, "lea-history")
        for plays in ("top", "low", "none"):
            _one_round_game(live_server, lea, en_lexicon, plays)

        lea.goto(f"{live_server.base_url}/study/history")
        expect(lea.locator("h1")).to_have_text("My games")
        expect(lea.locator(".history-plot circle.point")).to_have_count(3)
        expect(lea.locator(".history-plot text.axis", has_text="100")).to_have_count(1)
        expect(lea.locator("table.history-games tbody tr")).to_have_count(3)
        # Each game is named as the player knew it: its join code (and the date beside it), not its number.
        names = lea.locator("table.history-games tbody tr th a").all_inner_texts()
        assert len(names) == 3 and all(re.fullmatch(r"[A-Z2-9]{6,7}", name) for name in names), names
        missing = lea.locator('table.lost-points tr[data-cause="missing"]')
        expect(missing.locator("td").nth(1)).to_have_text("1")  # the game she played nothing in
        lower = lea.locator("table.lost-points tbody tr").filter(has_not_text="Late or missing").locator("td.num")
        expect(lea.get_by_text("Points lost, by cause, over the last 3 games")).to_be_visible()
        assert sum(int(t) for t in lower.all_inner_texts()[1::2]) == 1  # one more round lost, to one cause
        _check_page(lea, axe)
        lea.screenshot(path=str(screenshot_dir / "history-phone.png"), full_page=True)

        # From the keyboard: the breakdown over another number of games.
        lea.locator("#last").focus()
        lea.locator("#last").select_option("3")
        lea.get_by_role("button", name="Show").press("Enter")
        expect(lea).to_have_url(re.compile(r"last=3"))

        for theme, language in (("contrast", "en"), ("standard", "fr")):
            lea.goto(f"{live_server.base_url}/study/history?theme={theme}&lang={language}")
            if language == "fr":
                expect(lea.locator("h1")).to_have_text("Mes parties")
                expect(lea.get_by_text("Coup en retard ou absent")).to_be_visible()
            _check_page(lea, axe)
        night.errors.check()
