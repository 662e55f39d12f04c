"""When Python's garbage collector may stop a web process: not in the middle of a room's rush.

A process holding 10,000 event streams keeps millions of objects alive (each connection's protocol,
task, queue and scope). Python's full collection walks every one of them with the event loop
stopped: 0.2–0.8 s a time there. At the interpreter's default settings it ran about every 10 s of a
round's last seconds, because every play in flight at a young collection is promoted and counts
towards the next full one; in ``bench/load.py --players 10000`` the process spent about 9 s
collecting, and those pauses were most of the 4–8 s queue at the deadline.

So a web process, while it serves:

* moves what lives as long as it does (the application, its modules, the lexicons) out of the
  collector's sight once at start (``gc.freeze``);
* makes young collections rarer (each stays a few milliseconds: it walks the young objects only);
* never starts a full collection on its own: :meth:`Collector.tick` runs it when no request has
  arrived for :attr:`quiet` seconds and the last one is :attr:`least` seconds old, and in any case
  every :attr:`most` seconds, so cyclic garbage that outlived the young collections is still freed.

Memory is still freed at once by reference counting for everything that is not in a cycle, which is
nearly everything a request leaves behind.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

YOUNG_THRESHOLD = 50_000  # allocations between two young collections (the interpreter's default: 700)
MIDDLE_THRESHOLD = 20  # young collections between two of the middle generation (default: 10)
NEVER = 1_000_000_000  # the full collection's threshold: in practice it is started only by tick()
QUIET_SECONDS = 3.0
LEAST_SECONDS = 60.0
MOST_SECONDS = 600.0
CHECK_SECONDS = 1.0
log = logging.getLogger(__name__)


class Collector:
    """The collector policy of one serving process; ``activity`` counts the requests received so far."""

    def __init__(
        self,
        activity: Callable[[], int],
        quiet: float = QUIET_SECONDS,
        least: float = LEAST_SECONDS,
        most: float = MOST_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.activity = activity
        self.quiet, self.least, self.most = quiet, least, most
        self.clock = clock
        self.full_collections = 0
        self._seen = activity()
        self._seen_since = self._last_full = clock()
        self._saved: tuple[int, int, int] | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Take over the collector (from the running event loop)."""
        self._saved = gc.get_threshold()
        gc.collect()  # what start-up left as garbage, so that only live objects are frozen
        gc.freeze()
        gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, NEVER)
        self._last_full = self._seen_since = self.clock()
        self._task = asyncio.create_task(self._run(), name="garbage-collector")

    def stop(self) -> None:
        """Give the collector back as it was (tests run several servers in one process)."""
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            gc.unfreeze()
            self._saved = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(CHECK_SECONDS)
            self.tick()

    def tick(self) -> bool:
        """Run a full collection if it is time; whether it ran."""
        now = self.clock()
        seen = self.activity()
        if seen != self._seen:
            self._seen, self._seen_since = seen, now
        since_full = now - self._last_full
        quiet = now - self._seen_since >= self.quiet
        if not (since_full >= self.most or (quiet and since_full >= self.least)):
            return False
        if gc.get_count()[2] == 0:  # no middle collection since the last full one: nothing new is old
            self._last_full = now
            return False
        started = time.perf_counter()
        freed = gc.collect()
        self._last_full = self.clock()
        self.full_collections += 1
        log.debug(
            "full garbage collection: %d objects freed in %.0f ms (%s)",
            freed,
            (time.perf_counter() - started) * 1000,
            "quiet" if quiet else "overdue",
        )
        return True
