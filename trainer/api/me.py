"""A learner's own data in the JSON API: their history of games (docs/rules.md §6.25). A learner asks for a token
at ``/api/auth/learner-token`` with the name and password of their word-study account and sends it as a bearer
token, as directors do with theirs."""

from __future__ import annotations

from flask import jsonify, request, url_for
from flask.typing import ResponseReturnValue

from ..core import accounts
from ..core.accounts import LEARNER_TOKEN_MAX_AGE, Learner
from ..core.clock import iso
from ..core.errors import Refused
from ..games import history
from ..http.auth import bearer
from ..http.body import json_body
from ..http.ratelimit import limited, refused_guess
from .common import bp

MAX_LAST = 1000


@bp.post("/auth/learner-token")
@limited("login")
def learner_token() -> ResponseReturnValue:
    data = json_body()
    username, password = data.get("username"), data.get("password")
    token = accounts.learner_token(username, password)
    if token is None:
        if isinstance(username, str) and username.strip() and isinstance(password, str) and password:
            refused_guess()
        raise Refused("wrong_credentials", "wrong username or password")
    return jsonify(token=token, token_type="Bearer", expires_in=LEARNER_TOKEN_MAX_AGE)


def require_learner() -> Learner:
    token = bearer()
    learner = accounts.learner_for_token(token) if token is not None else None
    if learner is None:
        raise Refused(
            "learner_token_required",
            "a learner token is required (Authorization: Bearer ..., from /api/auth/learner-token)",
        )
    return learner


@bp.get("/me/history")
def my_history() -> ResponseReturnValue:
    """The learner's finished games, oldest first, and the points lost by cause over the last ``last`` (10)."""
    learner = require_learner()
    value = request.args.get("last", "")
    last = int(value) if value.isascii() and value.isdigit() and 1 <= int(value) <= MAX_LAST else history.DEFAULT_LAST
    history.refresh(learner)
    seen = history.history(learner, last)
    return jsonify(
        games=[
            {
                "id": g.game_id,
                "played_at": iso(g.played_at),
                "lexicon": g.lexicon,
                "total": g.total,
                "top_total": g.top_total,
                "percentage": float(g.percentage),
                "rank": g.rank,
                "players": g.players,
                "rounds": g.rounds,
                "url": url_for("api.archived_game", game_id=g.game_id),
            }
            for g in seen.games
        ],
        last=last,
        lost=seen.lost,
        losses=[{"cause": cause, "points": points, "rounds": rounds} for cause, points, rounds in seen.losses],
    )
