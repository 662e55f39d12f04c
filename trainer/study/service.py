"""A learner's decks on the database: create them from a list, pick the next card, grade, undo.

The rules are :mod:`drills`' (cards, ratings, daily limits, queue order); this module keeps their
state in rows. The next card is chosen by :class:`drills.scheduling.DeckQueue` over a handful of
rows read through two indexes (the heads of the learning, review and new lists, and the cards
answered this session), so it costs the same with 100 cards or 100,000 (``bench/drills.py``).
Every grade is committed before the page hears of it; an undone grade is kept and marked.
"""

from __future__ import annotations

import csv
import io
import logging
import math
import tempfile
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from flask import Flask, current_app
from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler, State
from sqlalchemy import delete, func, insert, select

from drills.cardbox import export_cardbox, write_cardbox
from drills.cards import ANAGRAM, STEM, TWOS, Card, CardError, Feedback, cards_from_words
from drills.registry import card_from_id, check
from drills.scheduling import (
    CardState,
    DayBoundary,
    DayCount,
    DeckLimits,
    DeckQueue,
    Pick,
    ReviewKind,
    rating_for,
    review_card,
)
from drills.words import hooks

from ..core.accounts import Learner
from ..core.clock import aware, utcnow
from ..core.database import db
from ..core.errors import Refused
from ..core.lexicons import lexicon_store
from ..engine.lexicon import Lexicon
from .builder import builder
from .models import Deck, DeckCard, Review

log = logging.getLogger(__name__)

MAX_CARDS = 100_000
MAX_LEARNER_DECKS = 50  # a learner's quota (TIRAGE_LEARNER_DECKS), so open sign-up cannot fill the disk
MAX_LEARNER_CARDS = 300_000  # the cards of all their decks (TIRAGE_LEARNER_CARDS)
RECENT = 12  # answers of this session the queue looks back on (missed cards come back after a few)


# --- decks ----------------------------------------------------------------------------------------


def cards_for(lexicon_name: str, source: dict[str, Any]) -> tuple[list[Card], list[tuple[str, str]]]:
    """The cards a deck's ``source`` asks for, in probability order, and the pasted lines left out."""
    return cards_from_lexicon(lexicon_store().load(lexicon_name), source)


def cards_from_lexicon(lexicon: Lexicon, source: dict[str, Any]) -> tuple[list[Card], list[tuple[str, str]]]:
    """:func:`cards_for` with the lexicon at hand (the deck builder's worker process has no application)."""
    kind = source.get("kind")
    try:
        if kind == "anagram":
            return ANAGRAM.cards(
                lexicon,
                int(source["length"]),
                int(source["first"]),
                int(source["last"]),
                blanks=int(source.get("blanks", 0)),
            ), []
        if kind == "stem":
            ask = source.get("ask", "words")
            if ask not in ("words", "letters"):
                raise ValueError(f"a stem card asks for its words or its letters, not {ask!r}")
            return STEM.cards(lexicon, int(source["length"]), int(source["count"]), ask), []
        if kind == "twos":
            part = source.get("part", "hooks")
            if part == "grid":
                return TWOS.grids(lexicon), []
            if part == "letters":
                return TWOS.letter_cards(lexicon), []
            return TWOS.hook_cards(lexicon), []
        if kind == "words":
            made = cards_from_words(lexicon, str(source.get("text", "")).splitlines())
            return made.cards, made.skipped
    except (KeyError, ValueError, CardError) as exc:
        raise Refused("bad_deck_source", str(exc)) from None
    raise Refused("bad_deck_source", f"unknown kind of deck {kind!r}")


def _check_quota(learner: Learner) -> None:
    limit = int(current_app.config.get("TIRAGE_LEARNER_DECKS") or MAX_LEARNER_DECKS)
    decks = db.session.execute(select(func.count(Deck.id)).where(Deck.learner_id == learner.id)).scalar_one()
    if decks >= limit:
        raise Refused("deck_quota", f"you have {limit} decks, the most one learner may have: delete one first", n=limit)


def _cards_held(learner: Learner) -> int:
    return int(
        db.session.execute(
            select(func.count(DeckCard.id)).join(Deck, Deck.id == DeckCard.deck_id).where(Deck.learner_id == learner.id)
        ).scalar_one()
    )


def create_deck(
    learner: Learner,
    name: object,
    lexicon_name: object,
    source: dict[str, Any],
    new_per_day: int = 20,
    reviews_per_day: int = 200,
    desired_retention: float = 0.9,
    states: list[CardState] | None = None,
) -> tuple[Deck, list[tuple[str, str]]]:
    """A new deck of ``learner`` with its cards (new, or with the given fsrs ``states``, from an import).

    Under the server, every deck is answered at once with the status ``building`` and built in the background
    (:func:`_build_in_background`): generated cards and word lists in the builder's worker process, imported
    cards written in batches; its page shows the progress and the lines left out.
    """
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 80:
        raise Refused("bad_deck_name", "the deck name must be 1 to 80 characters")
    if not isinstance(lexicon_name, str) or lexicon_name not in lexicon_store().catalogue():
        raise Refused("bad_setting", f"unknown lexicon {lexicon_name!r}", setting="lexicon")
    _check_quota(learner)
    deck = Deck(
        learner_id=learner.id,
        name=name.strip(),
        lexicon=lexicon_name,
        source=source,
        new_per_day=new_per_day,
        reviews_per_day=reviews_per_day,
        desired_retention=desired_retention,
    )
    if builder() is not None:
        deck.status, deck.progress = "building", 0
        db.session.add(deck)
        db.session.commit()
        app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
        threading.Thread(
            target=_build_in_background,
            args=(app, deck.id, lexicon_name, source, states),
            name="deck-build",
            daemon=True,
        ).start()
        return deck, []
    skipped: list[tuple[str, str]] = []
    if states is None:
        cards, skipped = cards_for(lexicon_name, source)
        states = [CardState(card.id, card.rank if card.rank is not None else n) for n, card in enumerate(cards)]
    _check_cards(learner, states)
    db.session.add(deck)
    db.session.flush()
    _store_cards(deck, states)
    db.session.commit()
    return deck, skipped


STORE_BATCH = 5_000  # cards written per transaction of a background build (its progress moves by these)


def _check_cards(learner: Learner, states: list[CardState]) -> None:
    if not states:
        raise Refused("empty_deck", "the list has no card")
    if len(states) > MAX_CARDS:
        raise Refused("deck_too_big", f"a deck holds at most {MAX_CARDS} cards", n=MAX_CARDS)
    held = _cards_held(learner)
    limit = int(current_app.config.get("TIRAGE_LEARNER_CARDS") or MAX_LEARNER_CARDS)
    if held + len(states) > limit:
        raise Refused(
            "card_quota",
            f"your decks would hold more than {limit} cards: delete a deck or choose fewer cards",
            n=limit,
        )


def _store_cards(deck: Deck, states: list[CardState], done: Callable[[int], None] | None = None) -> None:
    """The deck's cards, each once, written in batches (``done`` hears how many are written so far)."""
    seen: set[str] = set()
    rows = []
    for state in states:
        if state.card_id in seen:
            continue
        seen.add(state.card_id)
        rows.append({"deck_id": deck.id, "card_id": state.card_id, "rank": state.rank, **_columns(state)})
    for start in range(0, len(rows), STORE_BATCH):
        db.session.execute(insert(DeckCard), rows[start : start + STORE_BATCH])
        if done is not None:
            done(start + len(rows[start : start + STORE_BATCH]))


def _build_in_background(
    app: Flask, deck_id: int, lexicon_name: str, source: dict[str, Any], given: list[CardState] | None
) -> None:
    """Work the deck's cards out in the builder's worker process (unless ``given``, from an import), then store
    them, the progress on the deck: 5 % once the build starts, 50 % when its cards are there, 100 % when they
    are all written."""
    with app.app_context():
        deck = db.session.get(Deck, deck_id)
        worker = builder()
        if deck is None or worker is None:
            return
        learner = deck.learner

        def progress(per_cent: int) -> None:
            deck.progress = per_cent
            db.session.commit()

        try:
            progress(5)
            states = given
            if states is None:
                ranks, skipped = worker.build(lexicon_name, source, wait=BACKGROUND_WAIT_SECONDS)
                states = [CardState(card_id, rank) for card_id, rank in ranks]
                deck.skipped = [list(line) for line in skipped] or None
            _check_cards(learner, states)
            progress(50)
            _store_cards(deck, states, lambda written: progress(50 + 50 * written // len(states)))
            deck.status, deck.progress = "ready", 100
            db.session.commit()
        except Refused as error:
            db.session.rollback()
            _fail(deck, {"code": error.code, "message": str(error), "params": dict(error.params)})
        except Exception:  # a bug or an outage: the deck says so, the log has the rest
            log.exception("building deck %s failed", deck_id)
            db.session.rollback()
            _fail(deck, {"code": "build_failed", "message": "the deck could not be built", "params": {}})


def _fail(deck: Deck, problem: dict[str, Any]) -> None:
    db.session.execute(delete(DeckCard).where(DeckCard.deck_id == deck.id))
    deck.status, deck.problem = "failed", problem
    db.session.commit()


BACKGROUND_WAIT_SECONDS = 3600.0  # a background build queues behind the others (one at a time) this long


def _columns(state: CardState) -> dict[str, Any]:
    """The searchable columns and the whole fsrs state of a card."""
    if state.fsrs is None:
        return {"state": 0, "due": None, "stability": None, "fsrs": None}
    return {
        "state": int(state.fsrs.state),
        "due": state.fsrs.due,
        "stability": state.fsrs.stability,
        "fsrs": state.fsrs.to_dict(),
    }


def _state(row: DeckCard) -> CardState:
    return CardState(row.card_id, row.rank, FsrsCard.from_dict(row.fsrs) if row.fsrs else None)


def _set(row: DeckCard, columns: dict[str, Any]) -> None:
    for key, value in columns.items():
        setattr(row, key, value)


def scheduler_of(deck: Deck, fuzz: bool | None = None) -> Scheduler:
    # Fuzzing spreads cards learnt together over nearby days; tests turn it off to get exact dates.
    fuzz = bool(current_app.config.get("TIRAGE_FSRS_FUZZ", True)) if fuzz is None else fuzz
    return Scheduler(desired_retention=deck.desired_retention, maximum_interval=5 * 365, enable_fuzzing=fuzz)


def boundary_of(deck: Deck) -> DayBoundary:
    return DayBoundary(hour=deck.learner.day_starts_hour)


def limits_of(deck: Deck) -> DeckLimits:
    return DeckLimits(new_per_day=deck.new_per_day, reviews_per_day=deck.reviews_per_day)


def _today(deck: Deck, now: datetime) -> list[Review]:
    start = boundary_of(deck).start(now)
    return list(
        db.session.execute(
            select(Review)
            .where(Review.deck_id == deck.id, Review.reviewed_at >= start, Review.undone.is_(False))
            .order_by(Review.id)
        ).scalars()
    )


def day_count(deck: Deck, now: datetime) -> DayCount:
    kinds = Counter(review.kind for review in _today(deck, now))
    return DayCount(new=kinds[ReviewKind.NEW.value], reviews=kinds[ReviewKind.REVIEW.value])


def next_card(deck: Deck, now: datetime | None = None, ahead: bool = False) -> tuple[DeckCard, Pick] | None:
    """The card to study now, or None when the day's work is done (see drills.scheduling.DeckQueue); ``ahead``:
    the learner asked to study ahead, a review due on a later day may come (docs/rules.md §7.8)."""
    now = now or utcnow()
    today = _today(deck, now)
    kinds = Counter(review.kind for review in today)
    done = DayCount(new=kinds[ReviewKind.NEW.value], reviews=kinds[ReviewKind.REVIEW.value])
    recent = [review.card_id for review in today[-RECENT:]]
    base = select(DeckCard).where(DeckCard.deck_id == deck.id)
    heads = 2
    if ahead:  # studying ahead skips the cards answered within a day: read past them
        heads += (
            db.session.execute(
                select(func.count(func.distinct(Review.deck_card_id))).where(
                    Review.deck_id == deck.id, Review.reviewed_at > now - timedelta(days=1), Review.undone.is_(False)
                )
            ).scalar()
            or 0
        )
    rows: dict[str, DeckCard] = {}
    for query in (
        base.where(DeckCard.state.in_((int(State.Learning), int(State.Relearning))))
        .order_by(DeckCard.due, DeckCard.id)
        .limit(2),
        base.where(DeckCard.state == int(State.Review)).order_by(DeckCard.due, DeckCard.id).limit(heads),
        base.where(DeckCard.state == 0).order_by(DeckCard.rank, DeckCard.id).limit(1),
    ):
        rows.update((row.card_id, row) for row in db.session.execute(query).scalars())
    missing = [card_id for card_id in set(recent) if card_id not in rows]
    if missing:
        rows.update(
            (row.card_id, row) for row in db.session.execute(base.where(DeckCard.card_id.in_(missing))).scalars()
        )
    pick = DeckQueue(_state(row) for row in rows.values()).next_card(
        now, done, limits_of(deck), boundary_of(deck), recent, ahead
    )
    return (rows[pick.card_id], pick) if pick is not None else None


def coming(deck: Deck, now: datetime) -> dict[str, Any]:
    """What the next study day holds, for the day's end (docs/rules.md §7.8): the reviews due by its end (at most
    the deck's reviews a day), its new cards (at most the deck's new cards a day), and when the next review is due
    (None when the deck has no card in review or learning)."""
    tomorrow_end = boundary_of(deck).end(now) + timedelta(days=1)
    base = select(func.count()).where(DeckCard.deck_id == deck.id)
    due = db.session.execute(base.where(DeckCard.state != 0, DeckCard.due < tomorrow_end)).scalar() or 0
    new = db.session.execute(base.where(DeckCard.state == 0)).scalar() or 0
    soonest = db.session.execute(
        select(func.min(DeckCard.due)).where(DeckCard.deck_id == deck.id, DeckCard.state != 0)
    ).scalar()
    return {
        "due": min(due, deck.reviews_per_day),
        "new": min(new, deck.new_per_day),
        "next_due": aware(soonest) if soonest is not None else None,
    }


def card_of(deck: Deck, row: DeckCard) -> Card:
    return card_from_id(lexicon_store().load(deck.lexicon), row.card_id)


def answer_hooks(deck: Deck, card: Card) -> dict[str, tuple[str, str]]:
    """Each answer of an anagram card with its front and back hooks (the letters that make a word before it and
    after it), shown beside it at the reveal as Zyzzyva does (docs/rules.md §7.6); other cards: none."""
    if card.type != ANAGRAM.name:
        return {}
    lexicon = lexicon_store().load(deck.lexicon)
    return {word: hooks(lexicon, word) for word in card.solutions()}


def deck_card(deck: Deck, deck_card_id: object) -> DeckCard:
    known = isinstance(deck_card_id, int) and 0 < deck_card_id < 2**31
    row = db.session.get(DeckCard, deck_card_id) if known else None
    if row is None or row.deck_id != deck.id:
        raise Refused("unknown_card", "this card is not in the deck")
    return row


def answer(
    deck: Deck, row: DeckCard, typed: list[str], seconds: float, now: datetime | None = None, missed: bool = False
) -> tuple[Feedback, Review]:
    """Grade an attempt (``missed``: the learner gave up) and reschedule the card; committed on return.

    A word typed with letters the card does not hold is a slip, not an answer: the attempt is refused
    (``letters_not_on_card``, nothing recorded) so the learner corrects it (docs/rules.md §7.6)."""
    now = now or utcnow()
    card = card_of(deck, row)
    feedback = check(card, typed)
    if feedback.typos and not missed:
        words = ", ".join(feedback.typos)
        raise Refused(
            "letters_not_on_card", f"{words}: letters not on this card; correct and answer again", words=words
        )
    rating = Rating.Again if missed else rating_for(feedback, seconds)
    before = _columns(_state(row))
    duration_ms = max(0, int(seconds * 1000))
    result = review_card(_state(row), rating, now, scheduler_of(deck), duration_ms)
    _set(row, _columns(result.after))
    review = Review(
        deck_id=deck.id,
        deck_card_id=row.id,
        card_id=row.card_id,
        kind=result.kind.value,
        rating=int(rating),
        suggested=int(rating),
        reviewed_at=now,
        duration_ms=duration_ms,
        answers=list(typed),
        right=len(feedback.right),
        wrong=len(feedback.wrong),
        missed=len(feedback.missed),
        before=_serialisable(before),
    )
    db.session.add(review)
    db.session.commit()
    return feedback, review


def next_intervals(deck: Deck, review: Review) -> dict[int, timedelta]:
    """How long the card of ``review`` would wait after each grade (1 Again … 4 Easy), from the state it was in:
    what the grade buttons say (docs/rules.md §7.7). Without fuzz: the grade given may land a day or two away."""
    before = review.before
    row = db.session.get(DeckCard, review.deck_card_id)
    assert row is not None
    state = CardState(row.card_id, row.rank, FsrsCard.from_dict(before["fsrs"]) if before.get("fsrs") else None)
    at = aware(review.reviewed_at)
    plain = scheduler_of(deck, fuzz=False)
    intervals = {}
    for rating in Rating:
        after = review_card(state, rating, at, plain).after.fsrs
        assert after is not None
        intervals[int(rating)] = aware(after.due) - at
    return intervals


def _serialisable(columns: dict[str, Any]) -> dict[str, Any]:
    return {**columns, "due": columns["due"].isoformat() if columns["due"] is not None else None}


def _restore(row: DeckCard, before: dict[str, Any]) -> None:
    due = before.get("due")
    _set(row, {**before, "due": datetime.fromisoformat(due) if isinstance(due, str) else None})


def last_review(deck: Deck) -> Review | None:
    return db.session.execute(
        select(Review).where(Review.deck_id == deck.id, Review.undone.is_(False)).order_by(Review.id.desc()).limit(1)
    ).scalar_one_or_none()


def regrade(deck: Deck, rating_value: object, now: datetime | None = None) -> Review:
    """The learner overrides the grade of their last answer (1 Again … 4 Easy, or "missed" = Again)."""
    if isinstance(rating_value, bool) or rating_value not in (1, 2, 3, 4):
        raise Refused("bad_grade", "the grade must be 1, 2, 3 or 4")
    review = last_review(deck)
    if review is None:
        raise Refused("nothing_to_grade", "there is no answer to grade")
    row = db.session.get(DeckCard, review.deck_card_id)
    assert row is not None
    _restore(row, review.before)
    rating = Rating(rating_value)
    result = review_card(_state(row), rating, review.reviewed_at, scheduler_of(deck), review.duration_ms)
    _set(row, _columns(result.after))
    review.rating = int(rating)
    db.session.commit()
    return review


def undo(deck: Deck) -> DeckCard:
    """Take back the last grade: the card is as it was, and comes next."""
    review = last_review(deck)
    if review is None:
        raise Refused("nothing_to_undo", "there is no answer to undo")
    row = db.session.get(DeckCard, review.deck_card_id)
    assert row is not None
    _restore(row, review.before)
    review.undone = True
    db.session.commit()
    return row


def delete_deck(deck: Deck) -> None:
    """The deck goes, with its cards and its review log (its CSV export is the way to keep them)."""
    db.session.execute(delete(Review).where(Review.deck_id == deck.id))
    db.session.execute(delete(DeckCard).where(DeckCard.deck_id == deck.id))
    db.session.delete(deck)
    db.session.commit()


def decks_of(learner: Learner) -> list[Deck]:
    """The learner's decks, oldest first."""
    return list(db.session.execute(select(Deck).where(Deck.learner_id == learner.id).order_by(Deck.id)).scalars())


def deck_of(learner: Learner, deck_id: int) -> Deck:
    deck = db.session.get(Deck, deck_id)
    if deck is None or deck.learner_id != learner.id:  # someone else's deck is not even said to exist
        raise Refused("unknown_deck", f"there is no deck {deck_id}")
    return deck


# --- figures ---------------------------------------------------------------------------------------


def deck_summary(deck: Deck, now: datetime) -> dict[str, int]:
    """Cards in the deck, new ones, due today, done today."""
    end = boundary_of(deck).end(now)
    counts = dict(
        db.session.execute(
            select(DeckCard.state, func.count()).where(DeckCard.deck_id == deck.id).group_by(DeckCard.state)
        ).all()
    )
    due = (
        db.session.execute(
            select(func.count()).where(DeckCard.deck_id == deck.id, DeckCard.state != 0, DeckCard.due < end)
        ).scalar()
        or 0
    )
    done = day_count(deck, now)
    return {
        "cards": sum(counts.values()),
        "new": counts.get(0, 0),
        "due": due,
        "new_left": max(0, min(deck.new_per_day - done.new, counts.get(0, 0))),
        "done_today": done.new + done.reviews,
    }


def progress(learner: Learner, now: datetime, days: int = 30, ahead: int = 14, weeks: int = 12) -> dict[str, Any]:
    """What the progress page plots: reviews per day, cards due in the coming days, retention by
    deck (share of review answers not forgotten), retention week by week, cards by stability.

    A week is seven study days ending with today's, then the seven before, and so on (docs/rules.md §7.15)."""
    decks = decks_of(learner)
    deck_ids = [deck.id for deck in decks]
    boundary = DayBoundary(hour=learner.day_starts_hour)
    today = boundary.day(now)
    since = boundary.start(now) - timedelta(days=days - 1)
    per_day: Counter[Any] = Counter()
    retention: dict[int, list[int]] = {deck_id: [0, 0] for deck_id in deck_ids}
    by_week = [[0, 0] for _ in range(weeks)]  # [reviews, remembered], this week first
    if deck_ids:
        for reviewed_at, rating, kind, deck_id in db.session.execute(
            select(Review.reviewed_at, Review.rating, Review.kind, Review.deck_id).where(
                Review.deck_id.in_(deck_ids),
                Review.reviewed_at >= min(since, boundary.start(now) - timedelta(days=7 * weeks - 1)),
                Review.undone.is_(False),
            )
        ):
            day = boundary.day(reviewed_at)
            week = (today - day).days // 7
            if kind == ReviewKind.REVIEW.value and 0 <= week < weeks:
                by_week[week][0] += 1
                by_week[week][1] += rating != int(Rating.Again)
            if reviewed_at < since:
                continue
            per_day[day] += 1
            if kind == ReviewKind.REVIEW.value:
                retention[deck_id][0] += 1
                retention[deck_id][1] += rating != int(Rating.Again)
    retention_weeks = [
        (today - timedelta(days=7 * week + 6), counts[1] / counts[0] if counts[0] else None, counts[0])
        for week, counts in reversed(list(enumerate(by_week)))
    ]
    reviews = [(today - timedelta(days=i), per_day[today - timedelta(days=i)]) for i in range(days - 1, -1, -1)]
    due_days: Counter[Any] = Counter()
    stability: Counter[str] = Counter()
    buckets = ((1, "< 1 d"), (7, "1–7 d"), (30, "1–4 wk"), (90, "1–3 mo"), (365, "3–12 mo"))
    if deck_ids:
        horizon = boundary.start(now) + timedelta(days=ahead)
        for due, value in db.session.execute(
            select(DeckCard.due, DeckCard.stability).where(DeckCard.deck_id.in_(deck_ids), DeckCard.state != 0)
        ):
            if due is not None and due < horizon:
                due_days[max(today, boundary.day(due))] += 1
            label = next((name for limit, name in buckets if (value or 0) < limit), "> 1 yr")
            stability[label] += 1
    return {
        "reviews": reviews,
        "due": [(today + timedelta(days=i), due_days[today + timedelta(days=i)]) for i in range(ahead)],
        "retention": [
            (
                deck,
                retention[deck.id][1] / retention[deck.id][0] if retention[deck.id][0] else None,
                retention[deck.id][0],
            )
            for deck in decks
        ],
        "stability": [(name, stability[name]) for _, name in buckets] + [("> 1 yr", stability["> 1 yr"])],
        "retention_weeks": retention_weeks,
    }


def axis_ticks(highest: float, most: int = 4) -> list[int]:
    """The numbers on a chart's value axis: 0 to a round top at or above ``highest``, in at most ``most`` equal
    steps of 1, 2 or 5 times a power of ten. ``axis_ticks(7)`` is [0, 2, 4, 6, 8]; ``axis_ticks(0)`` is [0, 1]."""
    magnitude = 1
    while True:
        for factor in (1, 2, 5):
            step = factor * magnitude
            if math.ceil(highest / step) <= most:
                return list(range(0, max(step, math.ceil(highest / step) * step) + 1, step))
        magnitude *= 10


def export_csv(deck: Deck) -> str:
    """The deck's cards with their schedule, then every review (undone ones marked): one CSV."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        [
            "card",
            "rank",
            "state",
            "due",
            "stability",
            "reviewed_at",
            "kind",
            "rating",
            "suggested",
            "duration_ms",
            "answers",
            "right",
            "wrong",
            "missed",
            "undone",
        ]
    )
    rows = db.session.execute(
        select(DeckCard).where(DeckCard.deck_id == deck.id).order_by(DeckCard.rank, DeckCard.id)
    ).scalars()
    by_row = {row.id: row for row in rows}
    reviews: dict[int, list[Review]] = {}
    for review in db.session.execute(select(Review).where(Review.deck_id == deck.id).order_by(Review.id)).scalars():
        reviews.setdefault(review.deck_card_id, []).append(review)
    for row in by_row.values():
        head = [
            row.card_id,
            row.rank,
            _state_name(row.state),
            row.due.isoformat() if row.due else "",
            f"{row.stability:.3f}" if row.stability is not None else "",
        ]
        if row.id not in reviews:
            writer.writerow([*head, "", "", "", "", "", "", "", "", "", ""])
        for review in reviews.get(row.id, []):
            writer.writerow(
                [
                    *head,
                    review.reviewed_at.isoformat(),
                    review.kind,
                    review.rating,
                    review.suggested,
                    review.duration_ms if review.duration_ms is not None else "",
                    " ".join(review.answers),
                    review.right,
                    review.wrong,
                    review.missed,
                    int(review.undone),
                ]
            )
    return out.getvalue()


def export_cardbox_file(deck: Deck) -> bytes:
    """The deck's anagram cards already studied as a Zyzzyva cardbox (docs/rules.md §7.10): each in the box
    nearest its fsrs interval, due when it is due here, with its right and wrong answers, its streak of right
    ones and the last right one. New cards, and cards of other drills, are not in it."""
    rows = list(
        db.session.execute(
            select(DeckCard)
            .where(DeckCard.deck_id == deck.id, DeckCard.state != 0)
            .order_by(DeckCard.rank, DeckCard.id)
        ).scalars()
    )
    answers: dict[str, list[tuple[bool, datetime]]] = {}
    for card_id, rating, reviewed_at in db.session.execute(
        select(Review.card_id, Review.rating, Review.reviewed_at)
        .where(Review.deck_id == deck.id, Review.undone.is_(False))
        .order_by(Review.id)
    ):
        answers.setdefault(card_id, []).append((rating != int(Rating.Again), reviewed_at))
    boxes = export_cardbox([_state(row) for row in rows], scheduler_of(deck))
    by_question = {row.card_id.rpartition(":")[2]: row.card_id for row in rows}
    made = []
    for box in boxes:
        past = answers.get(by_question.get(box.question, ""), [])
        streak = 0
        for right, _at in reversed(past):
            if not right:
                break
            streak += 1
        rights = [at for right, at in past if right]
        made.append(
            replace(
                box,
                correct=len(rights),
                incorrect=len(past) - len(rights),
                streak=streak,
                last_correct=rights[-1] if rights else None,
            )
        )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cardbox.db"
        write_cardbox(path, made)
        return path.read_bytes()


def _state_name(state: int) -> str:
    return "new" if state == 0 else State(state).name.lower()
