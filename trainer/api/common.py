"""What every endpoint of the JSON API shares: the blueprint, JSON bodies, bearer tokens, errors.

Errors are :class:`~trainer.games.service.GameError` (message and HTTP status) wherever they are
raised, answered as ``{"error": "..."}``; bad input is a 4xx, never a 500. A database that cannot be
reached (restarting, a dropped connection) is a 503 saying so, for the client to try again. Tokens come as
``Authorization: Bearer ...``: a director's signed token, or a player's random token.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from werkzeug.routing import IntegerConverter, Map

from ..extensions import db
from ..games import accounts, service
from ..games.models import Director, Game, Player
from ..games.scheduler import database_error_summary
from ..games.service import GameError

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_ID = 2**31 - 1  # the largest id (and round number) an INTEGER column holds in PostgreSQL
MAX_BODY = 64 * 1024  # settings, a play, a correction: a few hundred bytes
DATABASE_UNAVAILABLE = (
    "the database is unavailable for a moment (restarting, or the connection was lost): try again in a few seconds"
)
RETRY_AFTER_SECONDS = 5


class IdConverter(IntegerConverter):
    """A positive id that fits a database integer: a larger one is a 404, not an overflow (500)."""

    def __init__(self, map: Map) -> None:
        super().__init__(map, min=1, max=MAX_ID)


@bp.errorhandler(GameError)
def game_error(error: GameError) -> tuple[Response, int, dict[str, str]]:
    headers = {"WWW-Authenticate": 'Bearer realm="tirage"'} if error.status == 401 else {}
    return jsonify(error=str(error)), error.status, headers


@bp.errorhandler(OperationalError)
@bp.errorhandler(InterfaceError)
def database_unavailable(error: DBAPIError) -> tuple[Response, int, dict[str, str]]:
    """The DBAPI's disconnects and refused connections: the request did not complete, the client may retry.
    Logged as one line, not a traceback: an outage would fill the log with the same one."""
    current_app.logger.warning(
        "database unavailable for %s %s: %s", request.method, request.path, database_error_summary(error)
    )
    return jsonify(error=DATABASE_UNAVAILABLE), 503, {"Retry-After": str(RETRY_AFTER_SECONDS)}


def json_body() -> dict[str, Any]:
    """The request's JSON object, whatever its Content-Type; 400 when it is not one.

    Parsed here rather than by ``request.get_json``, which lets a deeply nested body escape as a
    RecursionError (a 500). Text with NUL characters is refused too: PostgreSQL cannot store it.
    """
    raw = request.get_data(cache=True)
    if len(raw) > MAX_BODY:
        raise GameError(f"the request body is too large (at most {MAX_BODY // 1024} KiB)", 413)
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise GameError("the request body must be a JSON object", 400)
    pending: list[Any] = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str) and "\x00" in item:
            raise GameError("text in the request must not contain NUL characters", 400)
    return data


def iso(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC with a ``Z``, milliseconds kept (deadlines are to the second, closes to the ms)."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def bearer() -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def optional_director() -> Director | None:
    """The director whose token the request carries, if any (pages that show more to the director)."""
    token = bearer()
    return accounts.director_for_token(token) if token else None


def require_director() -> Director:
    token = bearer()
    if token is None:
        raise GameError("a director token is required (Authorization: Bearer ...)", 401)
    director = accounts.director_for_token(token)
    if director is not None:
        return director
    if service.player_for_token(token) is not None:
        raise GameError("a player's token cannot run a game: log in as a director", 403)
    raise GameError("the token is not valid (expired, or from another server): log in again", 401)


def require_player() -> Player:
    token = bearer()
    if token is None:
        raise GameError("a player token is required (Authorization: Bearer ...): join the game first", 401)
    player = service.player_for_token(token)
    if player is not None:
        return player
    if accounts.director_for_token(token) is not None:
        raise GameError("only players submit plays: join the game to get a player token", 403)
    raise GameError("the token is not valid: join the game again", 401)


def get_game(game_id: int) -> Game:
    game = db.session.get(Game, game_id)
    if game is None:
        raise GameError(f"there is no game {game_id}", 404)
    return game


def directed_game(game_id: int) -> tuple[Game, Director]:
    """The game and its director, checking the token first (401), then the game (404), then ownership (403)."""
    director = require_director()
    game = get_game(game_id)
    if game.director_id != director.id:
        raise GameError("only the game's own director can do this", 403)
    return game, director
