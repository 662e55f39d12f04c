"""Helpers every game page shares: finding a game, answering a browser or a script, live fragments."""

from __future__ import annotations

from typing import Any

from flask import flash, jsonify, redirect, render_template, request
from flask.typing import ResponseReturnValue

from ..extensions import db
from ..games.models import Game
from ..games.service import GameError
from .messages import game_message


def wants_json() -> bool:
    """The page's script (fetch) asks for JSON; a plain form post gets a redirect instead."""
    return request.accept_mimetypes.best == "application/json"


def game_or_missing(game_id: int) -> Game | None:
    return db.session.get(Game, game_id)


def missing_game_page(game_id: int | None = None, code: str | None = None) -> ResponseReturnValue:
    """A clear page, in the reader's language, for a game that does not exist."""
    return render_template("game_missing.html", game_id=game_id, code=code), 404


def action_done(target: str, error: GameError | None = None, example: str = "8D TRAIN",
                **extra: Any) -> ResponseReturnValue:
    """The answer to a button or a form: JSON for the page's script, else back to ``target``."""
    if error is not None:
        message = game_message(error, example)
        if wants_json():
            return jsonify(ok=False, error=message, **extra), error.status
        flash(message, "error")
    elif wants_json():
        return jsonify(ok=True, **extra)
    return redirect(target, code=303)
