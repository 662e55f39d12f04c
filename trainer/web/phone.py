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
from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from flask import Flask, get_template_attribute, render_template
from markupsafe import escape

from ..core.clock import seconds_until, utcnow
from ..core.database import db
from ..games import service, topping
from ..games.display import GameView, PlayerView, results_of
from ..games.models import Game
from ..http.fragments import MOVE, SCORE, SLOT, RoomFragment, slot
from ..http.language import format_percentage
from .play import page_context

RUNNING_CLOCK = re.compile(r'data-seconds-left="[^"]*" data-running="1">[^<]*</div>')
HOLE = re.compile("\x00hole:([0-9]+)\x00")
# A standings percentage the macro formats itself (``|percentage``): the shape's rendering is given this one, and
# its formatting in the page's language is then replaced by a hole.
PERCENTAGE_STAND_IN = Decimal("-987654.25")


class _Taken:
    """One player's own parts taken apart: what the macros of ``play/_me.html`` test (the shape, kept as it is) and
    what they only print (the holes). When ``rendering``, a hole is a marker in place of the value."""

    def __init__(self, rendering: bool) -> None:
        self.rendering = rendering
        self.shape: list[object] = []
        self.holes: list[object] = []
        self.percentage: int | None = None  # the hole of the standing's percentage

    def kept(self, value: Any) -> Any:
        self.shape.append(value)
        return value

    def hole(self, value: Any) -> Any:
        self.holes.append(value)
        return f"\x00hole:{len(self.holes) - 1}\x00" if self.rendering else value

    def if_any(self, value: Any) -> Any:
        """A value the macro prints only when it is not 0 or None: whether it is, is part of the shape."""
        return self.hole(value) if self.kept(bool(value)) else value


def _stand_in(me: PlayerView, taken: _Taken, percentage: Any) -> SimpleNamespace:
    """What the macros read of ``me``, each field either kept (it decides what is written) or a hole (it is only
    written, escaped). ``percentage`` formats a standing's percentage as the ``percentage`` filter does."""
    mine = me.result
    result = None
    if taken.kept(mine is not None) and mine is not None:
        result = SimpleNamespace(
            move=taken.if_any(mine.move),
            valid=taken.kept(mine.valid),
            score=taken.hole(mine.score),
            bonus=taken.if_any(mine.bonus),
            penalty=taken.if_any(mine.penalty),
            difference=taken.hole(mine.difference),
            rank=taken.if_any(mine.rank),
            of=taken.hole(mine.of),
            top=taken.kept(mine.top),
            solo=taken.kept(mine.solo),
            original=taken.hole(mine.original),
            corrections=[
                SimpleNamespace(score=taken.hole(c.score), reason=taken.hole(c.reason))
                for c in mine.corrections[: taken.kept(len(mine.corrections))]
            ],
            rulings=[
                SimpleNamespace(kind=taken.kept(r.kind), points=taken.if_any(r.points), reason=taken.hole(r.reason))
                for r in mine.rulings[: taken.kept(len(mine.rulings))]
            ],
        )
    standing = None
    if taken.kept(me.standing is not None) and me.standing is not None:
        taken.percentage = len(taken.holes)
        shown = taken.hole(percentage(me.standing.percentage))
        standing = SimpleNamespace(
            rank=taken.hole(me.standing.rank),
            total=taken.hole(me.standing.total),
            percentage=PERCENTAGE_STAND_IN if taken.rendering else shown,
        )
    return SimpleNamespace(player=SimpleNamespace(name=taken.hole(me.player.name)), result=result, standing=standing)


def _name_only(me: PlayerView, taken: _Taken, percentage: Any) -> SimpleNamespace:
    """What the ``who`` macro reads of ``me``: the name."""
    return SimpleNamespace(player=SimpleNamespace(name=taken.hole(me.player.name)))


class OwnParts:
    """A macro of ``play/_me.html`` called with ``(*before, me)`` for a whole room without a template call per
    player: it is rendered once per distinct shape of player (what its ``if``s and ``for``s read: valid or not,
    a bonus, a penalty, how many corrections, which rulings, a standing...) with markers in place of the values it
    only prints, and each player's answer is that rendering with their values put in, escaped as Jinja escapes
    them. Byte for byte the macro's own answer (tests/test_phone_pages.py compares them with the view's).
    Used within the room's request context (its language)."""

    def __init__(self, macro: Any, *before: object, reads: Any = _stand_in) -> None:
        self.renderings = 0  # calls of the macro: one per shape met
        self.macro = macro
        self.reads = reads  # what the macro reads of a player: _stand_in, or _name_only
        self.before = before
        self.shapes: dict[tuple[object, ...], list[str | int]] = {}  # text, hole, text, ..., text
        self.percentages: dict[Decimal, str] = {}

    def _percentage(self, value: Decimal) -> str:
        shown = self.percentages.get(value)
        if shown is None:
            shown = self.percentages[value] = format_percentage(value)
        return shown

    def __call__(self, me: PlayerView) -> str:
        taken = _Taken(rendering=False)
        self.reads(me, taken, self._percentage)
        key = tuple(taken.shape)
        parts = self.shapes.get(key)
        if parts is None:
            parts = self.shapes[key] = self._render(me)
        values = taken.holes
        return "".join(part if isinstance(part, str) else str(escape(values[part])) for part in parts)

    def _render(self, me: PlayerView) -> list[str | int]:
        taken = _Taken(rendering=True)
        stand_in = self.reads(me, taken, self._percentage)
        self.renderings += 1
        html = str(self.macro(*self.before, stand_in))
        if taken.percentage is not None:
            html = html.replace(format_percentage(PERCENTAGE_STAND_IN), f"\x00hole:{taken.percentage}\x00")
        pieces = HOLE.split(html)
        return [piece if i % 2 == 0 else int(piece) for i, piece in enumerate(pieces)]


class PhoneFragments:
    """The :class:`~trainer.http.fragments.RoomRenderer` of the players' phones, on one application."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.own_renderings = 0  # the players' own parts rendered by a template in the last room: one per shape

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
            who = OwnParts(get_template_attribute("play/_me.html", "who"), reads=_name_only)
            result = OwnParts(get_template_attribute("play/_me.html", "my_result"), view)
            top_ten = get_template_attribute("play/_me.html", "top_ten")
            submitted = get_template_attribute("play/_me.html", "submitted")
            slots = set(SLOT.findall(shared))
            leaders = {s.player for s in view.standings[:10]}
            room = RoomFragment(SLOT.split(shared), {}, status=view.status, version=version, language=language)
            everyone = results_of(view, list(game.players))
            for player, me in everyone.items():
                own = {"who": who(me)}
                if "result" in slots:
                    own["result"] = result(me)
                if "standings" in slots and me.player.name in leaders:
                    own["standings"] = str(top_ten(view, me))  # their line stands out
                room.own[player] = own
            self.own_renderings = who.renderings + result.renderings
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
