"""Helpers every game page shares: finding a game, answering a browser or a script, live fragments."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import segno
from flask import Response, flash, jsonify, redirect, render_template, request, session
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


def action_done(
    target: str, error: GameError | None = None, example: str = "8D TRAIN", **extra: Any
) -> ResponseReturnValue:
    """The answer to a button or a form: JSON for the page's script, else back to ``target``."""
    if error is not None:
        message = game_message(error, example)
        if wants_json():
            return jsonify(ok=False, error=message, **extra), error.status
        flash(message, "error")
    elif wants_json():
        return jsonify(ok=True, **extra)
    return redirect(target, code=303)


def safe_next() -> str | None:
    """Where to go after logging in: only a path on this site (never another host)."""
    target = request.args.get("next", "")
    return target if target.startswith("/") and not target.startswith("//") and "\\" not in target else None


def session_token(key: str, room_id: int) -> str | None:
    """The token this browser holds for game or wall ``room_id`` (kept in the signed session under ``key``)."""
    return token_in(session, key, room_id)


def token_in(session_data: Any, key: str, room_id: int) -> str | None:
    """The token a session's contents hold under ``key`` for ``room_id`` (a session read outside Flask too)."""
    tokens = session_data.get(key) if isinstance(session_data, Mapping) else None
    token = tokens.get(str(room_id)) if isinstance(tokens, dict) else None
    return token if isinstance(token, str) else None


def remember_token(key: str, room_id: int, token: str) -> None:
    """Keep a player's token in the session, so a reload or a closed tab brings the same player back."""
    tokens = session.get(key)
    tokens = dict(tokens) if isinstance(tokens, dict) else {}
    tokens[str(room_id)] = token
    session[key] = tokens
    session.permanent = True  # survives closing the browser, for the length of a club night and more


def qr_code(link: str) -> Response:
    """A join link as a QR code, for phones to scan from the screen.

    A whole SVG document (with its namespace): served as an image, segno's inline fragment shows nothing.
    """
    svg = io.BytesIO()
    segno.make(link, error="m").save(svg, kind="svg", scale=10, dark="#000", light="#fff", border=2)
    return Response(svg.getvalue(), content_type="image/svg+xml", headers={"Cache-Control": "private, max-age=3600"})
