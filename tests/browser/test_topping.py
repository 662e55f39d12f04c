"""Topping alone in Chromium on a phone (docs/rules.md §6.28): Tia signs up, starts a topping session on a fresh draw
of 5 rounds, takes the length hint, hands in a wrong play and then the top from the keyboard, gives the other rounds
up, finishes and reads "New record!"; a second session shows her record and sets none. Both themes, French on the
last page, no serious axe finding, no page wider than the phone.

A fresh draw's seed is random: the round's tops are read from the server's database (its SQLite file), and the wrong
play is worked out with the engine from the round's board and rack, as a player reading the page would."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from tests.browser.axe import format_violations, serious_violations
from tests.browser.game_night import PHONE, night_of
from tests.browser.test_player_history import _sign_up
from tests.processes import TirageServer
from trainer.engine import Lexicon
from trainer.engine.board import Board
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move
from trainer.engine.rules import ruleset


def _round(server: TirageServer, session_id: int, number: int) -> tuple[list[str], str, str]:
    """The round's tops, rack and board as the server stored them."""
    with sqlite3.connect(server.instance / "tirage.sqlite") as db:
        row = db.execute(
            "SELECT tops, rack, board_before FROM practice_round WHERE session_id = ? AND number = ?",
            (session_id, number),
        ).fetchone()
    assert row is not None, (session_id, number)
    return list(json.loads(row[0])), str(row[1]), str(row[2])


def _wrong_play(rack: str, cells: str, tops: list[str], lexicon: Lexicon) -> str:
    rules = ruleset("en")
    board = Board(rules.layout, list(cells))
    moves = sorted(generate_moves(board, rules, lexicon, rack), key=lambda m: (m.score or 0, format_move(m)))
    return next(format_move(m) for m in moves if format_move(m) not in tops)


def _check_page(page: Page, axe: Callable[..., list[dict[str, Any]]]) -> None:
    serious = serious_violations(axe(page))
    assert not serious, format_violations(serious)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px phone"


def _start(page: Page, server: TirageServer, rounds: int) -> int:
    page.goto(f"{server.base_url}/practice/topping")
    expect(page.locator("h1")).to_have_text("Topping alone")
    page.locator("#rounds").fill(str(rounds))
    page.get_by_role("button", name="Start topping").tap()
    expect(page).to_have_url(re.compile(r"/practice/topping/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def _give_up_and_go_on(page: Page, number: int) -> None:
    expect(page.locator(f'.topping-round[data-round="{number}"][data-over="0"]')).to_be_visible()
    page.locator(".topping-give-up button").tap()
    expect(page.locator(".topping-outcome.missed")).to_be_visible()
    page.get_by_role("button", name="Next round").tap()


def test_a_topping_session_with_a_hint_and_a_record(
    browser: Browser,
    live_server: TirageServer,
    en_lexicon: Lexicon,
    axe: Callable[..., list[dict[str, Any]]],
    screenshot_dir: Path,
) -> None:
    with night_of(browser, live_server, "nobody") as night:
        tia = night.context("Tia", **PHONE).new_page()
        _sign_up(tia, live_server, "tia-topping")
        session_id = _start(tia, live_server, 5)
        tops, rack, cells = _round(live_server, session_id, 1)
        expect(tia.locator(".rack .tile")).to_have_count(len(rack))
        expect(tia.locator("[data-topping-clock]")).to_be_visible()

        # The length hint: shown with its cost, its button now spent.
        tia.locator('[data-hint-kind="length"]').tap()
        word = tops[0].split()[-1]
        expect(tia.locator('.topping-hints li[data-hint="length"]')).to_contain_text(f"Length: {len(word)} letters")
        expect(tia.locator('[data-hint-kind="length"]')).to_be_disabled()

        # From the keyboard: a wrong play, "not the top" and the seconds it adds; then the top.
        tia.wait_for_load_state("load")
        wrong = _wrong_play(rack, cells, tops, en_lexicon)
        tia.locator("#play").fill(wrong)
        tia.locator("#play").press("Enter")
        expect(tia.locator(f'.topping-wrong li[data-wrong="{wrong}"]')).to_contain_text("not the top (+10 s)")
        expect(tia.locator(".flash-error")).to_contain_text("not the top")
        _check_page(tia, axe)
        tia.screenshot(path=str(screenshot_dir / "topping-round.png"), full_page=True)
        html = tia.content()
        assert not any(top in html for top in tops), "a top is in the page while the round is played"

        tia.goto(f"{live_server.base_url}/practice/topping/{session_id}?theme=contrast")
        tia.wait_for_load_state("load")
        _check_page(tia, axe)
        tia.locator("#play").fill(tops[0])
        tia.locator("#play").press("Enter")
        expect(tia.locator(".topping-outcome.found")).to_contain_text(tops[0])
        expect(tia.locator('.topping-breakdown [data-figure="wrong"]')).to_have_text("10")
        expect(tia.locator('.topping-breakdown [data-figure="hints"]')).to_have_text("10")
        expect(tia.locator(f'.topping-tops li[data-top="{tops[0]}"]')).to_be_visible()
        _check_page(tia, axe)
        tia.goto(f"{live_server.base_url}/practice/topping/{session_id}?theme=standard")
        tia.get_by_role("button", name="Next round").tap()

        for number in range(2, 6):
            _give_up_and_go_on(tia, number)

        # The end: the first session of 5 rounds sets the overall record.
        expect(tia.locator("[data-new-record]")).to_contain_text("New record!")
        expect(tia.locator(".topping-times tbody tr")).to_have_count(5)
        expect(tia.locator('.topping-record-list [data-record="overall"]')).to_contain_text("Best average")
        _check_page(tia, axe)
        tia.goto(f"{live_server.base_url}/practice/topping/{session_id}?lang=fr")
        expect(tia.locator("[data-new-record]")).to_contain_text("Nouveau record !")
        expect(tia.locator("h2#end-title")).to_have_text("Séance terminée")
        _check_page(tia, axe)

        # A second session: the topping page shows her record; one round given up sets none.
        tia.goto(f"{live_server.base_url}/practice/topping?lang=en")
        record = tia.locator('.topping-records [data-record="overall"]')
        expect(record).to_contain_text("Best average:")
        figure = re.search(r"Best average: ([\d.]+) s", record.inner_text())
        assert figure is not None
        _check_page(tia, axe)
        second = _start(tia, live_server, 1)
        assert second != session_id
        _give_up_and_go_on(tia, 1)
        expect(tia.locator(".topping-end")).to_be_visible()
        expect(tia.locator("[data-new-record]")).to_have_count(0)
        expect(tia.locator('.topping-record-list [data-record="overall"]')).to_contain_text(figure.group(1))
        night.errors.check()
