"""The door of ``tirage serve``: a request's body is read whole, in time and within its limit, before the request
reaches a thread.

Behind the door, a Flask view runs in one of a few threads and reads its body there: a client trickling a
body a byte at a time would hold that thread, and twenty of them every thread, freezing pages, joins and
the director's controls. Here the body is read in the event loop, where waiting costs a coroutine:

* a body whose ``Content-Length`` is over its limit (:func:`trainer.http.body.body_limit`) is refused before
  a byte of it is read, and one that grows past it is cut off there;
* a body that takes longer than its time (:func:`trainer.http.body.body_seconds`) is refused;
* the request then goes on with its body in hand (the play path, or a thread of the Flask application).

A file's form (:data:`~trainer.http.body.UPLOAD_PATHS`: a word list, a cardbox, up to 50 MB) waits on disk past its
first megabyte, and goes on a chunk at a time: four lists uploaded at once never hold 200 MB of the process.

A refusal goes on too, without its body, marked with :data:`~trainer.http.body.REFUSED_HEADER`, so that the
application answers it as it answers everything: JSON for the API, a page in the reader's language for a
browser. A client's own header of that name is removed first.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from typing import IO

from ..http.body import REFUSED_HEADER, UPLOAD_PATHS, body_limit, body_seconds
from .asgi_tools import Message, Receive, Scope

REFUSED = REFUSED_HEADER.lower().encode("latin-1")
BODYLESS = frozenset({"GET", "HEAD", "OPTIONS"})
SPOOL_BYTES = 1024 * 1024  # a file's form past this waits on disk
REPLAY_CHUNK = 256 * 1024  # and goes on this much at a time


@dataclass
class DoorFigures:
    too_large: int = 0
    too_slow: int = 0


class Door:
    """Reads each request's body before it goes further (one per web process)."""

    def __init__(self, seconds: float | None = None) -> None:
        self.seconds = seconds  # for every body, instead of trainer.http.body.body_seconds's
        self.figures = DoorFigures()

    async def enter(self, scope: Scope, receive: Receive) -> Receive | None:
        """The ``receive`` the request goes on with: its whole body, or nothing and a refusal mark in ``scope``;
        None when the client went away before its body was whole (the request goes nowhere)."""
        headers = [(key, value) for key, value in scope["headers"] if key.lower() != REFUSED]
        scope["headers"] = headers
        if scope["method"] in BODYLESS:
            return receive
        limit = body_limit(scope["path"])
        length = _content_length(headers)
        if length is not None and length > limit:
            return self._refuse(scope, "too-large", receive)
        # Closed once replayed, refused or left by its client.
        spool = tempfile.SpooledTemporaryFile(SPOOL_BYTES) if scope["path"] in UPLOAD_PATHS else None  # noqa: SIM115
        try:
            body = await asyncio.wait_for(_read(receive, limit, spool), self.seconds or body_seconds(scope["path"]))
        except TimeoutError:
            return self._refuse(scope, "too-slow", receive, spool)
        except _Gone:
            if spool is not None:
                spool.close()
            return None
        if body is None:
            return self._refuse(scope, "too-large", receive, spool)
        if spool is not None:
            spool.seek(0)
            return _replay_file(spool, receive)
        return _replay(body, receive)

    def _refuse(self, scope: Scope, why: str, receive: Receive, spool: IO[bytes] | None = None) -> Receive:
        if spool is not None:
            spool.close()
        if why == "too-large":
            self.figures.too_large += 1
        else:
            self.figures.too_slow += 1
        scope["headers"] = [*scope["headers"], (REFUSED, why.encode("latin-1"))]
        # The request goes on without its body (a view that reads it finds it empty); disconnects still pass.
        return _replay(b"", receive)


def _content_length(headers: list[tuple[bytes, bytes]]) -> int | None:
    for key, value in headers:
        if key.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class _Gone(Exception):
    """The client disconnected before its body was whole."""


async def _read(receive: Receive, limit: int, spool: IO[bytes] | None = None) -> bytes | None:
    """The whole body (written to ``spool`` instead when there is one: then b""), or None when it grows past ``limit``
    bytes (reading stops there)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            raise _Gone
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        if spool is None:
            chunks.append(chunk)
        else:
            spool.write(chunk)  # the page cache takes it at once: no thread for it
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """``receive`` with ``body`` as the whole request body, then what the connection says (a disconnect)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _replay_file(spool: IO[bytes], receive: Receive) -> Receive:
    """``receive`` with the body waiting in ``spool``, a chunk at a time, then what the connection says."""

    async def replay() -> Message:
        if spool.closed:
            return await receive()
        chunk = spool.read(REPLAY_CHUNK)
        more = len(chunk) == REPLAY_CHUNK
        if not more:
            spool.close()  # a spooled file on disk is deleted as it closes
        return {"type": "http.request", "body": chunk, "more_body": more}

    return replay
