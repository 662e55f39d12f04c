"""The club night's projector (issue 15), in real Chromium against the real ``tirage serve``.

A director drives it from the keyboard: the keys that cannot be undone act on a second press within
2 s; the reveal pages through every page of the standings, whatever refreshes the screen meanwhile;
it fits 1024×768, 1280×720 and 1920×1080 in both themes; and, when the game's settings ask for them,
it speaks the draw and the top and cues the clock's last seconds. Players join and hand in plays
through the JSON API (what their phones use), to keep a room of 35 quick.

Time in the browser is Playwright's clock (``context.clock``): it runs on its own, and the tests jump
it forward over the 2-second window and the 10-second panels instead of waiting. The cues' test runs
on real time: its round's deadline is the server's.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

from tests.browser.game_night import PASSWORD, Director, Game, Night, api, live, position
from tests.processes import TirageServer
from trainer.engine import Lexicon

SEED = 20240611_000000_000029  # round 1 draws ?AEEORS (English rules) and ?EENRSZ (French rules): a blank to say
PAGE_MS = 10_000  # each panel of the reveal (projector.js)
ROOM = 35  # four pages of standings
SIZES = ((1024, 768), (1280, 720), (1920, 1080))
THEMES = ("standard", "contrast")

# What the page hands to the speech engine and to the sound card: each utterance's text and language, each
# tone's pitch and length (the real engines still run; headless Chromium plays nothing aloud).
RECORDER = """
window.spoken = [];
window.tones = [];
const realSpeak = window.speechSynthesis.speak.bind(window.speechSynthesis);
window.speechSynthesis.speak = (utterance) => {
  window.spoken.push({ text: utterance.text, lang: utterance.lang });
  realSpeak(utterance);
};
const RealContext = window.AudioContext;
window.AudioContext = class extends RealContext {
  createOscillator() {
    const oscillator = super.createOscillator();
    const start = oscillator.start.bind(oscillator);
    const stop = oscillator.stop.bind(oscillator);
    let began = 0;
    oscillator.start = (when) => { began = when; start(when); };
    oscillator.stop = (when) => {
      window.tones.push({ frequency: oscillator.frequency.value, seconds: Math.round((when - began) * 100) / 100 });
      stop(when);
    };
    return oscillator;
  }
};
"""


def director_token(server: TirageServer) -> str:
    return str(server.ok("POST", "/api/auth/token", {"username": "club", "password": PASSWORD})["token"])


def new_game(server: TirageServer, token: str, **settings: Any) -> Game:
    """A game made through the API (the director's token), the reveal left to the director."""
    made = server.ok("POST", "/api/games", {"reveal_seconds": None, "seed": SEED, **settings}, token=token, status=201)
    return Game(made["id"], made["join_code"], "")


def join(server: TirageServer, game: Game, names: list[str]) -> list[str]:
    """Players join through the API; their tokens."""
    return [server.ok("POST", "/api/join", {"code": game.code, "name": name}, status=201)["token"] for name in names]


def hand_in(server: TirageServer, game: Game, tokens: list[str], lexicon: Lexicon) -> None:
    """Each player hands in a legal play of another score, the first the top (a solo): standings of all kinds."""
    where = position(server, game.id, lexicon)
    best_of_each_score = list({move.score: move for move in reversed(where.moves)}.values())[::-1]
    for i, token in enumerate(tokens):
        move = best_of_each_score[i % len(best_of_each_score)]
        server.ok(
            "POST", f"/api/games/{game.id}/rounds/{where.round}/plays", {"move": where.written(move)}, token=token
        )


def status(server: TirageServer, game: Game) -> str:
    return str(api(server, f"/games/{game.id}")["status"])


def projector_page(context: BrowserContext, server: TirageServer, game: Game, theme: str = "standard") -> Page:
    page = context.new_page()
    page.goto(f"{server.base_url}/games/{game.id}/projector?theme={theme}")
    expect(page.locator("html")).to_have_attribute("data-theme", theme)
    return page


def said_word(word: str, blank_as: str) -> str:
    """A top's word as the projector says it (issue 28 item 9): read as a word, then each blank's letter ("blank as S"),
    a blank being a lower-case letter of the notation."""
    return ", ".join([word.lower(), *(f"{blank_as} {letter.upper()}" for letter in word if letter.islower())])


def spoken(page: Page) -> list[dict[str, str]]:
    return list(page.evaluate("window.spoken"))


def tones(page: Page) -> list[dict[str, float]]:
    return list(page.evaluate("window.tones"))


# ---------------------------------------------------------------- the keys


def test_keys_that_cannot_be_undone_act_on_a_second_press_within_2_seconds(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon
) -> None:
    director = night.director()
    token = director_token(live_server)
    game = new_game(live_server, token, spoken_announcements=True)
    tokens = join(live_server, game, ["Ann", "Bea"])
    director.context.add_init_script(RECORDER)
    director.context.clock.install()
    director.console.goto(f"{live_server.base_url}/director/games/{game.id}")
    projector = director.open_projector(game)
    clock = director.context.clock
    prompt = projector.locator("[data-key-prompt]")
    expect(projector.locator("#shortcuts-help")).to_have_text(
        "Keys: Space twice starts · Space pause/resume · → twice next round · R twice reveal now"
    )
    # The game's cues need sound: the browser keeps it off until a key press, and the screen says so.
    waiting = projector.locator("[data-sound-waiting]")
    expect(waiting).to_contain_text("Sound is off until a key is pressed")

    # Space in the lobby: the first press only says what the second will do, and unlocks the sound.
    projector.keyboard.press(" ")
    expect(prompt).to_have_text("Press Space again within 2 s to start the game")
    expect(prompt).to_be_visible()
    expect(waiting).to_be_hidden()
    clock.fast_forward(2500)
    expect(prompt).to_be_hidden()
    assert status(live_server, game) == "lobby"
    expect(live(projector)).to_have_attribute("data-status", "lobby")
    # A press after the 2 s starts over: it asks again; the next press within 2 s starts the game.
    projector.keyboard.press(" ")
    expect(prompt).to_be_visible()
    assert status(live_server, game) == "lobby"
    projector.keyboard.press(" ")
    expect(live(projector)).to_have_attribute("data-status", "playing")
    expect(prompt).to_be_hidden()
    rack = api(live_server, f"/games/{game.id}")["rack"]
    assert "?" in rack, rack
    # The draw is read letter by letter, the blank last.
    draw = ", ".join([*sorted(rack.replace("?", "")), *["blank"] * rack.count("?")])
    projector.wait_for_function("text => window.spoken.some((u) => u.text === text)", arg=draw)
    assert spoken(projector) == [{"text": draw, "lang": "en-GB"}]

    # Pause and resume undo each other: Space acts at once during a round.
    projector.keyboard.press(" ")
    expect(live(projector)).to_have_attribute("data-status", "paused")
    expect(prompt).to_be_hidden()
    projector.keyboard.press(" ")
    expect(live(projector)).to_have_attribute("data-status", "playing")

    hand_in(live_server, game, tokens, en_lexicon)
    # R: once asks, a different key forgets it, twice closes the round.
    projector.keyboard.press("r")
    expect(prompt).to_have_text("Press R again within 2 s to close the round")
    projector.keyboard.press("ArrowRight")
    expect(prompt).to_have_text("Press → again within 2 s to start the next round")
    projector.keyboard.press("r")
    expect(prompt).to_have_text("Press R again within 2 s to close the round")
    assert status(live_server, game) == "playing"
    projector.keyboard.press("R")
    expect(live(projector)).to_have_attribute("data-status", "revealing")
    details = live_server.ok("GET", f"/api/games/{game.id}/rounds/1", token=token)
    square, word = details["placed"].split()
    assert word != word.upper(), word  # the top places the blank: the arbiter says which letter it stands for
    top = f"Top: {square}, {said_word(word, 'blank as')}, {details['top_score']} points"
    projector.wait_for_function("text => window.spoken.some((u) => u.text === text)", arg=top)
    assert spoken(projector)[-1] == {"text": top, "lang": "en-GB"}

    # →: once asks; after 2 s it asks again; twice starts round 2 (whose draw is read in turn).
    projector.keyboard.press("ArrowRight")
    expect(prompt).to_be_visible()
    clock.fast_forward(2500)
    expect(prompt).to_be_hidden()
    projector.keyboard.press("ArrowRight")
    expect(prompt).to_be_visible()
    assert status(live_server, game) == "revealing"
    projector.keyboard.press("ArrowRight")
    expect(live(projector)).to_have_attribute("data-round", "2")
    expect(live(projector)).to_have_attribute("data-status", "playing")
    projector.wait_for_function("() => window.spoken.length === 3")
    # Refreshes say nothing again: the 30-second resync and a reload of the page within the round.
    clock.fast_forward(31_000)
    projector.reload()
    expect(live(projector)).to_have_attribute("data-round", "2")
    expect(projector.locator("#live .rack")).to_be_visible()
    assert projector.evaluate("window.spoken.length") == 0  # a new page: nothing said again
    assert tones(projector) == []  # no cue asked for but the speech
    night.errors.check()


# ---------------------------------------------------------------- the standings


def standings_rows(page: Page) -> list[list[str]]:
    rows = page.locator("#live .standings-page:not([hidden]) tbody tr")
    return [[cell.strip() for cell in row.locator("td").all_inner_texts()] for row in rows.all()]


def test_the_reveal_shows_every_page_of_35_players_standings_whatever_refreshes_it(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon
) -> None:
    director = night.director()
    token = director_token(live_server)
    game = new_game(live_server, token)
    names = [f"Player {i:02d}" for i in range(1, ROOM + 1)]
    tokens = join(live_server, game, names)
    live_server.ok("POST", f"/api/games/{game.id}/start", token=token)
    hand_in(live_server, game, tokens, en_lexicon)
    live_server.ok("POST", f"/api/games/{game.id}/close", token=token)
    director.context.clock.install()
    projector = projector_page(director.context, live_server, game)
    clock = director.context.clock
    state = live(projector)
    expect(state).to_have_attribute("data-status", "revealing")
    projector.evaluate(
        "window.refreshes = 0; document.getElementById('live')"
        ".addEventListener('tirage:refreshed', () => { window.refreshes += 1; })"
    )

    # "Next best": each word once, none of them the top's word (which fits at several places on an empty board).
    placed = projector.locator("#live .top-play .move").inner_text()
    words = [move.split()[1].upper() for move in projector.locator("#live .next-best .move").all_inner_texts()]
    assert words and len(set(words)) == len(words), words
    assert placed.split()[1].upper() not in words, (placed, words)

    # The pages are sized to the screen (docs/rules.md §6.6): 35 players take several at 1280×800.
    pages = projector.locator("#live [data-standings-page]").count()
    assert pages >= 3, pages

    def expect_page(number: int) -> list[list[str]]:
        """Page ``number``, alone on the screen, with the server's standings (rank and name) of its rows: those after
        the rows of the pages before it. Its rows."""
        expect(state).to_have_attribute("data-panel", f"standings-{number}")
        expect(projector.locator("#live .reveal")).to_be_hidden()
        caption = projector.locator("#live .standings-page:not([hidden]) caption").first
        expect(caption).to_contain_text(f"page {number} of {pages}")
        before = projector.evaluate(
            "n => Array.from(document.querySelectorAll('#live [data-standings-page]')).slice(0, n - 1)"
            ".reduce((rows, page) => rows + page.querySelectorAll('tbody tr').length, 0)",
            number,
        )
        table = api(live_server, f"/games/{game.id}/standings")["standings"]
        assert len(table) == ROOM
        shown = [row[:2] for row in standings_rows(projector)]
        assert shown == [[str(s["rank"]), s["name"]] for s in table[before : before + len(shown)]], number
        return shown

    expect(state).to_have_attribute("data-panel", "details")
    expect(projector.locator("#live .reveal")).to_be_visible()
    for number in (1, 2):
        clock.fast_forward(PAGE_MS)
        expect_page(number)
    # An event renders the region again (a score corrected): still page 2, not back to the details.
    results = live_server.ok("GET", f"/api/games/{game.id}/rounds/1", token=token)["results"]
    first = api(live_server, f"/games/{game.id}/standings")["standings"][0]
    last = next(r for r in results if r["name"] == first["name"])
    live_server.ok(
        "POST",
        f"/api/games/{game.id}/rounds/1/corrections",
        {"player_id": last["player_id"], "score": 0, "reason": "Played after the deadline"},
        token=token,
        status=201,
    )
    projector.wait_for_function("() => window.refreshes >= 1")
    shown = expect_page(2)
    # The 30-second resync renders it again too; the pages go on from where they were, to the last row.
    for number in range(3, pages + 1):
        clock.fast_forward(PAGE_MS)
        shown = expect_page(number)
    assert shown[-1][1] == first["name"]  # the corrected player, last now
    clock.fast_forward(PAGE_MS)
    projector.wait_for_function("() => window.refreshes >= 2")
    expect(state).to_have_attribute("data-panel", "details")

    # After the game the same rotation goes on, through every page.
    live_server.ok("POST", f"/api/games/{game.id}/end", token=token)
    expect(state).to_have_attribute("data-status", "finished")
    expect(state).to_have_attribute("data-panel", "details")
    expect(projector.locator("#live .reveal .notice")).to_have_text("Game over")
    for number in range(1, pages + 1):
        clock.fast_forward(PAGE_MS)
        expect_page(number)
    night.errors.check()


# ---------------------------------------------------------------- every player's line at every reveal (issue 28 item 1)

LONG_NAMES = ["Anne-Sophie Delacroix-Vandenberghe", "Marie-Bernadette de La Tour-Dupont-Lefe"]  # 40 at most

# The standings' rows shown in the window now: each name, and whether its cell shows it whole (nothing clipped: the
# text as wide as its cell at most, the cell inside the window).
SHOWN_ROWS = """() => {
    const width = window.innerWidth, height = window.innerHeight;
    return Array.from(document.querySelectorAll("#live .standings-page:not([hidden]) tbody tr")).flatMap((row) => {
        const box = row.getBoundingClientRect();
        if (!box.width || box.top < 0 || box.left < 0 || box.bottom > height + 1 || box.right > width + 1) return [];
        const cell = row.cells[1];
        return [{ name: row.dataset.player, text: cell.innerText.replace(/\\s+/g, " ").trim(),
                  whole: cell.scrollWidth <= cell.clientWidth + 1 && cell.scrollHeight <= cell.clientHeight + 1,
                  size: parseFloat(getComputedStyle(cell).fontSize) }];
    });
}"""


def rotation_start(page: Page, game: Game, number: int) -> float:
    """When the projector counts round ``number``'s reveal from (its browser's clock, in ms)."""
    key = f"tirage:rotation:{game.id}:{number}"
    page.wait_for_function("key => sessionStorage.getItem(key)", arg=key)
    return float(page.evaluate("key => Number(sessionStorage.getItem(key))", key))


def names_shown(
    page: Page, until: float, step_ms: int = 500, screenshot: Path | None = None
) -> dict[str, dict[str, Any]]:
    """Each name the standings show in the window, polled every ``step_ms`` of the page's clock up to ``until`` (and
    the first page of the standings captured to ``screenshot``)."""
    seen: dict[str, dict[str, Any]] = {}
    while page.evaluate("Date.now()") < until:
        for row in page.evaluate(SHOWN_ROWS):
            if row["name"] not in seen or not row["whole"]:  # a name cut once is kept as cut
                seen[row["name"]] = row
        if screenshot and not screenshot.exists() and live(page).get_attribute("data-panel") == "standings-1":
            page.screenshot(path=screenshot)
        page.clock.run_for(step_ms)
    return seen


def reveal_shows_everyone(
    server: TirageServer, page: Page, game: Game, number: int, names: list[str], screenshot: Path | None = None
) -> dict[str, dict[str, Any]]:
    """Round ``number``'s reveal, polled from its start to its end (the game's reveal_seconds): every name shown."""
    expect(live(page)).to_have_attribute("data-status", "revealing")
    expect(live(page)).to_have_attribute("data-round", str(number))
    reveal_ms = 1000 * api(server, f"/games/{game.id}")["settings"]["reveal_seconds"]
    assert reveal_ms == 30_000  # the default
    seen = names_shown(page, rotation_start(page, game, number) + reveal_ms, screenshot=screenshot)
    expect(live(page)).to_have_attribute("data-status", "revealing")  # still the same reveal: the server's clock
    missing = [name for name in names if name not in seen]
    assert not missing, f"{len(missing)} of {len(names)} never shown at {page.viewport_size}: {missing[:5]}…"
    return seen


def game_of_the_default_reveal(server: TirageServer, token: str, names: list[str]) -> tuple[Game, list[str]]:
    """A game made with the default reveal (30 s), ``names`` joined through the API. Its own seed: a game left behind
    on the same draw would keep it from outsiders (docs/rules.md §6.4)."""
    made = server.ok("POST", "/api/games", {"seed": SEED + len(names)}, token=token, status=201)
    game = Game(made["id"], made["join_code"], "")
    assert api(server, f"/games/{game.id}")["settings"]["reveal_seconds"] == 30
    return game, join(server, game, names)


def night_of_the_default_reveal(
    director: Director,
    server: TirageServer,
    lexicon: Lexicon,
    names: list[str],
    during_round_1: Callable[[Page, Game, str], None] | None = None,
    screenshot: Path | None = None,
    page_counts: tuple[int, int] | None = None,
) -> dict[str, dict[str, Any]]:
    """Round 1's reveal at 1024×768 and round 2's at 1920×1080 (its first page of standings captured to
    ``screenshot``; ``page_counts``: how many pages of standings each has), then the finished game at both: every name
    shown in each. The rows seen, by name."""
    token = director_token(server)
    game, tokens = game_of_the_default_reveal(server, token, names)
    director.context.clock.install()
    projector = director.context.new_page()
    projector.set_viewport_size({"width": 1024, "height": 768})
    projector.goto(f"{server.base_url}/games/{game.id}/projector")
    server.ok("POST", f"/api/games/{game.id}/start", token=token)
    expect(live(projector)).to_have_attribute("data-status", "playing")
    if during_round_1:
        during_round_1(projector, game, token)
    hand_in(server, game, tokens, lexicon)
    server.ok("POST", f"/api/games/{game.id}/close", token=token)
    seen = reveal_shows_everyone(server, projector, game, 1, names)
    if page_counts:
        expect(projector.locator("#live [data-standings-page]")).to_have_count(page_counts[0])
    # Round 2, started by the director before the reveal's end, closed at once: its reveal on a 1920×1080 screen.
    projector.set_viewport_size({"width": 1920, "height": 1080})
    server.ok("POST", f"/api/games/{game.id}/next", token=token)
    expect(live(projector)).to_have_attribute("data-round", "2")
    server.ok("POST", f"/api/games/{game.id}/close", token=token)
    seen = {**reveal_shows_everyone(server, projector, game, 2, names, screenshot), **cut(seen)}
    if page_counts:
        expect(projector.locator("#live [data-standings-page]")).to_have_count(page_counts[1])
    # The end of the game: the whole ranking, page after page, 10 s each, at both sizes.
    server.ok("POST", f"/api/games/{game.id}/end", token=token)
    expect(live(projector)).to_have_attribute("data-status", "finished")
    for width, height in ((1920, 1080), (1024, 768)):
        projector.set_viewport_size({"width": width, "height": height})
        pages = projector.locator("#live [data-standings-page]").count()
        ended = names_shown(projector, projector.evaluate("Date.now()") + (pages + 1) * PAGE_MS)
        missing = [name for name in names if name not in ended]
        assert not missing, f"the finished game at {width}×{height}: {len(missing)} never shown: {missing[:5]}"
        seen = {**ended, **cut(seen)}
    return seen


def cut(seen: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The rows seen cut (the names not shown whole)."""
    return {name: row for name, row in seen.items() if not row["whole"]}


def test_every_player_of_35_is_shown_at_each_reveal_of_the_default_length_with_long_names_whole(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon, screenshot_dir: Path
) -> None:
    names = [f"Player {i:02d}" for i in range(1, ROOM - 1)] + LONG_NAMES

    def paused(projector: Page, game: Game, token: str) -> None:
        live_server.ok("POST", f"/api/games/{game.id}/pause", token=token)
        for language, text in (("fr", "EN PAUSE"), ("en", "PAUSED")):
            projector.goto(f"{live_server.base_url}/games/{game.id}/projector?lang={language}")
            label = projector.locator("#live .paused-note")
            expect(label).to_have_text(text, use_inner_text=True)  # as shown: in capitals
            box = label.bounding_box()
            assert box and box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= 1024, box
            assert box["y"] + box["height"] <= 768, box
            size = float(label.evaluate("label => parseFloat(getComputedStyle(label).fontSize)"))
            assert size >= 48, f"{language}: the pause label's text is {size}px"
        live_server.ok("POST", f"/api/games/{game.id}/resume", token=token)

    shot = screenshot_dir / "projector-standings-35.png"
    shot.unlink(missing_ok=True)
    # docs/rules.md §6.6's worked example: 3 pages at 1024×768 (6.7 s each), 2 of two columns at 1920×1080 (10 s each).
    seen = night_of_the_default_reveal(
        night.director(), live_server, en_lexicon, names, paused, shot, page_counts=(3, 2)
    )
    assert shot.exists()
    for name in LONG_NAMES:
        assert seen[name]["text"] == name and seen[name]["whole"], seen[name]
    night.errors.check()


def test_every_player_of_200_is_shown_at_each_reveal_of_the_default_length(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon
) -> None:
    names = [f"Room {i:03d} Player" for i in range(1, 201)]
    night_of_the_default_reveal(night.director(), live_server, en_lexicon, names)
    night.errors.check()


# ---------------------------------------------------------------- the layout

# Where the projector draws outside the window, and the standings' text size: the board, rack and clock
# (``required``) and every row and cell of the standings page shown, and anything else that shows text.
LAYOUT = """(required) => {
    const width = window.innerWidth, height = window.innerHeight, found = [];
    const where = (element) => {
        const box = element.getBoundingClientRect();
        const text = (element.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 30);
        return `<${element.tagName.toLowerCase()} class="${element.className}"> at [${Math.round(box.left)}, ` +
            `${Math.round(box.top)}, ${Math.round(box.right)}, ${Math.round(box.bottom)}]: ${text}`;
    };
    const outside = (element) => {
        const box = element.getBoundingClientRect();
        return box.left < -1 || box.top < -1 || box.right > width + 1 || box.bottom > height + 1;
    };
    for (const selector of required) {
        const element = document.querySelector(selector);
        if (!element || !element.getBoundingClientRect().width) found.push(`${selector} is not shown`);
        else if (outside(element)) found.push(`${selector}: ${where(element)}`);
    }
    const page = document.querySelector("#live .standings-page:not([hidden])");
    let smallest = null;
    if (page) {
        for (const cell of page.querySelectorAll("tr, th, td")) {
            if (outside(cell)) found.push(where(cell));
            // Nothing is cut short: no figure ("1…" for 100.00), no name (issue 28 item 4: made smaller, or wrapped).
            if (cell.matches("td") && cell.scrollWidth > cell.clientWidth + 1)
                found.push(`${where(cell)} cut: "${cell.textContent.trim()}"`);
            if (cell.matches("td")) smallest = Math.min(smallest ?? 1e9, parseFloat(getComputedStyle(cell).fontSize));
        }
    }
    for (const element of document.querySelectorAll("body *")) {
        if (element.closest("[hidden], .visually-hidden, .skip-link, script")) continue;
        const shows = element.matches("img, td, th, li") ||
            Array.from(element.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
        const box = element.getBoundingClientRect();
        if (shows && box.width && box.height && outside(element)) found.push(where(element));
    }
    const wider = document.documentElement.scrollWidth - width;
    if (wider > 0) found.push(`the page is ${wider}px wider than the screen`);
    return { found, smallest };
}"""


def layout_problems(page: Page, what: str, required: tuple[str, ...] = ()) -> list[str]:
    width, height = page.viewport_size["width"], page.viewport_size["height"]  # type: ignore[index]
    checked = page.evaluate(LAYOUT, list(required))
    problems = [f"{what} at {width}×{height}: {where}" for where in checked["found"]]
    # Standings read from the back of a room: each row's text at least a 30th of the screen's height.
    if checked["smallest"] is not None and checked["smallest"] < height / 30:
        problems.append(f"{what} at {width}×{height}: standings text of {checked['smallest']}px")
    return problems


def test_the_projector_fits_1024_1280_and_1920_screens_in_both_themes(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon, screenshot_dir: Path
) -> None:
    director = night.director()
    token = director_token(live_server)
    game = new_game(live_server, token, thirty_seconds_cue=True)  # the bar then shows the sound notice too
    names = [f"Player {i:02d}" for i in range(1, ROOM)] + ["Marie-Bernadette de La Tour-Dupont-Lefebvre"[:40]]
    tokens = join(live_server, game, names)
    director.context.clock.install()
    clock = director.context.clock
    problems: list[str] = []

    def each_size(page: Page, what: str, required: tuple[str, ...] = ()) -> None:
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            problems.extend(layout_problems(page, what, required))

    for theme in THEMES:
        page = projector_page(director.context, live_server, game, theme)
        each_size(page, f"lobby, {theme}", (".join-code", ".qr", ".join-url", ".board"))
        page.close()
    live_server.ok("POST", f"/api/games/{game.id}/start", token=token)
    hand_in(live_server, game, tokens, en_lexicon)
    for theme in THEMES:
        page = projector_page(director.context, live_server, game, theme)
        expect(live(page)).to_have_attribute("data-status", "playing")
        each_size(page, f"round, {theme}", (".board", "#live .rack", "#live .clock-big", "[data-submissions]"))
        page.close()
    live_server.ok("POST", f"/api/games/{game.id}/close", token=token)
    for theme in THEMES:
        page = projector_page(director.context, live_server, game, theme)
        expect(live(page)).to_have_attribute("data-panel", "details")
        each_size(page, f"reveal, {theme}", (".board", "#live .top-play", "#live .next-best", "#live .best-players"))
        # The pages are sized to the screen: at each size, from the details, every page in turn (10 s each).
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            for _ in range(6):
                if live(page).get_attribute("data-panel") == "details":
                    break
                clock.fast_forward(PAGE_MS)
            expect(live(page)).to_have_attribute("data-panel", "details")
            pages = page.locator("#live [data-standings-page]").count()
            for number in range(1, pages + 1):
                clock.fast_forward(PAGE_MS)
                expect(live(page)).to_have_attribute("data-panel", f"standings-{number}")
                what = f"standings page {number} of {pages}, {theme}"
                problems.extend(layout_problems(page, what, ("#live .standings-page:not([hidden]) table",)))
                if theme == "standard" and number == 1 and width == 1024:
                    page.keyboard.press("Shift")  # a key press unlocks the sound: the bar's notice goes
                    expect(page.locator("[data-sound-waiting]")).to_be_hidden()
                    page.screenshot(path=screenshot_dir / "projector-1024-standings.png")
        page.close()
    assert not problems, "layout problems:\n" + "\n".join(problems)
    night.errors.check()


# ---------------------------------------------------------------- the cues, in a French game


def create_game_with_cues(director: Director, round_seconds: int) -> Game:
    """Through the New game form (in French): French rules, the three cues ticked."""
    page = director.console
    page.locator('a[href$="/director/games/new"]').click()
    cues = {
        "thirty_seconds_cue": "Signal « plus que 30 secondes »",
        "end_beeps": "Bips de fin de coup",
        "spoken_announcements": "Annonces à voix haute",
    }
    for name, label in cues.items():  # a tick box with its label beside it, off unless the director asks
        box = page.locator(f"#{name}")
        expect(box).to_have_attribute("type", "checkbox")
        expect(box).not_to_be_checked()
        expect(page.locator("label.check", has=box)).to_have_text(label)
        box.check()
    page.locator("#rules").select_option("fr")
    page.locator("#round_seconds").fill(str(round_seconds))
    page.locator("#reveal_seconds").fill("")
    page.locator("#seed").fill(str(SEED))
    page.locator("form.settings-form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/director/games/\d+$"))
    game_id = int(page.url.rsplit("/", 1)[1])
    code = page.locator(".lobby-panel .join-code").inner_text().strip()
    return Game(game_id, code, "")


def test_a_french_projector_speaks_the_draw_and_the_top_and_cues_the_last_30_and_5_seconds(
    night: Night, live_server: TirageServer
) -> None:
    director = night.director(locale="fr-FR")
    game = create_game_with_cues(director, round_seconds=33)
    settings = api(live_server, f"/games/{game.id}")["settings"]
    assert (settings["thirty_seconds_cue"], settings["end_beeps"], settings["spoken_announcements"]) == (True,) * 3
    director.context.add_init_script(RECORDER)
    projector = director.open_projector(game)
    expect(projector.locator("[data-sound-waiting]")).to_contain_text("Le son reste coupé")
    projector.keyboard.press(" ")
    projector.keyboard.press(" ")
    expect(live(projector)).to_have_attribute("data-status", "playing")
    expect(projector.locator("[data-sound-waiting]")).to_be_hidden()
    rack = api(live_server, f"/games/{game.id}")["rack"]
    assert "?" in rack, rack
    draw = ", ".join([*sorted(rack.replace("?", "")), *["joker"] * rack.count("?")])
    projector.wait_for_function("text => window.spoken.some((u) => u.text === text)", arg=draw)
    assert spoken(projector) == [{"text": draw, "lang": "fr-FR"}]
    assert tones(projector) == []

    # 30 seconds left: a banner across the screen, the clock in red, a two-note chime.
    banner = projector.locator("[data-cue-banner]")
    expect(banner).to_be_visible(timeout=8_000)
    expect(banner).to_have_text("Plus que 30 secondes")
    expect(projector.locator("body")).to_have_class(re.compile(r"\blast-seconds\b"))
    assert tones(projector) == [{"frequency": 660, "seconds": 0.18}, {"frequency": 990, "seconds": 0.3}]

    # The last 5 seconds: a beep each, then a long one as the round closes; then the top, spoken.
    expect(live(projector)).to_have_attribute("data-status", "revealing", timeout=40_000)
    projector.wait_for_function("() => window.tones.length === 8")
    assert tones(projector)[2:] == [{"frequency": 880, "seconds": 0.15}] * 5 + [{"frequency": 660, "seconds": 0.9}]
    expect(projector.locator("body")).not_to_have_class(re.compile(r"\blast-seconds\b"))
    token = director_token(live_server)
    details = live_server.ok("GET", f"/api/games/{game.id}/rounds/1", token=token)
    square, word = details["placed"].split()
    assert re.fullmatch(r"[A-O]\d+|\d+[A-O]", square), square  # French notation: H4 down, 8H across
    top = f"Top : {square}, {said_word(word, 'joker pour')}, {details['top_score']} points"
    projector.wait_for_function("text => window.spoken.some((u) => u.text === text)", arg=top)
    assert spoken(projector)[1:] == [{"text": top, "lang": "fr-FR"}]
    night.errors.check()
