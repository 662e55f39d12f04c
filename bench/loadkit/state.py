"""The run's shared state, and the bookkeeping every part of the run uses: errors, clock marks, tasks, and
API calls (the players' over their shared connections, the director's over its own)."""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import aiohttp

from .host import client_cpu, machine_cpu
from .profiler import Profiler
from .records import Mark, Player, RoundInfo, Submission
from .server import ServerProcess
from .sse import Listener


class RunState:
    """The run's state; the classes that make up ``LoadRun`` add behaviour to it, each for one part."""

    def __init__(self, args: argparse.Namespace, server: ServerProcess, instance: Path) -> None:
        self.args = args
        self.server = server
        self.instance = instance
        self.rng = random.Random(args.seed)
        per_address = getattr(args, "phones_per_address", 0)
        self.players = [
            Player(i, f"player {i:05d}", address=phone_address(i - 1, per_address)) for i in range(1, args.players + 1)
        ]
        self.game_id = 0
        self.join_code = ""
        self.director_token = ""
        self.settings: dict[str, Any] = {}
        self.rounds: dict[int, RoundInfo] = {}
        self.round_waiters: dict[int, asyncio.Future[RoundInfo]] = {}
        self.stopping = False
        self.errors: Counter[str] = Counter()
        self.error_examples: dict[str, list[str]] = {}
        self.reconnects = 0
        self.drops = 0
        self.duplicates = 0
        self.joins: list[float] = []
        self.stream_opens: list[float] = []
        self.submissions: list[Submission] = []
        self.in_flight = 0
        self.peak_in_flight = 0
        self.submission_events = 0  # seen by the projector
        self.finished_seen = False
        self.lags: list[tuple[float, float, float]] = []  # (monotonic time, epoch, lag)
        self.own_lags: list[float] = []  # the part of each lag spent running the client's own code
        self.marks: dict[str, Mark] = {}
        self.engine_cpu = 0.0
        self.tasks: set[asyncio.Task[Any]] = set()
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.api: aiohttp.ClientSession | None = None
        self.apis: dict[str, aiohttp.ClientSession] = {}  # the players' sessions, one per source address
        self.director_api: aiohttp.ClientSession | None = None
        self.api_slots = asyncio.Semaphore(args.api_connections)
        self.projector: Listener | None = None
        self.profiler: Profiler | None = None
        if args.profile and server.process is not None:
            self.profiler = Profiler(server.process.pid, server.folder / "profile.txt")

    def on_event(self, listener: Listener, kind: str, payload: bytes, now: float) -> None:
        """What an event received by ``listener`` sets going (``RoundEvents`` does it)."""
        raise NotImplementedError

    def error(self, kind: str, detail: str) -> None:
        self.errors[kind] += 1
        examples = self.error_examples.setdefault(kind, [])
        if len(examples) < 3:
            examples.append(detail[:300])

    def mark(self, name: str) -> None:
        busy, total = machine_cpu()
        self.marks[name] = Mark(
            time.monotonic(),
            self.server.cpu_seconds(),
            client_cpu() + self.engine_cpu,
            busy,
            total,
            sum(1 for s in self.submissions if s.status),
            sum(len(r.reads) for r in self.rounds.values()),
        )

    async def mark_at(self, name: str, moment: float) -> None:
        await asyncio.sleep(max(0.0, moment - time.time()))
        self.mark(name)

    def spawn(self, coroutine: Any) -> asyncio.Task[Any]:
        task = asyncio.create_task(coroutine)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    async def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        parse: bool = True,
        director: bool = False,
        player: Player | None = None,
    ) -> tuple[int, Any, float]:
        """(status, answer, seconds) of one API call; status 0 when there was no answer. A player's call
        waits for one of the players' connections; the director's has its own (another device)."""
        session = self.director_api if director else self.api_of(player)
        assert session is not None
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode() if body is not None else None
        async with contextlib.nullcontext() if director else self.api_slots:
            started = time.perf_counter()
            try:
                async with session.request(method, self.server.base + path, data=data, headers=headers) as answer:
                    raw = await answer.read()
                    status = answer.status
            except (aiohttp.ClientError, TimeoutError) as error:
                self.error(f"{method} {route_template(path)}: {type(error).__name__}", repr(error))
                return 0, None, time.perf_counter() - started
            seconds = time.perf_counter() - started
        if status >= 500:
            self.error(f"{method} {route_template(path)}: HTTP {status}", raw[:300].decode(errors="replace"))
        answer_body: Any = raw
        if parse and raw[:1] in (b"{", b"["):
            answer_body = json.loads(raw)
        return status, answer_body, seconds

    def api_of(self, player: Player | None) -> aiohttp.ClientSession | None:
        """The session a player's calls go through: its own source address's (the server's per-address limits
        count each address; a real room's phones come from as many)."""
        if player is not None and player.address in self.apis:
            return self.apis[player.address]
        return self.api

    async def ok(self, method: str, path: str, body: Any = None, token: str | None = None, expect: int = 200) -> Any:
        status, answer, _ = await self.call(method, path, body, token, director=True)
        if status != expect:
            raise RuntimeError(f"{method} {path}: {status} {answer!r:.300}")
        return answer


def phone_address(index: int, per_address: int) -> str:
    """The loopback address of player ``index``: ``per_address`` players a source address, from 127.1.0.1 (the
    attack bench uses 127.0.0.x), so that the server's per-address defences stay on and are never what is
    measured (2,000 streams and 4,096 connections an address; joins by the minute)."""
    group = index // per_address if per_address > 0 else 0
    return f"127.1.{group // 250}.{group % 250 + 1}" if per_address > 0 else "127.0.0.1"


def route_template(path: str) -> str:
    """A path with its numbers as ``<n>``: errors are counted per route, not per game or round."""
    parts = path.split("/")
    return "/".join("<n>" if part.isdigit() else part for part in parts)
