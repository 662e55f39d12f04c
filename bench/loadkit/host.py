"""The client's side of the machine: its open-files limit, the CPU clocks of the machine and of this
process, and the checkout's version (the server runs the tree as it is)."""

from __future__ import annotations

import contextlib
import resource
import subprocess
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]


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


def client_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def checkout_version() -> str:
    """The checkout's commit, ``+changes`` when tracked files differ from it (the server runs the tree)."""
    try:
        commit = subprocess.run(
            ["git", "-C", str(CHECKOUT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "-C", str(CHECKOUT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "(not a git checkout)"
    return commit + ("+changes" if changed else "")
