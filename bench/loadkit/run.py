"""One load run from start to end: the director's game, the joins, the server's idle cost, every round
(its close, its reveal, its check), then the end of the game. ``LoadRun`` puts the run's parts together."""

from __future__ import annotations

import asyncio
import concurrent.futures
import gc
import multiprocessing
import secrets
import time

import aiohttp

from .audit import Audit
from .engine_worker import engine_cpu, load_lexicon
from .figures import Figures
from .joining import Joining
from .monitors import Monitors
from .playing import LATE_WINDOW
from .records import Player
from .report import log
from .rounds import RoundEvents, game_seed
from .sse import Listener

IDLE_SECONDS = 4.0  # measured with every stream open and nothing happening


class LoadRun(Monitors, RoundEvents, Joining, Audit, Figures):
    """A room of players against the server: ``main()`` runs it, ``figures()`` says how it went."""

    async def main(self) -> None:
        asyncio.get_running_loop().set_default_executor(concurrent.futures.ThreadPoolExecutor(4))
        self.spawn(self.lag_probe())
        self.spawn(self.sampler())
        timeout = aiohttp.ClientTimeout(total=self.args.request_timeout)
        connector = aiohttp.TCPConnector(limit=self.args.api_connections, limit_per_host=0, keepalive_timeout=4.0)
        director_connector = aiohttp.TCPConnector(limit=4, keepalive_timeout=4.0)
        # No shared cookie jar: each phone's session cookie is its own (see PagePhones.page).
        async with (
            aiohttp.ClientSession(
                connector=connector, timeout=timeout, auto_decompress=False, cookie_jar=aiohttp.DummyCookieJar()
            ) as api,
            aiohttp.ClientSession(connector=director_connector, timeout=timeout) as director_api,
        ):
            self.api, self.director_api = api, director_api
            addresses = sorted({p.address for p in self.players} - {"127.0.0.1"})
            for address in addresses:  # the players of each source address share that address's connections
                self.apis[address] = aiohttp.ClientSession(
                    connector=aiohttp.TCPConnector(limit=0, keepalive_timeout=4.0, local_addr=(address, 0)),
                    timeout=timeout,
                    auto_decompress=False,
                    cookie_jar=aiohttp.DummyCookieJar(),
                )
            try:
                await self._run()
            finally:
                self.stopping = True
                for player in self.players:
                    if player.listener and player.listener.stream:
                        player.listener.stream.abort()
                if self.projector and self.projector.stream:
                    self.projector.stream.abort()
                for task in list(self.tasks):
                    task.cancel()
                await asyncio.gather(*self.tasks, return_exceptions=True)
                for session in self.apis.values():
                    await session.close()

    async def _run(self) -> None:
        warm = await self._set_up()
        joined = await self.join_all()
        self.engine_cpu += await warm  # the lexicon load in the worker
        await asyncio.sleep(1.0)
        self.mark("idle")
        await asyncio.sleep(IDLE_SECONDS)  # the server's cost of holding the streams open, to subtract below
        self.mark("idle end")

        gc.collect()
        gc.freeze()  # the players, streams and tasks live to the end: no collection should walk them again
        if self.profiler is not None:
            self.profiler.start()
        self.mark("start")
        self.spawn(self.progress())
        await self.ok("POST", f"/api/games/{self.game_id}/start", token=self.director_token)
        for number in range(1, self.args.rounds + 1):
            await self._round(number, joined)
        self.mark("end")
        if self.profiler is not None:
            await asyncio.to_thread(self.profiler.stop)
        status, _, _ = await self.call(
            "POST", f"/api/games/{self.game_id}/end", token=self.director_token, director=True
        )
        if status not in (200, 409):
            self.error(f"end: HTTP {status}", "")

    async def _set_up(self) -> asyncio.Future[float]:
        """The director, the game, the engine worker and the projector's stream; the worker's first call
        (it loads the lexicon meanwhile)."""
        args = self.args
        password = secrets.token_urlsafe(12)
        director = f"bench-{secrets.token_hex(3)}"
        await asyncio.to_thread(self.server.cli, "director", "create", director, "--password", password)
        token = await self.ok("POST", "/api/auth/token", {"username": director, "password": password})
        self.director_token = token["token"]
        game = await self.ok(
            "POST",
            "/api/games",
            {
                "rules": args.rules,
                "round_seconds": args.round_seconds,
                "reveal_seconds": args.reveal_seconds,
                "max_rounds": args.rounds,
                "seed": game_seed(args.seed),
            },
            self.director_token,
            expect=201,
        )
        self.game_id, self.join_code = game["id"], game["join_code"]
        self.settings = game
        ctx = multiprocessing.get_context("spawn")
        self.pool = concurrent.futures.ProcessPoolExecutor(
            1, mp_context=ctx, initializer=load_lexicon, initargs=(str(self.instance), game["lexicon"])
        )
        warm = asyncio.get_running_loop().run_in_executor(self.pool, engine_cpu)
        log(
            f"game {self.game_id} ({args.rules}, rounds of {args.round_seconds} s); "
            f"{args.players} players joining, {args.join_concurrency} at a time"
        )
        projector = self.projector = Listener(self, None, quiet=False)
        projector.task = self.spawn(projector.follow())
        await projector.first_open
        self.spawn(self.watchdog())
        return warm

    async def _round(self, number: int, joined: list[Player]) -> None:
        """One round: its start, its close, every reveal read, then its check."""
        args = self.args
        wait = 60.0 + (args.reveal_seconds if number > 1 else 0)
        round_ = await self.wait_round(number, wait)
        log(f"round {number}: rack {round_.rack}, deadline in {round_.deadline - time.time():.1f} s")
        self.spawn(self.mark_at(f"late {number}", round_.deadline - LATE_WINDOW))
        await asyncio.wait_for(round_.closed.wait(), round_.deadline - time.time() + args.phase_timeout)
        self.mark(f"closed {number}")
        log(f"round {number} closed ({len(round_.closed_delays)} players told so far); reading the reveal")
        closed, limit = time.monotonic(), time.monotonic() + args.phase_timeout
        while round_.reads_done < len(joined) and time.monotonic() < limit:
            if round_.reads_done >= len(round_.closed_delays) and time.monotonic() > closed + 30:
                break  # every player told has read it, and nobody else was told for 30 s
            await asyncio.sleep(0.2)
        self.mark(f"read {number}")
        playing = [p.playing[number] for p in joined if number in p.playing]
        if playing:  # a play still waiting for its answer would look lost
            await asyncio.wait(playing, timeout=args.request_timeout)
        await self.audit(round_)
        log(f"round {number}: {round_.audit}")
