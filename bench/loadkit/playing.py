"""The players' plays: when each player plays in a round, the plays sent through the API (by app and page
phones alike), and the reveal read through the API with the player's own check."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp

from .records import Player, RoundInfo, Submission
from .state import RunState

LATE_WINDOW = 10.0  # "the last 10 seconds" of a round, where most plays land
DEADLINE_MARGIN = 0.5  # the latest a play is planned, before the deadline
GARBAGE = ("", "ZZ", "8H", "Z99 CAT", "8H QQQQQQQQ", "H8")  # never a legal play: refused with 422


class Playing(RunState):
    """A player's round: planning the plays, sending them, reading the reveal (API phones)."""

    def plan(self, round_: RoundInfo) -> list[float]:
        low, _, high = self.args.plays_per_player.partition("-")
        count = self.rng.randint(int(low), int(high or low))
        now = time.time()
        late_start = round_.deadline - LATE_WINDOW
        last = round_.deadline - DEADLINE_MARGIN
        moments = []
        for _ in range(count):
            if self.rng.random() < self.args.late_share or late_start <= now + 1:
                moments.append(self.rng.uniform(max(late_start, now), last))
            else:
                moments.append(self.rng.uniform(now + 1, late_start))
        return sorted(moments)

    async def play_round(self, player: Player, round_: RoundInfo) -> None:
        moments = self.plan(round_)
        round_.planned.extend(moments)
        for moment in moments:
            await asyncio.sleep(max(0.0, moment - time.time()))
            try:
                plays = await round_.plays
            except Exception:
                return
            garbage = self.rng.random() < self.args.bad_share
            move = self.rng.choice(GARBAGE) if garbage else self.rng.choice(plays)
            await self.submit(player, round_, move, garbage)

    async def submit(self, player: Player, round_: RoundInfo, move: str, garbage: bool) -> None:
        api = self.api_of(player)
        assert api is not None
        path = f"/api/games/{self.game_id}/rounds/{round_.number}/plays"
        body = json.dumps({"move": move}).encode()
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {player.token}"}
        pressed, pressed_wall = time.perf_counter(), time.time()
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            async with self.api_slots:
                sent_wall, started = time.time(), time.perf_counter()
                status, raw = 0, b""
                try:
                    async with api.post(self.server.base + path, data=body, headers=headers) as answer:
                        raw = await answer.read()
                        status = answer.status
                except (aiohttp.ClientError, TimeoutError) as error:
                    self.error(f"submission: {type(error).__name__}", repr(error))
                latency = time.perf_counter() - started
        finally:
            self.in_flight -= 1
        self.submissions.append(
            Submission(
                round_.number,
                pressed_wall,
                sent_wall,
                latency,
                started - pressed,
                status,
                garbage,
                round_.deadline - sent_wall,
            )
        )
        if status == 200:
            if garbage:
                self.error("submission: garbage accepted", f"{move!r}: {raw[:200]!r}")
            player.accepted[round_.number] = json.loads(raw)["move"]
        elif (status == 422 and garbage) or status == 409:
            pass  # expected refusal; a 409 (round closed) is a late play, counted apart
        elif status >= 500:
            self.error(f"submission: HTTP {status}", raw[:300].decode(errors="replace"))
        elif status:
            self.error(
                f"submission: HTTP {status} for a {'garbage' if garbage else 'legal'} play",
                f"{move!r}: {raw[:300].decode(errors='replace')}",
            )

    async def read_reveal(self, player: Player, round_: RoundInfo) -> None:
        if self.rng.random() >= self.args.reveal_share:
            round_.reads_done += 1
            return
        round_.reads_started += 1
        if self.args.reveal_spread > 0:
            await asyncio.sleep(self.rng.uniform(0, self.args.reveal_spread))
        mine = self.args.reveal_read == "me"
        path = f"/api/games/{self.game_id}/rounds/{round_.number}{'/me' if mine else ''}"
        status, answer, seconds = await self.call("GET", path, token=player.token, parse=mine, player=player)
        if status == 200:
            round_.reads.append(seconds)
            if mine:  # the player's own check: the play the server took last is the one in their result
                playing = player.playing.get(round_.number)
                if playing is not None:  # a play sent before the close may still be waiting for its answer
                    await asyncio.wait([playing])
                shown = (answer.get("result") or {}).get("move")
                if shown != player.accepted.get(round_.number):
                    self.error(
                        "reveal: own result is not the last accepted play",
                        f"{player.name}: {player.accepted.get(round_.number)!r} -> {shown!r}",
                    )
        elif status:
            self.error(f"reveal read: HTTP {status}", answer[:300].decode(errors="replace"))
        round_.reads_done += 1
