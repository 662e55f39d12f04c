"""Server-Sent Events of a game, read from its append-only ``event`` table (framing: :mod:`trainer.http.sse`).

``?quiet=1`` leaves out the per-player events (``joined``, ``submission``): a phone does not need
1,500 of them a round.

Under ``tirage serve`` the stream is served by the process's event hub (:mod:`trainer.live`), which
holds thousands of connections in one event loop. This Flask view is the same stream for the Flask
development server and the test client: it polls the table with a short-lived session each time and
ends after a bounded time, since each open stream holds a server thread.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator

from flask import Flask, Response, current_app, request, session
from flask.typing import ResponseReturnValue

from ..games import draws, tokens
from ..games.draws import DRAW_SHARED
from ..games.events import PRIVATE_KINDS, events_after
from ..http.auth import bearer
from ..http.session import PLAYER_TOKENS, login_id_in, session_token, session_tokens
from ..http.sse import (
    HEADERS,
    HEARTBEAT,
    HEARTBEAT_SECONDS,
    RETRY_MS,
    frame,
    quiet_arg,
    resume_from,
    revoked,
    seconds_arg,
)
from .common import asker_inside, bp, get_game, seen_game

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
    still_allowed: Callable[[], str | None] | None = None,
) -> Iterator[str]:
    """Every event after ``after`` as it is written, for ``timeout`` seconds; an ``outsider``'s stream ends when
    another game takes this game's draw (trainer.games.draws). ``still_allowed`` is asked after an event that may
    end a token (a removal, a rejoin) and at each heartbeat: None, the stream goes on; a reason, the stream says it
    (a ``revoked`` event, docs/rules.md §6.16) and ends; ``""``, it ends (a director's login that ended)."""
    yield f"retry: {RETRY_MS}\n\n"
    start = last_sent = time.monotonic()
    while True:
        # Every kind is read, the quiet ones left out here: a rejoin (a quiet kind) may end this stream's token.
        batch = events_after(app, game_id, after, False, BATCH)
        ask = False
        for shown in batch:
            after = shown["id"]
            ask = ask or shown["kind"] in tokens.TOKEN_ENDING_KINDS
            if outsider and shown["kind"] == DRAW_SHARED:
                return
            if not (quiet and shown["kind"] in PRIVATE_KINDS):
                yield frame(shown)
        now = time.monotonic()
        if batch:
            last_sent = now
        if (ask or now - last_sent >= heartbeat) and still_allowed is not None:
            reason = still_allowed()
            if reason is not None:
                if reason:
                    yield revoked(reason)
                return
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
    app: Flask = current_app._get_current_object()  # type: ignore[attr-defined]
    asker = draws.Asker(
        login_id_in(session), session_token(PLAYER_TOKENS, game_id), bearer(), session_tokens(PLAYER_TOKENS)
    )
    token_hash = tokens.player_token_hash(asker)
    retired = tokens.retired_reason(app, token_hash) if token_hash is not None else None
    if retired is not None and not asker_inside(get_game(game_id)):  # it says why at once, and ends (§6.16)
        return Response(f"retry: {RETRY_MS}\n\n{revoked(retired)}", mimetype="text/event-stream", headers=HEADERS)
    outsider = not asker_inside(seen_game(game_id))
    after = resume_from(request.headers.get("Last-Event-ID"), request.args.get("last_event_id"))
    timeout = seconds_arg("timeout", request.args.get("timeout"))
    quiet = quiet_arg(request.args.get("quiet"))
    poll = float(app.config.get("TIRAGE_SSE_POLL", POLL_SECONDS))
    heartbeat = float(app.config.get("TIRAGE_SSE_HEARTBEAT", HEARTBEAT_SECONDS))
    checked = None if outsider else functools.partial(tokens.still_allowed, app, game_id, asker, token_hash)
    return Response(
        stream(app, game_id, after, timeout, poll, heartbeat, quiet, outsider, checked),
        mimetype="text/event-stream",
        headers=HEADERS,
    )
