"""How fast one ``tirage serve`` takes plays, and nothing else: no event streams, no reveal (issue 6).

    python bench/plays.py [--players 3000] [--connections 1000] [--lexicon-cache DIR]

Starts ``tirage serve`` on a temporary instance folder (SQLite; ``loadkit``'s ``ServerProcess``,
as ``bench/load.py`` runs it), joins ``--players`` players to one game, starts it,
then every player hands in two random legal plays of the round, all at once over at most
``--connections`` connections (each play is answered before that player's next is sent).
Prints the plays answered per second, the server's CPU per play (utime + stime from ``/proc``)
and the latency spread. ``bench/load.py`` measures a whole room; this is the ceiling of the
play path alone. Prints, never asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
from loadkit.instance import server_env
from loadkit.server import ServerProcess

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trainer.engine.board import Board  # noqa: E402
from trainer.engine.lexicon import LexiconStore  # noqa: E402
from trainer.engine.movegen import generate_moves  # noqa: E402
from trainer.engine.notation import format_move  # noqa: E402
from trainer.engine.rules import ruleset  # noqa: E402

DIRECTOR, PASSWORD = "bench", "bench-password-1"


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def run(server: ServerProcess, instance: Path, players: int, connections: int) -> None:
    base = server.base
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=connections)) as http:
        async with http.post(f"{base}/api/auth/token", json={"username": DIRECTOR, "password": PASSWORD}) as answer:
            director = {"Authorization": f"Bearer {(await answer.json())['token']}"}
        async with http.post(
            f"{base}/api/games", json={"rules": "en", "round_seconds": 3600}, headers=director
        ) as answer:
            game = await answer.json()
        joining = asyncio.Semaphore(100)

        async def join(index: int) -> str:
            async with (
                joining,
                http.post(f"{base}/api/join", json={"code": game["join_code"], "name": f"P{index}"}) as answer,
            ):
                return str((await answer.json())["token"])

        tokens = await asyncio.gather(*(join(i) for i in range(players)))
        async with http.post(f"{base}/api/games/{game['id']}/start", headers=director) as answer:
            assert answer.status == 200, await answer.text()
        async with http.get(f"{base}/api/games/{game['id']}") as answer:
            rack = (await answer.json())["rack"]
        rules = ruleset("en")
        lexicon = LexiconStore(instance).load("en")
        legal = [format_move(m) for m in generate_moves(Board.empty(rules), rules, lexicon, rack)]
        latencies: list[float] = []
        path = f"{base}/api/games/{game['id']}/rounds/1/plays"

        async def hand_in(token: str) -> None:
            for _ in range(2):
                started = time.perf_counter()
                async with http.post(
                    path, json={"move": random.choice(legal)}, headers={"Authorization": f"Bearer {token}"}
                ) as answer:
                    await answer.read()
                    assert answer.status == 200, await answer.text()
                latencies.append(time.perf_counter() - started)

        assert server.process is not None
        cpu_before, started = cpu_seconds(server.process.pid), time.perf_counter()
        await asyncio.gather(*(hand_in(token) for token in tokens))
        cpu_used, elapsed = cpu_seconds(server.process.pid) - cpu_before, time.perf_counter() - started
    count = len(latencies)
    print(f"| plays | {count} by {players} players over at most {connections} connections |")
    print(f"| answered | {count / elapsed:.0f} plays/s ({elapsed:.2f} s) |")
    print(f"| server CPU | {cpu_used:.2f} s: {cpu_used / count * 1000:.2f} ms a play |")
    p50, p99 = percentile(latencies, 0.5) * 1000, percentile(latencies, 0.99) * 1000
    print(f"| latency | p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {max(latencies) * 1000:.0f} ms |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=3000)
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument(
        "--lexicon-cache",
        type=Path,
        default=ROOT / "instance" / "cache",
        help="word graphs to copy into the server's instance (else it builds them)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tirage-plays-") as name:
        folder = Path(name)
        instance = folder / "instance"
        instance.mkdir()
        if args.lexicon_cache.is_dir():
            shutil.copytree(args.lexicon_cache, instance / "cache")  # no word-graph build in the server
        server = ServerProcess(folder, server_env(instance), [])
        try:
            server.start()
            server.cli("director", "create", DIRECTOR, "--password", PASSWORD)
            print(f"$ python bench/plays.py --players {args.players} --connections {args.connections}")
            print("| measure | figures |\n| --- | --- |")
            asyncio.run(run(server, instance, args.players, args.connections))
        except Exception:
            print(f"server log (last lines):\n{server.output()}", file=sys.stderr)
            raise
        finally:
            server.stop()


if __name__ == "__main__":
    main()
