"""A player's history page (``/study/history``, docs/rules.md §6.25) with 500 finished games. Prints, never asserts.

    python bench/history.py [--games N] [--pages N]     (DATABASE_URL for PostgreSQL; SQLite by default)

A fresh instance folder (lexicon cache copied from ``instance/cache`` when there is one). One club game is played
through the game service: 12 players, 15 rounds, the learner's player linked and handing in the round's lowest legal
play one round in three, the others the top. Its rows (game, players, rounds, submissions, results, events) are then
copied into ``--games`` games in all, a day apart. Timed: the first visit (every game's figures worked out and kept,
the missed tops put in the "From my games" deck), then ``--pages`` requests of the page through the test client,
logged in as the learner (the figures kept; the page, its plot and its breakdown drawn each time).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sqlalchemy import func, insert, select  # noqa: E402

PLAYERS = 12
ROUNDS = 15


def _ms(values: list[float], fraction: float) -> str:
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1000:.1f} ms"


def _row(obj: Any) -> dict[str, Any]:
    return {column.key: getattr(obj, column.key) for column in obj.__table__.columns}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--pages", type=int, default=200)
    args = parser.parse_args()
    instance = Path(tempfile.mkdtemp(prefix="tirage-bench-history-"))
    if (ROOT / "instance" / "cache").is_dir():
        shutil.copytree(ROOT / "instance" / "cache", instance / "cache")
    os.environ["TIRAGE_INSTANCE"] = str(instance)

    from trainer.app import create_app
    from trainer.core import accounts
    from trainer.core.database import db
    from trainer.core.lexicons import lexicon_store
    from trainer.engine.board import Board
    from trainer.engine.movegen import generate_moves
    from trainer.engine.notation import format_move
    from trainer.engine.play import score_move
    from trainer.engine.rules import ruleset
    from trainer.games import history, service
    from trainer.games.models import Event, Game, Player, Result, Round, Submission

    app = create_app({"WTF_CSRF_ENABLED": False})
    with app.app_context():
        engine = db.engine.url.get_backend_name()
        director = accounts.create_director("club", "password123")
        learner = accounts.create_learner("lea", "password123")
        game = service.create_game(director, {"rules": "en", "seed": 10**20 + 7, "reveal_seconds": None})
        players = [service.join_game(game.join_code, f"Player {n}")[0] for n in range(1, PLAYERS + 1)]
        history.link(players[0], learner)
        service.start_game(game, "club")
        lexicon = lexicon_store().load("en")
        rules = ruleset("en")
        for n in range(1, ROUNDS + 1):
            db.session.refresh(game)
            round_ = service.current_round(game)
            if round_ is None or game.status == "finished":
                break
            board = Board(rules.layout, list(round_.board_before))
            moves = sorted(
                (
                    (score_move(board, rules, m)[0], format_move(m))
                    for m in generate_moves(board, rules, lexicon, round_.rack)
                ),
                key=lambda p: (-p[0], p[1]),
            )
            for i, player in enumerate(players):
                low = (i == 0 and n % 3 == 0) or (i > 0 and (n + i) % 4 == 0)
                service.submit(game, player, n, moves[-1 if low else 0][1])
            service.close_now(game, "club")
            db.session.refresh(game)
            if game.status != "finished" and n < ROUNDS:
                service.advance(game, "club")
        db.session.refresh(game)
        if game.status != "finished":
            service.end_game(game, "club")

        # The template game's rows, copied into the other games.
        template = _row(db.session.get(Game, game.id))
        rounds = [_row(r) for r in db.session.execute(select(Round).where(Round.game_id == game.id)).scalars()]
        round_ids = [r["id"] for r in rounds]
        members = [_row(p) for p in db.session.execute(select(Player).where(Player.game_id == game.id)).scalars()]
        results = [_row(r) for r in db.session.execute(select(Result).where(Result.round_id.in_(round_ids))).scalars()]
        plays = [
            _row(s) for s in db.session.execute(select(Submission).where(Submission.round_id.in_(round_ids))).scalars()
        ]
        events = [_row(e) for e in db.session.execute(select(Event).where(Event.game_id == game.id)).scalars()]
        copied = time.perf_counter()
        next_round = int(db.session.execute(select(func.max(Round.id))).scalar() or 0) + 1
        next_player = int(db.session.execute(select(func.max(Player.id))).scalar() or 0) + 1
        for copy in range(1, args.games):
            shift = timedelta(days=copy)
            game_id = game.id + copy
            db.session.execute(
                insert(Game),
                [
                    {
                        **template,
                        "id": game_id,
                        "join_code": f"H{copy:07d}",
                        "created_at": template["created_at"] - shift,
                    }
                ],
            )
            player_map = {}
            for p in members:
                player_map[p["id"]] = next_player
                next_player += 1
            round_map = {}
            for r in rounds:
                round_map[r["id"]] = next_round
                next_round += 1
            db.session.execute(
                insert(Player),
                [
                    {
                        **p,
                        "id": player_map[p["id"]],
                        "game_id": game_id,
                        "token_hash": f"{copy:08d}{p['token_hash'][8:]}",
                        "rejoin_hash": None,
                        "joined_at": p["joined_at"] - shift,
                    }
                    for p in members
                ],
            )
            db.session.execute(
                insert(Round),
                [
                    {
                        **r,
                        "id": round_map[r["id"]],
                        "game_id": game_id,
                        "started_at": r["started_at"] - shift,
                        "closed_at": r["closed_at"] - shift if r["closed_at"] else None,
                    }
                    for r in rounds
                ],
            )
            for model, rows in ((Result, results), (Submission, plays)):
                db.session.execute(
                    insert(model),
                    [
                        {
                            **{k: v for k, v in row.items() if k != "id"},
                            "round_id": round_map[row["round_id"]],
                            "player_id": player_map[row["player_id"]],
                        }
                        for row in rows
                    ],
                )
            db.session.execute(
                insert(Event), [{**{k: v for k, v in e.items() if k != "id"}, "game_id": game_id} for e in events]
            )
        db.session.commit()
        copied = time.perf_counter() - copied

    client = app.test_client()
    client.post("/study/login", data={"username": "lea", "password": "password123"})
    began = time.perf_counter()
    first = client.get("/study/history")
    first_visit = time.perf_counter() - began
    assert first.status_code == 200, first.status_code
    visits = 1
    while "more games are being worked out" in first.get_data(as_text=True):  # 100 games a request at most
        first = client.get("/study/history")
        visits += 1
    caught_up = time.perf_counter() - began
    shown = len(re.findall(r'class="point"', first.get_data(as_text=True)))
    timings: list[float] = []
    profile = None
    if os.environ.get("BENCH_PROFILE"):
        import cProfile

        profile = cProfile.Profile()
        profile.enable()
    for i in range(args.pages):
        began = time.perf_counter()
        page = client.get(f"/study/history?last={(10, 20, 50)[i % 3]}")
        timings.append(time.perf_counter() - began)
        assert page.status_code == 200
    if profile is not None:
        profile.disable()
        profile.dump_stats(os.environ["BENCH_PROFILE"])
    with app.app_context():
        from trainer.study.models import DeckCard

        cards = db.session.execute(select(func.count(DeckCard.id))).scalar()

    print("$ python bench/history.py" + (f" --games {args.games}" if args.games != 500 else ""))
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; database: {engine}")
    print(
        f"{args.games} games of {PLAYERS} players and {ROUNDS} rounds copied in {copied:.1f} s; "
        f"{shown} games on the page; {cards} cards in the From my games deck\n"
    )
    print("| measure | median | p99 | max | target |")
    print("| --- | --- | --- | --- | --- |")
    print(f"| first visit: 100 games' figures worked out, the deck filled | {first_visit * 1000:.0f} ms | | | |")
    print(f"| every game's figures worked out ({visits} visits) | {caught_up:.1f} s in all | | | |")
    print(
        f"| the history page, {args.pages} requests | {_ms(timings, 0.5)} | {_ms(timings, 0.99)} | "
        f"{max(timings) * 1000:.1f} ms | p99 ≤ 100 ms |"
    )


if __name__ == "__main__":
    main()
