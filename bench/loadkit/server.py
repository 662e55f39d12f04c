"""``tirage serve`` as a subprocess on a free loopback port, and its figures from ``/proc``: the CPU
time and peak memory of the server process and every process under it."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def tirage_command() -> list[str]:
    script = Path(sys.executable).with_name("tirage")
    return [str(script)] if script.exists() else [sys.executable, "-m", "trainer.cli"]


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
