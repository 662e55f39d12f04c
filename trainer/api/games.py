"""Endpoints of the JSON API for directors, players and displays (issue 3).

Views stay thin: they check the token, read the body and call :mod:`trainer.games.service`,
which validates, changes the rows and commits; :mod:`trainer.games.present` shapes the answers.
"""

from __future__ import annotations

import json

from flask import Response, jsonify, url_for
from flask.typing import ResponseReturnValue
from sqlalchemy import select

from ..core import accounts
from ..core.accounts import DIRECTOR_TOKEN_MAX_AGE
from ..core.clock import iso
from ..core.database import db
from ..core.errors import Refused
from ..games import bulletins, export, present, service, topping
from ..games.cache import cached, game_results
from ..games.models import Game, Round
from ..http.auth import bearer
from ..http.body import json_body
from ..http.ratelimit import limited, refused_guess
from ..http.session import PLAYER_TOKENS, session_tokens
from .common import (
    arbitrated_game,
    asker_inside,
    bp,
    directed_game,
    get_game,
    optional_director,
    require_director,
    require_player,
    seen_game,
)


@bp.post("/auth/token")
@limited("login")
def auth_token() -> ResponseReturnValue:
    data = json_body()
    username, password = data.get("username"), data.get("password")
    token = accounts.director_token(username, password)
    if token is None:
        if isinstance(username, str) and username.strip() and isinstance(password, str) and password:
            refused_guess()  # a password tried, not a malformed request
        raise Refused("wrong_credentials", "wrong username or password")
    return jsonify(token=token, token_type="Bearer", expires_in=DIRECTOR_TOKEN_MAX_AGE)


@bp.post("/games")
def create_game() -> ResponseReturnValue:
    director = require_director()
    game = service.create_game(director, json_body())
    return jsonify(present.created(game)), 201, {"Location": url_for("api.game_state", game_id=game.id)}


@bp.post("/join")
@limited("join")
def join() -> ResponseReturnValue:
    data = json_body()
    try:
        # A place held in another room of a simultaneous game, by this client's token or its session (§6.22).
        held = (*filter(None, [bearer()]), *session_tokens(PLAYER_TOKENS))
        player, token = service.join_game(data.get("code"), data.get("name"), held_tokens=held)
    except Refused as error:
        if error.code == "unknown_code":
            refused_guess()
        raise
    return jsonify(game_id=player.game_id, player_id=player.id, name=player.name, token=token), 201


@bp.get("/games/<game_id:game_id>")
def game_state(game_id: int) -> ResponseReturnValue:
    game = seen_game(game_id)
    director = optional_director()
    return jsonify(present.state(game, for_director=director is not None and director.id == game.director_id))


def _director_state(game_id: int) -> Response:
    return jsonify(present.state(get_game(game_id), for_director=True))


@bp.post("/games/<game_id:game_id>/start")
def start(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.start_game(game, director.username)
    return _director_state(game_id)


@bp.post("/games/<game_id:game_id>/pause")
def pause(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.pause(game, director.username)
    return _director_state(game_id)


@bp.post("/games/<game_id:game_id>/resume")
def resume(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.resume(game, director.username)
    return _director_state(game_id)


@bp.post("/games/<game_id:game_id>/close")
def close(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.close_now(game, director.username)
    return _director_state(game_id)


@bp.post("/games/<game_id:game_id>/next")
def next_round(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.advance(game, director.username)
    return _director_state(game_id)


@bp.post("/games/<game_id:game_id>/end")
def end(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.end_game(game, director.username)
    return _director_state(game_id)


@bp.post("/games/<game_id:game_id>/extend")
def extend(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.extend(game, json_body().get("seconds"), director.username)
    return _director_state(game_id)


@bp.post("/games/<game_id:game_id>/lock")
def lock(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.lock_room(game, True, director.username)
    return _director_state(game_id)


@bp.post("/games/<game_id:game_id>/unlock")
def unlock(game_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.lock_room(game, False, director.username)
    return _director_state(game_id)


@bp.get("/games/<game_id:game_id>/players")
def players(game_id: int) -> ResponseReturnValue:
    game, _director = directed_game(game_id)
    return jsonify(players=[present.player(p) for p in game.players])


@bp.post("/games/<game_id:game_id>/players/<id:player_id>/name")
def rename_player(game_id: int, player_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    player = service.rename_player(game, player_id, json_body().get("name"), director.username)
    return jsonify(present.player(player))


@bp.delete("/games/<game_id:game_id>/players/<id:player_id>")
def remove_player(game_id: int, player_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.remove_player(game, player_id, director.username)
    return "", 204


@bp.post("/games/<game_id:game_id>/rounds/<id:number>/top")
def choose_top(game_id: int, number: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.choose_top(game, number, json_body().get("move"), director.username)
    return _director_state(game_id)


@bp.post("/games/<game_id:game_id>/rounds/<id:number>/corrections")
def correct(game_id: int, number: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    data = json_body()
    service.correct(game, number, data.get("player_id"), data.get("score"), data.get("reason"), director.username)
    return _round_details(game_id, number), 201


@bp.post("/games/<game_id:game_id>/rounds/<id:number>/rulings")
def give_ruling(game_id: int, number: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    data = json_body()
    service.give_ruling(
        game, number, data.get("player_id"), data.get("kind"), data.get("points"), data.get("reason"), director.username
    )
    return _round_details(game_id, number), 201


@bp.post("/games/<game_id:game_id>/rulings/<id:ruling_id>/cancel")
def cancel_ruling(game_id: int, ruling_id: int) -> ResponseReturnValue:
    game, director = directed_game(game_id)
    service.cancel_ruling(game, ruling_id, json_body().get("reason"), director.username)
    return "", 204


@bp.post("/games/<game_id:game_id>/bulletins")
def enter_bulletin(game_id: int) -> ResponseReturnValue:
    game, director = arbitrated_game(game_id)
    data = json_body()
    declared = data.get("declared_on_time", False)
    if not isinstance(declared, bool):
        raise Refused("bad_declared", "'declared_on_time' is true or false")
    taken = bulletins.enter(game, data.get("player"), data.get("move"), director.username, declared)
    return jsonify(
        round=taken.round_number,
        player_id=taken.player.id,
        name=taken.player.name,
        table=taken.player.table_number,
        move=taken.move,
        score=taken.score_as_placed,
        declared_on_time=taken.declared,
    ), 201


@bp.post("/games/<game_id:game_id>/paper-players")
def add_paper_player(game_id: int) -> ResponseReturnValue:
    game, director = arbitrated_game(game_id)
    data = json_body()
    player = bulletins.add_paper_player(game, data.get("name"), data.get("table"), director.username)
    return jsonify(player_id=player.id, name=player.name, table=player.table_number), 201


@bp.post("/games/<game_id:game_id>/rounds/<id:number>/plays")
@limited("submit")
def play(game_id: int, number: int) -> ResponseReturnValue:
    player = require_player()
    game = get_game(game_id)
    data = json_body()
    if topping.is_topping(game):  # docs/rules.md §6.26: a top or not, never the score
        answer = topping.hand_in(game, player, number, data.get("move"))
        elapsed = None if answer.elapsed is None else round(answer.elapsed, 1)
        return jsonify(
            round=number, move=answer.move, top=answer.top, elapsed=elapsed, received_at=iso(answer.received_at)
        )
    submission = service.submit(game, player, number, data.get("move"))  # committed before we answer
    return jsonify(
        round=number, move=submission.move, score=submission.score_as_placed, received_at=iso(submission.received_at)
    )


@bp.post("/games/<game_id:game_id>/rounds/<id:number>/hints")
@limited("submit")
def hint(game_id: int, number: int) -> ResponseReturnValue:
    """A hint about the round's top in a topping game (docs/rules.md §6.26); its cost counts from now."""
    player = require_player()
    game = get_game(game_id)
    given = topping.take_hint(game, player, number, json_body().get("kind"))
    return jsonify(round=number, **topping.hint_shape(given), seconds=topping.costs_of(game).hint_seconds(given.kind))


@bp.get("/games/<game_id:game_id>/topping")
def topping_standings(game_id: int) -> ResponseReturnValue:
    """A topping game's ranking by time and each closed round's figures (docs/rules.md §6.26)."""
    game = seen_game(game_id)
    if not topping.is_topping(game):
        raise Refused("not_topping", "this game is not a topping game")
    return jsonify(topping.standings_shape(game, topping.results(game)))


def _closed_round(game_id: int, number: int) -> tuple[Game, Round]:
    game = seen_game(game_id)
    round_ = db.session.execute(
        select(Round).where(Round.game_id == game.id, Round.number == number)
    ).scalar_one_or_none()
    if round_ is None:
        raise Refused("no_round", f"game {game_id} has no round {number}")
    if round_.status != "closed":
        raise Refused("results_not_published", f"the results of round {number} are published when it closes")
    return game, round_


@bp.get("/games/<game_id:game_id>/rounds/<id:number>")
def round_details(game_id: int, number: int) -> ResponseReturnValue:
    return _round_details(game_id, number)


def _round_details(game_id: int, number: int) -> Response:
    game, round_ = _closed_round(game_id, number)
    # Built once per version of the game: the whole room may ask at the reveal. A spectator (neither the
    # director nor a player) sees what the projector shows: the draw and the tops, not each player's play.
    if asker_inside(game):
        key, shape = ("round", number), present.round_details
    else:
        key, shape = ("round-shown", number), present.round_shown
    body = cached(game, key, lambda: json.dumps(shape(game, round_, game_results(game)), separators=(",", ":")))
    return Response(body, mimetype="application/json")


@bp.get("/games/<game_id:game_id>/rounds/<id:number>/me")
def my_round(game_id: int, number: int) -> ResponseReturnValue:
    """What a phone shows at the reveal: the round's tops and this player's own figures, small."""
    player = require_player()
    game, round_ = _closed_round(game_id, number)
    if player.game_id != game.id:
        raise Refused("wrong_game", "this token is not for this game")
    return jsonify(present.my_round(game, round_, game_results(game), player))


@bp.get("/games/<game_id:game_id>/standings")
def standings(game_id: int) -> ResponseReturnValue:
    game = seen_game(game_id)
    body = cached(
        game, "standings", lambda: json.dumps(present.standings(game, game_results(game)), separators=(",", ":"))
    )
    return Response(body, mimetype="application/json")


@bp.get("/games/<game_id:game_id>/export.csv")
def export_csv(game_id: int) -> ResponseReturnValue:
    game = seen_game(game_id)
    return _download(
        export.standings_csv(game, service.results(game)), "text/csv; charset=utf-8", f"tirage-game-{game.id}.csv"
    )


@bp.get("/games/<game_id:game_id>/export.gcg")
def export_gcg(game_id: int) -> ResponseReturnValue:
    game = seen_game(game_id)
    return _download(export.game_gcg(game), "application/x-gcg; charset=utf-8", f"tirage-game-{game.id}.gcg")


@bp.get("/games/<game_id:game_id>/draws.txt")
def export_draws(game_id: int) -> ResponseReturnValue:
    """The closed rounds' draws, one a line: a new game with these imposed draws plays the same racks."""
    game = seen_game(game_id)
    return _download(export.game_draws(game), "text/plain; charset=utf-8", f"tirage-game-{game.id}-draws.txt")


def _download(text: str, content_type: str, filename: str) -> Response:
    response = Response(text, content_type=content_type)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
