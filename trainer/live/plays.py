"""What every phone of a room sends at the same moment, answered in the event loop: its play, and its reveal.

In a room's last seconds every phone hands in at once. Through the Flask view a play cost about
8 ms of a core (a thread hand-off, the request and session machinery, five ORM round trips and a
commit of its own), so one process answered about 110 plays a second and the queue grew to
seconds. Here ``POST /api/games/<id>/rounds/<n>/plays`` is taken where the request arrives:

* the player behind a token and the round's rack and board are read from the database once and
  kept (a round's rack and board are fixed when it opens; a token is its player's until the director
  removes them or a rejoin takes their place over: the event hub of every process reads the ``removed``
  or ``rejoined`` event and the token is forgotten, and meanwhile the writer refuses a play whose player
  no longer holds its token);
* the play is judged in the event loop (the engine takes about 50 µs) and counted against the
  player's submit limit (the views' own counter); a play the engine refuses is answered 422 with
  its reason, as the view does;
* one writer thread writes every play waiting at that moment in one transaction
  (:func:`trainer.games.service.store_plays`: the same rules, deadline check and events as the
  view), so a burst costs one commit and one fsync, and each play is answered once it is on disk. One
  bad play never fails another: a batch that meets an error (other than the database being away) is
  written again play by play, so only the play at fault is refused.

Anything else unusual (no token or an unknown one, a body that is not a plain play, a round not
running, a limit reached) is handed to the Flask view unchanged, so those refusals are the view's
own answers. Besides the engine's 422, only the outcomes of writing are answered here: taken, or
refused because the round closed first (409), and 503 when the database is away.

At the reveal every phone reads its own result (``GET /api/games/<id>/rounds/<n>/me``), 6 ms each
through the view. Here the answers of the whole room are built once per version of the game (the
version of :mod:`trainer.games.cache`), in a worker thread, and each read is a lookup. The version
comes from the process's event hub, which has read every event this process's streams were sent
(and catch-up reads note theirs), so a phone told of a close or a correction reads what follows it.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import re
import threading
import time
from dataclasses import dataclass
from typing import Any

from flask import Flask
from sqlalchemy import select
from sqlalchemy.exc import InterfaceError, OperationalError

from ..core.clock import iso
from ..core.codes import hash_token
from ..core.database import database_error_summary, db, recover_from
from ..core.errors import Refused
from ..games import present, service, topping
from ..games.cache import game_results, version_of
from ..games.models import Game, Player, Round
from ..games.service import AcceptedPlay, PendingPlay, RoundPlaying
from ..http.body import parse_json_object
from ..http.errors import DATABASE_UNAVAILABLE, RETRY_AFTER_SECONDS, status_of
from ..http.headers import header_pairs
from ..http.ids import GAME_ID_DIGITS, MAX_GAME_ID, MAX_ID
from ..http.ratelimit import submit_allowed
from .asgi_tools import (
    ASGIApp,
    BuiltOnce,
    Kept,
    Receive,
    Scope,
    Send,
    Workers,
    arrived,
    bearer_token,
    json_bytes,
    read_body,
    read_in_thread,
    replaying,
)
from .hub import EventHub

PLAYS_PATH = re.compile(rf"/api/games/({GAME_ID_DIGITS})/rounds/([1-9][0-9]{{0,9}})/plays")
MY_ROUND_PATH = re.compile(rf"/api/games/({GAME_ID_DIGITS})/rounds/([1-9][0-9]{{0,9}})/me")
REVEALS_KEPT = 8  # versions of a room's answers kept (each about 1 kB a player)
PLAYERS_KEPT = 200_000  # token hash -> player, about 300 bytes each
ROOM_READ_SECONDS = 10.0  # a room's players are read whole at most this often (late joiners are read alone)
ROUNDS_KEPT = 64  # rounds being played at once in this process
BATCH_LIMIT = 2000  # plays written in one transaction at most
READ_THREADS = 2  # the play path's own threads for its reads
NOT_STORED = "the server could not store the play just now: try again in a few seconds"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class KnownPlayer:
    id: int
    game_id: int
    name: str


@dataclass
class Counts:
    """What the desk did since the process started (for tests and an operator's curiosity)."""

    taken: int = 0  # plays answered here: accepted, or refused as the round closed
    refused: int = 0  # plays the engine refused, answered here (422)
    handed_on: int = 0  # requests given to the Flask view
    reveals: int = 0  # reveal reads answered here
    reveal_builds: int = 0  # times a room's reveal answers were built
    batches: int = 0
    largest_batch: int = 0


class PlayDesk:
    """The play path of one web process: :meth:`play` and :meth:`my_round` in the event loop, one writer
    thread behind them."""

    def __init__(self, app: Flask, fallback: ASGIApp, hub: EventHub) -> None:
        self.app = app
        self.fallback = fallback
        self.hub = hub
        # Its own threads for its reads (who a token is, a round's rack): a flood of other requests waiting for
        # threads (event-stream catch-ups, pages) never delays a play past its deadline.
        self.reads = Workers("play-read", READ_THREADS)
        self.players: Kept[str, KnownPlayer] = Kept(PLAYERS_KEPT)  # by token hash
        self.forgotten = 0  # players forgotten so far (removed, or taken over): a read begun before is not kept
        hub.player_watchers.append(self.forget_player)
        self._rooms_read: dict[int, float] = {}  # game -> when all its players were last read
        self.rounds: Kept[tuple[int, int], RoundPlaying] = Kept(ROUNDS_KEPT)
        self.reveals: BuiltOnce[tuple[int, int, int], dict[int, bytes]] = BuiltOnce(REVEALS_KEPT, "reveal answers")
        self.counts = Counts()
        self.stored_in: dict[int, int] = {}  # game -> plays this desk stored in it (the phone pages' freshness)
        self._queue: queue.SimpleQueue[tuple[PendingPlay, asyncio.Future[AcceptedPlay]] | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._memory_limits = "memory://" in str(app.config.get("RATELIMIT_STORAGE_URI", ""))
        self._headers = header_pairs({"Content-Type": "application/json"}, bool(app.config.get("TIRAGE_HTTPS")))

    # ------------------------------------------------------------ start and stop

    def start(self) -> None:
        self._writer = threading.Thread(target=self._write_forever, name="play-writer", daemon=True)
        self._writer.start()

    def stop(self) -> None:
        if self._writer is not None:
            self._queue.put(None)
            self._writer.join(timeout=10)
            self._writer = None

    # ------------------------------------------------------------ a request

    async def play(self, scope: Scope, receive: Receive, send: Send) -> None:
        game_id, number = _ids(PLAYS_PATH, scope)
        body, complete = await read_body(receive)
        replay = replaying(body, complete, receive)
        received_at = arrived(scope)  # what decides lateness: not how long the event loop took to get here
        token, move = bearer_token(scope), _move(body) if complete else None
        player = await self.known_player(token, game_id) if move is not None else None
        playing = await self._round(game_id, number) if player is not None else None
        if token is None or move is None or player is None or playing is None:
            await self._hand_on(scope, replay, send)
            return
        refused: Refused | None = None
        try:
            text, score = service.judge(playing, move)
        except Refused as error:
            refused = error
        # Counted before anything is answered, refused plays too, as the view's limit does.
        allowed = (
            submit_allowed(self.app, token)
            if self._memory_limits
            else await self.reads.run(submit_allowed, self.app, token)
        )
        if not allowed:
            await self._hand_on(scope, replay, send)  # the view counts it again and answers 429
            return
        if refused is not None:  # not a legal placement: 422 with the engine's reason, as the view says it
            self.counts.refused += 1
            await self._answer(send, status_of(refused), {"error": str(refused)})
            return
        future: asyncio.Future[AcceptedPlay] = asyncio.get_running_loop().create_future()
        pending = PendingPlay(playing, player.id, player.name, text, score, received_at, token_hash=hash_token(token))
        self._queue.put((pending, future))
        self.counts.taken += 1
        try:
            accepted = await future
        except Refused as refused_now:  # late, or the player removed or taken over since the token was read
            status = status_of(refused_now)
            challenge = {"WWW-Authenticate": 'Bearer realm="tirage"'} if status == 401 else None
            await self._answer(send, status, {"error": str(refused_now)}, challenge)
            return
        except (OperationalError, InterfaceError) as error:
            log.warning("database unavailable for POST %s: %s", scope["path"], database_error_summary(error))
            await self._answer(send, 503, {"error": DATABASE_UNAVAILABLE}, {"Retry-After": str(RETRY_AFTER_SECONDS)})
            return
        except Exception:  # logged by the writer; this play was not stored, and the player may try again
            await self._answer(send, 503, {"error": NOT_STORED}, {"Retry-After": str(RETRY_AFTER_SECONDS)})
            return
        self.stored_in[game_id] = self.stored_in.get(game_id, 0) + 1
        await self._answer(
            send,
            200,
            {
                "round": number,
                "move": accepted.move,
                "score": accepted.score_as_placed,
                "received_at": iso(accepted.received_at),
            },
        )

    async def my_round(self, scope: Scope, receive: Receive, send: Send) -> None:
        game_id, number = _ids(MY_ROUND_PATH, scope)
        player = await self.known_player(bearer_token(scope), game_id)
        answers = await self._reveal(game_id, number) if player is not None else None
        body = answers.get(player.id) if answers is not None and player is not None else None
        if body is None:  # not closed, not found, a player who joined since: the view says what it is
            await self._hand_on(scope, receive, send)
            return
        self.counts.reveals += 1
        await self._send(send, 200, body)

    async def known_player(self, token: str | None, game_id: int) -> KnownPlayer | None:
        """The player of ``token`` if it is one of game ``game_id``'s."""
        if token is None or game_id > MAX_GAME_ID:
            return None
        token_hash = hash_token(token)
        player = self.players.get(token_hash)
        if player is None:
            forgotten = self.forgotten
            found = await read_in_thread(self.reads, self._find_players, token_hash, game_id) or {}
            if self.forgotten != forgotten:  # a player was forgotten during the read: it may have read them still
                return None  # the view answers, from the database
            for known_hash, known in found.items():
                self.players.put(known_hash, known)
            player = found.get(token_hash)
        return player if player is not None and player.game_id == game_id else None

    def forget_player(self, game_id: int, player_id: int) -> None:
        """The player was removed, or their place taken over by a new phone (the event hub read it): forget every
        token of theirs, so the next request with one is read again (and refused) instead of taken from memory."""
        self.forgotten += 1
        self.players.drop_where(lambda known: known.id == player_id)
        self._rooms_read.pop(game_id, None)  # the room's next read takes the new phone's token too

    async def _round(self, game_id: int, number: int) -> RoundPlaying | None:
        if number > MAX_ID:
            return None
        playing = self.rounds.get((game_id, number))
        if playing is None:
            playing = await read_in_thread(self.reads, self._find_round, game_id, number)
            if playing is not None:
                self.rounds.put((game_id, number), playing)
        return playing

    async def _reveal(self, game_id: int, number: int) -> dict[int, bytes] | None:
        """Every player's answer to ``.../rounds/<number>/me`` at the game's current version; built by one
        worker thread while the room's other reads wait for it. None when the round is not closed."""
        if number > MAX_ID:
            return None
        version = await self.game_version(game_id)
        if version is None:
            return None
        return await self.reveals.get((game_id, number, version), lambda: self._build_reveal(game_id, number))

    async def game_version(self, game_id: int) -> int | None:
        """The version of the game (:mod:`trainer.games.cache`) as this process knows it: what the event hub
        has read, or the database's the first time (None when it is away)."""
        version = self.hub.versions.get(game_id)
        if version is None:  # nothing of this game read since the hub started: ask the database once
            found = await read_in_thread(self.reads, self._find_version, game_id)
            if found is None:
                return None
            self.hub.note_version(game_id, found)
            version = self.hub.versions[game_id]
        return version

    async def _hand_on(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.counts.handed_on += 1
        await self.fallback(scope, receive, send)

    async def _answer(
        self, send: Send, status: int, payload: dict[str, Any], extra: dict[str, str] | None = None
    ) -> None:
        await self._send(send, status, json_bytes(payload), extra)

    async def _send(self, send: Send, status: int, body: bytes, extra: dict[str, str] | None = None) -> None:
        headers = [*self._headers, (b"content-length", str(len(body)).encode()), *header_pairs(extra or {})]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    # ------------------------------------------------------------ reads, in a worker thread

    def _find_players(self, token_hash: str, game_id: int) -> dict[str, KnownPlayer]:
        """The player of ``token_hash``; with them, the first time one of the room is met (and at most every
        :data:`ROOM_READ_SECONDS` after), every player of their game, so the room's first plays find theirs."""
        with self.app.app_context():
            row = db.session.execute(
                select(Player.id, Player.game_id, Player.name).where(Player.token_hash == token_hash)
            ).first()
            if row is None:
                return {}
            found = {token_hash: KnownPlayer(row.id, row.game_id, row.name)}
            now = time.monotonic()
            if row.game_id == game_id and now - self._rooms_read.get(game_id, -ROOM_READ_SECONDS) >= ROOM_READ_SECONDS:
                self._rooms_read[game_id] = now
                for other in db.session.execute(
                    select(Player.token_hash, Player.id, Player.game_id, Player.name).where(Player.game_id == game_id)
                ):
                    found[other.token_hash] = KnownPlayer(other.id, other.game_id, other.name)
            return found

    def _find_round(self, game_id: int, number: int) -> RoundPlaying | None:
        with self.app.app_context():
            game = db.session.get(Game, game_id)
            if game is None or topping.is_topping(game):  # a topping play is answered by the view (top or not)
                return None
            try:
                return service.round_playing(game, number)
            except Refused:
                return None  # not started, or over: the view says so

    def _find_version(self, game_id: int) -> int:
        with self.app.app_context():
            return version_of(game_id)

    def _build_reveal(self, game_id: int, number: int) -> dict[int, bytes] | None:
        """Read after the version was taken, so never older than it: what is kept for a version is that
        version or newer, and a newer version builds again."""
        with self.app.app_context():
            game = db.session.get(Game, game_id)
            round_ = (
                db.session.execute(
                    select(Round).where(Round.game_id == game_id, Round.number == number)
                ).scalar_one_or_none()
                if game is not None
                else None
            )
            if game is None or round_ is None or round_.status != "closed":
                return None
            self.counts.reveal_builds += 1
            answers = present.every_my_round(game, round_, game_results(game))
            return {player_id: json_bytes(answer) for player_id, answer in answers.items()}

    # ------------------------------------------------------------ the writer thread

    def _write_forever(self) -> None:
        while (first := self._queue.get()) is not None:
            batch = [first]
            stop = False
            while len(batch) < BATCH_LIMIT:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is None:
                    stop = True
                    break
                batch.append(item)
            self._write(batch)
            if stop:
                return

    def _write(self, batch: list[tuple[PendingPlay, asyncio.Future[AcceptedPlay]]]) -> None:
        outcomes = self.write([play for play, _future in batch])
        self.counts.batches += 1
        self.counts.largest_batch = max(self.counts.largest_batch, len(batch))
        futures = [future for _play, future in batch]
        loop = futures[0].get_loop()
        loop.call_soon_threadsafe(_settle, futures, outcomes)

    def write(self, plays: list[PendingPlay]) -> list[AcceptedPlay | BaseException]:
        """Write ``plays`` in one transaction; what each became (taken, refused, or the error it met). In the
        writer thread.

        One bad play never fails another: when the batch meets an error, it is written again play by play, so only
        the play at fault gets it. A database that is away (its connection lost, a read-only disk) fails every play
        at once: writing each again would only wait for it as many times."""
        try:
            return list(self._store(plays))
        except (OperationalError, InterfaceError) as away:
            return [away] * len(plays)
        except Exception as error:
            if len(plays) == 1:
                log.exception("writing a play failed")
                return [error]
            log.warning("writing %d plays failed (%s); writing them one by one", len(plays), type(error).__name__)
        return [outcome for play in plays for outcome in self.write([play])]

    def _store(self, plays: list[PendingPlay]) -> list[AcceptedPlay | Refused]:
        with self.app.app_context():
            try:
                return service.store_plays(plays)
            except BaseException as error:
                db.session.rollback()
                recover_from(error)
                raise


def _ids(path: re.Pattern[str], scope: Scope) -> tuple[int, int]:
    """The game id and round number of a path the application matched with ``path``."""
    match = path.fullmatch(scope["path"])
    assert match is not None
    return int(match[1]), int(match[2])


def _settle(futures: list[asyncio.Future[AcceptedPlay]], outcomes: list[AcceptedPlay | BaseException]) -> None:
    for future, outcome in zip(futures, outcomes, strict=True):
        if future.cancelled():
            continue  # the client went away; its play is written all the same
        if isinstance(outcome, BaseException):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)


# ------------------------------------------------------------ reading the request


def _move(body: bytes) -> str | None:
    """The play of a plain ``{"move": "..."}`` body; None for anything the view should look at (text a database
    cannot store among it: the view says why)."""
    try:
        data = parse_json_object(body)
    except Refused:
        return None
    if not all(isinstance(value, str | int | float | bool) or value is None for value in data.values()):
        return None
    move = data.get("move")
    return move if isinstance(move, str) else None
