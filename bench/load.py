"""Load figures of a real ``tirage serve``: a room of players in one game (issue 6). Prints, never asserts.

    python bench/load.py [--players 1500] [--rounds 1] [--round-seconds 60] [--json] ...

The server runs as in production (``tirage serve``, a subprocess on loopback) on a temporary
instance folder: SQLite there unless ``--database-url`` is given, the word graphs copied from
``--lexicon-cache`` and built by ``tirage lexicon build`` when missing (15-30 s), so the server
builds nothing while it is measured. Then, with real HTTP:

* a director (``tirage director create``) logs in (``POST /api/auth/token``) and creates a game;
* every player joins (``POST /api/join``, ``--join-concurrency`` at a time) and opens the game's
  event stream (``GET /api/games/<id>/events?quiet=1``), held open for the whole run; a stream
  that ends is opened again with ``Last-Event-ID`` after the server's ``retry`` delay, as a
  browser does (a clean end is a reconnect, a broken one an error);
* one more stream, without ``quiet``, plays the projector: it sees every ``submission`` event;
* the director starts the game; on ``round_started`` each player plans ``--plays-per-player``
  plays at random moments, ``--late-share`` of them in the last 10 s before the deadline, and
  sends each with ``POST /api/games/<id>/rounds/<n>/plays``. The plays are random legal plays
  of the round (the engine, in a separate process, once per round), plus ``--bad-share`` of
  garbage that the server must refuse (422, an expected refusal). The last accepted play counts;
* on ``round_closed`` each player reads the reveal: their own round (``GET .../rounds/<n>/me``,
  as a phone app would, checking that it shows their last accepted play) or, with ``--reveal-read
  round``, the whole round (``GET .../rounds/<n>``);
* the round's results are then read once more and checked against every accepted play: a
  player's last accepted play (as the server wrote it in its 200 answer) must be the play of
  their result. Lost: an accepted play missing from the results, or a different play there.

Figures: latencies of joins, submissions and reveal reads (from sending to the whole answer);
event delivery delay (receive time minus the event's ``at``, one clock on one machine) for
``round_started`` and ``round_closed``; errors (5xx, connection errors, timeouts, broken
streams); the server's peak memory and CPU time (its process and children, from ``/proc``);
server CPU per request kind; the client's own CPU and event-loop lag, which say whether the
client kept up; with ``--profile``, the server's busiest functions (py-spy). Exit status 1
when a play was lost or anything unexpected happened; the targets are reported, not asserted.

The client is light on purpose, since it shares the machine with the server: one asyncio loop
(uvloop when installed); event streams on raw asyncio connections (a small HTTP/1.1 and SSE
reader that stamps the receive time as the bytes arrive); other calls through aiohttp with at
most ``--api-connections`` connections (a submission's latency is counted from the moment a
connection is free; the wait before is reported as the client queue).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import gc
import json
import math
import multiprocessing
import os
import platform
import random
import re
import resource
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import aiohttp

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

IDLE_SECONDS = 4.0  # measured with every stream open and nothing happening
MAX_API_CONNECTIONS = 4000  # with 10,000 streams, more would pass 20,000 open files on each side
LATE_WINDOW = 10.0  # "the last 10 seconds" of a round, where most plays land
DEADLINE_MARGIN = 0.5  # the latest a play is planned, before the deadline
STREAM_SILENCE = 45.0  # a stream with no byte for this long (heartbeats come every 15 s) is broken
SAMPLE_SECONDS = 1.0  # how often the server's /proc figures are read
LAG_TICK = 0.05  # the event-loop lag probe's period
SESSION_COOKIE = "session"  # Flask's session cookie, as `tirage serve` names it on http
PAGE_IGNORED_EVENTS = ("submission", "joined")  # the play page's data-ignore-events: no refetch on these
GARBAGE = ("", "ZZ", "8H", "Z99 CAT", "8H QQQQQQQQ", "H8")  # never a legal play: refused with 422
TARGETS = {  # issue 6, on a 2-core machine: players -> p99 submission latency (s)
    1500: 0.300,
    10000: 1.000,
}
REVEAL_TARGET = 2.0  # seconds until every player has the reveal (1,500 players)
SATURATED_CPU = 0.85  # share of one core above which the client is the bottleneck
DISTURBED_CPU = 0.25  # other processes' share of a core above which the run was disturbed
SATURATED_LAG = 0.100  # seconds of event-loop lag (p99) above which receive times are the client's


# ------------------------------------------------------------------ small helpers


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile; NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def spread(values: list[float]) -> dict[str, float | int]:
    return {
        "count": len(values),
        "p50": percentile(values, 0.5),
        "p99": percentile(values, 0.99),
        "max": max(values) if values else math.nan,
    }


def ms(seconds: float) -> str:
    if math.isnan(seconds):
        return "-"
    if seconds < 0.01:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds * 1000:.0f} ms" if seconds < 10 else f"{seconds:.1f} s"


def parse_time(text: str) -> float:
    """An ISO 8601 time of the server (``...Z`` or ``+00:00``) as epoch seconds."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def log(message: str) -> None:
    """Progress, on stderr (stdout carries the figures, or the JSON)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def tirage_command() -> list[str]:
    script = Path(sys.executable).with_name("tirage")
    return [str(script)] if script.exists() else [sys.executable, "-m", "trainer.cli"]


def raise_open_files_limit() -> int:
    """The soft limit up to the hard one: each stream is an open socket here too."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else 1_048_576
    if target > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def machine_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of every CPU of the machine, from /proc/stat (idle and iowait are not busy)."""
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:9]]
    return float(sum(values) - values[3] - values[4]), float(sum(values))


def checkout_version() -> str:
    """The checkout's commit, ``+changes`` when tracked files differ from it (the server runs the tree)."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "(not a git checkout)"
    return commit + ("+changes" if changed else "")


def client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# ------------------------------------------------------------------ the engine, in a process of its own

_ENGINE: dict[str, Any] = {}


def _engine_init(instance: str, lexicon: str) -> None:
    from trainer.engine.lexicon import LexiconStore

    _ENGINE["lexicon"] = LexiconStore(Path(instance)).load(lexicon)


def legal_plays(
    rules_code: str, notation: str, rows: list[str], rack: str, keep: int, seed: int
) -> tuple[list[str], int, float]:
    """Up to ``keep`` random legal plays, written as the server writes them; how many there are; CPU seconds.

    Run in a worker process: a generation can take a second, and the client's event loop must not
    stop stamping the receive times meanwhile.
    """
    from trainer.engine.board import Board
    from trainer.engine.movegen import generate_moves
    from trainer.engine.notation import format_move
    from trainer.engine.rules import ruleset

    started = time.process_time()
    rules = ruleset(rules_code)
    board = Board.from_rows(rules.layout, rows)
    texts = sorted({format_move(m, notation) for m in generate_moves(board, rules, _ENGINE["lexicon"], rack)})  # type: ignore[arg-type]
    sample = random.Random(seed).sample(texts, min(keep, len(texts)))
    return sample, len(texts), time.process_time() - started


def engine_cpu() -> float:
    return time.process_time()


# ------------------------------------------------------------------ the server process


class ServerProcess:
    """``tirage serve`` on a free loopback port of a temporary instance folder, and its /proc figures."""

    def __init__(self, folder: Path, env: dict[str, str], serve_args: list[str]) -> None:
        self.folder = folder
        self.env = env
        self.serve_args = serve_args
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / "serve.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.cpu: dict[int, float] = {}  # pid -> CPU seconds last read (processes that end keep theirs)
        self.hwm: dict[int, int] = {}  # pid -> VmHWM in kB
        self.rss_peak_kb = 0  # largest sum of VmRSS over the processes, as sampled
        self.tick = os.sysconf("SC_CLK_TCK")

    def cli(self, *args: str, timeout: float = 600.0) -> str:
        done = subprocess.run(
            [*tirage_command(), *args],
            cwd=self.folder,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"tirage {' '.join(args)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
        return done.stdout

    def start(self, timeout: float = 120.0) -> None:
        with self.log_path.open("ab") as out:
            self.process = subprocess.Popen(
                [*tirage_command(), "serve", "--port", str(self.port), *self.serve_args],
                cwd=self.folder,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        limit = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"tirage serve exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(f"{self.base}/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > limit:
                raise RuntimeError(f"tirage serve did not answer /healthz within {timeout:g} s")
            time.sleep(0.2)

    def stop(self, timeout: float = 20.0) -> int | None:
        """SIGTERM (as a service manager does), SIGKILL to the group after ``timeout``; the exit status."""
        if self.process is None:
            return None
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=timeout)
        return self.process.returncode

    def output(self, lines: int = 60) -> str:
        if not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def pids(self) -> list[int]:
        """The server process and every descendant (uvicorn workers, a scheduler...)."""
        if self.process is None:
            return []
        found, pending = [], [self.process.pid]
        while pending:
            pid = pending.pop()
            found.append(pid)
            with contextlib.suppress(OSError):
                for task in os.listdir(f"/proc/{pid}/task"):
                    with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/children") as children:
                        pending.extend(int(c) for c in children.read().split())
        return found

    def sample(self) -> None:
        rss = 0
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
                with open(f"/proc/{pid}/status") as status:
                    lines = status.read().splitlines()
            except OSError:
                continue
            # utime and stime are fields 14 and 15 of the stat line; fields[0] here is field 3.
            self.cpu[pid] = max(self.cpu.get(pid, 0.0), (int(fields[11]) + int(fields[12])) / self.tick)
            for line in lines:
                if line.startswith("VmHWM:"):
                    self.hwm[pid] = max(self.hwm.get(pid, 0), int(line.split()[1]))
                elif line.startswith("VmRSS:"):
                    rss += int(line.split()[1])
        self.rss_peak_kb = max(self.rss_peak_kb, rss)

    def cpu_seconds(self) -> float:
        self.sample()
        return sum(self.cpu.values())


class Profiler:
    """``py-spy record --gil`` of the server over the rounds: where the server's Python time goes."""

    def __init__(self, pid: int, path: Path) -> None:
        self.pid = pid
        self.path = path
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        py_spy = shutil.which("py-spy")
        if py_spy is None:
            raise RuntimeError("--profile needs py-spy (pip install py-spy)")
        # --gil: only the thread holding the GIL, i.e. what uses the process's one Python core.
        self.process = subprocess.Popen(
            [
                py_spy,
                "record",
                "--pid",
                str(self.pid),
                "--subprocesses",
                "--gil",
                "--nonblocking",
                "--rate",
                "100",
                "--format",
                "raw",
                "--output",
                str(self.path),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def summary(self, top: int = 15) -> dict[str, Any]:
        """Samples in all; the functions most often on top of the stack (self) and, of Tirage's own,
        the most often anywhere in it (inclusive), as shares of the samples."""
        own: Counter[str] = Counter()
        inclusive: Counter[str] = Counter()
        total = 0
        if self.path.exists():
            for line in self.path.read_text(errors="replace").splitlines():
                stack, _, count_text = line.rpartition(" ")
                if not count_text.isdigit():
                    continue
                count = int(count_text)
                frames = [_frame_name(f) for f in stack.split(";")[1:]]  # the first is the process
                if not frames:
                    continue
                total += count
                own[frames[-1]] += count
                for name in {f for f in frames if "trainer/" in f}:
                    inclusive[name] += count
        return {
            "samples": total,
            "self": [(name, n / total) for name, n in own.most_common(top)] if total else [],
            "tirage_inclusive": [(name, n / total) for name, n in inclusive.most_common(top)] if total else [],
        }


def _frame_name(frame: str) -> str:
    """``submit (trainer/games/service.py:345)`` -> ``submit (trainer/games/service.py)``."""
    name, _, where = frame.partition(" (")
    return f"{name} ({where.rsplit(':', 1)[0]})" if where else name


# ------------------------------------------------------------------ event streams on raw connections


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

    def __init__(self, run: LoadRun, player: Player | None, quiet: bool) -> None:
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
                    loop.create_connection(stream.itself, "127.0.0.1", run.server.port), run.args.request_timeout
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


# ------------------------------------------------------------------ the run


@dataclass(eq=False)
class Player:
    index: int
    name: str
    token: str = ""
    player_id: int = 0
    listener: Listener | None = None
    accepted: dict[int, str] = field(default_factory=dict)  # round -> the last accepted play, as the server wrote it
    seen: set[tuple[str, int]] = field(default_factory=set)  # (event kind, round) received
    playing: dict[int, asyncio.Task[None]] = field(default_factory=dict)  # round -> the task sending its plays
    cookie: str = ""  # with --phones pages: the session cookie the join page set
    page_event_id: int = 0  # with --phones pages: the last event the play page was drawn with


@dataclass(eq=False)
class RoundInfo:
    number: int
    at: float  # the round_started event's server time
    deadline: float
    rack: str
    plays: asyncio.Future[list[str]]
    legal_count: int = 0
    closed_at: float = math.nan  # the round_closed event's server time
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    started_delays: list[float] = field(default_factory=list)
    closed_delays: list[float] = field(default_factory=list)
    reads: list[float] = field(default_factory=list)  # reveal read latencies
    page_started: list[float] = field(default_factory=list)  # --phones pages: round start event -> page fragment
    page_reveal: list[float] = field(default_factory=list)  # --phones pages: round_closed event -> page fragment
    reads_done: int = 0
    reads_started: int = 0
    planned: list[float] = field(default_factory=list)  # planned send times (epoch)
    audit: dict[str, int] = field(default_factory=dict)


@dataclass
class Mark:
    """Clocks at one moment of the run: wall, server and client CPU seconds, the machine's busy and total."""

    wall: float
    server: float
    client: float
    busy: float
    total: float
    answered: int  # submissions answered so far
    reads: int  # reveal reads answered so far

    @staticmethod
    def share(begin: Mark | None, end: Mark | None) -> dict[str, float]:
        """Seconds between two marks, and each CPU in cores over them (the machine's: every process)."""
        if begin is None or end is None or end.wall <= begin.wall:
            return dict.fromkeys(("seconds", "server_cpu", "client_cpu", "machine_cpu"), math.nan)
        wall = end.wall - begin.wall
        cores = (os.cpu_count() or 1) * (end.busy - begin.busy) / max(end.total - begin.total, 1e-9)
        return {
            "seconds": wall,
            "server_cpu": (end.server - begin.server) / wall,
            "client_cpu": (end.client - begin.client) / wall,
            "machine_cpu": cores,
        }


@dataclass
class Submission:
    round: int
    pressed: float  # epoch, when the player sent it (as far as they know)
    sent: float  # epoch, when a client connection was free and the request went
    latency: float
    queued: float  # the wait for a client connection before sending
    status: int  # 0: no answer (error)
    garbage: bool
    before_deadline: float  # seconds between sending and the deadline


class LoadRun:
    def __init__(self, args: argparse.Namespace, server: ServerProcess, instance: Path) -> None:
        self.args = args
        self.server = server
        self.instance = instance
        self.rng = random.Random(args.seed)
        self.players = [Player(i, f"player {i:05d}") for i in range(1, args.players + 1)]
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
        self.director_api: aiohttp.ClientSession | None = None
        self.api_slots = asyncio.Semaphore(args.api_connections)
        self.projector: Listener | None = None
        self.profiler: Profiler | None = None
        if args.profile and server.process is not None:
            self.profiler = Profiler(server.process.pid, server.folder / "profile.txt")

    # -------------------------------------------------------------- bookkeeping

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
    ) -> tuple[int, Any, float]:
        """(status, answer, seconds) of one API call; status 0 when there was no answer. A player's call
        waits for one of the players' connections; the director's has its own (another device)."""
        session = self.director_api if director else self.api
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
                self.error(f"{method} {_route(path)}: {type(error).__name__}", repr(error))
                return 0, None, time.perf_counter() - started
            seconds = time.perf_counter() - started
        if status >= 500:
            self.error(f"{method} {_route(path)}: HTTP {status}", raw[:300].decode(errors="replace"))
        answer_body: Any = raw
        if parse and raw[:1] in (b"{", b"["):
            answer_body = json.loads(raw)
        return status, answer_body, seconds

    async def ok(self, method: str, path: str, body: Any = None, token: str | None = None, expect: int = 200) -> Any:
        status, answer, _ = await self.call(method, path, body, token, director=True)
        if status != expect:
            raise RuntimeError(f"{method} {path}: {status} {answer!r:.300}")
        return answer

    async def lag_probe(self) -> None:
        """How late the event loop wakes up, and how much of that lateness the client spent computing (the
        rest: the machine did not run it, its CPU being taken by the server or by other processes)."""
        loop = asyncio.get_running_loop()
        while True:
            expected, cpu = loop.time() + LAG_TICK, time.thread_time()
            await asyncio.sleep(LAG_TICK)
            lag = max(0.0, loop.time() - expected)
            self.lags.append((time.monotonic(), time.time(), lag))
            self.own_lags.append(min(lag, time.thread_time() - cpu))

    async def sampler(self) -> None:
        while True:
            self.server.sample()
            await asyncio.sleep(SAMPLE_SECONDS)

    async def progress(self) -> None:
        """A line every 10 s while rounds run, so a long run shows where it is."""
        while True:
            await asyncio.sleep(10)
            if not self.rounds:
                continue
            round_ = self.rounds[max(self.rounds)]
            left = round_.deadline - time.time()
            recent = [s.latency for s in self.submissions[-500:] if s.status]
            when = f"{left:.0f} s left" if left > 0 else "past its deadline"
            log(
                f"round {round_.number}: {when}; "
                f"{len(self.submissions)} plays answered, {self.in_flight} in flight, p99 of the last 500 "
                f"{ms(percentile(recent, 0.99))}; {self.reconnects} reconnects, {sum(self.errors.values())} errors"
            )

    async def watchdog(self) -> None:
        """Break streams that went silent (a heartbeat is due every 15 s): they reconnect."""
        while True:
            await asyncio.sleep(5)
            limit = time.monotonic() - STREAM_SILENCE
            for listener in [*(p.listener for p in self.players), self.projector]:
                if listener is not None and listener.stream is not None and listener.stream.last_rx < limit:
                    listener.stream.abort()

    # -------------------------------------------------------------- events

    def on_event(self, listener: Listener, kind: str, payload: bytes, now: float) -> None:
        if kind == "submission":
            self.submission_events += 1
            return
        if (
            self.args.phones == "pages"
            and listener.player is not None
            and kind not in PAGE_IGNORED_EVENTS
            and kind not in ("round_started", "round_closed")
        ):
            self.spawn(self.refresh_page(listener.player))  # as live.js does on every other event too
        if kind not in ("round_started", "round_closed", "finished"):
            return
        data = json.loads(payload)
        if kind == "finished":
            self.finished_seen = True
            return
        number = int(data["round"])
        known = self.rounds.get(number)
        if kind == "round_started":
            round_ = known or self._new_round(number, data)
        else:
            if known is None:
                return
            round_ = known
            if math.isnan(round_.closed_at):
                round_.closed_at = parse_time(data["at"])
                round_.closed.set()
        player = listener.player
        if player is None or (kind, number) in player.seen:
            return
        player.seen.add((kind, number))
        if kind == "round_started":
            round_.started_delays.append(now - round_.at)
            player.playing[number] = self.spawn(self.play_round(player, round_))
            if self.args.phones == "pages":
                self.spawn(self.page_round_started(player, round_))
        else:
            round_.closed_delays.append(now - round_.closed_at)
            self.spawn(
                self.page_reveal(player, round_) if self.args.phones == "pages" else self.read_reveal(player, round_)
            )

    def _new_round(self, number: int, data: dict[str, Any]) -> RoundInfo:
        loop = asyncio.get_running_loop()
        round_ = RoundInfo(
            number, parse_time(data["at"]), parse_time(data["deadline"]), data["rack"], loop.create_future()
        )
        self.rounds[number] = round_
        self.spawn(self.compute_plays(round_))
        waiter = self.round_waiters.get(number)
        if waiter is not None and not waiter.done():
            waiter.set_result(round_)
        return round_

    async def wait_round(self, number: int, timeout: float) -> RoundInfo:
        if number in self.rounds:
            return self.rounds[number]
        waiter = self.round_waiters.setdefault(number, asyncio.get_running_loop().create_future())
        return await asyncio.wait_for(asyncio.shield(waiter), timeout)

    async def compute_plays(self, round_: RoundInfo) -> None:
        """The round's legal plays, once for every player: board from the game's state, engine in the pool."""
        try:
            state = await self.ok("GET", f"/api/games/{self.game_id}", token=self.director_token)
            if state["round"] != round_.number:
                raise RuntimeError(f"the game is at round {state['round']}, not {round_.number}")
            assert self.pool is not None
            loop = asyncio.get_running_loop()
            plays, count, cpu = await loop.run_in_executor(
                self.pool,
                legal_plays,
                self.settings["rules"],
                self.settings["notation"],
                state["board"],
                state["rack"],
                self.args.sample_plays,
                self.args.seed + round_.number,
            )
            self.engine_cpu += cpu
            round_.legal_count = count
            if not plays:
                raise RuntimeError(f"no legal play on rack {state['rack']}")
            round_.plays.set_result(plays)
        except Exception as error:  # every player waits for these: fail them all, loudly
            self.error("legal plays", repr(error))
            round_.plays.set_exception(error)

    # -------------------------------------------------------------- players

    async def join(self, player: Player, slots: asyncio.Semaphore) -> None:
        async with slots:
            if self.args.phones == "pages":
                if not await self.join_page(player):
                    return
            else:
                status, answer, seconds = await self.call(
                    "POST", "/api/join", {"code": self.join_code, "name": player.name}
                )
                if status != 201:
                    if 0 < status < 500:  # no answer and 5xx are counted by call()
                        self.error(f"join: HTTP {status}", repr(answer)[:300])
                    return
                self.joins.append(seconds)
                player.token, player.player_id = answer["token"], answer["player_id"]
            player.listener = Listener(self, player, quiet=True)
            player.listener.last_id = player.page_event_id  # a page's stream starts after what it shows
            player.listener.task = self.spawn(player.listener.follow())
            # Still within the slot: the streams open at the pace of the joins, not all at the end.
            with contextlib.suppress(Exception):
                self.stream_opens.append(await player.listener.first_open)

    # -------------------------------------------------------------- players on the phone pages (--phones pages)

    async def page(
        self, player: Player, method: str, path: str, form: dict[str, str] | None = None
    ) -> tuple[int, str, float]:
        """(status, text, seconds) of one page request with the player's session cookie, which it keeps up to
        date as a browser does; status 0 when there was no answer."""
        assert self.api is not None
        headers = {"Accept": "text/html", "Accept-Language": "en"}
        if player.cookie:
            headers["Cookie"] = player.cookie
        async with self.api_slots:
            started = time.perf_counter()
            try:
                async with self.api.request(
                    method, self.server.base + path, data=form, headers=headers, allow_redirects=False
                ) as answer:
                    text = await answer.text()
                    status = answer.status
                    session = answer.cookies.get(SESSION_COOKIE)
            except (aiohttp.ClientError, TimeoutError) as error:
                self.error(f"{method} {_route(path)}: {type(error).__name__}", repr(error))
                return 0, "", time.perf_counter() - started
            seconds = time.perf_counter() - started
        if session is not None:
            player.cookie = f"{SESSION_COOKIE}={session.value}"
        if status >= 500:
            self.error(f"{method} {_route(path)}: HTTP {status}", text[:300])
        return status, text, seconds

    async def join_page(self, player: Player) -> bool:
        """Join as a phone does: the join page, its form, then the play page (whose script gets the token)."""
        started = time.perf_counter()
        status, html, _ = await self.page(player, "GET", f"/join?code={self.join_code}")
        csrf = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html)
        if status != 200 or csrf is None:
            self.error(f"join page: HTTP {status}", html[:300])
            return False
        status, html, _ = await self.page(
            player, "POST", "/join", {"csrf_token": csrf[1], "code": self.join_code, "name": player.name}
        )
        if status != 303:
            self.error(f"join form: HTTP {status}", html[:300])
            return False
        status, html, _ = await self.page(player, "GET", f"/play/{self.game_id}")
        token = re.search(r'data-token="([^"]+)"', html)
        if status != 200 or token is None:
            self.error(f"play page: HTTP {status}", html[:300])
            return False
        self.joins.append(time.perf_counter() - started)
        player.token = token[1]  # the page's script hands plays in through the API with it
        shown = re.search(r'data-events-url="[^"]*last_event_id=([0-9]+)', html)
        player.page_event_id = int(shown[1]) if shown else 0
        return True

    async def refresh_page(self, player: Player) -> str | None:
        """The page's live fragment, fetched again as live.js does after an event; None when it failed."""
        status, html, _ = await self.page(player, "GET", f"/play/{self.game_id}/live")
        if status != 200:
            if status:
                self.error(f"page fragment: HTTP {status}", html[:300])
            return None
        return html

    async def page_round_started(self, player: Player, round_: RoundInfo) -> None:
        html = await self.refresh_page(player)
        if html is not None:
            if f'data-round="{round_.number}"' not in html:
                self.error("page fragment: not the new round", f"{player.name}: round {round_.number}")
            round_.page_started.append(time.time() - round_.at)

    async def page_reveal(self, player: Player, round_: RoundInfo) -> None:
        """The reveal on a phone page: the fragment fetched on round_closed, with the player's own result."""
        round_.reads_started += 1
        try:
            started = time.perf_counter()
            html = await self.refresh_page(player)
            if html is None:
                return
            round_.reads.append(time.perf_counter() - started)
            round_.page_reveal.append(time.time() - round_.closed_at)
            playing = player.playing.get(round_.number)
            if playing is not None:  # a play sent before the close may still be waiting for its answer
                await asyncio.wait([playing])
            accepted = player.accepted.get(round_.number)
            if 'class="my-result"' not in html:
                self.error("page reveal: no result shown", f"{player.name}: {html[:200]}")
            elif accepted is not None and f"<dd>{accepted}" not in html:
                self.error("page reveal: own result is not the last accepted play", f"{player.name}: {accepted!r}")
        finally:
            round_.reads_done += 1

    def plan(self, round_: RoundInfo) -> list[float]:
        low, _, high = self.args.plays_per_player.partition("-")
        count = self.rng.randint(int(low), int(high or low))
        now = time.time()
        late_start = round_.deadline - LATE_WINDOW
        last = round_.deadline - DEADLINE_MARGIN
        moments = []
        for _ in range(count):
            if self.rng.random() < self.args.late_share or late_start <= now + 1:
                moments.append(self.rng.uniform(max(late_start, now), last))
            else:
                moments.append(self.rng.uniform(now + 1, late_start))
        return sorted(moments)

    async def play_round(self, player: Player, round_: RoundInfo) -> None:
        moments = self.plan(round_)
        round_.planned.extend(moments)
        for moment in moments:
            await asyncio.sleep(max(0.0, moment - time.time()))
            try:
                plays = await round_.plays
            except Exception:
                return
            garbage = self.rng.random() < self.args.bad_share
            move = self.rng.choice(GARBAGE) if garbage else self.rng.choice(plays)
            await self.submit(player, round_, move, garbage)

    async def submit(self, player: Player, round_: RoundInfo, move: str, garbage: bool) -> None:
        assert self.api is not None
        path = f"/api/games/{self.game_id}/rounds/{round_.number}/plays"
        body = json.dumps({"move": move}).encode()
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {player.token}"}
        pressed, pressed_wall = time.perf_counter(), time.time()
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            async with self.api_slots:
                sent_wall, started = time.time(), time.perf_counter()
                status, raw = 0, b""
                try:
                    async with self.api.post(self.server.base + path, data=body, headers=headers) as answer:
                        raw = await answer.read()
                        status = answer.status
                except (aiohttp.ClientError, TimeoutError) as error:
                    self.error(f"submission: {type(error).__name__}", repr(error))
                latency = time.perf_counter() - started
        finally:
            self.in_flight -= 1
        self.submissions.append(
            Submission(
                round_.number,
                pressed_wall,
                sent_wall,
                latency,
                started - pressed,
                status,
                garbage,
                round_.deadline - sent_wall,
            )
        )
        if status == 200:
            if garbage:
                self.error("submission: garbage accepted", f"{move!r}: {raw[:200]!r}")
            player.accepted[round_.number] = json.loads(raw)["move"]
        elif (status == 422 and garbage) or status == 409:
            pass  # expected refusal; a 409 (round closed) is a late play, counted apart
        elif status >= 500:
            self.error(f"submission: HTTP {status}", raw[:300].decode(errors="replace"))
        elif status:
            self.error(
                f"submission: HTTP {status} for a {'garbage' if garbage else 'legal'} play",
                f"{move!r}: {raw[:300].decode(errors='replace')}",
            )

    async def read_reveal(self, player: Player, round_: RoundInfo) -> None:
        if self.rng.random() >= self.args.reveal_share:
            round_.reads_done += 1
            return
        round_.reads_started += 1
        if self.args.reveal_spread > 0:
            await asyncio.sleep(self.rng.uniform(0, self.args.reveal_spread))
        mine = self.args.reveal_read == "me"
        path = f"/api/games/{self.game_id}/rounds/{round_.number}{'/me' if mine else ''}"
        status, answer, seconds = await self.call("GET", path, token=player.token, parse=mine)
        if status == 200:
            round_.reads.append(seconds)
            if mine:  # the player's own check: the play the server took last is the one in their result
                playing = player.playing.get(round_.number)
                if playing is not None:  # a play sent before the close may still be waiting for its answer
                    await asyncio.wait([playing])
                shown = (answer.get("result") or {}).get("move")
                if shown != player.accepted.get(round_.number):
                    self.error(
                        "reveal: own result is not the last accepted play",
                        f"{player.name}: {player.accepted.get(round_.number)!r} -> {shown!r}",
                    )
        elif status:
            self.error(f"reveal read: HTTP {status}", answer[:300].decode(errors="replace"))
        round_.reads_done += 1

    async def audit(self, round_: RoundInfo) -> None:
        """Every accepted play in the round's results: each player's last accepted one, as written."""
        details = await self.ok("GET", f"/api/games/{self.game_id}/rounds/{round_.number}", token=self.director_token)
        results = {r["player_id"]: r for r in details["results"]}
        by_name = {r["name"]: r for r in details["results"]}  # a phone page does not know its player id
        lost = wrong = phantom = 0
        for player in self.players:
            accepted = player.accepted.get(round_.number)
            result = results.get(player.player_id) if player.player_id else by_name.get(player.name)
            shown = result.get("move") if result else None
            if accepted is None:
                if shown:
                    phantom += 1
                    self.error("results: a play never accepted", f"{player.name}: {shown!r}")
            elif shown is None:
                lost += 1
                self.error("results: accepted play missing", f"{player.name}: {accepted!r}")
            elif shown != accepted:
                wrong += 1
                self.error("results: another play than the last accepted", f"{player.name}: {accepted!r} -> {shown!r}")
        round_.audit = {
            "results": sum(1 for r in details["results"] if r.get("move")),
            "lost": lost + wrong,
            "missing": lost,
            "different": wrong,
            "phantom": phantom,
            "accepted_players": sum(1 for p in self.players if round_.number in p.accepted),
        }

    # -------------------------------------------------------------- the whole run

    async def main(self) -> None:
        asyncio.get_running_loop().set_default_executor(concurrent.futures.ThreadPoolExecutor(4))
        self.spawn(self.lag_probe())
        self.spawn(self.sampler())
        timeout = aiohttp.ClientTimeout(total=self.args.request_timeout)
        connector = aiohttp.TCPConnector(limit=self.args.api_connections, limit_per_host=0, keepalive_timeout=4.0)
        director_connector = aiohttp.TCPConnector(limit=4, keepalive_timeout=4.0)
        # No shared cookie jar: each phone's session cookie is its own (see page()).
        async with (
            aiohttp.ClientSession(
                connector=connector, timeout=timeout, auto_decompress=False, cookie_jar=aiohttp.DummyCookieJar()
            ) as api,
            aiohttp.ClientSession(connector=director_connector, timeout=timeout) as director_api,
        ):
            self.api, self.director_api = api, director_api
            try:
                await self._run()
            finally:
                self.stopping = True
                for player in self.players:
                    if player.listener and player.listener.stream:
                        player.listener.stream.abort()
                if self.projector and self.projector.stream:
                    self.projector.stream.abort()
                for task in list(self.tasks):
                    task.cancel()
                await asyncio.gather(*self.tasks, return_exceptions=True)

    async def _run(self) -> None:
        args = self.args
        password = secrets.token_urlsafe(12)
        director = f"bench-{secrets.token_hex(3)}"
        await asyncio.to_thread(self.server.cli, "director", "create", director, "--password", password)
        token = await self.ok("POST", "/api/auth/token", {"username": director, "password": password})
        self.director_token = token["token"]
        game = await self.ok(
            "POST",
            "/api/games",
            {
                "rules": args.rules,
                "round_seconds": args.round_seconds,
                "reveal_seconds": args.reveal_seconds,
                "max_rounds": args.rounds,
                "seed": args.seed,
            },
            self.director_token,
            expect=201,
        )
        self.game_id, self.join_code = game["id"], game["join_code"]
        self.settings = game
        ctx = multiprocessing.get_context("spawn")
        self.pool = concurrent.futures.ProcessPoolExecutor(
            1, mp_context=ctx, initializer=_engine_init, initargs=(str(self.instance), game["lexicon"])
        )
        warm = asyncio.get_running_loop().run_in_executor(self.pool, engine_cpu)
        log(
            f"game {self.game_id} ({args.rules}, rounds of {args.round_seconds} s); "
            f"{args.players} players joining, {args.join_concurrency} at a time"
        )
        projector = self.projector = Listener(self, None, quiet=False)
        projector.task = self.spawn(projector.follow())
        await projector.first_open
        self.spawn(self.watchdog())

        self.mark("joins")
        slots = asyncio.Semaphore(args.join_concurrency)
        await asyncio.gather(*(self.join(p, slots) for p in self.players))
        self.mark("joined")
        joined = [p for p in self.players if p.token]
        log(
            f"{len(joined)} joined, {len(self.stream_opens)} streams open "
            f"in {self.marks['joined'].wall - self.marks['joins'].wall:.1f} s"
        )
        if not joined:
            raise RuntimeError("no player could join")
        self.engine_cpu += await warm  # the lexicon load in the worker
        await asyncio.sleep(1.0)
        self.mark("idle")
        await asyncio.sleep(IDLE_SECONDS)  # the server's cost of holding the streams open, to subtract below
        self.mark("idle end")

        gc.collect()
        gc.freeze()  # the players, streams and tasks live to the end: no collection should walk them again
        if self.profiler is not None:
            self.profiler.start()
        self.mark("start")
        self.spawn(self.progress())
        await self.ok("POST", f"/api/games/{self.game_id}/start", token=self.director_token)
        for number in range(1, args.rounds + 1):
            wait = 60.0 + (args.reveal_seconds if number > 1 else 0)
            round_ = await self.wait_round(number, wait)
            log(f"round {number}: rack {round_.rack}, deadline in {round_.deadline - time.time():.1f} s")
            self.spawn(self.mark_at(f"late {number}", round_.deadline - LATE_WINDOW))
            await asyncio.wait_for(round_.closed.wait(), round_.deadline - time.time() + args.phase_timeout)
            self.mark(f"closed {number}")
            log(f"round {number} closed ({len(round_.closed_delays)} players told so far); reading the reveal")
            closed, limit = time.monotonic(), time.monotonic() + args.phase_timeout
            while round_.reads_done < len(joined) and time.monotonic() < limit:
                if round_.reads_done >= len(round_.closed_delays) and time.monotonic() > closed + 30:
                    break  # every player told has read it, and nobody else was told for 30 s
                await asyncio.sleep(0.2)
            self.mark(f"read {number}")
            playing = [p.playing[number] for p in joined if number in p.playing]
            if playing:  # a play still waiting for its answer would look lost
                await asyncio.wait(playing, timeout=args.request_timeout)
            await self.audit(round_)
            log(f"round {number}: {round_.audit}")
        self.mark("end")
        if self.profiler is not None:
            await asyncio.to_thread(self.profiler.stop)
        status, _, _ = await self.call(
            "POST", f"/api/games/{self.game_id}/end", token=self.director_token, director=True
        )
        if status not in (200, 409):
            self.error(f"end: HTTP {status}", "")

    # -------------------------------------------------------------- figures

    def request_costs(self) -> dict[str, float]:
        """Server CPU seconds per request, from phases where one kind of request dominates: the joins
        (with each player's stream opening), a round before its last 10 s (submissions, at a calm rate),
        and the reveal (reads, and the last submissions' late answers). The server's idle cost with every
        stream open (measured for a few seconds before the game starts) is taken off first."""
        marks = self.marks

        idle_start, idle_end = marks.get("idle"), marks.get("idle end")
        idle = (
            (idle_end.server - idle_start.server) / (idle_end.wall - idle_start.wall)
            if idle_start and idle_end
            else 0.0
        )

        def per(begin: str, end: str, count: Callable[[Mark], int]) -> tuple[float, int]:
            first, last = marks.get(begin), marks.get(end)
            if first is None or last is None:
                return 0.0, 0
            busy = last.server - first.server - idle * (last.wall - first.wall)
            return max(0.0, busy), count(last) - count(first)

        joins = per("joins", "joined", lambda m: len(self.joins))
        calm = [per("start" if n == 1 else f"read {n - 1}", f"late {n}", lambda m: m.answered) for n in self.rounds]
        reveal = [per(f"closed {n}", f"read {n}", lambda m: m.reads) for n in self.rounds]
        joined_mark = marks.get("joined")
        return {
            "idle_cores": idle,
            "join": joins[0] / len(self.joins) if self.joins and joined_mark else math.nan,
            "submission": sum(c for c, _ in calm) / sum(n for _, n in calm) if sum(n for _, n in calm) else math.nan,
            "reveal_read": sum(c for c, _ in reveal) / sum(n for _, n in reveal)
            if sum(n for _, n in reveal)
            else math.nan,
        }

    def figures(self) -> dict[str, Any]:
        args = self.args
        rounds = [self.rounds[n] for n in sorted(self.rounds)]
        subs = self.submissions
        answered = [s for s in subs if s.status]
        deadlines = {r.number: r.deadline for r in rounds}
        late = [s for s in subs if 0 <= deadlines[s.round] - s.pressed <= LATE_WINDOW]
        late_span = sum(
            max(s.sent + s.latency for s in late if s.round == r.number) - (r.deadline - LATE_WINDOW)
            for r in rounds
            if any(s.round == r.number for s in late)
        )
        late_rate = len(late) / late_span if late_span > 0 else math.nan
        offered_late = (
            sum(1 for r in rounds for t in r.planned if r.deadline - t <= LATE_WINDOW) / (LATE_WINDOW * len(rounds))
            if rounds
            else math.nan
        )
        span = (max(s.sent + s.latency for s in subs) - min(s.sent for s in subs)) if subs else math.nan
        started_at, ended_at = self.marks.get("start"), self.marks.get("end") or self.marks.get("joined")
        joined_mark, joins_mark = self.marks.get("joined"), self.marks.get("joins")

        round_phase = Mark.share(started_at, ended_at)
        costs = self.request_costs()
        lags = [lag for moment, _, lag in self.lags if started_at and moment >= started_at.wall]

        def lag_while(kind: str) -> float:
            """The client's worst event-loop lag while an event was being delivered (its stamps are that late)."""
            worst = 0.0
            for r in rounds:
                at, delays = (r.at, r.started_delays) if kind == "started" else (r.closed_at, r.closed_delays)
                if delays:
                    worst = max([worst, *(lag for _, wall, lag in self.lags if at <= wall <= at + max(delays) + 0.1)])
            return worst

        audit_lost = sum(r.audit.get("lost", 0) for r in rounds)
        unaudited = [r.number for r in rounds if not r.audit]
        joined = sum(1 for p in self.players if p.token)
        own_lags = self.own_lags[len(self.own_lags) - len(lags) :] if lags else []
        saturated = round_phase["client_cpu"] > SATURATED_CPU or percentile(own_lags, 0.99) > SATURATED_LAG
        crunch = [Mark.share(self.marks.get(f"late {r.number}"), self.marks.get(f"closed {r.number}")) for r in rounds]
        return {
            "players": args.players,
            "joined": joined,
            "streams_open": len(self.stream_opens),
            "rounds": len(rounds),
            "round_seconds": args.round_seconds,
            "server_args": args.server_args,
            "api_connections": args.api_connections,
            "database": "postgresql" if args.database_url else "sqlite",
            "redis": bool(args.redis_url),
            "join_latency": spread(self.joins),
            "join_seconds": joined_mark.wall - joins_mark.wall if joined_mark and joins_mark else math.nan,
            "stream_open_latency": spread(self.stream_opens),
            "submissions": {
                "sent": len(subs),
                "accepted": sum(1 for s in subs if s.status == 200),
                "refused_as_expected": sum(1 for s in subs if s.garbage and s.status == 422),
                "refused_late": sum(1 for s in subs if s.status == 409),
                "refused_late_sent_before_deadline": sum(1 for s in subs if s.status == 409 and s.before_deadline > 0),
                "no_answer": len(subs) - len(answered),
                "per_second_overall": len(subs) / span if subs and span > 0 else math.nan,
                "per_second_last_10s": late_rate,
                "offered_per_second_last_10s": offered_late,
                "latency": spread([s.latency for s in answered]),
                "client_queue": spread([s.queued for s in subs]),
                "latency_with_queue": spread([s.queued + s.latency for s in answered]),
                "refused_late_pressed_before_deadline": sum(
                    1 for s in subs if s.status == 409 and s.pressed < deadlines[s.round]
                ),
                "peak_in_flight": self.peak_in_flight,
            },
            "round_started_delivery": spread([d for r in rounds for d in r.started_delays]),
            "round_started_received": min((len(r.started_delays) for r in rounds), default=0),
            "round_started_client_lag": lag_while("started"),
            "reveal_delivery": spread([d for r in rounds for d in r.closed_delays]),
            "reveal_received": min((len(r.closed_delays) for r in rounds), default=0),
            "reveal_client_lag": lag_while("closed"),
            "reveal_read_latency": spread([d for r in rounds for d in r.reads]),
            "phones": args.phones,
            "page_round_started": spread([d for r in rounds for d in r.page_started]),
            "page_reveal": spread([d for r in rounds for d in r.page_reveal]),
            "reveal_reads_unfinished": sum(r.reads_started - len(r.reads) for r in rounds),
            "legal_plays": [r.legal_count for r in rounds],
            "lost": audit_lost,
            "audits": {r.number: r.audit for r in rounds},
            "unaudited_rounds": unaudited,
            "submission_events_seen_by_projector": self.submission_events,
            "reconnects": self.reconnects,
            "dropped_streams": self.drops,
            "errors": sum(self.errors.values()),
            "error_kinds": dict(self.errors),
            "error_examples": self.error_examples,
            "server": {
                "peak_rss_mb": sum(self.server.hwm.values()) / 1024,
                "peak_rss_sum_sampled_mb": self.server.rss_peak_kb / 1024,
                "processes": len(self.server.hwm),
                "cpu_seconds": sum(self.server.cpu.values()),
                "cpu_share_during_rounds": round_phase["server_cpu"],
                "cpu_share_last_10s": max((c["server_cpu"] for c in crunch), default=math.nan),
            },
            "client": {
                "cpu_seconds": client_cpu() + self.engine_cpu,
                "engine_cpu_seconds": self.engine_cpu,
                "cpu_share_during_rounds": round_phase["client_cpu"],
                "loop_lag": spread(lags),
                "loop_lag_own": spread(own_lags),
                "cpu_share_last_10s": max((c["client_cpu"] for c in crunch), default=math.nan),
                "saturated": saturated,
            },
            "rounds_wall_seconds": round_phase["seconds"],
            "server_cpu_per_request": costs,
            "machine_cpu_share_during_rounds": round_phase["machine_cpu"],
            "machine_cpu_share_last_10s": max((c["machine_cpu"] for c in crunch), default=math.nan),
            "other_cpu_share_during_rounds": round_phase["machine_cpu"]
            - round_phase["server_cpu"]
            - round_phase["client_cpu"],
            "load_average": os.getloadavg(),
        }


def _route(path: str) -> str:
    parts = path.split("/")
    return "/".join("<n>" if part.isdigit() else part for part in parts)


# ------------------------------------------------------------------ output


def table(fig: dict[str, Any]) -> str:
    players = fig["players"]
    target = TARGETS.get(players)
    sub = fig["submissions"]
    lines: list[tuple[str, str]] = []

    def row(label: str, value: str) -> None:
        lines.append((label, value))

    def dist(d: dict[str, Any]) -> str:
        return f"p50 {ms(d['p50'])}, p99 {ms(d['p99'])}, max {ms(d['max'])} ({d['count']})"

    row(
        "players",
        f"{fig['joined']} joined of {players}, {fig['streams_open']} streams open; "
        f"{fig['rounds']} round(s) of {fig['round_seconds']} s; {fig['database']}"
        f"{' + redis' if fig['redis'] else ''}; serve args {fig['server_args'] or '-'}",
    )
    row("joins", f"{dist(fig['join_latency'])}; all in {fig['join_seconds']:.1f} s")
    row("stream opens", dist(fig["stream_open_latency"]))
    row(
        "submissions",
        f"{sub['sent']} sent: {sub['accepted']} accepted, {sub['refused_as_expected']} refused as "
        f"expected (garbage), {sub['refused_late']} refused as late "
        f"({sub['refused_late_pressed_before_deadline']} sent by the player before the deadline, "
        f"{sub['refused_late_sent_before_deadline']} of them left the client before it), "
        f"{sub['no_answer']} without an answer",
    )
    row(
        "submissions/s",
        f"last 10 s: {sub['per_second_last_10s']:.0f} answered "
        f"({sub['offered_per_second_last_10s']:.0f} offered); overall {sub['per_second_overall']:.1f}",
    )
    mark = ""
    if target is not None and not math.isnan(sub["latency"]["p99"]):
        mark = f" — target p99 ≤ {ms(target)}: {'met' if sub['latency']['p99'] <= target else 'MISSED'}"
    row("submission latency", dist(sub["latency"]) + mark)
    row(
        "client queue before sending",
        f"p99 {ms(sub['client_queue']['p99'])}, max {ms(sub['client_queue']['max'])}"
        f"; at most {sub['peak_in_flight']} in flight "
        f"({fig['api_connections']} client connections)",
    )
    if sub["client_queue"]["p99"] > 0.01:
        row("submission as the player sees it", "queue + latency: " + dist(sub["latency_with_queue"]))
    row(
        "round_started delivery",
        f"{dist(fig['round_started_delivery'])}; received by "
        f"{fig['round_started_received']}/{fig['joined']}; client loop lag meanwhile "
        f"≤ {ms(fig['round_started_client_lag'])}",
    )
    reveal = fig["reveal_delivery"]
    mark = ""
    if not math.isnan(reveal["max"]):
        met = fig["reveal_received"] == fig["joined"] and reveal["max"] <= REVEAL_TARGET
        mark = f" — all within {REVEAL_TARGET:g} s: {'met' if met else 'MISSED'}"
    row(
        "reveal delivery",
        f"{dist(reveal)}; received by {fig['reveal_received']}/{fig['joined']}; client loop lag "
        f"meanwhile ≤ {ms(fig['reveal_client_lag'])}{mark}",
    )
    unfinished = fig["reveal_reads_unfinished"]
    if fig["phones"] == "pages":
        row("round start on the phone pages", "event time to fragment in hand: " + dist(fig["page_round_started"]))
        reveal_ok = fig["page_reveal"]["count"] and fig["page_reveal"]["max"] <= REVEAL_TARGET
        row(
            "reveal on the phone pages",
            "event time to fragment in hand: "
            + dist(fig["page_reveal"])
            + (f" — all within {REVEAL_TARGET:.0f} s: {'met' if reveal_ok else 'MISSED'}" if players == 1500 else ""),
        )
    row(
        "reveal read latency",
        dist(fig["reveal_read_latency"])
        + (f"; {unfinished} not answered with 200 (errors, or still waiting at the end)" if unfinished else ""),
    )
    unchecked = f" (rounds not checked: {fig['unaudited_rounds']})" if fig["unaudited_rounds"] else ""
    row(
        "lost submissions",
        f"{fig['lost']}{unchecked}; submission events seen by the projector "
        f"{fig['submission_events_seen_by_projector']}",
    )
    row("reconnects", f"{fig['reconnects']} after a clean end, {fig['dropped_streams']} after a broken stream")
    row("errors", f"{fig['errors']}" + "".join(f"; {kind}: {n}" for kind, n in fig["error_kinds"].items()))
    server, client = fig["server"], fig["client"]
    row(
        "server memory",
        f"peak RSS {server['peak_rss_mb']:.0f} MB (sum of VmHWM of {server['processes']} "
        f"process(es)); largest sampled sum {server['peak_rss_sum_sampled_mb']:.0f} MB",
    )
    row(
        "server CPU",
        f"{server['cpu_seconds']:.1f} s; {server['cpu_share_during_rounds'] * 100:.0f}% of a core "
        f"during the rounds ({fig['rounds_wall_seconds']:.0f} s), "
        f"{server['cpu_share_last_10s'] * 100:.0f}% in their last 10 s",
    )
    costs = fig["server_cpu_per_request"]
    per_core = 1 / costs["submission"] if costs["submission"] > 0 else math.nan
    row(
        "server CPU per request",
        f"join {ms(costs['join'])} (with its stream), submission {ms(costs['submission'])}"
        f" (before the last 10 s), reveal read {ms(costs['reveal_read'])}; so one core "
        f"takes ~{'-' if math.isnan(per_core) else f'{per_core:.0f}'} submissions/s; "
        "idle with the streams open "
        f"{costs['idle_cores'] * 100:.0f}% of a core",
    )
    row(
        "machine CPU during the rounds",
        f"{fig['machine_cpu_share_during_rounds'] * 100:.0f}% of a core in all "
        f"({fig['cpus']} cores; {fig['machine_cpu_share_last_10s'] * 100:.0f}% in "
        f"the last 10 s), other processes "
        f"{fig['other_cpu_share_during_rounds'] * 100:.0f}%; load average at the end "
        + " ".join(f"{x:.1f}" for x in fig["load_average"]),
    )
    row(
        "client CPU",
        f"{client['cpu_seconds']:.1f} s (engine {client['engine_cpu_seconds']:.1f} s); "
        f"{client['cpu_share_during_rounds'] * 100:.0f}% of a core during the rounds "
        f"({client['cpu_share_last_10s'] * 100:.0f}% in the last 10 s); event-loop lag "
        f"p99 {ms(client['loop_lag']['p99'])}, max {ms(client['loop_lag']['max'])}, of which computing "
        f"p99 {ms(client['loop_lag_own']['p99'])}, max {ms(client['loop_lag_own']['max'])}"
        + (" — CLIENT SATURATED: the figures include the client's delays" if client["saturated"] else ""),
    )
    if fig["other_cpu_share_during_rounds"] > DISTURBED_CPU:
        row("NOTE", "other processes used the machine during the rounds: the figures are disturbed")
    width = max(len(label) for label, _ in lines)
    out = [f"| {'measure'.ljust(width)} | figures |", f"|{'-' * (width + 2)}|---------|"]
    out += [f"| {label.ljust(width)} | {value} |" for label, value in lines]
    profile = fig.get("profile")
    if profile:
        out.append("")
        out.append(f"server profile (py-spy --gil, {profile['samples']} samples over the rounds):")
        for title, key in (("self", "self"), ("Tirage functions, inclusive", "tirage_inclusive")):
            out.append(f"  {title}:")
            out += [f"    {share * 100:5.1f}%  {name}" for name, share in profile[key]]
    if fig["error_examples"]:
        out.append("")
        for kind, examples in fig["error_examples"].items():
            out.append(f"{kind}: " + " | ".join(examples))
    return "\n".join(out)


# ------------------------------------------------------------------ set-up


def prepare_instance(args: argparse.Namespace, folder: Path) -> tuple[Path, dict[str, str], float, bool]:
    """The instance folder with every lexicon's graphs cached; its environment; build seconds; whether built."""
    instance = folder / "instance"
    cache = instance / "cache"
    cache.mkdir(parents=True)
    source: Path = args.lexicon_cache
    if source.is_dir():
        for graph in [*source.glob("*.dawg"), *source.glob("*.gaddag")]:
            shutil.copy2(graph, cache / graph.name)
    env = {**os.environ, "TIRAGE_INSTANCE": str(instance), "TIRAGE_SECRET_KEY": secrets.token_hex(32)}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    if args.database_url:
        env["DATABASE_URL"] = args.database_url
    if args.redis_url:
        env["REDIS_URL"] = args.redis_url
    before = {p.name for p in cache.iterdir()}
    started = time.perf_counter()
    # `tirage lexicon build` loads each cached graph, or builds the ones missing or stale.
    subprocess.run(
        [*tirage_command(), "lexicon", "build"],
        cwd=folder,
        env=env,
        check=True,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    new = {p.name for p in cache.iterdir()} - before
    if new and args.lexicon_cache_given:
        args.lexicon_cache.mkdir(parents=True, exist_ok=True)
        for name in new:
            shutil.copy2(cache / name, args.lexicon_cache / name)
    return instance, env, seconds, bool(new)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    default_cache = ROOT / "instance" / "cache"
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--round-seconds", type=int, default=60, help="10 to 3600 (the server's bounds)")
    parser.add_argument("--reveal-seconds", type=int, default=10, help="pause between rounds")
    parser.add_argument("--plays-per-player", default="1-3", help="a number or a range LOW-HIGH, per round")
    parser.add_argument("--late-share", type=float, default=0.8, help="share of plays in the last 10 s")
    parser.add_argument("--bad-share", type=float, default=0.05, help="share of garbage plays (refused with 422)")
    parser.add_argument(
        "--reveal-spread",
        type=float,
        default=0.0,
        help="players read the reveal within this many seconds of round_closed (0: at once, as the phone page does)",
    )
    parser.add_argument(
        "--phones",
        choices=("api", "pages"),
        default="api",
        help="how players join, follow and read the reveal: through the API as an app would, or as "
        "the phone page does (join form, play page, the page's live fragment fetched again on "
        "each event; plays go through the API with the page's token, as its script does)",
    )
    parser.add_argument(
        "--reveal-read",
        choices=("me", "round"),
        default="me",
        help="what a player reads at the reveal: their own round (GET .../rounds/N/me, as a phone "
        "does) or the whole round with every player's result (GET .../rounds/N)",
    )
    parser.add_argument("--reveal-share", type=float, default=1.0, help="share of players who read the reveal")
    parser.add_argument("--rules", default="en")
    parser.add_argument("--seed", type=int, default=1, help="the game's seed (its racks) and the client's")
    parser.add_argument("--database-url", help="DATABASE_URL of the server (default: SQLite in the instance)")
    parser.add_argument("--redis-url", help="REDIS_URL of the server")
    parser.add_argument(
        "--server-args",
        default="",
        help="added to `tirage serve --port P`, e.g. --server-args='--workers 2 --threads 8'",
    )
    parser.add_argument(
        "--lexicon-cache",
        type=Path,
        help=f"a folder of cached word graphs to copy (default {default_cache}); "
        "graphs built because it had none are copied back to a folder given here",
    )
    parser.add_argument("--join-concurrency", type=int, default=200)
    parser.add_argument(
        "--api-connections",
        type=int,
        help="client connections for the players' API calls (default: one per player, at most "
        f"{MAX_API_CONNECTIONS}; event streams have their own)",
    )
    parser.add_argument("--sample-plays", type=int, default=500, help="legal plays the players choose from")
    parser.add_argument("--request-timeout", type=float, default=60.0)
    parser.add_argument(
        "--phase-timeout",
        type=float,
        default=300.0,
        help="the longest wait for a round to close, or for its reveal to be read, after its deadline",
    )
    parser.add_argument(
        "--profile",
        action="store_true",
        help="sample the server with py-spy over the rounds (its Python time, --gil) and list the "
        "busiest functions; the raw stacks stay in the kept folder as profile.txt",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (instance, server log)")
    args = parser.parse_args(argv)
    args.lexicon_cache_given = args.lexicon_cache is not None
    args.api_connections = args.api_connections or min(args.players, MAX_API_CONNECTIONS)
    args.lexicon_cache = args.lexicon_cache or default_cache
    low, _, high = args.plays_per_player.partition("-")
    if not (low.isdigit() and (not high or high.isdigit()) and 1 <= int(low) <= int(high or low)):
        parser.error("--plays-per-player must be N or LOW-HIGH with 1 <= LOW <= HIGH")
    if not 10 <= args.round_seconds <= 3600:
        parser.error("--round-seconds must be from 10 to 3600")
    if args.players < 1 or args.rounds < 1:
        parser.error("--players and --rounds must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    files = raise_open_files_limit()
    if files < 2 * args.players + args.api_connections + 100:
        log(
            f"warning: only {files} open files allowed here; {args.players} players need about "
            f"{2 * args.players + args.api_connections}"
        )
    version = checkout_version()  # now: the server runs the tree as it is when it starts
    folder = Path(tempfile.mkdtemp(prefix="tirage-load-"))
    server: ServerProcess | None = None
    failed = True
    try:
        instance, env, build_seconds, built = prepare_instance(args, folder)
        log(
            f"word graphs {'built' if built else 'copied from ' + str(args.lexicon_cache)} "
            f"({build_seconds:.1f} s); instance {instance}"
        )
        server = ServerProcess(folder, env, shlex.split(args.server_args))
        server.start()
        log(f"tirage serve {args.server_args} on {server.base} (pid {server.process.pid if server.process else '?'})")
        run = LoadRun(args, server, instance)
        loop_kind = "asyncio"
        try:
            import uvloop

            runner: Callable[[Any], Any] = uvloop.run
            loop_kind = "uvloop"
        except ImportError:
            runner = asyncio.run
        outcome: BaseException | None = None
        try:
            runner(run.main())
        except (Exception, KeyboardInterrupt) as error:
            outcome = error
        if run.pool is not None:
            run.pool.shutdown(cancel_futures=True)
        if run.profiler is not None:
            run.profiler.stop()
        server.sample()
        status = server.stop()
        figures = run.figures()
        if run.profiler is not None:
            figures["profile"] = run.profiler.summary()
        figures.update(
            {
                "commit": version,
                "python": platform.python_version(),
                "cpus": os.cpu_count(),
                "client_loop": loop_kind,
                "server_exit": status,
                "word_graph_seconds": build_seconds,
                "aborted": repr(outcome) if outcome else None,
            }
        )
        if args.json:
            print(json.dumps(_plain(figures), indent=1))
        else:
            command = "python bench/load.py" + "".join(f" {shlex.quote(a)}" for a in (argv or sys.argv[1:]))
            print(f"$ {command}")
            print(
                f"Tirage {figures['commit']}, Python {platform.python_version()}, {os.cpu_count()} CPUs, client on "
                f"{loop_kind}; server log {server.log_path}{'' if args.keep else ' (removed; --keep keeps it)'}"
            )
            print()
            print(table(figures))
        if outcome is not None:
            log(f"the run stopped early: {outcome!r}")
        failed = (
            outcome is not None or figures["lost"] > 0 or figures["errors"] > 0 or bool(figures["unaudited_rounds"])
        )
        if failed:
            log(f"server log (last lines):\n{server.output()}")
        return 1 if failed else 0
    except Exception as error:
        log(f"failed: {error}")
        if server is not None:
            log(f"server log (last lines):\n{server.output()}")
        return 1
    finally:
        if server is not None:
            server.stop()
        if args.keep:
            log(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


def _plain(value: Any) -> Any:
    """JSON-ready: NaN (a figure with no values) as null, keys as text."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


if __name__ == "__main__":
    sys.exit(main())
