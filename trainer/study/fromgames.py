"""The "From my games" deck (docs/rules.md §7.12): the words of the tops a player missed in club games and in their
solo practice and topping sessions, as cards of their account, scheduled by fsrs like every other card.

This service is told which cards and which rounds (the games service works them out, trainer.games.history); it
keeps the deck, its cards and where each came from. A round seen twice adds nothing twice.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select

from drills.cards import make_id
from drills.probability import alphagram

from ..core.accounts import Learner
from ..core.database import db
from .models import Deck, DeckCard, GameCard

log = logging.getLogger(__name__)

SOURCE_KIND = "games"


@dataclass(frozen=True)
class FromGame:
    """A card a missed top asks for: its id, the round it came from (a club game's, or else a practice session's)
    and why the top was missed."""

    card_id: str
    round_id: int | None
    cause: str
    practice_round_id: int | None = None


def card_ids(lexicon: str, word: str, stem: str | None) -> list[str]:
    """The anagram card of a top's word and, for a bingo, the stem card of its stem (§7.12)."""
    ids = [make_id("anagram", lexicon, alphagram(word))]
    if stem:
        ids.append(make_id("stem", lexicon, alphagram(stem)))
    return ids


def games_deck(learner: Learner, lexicon: str) -> Deck | None:
    """The learner's "From my games" deck of ``lexicon``, if they have one."""
    return db.session.execute(
        select(Deck)
        .where(Deck.learner_id == learner.id, Deck.lexicon == lexicon, Deck.source["kind"].as_string() == SOURCE_KIND)
        .order_by(Deck.id)
        .limit(1)
    ).scalar_one_or_none()


def add(learner: Learner, lexicon: str, cards: Sequence[FromGame], deck_name: str) -> int:
    """Add ``cards`` (new, after the deck's others) to the learner's deck of ``lexicon``, made on first use as
    ``deck_name``; how many cards are new to the deck. Committed."""
    if not cards:
        return 0
    deck = games_deck(learner, lexicon)
    if deck is None:
        deck = Deck(learner_id=learner.id, name=deck_name[:80], lexicon=lexicon, source={"kind": SOURCE_KIND})
        db.session.add(deck)
        db.session.flush()
    rows = {
        row.card_id: row
        for row in db.session.execute(
            select(DeckCard).where(DeckCard.deck_id == deck.id, DeckCard.card_id.in_({c.card_id for c in cards}))
        ).scalars()
    }
    rank = int(db.session.execute(select(func.max(DeckCard.rank)).where(DeckCard.deck_id == deck.id)).scalar() or 0)
    added = 0
    for card in cards:
        row = rows.get(card.card_id)
        if row is None:
            rank += 1
            row = DeckCard(deck_id=deck.id, card_id=card.card_id, rank=rank, state=0)
            db.session.add(row)
            db.session.flush()
            rows[card.card_id] = row
            added += 1
        if card.round_id is not None:
            where = GameCard.round_id == card.round_id
            source = GameCard(deck_card_id=row.id, round_id=card.round_id, cause=card.cause)
        else:
            where = GameCard.practice_round_id == card.practice_round_id
            source = GameCard(deck_card_id=row.id, practice_round_id=card.practice_round_id, cause=card.cause)
        known = db.session.execute(select(GameCard.id).where(GameCard.deck_card_id == row.id, where)).first()
        if known is None:
            db.session.add(source)
    db.session.commit()
    return added


def rounds_of(deck_card_ids: Sequence[int]) -> dict[int, list[tuple[int | None, int | None, str]]]:
    """The rounds each card came from ({deck card id: [(club round id, practice round id, cause)]}, one of the two
    ids set), oldest first: the card's context."""
    found: dict[int, list[tuple[int | None, int | None, str]]] = {}
    if deck_card_ids:
        for row in db.session.execute(
            select(GameCard).where(GameCard.deck_card_id.in_(deck_card_ids)).order_by(GameCard.id)
        ).scalars():
            found.setdefault(row.deck_card_id, []).append((row.round_id, row.practice_round_id, row.cause))
    return found
