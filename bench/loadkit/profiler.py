"""``py-spy record --gil`` of the server over the rounds, and its busiest functions from the raw stacks."""

from __future__ import annotations

import shutil
import signal
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any


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
                frames = [frame_name(f) for f in stack.split(";")[1:]]  # the first is the process
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


def frame_name(frame: str) -> str:
    """``submit (trainer/games/service.py:345)`` -> ``submit (trainer/games/service.py)``."""
    name, _, where = frame.partition(" (")
    return f"{name} ({where.rsplit(':', 1)[0]})" if where else name
