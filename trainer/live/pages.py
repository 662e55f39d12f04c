"""The phone page's live fragment, answered in the event loop: a room's phones all ask for it at once.

After each event of a game (a round starts, the round closes, the top is placed) every phone of the
room fetches ``GET /play/<id>/live`` again. Through the Flask view each fetch cost 6-20 ms of a core
(the request machinery, eleven queries, a whole template), so at 1,500 phones the last one had the
new rack 24 s late and the reveal 30 s late (``bench/load.py --phones pages``).

Here the fragment is rendered once per version of the game and language, with the player's own parts
left as slots, and each player's parts once for the whole room, in a worker thread, by the pages'
renderer (:class:`trainer.web.phone.PhoneFragments`, handed in by :mod:`trainer.server`); a request is
then a lookup and a join. What changes without a new version is filled in per request: the clock's
seconds left, and, while a round runs, the player's own play. Plays do
not change the version, so the rendering reads the round's plays once, and they are used for as long
as no play has been stored since (this process's play path counts its own, the event hub counts the
submission events it reads: a play through another process shows within the hub's next read, 50 ms);
after that each request reads its player's last play (one query).

The player is the one the page's session cookie names for the game (the cookie is checked with the
application's own signer; unlike the view, this answer does not send the cookie again with a new
expiry: the page itself and every form post still do). Anything else is handed to the Flask view
unchanged: no cookie or a bad one, a player not of this game or who joined since the fragments
were built (in the lobby, where a page only names its player, the newcomer's name is added
instead), a query string (a language or theme switch), a game that does not exist.
"""

from __future__ import annotations

import asyncio
import re

from flask import Flask
from sqlalchemy.exc import InterfaceError, OperationalError
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header, parse_cookie

from ..games import service
from ..http.fragments import RoomFragment, RoomRenderer
from ..http.headers import header_pairs
from ..http.ids import GAME_ID_DIGITS
from ..http.language import LANG_COOKIE, choose_language
from ..http.session import PLAYER_TOKENS, SessionCookie, token_in
from .asgi_tools import ASGIApp, BuiltOnce, Receive, Scope, Send
from .plays import KnownPlayer, PlayDesk

LIVE_PATH = re.compile(rf"/play/({GAME_ID_DIGITS})/live")
ROOMS_KEPT = 8  # (game, version, language) renderings kept, about 1 kB a player each


class PhonePages:
    """``GET /play/<id>/live`` for the players of a room, in the event loop."""

    def __init__(self, app: Flask, fallback: ASGIApp, desk: PlayDesk, renderer: RoomRenderer) -> None:
        self.app = app
        self.fallback = fallback
        self.desk = desk
        self.renderer = renderer
        self.fragments: BuiltOnce[tuple[int, int, str], RoomFragment] = BuiltOnce(ROOMS_KEPT, "phone fragments")
        self._lobbies: dict[tuple[int, str], RoomFragment] = {}  # (game, language) -> its last lobby rendering
        self._session = SessionCookie(app)
        self._headers = header_pairs(
            {"Content-Type": "text/html; charset=utf-8", "Vary": "Accept-Language, Cookie"},
            bool(app.config.get("TIRAGE_HTTPS")),
        )
        self.builds = 0
        self.answered = 0
        self.handed_on = 0

    async def live(self, scope: Scope, receive: Receive, send: Send) -> None:
        match = LIVE_PATH.fullmatch(scope["path"])
        assert match is not None
        game_id = int(match[1])
        headers = {key.lower(): value.decode("latin-1") for key, value in scope["headers"]}
        cookies = _cookies(headers.get(b"cookie", ""))
        session = self._session.read(cookies.get(self._session.name))
        token = token_in(session, PLAYER_TOKENS, game_id) if not scope.get("query_string") else None
        player = await self.desk.known_player(token, game_id) if token is not None else None
        room = await self._room(game_id, _language(cookies, headers)) if player is not None else None
        own = room.own.get(player.id) if room is not None and player is not None else None
        if own is None and room is not None and room.status == "lobby" and player is not None:
            own = await self._joined_since(room, player)
        if room is None or own is None or player is None:
            self.handed_on += 1
            await self.fallback(scope, receive, send)
            return
        submitted = ""
        if room.round_id is not None:
            play = room.plays.get(player.id)
            if self.plays_mark(game_id) != room.plays_mark:  # a play was stored since: read this player's
                try:
                    play = await asyncio.to_thread(self._last_play, room.round_id, player.id)
                except (OperationalError, InterfaceError):
                    self.handed_on += 1
                    await self.fallback(scope, receive, send)  # the view says the database is away
                    return
            submitted = room.play_line(play)
        html = room.assemble(own, submitted)
        if room.deadline is not None:
            html = self.renderer.with_clock(html, room.deadline)
        body = html.encode()
        self.answered += 1
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [*self._headers, (b"content-length", str(len(body)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def _room(self, game_id: int, language: str) -> RoomFragment | None:
        version = await self.desk.game_version(game_id)
        if version is None:
            return None
        # While a room fills up, every join is a new version; the lobby's page only names the player, so
        # it is rendered again only when something else happened, and newcomers get their name added.
        lobby = self._lobbies.get((game_id, language))
        if lobby is not None and version > lobby.version and self.desk.hub.only_joins_since(game_id, lobby.version):
            return lobby
        plays_mark = self.plays_mark(game_id)
        room = await self.fragments.get(
            (game_id, version, language), lambda: self._build(game_id, language, version, plays_mark)
        )
        if room is not None and room.status == "lobby":
            self._lobbies[(game_id, language)] = room
        elif room is not None:
            self._lobbies.pop((game_id, language), None)
        return room

    async def _joined_since(self, room: RoomFragment, player: KnownPlayer) -> dict[str, str] | None:
        """The own parts of a player who joined after the lobby was rendered, added to it."""
        try:
            own = await asyncio.to_thread(self.renderer.who, player.name, room.language)
        except Exception:
            return None
        room.own[player.id] = own
        return own

    def plays_mark(self, game_id: int) -> tuple[int, int]:
        """Changes whenever a play of the game is stored: by this process's play path at once, by any other
        path when the event hub reads its submission event."""
        return self.desk.stored_in.get(game_id, 0), self.desk.hub.submissions_read.get(game_id, 0)

    # ------------------------------------------------------------ in a worker thread

    def _build(self, game_id: int, language: str, version: int, plays_mark: tuple[int, int]) -> RoomFragment | None:
        room = self.renderer.room(game_id, language, version, plays_mark)
        if room is not None:
            self.builds += 1
        return room

    def _last_play(self, round_id: int, player_id: int) -> tuple[str, int] | None:
        with self.app.app_context():
            return service.last_play(round_id, player_id)


def _cookies(header: str) -> dict[str, str]:
    """The request's cookies as Flask reads them (werkzeug's parser; the first of a repeated name)."""
    parsed = parse_cookie(header)
    return {name: parsed[name] for name in parsed}


def _language(cookies: dict[str, str], headers: dict[bytes, str]) -> str:
    """The request's language as the pages choose it (a request with a query string is never answered here,
    so there is no ``?lang=``)."""
    return choose_language(
        None, cookies.get(LANG_COOKIE), parse_accept_header(headers.get(b"accept-language"), LanguageAccept)
    )
