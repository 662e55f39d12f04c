"""Player tokens that stopped working, and why (docs/rules.md §6.16).

A player's token stops working when a rejoin takes their place over on another phone or when the director
removes them. Each such token is kept (its hash, in ``retired_token``) with the reason, so that every path
answers the old phone with what happened, "This place was taken over by another phone" or "The director
removed you from this game" (401 ``taken_over`` / ``player_removed``), instead of "join the game again".
"""

from __future__ import annotations

from datetime import datetime

from flask import Flask
from sqlalchemy import select

from ..core.clock import utcnow
from ..core.codes import hash_token, is_player_token
from ..core.database import db
from ..core.errors import Refused
from . import draws
from .models import Player, RetiredToken

TAKEN_OVER = "taken_over"
REMOVED = "player_removed"
TOKEN_ENDING_KINDS = frozenset({"removed", "rejoined"})  # events after which a player's token may stop working


def refusal(reason: str) -> Refused:
    """What a token retired for ``reason`` is answered (401)."""
    if reason == TAKEN_OVER:
        return Refused(TAKEN_OVER, "this place was taken over by another phone: the new phone plays now")
    return Refused(REMOVED, "the director removed this player from the game")


def retire(player: Player, reason: str, now: datetime | None = None) -> None:
    """``player``'s token stops working for ``reason`` (the caller commits, with the change that retires it)."""
    retired = RetiredToken(token_hash=player.token_hash, game_id=player.game_id, reason=reason, at=now or utcnow())
    db.session.add(retired)


def reason_of_hash(token_hash: str) -> str | None:
    """Why the token of this hash stopped working; None for a token never retired (a live one, or none at all)."""
    return db.session.execute(select(RetiredToken.reason).where(RetiredToken.token_hash == token_hash)).scalar()


def why_retired(token: str | None) -> Refused | None:
    """The refusal for a player token that stopped working; None for any other (the caller says what it says)."""
    if not token:
        return None
    reason = reason_of_hash(hash_token(token))
    return refusal(reason) if reason is not None else None


def retired_reason(app: Flask, token_hash: str) -> str | None:
    """:func:`reason_of_hash` in an application context of its own (the event streams' threads)."""
    with app.app_context():
        return reason_of_hash(token_hash)


def player_token_hash(asker: draws.Asker) -> str | None:
    """The hash of the player token a stream is opened with (the page's, or a bearer token of a player's shape; a
    director's signed token has not), so that the stream ends when the token stops working."""
    token = asker.player_token or (asker.bearer if asker.bearer and is_player_token(asker.bearer) else None)
    return hash_token(token) if token else None


def still_allowed(app: Flask, game_id: int, asker: draws.Asker, token_hash: str | None) -> str | None:
    """Whether a stream opened from inside ``game_id`` (its director, or a player with the token of ``token_hash``)
    may go on: None if so; the reason its player token stopped working; ``""`` when it is no longer inside for any
    other reason (a director's login ended or their password changed: their tokens with it). Its own context."""
    if token_hash is not None:
        reason = retired_reason(app, token_hash)
        if reason is not None:
            return reason
    return None if draws.viewer(app, game_id, asker) == "inside" else ""
