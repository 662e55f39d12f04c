"""Solo duplicate practice in Chromium on a phone (docs/rules.md §6.27): a club game of three rounds is played through
the API by its director and four players and finished; then Lea, a learner on her phone, opens it in the archive,
taps "Replay this game alone", hands in the top of round 1, a lower play in round 2 (its reveal shows the top and
the next best) and the top of round 3 with the keyboard alone, and reads that she would have been Nth of 5, N worked
out from the game's standings. Both themes, one page in French, no serious axe finding; the reveal is the README's
screenshot (``TIRAGE_SCREENSHOTS=docs/screenshots``: docs/screenshots/solo-practice-reveal.png)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, expect

from tests.browser.game_night import PASSWORD, PHONE, night_of, position
from tests.browser.test_player_history import _check_page, _sign_up
from tests.processes import TirageServer
from trainer.engine import Lexicon
from trainer.engine.board import Board
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move
from trainer.engine.rules import ruleset

SEED = "41000000000000000000017"  # 23 digits


def _club_game(server: TirageServer, lexicon: Lexicon) -> int:
    """Three rounds: Ann plays every top; Bob the top, the top, then the round's lowest play; Cyd the lowest play
    each round; Dee nothing. Ended after the third round."""
    token = str(server.ok("POST", "/api/auth/token", {"username": "club", "password": PASSWORD})["token"])
    game = server.ok(
        "POST", "/api/games", {"rules": "en", "seed": SEED, "max_rounds": 3, "reveal_seconds": None}, token, status=201
    )
    gid = int(game["id"])
    players = {
        name: server.ok("POST", "/api/join", {"code": game["join_code"], "name": name}, status=201)["token"]
        for name in ("Ann", "Bob", "Cyd", "Dee")
    }
    server.ok("POST", f"/api/games/{gid}/start", token=token)
    for n in range(1, 4):
        where = position(server, gid, lexicon)
        top, lowest = where.written(where.moves[0]), where.written(where.moves[-1])
        plans = {"Ann": top, "Bob": top if n < 3 else lowest, "Cyd": lowest}
        for name, move in plans.items():
            server.ok("POST", f"/api/games/{gid}/rounds/{n}/plays", {"move": move}, players[name])
        server.ok("POST", f"/api/games/{gid}/close", token=token)
        if n < 3:
            server.ok("POST", f"/api/games/{gid}/next", token=token)
    state = server.ok("GET", f"/api/games/{gid}")
    if state["status"] != "finished":
        server.ok("POST", f"/api/games/{gid}/end", token=token)
    return gid


def _lower_play(server: TirageServer, gid: int, number: int, lexicon: Lexicon) -> tuple[str, int, int]:
    """Round ``number``'s next best distinct word's play without a blank (from the archive's board and rack), its
    score, and the top's score."""
    archived = server.ok("GET", f"/api/games/{gid}/rounds/{number}")
    rules = ruleset("en")
    board = Board.from_rows(rules.layout, archived["board_before"])
    moves = sorted(generate_moves(board, rules, lexicon, archived["rack"]), key=lambda m: -(m.score or 0))
    top_score = int(archived["top_score"])
    top_words = {t.split()[-1].upper() for t in archived["tops"]}
    lower = next(m for m in moves if (m.score or 0) < top_score and not m.blanks and m.word.upper() not in top_words)
    return format_move(lower), lower.score or 0, top_score


def test_a_solo_replay_places_the_learner_in_the_original_standings(
    browser: Browser,
    live_server: TirageServer,
    director_name: str,
    en_lexicon: Lexicon,
    axe: Callable[..., list[dict[str, Any]]],
    screenshot_dir: Path,
) -> None:
    base = live_server.base_url
    gid = _club_game(live_server, en_lexicon)
    rounds = live_server.ok("GET", f"/api/archives/{gid}")["rounds"]
    assert len(rounds) == 3
    with night_of(browser, live_server, director_name) as night:
        lea = night.context("Lea", **PHONE).new_page()
        lea.goto(f"{base}/archives/{gid}")
        expect(lea.locator("[data-replay]")).to_have_text("Replay this game alone (log in)")
        _sign_up(lea, live_server, "lea-solo")
        lea.goto(f"{base}/archives/{gid}")
        lea.locator("[data-replay]").tap()
        expect(lea).to_have_url(re.compile(r"/practice/\d+$"))
        session_url = lea.url
        expect(lea.locator(".round-label")).to_have_text("Round 1 of 3")
        expect(lea.locator(".clock")).to_have_text(re.compile(r"^(3:00|2:5\d)$"))  # the game's 3 minutes
        _check_page(lea, axe)

        # Round 1: the top, typed and handed in with the button.
        top1 = live_server.ok("GET", f"/api/games/{gid}/rounds/1")
        lea.locator("#move").fill(top1["placed"])
        lea.locator("#play-form button.primary[type=submit]").tap()
        expect(lea.locator("h1")).to_have_text("Round 1: the top")
        expect(lea.locator("[data-mine] [data-score]")).to_have_text(str(top1["top_score"]))
        expect(lea.get_by_text("You found the top.")).to_be_visible()
        lea.locator("[data-next]").tap()

        # Round 2: a lower play; its reveal shows the top, the next best with their scores, and her place so far.
        expect(lea.locator(".round-label")).to_have_text("Round 2 of 3")
        lower, lower_score, top2_score = _lower_play(live_server, gid, 2, en_lexicon)
        lea.locator("#move").fill(lower)
        lea.locator("#play-form button.primary[type=submit]").tap()
        expect(lea.locator("h1")).to_have_text("Round 2: the top")
        top2 = live_server.ok("GET", f"/api/games/{gid}/rounds/2")
        expect(lea.locator("[data-top]")).to_contain_text(f"{top2['placed']} · {top2_score} points")
        expect(lea.locator("[data-mine] [data-score]")).to_have_text(str(lower_score))
        expect(lea.locator("[data-next-best] li").first).to_be_visible()
        assert lea.locator("[data-next-best] li").count() >= 1
        expect(lea.locator(".my-standing")).to_contain_text("So far you would be")
        _check_page(lea, axe)
        lea.screenshot(path=str(screenshot_dir / "solo-practice-reveal.png"), full_page=True)
        lea.goto(f"{session_url}?theme=contrast")
        expect(lea.locator("html")).to_have_attribute("data-theme", "contrast")
        _check_page(lea, axe)
        lea.goto(f"{session_url}?theme=standard")
        lea.locator("[data-next]").tap()

        # Round 3: the top with the keyboard alone (keys pressed once the page's script has loaded).
        expect(lea.locator(".round-label")).to_have_text("Round 3 of 3")
        lea.wait_for_load_state("load")
        top3 = live_server.ok("GET", f"/api/games/{gid}/rounds/3")
        lea.locator("#move").focus()
        lea.keyboard.type(top3["placed"])
        lea.keyboard.press("Enter")
        expect(lea.locator("h1")).to_have_text("Round 3: the top")
        expect(lea.locator("[data-next]")).to_have_text("See the result")
        lea.locator("[data-next]").tap()

        # The end: her total against the room's after the same three rounds, from the game's own standings.
        total = int(top1["top_score"]) + lower_score + int(top3["top_score"])
        room = {s["name"]: s["total"] for s in live_server.ok("GET", f"/api/games/{gid}/standings")["standings"]}
        rank, of = 1 + sum(1 for t in room.values() if t > total), len(room) + 1
        assert of == 5
        ordinal = {1: "1st", 2: "2nd", 3: "3rd"}.get(rank, f"{rank}th")
        expect(lea.locator(".my-standing")).to_have_text(f"You would have been {ordinal} of {of}.")
        expect(lea.locator("table.practice-standings tr.me td[data-figure=rank]")).to_have_text(str(rank))
        expect(lea.locator("table.practice-standings tr.me td[data-figure=total]")).to_have_text(str(total))
        expect(lea.locator("table.practice-standings tbody tr")).to_have_count(5)
        _check_page(lea, axe)

        lea.goto(f"{session_url}?lang=fr")
        expect(lea.locator("h1")).to_have_text("Entraînement en solo : le résultat")
        expect(lea.locator(".my-standing")).to_have_text(f"Vous auriez été {'1er' if rank == 1 else f'{rank}e'} sur 5.")
        _check_page(lea, axe)
        lea.goto(f"{base}/practice?lang=en")
        expect(lea.locator(f'tr[data-session="{session_url.rsplit("/", 1)[1]}"]')).to_be_visible()
        _check_page(lea, axe)
        night.errors.check()
