"""The archive of finished games (issue 18): every finished game, club night, simultaneous room or solo, listed with
filters and opened round by round. Read only.

**Who may read it: everyone, without logging in.** A finished game's standings, rounds (draw, tops, how many played)
and downloads (CSV, GCG, round list) are already given to anyone holding its id (``/api/games/<id>/...``, docs/rules.md
§6.4), its seed is shown once it is over, and its director's name is in its public event stream; the archive shows no
more than that, and never a player's own plays (those stay on *My rounds* and the director's sheets). What the
archive adds is that finished games can be found without their id.

**Fairness first** (docs/rules.md §6.4): a finished game that another game of its draw, still being played, has not
caught up with (a club replaying it, another room of its simultaneous game, a game of the same imposed draws) is
left out of the list and refused when opened, for everyone, by the same rule as every outsider's read
(:func:`~.draws.shown_to_outsiders`), until that game has closed every round it showed. A game ended in its lobby
played nothing and is not archived.

A page of the list is read in a few queries whatever its length: the players counted by a grouped query, the
games held back by one (:func:`~.draws.finished_not_shown`), and the winners and top totals of the page's games
scored together (:func:`~.service.results_of_games`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from math import ceil
from typing import Any

from sqlalchemy import ColumnElement, Select, func, select

from ..core.accounts import Director
from ..core.database import db
from ..core.errors import Refused
from ..duplicate.results import GameResults, Standing
from ..duplicate.rounds import GameStatus
from ..engine.rules import ruleset_codes
from . import draws, service
from .cache import game_results
from .display import next_best_words
from .models import Competition, Game, Player
from .sheets import SheetRound, game_sheet

PAGE_SIZE = 50  # games on a page of the list
MAX_PAGE_SIZE = 100  # what the API's ``per_page`` may ask
MAX_PLAYERS = 100_000  # the filters' bound on a number of players
MAX_PAGE = 1_000_000
FILTER_NAMES = ("kind", "rules", "lexicon", "director", "date_from", "date_to", "min_players", "max_players")
# A game of a club night, a room of a simultaneous game, or a game of a tournament (trainer.games.competitions).
KINDS = ("club", "simultaneous", "tournament")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_WHOLE = re.compile(r"[0-9]{1,7}")
_TEXT_LENGTH = 80  # a lexicon's or a director's name: longer is no name of the server's


def bad_filter(name: str, reason: str, message: str, **params: object) -> Refused:
    """A filter the archive cannot read: ``name`` the parameter, ``reason`` why (``unknown_rules``, ``not_a_date``,
    ``not_a_number``, ``reversed``, ``too_long``), an English message for the API."""
    error = Refused("bad_filter", message, field=name, reason=reason)
    error.params.update(params)
    return error


@dataclass(frozen=True)
class Filters:
    """What the list is narrowed to; None is no filter. Dates are days of the games' creation, in UTC, both ends
    included; numbers of players count everyone who joined (paper players too)."""

    kind: str | None = None
    rules: str | None = None
    lexicon: str | None = None
    director: str | None = None
    date_from: date | None = None
    date_to: date | None = None
    min_players: int | None = None
    max_players: int | None = None

    def as_args(self) -> dict[str, str]:
        """The filters as query parameters (the pages' links to other pages of the same list)."""
        values = {name: getattr(self, name) for name in FILTER_NAMES}
        return {name: value.isoformat() if isinstance(value, date) else str(value) for name, value in values.items()
                if value is not None}  # fmt: skip

    @property
    def active(self) -> bool:
        return bool(self.as_args())


@dataclass(frozen=True)
class Query:
    """A request for a page of the list: the filters, the page (from 1) and the games a page holds."""

    filters: Filters = field(default_factory=Filters)
    page: int = 1
    per_page: int = PAGE_SIZE


def _text(args: Mapping[str, str], name: str) -> str | None:
    value = (args.get(name) or "").strip()
    if len(value) > _TEXT_LENGTH:
        raise bad_filter(name, "too_long", f"'{name}' is longer than any name ({_TEXT_LENGTH} characters at most)")
    return value or None


def _date(args: Mapping[str, str], name: str) -> date | None:
    value = (args.get(name) or "").strip()
    if not value:
        return None
    try:
        if not _DATE.fullmatch(value):
            raise ValueError(value)
        return date.fromisoformat(value)
    except ValueError:
        raise bad_filter(
            name, "not_a_date", f"'{name}' is not a date: write it YYYY-MM-DD, like 2026-03-12", value=value
        ) from None


def _number(args: Mapping[str, str], name: str, low: int, high: int, default: int | None = None) -> int | None:
    value = (args.get(name) or "").strip()
    if not value:
        return default
    if not _WHOLE.fullmatch(value) or not low <= int(value) <= high:
        raise bad_filter(
            name, "not_a_number", f"'{name}' is a whole number from {low} to {high}", value=value, low=low, high=high
        )
    return int(value)


def read_query(args: Mapping[str, str]) -> Query:
    """The filters and the page asked in ``args`` (a query string); an empty value is no filter, other parameters
    are left alone (the pages' ``lang`` and ``theme``). Refused (``bad_filter``, naming the parameter) when one
    cannot be read: nothing is guessed."""
    rules = _text(args, "rules")
    if rules is not None and rules not in ruleset_codes():
        known = ", ".join(ruleset_codes())
        raise bad_filter("rules", "unknown_rules", f"there are no rules {rules!r}: choose one of {known}", value=rules)
    kind = _text(args, "kind")
    if kind is not None and kind not in KINDS:
        known = ", ".join(KINDS)
        message = f"there is no kind of game {kind!r}: choose one of {known}"
        raise bad_filter("kind", "unknown_kind", message, value=kind)
    filters = Filters(
        kind=kind,
        rules=rules,
        lexicon=_text(args, "lexicon"),
        director=_text(args, "director"),
        date_from=_date(args, "date_from"),
        date_to=_date(args, "date_to"),
        min_players=_number(args, "min_players", 0, MAX_PLAYERS),
        max_players=_number(args, "max_players", 0, MAX_PLAYERS),
    )
    if filters.date_from and filters.date_to and filters.date_from > filters.date_to:
        raise bad_filter("date_to", "reversed", "'date_to' is before 'date_from'")
    low, high = filters.min_players, filters.max_players
    if low is not None and high is not None and low > high:
        raise bad_filter("max_players", "reversed", "'max_players' is below 'min_players'")
    page = _number(args, "page", 1, MAX_PAGE, 1)
    per_page = _number(args, "per_page", 1, MAX_PAGE_SIZE, PAGE_SIZE)
    assert page is not None and per_page is not None
    return Query(filters, page, per_page)


@dataclass(frozen=True)
class ArchivedGame:
    """A line of the list."""

    game: Game
    director: str
    players: int
    rounds: int  # rounds played (closed)
    top_total: int
    winners: tuple[Standing, ...]  # everyone ranked first (a tie shares the rank)


@dataclass(frozen=True)
class ArchivePage:
    games: list[ArchivedGame]
    total: int  # games that match, on every page
    query: Query

    @property
    def pages(self) -> int:
        return max(1, ceil(self.total / self.query.per_page))


def held_back_games() -> list[Game]:
    """The finished games kept out of the archive now because another game of their draw, playing, has not caught up
    with them (docs/rules.md §6.4), oldest first: the list says how many, and why (trainer.games.draws.held_back_by)."""
    held = draws.finished_not_shown()
    if not held:
        return []
    return list(db.session.execute(select(Game).where(Game.id.in_(held)).order_by(Game.created_at)).scalars())


def _archived() -> list[ColumnElement[bool]]:
    """What makes a game part of the archive now: finished after at least one round, and shown to everyone."""
    held_back = draws.finished_not_shown()
    conditions = [Game.status == GameStatus.FINISHED, Game.round_number > 0]
    if held_back:
        conditions.append(Game.id.not_in(held_back))
    return conditions


def _matching(filters: Filters, conditions: list[ColumnElement[bool]]) -> Select[Game, str, Any]:
    players = select(Player.game_id, func.count(Player.id).label("players")).group_by(Player.game_id).subquery()
    count = func.coalesce(players.c.players, 0)
    query = (
        select(Game, Director.username, count)
        .join(Director, Director.id == Game.director_id)
        .outerjoin(players, players.c.game_id == Game.id)
        .where(*conditions)
    )
    if filters.kind == "club":
        query = query.where(Game.competition_id.is_(None))
    elif filters.kind is not None:
        query = query.where(Game.competition_id.in_(select(Competition.id).where(Competition.kind == filters.kind)))
    if filters.rules is not None:
        query = query.where(Game.rules == filters.rules)
    if filters.lexicon is not None:
        query = query.where(Game.lexicon == filters.lexicon)
    if filters.director is not None:
        query = query.where(Director.username == filters.director)
    if filters.date_from is not None:
        query = query.where(Game.created_at >= datetime.combine(filters.date_from, time(), UTC))
    if filters.date_to is not None:
        query = query.where(Game.created_at < datetime.combine(filters.date_to + timedelta(days=1), time(), UTC))
    if filters.min_players is not None:
        query = query.where(count >= filters.min_players)
    if filters.max_players is not None:
        query = query.where(count <= filters.max_players)
    return query


def _winners(results: GameResults) -> tuple[Standing, ...]:
    return tuple(s for s in results.standings if s.rank == 1)


def list_games(query: Query) -> ArchivePage:
    """A page of the archive, newest game first."""
    matching = _matching(query.filters, _archived())
    total = int(db.session.execute(select(func.count()).select_from(matching.subquery())).scalar_one())
    rows = db.session.execute(
        matching.order_by(Game.created_at.desc(), Game.id.desc())
        .limit(query.per_page)
        .offset((query.page - 1) * query.per_page)
    ).all()
    results = service.results_of_games([game for game, _name, _count in rows])
    games = [
        ArchivedGame(
            game,
            name,
            int(count),
            len(results[game.id].rounds),
            results[game.id].top_total,
            _winners(results[game.id]),
        )
        for game, name, count in rows
    ]
    return ArchivePage(games, total, query)


@dataclass(frozen=True)
class Choices:
    """What the filters can be set to besides the rules: the lexicons and directors of the archived games."""

    lexicons: list[str]
    directors: list[str]


def choices() -> Choices:
    conditions = _archived()
    lexicons = db.session.execute(select(Game.lexicon).distinct().where(*conditions).order_by(Game.lexicon)).scalars()
    directors = db.session.execute(
        select(Director.username)
        .distinct()
        .join(Game, Game.director_id == Director.id)
        .where(*conditions)
        .order_by(Director.username)
    ).scalars()
    return Choices(list(lexicons), list(directors))


@dataclass(frozen=True)
class ArchivedRound:
    """A round as the archive shows it: the game sheet's line (draw, top placed, running top total, finders) with the
    round's other tops and its next best distinct play."""

    sheet: SheetRound
    tops: list[str]  # every top, tie-break order; the first is the one placed
    next_best: tuple[str, int] | None  # the best play of another word than the tops', and its score

    @property
    def other_tops(self) -> list[str]:
        """The tops besides the one placed (the director may have placed another than the first)."""
        return [top for top in self.tops if top != self.sheet.top]


@dataclass(frozen=True)
class ArchivedGameRecord:
    """One archived game: its rounds and its standings."""

    game: Game
    director: str
    players: int
    results: GameResults
    rounds: list[ArchivedRound]

    @property
    def top_total(self) -> int:
        return self.results.top_total

    @property
    def winners(self) -> tuple[Standing, ...]:
        return _winners(self.results)


NOT_SHOWN = (
    "this game shares its draw with another game still being played: its rounds are shown to others once every game of"
    " the draw has closed them"
)  # the API's message for the same rule (trainer.api.common.seen_game)


def archived_game(game_id: int) -> ArchivedGameRecord:
    """The archived game ``game_id``; refused (``not_archived``) when there is none, it is not over or it ended in
    its lobby, and (``draw_not_public``) while another game of its draw has not caught up (docs/rules.md §6.4)."""
    game = db.session.get(Game, game_id)
    if game is None or game.status != GameStatus.FINISHED or game.round_number == 0:
        raise Refused("not_archived", f"there is no game {game_id} in the archive (the archive keeps finished games)")
    if not draws.shown_to_outsiders(game):
        raise Refused("draw_not_public", NOT_SHOWN)
    results = game_results(game)
    by_number = {r.number: r for r in game.rounds}
    rounds = []
    for line in game_sheet(game, results):
        round_ = by_number[line.number]
        tops = list(round_.tops or [])
        following = next_best_words(round_.best_plays or [], tops, line.top_score)
        rounds.append(ArchivedRound(line, tops, following[0] if following else None))
    director = db.session.get(Director, game.director_id)
    return ArchivedGameRecord(game, director.username if director else "", len(game.players), results, rounds)
