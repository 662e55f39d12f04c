"""A whole club night through the real pages, in real Chromium, against the real ``tirage serve``.

A director logs in and creates a game with the form; players join on their phones (390×844, touch)
with the join link; rounds are played by tapping the board and by typing notation, closed with the
projector's keys and the console's buttons, and the phones' figures are checked against what the
server computed. The same in French; then screenshots for the documentation and axe-core on every
state of the phone and the projector, in both themes (the contrast theme also to WCAG AAA).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.game_night import (
    Director,
    Night,
    Player,
    api,
    live,
    night_of,
    position,
    standings_rows,
)
from tests.processes import TirageServer
from trainer.engine import Lexicon

from pathlib import Path  # DEV
from trainer.engine import LexiconStore  # DEV


@pytest.fixture(scope="session")
def lexicon_store() -> LexiconStore:  # DEV
    return LexiconStore(Path("/tmp/lexstore"))  # DEV


SEED = 20240611  # same seed, same racks: reproducible plays and screenshots


@pytest.fixture
def night(browser: Browser, live_server: TirageServer) -> Iterator[Night]:
    with night_of(browser, live_server) as opened:
        yield opened


def expect_reveal_figures(player: Player, server: TirageServer, game_id: int, number: int) -> dict[str, object]:
    """The phone's reveal shows the top and the player's play, score, difference and rank as the server has them."""
    details = api(server, f"/games/{game_id}/rounds/{number}")
    mine = next(r for r in details["results"] if r["name"] == player.name)
    page = player.page
    expect(page.locator("#live .my-result h2")).to_contain_text(str(number))
    expect(page.locator("#live .my-result .top-play strong")).to_have_text(details["placed"])
    expect(page.locator("#live .my-result .top-play")).to_contain_text(str(details["top_score"]))
    figures = player.result()
    values = list(figures.values())
    assert values[0] == mine["move"], figures
    assert values[1] == str(mine["score"]), figures
    assert values[2] == str(mine["difference"]), figures
    assert re.match(rf"^{mine['rank']}\D+{mine['of']}\D", values[3]), figures
    table = api(server, f"/games/{game_id}/standings")
    me = next(s for s in table["standings"] if s["name"] == player.name)
    standing = page.locator("#live .my-standing")
    expect(standing).to_contain_text(str(me["rank"]))
    expect(standing).to_contain_text(f"{me['total']} ")
    expect(page.locator("#live table.standings tbody tr")).to_have_count(len(table["standings"]))
    return mine


def test_three_phones_play_two_rounds_run_from_the_console_and_the_projector(
        night: Night, live_server: TirageServer, en_lexicon: Lexicon) -> None:
    director = night.director("alice")
    game = director.create_game(rules="en", max_rounds=2, seed=SEED)
    projector = director.open_projector(game)
    expect(projector.locator(".join-code")).to_have_text(game.code)
    expect(projector.locator(".join-url")).to_have_text(game.join_url)

    ann, bea, cy = (night.player(name) for name in ("Ann", "Bea", "Cy"))
    for player in (ann, bea, cy):
        player.join(game)
        player.wait_for("lobby")
    expect(director.console.locator(".player-list li")).to_have_text(["Ann", "Bea", "Cy"])
    expect(projector.locator("[data-players]")).to_have_text("3 players")

    # Space on the projector starts the game.
    projector.keyboard.press(" ")
    for page in (director.console, projector, ann.page, bea.page, cy.page):
        expect(live(page)).to_have_attribute("data-status", "playing")
    for player in (ann, bea, cy):
        expect(player.page.locator("#live .clock")).to_have_text(re.compile(r"^\d+:\d\d$"))
        expect(player.page.locator("#play-form")).to_be_visible()

    # ---- round 1
    r1 = position(live_server, game.id, en_lexicon)
    assert ann.rack() == r1.rack
    ann_move = r1.plain(below_top=True, across=False)  # down, to use the direction buttons
    bea_first = r1.plain(below_top=True, avoid=(ann_move,))
    bea_final = r1.plain()  # the top: her replacement is what counts
    cy_move = r1.plain(below_top=True, avoid=(ann_move, bea_first))

    ann.tap_play(ann_move, r1)
    ann.hand_in()
    expect(ann.submitted).to_have_attribute("data-submitted", r1.written(ann_move))

    bea.submit(r1.written(bea_first), r1)
    bea.submit(r1.written(bea_final), r1)

    # Off the centre square: refused at once, the reason next to the input; then a legal play.
    night.errors.tolerate(cy.context, r"status of 422 .*/submit")
    cy.type_play(f"1A {cy_move.word}")
    cy.hand_in()
    expect(cy.error).to_contain_text("centre square")
    expect(cy.move_input).to_have_attribute("aria-invalid", "true")
    expect(cy.page.locator("#live .submitted.none")).to_be_visible()
    cy.submit(r1.written(cy_move), r1)
    expect(cy.move_input).not_to_have_attribute("aria-invalid", "true")

    expect(director.console.locator("[data-submissions]")).to_have_text("3")
    expect(projector.locator("[data-submissions]")).to_have_text("3")

    # R on the projector reveals.
    projector.keyboard.press("r")
    for player in (ann, bea, cy):
        player.wait_for("revealing", 1)
        expect(player.page.locator("#play-form")).to_be_hidden()
    details = api(live_server, f"/games/{game.id}/rounds/1")
    assert details["top_score"] == r1.top_score  # the server's engine and ours agree
    expect(projector.locator(".reveal .top-play .move")).to_have_text(details["placed"])
    expect(projector.locator(".reveal .top-play .score")).to_have_text(str(r1.top_score))
    mine = {p.name: expect_reveal_figures(p, live_server, game.id, 1) for p in (ann, bea, cy)}
    assert mine["Bea"]["move"] == r1.written(bea_final) and mine["Bea"]["top"], mine["Bea"]
    expect(bea.page.locator("#live .my-result .success")).to_be_visible()
    assert mine["Ann"]["move"] == r1.written(ann_move) and mine["Ann"]["score"] == ann_move.score
    assert mine["Cy"]["move"] == r1.written(cy_move) and mine["Cy"]["score"] == cy_move.score
    expect(director.console.locator(".reveal-panel table.results tbody tr")).to_have_count(3)

    # ---- round 2, started with → on the projector
    projector.keyboard.press("ArrowRight")
    for player in (ann, bea, cy):
        player.wait_for("playing", 2)
        expect(player.submitted).to_have_class(re.compile(r"\bnone\b"))
    r2 = position(live_server, game.id, en_lexicon)
    assert r2.round == 2 and cy.rack() == r2.rack
    ann_move = r2.plain()
    cy_move = r2.plain(below_top=True, avoid=(ann_move,))
    bea_move = r2.plain(below_top=True, avoid=(ann_move, cy_move))
    ann.tap_play(ann_move, r2)
    ann.hand_in()
    expect(ann.submitted).to_have_attribute("data-submitted", r2.written(ann_move))
    cy.submit(r2.written(cy_move), r2)

    # Cy's phone loses the network: a play handed in now is not lost with the page, it is refused with a
    # reason; the room goes on; back online and reloaded, the phone is the same player with the same play.
    night.errors.tolerate(cy.context, r"ERR_INTERNET_DISCONNECTED|ERR_NETWORK_CHANGED")
    cy.context.set_offline(True)
    cy.type_play(r2.written(bea_move))
    cy.hand_in()
    expect(cy.error).to_contain_text("no connection")
    expect(cy.move_input).to_have_value(r2.written(bea_move))
    assert cy.page.url.endswith(f"/play/{game.id}")
    bea.submit(r2.written(bea_move), r2)
    expect(director.console.locator("[data-submissions]")).to_have_text("3")
    cy.context.set_offline(False)
    cy.page.reload()
    expect(cy.page.locator(".phone-head .who")).to_have_text("Cy")
    cy.wait_for("playing", 2)
    expect(cy.submitted).to_have_attribute("data-submitted", r2.written(cy_move))
    expect(cy.page.locator("[data-connection-lost]")).to_be_hidden()

    # The console's Close button reveals round 2.
    director.press("close")
    for player in (ann, bea, cy):
        player.wait_for("revealing", 2)
    mine = {p.name: expect_reveal_figures(p, live_server, game.id, 2) for p in (ann, bea, cy)}
    assert mine["Cy"]["move"] == r2.written(cy_move), mine["Cy"]

    # → after the last round (max_rounds 2) ends the game; the phones' final standings are the server's.
    projector.keyboard.press("ArrowRight")
    for page in (director.console, projector, ann.page, bea.page, cy.page):
        expect(live(page)).to_have_attribute("data-status", "finished")
    expect(director.console.locator(".live-state")).to_contain_text("the last round was played")
    final = standings_rows(live_server, game.id)
    totals = [int(row[2]) for row in final]
    assert len(final) == 3 and totals == sorted(totals, reverse=True), final
    for player in (ann, bea, cy):
        expect(player.page.locator("#live .notice")).to_contain_text("over")
        assert player.standings() == final
        expect(player.page.locator("#live table.standings tr.me td").nth(1)).to_have_text(player.name)
    night.errors.check()
