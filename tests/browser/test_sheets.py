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
    for text in texts:  # the column heads repeat on every page; the site's header and buttons are not printed
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
