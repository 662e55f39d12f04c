"""The ASGI application ``tirage serve`` runs (built by :mod:`trainer.server`): uvicorn in front, what a whole
room asks at once answered in the event loop.

``GET /api/games/<id>/events`` is answered here, by the process's :class:`~.hub.EventHub`: an open
stream costs a queue and a coroutine, not a thread, so one process holds thousands. Plays handed in
through the API (``POST /api/games/<id>/rounds/<n>/plays``) and each phone's reveal
(``GET .../rounds/<n>/me``) are taken by the process's :class:`~.plays.PlayDesk`, which writes a burst
of plays in one transaction; the phone page's fragment (``GET /play/<id>/live``) by
:class:`~.pages.PhonePages`. Every other request goes to the Flask application through a2wsgi's thread
pool, unchanged. While it serves, the process's garbage collector follows :mod:`.collector`: no full
collection in the middle of a round's rush.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs

from a2wsgi import WSGIMiddleware
from flask import Flask

from ..core.errors import Refused
from ..core.lexicons import lexicon_store
from ..games.cache import UNVERSIONED_KINDS
from ..games.events import events_after, game_exists
from ..http.errors import status_of
from ..http.fragments import RoomRenderer
from ..http.headers import header_pairs
from ..http.ids import MAX_ID
from ..http.sse import HEADERS, RETRY_MS, frame, quiet_arg, resume_from, seconds_arg
from .asgi_tools import Receive, Scope, Send
from .collector import Collector
from .hub import EventHub
from .pages import LIVE_PATH, PhonePages
from .plays import MY_ROUND_PATH, PLAYS_PATH, PlayDesk

EVENTS_PATH = re.compile(r"/api/games/([0-9]{1,12})/events/?")
HEARTBEAT_SECONDS = 15.0
CATCH_UP_LIMIT = 100_000
DEFAULT_THREADS = 16
log = logging.getLogger(__name__)


class TirageASGI:
    """The ASGI application of one web process."""

    def __init__(self, app: Flask, renderer: RoomRenderer, threads: int = DEFAULT_THREADS) -> None:
        self.flask = app
        self.wsgi = WSGIMiddleware(app, workers=threads)  # type: ignore[arg-type]
        self.hub = EventHub(app, poll=app.config.get("TIRAGE_LIVE_POLL"), redis_url=app.config.get("TIRAGE_REDIS_URL"))
        self.desk = PlayDesk(app, self.wsgi, self.hub)  # type: ignore[arg-type]
        self.pages = PhonePages(app, self.wsgi, self.desk, renderer)  # type: ignore[arg-type]
        self.https = bool(app.config.get("TIRAGE_HTTPS"))
        self.heartbeat = float(app.config.get("TIRAGE_SSE_HEARTBEAT", HEARTBEAT_SECONDS))
        self._deadlines: dict[Any, float] = {}
        self._heartbeat_task: asyncio.Task[None] | None = None
        self.requests = 0  # received so far: the collector waits for a quiet moment
        self.collector = Collector(lambda: self.requests)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        self.requests += 1
        if scope["type"] == "http" and scope["method"] == "GET":
            match = EVENTS_PATH.fullmatch(scope["path"])
            if match is not None:
                await self._events(int(match[1]), scope, receive, send)
                return
        if scope["type"] == "http" and scope["method"] == "POST" and PLAYS_PATH.fullmatch(scope["path"]):
            await self.desk.play(scope, receive, send)
            return
        if scope["type"] == "http" and scope["method"] == "GET" and MY_ROUND_PATH.fullmatch(scope["path"]):
            await self.desk.my_round(scope, receive, send)
            return
        if scope["type"] == "http" and scope["method"] == "GET" and LIVE_PATH.fullmatch(scope["path"]):
            await self.pages.live(scope, receive, send)
            return
        await self.wsgi(scope, receive, send)  # type: ignore[arg-type]

    # ------------------------------------------------------------ start and stop

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.hub.start()
                    self.desk.start()
                    self._heartbeat_task = asyncio.create_task(self._heartbeats(), name="sse-heartbeats")
                    threading.Thread(target=_warm_lexicons, args=(self.flask,), daemon=True).start()
                    self.collector.start()
                except Exception as error:
                    await send({"type": "lifespan.startup.failed", "message": str(error)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.collector.stop()
                if self._heartbeat_task is not None:
                    self._heartbeat_task.cancel()
                await self.hub.stop()
                await asyncio.to_thread(self.desk.stop)  # the plays waiting are written first
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _heartbeats(self) -> None:
        """A comment on every stream every ``heartbeat`` seconds (proxies keep the connection); end streams
        whose time is up (clients reconnect with Last-Event-ID)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.heartbeat)
            now = loop.time()
            for streams in list(self.hub.streams.values()):
                for stream in list(streams):
                    if self._deadlines.get(stream, now + 1) <= now:
                        stream.close()
                    else:
                        stream.offer(0, b": heartbeat\n\n")

    # ------------------------------------------------------------ the event stream

    async def _events(self, game_id: int, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
        query = {key: values[-1] for key, values in parse_qs(scope["query_string"].decode("latin-1")).items()}
        try:
            if game_id > MAX_ID or not await asyncio.to_thread(game_exists, self.flask, game_id):
                raise Refused("no_game", f"no game has the id {game_id}")
            after = resume_from(headers.get("last-event-id"), query.get("last_event_id"))
            timeout = seconds_arg("timeout", query.get("timeout"))
            quiet = quiet_arg(query.get("quiet"))
        except Refused as error:
            await _json_error(send, status_of(error), str(error), self.https)
            return

        stream = self.hub.subscribe(game_id, quiet)  # before the catch-up read, so nothing falls between
        loop = asyncio.get_running_loop()
        self._deadlines[stream] = loop.time() + timeout
        watcher = asyncio.create_task(_watch_disconnect(receive, stream.close))
        try:
            caught_up = await asyncio.to_thread(events_after, self.flask, game_id, after, quiet, CATCH_UP_LIMIT)
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [
                        (b"content-type", b"text/event-stream; charset=utf-8"),
                        *header_pairs(HEADERS, self.https),
                    ],
                }
            )
            sent = {shown["id"] for shown in caught_up}
            for shown in caught_up:  # the client will know of these: reads of this process must too
                if shown["kind"] not in UNVERSIONED_KINDS:
                    self.hub.note_version(game_id, shown["id"])
            body = f"retry: {RETRY_MS}\n\n" + "".join(frame(shown) for shown in caught_up)
            await send({"type": "http.response.body", "body": body.encode(), "more_body": True})
            if timeout > 0:
                while (item := await stream.queue.get()) is not None:
                    event_id, data = item
                    if event_id and (event_id <= after or event_id in sent):
                        continue  # already sent by the catch-up read
                    await send({"type": "http.response.body", "body": data, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the client went away while we wrote
        finally:
            watcher.cancel()
            self.hub.unsubscribe(stream)
            self._deadlines.pop(stream, None)


async def _watch_disconnect(receive: Receive, on_disconnect: Callable[[], None]) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    on_disconnect()


async def _json_error(send: Send, status: int, message: str, https: bool) -> None:
    body = json.dumps({"error": message}).encode()
    headers = {"Content-Type": "application/json", "Content-Length": str(len(body))}
    await send({"type": "http.response.start", "status": status, "headers": header_pairs(headers, https)})
    await send({"type": "http.response.body", "body": body})


def _warm_lexicons(app: Flask) -> None:
    """Load (on a fresh install, build) every lexicon now so the first game does not wait for its graphs."""
    store = lexicon_store(app)
    for name in store.catalogue():
        with contextlib.suppress(ValueError, OSError):  # a broken imported list shows up when used
            store.load(name)
