"""The JSON API of simultaneous games and tournaments (docs/rules.md §6.22–6.23)."""

from __future__ import annotations

from typing import Any

from flask import jsonify, request
from flask.typing import ResponseReturnValue

from ..core.errors import Refused
from ..games import competitions, present
from ..games.models import Competition, Game
from ..http.body import json_body
from ..http.ids import MAX_GAME_ID
from ..http.rooms import room_label
from .common import bp, directed_game, get_game, require_director


def _own_game(game_id: object, director_id: int) -> Game:
    """The body's ``game_id``: a game of this director (a JSON number within the game ids, else no game)."""
    if isinstance(game_id, bool) or not isinstance(game_id, int) or not 0 < game_id <= MAX_GAME_ID:
        raise Refused("no_game", f"there is no game {game_id!r}")
    game = get_game(game_id)
    if game.director_id != director_id:
        raise Refused("not_your_game", "only the game's own director can do this")
    return game


def _described(competition: Competition) -> dict[str, Any]:
    """The competition as its own director sees it: their games with their join codes."""
    return {
        "code": competition.code,
        "kind": competition.kind,
        "name": competition.name,
        "games": [{"id": g.id, "join_code": g.join_code, "status": g.status} for g in competition.games],
    }


@bp.post("/competitions")
def create_competition() -> ResponseReturnValue:
    director = require_director()
    data = json_body()
    kind = data.get("kind")
    if kind == competitions.SIMULTANEOUS:
        first = _own_game(data.get("game_id"), director.id)
        made = competitions.create_simultaneous(director, data.get("name"), first, data.get("room_name"))
    elif kind == competitions.TOURNAMENT:
        made = competitions.create_tournament(director, data.get("name"))
    else:
        raise Refused("bad_competition_kind", "'kind' is 'simultaneous' or 'tournament'")
    return jsonify(_described(made)), 201


@bp.post("/competitions/<code>/rooms")
def open_room(code: str) -> ResponseReturnValue:
    director = require_director()
    data = json_body() if request.get_data(cache=True) else {}  # a body is optional: the room's name
    room = competitions.open_room(competitions.find(code), director, data.get("room_name"))
    return jsonify({**present.created(room), "room_name": room.room_name}), 201


@bp.post("/games/<game_id:game_id>/room-name")
def name_room(game_id: int) -> ResponseReturnValue:
    """The room's director names it on the event's ranking (their club's name); null or "" for "Room n"."""
    game, director = directed_game(game_id)
    competitions.name_room(game, json_body().get("room_name"), director)
    label = competitions.room_label_of(game)
    assert label is not None  # name_room refuses a game that is no room
    return jsonify(room_name=game.room_name, room=room_label(label.number, label.name))


@bp.post("/competitions/<code>/games")
def add_game(code: str) -> ResponseReturnValue:
    director = require_director()
    competition = competitions.find(code)
    competitions.add_to_tournament(competition, _own_game(json_body().get("game_id"), director.id), director)
    return jsonify(_described(competition)), 201


def _standing(s: Any, name: str) -> dict[str, Any]:
    return {
        "rank": s.rank,
        "name": name,
        "total": s.total,
        "negatif": s.negatif,
        "percentage": float(s.percentage),
        "tops": s.tops,
        "solos": s.solos,
        "warnings": s.warnings,
        "penalty": s.penalty,
    }


@bp.get("/competitions/<code>/ranking")
def ranking(code: str) -> ResponseReturnValue:
    """The ranking as its page shows it: only rounds every room has closed, only finished tournament games. Open
    to anyone with the event's code, so rooms and games are named, never given by their join codes or ids (a room
    by its name, docs/rules.md §6.22; a tournament's game by its place in it)."""
    competition = competitions.find(code)
    answer: dict[str, Any] = {"code": competition.code, "kind": competition.kind, "name": competition.name}
    if competition.kind == competitions.SIMULTANEOUS:
        event = competitions.event_ranking(competition)
        labels = competitions.room_labels(competition)
        lines = []
        for s in event.results.standings:
            room, name = event.line(s.player)
            lines.append({**_standing(s, name), "room": room_label(room.number, room.name)})
        answer.update(
            rooms=[
                {"name": room_label(labels[g.id].number, labels[g.id].name), "status": g.status}
                for g in competition.games
            ],
            rounds_counted=event.counted,
            top_total=event.results.top_total,
            waiting_for=[room_label(room.number, room.name) for room in event.waiting],
            standings=lines,
        )
    else:
        tournament = competitions.tournament_ranking(competition)
        number = {game.id: n for n, game in enumerate(tournament.games, start=1)}
        answer.update(
            games=[{"number": number[g.id], "status": g.status} for g in tournament.games],
            games_counted=[number[g.id] for g in tournament.counted],
            top_total=tournament.results.top_total,
            standings=[
                {**_standing(line, line.player), "game_totals": list(line.game_totals)}
                for line in tournament.results.lines
            ],
        )
    return jsonify(answer)
