"""A club night driven through the real pages: a director's laptop, the projector, players' phones.

The game-night tests (test_game_night.py) read like the evening they play: a :class:`Night` opens
one browser context per person (the director's laptop, each player's phone: their own cookies,
their own language), watches every page for console errors and uncaught exceptions, and knows the
game's server. Plays are chosen with the engine in the test process, from the board and the rack
that the JSON API shows, on the same word list as the server: the tests never guess a word.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Locator, Page, WebError, expect

from tests.browser.conftest import TIMEOUT_MS
from tests.processes import TirageServer
from trainer.duplicate.firstplay import best_first_placement
from trainer.engine import Board, Lexicon, Move, format_move, generate_moves, ruleset, square_name

# Auto-waiting assertions wait as long as page actions do (conftest.TIMEOUT_MS), never a fixed sleep.
expect.set_options(timeout=TIMEOUT_MS)

PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
LAPTOP: dict[str, Any] = {"viewport": {"width": 1280, "height": 800}}
PASSWORD = "a long enough club password"


# ---------------------------------------------------------------- what the browsers complain about


@dataclass
class BrowserErrors:
    """Console errors and uncaught exceptions of every watched context, for one assertion at the end.

    A test that provokes an error on purpose (a refused play answers 422, a phone put offline cannot
    reach the server) tolerates it by a pattern, for that context only, from then on.
    """

    seen: list[str] = field(default_factory=list)
    tolerated: list[tuple[BrowserContext, re.Pattern[str]]] = field(default_factory=list)

    def watch(self, context: BrowserContext, who: str) -> None:
        context.on("console", lambda message: self._console(context, who, message))
        context.on("weberror", lambda error: self._uncaught(who, error))

    def tolerate(self, context: BrowserContext, pattern: str) -> None:
        self.tolerated.append((context, re.compile(pattern)))

    def _console(self, context: BrowserContext, who: str, message: ConsoleMessage) -> None:
        if message.type != "error":
            return
        where = message.location.get("url", "")
        text = f"{message.text} ({where})"
        if any(owner is context and pattern.search(text) for owner, pattern in self.tolerated):
            return
        self.seen.append(f"{who}: console error: {text}")

    def _uncaught(self, who: str, error: WebError) -> None:
        self.seen.append(f"{who}: uncaught exception: {error.error}")

    def check(self) -> None:
        assert not self.seen, "the pages logged errors:\n" + "\n".join(self.seen)


# ---------------------------------------------------------------- the server's view (JSON API)


def api(server: TirageServer, path: str) -> Any:
    """GET ``/api{path}`` as JSON (public: what any phone may read)."""
    with urllib.request.urlopen(f"{server.base_url}/api{path}", timeout=10) as answer:
        return json.loads(answer.read().decode("utf-8"))


@dataclass(frozen=True)
class Position:
    """The round in play as the server shows it, and every legal play of its rack, best first."""

    rules: str
    notation: str
    rack: str
    round: int
    moves: list[Move]

    @property
    def top_score(self) -> int:
        return self.moves[0].score or 0

    def written(self, move: Move) -> str:
        return format_move(move, "french" if self.notation == "french" else "english")

    def square(self, move: Move) -> str:
        return square_name(move.row, move.col, "french" if self.notation == "french" else "english")

    def credited(self, move: Move, lexicon: Lexicon) -> int:
        """What ``move`` scores in a game with the federation's first-move rule (docs/rules.md §6.9): on round 1
        its word's best placement, found by the engine; later, its score as placed."""
        if self.round != 1:
            return move.score or 0
        rules = ruleset(self.rules)
        best = best_first_placement(Board.empty(rules), rules, lexicon, move.word, self.rack)
        assert best is not None, f"{self.written(move)} should be a first play of {self.rack}"
        return best.score

    def plain(self, below_top: bool = False, across: bool | None = None, avoid: tuple[Move, ...] = ()) -> Move:
        """A play without a blank (a phone writes it letter for letter), optionally below the top
        or in one direction, other than those in ``avoid``; the best such play."""
        for move in self.moves:
            if move.blanks or move in avoid:
                continue
            if below_top and (move.score or 0) >= self.top_score:
                continue
            if across is not None and move.horizontal != across:
                continue
            return move
        raise AssertionError(f"no play fits among {len(self.moves)} legal plays of {self.rack}")


def position(server: TirageServer, game_id: int, lexicon: Lexicon, token: str | None = None) -> Position:
    """The round in play; with a director's ``token`` when outsiders may not see the game (a shared draw's room
    ahead of another, docs/rules.md §6.4)."""
    state = server.ok("GET", f"/api/games/{game_id}", token=token) if token else api(server, f"/games/{game_id}")
    assert state["status"] == "playing" and state["rack"], state
    rules = ruleset(state["settings"]["rules"])
    board = Board.from_rows(rules.layout, state["board"])
    moves = sorted(generate_moves(board, rules, lexicon, state["rack"]), key=lambda m: -(m.score or 0))
    assert moves, f"the rack {state['rack']} has no legal play"
    return Position(rules.code, state["notation"], state["rack"], state["round"], moves)


# ---------------------------------------------------------------- people in the room


def live(page: Page) -> Locator:
    return page.locator("#live .live-state")


@dataclass
class Game:
    id: int
    code: str
    join_url: str


@dataclass
class Director:
    night: Night
    context: BrowserContext
    console: Page
    name: str

    def log_in(self) -> None:
        page = self.console
        page.goto(f"{self.night.server.base_url}/director/login")
        page.locator("#username").fill(self.name)
        page.locator("#password").fill(PASSWORD)
        page.locator("form.stack-form button[type=submit]").click()
        expect(page).to_have_url(re.compile(r"/director/$"))

    def create_game(
        self,
        rules: str = "en",
        max_rounds: int | None = None,
        round_seconds: int = 600,
        seed: int | None = None,
        draws: str = "",
        lexicon: str = "",
    ) -> Game:
        """Through the New game form; the reveal pause left empty, so the director starts each round. ``draws``:
        a list of imposed draws pasted in the form (docs/rules.md §6.18); ``lexicon``: one of the form's choices
        (the rules' default when empty)."""
        page = self.console
        page.locator('a[href$="/director/games/new"]').click()
        expect(page).to_have_url(re.compile(r"/director/games/new$"))
        page.locator("#rules").select_option(rules)
        page.locator("#max_rounds").fill("" if max_rounds is None else str(max_rounds))
        page.locator("#round_seconds").fill(str(round_seconds))
        page.locator("#reveal_seconds").fill("")
        page.locator("#seed").fill("" if seed is None else str(seed))
        if lexicon:
            page.locator("#lexicon").select_option(lexicon)
        if draws:
            page.locator("#draws").fill(draws)
        page.locator("form.settings-form button[type=submit]").click()
        expect(page).to_have_url(re.compile(r"/director/games/\d+$"))
        game_id = int(page.url.rsplit("/", 1)[1])
        expect(live(page)).to_have_attribute("data-status", "lobby")
        code = page.locator(".lobby-panel .join-code").inner_text().strip()
        join_url = page.locator('.join-box a[href*="?code="]').get_attribute("href") or ""
        assert join_url.endswith(f"/join?code={code}"), join_url
        return Game(game_id, code, join_url)

    def open_projector(self, game: Game) -> Page:
        """The console's "Open the projector" link opens the room's screen in a new tab."""
        with self.context.expect_page() as opened:
            self.console.locator(f'a[href$="/games/{game.id}/projector"]').click()
        projector = opened.value
        projector.wait_for_load_state()
        expect(live(projector)).to_have_attribute("data-status", re.compile(".+"))
        for qr in projector.locator("img.qr").all():  # in the lobby: the QR code must really be drawn
            assert qr.evaluate("img => img.complete && img.naturalWidth > 0"), "the QR code image does not render"
        return projector

    def press(self, action: str) -> None:
        """A button of the console's live region (start, close, next, end...); one that asks first (closing the
        round) is opened, then confirmed."""
        confirm = self.console.locator(f'#live details.confirm:has(button[data-action="{action}"])')
        if confirm.count() and confirm.get_attribute("open") is None:
            confirm.locator("summary").click()
        self.console.locator(f'#live button[data-action="{action}"]').click()


@dataclass
class Player:
    night: Night
    context: BrowserContext
    page: Page
    name: str

    def join(self, game: Game) -> None:
        """Open the join link (the one under the QR code), give a name, land on the game's page."""
        page = self.page
        page.goto(game.join_url)
        expect(page.locator("#code")).to_have_value(game.code)
        page.locator("#name").fill(self.name)
        page.locator("form.stack-form button[type=submit]").tap()
        expect(page).to_have_url(re.compile(rf"/play/{game.id}$"))
        expect(page.locator(".phone-now .who")).to_have_text(self.name)

    @property
    def move_input(self) -> Locator:
        return self.page.locator("#move")

    @property
    def error(self) -> Locator:
        return self.page.locator("[data-play-error]")

    @property
    def submitted(self) -> Locator:
        return self.page.locator(".phone-now .submitted")

    def wait_for(self, status: str, round_number: int | None = None) -> None:
        expect(live(self.page)).to_have_attribute("data-status", status)
        if round_number is not None:
            expect(live(self.page)).to_have_attribute("data-round", str(round_number))

    def rack(self) -> str:
        return "".join(
            self.page.locator(".phone-now .rack [data-letter]").evaluate_all(
                "tiles => tiles.map(t => t.dataset.letter)"
            )
        )

    def type_play(self, text: str) -> None:
        self.move_input.fill("")
        self.move_input.press_sequentially(text)

    def hand_in(self) -> None:
        self.page.locator("#play-form button[type=submit]").tap()

    def submit(self, text: str) -> None:
        """Type the whole play in notation and hand it in; the page confirms it. The play goes through the
        API with the player's token (the path a room's deadline rush needs), not through the form."""
        self.type_play(text)
        with self.page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/plays")) as taken:
            self.hand_in()
        assert taken.value.status == 200, taken.value.text()
        expect(self.submitted).to_have_attribute("data-submitted", text)
        expect(self.error).to_be_empty()

    def tap_play(self, move: Move, where: Position) -> None:
        """As the page's help says: tap the first square, tap Across or Down, type the word. The letters are
        typed on the keyboard wherever the focus is (nothing clicks the input first): the page must keep it in
        the play's input. The preview shows the play's tiles."""
        self.page.locator(f'#live td.sq[data-name="{where.square(move)}"] button').tap()
        direction = self.page.locator(f'[data-direction="{"across" if move.horizontal else "down"}"]')
        direction.tap()
        expect(direction).to_have_attribute("aria-pressed", "true")
        self.page.keyboard.type(move.word)
        expect(self.move_input).to_have_value(where.written(move))
        expect(self.page.locator("#live td.sq.preview")).to_have_count(len(move.tiles))

    def result(self) -> dict[str, str]:
        """The reveal's figures on the phone: "Your play", "Score", "Difference"... as shown."""
        figures = self.page.locator("#live .my-result .figures")
        terms = figures.locator("dt").all_inner_texts()
        values = figures.locator("dd").all_inner_texts()
        return {term.strip(): value.strip() for term, value in zip(terms, values, strict=True)}

    def standings(self) -> list[list[str]]:
        """The phone's standings table, row by row, as text."""
        rows = self.page.locator("#live table.standings tbody tr")
        return [[cell.strip() for cell in row.locator("td").all_inner_texts()] for row in rows.all()]


class Night:
    """Every browser context of one test, with their errors, closed together."""

    def __init__(self, browser: Browser, server: TirageServer, director_name: str) -> None:
        self.browser = browser
        self.server = server
        self.director_name = director_name
        self.errors = BrowserErrors()
        self.contexts: list[BrowserContext] = []

    def context(self, who: str, locale: str = "en-GB", **options: Any) -> BrowserContext:
        context = self.browser.new_context(locale=locale, **options)
        context.set_default_timeout(TIMEOUT_MS)
        self.errors.watch(context, who)
        self.contexts.append(context)
        return context

    def director(self, locale: str = "en-GB") -> Director:
        """The director's laptop, logged in (the account: ``server.create_director(name, PASSWORD)``)."""
        name = self.director_name
        context = self.context(f"director {name}", locale, **LAPTOP)
        director = Director(self, context, context.new_page(), name)
        director.log_in()
        return director

    def player(self, name: str, locale: str = "en-GB") -> Player:
        context = self.context(f"player {name}", locale, **PHONE)
        return Player(self, context, context.new_page(), name)

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@contextmanager
def night_of(browser: Browser, server: TirageServer, director_name: str) -> Iterator[Night]:
    night = Night(browser, server, director_name)
    try:
        yield night
    finally:
        night.close()


def standings_rows(server: TirageServer, game_id: int, language: str = "en") -> list[list[str]]:
    """The server's standings as the phones' table shows them: rank, name, total, difference, %, tops, solos;
    the percentage with two decimals, a decimal comma in French (docs/rules.md §6.13)."""
    table = api(server, f"/games/{game_id}/standings")
    comma = language == "fr"
    return [
        [
            str(s["rank"]),
            s["name"],
            str(s["total"]),
            str(s["negatif"]),
            f"{s['percentage']:.2f}".replace(".", "," if comma else "."),
            str(s["tops"]),
            str(s["solos"]),
        ]
        for s in table["standings"]
    ]
