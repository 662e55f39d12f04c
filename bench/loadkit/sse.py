"""Event streams on raw asyncio connections: a small HTTP/1.1 and SSE reader that stamps each frame with
the time its bytes arrived, and a listener that follows a game's stream for the whole run, reconnecting
as a browser does."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from .records import Player
    from .state import RunState


class EventStream(asyncio.Protocol):
    """One connection of an event stream: an HTTP/1.1 GET, a chunked body, SSE frames.

    Frames are split on a blank line (the server writes ``\\n``) and handed to ``listener`` with the
    time at which their bytes arrived.
    """

    def __init__(self, listener: Listener, request: bytes) -> None:
        self.listener = listener
        self.request = request
        self.transport: asyncio.Transport | None = None
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[int] = loop.create_future()  # the status, once the headers are in
        self.closed: asyncio.Future[None] = loop.create_future()
        self.head = bytearray()
        self.status = 0
        self.chunked = False
        self.length = -1  # a Content-Length body (an error answer)
        self.raw = bytearray()  # body bytes not yet de-chunked
        self.chunk_left = 0
        self.need_crlf = False
        self.text = b""  # de-chunked bytes not yet split into frames
        self.error_body = bytearray()
        self.ended = False  # the last chunk came: the server ended the stream on purpose
        self.last_rx = time.monotonic()

    def itself(self) -> EventStream:
        """The protocol factory of ``create_connection``: this very object."""
        return self

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not an asyncio.Transport subclass
        self.transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        now = time.time()
        self.last_rx = time.monotonic()
        if not self.status:
            self.head += data
            end = self.head.find(b"\r\n\r\n")
            if end < 0:
                return
            lines = bytes(self.head[:end]).decode("latin-1").split("\r\n")
            rest = bytes(self.head[end + 4 :])
            self.head.clear()
            try:
                self.status = int(lines[0].split()[1])
            except (IndexError, ValueError):
                self.status = -1
            for line in lines[1:]:
                name, _, value = line.partition(":")
                name, value = name.strip().lower(), value.strip().lower()
                if name == "transfer-encoding" and "chunked" in value:
                    self.chunked = True
                elif name == "content-length" and value.isdigit():
                    self.length = int(value)
            if not self.opened.done():
                self.opened.set_result(self.status)
            data = rest
        if self.status != 200:
            self.error_body += data
            return
        if not self.chunked:
            self._frames(data, now)
            return
        self.raw += data
        decoded = []
        while self.raw:
            if self.need_crlf:
                if len(self.raw) < 2:
                    break
                del self.raw[:2]
                self.need_crlf = False
            elif self.chunk_left == 0:
                end = self.raw.find(b"\r\n")
                if end < 0:
                    break
                size = int(bytes(self.raw[:end]).split(b";")[0], 16)
                del self.raw[: end + 2]
                if size == 0:
                    self.ended = True
                    self.raw.clear()
                    break
                self.chunk_left = size
            else:
                piece = bytes(self.raw[: self.chunk_left])
                del self.raw[: len(piece)]
                self.chunk_left -= len(piece)
                self.need_crlf = self.chunk_left == 0
                decoded.append(piece)
        if decoded:
            self._frames(b"".join(decoded), now)
        if self.ended and self.transport is not None:
            self.transport.close()

    def _frames(self, data: bytes, now: float) -> None:
        *frames, self.text = (self.text + data).split(b"\n\n")
        for block in frames:
            event_id, kind, payload = 0, "message", b""
            for line in block.split(b"\n"):
                if line.startswith(b"data:"):
                    payload = line[5:].lstrip(b" ")
                elif line.startswith(b"event:"):
                    kind = line[6:].strip().decode()
                elif line.startswith(b"id:"):
                    with contextlib.suppress(ValueError):
                        event_id = int(line[3:])
                elif line.startswith(b"retry:"):
                    with contextlib.suppress(ValueError):
                        self.listener.retry = int(line[6:]) / 1000
            if payload:
                self.listener.frame(event_id, kind, payload, now)

    def eof_received(self) -> bool | None:
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(exc or ConnectionError("closed before the headers"))
        if not self.closed.done():
            self.closed.set_result(None)

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()


class Listener:
    """A player's (or the projector's) event stream over the whole run, reconnecting as a browser does."""

    def __init__(self, run: RunState, player: Player | None, quiet: bool) -> None:
        self.run = run
        self.player = player
        self.quiet = quiet
        self.last_id = 0
        self.retry = 2.0
        self.stream: EventStream | None = None
        self.first_open = asyncio.get_running_loop().create_future()  # the time to the first headers
        self.task: asyncio.Task[None] | None = None

    def request(self) -> bytes:
        query = "?quiet=1" if self.quiet else ""
        resume = f"Last-Event-ID: {self.last_id}\r\n" if self.last_id else ""
        return (
            f"GET /api/games/{self.run.game_id}/events{query} HTTP/1.1\r\nHost: 127.0.0.1:{self.run.server.port}"
            f"\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\n{resume}\r\n"
        ).encode()

    async def follow(self) -> None:
        loop = asyncio.get_running_loop()
        run = self.run
        while not run.stopping:
            stream = EventStream(self, self.request())
            started = time.perf_counter()
            try:
                await asyncio.wait_for(
                    loop.create_connection(
                        stream.itself,
                        "127.0.0.1",
                        run.server.port,
                        local_addr=(self.player.address, 0) if self.player is not None else None,
                    ),
                    run.args.request_timeout,
                )
                self.stream = stream
                status = await asyncio.wait_for(stream.opened, run.args.request_timeout)
            except (OSError, TimeoutError) as error:
                stream.abort()
                if not run.stopping:
                    run.error("stream: could not connect", repr(error))
                    self._fail_first(error)
                    await asyncio.sleep(self.retry)
                continue
            if status != 200:
                await asyncio.sleep(0.2)  # the error body
                stream.abort()
                run.error(f"stream: HTTP {status}", bytes(stream.error_body[:200]).decode(errors="replace"))
                self._fail_first(RuntimeError(f"HTTP {status}"))
                await asyncio.sleep(self.retry)
                continue
            if not self.first_open.done():
                self.first_open.set_result(time.perf_counter() - started)
            await stream.closed
            self.stream = None
            if run.stopping:
                return
            if stream.ended:
                run.reconnects += 1
            else:
                run.drops += 1
                run.error("stream: dropped", "the connection ended without the stream's last chunk")
            await asyncio.sleep(self.retry)

    def _fail_first(self, error: BaseException) -> None:
        if not self.first_open.done():
            self.first_open.set_exception(error)

    def frame(self, event_id: int, kind: str, payload: bytes, now: float) -> None:
        if event_id:
            if event_id <= self.last_id:
                self.run.duplicates += 1
                return
            self.last_id = event_id
        self.run.on_event(self, kind, payload, now)
