"""Rows of word study: decks, the cards of a deck with their fsrs state, and every review (learners
are accounts: :mod:`trainer.core.accounts`).

A card's fsrs state is kept whole (``fsrs``, fsrs's own dict) next to the columns the queue
searches (``state``, ``due``, ``rank``), so the next card is a few indexed queries, never a scan of
a 100,000-card deck. Reviews are append-only; an undone review is marked, not deleted.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fsrs.card import CardDict
from sqlalchemy import JSON, CheckConstraint, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ..core.accounts import Learner
from ..core.clock import utcnow
from ..core.database import Model


class Deck(Model):
    """A list of cards studied together, with its lexicon, daily limits and desired retention."""

    __tablename__ = "deck"

    id: Mapped[int] = mapped_column(primary_key=True)
    learner_id: Mapped[int] = mapped_column(ForeignKey("learner.id"))
    name: Mapped[str] = mapped_column(String(80))
    lexicon: Mapped[str] = mapped_column(String(40))
    source: Mapped[dict[str, Any]] = mapped_column(JSON)  # how the cards were chosen, for the deck page
    new_per_day: Mapped[int] = mapped_column(default=20)
    reviews_per_day: Mapped[int] = mapped_column(default=200)
    desired_retention: Mapped[float] = mapped_column(default=0.9)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Built in the background under the server (trainer.study.builder): "building" with its progress in per
    # cent, then "ready", or "failed" with the refusal that says why (its code and parameters).
    status: Mapped[str] = mapped_column(String(16), default="ready")
    progress: Mapped[int] = mapped_column(default=100)
    problem: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True), default=None)
    skipped: Mapped[list[list[str]] | None] = mapped_column(JSON(none_as_null=True), default=None)  # [line, why]

    learner: Mapped[Learner] = relationship()


class DeckCard(Model):
    """One card of a deck: its id in :mod:`drills` (``anagram:en:AEINRST``) and its schedule."""

    __tablename__ = "deck_card"
    __table_args__ = (
        UniqueConstraint("deck_id", "card_id"),
        Index("ix_deck_card_queue", "deck_id", "state", "due"),
        Index("ix_deck_card_new", "deck_id", "state", "rank"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    deck_id: Mapped[int] = mapped_column(ForeignKey("deck.id"))
    card_id: Mapped[str] = mapped_column(String(200))
    rank: Mapped[int] = mapped_column(default=0)  # probability rank: new cards come in this order
    state: Mapped[int] = mapped_column(default=0)  # 0 new, else fsrs State (1 learning, 2 review, 3 relearning)
    due: Mapped[datetime | None] = mapped_column(default=None)
    stability: Mapped[float | None] = mapped_column(default=None)
    fsrs: Mapped[CardDict | None] = mapped_column(JSON, default=None)  # fsrs.Card.to_dict()


class Review(Model):
    """One graded answer, with what the learner typed and the card's state before (to undo it)."""

    __tablename__ = "review"
    __table_args__ = (Index("ix_review_deck_time", "deck_id", "reviewed_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    deck_id: Mapped[int] = mapped_column(ForeignKey("deck.id"))
    deck_card_id: Mapped[int] = mapped_column(ForeignKey("deck_card.id"))
    card_id: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16))  # new, review, learning (drills.scheduling.ReviewKind)
    rating: Mapped[int]  # fsrs Rating: 1 Again, 2 Hard, 3 Good, 4 Easy
    suggested: Mapped[int]  # the rating the answer earned before any override
    reviewed_at: Mapped[datetime] = mapped_column(default=utcnow)
    duration_ms: Mapped[int | None] = mapped_column(default=None)
    answers: Mapped[list[str]] = mapped_column(JSON)
    right: Mapped[int] = mapped_column(default=0)
    wrong: Mapped[int] = mapped_column(default=0)
    missed: Mapped[int] = mapped_column(default=0)
    before: Mapped[dict[str, Any]] = mapped_column(JSON)  # the card's columns before, for undo
    undone: Mapped[bool] = mapped_column(default=False)
    note: Mapped[str | None] = mapped_column(Text, default=None)


# A game card's round is a club game's or a practice session's, never both nor neither (migration 0022 has the same).
ONE_ROUND = "(round_id IS NULL) <> (practice_round_id IS NULL)"


class GameCard(Model):
    """Where a card of a learner's "From my games" deck came from (docs/rules.md §7.12): the round of a club
    game, or of one of their solo practice or topping sessions, whose top they missed (exactly one of the two). One
    row per card and round, so a game or session seen twice adds nothing twice."""

    __tablename__ = "game_card"
    __table_args__ = (
        UniqueConstraint("deck_card_id", "round_id"),
        UniqueConstraint("deck_card_id", "practice_round_id", name="uq_game_card_deck_card_id_practice_round_id"),
        CheckConstraint(ONE_ROUND, name="one_round"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    deck_card_id: Mapped[int] = mapped_column(ForeignKey("deck_card.id", ondelete="CASCADE"), index=True)
    round_id: Mapped[int | None] = mapped_column(ForeignKey("round.id"), default=None)  # a club game's round
    practice_round_id: Mapped[int | None] = mapped_column(  # a practice session's round (§6.27, §6.28)
        ForeignKey("practice_round.id", ondelete="CASCADE"), default=None, index=True
    )
    cause: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
