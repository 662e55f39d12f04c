"""What clients may see of a game, as JSON shapes: its state, closed rounds, standings, events (read only).

Used by the API and by the event loop's fast path (the reveal every phone reads, the event stream).
Kept apart from the service's transitions because it only decides what a client sees: nothing
before a round closes reveals a play, a name behind a submission, or the seed (which would let a
client foresee the draws).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from ..core.clock import iso
from ..core.database import db
from ..duplicate import settings as declared
from ..duplicate.results import GameResults, PlayerRound, RoundResult, Standing
from ..duplicate.results import Ruling as RulingRecord
from ..engine.notation import square_name
from . import edition, service
from .cache import cached
from .models import Event, Game, Player, Result, Round


def settings(game: Game, with_seed: bool) -> dict[str, Any]:
    """The game's settings; the seed (private) only for its director, or once the game is over."""
    return declared.shown(
        {key: getattr(game, key) for key in declared.TOP_LEVEL}, with_seed or game.status == "finished"
    )


def recorded_lexicon(game: Game) -> dict[str, Any]:
    """The lexicon the game is played with, as it recorded it (trainer.games.edition): name, edition, SHA-256."""
    return {"lexicon": game.lexicon, "lexicon_edition": game.lexicon_edition, "lexicon_sha256": game.lexicon_sha256}


def played_lexicon(game: Game) -> dict[str, Any]:
    """:func:`recorded_lexicon`, and what became of the list under its name since (``lexicon_since``)."""
    return {**recorded_lexicon(game), "lexicon_since": edition.played_lexicon(game).since.value}


def created(game: Game) -> dict[str, Any]:
    """The answer to the director who created the game: its id, join code and settings, and its imposed draws as
    the game keeps them (docs/rules.md §6.18; null when the seed draws the racks)."""
    return {
        "id": game.id,
        "join_code": game.join_code,
        "status": game.status,
        **settings(game, with_seed=True),
        **played_lexicon(game),
        "draws": game.imposed_draws,
    }


def state(game: Game, for_director: bool) -> dict[str, Any]:
    """What a phone or a projector shows now: no plays and no names, only counts."""
    round_ = service.current_round(game)
    left = service.seconds_left(round_)
    answer: dict[str, Any] = {
        "id": game.id,
        "status": game.status,
        "round": game.round_number,
        "max_rounds": game.max_rounds,
        "board": service.board_rows(game),
        "rack": round_.rack if round_ else None,
        "draw": round_.draw_record if round_ else None,
        "round_status": round_.status if round_ else None,
        "deadline": iso(round_.deadline) if round_ and round_.status == "open" else None,
        "seconds_left": round(left, 1) if left is not None else None,
        "submissions": service.submission_count(round_) if round_ else 0,
        "players": service.player_count(game),
        "notation": game.notation,
        "next_round_at": iso(game.next_round_at),
        "end_reason": game.end_reason,
        "locked": game.locked,
        "imposed_draws": game.imposed_draws is not None,
        "settings": settings(game, with_seed=for_director),
        **played_lexicon(game),
    }
    if for_director:
        answer["join_code"] = game.join_code
    return answer


def player(row: Player) -> dict[str, Any]:
    """A player as the director's list shows them."""
    return {"player_id": row.id, "name": row.name, "joined_at": iso(row.joined_at)}


def _player_round(p: PlayerRound, player_id: int | None, row: Result | None) -> dict[str, Any]:
    return {
        "player_id": player_id,
        "name": p.player,
        "move": p.move,
        "score": p.score,
        "original": p.original,
        "valid": p.valid,
        "invalid_words": list(row.invalid_words or []) if row else [],
        "late": p.late,
        "difference": p.difference,
        "top": p.top,
        "solo": p.solo,
        "bonus": p.bonus,
        "rank": p.rank,
        "of": p.of,
        "corrections": [{"score": c.score, "reason": c.reason, "author": c.author} for c in p.corrections],
        "rulings": [ruling(r) for r in p.rulings],
        "warnings": p.warnings,
        "penalty": p.penalty,
        "total": p.total,
    }


def ruling(r: RulingRecord) -> dict[str, Any]:
    """A warning (``points``: what it cost), penalty or solo granted or withdrawn, as the API and pages give it."""
    return {"id": r.ruling_id, "kind": r.kind.value, "points": r.points, "reason": r.reason, "author": r.author}


def round_details(game: Game, round_: Round, results: GameResults) -> dict[str, Any]:
    """A closed round: draw, every top, the placed play and every player's figures."""
    ids = {p.name: p.id for p in game.players}
    rows = {r.player_id: r for r in db.session.execute(select(Result).where(Result.round_id == round_.id)).scalars()}
    scored = next(r for r in results.rounds if r.number == round_.number)
    return {
        "game_id": game.id,
        "number": round_.number,
        "status": round_.status,
        "rack": round_.rack,
        "reliquat": round_.reliquat,
        "draw": round_.draw_record,
        "board_before": service.board_rows(game, round_.board_before),
        "started_at": iso(round_.started_at),
        "deadline": iso(round_.deadline),
        "closed_at": iso(round_.closed_at),
        "top_score": round_.top_score,
        "tops": list(round_.tops or []),
        "placed": round_.placed_move,
        "plays": scored.plays,
        "solo": scored.solo,
        "blank": blank(game, round_),
        "results": [
            _player_round(p, ids.get(p.player), rows.get(ids[p.player]) if p.player in ids else None)
            for p in scored.players.values()
        ],
    }


def blank(game: Game, round_: Round) -> dict[str, Any] | None:
    """A joker game's blank when the round's top placed it: its letter, square, and whether it was swapped for its
    letter from the bag (docs/rules.md §6.24); None otherwise."""
    fate = service.blank_of(game, round_)
    if fate is None:
        return None
    square = square_name(fate.row, fate.col, service.notation_of(game))
    return {"letter": fate.letter, "square": square, "swapped": fate.swapped}


def round_shown(game: Game, round_: Round, results: GameResults) -> dict[str, Any]:
    """A closed round as a spectator sees it, what the projector shows: the draw, the tops and how many played,
    without any player's play or figures (those are for the game's director and its players)."""
    shown = round_details(game, round_, results)
    del shown["results"]
    return shown


def my_round(game: Game, round_: Round, results: GameResults, player: Player) -> dict[str, Any]:
    """A closed round as one player sees it: the tops, their own play and figures, their place so far."""
    row = db.session.execute(
        select(Result).where(Result.round_id == round_.id, Result.player_id == player.id)
    ).scalar_one_or_none()
    standing = cached(game, "standing-by-name", lambda: {s.player: s for s in results.standings}).get(player.name)
    return _my_round(round_, results, _scored(results, round_), player.id, player.name, row, standing)


def every_my_round(game: Game, round_: Round, results: GameResults) -> dict[int, dict[str, Any]]:
    """:func:`my_round` of every player of the game at once, by player id (a few queries for the whole room)."""
    rows = {
        row.player_id: row for row in db.session.execute(select(Result).where(Result.round_id == round_.id)).scalars()
    }
    standings = {s.player: s for s in results.standings}
    scored = _scored(results, round_)
    return {
        player.id: _my_round(
            round_, results, scored, player.id, player.name, rows.get(player.id), standings.get(player.name)
        )
        for player in game.players
    }


def _scored(results: GameResults, round_: Round) -> RoundResult:
    number = round_.number
    return next(r for r in results.rounds if r.number == number)


def _my_round(
    round_: Round,
    results: GameResults,
    scored: RoundResult,
    player_id: int,
    name: str,
    row: Result | None,
    standing: Standing | None,
) -> dict[str, Any]:
    own = scored.players.get(name)
    return {
        "game_id": round_.game_id,
        "number": round_.number,
        "rack": round_.rack,
        "top_score": round_.top_score,
        "tops": list(round_.tops or []),
        "placed": round_.placed_move,
        "plays": scored.plays,
        "result": _player_round(own, player_id, row) if own is not None else None,
        "standing": {
            "rank": standing.rank,
            "of": len(results.standings),
            "total": standing.total,
            "negatif": standing.negatif,
            "percentage": float(standing.percentage),  # 98.75: exact to two decimals
        }
        if standing is not None
        else None,
    }


def standings(game: Game, results: GameResults) -> dict[str, Any]:
    """Rank, total, négatif, percentage, tops, solos and what each round added, best first."""
    ids = {p.name: p.id for p in game.players}
    return {
        "game_id": game.id,
        "status": game.status,
        **recorded_lexicon(game),  # kept per version of the game: what the game recorded, never the list's now
        "rounds": [r.number for r in results.rounds],
        "top_scores": [r.top_score for r in results.rounds],
        "top_total": results.top_total,
        "standings": [
            {
                "rank": s.rank,
                "player_id": ids.get(s.player),
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
            for s in results.standings
        ],
    }


# Their author is a player's name: never streamed (a topping hint's, docs/rules.md §6.26, neither).
PRIVATE_EVENTS = {"submission", "joined", "rejoined", "topping_hint"}
# What a removed player handed in stays in the log (the game's record) but is never streamed: a play of the
# round in progress would be everyone's before the close. Who took a topping hint is not streamed either.
RECORD_ONLY = {"removed": ("plays", "corrections", "rulings"), "topping_hint": ("player",)}


# An event's own fields. Its data never overwrites them: a key of the data by one of these names is streamed
# as "<subject>_<key>" ("ruling_kind" for a ruling's kind; once, a cancelled warning streamed as `warning`).
EVENT_FIELDS = ("id", "kind", "at", "by")
DATA_SUBJECT = {"ruled": "ruling", "ruling_cancelled": "ruling"}


def event(row: Event) -> dict[str, Any]:
    """An event of the log as streamed: counts for submissions, never a name or a play behind one."""
    subject = DATA_SUBJECT.get(row.kind, row.kind)
    data = {
        f"{subject}_{key}" if key in EVENT_FIELDS else key: value
        for key, value in row.data.items()
        if key not in RECORD_ONLY.get(row.kind, ())
    }
    settings = data.get("settings")
    if row.kind == "created" and isinstance(settings, dict):
        data["settings"] = declared.shown(settings, private=False)
    shown: dict[str, Any] = {**data, "id": row.id, "kind": row.kind, "at": iso(row.created_at)}
    if row.kind not in PRIVATE_EVENTS:
        shown["by"] = row.author
    return shown
