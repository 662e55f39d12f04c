"""A rejoin on a new phone, in real Chromium against the real ``tirage serve`` (docs/rules.md §6.16).

The old phone's page says it was taken over without a reload and hides its play form: told by its event stream,
or, when that stream is not getting through, by the play it tries to hand in (the API refuses it, the page's
script posts the form, whose answer says why); the new phone shows the play that counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.browser.game_night import PASSWORD, Night, Player, night_of, position
from tests.browser.test_phone import act, new_game, phone
from tests.processes import TirageServer
from trainer.engine import Lexicon

SEED = 20261128_000000_000026  # this test's own draw: games that share one hide rounds from outsiders (§6.4)
TAKEN_OVER = "This place was taken over by another phone."


@pytest.fixture
def night(browser: Browser, live_server: TirageServer) -> Iterator[Night]:
    live_server.create_director("rejoins", PASSWORD)
    with night_of(browser, live_server, "rejoins") as opened:
        yield opened


def rejoin_code(console: Page, game_id: int, name: str) -> str:
    """The director's console gives a rejoin code for ``name``."""
    console.goto(f"{console.url.split('/director')[0]}/director/games/{game_id}")
    console.locator(f'button[data-rejoin="{name}"]').click()
    return console.locator("[data-rejoin-code]").inner_text().strip()


def rejoins(night: Night, game_id: int, name: str, code: str) -> Player:
    """``name`` types the rejoin code on a new phone and lands on the game's page."""
    new = phone(night, f"{name}'s new phone")
    new.page.goto(f"{night.server.base_url}/rejoin?code={code}")
    new.page.locator("form.stack-form button[type=submit]").tap()
    expect(new.page).to_have_url(re.compile(rf"/play/{game_id}$"))
    return new


def told_taken_over(old: Player, game_id: int) -> None:
    notice = old.page.locator('[data-revoked="taken_over"]')
    expect(notice).to_be_visible()
    expect(notice).to_have_text(TAKEN_OVER)
    expect(old.page.locator("#play-form")).to_be_hidden()
    expect(old.page).to_have_url(re.compile(rf"/play/{game_id}$"))  # no reload, no join page


def test_the_old_phone_is_told_it_was_taken_over_and_the_new_one_shows_the_play_that_counts(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon
) -> None:
    token = live_server.ok("POST", "/api/auth/token", {"username": "rejoins", "password": PASSWORD})["token"]
    game = new_game(live_server, token, seed=SEED)
    zoe, cy = phone(night, "Zoe"), phone(night, "Cy")
    for player in (zoe, cy):
        player.join(game)
    act(live_server, token, game, "start")
    where = position(live_server, game.id, en_lexicon)
    top, lesser = where.plain(), where.plain(below_top=True)
    for player in (zoe, cy):
        player.wait_for("playing", 1)
    zoe.submit(where.written(top))

    # Cy's event stream and page refreshes do not get through (a proxy dropping them): only his next play can tell.
    def dropped(route: Route) -> None:
        route.abort()

    cy.page.route(re.compile(r"/api/games/\d+/events|/play/\d+/live"), dropped)
    cy.context.set_offline(True)  # the stream open already goes; coming back, the page tries again and is dropped
    cy.context.set_offline(False)
    console = night.director().console
    new_zoe = rejoins(night, game.id, "Zoe", rejoin_code(console, game.id, "Zoe"))
    rejoins(night, game.id, "Cy", rejoin_code(console, game.id, "Cy"))
    expect(new_zoe.submitted).to_have_text(f"Handed in: {where.written(top)}")  # the old phone's play counts so far

    told_taken_over(zoe, game.id)  # by its open stream
    cy.type_play(where.written(top))
    cy.hand_in()
    told_taken_over(cy, game.id)  # by the play it tried to hand in
    # The new phone's play replaces the old phone's, and the new phone says which counts.
    new_zoe.submit(where.written(lesser))
    expect(new_zoe.submitted).to_have_text(f"Handed in: {where.written(lesser)}")
