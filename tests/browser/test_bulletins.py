"""Paper bulletins typed in with the keyboard alone, in Chromium (docs/rules.md §6.21).

A mixed room: one phone and ten players on paper at numbered tables. The director makes an assistant arbiter's
account on its page; the assistant logs in, opens the game's bulletins page from their list, and types in ten
slips following the page's help literally (table number, Enter, the play, Enter), never touching the mouse.
At the close every paper player's score is the server's figure for their play.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import expect

from tests.browser.axe import format_violations, serious_violations
from tests.browser.game_night import PASSWORD, Night, api, position
from tests.processes import TirageServer
from trainer.engine import Lexicon

PAPER = 10


def test_an_assistant_enters_ten_paper_bulletins_with_the_keyboard_in_a_mixed_room(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon, axe: Callable[..., list[dict[str, Any]]]
) -> None:
    director = night.director()
    game = director.create_game(rules="en", max_rounds=2)
    token = live_server.ok("POST", "/api/auth/token", {"username": "club", "password": PASSWORD})["token"]
    for n in range(1, PAPER + 1):
        live_server.ok("POST", f"/api/games/{game.id}/paper-players", {"name": f"Paper {n}"}, token, status=201)
    phone = night.player("Pia")
    phone.join(game)

    console = director.console
    console.goto(f"{live_server.base_url}/director/assistants")
    console.locator("#username").fill("marc")
    console.locator("#password").fill("assistant-pass")
    console.get_by_role("button", name="Make the account").click()
    expect(console.locator(".flash-success")).to_contain_text("marc can now log in")

    console.goto(f"{live_server.base_url}/director/games/{game.id}")
    director.press("start")
    phone.wait_for("playing", 1)

    helper = night.context("assistant marc").new_page()
    helper.goto(f"{live_server.base_url}/director/login")
    helper.locator("#username").fill("marc")
    helper.locator("#password").fill("assistant-pass")
    helper.keyboard.press("Enter")
    helper.get_by_role("link", name=f"Game {game.code}").click()
    expect(helper.locator("h1")).to_contain_text("Paper bulletins")

    where = position(live_server, game.id, en_lexicon)
    chosen = []
    for move in where.moves:  # ten different words, none with a blank (a slip names the blank's letter)
        if not move.blanks and move.word not in {m.word for m in chosen}:
            chosen.append(move)
        if len(chosen) == PAPER:
            break
    for table, move in enumerate(chosen, start=1):
        expect(helper.locator("#who")).to_be_focused()  # the page comes back ready for the next slip
        helper.keyboard.type(str(table))
        helper.keyboard.press("Enter")
        expect(helper.locator("#move")).to_be_focused()
        helper.keyboard.type(where.written(move))
        helper.keyboard.press("Enter")
        expect(helper.locator(".flash-success")).to_have_text(
            f"Round 1, Paper {table} (table {table}): {where.written(move)} taken."
        )
    rows = helper.locator("table[data-bulletins] tbody tr")
    expect(rows).to_have_count(PAPER)
    serious = serious_violations(axe(helper))
    assert not serious, format_violations(serious)
    # Who typed each slip in, then when (docs/rules.md §6.21): the "Entered by" column names the assistant.
    assert rows.locator("td:nth-child(4)").all_inner_texts() == ["marc"] * PAPER

    phone.submit(where.written(where.plain(below_top=True)))
    director.press("close")
    phone.wait_for("revealing", 1)
    table = {s["name"]: s for s in api(live_server, f"/games/{game.id}/standings")["standings"]}
    for number, move in enumerate(chosen, start=1):
        assert table[f"Paper {number}"]["total"] == where.credited(move, en_lexicon), (number, move)
    assert len(table) == PAPER + 1
    night.errors.check()
