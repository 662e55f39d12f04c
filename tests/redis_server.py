"""A throwaway Redis server for the multi-process tests, on a Unix socket in a temporary folder.

Where ``redis-server`` is missing the tests that need it skip with the reason on a developer's
machine, but fail when ``CI`` is set (``.ci/run`` installs it).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest


class RedisServer:
    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            if os.environ.get("CI"):
                pytest.fail("Redis tests cannot run in CI: redis-server not found (apt-get install redis-server)")
            pytest.skip("the multi-process tests need redis-server (apt-get install redis-server)")
        self.folder = Path(tempfile.mkdtemp(prefix="tirage-redis-"))
        self.socket = self.folder / "redis.sock"
        self.log = self.folder / "redis.log"
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                "0",
                "--unixsocket",
                str(self.socket),
                "--unixsocketperm",
                "700",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
                "--logfile",
                str(self.log),
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
        )
        limit = time.monotonic() + 15
        while not self.socket.exists():
            assert self.process.poll() is None, f"redis-server exited:\n{self.output()}"
            assert time.monotonic() < limit, f"redis-server did not start:\n{self.output()}"
            time.sleep(0.05)
        self.url = f"unix://{self.socket}"

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)
