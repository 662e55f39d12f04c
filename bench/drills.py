"""Word-study figures: probability-ordered card lists and the study queue. Prints, never asserts.

    python bench/drills.py [--data-dir DIR] [--repeat N] [--cards N] [--answers N]

* card lists: the probability index of the English lexicon, every length 2-15 (group the words
  by alphagram, count each alphagram's draws, rank per length), built ``--repeat`` times from the
  loaded lexicon, and its resident memory (a fresh process); then the anagram cards of every
  length made from it; then the top 100 stems and the 7-tile racks with one blank, which are
  built on first use.
* the queue: a learner with ``--cards`` cards (new, learning and review, due dates spread over a
  year) in the pure in-memory :class:`drills.scheduling.DeckQueue`; ``--answers`` answers over
  simulated study days (time injected), timing each "next card" and each "record an answer"
  (fsrs review plus moving the card in the queue). The database-backed queue comes with the
  pages; these figures are for the pure queue over in-memory states.

``--data-dir`` is the folder holding the lexicon cache; by default a temporary folder, where the
cache is built first (the build time is reported on its own line).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fsrs import Card as FsrsCard  # noqa: E402
from fsrs import Rating, Scheduler, State  # noqa: E402

from drills.cards import ANAGRAM, STEM  # noqa: E402
from drills.probability import ProbabilityIndex, probability_index  # noqa: E402
from drills.scheduling import (  # noqa: E402
    CardState,
    DayBoundary,
    DayCount,
    DeckLimits,
    DeckQueue,
    card_number,
    pick_next,
)
from trainer.engine.lexicon import Lexicon, LexiconStore  # noqa: E402

START = datetime(2026, 3, 2, 17, 0, tzinfo=UTC)


def _percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.3f} ms" if seconds < 0.01 else f"{seconds * 1000:.1f} ms"


def _s(seconds: float) -> str:
    return f"{seconds:.2f} s"


def _mark(ok: bool) -> str:
    return "ok" if ok else "MISSED"


# Run in a fresh interpreter: resident memory before and after building the index.
_PROBE = r"""
import json, sys
from pathlib import Path

def rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")

from drills.probability import probability_index
from trainer.engine.lexicon import LexiconStore
lexicon = LexiconStore(Path(sys.argv[1])).load(sys.argv[2])
before = rss_mb()
probability_index(lexicon)
print(json.dumps({"before": before, "after": rss_mb()}))
"""


def _index_memory(data_dir: Path, lexicon: str) -> tuple[float, float]:
    """(RSS with the lexicon loaded, RSS once its index is built) of a fresh process, in MB."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(data_dir), lexicon],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env=env,
    )
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    return float(figures["before"]), float(figures["after"])


def _deck(lexicon: Lexicon, size: int, rng: random.Random) -> list[CardState]:
    """``size`` anagram cards (7s, then 8s, 9s... in probability order) for one learner: a third
    new, 0.3 % in relearning (due within half an hour either side of the start), the rest in
    review with due dates from a month ago to a year ahead."""
    index = probability_index(lexicon)
    ids = [f"anagram:{lexicon.name}:{e.letters}" for n in range(7, 16) for e in index.ranked(n)][:size]
    states = []
    for rank, card_id in enumerate(ids, start=1):
        roll = rng.random()
        if roll < 0.34:
            states.append(CardState(card_id, rank))
            continue
        learning = roll < 0.343  # about 300 cards missed in a recent session
        stability = rng.uniform(0.5, 300)
        due = (
            START + timedelta(days=rng.uniform(-30, 365))
            if not learning
            else START + timedelta(minutes=rng.uniform(-30, 30))
        )
        card = FsrsCard(
            card_id=card_number(card_id),
            state=State.Relearning if learning else State.Review,
            step=0 if learning else None,
            stability=stability,
            difficulty=rng.uniform(1, 10),
            due=due,
            last_review=due - timedelta(days=max(stability, 0.01)),
        )
        states.append(CardState(card_id, rank, card))
    return states


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, help="lexicon cache folder (default: a temporary folder, built first)")
    parser.add_argument("--lexicon", default="en")
    parser.add_argument("--repeat", type=int, default=3, help="index builds (the median and best are shown)")
    parser.add_argument("--cards", type=int, default=100_000, help="cards of the simulated learner")
    parser.add_argument("--answers", type=int, default=5_000, help="answers timed over the simulated days")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tirage-bench-") as tmp:
        run(args, args.data_dir or Path(tmp))


def run(args: argparse.Namespace, data_dir: Path) -> None:
    command = "python bench/drills.py" + "".join(f" {shlex.quote(a)}" for a in sys.argv[1:])
    print(f"$ {command}")
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    started = time.perf_counter()
    lexicon = LexiconStore(data_dir).load(args.lexicon)
    print(
        f"lexicon {args.lexicon!r} from {data_dir}: loaded in {_s(time.perf_counter() - started)} "
        "(a first load builds the word-graph cache)"
    )
    rows: list[tuple[str, str, str, str, str]] = []

    # Card lists: the probability index, every length.
    builds = []
    index: ProbabilityIndex | None = None
    for _ in range(max(1, args.repeat)):
        started = time.perf_counter()
        index = ProbabilityIndex(lexicon)
        builds.append(time.perf_counter() - started)
    assert index is not None
    alphagrams = sum(len(index.ranked(n)) for n in index.lengths)
    median = statistics.median(builds)
    rows.append(
        (
            f"probability index, lengths 2-15 ({alphagrams:,} alphagrams)",
            _s(median),
            "",
            _s(max(builds)),
            f"≤ 5 s {_mark(median <= 5)}",
        )
    )
    before, after = _index_memory(data_dir, args.lexicon)
    rows.append(
        (
            "RSS growth from building the index (fresh process)",
            f"{after - before:.1f} MB",
            "",
            "",
            f"{before:.1f} MB -> {after:.1f} MB",
        )
    )
    started = time.perf_counter()
    probability_index(lexicon)  # the shared, cached one (built once more here)
    cards = sum(len(ANAGRAM.cards(lexicon, n)) for n in range(2, 16))
    cards_s = time.perf_counter() - started
    rows.append((f"the same plus {cards:,} anagram cards", _s(cards_s), "", "", f"≤ 5 s {_mark(cards_s <= 5)}"))
    started = time.perf_counter()
    stems = STEM.cards(lexicon, 6, 100)
    rows.append(
        (
            "top 100 six-letter stems as cards (index built)",
            _s(time.perf_counter() - started),
            "",
            "",
            f"best {stems[0].key}: {len(stems[0].answers)} words",
        )
    )
    started = time.perf_counter()
    racks = index.blank_racks(7, 1)
    rows.append(
        (f"7-tile racks with one blank ({len(racks):,}), first use", _s(time.perf_counter() - started), "", "", "")
    )

    # The queue.
    rng = random.Random(2026)
    states = _deck(lexicon, args.cards, rng)
    started = time.perf_counter()
    queue = DeckQueue(states)
    build_s = time.perf_counter() - started
    scheduler = Scheduler()
    limits, boundary = DeckLimits(), DayBoundary()
    next_times: list[float] = []
    answer_times: list[float] = []
    kinds: dict[str, int] = {}
    now = START
    done = DayCount()
    recent: list[str] = []
    day = boundary.day(now)
    for _ in range(args.answers):
        if boundary.day(now) != day:  # a new study day: fresh counts and session
            day, done, recent = boundary.day(now), DayCount(), []
        started = time.perf_counter()
        pick = queue.next_card(now, done, limits, boundary, recent)
        next_times.append(time.perf_counter() - started)
        if pick is None:  # the day's work is done: the next evening
            now = boundary.start(now) + timedelta(days=1, hours=14)
            continue
        kinds[pick.kind] = kinds.get(pick.kind, 0) + 1
        rating = Rating.Again if rng.random() < 0.15 else rng.choice((Rating.Hard, Rating.Good, Rating.Easy))
        started = time.perf_counter()
        review = queue.answer(pick.card_id, rating, now, scheduler, duration_ms=rng.randrange(2_000, 40_000))
        answer_times.append(time.perf_counter() - started)
        done = done.add(review)
        recent.append(pick.card_id)
        now += timedelta(seconds=rng.randrange(4, 40))
    for label, times in (
        (f"next card, {args.cards:,} cards (`DeckQueue.next_card`)", next_times),
        ("record an answer (fsrs review + queue update)", answer_times),
    ):
        p99 = _percentile(times, 0.99)
        target = f"p99 ≤ 20 ms {_mark(p99 <= 0.020)}"
        rows.append((label, _ms(statistics.median(times)), _ms(p99), _ms(max(times)), target))
    rows.append((f"index the {args.cards:,} states (`DeckQueue(states)`, once per load)", _s(build_s), "", "", ""))
    cold = []
    for _ in range(3):
        started = time.perf_counter()
        pick_next(states, now)
        cold.append(time.perf_counter() - started)
    rows.append(
        (
            "next card from a plain list of states (`pick_next`, indexes first)",
            _ms(statistics.median(cold)),
            "",
            _ms(max(cold)),
            "for comparison",
        )
    )

    header = ("measure", "median", "p99", "max", "target")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    print()
    for i, row in enumerate([header, *rows]):
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |")
        if i == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    print()
    days = (now - START).days + 1
    print(
        f"queue: {len(next_times):,} next-card calls and {len(answer_times):,} answers over {days} simulated "
        f"study days; picks: " + ", ".join(f"{n:,} {kind}" for kind, n in sorted(kinds.items()))
    )
    print(
        "These are the pure in-memory queue's figures (drills.scheduling.DeckQueue); the database-backed queue "
        "(indexed queries on due date and rank) comes with the study pages and is measured there."
    )


if __name__ == "__main__":
    main()
