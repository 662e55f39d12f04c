"""Reading a game's event log as clients see it (the event stream, its catch-up after a reconnection)."""

from __future__ import annotations

from typing import Any

from flask import Flask
from sqlalchemy import select

from ..core.database import db
from . import present
from .models import Event, Game

PRIVATE_KINDS = frozenset(present.PRIVATE_EVENTS)


def events_after(app: Flask, game_id: int, after: int, quiet: bool, limit: int) -> list[dict[str, Any]]:
    """Events of the game after ``after`` as streamed (:func:`present.event`), at most ``limit``; without the
    per-player ones when ``quiet``. In a session of its own that ends with this call (streams run outside
    any request)."""
    query = select(Event).where(Event.game_id == game_id, Event.id > after)
    if quiet:
        query = query.where(Event.kind.not_in(PRIVATE_KINDS))
    with app.app_context():  # Flask-SQLAlchemy removes the context's session when it ends
        rows = db.session.execute(query.order_by(Event.id).limit(limit)).scalars()
        return [present.event(row) for row in rows]


def game_exists(app: Flask, game_id: int) -> bool:
    with app.app_context():
        return db.session.get(Game, game_id) is not None
