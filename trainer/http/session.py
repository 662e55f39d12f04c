"""Room tokens kept in the signed session cookie: a phone stays its player through reloads and lost
connections. One token per room joined, under :data:`PLAYER_TOKENS` (games) or :data:`WALL_TOKENS`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask, session
from itsdangerous import BadSignature
from werkzeug.http import parse_cookie

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


def session_tokens(key: str) -> tuple[str, ...]:
    """Every token this browser holds under ``key``: its places in every room it joined."""
    return tokens_in(session, key)


def tokens_in(session_data: Any, key: str) -> tuple[str, ...]:
    """Every token a session's contents hold under ``key`` (a session read outside Flask too)."""
    tokens = session_data.get(key) if isinstance(session_data, Mapping) else None
    return tuple(t for t in tokens.values() if isinstance(t, str)) if isinstance(tokens, dict) else ()


def remember_token(key: str, room_id: int, token: str) -> None:
    """Keep a player's token in the session, so a reload or a closed tab brings the same player back."""
    tokens = session.get(key)
    tokens = dict(tokens) if isinstance(tokens, dict) else {}
    tokens[str(room_id)] = token
    session[key] = tokens
    session.permanent = True  # survives closing the browser, for the length of a club night and more


class SessionCookie:
    """The signed session cookie of a request read outside Flask (the event loop's fast paths), checked with the
    application's own signer: a forged or expired cookie reads as no session."""

    def __init__(self, app: Flask) -> None:
        self._signer: Any = app.session_interface.get_signing_serializer(app)  # type: ignore[attr-defined]
        self._max_age = int(app.permanent_session_lifetime.total_seconds())
        self.name = str(app.config.get("SESSION_COOKIE_NAME", "session"))

    def read(self, cookie: str | None) -> Mapping[str, Any]:
        """The session a cookie's value holds, or an empty one."""
        if not cookie:
            return {}
        try:
            contents = self._signer.loads(cookie, max_age=self._max_age)
        except (BadSignature, ValueError, TypeError):
            return {}
        return contents if isinstance(contents, Mapping) else {}

    def from_header(self, header: str) -> Mapping[str, Any]:
        """The session of a ``Cookie`` header (werkzeug's parser, as Flask reads it)."""
        return self.read(parse_cookie(header).get(self.name))


def login_id_in(session_data: Mapping[str, Any]) -> str | None:
    """The login a session holds (Flask-Login's ``_user_id``: ``director:<id>:<key>``), to check against the
    logins table (trainer.core.accounts.login_of)."""
    user_id = session_data.get("_user_id")
    return user_id if isinstance(user_id, str) and user_id else None
