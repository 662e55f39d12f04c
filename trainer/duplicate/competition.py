"""Rankings over several games (docs/rules.md §6.22, §6.23): a simultaneous game played in several rooms, and a
tournament of several games.

- **Simultaneous.** Every room plays the same draw and places the same tops, so round ``n`` is the same round
  everywhere. The event's ranking scores every room's players together, as if in one room: the same top and
  legal plays for each round, every room's submissions, corrections and rulings, so a solo is a top found by
  exactly one player of the *whole event*, and the solo bonus looks at the event's active players. Only the
  rounds every room still playing has closed are counted (the fairness rule of §6.4: nothing of a round reaches
  a room that has not closed it); a room whose game is over holds nobody back, and its players score nothing
  for the rounds it did not play. Players are told apart by their room: two rooms may each have a "Marie".
- **Tournament.** Several games, one ranking: a player's total is the sum of their games' totals, the négatif
  the sum of their négatifs, the percentage of the summed top totals. Players are the same person in every game
  when their names read the same (names' keys, §6.16). Equal totals are separated by the last game's total,
  then by what the last game's rounds added, the last round first; players equal on all of it share a rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from .results import (
    Correction,
    GameResults,
    RoundRecord,
    Ruling,
    SoloRule,
    WarningRule,
    percentage,
    score_game,
)

ROOM_SEPARATOR = "\x1f"  # between a room's label and a player's name in the merged ranking's keys


@dataclass(frozen=True)
class Room:
    """One room of a simultaneous game, as its closed rounds are scored."""

    label: str  # the room's name on the ranking (its join code)
    rounds: Sequence[RoundRecord]
    players: Sequence[str]
    corrections: Sequence[Correction] = ()
    rulings: Sequence[Ruling] = ()
    finished: bool = False  # the room's game is over: it will close no more rounds


def player_key(room: str, name: str) -> str:
    return f"{room}{ROOM_SEPARATOR}{name}"


def split_key(key: str) -> tuple[str, str]:
    """(room, name) of a merged ranking's player key."""
    room, _, name = key.partition(ROOM_SEPARATOR)
    return room, name


def rounds_counted(rooms: Sequence[Room]) -> int:
    """The rounds the event's ranking counts: those every room still playing has closed. A room that is over
    (its director ended it early) holds nobody back; when every room is over, every round any room played."""
    playing = [len(room.rounds) for room in rooms if not room.finished]
    if playing:
        return min(playing)
    return max((len(room.rounds) for room in rooms), default=0)


def event_results(
    rooms: Sequence[Room], solo_rule: SoloRule | None = None, warning_rule: WarningRule | None = None
) -> GameResults:
    """Every room's players scored together on the rounds every room has closed; players keyed by
    :func:`player_key`. Raises ``ValueError`` when two rooms did not play the same round ``n`` (another top,
    another rack): their scores cannot be compared."""
    counted = rounds_counted(rooms)
    merged: list[RoundRecord] = []
    for index in range(counted):
        # A room over before this round played it not: its players score nothing for it.
        records = [(room, room.rounds[index]) for room in rooms if index < len(room.rounds)]
        first = records[0][1]
        for _room, other in records[1:]:
            if other.number != first.number or other.top_score != first.top_score:
                raise ValueError(f"round {first.number} differs between the rooms: not the same draw")
        submissions = [
            replace(s, player=player_key(room.label, s.player)) for room, record in records for s in record.submissions
        ]
        merged.append(RoundRecord(first.number, first.top_score, first.play_scores, submissions))
    numbers = {record.number for record in merged}
    corrections = [
        replace(c, player=player_key(room.label, c.player))
        for room in rooms
        for c in room.corrections
        if c.round_number in numbers
    ]
    rulings = [
        replace(r, player=player_key(room.label, r.player))
        for room in rooms
        for r in room.rulings
        if r.round_number in numbers
    ]
    players = [player_key(room.label, name) for room in rooms for name in room.players]
    return score_game(merged, players, corrections, solo_rule, rulings=rulings, warning_rule=warning_rule)


@dataclass(frozen=True)
class TournamentLine:
    """A player's line in a tournament's ranking."""

    player: str
    rank: int
    total: int
    negatif: int
    percentage: Decimal
    game_totals: tuple[int, ...]  # in the tournament's game order; 0 for a game not played
    tops: int
    solos: int
    warnings: int
    penalty: int


@dataclass(frozen=True)
class TournamentResults:
    lines: tuple[TournamentLine, ...]
    top_total: int
    games: int


def tournament_results(games: Sequence[GameResults], same: Iterable[tuple[str, str]] = ()) -> TournamentResults:
    """The tournament's ranking over ``games`` (in playing order). ``same``: (name in a game, the person's name)
    pairs, when a player's name reads differently in two games; by default a name is its own person."""
    alias = dict(same)
    top_total = sum(g.top_total for g in games)
    people: dict[str, list[int]] = {}
    last_rounds: dict[str, tuple[int, ...]] = {}
    extras: dict[str, list[int]] = {}
    for index, game in enumerate(games):
        for standing in game.standings:
            person = alias.get(standing.player, standing.player)
            totals = people.setdefault(person, [0] * len(games))
            totals[index] += standing.total
            figures = extras.setdefault(person, [0, 0, 0, 0])
            for position, value in enumerate((standing.tops, standing.solos, standing.warnings, standing.penalty)):
                figures[position] += value
            if index == len(games) - 1:
                last_rounds[person] = standing.round_totals
    last_round_count = len(games[-1].rounds) if games else 0

    def tie_break(person: str) -> tuple[int, ...]:
        totals = people[person]
        rounds_added = last_rounds.get(person, (0,) * last_round_count)
        return (sum(totals), totals[-1] if totals else 0, *reversed(rounds_added))

    order = sorted(people, key=tie_break, reverse=True)  # stable: equal players keep their first-seen order
    lines: list[TournamentLine] = []
    for position, person in enumerate(order, start=1):
        rank = lines[-1].rank if lines and tie_break(order[position - 2]) == tie_break(person) else position
        total = sum(people[person])
        tops, solos, warnings, penalty = extras[person]
        lines.append(
            TournamentLine(
                person,
                rank,
                total,
                total - top_total,
                percentage(total, top_total),
                tuple(people[person]),
                tops,
                solos,
                warnings,
                penalty,
            )
        )
    return TournamentResults(tuple(lines), top_total, len(games))
