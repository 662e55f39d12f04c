"""A player's own record of a game ("My rounds", docs/rules.md §6.17): every closed round as they played it,
at a link of their own.

The link carries a key signed with the application's secret (itsdangerous) that names the player: it opens
their record after the night, on any device, and nothing else (it is not their play token and hands nothing
in). What it shows is what the player saw at each reveal: a round's rack, top and their result appear once
the round is closed, never before. Someone holding the link without being the player in this browser is an
outsider for games that share their draw (docs/rules.md §6.4): they see only rounds every game of the draw
has closed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from flask import current_app
from itsdangerous import BadSignature, URLSafeSerializer
from sqlalchemy import select

from ..core.database import db
from ..duplicate.results import PlayerRound, Standing
from ..duplicate.rounds import RoundStatus
from . import draws
from .cache import game_results
from .models import Game, Player, Round

_SALT = "tirage.my-rounds"


def _serializer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.secret_key or "", salt=_SALT)


def record_key(player: Player) -> str:
    """The key of ``player``'s record link."""
    return _serializer().dumps([player.game_id, player.id])


def player_of_key(key: str) -> Player | None:
    """The player a record key names, or None for a key this server did not sign (or a removed player)."""
    try:
        game_id, player_id = _serializer().loads(key)
    except (BadSignature, TypeError, ValueError):
        return None
    if not isinstance(player_id, int) or not isinstance(game_id, int):
        return None
    player = db.session.get(Player, player_id)
    return player if player is not None and player.game_id == game_id else None


@dataclass(frozen=True)
class MyRound:
    """One closed round as the player saw it at its reveal."""

    number: int
    rack: str
    top: str  # the top placed on the board
    top_score: int
    result: PlayerRound | None
    total: int  # the player's total after this round


@dataclass(frozen=True)
class MyRecord:
    game: Game
    player: Player
    rounds: list[MyRound]
    standing: Standing | None
    players: int
    top_total: int
    round_in_play: int | None  # a round being played (its top is not shown)
    hidden_rounds: int  # closed rounds not shown yet (another game of the draw has not closed them)


def my_record(game: Game, player: Player, inside: bool, held_tokens: Iterable[str] = ()) -> MyRecord:
    """``player``'s record of ``game``; ``inside``: asked by the player themselves (their own session, whose
    ``held_tokens`` are their places in other games: a round another room of theirs has not closed is left out)."""
    closed = [r for r in game.rounds if r.status == RoundStatus.CLOSED]
    shown = draws.rounds_seen_by(player, held_tokens) if inside else draws.rounds_shown_to_outsiders(game)
    visible = [r for r in closed if shown is None or r.number <= shown]
    results = game_results(game) if closed else None
    by_number = {r.number: r for r in results.rounds} if results is not None else {}
    total = 0
    rounds: list[MyRound] = []
    for round_ in visible:
        scored = by_number.get(round_.number)
        mine = scored.players.get(player.name) if scored is not None else None
        total += mine.total if mine is not None else 0
        rounds.append(MyRound(round_.number, round_.rack, round_.placed_move or "", round_.top_score or 0, mine, total))
    complete = results is not None and len(visible) == len(closed)
    standing = None
    if complete and results is not None:
        standing = next((s for s in results.standings if s.player == player.name), None)
    in_play = db.session.execute(
        select(Round.number).where(Round.game_id == game.id, Round.status != RoundStatus.CLOSED)
    ).scalar_one_or_none()
    return MyRecord(
        game=game,
        player=player,
        rounds=rounds,
        standing=standing,
        players=len(results.standings) if results is not None else len(game.players),
        top_total=sum(r.top_score for r in rounds),
        round_in_play=in_play,
        hidden_rounds=len(closed) - len(visible),
    )
