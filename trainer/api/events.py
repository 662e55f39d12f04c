"""Server-Sent Events of a game, read from its append-only ``event`` table.

The table is the truth and its ids are the SSE ids, so a client that reconnects with
``Last-Event-ID`` (the browser sends it by itself) gets exactly what it missed, whichever
process wrote it. ``?quiet=1`` leaves out the per-player events (``joined``, ``submission``): a
phone does not need 1,500 of them a round.

Under ``tirage serve`` the stream is served by the process's event hub (:mod:`trainer.live`),
which holds thousands of connections in one event loop. This Flask view is the same stream for
the Flask development server and the test client: it polls the table with a short-lived session
each time and ends after a bounded time, since each open stream holds a server thread.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

from flask import Flask, Response, current_app, request
from flask.typing import ResponseReturnValue
from sqlalchemy import select

from ..extensions import db
from ..games.models import Event
from ..games.service import GameError
from . import present
from .common import MAX_ID, bp, get_game

DEFAULT_TIMEOUT = 300.0  # seconds a stream stays open; clients reconnect
MAX_TIMEOUT = 600.0
POLL_SECONDS = 0.5
HEARTBEAT_SECONDS = 15.0
RETRY_MS = 2000  # how long a browser waits before reconnecting
BATCH = 200
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}  # nginx must not buffer the stream
PRIVATE_KINDS = frozenset(present.PRIVATE_EVENTS)


def seconds_arg(name: str, text: str | None, default: float = DEFAULT_TIMEOUT, high: float = MAX_TIMEOUT) -> float:
    if text is None or text == "":
        return default
    try:
        value = float(text)
    except ValueError:
        raise GameError(f"'{name}' must be a number of seconds", 400) from None
    if not 0 <= value <= high:
        raise GameError(f"'{name}' must be from 0 to {high:g} seconds", 400)
    return value


def resume_from(header: str | None, arg: str | None) -> int:
    """Where to resume: the ``Last-Event-ID`` header (sent by browsers) or ``?last_event_id=``."""
    text = (header or arg or "0").strip()
    if not re.fullmatch(r"[0-9]{1,10}", text) or int(text) > MAX_ID:
        raise GameError("Last-Event-ID must be the id of an event, a whole number", 400)
    return int(text)


def quiet_arg(text: str | None) -> bool:
    if text in (None, "", "0", "false"):
        return False
    if text in ("1", "true"):
        return True
    raise GameError("'quiet' must be 1 or 0", 400)


def fetch(app: Flask, game_id: int, after: int, quiet: bool = False, limit: int = BATCH) -> list[dict[str, Any]]:
    """Events of the game after ``after``, in a session of its own that ends with this call."""
    query = select(Event).where(Event.game_id == game_id, Event.id > after)
    if quiet:
        query = query.where(Event.kind.not_in(PRIVATE_KINDS))
    with app.app_context():  # Flask-SQLAlchemy removes the context's session when it ends
        rows = db.session.execute(query.order_by(Event.id).limit(limit)).scalars()
        return [present.event(row) for row in rows]


def frame(shown: dict[str, Any]) -> str:
    return f"id: {shown['id']}\nevent: {shown['kind']}\ndata: {json.dumps(shown, separators=(',', ':'))}\n\n"


def stream(
    app: Flask, game_id: int, after: int, timeout: float, poll: float, heartbeat: float, quiet: bool = False
) -> Iterator[str]:
    """Every event after ``after`` as it is written, for ``timeout`` seconds."""
    yield f"retry: {RETRY_MS}\n\n"
    start = last_sent = time.monotonic()
    while True:
        batch = fetch(app, game_id, after, quiet)
        for shown in batch:
            yield frame(shown)
            after = shown["id"]
        now = time.monotonic()
        if batch:
            last_sent = now
            if len(batch) == BATCH:
                continue  # more are waiting: no need to sleep
        if now - start >= timeout:
            return
        if now - last_sent >= heartbeat:
            yield ": heartbeat\n\n"
            last_sent = now
        time.sleep(max(0.0, min(poll, timeout - (now - start))))


@bp.get("/games/<id:game_id>/events")
def events(game_id: int) -> ResponseReturnValue:
    get_game(game_id)
    after = resume_from(request.headers.get("Last-Event-ID"), request.args.get("last_event_id"))
    timeout = seconds_arg("timeout", request.args.get("timeout"))
    quiet = quiet_arg(request.args.get("quiet"))
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    poll = float(app.config.get("TIRAGE_SSE_POLL", POLL_SECONDS))
    heartbeat = float(app.config.get("TIRAGE_SSE_HEARTBEAT", HEARTBEAT_SECONDS))
    return Response(
        stream(app, game_id, after, timeout, poll, heartbeat, quiet), mimetype="text/event-stream", headers=HEADERS
    )
