"""``GET /api/games/<id>/events`` in the event loop: every open stream is a queue and a coroutine, not a thread.

What a stream costs is bounded, so that no client can take what a round's plays need:

* **Catch-up from memory.** A client that reconnects with ``Last-Event-ID`` (or asks from 0) gets what it
  missed from the event hub's recent frames (:class:`~.hub.GameLog`) when they reach back that far;
  otherwise from the database, in pages of :data:`CATCH_UP_PAGE` events, on threads of their own
  (:data:`CATCH_UP_THREADS`), at most :data:`CATCH_UPS_PER_ADDRESS` at a time for one address (the others
  wait their turn, holding no thread), and one address's catch-ups together send at most
  :data:`CATCH_UP_BYTES_PER_SECOND` after a burst of twice that (:class:`Pace`): a client reconnecting in a
  loop from 0 cannot keep the process busy sending a long log (the live events themselves are never slowed).
* **A budget for the whole process too.** Attackers on many addresses each got their own budget: from 50
  addresses the process sent up to 26 GB of catch-ups in a 40 s round and plays sent in time were stamped
  late. At most :data:`CATCH_UPS_IN_ALL` catch-ups run at once, and together they send at most
  :data:`CATCH_UP_BYTES_PER_SECOND_IN_ALL` (twice that at once). **Plays come first**: while a round of the
  process is in its last :data:`RUSH_SECONDS` (until it closes) or plays are being handed in
  (:class:`Rush`), catch-ups share only :data:`CATCH_UP_BYTES_IN_RUSH` a second, enough for phones that
  reconnect after a moment away (a few frames each), not for whole logs.
* **Open streams per address and in all.** One address may hold :data:`STREAMS_PER_ADDRESS` streams (a club
  behind one Wi-Fi router is one address), the process :func:`stream_limit` in all, so file descriptors
  remain for pages and plays; past either, a 429 or 503 with Retry-After.
* **Time.** A stream ends after its ``timeout`` (the client reconnects); a heartbeat every 15 s keeps proxies
  from cutting it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import resource
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from flask import Flask

from ..core.database import DATABASE_DOWN, database_error_summary
from ..core.errors import Refused
from ..duplicate.rounds import SETTLE
from ..games import draws, tokens
from ..games.cache import UNVERSIONED_KINDS
from ..games.events import events_after, game_exists
from ..http.addresses import client_network
from ..http.errors import DATABASE_UNAVAILABLE, RETRY_AFTER_SECONDS, status_of
from ..http.headers import header_pairs
from ..http.ids import MAX_GAME_ID
from ..http.session import PLAYER_TOKENS, SessionCookie, login_id_in, token_in, tokens_in
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
from .asgi_tools import Receive, Scope, Send, Workers, when_stopping
from .hub import EventHub, Stream

HEARTBEAT_BYTES = HEARTBEAT.encode()
CATCH_UP_LIMIT = 100_000  # events one catch-up sends at most
CATCH_UP_PAGE = 500  # events read from the database, and sent, at a time
CATCH_UP_THREADS = 2
CATCH_UPS_PER_ADDRESS = 2  # catch-ups from the database one address runs at once
CATCH_UP_BYTES_PER_SECOND = 16_000_000  # per address: 1,000 phones catching up on a 16 KB log take a second
CATCH_UPS_IN_ALL = 16  # catch-ups one process runs at once, every address together (pages built wait in memory)
CATCH_UP_BYTES_PER_SECOND_IN_ALL = 32_000_000  # every address together: two clubs' phones catching up at once
CATCH_UP_BYTES_IN_RUSH = 2_000_000  # a second, every address together, while plays come first (a second's worth)
RUSH_SECONDS = 5.0  # before a round's deadline, plays come first until it closes
PLAY_RUSH_SECONDS = 1.0  # and for this long after any play reached the play path
STREAMS_PER_ADDRESS = 2_000
FILES_KEPT_FREE = 2_000  # file descriptors no stream may take: pages, plays, the database, logs
STREAMS_AT_LEAST = 1_000
log = logging.getLogger(__name__)


@dataclass
class _Turn:
    """One address's catch-ups from the database: how many may run at once, and how many want to."""

    running: asyncio.Semaphore = field(default_factory=lambda: asyncio.Semaphore(CATCH_UPS_PER_ADDRESS))
    wanting: int = 0


@dataclass
class Pace:
    """A token bucket of bytes: ``burst`` at once, then ``rate`` a second."""

    rate: float
    burst: float
    tokens: float
    stamp: float

    @classmethod
    def full(cls, rate: float, now: float) -> Pace:
        return cls(rate, 2 * rate, 2 * rate, now)

    def wait_for(self, size: int, now: float) -> float:
        """Take ``size`` bytes at ``now``; the seconds to wait before sending them (0 within the budget)."""
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate) - size
        self.stamp = now
        return max(0.0, -self.tokens / self.rate)

    def idle_full(self, now: float) -> bool:
        """Whether the bucket has refilled (and may be forgotten)."""
        return self.tokens + (now - self.stamp) * self.rate >= self.burst


class Rush:
    """Whether the play path comes first now: a round this process knows of is in its last :data:`RUSH_SECONDS`
    or not yet closed after its deadline (the event hub's ``deadlines``, from the events it read), or a play
    reached the play path within :data:`PLAY_RUSH_SECONDS` (a round whose opening this process did not read).
    Times are seconds since the epoch (deadlines are the server's wall clock)."""

    def __init__(self, deadlines: dict[int, float]) -> None:
        self.deadlines = deadlines
        self.last_play = -math.inf

    def play_seen(self, now: float) -> None:
        self.last_play = now

    def active(self, now: float) -> bool:
        if now - self.last_play < PLAY_RUSH_SECONDS:
            return True
        settle = SETTLE.total_seconds()
        return any(deadline - RUSH_SECONDS <= now <= deadline + settle for deadline in self.deadlines.values())


@dataclass(frozen=True)
class _Client:
    """Whom a catch-up is sent to: their address (for its budget), the ASGI ``send``, whether they went away."""

    address: str
    send: Send
    gone: asyncio.Event


def stream_limit() -> int:
    """Open streams a process allows in all: what its open-files limit leaves past :data:`FILES_KEPT_FREE`."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return 1_000_000
    return max(STREAMS_AT_LEAST, soft - FILES_KEPT_FREE)


SERVER_STOPPING = f'retry: {RETRY_MS}\nevent: closing\ndata: {{"reason":"server_stopping"}}\n\n'.encode()


class EventStreams:
    """The event streams of one web process."""

    def __init__(self, app: Flask, hub: EventHub) -> None:
        self.flask = app
        self.hub = hub
        self.https = bool(app.config.get("TIRAGE_HTTPS"))
        self.heartbeat = float(app.config.get("TIRAGE_SSE_HEARTBEAT", HEARTBEAT_SECONDS))
        self.per_address = int(app.config.get("TIRAGE_STREAMS_PER_ADDRESS") or STREAMS_PER_ADDRESS)
        self.in_all = int(app.config.get("TIRAGE_STREAMS") or stream_limit())
        self.catch_ups = Workers("catch-up", CATCH_UP_THREADS)
        self.catch_up_rate = float(app.config.get("TIRAGE_CATCH_UP_BYTES_PER_SECOND") or CATCH_UP_BYTES_PER_SECOND)
        self._paces: dict[str, Pace] = {}
        # The whole process's budget, every address together, and the smaller one while plays come first.
        self.rush = Rush(hub.deadlines)
        in_all = float(app.config.get("TIRAGE_CATCH_UP_BYTES_PER_SECOND_IN_ALL") or CATCH_UP_BYTES_PER_SECOND_IN_ALL)
        in_rush = float(app.config.get("TIRAGE_CATCH_UP_BYTES_IN_RUSH") or CATCH_UP_BYTES_IN_RUSH)
        self._pace_in_all = Pace.full(in_all, 0.0)
        self._pace_in_rush = Pace(in_rush, in_rush, in_rush, 0.0)  # a second's worth at once: the rush is short
        self._running_in_all = asyncio.Semaphore(CATCH_UPS_IN_ALL)
        self.open_by_address: Counter[str] = Counter()
        self._turns: dict[str, _Turn] = {}
        self._deadlines: dict[Stream, float] = {}
        self._games: set[int] = set()  # games known to exist (games are never deleted)
        self._session = SessionCookie(app)
        self._heartbeat_task: asyncio.Task[None] | None = None
        # Streams opened by the game's director (a login or a token, no player token): each heartbeat checks the
        # login still holds, so a password change or a logout ends them (a player's end with its token, hub.py).
        self._directors: dict[Stream, draws.Asker] = {}
        self._directors_check: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._heartbeat_task = asyncio.create_task(self._heartbeats(), name="sse-heartbeats")
        when_stopping(self.end_every_stream)

    def end_every_stream(self) -> None:
        """The server is stopping: every open stream gets a last event (``closing``, which says when to come back)
        and ends, so the process stops at once and quietly; browsers reconnect to the server that takes over."""
        for stream in list(self._deadlines):
            stream.offer(0, SERVER_STOPPING)
            stream.close()

    def stop(self) -> None:
        if self._heartbeat_task is not None:
            self._heartbeat_task.cancel()

    def open_streams(self) -> int:
        return sum(self.open_by_address.values())

    async def serve(self, game_id: int, scope: Scope, receive: Receive, send: Send) -> None:
        address = _address(scope)
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
        query = {key: values[-1] for key, values in parse_qs(scope["query_string"].decode("latin-1")).items()}
        try:
            if game_id > MAX_GAME_ID or not await self._exists(game_id):
                raise Refused("no_game", f"no game has the id {game_id}")
            after = resume_from(headers.get("last-event-id"), query.get("last_event_id"))
            timeout = seconds_arg("timeout", query.get("timeout"))
            quiet = quiet_arg(query.get("quiet"))
            asker = self._asker(game_id, headers)
            token_hash = tokens.player_token_hash(asker)
            viewer = await self.catch_ups.run(draws.viewer, self.flask, game_id, asker)
            retired = None  # a token that stopped working: the stream says why and ends (docs/rules.md §6.16)
            if viewer != "inside" and token_hash is not None:
                retired = await self.catch_ups.run(tokens.retired_reason, self.flask, token_hash)
            if viewer is None and retired is None:
                raise Refused("draw_not_public", DRAW_NOT_PUBLIC)
        except Refused as error:
            await _json_answer(send, status_of(error), str(error), self.https)
            return
        except DATABASE_DOWN as error:
            log.warning(
                "database unavailable for an event stream of game %s: %s", game_id, database_error_summary(error)
            )
            await _json_answer(send, 503, DATABASE_UNAVAILABLE, self.https, retry=True)
            return
        if retired is not None:
            await _revoked_answer(send, retired, self.https)
            return
        if self.open_by_address[address] >= self.per_address:
            await _json_answer(send, 429, "too many event streams are open from your network", self.https, retry=True)
            return
        if self.open_streams() >= self.in_all:
            await _json_answer(send, 503, "the server holds as many event streams as it can", self.https, retry=True)
            return
        self.open_by_address[address] += 1
        # Subscribed before the catch-up read, so nothing falls between; an outsider's stream ends when another
        # game takes this game's draw (games.draws).
        stream = self.hub.subscribe(game_id, quiet, outsider=viewer == "outside", token_hash=token_hash)
        self._deadlines[stream] = asyncio.get_running_loop().time() + timeout
        if viewer == "inside" and token_hash is None:
            self._directors[stream] = asker
        gone = asyncio.Event()  # the client went away: its catch-up stops (uvicorn drops what is sent after)

        def went_away() -> None:
            gone.set()
            stream.close()

        watcher = asyncio.create_task(_watch_disconnect(receive, went_away))
        try:
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
            await send({"type": "http.response.body", "body": f"retry: {RETRY_MS}\n\n".encode(), "more_body": True})
            try:
                sent = await self._catch_up(game_id, after, quiet, _Client(address, send, gone))
            except DATABASE_DOWN as error:  # the stream ends; the browser reconnects with what it has
                log.warning("event stream catch-up of game %s waits for the database: %s", game_id,
                            database_error_summary(error))  # fmt: skip
                timeout, sent = 0, set()
            if timeout > 0:
                while (item := await stream.queue.get()) is not None:
                    event_id, data = item
                    if event_id and (event_id <= after or event_id in sent):
                        continue  # already sent by the catch-up
                    await send({"type": "http.response.body", "body": data, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the client went away while we wrote
        finally:
            watcher.cancel()
            self.hub.unsubscribe(stream)
            self._deadlines.pop(stream, None)
            self._directors.pop(stream, None)
            self.open_by_address[address] -= 1
            if self.open_by_address[address] <= 0:
                del self.open_by_address[address]

    def _asker(self, game_id: int, headers: dict[str, str]) -> draws.Asker:
        """Who opens the stream: the page's session (a director's login, a player's token) or a bearer token."""
        session = self._session.from_header(headers.get("cookie", ""))
        scheme, _, token = headers.get("authorization", "").partition(" ")
        return draws.Asker(
            login_id_in(session),
            token_in(session, PLAYER_TOKENS, game_id),
            token.strip() or None if scheme.lower() == "bearer" else None,
            tokens_in(session, PLAYER_TOKENS),
        )

    async def _catch_up(self, game_id: int, after: int, quiet: bool, client: _Client) -> set[int]:
        """Send what the client missed; the ids sent from the database (the stream's queue may hold them too)."""
        # Taken at once, as the stream subscribed: the frames here and those queued for it never overlap.
        recent = self.hub.recent(game_id, after, quiet)
        async with self._turn(client.address):
            if recent is not None:
                for start in range(0, min(len(recent), CATCH_UP_LIMIT), CATCH_UP_PAGE):
                    if not await self._paced(client, b"".join(recent[start : start + CATCH_UP_PAGE])):
                        break
                return set()
            return await self._catch_up_from_database(game_id, after, quiet, client)

    async def _catch_up_from_database(self, game_id: int, after: int, quiet: bool, client: _Client) -> set[int]:
        """From the database, a page at a time; the ids sent (the stream's queue may hold some of them too)."""
        sent: set[int] = set()
        while len(sent) < CATCH_UP_LIMIT:
            page = await self.catch_ups.run(events_after, self.flask, game_id, after, quiet, CATCH_UP_PAGE)
            for shown in page:  # the client will know of these: reads of this process must too
                if shown["kind"] not in UNVERSIONED_KINDS:
                    self.hub.note_version(game_id, shown["id"])
                sent.add(shown["id"])
            if page:
                after = page[-1]["id"]
                if not await self._paced(client, "".join(frame(shown) for shown in page).encode()):
                    break
            if len(page) < CATCH_UP_PAGE:
                break
        return sent

    async def _paced(self, client: _Client, body: bytes) -> bool:
        """Send a page of catch-up once the address's byte budget and the process's allow it, and, while the play
        path comes first (:class:`Rush`), the rush's; False if the client went away first (its bytes go back to
        the budgets)."""
        loop, size = asyncio.get_running_loop(), len(body)
        now = loop.time()
        pace = self._paces.get(client.address)
        if pace is None:
            pace = self._paces[client.address] = Pace.full(self.catch_up_rate, now)
        taken = [pace, self._pace_in_all]
        wait = max(budget.wait_for(size, now) for budget in taken)
        if await _gone_within(client, wait):
            _give_back(taken, size)
            return False
        if self.rush.active(time.time()):  # taken after the other waits: a rush that began meanwhile counts
            taken.append(self._pace_in_rush)
            if await _gone_within(client, self._pace_in_rush.wait_for(size, loop.time())):
                _give_back(taken, size)
                return False
        await client.send({"type": "http.response.body", "body": body, "more_body": True})
        return True

    @contextlib.asynccontextmanager
    async def _turn(self, address: str) -> AsyncIterator[None]:
        """Wait until this address runs fewer than :data:`CATCH_UPS_PER_ADDRESS` catch-ups and the process fewer
        than :data:`CATCH_UPS_IN_ALL` (the address's turn first: one address never waits on several of the
        process's places at once)."""
        turn = self._turns.setdefault(address, _Turn())
        turn.wanting += 1
        try:
            async with turn.running, self._running_in_all:
                yield
        finally:
            turn.wanting -= 1
            if not turn.wanting:
                del self._turns[address]

    async def _exists(self, game_id: int) -> bool:
        if game_id not in self._games and await self.catch_ups.run(game_exists, self.flask, game_id):
            self._games.add(game_id)
        return game_id in self._games

    async def _heartbeats(self) -> None:
        """A heartbeat event on every stream every ``heartbeat`` seconds (proxies keep the connection); end streams
        whose time is up (clients reconnect with Last-Event-ID)."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(self.heartbeat)
            now = loop.time()
            for address in [address for address, pace in self._paces.items() if pace.idle_full(now)]:
                del self._paces[address]
            for streams in list(self.hub.streams.values()):
                for stream in list(streams):
                    if self._deadlines.get(stream, now + 1) <= now:
                        stream.close()
                    else:
                        stream.offer(0, HEARTBEAT_BYTES)
            if self._directors and (self._directors_check is None or self._directors_check.done()):
                self._directors_check = asyncio.create_task(self._end_signed_out())

    async def _end_signed_out(self) -> None:
        """End the directors' streams whose login ended or whose password changed since they opened."""
        opened = list(self._directors.items())
        try:
            ended = await self.catch_ups.run(_signed_out, self.flask, [(s.game_id, asker) for s, asker in opened])
        except DATABASE_DOWN:
            return  # checked again at the next heartbeat
        for (stream, _asker), out in zip(opened, ended, strict=True):
            if out:
                stream.close()


DRAW_NOT_PUBLIC = (
    "this game shares its draw with another game still being played: its rounds are shown to others once every game"
    " of the draw has closed them"
)


def _signed_out(app: Flask, opened: list[tuple[int, draws.Asker]]) -> list[bool]:
    """For each (game, director who opened its stream), whether they are no longer the game's director."""
    return [tokens.still_allowed(app, game_id, asker, None) is not None for game_id, asker in opened]


def _address(scope: Scope) -> str:
    """The client's address, its /64 for IPv6 (uvicorn has put the proxy's client address there when it trusts
    the proxy)."""
    client: Any = scope.get("client")
    return client_network(str(client[0]) if client else None)


async def _gone_within(client: _Client, wait: float) -> bool:
    """Wait ``wait`` seconds, or less if the client goes away; whether it went away."""
    if wait > 0:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client.gone.wait(), wait)
    return client.gone.is_set()


def _give_back(budgets: list[Pace], size: int) -> None:
    for budget in budgets:
        budget.tokens += size


async def _watch_disconnect(receive: Receive, on_disconnect: Callable[[], None]) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    on_disconnect()


async def _revoked_answer(send: Send, reason: str, https: bool) -> None:
    """A stream opened with a player token that stopped working: it says why at once, and ends."""
    headers = header_pairs(HEADERS, https)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"text/event-stream; charset=utf-8"), *headers]})  # fmt: skip
    await send({"type": "http.response.body", "body": f"retry: {RETRY_MS}\n\n{revoked(reason)}".encode()})


async def _json_answer(send: Send, status: int, message: str, https: bool, retry: bool = False) -> None:
    body = json.dumps({"error": message}).encode()
    headers = {"Content-Type": "application/json", "Content-Length": str(len(body))}
    if retry:
        headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    await send({"type": "http.response.start", "status": status, "headers": header_pairs(headers, https)})
    await send({"type": "http.response.body", "body": body})
