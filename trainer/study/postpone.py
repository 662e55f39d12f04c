"""A deck's backlog of reviews, and moving it to later days (docs/rules.md §7.13; the rules: :mod:`drills.backlog`).

Only due dates change: the cards' fsrs state is kept whole, so their next answers are scheduled from the days
that really went by. Nothing goes into the review log (a postponement is not an answer): the card's history
shows it as a longer interval after its last answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update

from drills.backlog import Moved, by_urgency, spread
from drills.backlog import postpone as postpone_all

from ..core.clock import utcnow
from ..core.database import db
from ..core.errors import Refused
from .models import Deck, DeckCard
from .service import _columns, _state, boundary_of, scheduler_of

HOW = ("spread", "postpone")


@dataclass(frozen=True, slots=True)
class Backlog:
    """The reviews due by the end of today's study day, how many of them were due before today began, and the
    average chance, as fsrs predicts it, that the learner recalls them now (None: no backlog)."""

    cards: int
    overdue: int
    recall: float | None


def _backlog_rows(deck: Deck, now: datetime) -> list[DeckCard]:
    end = boundary_of(deck).end(now)
    return list(
        db.session.execute(
            select(DeckCard)
            .where(DeckCard.deck_id == deck.id, DeckCard.state == 2, DeckCard.due < end)
            .order_by(DeckCard.due, DeckCard.id)
        ).scalars()
    )


def backlog(deck: Deck, now: datetime | None = None) -> Backlog:
    now = now or utcnow()
    rows = _backlog_rows(deck, now)
    if not rows:
        return Backlog(0, 0, None)
    start = boundary_of(deck).start(now)
    chances = by_urgency((_state(row) for row in rows), now, scheduler_of(deck))
    return Backlog(
        len(rows),
        sum(1 for row in rows if row.due is not None and row.due < start),
        sum(chance for chance, _ in chances) / len(chances),
    )


def move_backlog(deck: Deck, how: object, days: object, now: datetime | None = None) -> list[Moved]:
    """Spread the backlog over ``days`` study days, today the first (``how="spread"``, 2-30 days), or put it all
    ``days`` days later (``how="postpone"``, 1-30); committed on return. The cards moved, least recalled first."""
    now = now or utcnow()
    if how not in HOW:
        raise Refused("bad_postpone", f"how must be one of {', '.join(HOW)}", setting="how")
    low = 2 if how == "spread" else 1
    if isinstance(days, bool) or not isinstance(days, int) or not low <= days <= 30:
        raise Refused("bad_postpone", f"days must be a whole number from {low} to 30", setting="days", low=low)
    rows = {row.card_id: row for row in _backlog_rows(deck, now)}
    states = [_state(row) for row in rows.values()]
    rule = spread if how == "spread" else postpone_all
    moved = rule(states, now, days, scheduler_of(deck), boundary_of(deck))
    if moved:
        db.session.execute(
            update(DeckCard),
            [{"id": rows[m.card_id].id, **_columns(m.after)} for m in moved],
        )
    db.session.commit()
    return moved
