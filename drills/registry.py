"""The drill types by name, like CTFd's challenge types: a deck or a page names a type, the registry
finds the class that builds its cards and checks its answers. A new drill is a new
:class:`drills.cards.DrillType` subclass passed to :func:`register`; nothing else changes.
"""

from __future__ import annotations

from collections.abc import Iterable

from trainer.engine.lexicon import Lexicon

from .cards import ANAGRAM, STEM, TWOS, Card, CardError, DrillType, Feedback, parse_id

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


def check(card: Card, answers: Iterable[str]) -> Feedback:
    """Right, wrong (with why) and missed answers of one attempt at ``card``."""
    return drill_type(card.type).check(card, answers)


for _drill in (ANAGRAM, STEM, TWOS):
    register(_drill)
