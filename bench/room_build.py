"""The phone room's live fragment rebuilt at a reveal (issue 27, item 3). Prints, never asserts.

    python bench/room_build.py [--players 2000 10000] [--repeat 3]     (DATABASE_URL for PostgreSQL; SQLite by default)

A fresh instance folder (lexicon cache copied from ``instance/cache`` when there is one). For each size: a game of
N players (rows written in one transaction, as joins would leave them), started through the game service, each
player handing in one of the round's twenty best legal plays (most the top, some none), written with
``service.store_plays`` as the play path does; the round closed through ``service.close_round``. Timed:
``PhoneFragments.room`` (what the fast path calls once per version and language), English then French, and within
it the results of the game and each player's own parts.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def own_parts(app: Any, game: Any, language: str) -> None:
    """Each player's own parts (name and result) of the room alone: the macros of play/_me.html called once per
    player, as before issue 27, then :class:`~trainer.web.phone.OwnParts`; the answers checked the same."""
    from flask import get_template_attribute

    from trainer.games.display import GameView, results_of
    from trainer.web.phone import OwnParts, _name_only
    from trainer.web.play import page_context

    with app.test_request_context(f"/play/{game.id}/live", query_string={"lang": language}):
        view: GameView = page_context(game, None)["view"]  # type: ignore[assignment]
        everyone = list(results_of(view, list(game.players)).values())
        who = get_template_attribute("play/_me.html", "who")
        result = get_template_attribute("play/_me.html", "my_result")
        started = time.perf_counter()
        by_macro = [(str(who(me)), str(result(view, me))) for me in everyone]
        macro = time.perf_counter() - started
        started = time.perf_counter()
        own_who, own_result = OwnParts(who, reads=_name_only), OwnParts(result, view)
        by_shape = [(own_who(me), own_result(me)) for me in everyone]
        shapes = time.perf_counter() - started
        assert by_shape == by_macro
        print(
            f"  own parts ({language}): a macro call per player {macro * 1000:.0f} ms, "
            f"once per shape {shapes * 1000:.0f} ms ({own_result.renderings} shapes), the same bytes"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="print where the last build's time went")
    args = parser.parse_args()
    instance = Path(tempfile.mkdtemp(prefix="tirage-bench-room-"))
    if (ROOT / "instance" / "cache").is_dir():
        shutil.copytree(ROOT / "instance" / "cache", instance / "cache")
    os.environ["TIRAGE_INSTANCE"] = str(instance)

    from trainer.app import create_app
    from trainer.core import accounts
    from trainer.core.clock import utcnow
    from trainer.core.codes import hash_token
    from trainer.core.database import db
    from trainer.core.lexicons import lexicon_store
    from trainer.core.names import name_key
    from trainer.engine.board import Board
    from trainer.engine.movegen import generate_moves
    from trainer.engine.notation import format_move
    from trainer.engine.rules import ruleset
    from trainer.games import service
    from trainer.games.models import Player
    from trainer.web.phone import PhoneFragments

    app = create_app()
    print(f"python {platform.python_version()}, {os.cpu_count()} cpus, load {os.getloadavg()[0]:.1f}")
    print(f"database: {app.config['SQLALCHEMY_DATABASE_URI'].split(':')[0]}")
    with app.app_context():
        director = accounts.create_director("bench", "correct horse battery")
        for players in args.players:
            game = service.create_game(director, {"rules": "en", "round_seconds": 600})
            db.session.add_all(
                Player(
                    game_id=game.id,
                    name=f"Player {i:05d}",
                    name_key=name_key(f"Player {i:05d}"),
                    token_hash=hash_token(f"t{game.id}-{i}"),
                )
                for i in range(players)
            )
            db.session.commit()
            service.start_game(game, "bench")
            playing = service.round_playing(game, 1)
            round_ = service.current_round(game)
            assert round_ is not None
            rules = ruleset("en")
            moves = generate_moves(
                Board(rules.layout, list(round_.board_before)), rules, lexicon_store().load("en"), round_.rack
            )
            best = sorted(((format_move(m, "english"), m.score or 0) for m in moves), key=lambda p: -p[1])[:20]
            now = utcnow()
            pending = []
            for i, player in enumerate(sorted(game.players, key=lambda p: p.id)):
                if i % 10 == 9:
                    continue  # no play
                move = best[0][0] if i % 2 == 0 else best[i % len(best)][0]
                pending.append(service.PendingPlay(playing, player.id, player.name, move, 0, now))
            service.store_plays(pending)
            started = time.perf_counter()
            assert service.close_round(game.id, 1, "bench", early=True)
            closed = time.perf_counter() - started
            print(f"\n{players} players, {len(pending)} plays: close_round {closed * 1000:.0f} ms")
            fragments = PhoneFragments(app)
            for language in ("en", "fr"):
                times = []
                for _ in range(args.repeat):
                    db.session.expire_all()
                    started = time.perf_counter()
                    room = fragments.room(game.id, language, 1, (0, 0))
                    times.append(time.perf_counter() - started)
                    assert room is not None and len(room.own) == players
                if args.profile:
                    db.session.expire_all()
                    profile = cProfile.Profile()
                    profile.runcall(fragments.room, game.id, language, 1, (0, 0))
                    pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
                own_parts(app, game, language)
                print(
                    f"  PhoneFragments.room ({language}): best {min(times) * 1000:.0f} ms, "
                    f"runs {', '.join(f'{t * 1000:.0f}' for t in times)} ms"
                )
    shutil.rmtree(instance, ignore_errors=True)


if __name__ == "__main__":
    main()
