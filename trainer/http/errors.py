"""Answers to what went wrong, for every transport: a refusal's HTTP status (decided here, once), the
database-outage answer (503, "try again"), and the site's error pages.

Programs (``/api/`` and the pages' scripts) get JSON ``{"error": ...}``; browsers get a page in their
language. Bad input is a 4xx, never a 500; a database that cannot be reached is a 503 with
Retry-After, logged as one line.
"""

from __future__ import annotations

from flask import Flask, Response, current_app, jsonify, render_template, request
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_wtf.csrf import CSRFError
from markupsafe import escape
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from werkzeug.exceptions import HTTPException

from ..core.database import database_error_summary, recover_from
from ..core.errors import Refused
from .body import UnstorableText, UploadCutOff
from .negotiate import is_api_request, wants_json

DATABASE_UNAVAILABLE = (
    "the database is unavailable for a moment (restarting, or the connection was lost): try again in a few seconds"
)
RETRY_AFTER_SECONDS = 5

_BAD_REQUEST = ("not_json_object", "nul_in_text", "bad_text", "bad_event_id", "bad_seconds_arg", "bad_quiet",
                "bad_filter", "bad_kind", "bad_settings")  # fmt: skip
_UNAUTHORISED = ("director_token_required", "bad_director_token", "player_token_required", "bad_player_token",
                 "wrong_credentials", "learner_token_required",
                 "player_removed", "taken_over")  # fmt: skip
_FORBIDDEN = ("player_token_cannot_direct", "director_cannot_play", "not_your_game", "wrong_game", "wrong_wall",
              "assistant_cannot_direct", "not_paper_player",
              "results_not_published", "draw_not_public", "room_locked")  # fmt: skip
_NOT_FOUND = ("no_game", "no_player", "no_round", "unknown_code", "round_not_started", "unknown_deck", "unknown_card",
              "unknown_ruling", "unknown_table", "unknown_bulletin_player", "unknown_competition",
              "upload_not_found", "unknown_lexicon", "not_archived", "no_practice")  # fmt: skip
_CONFLICT = (
    # a room's state does not allow it now
    "already_started", "game_finished", "round_closed", "round_not_closed", "not_running", "not_paused",
    "just_closed", "not_revealing", "wall_started", "wall_not_started", "wall_over",
    # taken already
    "name_taken", "learner_taken", "director_taken", "already_found", "found_by_you", "ruling_cancelled",
    "table_taken", "bulletin_late", "no_round_for_bulletin", "fixed_top", "already_in_competition",
    "joined_after_round", "declaration_closed", "too_many_rulings",
    "not_simultaneous", "not_tournament", "rooms_differ", "not_a_room",
    # one place in one room of a simultaneous game; rooms' names told apart (docs/rules.md §6.22)
    "in_another_room", "room_name_taken",
    "lexicon_name_taken", "lexicon_not_failed", "lexicon_gone",
    # nothing to take back
    "nothing_to_grade", "nothing_to_undo",
    # a learner's quota is full
    "deck_quota", "card_quota", "upload_quota",
    # a word list uploaded is still being read
    "upload_not_read",
    # the game's lexicon is no longer the list it was played with
    "lexicon_changed", "room_lexicon_changed",
    # a player's plays are another account's (docs/rules.md §6.25)
    "player_linked", "learner_in_game",
    # a learner's practice session (docs/rules.md §6.26, §6.27)
    "practice_over", "round_not_over", "already_answered", "wrong_kind", "no_playable_draw",
    # topping alone (docs/rules.md §6.28): the round's time is up, a wrong play tried already, a hint taken already
    "time_up", "already_tried", "hint_taken", "no_more_letters",
    # a topping club game (docs/rules.md §6.26): the player's top is found, the game is not a topping game
    "top_found_already", "not_topping",
)  # fmt: skip
_TOO_LARGE = ("body_too_large", "file_too_big", "word_list_too_large", "word_list_too_many")
_UNAVAILABLE = ("no_code", "builder_busy")

STATUS: dict[str, int] = {
    **dict.fromkeys(_BAD_REQUEST, 400),
    **dict.fromkeys(_UNAUTHORISED, 401),
    **dict.fromkeys(_FORBIDDEN, 403),
    **dict.fromkeys(_NOT_FOUND, 404),
    **dict.fromkeys(_CONFLICT, 409),
    **dict.fromkeys(_TOO_LARGE, 413),
    **dict.fromkeys(_UNAVAILABLE, 503),
}
"""The HTTP status of each refusal code; any other code is bad input, 422 (a setting, a play, a name...)."""
INVALID = 422


def status_of(refused: Refused) -> int:
    return STATUS.get(refused.code, INVALID)


def refusal_answer(refused: Refused) -> tuple[Response, int, dict[str, str]]:
    """A refusal as the API answers it: ``{"error": message}`` with its status (and a challenge on 401)."""
    status = status_of(refused)
    headers = {"WWW-Authenticate": 'Bearer realm="tirage"'} if status == 401 else {}
    return jsonify(error=str(refused)), status, headers


def _database_unavailable(error: DBAPIError) -> ResponseReturnValue:
    """The DBAPI's disconnects and refused connections: the request did not complete, the client may
    retry. Logged as one line, not a traceback: an outage would fill the log with the same one."""
    current_app.logger.warning(
        "database unavailable for %s %s: %s", request.method, request.path, database_error_summary(error)
    )
    recover_from(error)
    headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
    if is_api_request():
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


def _error_text(code: int, error: HTTPException | None = None) -> tuple[str, str]:
    """Title and explanation of an error page, in the request's language; never the exception's own text."""
    if isinstance(error, UnstorableText):
        return _("Request refused"), _(
            "What you typed holds an invisible control character that cannot be stored. Remove it and try again."
        )
    if isinstance(error, UploadCutOff):
        return _("Upload cut off"), _("The upload was cut off before the whole file arrived: send it again.")
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
    if code == 408:
        return _("Too slow"), _("What you sent took too long to arrive. Check your connection and try again.")
    if code == 413:
        return _("Too large"), _("What you sent is larger than this page accepts. Send less, or a smaller file.")
    if code == 415:
        return _("Not accepted"), _("This form does not take files.")
    if code >= 500:
        return _("Server error"), _(
            "Something went wrong on the server. The error has been logged; try again in a moment."
        )
    return _("Request refused"), _("The server could not handle this request.")


def _http_error(error: HTTPException) -> ResponseReturnValue:
    """Every HTTP error of the site, 500 included (Flask wraps unexpected exceptions in InternalServerError)."""
    code = error.code or 500
    # Keep headers such as Allow (405); the body is ours.
    headers = [(name, value) for name, value in error.get_headers() if name.lower() != "content-type"]
    try:
        title, explanation = _error_text(code, error)
        if is_api_request():
            return jsonify(error=title), code, headers
        page = render_template("error.html", code=code, title=title, explanation=explanation)
        return page, code, headers
    except Exception:
        # The error page itself failed (a broken template, say): log it and fall back to the bare page.
        current_app.logger.exception("error page for %s failed", code)
        return error.get_response()


def init_app(app: Flask) -> None:
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(OperationalError, _database_unavailable)
    app.register_error_handler(InterfaceError, _database_unavailable)
