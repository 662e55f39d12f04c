"""Ids and numbers in URLs and forms: only what a database integer column holds.

A larger number is a 404 (in a URL) or missing (in a form), never an overflow in the query (a 500).
"""

from __future__ import annotations

import re

from flask import Flask
from werkzeug.routing import IntegerConverter, Map

from ..core.ids import MAX_GAME_ID, MAX_ID

__all__ = ["GAME_ID_DIGITS", "MAX_GAME_ID", "MAX_ID", "init_app", "posted_game_id", "posted_number"]

GAME_ID_DIGITS = r"[1-9][0-9]{0,15}"  # a game id in a path, for the fast paths' patterns
_DIGITS = re.compile(r"[0-9]{1,10}")


class IdConverter(IntegerConverter):
    """``<id:name>`` in a route: a positive id that fits a database integer."""

    def __init__(self, map: Map) -> None:
        super().__init__(map, min=1, max=MAX_ID)


class GameIdConverter(IntegerConverter):
    """``<game_id:name>`` in a route: a positive number that fits a game id (a BIGINT column)."""

    def __init__(self, map: Map) -> None:
        super().__init__(map, min=1, max=MAX_GAME_ID)


def posted_number(value: object) -> int | None:
    """A whole number a form posted (a round, a player, a card): ASCII digits that fit a database integer.

    Not ``str.isdigit``: it takes "²", which ``int`` refuses (a 500), and a huge number overflows the
    database's integer (a 500 too). Anything else is None, for the view to treat as missing.
    """
    text = str(value if value is not None else "").strip()
    if not _DIGITS.fullmatch(text) or int(text) > MAX_ID:
        return None
    return int(text)


def posted_game_id(value: object) -> int | None:
    """A game's id a form posted (games have random ids up to 2**53, beyond :func:`posted_number`'s range)."""
    text = str(value if value is not None else "").strip()
    if not re.fullmatch(GAME_ID_DIGITS, text) or int(text) > MAX_GAME_ID:
        return None
    return int(text)


def init_app(app: Flask) -> None:
    app.url_map.converters["id"] = IdConverter
    app.url_map.converters["game_id"] = GameIdConverter
