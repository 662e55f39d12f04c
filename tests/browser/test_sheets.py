"""The official sheets printed to PDF by Chromium, as a director prints them from the browser (docs/rules.md
§6.20): A4 pages, the column heads on every page, every player's line with the server's figures, and none of
the site's header or buttons on paper.

A room of 70 players plays three rounds through the JSON API (faster than 70 browsers, and the sheets only
read what the game stored); the director opens the sheets in Chromium from the console's link.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect
from pypdf import PdfReader

from tests.browser.axe import format_violations, serious_violations
from tests.browser.game_night import PASSWORD, Night, api
from tests.processes import TirageServer, best_play
from trainer.engine import Lexicon
from trainer.engine.rules import ruleset

PLAYERS = 70
ROUNDS = 3
A4_POINTS = (595.28, 841.89)  # 210 × 297 mm in PostScript points; Chromium rounds to whole CSS pixels


def _play_a_room(server: TirageServer, en_lexicon: Lexicon) -> tuple[int, str]:
    """A finished game of ``ROUNDS`` rounds: every third player finds the top, every other one a lesser play, the
    rest hand in nothing; a warning and a penalty for P07. (game id, director's API token)."""
    token = server.ok("POST", "/api/auth/token", {"username": "club", "password": PASSWORD})["token"]
    game = server.ok(
        "POST",
        "/api/games",
        {"rules": "en", "max_rounds": ROUNDS, "reveal_seconds": None, "round_seconds": 600, "solo_min_players": 2},
        token,
        status=201,
    )
    gid = game["id"]
    players = [
        server.ok("POST", "/api/join", {"code": game["join_code"], "name": f"P{n:02d}"}, status=201)
        for n in range(1, PLAYERS + 1)
    ]
    server.ok("POST", f"/api/games/{gid}/start", token=token)
    rules = ruleset("en")
    for number in range(1, ROUNDS + 1):
        state = server.ok("GET", f"/api/games/{gid}", token=token)
        top, _score, lesser = best_play(state, rules, en_lexicon)
        for n, player in enumerate(players, start=1):
            if n % 3 == 0 or n % 3 == 1:
                play = top if n % 3 == 0 else lesser
                server.ok("POST", f"/api/games/{gid}/rounds/{number}/plays", {"move": play}, player["token"])
        server.ok("POST", f"/api/games/{gid}/close", token=token)
        if number < ROUNDS:
            server.ok("POST", f"/api/games/{gid}/next", token=token)
    seventh = players[6]["player_id"]
    for kind, points in (("warning", None), ("penalty", 4)):
        server.ok(
            "POST",
            f"/api/games/{gid}/rounds/2/rulings",
            {"player_id": seventh, "kind": kind, "points": points, "reason": "phone rang"},
            token,
            status=201,
        )
    state = server.ok("GET", f"/api/games/{gid}", token=token)
    if state["status"] != "finished":
        server.ok("POST", f"/api/games/{gid}/end", token=token)
    return gid, token


@pytest.fixture(scope="module")
def room(live_server: TirageServer, director_name: str, en_lexicon: Lexicon) -> tuple[int, str]:
    """One finished room for the module's sheets (70 players playing through the API take a while)."""
    return _play_a_room(live_server, en_lexicon)


def test_the_results_sheet_prints_on_a4_with_every_player_and_the_right_figures(
    night: Night, live_server: TirageServer, room: tuple[int, str], axe: Callable[..., list[dict[str, Any]]]
) -> None:
    game_id, _token = room
    director = night.director()
    page = director.console
    page.goto(f"{live_server.base_url}/director/games/{game_id}")
    page.locator("a[data-sheets]").click()
    page.get_by_role("link", name="Results sheet").click()
    expect(page.locator("h1")).to_have_text("Results sheet")
    expect(page.locator("table[data-sheet=results] tbody tr")).to_have_count(PLAYERS)
    serious = serious_violations(axe(page))
    assert not serious, format_violations(serious)

    pdf = PdfReader(io.BytesIO(page.pdf(format="A4", print_background=False)))
    pages = pdf.pages
    assert len(pages) >= 2, "70 lines do not fit one A4 page at the sheet's size"
    for sheet in pages:
        width, height = float(sheet.mediabox.width), float(sheet.mediabox.height)
        assert abs(width - A4_POINTS[0]) < 2 and abs(height - A4_POINTS[1]) < 2, (width, height)
    texts = [sheet.extract_text() for sheet in pages]
    # The column heads repeat on every page of players' lines (the rulings and the arbiter's line may take a page of
    # their own after them); the site's header and buttons are not printed.
    for text in texts:
        if re.search(r"(?m)^\d+ P\d\d \d+ ", text):
            assert "Rank" in text and "Négatif" in text and "Penalties" in text, text[:200]
        assert "Join a game" not in text and "Print" not in text.replace("Printed by Tirage", "")
    assert "Results sheet" in texts[0] and f"{PLAYERS} players" in texts[0] and f"{ROUNDS} rounds" in texts[0]
    assert "Provisional" not in "".join(texts)

    printed = "\n".join(texts)
    table = api(live_server, f"/games/{game_id}/standings")
    lines = [line.split() for line in printed.splitlines()]
    rows = {line[1]: line for line in lines if len(line) == 9 and re.fullmatch(r"P\d\d", line[1])}
    assert len(rows) == PLAYERS
    for s in table["standings"]:
        figures = [str(s["rank"]), s["name"], str(s["total"]), str(s["negatif"]), f"{s['percentage']:.2f}"]
        figures += [str(s["tops"]), str(s["solos"]), str(s["warnings"]), str(s["penalty"])]
        assert rows[s["name"]] == figures, (rows[s["name"]], s)
    assert rows["P07"][-2:] == ["1", "4"]  # the warning (free: the first) and the penalty's points
    order = [line[1] for line in lines if len(line) == 9 and re.fullmatch(r"P\d\d", line[1])]
    assert order == [s["name"] for s in table["standings"]]  # best first, page after page


def test_the_game_sheet_prints_each_round_with_its_draw_top_and_running_total(
    night: Night, live_server: TirageServer, room: tuple[int, str]
) -> None:
    game_id, token = room
    page = night.director().console
    page.goto(f"{live_server.base_url}/director/games/{game_id}/sheets/")
    page.get_by_role("link", name="Game sheet").first.click()
    pdf = PdfReader(io.BytesIO(page.pdf(format="A4")))
    assert len(pdf.pages) == 1
    text = pdf.pages[0].extract_text()
    running = 0
    for number in range(1, ROUNDS + 1):
        details = live_server.ok("GET", f"/api/games/{game_id}/rounds/{number}", token=token)
        running += details["top_score"]
        finders = sum(1 for r in details["results"] if r["top"])
        expected = (
            f"{number} {details['draw']} {details['placed']} {details['top_score']} {running} {finders} of {PLAYERS}"
        )
        assert expected in text, (expected, text)


# ---------------------------------------------------------------- sheets an arbiter pins on the wall (issue 28 item 10)

EVENT = "Spring simultaneous"
CLUB = "Club de Vichy"
# A reason as long as a reason may be (200 characters): the play column takes the room it needs, the figures none.
LONG_REASON = ("His phone rang twice during the round and he answered it in the room, after a first warning " * 3)[:200]


def _paper_room(server: TirageServer, en_lexicon: Lexicon) -> tuple[int, int]:
    """A room of a simultaneous game named for its club: Ann and Bob on phones, Zoe on paper at table 5 and Cy at
    table 12; two rounds; Bob's top in round 1 is a solo, and he is given a penalty of 4 points there with a long
    reason. (game id, Bob's score in round 1)."""
    token = server.ok("POST", "/api/auth/token", {"username": "club", "password": PASSWORD})["token"]
    settings = {"rules": "en", "max_rounds": 2, "reveal_seconds": None, "round_seconds": 600, "solo_min_players": 2}
    gid = server.ok("POST", "/api/games", settings, token, status=201)["id"]
    server.ok(
        "POST",
        "/api/competitions",
        {"kind": "simultaneous", "name": EVENT, "game_id": gid, "room_name": CLUB},
        token,
        status=201,
    )
    code = server.ok("GET", f"/api/games/{gid}", token=token)["join_code"]
    phones = {name: server.ok("POST", "/api/join", {"code": code, "name": name}, status=201) for name in ("Ann", "Bob")}
    for name, table in (("Zoe", 5), ("Cy", 12)):
        server.ok("POST", f"/api/games/{gid}/paper-players", {"name": name, "table": table}, token, status=201)
    server.ok("POST", f"/api/games/{gid}/start", token=token)
    rules = ruleset("en")
    bob_score = 0
    for number in (1, 2):
        state = server.ok("GET", f"/api/games/{gid}", token=token)
        top, _top_score, lesser = best_play(state, rules, en_lexicon)
        bob, others = (top, lesser) if number == 1 else (lesser, top)  # Bob's solo in round 1
        server.ok("POST", f"/api/games/{gid}/rounds/{number}/plays", {"move": others}, phones["Ann"]["token"])
        played = server.ok("POST", f"/api/games/{gid}/rounds/{number}/plays", {"move": bob}, phones["Bob"]["token"])
        bob_score = bob_score or played["score"]
        server.ok("POST", f"/api/games/{gid}/bulletins", {"player": "5", "move": others}, token, status=201)
        server.ok("POST", f"/api/games/{gid}/close", token=token)
        if number == 1:
            for kind, points in (("warning", None), ("penalty", 4)):
                server.ok(
                    "POST",
                    f"/api/games/{gid}/rounds/1/rulings",
                    {"player_id": phones["Bob"]["player_id"], "kind": kind, "points": points, "reason": LONG_REASON},
                    token,
                    status=201,
                )
            server.ok("POST", f"/api/games/{gid}/next", token=token)
    return gid, bob_score


def _printed_lines(pdf: PdfReader) -> list[str]:
    """The text of every printed line, page after page, read from where each piece of text stands: pieces whose
    baselines are within a point of each other are one line, read left to right."""
    lines: list[str] = []
    for sheet in pdf.pages:
        pieces: list[tuple[float, float, str]] = []

        def visit(
            text: str, cm: list[float], tm: list[float], _font: object, _size: float, into: list[Any] = pieces
        ) -> None:
            if text.strip():  # the text matrix placed by the current transformation: where the piece stands
                x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
                y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
                into.append((y, x, text.strip()))

        sheet.extract_text(visitor_text=visit)
        pieces.sort(key=lambda piece: (-piece[0], piece[1]))
        rows: list[list[tuple[float, float, str]]] = []
        for piece in pieces:
            if rows and abs(rows[-1][0][0] - piece[0]) <= 1:
                rows[-1].append(piece)
            else:
                rows.append([piece])
        lines += [" ".join(text for _y, _x, text in sorted(row, key=lambda p: p[1])) for row in rows]
    return lines


@pytest.mark.parametrize(
    ("locale", "words"),
    [
        ("en-GB", {"results": "Results sheet", "event": "Event:", "club": "Club:", "table": "Table",
                   "arbiter": "Arbiter:", "signature": "Signature:", "player": "Player sheet: Bob"}),
        ("fr-FR", {"results": "Feuille de résultats", "event": "Épreuve :", "club": "Club :", "table": "Table",
                   "arbiter": "Arbitre :", "signature": "Signature :", "player": "Feuille de joueur : Bob"}),
    ],
)  # fmt: skip
def test_the_sheets_name_the_event_and_club_number_the_tables_keep_figures_whole_and_have_the_arbiters_line(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon, locale: str, words: dict[str, str]
) -> None:
    """docs/rules.md §6.20: what an arbiter pins on the wall, printed to PDF by Chromium and read by position."""
    game_id, bob_score = _paper_room(live_server, en_lexicon)
    page = night.director(locale).console
    page.goto(f"{live_server.base_url}/director/games/{game_id}/sheets/results")
    expect(page.locator("h1")).to_have_text(words["results"])
    lines = _printed_lines(PdfReader(io.BytesIO(page.pdf(format="A4"))))
    heading = f"{words['event']} {EVENT} · {words['club']} {CLUB}"
    assert heading in lines, lines[:6]
    assert lines.index(heading) < 3  # under the sheet's title, above the game's line
    assert any(line.startswith(f"{words['table']} ") or f" {words['table']} " in line for line in lines), lines
    table = {s["name"]: s for s in api(live_server, f"/games/{game_id}/standings")["standings"]}
    zoe, cy, bob = table["Zoe"], table["Cy"], table["Bob"]
    assert any(line.startswith(f"{zoe['rank']} 5 Zoe {zoe['total']} ") for line in lines), lines
    assert any(line.startswith(f"{cy['rank']} 12 Cy {cy['total']} ") for line in lines), lines
    assert any(re.match(rf"{bob['rank']} Bob {bob['total']} ", line) for line in lines), lines  # a phone: no table
    signature = [line for line in lines if words["arbiter"] in line]
    assert len(signature) == 1 and words["signature"] in signature[0], lines[-5:]  # one line, side by side

    page.goto(f"{live_server.base_url}/director/games/{game_id}/sheets/")
    page.get_by_role("link", name="Bob", exact=True).click()
    expect(page.locator("h1")).to_have_text(words["player"])
    lines = _printed_lines(PdfReader(io.BytesIO(page.pdf(format="A4"))))
    assert heading in lines, lines[:6]
    # Round 1's score with its solo bonus and penalty is one figure on one line: "35 + 10 − 4", never "35 + 10 −"
    # above "4" (the column is narrow beside the play's, which holds the long reasons).
    figure = re.compile(rf"(^|\s){bob_score} \+ 10 − 4(\s|$)")
    assert any(figure.search(line) for line in lines), [line for line in lines if line.startswith("1 ")]
    assert any(words["arbiter"] in line and words["signature"] in line for line in lines), lines[-5:]
