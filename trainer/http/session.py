"""Room tokens kept in the signed session cookie: a phone stays its player through reloads and lost
connections. One token per room joined, under :data:`PLAYER_TOKENS` (games) or :data:`WALL_TOKENS`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import session

PLAYER_TOKENS = "players"  # {game id: player token}
WALL_TOKENS = "wall_players"  # {wall id: player token}


def session_token(key: str, room_id: int) -> str | None:
    """The token this browser holds for room ``room_id`` under ``key``."""
    return token_in(session, key, room_id)


def token_in(session_data: Any, key: str, room_id: int) -> str | None:
    """The token a session's contents hold under ``key`` for ``room_id`` (a session read outside Flask too)."""
    tokens = session_data.get(key) if isinstance(session_data, Mapping) else None
    token = tokens.get(str(room_id)) if isinstance(tokens, dict) else None
    return token if isinstance(token, str) else None


def remember_token(key: str, room_id: int, token: str) -> None:
    """Keep a player's token in the session, so a reload or a closed tab brings the same player back."""
    tokens = session.get(key)
    tokens = dict(tokens) if isinstance(tokens, dict) else {}
    tokens[str(room_id)] = token
    session[key] = tokens
    session.permanent = True  # survives closing the browser, for the length of a club night and more
