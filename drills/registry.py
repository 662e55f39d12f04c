"""The drill types by name, like CTFd's challenge types: a card's id names its type, and the registry
finds the class that rebuilds the card and checks its answers.

A new drill is a :class:`drills.cards.DrillType` subclass registered at the bottom of this module. To
make decks of it, the deck form (``DECK_KINDS`` in :mod:`trainer.web.forms`) and the study service's
``cards_for`` (which cards a deck's source asks for) name it too.
"""

from __future__ import annotations

from collections.abc import Iterable

from trainer.engine.lexicon import Lexicon

from .cards import ANAGRAM, STEM, TWOS, Card, CardError, DrillType, Feedback, make_id, parse_id

DRILL_TYPES: dict[str, DrillType] = {}


def register(drill: DrillType) -> DrillType:
    """Add a drill type under its ``name`` (a second type of the same name is an error, not a swap)."""
    if drill.name in DRILL_TYPES and DRILL_TYPES[drill.name] is not drill:
        raise ValueError(f"a drill type named {drill.name!r} is registered already")
    DRILL_TYPES[drill.name] = drill
    return drill


def drill_type(name: str) -> DrillType:
    """The type called ``name``; :class:`CardError` naming the known ones otherwise."""
    try:
        return DRILL_TYPES[name]
    except KeyError:
        raise CardError(f"unknown drill type {name!r} (known: {', '.join(sorted(DRILL_TYPES))})") from None


def card_from_id(lexicon: Lexicon, card_id: str) -> Card:
    """Rebuild the card ``card_id`` from ``lexicon`` (which must be the lexicon the id names)."""
    type_name, lexicon_name, key = parse_id(card_id)
    if lexicon_name != lexicon.name:
        raise CardError(f"card {card_id!r} belongs to lexicon {lexicon_name!r}, not {lexicon.name!r}")
    return drill_type(type_name).card(lexicon, key)


def search(lexicon_name: str, text: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The ids of the cards of every drill type whose question is ``text`` or whose answers hold it, and
    patterns of further ids (``*`` any run of characters): what the card browser looks up in a deck."""
    ids: set[str] = set()
    patterns: list[str] = []
    for name, drill in DRILL_TYPES.items():
        found = drill.search(text)
        ids.update(make_id(name, lexicon_name, key) for key in found.keys)
        patterns.extend(make_id(name, lexicon_name, pattern) for pattern in found.patterns)
    return frozenset(ids), tuple(patterns)


def check(card: Card, answers: Iterable[str]) -> Feedback:
    """Right, wrong (with why) and missed answers of one attempt at ``card``."""
    return drill_type(card.type).check(card, answers)


for _drill in (ANAGRAM, STEM, TWOS):
    register(_drill)
