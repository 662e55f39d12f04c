"""The attack traffic of ``bench/attack.py`` in a process of its own: catch-up loops, idle connections, slow bodies."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing.connection
import os
import resource
import time
from dataclasses import dataclass, field
from typing import Any, cast

import aiohttp

OPENING = 200  # idle connections being opened at once, the first time
AT_ONCE = 1.0  # a connection the server closes this soon after opening it was refused (over the cap)
SLOW_SECONDS = 1.0  # between two bytes of a slow body
HALF_LINE = b"GET /join HT"  # half a request line: what every other idle connection sends


@dataclass(frozen=True)
class AttackPlan:
    """What the attacker process does, against ``tirage serve`` on 127.0.0.1:``port``."""

    port: int
    game_id: int
    catch_ups: int = 0  # clients looping on the whole-log catch-up
    catch_up_addresses: tuple[str, ...] = ("127.0.0.1",)  # their sources, in turn (one budget each on the server)
    idle: int = 0  # connections that send nothing, or half a request line, reopened when closed
    idle_addresses: tuple[str, ...] = ("127.0.0.2",)
    slow: int = 0  # clients sending a body one byte a second
    slow_address: str = "127.0.0.4"
    slow_path: str = "/join"
    slow_length: int = 100_000
    nice: int = 10  # the attacker process's niceness: on one machine, the server's core comes first


@dataclass
class _Tally:
    catch_ups: list[tuple[float, float, int, int, int]] = field(default_factory=list)  # wall, s, events, bytes, status
    catch_up_errors: dict[str, int] = field(default_factory=dict)
    idle_opened: int = 0
    idle_connect_errors: int = 0
    idle_lifetimes: list[float] = field(default_factory=list)  # opening to the server's close
    idle_closes: list[float] = field(default_factory=list)  # when the server closed one (wall)
    idle_at_once: int = 0
    held: int = 0
    held_samples: list[tuple[float, int]] = field(default_factory=list)  # wall, idle connections open
    slow_answers: list[tuple[float, int, float, int]] = field(default_factory=list)  # wall, status, s, bytes sent
    slow_errors: int = 0


class _Idle(asyncio.Protocol):
    """A connection that says nothing more than ``first``, until the server closes it."""

    def __init__(self, first: bytes) -> None:
        self.first = first
        self.transport: asyncio.Transport | None = None
        self.opened = 0.0
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def itself(self) -> _Idle:
        return self

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.opened = time.monotonic()
        if self.first:
            self.transport.write(self.first)

    def data_received(self, data: bytes) -> None:
        pass

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closed.done():
            self.closed.set_result(None)


class Attack:
    """The attacker process's loop: runs ``plan`` until the parent says stop, then sends the tally back."""

    def __init__(self, plan: AttackPlan, pipe: multiprocessing.connection.Connection) -> None:
        self.plan = plan
        self.pipe = pipe
        self.tally = _Tally()
        self.stopping = False
        self.idle: set[_Idle] = set()
        self.opening = asyncio.Semaphore(OPENING)

    async def main(self) -> None:
        plan = self.plan
        tasks: list[asyncio.Task[None]] = []
        sessions = [  # one a source address: a connector binds one
            aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=plan.catch_ups, local_addr=(address, 0)),
                timeout=aiohttp.ClientTimeout(total=60),
                auto_decompress=False,
            )
            for address in (plan.catch_up_addresses if plan.catch_ups else ())
        ]
        for index in range(plan.idle):
            address = plan.idle_addresses[index % len(plan.idle_addresses)]
            tasks.append(asyncio.create_task(self._hold(address, HALF_LINE if index % 2 else b"")))
        for _ in range(plan.slow):
            tasks.append(asyncio.create_task(self._slow()))
        tasks.append(asyncio.create_task(self._sample()))
        started = time.monotonic()
        while self.tally.held < plan.idle and time.monotonic() - started < 60:
            await asyncio.sleep(0.1)
        self.pipe.send(("ready", {"held": self.tally.held, "seconds": time.monotonic() - started}))
        tasks += [asyncio.create_task(self._catch_up(sessions[i % len(sessions)])) for i in range(plan.catch_ups)]
        while not self.pipe.poll():
            await asyncio.sleep(0.05)
        self.pipe.recv()
        self.stopping = True
        for idle in list(self.idle):
            if idle.transport is not None:
                idle.transport.abort()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for session in sessions:
            await session.close()
        usage = resource.getrusage(resource.RUSAGE_SELF)
        figures: dict[str, Any] = dict(self.tally.__dict__)
        figures["cpu_seconds"] = usage.ru_utime + usage.ru_stime
        self.pipe.send(("figures", figures))

    async def _catch_up(self, session: aiohttp.ClientSession) -> None:
        """The whole event log of the game, read whole, again and again."""
        url = f"http://127.0.0.1:{self.plan.port}/api/games/{self.plan.game_id}/events?last_event_id=0&timeout=0"
        errors = self.tally.catch_up_errors
        while not self.stopping:
            wall, started = time.time(), time.perf_counter()
            try:
                async with session.get(url) as answer:
                    body = await answer.read()
                    status = answer.status
            except (aiohttp.ClientError, OSError, TimeoutError) as error:
                errors[type(error).__name__] = errors.get(type(error).__name__, 0) + 1
                await asyncio.sleep(0.1)
                continue
            # Every frame but the first ("retry") starts with its id line; JSON data holds no raw newline.
            events = body.count(b"\nid: ")
            self.tally.catch_ups.append((wall, time.perf_counter() - started, events, len(body), status))
            if status != 200:
                await asyncio.sleep(0.1)

    async def _hold(self, address: str, first: bytes) -> None:
        """One idle connection, opened again each time the server closes it (after a second if it did at once)."""
        loop = asyncio.get_running_loop()
        tally, opened_once = self.tally, False
        while not self.stopping:
            idle = _Idle(first)
            try:
                if opened_once:
                    await loop.create_connection(idle.itself, "127.0.0.1", self.plan.port, local_addr=(address, 0))
                else:
                    async with self.opening:
                        await loop.create_connection(idle.itself, "127.0.0.1", self.plan.port, local_addr=(address, 0))
            except OSError:
                tally.idle_connect_errors += 1
                await asyncio.sleep(1.0)
                continue
            opened_once = True
            tally.idle_opened += 1
            tally.held += 1
            self.idle.add(idle)
            try:
                await idle.closed
            finally:
                self.idle.discard(idle)
                tally.held -= 1
            if self.stopping:
                return
            lifetime = time.monotonic() - idle.opened
            tally.idle_lifetimes.append(lifetime)
            tally.idle_closes.append(time.time())
            if lifetime < AT_ONCE:
                tally.idle_at_once += 1
                await asyncio.sleep(AT_ONCE)

    async def _slow(self) -> None:
        """A form posted one byte a second; its answer, then the same again on a new connection."""
        plan, tally = self.plan, self.tally
        head = (
            f"POST {plan.slow_path} HTTP/1.1\r\nHost: 127.0.0.1:{plan.port}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {plan.slow_length}\r\n\r\n"
        ).encode()
        while not self.stopping:
            try:
                reader, writer = await asyncio.open_connection(
                    "127.0.0.1", plan.port, local_addr=(plan.slow_address, 0)
                )
            except OSError:
                tally.slow_errors += 1
                await asyncio.sleep(1.0)
                continue
            writer.write(head)
            started, sent, status = time.monotonic(), 0, -1
            try:
                while not self.stopping:
                    try:
                        data = await asyncio.wait_for(reader.read(4096), SLOW_SECONDS)
                    except TimeoutError:
                        writer.write(b"a")
                        sent += 1
                        continue
                    status = 0  # closed without an answer
                    with contextlib.suppress(IndexError, ValueError):
                        status = int(data.split(b"\r\n", 1)[0].split()[1])
                    break
            except OSError:
                status = 0
            finally:
                writer.close()
            if status >= 0:
                tally.slow_answers.append((time.time(), status, time.monotonic() - started, sent))

    async def _sample(self) -> None:
        while True:
            self.tally.held_samples.append((time.time(), self.tally.held))
            await asyncio.sleep(0.5)


def attack(plan: AttackPlan, pipe: multiprocessing.connection.Connection) -> None:
    """The attacker process's entry point, at a lower priority: a remote attacker's CPU is not the server's."""
    os.nice(plan.nice)
    try:
        import uvloop

        uvloop.run(Attack(plan, pipe).main())
    except ImportError:
        asyncio.run(Attack(plan, pipe).main())


async def large_body(port: int, path: str = "/api/join", length: int = 100_000) -> tuple[int, float]:
    """A body announced larger than its limit: the status, and how soon it came (no byte of the body is sent)."""
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n".encode()
    )
    try:
        line = await asyncio.wait_for(reader.readline(), 30)
    finally:
        writer.close()
    seconds = time.perf_counter() - started
    try:
        return int(line.split()[1]), seconds
    except (IndexError, ValueError):
        return 0, seconds


async def connection_cap(port: int, address: str, count: int, wait: float = 2.0) -> tuple[int, int, float]:
    """``count`` connections from one address at once: how many the server kept, how many it closed within
    ``wait`` seconds, and how long opening them took."""
    loop = asyncio.get_running_loop()
    opening = asyncio.Semaphore(OPENING)
    held: list[_Idle] = []
    started = time.perf_counter()

    async def open_one() -> None:
        idle = _Idle(b"")
        with contextlib.suppress(OSError):
            async with opening:
                await loop.create_connection(idle.itself, "127.0.0.1", port, local_addr=(address, 0))
            held.append(idle)

    await asyncio.gather(*(open_one() for _ in range(count)))
    seconds = time.perf_counter() - started
    await asyncio.sleep(wait)
    closed = sum(1 for idle in held if idle.closed.done())
    for idle in held:
        if idle.transport is not None:
            idle.transport.abort()
    await asyncio.sleep(0.5)
    return len(held) - closed, closed, seconds
