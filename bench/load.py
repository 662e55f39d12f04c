"""Load figures of a real ``tirage serve``: a room of players in one game (issue 6). Prints, never asserts.

    python bench/load.py [--players 1500] [--rounds 1] [--round-seconds 60] [--json] ...

The server runs as in production (``tirage serve``, a subprocess on loopback) on a temporary
instance folder: SQLite there unless ``--database-url`` is given, the word graphs copied from
``--lexicon-cache`` and built by ``tirage lexicon build`` when missing (15-30 s), so the server
builds nothing while it is measured. Then, with real HTTP:

* a director (``tirage director create``) logs in (``POST /api/auth/token``) and creates a game;
* every player joins (``POST /api/join``, ``--join-concurrency`` at a time) and opens the game's
  event stream (``GET /api/games/<id>/events?quiet=1``), held open for the whole run; a stream
  that ends is opened again with ``Last-Event-ID`` after the server's ``retry`` delay, as a
  browser does (a clean end is a reconnect, a broken one an error);
* one more stream, without ``quiet``, plays the projector: it sees every ``submission`` event;
* the director starts the game; on ``round_started`` each player plans ``--plays-per-player``
  plays at random moments, ``--late-share`` of them in the last 10 s before the deadline, and
  sends each with ``POST /api/games/<id>/rounds/<n>/plays``. The plays are random legal plays
  of the round (the engine, in a separate process, once per round), plus ``--bad-share`` of
  garbage that the server must refuse (422, an expected refusal). The last accepted play counts;
* on ``round_closed`` each player reads the reveal: their own round (``GET .../rounds/<n>/me``,
  as a phone app would, checking that it shows their last accepted play) or, with ``--reveal-read
  round``, the whole round (``GET .../rounds/<n>``);
* the round's results are then read once more and checked against every accepted play: a
  player's last accepted play (as the server wrote it in its 200 answer) must be the play of
  their result. Lost: an accepted play missing from the results, or a different play there.

Figures: latencies of joins, submissions and reveal reads (from sending to the whole answer);
event delivery delay (receive time minus the event's ``at``, one clock on one machine) for
``round_started`` and ``round_closed``; errors (5xx, connection errors, timeouts, broken
streams); the server's peak memory and CPU time (its process and children, from ``/proc``);
server CPU per request kind; the client's own CPU and event-loop lag, which say whether the
client kept up; with ``--profile``, the server's busiest functions (py-spy). Exit status 1
when a play was lost or anything unexpected happened, 2 when the client saturated (the run is invalid:
its latencies are the client's); the targets are reported, not asserted.

Players come from ``--phones-per-address`` players a loopback address (127.1.0.1, 127.1.0.2, ...), with
the server's per-address defences on, as a room's phones come from many addresses.

The client is light on purpose, since it shares the machine with the server: one asyncio loop
(uvloop when installed); event streams on raw asyncio connections (a small HTTP/1.1 and SSE
reader that stamps the receive time as the bytes arrive); other calls through aiohttp with at
most ``--api-connections`` connections (a submission's latency is counted from the moment a
connection is free; the wait before is reported as the client queue).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shlex
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from loadkit.host import checkout_version, raise_open_files_limit
from loadkit.instance import prepare_instance
from loadkit.report import log, plain, table
from loadkit.run import LoadRun
from loadkit.server import ServerProcess

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the engine worker imports the checkout's trainer package

MAX_API_CONNECTIONS = 4000  # with 10,000 streams, more would pass 20,000 open files on each side


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    default_cache = ROOT / "instance" / "cache"
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--round-seconds", type=int, default=60, help="10 to 3600 (the server's bounds)")
    parser.add_argument("--reveal-seconds", type=int, default=10, help="pause between rounds")
    parser.add_argument("--plays-per-player", default="1-3", help="a number or a range LOW-HIGH, per round")
    parser.add_argument("--late-share", type=float, default=0.8, help="share of plays in the last 10 s")
    parser.add_argument("--bad-share", type=float, default=0.05, help="share of garbage plays (refused with 422)")
    parser.add_argument(
        "--reveal-spread",
        type=float,
        default=0.0,
        help="players read the reveal within this many seconds of round_closed (0: at once, as the phone page does)",
    )
    parser.add_argument(
        "--phones",
        choices=("api", "pages"),
        default="api",
        help="how players join, follow and read the reveal: through the API as an app would, or as "
        "the phone page does (join form, play page, the page's live fragment fetched again on "
        "each event; plays go through the API with the page's token, as its script does)",
    )
    parser.add_argument(
        "--reveal-read",
        choices=("me", "round"),
        default="me",
        help="what a player reads at the reveal: their own round (GET .../rounds/N/me, as a phone "
        "does) or the whole round with every player's result (GET .../rounds/N)",
    )
    parser.add_argument("--reveal-share", type=float, default=1.0, help="share of players who read the reveal")
    parser.add_argument("--rules", default="en")
    parser.add_argument("--seed", type=int, default=1, help="the game's seed (its racks) and the client's")
    parser.add_argument("--database-url", help="DATABASE_URL of the server (default: SQLite in the instance)")
    parser.add_argument("--redis-url", help="REDIS_URL of the server")
    parser.add_argument(
        "--server-args",
        default="",
        help="added to `tirage serve --port P`, e.g. --server-args='--workers 2 --threads 8'",
    )
    parser.add_argument(
        "--lexicon-cache",
        type=Path,
        help=f"a folder of cached word graphs to copy (default {default_cache}); "
        "graphs built because it had none are copied back to a folder given here",
    )
    parser.add_argument(
        "--phones-per-address",
        type=int,
        default=100,
        help="players sharing one loopback source address (127.1.x.y), as phones behind one router do; the "
        "server's per-address limits stay on. 0: every player from 127.0.0.1 (the join limit is then raised)",
    )
    parser.add_argument("--join-concurrency", type=int, default=200)
    parser.add_argument(
        "--api-connections",
        type=int,
        help="client connections for the players' API calls (default: one per player, at most "
        f"{MAX_API_CONNECTIONS}; event streams have their own)",
    )
    parser.add_argument("--sample-plays", type=int, default=500, help="legal plays the players choose from")
    parser.add_argument("--request-timeout", type=float, default=60.0)
    parser.add_argument(
        "--phase-timeout",
        type=float,
        default=300.0,
        help="the longest wait for a round to close, or for its reveal to be read, after its deadline",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="sample the server with py-spy over the rounds (its Python time, --gil) and list the "
        "busiest functions; the raw stacks stay in the kept folder as profile.txt",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (instance, server log)")
    args = parser.parse_args(argv)
    args.lexicon_cache_given = args.lexicon_cache is not None
    args.api_connections = args.api_connections or min(args.players, MAX_API_CONNECTIONS)
    args.lexicon_cache = args.lexicon_cache or default_cache
    low, _, high = args.plays_per_player.partition("-")
    if not (low.isdigit() and (not high or high.isdigit()) and 1 <= int(low) <= int(high or low)):
        parser.error("--plays-per-player must be N or LOW-HIGH with 1 <= LOW <= HIGH")
    if not 10 <= args.round_seconds <= 3600:
        parser.error("--round-seconds must be from 10 to 3600")
    if args.players < 1 or args.rounds < 1:
        parser.error("--players and --rounds must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    files = raise_open_files_limit()
    if files < 2 * args.players + args.api_connections + 100:
        log(
            f"warning: only {files} open files allowed here; {args.players} players need about "
            f"{2 * args.players + args.api_connections}"
        )
    version = checkout_version()  # now: the server runs the tree as it is when it starts
    folder = Path(tempfile.mkdtemp(prefix="tirage-load-"))
    server: ServerProcess | None = None
    failed = True
    try:
        instance, env, build_seconds, built = prepare_instance(
            folder,
            args.lexicon_cache,
            args.lexicon_cache_given,
            args.database_url,
            args.redis_url,
            one_address=args.phones_per_address == 0,
        )
        log(
            f"word graphs {'built' if built else 'copied from ' + str(args.lexicon_cache)} "
            f"({build_seconds:.1f} s); instance {instance}"
        )
        server = ServerProcess(folder, env, shlex.split(args.server_args))
        server.start()
        log(f"tirage serve {args.server_args} on {server.base} (pid {server.process.pid if server.process else '?'})")
        run = LoadRun(args, server, instance)
        loop_kind = "asyncio"
        try:
            import uvloop

            runner: Callable[[Any], Any] = uvloop.run
            loop_kind = "uvloop"
        except ImportError:
            runner = asyncio.run
        outcome: BaseException | None = None
        try:
            runner(run.main())
        except (Exception, KeyboardInterrupt) as error:
            outcome = error
        if run.pool is not None:
            run.pool.shutdown(cancel_futures=True)
        if run.profiler is not None:
            run.profiler.stop()
        server.sample()
        status = server.stop()
        figures = run.figures()
        if run.profiler is not None:
            figures["profile"] = run.profiler.summary()
        figures.update(
            {
                "commit": version,
                "python": platform.python_version(),
                "cpus": os.cpu_count(),
                "client_loop": loop_kind,
                "server_exit": status,
                "word_graph_seconds": build_seconds,
                "aborted": repr(outcome) if outcome else None,
            }
        )
        if args.json:
            print(json.dumps(plain(figures), indent=1))
        else:
            command = "python bench/load.py" + "".join(f" {shlex.quote(a)}" for a in (argv or sys.argv[1:]))
            print(f"$ {command}")
            print(
                f"Tirage {figures['commit']}, Python {platform.python_version()}, {os.cpu_count()} CPUs, client on "
                f"{loop_kind}; server log {server.log_path}{'' if args.keep else ' (removed; --keep keeps it)'}"
            )
            print()
            print(table(figures))
        if outcome is not None:
            log(f"the run stopped early: {outcome!r}")
        if figures["client"]["saturated"]:
            log("INVALID RUN: the client saturated (its CPU or event-loop lag), so latencies include its delays")
        failed = (
            outcome is not None or figures["lost"] > 0 or figures["errors"] > 0 or bool(figures["unaudited_rounds"])
        )
        if failed:
            log(f"server log (last lines):\n{server.output()}")
            return 1
        return 2 if figures["client"]["saturated"] else 0  # 2: nothing failed, but the run measured the client
    except Exception as error:
        log(f"failed: {error}")
        if server is not None:
            log(f"server log (last lines):\n{server.output()}")
        return 1
    finally:
        if server is not None:
            server.stop()
        if args.keep:
            log(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
