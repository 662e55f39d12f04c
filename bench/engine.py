"""Engine figures: move generation time, lexicon load time and memory. Prints, never asserts.

    python bench/engine.py [--data-dir DIR] [--repeat N] [--loads N]

* top play (``top_moves``) and all plays (``generate_moves``) over every position of
  ``bench/positions.json``: each position is timed ``--repeat`` times and its best time kept;
  the table gives the median, 95th percentile and maximum over positions, and the slowest ids.
  The lexicon's caches stay warm across positions, as they do in a server process.
* lexicon load from the cache: a fresh Python process per measure (so nothing is in memory
  but the page cache), ``--loads`` times; median and maximum.
* resident memory (VmRSS of ``/proc/self/status``) of a fresh process after importing the
  engine, after loading the English lexicon, and after one generation on a midgame position.
  The word graphs are memory-mapped: loading reads almost nothing, generation pages in what it
  visits, and those file-backed pages are shared by every process using the same cache (the
  anonymous part is the process's own).

``--data-dir`` is the folder holding the lexicon cache; by default a temporary folder, where the
cache is built first (the build time is reported on its own line).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trainer.engine.board import Board  # noqa: E402
from trainer.engine.lexicon import LexiconStore  # noqa: E402
from trainer.engine.movegen import generate_moves, top_moves  # noqa: E402
from trainer.engine.rules import ruleset  # noqa: E402

POSITIONS = Path(__file__).resolve().parent / "positions.json"
# A midgame position: memory once a generation has paged in the parts of the graphs it reads. (A
# two-blank rack would mostly measure its own tens of thousands of plays, kept by the allocator.)
RSS_POSITIONS = ("en-29",)

# Run in a fresh interpreter: prints JSON with the load time and memory at each step.
_PROBE = r"""
import json, sys, time
from pathlib import Path

def rss_mb(field="VmRSS:"):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1]) / 1024
    return float("nan")

started = time.perf_counter()
from trainer.engine.board import Board
from trainer.engine.lexicon import LexiconStore
from trainer.engine.movegen import generate_moves
from trainer.engine.rules import ruleset
imported = time.perf_counter()
rss_import = rss_mb()
store = LexiconStore(Path(sys.argv[1]))
lexicon = store.load(sys.argv[2])
loaded = time.perf_counter()
rss_load = rss_mb()
out = {"import_s": imported - started, "load_s": loaded - imported, "rss_import": rss_import, "rss_load": rss_load}
for position in json.loads(sys.argv[3]) if len(sys.argv) > 3 else []:
    rules = ruleset(position["rules"])
    generate_moves(Board.from_rows(rules.layout, position["board"]), rules, lexicon, position["rack"])
    out["rss_" + position["id"]] = rss_mb()
    out["anon_" + position["id"]] = rss_mb("RssAnon:")
print(json.dumps(out))
"""


def _probe(data_dir: Path, lexicon: str, positions: list[dict[str, object]] | None = None) -> dict[str, float]:
    """Run the probe in a fresh interpreter (loading ``lexicon``, then generating on ``positions``)."""
    argv = [sys.executable, "-c", _PROBE, str(data_dir), lexicon]
    if positions:
        argv.append(json.dumps(positions))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def _percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def _best_time(call: Callable[[], object], repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - started)
    return best


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _mark(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, help="lexicon cache folder (default: a temporary folder, built first)")
    parser.add_argument("--positions", type=Path, default=POSITIONS)
    parser.add_argument("--repeat", type=int, default=3, help="timings per position (the best is kept)")
    parser.add_argument("--loads", type=int, default=5, help="fresh processes for the load and memory figures")
    parser.add_argument("--slowest", type=int, default=5, help="how many of the slowest position ids to list")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tirage-bench-") as tmp:
        run(args, args.data_dir or Path(tmp))


def run(args: argparse.Namespace, data_dir: Path) -> None:
    """Measure everything and print the table."""
    positions: list[dict[str, object]] = json.loads(args.positions.read_text("utf-8"))
    names = sorted({str(p["lexicon"]) for p in positions})
    command = "python bench/engine.py" + "".join(f" {shlex.quote(a)}" for a in sys.argv[1:])
    print(f"$ {command}")
    counts = ", ".join(f"{sum(p['lexicon'] == n for p in positions)} {n}" for n in names)
    print(
        f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; "
        f"{len(positions)} positions ({counts}); best of {args.repeat} per position"
    )

    # The cache: built in a fresh process when missing, so the build time is measured alone.
    cache_dir = data_dir / "cache"
    before = set(cache_dir.iterdir()) if cache_dir.is_dir() else set()
    build = {name: _probe(data_dir, name)["load_s"] for name in names}
    built = (set(cache_dir.iterdir()) if cache_dir.is_dir() else set()) != before
    cache_note = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in build.items())
    print(f"lexicon cache in {data_dir}: {'built' if built else 'already there, loaded'} ({cache_note})")

    # Load time and memory: fresh processes.
    generated = [p for p in positions if p["id"] in RSS_POSITIONS]
    probes = {
        name: [_probe(data_dir, name, generated if name == "en" else None) for _ in range(args.loads)] for name in names
    }

    # Generation.
    store = LexiconStore(data_dir)
    top_times: dict[str, float] = {}
    all_times: dict[str, float] = {}
    for position in positions:
        rules = ruleset(str(position["rules"]))
        lexicon = store.load(str(position["lexicon"]))
        board = Board.from_rows(rules.layout, position["board"])  # type: ignore[arg-type]
        rack = str(position["rack"])
        pid = str(position["id"])
        top_times[pid] = _best_time(lambda: top_moves(board, rules, lexicon, rack), args.repeat)  # noqa: B023
        all_times[pid] = _best_time(lambda: generate_moves(board, rules, lexicon, rack), args.repeat)  # noqa: B023

    rows: list[tuple[str, str, str, str, str]] = []
    for label, times, targets in (
        ("top play (`top_moves`)", top_times, (0.020, 0.250)),
        ("all plays (`generate_moves`)", all_times, (0.060, None)),
    ):
        values = list(times.values())
        median, worst = statistics.median(values), max(values)
        target = f"median ≤ {_ms(targets[0])} {_mark(median <= targets[0])}"
        if targets[1] is not None:
            target += f"; max ≤ {_ms(targets[1])} {_mark(worst <= targets[1])}"
        rows.append((label, _ms(median), _ms(_percentile(values, 0.95)), _ms(worst), target))
    first_runs = next(iter(probes.values()))
    imports = [r["import_s"] for r in first_runs]
    rows.append(
        ("engine import (fresh process)", f"{statistics.median(imports):.3f} s", "", f"{max(imports):.3f} s", "")
    )
    for name, runs in probes.items():
        loads = [r["load_s"] for r in runs]
        median = statistics.median(loads)
        rows.append(
            (
                f"load `{name}` from cache (fresh process)",
                f"{median:.3f} s",
                "",
                f"{max(loads):.3f} s",
                f"≤ 0.3 s {_mark(median <= 0.3)}",
            )
        )
    en_runs = probes.get("en", [])
    if en_runs:
        grown = statistics.median(r["rss_load"] - r["rss_import"] for r in en_runs)
        rows.append(
            ("RSS after engine import", f"{statistics.median(r['rss_import'] for r in en_runs):.1f} MB", "", "", "")
        )
        rows.append(
            (
                "RSS after loading `en`",
                f"{statistics.median(r['rss_load'] for r in en_runs):.1f} MB",
                "",
                "",
                f"≤ 60 MB {_mark(statistics.median(r['rss_load'] for r in en_runs) <= 60)}",
            )
        )
        rows.append(("RSS growth from loading `en`", f"{grown:.1f} MB", "", "", ""))
        for position in generated:
            pid = position["id"]
            total = statistics.median(r[f"rss_{pid}"] for r in en_runs)
            anonymous = statistics.median(r[f"anon_{pid}"] for r in en_runs)
            rows.append(
                (
                    f"RSS after `generate_moves` on {pid}",
                    f"{total:.1f} MB",
                    "",
                    "",
                    f"≤ 60 MB {_mark(total <= 60)} (anonymous {anonymous:.1f} MB)",
                )
            )

    header = ("measure", "median", "p95", "max", "target")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    print()
    for i, row in enumerate([header, *rows]):
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    print()
    for label, times in (("top play", top_times), ("all plays", all_times)):
        slowest = sorted(times.items(), key=lambda item: -item[1])[: args.slowest]
        print(f"slowest {label}: " + ", ".join(f"{pid} {_ms(t)}" for pid, t in slowest))


if __name__ == "__main__":
    main()
