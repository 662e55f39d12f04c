"""Helpers the game pages share: finding a game, answering a browser or a page's script, QR codes."""

from __future__ import annotations

import io
import unicodedata
from typing import Any
from urllib.parse import urlsplit

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
    """Where to go after logging in: only a path on this site (never another host).

    Browsers drop tabs and line breaks from a URL and read a backslash as a slash, so a slash, a tab and
    ``/evil.example`` lead to another host: any such character refuses the target, as does anything that
    parses with a host or a scheme.
    """
    target = request.args.get("next", "")
    if not target.startswith("/") or target.startswith("//") or "\\" in target:
        return None
    if any(ch.isspace() or unicodedata.category(ch).startswith("C") for ch in target):
        return None
    parts = urlsplit(target)
    return target if not parts.scheme and not parts.netloc else None


def qr_code(link: str) -> Response:
    """A join link as a QR code, for phones to scan from the screen.

    A whole SVG document (with its namespace): served as an image, segno's inline fragment shows nothing.
    """
    svg = io.BytesIO()
    segno.make(link, error="m").save(svg, kind="svg", scale=10, dark="#000", light="#fff", border=2)
    return Response(svg.getvalue(), content_type="image/svg+xml", headers={"Cache-Control": "private, max-age=3600"})
