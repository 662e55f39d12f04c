"""Players as phones on the play page (``--phones pages``): each joins as a browser does, keeps its own
session cookie, and fetches the page's live fragment again on the events the page reacts to."""

from __future__ import annotations

import asyncio
import re
import time

import aiohttp

from .records import Player, RoundInfo
from .state import RunState, route_template

SESSION_COOKIE = "session"  # Flask's session cookie, as `tirage serve` names it on http


class PagePhones(RunState):
    """What a phone on the play page does: its page requests, the join, the round start and the reveal."""

    async def page(
        self, player: Player, method: str, path: str, form: dict[str, str] | None = None
    ) -> tuple[int, str, float]:
        """(status, text, seconds) of one page request with the player's session cookie, which it keeps up to
        date as a browser does; status 0 when there was no answer."""
        api = self.api_of(player)
        assert api is not None
        headers = {"Accept": "text/html", "Accept-Language": "en"}
        if player.cookie:
            headers["Cookie"] = player.cookie
        async with self.api_slots:
            started = time.perf_counter()
            try:
                async with api.request(
                    method, self.server.base + path, data=form, headers=headers, allow_redirects=False
                ) as answer:
                    text = await answer.text()
                    status = answer.status
                    session = answer.cookies.get(SESSION_COOKIE)
            except (aiohttp.ClientError, TimeoutError) as error:
                self.error(f"{method} {route_template(path)}: {type(error).__name__}", repr(error))
                return 0, "", time.perf_counter() - started
            seconds = time.perf_counter() - started
        if session is not None:
            player.cookie = f"{SESSION_COOKIE}={session.value}"
        if status >= 500:
            self.error(f"{method} {route_template(path)}: HTTP {status}", text[:300])
        return status, text, seconds

    async def join_page(self, player: Player) -> bool:
        """Join as a phone does: the join page, its form, then the play page (whose script gets the token)."""
        started = time.perf_counter()
        status, html, _ = await self.page(player, "GET", f"/join?code={self.join_code}")
        csrf = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html)
        if status != 200 or csrf is None:
            self.error(f"join page: HTTP {status}", html[:300])
            return False
        status, html, _ = await self.page(
            player, "POST", "/join", {"csrf_token": csrf[1], "code": self.join_code, "name": player.name}
        )
        if status != 303:
            self.error(f"join form: HTTP {status}", html[:300])
            return False
        status, html, _ = await self.page(player, "GET", f"/play/{self.game_id}")
        token = re.search(r'data-token="([^"]+)"', html)
        if status != 200 or token is None:
            self.error(f"play page: HTTP {status}", html[:300])
            return False
        self.joins.append(time.perf_counter() - started)
        player.token = token[1]  # the page's script hands plays in through the API with it
        shown = re.search(r'data-events-url="[^"]*last_event_id=([0-9]+)', html)
        player.page_event_id = int(shown[1]) if shown else 0
        return True

    async def refresh_page(self, player: Player) -> str | None:
        """The page's live fragment, fetched again as live.js does after an event; None when it failed."""
        status, html, _ = await self.page(player, "GET", f"/play/{self.game_id}/live")
        if status != 200:
            if status:
                self.error(f"page fragment: HTTP {status}", html[:300])
            return None
        return html

    async def page_round_started(self, player: Player, round_: RoundInfo) -> None:
        html = await self.refresh_page(player)
        if html is not None:
            if f'data-round="{round_.number}"' not in html:
                self.error("page fragment: not the new round", f"{player.name}: round {round_.number}")
            round_.page_started.append(time.time() - round_.at)

    async def page_reveal(self, player: Player, round_: RoundInfo) -> None:
        """The reveal on a phone page: the fragment fetched on round_closed, with the player's own result."""
        round_.reads_started += 1
        try:
            started = time.perf_counter()
            html = await self.refresh_page(player)
            if html is None:
                return
            round_.reads.append(time.perf_counter() - started)
            round_.page_reveal.append(time.time() - round_.closed_at)
            playing = player.playing.get(round_.number)
            if playing is not None:  # a play sent before the close may still be waiting for its answer
                await asyncio.wait([playing])
            accepted = player.accepted.get(round_.number)
            if 'class="my-result"' not in html:
                self.error("page reveal: no result shown", f"{player.name}: {html[:200]}")
            elif accepted is not None and f"<dd>{accepted}" not in html:
                self.error("page reveal: own result is not the last accepted play", f"{player.name}: {accepted!r}")
        finally:
            round_.reads_done += 1
