"""Server-Sent Events of a game, read from its append-only ``event`` table (framing: :mod:`trainer.http.sse`).

``?quiet=1`` leaves out the per-player events (``joined``, ``submission``): a phone does not need
1,500 of them a round.

Under ``tirage serve`` the stream is served by the process's event hub (:mod:`trainer.live`), which
holds thousands of connections in one event loop. This Flask view is the same stream for the Flask
development server and the test client: it polls the table with a short-lived session each time and
ends after a bounded time, since each open stream holds a server thread.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from flask import Flask, Response, current_app, request
from flask.typing import ResponseReturnValue

from ..games.draws import DRAW_SHARED
from ..games.events import events_after
from ..http.sse import HEADERS, HEARTBEAT, HEARTBEAT_SECONDS, RETRY_MS, frame, quiet_arg, resume_from, seconds_arg
from .common import asker_inside, bp, seen_game

POLL_SECONDS = 0.5
BATCH = 200


def stream(
    app: Flask,
    game_id: int,
    after: int,
    timeout: float,
    poll: float,
    heartbeat: float,
    quiet: bool = False,
    outsider: bool = False,
) -> Iterator[str]:
    """Every event after ``after`` as it is written, for ``timeout`` seconds; an ``outsider``'s stream ends when
    another game takes this game's draw (trainer.games.draws)."""
    yield f"retry: {RETRY_MS}\n\n"
    start = last_sent = time.monotonic()
    while True:
        batch = events_after(app, game_id, after, quiet, BATCH)
        for shown in batch:
            if outsider and shown["kind"] == DRAW_SHARED:
                return
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
            yield HEARTBEAT
            last_sent = now
        time.sleep(max(0.0, min(poll, timeout - (now - start))))


@bp.get("/games/<game_id:game_id>/events")
def events(game_id: int) -> ResponseReturnValue:
    outsider = not asker_inside(seen_game(game_id))
    after = resume_from(request.headers.get("Last-Event-ID"), request.args.get("last_event_id"))
    timeout = seconds_arg("timeout", request.args.get("timeout"))
    quiet = quiet_arg(request.args.get("quiet"))
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    poll = float(app.config.get("TIRAGE_SSE_POLL", POLL_SECONDS))
    heartbeat = float(app.config.get("TIRAGE_SSE_HEARTBEAT", HEARTBEAT_SECONDS))
    return Response(
        stream(app, game_id, after, timeout, poll, heartbeat, quiet, outsider),
        mimetype="text/event-stream",
        headers=HEADERS,
    )
