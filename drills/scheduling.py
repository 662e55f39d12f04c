"""When each card comes back: fsrs schedules one card; this module schedules the learner's day.

`fsrs` (6.x) turns a card's past and a rating into its next due date. Around it, the server needs
(docs/rules.md §7.7–7.9):

* a rating from the answer itself (:func:`rating_for`): anything missed or wrong is Again; all
  right is Good, Easy when fast, Hard when slow;
* daily limits per deck (new cards and reviews per study day, defaults 20 and 200) and a study
  day that does not end at midnight UTC for everyone (:class:`DayBoundary`);
* the order of a session (:class:`DeckQueue`): missed cards again once their short delay is over
  (or a few other cards later), then reviews due today (oldest due first), then new cards in
  probability order, then a card missed today that is not due yet; a review card due on a later
  day only when the learner asks to study ahead (learn-ahead).

Everything here is pure: the time is always passed in (``now``, timezone-aware; never the wall
clock), and nothing touches a database. The pages keep the same queue in the database (indexed
by due date and rank); :class:`DeckQueue` is its in-memory twin, used by tests and the benchmark.
"""

from __future__ import annotations

import hashlib
import math
from bisect import bisect_left, insort
from collections.abc import Iterable, Sequence
from copy import copy
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum

from fsrs import Card as FsrsCard
from fsrs import Rating, ReviewLog, Scheduler, State

from .cards import Card, Feedback

DEFAULT_NEW_PER_DAY = 20
DEFAULT_REVIEWS_PER_DAY = 200


def utc(moment: datetime) -> datetime:
    """``moment`` in UTC (what fsrs requires); a naive datetime is refused rather than guessed."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{moment!r} has no timezone: pass an aware datetime (UTC)")
    return moment.astimezone(UTC)


# -- rating -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RatingThresholds:
    """How long an all-right answer may take to count as Easy, or before it counts as Hard.

    A card with several answers takes longer to type, so each answer after the first adds
    ``per_extra_answer`` seconds to both limits.
    """

    easy_seconds: float = 6.0  # at most this: Easy
    hard_seconds: float = 20.0  # more than this: Hard
    per_extra_answer: float = 4.0
    wrong_fails: bool = True  # a phony typed among the right answers is a failure too (Zyzzyva's rule)


def rating_for(feedback: Feedback, seconds: float, thresholds: RatingThresholds = RatingThresholds()) -> Rating:
    """The fsrs rating an attempt earns: Again when anything was missed (or wrong, by default);
    otherwise Easy, Good or Hard by the time it took. The learner may override it on the page."""
    if feedback.missed or (thresholds.wrong_fails and feedback.wrong):
        return Rating.Again
    extra = max(0, feedback.answer_count - 1) * thresholds.per_extra_answer
    if seconds <= thresholds.easy_seconds + extra:
        return Rating.Easy
    if seconds > thresholds.hard_seconds + extra:
        return Rating.Hard
    return Rating.Good


# -- study days -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DayBoundary:
    """A learner's study day runs from ``hour`` o'clock to ``hour`` o'clock the next day, at a fixed
    offset from UTC (default: 04:00 UTC). Late-night study then counts for the day it began, as in
    Anki. The offset is fixed (no daylight-saving rules): the page passes the learner's current one.
    """

    hour: int = 4
    utc_offset: timedelta = timedelta(0)

    def day(self, moment: datetime) -> date:
        """The study day ``moment`` belongs to."""
        return (utc(moment) + self.utc_offset - timedelta(hours=self.hour)).date()

    def start(self, moment: datetime) -> datetime:
        """When the study day of ``moment`` began (UTC)."""
        local = datetime.combine(self.day(moment), time(self.hour), tzinfo=UTC)
        return local - self.utc_offset

    def end(self, moment: datetime) -> datetime:
        """When the study day of ``moment`` ends (UTC): the start of the next one."""
        return self.start(moment) + timedelta(days=1)


# -- card states and the queue --------------------------------------------------------------------


def card_number(card_id: str) -> int:
    """A stable 56-bit integer for a card id (fsrs cards and review logs carry an int id)."""
    return int.from_bytes(hashlib.blake2b(card_id.encode(), digest_size=7).digest(), "big")


@dataclass(frozen=True, slots=True)
class CardState:
    """One card of a deck for one learner: ``fsrs`` is None until its first review; ``rank`` orders
    new cards (probability rank, lower first)."""

    card_id: str
    rank: int = 0
    fsrs: FsrsCard | None = None

    @property
    def due(self) -> datetime | None:
        return None if self.fsrs is None else self.fsrs.due

    @property
    def is_new(self) -> bool:
        return self.fsrs is None

    @property
    def is_learning(self) -> bool:
        """Learning or relearning: a card just missed (or just met), due again in minutes."""
        return self.fsrs is not None and self.fsrs.state != State.Review


def new_states(cards: Iterable[Card]) -> list[CardState]:
    """Never-reviewed states for freshly added cards, ranked by their place in their list."""
    return [CardState(card.id, card.rank if card.rank is not None else 0) for card in cards]


class ReviewKind(StrEnum):
    """What an answered card was, for the daily counts: only new and review answers count."""

    NEW = "new"  # first review of the card
    REVIEW = "review"  # a card in the Review state (due or learnt ahead): counts toward reviews/day
    LEARNING = "learning"  # a learning or relearning step: counts toward neither limit


class PickKind(StrEnum):
    """Why the queue chose a card."""

    AGAIN = "again"  # a learning card whose delay is over (or that waited long enough): missed cards
    REVIEW = "review"  # due today
    NEW = "new"  # a new card, in probability order
    AHEAD = "ahead"  # nothing else: the soonest due card (a review not due today only when asked)


@dataclass(frozen=True, slots=True)
class Pick:
    card_id: str
    kind: PickKind


@dataclass(frozen=True, slots=True)
class DeckLimits:
    """A deck's daily limits and session rules."""

    new_per_day: int = DEFAULT_NEW_PER_DAY
    reviews_per_day: int = DEFAULT_REVIEWS_PER_DAY
    again_after_cards: int = 4  # a missed card comes back after this many other answers if not due before (0: off)
    learn_ahead: timedelta | None = None  # how far ahead learn-ahead looks (None: no limit)


@dataclass(frozen=True, slots=True)
class DayCount:
    """New cards and reviews done in the current study day (what the limits are measured against)."""

    new: int = 0
    reviews: int = 0

    def add(self, review: Review, sign: int = 1) -> DayCount:
        """The count after ``review`` (``sign=-1``: after undoing it)."""
        if review.kind == ReviewKind.NEW:
            return replace(self, new=self.new + sign)
        if review.kind == ReviewKind.REVIEW:
            return replace(self, reviews=self.reviews + sign)
        return self


@dataclass(frozen=True, slots=True)
class Review:
    """One answer: the fsrs log (kept for the optimiser), and the states before and after (for undo)."""

    card_id: str
    kind: ReviewKind
    log: ReviewLog
    before: CardState
    after: CardState

    @property
    def at(self) -> datetime:
        return self.log.review_datetime


def count_day(reviews: Iterable[Review], now: datetime, boundary: DayBoundary = DayBoundary()) -> DayCount:
    """New cards and reviews answered in the study day of ``now``."""
    start, end = boundary.start(now), boundary.end(now)
    count = DayCount()
    for review in reviews:
        if start <= review.at < end:
            count = count.add(review)
    return count


def same_day_repeat(card: FsrsCard, rating: Rating, now: datetime) -> bool:
    """Is this a pass (Hard, Good, Easy) on a card in review answered less than a day after its last review
    (fsrs's "same-day review")? fsrs 6 multiplies its stability by its short-term factor, never below 1 for a
    pass: an Easy card of 8.3 days answered again at once would get 13.0 days. Such a repeat must not lengthen
    the card's interval (:func:`no_longer`, docs/rules.md §7.7). Again is fsrs's as it is."""
    return card.state == State.Review and rating != Rating.Again and answered_within_a_day(card, now)


def no_longer(before: FsrsCard, after: FsrsCard, now: datetime) -> FsrsCard:
    """fsrs's answer to a same-day repeat, held to the card's past: its stability no higher than before, its
    next interval (from ``now``) no longer than the one it had (from its last review to its due date)."""
    assert before.last_review is not None and before.stability is not None and after.stability is not None
    interval = before.due - before.last_review
    stability = min(after.stability, before.stability)
    return replace_card(after, stability=stability, due=min(after.due, utc(now) + interval))


def replace_card(card: FsrsCard, **changes: object) -> FsrsCard:
    """A copy of an fsrs card with some fields changed (fsrs cards are plain mutable objects)."""
    made = copy(card)
    for name, value in changes.items():
        setattr(made, name, value)
    return made


def answered_within_a_day(card: FsrsCard, now: datetime) -> bool:
    """Was ``card`` last reviewed less than a day (24 hours) before ``now``: fsrs's "same day"?"""
    return card.last_review is not None and (utc(now) - card.last_review).days < 1


def review_card(
    state: CardState, rating: Rating, now: datetime, scheduler: Scheduler, duration_ms: int | None = None
) -> Review:
    """Answer one card: the new fsrs state and its log (a new card gets its fsrs card here)."""
    now = utc(now)
    before = state
    if state.fsrs is None:
        kind = ReviewKind.NEW
        card = FsrsCard(card_id=card_number(state.card_id), due=now)  # card_id given: fsrs would sleep 1 ms
    else:
        kind = ReviewKind.REVIEW if state.fsrs.state == State.Review else ReviewKind.LEARNING
        card = state.fsrs
    after_card, log = scheduler.review_card(card, rating, review_datetime=now, review_duration=duration_ms)
    if same_day_repeat(card, rating, now):
        after_card = no_longer(card, after_card, now)
    return Review(state.card_id, kind, log, before, replace(state, fsrs=after_card))


class DeckQueue:
    """A deck's cards for one learner, indexed for the next-card question.

    Three sorted lists: learning cards by due time, review cards by due time, new cards by rank.
    Choosing the next card reads the heads of those lists; recording an answer moves one entry
    (a binary search and a list insert). So both stay well under a millisecond with 100,000
    cards (bench/drills.py), the way the database version reads two indexes.
    """

    def __init__(self, states: Iterable[CardState] = ()) -> None:
        self._states: dict[str, CardState] = {}
        self._learning: list[tuple[float, str]] = []
        self._review: list[tuple[float, str]] = []
        self._new: list[tuple[float, str]] = []  # (rank, id)
        for state in states:
            self._states[state.card_id] = state
            self._entry_list(state).append(self._entry(state))
        self._learning.sort()
        self._review.sort()
        self._new.sort()

    def __len__(self) -> int:
        return len(self._states)

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._states

    def state(self, card_id: str) -> CardState:
        return self._states[card_id]

    def states(self) -> list[CardState]:
        return list(self._states.values())

    @staticmethod
    def _entry(state: CardState) -> tuple[float, str]:
        if state.fsrs is None:
            return float(state.rank), state.card_id
        return state.fsrs.due.timestamp(), state.card_id

    def _entry_list(self, state: CardState) -> list[tuple[float, str]]:
        if state.fsrs is None:
            return self._new
        return self._review if state.fsrs.state == State.Review else self._learning

    def put(self, state: CardState) -> None:
        """Add a card or replace its state (after a review, or to undo one)."""
        self.remove(state.card_id)
        self._states[state.card_id] = state
        insort(self._entry_list(state), self._entry(state))

    def remove(self, card_id: str) -> None:
        old = self._states.pop(card_id, None)
        if old is None:
            return
        entries = self._entry_list(old)
        entry = self._entry(old)
        i = bisect_left(entries, entry)
        if i < len(entries) and entries[i] == entry:
            del entries[i]

    def answer(
        self, card_id: str, rating: Rating, now: datetime, scheduler: Scheduler, duration_ms: int | None = None
    ) -> Review:
        """Record an answer: reschedule the card with fsrs and move it in the queue."""
        review = review_card(self._states[card_id], rating, now, scheduler, duration_ms)
        self.put(review.after)
        return review

    def undo(self, review: Review) -> None:
        """Put the card back as it was before ``review`` (the learner's "undo last grade")."""
        self.put(review.before)

    def next_card(
        self,
        now: datetime,
        done: DayCount = DayCount(),
        limits: DeckLimits = DeckLimits(),
        boundary: DayBoundary = DayBoundary(),
        recent: Sequence[str] = (),
        ahead: bool = False,
    ) -> Pick | None:
        """The card to show at ``now``, or None when the day's work is done.

        ``done`` is what was answered this study day, ``recent`` the ids answered this session
        (oldest first). In order: a missed (learning) card whose delay is over or that has waited
        ``again_after_cards`` other answers; a review due before the day ends, oldest due first,
        while reviews are left; a new card by rank, while new cards are left; the soonest due
        learning card (missed today, due in minutes), within ``learn_ahead``. A review card not
        due today comes only when the learner asked to study ahead (``ahead``), the soonest due
        first, while reviews are left, and not one answered within the last day (answering it
        again would change nothing, :func:`same_day_repeat`). The card just answered is never
        shown twice in a row unless it is the only one left.
        """
        moment = utc(now).timestamp()
        last = recent[-1] if recent else None
        for due, card_id in self._learning:
            if due > moment:
                break
            if card_id != last:
                return Pick(card_id, PickKind.AGAIN)
        if limits.again_after_cards > 0 and recent:
            waited = self._waited(recent, limits.again_after_cards)
            if waited:
                return Pick(min(waited)[1], PickKind.AGAIN)
        reviews_left = done.reviews < limits.reviews_per_day
        day_end = boundary.end(now).timestamp()
        if reviews_left:
            for due, card_id in self._review[:2]:
                if due >= day_end:
                    break
                if card_id != last:
                    return Pick(card_id, PickKind.REVIEW)
        if done.new < limits.new_per_day and self._new:
            return Pick(self._new[0][1], PickKind.NEW)
        candidates = [entry for entry in self._learning[:2] if entry[1] != last][:1]
        if reviews_left and ahead:  # the soonest card a repeat would still teach something (§7.7's same-day rule)
            candidates += [entry for entry in self._review if not self._answered_today(entry[1], now)][:1]
        horizon = moment + limits.learn_ahead.total_seconds() if limits.learn_ahead is not None else math.inf
        candidates = [entry for entry in candidates if entry[0] <= horizon]
        if not candidates and last is not None and last in self._states and self._states[last].is_learning:
            entry = self._entry(self._states[last])  # the only card left is the one just missed
            candidates = [entry] if entry[0] <= horizon else []
        return Pick(min(candidates)[1], PickKind.AHEAD) if candidates else None

    def _answered_today(self, card_id: str, now: datetime) -> bool:
        fsrs = self._states[card_id].fsrs
        return fsrs is None or answered_within_a_day(fsrs, now)

    def _waited(self, recent: Sequence[str], enough: int) -> list[tuple[float, str]]:
        """Missed cards (learning, back at step 0) answered this session with at least ``enough``
        answers since, as (due, id). A new card answered right (step 1) waits for its due time."""
        found: list[tuple[float, str]] = []
        seen: set[str] = set()
        for since, card_id in enumerate(reversed(recent)):
            if card_id in seen:
                continue
            seen.add(card_id)
            state = self._states.get(card_id)
            if (
                since >= enough
                and state is not None
                and state.fsrs is not None
                and state.is_learning
                and state.fsrs.step == 0
            ):
                found.append((state.fsrs.due.timestamp(), card_id))
        return found


def pick_next(
    states: Iterable[CardState],
    now: datetime,
    done: DayCount = DayCount(),
    limits: DeckLimits = DeckLimits(),
    boundary: DayBoundary = DayBoundary(),
    recent: Sequence[str] = (),
    ahead: bool = False,
) -> Pick | None:
    """:meth:`DeckQueue.next_card` over a plain list of states (builds the index: O(n log n))."""
    return DeckQueue(states).next_card(now, done, limits, boundary, recent, ahead)
