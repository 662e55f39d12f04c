"""The archive of finished games in the JSON API (issue 18): the list with its filters, and one game's rounds and
standings. Open to everyone, like the pages (:mod:`trainer.games.archives` says why, and what is held back)."""

from __future__ import annotations

from typing import Any

from flask import jsonify, request, url_for
from flask.typing import ResponseReturnValue

from ..core.clock import iso
from ..duplicate.results import Standing
from ..games import archives
from ..games.models import Game
from .common import bp


def _winner(s: Standing) -> dict[str, Any]:
    return {"name": s.player, "total": s.total, "percentage": float(s.percentage)}


def _game(game: Game, director: str, players: int, top_total: int, winners: tuple[Standing, ...]) -> dict[str, Any]:
    """What the list and a game's page both say of an archived game."""
    return {
        "id": game.id,
        "code": game.join_code,
        "created_at": iso(game.created_at),
        "director": director,
        "rules": game.rules,
        "lexicon": game.lexicon,
        "lexicon_edition": game.lexicon_edition,
        "notation": game.notation,
        "imposed_draws": game.imposed_draws is not None,
        "players": players,
        "top_total": top_total,
        "winners": [_winner(s) for s in winners],
        "end_reason": game.end_reason,
    }


@bp.get("/archives")
def archive_list() -> ResponseReturnValue:
    query = archives.read_query(request.args)
    page = archives.list_games(query)
    return jsonify(
        games=[
            {**_game(a.game, a.director, a.players, a.top_total, a.winners), "rounds": a.rounds, "url": _url(a.game.id)}
            for a in page.games
        ],
        total=page.total,
        page=query.page,
        per_page=query.per_page,
        pages=page.pages,
    )


def _url(game_id: int) -> str:
    return url_for("api.archived_game", game_id=game_id)


@bp.get("/archives/<game_id:game_id>")
def archived_game(game_id: int) -> ResponseReturnValue:
    record = archives.archived_game(game_id)
    game = record.game
    return jsonify(
        **_game(game, record.director, record.players, record.top_total, record.winners),
        rounds=[
            {
                "number": r.sheet.number,
                "draw": r.sheet.draw,
                "top": r.sheet.top,
                "top_score": r.sheet.top_score,
                "tops": r.tops,
                "next_best": {"move": r.next_best[0], "score": r.next_best[1]} if r.next_best else None,
                "found_by": r.sheet.finders,
                "of": r.sheet.players,
                "top_total": r.sheet.top_total,
            }
            for r in record.rounds
        ],
        standings=[
            {
                "rank": s.rank,
                "name": s.player,
                "total": s.total,
                "negatif": s.negatif,
                "percentage": float(s.percentage),
                "tops": s.tops,
                "solos": s.solos,
                "warnings": s.warnings,
                "penalty": s.penalty,
                "bonus": s.bonus,
                "rounds": list(s.round_totals),
                "round_scores": list(s.round_scores),
            }
            for s in record.results.standings
        ],
        exports={
            "csv": url_for("api.export_csv", game_id=game.id),
            "gcg": url_for("api.export_gcg", game_id=game.id),
            "draws": url_for("api.export_draws", game_id=game.id),
        },
    )
