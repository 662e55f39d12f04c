"""The game's events as the players receive them: each round's start (its legal plays computed once,
every player's plays planned) and its close (every player's reveal), for app and page phones."""

from __future__ import annotations

import asyncio
import json
import math
from datetime import datetime
from typing import Any

from .engine_worker import legal_plays
from .pages import PagePhones
from .playing import Playing
from .records import RoundInfo
from .sse import Listener

PAGE_IGNORED_EVENTS = ("submission", "joined")  # the play page's data-ignore-events: no refetch on these


def parse_time(text: str) -> float:
    """An ISO 8601 time of the server (``...Z`` or ``+00:00``) as epoch seconds."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class RoundEvents(Playing, PagePhones):
    """What each event sets going, and the rounds as the events tell them."""

    def on_event(self, listener: Listener, kind: str, payload: bytes, now: float) -> None:
        if kind == "heartbeat":  # live.js only notes that the stream is alive
            return
        if kind == "submission":
            self.submission_events += 1
            return
        if (
            self.args.phones == "pages"
            and listener.player is not None
            and kind not in PAGE_IGNORED_EVENTS
            and kind not in ("round_started", "round_closed")
        ):
            self.spawn(self.refresh_page(listener.player))  # as live.js does on every other event too
        if kind not in ("round_started", "round_closed", "finished"):
            return
        data = json.loads(payload)
        if kind == "finished":
            self.finished_seen = True
            return
        number = int(data["round"])
        known = self.rounds.get(number)
        if kind == "round_started":
            round_ = known or self._new_round(number, data)
        else:
            if known is None:
                return
            round_ = known
            if math.isnan(round_.closed_at):
                round_.closed_at = parse_time(data["at"])
                round_.closed.set()
        player = listener.player
        if player is None or (kind, number) in player.seen:
            return
        player.seen.add((kind, number))
        if kind == "round_started":
            round_.started_delays.append(now - round_.at)
            player.playing[number] = self.spawn(self.play_round(player, round_))
            if self.args.phones == "pages":
                self.spawn(self.page_round_started(player, round_))
        else:
            round_.closed_delays.append(now - round_.closed_at)
            self.spawn(
                self.page_reveal(player, round_) if self.args.phones == "pages" else self.read_reveal(player, round_)
            )

    def _new_round(self, number: int, data: dict[str, Any]) -> RoundInfo:
        loop = asyncio.get_running_loop()
        round_ = RoundInfo(
            number, parse_time(data["at"]), parse_time(data["deadline"]), data["rack"], loop.create_future()
        )
        self.rounds[number] = round_
        self.spawn(self.compute_plays(round_))
        waiter = self.round_waiters.get(number)
        if waiter is not None and not waiter.done():
            waiter.set_result(round_)
        return round_

    async def wait_round(self, number: int, timeout: float) -> RoundInfo:
        if number in self.rounds:
            return self.rounds[number]
        waiter = self.round_waiters.setdefault(number, asyncio.get_running_loop().create_future())
        return await asyncio.wait_for(asyncio.shield(waiter), timeout)

    async def compute_plays(self, round_: RoundInfo) -> None:
        """The round's legal plays, once for every player: board from the game's state, engine in the pool."""
        try:
            state = await self.ok("GET", f"/api/games/{self.game_id}", token=self.director_token)
            if state["round"] != round_.number:
                raise RuntimeError(f"the game is at round {state['round']}, not {round_.number}")
            assert self.pool is not None
            loop = asyncio.get_running_loop()
            plays, count, cpu = await loop.run_in_executor(
                self.pool,
                legal_plays,
                self.settings["rules"],
                self.settings["notation"],
                state["board"],
                state["rack"],
                self.args.sample_plays,
                self.args.seed + round_.number,
            )
            self.engine_cpu += cpu
            round_.legal_count = count
            if not plays:
                raise RuntimeError(f"no legal play on rack {state['rack']}")
            round_.plays.set_result(plays)
        except Exception as error:  # every player waits for these: fail them all, loudly
            self.error("legal plays", repr(error))
            round_.plays.set_exception(error)


def game_seed(number: int) -> int:
    """The game seed of a bench's ``--seed N``: the server takes only seeds of 20 digits or more."""
    return 10**19 + number
