"""Connections as ``tirage serve`` accepts them: uvicorn's HTTP protocol with two limits uvicorn does not set.

* **A request's head must arrive in time.** A client that opens a connection and sends nothing, or half a
  request line, would otherwise keep it (and its file descriptor) for ever: it gets
  :data:`HEAD_SECONDS` (``TIRAGE_HEAD_SECONDS``) from its first byte (or from the connection) to finish
  the head, then is cut off.
* **Connections per address.** One address may hold :data:`CONNECTIONS_PER_ADDRESS` connections at once
  (``TIRAGE_CONNECTIONS_PER_ADDRESS`` changes it): a club behind one Wi-Fi router is one address, with
  two connections a phone, so the default leaves room for a room of 2,000; past it the connection is
  closed at once. Behind a reverse proxy every connection comes from the proxy: raise it there.

The body's own limits (size, time) are the door's (:mod:`.door`); the event streams' are :mod:`.streams`'.

It also stamps each request with the moment its last byte was parsed (``scope["tirage.arrived"]``): the
moment a play arrived, which decides whether it was on time, however busy the event loop is afterwards.
"""

from __future__ import annotations

import asyncio
import os
from collections import Counter
from datetime import UTC, datetime
from typing import ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ..http.addresses import client_network
from .asgi_tools import ARRIVED, server_stopping

HEAD_SECONDS = 10.0
CONNECTIONS_PER_ADDRESS = 4_096


def connections_per_address() -> int:
    configured = os.environ.get("TIRAGE_CONNECTIONS_PER_ADDRESS", "")
    return int(configured) if configured.isdigit() and int(configured) > 0 else CONNECTIONS_PER_ADDRESS


def head_seconds() -> float:
    """``TIRAGE_HEAD_SECONDS`` if set, else :data:`HEAD_SECONDS`."""
    try:
        configured = float(os.environ.get("TIRAGE_HEAD_SECONDS", ""))
    except ValueError:
        return HEAD_SECONDS
    return configured if configured > 0 else HEAD_SECONDS


class GuardedConnections(HttpToolsProtocol):
    """uvicorn's httptools protocol, with a time limit on request heads and a cap of connections per address."""

    open_by_address: ClassVar[Counter[str]] = Counter()  # this process's connections, by peer address
    limit: ClassVar[int | None] = None  # read from the environment once, in the serving process
    head_seconds: ClassVar[float | None] = None
    closed_slow: ClassVar[int] = 0
    closed_over_limit: ClassVar[int] = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        cls = type(self)
        if cls.limit is None or cls.head_seconds is None:
            cls.limit, cls.head_seconds = connections_per_address(), head_seconds()
        self._address = client_network(self.client[0] if self.client else None)
        self._head_timer: asyncio.TimerHandle | None = None
        cls.open_by_address[self._address] += 1
        if cls.open_by_address[self._address] > cls.limit:
            cls.closed_over_limit += 1
            transport.close()
            return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        cls = type(self)
        cls.open_by_address[self._address] -= 1
        if cls.open_by_address[self._address] <= 0:
            del cls.open_by_address[self._address]
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """The server stops: open event streams end with a last event now, rather than when uvicorn's graceful
        shutdown runs out and cancels them (a traceback each)."""
        server_stopping()
        super().shutdown()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm()  # a request on a kept-alive connection: its head in time too

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        if self.scope is not None:
            self.scope[ARRIVED] = datetime.now(UTC)  # type: ignore[literal-required]
        super().on_message_complete()

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(type(self).head_seconds or HEAD_SECONDS, self._too_slow)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_slow(self) -> None:
        self._head_timer = None
        if not self.transport.is_closing():
            type(self).closed_slow += 1
            self.transport.close()
