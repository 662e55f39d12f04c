"""The honest side of ``bench/attack.py``: the director, the players, the page probes, one round per scenario."""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import math
import multiprocessing
import multiprocessing.connection
import multiprocessing.process
import os
import random
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from .attackers import AttackPlan, attack, connection_cap, large_body
from .engine_worker import legal_plays, load_lexicon
from .host import client_cpu, machine_cpu
from .report import log
from .rounds import game_seed, parse_time
from .server import ServerProcess
from .stats import ms, spread

CLOSE_WAIT = 120.0  # seconds after its deadline a round must be seen closed by, else the run stops
IDLE_ADDRESSES = ("127.0.0.2", "127.0.0.3")  # the idle connections' sources (each address has its own cap)
JAMS = ("jam", "jam-many")  # the whole-log catch-up loops: from 127.0.0.1, or each from an address of its own
CAP_ADDRESS = "127.0.0.9"  # the connection cap's probe


@dataclass(eq=False)
class Honest:
    index: int
    name: str
    token: str = ""
    player_id: int = 0
    accepted: dict[int, str] = field(default_factory=dict)  # round -> the play as the server wrote it


@dataclass
class Play:
    wall: float  # when it was sent
    latency: float
    status: int
    code: str  # the error code of a refusal
    margin: float  # deadline minus the moment it was sent
    stamp_lag: float = math.nan  # the server's arrival stamp (received_at) minus the moment it was sent
    new_connection: bool = False  # it opened a connection (else it went on a kept-alive one)


@dataclass
class Scenario:
    """One round under one attack, and what was measured in it."""

    name: str  # its kind: jam, jam-many, slow, opening, poisoned
    number: int
    label: str = ""  # the name, numbered when a scenario is played several rounds
    opened: float = math.nan  # the director's start (or next) answered in
    opened_wall: float = math.nan  # when it was sent
    deadline: float = math.nan
    rack: str = ""
    legal: int = 0
    plays: list[Play] = field(default_factory=list)
    probes: list[tuple[str, float, float, int]] = field(default_factory=list)  # kind, wall, latency, status
    closed_after: float = math.nan  # deadline to the round seen closed
    ready: dict[str, Any] = field(default_factory=dict)
    attack: dict[str, Any] = field(default_factory=dict)
    audit: dict[str, int] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    server_cpu: float = 0.0  # share of a core from the round's opening to its close
    client_cpu: float = 0.0
    rss_mb: float = 0.0  # the largest sampled sum of VmRSS during the scenario
    lag_max: float = 0.0
    machine_cpu: float = 0.0  # cores busy on the machine, from the round's opening to its close
    attacker_cpu: float = 0.0  # the attacker process's share of a core, over the same time
    connections: int = 0  # opened by the players' session in the round
    seconds: float = 0.0


def jam_addresses(count: int) -> tuple[str, ...]:
    """The many-address jam's sources: 127.0.2.1 onwards (Linux answers for all of 127.0.0.0/8)."""
    return tuple(f"127.0.2.{n}" for n in range(1, count + 1))


def process_cpu(pid: int | None) -> float:
    """utime + stime of a process, in seconds (0 without one)."""
    if pid is None:
        return 0.0
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def two_blank_seed(start: int) -> tuple[int, str]:
    """The first seed from ``start`` whose first English rack holds two blanks, and that rack."""
    from trainer.duplicate.draw import Bag
    from trainer.engine.rules import ruleset

    rules = ruleset("en")
    seed = start
    while True:
        rack = Bag(rules, seed=seed).draw("", 1).rack
        if rack.count("?") == 2:
            return seed, rack
        seed += 1


class Siege:
    """The honest side of the run (director, players, page probes) and the scenarios, in the client's loop."""

    def __init__(self, args: argparse.Namespace, server: ServerProcess, instance: Path) -> None:
        self.args = args
        self.server = server
        self.instance = instance
        self.rng = random.Random(args.seed)
        self.players = [Honest(i, f"player {i:04d}") for i in range(1, args.players + 1)]
        self.scenarios: list[Scenario] = []
        self.figures: dict[str, Any] = {"flood": {}, "joins": {}}
        self.game_id = 0
        self.code = ""
        self.director = ""
        self.lexicon = "en"
        self.lags: list[tuple[float, float]] = []  # wall, lag
        self.rss_kb = 0
        self.connections = 0  # opened by the players' session
        self.pool: concurrent.futures.ProcessPoolExecutor | None = None
        self.sessions: dict[str, aiohttp.ClientSession] = {}

    async def main(self) -> None:
        timeout = aiohttp.ClientTimeout(total=60)
        limits = {"players": self.args.players, "director": 4, "pages": 8, "flood": self.args.flood_concurrency}
        counting = aiohttp.TraceConfig()  # the players' new connections (a play on one waits for its accept)
        counting.on_connection_create_end.append(self._connected)
        for name, limit in limits.items():
            connector = aiohttp.TCPConnector(limit=limit, keepalive_timeout=15.0)
            self.sessions[name] = aiohttp.ClientSession(
                connector=connector,
                timeout=timeout,
                cookie_jar=aiohttp.DummyCookieJar(),
                trace_configs=[counting] if name == "players" else None,
            )
        background = [asyncio.create_task(self._lag_probe()), asyncio.create_task(self._sampler())]
        try:
            await self._set_up()
            if {*JAMS, "slow"} & set(self.args.scenarios):
                await self._flood()
            await self._join_honest()
            for name in self.args.scenarios:
                await self._scenario(name, len(self.scenarios) + 1)
            await self.call("director", "POST", f"/api/games/{self.game_id}/end", token=self.director)
        finally:
            for task in background:
                task.cancel()
            for session in self.sessions.values():
                await session.close()

    # ------------------------------------------------------------ HTTP

    async def call(
        self,
        session: str,
        method: str,
        path: str,
        body: Any = None,
        token: str = "",
        trace: dict[str, Any] | None = None,
    ) -> tuple[int, Any, float]:
        """(status, JSON answer or raw text, seconds); status 0 when no answer came. ``trace`` gets ``new`` when the
        request opened a connection (the players' session)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        started = time.perf_counter()
        try:
            async with self.sessions[session].request(
                method, self.server.base + path, json=body, headers=headers, trace_request_ctx=trace
            ) as answer:
                raw = await answer.read()
                status = answer.status
        except (aiohttp.ClientError, OSError, TimeoutError) as error:
            return 0, repr(error), time.perf_counter() - started
        seconds = time.perf_counter() - started
        try:
            return status, json.loads(raw), seconds
        except ValueError:
            return status, raw[:300].decode(errors="replace"), seconds

    async def ok(self, path: str, body: Any = None, method: str = "POST", expect: int = 200) -> Any:
        status, answer, _ = await self.call("director", method, path, body, self.director)
        if status != expect:
            raise RuntimeError(f"{method} {path}: HTTP {status}: {answer}")
        return answer

    # ------------------------------------------------------------ set-up

    async def _set_up(self) -> None:
        name, password = f"bench-{secrets.token_hex(3)}", secrets.token_urlsafe(12)
        await asyncio.to_thread(self.server.cli, "director", "create", name, "--password", password)
        self.director = (await self.ok("/api/auth/token", {"username": name, "password": password}))["token"]
        game = await self.ok(
            "/api/games", self._settings(game_seed(self.args.seed), len(self.args.scenarios)), expect=201
        )
        self.game_id, self.code, self.lexicon = game["id"], game["join_code"], game["lexicon"]
        context = multiprocessing.get_context("spawn")
        self.pool = concurrent.futures.ProcessPoolExecutor(
            1, mp_context=context, initializer=load_lexicon, initargs=(str(self.instance), self.lexicon)
        )
        log(f"game {self.game_id}: rounds of {self.args.round_seconds} s, {len(self.args.scenarios)} round(s)")

    def _settings(self, seed: int, rounds: int) -> dict[str, Any]:
        return {
            "rules": "en",
            "round_seconds": self.args.round_seconds,
            "reveal_seconds": None,
            "max_rounds": rounds,
            "seed": seed,
        }

    async def _flood(self) -> None:
        """Extra players join, ``--flood-concurrency`` at a time: each join is one more event in the log."""
        args = self.args
        slots, statuses = asyncio.Semaphore(args.flood_concurrency), dict[int, int]()
        started = time.perf_counter()
        limit = started + args.flood_seconds
        log(f"join flood: {args.flood} players, {args.flood_concurrency} at a time")

        async def join(index: int) -> None:
            async with slots:
                if time.perf_counter() > limit:
                    statuses[-1] = statuses.get(-1, 0) + 1
                    return
                status, _, _ = await self.call(
                    "flood", "POST", "/api/join", {"code": self.code, "name": f"flood {index}"}
                )
                statuses[status] = statuses.get(status, 0) + 1

        await asyncio.gather(*(join(i) for i in range(args.flood)))
        seconds = time.perf_counter() - started
        joined = statuses.get(201, 0)
        self.figures["flood"] = {
            "asked": args.flood,
            "joined": joined,
            "seconds": seconds,
            "per_second": joined / seconds if seconds else math.nan,
            "not_sent": statuses.pop(-1, 0),
            "statuses": {str(k): v for k, v in sorted(statuses.items())},
        }
        log(f"join flood: {joined} joined in {seconds:.1f} s ({joined / seconds:.0f}/s)")
        await self.sessions["flood"].close()

    async def _join_honest(self) -> None:
        slots, latencies = asyncio.Semaphore(100), list[float]()

        async def join(player: Honest) -> None:
            async with slots:
                status, answer, seconds = await self.call(
                    "players", "POST", "/api/join", {"code": self.code, "name": player.name}
                )
            if status == 201:
                player.token, player.player_id = answer["token"], answer["player_id"]
                latencies.append(seconds)

        started = time.perf_counter()
        await asyncio.gather(*(join(p) for p in self.players))
        joined = sum(1 for p in self.players if p.token)
        self.figures["joins"] = {"joined": joined, "seconds": time.perf_counter() - started, **spread(latencies)}
        log(f"{joined} honest players joined")
        if not joined:
            raise RuntimeError("no honest player could join")

    # ------------------------------------------------------------ a scenario

    async def _scenario(self, name: str, number: int) -> None:
        args = self.args
        rounds_of_it = sum(1 for s in self.scenarios if s.name == name) + 1
        scenario = Scenario(name, number, f"{name} #{rounds_of_it}" if args.repeat > 1 else name)
        self.scenarios.append(scenario)
        began = time.perf_counter()
        other: dict[str, Any] | None = None
        if name == "opening":
            seed, rack = await asyncio.to_thread(two_blank_seed, game_seed(args.seed))
            other = await self.ok("/api/games", self._settings(seed, 1), expect=201)
            scenario.extra.update(b_game=other["id"], b_seed=seed, b_rack_expected=rack)
        attacker = None
        removed = await self._join_removed(scenario) if name == "poisoned" else []
        if name in (*JAMS, "slow"):
            plan = AttackPlan(
                self.server.port,
                self.game_id,
                catch_ups=args.attackers,
                catch_up_addresses=jam_addresses(args.jam_addresses) if name == "jam-many" else ("127.0.0.1",),
                idle=args.idle if name == "slow" else 0,
                idle_addresses=IDLE_ADDRESSES,
                slow=args.slow_bodies if name == "slow" else 0,
                nice=args.attacker_nice,
            )
            attacker = await self._start_attack(plan, scenario)
        self.server.rss_peak_kb = 0
        probes = asyncio.create_task(self._probe_pages(scenario)) if name in (*JAMS, "slow") else None
        try:
            cpu, client, wall, connections = self.server.cpu_seconds(), client_cpu(), time.time(), self.connections
            busy, total = machine_cpu()
            attacker_pid = attacker[0].pid if attacker is not None else None
            attacker_cpu = process_cpu(attacker_pid)
            verb = "start" if number == 1 else "next"
            started, scenario.opened_wall = time.perf_counter(), time.time()
            state = await self.ok(f"/api/games/{self.game_id}/{verb}")
            scenario.opened = time.perf_counter() - started
            scenario.deadline, scenario.rack = parse_time(state["deadline"]), state["rack"]
            log(f"{name}: round {number} opened in {ms(scenario.opened)}, rack {scenario.rack}")
            assert self.pool is not None
            plays, scenario.legal, _ = await asyncio.get_running_loop().run_in_executor(
                self.pool, legal_plays, "en", state["notation"], state["board"], state["rack"], 500, args.seed + number
            )
            window = (0.3, 10.0) if name == "opening" else (0.3, 3.0)
            tasks = [
                asyncio.create_task(self._play(p, scenario, self.rng.choice(plays), self.rng.uniform(*window)))
                for p in self.players
                if p.token
            ]
            if other is not None:
                tasks.append(asyncio.create_task(self._open_other(other["id"], scenario)))
            if removed:
                tasks += await self._poison(scenario, removed, plays, window)
            await asyncio.sleep(max(0.0, scenario.deadline + self.args.settle_seconds - time.time()))
            while True:
                status, answer, _ = await self.call(
                    "director", "GET", f"/api/games/{self.game_id}", token=self.director
                )
                if status == 200 and answer["round_status"] == "closed":
                    break
                if time.time() > scenario.deadline + CLOSE_WAIT:
                    raise RuntimeError(f"round {number} not closed {CLOSE_WAIT:g} s after its deadline")
                await asyncio.sleep(0.1)
            scenario.closed_after = time.time() - scenario.deadline
            scenario.server_cpu = (self.server.cpu_seconds() - cpu) / (time.time() - wall)
            scenario.client_cpu = (client_cpu() - client) / (time.time() - wall)
            now_busy, now_total = machine_cpu()
            scenario.machine_cpu = (now_busy - busy) / (now_total - total) * (os.cpu_count() or 1)
            scenario.attacker_cpu = (process_cpu(attacker_pid) - attacker_cpu) / (time.time() - wall)
            scenario.connections = self.connections - connections
            scenario.lag_max = max([lag for moment, lag in self.lags if moment >= wall] or [0.0])
            await asyncio.wait(tasks, timeout=60)
        finally:
            if probes is not None:
                probes.cancel()
            if attacker is not None:
                scenario.attack = await self._stop_attack(*attacker)
        log(f"{name}: round {number} closed {scenario.closed_after:.2f} s after its deadline; checking the results")
        await self._audit(scenario)
        if name == "slow":
            await self._probe_defences(scenario)
        self.server.sample()
        scenario.rss_mb = self.server.rss_peak_kb / 1024
        self.rss_kb = max(self.rss_kb, self.server.rss_peak_kb)
        scenario.seconds = time.perf_counter() - began

    async def _join_removed(self, scenario: Scenario) -> list[Honest]:
        """``--removed`` more players, who will be removed once the round is open (poisoned)."""
        removed = [Honest(i, f"removed {scenario.number}.{i}") for i in range(1, self.args.removed + 1)]
        for player in removed:
            status, answer, _ = await self.call(
                "players", "POST", "/api/join", {"code": self.code, "name": player.name}
            )
            if status != 201:
                raise RuntimeError(f"a player to remove could not join: HTTP {status}: {answer}")
            player.token, player.player_id = answer["token"], answer["player_id"]
        return removed

    async def _poison(
        self, scenario: Scenario, removed: list[Honest], plays: list[str], window: tuple[float, float]
    ) -> list[asyncio.Task[None]]:
        """Each player to remove hands in a play (the play path now knows them), is removed by the director, then
        sends ``--removed-plays`` plays in the honest players' window: in the same seconds, the same write batches."""
        path = f"/api/games/{self.game_id}/rounds/{scenario.number}/plays"
        first: list[int] = []
        for player in removed:
            status, _, _ = await self.call("players", "POST", path, {"move": self.rng.choice(plays)}, player.token)
            first.append(status)
        for player in removed:
            await self.ok(f"/api/games/{self.game_id}/players/{player.player_id}", method="DELETE", expect=204)
        answers: list[tuple[int, str]] = []
        scenario.extra.update(removed=len(removed), removed_first=first, removed_answers=answers)

        async def keep_playing(player: Honest, before: float) -> None:
            await asyncio.sleep(max(0.0, scenario.deadline - before - time.time()))
            status, answer, _ = await self.call("players", "POST", path, {"move": self.rng.choice(plays)}, player.token)
            code = str(answer.get("error", "")) if isinstance(answer, dict) else str(answer)
            answers.append((status, code[:80]))

        return [
            asyncio.create_task(keep_playing(player, self.rng.uniform(*window)))
            for player in removed
            for _ in range(self.args.removed_plays)
        ]

    async def _start_attack(
        self, plan: AttackPlan, scenario: Scenario
    ) -> tuple[multiprocessing.process.BaseProcess, multiprocessing.connection.Connection]:
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        process = context.Process(target=attack, args=(plan, theirs), daemon=True)
        process.start()
        log(
            f"{scenario.name}: attacker process: {plan.catch_ups} catch-up loops, {plan.idle} idle connections, "
            f"{plan.slow} slow bodies"
        )
        _kind, scenario.ready = await asyncio.to_thread(ours.recv)
        if plan.idle:
            log(f"{scenario.name}: {scenario.ready['held']} idle connections held ({scenario.ready['seconds']:.1f} s)")
        await asyncio.sleep(self.args.lead)
        return process, ours

    async def _stop_attack(
        self, process: multiprocessing.process.BaseProcess, pipe: multiprocessing.connection.Connection
    ) -> dict[str, Any]:
        pipe.send("stop")
        figures: dict[str, Any] = {}
        if await asyncio.to_thread(pipe.poll, 60):
            _kind, figures = await asyncio.to_thread(pipe.recv)
        await asyncio.to_thread(process.join, 10)
        if process.is_alive():
            process.kill()
        return figures

    async def _play(self, player: Honest, scenario: Scenario, move: str, before: float) -> None:
        """One honest play, ``before`` seconds before the deadline."""
        await asyncio.sleep(max(0.0, scenario.deadline - before - time.time()))
        wall, trace = time.time(), dict[str, Any]()
        status, answer, seconds = await self.call(
            "players",
            "POST",
            f"/api/games/{self.game_id}/rounds/{scenario.number}/plays",
            {"move": move},
            player.token,
            trace,
        )
        code, stamp_lag = "", math.nan
        if status == 200:
            player.accepted[scenario.number] = answer["move"]
            stamp_lag = parse_time(answer["received_at"]) - wall
        elif isinstance(answer, dict):
            code = str(answer.get("code") or answer.get("error") or "")[:80]
        else:
            code = str(answer)[:80]
        scenario.plays.append(Play(wall, seconds, status, code, scenario.deadline - wall, stamp_lag, "new" in trace))

    async def _open_other(self, game_id: int, scenario: Scenario) -> None:
        """Game B's start, ``--opening-at`` seconds before the main round's deadline; its state watched meanwhile."""
        await asyncio.sleep(max(0.0, scenario.deadline - self.args.opening_at - time.time()))
        sent, started = time.time(), time.perf_counter()
        seen = asyncio.create_task(self._until_playing(game_id, started))
        status, answer, seconds = await self.call(
            "director", "POST", f"/api/games/{game_id}/start", token=self.director
        )
        scenario.extra.update(b_sent=sent, b_status=status, b_answer_seconds=seconds)
        if status == 200:
            scenario.extra["b_rack"] = answer.get("rack")
        try:
            scenario.extra["b_playing_seen"] = await asyncio.wait_for(seen, 60)
        except TimeoutError:
            scenario.extra["b_playing_seen"] = math.nan

    async def _until_playing(self, game_id: int, started: float) -> float:
        while True:
            status, answer, _ = await self.call("pages", "GET", f"/api/games/{game_id}")
            if status == 200 and answer.get("status") == "playing":
                return time.perf_counter() - started
            await asyncio.sleep(0.05)

    async def _probe_pages(self, scenario: Scenario) -> None:
        """``GET /join``, ``GET /`` and the director's game state in turn, one every ``--probe-every`` seconds."""
        kinds = (
            ("join page", "/join", ""),
            ("home page", "/", ""),
            ("director state", f"/api/games/{self.game_id}", self.director),
        )
        tasks: set[asyncio.Task[None]] = set()

        async def probe(kind: str, path: str, token: str) -> None:
            wall = time.time()
            status, _, seconds = await self.call("pages", "GET", path, token=token)
            scenario.probes.append((kind, wall, seconds, status))

        try:
            for turn in range(10**9):
                task = asyncio.create_task(probe(*kinds[turn % len(kinds)]))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
                await asyncio.sleep(self.args.probe_every)
        finally:
            for task in tasks:
                task.cancel()

    async def _audit(self, scenario: Scenario) -> None:
        """Every accepted play in the round's results, as the server wrote it when it took it."""
        details = await self.ok(f"/api/games/{self.game_id}/rounds/{scenario.number}", method="GET")
        shown = {r["player_id"]: r.get("move") for r in details["results"]}
        accepted = [p for p in self.players if scenario.number in p.accepted]
        missing = sum(1 for p in accepted if not shown.get(p.player_id))
        different = sum(
            1 for p in accepted if shown.get(p.player_id) and shown[p.player_id] != p.accepted[scenario.number]
        )
        phantom = sum(
            1 for p in self.players if p.token and scenario.number not in p.accepted and shown.get(p.player_id)
        )
        scenario.audit = {
            "accepted": len(accepted),
            "lost": missing + different,
            "missing": missing,
            "different": different,
            "phantom": phantom,
        }

    async def _probe_defences(self, scenario: Scenario) -> None:
        """A body announced over its limit; the connection cap of one address (the attack has stopped)."""
        status, seconds = await large_body(self.server.port)
        cap = self.args.connections_cap
        kept, closed, opening = await connection_cap(self.server.port, CAP_ADDRESS, cap + 100)
        scenario.extra.update(
            large_body_status=status, large_body_seconds=seconds, cap=cap, cap_kept=kept, cap_closed=closed
        )
        scenario.extra["cap_open_seconds"] = opening

    # ------------------------------------------------------------ background

    async def _connected(self, _session: Any, context: Any, _params: Any) -> None:
        self.connections += 1
        if isinstance(context.trace_request_ctx, dict):
            context.trace_request_ctx["new"] = True

    async def _lag_probe(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            expected = loop.time() + 0.05
            await asyncio.sleep(0.05)
            self.lags.append((time.time(), max(0.0, loop.time() - expected)))

    async def _sampler(self) -> None:
        while True:
            self.server.sample()
            await asyncio.sleep(0.5)
