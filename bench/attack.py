"""Attacks on a real ``tirage serve``, and what honest players and the director see meanwhile. Prints, never asserts.

    python bench/attack.py [--players 300] [--attackers 50] [--scenario all|jam|jam-many|slow|opening|poisoned]
                           [--repeat 1] [--json] ...

The server runs as ``bench/load.py`` runs it (``loadkit``: a subprocess on loopback, a temporary instance
folder, SQLite, the word graphs copied from ``--lexicon-cache``). A director creates one game (rounds of
``--round-seconds``, no automatic next round: ``reveal_seconds`` null) and ``--players`` honest players join
it. Each scenario is one round of that game (the director starts it, or asks for the next one), in which every
honest player hands in one random legal play of the round (the engine finds them in a worker process of the
client) with ``POST /api/games/<id>/rounds/<n>/plays`` at a random moment before the deadline:

* **jam** (deadline jamming): first a join flood inflates the game's event log (``--flood`` players join
  through ``/api/join``, ``--flood-concurrency`` at a time, for at most ``--flood-seconds``; one event each).
  From ``--lead`` seconds before the round opens until it closes, ``--attackers`` clients read the game's
  whole log again and again (``GET /api/games/<id>/events?last_event_id=0&timeout=0``, read whole). The honest
  plays leave 0.3-3 s before the deadline. Figures: plays accepted, refused as late (409, and how long before
  the deadline those were sent), their latency, the server's arrival stamp (``received_at`` of the answer)
  minus the moment the play was sent; the catch-ups served and the events in each; after the close, every
  accepted play must be in the round's results (``GET /api/games/<id>/rounds/<n>``), else it is *lost*.
* **jam-many**: the same jam, each of the ``--attackers`` clients from a source address of its own, taken in turn
  from ``--jam-addresses`` (50: 127.0.2.1-127.0.2.50), so no per-address budget of the server applies to them
  together; only the server's own budget for every address (issue 26: from 50 addresses, 61 of 300 plays sent in
  time were refused as late).
* **slow**: the same, while ``--slow-bodies`` clients post the join form (``POST /join`` with ``Content-Length:
  100000``, under the form's limit) one byte a second, each opened again once answered, and ``--idle``
  connections send nothing or half a request line, each opened again when the server closes it. They are
  opened together ``--lead`` seconds before the round, so the server's head timeout cuts them together; the
  table says when the cuts fell, relative to the deadline. After the round: a body announced over its limit
  (``POST /api/join``, 100000 bytes) and the connection cap (its limit + 100 connections from one address).
* **opening**: a second game B, whose seed draws a first rack with two blanks (the engine's heaviest
  opening), is started by its director ``--opening-at`` seconds before the deadline of the main game's round,
  whose honest plays leave 0.3-10 s before its deadline. Figures: the main game's play latency for the plays
  sent within 2 s of B's start, and how long B's start took (its answer; the state's ``status`` "playing").
* **poisoned** (last: it removes players): ``--removed`` more players join; once the round is open each hands in a
  play (so the play path knows them) and the director removes them (``DELETE /api/games/<id>/players/<p>``); then
  each sends ``--removed-plays`` plays in the honest players' window (0.3-3 s before the deadline), in the same
  write batches as theirs. Figures: the honest plays refused (target 0: one bad play never fails another) and
  what the removed players' plays were answered.

``--repeat N`` plays each chosen scenario N rounds, a fresh attack each (one join flood for all); the table ends
with a summary of each scenario over its rounds.

In **jam**, **jam-many** and **slow**, ``GET /join``, ``GET /`` and the director's ``GET /api/games/<id>`` are asked
in turn every ``--probe-every`` seconds over a browser's few kept-alive connections (their latency; the target is
the slow scenario's). The attack traffic runs in a process of its own (``loadkit.attackers``), so the client that
measures keeps its event loop free, at niceness ``--attacker-nice`` (10: a remote attacker's CPU would not be the
server's; 0 lets it take the server's CPU too). Each attack has its own loopback source address, as a remote
attacker would: idle connections from 127.0.0.2 and 127.0.0.3 (half each, under the per-address cap), slow bodies
from 127.0.0.4, the cap probe from 127.0.0.9, the many-address jam from 127.0.2.1 on; players, pages, director and
the one-address jam's catch-ups from 127.0.0.1. Latency runs from sending to the whole answer, on the players'
kept-alive or new connections (the table counts the new ones). The server's defences are its environment:
``--head-seconds`` (``TIRAGE_HEAD_SECONDS``), ``--body-seconds``, ``--connections-per-address``,
``--streams-per-address``; server defaults unless given. CPU: the server, the attacker process, the client and the
whole machine, from a round's opening to its close; the table adds a NOTE when other processes used more than a
quarter of a core. Memory: the sum of VmHWM over the server's processes, over every scenario. The targets are shown
met or MISSED; the exit status is 1 only when the run itself could not finish.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from loadkit.host import checkout_version, raise_open_files_limit
from loadkit.instance import server_env
from loadkit.report import log, plain
from loadkit.server import ServerProcess, tirage_command
from loadkit.siege import Siege
from loadkit.siege_table import scenario_figures, table

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the engine worker and the seed search import the checkout's trainer package

from trainer.duplicate.rounds import SETTLE  # noqa: E402
from trainer.http.body import BODY_SECONDS  # noqa: E402
from trainer.live.connections import CONNECTIONS_PER_ADDRESS, HEAD_SECONDS  # noqa: E402
from trainer.live.streams import STREAMS_PER_ADDRESS  # noqa: E402

SCENARIOS = ("jam", "jam-many", "slow", "opening", "poisoned")  # poisoned last: it removes players
SERVER_ENV = {  # argument -> the server's environment variable
    "head_seconds": "TIRAGE_HEAD_SECONDS",
    "body_seconds": "TIRAGE_BODY_SECONDS",
    "connections_per_address": "TIRAGE_CONNECTIONS_PER_ADDRESS",
    "streams_per_address": "TIRAGE_STREAMS_PER_ADDRESS",
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=300, help="honest players, one play each a round")
    parser.add_argument("--attackers", type=int, default=50, help="clients looping on the whole-log catch-up")
    parser.add_argument("--scenario", choices=("all", *SCENARIOS), default="all")
    parser.add_argument("--repeat", type=int, default=1, help="rounds of each scenario (a fresh attack each)")
    parser.add_argument(
        "--jam-addresses", type=int, default=50, help="source addresses of the many-address jam (127.0.2.1 on)"
    )
    parser.add_argument("--removed", type=int, default=5, help="players removed in the poisoned scenario")
    parser.add_argument(
        "--removed-plays", type=int, default=29, help="plays each removed player sends in the last seconds"
    )
    parser.add_argument("--flood", type=int, default=5000, help="players of the join flood before the rounds")
    parser.add_argument("--flood-concurrency", type=int, default=300)
    parser.add_argument("--flood-seconds", type=float, default=180.0, help="the join flood stops after this")
    parser.add_argument("--idle", type=int, default=5000, help="idle connections held in the slow scenario")
    parser.add_argument("--slow-bodies", type=int, default=20)
    parser.add_argument("--round-seconds", type=int, default=20)
    parser.add_argument("--opening-at", type=float, default=6.0, help="seconds before the deadline B starts")
    parser.add_argument("--probe-every", type=float, default=0.1, help="seconds between two page requests")
    parser.add_argument("--lead", type=float, default=3.0, help="seconds the attack runs before a round opens")
    parser.add_argument(
        "--attacker-nice",
        type=int,
        default=10,
        help="niceness of the attacker process (0: the server's priority, so the attack takes its CPU too)",
    )
    parser.add_argument("--seed", type=int, default=1, help="the main game's seed, and the client's")
    parser.add_argument("--head-seconds", type=float, help=f"TIRAGE_HEAD_SECONDS (server default {HEAD_SECONDS:g})")
    parser.add_argument("--body-seconds", type=float, help=f"TIRAGE_BODY_SECONDS (server default {BODY_SECONDS:g})")
    parser.add_argument(
        "--connections-per-address",
        type=int,
        help=f"TIRAGE_CONNECTIONS_PER_ADDRESS (default {CONNECTIONS_PER_ADDRESS})",
    )
    parser.add_argument(
        "--streams-per-address", type=int, help=f"TIRAGE_STREAMS_PER_ADDRESS (default {STREAMS_PER_ADDRESS})"
    )
    parser.add_argument("--lexicon-cache", type=Path, help="a folder of cached word graphs to copy")
    parser.add_argument("--server-args", default="", help="added to `tirage serve --port P`")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (instance, server log)")
    args = parser.parse_args(argv)
    chosen = SCENARIOS if args.scenario == "all" else (args.scenario,)
    args.scenarios = tuple(name for name in chosen for _ in range(args.repeat))  # one round each
    args.settle_seconds = SETTLE.total_seconds()
    args.connections_cap = args.connections_per_address or CONNECTIONS_PER_ADDRESS
    args.lexicon_cache_given = args.lexicon_cache is not None
    args.lexicon_cache = args.lexicon_cache or ROOT / "instance" / "cache"
    if not 1 <= args.jam_addresses <= 254 or args.repeat < 1:
        parser.error("--jam-addresses must be from 1 to 254, --repeat at least 1")
    if not 10 <= args.round_seconds <= 3600:
        parser.error("--round-seconds must be from 10 to 3600")
    if args.players < 1 or args.round_seconds < args.opening_at + 4:
        parser.error("--players must be at least 1, --round-seconds at least --opening-at + 4")
    return args


def prepare(folder: Path, cache: Path, copy_back: bool) -> tuple[Path, dict[str, str], float, bool]:
    """As ``loadkit.instance.prepare_instance`` (SQLite), with each graph's checksum file (``<graph>.sha256``) copied
    too: the lexicon store builds a graph again when its checksum is missing (30 s). The instance, its environment,
    the seconds of ``tirage lexicon build``, and whether it built anything (copied back to ``cache`` if asked)."""
    instance = folder / "instance"
    target = instance / "cache"
    target.mkdir(parents=True)
    if cache.is_dir():
        for graph in cache.iterdir():
            if graph.suffix in (".dawg", ".gaddag", ".sha256"):
                shutil.copy2(graph, target / graph.name)
    env = server_env(instance)
    before = {p.name for p in target.iterdir()}
    started = time.perf_counter()
    build = [*tirage_command(), "lexicon", "build"]  # loads each cached graph, builds those missing or stale
    subprocess.run(build, cwd=folder, env=env, check=True, stdin=subprocess.DEVNULL, capture_output=True)
    seconds = time.perf_counter() - started
    new = {p.name for p in target.iterdir()} - before
    if new and copy_back:
        cache.mkdir(parents=True, exist_ok=True)
        for name in new:
            shutil.copy2(target / name, cache / name)
    return instance, env, seconds, bool(new)


def run(args: argparse.Namespace, folder: Path) -> tuple[dict[str, Any], ServerProcess | None]:
    instance, env, build_seconds, built = prepare(folder, args.lexicon_cache, args.lexicon_cache_given)
    log(f"word graphs {'built' if built else 'copied'} ({build_seconds:.1f} s); instance {instance}")
    for name, variable in SERVER_ENV.items():
        if getattr(args, name) is not None:
            env[variable] = str(getattr(args, name))
    version = checkout_version()  # now: the server runs the tree as it is when it starts
    server = ServerProcess(folder, env, shlex.split(args.server_args))
    server.start()
    log(f"tirage serve on {server.base}")
    siege = Siege(args, server, instance)
    started = time.perf_counter()
    outcome: BaseException | None = None
    try:
        import uvloop

        uvloop.run(siege.main())
    except ImportError:
        asyncio.run(siege.main())
    except (Exception, KeyboardInterrupt) as error:
        outcome = error
    if siege.pool is not None:
        siege.pool.shutdown(cancel_futures=True)
    server.sample()
    status = server.stop()
    fig: dict[str, Any] = {
        "commit": version,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "players": args.players,
        "attackers": args.attackers,
        "round_seconds": args.round_seconds,
        "server_env": {v: env.get(v, "default") for v in SERVER_ENV.values()},
        "flood": siege.figures["flood"],
        "joins": siege.figures["joins"],
        "scenarios": {s.label: scenario_figures(s) for s in siege.scenarios if s.audit},
        "server": {
            "peak_rss_mb": sum(server.hwm.values()) / 1024,
            "peak_rss_sampled_mb": max(siege.rss_kb, server.rss_peak_kb) / 1024,
            "processes": len(server.hwm),
            "exit": status,
        },
        "word_graph_seconds": build_seconds,
        "seconds": time.perf_counter() - started,
        "aborted": repr(outcome) if outcome else None,
    }
    return fig, server


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    files = raise_open_files_limit()
    needed = args.idle + args.players + args.attackers + 500 if "slow" in args.scenarios else args.players + 500
    if files < needed:
        log(f"warning: only {files} open files allowed here; the run needs about {needed}")
    folder = Path(tempfile.mkdtemp(prefix="tirage-attack-"))
    server: ServerProcess | None = None
    try:
        fig, server = run(args, folder)
        if args.json:
            print(json.dumps(plain(fig), indent=1))
        else:
            command = "python bench/attack.py" + "".join(f" {shlex.quote(a)}" for a in (argv or sys.argv[1:]))
            print(f"$ {command}")
            env = ", ".join(f"{k}={v}" for k, v in fig["server_env"].items())
            print(
                f"Tirage {fig['commit']}, Python {fig['python']}, {fig['cpus']} CPUs; {args.players} honest players, "
                f"{args.attackers} catch-up attackers, rounds of {args.round_seconds} s; {env}; "
                f"run {fig['seconds']:.0f} s"
            )
            print()
            print(table(fig))
        if fig["aborted"]:
            log(f"the run stopped early: {fig['aborted']}")
            if server is not None:
                log(f"server log (last lines):\n{server.output()}")
            return 1
        return 0
    except Exception as error:
        log(f"failed: {error!r}")
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
