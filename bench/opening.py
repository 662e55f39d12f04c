"""A round's opening in the engine's worker: every play built, or only what the round keeps. Prints, never asserts.

    python bench/opening.py [--data-dir DIR] [--racks N] [--repeat N]

A duplicate round keeps its tops, the best placement of each of the next best words and how many plays score
each score (issues 14 and 15). Two ways to get them from one rack, timed and their Python allocations' peak
measured (``tracemalloc``), on the racks with two blanks that the seeds 1, 2, ... draw first (the engine's
heaviest case) and on the midgame positions of ``bench/positions.json``:

* **every play built**: ``generate_moves`` (a play object per legal play), then the summary from them;
* **kept plays only**: ``summarise_moves`` (the server's way): the same summary, play objects for the kept only.

``--data-dir`` is the folder holding the lexicon cache (default: ``instance/``, built there if missing).
"""

from __future__ import annotations

import argparse
import functools
import gc
import json
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trainer.duplicate.draw import Bag  # noqa: E402
from trainer.duplicate.mode import BEST_WORDS_KEPT  # noqa: E402
from trainer.engine.board import Board, Move  # noqa: E402
from trainer.engine.lexicon import LexiconStore  # noqa: E402
from trainer.engine.movegen import generate_moves, summarise_moves  # noqa: E402
from trainer.engine.rules import ruleset  # noqa: E402


def every_play_built(board: Board, rack: str, store: LexiconStore) -> object:
    rules = ruleset("en")
    moves = sorted(generate_moves(board, rules, store.load("en"), rack), key=lambda m: -(m.score or 0))
    tops = [m for m in moves if m.score == moves[0].score]
    seen = {m.word.upper() for m in tops}
    others: list[Move] = []  # the best placement of each of the next best words
    for move in moves[len(tops) :]:
        if len(others) < BEST_WORDS_KEPT and move.word.upper() not in seen:
            seen.add(move.word.upper())
            others.append(move)
    return tops, sorted(Counter(m.score or 0 for m in moves).items(), reverse=True), tops + others


def kept_plays_only(board: Board, rack: str, store: LexiconStore) -> object:
    return summarise_moves(board, ruleset("en"), store.load("en"), rack, BEST_WORDS_KEPT)


def measure(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best time in seconds of ``repeat`` calls, and the peak of Python allocations of one, in MB."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    gc.collect()
    tracemalloc.start()
    call()
    _size, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return best, peak / 1e6


def two_blank_racks(count: int) -> list[str]:
    rules = ruleset("en")
    racks: list[str] = []
    seed = 10**19
    while len(racks) < count:
        rack = Bag(rules, seed=seed).draw("", 1).rack
        if rack.count("?") == 2:
            racks.append(rack)
        seed += 1
    return racks


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=ROOT / "instance")
    parser.add_argument("--racks", type=int, default=5, help="two-blank racks on the empty board")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    store = LexiconStore(args.data_dir)
    rules = ruleset("en")
    store.load("en")
    positions = json.loads((ROOT / "bench" / "positions.json").read_text())
    cases = [(f"empty board, {rack}", Board.empty(rules), rack) for rack in two_blank_racks(args.racks)]
    cases += [
        (f"{p['id']}, {p['rack']}", Board(rules.layout, list("".join(p["board"]))), str(p["rack"]))
        for p in positions
        if p["rules"] == "en" and "?" in str(p["rack"])
    ][:5]
    print(f"{'position':<34} {'plays':>7} {'all built ms':>13} {'MB':>6} {'kept only ms':>13} {'MB':>6}")
    ratios: list[float] = []
    memory: list[float] = []
    for name, board, rack in cases:
        plays = len(generate_moves(board, rules, store.load("en"), rack))
        built, built_mb = measure(functools.partial(every_play_built, board, rack, store), args.repeat)
        kept, kept_mb = measure(functools.partial(kept_plays_only, board, rack, store), args.repeat)
        ratios.append(built / kept)
        memory.append(built_mb / kept_mb)
        print(f"{name:<34} {plays:>7} {built * 1000:>13.0f} {built_mb:>6.1f} {kept * 1000:>13.0f} {kept_mb:>6.1f}")
    speed, less = statistics.median(ratios), statistics.median(memory)
    print(f"median: kept plays only is {speed:.2f}x as fast and allocates {less:.1f}x less at its peak")


if __name__ == "__main__":
    main()
