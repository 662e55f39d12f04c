"""Helpers the game pages share: finding a game, answering a browser or a page's script, QR codes."""

from __future__ import annotations

import io
from typing import Any

import segno
from flask import Response, flash, jsonify, redirect, render_template, request
from flask.typing import ResponseReturnValue

from ..core.database import db
from ..core.errors import Refused
from ..games.models import Game
from ..http.errors import status_of
from ..http.negotiate import wants_json
from .messages import game_message


def game_or_missing(game_id: int) -> Game | None:
    return db.session.get(Game, game_id)


def missing_game_page(game_id: int | None = None, code: str | None = None) -> ResponseReturnValue:
    """A clear page, in the reader's language, for a game that does not exist."""
    return render_template("game_missing.html", game_id=game_id, code=code), 404


def action_done(
    target: str, error: Refused | None = None, example: str = "8D TRAIN", **extra: Any
) -> ResponseReturnValue:
    """The answer to a button or a form: JSON for the page's script, else back to ``target``."""
    if error is not None:
        message = game_message(error, example)
        if wants_json():
            return jsonify(ok=False, error=message, **extra), status_of(error)
        flash(message, "error")
    elif wants_json():
        return jsonify(ok=True, **extra)
    return redirect(target, code=303)


def safe_next() -> str | None:
    """Where to go after logging in: only a path on this site (never another host)."""
    target = request.args.get("next", "")
    return target if target.startswith("/") and not target.startswith("//") and "\\" not in target else None


def qr_code(link: str) -> Response:
    """A join link as a QR code, for phones to scan from the screen.

    A whole SVG document (with its namespace): served as an image, segno's inline fragment shows nothing.
    """
    svg = io.BytesIO()
    segno.make(link, error="m").save(svg, kind="svg", scale=10, dark="#000", light="#fff", border=2)
    return Response(svg.getvalue(), content_type="image/svg+xml", headers={"Cache-Control": "private, max-age=3600"})
