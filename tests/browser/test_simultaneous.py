"""A simultaneous game over two rooms in Chromium (docs/rules.md §6.22): two clubs' directors, each with their own
room, code and console; a phone in each room finds the same top, a third finds a lesser play. The event's ranking
page counts the round once both rooms have closed it, and the top found in both rooms is no solo, though each
room's own standings call it one."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import expect

from tests.browser.axe import format_violations, serious_violations
from tests.browser.game_night import PASSWORD, Night, api, position
from tests.processes import TirageServer
from trainer.engine import Lexicon

SEED = 20240611_000000_000000  # tests/browser/test_game_night.py's: its first top is written without a blank


def test_two_rooms_one_ranking_and_a_top_found_in_both_is_no_solo(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon, axe: Callable[..., list[dict[str, Any]]]
) -> None:
    first = night.director()
    game = first.create_game(rules="en", max_rounds=2, seed=SEED)
    page = first.console
    page.goto(f"{live_server.base_url}/director/")
    page.get_by_role("link", name="Simultaneous games and tournaments").click()
    page.locator("#sim-name").fill("Téléthon des clubs")
    page.locator("#sim-game").select_option(str(game.id))
    page.get_by_role("button", name="Make the simultaneous game").click()
    message = page.locator(".flash-success")
    expect(message).to_contain_text("give its code")
    code = page.locator("li[data-competition]").get_attribute("data-competition") or ""
    assert f"give its code {code} to the other clubs" in message.inner_text()

    live_server.create_director("voisins", PASSWORD)
    other = night.context("director voisins", viewport={"width": 1280, "height": 800}).new_page()
    other.goto(f"{live_server.base_url}/director/login")
    other.locator("#username").fill("voisins")
    other.locator("#password").fill(PASSWORD)
    other.keyboard.press("Enter")
    expect(other).to_have_url(re.compile(r"/director/$"))
    other.goto(f"{live_server.base_url}/director/competitions")
    other.locator("#room-code").fill(code)
    other.get_by_role("button", name="Open my room").click()
    expect(other.locator(".console-head h1")).to_contain_text("Game")
    second_id = int(other.url.rstrip("/").rsplit("/", 1)[1])
    second_code = other.locator(".lobby-panel .join-code").inner_text().strip()
    assert second_id != game.id and second_code != game.code

    ann, cy, bob = night.player("Ann"), night.player("Cy"), night.player("Bob")
    ann.join(game)
    cy.join(game)
    bob.page.goto(f"{live_server.base_url}/join?code={second_code}")
    bob.page.locator("#name").fill("Bob")
    bob.page.locator("form.stack-form button[type=submit]").tap()
    expect(bob.page.locator(".phone-now .who")).to_have_text("Bob")

    page.goto(f"{live_server.base_url}/director/games/{game.id}")
    first.press("start")
    other.locator('#live button[data-action="start"]').click()
    for phone in (ann, cy, bob):
        phone.wait_for("playing", 1)
    assert ann.rack() == bob.rack()
    token = live_server.ok("POST", "/api/auth/token", {"username": "club", "password": PASSWORD})["token"]
    where = position(live_server, game.id, en_lexicon, token)  # the public view waits for the other room
    top = where.plain()
    assert where.credited(top, en_lexicon) == where.top_score, "the seed's first top should need no blank"
    ann.submit(where.written(top))
    bob.submit(where.written(top))
    # Another word, below the top: on the first move a play is credited with its word's best placement (§6.9),
    # so a lesser placement of the top's word would find the top too.
    other_words = (m for m in where.moves if not m.blanks and m.word != top.word)
    lesser = next(m for m in other_words if where.credited(m, en_lexicon) < where.top_score)
    cy.submit(where.written(lesser))

    first.press("close")
    ranking = night.context("spectator").new_page()
    ranking.goto(f"{live_server.base_url}/events/{code}")
    expect(ranking.locator("[data-counted]")).to_have_attribute("data-counted", "0")  # room 2 still plays
    expect(ranking.locator(".sheet-provisional")).to_contain_text("Room 2")  # by its name, never its code (§6.22)
    assert second_code not in ranking.content() and game.code not in ranking.content()

    confirm = other.locator('#live details.confirm:has(button[data-action="close"])')
    confirm.locator("summary").click()
    other.locator('#live button[data-action="close"]').click()
    bob.wait_for("revealing", 1)
    ranking.reload()
    expect(ranking.locator("[data-counted]")).to_have_attribute("data-counted", "1")
    rows = ranking.locator("table[data-sheet=event] tbody tr")
    expect(rows).to_have_count(3)
    cells = {
        (row.get_attribute("data-room"), row.get_attribute("data-player")): row.locator("td").all_inner_texts()
        for row in rows.all()
    }
    score = str(where.credited(top, en_lexicon))
    # rank, name, room, total, négatif, %, tops, solos...: Ann and Bob share rank 1, and neither has a solo.
    assert cells[("Room 1", "Ann")][:4] == ["1", "Ann", "Room 1", score] and cells[("Room 1", "Ann")][7] == "0"
    assert cells[("Room 2", "Bob")][:4] == ["1", "Bob", "Room 2", score] and cells[("Room 2", "Bob")][7] == "0"
    serious = serious_violations(axe(ranking))
    assert not serious, format_violations(serious)
    room_standings = {s["name"]: s for s in api(live_server, f"/games/{game.id}/standings")["standings"]}
    assert room_standings["Ann"]["solos"] == 1  # in her own room she alone found it
    night.errors.check()
