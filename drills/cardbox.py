"""Bringing a learner's past in: a Zyzzyva cardbox, or a plain word list.

Zyzzyva keeps a Leitner cardbox per quiz type in SQLite: table ``questions`` (question,
correct, incorrect, streak, last_correct, difficulty, cardbox, next_scheduled), times in Unix
seconds, the question of an anagram quiz being its alphagram. A right answer moves a card up one
box, a wrong one back to box 0, and box ``b`` waits the interval of :data:`CARDBOX_SCHEDULE`
(docs/rules.md §7.10). fsrs has no boxes, so a box becomes the fsrs card that would be scheduled that
far out: state Review, stability chosen so that fsrs's own interval at the deck's desired
retention is the box's base interval, due when Zyzzyva had it due. Going back, a card lands in
the box whose interval is nearest (on a log scale) to the one its stability gives.
"""

from __future__ import annotations

import math
import sqlite3
import time
from collections.abc import Iterable
from contextlib import closing
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fsrs import Card as FsrsCard
from fsrs import Scheduler, State

from trainer.engine.lexicon import Lexicon, normalise_word
from trainer.engine.rules import BLANK

from .cards import ANAGRAM, WordListImport, cards_from_words, make_id
from .probability import alphagram, probability_index
from .scheduling import CardState, card_number, new_states, utc

# Zyzzyva's schedule: (base interval, random window) per box; box 10 and above share the last.
CARDBOX_SCHEDULE: tuple[tuple[timedelta, timedelta], ...] = (
    (timedelta(hours=12), timedelta(hours=4)),
    (timedelta(days=4), timedelta(days=1)),
    (timedelta(days=7), timedelta(days=2)),
    (timedelta(days=12), timedelta(days=3)),
    (timedelta(days=20), timedelta(days=5)),
    (timedelta(days=30), timedelta(days=7)),
    (timedelta(days=60), timedelta(days=10)),
    (timedelta(days=90), timedelta(days=15)),
    (timedelta(days=150), timedelta(days=20)),
    (timedelta(days=270), timedelta(days=30)),
    (timedelta(days=480), timedelta(days=50)),
)
TOP_BOX = len(CARDBOX_SCHEDULE) - 1
MAX_CARDBOX_ROWS = 100_000  # as many as a deck holds (trainer.study.service.MAX_CARDS)
CARDBOX_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class CardboxRow:
    """One row of a Zyzzyva cardbox's ``questions`` table."""

    question: str
    cardbox: int
    next_scheduled: datetime | None
    correct: int = 0
    incorrect: int = 0
    streak: int = 0
    last_correct: datetime | None = None
    difficulty: int = 0


def box_interval(box: int) -> timedelta:
    """The base interval of ``box`` (boxes above the last share its interval)."""
    return CARDBOX_SCHEDULE[min(max(box, 0), TOP_BOX)][0]


def _decay_terms(scheduler: Scheduler) -> tuple[float, float]:
    """fsrs 6's forgetting curve R(t) = (1 + factor * t / S) ** -decay gives interval = S * scale."""
    decay = -scheduler.parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    scale = (scheduler.desired_retention ** (1 / decay) - 1) / factor
    return factor, scale


def stability_for_interval(interval: timedelta, scheduler: Scheduler) -> float:
    """The fsrs stability whose next interval, at the scheduler's desired retention, is ``interval``."""
    _, scale = _decay_terms(scheduler)
    return interval / timedelta(days=1) / scale


def interval_for_stability(stability: float, scheduler: Scheduler) -> timedelta:
    """The interval fsrs gives a card of this stability at the desired retention (unrounded)."""
    _, scale = _decay_terms(scheduler)
    return timedelta(days=stability * scale)


def _difficulty(row: CardboxRow) -> float:
    """fsrs difficulty (1-10) from Zyzzyva's right/wrong counts: the smoothed share of wrong answers
    (5.5 for a card with no history). A heuristic; fsrs adjusts it from the first review on."""
    return 1 + 9 * (row.incorrect + 1) / (row.correct + row.incorrect + 2)


def card_from_cardbox(row: CardboxRow, card_id: str, now: datetime, scheduler: Scheduler) -> FsrsCard:
    """The fsrs card for a cardbox row: due when Zyzzyva had it due (``now`` when unknown), last
    reviewed one box interval before that (but not after ``now``)."""
    now = utc(now)
    interval = box_interval(row.cardbox)
    due = utc(row.next_scheduled) if row.next_scheduled is not None else now
    return FsrsCard(
        card_id=card_number(card_id),
        state=State.Review,
        step=None,
        stability=stability_for_interval(interval, scheduler),
        difficulty=_difficulty(row),
        due=due,
        last_review=min(due - interval, now),
    )


def cardbox_of(card: FsrsCard, scheduler: Scheduler) -> int:
    """The Zyzzyva box nearest to a card's fsrs interval; cards in (re)learning are in box 0."""
    if card.state != State.Review or not card.stability:
        return 0
    days = interval_for_stability(card.stability, scheduler) / timedelta(days=1)
    return min(
        range(len(CARDBOX_SCHEDULE)), key=lambda box: abs(math.log(days / (box_interval(box) / timedelta(days=1))))
    )


@dataclass(frozen=True, slots=True)
class CardboxLine:
    """A row of a cardbox that did not become a card of its own, for the import's report (docs/rules.md §7.10)."""

    number: int  # the row's place in the cardbox's table, from 1
    question: str
    reason: str  # LETTERS (detail: those not on the tiles), NO_WORD, NO_QUESTION, or MERGED (detail: the row kept)
    detail: str = ""
    kept: int = 0  # MERGED: the number of the row kept


LETTERS, NO_WORD, NO_QUESTION, MERGED = "letters", "no_word", "no_question", "merged"


@dataclass(frozen=True, slots=True)
class CardboxImport:
    states: list[CardState]
    left_out: list[CardboxLine]  # rows that made no card, with why
    merged: list[CardboxLine]  # rows of a card an earlier row made already (the same alphagram): the earlier kept
    lexicon: str = ""

    @property
    def skipped(self) -> list[tuple[str, str]]:
        """(question, why) of each row left out, in English."""
        said = {
            LETTERS: "{detail!r} not among the tiles of {lexicon}",
            NO_WORD: "no word of {lexicon}",
            NO_QUESTION: "no question",
        }
        return [
            (line.question, said[line.reason].format(detail=line.detail, lexicon=self.lexicon))
            for line in self.left_out
        ]


def import_cardbox(rows: Iterable[CardboxRow], lexicon: Lexicon, now: datetime, scheduler: Scheduler) -> CardboxImport:
    """Anagram card states for a cardbox's rows. A row with no word in ``lexicon`` is left out (a cardbox made with
    another word list can hold alphagrams this one lacks), and a row whose alphagram an earlier row had (``aet`` and
    ``AET``, ``ÉTÉ`` and ``ETE``) is merged into it: the earlier row's schedule is kept. Both are reported."""
    index = probability_index(lexicon)
    states: dict[str, CardState] = {}
    kept: dict[str, CardboxLine] = {}
    left_out: list[CardboxLine] = []
    merged: list[CardboxLine] = []
    for number, row in enumerate(rows, 1):
        key = alphagram(normalise_word(row.question))
        outside = sorted(set(key) - set(lexicon.letters) - {BLANK})
        if not key:
            left_out.append(CardboxLine(number, row.question, NO_QUESTION))
            continue
        if outside:
            left_out.append(CardboxLine(number, row.question, LETTERS, "".join(outside)))
            continue
        entry = index.get(key)
        if entry is None or not entry.words:
            left_out.append(CardboxLine(number, row.question, NO_WORD))
            continue
        card_id = make_id(ANAGRAM.name, lexicon.name, key)
        if card_id in kept:
            first = kept[card_id]
            merged.append(CardboxLine(number, row.question, MERGED, first.question, first.number))
            continue
        kept[card_id] = CardboxLine(number, row.question, "")
        states[card_id] = CardState(card_id, entry.rank, card_from_cardbox(row, card_id, now, scheduler))
    return CardboxImport(list(states.values()), left_out, merged, lexicon.name)


def export_cardbox(states: Iterable[CardState], scheduler: Scheduler) -> list[CardboxRow]:
    """Cardbox rows for the reviewed anagram cards of a deck (new cards are not in a cardbox yet)."""
    rows = []
    for state in states:
        kind, _, key = state.card_id.partition(":")
        if kind != ANAGRAM.name or state.fsrs is None:
            continue
        rows.append(CardboxRow(key.partition(":")[2], cardbox_of(state.fsrs, scheduler), state.fsrs.due))
    return rows


_COLUMNS = "question, correct, incorrect, streak, last_correct, difficulty, cardbox, next_scheduled"


def _from_unix(seconds: int | None) -> datetime | None:
    return None if seconds is None else datetime.fromtimestamp(int(seconds), UTC)


def _to_unix(moment: datetime | None) -> int | None:
    return None if moment is None else int(utc(moment).timestamp())


def read_cardbox(path: Path, max_rows: int = MAX_CARDBOX_ROWS, seconds: float = CARDBOX_SECONDS) -> list[CardboxRow]:
    """The rows of a Zyzzyva cardbox file (SQLite); :class:`ValueError` if it is not one.

    The file comes from a learner's browser, so it is read as untrusted: ``questions`` must be a table (a view
    could make SQLite compute anything, for as long as it likes), at most ``max_rows`` rows are read, and the
    reading stops after ``seconds``.
    """
    deadline = time.monotonic() + seconds
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
            connection.execute("PRAGMA query_only = ON")
            connection.execute("PRAGMA trusted_schema = OFF")
            # SQLite asks every 10,000 steps; a true answer interrupts the statement.
            connection.set_progress_handler(lambda: time.monotonic() > deadline, 10_000)
            kind = connection.execute("SELECT type FROM sqlite_master WHERE name = 'questions'").fetchone()
            if kind is None or kind[0] != "table":
                raise ValueError(f"{path} is not a Zyzzyva cardbox: it has no table of questions")
            found = connection.execute(f"SELECT {_COLUMNS} FROM questions LIMIT ?", (max_rows + 1,)).fetchall()
    except sqlite3.OperationalError as error:
        if time.monotonic() > deadline:
            raise ValueError(f"{path} took longer than {seconds:g} s to read") from None
        raise ValueError(f"{path} is not a Zyzzyva cardbox: {error}") from None
    except sqlite3.DatabaseError as error:
        raise ValueError(f"{path} is not a Zyzzyva cardbox: {error}") from None
    if len(found) > max_rows:
        raise ValueError(f"{path} holds more than {max_rows} cards")
    return [
        CardboxRow(
            "" if question is None else str(question),  # a row without its question: left out, reported
            int(box or 0),
            _from_unix(due),
            int(correct or 0),
            int(incorrect or 0),
            int(streak or 0),
            _from_unix(last),
            int(difficulty or 0),
        )
        for question, correct, incorrect, streak, last, difficulty, box, due in found
    ]


def write_cardbox(path: Path, rows: Iterable[CardboxRow]) -> None:
    """Write rows as a Zyzzyva cardbox file (its schema), for a learner going back to Zyzzyva."""
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute(
            "CREATE TABLE IF NOT EXISTS questions (question varchar(16), correct integer, incorrect integer, "
            "streak integer, last_correct integer, difficulty integer, cardbox integer, next_scheduled integer)"
        )
        connection.executemany(
            f"INSERT INTO questions ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    r.question,
                    r.correct,
                    r.incorrect,
                    r.streak,
                    _to_unix(r.last_correct),
                    r.difficulty,
                    r.cardbox,
                    _to_unix(r.next_scheduled),
                )
                for r in rows
            ],
        )


def import_word_list(lexicon: Lexicon, text: str) -> tuple[list[CardState], WordListImport]:
    """New anagram card states for a plain word list (one or more words a line), in probability order."""
    made = cards_from_words(lexicon, text.splitlines())
    return new_states(made.cards), made
