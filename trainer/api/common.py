"""What every endpoint of the JSON API shares: the blueprint, its refusals as JSON, and who is asking.

Refusals (:class:`~trainer.core.errors.Refused`) are answered ``{"error": "..."}`` with the status
:mod:`trainer.http.errors` gives their code; bad input is a 4xx, never a 500. Tokens come as
``Authorization: Bearer ...``: a director's signed token, or a player's random token.
"""

from __future__ import annotations

from flask import Blueprint, Response
from flask_login import current_user

from ..core import accounts
from ..core.accounts import Director
from ..core.database import db
from ..core.errors import Refused
from ..games import draws, service, tokens
from ..games.models import Game, Player
from ..http.auth import bearer
from ..http.errors import refusal_answer
from ..http.session import PLAYER_TOKENS, session_token, session_tokens

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.errorhandler(Refused)
def refused(error: Refused) -> tuple[Response, int, dict[str, str]]:
    return refusal_answer(error)


def optional_director() -> Director | None:
    """The director whose token the request carries, if any (pages that show more to the director)."""
    token = bearer()
    return accounts.director_for_token(token) if token else None


def require_director(assistant_allowed: bool = False) -> Director:
    """The director whose token the request carries; an assistant arbiter's only where ``assistant_allowed``
    (the paper bulletins)."""
    token = bearer()
    if token is None:
        raise Refused("director_token_required", "a director token is required (Authorization: Bearer ...)")
    director = accounts.director_for_token(token)
    if director is not None and director.is_assistant and not assistant_allowed:
        raise Refused("assistant_cannot_direct", "an assistant arbiter's token only enters paper bulletins")
    if director is not None:
        return director
    if service.player_for_token(token) is not None:
        raise Refused("player_token_cannot_direct", "a player's token cannot run a game: log in as a director")
    raise Refused("bad_director_token", "the token is not valid (expired, or from another server): log in again")


def require_player() -> Player:
    token = bearer()
    if token is None:
        raise Refused(
            "player_token_required", "a player token is required (Authorization: Bearer ...): join the game first"
        )
    player = service.player_for_token(token)
    if player is not None:
        return player
    if accounts.director_for_token(token) is not None:
        raise Refused("director_cannot_play", "only players submit plays: join the game to get a player token")
    raise tokens.why_retired(token) or Refused("bad_player_token", "the token is not valid: join the game again")


def get_game(game_id: int) -> Game:
    game = db.session.get(Game, game_id)
    if game is None:
        raise Refused("no_game", f"there is no game {game_id}")
    return game


def seen_game(game_id: int) -> Game:
    """A game to read: refused to outsiders while another game of its draw is behind it (docs/rules.md §6.4)."""
    game = get_game(game_id)
    if not draws.shown_to_outsiders(game) and not asker_inside(game):
        raise Refused(
            "draw_not_public",
            "this game shares its draw with another game still being played: its rounds are shown to others once"
            " every game of the draw has closed them",
        )
    return game


def asker_inside(game: Game) -> bool:
    """Whether the request comes from the game's director or one of its players (a token, or the page's session)."""
    token = bearer()
    if token is not None:
        director = accounts.director_for_token(token)
        return draws.inside(game, director.id if director is not None else None, token)
    user = current_user
    director_id = user.director.id if getattr(user, "is_authenticated", False) and hasattr(user, "director") else None
    return draws.inside(game, director_id, session_token(PLAYER_TOKENS, game.id), session_tokens(PLAYER_TOKENS))


def arbitrated_game(game_id: int) -> tuple[Game, Director]:
    """The game and the director or assistant arbiter whose token may enter its bulletins (401, 404, 403)."""
    director = require_director(assistant_allowed=True)
    game = get_game(game_id)
    if not director.arbitrates(game.director_id):
        raise Refused("not_your_game", "only the game's director and their assistant arbiters can do this")
    return game, director


def directed_game(game_id: int) -> tuple[Game, Director]:
    """The game and its director, checking the token first (401), then the game (404), then ownership (403)."""
    director = require_director()
    game = get_game(game_id)
    if game.director_id != director.id:
        raise Refused("not_your_game", "only the game's own director can do this")
    return game, director
