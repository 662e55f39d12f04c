"""Rate-limit counts in this process's memory, without the ``limits`` library's expiry thread.

The library's ``memory://`` storage starts a timer thread every 10 ms that walks every key: with a
counter per player in a room of 1,500, that thread alone took an eighth of the server's time in
the last seconds of a round (``bench/load.py`` with py-spy). Here counters are fixed windows that
expire when next read, and the whole table is swept at most once a minute, inline. Used when no
Redis is configured (``tirage-memory://``); with Redis the counts live there, shared by processes.
"""

from __future__ import annotations

import threading
import time

from limits.storage import Storage

SWEEP_SECONDS = 60.0


class LeanMemoryStorage(Storage):
    """Fixed-window counters: ``incr``/``get`` with lazy expiry (enough for the fixed-window strategy)."""

    STORAGE_SCHEME = ["tirage-memory"]  # noqa: RUF012 (the library registers storages by this list)

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: float | str | bool) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self._counts: dict[str, tuple[int, float]] = {}  # key -> (count, expires at)
        self._lock = threading.Lock()
        self._next_sweep = time.monotonic() + SWEEP_SECONDS

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return ValueError

    def _sweep(self, now: float) -> None:
        if now >= self._next_sweep:
            self._counts = {key: entry for key, entry in self._counts.items() if entry[1] > now}
            self._next_sweep = now + SWEEP_SECONDS

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        now = time.monotonic()
        with self._lock:
            self._sweep(now)
            count, expires = self._counts.get(key, (0, 0.0))
            if expires <= now:
                count, expires = 0, now + expiry
            count += amount
            self._counts[key] = (count, expires)
            return count

    def get(self, key: str) -> int:
        now = time.monotonic()
        with self._lock:
            count, expires = self._counts.get(key, (0, 0.0))
            return count if expires > now else 0

    def get_expiry(self, key: str) -> float:
        """When the window of ``key`` ends, as a Unix time (what ``limits`` expects)."""
        now = time.monotonic()
        with self._lock:
            _count, expires = self._counts.get(key, (0, now))
        return time.time() + max(0.0, expires - now)

    def check(self) -> bool:
        return True

    def reset(self) -> int | None:
        with self._lock:
            count = len(self._counts)
            self._counts.clear()
        return count

    def clear(self, key: str) -> None:
        with self._lock:
            self._counts.pop(key, None)
