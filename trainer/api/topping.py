"""Topping alone in the JSON API (docs/rules.md §6.28): a learner's sessions, started on an archived game or a fresh
draw, their rounds played by plays, hints and giving up, and the records. A learner token
(``/api/auth/learner-token``) as for the history; another learner's session answers 404.

While a round is played its state holds the board, the rack, the clock, the hints taken and the wrong plays, never
its tops or anything of them a hint did not show; once it is over, its tops and its seconds with their breakdown."""

from __future__ import annotations

from typing import Any

from flask import jsonify
from flask.typing import ResponseReturnValue

from ..core.accounts import Learner
from ..core.clock import iso, utcnow
from ..duplicate.topping import RECORD_MIN_ROUNDS
from ..games import practice, solo_topping
from ..games.models import PracticeSession
from ..http.body import json_body
from .common import bp
from .me import require_learner


def hint_json(shown: solo_topping.HintShown) -> dict[str, Any]:
    h = shown.hint
    return {"kind": h.kind, "value": h.value, "position": h.position, "seconds": shown.seconds, "text": h.text}


def round_json(session: PracticeSession, st: solo_topping.RoundState) -> dict[str, Any]:
    """A round as the learner may see it: the tops and the seconds only once it is over."""
    r = st.round
    answer: dict[str, Any] = {
        "number": r.number,
        "rack": r.rack,
        "board": practice.board_rows(session, r.board_before),
        "shown_at": iso(r.shown_at),
        "deadline": iso(r.deadline),
        "elapsed": round(st.elapsed, 1),
        "limit_seconds": st.limit,
        "over": st.over,
        "hints": [hint_json(h) for h in st.hints],
        "wrong_plays": [{"move": move, "seconds": float(st.wrong_cost)} for move in st.wrong],
        "more_letters": st.letters_left > 0,  # not how many: that would tell the length
        "found": None,
        "seconds": None,
        "breakdown": None,
        "reveal": None,
    }
    if st.over and st.breakdown is not None:
        b = st.breakdown
        shown = practice.reveal(r)
        answer.update(
            found=bool(r.found),
            move=r.move,
            seconds=b.seconds,
            breakdown={
                "clock": b.clock,
                "penalty": b.penalty,
                "wrong_plays": b.wrong_plays,
                "wrong_seconds": b.wrong_seconds,
                "hints_seconds": b.hints_seconds,
            },
            reveal={
                "top_score": shown.top_score,
                "tops": shown.tops,
                "placed": shown.placed,
                "next_best": [{"word": word, "score": score} for word, score in shown.next_best],
            },
        )
    return answer


def records_json(records: solo_topping.Records) -> dict[str, Any]:
    return {
        "overall": records.overall,
        "overall_session": records.overall_session,
        "min_rounds": RECORD_MIN_ROUNDS,
        "games": [
            {
                "source_game": g.source_game,
                "rounds": g.rounds,
                "seconds": g.seconds,
                "sessions": g.sessions,
                "session": g.session_id,
            }
            for g in records.games
        ],
    }


def summary_json(session: PracticeSession) -> dict[str, Any]:
    return {
        "id": session.id,
        "status": session.status,
        "source_game": session.source_game_id,
        "rules": session.rules,
        "lexicon": session.lexicon,
        "variant": session.variant,
        "round": session.round_number,
        "rounds_total": session.rounds_total,
        "rounds_played": len(solo_topping.times(session)),
        "seconds": solo_topping.total(session),
        "created_at": iso(session.created_at),
        "finished_at": iso(session.finished_at),
    }


def session_json(learner: Learner, session: PracticeSession) -> dict[str, Any]:
    now = utcnow()
    round_ = solo_topping.current(session, now)
    answer = summary_json(session)
    answer.update(
        notation=session.notation,
        costs=solo_topping.costs_of(session).as_dict(),
        current=round_json(session, solo_topping.state(session, round_, now)) if round_ is not None else None,
        rounds=[
            {"number": r.number, "seconds": r.seconds, "found": bool(r.found)}
            for r in session.rounds
            if r.answered_at is not None and r.seconds is not None
        ],
        average=solo_topping.average(session),
        result=None,
    )
    answer.update(summary_json(session))  # current() may have moved the session on
    if session.status == practice.FINISHED:
        res = solo_topping.result(learner, session)
        answer["result"] = {
            "total": res.total,
            "average": res.average,
            "rounds": res.rounds,
            "found": res.found,
            "game_record_before": res.game_before,
            "overall_record_before": res.overall_before,
            "new_game_record": res.new_game,
            "new_overall_record": res.new_overall,
            "new_record": res.new_record,
        }
    return answer


def _session(session_id: int) -> tuple[Learner, PracticeSession]:
    learner = require_learner()
    return learner, solo_topping.session_of(learner, session_id)


@bp.post("/topping")
def topping_start() -> ResponseReturnValue:
    """A topping session on ``game`` (an archived game's id) or on a fresh draw of ``settings``, with ``costs``."""
    learner = require_learner()
    data = json_body()
    session = solo_topping.start(learner, data.get("game"), data.get("settings"), data.get("costs"))
    return jsonify(session_json(learner, session)), 201


@bp.get("/topping")
def topping_list() -> ResponseReturnValue:
    learner = require_learner()
    return jsonify(
        sessions=[summary_json(s) for s in practice.sessions(learner, practice.TOPPING)],
        records=records_json(solo_topping.records(learner)),
    )


@bp.get("/topping/<game_id:session_id>")
def topping_session(session_id: int) -> ResponseReturnValue:
    learner, session = _session(session_id)
    return jsonify(session_json(learner, session))


@bp.post("/topping/<game_id:session_id>/play")
def topping_play(session_id: int) -> ResponseReturnValue:
    learner, session = _session(session_id)
    data = json_body()
    tried = solo_topping.play(session, data.get("round"), data.get("play"))
    answer = session_json(learner, session)
    answer["play"] = {"move": tried.move, "top": tried.top, "seconds": tried.cost}
    return jsonify(answer)


@bp.post("/topping/<game_id:session_id>/hint")
def topping_hint(session_id: int) -> ResponseReturnValue:
    learner, session = _session(session_id)
    data = json_body()
    shown = solo_topping.take_hint(session, data.get("round"), data.get("kind"))
    answer = session_json(learner, session)
    answer["hint"] = hint_json(shown)
    return jsonify(answer)


@bp.post("/topping/<game_id:session_id>/give-up")
def topping_give_up(session_id: int) -> ResponseReturnValue:
    learner, session = _session(session_id)
    solo_topping.give_up(session, json_body().get("round"))
    return jsonify(session_json(learner, session))


@bp.post("/topping/<game_id:session_id>/next")
def topping_next(session_id: int) -> ResponseReturnValue:
    learner, session = _session(session_id)
    solo_topping.next_round(session)
    return jsonify(session_json(learner, session))


@bp.post("/topping/<game_id:session_id>/stop")
def topping_stop(session_id: int) -> ResponseReturnValue:
    """End the session once the round shown is over (docs/rules.md §6.28)."""
    learner, session = _session(session_id)
    solo_topping.stop(session)
    return jsonify(session_json(learner, session))
