"""The real ``tirage serve`` as a separate process, run as a user runs it, for end-to-end tests.

Tests that need a real server (a restart with SIGKILL, a browser) share this one helper so that
the port choice, the start-up wait, the environment and the log on failure are written once.
The instance folder is a temporary one with the session's lexicon cache copied into it, so the
server never spends the test's time building word graphs. :class:`SchedulerProcess` is the
separate ``tirage scheduler`` of a deployment whose web processes run with ``--no-scheduler``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import generate_moves, top_moves
from trainer.engine.notation import format_move
from trainer.engine.rules import Ruleset

WAIT = 30.0  # the longest the server may take to answer, or any wait_for() to succeed

_T = TypeVar("_T")


def free_port() -> int:
    """A port free right now on the loopback interface (the OS picks it, so parallel runs do not clash)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until(ready: Callable[[], _T], what: str, timeout: float, logs: Callable[[], str]) -> _T:
    """Poll ``ready`` every 0.1 s until it returns something true; after ``timeout``, fail with ``logs()``."""
    limit = time.monotonic() + timeout
    while True:
        value = ready()
        if value:
            return value
        assert time.monotonic() < limit, f"waited {timeout:g} s for {what}:\n{logs()}"
        time.sleep(0.1)


def parse_time(text: str) -> datetime:
    """A time as the API writes it (ISO 8601, ``Z`` for UTC)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def best_play(state: dict[str, Any], rules: Ruleset, lexicon: Lexicon) -> tuple[str, int, str]:
    """A top and a lesser legal play for the rack and board a client was shown (the API's game state)."""
    board = Board.from_rows(rules.layout, state["board"])
    score, tops = top_moves(board, rules, lexicon, state["rack"])
    lesser = min(generate_moves(board, rules, lexicon, state["rack"]), key=lambda m: (m.score or 0, format_move(m)))
    return format_move(tops[0]), score, format_move(lesser)


def tirage_command() -> list[str]:
    """The installed ``tirage`` script of this interpreter, else the same CLI run as a module."""
    script = Path(sys.executable).with_name("tirage")
    return [str(script)] if script.exists() else [sys.executable, "-m", "trainer.cli"]


class TirageServer:
    """``tirage serve`` on a free port of the instance folder ``tmp_dir/instance``, restartable.

    The port is chosen once, so ``base_url`` stays the same across :meth:`kill` and :meth:`start`.
    ``DATABASE_URL`` and ``TIRAGE_SECRET_KEY`` are removed from the environment (SQLite and a
    secret key in the instance folder) unless ``env_extra`` sets them; a ``None`` value there
    removes a variable. ``serve_args`` are added to ``tirage serve`` (e.g. ``--no-scheduler``).
    """

    def __init__(
        self,
        tmp_dir: Path,
        lexicon_cache_dir: Path | None = None,
        env_extra: Mapping[str, str | None] | None = None,
        serve_args: tuple[str, ...] = (),
    ) -> None:
        self.tmp_dir = Path(tmp_dir)
        self.instance = self.tmp_dir / "instance"
        self.instance.mkdir(parents=True, exist_ok=True)
        cache = self.instance / "cache"
        if lexicon_cache_dir is not None and Path(lexicon_cache_dir).is_dir() and not cache.exists():
            shutil.copytree(lexicon_cache_dir, cache)  # no word-graph build in the server
        env = {**os.environ, "TIRAGE_INSTANCE": str(self.instance)}
        for name in ("DATABASE_URL", "TIRAGE_SECRET_KEY"):
            env.pop(name, None)
        for name, value in (env_extra or {}).items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        self.env = env
        self.serve_args = serve_args
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log = self.tmp_dir / "serve.log"
        self.process: subprocess.Popen[bytes] | None = None

    # ------------------------------------------------------------ lifecycle

    def start(self, timeout: float = WAIT) -> TirageServer:
        """Start the server (from ``tmp_dir``, not the checkout) and wait until /healthz answers 200."""
        assert not self.running, "the server is already running"
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [*tirage_command(), "serve", "--port", str(self.port), *self.serve_args],
                cwd=self.tmp_dir,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        self.wait_for(self._healthy, "the server to answer /healthz", timeout)
        return self

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, as a service manager stops it; SIGKILL if it has not exited within ``timeout``."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=WAIT)

    def workers(self) -> list[int]:
        """The process ids of the server's spawned workers (the engine's analysts), read from /proc."""
        if self.process is None:
            return []
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
                command = (entry / "cmdline").read_bytes()
            except OSError:  # gone meanwhile
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            if parent == self.process.pid and b"spawn_main" in command:
                found.append(int(entry.name))
        return found

    @staticmethod
    def alive(pid: int) -> bool:
        """Whether process ``pid`` runs (an exited one nobody has reaped yet, a zombie, does not)."""
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        return stat.rsplit(")", 1)[1].split()[0] != "Z"

    def kill(self) -> None:
        """SIGKILL: no clean shutdown, no scheduler shutdown, no flushing of anything in memory."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=WAIT)

    def __enter__(self) -> TirageServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.stop()

    # ------------------------------------------------------------ diagnostics and waits

    def output(self) -> str:
        """Everything the server printed (all its runs), for assertion messages."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def _healthy(self) -> bool:
        assert self.process is not None and self.process.poll() is None, f"tirage serve exited:\n{self.output()}"
        try:
            with urllib.request.urlopen(f"{self.base_url}/healthz", timeout=1) as answer:
                return bool(answer.status == 200)
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False

    def wait_for(self, ready: Callable[[], _T], what: str, timeout: float = WAIT) -> _T:
        """Poll ``ready`` every 0.1 s until it returns something true; fail with the log after ``timeout``."""
        return wait_until(ready, what, timeout, self.output)

    # ------------------------------------------------------------ the CLI on the same instance

    def cli(self, *args: str, timeout: float = 60.0) -> subprocess.CompletedProcess[str]:
        """Run ``tirage ARGS`` on this server's instance folder and environment; fail on a non-zero exit."""
        result = subprocess.run(
            [*tirage_command(), *args],
            cwd=self.tmp_dir,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        assert result.returncode == 0, (
            f"tirage {' '.join(args)} exited {result.returncode}:\n{result.stdout}{result.stderr}"
        )
        return result

    def create_director(self, name: str, password: str) -> None:
        """A director account, made the way a club makes one (``tirage director create``)."""
        self.cli("director", "create", name, "--password", password)

    def get(self, path: str, headers: Mapping[str, str] | None = None, timeout: float = 10.0) -> tuple[int, str]:
        """GET ``path``: the status and the body as text (errors included, so tests can assert on them)."""
        request = urllib.request.Request(f"{self.base_url}{path}", headers=dict(headers or {}))
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return int(answer.status), answer.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            return int(error.code), error.read().decode("utf-8", errors="replace")

    # ------------------------------------------------------------ the JSON API

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 10.0,
    ) -> tuple[int, dict[str, str], str]:
        """One HTTP request: status, headers (names in lower case) and body text, error statuses included.
        A connection that fails (a killed server) raises ``OSError`` (``URLError``, ``ConnectionError``)."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.base_url}{path}",
            data=data,
            method=method,
            headers={"Content-Type": "application/json", **(headers or {})},
        )
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                status, head, raw = answer.status, answer.headers, answer.read()
        except urllib.error.HTTPError as error:
            status, head, raw = error.code, error.headers, error.read()
        return int(status), {name.lower(): value for name, value in head.items()}, raw.decode("utf-8", errors="replace")

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        """A JSON API call: the status and the decoded answer; a 5xx fails the test with the server's log."""
        status, _headers, text = self.request(method, path, body, token)
        assert status < 500, f"{method} {path}: {status} {text[:300]!r}\n{self.output()}"
        return status, json.loads(text) if text.startswith(("{", "[")) else text

    def ok(self, method: str, path: str, body: Any = None, token: str | None = None, status: int = 200) -> Any:
        """A JSON API call that must answer ``status``; its decoded answer."""
        code, answer = self.call(method, path, body, token)
        assert code == status, f"{method} {path}: {code} {answer}"
        return answer


class SchedulerProcess:
    """``tirage scheduler`` beside a :class:`TirageServer` started with ``--no-scheduler``: the same
    instance folder and environment (so the same database), its own log, restartable."""

    READY = b"round scheduler running"  # what `tirage scheduler` prints once its first sweep is done

    def __init__(self, server: TirageServer) -> None:
        self.server = server
        self.env = {**server.env, "PYTHONUNBUFFERED": "1"}  # the ready line must reach the log at once
        self.log = server.tmp_dir / "scheduler.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = WAIT) -> SchedulerProcess:
        """Start it and wait until it says it runs (its catch-up sweep is done by then)."""
        assert not self.running, "the scheduler is already running"
        seen = self.log.read_bytes().count(self.READY) if self.log.exists() else 0
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                [*tirage_command(), "scheduler"],
                cwd=self.server.tmp_dir,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        self.server.wait_for(lambda: self._started(seen), "tirage scheduler to start", timeout)
        return self

    def _started(self, seen: int) -> bool:
        assert self.process is not None and self.process.poll() is None, f"tirage scheduler exited:\n{self.output()}"
        return self.log.read_bytes().count(self.READY) > seen

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: its planned jobs die with it; only the database remembers the deadlines."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=WAIT)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (it stops cleanly); SIGKILL if it has not exited within ``timeout``."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()

    def output(self) -> str:
        """Everything the scheduler printed (all its runs), for assertion messages."""
        return self.log.read_text(errors="replace") if self.log.exists() else ""
