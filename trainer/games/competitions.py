"""Simultaneous games and tournaments on the database (docs/rules.md §6.22–6.23); the rankings themselves are
pure (:mod:`trainer.duplicate.competition`).

A simultaneous game is made from its organiser's room, a game still in its lobby: the settings of that game (its
seed, or its list of imposed draws) are the event's, and every room opened in it later by any director with the
event's code is a game of its own (own code, projector, clock) made from them. A room's director cannot place
another top (§6.8): the rooms' boards must stay the same for their rounds to be the same.

A tournament is a director's list of their games, in the order they are added; its ranking counts the
finished ones.

The public ranking names a room by its name (:class:`RoomLabel`: the club's name its director gave it, or "Room n"
by its place in the event), never by its join code: a code read there let a player of one room join another and
read, from there, the top of the round still open in their own room (issue 26).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from ..core.accounts import Director
from ..core.codes import new_join_code, typed_code
from ..core.database import db
from ..core.errors import Refused
from ..core.names import name_key
from ..duplicate.competition import Room, TournamentResults, event_results, split_key, tournament_results
from ..duplicate.results import GameResults, SoloRule, WarningRule
from ..duplicate.rounds import GameStatus
from . import edition, present, service
from .models import Competition, Game

SIMULTANEOUS, TOURNAMENT = "simultaneous", "tournament"
KINDS = (SIMULTANEOUS, TOURNAMENT)
MAX_NAME = 80
MAX_ROOM_NAME = 80


def _name(name: object) -> str:
    text = " ".join(name.split()) if isinstance(name, str) else ""
    if not 1 <= len(text) <= MAX_NAME:
        raise Refused("bad_competition_name", f"the name must have 1 to {MAX_NAME} characters", n=MAX_NAME)
    return text


def _new(director: Director, kind: str, name: object) -> Competition:
    competition = Competition(code=new_join_code(), kind=kind, name=_name(name), director_id=director.id)
    db.session.add(competition)
    db.session.flush()
    return competition


def room_settings(game: Game) -> dict[str, Any]:
    """What a new room needs to play ``game``'s draw: its settings, with its seed, or its list of draws."""
    data = present.settings(game, with_seed=True)
    if game.imposed_draws is not None:
        data.pop("seed", None)
        data["draws"] = game.imposed_draws
    return data


@dataclass(frozen=True)
class RoomLabel:
    """How a room of a simultaneous game is named in public: ``name`` as its director set it (their club's), or,
    when None, "Room ``number``" in the reader's language (``number``: its place in the event, the organiser's 1)."""

    number: int
    name: str | None


def room_labels(competition: Competition) -> dict[int, RoomLabel]:
    """Every room's label, by game id."""
    return {game.id: RoomLabel(n, game.room_name) for n, game in enumerate(competition.games, start=1)}


def room_label_of(game: Game) -> RoomLabel | None:
    """``game``'s label as a room of its simultaneous game; None for a game that is no room."""
    competition = db.session.get(Competition, game.competition_id) if game.competition_id is not None else None
    if competition is None or competition.kind != SIMULTANEOUS:
        return None
    return room_labels(competition)[game.id]


def _room_name(name: object) -> str | None:
    """A room's name as typed: spaces collapsed, 1 to 80 characters that can be shown; empty is the default."""
    if name is None:
        return None
    if not isinstance(name, str):
        raise Refused("bad_room_name", f"a room's name is text of 1 to {MAX_ROOM_NAME} characters", n=MAX_ROOM_NAME)
    text = " ".join(unicodedata.normalize("NFKC", name).split())
    if not text:
        return None
    if len(text) > MAX_ROOM_NAME or not text.isprintable():
        raise Refused("bad_room_name", f"a room's name is text of 1 to {MAX_ROOM_NAME} characters", n=MAX_ROOM_NAME)
    return text


def _check_room_name(competition: Competition, game_id: int | None, name: str | None) -> None:
    """A room's name tells it apart on the ranking (not another room's, as names are compared, §6.16) and never
    gives a way in (not a join code: the event's code, or any room's)."""
    if name is None:
        return
    if typed_code(name) in {competition.code, *(room.join_code for room in competition.games)}:
        raise Refused("room_name_is_code", "a room's name cannot be a join code: it is shown to everyone")
    key = name_key(name)
    for room in competition.games:
        if room.id != game_id and room.room_name is not None and name_key(room.room_name) == key:
            raise Refused("room_name_taken", f"another room of this event is named {room.room_name!r}",
                          name=room.room_name)  # fmt: skip


def name_room(game: Game, name: object, director: Director) -> None:
    """The room's director names it (their club's name); empty gives it back its default name, "Room n"."""
    if game.director_id != director.id:
        raise Refused("not_your_game", "only the game's own director can do this")
    competition = db.session.get(Competition, game.competition_id) if game.competition_id is not None else None
    if competition is None or competition.kind != SIMULTANEOUS:
        raise Refused("not_a_room", "only a room of a simultaneous game has a room name")
    checked = _room_name(name)
    _check_room_name(competition, game.id, checked)
    if checked != game.room_name:
        game.room_name = checked
        service.log(game.id, "room_named", {"name": checked}, director.username)
    db.session.commit()


def create_simultaneous(director: Director, name: object, game: Game, room_name: object = None) -> Competition:
    """A simultaneous game whose first room is ``game``, the organiser's, still in its lobby: its settings (seed
    or list of draws) become the event's, for every room opened in it. ``room_name``: the room's name on the
    ranking (the club's), else "Room 1"."""
    checked = _name(name)
    named = _room_name(room_name)
    if game.director_id != director.id:
        raise Refused("not_your_game", "only the game's own director can do this")
    if game.status != GameStatus.LOBBY:
        raise Refused("already_started", "a simultaneous game is made from a game that has not started")
    if game.competition_id is not None:
        raise Refused("already_in_competition", "this game is already part of a simultaneous game or tournament")
    competition = _new(director, SIMULTANEOUS, checked)
    competition.settings = room_settings(game)
    _check_room_name(competition, game.id, named)
    game.competition_id = competition.id
    game.room_name = named
    service.log(game.id, "competition", {"kind": SIMULTANEOUS, "code": competition.code}, director.username)
    db.session.commit()
    return competition


def create_tournament(director: Director, name: object) -> Competition:
    competition = _new(director, TOURNAMENT, name)
    db.session.commit()
    return competition


def find(code: object) -> Competition:
    competition = None
    if isinstance(code, str) and code.strip():
        competition = db.session.execute(
            select(Competition).where(Competition.code == typed_code(code))
        ).scalar_one_or_none()
    if competition is None:
        raise Refused("unknown_competition", f"no simultaneous game or tournament has the code {code!r}")
    return competition


def open_room(competition: Competition, director: Director, room_name: object = None) -> Game:
    """A new room of the simultaneous game, run by ``director`` (any director holding the code), named
    ``room_name`` on the ranking (their club's), else "Room n"."""
    if competition.kind != SIMULTANEOUS or competition.settings is None:
        raise Refused("not_simultaneous", "rooms are opened in a simultaneous game, not in a tournament")
    named = _room_name(room_name)
    _check_room_name(competition, None, named)
    # A room still in its lobby records the list again when it starts; one that has started plays the one it has.
    started = (room for room in competition.games if room.status != GameStatus.LOBBY and room.lexicon_sha256)
    first = next(started, None)
    if first is not None and edition.played_lexicon(first).changed:  # the new room would judge with another list
        raise Refused(
            "room_lexicon_changed",
            f"the lexicon {first.lexicon} has changed since the simultaneous game began: no room can be opened with "
            "the same list",
            lexicon=first.lexicon,
        )
    game = service.create_game(director, dict(competition.settings))
    game.competition_id = competition.id
    game.room_name = named
    service.log(game.id, "competition", {"kind": SIMULTANEOUS, "code": competition.code}, director.username)
    db.session.commit()
    return game


def add_to_tournament(competition: Competition, game: Game, director: Director) -> None:
    if competition.kind != TOURNAMENT:
        raise Refused("not_tournament", "games are added to a tournament, not to a simultaneous game")
    if competition.director_id != director.id or game.director_id != director.id:
        raise Refused("not_your_game", "only the tournament's director adds their own games to it")
    if game.competition_id is not None:
        raise Refused("already_in_competition", "this game is already part of a simultaneous game or tournament")
    game.competition_id = competition.id
    service.log(game.id, "competition", {"kind": TOURNAMENT, "code": competition.code}, director.username)
    db.session.commit()


def _room(game: Game, label: RoomLabel) -> Room:
    """``game``'s closed rounds, as a room of the event's ranking scores them: keyed by its place in the event."""
    read = service.scoring(game)
    finished = game.status == GameStatus.FINISHED
    return Room(str(label.number), read.rounds, read.players, read.corrections, read.rulings, finished)


@dataclass(frozen=True)
class EventRanking:
    competition: Competition
    rooms: list[Game]
    results: GameResults  # players keyed by trainer.duplicate.competition.player_key (the room's number, the name)
    counted: int  # rounds every room has closed
    waiting: list[RoomLabel]  # rooms that have not closed the next round yet
    labels: dict[str, RoomLabel]  # by the room part of a player's key

    def line(self, key: str) -> tuple[RoomLabel, str]:
        """The room and the player's name of a standing's key."""
        room, name = split_key(key)
        return self.labels[room], name


def event_ranking(competition: Competition) -> EventRanking:
    rooms = [g for g in competition.games]
    labels = room_labels(competition)
    scored = [_room(game, labels[game.id]) for game in rooms]
    first = rooms[0] if rooms else None  # every room has the event's settings
    solo = SoloRule(first.solo_bonus, first.solo_min_players) if first else None
    warning = WarningRule(first.warning_penalty, first.warnings_before_penalty) if first else None
    try:
        results = event_results(scored, solo, warning)
    except ValueError as error:
        raise Refused("rooms_differ", str(error)) from None
    most = max((len(room.rounds) for room in scored), default=0)
    behind = zip(rooms, scored, strict=True)
    waiting = [labels[game.id] for game, room in behind if len(room.rounds) < most and not room.finished]
    by_key = {str(label.number): label for label in labels.values()}
    return EventRanking(competition, rooms, results, len(results.rounds), waiting, by_key)


@dataclass(frozen=True)
class TournamentRanking:
    competition: Competition
    games: list[Game]  # in the tournament's order
    counted: list[Game]  # the finished ones, which the ranking counts
    results: TournamentResults


def tournament_ranking(competition: Competition) -> TournamentRanking:
    games = list(competition.games)
    counted = [g for g in games if g.status == GameStatus.FINISHED]
    return TournamentRanking(
        competition, games, counted, tournament_results([service.results(g) for g in counted], _same_people(counted))
    )


def _same_people(games: list[Game]) -> list[tuple[str, str]]:
    """Names that read the same (§6.16) in several games are one person, under the name of their first game."""
    first: dict[str, str] = {}
    same: list[tuple[str, str]] = []
    for game in games:
        for player in game.players:
            person = first.setdefault(player.name_key, player.name)
            if person != player.name:
                same.append((player.name, person))
    return same


def directors_competitions(director: Director) -> list[Competition]:
    return list(
        db.session.execute(
            select(Competition).where(Competition.director_id == director.id).order_by(Competition.created_at.desc())
        ).scalars()
    )
