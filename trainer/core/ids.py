"""The ranges of the ids the database keeps, and the one check of an id a client sent.

An id a client sends (in a JSON body, a form, a URL) is looked up only when it is a whole number in its column's
range: beyond it the query overflows (SQLite's 64-bit integers, PostgreSQL's INTEGER), a 500 rather than a miss.
"""

from __future__ import annotations

MAX_ID = 2**31 - 1  # the largest id (and round number) an INTEGER column holds in PostgreSQL
MAX_GAME_ID = 2**53 - 1  # games and practice sessions have random ids up to here (games.models.new_game_id)


def row_id(value: object, maximum: int = MAX_ID) -> int | None:
    """``value`` as an id to look up (a JSON number from 1 to ``maximum``, never a bool), else None."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        return None
    return value


def game_id(value: object) -> int | None:
    """``value`` as a game's (or a practice session's) id to look up, else None."""
    return row_id(value, MAX_GAME_ID)
