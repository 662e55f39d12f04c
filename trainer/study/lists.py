"""Editing the list of a deck made from words (docs/rules.md §7.14): words added become new cards, cards removed
go with their review log once the learner has confirmed it.

A deck made from a word list or a Zyzzyva cardbox holds anagram cards, one per alphagram: adding RETAINS adds the
card AEINRST (unless the deck has it), in its probability place among the new cards; removing NASTIER removes the
same card, with every word it asks for. A generated deck (alphagrams by rank, stems, twos) is the list its
settings make: it is not edited, a new deck is made instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, select

from drills.cards import ANAGRAM, make_id, split_answers
from drills.probability import MAX_LENGTH, MIN_LENGTH, alphagram
from drills.scheduling import CardState

from ..core.database import db
from ..core.errors import Refused
from .browser import review_counts
from .builder import builder
from .models import Deck, DeckCard, Review
from .service import MAX_CARDS, _check_cards, _store_cards, cards_for

EDITABLE = ("words", "cardbox")  # deck sources whose list the learner edits
MAX_ADDED_TEXT = 200_000  # characters of words added at once (a deck's own list may be much longer)


def editable(deck: Deck) -> bool:
    return deck.source.get("kind") in EDITABLE


def _check_editable(deck: Deck) -> None:
    if not editable(deck):
        raise Refused("list_not_editable", "this deck's cards come from its settings: make a new deck instead")


@dataclass(frozen=True, slots=True)
class Added:
    """Cards added (their ids, in the deck's order), words whose card the deck had already, lines left out."""

    card_ids: list[str]
    present: int
    skipped: list[tuple[str, str]]


def add_words(deck: Deck, text: str) -> Added:
    """New cards for the words of ``text`` (one or more a line, as when a deck is made) that the deck lacks.

    Under the server the cards are worked out by the deck builder's worker process (the probability tables are
    its), as a new deck's would be; elsewhere in place. Committed on return.
    """
    _check_editable(deck)
    if len(text) > MAX_ADDED_TEXT:
        raise Refused("words_too_long", f"add at most {MAX_ADDED_TEXT} characters of words at once", n=MAX_ADDED_TEXT)
    source: dict[str, Any] = {"kind": "words", "text": text}
    worker = builder()
    if worker is not None:
        ranks, skipped = worker.build(deck.lexicon, source)
    else:
        cards, skipped = cards_for(deck.lexicon, source)
        ranks = [(card.id, card.rank if card.rank is not None else n) for n, card in enumerate(cards)]
    held = set(
        db.session.execute(
            select(DeckCard.card_id).where(
                DeckCard.deck_id == deck.id, DeckCard.card_id.in_([card_id for card_id, _ in ranks])
            )
        ).scalars()
    )
    states = [CardState(card_id, rank) for card_id, rank in ranks if card_id not in held]
    if states:
        _check_cards(deck.learner, states)
        in_deck = db.session.execute(select(func.count(DeckCard.id)).where(DeckCard.deck_id == deck.id)).scalar_one()
        if int(in_deck) + len(states) > MAX_CARDS:
            raise Refused("deck_too_big", f"a deck holds at most {MAX_CARDS} cards", n=MAX_CARDS)
        _store_cards(deck, states)
        db.session.commit()
    return Added([state.card_id for state in states], len(ranks) - len(states), list(skipped))


@dataclass(frozen=True, slots=True)
class Named:
    """The deck's cards that words name, with their reviews (what removing them deletes), and the words that
    name no card of the deck."""

    cards: list[tuple[DeckCard, int]]
    unknown: list[str]


def cards_named(deck: Deck, text: str) -> Named:
    """The cards of the deck that the words (or alphagrams) of ``text`` name, in the deck's order."""
    _check_editable(deck)
    wanted: dict[str, list[str]] = {}
    for word in split_answers(text.splitlines()):
        letters = "".join(ch for ch in word if ch.isalpha())
        if MIN_LENGTH <= len(letters) <= MAX_LENGTH:
            wanted.setdefault(make_id(ANAGRAM.name, deck.lexicon, alphagram(letters)), []).append(word)
        else:
            wanted.setdefault("", []).append(word)
    rows = list(
        db.session.execute(
            select(DeckCard)
            .where(DeckCard.deck_id == deck.id, DeckCard.card_id.in_([key for key in wanted if key]))
            .order_by(DeckCard.rank, DeckCard.id)
        ).scalars()
    )
    found = {row.card_id for row in rows}
    unknown = [word for key, words in wanted.items() if key not in found for word in words]
    counts = review_counts([row.id for row in rows])
    return Named([(row, counts.get(row.id, (0, 0))[0]) for row in rows], unknown)


def remove_cards(deck: Deck, deck_card_ids: list[int]) -> tuple[int, int]:
    """Delete these cards of the deck and every review of them (undone ones too): the learner confirmed it after
    being told how many reviews go. Returns (cards, reviews) deleted; committed on return."""
    _check_editable(deck)
    ids = list(
        db.session.execute(
            select(DeckCard.id).where(DeckCard.deck_id == deck.id, DeckCard.id.in_(deck_card_ids))
        ).scalars()
    )
    if not ids:
        return 0, 0
    reviews = db.session.execute(delete(Review).where(Review.deck_card_id.in_(ids)))
    cards = db.session.execute(delete(DeckCard).where(DeckCard.id.in_(ids)))
    db.session.commit()
    return int(getattr(cards, "rowcount", 0) or 0), int(getattr(reviews, "rowcount", 0) or 0)
