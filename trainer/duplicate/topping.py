"""Topping (docs/rules.md §6.26): find the round's top as fast as possible. A round costs the seconds taken,
plus seconds for each wrong play and each hint; a round not found within the limit costs the limit and a penalty.

Pure rules: the costs and their checks, what each hint reveals of the top the round placed, what a round costs,
whether a play is a top, the ranking by time and the records. The clock is the server's (the service measures
``elapsed``); nothing here reads one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from decimal import ROUND_HALF_UP, Decimal
from typing import Generic, TypeVar

from trainer.engine.board import Move
from trainer.engine.notation import square_name
from trainer.engine.rules import Notation

from .classic import Classic
from .errors import RuleError
from .text import N_

P = TypeVar("P")

HINT_KINDS = ("length", "direction", "square", "letter")
REPEATABLE_HINTS = ("letter",)  # every other kind is taken once a round
RECORD_MIN_ROUNDS = 5  # §6.26: a session counts for the overall record from this many rounds

# (lowest, highest) seconds of each cost, by field name
RANGES: dict[str, tuple[int, int]] = {
    "limit_seconds": (10, 3600),
    "penalty_seconds": (0, 3600),
    "wrong_play_seconds": (0, 600),
    "length": (0, 600),
    "direction": (0, 600),
    "square": (0, 600),
    "letter": (0, 600),
}


@dataclass(frozen=True)
class ToppingCosts:
    """What topping counts, in whole seconds (docs/rules.md §6.26): the time limit of a round, the penalty of a
    round not found, a wrong play, and each hint (``length``, ``direction``, ``square``, ``letter``)."""

    limit_seconds: int = 180
    penalty_seconds: int = 60  # a round not found costs limit_seconds + penalty_seconds
    wrong_play_seconds: int = 10
    length: int = 10
    direction: int = 10
    square: int = 20
    letter: int = 15  # each letter shown

    def __post_init__(self) -> None:
        for name, (low, high) in RANGES.items():
            _check(name, getattr(self, name), low, high)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> ToppingCosts:
        """The costs ``data`` gives (the others at their defaults); :class:`RuleError` ``bad_topping_cost`` naming the
        field for an unknown name or a value that is not a whole number in its range."""
        if not isinstance(data, Mapping):
            raise RuleError("bad_topping_cost", "the topping costs must be an object of whole seconds", field="")
        known = [f.name for f in fields(cls)]
        for name in data:
            if name not in known:
                raise RuleError(
                    "bad_topping_cost",
                    f"unknown topping cost {name!r} (known: {', '.join(known)})",
                    field=str(name),
                )
        for name, value in data.items():
            low, high = RANGES[name]
            _check(name, value, low, high)
        given: dict[str, int] = {name: int(value) for name, value in data.items() if isinstance(value, int)}
        return cls(**given)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    def hint_seconds(self, kind: str) -> int:
        """What one hint of ``kind`` costs."""
        _check_kind(kind)
        cost: int = getattr(self, kind)
        return cost


def _check(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RuleError(
            "bad_topping_cost",
            f"'{name}' must be a whole number of seconds from {low} to {high}",
            field=name,
            low=low,
            high=high,
        )


def _check_kind(kind: object) -> str:
    if not isinstance(kind, str) or kind not in HINT_KINDS:
        raise RuleError("bad_hint", f"{kind!r} is not a hint (the hints: {', '.join(HINT_KINDS)})", kind=str(kind))
    return kind


DEFAULT_COSTS = ToppingCosts()


class Topping(Classic):
    """Topping as a club mode (docs/rules.md §6.26): the rounds are drawn, analysed and placed as in classic
    duplicate; what differs is how the players' plays are taken (again and again until one is a top) and how the
    room is ranked (by seconds, :func:`ranking`), which the games service does for a game of this mode."""

    name = "topping"
    title = N_("Topping")


TOPPING = Topping()


# --- hints ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hint:
    """What a hint reveals of the top: ``length`` (letters of the main word), ``direction`` (``across`` or
    ``down``), ``square`` (the main word's first square, in the game's notation) or ``letter`` (the letter at
    ``position``, 1 for the first; lower case when the top puts a blank there, §5.3)."""

    kind: str
    value: int | str
    position: int | None = None  # only for a letter

    @property
    def text(self) -> str:
        """The hint in English (the pages say it in the reader's language from ``kind`` and ``value``)."""
        if self.kind == "length":
            return f"the top's word has {self.value} letters"
        if self.kind == "direction":
            return f"the top is played {self.value}"
        if self.kind == "square":
            return f"the top's word starts on {self.value}"
        return f"letter {self.position} of the top's word is {self.value}"


def letters_left(top: Move, letters_shown: int) -> int:
    """How many more letter hints the top allows: every letter of its word but one can be shown."""
    return max(0, len(top.word) - 1 - letters_shown)


def hint(top: Move, kind: str, letters_shown: int = 0, notation: Notation = "english") -> Hint:
    """What a hint of ``kind`` reveals of ``top`` (the play the round placed), ``letters_shown`` letters of its
    word being shown already. A letter hint shows the next letter from the left, and is refused
    (``no_more_letters``) once every letter but one is shown."""
    _check_kind(kind)
    if kind == "length":
        return Hint(kind, len(top.word))
    if kind == "direction":
        return Hint(kind, "across" if top.horizontal else "down")
    if kind == "square":
        return Hint(kind, square_name(top.row, top.col, notation))
    if letters_shown < 0 or letters_left(top, letters_shown) == 0:
        raise RuleError(
            "no_more_letters",
            f"every letter of the top's word but one is shown already ({len(top.word) - 1} of {len(top.word)})",
            shown=max(letters_shown, 0),
        )
    return Hint(kind, top.word[letters_shown], letters_shown + 1)


def next_hint(top: Move, kind: str, taken: Sequence[str], notation: Notation = "english") -> Hint:
    """The hint of ``kind`` a player who has taken ``taken`` (kinds, in order) this round gets next; a kind
    other than ``letter`` taken already is refused (``hint_taken``)."""
    _check_kind(kind)
    if kind not in REPEATABLE_HINTS and kind in taken:
        raise RuleError("hint_taken", f"the {kind} hint is taken already this round", kind=kind)
    return hint(top, kind, taken.count("letter"), notation)


def hints_seconds(hints: Iterable[str], costs: ToppingCosts) -> int:
    """What the hints taken cost together."""
    return sum(costs.hint_seconds(kind) for kind in hints)


# --- a round's time -------------------------------------------------------------------------------


def tenths(seconds: float) -> float:
    """``seconds`` rounded to the tenth, halves up (42.35 → 42.4)."""
    return float(Decimal(repr(float(seconds))).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def round_seconds(
    elapsed: float, found: bool, wrong_plays: int, hints: Sequence[str], costs: ToppingCosts | None = None
) -> float:
    """What a round costs (docs/rules.md §6.26), to the tenth of a second.

    Found: the seconds from the round's start to the top handed in (at most the limit, never below 0), plus
    ``wrong_play_seconds`` for each wrong play and the cost of each hint taken. Not found: the limit plus the
    penalty, plus the wrong plays and the hints.
    """
    costs = costs or DEFAULT_COSTS
    extra = wrong_plays * costs.wrong_play_seconds + hints_seconds(hints, costs)
    if found:
        return tenths(min(max(float(elapsed), 0.0), costs.limit_seconds) + extra)
    return tenths(costs.limit_seconds + costs.penalty_seconds + extra)


def is_top(play: str, tops: Iterable[str]) -> bool:
    """Whether ``play`` (written canonically, as :func:`trainer.duplicate.rounds.judge` writes it) finds the top:
    it is one of the round's tops, any play that scores the top score wherever it lies, not only the one placed.
    A first play credited with a better placement of its word (§6.9) is not a top unless it is placed so."""
    return play in set(tops)


# --- the ranking and the records ------------------------------------------------------------------


@dataclass(frozen=True)
class RoundTime:
    """A player's round in topping: what it cost, and whether they found the top."""

    seconds: float
    found: bool


@dataclass(frozen=True)
class ToppingStanding(Generic[P]):
    """A player's line of the ranking by time."""

    rank: int
    player: P
    seconds: float  # the total, to the tenth
    found: int  # rounds found
    rounds: int

    @property
    def average(self) -> float:
        """Seconds per round, to the tenth (0 with no round)."""
        return average(self.seconds, self.rounds)


def average(total: float, rounds: int) -> float:
    return tenths(total / rounds) if rounds else 0.0


def total(times: Iterable[RoundTime]) -> float:
    summed = sum((Decimal(repr(float(t.seconds))) for t in times), Decimal(0))  # decimal: no 0.1 + 0.2 drift
    return tenths(float(summed))


def ranking(times: Mapping[P, Sequence[RoundTime]]) -> list[ToppingStanding[P]]:
    """The players by total seconds, fewest first; equal totals: more rounds found first, then by name (``str`` of
    the player). Players equal on total and rounds found share the rank."""
    lines = sorted(
        ((total(rounds), sum(t.found for t in rounds), len(rounds), player) for player, rounds in times.items()),
        key=lambda line: (line[0], -line[1], str(line[3])),
    )
    standings: list[ToppingStanding[P]] = []
    for index, (seconds, found, rounds, player) in enumerate(lines):
        previous = standings[-1] if standings else None
        tied = previous is not None and (previous.seconds, previous.found) == (seconds, found)
        rank = previous.rank if tied and previous is not None else index + 1
        standings.append(ToppingStanding(rank, player, seconds, found, rounds))
    return standings


def game_record(totals: Iterable[float]) -> float | None:
    """The personal record of one game: the best (lowest) total over the finished sessions of its draws."""
    return min((tenths(t) for t in totals), default=None)


def overall_record(sessions: Iterable[Sequence[RoundTime]], min_rounds: int = RECORD_MIN_ROUNDS) -> float | None:
    """The overall personal record: the best average seconds per round over the finished sessions of at least
    ``min_rounds`` rounds (None when there is none)."""
    return min((average(total(rounds), len(rounds)) for rounds in sessions if len(rounds) >= min_rounds), default=None)
