"""The official sheets of a game, printable from the browser on A4 (docs/rules.md §6.20): the results sheet,
the game sheet and each player's sheet, under ``/director/games/<id>/sheets``; the game sheet as CSV too.

They are the director's: a player has their own record on *My rounds*. A game not over yet prints with
"provisional" on every sheet."""

from __future__ import annotations

from flask import Blueprint, Response, abort, render_template
from flask.typing import ResponseReturnValue

from ..duplicate.rounds import GameStatus
from ..games import export, record, service
from ..games.cache import game_results
from ..games.edition import played_lexicon
from ..games.models import Game
from ..games.sheets import game_sheet, sheet_heading, table_numbers
from ..http.rooms import room_label
from .auth import director_required, game_of_director
from .common import spreadsheet_style

bp = Blueprint("sheets", __name__, url_prefix="/director/games/<game_id:game_id>/sheets")


def _context(game: Game) -> dict[str, object]:
    results = game_results(game)
    heading = sheet_heading(game)
    return {
        "game": game,
        "heading": heading,
        # The club, as the room is named on the event's ranking ("Room 2" when its director gave it no name).
        "club": heading.club or (room_label(heading.room_number, None) if heading.room_number else None),
        "tables": table_numbers(game),
        "played": played_lexicon(game),
        "results": results,
        "provisional": game.status != GameStatus.FINISHED,
        "rounds": game_sheet(game, results),
        "rulings": service.rulings_record(game),  # every ruling, cancelled ones too (docs/rules.md §6.19)
    }


@bp.get("/")
@director_required
def index(game_id: int) -> ResponseReturnValue:
    game = game_of_director(game_id)
    return render_template("sheets/index.html", **_context(game))


@bp.get("/results")
@director_required
def results_sheet(game_id: int) -> ResponseReturnValue:
    game = game_of_director(game_id)
    return render_template("sheets/results.html", **_context(game))


@bp.get("/game")
@director_required
def game_sheet_page(game_id: int) -> ResponseReturnValue:
    game = game_of_director(game_id)
    return render_template("sheets/game.html", **_context(game))


@bp.get("/game.csv")
@director_required
def game_sheet_csv(game_id: int) -> ResponseReturnValue:
    game = game_of_director(game_id)
    response = Response(
        export.game_sheet_csv(game, game_sheet(game, game_results(game)), spreadsheet_style()),
        content_type="text/csv; charset=utf-8",
    )
    response.headers["Content-Disposition"] = f'attachment; filename="tirage-game-{game.id}-rounds.csv"'
    return response


@bp.get("/results.sigles.txt")
@director_required
def sigles_file(game_id: int) -> ResponseReturnValue:
    """The results file for the federation's SIGLES program (docs/rules.md §6.20), Latin-1."""
    game = game_of_director(game_id)
    response = Response(export.sigles(game, game_results(game)), content_type="text/plain; charset=iso-8859-1")
    response.headers["Content-Disposition"] = f'attachment; filename="tirage-game-{game.id}-sigles.txt"'
    return response


@bp.get("/players/<id:player_id>")
@director_required
def player_sheet(game_id: int, player_id: int) -> ResponseReturnValue:
    game = game_of_director(game_id)
    player = next((p for p in game.players if p.id == player_id), None)
    if player is None:
        abort(404)
    context = {**_context(game), "rulings": service.rulings_record(game, player_id=player.id)}
    return render_template(
        "sheets/player.html", **context, player=player, record=record.my_record(game, player, inside=True)
    )
