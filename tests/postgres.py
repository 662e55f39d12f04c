"""A throwaway PostgreSQL server for the tests: a cluster in a temporary folder, on a Unix socket.

Tests that touch the database run against SQLite and against this real server. Where the server
binaries are missing the PostgreSQL variants skip with the reason on a developer's machine, but
fail when ``CI`` is set (``.ci/run`` installs them).
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

SUPERUSER = "tirage"


def _binaries() -> tuple[str, str] | None:
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        initdb, pg_ctl = Path(folder, "initdb"), Path(folder, "pg_ctl")
        if initdb.exists() and pg_ctl.exists():
            return str(initdb), str(pg_ctl)
    initdb_path, pg_ctl_path = shutil.which("initdb"), shutil.which("pg_ctl")
    return (initdb_path, pg_ctl_path) if initdb_path and pg_ctl_path else None


def unavailable(reason: str) -> None:
    """Skip on a developer's machine; in CI a missing system part is a failure."""
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL tests cannot run in CI: {reason}")
    pytest.skip(f"PostgreSQL tests need the server binaries: {reason}")


class Server:
    """One PostgreSQL cluster; :meth:`new_database` gives each test its own database. :meth:`halt`,
    :meth:`start` and :meth:`restart` make an outage of the whole server for the fault tests."""

    def __init__(self) -> None:
        binaries = _binaries()
        if binaries is None:
            unavailable("initdb and pg_ctl not found (apt-get install postgresql)")
        assert binaries is not None
        self.initdb, self.pg_ctl = binaries
        # Its own folder under /tmp: pytest's temporary folders are closed to other users.
        folder = self.folder = Path(tempfile.mkdtemp(prefix="tirage-pg-"))
        self.data = folder / "data"
        self.socket = folder / "socket"
        self.socket.mkdir(parents=True)
        # PostgreSQL refuses to run as root: run it as the `postgres` user the package creates.
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            if shutil.which("runuser") is None:
                unavailable("running as root without runuser")
            self.as_user = ["runuser", "-u", "postgres", "--"]
            shutil.chown(folder, "postgres")
            shutil.chown(self.socket, "postgres")
        self._numbers = itertools.count(1)
        self._run([self.initdb, "-D", str(self.data), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8"])
        self.running = False
        self.start()

    def start(self) -> None:
        """Start the cluster (again): same data folder, same socket, so every URL handed out works again."""
        options = f"-k {self.socket} -c listen_addresses='' -c fsync=off -c full_page_writes=off"
        self._run(
            [
                self.pg_ctl,
                "-D",
                str(self.data),
                "-o",
                options,
                "-w",
                "-t",
                "30",
                "-l",
                str(self.folder / "server.log"),
                "start",
            ]
        )
        self.running = True

    def halt(self, mode: str = "fast") -> None:
        """Stop the cluster and keep its data, as an outage: ``fast`` ends every client's connection and shuts
        down cleanly, ``immediate`` stops at once, like a crash (the next start recovers from the WAL)."""
        self._run([self.pg_ctl, "-D", str(self.data), "-m", mode, "-w", "-t", "30", "stop"])
        self.running = False

    def restart(self, mode: str = "fast") -> None:
        """:meth:`halt` then :meth:`start`: every open connection is cut, then the same server is back."""
        self.halt(mode)
        self.start()

    def _run(self, command: list[str]) -> None:
        result = subprocess.run(self.as_user + command, capture_output=True, text=True, timeout=60, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"{' '.join(command[:1])} failed: {result.stderr or result.stdout}")

    def url(self, database: str) -> str:
        return f"postgresql+psycopg://{SUPERUSER}@/{database}?host={self.socket}"

    def new_database(self, *, template: str | None = None, name: str | None = None) -> str:
        """A new database (empty, or a copy of ``template``, which must have no open connection)."""
        import psycopg

        name = name or f"test_{os.getpid()}_{next(self._numbers)}"
        copy = f' TEMPLATE "{template}"' if template else ""
        with psycopg.connect(f"dbname=postgres user={SUPERUSER} host={self.socket}", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"{copy}')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        """Drop a test's database at its end, closing what it left connected (a server halted by a fault test is
        left as it is: its folder goes at the session's end)."""
        import psycopg

        if not self.running:
            return
        name = url.split("/")[-1].split("?")[0]
        with psycopg.connect(f"dbname=postgres user={SUPERUSER} host={self.socket}", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        """The end of the session: stop the cluster (unless a test left it halted) and remove its folder."""
        try:
            if self.running:
                self.halt("immediate")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
