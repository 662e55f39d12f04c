"""Live events under the production server (issue 6): the event hub, uvicorn, several processes with Redis.

What a club would notice: every phone and the projector hear each round event once, in order,
whether the event was written by the process they are connected to, another web process or the
scheduler; a phone's stream is not flooded with other players' submissions; hundreds of open
streams do not need hundreds of threads; and a reconnection picks up exactly what was missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import AsyncIterator, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from flask import Flask
from sqlalchemy import insert

from tests.processes import SchedulerProcess, TirageServer, best_play
from tests.redis_server import RedisServer
from trainer.core import accounts
from trainer.core.database import db
from trainer.core.group_commit import KEY as GROUP_FSYNC_KEY
from trainer.core.group_commit import GroupFsync
from trainer.engine.lexicon import Lexicon, LexiconStore
from trainer.engine.rules import Ruleset, ruleset
from trainer.games import service
from trainer.games.models import Event, Game
from trainer.live.hub import EventHub, Stream

PASSWORD = "correct horse"
WAIT = 20.0


T = TypeVar("T")


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` in a loop of its own thread and return what it returns: the browser tests'
    Playwright keeps an event loop running in the main thread for the whole session, where
    ``asyncio.run`` refuses to start."""
    failures: list[BaseException] = []
    results: list[T] = []

    def run() -> None:
        try:
            results.append(asyncio.run(coroutine))
        except BaseException as failure:
            failures.append(failure)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failures:
        raise failures[0]
    return results[0]


# ------------------------------------------------------------------------------------------ the hub


def _new_game(app: Flask, players: int = 0) -> tuple[int, list[str]]:
    with app.app_context():
        director = accounts.create_director(f"d{time.monotonic_ns()}", PASSWORD)
        game = service.create_game(director, {"rules": "en", "round_seconds": 60})
        tokens = [service.join_game(game.join_code, f"P{i}")[1] for i in range(players)]
        return game.id, tokens


@contextlib.asynccontextmanager
async def running_hub(app: Flask, poll: float) -> AsyncIterator[EventHub]:
    hub = EventHub(app, poll=poll)
    await hub.start()
    try:
        yield hub
    finally:
        await hub.stop()


async def _frames(stream: Stream, count: int) -> list[tuple[int, dict[str, Any]]]:
    """The next ``count`` event frames of ``stream`` (heartbeats skipped), as (id, data)."""
    got: list[tuple[int, dict[str, Any]]] = []
    while len(got) < count:
        item = await asyncio.wait_for(stream.queue.get(), WAIT)
        assert item is not None, "the hub closed the stream"
        event_id, data = item
        if event_id:
            text = data.decode()
            got.append((event_id, json.loads(text.split("\ndata: ", 1)[1])))
    return got


def test_hub_reads_each_event_once_and_fans_it_out_per_game(app: Flask) -> None:
    game_id, tokens = _new_game(app, players=2)
    other_id, _ = _new_game(app)

    def play_a_little() -> None:
        with app.app_context():
            game = db.session.get(Game, game_id)
            assert game is not None
            service.join_game(game.join_code, "Late")
            service.start_game(game, "director")
            other = db.session.get(Game, other_id)
            assert other is not None
            service.start_game(other, "director")
            player = service.player_for_token(tokens[0])
            assert player is not None
            rack_play = best_play_in_app(app, game)
            service.submit(game, player, 1, rack_play)

    async def scenario() -> None:
        async with running_hub(app, 30.0) as hub:  # only the in-process wake-up can deliver within the test
            loud, quiet, elsewhere = (
                hub.subscribe(game_id, False),
                hub.subscribe(game_id, True),
                hub.subscribe(other_id, False),
            )
            await asyncio.to_thread(play_a_little)
            heard = await _frames(loud, 3)
            assert [data["kind"] for _, data in heard] == ["joined", "round_started", "submission"]
            assert [event_id for event_id, _ in heard] == sorted(event_id for event_id, _ in heard)
            assert heard[2][1]["submissions"] == 1 and "P0" not in json.dumps(heard[2][1])  # counts, never names
            assert [data["kind"] for _, data in await _frames(quiet, 1)] == ["round_started"]
            assert [data["kind"] for _, data in await _frames(elsewhere, 1)] == ["round_started"]
            await asyncio.sleep(0.3)
            assert quiet.queue.empty() and elsewhere.queue.empty()  # nothing else, nothing twice
            assert hub.figures.events == 4 and hub.figures.frames == 5

    run_async(scenario())


def best_play_in_app(app: Flask, game: Game) -> str:
    from trainer.core.lexicons import lexicon_store

    round_ = service.current_round(game)
    assert round_ is not None
    state = {"board": service.board_rows(game, round_.board_before), "rack": round_.rack}
    rules = ruleset(game.rules)
    return best_play(state, rules, lexicon_store(app).load(game.lexicon))[0]


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_hub_delivers_an_event_committed_after_a_later_one(app: Flask) -> None:
    """PostgreSQL hands out ids in order but may commit them out of order: the hub must not skip the
    earlier id it did not see the first time."""
    game_id, _ = _new_game(app)

    async def scenario() -> None:
        async with running_hub(app, 0.05) as hub:
            stream = hub.subscribe(game_id, False)
            with app.app_context():
                slow = db.engine.connect()
                slow_tx = slow.begin()
                slow.execute(
                    insert(Event).values(
                        game_id=game_id, kind="paused", data={"round": 1}, author="slow", created_at=service.utcnow()
                    )
                )
                with db.engine.begin() as fast:
                    fast.execute(
                        insert(Event).values(
                            game_id=game_id,
                            kind="resumed",
                            data={"round": 1},
                            author="fast",
                            created_at=service.utcnow(),
                        )
                    )
                first = await _frames(stream, 1)
                assert [data["by"] for _, data in first] == ["fast"]
                slow_tx.commit()
                slow.close()
            second = await _frames(stream, 1)
            assert [data["by"] for _, data in second] == ["slow"] and second[0][0] < first[0][0]

    run_async(scenario())


def test_a_stream_too_slow_to_read_is_dropped_not_waited_for(app: Flask) -> None:
    game_id, _ = _new_game(app)

    async def scenario() -> None:
        async with running_hub(app, 0.05) as hub:
            stalled = hub.subscribe(game_id, False)
            for _ in range(stalled.queue.maxsize):
                stalled.offer(0, b": filler\n\n")
            reader = hub.subscribe(game_id, False)
            await asyncio.to_thread(_log_event, app, game_id)
            assert [data["kind"] for _, data in await _frames(reader, 1)] == ["paused"]
            assert stalled not in hub.streams.get(game_id, set()) and hub.figures.dropped == 1

    run_async(scenario())


def _log_event(app: Flask, game_id: int) -> None:
    with app.app_context():
        service.log(game_id, "paused", {"round": 1}, "director")
        db.session.commit()


# ----------------------------------------------------------------------------- group commit (SQLite)


def test_every_commit_waits_for_an_fsync_that_began_after_it() -> None:
    """The guarantee that makes a shared fsync as durable as one each: nobody returns before an fsync
    that started after their commit has ended; and concurrent commits share fsyncs."""
    clock = iter(range(1, 1_000_000))
    lock = threading.Lock()
    fsyncs: list[tuple[int, int]] = []

    class Recorded(GroupFsync):
        def _fsync(self) -> None:
            with lock:
                began = next(clock)
            time.sleep(0.01)
            with lock:
                fsyncs.append((began, next(clock)))

    group = Recorded("/nonexistent")
    waits: list[tuple[int, int]] = []

    def commit() -> None:
        for _ in range(20):
            with lock:
                committed = next(clock)
            group.wait_durable()
            with lock:
                waits.append((committed, next(clock)))

    threads = [threading.Thread(target=commit) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(waits) == 160
    for committed, returned in waits:
        assert any(committed < began and ended < returned for began, ended in fsyncs), (committed, returned)
    assert group.fsyncs == len(fsyncs) < len(waits)  # shared


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_sqlite_commits_wait_for_the_group_fsync(app: Flask) -> None:
    group: GroupFsync = app.extensions[GROUP_FSYNC_KEY]
    before = group.waits
    _new_game(app, players=3)  # a director, a game, three players: five commits that wrote
    assert group.waits - before == 5 and group.fsyncs >= 1
    with app.app_context():
        assert db.session.execute(db.text("PRAGMA synchronous")).scalar() == 1  # NORMAL: we sync ourselves


# ------------------------------------------------------------------------- the real server (uvicorn)


class SseClient:
    """A minimal Server-Sent Events reader on a raw connection, as light as a phone's."""

    def __init__(self, base_url: str, path: str, last_event_id: int | None = None) -> None:
        host, port = base_url.removeprefix("http://").split(":")
        self.host, self.port, self.path, self.last_event_id = host, int(port), path, last_event_id
        self.events: list[dict[str, Any]] = []
        self.status = 0

    async def run(self, until: Any) -> None:
        """Read until ``until(self.events)`` is true."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        resume = f"Last-Event-ID: {self.last_event_id}\r\n" if self.last_event_id is not None else ""
        writer.write(
            f"GET {self.path} HTTP/1.1\r\nHost: {self.host}\r\nAccept: text/event-stream\r\n{resume}\r\n".encode()
        )
        self.status = int((await reader.readline()).split()[1])
        while (await reader.readline()) not in (b"\r\n", b""):
            pass
        event: dict[str, Any] = {}
        try:
            while not until(self.events):
                line = (await reader.readline()).decode().rstrip("\n")
                if line.startswith("id: "):
                    event["id"] = int(line[4:])
                elif line.startswith("event: "):
                    event["kind"] = line[7:]
                elif line.startswith("data: "):
                    event["data"] = json.loads(line[6:])
                elif line == "" and "id" in event:
                    self.events.append(event)
                    event = {}
                elif not line and reader.at_eof():
                    raise AssertionError(f"the stream ended after {self.events}")
        finally:
            writer.close()


@pytest.fixture
def server(tmp_path: Path, lexicon_store: LexiconStore) -> Iterator[TirageServer]:
    # Two threads for pages and API calls: the streams below must not need any.
    with TirageServer(tmp_path, lexicon_store.cache_dir, serve_args=("--threads", "2")) as running:
        running.create_director("alice", PASSWORD)
        yield running


def _director(server: TirageServer) -> str:
    answer = server.ok("POST", "/api/auth/token", {"username": "alice", "password": PASSWORD})
    return str(answer["token"])


def test_hundreds_of_streams_hear_the_round_start_without_a_thread_each(server: TirageServer) -> None:
    director = _director(server)
    game = server.ok("POST", "/api/games", {"rules": "en", "round_seconds": 60}, director, status=201)
    gid = game["id"]
    phones = [SseClient(server.base_url, f"/api/games/{gid}/events?quiet=1") for _ in range(300)]
    projector = SseClient(server.base_url, f"/api/games/{gid}/events")

    async def scenario() -> None:
        started = lambda events: any(e["kind"] == "round_started" for e in events)  # noqa: E731
        listening = [asyncio.create_task(phone.run(started)) for phone in phones]
        watching = asyncio.create_task(
            projector.run(lambda events: sum(e["kind"] == "joined" for e in events) >= 2 and started(events))
        )
        await asyncio.sleep(1.0)  # every stream connected and subscribed
        await asyncio.to_thread(
            lambda: [
                server.ok("POST", "/api/join", {"code": game["join_code"], "name": name}, status=201)
                for name in ("Ann", "Bob")
            ]
        )
        await asyncio.to_thread(server.ok, "POST", f"/api/games/{gid}/start", None, director)
        await asyncio.wait_for(asyncio.gather(*listening, watching), WAIT * 2)

    run_async(scenario())
    assert {phone.status for phone in phones} == {200}
    for phone in phones:
        assert [e["kind"] for e in phone.events] == ["created", "round_started"]  # quiet: no joins
    assert [e["kind"] for e in projector.events] == ["created", "joined", "joined", "round_started"]
    assert phones[0].events[1]["data"]["rack"] == server.ok("GET", f"/api/games/{gid}")["rack"]


def test_a_reconnecting_stream_gets_exactly_what_it_missed(server: TirageServer) -> None:
    director = _director(server)
    game = server.ok("POST", "/api/games", {"rules": "en", "round_seconds": 60}, director, status=201)
    gid = game["id"]
    for name in ("Ann", "Bob", "Cy"):
        server.ok("POST", "/api/join", {"code": game["join_code"], "name": name}, status=201)
    everything = SseClient(server.base_url, f"/api/games/{gid}/events")
    run_async(everything.run(lambda events: len(events) >= 4))
    ids = [e["id"] for e in everything.events]
    assert [e["kind"] for e in everything.events] == ["created", "joined", "joined", "joined"]
    resumed = SseClient(server.base_url, f"/api/games/{gid}/events", last_event_id=ids[1])

    async def resume() -> None:
        task = asyncio.create_task(resumed.run(lambda events: len(events) >= 3))
        await asyncio.sleep(0.5)
        await asyncio.to_thread(server.ok, "POST", f"/api/games/{gid}/start", None, director)
        await asyncio.wait_for(task, WAIT)

    run_async(resume())
    assert [e["id"] for e in resumed.events[:2]] == ids[2:]
    assert resumed.events[2]["kind"] == "round_started" and resumed.events[2]["id"] > ids[-1]


def test_stream_refusals_are_clear(server: TirageServer) -> None:
    status, headers, body = server.request("GET", "/api/games/999/events")
    assert (status, headers["content-type"], json.loads(body)) == (
        404,
        "application/json",
        {"error": "no game has the id 999"},
    )
    director = _director(server)
    gid = server.ok("POST", "/api/games", {"rules": "en"}, director, status=201)["id"]
    for query, header in [("?timeout=soon", {}), ("?quiet=maybe", {}), ("", {"Last-Event-ID": "-1"})]:
        status, _headers, body = server.request("GET", f"/api/games/{gid}/events{query}", headers=header)
        assert status == 400 and json.loads(body)["error"], (query, header, body)


# ---------------------------------------------------------------- several processes, PostgreSQL, Redis


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    yield server
    server.stop()


def test_two_web_processes_and_a_scheduler_share_one_game_through_redis(
    tmp_path: Path,
    lexicon_store: LexiconStore,
    en_rules: Ruleset,
    en_lexicon: Lexicon,
    postgres: Any,
    redis_server: RedisServer,
) -> None:
    """The deployment of docs/deployment.md on one machine: a play handed in on one web process is heard on
    the projector's stream held by another, and the round closed by the scheduler process is heard too.
    The hubs' database poll is set to ten minutes, so only Redis can deliver within the test."""
    env = {"DATABASE_URL": postgres.new_database(), "REDIS_URL": redis_server.url, "TIRAGE_LIVE_POLL": "600"}
    first = TirageServer(tmp_path / "a", lexicon_store.cache_dir, env_extra=env, serve_args=("--no-scheduler",))
    second = TirageServer(tmp_path / "b", lexicon_store.cache_dir, env_extra=env, serve_args=("--no-scheduler",))
    # Both instance folders must hold the same secret key, as two machines of one club would.
    (tmp_path / "b" / "instance").mkdir(parents=True, exist_ok=True)
    first.start()
    (tmp_path / "b" / "instance" / "secret_key").write_bytes((tmp_path / "a" / "instance" / "secret_key").read_bytes())
    second.start()
    scheduler = SchedulerProcess(first).start()
    try:
        first.create_director("alice", PASSWORD)
        director = _director(first)
        game = first.ok(
            "POST", "/api/games", {"rules": "en", "round_seconds": 10, "reveal_seconds": None}, director, status=201
        )
        gid = game["id"]
        projector = SseClient(second.base_url, f"/api/games/{gid}/events")

        async def scenario() -> None:
            heard = asyncio.create_task(projector.run(lambda events: any(e["kind"] == "round_closed" for e in events)))
            await asyncio.sleep(1.0)
            ann = await asyncio.to_thread(
                first.ok, "POST", "/api/join", {"code": game["join_code"], "name": "Ann"}, None, 201
            )
            state = await asyncio.to_thread(second.ok, "POST", f"/api/games/{gid}/start", None, director)
            top, _score, _lesser = best_play(state, en_rules, en_lexicon)
            await asyncio.to_thread(first.ok, "POST", f"/api/games/{gid}/rounds/1/plays", {"move": top}, ann["token"])
            await asyncio.wait_for(heard, WAIT * 2)

        run_async(scenario())
        kinds = [e["kind"] for e in projector.events]
        assert kinds == ["created", "joined", "round_started", "submission", "round_closed"], kinds
        assert projector.events[-1]["data"]["by"] == "scheduler"
        assert projector.events[3]["data"]["submissions"] == 1
        results = second.ok("GET", f"/api/games/{gid}/rounds/1", token=director)["results"]
        assert [(r["name"], r["top"]) for r in results] == [("Ann", True)]
    finally:
        scheduler.stop()
        second.stop()
        first.stop()
