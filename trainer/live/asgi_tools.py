"""ASGI plumbing the event loop's fast paths share: thread pools of their own, bounded maps, builds shared by a
whole room, reading a request's body and handing it on to the Flask application, JSON answers."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from sqlalchemy.exc import InterfaceError, OperationalError

from ..http.auth import bearer_in
from ..http.body import MAX_BODY

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

ARRIVED = "tirage.arrived"  # scope key: when the request's last byte was parsed (trainer.live.connections)

# What ends a long answer when the server stops (the event streams register theirs): called once, by the first
# connection uvicorn asks to shut down (trainer.live.connections), before it waits for the connections to close.
_on_stopping: list[weakref.WeakMethod[Callable[[], None]]] = []
_stopping = False


def when_stopping(callback: Callable[[], None]) -> None:
    """Call ``callback`` (a bound method, held weakly) when this process's server stops."""
    _on_stopping.append(weakref.WeakMethod(callback))


def server_stopping() -> None:
    """The server stops taking connections: end the long answers, once (uvicorn asks every connection in turn)."""
    global _stopping
    if _stopping:
        return
    _stopping = True
    for reference in _on_stopping:
        callback = reference()
        if callback is not None:
            callback()


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
T = TypeVar("T")
log = logging.getLogger(__name__)


class Workers:
    """Threads of one job, which nothing else can fill (the play path's reads, the event hub's reads, the event
    streams' catch-up reads): a flood on one job waits for its own threads, not for everyone's."""

    def __init__(self, name: str, threads: int) -> None:
        self.name = name
        self.executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name)

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.executor, functools.partial(function, *args))

    def stop(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)


class Kept(Generic[K, V]):
    """A bounded map that forgets the least recently used entry (used from the event loop only)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def get(self, key: K) -> V | None:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def drop_where(self, unwanted: Callable[[V], bool]) -> None:
        """Forget every entry whose value is ``unwanted`` (rare: a look at each entry)."""
        for key in [key for key, value in self._entries.items() if unwanted(value)]:
            del self._entries[key]


class BuiltOnce(Generic[K, T]):
    """What a worker thread builds for a whole room once per key (a version of a game) while every other
    request for that key waits for it; the last few kept. Used from the event loop only."""

    def __init__(self, size: int, what: str) -> None:
        self.kept: Kept[K, T] = Kept(size)
        self.what = what
        self._building: dict[K, asyncio.Future[T | None]] = {}

    async def get(self, key: K, build: Callable[[], T | None]) -> T | None:
        """The thing for ``key``, or None when ``build`` found nothing or failed (the view then answers, and
        says what is wrong: 503 when the database is away)."""
        found = self.kept.get(key)
        if found is not None:
            return found
        building = self._building.get(key)
        if building is None:
            building = asyncio.ensure_future(asyncio.to_thread(build))
            self._building[key] = building
            building.add_done_callback(lambda _done: self._building.pop(key, None))
        try:
            found = await asyncio.shield(building)
        except (OperationalError, InterfaceError):
            return None
        except Exception:
            log.exception("building %s for %r failed", self.what, key)
            return None
        if found is not None:
            self.kept.put(key, found)
        return found


def json_bytes(payload: dict[str, Any]) -> bytes:
    """JSON as the Flask views write it: sorted keys, compact, a newline."""
    return (json.dumps(payload, sort_keys=True, separators=(",", ":")) + "\n").encode()


async def read_in_thread(workers: Workers, function: Callable[..., T], *args: Any) -> T | None:
    """``function(*args)`` in one of ``workers``' threads; None when it fails (the database away: the view, which
    the request is then handed to, answers 503)."""
    try:
        return await workers.run(function, *args)
    except Exception as error:
        log.debug("a fast path's read failed: %s", error)
        return None


async def read_body(receive: Receive) -> tuple[bytes, bool]:
    """The body, up to just past :data:`MAX_BODY`; whether it was read whole (else the view refuses it)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), size <= MAX_BODY
        if size > MAX_BODY:
            return b"".join(chunks), False


def replaying(body: bytes, complete: bool, receive: Receive) -> Receive:
    """``receive`` for the view: what was read already, then the rest of the request."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": not complete}
        return await receive()

    return replay


def bearer_token(scope: Scope) -> str | None:
    """The request's bearer token, read as the Flask views read it (:func:`trainer.http.auth.bearer_in`)."""
    for key, value in scope["headers"]:
        if key.lower() == b"authorization":
            return bearer_in(value.decode("latin-1"))
    return None


def arrived(scope: Scope) -> datetime:
    """When the request arrived whole: as the connection parsed it, else (no such stamp: another server) now."""
    stamp = scope.get(ARRIVED)
    return stamp if isinstance(stamp, datetime) else datetime.now(UTC)
