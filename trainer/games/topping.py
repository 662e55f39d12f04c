"""Topping club games on the database (docs/rules.md §6.26): a game of mode ``topping`` runs its rounds as any game
(:mod:`.service`), but a player hands in plays until one is a top, may take hints, and the room is ranked by time.

What is stored: every play handed in is a ``submission`` row as in any game (append-only; a play that is not a top is
a wrong play), and every hint a ``topping_hint`` event of the game's log (the round, the player, the kind): no table of
its own. A round's seconds are worked out from these rows with the pure rules (:mod:`trainer.duplicate.topping`):
the clock runs from the round's start (``round.started_at``, the server's) to the top's receipt.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from ..core.clock import utcnow
from ..core.database import db
from ..core.errors import Refused
from ..duplicate import topping
from ..duplicate.errors import RuleError
from ..duplicate.rounds import RoundStatus
from ..duplicate.topping import Hint, RoundTime, ToppingCosts, ToppingStanding
from ..engine.board import Board, Move
from ..engine.notation import parse_move
from ..engine.rules import ruleset
from . import service
from .models import Event, Game, Player, Round, Submission

MODE = "topping"
HINT_EVENT = "topping_hint"


def is_topping(game: Game) -> bool:
    return game.mode == MODE


def costs_of(game: Game) -> ToppingCosts:
    """The game's costs: its round time is the limit (10–3600 s, as the limit's range), the others the defaults."""
    return ToppingCosts(limit_seconds=game.round_seconds)


def _check_topping(game: Game) -> None:
    if not is_topping(game):
        raise Refused("not_topping", "this game is not a topping game")


def _open_round(game: Game, number: int, now: datetime) -> Round:
    """Round ``number`` if it is the game's running round and its deadline has not passed."""
    round_ = db.session.execute(
        select(Round).where(Round.game_id == game.id, Round.number == number)
    ).scalar_one_or_none()
    if round_ is None:
        raise Refused("round_not_started", f"round {number} has not started", round=number)
    open_now = round_.status == RoundStatus.PAUSED or (
        round_.status == RoundStatus.OPEN and round_.deadline is not None and _aware(round_.deadline) > now
    )
    if number != game.round_number or not open_now:
        raise Refused("round_closed", f"round {number} is closed", round=number)
    return round_


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _found_at(round_: Round, player_id: int) -> datetime | None:
    """When the player handed in a top of the round (the first one), if they did."""
    tops = set(round_.tops or [])
    for move, received_at in db.session.execute(
        select(Submission.move, Submission.received_at)
        .where(Submission.round_id == round_.id, Submission.player_id == player_id)
        .order_by(Submission.id)
    ):
        if move in tops:
            return _aware(received_at)
    return None


@dataclass(frozen=True)
class ToppingAnswer:
    """A play handed in to a topping round: canonical, whether it is a top, and the seconds it took (when found,
    from the round's start, before wrong plays and hints)."""

    move: str
    top: bool
    received_at: datetime
    elapsed: float | None = None


def hand_in(game: Game, player: Player, number: int, text: object, now: datetime | None = None) -> ToppingAnswer:
    """A player's play in a topping round (docs/rules.md §6.26): stored like any play; a top ends the player's round,
    any other play is a wrong play. Once every player of the room has found the top, the round closes."""
    now = now or utcnow()
    _check_topping(game)
    if player.game_id != game.id:
        raise Refused("wrong_game", "this token is not for this game")
    if not isinstance(text, str):
        raise Refused("move_missing", "'move' is missing: give a play such as \"8D TRAIN\"")
    round_ = _open_round(game, number, now)
    if _found_at(round_, player.id) is not None:
        raise Refused("top_found_already", "you found this round's top already: wait for the next round")
    playing = service.round_playing(game, number)
    move, score = service.judge(playing, text)
    (outcome,) = service.store_plays([service.PendingPlay(playing, player.id, player.name, move, score, now)])
    if isinstance(outcome, Refused):
        raise outcome
    found = topping.is_top(move, round_.tops or [])
    elapsed = (now - _aware(round_.started_at)).total_seconds() if found else None
    if found and _everyone_found(game, round_):
        service.close_round(game.id, number, "topping", now, early=True)
    return ToppingAnswer(move, found, outcome.received_at, elapsed)


def _everyone_found(game: Game, round_: Round) -> bool:
    tops = set(round_.tops or [])
    finders = set(
        db.session.execute(
            select(Submission.player_id).where(Submission.round_id == round_.id, Submission.move.in_(tops)).distinct()
        ).scalars()
    )
    players = [p.id for p in game.players if not p.paper]
    return bool(players) and all(p in finders for p in players)


def placed_top(game: Game, round_: Round) -> Move:
    """The top the round places (the tie-break's first while it is open; the placed play once closed)."""
    rules = ruleset(game.rules)
    written = round_.placed_move or (round_.tops or [""])[0]
    return parse_move(written, Board(rules.layout, list(round_.board_before)), service.notation_of(game))


def hints_taken(game: Game, round_number: int, player_id: int | None = None) -> dict[int, list[str]]:
    """The hints each player took in a round, in order, by player id (or only ``player_id``'s)."""
    taken: dict[int, list[str]] = {}
    for (data,) in db.session.execute(
        select(Event.data).where(Event.game_id == game.id, Event.kind == HINT_EVENT).order_by(Event.id)
    ):
        if data.get("round") != round_number:
            continue
        who = data.get("player")
        if isinstance(who, int) and (player_id is None or who == player_id):
            taken.setdefault(who, []).append(str(data.get("hint")))
    return taken


def take_hint(game: Game, player: Player, number: int, kind: object, now: datetime | None = None) -> Hint:
    """A hint about the round's top for ``player`` (docs/rules.md §6.26), logged (its cost counts from now)."""
    now = now or utcnow()
    _check_topping(game)
    if player.game_id != game.id:
        raise Refused("wrong_game", "this token is not for this game")
    round_ = _open_round(game, number, now)
    if _found_at(round_, player.id) is not None:
        raise Refused("top_found_already", "you found this round's top already: wait for the next round")
    taken = hints_taken(game, number, player.id).get(player.id, [])
    try:
        given = topping.next_hint(placed_top(game, round_), str(kind), taken, service.notation_of(game))
    except RuleError as error:
        raise Refused.because(error) from None
    service.log(game.id, HINT_EVENT, {"round": number, "player": player.id, "hint": given.kind}, player.name, now)
    db.session.commit()
    return given


def my_hints(game: Game, round_: Round, player_id: int) -> list[Hint]:
    """The hints a player took in a round, as they were given."""
    top = placed_top(game, round_)
    notation = service.notation_of(game)
    shown: list[Hint] = []
    letters = 0
    for kind in hints_taken(game, round_.number, player_id).get(player_id, []):
        shown.append(topping.hint(top, kind, letters, notation))
        letters += kind == "letter"
    return shown


# --- the ranking ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayerTopping:
    """A player's round in a topping game: found or not, the seconds to the top, wrong plays, hints, what it cost."""

    player_id: int
    name: str
    found: bool
    elapsed: float | None  # seconds from the round's start to the top (None: not found)
    wrong_plays: int
    hints: tuple[str, ...]
    seconds: float  # the round's cost (docs/rules.md §6.26)

    def as_round_time(self) -> RoundTime:
        return RoundTime(self.seconds, self.found)


def round_toppings(game: Game, round_: Round, costs: ToppingCosts | None = None) -> list[PlayerTopping]:
    """Every player's figures in a round, fastest first (for an open round: the rounds found so far count)."""
    costs = costs or costs_of(game)
    tops = set(round_.tops or [])
    plays: dict[int, list[tuple[str, datetime]]] = {}
    for player_id, move, received_at in db.session.execute(
        select(Submission.player_id, Submission.move, Submission.received_at)
        .where(Submission.round_id == round_.id)
        .order_by(Submission.id)
    ):
        plays.setdefault(player_id, []).append((move, _aware(received_at)))
    hints = hints_taken(game, round_.number)
    started = _aware(round_.started_at)
    lines: list[PlayerTopping] = []
    for player in game.players:
        wrong = 0
        elapsed: float | None = None
        for move, received_at in plays.get(player.id, []):
            if move in tops:
                elapsed = (received_at - started).total_seconds()
                break
            wrong += 1
        taken = tuple(hints.get(player.id, []))
        found = elapsed is not None
        seconds = topping.round_seconds(elapsed or 0.0, found, wrong, taken, costs)
        lines.append(PlayerTopping(player.id, player.name, found, elapsed, wrong, taken, seconds))
    return sorted(lines, key=lambda line: (not line.found, line.seconds, line.name))


@dataclass(frozen=True)
class ToppingResults:
    """A topping game's closed rounds (each player's figures) and the ranking by time."""

    rounds: list[tuple[Round, list[PlayerTopping]]]
    standings: list[ToppingStanding[str]]
    ids: dict[str, int]


def results(game: Game) -> ToppingResults:
    """The closed rounds' figures and the ranking by total seconds (docs/rules.md §6.26)."""
    costs = costs_of(game)
    closed = [r for r in game.rounds if r.status == RoundStatus.CLOSED]
    rounds = [(r, round_toppings(game, r, costs)) for r in closed]
    times: dict[str, list[RoundTime]] = {p.name: [] for p in game.players}
    for _round, lines in rounds:
        for line in lines:
            times.setdefault(line.name, []).append(line.as_round_time())
    return ToppingResults(rounds, topping.ranking(times), {p.name: p.id for p in game.players})


def hint_shape(given: Hint) -> dict[str, Any]:
    return {"kind": given.kind, "value": given.value, "position": given.position}


def standings_shape(game: Game, figures: ToppingResults) -> dict[str, Any]:
    """The API's topping standings: the ranking by seconds, and each closed round's figures."""
    costs = costs_of(game)
    return {
        "game_id": game.id,
        "status": game.status,
        "mode": MODE,
        "costs": costs.as_dict(),
        "standings": [
            {
                "rank": s.rank,
                "player_id": figures.ids.get(s.player),
                "name": s.player,
                "seconds": s.seconds,
                "found": s.found,
                "rounds": s.rounds,
                "average": s.average,
            }
            for s in figures.standings
        ],
        "rounds": [
            {
                "number": round_.number,
                "placed": round_.placed_move,
                "top_score": round_.top_score,
                "players": [
                    {
                        "player_id": line.player_id,
                        "name": line.name,
                        "found": line.found,
                        "elapsed": None if line.elapsed is None else topping.tenths(line.elapsed),
                        "wrong_plays": line.wrong_plays,
                        "hints": list(line.hints),
                        "seconds": line.seconds,
                    }
                    for line in lines
                ],
            }
            for round_, lines in figures.rounds
        ],
    }


# --- what the screens show ------------------------------------------------------------------------


@dataclass(frozen=True)
class ToppingScreen:
    """What the projector and the console show of a topping game: the ranking by time, the figures of the round
    revealed (fastest first), and how many have found the round being played."""

    costs: ToppingCosts
    standings: list[ToppingStanding[str]]
    revealed: list[PlayerTopping]  # the round being revealed; empty while a round is played
    found_now: int  # players who found the top of the round being played
    players: int


def screen(game: Game) -> ToppingScreen:
    figures = results(game)
    current = service.current_round(game)
    revealed: list[PlayerTopping] = []
    found_now = 0
    if current is not None and current.status == RoundStatus.CLOSED and figures.rounds:
        revealed = figures.rounds[-1][1] if figures.rounds[-1][0].id == current.id else []
    elif current is not None:
        found_now = sum(line.found for line in round_toppings(game, current))
    players = len([p for p in game.players if not p.paper])
    return ToppingScreen(costs_of(game), figures.standings, revealed, found_now, players)


@dataclass(frozen=True)
class PhoneTopping:
    """What a player's phone shows of a topping game: in the round being played, whether they found the top (and in
    how many seconds), their wrong plays, the hints they took and the hints left with their costs; at a reveal, their
    figures of the round; their place in the ranking by time."""

    costs: ToppingCosts
    found: bool
    elapsed: float | None
    wrong_plays: int
    hints: list[Hint]
    hints_left: list[tuple[str, int]]  # (kind, seconds)
    revealed: PlayerTopping | None
    standing: ToppingStanding[str] | None
    screen: ToppingScreen


def phone(game: Game, player: Player) -> PhoneTopping:
    shown = screen(game)
    current = service.current_round(game)
    found, elapsed, wrong, hints, left = False, None, 0, [], []
    revealed = next((line for line in shown.revealed if line.player_id == player.id), None)
    if current is not None and current.status != RoundStatus.CLOSED:
        mine = next((line for line in round_toppings(game, current) if line.player_id == player.id), None)
        if mine is not None:
            found, elapsed, wrong = mine.found, mine.elapsed, mine.wrong_plays
        hints = my_hints(game, current, player.id)
        if not found:
            top = placed_top(game, current)
            taken = [h.kind for h in hints]
            letters = taken.count("letter")
            for kind in topping.HINT_KINDS:
                once_taken = kind not in topping.REPEATABLE_HINTS and kind in taken
                if not once_taken and (kind != "letter" or topping.letters_left(top, letters) > 0):
                    left.append((kind, shown.costs.hint_seconds(kind)))
    standing = next((s for s in shown.standings if s.player == player.name), None)
    return PhoneTopping(shown.costs, found, elapsed, wrong, hints, left, revealed, standing, shown)
