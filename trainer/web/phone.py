"""The phone page's live fragment rendered once for a whole room (the fast path serves it: :mod:`trainer.live.pages`).

``templates/play/_live.html`` is rendered with the player's own parts left as slots
(:mod:`trainer.http.fragments`), and each player's parts (``templates/play/_me.html``) once for the
room, so that a request is a lookup and a join. The Flask view (:func:`trainer.web.play.live`) renders
the same template with the player's parts in place: both answers are the same page.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from datetime import datetime
from types import SimpleNamespace

from flask import Flask, get_template_attribute, render_template

from ..core.clock import seconds_until, utcnow
from ..core.database import db
from ..games import service, topping
from ..games.display import GameView, results_of
from ..games.models import Game
from ..http.fragments import MOVE, SCORE, SLOT, RoomFragment, slot
from .play import page_context

RUNNING_CLOCK = re.compile(r'data-seconds-left="[^"]*" data-running="1">[^<]*</div>')


class PhoneFragments:
    """The :class:`~trainer.http.fragments.RoomRenderer` of the players' phones, on one application."""

    def __init__(self, app: Flask) -> None:
        self.app = app

    def who(self, name: str, language: str) -> dict[str, str]:
        with self.app.test_request_context("/", query_string={"lang": language}):
            who = get_template_attribute("play/_me.html", "who")
            return {"who": str(who(SimpleNamespace(player=SimpleNamespace(name=name))))}

    def room(self, game_id: int, language: str, version: int, plays_mark: tuple[int, int]) -> RoomFragment | None:
        with self.app.test_request_context(f"/play/{game_id}/live", query_string={"lang": language}):
            game = db.session.get(Game, game_id)
            if game is None or topping.is_topping(game):  # a topping phone is the player's own: the view renders it
                return None
            context = page_context(game, None)
            view: GameView = context["view"]  # type: ignore[assignment]
            shared = render_template("play/_live.html", slot=slot, **context)
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
                room.plays = service.last_plays(view.round.id)
                room.submitted = str(submitted(replace(anyone, submitted=MOVE, submitted_score=SCORE)))  # type: ignore[arg-type]
                room.not_submitted = str(submitted(anyone))
            if view.status == "playing" and view.round is not None and view.round.deadline is not None:
                room.deadline = view.round.deadline
            return room

    def with_clock(self, html: str, deadline: datetime) -> str:
        """The running clock as ``_game.html`` writes it, for now."""
        left = seconds_until(deadline, utcnow())
        whole = math.ceil(left)
        clock = f'data-seconds-left="{left}" data-running="1">{whole // 60}:{whole % 60:02d}</div>'
        return RUNNING_CLOCK.sub(clock, html, count=1)
