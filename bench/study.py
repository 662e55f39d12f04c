"""The study queue on the database: next card and record an answer for a learner with 100,000 cards.
Prints, never asserts.

    python bench/study.py [--cards N] [--answers N]     (DATABASE_URL for PostgreSQL; SQLite by default)

A fresh instance folder (lexicon cache copied from ``instance/cache`` when there is one), a learner
and one deck of ``--cards`` anagram cards of every length, most of them already scheduled (learning,
review, due over a year, as a learner's deck after months of study). Then ``--answers`` rounds of
:func:`trainer.study.service.next_card` and :func:`trainer.study.service.answer` (fsrs review, the
card's row and the review log committed) over simulated study days, each timed.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fsrs import Card as FsrsCard  # noqa: E402
from fsrs import State  # noqa: E402
from sqlalchemy import insert  # noqa: E402

START = datetime(2026, 3, 2, 17, 0, tzinfo=UTC)


def _ms(values: list[float], fraction: float) -> str:
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1000:.2f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=100_000)
    parser.add_argument("--answers", type=int, default=2_000)
    args = parser.parse_args()
    instance = Path(tempfile.mkdtemp(prefix="tirage-bench-study-"))
    if (ROOT / "instance" / "cache").is_dir():
        shutil.copytree(ROOT / "instance" / "cache", instance / "cache")
    os.environ["TIRAGE_INSTANCE"] = str(instance)

    from drills.probability import probability_index
    from drills.scheduling import card_number
    from trainer.app import create_app
    from trainer.core import accounts
    from trainer.core.database import db
    from trainer.core.lexicons import lexicon_store
    from trainer.study import service
    from trainer.study.models import DeckCard

    app = create_app()
    with app.app_context():
        engine = db.engine.url.get_backend_name()
        index = probability_index(lexicon_store().load("en"))
        ids = [f"anagram:en:{entry.letters}" for length in index.lengths for entry in index.ranked(length)]
        ids = ids[: args.cards]
        learner = accounts.create_learner("bench", "password123")
        deck, _ = service.create_deck(
            learner, "everything", "en", {"kind": "anagram", "length": 2, "first": 1, "last": 1}
        )
        db.session.query(DeckCard).filter(DeckCard.deck_id == deck.id).delete()
        rng = random.Random(7)
        rows = []
        for rank, card_id in enumerate(ids, start=1):
            roll = rng.random()
            if roll < 0.3:  # never seen
                rows.append(
                    {
                        "deck_id": deck.id,
                        "card_id": card_id,
                        "rank": rank,
                        "state": 0,
                        "due": None,
                        "stability": None,
                        "fsrs": None,
                    }
                )
                continue
            state = State.Review if roll < 0.95 else State.Learning
            due = START + timedelta(minutes=rng.uniform(-3 * 24 * 60, 365 * 24 * 60))
            card = FsrsCard(
                card_id=card_number(card_id),
                state=state,
                step=0 if state == State.Learning else None,
                stability=rng.uniform(0.5, 300),
                difficulty=rng.uniform(1, 10),
                due=due,
                last_review=due - timedelta(days=3),
            )
            rows.append(
                {
                    "deck_id": deck.id,
                    "card_id": card_id,
                    "rank": rank,
                    "state": int(state),
                    "due": due,
                    "stability": card.stability,
                    "fsrs": card.to_dict(),
                }
            )
        loaded = time.perf_counter()
        for start in range(0, len(rows), 10_000):
            db.session.execute(insert(DeckCard), rows[start : start + 10_000])
        db.session.commit()
        loaded = time.perf_counter() - loaded
        nexts: list[float] = []
        answers: list[float] = []
        now = START
        for i in range(args.answers):
            if i and i % 200 == 0:
                now += timedelta(days=1)  # a new study day
            began = time.perf_counter()
            picked = service.next_card(deck, now)
            nexts.append(time.perf_counter() - began)
            if picked is None:
                now += timedelta(hours=6)
                continue
            row, _pick = picked
            card = service.card_of(deck, row)
            typed = sorted(card.answers)[: max(1, len(card.answers) - (i % 4 == 0))]
            began = time.perf_counter()
            service.answer(deck, row, typed, 5.0, now)
            answers.append(time.perf_counter() - began)
            now += timedelta(seconds=20)
    print("$ python bench/study.py" + (f" --cards {args.cards}" if args.cards != 100_000 else ""))
    print(f"Python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs; database: {engine}")
    print(f"{len(ids):,} cards loaded in {loaded:.1f} s\n")
    print("| measure | median | p99 | max | target |")
    print("| --- | --- | --- | --- | --- |")
    print(
        f"| next card ({len(nexts):,} calls) | {_ms(nexts, 0.5)} | {_ms(nexts, 0.99)} | {_ms(nexts, 1.0)} "
        "| p99 ≤ 20 ms |"
    )
    print(
        f"| record an answer, committed ({len(answers):,}) | {_ms(answers, 0.5)} | {_ms(answers, 0.99)} "
        f"| {_ms(answers, 1.0)} | p99 ≤ 20 ms |"
    )
    print(f"\nmean next card {statistics.fmean(nexts) * 1000:.2f} ms")
    shutil.rmtree(instance, ignore_errors=True)


if __name__ == "__main__":
    main()
