"""Endpoints of the JSON API for directors, players and displays (issue 3).

Views stay thin: they check the token, read the body and call :mod:`trainer.games.service`,
which validates, changes the rows and commits; :mod:`.present` shapes the answers.
"""

from __future__ import annotations

from flask import Response, jsonify, url_for
from flask.typing import ResponseReturnValue
from sqlalchemy import select

from ..extensions import db
from ..games import accounts, service
from ..games.accounts import DIRECTOR_TOKEN_MAX_AGE
from ..games.models import Round
from ..games.service import GameError
from . import export, present
from .common import bp, directed_game, get_game, iso, json_body, optional_director, require_director, require_player


@bp.post("/auth/token")
def auth_token() -> ResponseReturnValue:
    data = json_body()
    token = accounts.director_token(data.get("username"), data.get("password"))
    if token is None:
        raise GameError("wrong username or password", 401)
    return jsonify(token=token, token_type="Bearer", expires_in=DIRECTOR_TOKEN_MAX_AGE)


@bp.post("/games")
def create_game() -> ResponseReturnValue:
    director = require_director()
    game = service.create_game(director, json_body())
    return jsonify(present.created(game)), 201, {"Location": url_for("api.game_state", game_id=game.id)}


@bp.post("/join")
def join() -> ResponseReturnValue:
    data = json_body()
    player, token = service.join_game(data.get("code"), data.get("name"))
    return jsonify(game_id=player.game_id, player_id=player.id, name=player.name, token=token), 201


@bp.get("/games/<id:game_id>")
def game_state(game_id: int) -> ResponseReturnValue:
    game = get_game(game_id)
    director = optional_director()
    return jsonify(present.state(game, for_director=director is not None and director.id == game.director_id))


def _director_state(game_id: int) -> Response:
    return jsonify(present.state(get_game(game_id), for_director=True))


@bp.post("/games/<id:game_id>/start")
def start(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.start_game(game, director.username)
    return _director_state(game_id)


@bp.post("/games/<id:game_id>/pause")
def pause(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.pause(game, director.username)
    return _director_state(game_id)


@bp.post("/games/<id:game_id>/resume")
def resume(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.resume(game, director.username)
    return _director_state(game_id)


@bp.post("/games/<id:game_id>/close")
def close(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.close_now(game, director.username)
    return _director_state(game_id)


@bp.post("/games/<id:game_id>/next")
def next_round(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.advance(game, director.username)
    return _director_state(game_id)


@bp.post("/games/<id:game_id>/end")
def end(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.end_game(game, director.username)
    return _director_state(game_id)


@bp.post("/games/<id:game_id>/extend")
def extend(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.extend(game, json_body().get("seconds"), director.username)
    return _director_state(game_id)


@bp.post("/games/<id:game_id>/rounds/<id:number>/top")
def choose_top(game_id: int, number: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.choose_top(game, number, json_body().get("move"), director.username)
    return _director_state(game_id)


@bp.post("/games/<id:game_id>/rounds/<id:number>/corrections")
def correct(game_id: int, number: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    data = json_body()
    service.correct(game, number, data.get("player_id"), data.get("score"), data.get("reason"), director.username)
    return _round(game_id, number), 201


@bp.post("/games/<id:game_id>/rounds/<id:number>/plays")
def play(game_id: int, number: int) -> ResponseReturnValue:
    player = require_player()
    game = get_game(game_id)
    data = json_body()
    submission = service.submit(game, player, number, data.get("move"))  # committed before we answer
    return jsonify(round=number, move=submission.move, score=submission.score_as_placed,
                   received_at=iso(submission.received_at))


def _round(game_id: int, number: int) -> Response:
    game = get_game(game_id)
    round_ = db.session.execute(
        select(Round).where(Round.game_id == game.id, Round.number == number)).scalar_one_or_none()
    if round_ is None:
        raise GameError(f"game {game_id} has no round {number}", 404)
    if round_.status != "closed":
        raise GameError(f"the results of round {number} are published when it closes", 403)
    return jsonify(present.round_details(game, round_, service.results(game)))


@bp.get("/games/<id:game_id>/rounds/<id:number>")
def round_details(game_id: int, number: int) -> ResponseReturnValue:
    return _round(game_id, number)


@bp.get("/games/<id:game_id>/standings")
def standings(game_id: int) -> ResponseReturnValue:
    game = get_game(game_id)
    return jsonify(present.standings(game, service.results(game)))


@bp.get("/games/<id:game_id>/export.csv")
def export_csv(game_id: int) -> ResponseReturnValue:
    game = get_game(game_id)
    return _download(export.standings_csv(service.results(game)), "text/csv; charset=utf-8",
                     f"tirage-game-{game.id}.csv")


@bp.get("/games/<id:game_id>/export.gcg")
def export_gcg(game_id: int) -> ResponseReturnValue:
    game = get_game(game_id)
    return _download(export.game_gcg(game), "application/x-gcg; charset=utf-8", f"tirage-game-{game.id}.gcg")


def _download(text: str, content_type: str, filename: str) -> Response:
    response = Response(text, content_type=content_type)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
