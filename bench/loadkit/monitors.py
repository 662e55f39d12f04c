"""The run's background tasks: the client's event-loop lag, the server's /proc figures, a progress line
every 10 s, and a watchdog that breaks silent streams."""

from __future__ import annotations

import asyncio
import time

from .report import log
from .state import RunState
from .stats import ms, percentile

SAMPLE_SECONDS = 1.0  # how often the server's /proc figures are read
LAG_TICK = 0.05  # the event-loop lag probe's period
STREAM_SILENCE = 45.0  # a stream with no byte for this long (heartbeats come every 15 s) is broken


class Monitors(RunState):
    """The tasks that watch the run while it goes."""

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
