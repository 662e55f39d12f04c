"""A topping club night (docs/rules.md §6.26) in real Chromium, against the server's event-loop front (its fast paths
hand a topping game's plays and phone fragments to the views): the director makes a topping game on the New game
form, two phones top the same draw, Ann after a wrong play and Bob after a hint; the round closes as soon as both have
found the top, and the projector ranks the room by time."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.axe import HEADING_ONE, format_violations
from tests.browser.game_night import Director, Game, Night, api, live, position
from tests.processes import TirageServer
from trainer.engine import Lexicon

SEED = "27182818284590452353"  # round 1: EGGILOR, the top 8B LOGGIER (72), no blank


def create_topping_game(director: Director) -> Game:
    page = director.console
    page.locator('a[href$="/director/games/new"]').click()
    expect(page).to_have_url(re.compile(r"/director/games/new$"))
    page.locator("#mode").select_option("topping")
    page.locator("#round_seconds").fill("600")
    page.locator("#reveal_seconds").fill("")
    page.locator("#max_rounds").fill("2")
    page.locator("#seed").fill(SEED)
    page.locator("form.settings-form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/director/games/\d+$"))
    game_id = int(page.url.rsplit("/", 1)[1])
    code = page.locator(".lobby-panel .join-code").inner_text().strip()
    join_url = page.locator('.join-box a[href*="?code="]').get_attribute("href") or ""
    return Game(game_id, code, join_url)


def nothing_more_to_hand_in(page: Page, note: str) -> None:
    """A phone that has found the round's top: its input, Hand in and the tools that write a play are off, and the
    form says why (issue 28 item 5)."""
    form = page.locator("#play-form")
    expect(form.locator("[data-top-found]")).to_have_text(note)
    for control in ("#move", "button[type=submit]", "[data-erase]", '[data-direction="across"]'):
        expect(form.locator(control)).to_be_disabled()


def test_a_topping_night_ranks_the_room_by_time(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon, axe: Callable[..., list[dict[str, Any]]]
) -> None:
    director = night.director()
    game = create_topping_game(director)
    assert api(live_server, f"/games/{game.id}")["settings"]["mode"] == "topping"
    projector = director.open_projector(game)
    ann, bob = night.player("Ann"), night.player("Bob")
    for player in (ann, bob):
        player.join(game)
        player.wait_for("lobby")
    director.press("start")
    for player in (ann, bob):
        player.wait_for("playing", 1)
    now = position(live_server, game.id, en_lexicon)
    top, lower = now.plain(), now.plain(below_top=True)
    assert top.score == now.top_score and now.written(top) == "8B LOGGIER"

    # Ann: a wrong play first. It goes through the form (a topping phone's form has no token), which says why.
    ann.type_play(now.written(lower))
    with ann.page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/submit")) as answer:
        ann.hand_in()
    assert answer.value.status == 422
    expect(ann.error).to_have_text("Not the top: try again (each wrong play costs 10 s).")
    expect(ann.page.locator("#live [data-wrong-plays]")).to_have_text("1 wrong play")

    # Bob: the length hint, with its cost on the button; the phone then shows what it reveals.
    button = bob.page.locator('#live button[data-hint-kind="length"]')
    expect(button).to_have_text("Length (+10.0 s)")
    button.tap()
    expect(bob.page.locator('#live [data-hint="length"]')).to_have_text("The top's word has 7 letters.")
    expect(bob.page.locator('#live button[data-hint-kind="length"]')).to_have_count(0)
    expect(bob.page.locator('#live button[data-hint-kind="letter"]')).to_have_text("A letter (+15.0 s)")

    # Ann finds it; the projector counts her.
    ann.type_play(now.written(top))
    with ann.page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/submit")) as answer:
        ann.hand_in()
    assert answer.value.status == 200
    expect(ann.page.locator("#live [data-topping-found]")).to_contain_text("You found the top in")
    nothing_more_to_hand_in(ann.page, "You found the top: nothing more to hand in until the next round.")
    violations = axe(ann.page, None, HEADING_ONE)  # the topping phone has its h1
    assert not violations, format_violations(violations)
    ann.page.goto(f"{live_server.base_url}/play/{game.id}?lang=fr")  # the page as served, in French
    nothing_more_to_hand_in(ann.page, "Vous avez trouvé le top : rien de plus à valider avant le coup suivant.")
    ann.page.goto(f"{live_server.base_url}/play/{game.id}?lang=en")
    ann.wait_for("playing", 1)
    expect(projector.locator("#live [data-topping-found-now]")).to_have_text(re.compile(r"^\s*1 / 2 found the top\s*$"))

    # Bob finds it (the other placement of the same word is a top too): everyone has, and the round closes at once.
    bob.type_play("H2 LOGGIER")
    bob.hand_in()
    for player in (ann, bob):
        player.wait_for("revealing", 1)
    expect(live(projector)).to_have_attribute("data-status", "revealing")
    lines = projector.locator("#live [data-topping-round] li")
    expect(lines).to_have_count(2)
    expect(projector.locator('#live [data-topping-round] li[data-player="Ann"]')).to_contain_text(
        re.compile(r"Ann\s+·\s+found in \d+\.\d s\s+·\s+1 wrong play\s+·\s+\d+\.\d s")
    )
    expect(projector.locator('#live [data-topping-round] li[data-player="Bob"]')).to_contain_text(
        re.compile(r"Bob\s+·\s+found in \d+\.\d s\s+·\s+1 hint\s+·\s+\d+\.\d s")
    )
    ranking = api(live_server, f"/games/{game.id}/topping")
    order = [s["name"] for s in ranking["standings"]]
    assert sorted(order) == ["Ann", "Bob"] and all(s["found"] == 1 for s in ranking["standings"])
    rows = projector.locator("#live [data-topping-ranking] tbody tr")
    expect(rows).to_have_count(2)
    assert [row.get_attribute("data-player") for row in rows.all()] == order  # the projector's pages rank by time
    first = ranking["standings"][0]
    seconds = f"{first['seconds']:.1f} s"
    figure = projector.locator(f'#live [data-topping-ranking] tr[data-player="{order[0]}"] [data-figure="seconds"]')
    expect(figure.first).to_have_text(seconds)
    expect(ann.page.locator("#live .my-standing")).to_contain_text(re.compile(r"You are [12] of 2 with \d+\.\d s\."))
    expect(ann.page.locator("#live [data-topping-ranking]")).to_have_count(1)  # the phone's top ten, by time
