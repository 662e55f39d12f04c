"""A deck's cards one by one (docs/rules.md §7.11-7.12): the card browser's list, searched and filtered, a page at
a time; a card's fsrs state and its review history, read from the review log; a card marked missed outside a
session, graded Again as if it had been answered.

The list is one indexed query on the deck's cards and one on the reviews of the page's cards, whatever the deck's
size. The search asks the drill types which card ids a text names (:func:`drills.registry.search`), so "RETAINS"
finds the card AEINRST and the stems it is made from without rebuilding any card.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from fsrs import Rating, State
from sqlalchemy import ColumnElement, and_, case, false, func, or_, select

from drills.registry import search
from drills.scheduling import review_card

from ..core.clock import utcnow
from ..core.database import db
from .models import Deck, DeckCard, Review
from .service import _columns, _serialisable, _set, _state, boundary_of, scheduler_of

PAGE_SIZE = 50
STATES = {"new": 0, "learning": int(State.Learning), "review": int(State.Review), "relearning": int(State.Relearning)}
DUE_FILTERS = ("due", "later")  # due before today's study day ends / due after it
SORTS = ("deck", "due", "stability")
MARKED = "marked"  # Review.note of a card marked missed from its page, not answered in a session
MAX_SEARCH = 40  # characters of a search kept (the longest card question is 15 tiles)


@dataclass(frozen=True, slots=True)
class CardQuery:
    """What the card browser is asked: a text (a question or an answer), a state, due or not, an order, a page."""

    text: str = ""
    state: str = ""
    due: str = ""
    sort: str = "deck"
    page: int = 1

    @property
    def filtered(self) -> bool:
        return bool(self.text or self.state or self.due)

    def as_args(self) -> dict[str, str]:
        """The query's non-default parameters, for the links of the other pages."""
        args = {"q": self.text, "state": self.state, "due": self.due, "sort": "" if self.sort == "deck" else self.sort}
        return {key: value for key, value in args.items() if value}


def read_query(args: Mapping[str, str]) -> CardQuery:
    """The query of the browser's GET parameters; a value it does not know is left out (the list is wider, not
    refused: every value comes from the page's own choices)."""
    state = args.get("state", "")
    due = args.get("due", "")
    sort = args.get("sort", "deck")
    page = args.get("page", "1")
    return CardQuery(
        text=args.get("q", "").strip()[:MAX_SEARCH],
        state=state if state in STATES else "",
        due=due if due in DUE_FILTERS else "",
        sort=sort if sort in SORTS else "deck",
        page=int(page) if page.isascii() and page.isdigit() and 0 < len(page) < 7 else 1,
    )


@dataclass(frozen=True, slots=True)
class ListedCard:
    """A card of the list, with its review count, its lapses (answers graded Again) and its fsrs difficulty."""

    row: DeckCard
    reviews: int
    lapses: int

    @property
    def difficulty(self) -> float | None:
        return _difficulty(self.row)


@dataclass(frozen=True, slots=True)
class CardPage:
    query: CardQuery
    cards: list[ListedCard]
    total: int  # cards that match, on every page
    pages: int


def _difficulty(row: DeckCard) -> float | None:
    value = row.fsrs.get("difficulty") if row.fsrs else None
    return float(value) if isinstance(value, int | float) else None


def _like(pattern: str) -> str:
    """A drill type's id pattern (``*`` any run) as a LIKE pattern, its own ``%``, ``_`` and ``\\`` escaped."""
    escaped = pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped.replace("*", "%")


def _filters(deck: Deck, query: CardQuery, now: datetime) -> list[ColumnElement[bool]]:
    found: list[ColumnElement[bool]] = [DeckCard.deck_id == deck.id]
    if query.text:
        ids, patterns = search(deck.lexicon, query.text)
        named = [DeckCard.card_id.in_(sorted(ids))] if ids else []
        named += [DeckCard.card_id.like(_like(pattern), escape="\\") for pattern in patterns]
        found.append(or_(*named) if named else false())
    if query.state:
        found.append(DeckCard.state == STATES[query.state])
    if query.due:
        end = boundary_of(deck).end(now)
        found.append(and_(DeckCard.state != 0, DeckCard.due < end) if query.due == "due" else DeckCard.due >= end)
    return found


def browse(deck: Deck, query: CardQuery, now: datetime | None = None) -> CardPage:
    """The deck's cards that match ``query``, a page of :data:`PAGE_SIZE` in the order asked: the deck's (new
    cards' order), due date (soonest first, new cards last) or stability (least stable first, new cards last)."""
    now = now or utcnow()
    where = _filters(deck, query, now)
    total = int(db.session.execute(select(func.count(DeckCard.id)).where(*where)).scalar_one())
    pages = max(1, math.ceil(total / PAGE_SIZE))
    page = min(query.page, pages)
    order: tuple[Any, ...] = (DeckCard.rank, DeckCard.id)
    if query.sort == "due":
        order = (DeckCard.due.is_(None), DeckCard.due, DeckCard.rank, DeckCard.id)
    elif query.sort == "stability":
        order = (DeckCard.stability.is_(None), DeckCard.stability, DeckCard.rank, DeckCard.id)
    rows = list(
        db.session.execute(
            select(DeckCard).where(*where).order_by(*order).offset((page - 1) * PAGE_SIZE).limit(PAGE_SIZE)
        ).scalars()
    )
    counts = review_counts([row.id for row in rows])
    cards = [ListedCard(row, *counts.get(row.id, (0, 0))) for row in rows]
    return CardPage(CardQuery(query.text, query.state, query.due, query.sort, page), cards, total, pages)


def review_counts(deck_card_ids: list[int]) -> dict[int, tuple[int, int]]:
    """Reviews and lapses (graded Again) of each card, undone ones left out."""
    if not deck_card_ids:
        return {}
    lapses = func.sum(case((Review.rating == int(Rating.Again), 1), else_=0))
    return {
        card: (int(reviews), int(lapsed or 0))
        for card, reviews, lapsed in db.session.execute(
            select(Review.deck_card_id, func.count(Review.id), lapses)
            .where(Review.deck_card_id.in_(deck_card_ids), Review.undone.is_(False))
            .group_by(Review.deck_card_id)
        )
    }


# --- one card --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One answer in a card's history: the review, and what it left the card with: its state, its stability
    and the time until it was due again (``interval``; a postponed card's last interval includes the delay)."""

    review: Review
    state: int
    stability: float | None
    interval: timedelta | None

    @property
    def marked(self) -> bool:
        return self.review.note == MARKED


def _due(columns: Mapping[str, Any]) -> datetime | None:
    due = columns.get("due")
    if isinstance(due, datetime):
        return due
    return datetime.fromisoformat(due) if isinstance(due, str) else None


def history(row: DeckCard) -> list[HistoryEntry]:
    """The card's answers, newest first (undone ones left out). What each left the card with is the card's state
    before the next answer (each review keeps it, for undo), or for the last one the card as it is now."""
    reviews = list(
        db.session.execute(
            select(Review).where(Review.deck_card_id == row.id, Review.undone.is_(False)).order_by(Review.id)
        ).scalars()
    )
    now_columns = _columns(_state(row))
    entries = []
    for i, review in enumerate(reviews):
        after: Mapping[str, Any] = reviews[i + 1].before if i + 1 < len(reviews) else now_columns
        due = _due(after)
        stability = after.get("stability")
        entries.append(
            HistoryEntry(
                review,
                int(after.get("state") or 0),
                float(stability) if isinstance(stability, int | float) else None,
                due - review.reviewed_at if due is not None else None,
            )
        )
    entries.reverse()
    return entries


@dataclass(frozen=True, slots=True)
class CardFacts:
    """What fsrs knows of a card now: its state, stability (days), difficulty (1-10), due date, last review and
    the chance of recalling it now."""

    state: int
    stability: float | None
    difficulty: float | None
    due: datetime | None
    last_review: datetime | None
    recall: float | None


def facts(deck: Deck, row: DeckCard, now: datetime | None = None) -> CardFacts:
    now = now or utcnow()
    state = _state(row)
    if state.fsrs is None:
        return CardFacts(0, None, None, None, None, None)
    recall = scheduler_of(deck).get_card_retrievability(state.fsrs, current_datetime=now)
    return CardFacts(
        int(state.fsrs.state),
        state.fsrs.stability,
        state.fsrs.difficulty,
        state.fsrs.due,
        state.fsrs.last_review,
        float(recall) if state.fsrs.last_review is not None else None,
    )


def mark_missed(deck: Deck, row: DeckCard, now: datetime | None = None) -> Review:
    """The learner says they got the card wrong outside a session: it is graded Again now, as an answer would be
    (it counts toward the day's limits as its kind says, comes back as a missed card does, and the study page's
    undo takes it back). The review has no typed words and the note :data:`MARKED`. Committed on return."""
    now = now or utcnow()
    before = _columns(_state(row))
    result = review_card(_state(row), Rating.Again, now, scheduler_of(deck))
    _set(row, _columns(result.after))
    review = Review(
        deck_id=deck.id,
        deck_card_id=row.id,
        card_id=row.card_id,
        kind=result.kind.value,
        rating=int(Rating.Again),
        suggested=int(Rating.Again),
        reviewed_at=now,
        duration_ms=None,
        answers=[],
        before=_serialisable(before),
        note=MARKED,
    )
    db.session.add(review)
    db.session.commit()
    return review
