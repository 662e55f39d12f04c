"""The ASGI application ``tirage serve`` runs (built by :mod:`trainer.server`): uvicorn in front, what a whole
room asks at once answered in the event loop.

Every request's body is first read whole, in time and within its limit, by :mod:`.door`. Then
``GET /api/games/<id>/events`` is answered by :mod:`.streams`, fed by the process's
:class:`~.hub.EventHub`: an open stream costs a queue and a coroutine, not a thread, so one process holds
thousands. Plays handed in through the API (``POST /api/games/<id>/rounds/<n>/plays``) and each phone's
reveal (``GET .../rounds/<n>/me``) are taken by the process's :class:`~.plays.PlayDesk`, which writes a
burst of plays in one transaction; the phone page's fragment (``GET /play/<id>/live``) by
:class:`~.pages.PhonePages`. Every other request goes to the Flask application through a2wsgi's thread
pool, unchanged. While it serves, the process's garbage collector follows :mod:`.collector`: no full
collection in the middle of a round's rush.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import threading
import time

from a2wsgi import WSGIMiddleware
from flask import Flask

from ..core.lexicons import lexicon_store
from ..games import analyst
from ..http.fragments import RoomRenderer
from ..http.ids import GAME_ID_DIGITS
from ..study import builder
from .asgi_tools import Receive, Scope, Send
from .collector import Collector
from .door import Door
from .hub import EventHub
from .pages import LIVE_PATH, PhonePages
from .plays import MY_ROUND_PATH, PLAYS_PATH, PlayDesk
from .streams import EventStreams

EVENTS_PATH = re.compile(rf"/api/games/({GAME_ID_DIGITS})/events/?")
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
        self.streams = EventStreams(app, self.hub)
        self.door = Door(app.config.get("TIRAGE_BODY_SECONDS"))
        self.requests = 0  # received so far: the collector waits for a quiet moment
        self.collector = Collector(lambda: self.requests)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        self.requests += 1
        if scope["type"] == "http":
            entered = await self.door.enter(scope, receive)
            if entered is None:
                return  # the client went away before its body was whole
            receive = entered
        if scope["type"] == "http" and scope["method"] == "GET":
            match = EVENTS_PATH.fullmatch(scope["path"])
            if match is not None:
                await self.streams.serve(int(match[1]), scope, receive, send)
                return
        if scope["type"] == "http" and scope["method"] == "POST" and PLAYS_PATH.fullmatch(scope["path"]):
            self.streams.rush.play_seen(time.time())  # catch-ups make way while plays come in
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
                    self.streams.start()
                    threading.Thread(target=_warm_lexicons, args=(self.flask,), daemon=True).start()
                    self.collector.start()
                except Exception as error:
                    await send({"type": "lifespan.startup.failed", "message": str(error)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.collector.stop()
                self.streams.stop()
                await self.hub.stop()
                await asyncio.to_thread(self.desk.stop)  # the plays waiting are written first
                for key in (analyst.KEY, analyst.PRACTICE_KEY, builder.KEY):  # the worker processes go with the server
                    worker = self.flask.extensions.get(key)
                    if worker is not None:
                        await asyncio.to_thread(worker.stop)
                await send({"type": "lifespan.shutdown.complete"})
                return


def _warm_lexicons(app: Flask) -> None:
    """Load (on a fresh install, build) every lexicon now so the first game does not wait for its graphs."""
    store = lexicon_store(app)
    for name in store.catalogue():
        with contextlib.suppress(ValueError, OSError):  # a broken imported list shows up when used
            store.load(name)
