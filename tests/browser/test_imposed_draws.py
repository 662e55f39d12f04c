"""A game of imposed draws (docs/rules.md §6.18) in real Chromium: the director pastes the list in the New game
form, a phone plays two rounds, and the racks the phone shows are the pasted ones, whatever the top left."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.game_night import Night, live, position
from tests.processes import TirageServer
from trainer.engine import Lexicon

# As a club pastes a published game: numbered lines, a comment, a rejet in round 3.
PASTED = """# The club's simultaneous, 12 March
1 EIMORSU
2 er+aeint
3 -EN+AIOUU ABDLOST   # a single consonant: rejected
"""


def test_a_pasted_list_of_draws_is_played_on_the_phones(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon
) -> None:
    director = night.director()
    game = director.create_game(rules="en", draws=PASTED)
    expect(director.console.locator("#live [data-imposed]")).to_have_text("imposed draws")
    ann = night.player("Ann")
    ann.join(game)
    ann.wait_for("lobby")
    director.press("start")

    ann.wait_for("playing", 1)
    first = position(live_server, game.id, en_lexicon)
    assert ann.rack() == first.rack == "EIMORSU"
    ann.submit(first.written(first.plain(below_top=True)))
    director.press("close")
    ann.wait_for("revealing", 1)
    # The engine's top (MOUSIER, every tile) leaves nothing; the list keeps ER: the console says round 2 is the
    # list's all the same.
    expect(director.console.locator("[data-imposed-differs]")).to_contain_text("the imposed draws keep ER")

    director.press("next")
    ann.wait_for("playing", 2)
    second = position(live_server, game.id, en_lexicon)
    assert ann.rack() == second.rack == "ERAEINT"
    expect(director.console.locator(".round-panel")).to_be_visible()
    ann.submit(second.written(second.plain()))
    director.press("close")
    ann.wait_for("revealing", 2)

    director.press("next")
    ann.wait_for("playing", 3)
    assert ann.rack() == "ABDLOST"  # the rack drawn after the rejet
    expect(live(director.console)).to_have_attribute("data-round", "3")
    night.errors.check()
