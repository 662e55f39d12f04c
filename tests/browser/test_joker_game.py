"""A joker club game (docs/rules.md §6.24) in real Chromium: the director makes it on the New game form (the preset's
list filling the two times, then set aside for the club's own), a phone plays five rounds with a blank in every
rack, and at each reveal the phone says the blank was swapped back and shows the letter from the bag on the board."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.game_night import Director, Game, Night, api, live, position
from tests.processes import TirageServer
from trainer.engine import Lexicon

SEED = "31415926535897932385"  # tests/test_joker_games.py plays the same game through the API
# Each round's blank at the reveal: round 1's top (JUNTO) keeps it; rounds 2-5 place it and it comes back.
BLANKS = [None, ("H", "E10"), ("E", "M7"), ("S", "O7"), ("O", "J5")]
JOKER_NOTE = "Joker game: every draw holds a blank. When the top places it, the blank is swapped for its letter"


def create_joker_game(director: Director) -> Game:
    """Through the New game form: the joker variant, five rounds, the seed; the preset's list fills the times (the
    page's script), and typing a time of the club's own sets the list to None."""
    page = director.console
    page.locator('a[href$="/director/games/new"]').click()
    expect(page).to_have_url(re.compile(r"/director/games/new$"))
    preset = page.locator("#preset")
    expect(preset).to_have_value("classic")
    preset.select_option("blitz")
    expect(page.locator("#round_seconds")).to_have_value("60")
    expect(page.locator("#reveal_seconds")).to_have_value("15")
    page.locator("#round_seconds").fill("600")
    expect(preset).to_have_value("")  # None: the times below
    page.locator("#reveal_seconds").fill("")
    page.locator("#variant").select_option("joker")
    page.locator("#max_rounds").fill("5")
    page.locator("#seed").fill(SEED)
    page.locator("form.settings-form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/director/games/\d+$"))
    game_id = int(page.url.rsplit("/", 1)[1])
    code = page.locator(".lobby-panel .join-code").inner_text().strip()
    join_url = page.locator('.join-box a[href*="?code="]').get_attribute("href") or ""
    return Game(game_id, code, join_url)


def test_a_joker_club_game_of_five_rounds_swaps_the_blank_back_on_the_phone(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon
) -> None:
    director = night.director()
    game = create_joker_game(director)
    settings = api(live_server, f"/games/{game.id}")["settings"]
    assert (settings["variant"], settings["preset"], settings["round_seconds"], settings["reveal_seconds"]) == (
        "joker",
        None,
        600,
        None,
    )
    expect(director.console.locator("#live [data-variant=joker]")).to_contain_text(JOKER_NOTE)
    projector = director.open_projector(game)
    expect(projector.locator("#live [data-variant=joker]")).to_contain_text(JOKER_NOTE)
    ann = night.player("Ann")
    ann.join(game)
    ann.wait_for("lobby")
    expect(ann.page.locator("#live [data-variant=joker]")).to_contain_text(JOKER_NOTE)
    director.press("start")

    for number, blank in enumerate(BLANKS, 1):
        ann.wait_for("playing", number)
        now = position(live_server, game.id, en_lexicon)
        assert ann.rack() == now.rack and now.rack.count("?") == 1, now.rack  # a blank in every draw
        ann.submit(now.written(now.plain()))
        director.press("close")
        ann.wait_for("revealing", number)
        note = ann.page.locator("#live .my-result .blank-swap")
        if blank is None:
            expect(note).to_have_count(0)  # the top kept the blank: it stays on the rack for round 2
        else:
            letter, square = blank
            said = f"The blank ({letter}) on {square} is replaced by the letter {letter} from the bag."
            expect(note).to_have_text(said)
            expect(note).to_have_attribute("data-blank", "swapped")
            # The letter from the bag, not the blank, is on the board: a tile of its value, in capitals.
            expect(ann.page.locator(f'#live td.sq[data-name="{square}"]')).to_have_attribute("data-letter", letter)
            assert api(live_server, f"/games/{game.id}/rounds/{number}")["blank"] == {
                "letter": letter,
                "square": square,
                "swapped": True,
            }
            if number == 2:
                expect(projector.locator("#live .reveal .blank-swap")).to_have_text(said)
                expect(director.console.locator("#live .reveal-panel .blank-swap")).to_have_text(said)
        director.press("next")

    ann.wait_for("finished")
    final = api(live_server, f"/games/{game.id}")
    assert (final["end_reason"], final["round"]) == ("max_rounds", 5)
    assert sum(row.count("?") + sum(ch.islower() for ch in row) for row in final["board"]) == 0  # no blank left
    expect(live(director.console)).to_have_attribute("data-status", "finished")
    night.errors.check()
