"""A joker game's round opening (docs/rules.md §6.24): a blank in every draw. Prints, never asserts.

    python bench/joker.py [--data-dir DIR] [--rules en|fr] [--games N] [--rounds N]

A round's opening is the engine's work before the round opens, done outside the serving path (in the analyst's
worker process under ``tirage serve``, trainer/games/analyst.py): the game drawn again from its seed to the last
closed round (the blank swapped back each time a top placed it), the next rack drawn around the reliquat, and every
legal play of that rack scored to keep the tops, the next best words and the count of plays at each score
(:func:`trainer.duplicate.rounds.next_round`, the function the worker runs). Every draw of a joker game holds the
blank while its letter was found in the bag, so most openings are one-blank racks.

``--games`` joker games of 20-digit seeds are played to their end (or ``--rounds`` rounds), placing the default top
each round as the server does; every opening is timed, on the wall clock and in the process's CPU time (on a machine
shared with other work the wall clock counts the waits for a core too). The target is issue 18's: p99 ≤ 300 ms.
``--data-dir`` is the folder holding the lexicon cache (default: ``instance/``, built there if missing).
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trainer.duplicate.draw import DrawRule  # noqa: E402
from trainer.duplicate.joker import JOKER  # noqa: E402
from trainer.duplicate.rounds import GameEnd, PlayedRound, Setup, next_round, place  # noqa: E402
from trainer.engine.lexicon import LexiconStore  # noqa: E402
from trainer.engine.notation import format_move  # noqa: E402
from trainer.engine.rules import ruleset  # noqa: E402

FIRST_SEED = 27182818284590452353  # 20 digits, as a chosen seed has (docs/rules.md §6.4)
TARGET_MS = 300.0


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


Opening = tuple[float, float, int, str]  # wall-clock seconds, CPU seconds, round, rack


def play(setup: Setup, rounds: int) -> list[Opening]:
    """One joker game as the server plays it: each round's opening, timed."""
    board = "".join(setup.board().cells)
    played: list[PlayedRound] = []
    timed: list[Opening] = []
    while len(played) < rounds:
        started, cpu = time.perf_counter(), time.process_time()
        opened = next_round(setup, played, board)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        if isinstance(opened, GameEnd):
            break
        timed.append((elapsed, cpu, opened.number, opened.draw.rack))
        top = format_move(opened.analysis.tops[0], setup.notation)
        played.append(PlayedRound(opened.number, opened.draw.rack, board, top))
        board, _reliquat = place(setup, board, top, opened.draw.rack)
    return timed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", type=Path, default=ROOT / "instance")
    parser.add_argument("--rules", choices=("en", "fr"), default="en")
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=100, help="at most this many rounds a game")
    args = parser.parse_args(argv)
    rules = ruleset(args.rules)
    started = time.perf_counter()
    lexicon = LexiconStore(args.data_dir).load(rules.lexicon)
    print(f"Python {platform.python_version()} on {platform.machine()}; lexicon {rules.lexicon} "
          f"from {args.data_dir} in {time.perf_counter() - started:.1f} s")  # fmt: skip
    openings: list[Opening] = []
    for game in range(args.games):
        seed = FIRST_SEED + game
        setup = Setup(
            rules,
            lexicon,
            rules.notation,
            DrawRule(),
            seed,
            first_play_across=True,
            first_play_best_placement=True,
            variant=JOKER,
        )
        timed = play(setup, args.rounds)
        blanks = sum("?" in rack for *_times, rack in timed)
        print(f"seed {seed}: {len(timed)} rounds, {blanks} with the blank, slowest "
              f"{max(wall for wall, *_rest in timed) * 1000:.0f} ms")  # fmt: skip
        openings.extend(timed)
    wall = [opening[0] for opening in openings]
    cpu = [opening[1] for opening in openings]
    with_blank = [opening[0] for opening in openings if "?" in opening[3]]

    def verdict(values: list[float]) -> str:
        return f"p99 ≤ {TARGET_MS:.0f} ms " + ("ok" if percentile(values, 0.99) * 1000 <= TARGET_MS else "MISSED")

    print()
    print("| measure | openings | median | p95 | p99 | max | target |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, values, target in (
        ("a joker game's round opening (`rounds.next_round`), wall clock", wall, verdict(wall)),
        ("the same, CPU time", cpu, verdict(cpu)),
        ("the openings whose rack holds the blank, wall clock", with_blank, ""),
    ):
        print(
            f"| {name} | {len(values)} | {statistics.median(values) * 1000:.1f} ms | "
            f"{percentile(values, 0.95) * 1000:.1f} ms | {percentile(values, 0.99) * 1000:.1f} ms | "
            f"{max(values) * 1000:.1f} ms | {target} |"
        )
    slowest = sorted(openings, reverse=True)[:5]
    print()
    print("slowest: " + ", ".join(f"round {n} {rack} {s * 1000:.0f} ms" for s, _cpu, n, rack in slowest))


if __name__ == "__main__":
    main()
