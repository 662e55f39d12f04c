"""Join codes that rooms show on the screen, and the tokens that keep a player in their room.

One generator for every kind of room (duplicate games, word walls): each service registers the
column that holds its rooms' codes (:func:`register_code_column`), and a new code is one that no
room of any kind has, so a phone that types a code on either join page is never misled.

A player's token is random and shown once; only its SHA-256 is stored.
"""

from __future__ import annotations

import hashlib
import secrets
import string
from typing import Any

from sqlalchemy import select

from .database import db
from .errors import Refused

JOIN_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread on a projector
JOIN_CODE_LENGTH = 6
CODE_TRIES = 20  # with 32**6 codes, 20 misses in a row means something else is wrong

_code_columns: list[Any] = []  # the mapped columns holding rooms' join codes (games, walls)


def register_code_column(column: Any) -> None:
    """Count the codes of ``column`` (a mapped ``join_code`` attribute) as taken (called when a model is defined)."""
    if column not in _code_columns:
        _code_columns.append(column)


def code_taken(code: str) -> bool:
    return any(db.session.execute(select(column).where(column == code)).first() is not None for column in _code_columns)


def new_join_code() -> str:
    """A code no room has, for a new room; ``no_code`` when none was found (the caller's commit may still
    race another room's: it answers ``no_code`` too)."""
    for _ in range(CODE_TRIES):
        code = "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))
        if not code_taken(code):
            return code
    raise Refused("no_code", "no free join code: try again")


def new_rejoin_code() -> str:
    """A code a player types to take their place again on a new phone: a join code's letters, one more of them
    (it is only ever looked up by its hash, and lives ten minutes)."""
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH + 1))


def typed_code(code: object) -> str:
    """A join code as a player typed it: spaces trimmed, upper case, at most twice a code's length
    (a code longer than that names no room, and is not echoed back whole)."""
    return code.strip().upper()[: 2 * JOIN_CODE_LENGTH] if isinstance(code, str) else ""


PLAYER_TOKEN_LENGTH = 32  # 24 bytes in URL-safe base64
TOKEN_ALPHABET = frozenset(string.ascii_letters + string.digits + "-_")


def new_token() -> str:
    """A player's token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def is_player_token(text: str) -> bool:
    """Whether ``text`` has the shape of :func:`new_token`'s tokens (a director's signed token has not)."""
    return len(text) == PLAYER_TOKEN_LENGTH and all(ch in TOKEN_ALPHABET for ch in text)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
