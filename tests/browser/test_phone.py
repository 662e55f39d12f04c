"""The phone page in one hand, in real Chromium against the real ``tirage serve``, at real phone sizes.

What a player sees is asserted where they see it: during a round the clock, the rack, their play and the
input are inside the screen at 320×568, 390×844 and 412×915, in both themes, and stay there while they type
and scroll the board; each of the three ways the page's help text gives to write a play is followed as it is
written and hands the play in; the page recovers by itself from a lost connection; a player's own rounds are
at a link that still works after the night; a screen reader is told the rack, the last 30 seconds and the
result. (docs/rules.md §4.6 for how a phone writes a play.)
"""

from __future__ import annotations

import re
import string
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.axe import HEADING_ONE, format_violations
from tests.browser.game_night import (
    PASSWORD,
    Game,
    Night,
    Player,
    Position,
    live,
    night_of,
    position,
)
from tests.processes import TirageServer
from trainer.engine import Lexicon, Move

# Each test has a seed of its own: games that share a draw hide their rounds from outsiders (docs/rules.md §6.4),
# and the tests read a round through the public API. Round 1's rack of each has no blank.
SEED = 20240611_000000_000000
BLANK_SEED = 10**19 + 3  # round 1's rack has one blank (?AEEGKT in English)
SIZES = ((320, 568), (390, 844), (412, 915))
THEMES = ("standard", "contrast")

# Where an element is drawn, and the screen's size: is it inside the screen a person holds?
_BOX = """(element) => {
    const box = element.getBoundingClientRect();
    // The layout viewport's own size: a mobile browser's innerWidth grows with a page that is too wide.
    const root = document.documentElement;
    return {top: box.top, bottom: box.bottom, left: box.left, right: box.right,
            width: root.clientWidth, height: root.clientHeight};
}"""


@pytest.fixture(scope="module")
def director_token(live_server: TirageServer) -> str:
    live_server.create_director("phones", PASSWORD)
    answer = live_server.ok("POST", "/api/auth/token", {"username": "phones", "password": PASSWORD})
    return str(answer["token"])


@pytest.fixture
def night(browser: Browser, live_server: TirageServer) -> Iterator[Night]:
    with night_of(browser, live_server, "phones") as opened:
        yield opened


def new_game(server: TirageServer, token: str, **settings: Any) -> Game:
    """A game made through the API (the console's form is tested elsewhere): the director starts each round."""
    wanted = {"rules": "en", "round_seconds": 600, "reveal_seconds": None, **settings}
    if "seed" in wanted:
        wanted["seed"] = str(wanted["seed"])
    created = server.ok("POST", "/api/games", wanted, token=token, status=201)
    return Game(created["id"], created["join_code"], f"{server.base_url}/join?code={created['join_code']}")


def act(server: TirageServer, token: str, game: Game, action: str) -> None:
    server.ok("POST", f"/api/games/{game.id}/{action}", token=token)


def phone(night: Night, name: str, size: tuple[int, int] = (390, 844), locale: str = "en-GB") -> Player:
    width, height = size
    context = night.context(
        f"player {name}", locale, viewport={"width": width, "height": height}, is_mobile=True, has_touch=True
    )
    return Player(night, context, context.new_page(), name)


def off_screen(page: Page, selectors: tuple[str, ...]) -> list[str]:
    """The selectors whose element is not wholly inside the screen, with where it is."""
    problems = []
    for selector in selectors:
        element = page.locator(selector).first
        expect(element).to_be_visible()
        box = element.evaluate(_BOX)
        inside = box["top"] >= 0 and box["left"] >= 0
        inside = inside and box["bottom"] <= box["height"] + 0.5 and box["right"] <= box["width"] + 0.5
        if not inside:
            problems.append(
                f"{selector} at [{box['left']:.0f}, {box['top']:.0f}, {box['right']:.0f}, {box['bottom']:.0f}]"
                f" on a {box['width']}×{box['height']} screen"
            )
    return problems


def covered(page: Page, cover: str, selectors: tuple[str, ...]) -> list[str]:
    """The selectors whose element the ``cover`` element is drawn over (their boxes meet), with both boxes."""
    problems = []
    over = page.locator(cover).first.evaluate(_BOX)
    for selector in selectors:
        box = page.locator(selector).first.evaluate(_BOX)
        apart = over["bottom"] <= box["top"] or box["bottom"] <= over["top"]
        apart = apart or over["right"] <= box["left"] or box["right"] <= over["left"]
        if not apart:
            problems.append(
                f"{cover} at [{over['left']:.0f}, {over['top']:.0f}, {over['right']:.0f}, {over['bottom']:.0f}] covers"
                f" {selector} at [{box['left']:.0f}, {box['top']:.0f}, {box['right']:.0f}, {box['bottom']:.0f}]"
            )
    return problems


def has_h1(axe: Callable[..., list[dict[str, Any]]], page: Page) -> None:
    """The page as it is now has its h1 (axe's page-has-heading-one)."""
    violations = axe(page, None, HEADING_ONE)
    assert not violations, f"{page.url}:\n{format_violations(violations)}"


def sideways(page: Page) -> int:
    """How much wider than the screen the page is (a page that scrolls sideways on a phone is broken)."""
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def handed_in(player: Player, text: str, move: Move) -> None:
    """The page says which play counts ("Handed in: 8D HUMBLE"), on the screen, and draws it on the board."""
    expect(player.submitted).to_have_text(f"Handed in: {text}")
    expect(player.submitted).to_have_attribute("data-submitted", text)
    assert not off_screen(player.page, (".phone-now .submitted",))
    expect(player.page.locator("#live td.sq.mine")).to_have_count(len(move.tiles))
    expect(player.move_input).to_have_value("")


ROUND_STATE = (".phone-now .clock", ".phone-now .rack", ".phone-now .submitted", "#move", "#play-form [type=submit]")


def test_the_round_and_the_input_stay_on_the_first_screen_of_every_phone_while_typing(
    night: Night, live_server: TirageServer, director_token: str, en_lexicon: Lexicon
) -> None:
    game = new_game(live_server, director_token, seed=SEED)
    players = [phone(night, f"Phone {width}", (width, height)) for width, height in SIZES]
    for player in players:
        player.join(game)
    act(live_server, director_token, game, "start")
    where = position(live_server, game.id, en_lexicon)
    move = where.plain()
    problems: list[str] = []
    for player in players:
        page = player.page
        size = f"{page.viewport_size['width']}×{page.viewport_size['height']}" if page.viewport_size else "?"
        for theme in THEMES:
            page.goto(f"{live_server.base_url}/play/{game.id}?theme={theme}")
            player.wait_for("playing", 1)
            expect(player.submitted).to_have_text("Your play: none yet")
            problems += [f"{size} {theme}, round: {p}" for p in off_screen(page, ROUND_STATE)]
            # Typing, then the board zoomed and scrolled to its bottom row (a thumb looking for a square): the
            # round's state and the input stay where they were, the squares are big enough to tap, and the
            # board scrolls in its own box, never the page sideways.
            player.move_input.tap()
            page.keyboard.type(where.written(move))
            page.locator("[data-zoom]").tap()
            expect(page.locator("[data-zoom]")).to_have_attribute("aria-pressed", "true")
            square = page.locator("#live td.sq").first.bounding_box()
            assert square is not None and square["width"] >= 32 and square["height"] >= 32, (size, theme, square)
            page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
            assert page.evaluate("window.scrollY") > 100, "the zoomed board should reach below the first screen"
            problems += [
                f"{size} {theme}, typing, board scrolled: {p}"
                for p in off_screen(page, (*ROUND_STATE, "[data-play-preview]"))
            ]
            if sideways(page) > 0:
                problems.append(f"{size} {theme}: the page scrolls {sideways(page)} px sideways")
            page.evaluate("window.scrollTo(0, 0)")
            page.locator("[data-zoom]").tap()
            expect(page.locator("[data-zoom]")).to_have_attribute("aria-pressed", "false")
            player.move_input.fill("")
        player.submit(where.written(move))
        handed_in(player, where.written(move), move)

    # Paused: the bar says so, next to the stopped clock.
    act(live_server, director_token, game, "pause")
    for player in players:
        expect(player.page.locator(".phone-now .round-label")).to_have_text("Round 1 · Paused")
        problems += off_screen(player.page, (".phone-now .round-label .status", ".phone-now .clock"))
    assert not problems, "the round's state is not where a player looks:\n" + "\n".join(problems)
    night.errors.check()


def picker_on_screen(page: Page) -> None:
    """The blank's picker is wholly on the screen as it opens, U to Z too on a 320×568 phone (issue 28 item 5)."""
    letters = tuple(f'[data-blank-letter="{letter}"]' for letter in string.ascii_uppercase)
    problems = off_screen(page, letters)
    assert not problems, "the blank's picker is not wholly on the screen:\n" + "\n".join(problems)


def tap_tiles(player: Player, move: Move, where: Position) -> None:
    """As the page's help says: tap the first square, then the rack's tiles in order; the blank asks its letter."""
    page = player.page
    page.locator(f'#live td.sq[data-name="{where.square(move)}"] button').tap()
    direction = "across" if move.horizontal else "down"
    if page.locator(f'[data-direction="{direction}"]').get_attribute("aria-pressed") != "true":
        page.locator(f'#live td.sq[data-name="{where.square(move)}"] button').tap()  # a second tap turns it
    expect(page.locator(f'[data-direction="{direction}"]')).to_have_attribute("aria-pressed", "true")
    along = sorted(move.tiles, key=lambda t: (t.row, t.col))
    for tile in along:
        if tile.blank:
            page.locator('.phone-now .rack li.tile[data-letter="?"]:not(.used) button').first.tap()
            picker = page.locator("[data-blank-picker]")
            expect(picker).to_be_visible()
            expect(picker).to_contain_text("Which letter does the blank stand for?")
            picker_on_screen(page)
            picker.locator(f'[data-blank-letter="{tile.letter}"]').tap()
            expect(picker).to_be_hidden()
        else:
            page.locator(f'.phone-now .rack li.tile[data-letter="{tile.letter}"]:not(.used) button').first.tap()
    expect(player.move_input).to_have_value(where.written(move))
    expect(page.locator("#live td.sq.preview")).to_have_count(len(move.tiles))


def test_each_way_the_help_gives_hands_a_play_in(
    night: Night, live_server: TirageServer, director_token: str, en_lexicon: Lexicon
) -> None:
    game = new_game(live_server, director_token, seed=SEED + 1)
    typist, tapper, tiler = (
        phone(night, name, size) for name, size in zip(("Typist", "Tapper", "Tiler"), SIZES, strict=True)
    )
    for player in (typist, tapper, tiler):
        player.join(game)
        help_text = player.page.locator("#play-help")
        expect(help_text).to_contain_text("English notation: 8D is row 8, column D, across")
        expect(help_text).to_contain_text("tap Across or Down, and type the word")
        expect(help_text).to_contain_text("tap the tiles of your rack in order")
        expect(help_text).to_contain_text("write the letter it stands for small among capitals (HUMbLE")
    act(live_server, director_token, game, "start")
    where = position(live_server, game.id, en_lexicon)
    typed, tapped = where.plain(), where.plain(below_top=True, across=False)
    tiled = where.plain(below_top=True, avoid=(typed, tapped))

    # 1. Typed in notation, in small letters as a phone's keyboard writes them: read as capitals.
    night.errors.tolerate(typist.context, r"status of 422 .*/(submit|plays)")
    typist.wait_for("playing", 1)
    typist.type_play(where.written(typed).lower())
    expect(typist.page.locator("#live td.sq.preview .ghost.blank")).to_have_count(0)
    expect(typist.page.locator("[data-play-preview]")).to_contain_text(
        "Across → from row" if typed.horizontal else "Down ↓ from row"
    )
    typist.hand_in()
    handed_in(typist, where.written(typed), typed)
    # A small letter among capitals is a blank: this rack has none, and the page says why.
    word = where.written(tapped).split(" ")[1]
    typist.type_play(f"{where.written(tapped).split(' ')[0]} {word[0].lower()}{word[1:]}")
    typist.hand_in()
    expect(typist.error).to_have_text(
        "A small letter among capitals stands for a blank, and your rack has no blank: write that letter as a capital."
    )
    expect(typist.submitted).to_have_attribute("data-submitted", where.written(typed))

    # 2. Tap the first square, tap the direction, type the word (the letters go to the input by themselves).
    tapper.tap_play(tapped, where)
    tapper.hand_in()
    handed_in(tapper, where.written(tapped), tapped)

    # 3. Tap the first square, then the tiles.
    tap_tiles(tiler, tiled, where)
    tiler.hand_in()
    handed_in(tiler, where.written(tiled), tiled)

    # Round 2: tiles stepped over the letters already on the board; the blank in another game below.
    act(live_server, director_token, game, "close")
    act(live_server, director_token, game, "next")
    tiler.wait_for("playing", 2)
    expect(tiler.page.locator("#live td.sq.mine")).to_have_count(0)  # last round's play is not drawn any more
    second = position(live_server, game.id, en_lexicon)
    through = next(m for m in second.moves if not m.blanks and len(m.tiles) < len(m.word))
    tap_tiles(tiler, through, second)
    # ⌫ takes the last tile back (with the board's letters after it); tapped again, the play is whole again.
    last = sorted(through.tiles, key=lambda t: (t.row, t.col))[-1]
    tiler.page.locator("[data-erase]").tap()
    expect(tiler.page.locator("#live td.sq.preview")).to_have_count(len(through.tiles) - 1)
    tiler.page.locator(f'.phone-now .rack li.tile[data-letter="{last.letter}"]:not(.used) button').first.tap()
    expect(tiler.move_input).to_have_value(second.written(through))
    tiler.hand_in()
    handed_in(tiler, second.written(through), through)
    night.errors.check()


def test_the_blank_asks_for_its_letter_and_a_french_game_spells_out_its_notation(
    night: Night, live_server: TirageServer, director_token: str, en_lexicon: Lexicon
) -> None:
    game = new_game(live_server, director_token, seed=BLANK_SEED)
    ann = phone(night, "Ann", (320, 568))
    ann.join(game)
    act(live_server, director_token, game, "start")
    where = position(live_server, game.id, en_lexicon)
    assert "?" in where.rack, f"the seed's rack {where.rack} should hold a blank"
    with_blank = next(m for m in where.moves if m.blanks == 1)
    tap_tiles(ann, with_blank, where)
    expect(ann.page.locator("#live td.sq.preview .ghost.blank")).to_have_count(1)
    ann.hand_in()
    handed_in(ann, where.written(with_blank), with_blank)
    # In French and large print too: the direction's buttons take two lines rather than widen the page (a page wider
    # than the screen scrolls sideways, and the picker at the bottom of the wider page is off the screen).
    ann.page.goto(f"{live_server.base_url}/play/{game.id}?lang=fr&theme=contrast")
    ann.wait_for("playing", 1)
    assert sideways(ann.page) <= 0
    ann.page.locator(f'#live td.sq[data-name="{where.square(with_blank)}"] button').tap()
    ann.page.locator('.phone-now .rack li.tile[data-letter="?"] button').first.tap()
    expect(ann.page.locator("[data-blank-picker]")).to_contain_text("Quelle lettre le joker remplace-t-il ?")
    picker_on_screen(ann.page)

    # A French game: an English reading of a coordinate is shown for what it is here, before it is handed in.
    french = new_game(live_server, director_token, rules="fr", seed=SEED + 2)
    bea = phone(night, "Bea", (320, 568))
    bea.join(french)
    expect(bea.page.locator("#play-help-notation")).to_have_text(
        "This game writes plays in French notation: H4 is row H, column 4, across; 4H is column 4 from row H, down."
    )
    act(live_server, director_token, french, "start")
    bea.wait_for("playing", 1)
    bea.type_play("8H MAUVE")
    expect(bea.page.locator("[data-play-preview]")).to_have_text(
        "Down ↓ from row H, column 8. In this game 8H means down. For across, write H8."
    )
    expect(bea.page.locator('[data-direction="down"]')).to_have_attribute("aria-pressed", "true")
    bea.type_play("H8 MAUVE")
    expect(bea.page.locator("[data-play-preview]")).to_have_text("Across → from row H, column 8")
    night.errors.check()


def test_a_phone_back_online_shows_the_reveal_within_5_s_and_the_unsent_text_is_gone(
    night: Night, live_server: TirageServer, director_token: str, en_lexicon: Lexicon
) -> None:
    game = new_game(live_server, director_token, seed=SEED + 3)
    ann = phone(night, "Ann", (320, 568))
    ann.join(game)
    act(live_server, director_token, game, "start")
    ann.wait_for("playing", 1)
    where = position(live_server, game.id, en_lexicon)
    ann.type_play(where.written(where.plain()))  # written, never handed in
    expect(ann.page.locator("#live td.sq.preview")).to_have_count(len(where.plain().tiles))

    night.errors.tolerate(ann.context, r"ERR_INTERNET_DISCONNECTED|ERR_NETWORK_CHANGED|ERR_NAME_NOT_RESOLVED")
    ann.context.set_offline(True)
    expect(ann.page.locator("[data-connection-lost]")).to_be_visible()
    expect(ann.page.locator("[data-connection-lost]")).to_have_text("Connection lost: reconnecting…")
    # On a 320 px phone the notice leaves the player's name, the round and the clock to be seen (issue 28 item 5).
    round_state = (".phone-now .who", ".phone-now .round-label", ".phone-now .clock", ".phone-now .rack", "#move")
    problems = covered(ann.page, "[data-connection-lost]", round_state) + off_screen(ann.page, round_state)
    assert not problems, "\n".join(problems)
    act(live_server, director_token, game, "close")
    time.sleep(3)  # the close happens while the phone is away
    expect(live(ann.page)).to_have_attribute("data-status", "playing")
    came_back = time.monotonic()
    ann.context.set_offline(False)
    expect(live(ann.page)).to_have_attribute("data-status", "revealing", timeout=5000)
    assert time.monotonic() - came_back <= 5
    expect(ann.page.locator("[data-connection-lost]")).to_be_hidden()
    # What was being written at the deadline is not drawn over the revealed top.
    expect(ann.move_input).to_have_value("")
    expect(ann.page.locator("#live td.sq.preview")).to_have_count(0)
    expect(ann.page.locator("#play-form")).to_be_hidden()
    night.errors.check()


def test_my_rounds_show_each_round_with_its_correction_at_a_link_that_works_after_the_night(
    night: Night,
    live_server: TirageServer,
    director_token: str,
    en_lexicon: Lexicon,
    screenshot_dir: Path,
    axe: Callable[..., list[dict[str, Any]]],
) -> None:
    game = new_game(live_server, director_token, seed=SEED + 4, max_rounds=2)
    ann = phone(night, "Ann", (390, 844))
    ann.page.goto(game.join_url)
    has_h1(axe, ann.page)  # each phone page has its h1 (issue 28 item 5)
    ann.join(game)
    has_h1(axe, ann.page)
    act(live_server, director_token, game, "start")
    ann.wait_for("playing", 1)
    has_h1(axe, ann.page)
    first = position(live_server, game.id, en_lexicon)
    lesser = first.plain(below_top=True)
    ann.submit(first.written(lesser))
    act(live_server, director_token, game, "close")
    ann.wait_for("revealing", 1)
    # The director corrects round 1 (a scoring mistake seen on the paper sheet): the phone says so and why.
    players = live_server.ok("GET", f"/api/games/{game.id}/players", token=director_token)["players"]
    ann_id = next(p["player_id"] for p in players if p["name"] == "Ann")
    judged = live_server.ok("GET", f"/api/games/{game.id}/rounds/1", token=director_token)["results"]
    scored = next(r["score"] for r in judged if r["name"] == "Ann")  # a first play: its word's best placement
    live_server.ok(
        "POST",
        f"/api/games/{game.id}/rounds/1/corrections",
        {"player_id": ann_id, "score": scored + 2, "reason": "hook missed by the scorer"},
        token=director_token,
        status=201,
    )
    correction = ann.page.locator("#live .my-result [data-correction]")
    expect(correction).to_have_text(
        f"Corrected by the director to {scored + 2} points (it was {scored}): hook missed by the scorer"
    )
    act(live_server, director_token, game, "next")
    ann.wait_for("playing", 2)
    second = position(live_server, game.id, en_lexicon)
    ann.submit(second.written(second.plain()))

    # During the game: the closed round only, not the round being played.
    ann.page.locator("[data-my-rounds]").click()
    expect(ann.page.locator("h1")).to_have_text("My rounds")
    rounds = ann.page.locator(".my-round")
    expect(rounds).to_have_count(1)
    details = live_server.ok("GET", f"/api/games/{game.id}/rounds/1", token=director_token)
    mine = next(r for r in details["results"] if r["name"] == "Ann")
    one = rounds.nth(0)
    expect(one.locator("h2")).to_contain_text(first.rack)
    expect(one.locator("[data-my-play]")).to_have_text(first.written(lesser))
    expect(one.locator("[data-my-score]")).to_have_text(str(mine["score"]))
    expect(one.locator("[data-top]")).to_have_text(f"{details['placed']} · {details['top_score']}")
    expect(one.locator("[data-difference]")).to_have_text(str(mine["difference"]))
    expect(one.locator("[data-rank]")).to_have_text(re.compile(rf"^{mine['rank']}\D.*{mine['of']}"))
    expect(one.locator("[data-correction]")).to_contain_text("hook missed by the scorer")
    expect(ann.page.locator(".notice")).to_contain_text("Round 2 is being played")
    link = ann.page.locator(".keep-link a").get_attribute("href") or ""

    act(live_server, director_token, game, "close")
    act(live_server, director_token, game, "next")  # max_rounds 2: the game is over
    # After the night, on another device: the link alone opens the player's rounds.
    later = night.context("Ann at home", "en-GB", viewport={"width": 390, "height": 844}).new_page()
    later.goto(link)
    expect(later.locator(".my-round")).to_have_count(2)
    expect(later.locator(".my-standing")).to_contain_text("You are 1 of 1")
    expect(later.locator(".my-round").nth(1).locator("[data-my-play]")).to_have_text(second.written(second.plain()))
    assert sideways(later) <= 0
    has_h1(axe, later)
    later.screenshot(path=screenshot_dir / "phone-my-rounds.png", full_page=True)
    night.errors.tolerate(later.context, r"status of 404")
    later.goto(link[:-3] + "abc")
    expect(later.locator(".error")).to_contain_text("opens no player's rounds")
    night.errors.check()


def test_a_screen_reader_hears_the_rack_the_last_30_seconds_and_the_result(
    night: Night, live_server: TirageServer, director_token: str, en_lexicon: Lexicon
) -> None:
    game = new_game(live_server, director_token, seed=SEED + 5, round_seconds=34)
    ann = phone(night, "Ann", (390, 844))
    ann.join(game)
    announcer = ann.page.locator("[data-announcer]")
    expect(announcer).to_have_attribute("aria-live", "polite")
    act(live_server, director_token, game, "start")
    ann.wait_for("playing", 1)
    rack = ", ".join("blank" if t == "?" else t for t in ann.rack())
    expect(announcer).to_have_text(f"Round 1. Your rack: {rack}.")
    where = position(live_server, game.id, en_lexicon)
    ann.submit(where.written(where.plain()))
    expect(announcer).to_have_text("30 seconds left.", timeout=10_000)
    # The server's clock closes the round, 30 seconds on.
    expect(live(ann.page)).to_have_attribute("data-status", "revealing", timeout=45_000)
    details = live_server.ok("GET", f"/api/games/{game.id}/rounds/1", token=director_token)
    expect(announcer).to_contain_text(f"Round 1: the top. {details['placed']} · {details['top_score']} points.")
    expect(announcer).to_contain_text(f"Your play: {where.written(where.plain())}")
    expect(announcer).to_contain_text("Solo top!")  # Ann alone found it
    assert "!." not in announcer.inner_text() and ".." not in announcer.inner_text()
    night.errors.check()


_AFTER = """(square) => {
    const arrow = getComputedStyle(square, "::after");
    const box = square.getBoundingClientRect();
    const root = document.documentElement;
    return {content: arrow.content, width: parseFloat(arrow.width), height: parseFloat(arrow.height),
            inside: box.top >= 0 && box.left >= 0 && box.bottom <= root.clientHeight && box.right <= root.clientWidth};
}"""


def test_each_round_starts_across_and_the_first_square_shows_the_direction(
    night: Night, live_server: TirageServer, director_token: str
) -> None:
    """Issue 28 item 2: a player who pressed Down in round 2 and, in round 3, tapped a square then the tiles (as the
    help says) handed in a play down and scored 0. Each round starts Across, the help says how the direction is
    chosen, and an arrow on the first square shows it (on a 320 px phone, in both languages)."""
    game = new_game(live_server, director_token, seed=SEED + 9)
    player, french = phone(night, "Arrow", (320, 568)), phone(night, "Flèche", (390, 844), locale="fr-FR")
    player.join(game)
    french.join(game)
    expect(player.page.locator("#play-help")).to_contain_text(
        "Each round starts Across: tap Down, or the first square again, to play down."
    )
    expect(french.page.locator("#play-help")).to_contain_text(
        "Chaque coup commence en Horizontal : touchez Vertical, ou de nouveau la première case, pour jouer vers le bas."
    )
    act(live_server, director_token, game, "start")
    player.wait_for("playing", 1)
    page = player.page
    across, down = page.locator('[data-direction="across"]'), page.locator('[data-direction="down"]')
    expect(across).to_have_attribute("aria-pressed", "true")
    down.tap()
    square = page.locator("#live td.sq:not(.filled)").nth(100)
    square.locator("button").tap()
    shown = square.evaluate(_AFTER)
    assert shown["content"] == '"↓"' and shown["inside"], shown
    assert min(shown["width"], shown["height"]) >= 12, shown  # big enough to notice at 320 px
    square.locator("button").tap()  # the same square again turns the direction
    assert square.evaluate(_AFTER)["content"] == '"→"'
    expect(across).to_have_attribute("aria-pressed", "true")
    down.tap()
    expect(down).to_have_attribute("aria-pressed", "true")

    act(live_server, director_token, game, "close")
    act(live_server, director_token, game, "next")
    player.wait_for("playing", 2)
    expect(across).to_have_attribute("aria-pressed", "true")  # last round's Down is not kept
    expect(down).to_have_attribute("aria-pressed", "false")
    square = page.locator("#live td.sq:not(.filled)").nth(100)
    square.locator("button").tap()
    assert square.evaluate(_AFTER)["content"] == '"→"'
    expect(player.move_input).to_have_value(re.compile(r"^\d+[A-O] $"))  # English: row then column, across
    night.errors.check()
