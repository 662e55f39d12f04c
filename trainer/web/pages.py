"""Pages that belong to no game room: the home page, the health check, and the error pages of the whole site."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, render_template, request
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from markupsafe import escape
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from werkzeug.exceptions import HTTPException

from ..api.common import DATABASE_UNAVAILABLE, RETRY_AFTER_SECONDS
from ..engine.rules import ruleset, ruleset_codes
from ..extensions import lexicon_store
from ..games.scheduler import database_error_summary
from .common import wants_json

bp = Blueprint("pages", __name__)

# The engine's commands; shown as code, so never translated.
CLI_COMMANDS: tuple[str, ...] = ("tirage analyze", "tirage score", "tirage lexicon list")


@bp.get("/")
def index() -> str:
    """What Tirage is, what works today, and the rules and word lists this server knows."""
    return render_template(
        "index.html",
        rulesets=[ruleset(code) for code in ruleset_codes()],
        lexicons=lexicon_store().catalogue(),
        commands=CLI_COMMANDS,
    )


@bp.get("/healthz")
def healthz() -> Response:
    """Liveness for a process manager or a load balancer: answers as soon as the application is up."""
    return jsonify(status="ok")


def _is_api_request() -> bool:
    """Programs calling ``/api/`` get JSON errors they can parse, never an HTML page."""
    return request.path == "/api" or request.path.startswith("/api/")


def _error_text(code: int, error: HTTPException | None = None) -> tuple[str, str]:
    """Title and explanation of an error page, in the request's language; never the exception's own text."""
    if isinstance(error, CSRFError):
        return _("Form expired"), _(
            "This form is too old or came from another page. Go back, reload the page and try again."
        )
    if code == 403:
        return _("Not allowed"), _("This page belongs to someone else: log in with the right account.")
    if code == 404:
        return _("Not found"), _("There is no page at this address. Check the link, or start again from the home page.")
    if code == 405:
        return _("Method not allowed"), _("This address exists but does not accept this kind of request.")
    if code >= 500:
        return _("Server error"), _(
            "Something went wrong on the server. The error has been logged; try again in a moment."
        )
    return _("Request refused"), _("The server could not handle this request.")


@bp.app_errorhandler(HTTPException)
def http_error(error: HTTPException) -> ResponseReturnValue:
    """Every HTTP error of the site, 500 included (Flask wraps unexpected exceptions in InternalServerError)."""
    code = error.code or 500
    # Keep headers such as Allow (405); the body is ours.
    headers = [(name, value) for name, value in error.get_headers() if name.lower() != "content-type"]
    try:
        title, explanation = _error_text(code, error)
        if _is_api_request():
            return jsonify(error=title), code, headers
        page = render_template("error.html", code=code, title=title, explanation=explanation)
        return page, code, headers
    except Exception:
        # The error page itself failed (a broken template, say): log it and fall back to the bare page.
        current_app.logger.exception("error page for %s failed", code)
        return error.get_response()


@bp.app_errorhandler(OperationalError)
@bp.app_errorhandler(InterfaceError)
def database_unavailable(error: DBAPIError) -> ResponseReturnValue:
    """The database cannot be reached (restarting, a dropped connection): 503 and "try again", never a 500.

    The API has its own handler (trainer.api.common); this one serves the pages, their scripts' JSON
    requests, and any ``/api`` address outside the API's views.
    """
    current_app.logger.warning(
        "database unavailable for %s %s: %s", request.method, request.path, database_error_summary(error)
    )
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    if _is_api_request():
        return jsonify(error=DATABASE_UNAVAILABLE), 503, headers
    title = _("Database unavailable")
    explanation = _("The server cannot reach its database for a moment. Wait a few seconds and try again.")
    if wants_json():
        return jsonify(ok=False, error=explanation), 503, headers
    try:
        return render_template("error.html", code=503, title=title, explanation=explanation), 503, headers
    except Exception as failed:
        # The page needs the database too when someone is logged in (the header names their account).
        current_app.logger.warning("the 503 page failed (%s): a bare page instead", type(failed).__name__)
        page = (
            f'<!doctype html><html lang="{escape(str(get_locale() or "en"))}"><meta charset="utf-8">'
            f"<title>{escape(title)}</title><h1>{escape(title)}</h1><p>{escape(explanation)}</p></html>"
        )
        return page, 503, headers
