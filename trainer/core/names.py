"""Players' names as rooms show them (standings, the wall): one rule for games and walls."""

from __future__ import annotations

from .errors import Refused

MAX_NAME = 40


def player_name(name: object) -> str:
    """``name`` with its spaces collapsed; refused (``bad_name``) when empty, over 40 characters, or holding
    characters that cannot be shown (control characters: PostgreSQL cannot even store NUL)."""
    cleaned = " ".join(name.split()) if isinstance(name, str) else ""
    if not 1 <= len(cleaned) <= MAX_NAME or not cleaned.isprintable():
        raise Refused("bad_name", f"'name' must be 1 to {MAX_NAME} characters")
    return cleaned
