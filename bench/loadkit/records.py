"""What the run keeps: its players, its rounds, each submission, and clock marks at moments of the run."""

from __future__ import annotations

import asyncio
import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .sse import Listener


@dataclass(eq=False)
class Player:
    """A simulated player: its credentials, its stream, and the plays the server accepted from it."""

    index: int
    name: str
    token: str = ""
    player_id: int = 0
    listener: Listener | None = None
    accepted: dict[int, str] = field(default_factory=dict)  # round -> the last accepted play, as the server wrote it
    seen: set[tuple[str, int]] = field(default_factory=set)  # (event kind, round) received
    playing: dict[int, asyncio.Task[None]] = field(default_factory=dict)  # round -> the task sending its plays
    cookie: str = ""  # with --phones pages: the session cookie the join page set
    page_event_id: int = 0  # with --phones pages: the last event the play page was drawn with
    address: str = "127.0.0.1"  # the loopback address its connections come from (see state.phone_address)


@dataclass(eq=False)
class RoundInfo:
    """A round as its events told it, and the figures measured in it."""

    number: int
    at: float  # the round_started event's server time
    deadline: float
    rack: str
    plays: asyncio.Future[list[str]]
    legal_count: int = 0
    closed_at: float = math.nan  # the round_closed event's server time
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    started_delays: list[float] = field(default_factory=list)
    closed_delays: list[float] = field(default_factory=list)
    reads: list[float] = field(default_factory=list)  # reveal read latencies
    page_started: list[float] = field(default_factory=list)  # --phones pages: round start event -> page fragment
    page_reveal: list[float] = field(default_factory=list)  # --phones pages: round_closed event -> page fragment
    reads_done: int = 0
    reads_started: int = 0
    planned: list[float] = field(default_factory=list)  # planned send times (epoch)
    audit: dict[str, int] = field(default_factory=dict)


@dataclass
class Mark:
    """Clocks at one moment of the run: wall, server and client CPU seconds, the machine's busy and total."""

    wall: float
    server: float
    client: float
    busy: float
    total: float
    answered: int  # submissions answered so far
    reads: int  # reveal reads answered so far

    @staticmethod
    def share(begin: Mark | None, end: Mark | None) -> dict[str, float]:
        """Seconds between two marks, and each CPU in cores over them (the machine's: every process)."""
        if begin is None or end is None or end.wall <= begin.wall:
            return dict.fromkeys(("seconds", "server_cpu", "client_cpu", "machine_cpu"), math.nan)
        wall = end.wall - begin.wall
        cores = (os.cpu_count() or 1) * (end.busy - begin.busy) / max(end.total - begin.total, 1e-9)
        return {
            "seconds": wall,
            "server_cpu": (end.server - begin.server) / wall,
            "client_cpu": (end.client - begin.client) / wall,
            "machine_cpu": cores,
        }


@dataclass
class Submission:
    """One play sent, and how it was answered."""

    round: int
    pressed: float  # epoch, when the player sent it (as far as they know)
    sent: float  # epoch, when a client connection was free and the request went
    latency: float
    queued: float  # the wait for a client connection before sending
    status: int  # 0: no answer (error)
    garbage: bool
    before_deadline: float  # seconds between sending and the deadline
