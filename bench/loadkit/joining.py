"""The join phase: every player joins (through the API, or as a phone on the play page does) and opens
the game's event stream, a few at a time."""

from __future__ import annotations

import asyncio
import contextlib

from .pages import PagePhones
from .records import Player
from .report import log
from .sse import Listener


class Joining(PagePhones):
    """The players' joins and their streams' first opening."""

    async def join_all(self) -> list[Player]:
        """Every player joined, ``--join-concurrency`` at a time; the players who did."""
        self.mark("joins")
        slots = asyncio.Semaphore(self.args.join_concurrency)
        await asyncio.gather(*(self.join(p, slots) for p in self.players))
        self.mark("joined")
        joined = [p for p in self.players if p.token]
        log(
            f"{len(joined)} joined, {len(self.stream_opens)} streams open "
            f"in {self.marks['joined'].wall - self.marks['joins'].wall:.1f} s"
        )
        if not joined:
            raise RuntimeError("no player could join")
        return joined

    async def join(self, player: Player, slots: asyncio.Semaphore) -> None:
        async with slots:
            if self.args.phones == "pages":
                if not await self.join_page(player):
                    return
            else:
                status, answer, seconds = await self.call(
                    "POST", "/api/join", {"code": self.join_code, "name": player.name}, player=player
                )
                if status != 201:
                    if 0 < status < 500:  # no answer and 5xx are counted by call()
                        self.error(f"join: HTTP {status}", repr(answer)[:300])
                    return
                self.joins.append(seconds)
                player.token, player.player_id = answer["token"], answer["player_id"]
            player.listener = Listener(self, player, quiet=True)
            player.listener.last_id = player.page_event_id  # a page's stream starts after what it shows
            player.listener.task = self.spawn(player.listener.follow())
            # Still within the slot: the streams open at the pace of the joins, not all at the end.
            with contextlib.suppress(Exception):
                self.stream_opens.append(await player.listener.first_open)
