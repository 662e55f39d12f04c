"""Games that share a draw, and what people outside a game may see of it (docs/rules.md §6.4, "Shared draws").

Two games with the same seed, rules and draw rule draw the same racks as long as they place the same tops:
a club replaying a finished game, or two rooms playing the same game the same evening. Two games with the same
imposed draws (docs/rules.md §6.18) play the same racks whatever they place; a game with imposed draws shares
nothing with the games of its seed, which draws none of its racks. Whatever one of
them has shown (a rack, a top, a score) is then the other's future. So a game that has shown a round some
other game of its draw has not yet closed is shown only to its insiders (its director, its players) until
that game closes it, finishes, or is ended. Outsiders (anyone else holding the game's id) are refused. A game
still in its lobby has shown nothing and holds nobody back: the embargo starts when it opens its first round.

A game opening its first round with the draw of others writes ``draw_shared`` in their event logs: an outsider's
event stream of those games ends there (and is refused when it comes back, while the embargo lasts).

A player who holds a place in two games of one draw (two rooms of a simultaneous game, docs/rules.md §6.22) is an
insider of each only while the other has closed as many rounds: in the room ahead they are an outsider, so they
never see a round's results there before it is closed in their other room. The same person is the same learner
account, the same name (§6.16) in another room of the same event, or a token the same browser holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from flask import Flask
from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.orm import aliased

from ..core import accounts
from ..core.clock import utcnow
from ..core.codes import hash_token
from ..core.database import db
from ..duplicate.rounds import GameStatus, RoundStatus
from .models import Event, Game, Player, Round

DRAW_SHARED = "draw_shared"  # the event written in a game's log when another game takes its draw


def _same_draw(game: Game) -> list[ColumnElement[bool]]:
    """What another game has in common with ``game`` when it plays the same racks: the same list of imposed draws;
    or, for a game drawn from its seed, the same seed and no list (and the same draw rule: :func:`_draws_alike`)."""
    if game.imposed_draws is not None:
        return [Game.imposed_draws == game.imposed_draws, Game.rules == game.rules, Game.id != game.id]
    return [Game.seed == game.seed, Game.rules == game.rules, Game.imposed_draws.is_(None), Game.id != game.id]


def _draws_alike(game: Game, other: Game) -> bool:
    """The draw rule decides a seed's racks (a JSON column, compared here); a list of draws is the racks itself."""
    return game.imposed_draws is not None or other.draw_rule == game.draw_rule


def _siblings(game: Game) -> list[Game]:
    """The other games of ``game``'s draw that are being played: past their lobby (a lobby has shown nothing, so it
    holds nobody back) and not finished."""
    candidates = db.session.execute(
        select(Game).where(*_same_draw(game), Game.status != GameStatus.FINISHED, Game.round_number > 0)
    ).scalars()
    return [other for other in candidates if _draws_alike(game, other)]


def _closed_rounds(game: Game) -> int:
    return int(
        db.session.execute(
            select(func.count()).where(Round.game_id == game.id, Round.status == RoundStatus.CLOSED)
        ).scalar_one()
    )


def shown_to_outsiders(game: Game) -> bool:
    """Whether everyone may see ``game``: every other game of its draw has closed every round it has shown."""
    if game.round_number == 0:
        return True  # a lobby shows its settings only (the seed stays private)
    return all(_closed_rounds(other) >= game.round_number for other in _siblings(game))


def rounds_shown_to_outsiders(game: Game) -> int | None:
    """How many of ``game``'s rounds an outsider may see: None for all of them, else the fewest rounds any other
    game of its draw has closed."""
    siblings = _siblings(game)
    return min(_closed_rounds(other) for other in siblings) if siblings else None


def finished_not_shown() -> set[int]:
    """The ids of the finished games that :func:`shown_to_outsiders` refuses to outsiders now, in one query (not one
    a game): those another game of their draw, still being played, has not caught up with. A page of the archive
    leaves them out before it counts and pages its games."""
    finished, other = aliased(Game), aliased(Game)
    closed = (
        select(Round.game_id, func.count().label("rounds"))
        .where(Round.status == RoundStatus.CLOSED)
        .group_by(Round.game_id)
        .subquery()
    )
    same_draw = or_(  # _same_draw, between two games of the query
        and_(finished.imposed_draws.is_not(None), other.imposed_draws == finished.imposed_draws),
        and_(finished.imposed_draws.is_(None), other.imposed_draws.is_(None), other.seed == finished.seed),
    )
    rows = db.session.execute(
        select(
            finished.id,
            finished.round_number,
            finished.imposed_draws.is_not(None),
            finished.draw_rule,
            other.draw_rule,
            func.coalesce(closed.c.rounds, 0),
        )
        .join(other, and_(other.rules == finished.rules, other.id != finished.id, same_draw))
        .outerjoin(closed, closed.c.game_id == other.id)
        .where(
            finished.status == GameStatus.FINISHED,
            finished.round_number > 0,  # a game ended in its lobby showed nothing (shown_to_outsiders)
            other.status != GameStatus.FINISHED,
            other.round_number > 0,  # a lobby holds nobody back (_siblings)
        )
    )
    return {
        game_id
        for game_id, shown, imposed_list, rule, other_rule, other_closed in rows
        if other_closed < shown and (imposed_list or rule == other_rule)  # _draws_alike
    }


@dataclass(frozen=True)
class Holder:
    """A game that holds another back from outsiders: it has closed ``closed`` rounds of the ``needed`` shown."""

    game: Game
    closed: int
    needed: int


def held_back_by(game: Game) -> list[Holder]:
    """The games of ``game``'s draw that keep it from outsiders now (none when it is shown to everyone): those being
    played that have not closed every round ``game`` has shown. What the console and the archive name."""
    if game.round_number == 0:
        return []
    holders = [Holder(other, _closed_rounds(other), game.round_number) for other in _siblings(game)]
    return sorted((h for h in holders if h.closed < h.needed), key=lambda h: (h.game.created_at, h.game.id))


def _players_of_tokens(tokens: Iterable[str]) -> list[Player]:
    hashes = {hash_token(token) for token in tokens if token}
    if not hashes:
        return []
    return list(db.session.execute(select(Player).where(Player.token_hash.in_(hashes))).scalars())


def same_person(player: Player, held_tokens: Iterable[str] = ()) -> list[Player]:
    """The places ``player``'s person holds in other games, as the server can tell (docs/rules.md §6.22): the players
    linked to the same learner account, the players of the same name (§6.16) in another room of the same event, and
    the players whose tokens the same browser holds (``held_tokens``)."""
    game = player.game
    same = [Player.learner_id == player.learner_id] if player.learner_id is not None else []
    if game.competition_id is not None:  # a simultaneous game's rooms (a tournament's games have other draws)
        room = select(Game.id).where(Game.competition_id == game.competition_id)
        same.append(and_(Player.name_key == player.name_key, Player.game_id.in_(room)))
    found = {p.id: p for p in _players_of_tokens(held_tokens)}
    if same:
        found.update({p.id: p for p in db.session.execute(select(Player).where(or_(*same))).scalars()})
    return [p for p in found.values() if p.game_id != player.game_id]


def rounds_seen_by(player: Player, held_tokens: Iterable[str] = ()) -> int | None:
    """How many of ``player``'s game's closed rounds its player may see: None for all of them; else the fewest rounds
    closed in another game of the draw, still being played, where the same person holds a place (§6.22)."""
    game = player.game
    others = {p.game_id for p in same_person(player, held_tokens)}
    if not others:
        return None  # the common case, in one query or none
    elsewhere = [other for other in _siblings(game) if other.id in others]
    return min(_closed_rounds(other) for other in elsewhere) if elsewhere else None


def inside(
    game: Game, director_id: int | None = None, player_token: str | None = None, held_tokens: Iterable[str] = ()
) -> bool:
    """Whether the asker is of ``game``: its director, or one of its players (by their token) who holds no place
    in another game of the draw that has closed fewer rounds (``held_tokens``: every token the asker's browser
    holds; such a player is an outsider here until the other game catches up, docs/rules.md §6.22)."""
    if director_id is not None and director_id == game.director_id:
        return True
    if player_token:
        player = db.session.execute(
            select(Player).where(Player.token_hash == hash_token(player_token))
        ).scalar_one_or_none()
        if player is None or player.game_id != game.id:
            return False
        seen = rounds_seen_by(player, held_tokens)
        return seen is None or seen >= _closed_rounds(game)
    return False


@dataclass(frozen=True)
class Asker:
    """Who asks, as a request outside Flask tells it: the session's director and player token, a bearer token."""

    login_id: str | None = None  # Flask-Login's ``_user_id``, checked against the logins table
    player_token: str | None = None
    bearer: str | None = None
    held_tokens: tuple[str, ...] = ()  # every player token the session holds (its places in other games)


def viewer(app: Flask, game_id: int, asker: Asker) -> str | None:
    """``"inside"`` (the game's director or a player), ``"outside"`` (anyone, the game being shown to all), or
    None (an outsider while the game is not shown to them), in a fresh application context (the hub's threads)."""
    with app.app_context():
        game = db.session.get(Game, game_id)
        if game is None:
            return None
        login = accounts.login_of(asker.login_id) if asker.login_id else None
        director_id = login[0].id if login is not None and isinstance(login[0], accounts.Director) else None
        bearer_director = accounts.director_for_token(asker.bearer) if asker.bearer else None
        if inside(game, director_id, asker.player_token, asker.held_tokens) or inside(
            game, bearer_director.id if bearer_director is not None else None, asker.bearer
        ):
            return "inside"
        return "outside" if shown_to_outsiders(game) else None


def announce_shared_draw(game: Game, author: str) -> None:
    """Write ``draw_shared`` in the log of every other game of ``game``'s draw, as ``game`` opens its first round
    (the caller commits)."""
    others = db.session.execute(select(Game).where(*_same_draw(game))).scalars()
    now = utcnow()
    for other in others:
        if _draws_alike(game, other):
            db.session.add(Event(game_id=other.id, kind=DRAW_SHARED, data={}, author=author, created_at=now))
