"""Helpers the game pages share: finding a game, answering a browser or a page's script, join links, QR codes."""

from __future__ import annotations

import io
import unicodedata
from typing import Any
from urllib.parse import urlsplit

import segno
from flask import Response, current_app, flash, jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from markupsafe import Markup

from ..core.database import db
from ..core.errors import Refused
from ..games.export import CsvStyle, csv_style
from ..games.models import Game
from ..http.errors import status_of
from ..http.lan import is_loopback_host, lan_address, origin
from ..http.negotiate import wants_json
from .messages import game_message


def game_or_missing(game_id: int) -> Game | None:
    return db.session.get(Game, game_id)


def missing_game_page(game_id: int | None = None, code: str | None = None) -> ResponseReturnValue:
    """A clear page, in the reader's language, for a game that does not exist."""
    return render_template("game_missing.html", game_id=game_id, code=code), 404


def flash_form_errors(form: Any) -> None:
    """Every message of a form that did not validate, flashed for the page it goes back to."""
    for errors in form.errors.values():
        for message in errors:
            flash(str(message), "error")


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


def qr_inline(link: str) -> Markup:
    """A link as a QR code drawn in the page itself (an ``<svg>`` element: for a code shown once, never served)."""
    return Markup(segno.make(link, error="m").svg_inline(scale=6, dark="#000", light="#fff", border=2))


def public_link(endpoint: str, **values: Any) -> str:
    """An absolute link to ``endpoint`` that phones in the room can open.

    On ``TIRAGE_PUBLIC_URL`` when it is set (a proxy, a fixed name). Otherwise on the request's own host,
    except on a page opened at ``localhost`` (the projector on the laptop itself) of a server listening on
    the network (``tirage serve --lan``): there ``127.0.0.1`` would lead each phone to itself, so the link
    uses the machine's LAN address with the request's port.
    """
    public = current_app.config.get("TIRAGE_PUBLIC_URL")
    if public:
        path = url_for(endpoint, **values)
        root = request.script_root
        return str(public) + (path[len(root) :] if root and path.startswith(root) else path)
    if current_app.config.get("TIRAGE_LAN"):
        try:
            host = urlsplit(f"//{request.host}")
            hostname, port = host.hostname, host.port
        except ValueError:  # a Host header with a port that is not one: no better link than the usual
            hostname, port = None, None
        if hostname and is_loopback_host(hostname):
            address = lan_address()
            if address is not None:
                return origin(request.scheme, address, port) + url_for(endpoint, **values)
    return url_for(endpoint, _external=True, **values)


def join_link(code: str) -> str:
    """The link a game's QR code and join box give: the join page with the game's code filled in."""
    return public_link("play.join", code=code)


def spreadsheet_style() -> CsvStyle:
    """The CSV convention of the reader's language, for a page's downloads (the API's files keep the plain one)."""
    return csv_style(str(get_locale() or ""))
