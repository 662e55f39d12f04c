"""Tell event hubs that a game has new events, once the transaction that wrote them has committed.

Wake-ups carry only a game id; hubs then read the events from the database, so a lost wake-up
(Redis restarted, or no Redis at all) only delays delivery until the hub's next poll.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from flask import Flask, current_app, has_app_context
from sqlalchemy import event
from sqlalchemy.orm import Session

from ..core.database import db
from .models import Event
from .service import EVENTS_WRITTEN_KEY

CHANNEL = "tirage:events"
REDIS_KEY = "tirage.redis"
LISTENERS_KEY = "tirage.event_listeners"
_PENDING = EVENTS_WRITTEN_KEY  # key in Session.info: games whose events this transaction wrote
log = logging.getLogger(__name__)

Listener = Callable[[int], None]


def add_listener(app: Flask, listener: Listener) -> None:
    """Call ``listener(game_id)`` after each commit of ``app`` in this process that wrote events of that game."""
    app.extensions.setdefault(LISTENERS_KEY, []).append(listener)


def remove_listener(app: Flask, listener: Listener) -> None:
    listeners: list[Listener] = app.extensions.get(LISTENERS_KEY, [])
    if listener in listeners:
        listeners.remove(listener)


def _note_events(session: Session, _context: Any, _instances: Any) -> None:
    games = {obj.game_id for obj in session.new if isinstance(obj, Event)}
    if games:
        session.info.setdefault(_PENDING, set()).update(games)


def _forget(session: Session) -> None:
    session.info.pop(_PENDING, None)


def _after_commit(session: Session) -> None:
    games: set[int] | None = session.info.pop(_PENDING, None)
    if not games or not has_app_context():
        return
    extensions = current_app.extensions
    for listener in list(extensions.get(LISTENERS_KEY, ())):
        for game_id in games:
            listener(game_id)
    client = extensions.get(REDIS_KEY)
    if client is None:
        return
    try:
        for game_id in games:
            client.publish(CHANNEL, str(game_id))
    except Exception:  # Redis down: the hubs' poll still delivers, a little later
        log.warning("could not publish to Redis; event hubs will find the events by polling", exc_info=True)


def init_app(app: Flask) -> None:
    """Watch commits for events; publish wake-ups to Redis when ``TIRAGE_REDIS_URL`` is set."""
    url = app.config.get("TIRAGE_REDIS_URL")
    if url:
        import redis

        app.extensions[REDIS_KEY] = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
    session_class = db.session.session_factory.class_  # Flask-SQLAlchemy's Session class, shared by all apps
    if not event.contains(session_class, "after_commit", _after_commit):
        event.listen(session_class, "before_flush", _note_events)
        event.listen(session_class, "after_soft_rollback", lambda session, _previous: _forget(session))
        event.listen(session_class, "after_commit", _after_commit)
