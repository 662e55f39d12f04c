"""A backlog of reviews moved to later days without touching what fsrs knows of each card (docs/rules.md §7.11).

After days away a learner finds hundreds of reviews due at once. Two ways out, both of which only move due
dates, as the FSRS Helper add-on for Anki does with its *Postpone* and *Flatten*: a card's stability,
difficulty and date of last review stay as they were, so when it is answered fsrs counts the days that really
went by since its last review, and its new stability comes from that, not from the date it was moved to.

* :func:`spread` keeps today's share of the backlog today and moves the rest to the days after, a near-equal
  share each, the cards the learner is least likely to recall now first (they suffer most from waiting);
* :func:`postpone` moves the whole backlog to the start of the study day ``days`` days from today.

Only cards in review are moved: new cards wait for their daily quota anyway, and learning cards (a card just
missed) are due again in minutes. Pure: the time is passed in, nothing is stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from fsrs import Card as FsrsCard
from fsrs import Scheduler, State

from .scheduling import CardState, DayBoundary, utc

MAX_DAYS = 30  # the furthest a backlog is spread or postponed
STUDY_DAY = DayBoundary()  # the default study day (04:00 UTC to 04:00 UTC)


@dataclass(frozen=True, slots=True)
class Moved:
    """One card of the backlog given a later due date, with fsrs's prediction of recall before and after."""

    before: CardState
    after: CardState
    recall_now: float  # the chance of recalling it at ``now``
    recall_then: float  # the same on its new due date

    @property
    def card_id(self) -> str:
        return self.after.card_id

    @property
    def due(self) -> datetime:
        assert self.after.fsrs is not None
        return self.after.fsrs.due


def in_backlog(state: CardState, now: datetime, boundary: DayBoundary = STUDY_DAY) -> bool:
    """A card in review due before the study day of ``now`` ends: what the queue counts as due today."""
    return state.fsrs is not None and state.fsrs.state == State.Review and state.fsrs.due < boundary.end(now)


def recall(state: CardState, moment: datetime, scheduler: Scheduler) -> float:
    """fsrs's chance that the learner recalls the card at ``moment`` (its retrievability)."""
    assert state.fsrs is not None
    return float(scheduler.get_card_retrievability(state.fsrs, current_datetime=utc(moment)))


def by_urgency(states: Iterable[CardState], now: datetime, scheduler: Scheduler) -> list[tuple[float, CardState]]:
    """The cards with their chance of recall at ``now``, lowest first; ties: the less stable first, then by id."""
    found = [(recall(state, now, scheduler), state) for state in states]
    found.sort(key=lambda pair: (pair[0], (pair[1].fsrs.stability or 0.0) if pair[1].fsrs else 0.0, pair[1].card_id))
    return found


def _moved(state: CardState, chance: float, due: datetime, scheduler: Scheduler) -> Moved:
    assert state.fsrs is not None
    card = FsrsCard.from_dict(state.fsrs.to_dict())
    card.due = due  # only the due date: stability, difficulty and the last review stay
    after = replace(state, fsrs=card)
    return Moved(state, after, chance, recall(after, due, scheduler))


def _check_days(days: int, low: int) -> None:
    if not low <= days <= MAX_DAYS:
        raise ValueError(f"days must be from {low} to {MAX_DAYS}, not {days}")


def spread(
    states: Iterable[CardState],
    now: datetime,
    days: int,
    scheduler: Scheduler,
    boundary: DayBoundary = STUDY_DAY,
) -> list[Moved]:
    """The backlog among ``states`` over ``days`` study days (2 to 30), today the first.

    The backlog, least likely recalled first (:func:`by_urgency`), is cut into ``days`` consecutive shares as
    equal as can be, the first shares one card larger when it does not divide evenly. The first share stays as
    it is (due today); share ``k`` becomes due at the start of the ``k``-th study day after today. Returns the
    cards moved, in that order.
    """
    _check_days(days, 2)
    now = utc(now)
    ordered = by_urgency((state for state in states if in_backlog(state, now, boundary)), now, scheduler)
    size, extra = divmod(len(ordered), days)
    moved: list[Moved] = []
    start = 0
    for day in range(days):
        share = ordered[start : start + size + (day < extra)]
        start += len(share)
        if day == 0:
            continue
        due = boundary.start(now) + timedelta(days=day)
        moved.extend(_moved(state, chance, due, scheduler) for chance, state in share)
    return moved


def postpone(
    states: Iterable[CardState],
    now: datetime,
    days: int,
    scheduler: Scheduler,
    boundary: DayBoundary = STUDY_DAY,
) -> list[Moved]:
    """Every card of the backlog among ``states`` due at the start of the study day ``days`` (1 to 30) days
    after today's, in the order of :func:`by_urgency`."""
    _check_days(days, 1)
    now = utc(now)
    due = boundary.start(now) + timedelta(days=days)
    ordered = by_urgency((state for state in states if in_backlog(state, now, boundary)), now, scheduler)
    return [_moved(state, chance, due, scheduler) for chance, state in ordered]


def mean_recall(moved: Iterable[Moved]) -> tuple[float, float] | None:
    """The average chance of recall of the moved cards now and on their new due dates (None: none moved)."""
    pairs = [(m.recall_now, m.recall_then) for m in moved]
    if not pairs:
        return None
    return sum(p[0] for p in pairs) / len(pairs), sum(p[1] for p in pairs) / len(pairs)
