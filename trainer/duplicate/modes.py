"""Game modes by name, the way drill types are registered (:mod:`drills.registry`).

Classic duplicate (:mod:`.classic`) is the first. Another mode (topping, solo practice) is a
new module with a :class:`~.mode.Mode` subclass (usually of :class:`~.classic.Classic`), registered at the
bottom of this module; a game names its mode in its ``mode`` setting. Nothing else in the round
lifecycle changes.
"""

from __future__ import annotations

from .classic import CLASSIC
from .mode import Mode
from .topping import TOPPING

MODES: dict[str, Mode] = {}


def register(mode: Mode) -> Mode:
    """Add ``mode`` under its ``name`` (a second mode of the same name is an error, not a swap)."""
    if not mode.name:
        raise ValueError("a mode needs a name")
    if mode.name in MODES and MODES[mode.name] is not mode:
        raise ValueError(f"a mode named {mode.name!r} is registered already")
    MODES[mode.name] = mode
    return mode


def mode(name: str) -> Mode:
    """The mode called ``name``; ``ValueError`` naming the known ones otherwise."""
    try:
        return MODES[name]
    except KeyError:
        raise ValueError(f"unknown mode {name!r} (known: {', '.join(sorted(MODES))})") from None


for _mode in (CLASSIC, TOPPING):
    register(_mode)
