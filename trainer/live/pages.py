"""The phone page's live fragment, answered in the event loop: a room's phones all ask for it at once.

After each event of a game (a round starts, the round closes, the top is placed) every phone of the
room fetches ``GET /play/<id>/live`` again. Through the Flask view each fetch cost 6-20 ms of a core
(the request machinery, eleven queries, a whole template), so at 1,500 phones the last one had the
new rack 24 s late and the reveal 30 s late (``bench/load.py --phones pages``).

Here the fragment is rendered once per version of the game and language, with the player's own parts
left as slots (``templates/play/_live.html``), and each player's parts once for the whole room, in a
worker thread; a request is then a lookup and a join. What changes without a new version is filled
in per request: the clock's seconds left, and, while a round runs, the player's own play. Plays do
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
import math
import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from types import SimpleNamespace
from typing import Any

from flask import Flask, get_template_attribute, render_template
from itsdangerous import BadSignature
from markupsafe import Markup, escape
from sqlalchemy import select
from sqlalchemy.exc import InterfaceError, OperationalError
from werkzeug.datastructures import LanguageAccept
from werkzeug.http import parse_accept_header, parse_cookie

from ..extensions import db
from ..games import service
from ..games.models import Game, Submission, utcnow
from ..web import LANG_COOKIE, choose_language
from ..web.common import token_in
from ..web.gameview import GameView, results_of
from ..web.play import SESSION_KEY, page_context
from .plays import ASGIApp, BuiltOnce, KnownPlayer, PlayDesk, Receive, Scope, Send, header_pairs

LIVE_PATH = re.compile(r"/play/([1-9][0-9]{0,9})/live")
SLOT = re.compile("\x00slot:([a-z]+)\x00")
MOVE, SCORE = "\x00move\x00", "\x00score\x00"
RUNNING_CLOCK = re.compile(r'data-seconds-left="[^"]*" data-running="1">[^<]*</div>')
ROOMS_KEPT = 8  # (game, version, language) renderings kept, about 1 kB a player each


@dataclass
class RoomFragment:
    """One version of one game's fragment in one language: the shared parts and each player's own."""

    parts: list[str]  # text, slot name, text, slot name, ..., text
    own: dict[int, dict[str, str]]  # player id -> slot -> html
    shared: dict[str, str] = field(default_factory=dict)  # slot -> html when the player has no part of their own
    submitted: str = ""  # the "your play" line, with MOVE and SCORE to fill in
    not_submitted: str = ""
    status: str = ""
    version: int = 0
    language: str = ""
    round_id: int | None = None  # the round being played
    plays: dict[int, tuple[str, int]] = field(default_factory=dict)  # its last play of each player, when rendered
    plays_mark: tuple[int, int] = (0, 0)  # the count of plays stored before that (see PhonePages._plays_mark)
    deadline: datetime | None = None  # while the clock runs


class PhonePages:
    """``GET /play/<id>/live`` for the players of a room, in the event loop."""

    def __init__(self, app: Flask, fallback: ASGIApp, desk: PlayDesk) -> None:
        self.app = app
        self.fallback = fallback
        self.desk = desk
        self.fragments: BuiltOnce[tuple[int, int, str], RoomFragment] = BuiltOnce(ROOMS_KEPT, "phone fragments")
        self._lobbies: dict[tuple[int, str], RoomFragment] = {}  # (game, language) -> its last lobby rendering
        self._signer: Any = app.session_interface.get_signing_serializer(app)  # type: ignore[attr-defined]
        self._max_age = int(app.permanent_session_lifetime.total_seconds())
        self._cookie = str(app.config.get("SESSION_COOKIE_NAME", "session"))
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
        token = self._token(cookies.get(self._cookie), game_id) if not scope.get("query_string") else None
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
            if self._plays_mark(game_id) != room.plays_mark:  # a play was stored since: read this player's
                try:
                    play = await asyncio.to_thread(self._last_play, room.round_id, player.id)
                except (OperationalError, InterfaceError):
                    self.handed_on += 1
                    await self.fallback(scope, receive, send)  # the view says the database is away
                    return
            submitted = _play_line(room, play)
        html = "".join(part if i % 2 == 0 else _fill(part, own, room, submitted) for i, part in enumerate(room.parts))
        if room.deadline is not None:
            html = RUNNING_CLOCK.sub(_clock(room.deadline), html, count=1)
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

    def _token(self, cookie: str | None, game_id: int) -> str | None:
        """The game token the signed session cookie holds for ``game_id``."""
        if not cookie:
            return None
        try:
            session = self._signer.loads(cookie, max_age=self._max_age)
        except (BadSignature, ValueError, TypeError):
            return None
        return token_in(session, SESSION_KEY, game_id)

    async def _room(self, game_id: int, language: str) -> RoomFragment | None:
        version = await self.desk.game_version(game_id)
        if version is None:
            return None
        # While a room fills up, every join is a new version; the lobby's page only names the player, so
        # it is rendered again only when something else happened, and newcomers get their name added.
        lobby = self._lobbies.get((game_id, language))
        if lobby is not None and version > lobby.version and self.desk.hub.only_joins_since(game_id, lobby.version):
            return lobby
        plays_mark = self._plays_mark(game_id)
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
            own = await asyncio.to_thread(self._render_who, player.name, room.language)
        except Exception:
            return None
        room.own[player.id] = own
        return own

    def _plays_mark(self, game_id: int) -> tuple[int, int]:
        """Changes whenever a play of the game is stored: by this process's play path at once, by any other
        path when the event hub reads its submission event."""
        return self.desk.stored_in.get(game_id, 0), self.desk.hub.submissions_read.get(game_id, 0)

    # ------------------------------------------------------------ in a worker thread

    def _render_who(self, name: str, language: str) -> dict[str, str]:
        with self.app.test_request_context("/", query_string={"lang": language}):
            who = get_template_attribute("play/_me.html", "who")
            return {"who": str(who(SimpleNamespace(player=SimpleNamespace(name=name))))}

    def _build(self, game_id: int, language: str, version: int, plays_mark: tuple[int, int]) -> RoomFragment | None:
        """Read after the version and the plays' mark were taken, so never older than them (as the reveal
        answers are)."""
        with self.app.test_request_context(f"/play/{game_id}/live", query_string={"lang": language}):
            game = db.session.get(Game, game_id)
            if game is None:
                return None
            self.builds += 1
            context = page_context(game, None)
            view: GameView = context["view"]  # type: ignore[assignment]
            shared = render_template("play/_live.html", slot=lambda name: Markup(f"\x00slot:{name}\x00"), **context)
            who = get_template_attribute("play/_me.html", "who")
            result = get_template_attribute("play/_me.html", "my_result")
            top_ten = get_template_attribute("play/_me.html", "top_ten")
            submitted = get_template_attribute("play/_me.html", "submitted")
            slots = set(SLOT.findall(shared))
            leaders = {s.player for s in view.standings[:10]}
            room = RoomFragment(SLOT.split(shared), {}, status=view.status, version=version, language=language)
            everyone = results_of(view, list(game.players))
            for player, me in everyone.items():
                own = {"who": str(who(me))}
                if "result" in slots:
                    own["result"] = str(result(view, me))
                if "standings" in slots and me.player.name in leaders:
                    own["standings"] = str(top_ten(view, me))  # their line stands out
                room.own[player] = own
            if "standings" in slots:
                room.shared["standings"] = str(top_ten(view))
            if "submitted" in slots and view.round is not None and room.own:
                anyone = next(iter(everyone.values()))
                room.round_id = view.round.id
                room.plays_mark = plays_mark
                room.plays = {
                    row.player_id: (row.move, row.score_as_placed)
                    for row in db.session.execute(
                        select(Submission.player_id, Submission.move, Submission.score_as_placed)
                        .where(Submission.round_id == view.round.id)
                        .order_by(Submission.id)
                    )
                }
                room.submitted = str(submitted(replace(anyone, submitted=MOVE, submitted_score=SCORE)))  # type: ignore[arg-type]
                room.not_submitted = str(submitted(anyone))
            if view.status == "playing" and view.round is not None and view.round.deadline is not None:
                room.deadline = view.round.deadline
            return room

    def _last_play(self, round_id: int, player_id: int) -> tuple[str, int] | None:
        with self.app.app_context():
            last = db.session.execute(
                select(Submission.move, Submission.score_as_placed)
                .where(Submission.round_id == round_id, Submission.player_id == player_id)
                .order_by(Submission.id.desc())
                .limit(1)
            ).first()
        return (last.move, last.score_as_placed) if last is not None else None


def _fill(slot: str, own: dict[str, str], room: RoomFragment, submitted: str) -> str:
    if slot == "submitted":
        return submitted
    return own[slot] if slot in own else room.shared[slot]


def _play_line(room: RoomFragment, play: tuple[str, int] | None) -> str:
    """The player's "your play" line for the round being played."""
    if play is None or not play[0]:
        return room.not_submitted
    return room.submitted.replace(MOVE, str(escape(play[0]))).replace(SCORE, str(escape(play[1])))


def _clock(deadline: datetime) -> str:
    """The running clock as the template writes it, for now."""
    left = service.seconds_until(deadline, utcnow())
    whole = math.ceil(left)
    return f'data-seconds-left="{left}" data-running="1">{whole // 60}:{whole % 60:02d}</div>'


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
