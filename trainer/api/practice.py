"""A learner's solo duplicate practice in the JSON API (docs/rules.md §6.27), with the learner token of
:mod:`.me`: make a session (an archived game replayed, or a fresh draw), read it, answer its rounds, move on.

A round's tops are never in an answer before the learner has answered the round (or its clock has run out): the
state holds the round being played without them, and the reveal once it is over."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import jsonify
from flask.typing import ResponseReturnValue

from ..core import ids
from ..core.clock import iso, seconds_until, utcnow
from ..core.errors import Refused
from ..games import practice, solo
from ..games.models import PracticeRound, PracticeSession
from ..http.body import json_body
from .common import bp
from .me import require_learner


def _solo(session_id: int) -> PracticeSession:
    session = practice.session_of(require_learner(), session_id)
    if session.kind != practice.SOLO:
        raise Refused("wrong_kind", "this is a topping session, not solo practice")
    return session


def _open_round(session: PracticeSession, round_: PracticeRound, now: datetime) -> dict[str, Any]:
    """The round being played: what the learner needs to play it, never its tops."""
    return {
        "number": round_.number,
        "rack": round_.rack,
        "board": practice.board_rows(session, round_.board_before),
        "shown_at": iso(round_.shown_at),
        "deadline": iso(round_.deadline),
        "seconds_left": round(seconds_until(round_.deadline, now), 3) if round_.deadline is not None else None,
    }


def _reveal(round_: PracticeRound) -> dict[str, Any]:
    revealed = practice.reveal(round_)
    return {
        "number": revealed.number,
        "rack": revealed.rack,
        "top_score": revealed.top_score,
        "tops": revealed.tops,
        "placed": revealed.placed,
        "next_best": [{"play": play, "score": score} for play, score in revealed.next_best],
        "play": round_.move,
        "score": round_.score,
        "valid": round_.valid,
        "invalid_words": round_.invalid_words or [],
        "rank": round_.rank,
        "late": round_.late,
    }


def _placement(session: PracticeSession) -> dict[str, Any] | None:
    where = solo.placement(session)
    if where is None:
        return None
    return {
        "rounds": where.rounds,
        "total": where.total,
        "top_total": where.top_total,
        "rank": where.rank,
        "of": where.of,
        "standings": [
            {"name": None if line.you else line.name, "total": line.total, "rank": line.rank, "you": line.you}
            for line in where.lines
        ],
    }


def state(session: PracticeSession, now: datetime | None = None) -> dict[str, Any]:
    """The session as the learner sees it now: its summary, the round being played or its reveal, the rounds
    played, and (a replay) where the learner stands in the original room."""
    now = now or utcnow()
    round_ = practice.current(session, now)
    played = [r for r in session.rounds if r.answered_at is not None]
    return {
        "session": practice.summary(session),
        "round": _open_round(session, round_, now) if round_ is not None and round_.answered_at is None else None,
        "reveal": _reveal(round_) if round_ is not None and round_.answered_at is not None else None,
        "rounds": [
            {"number": r.number, "play": r.move, "score": r.score, "top": r.placed_move, "top_score": r.top_score}
            for r in played
        ],
        "placement": _placement(session),
    }


@bp.post("/practice")
def new_practice() -> ResponseReturnValue:
    """A solo session: ``game`` (an archived game's id) or ``settings`` (a fresh draw), ``timed`` (true)."""
    learner = require_learner()
    data = json_body()
    kind = data.get("kind", practice.SOLO)
    if kind != practice.SOLO:
        raise Refused("bad_kind", f"this makes solo practice: kind is 'solo', not {kind!r}", field="kind")
    timed = data.get("timed", True)
    if not isinstance(timed, bool):
        raise Refused("bad_settings", "timed is true or false", field="timed")
    if "game" in data:
        if ids.game_id(data["game"]) is None:
            raise Refused("not_archived", f"there is no game {data['game']!r} in the archive")
        session = practice.from_archive(learner, data["game"], kind, timed)
    else:
        session = practice.fresh(learner, data.get("settings", {}), kind, timed)
    return jsonify(state(session)), 201


@bp.get("/practice")
def my_practice() -> ResponseReturnValue:
    """The learner's solo sessions, those in play first, newest first."""
    return jsonify(sessions=[practice.summary(s) for s in practice.sessions(require_learner(), practice.SOLO)])


@bp.get("/practice/<game_id:session_id>")
def practice_state(session_id: int) -> ResponseReturnValue:
    return jsonify(state(_solo(session_id)))


@bp.post("/practice/<game_id:session_id>/answer")
def practice_answer(session_id: int) -> ResponseReturnValue:
    """Hand in the round's play (``play``: "" or null passes); the state with its reveal."""
    session = _solo(session_id)
    data = json_body()
    number = data.get("round", session.round_number)
    if ids.row_id(number) is None:
        raise Refused("round_not_started", f"round {number!r} has not started", round=str(number))
    solo.answer(session, number, data.get("play"))
    return jsonify(state(session))


@bp.post("/practice/<game_id:session_id>/next")
def practice_next(session_id: int) -> ResponseReturnValue:
    """The next round (its clock starts now), or the end of the session after the last."""
    session = _solo(session_id)
    practice.advance(session)
    return jsonify(state(session))


@bp.post("/practice/<game_id:session_id>/stop")
def practice_stop(session_id: int) -> ResponseReturnValue:
    """End the session once the round shown is over (docs/rules.md §6.27); the state with its placement."""
    session = _solo(session_id)
    practice.stop(session)
    return jsonify(state(session))
