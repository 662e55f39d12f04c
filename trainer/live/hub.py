"""One event hub per web process: reads new events once, fans each one out to every open stream.

The hub keeps a cursor over the ``event`` table's ids. It reads what is past the cursor when woken
(a commit in this process, a Redis message from another) and at least every ``poll`` seconds (a
process that cannot tell it: no Redis). PostgreSQL hands out ids in order but may commit them out
of order, so an id skipped by one read is remembered as a gap and read again for ``GAP_SECONDS``
(after that it was a rolled-back transaction). Each stream has a bounded queue: a client too slow
to read is dropped and reconnects with ``Last-Event-ID``, so it costs nobody else anything.

The hub keeps the last frames of the games it has fanned out (:class:`GameLog`), so that a client
catching up after a reconnection is answered from memory, not by the database. Its reads run on a
thread of its own, which no flood of other requests can take.
"""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from flask import Flask
from sqlalchemy import func, or_, select

from ..core.clock import aware
from ..core.database import db
from ..games import notify, present
from ..games.cache import UNVERSIONED_KINDS
from ..games.draws import DRAW_SHARED
from ..games.models import Event, Player, Round
from ..games.tokens import TOKEN_ENDING_KINDS
from ..http.sse import frame, revoked
from .asgi_tools import Workers

POLL_SECONDS = 0.5  # without Redis, how late an event written by another process may be
REDIS_POLL_SECONDS = 5.0  # with Redis, only a safety net for lost messages
GAP_SECONDS = 30.0
READ_LIMIT = 5000
READ_INTERVAL = 0.05  # seconds between two reads at most: delivery waits this long, reads are shared
QUEUE_LIMIT = 2000  # frames waiting for one client before it is dropped
QUIET_KINDS = frozenset(present.PRIVATE_EVENTS)  # one per player: streams with ``quiet`` skip them
RECENT_FRAMES = 10_000  # frames kept per game for catch-ups from memory (about 200 bytes each)
RECENT_GAMES = 32  # games whose frames are kept: the most recently active
DEADLINE_KINDS = frozenset({"round_started", "resumed", "extended", "paused", "round_closed", "finished"})
log = logging.getLogger(__name__)


@dataclass(eq=False)
class Stream:
    """One open connection: the frames waiting for it, and whether it wants per-player events."""

    game_id: int
    quiet: bool
    outsider: bool = False  # neither the game's director nor a player: ends when another game takes the draw
    token_hash: str | None = None  # the player token it was opened with: it ends when that token stops working
    queue: asyncio.Queue[tuple[int, bytes] | None] = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT))

    def offer(self, event_id: int, data: bytes) -> bool:
        try:
            self.queue.put_nowait((event_id, data))
            return True
        except asyncio.QueueFull:
            return False

    def close(self) -> None:
        """Tell the stream's writer to end (its client reconnects with Last-Event-ID)."""
        while True:
            try:
                self.queue.put_nowait(None)
                return
            except asyncio.QueueFull:
                self.queue.get_nowait()


class GameLog:
    """The frames of one game the hub has fanned out, kept for catch-ups: it holds every event of the game with an
    id past ``complete_after`` that the hub has read (later ones reach a stream through its queue).

    Frames are kept in id order, all of them and those a ``quiet`` stream gets, so a catch-up is a search and a
    join, however many clients ask at once.
    """

    def __init__(self, complete_after: int) -> None:
        self.complete_after = complete_after
        self._every = _Frames()
        self._public = _Frames()  # without the per-player events

    def add(self, event_id: int, kind: str, data: bytes) -> None:
        self._every.add(event_id, data)
        if kind not in QUIET_KINDS:
            self._public.add(event_id, data)
        while len(self._every.ids) > RECENT_FRAMES:
            dropped = self._every.ids[0]
            self._every.drop_to(dropped)
            self._public.drop_to(dropped)
            self.complete_after = max(self.complete_after, dropped)

    def after(self, after: int, quiet: bool) -> list[bytes] | None:
        """The frames past ``after`` (without the per-player ones when ``quiet``), or None when the log does not
        reach back that far (the database answers then)."""
        if after < self.complete_after:
            return None
        return (self._public if quiet else self._every).after(after)


class _Frames:
    """Frames in id order (a late id, PostgreSQL's commit order, is put in its place)."""

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.frames: list[bytes] = []

    def add(self, event_id: int, data: bytes) -> None:
        if not self.ids or event_id > self.ids[-1]:
            self.ids.append(event_id)
            self.frames.append(data)
        else:
            at = bisect.bisect_left(self.ids, event_id)
            self.ids.insert(at, event_id)
            self.frames.insert(at, data)

    def drop_to(self, event_id: int) -> None:
        """Forget every frame up to ``event_id``."""
        cut = bisect.bisect_right(self.ids, event_id)
        del self.ids[:cut], self.frames[:cut]

    def after(self, after: int) -> list[bytes]:
        return self.frames[bisect.bisect_right(self.ids, after) :]


@dataclass
class HubFigures:
    reads: int = 0
    events: int = 0
    frames: int = 0
    dropped: int = 0
    catch_ups_from_memory: int = 0


class EventHub:
    """Runs in the web process's event loop; its database reads run on a thread of its own."""

    def __init__(self, app: Flask, poll: float | None = None, redis_url: str | None = None) -> None:
        self.app = app
        self.redis_url = redis_url
        self.poll = poll if poll is not None else (REDIS_POLL_SECONDS if redis_url else POLL_SECONDS)
        self.streams: dict[int, set[Stream]] = {}
        self.loud: dict[int, set[Stream]] = {}  # the streams that want per-player events too (projectors)
        self.cursor = 0
        self.start_cursor = 0  # the last event id before the hub started: it has read every later one
        self.gaps: dict[int, float] = {}  # id -> when it was first missed
        self.logs: OrderedDict[int, GameLog] = OrderedDict()  # game -> its recent frames, most recent game last
        self._dropped_logs: set[int] = set()  # games whose log was dropped (no longer complete since the start)
        self.reads = Workers("event-read", 1)
        # game -> the last event read that changes what is cached (trainer.games.cache's version), for the
        # games that had one since this hub started; every event a stream of this process was sent is here.
        self.versions: dict[int, int] = {}
        self.submissions_read: dict[int, int] = {}  # game -> the last submission event read (plays don't version)
        self.joined_read: dict[int, int] = {}  # game -> the last "joined" event read
        self.changes_read: dict[int, int] = {}  # game -> the last event read that versions it, joins left out
        # game -> its open round's deadline (seconds since the epoch) as the events read say: the event streams make
        # way for the play path in a round's last seconds (trainer.live.streams.Rush).
        self.deadlines: dict[int, float] = {}
        # Called as watcher(game_id, player_id) when a player's token stops working (removed, or their place taken
        # over by a rejoin), before the event reaches any stream: what this process keeps of them is forgotten.
        self.player_watchers: list[Callable[[int, int], None]] = []
        self.figures = HubFigures()
        self._wake = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._listener: Callable[[int], None] | None = None
        self._chores: set[asyncio.Task[None]] = set()
        self._database_lost = False

    # ------------------------------------------------------------ life

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self.cursor = self.start_cursor = await self.reads.run(self._last_id)
        self.deadlines.update(await self.reads.run(self.open_deadlines))  # later events move them on
        loop = self._loop

        def wake_from_thread(_game_id: int) -> None:
            loop.call_soon_threadsafe(self._wake.set)

        self._listener = wake_from_thread
        notify.add_listener(self.app, wake_from_thread)
        self._tasks.append(asyncio.create_task(self._run(), name="event-hub"))
        if self.redis_url:
            self._tasks.append(asyncio.create_task(self._listen_redis(self.redis_url), name="event-hub-redis"))

    async def stop(self) -> None:
        if self._listener is not None:
            notify.remove_listener(self.app, self._listener)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for streams in self.streams.values():
            for stream in streams:
                stream.close()

    def wake(self) -> None:
        self._wake.set()

    # ------------------------------------------------------------ streams

    def subscribe(self, game_id: int, quiet: bool, outsider: bool = False, token_hash: str | None = None) -> Stream:
        stream = Stream(game_id, quiet, outsider, token_hash)
        self.streams.setdefault(game_id, set()).add(stream)
        if not quiet:
            self.loud.setdefault(game_id, set()).add(stream)
        return stream

    def unsubscribe(self, stream: Stream) -> None:
        for table in (self.streams, self.loud):
            streams = table.get(stream.game_id)
            if streams is not None:
                streams.discard(stream)
                if not streams:
                    del table[stream.game_id]

    def connections(self) -> int:
        return sum(len(streams) for streams in self.streams.values())

    # ------------------------------------------------------------ reading and fanning out

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        last_read = 0.0
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=self.poll)
            # At most one read per READ_INTERVAL: when plays pour in, one read carries many of them.
            await asyncio.sleep(max(0.0, last_read + READ_INTERVAL - loop.time()))
            last_read = loop.time()
            self._wake.clear()  # wake-ups during the read below cause one more read, not one each
            try:
                rows = await self.reads.run(self._read)
            except Exception as error:  # database away: try again at the next wake-up or poll
                if not self._database_lost:
                    log.warning(
                        "event hub cannot read events (%s); trying again until the database is back",
                        type(error).__name__,
                    )
                    self._database_lost = True
                await asyncio.sleep(min(self.poll, POLL_SECONDS))
                continue
            if self._database_lost:
                log.warning("event hub reaches the database again")
                self._database_lost = False
            self._fan_out(rows)
            if len(rows) >= READ_LIMIT:
                self._wake.set()

    def _last_id(self) -> int:
        with self.app.app_context():
            return int(db.session.execute(select(func.max(Event.id))).scalar() or 0)

    def open_deadlines(self) -> dict[int, float]:
        """The deadline of every round open now (seconds since the epoch), by game: a process started in the
        middle of a round knows its last seconds too."""
        with self.app.app_context():
            rows = db.session.execute(
                select(Round.game_id, Round.deadline).where(Round.status == "open", Round.deadline.is_not(None))
            )
            return {row.game_id: aware(row.deadline).timestamp() for row in rows}

    def _read(self) -> list[tuple[int, int, str, bytes, dict[str, Any]]]:
        """Events past the cursor and any gap still awaited, as (id, game, kind, frame, data)."""
        now = time.monotonic()
        for gap in [gap for gap, since in self.gaps.items() if now - since > GAP_SECONDS]:
            del self.gaps[gap]
        condition = Event.id > self.cursor
        if self.gaps:
            condition = or_(condition, Event.id.in_(list(self.gaps)))
        with self.app.app_context():
            # Columns, not ORM objects: in a round's last seconds this reads hundreds of submissions a second.
            rows = db.session.execute(
                select(Event.id, Event.game_id, Event.kind, Event.data, Event.author, Event.created_at)
                .where(condition)
                .order_by(Event.id)
                .limit(READ_LIMIT)
            )
            read = [
                (row.id, row.game_id, row.kind, frame(present.event(row)).encode(), row.data)  # type: ignore[arg-type]
                for row in rows
            ]
        self.figures.reads += 1
        for event_id, *_ in read:
            self.gaps.pop(event_id, None)
            if event_id > self.cursor:
                for missing in range(self.cursor + 1, min(event_id, self.cursor + 1000)):
                    self.gaps.setdefault(missing, now)
                self.cursor = event_id
        return read

    def note_version(self, game_id: int, event_id: int) -> None:
        """The game has reached at least this version (an event read elsewhere: a catch-up, the database)."""
        if event_id > self.versions.get(game_id, 0):
            self.versions[game_id] = event_id

    def only_joins_since(self, game_id: int, since: int) -> bool:
        """Whether every event of the game past ``since`` that this process knows of is a player joining
        (read by the hub itself: a newer version noted from elsewhere, of any kind, says no)."""
        joined = self.joined_read.get(game_id, 0)
        return self.versions.get(game_id) == joined > since >= self.changes_read.get(game_id, 0)

    def recent(self, game_id: int, after: int, quiet: bool) -> list[bytes] | None:
        """The game's frames past ``after`` from memory, or None when the database must answer. Called in the
        event loop right after subscribing, so the frames here and those queued for the stream never overlap."""
        log = self.logs.get(game_id)
        frames = log.after(after, quiet) if log is not None else None
        if frames is not None:
            self.figures.catch_ups_from_memory += 1
        return frames

    def _log(self, game_id: int) -> GameLog:
        log = self.logs.get(game_id)
        if log is not None:
            self.logs.move_to_end(game_id)
            return log
        # Complete since the start, unless an earlier log of the game was dropped: then only from now on.
        log = self.logs[game_id] = GameLog(self.cursor if game_id in self._dropped_logs else self.start_cursor)
        for old in [game for game in self.logs if game not in self.streams][: max(0, len(self.logs) - RECENT_GAMES)]:
            del self.logs[old]
            self._dropped_logs.add(old)
        return log

    def _fan_out(self, rows: list[tuple[int, int, str, bytes, dict[str, Any]]]) -> None:
        for event_id, game_id, kind, data, record in rows:
            self.figures.events += 1
            if kind in DEADLINE_KINDS:
                _note_deadline(self.deadlines, game_id, kind, record)
            if kind in TOKEN_ENDING_KINDS and isinstance(record.get("player"), int):
                for watcher in self.player_watchers:
                    watcher(game_id, record["player"])
                self._later(
                    self._end_revoked_streams(game_id, "taken_over" if kind == "rejoined" else "player_removed")
                )
            self._log(game_id).add(event_id, kind, data)
            if kind not in UNVERSIONED_KINDS:
                self.note_version(game_id, event_id)
                table = self.joined_read if kind == "joined" else self.changes_read
                table[game_id] = max(event_id, table.get(game_id, 0))
            elif kind == "submission":
                self.submissions_read[game_id] = max(event_id, self.submissions_read.get(game_id, 0))
            # A submission goes to the few projectors and consoles, not to every phone of the room.
            streams = (self.loud if kind in QUIET_KINDS else self.streams).get(game_id)
            if not streams:
                continue
            for stream in list(streams):
                if kind == DRAW_SHARED and stream.outsider:
                    stream.close()  # another game has this draw now: outsiders wait until it catches up
                elif stream.offer(event_id, data):
                    self.figures.frames += 1
                else:
                    self.figures.dropped += 1
                    self.unsubscribe(stream)
                    stream.close()

    def _later(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(work)
        self._chores.add(task)  # kept until done (the loop holds tasks only weakly)
        task.add_done_callback(self._chores.discard)

    async def _end_revoked_streams(self, game_id: int, reason: str) -> None:
        """After a removal or a rejoin: each stream of the game opened with a player token no player holds now is
        told why (a ``revoked`` event, which the phone page shows: "This place was taken over by another phone")
        and ends. The database says which tokens are still held: the new phone's stream may be open already."""
        opened_with = {stream: stream.token_hash for stream in self.streams.get(game_id, ()) if stream.token_hash}
        if not opened_with:
            return
        try:
            held = await self.reads.run(self._held_tokens, set(opened_with.values()))
        except Exception as error:  # the database is away: the stream goes on; its plays are refused all the same
            log.warning("event hub cannot check the streams of game %s (%s)", game_id, type(error).__name__)
            return
        told = revoked(reason).encode()
        for stream, token_hash in opened_with.items():
            if token_hash not in held:
                stream.offer(0, told)
                stream.close()

    def _held_tokens(self, token_hashes: set[str]) -> set[str]:
        with self.app.app_context():
            return set(
                db.session.execute(select(Player.token_hash).where(Player.token_hash.in_(token_hashes))).scalars()
            )

    async def _listen_redis(self, url: str) -> None:
        """Wake on every message of the channel; reconnect after a Redis restart."""
        import redis.asyncio as aioredis

        while True:
            client: Any = None
            try:
                client = aioredis.Redis.from_url(url)
                pubsub = client.pubsub()
                await pubsub.subscribe(notify.CHANNEL)
                self.poll = REDIS_POLL_SECONDS
                self._wake.set()  # whatever was published while not subscribed
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        self._wake.set()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("event hub lost Redis; polling every %.1f s until it is back", POLL_SECONDS)
                self.poll = POLL_SECONDS
                await asyncio.sleep(1.0)
            finally:
                if client is not None:
                    with contextlib.suppress(Exception):
                        await client.aclose()


def _note_deadline(deadlines: dict[int, float], game_id: int, kind: str, record: dict[str, Any]) -> None:
    """What an event of :data:`DEADLINE_KINDS` says of its game's deadline: a round opened or resumed sets it, time
    added moves it, a pause, a close or the game's end takes it away."""
    if kind in ("round_started", "resumed") and isinstance(record.get("deadline"), str):
        with contextlib.suppress(ValueError):
            deadlines[game_id] = aware(datetime.fromisoformat(record["deadline"])).timestamp()
    elif kind == "extended" and game_id in deadlines and isinstance(record.get("seconds"), int | float):
        deadlines[game_id] += record["seconds"]
    elif kind in ("paused", "round_closed", "finished"):
        deadlines.pop(game_id, None)
