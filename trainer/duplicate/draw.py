"""The draw (tirage) of a duplicate game and the end of the game (docs/rules.md §6.2–6.5).

Documented choices:

- **Requirement.** A completed rack must hold at least ``min_vowels`` vowels and ``min_consonants``
  consonants before round ``late_from_round`` (default 2 + 2 up to round 15) and the ``late_*``
  minimums from that round on (default 1 + 1 from round 16). Letters of the tile set's ``either``
  set (Y in French) count as a vowel or a consonant as needed; so do blanks when
  ``blanks_either`` is set (the default), otherwise a blank counts as neither.
- **Reliquat.** The tiles of the rack that the placed top did not use (:func:`reliquat_after`; a
  blank played as any letter takes the ``?``, not the real letter). :meth:`Bag.draw` checks that it
  comes from the last rack; the rest of that rack is on the board and leaves the game.
- **Rejet.** The rack is first completed from the bag around the reliquat. If it fails the
  requirement, *all* its tiles, the reliquat included, go back to the bag and a fresh rack is
  drawn from the whole bag, again and again; every rejected rack is recorded.
- **Exact feasibility, decided before drawing.** Whether some rack drawn from bag + reliquat can
  meet the requirement is decided by counting (:func:`can_satisfy`), never by trying draws. If it
  cannot, or bag + reliquat hold fewer than 2 tiles, the game ends (:meth:`Bag.end_reason`) and
  nothing is drawn. This settles the case where a rejet "needs tiles the bag does not have": with
  7 tiles or fewer left, the completed rack is every tile left, so it fails exactly when no rack
  can pass, and the game ends instead of rejecting the same tiles forever. With more tiles left
  the rejet returns the reliquat to the bag and draws afresh, as the federations do; since a
  passing rack exists, each attempt passes with a chance of at least 42 / (N(N-1)) under the
  default rule with N tiles left (both of the only two vowels drawn: 0.4 % for N = 100, about 1 %
  in a real bag), so the loop ends quickly.
- **Determinism.** Tiles are drawn with ``random.Random(seed)`` from the bag kept in sorted
  order, so the draws depend only on the seed, the rule and the reliquat of each round: same
  seed + same settings + same plays = same draws, and two clubs placing different tops that leave
  the same tiles draw the same next rack. Without a seed one is taken from :mod:`secrets` and kept
  in :attr:`Bag.seed`, so every game can be replayed.
- **Written form.** ``RELIQUAT+NEW`` with each part in sorted order (``?`` sorts first), e.g.
  ``ALR+?ALS``; a rack with no reliquat is just ``NEW``, a reliquat completed from an empty bag
  ``ALS+``; a rejected rack is prefixed with ``-``.
- **End without a play** is decided by the caller from the move generator
  (:func:`end_without_play`): only an empty list of plays ends the game, since a top of 0
  (two blanks) is still a legal play.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from trainer.engine.board import Move
from trainer.engine.rules import BLANK, Ruleset, TileSet

MIN_TILES = 2  # fewer tiles than this in bag + reliquat ends the game
_MAX_ATTEMPTS = 100_000  # a guard only: under a feasible requirement this is never reached in practice


class EndReason(StrEnum):
    """Why a duplicate game ended."""

    TOO_FEW_TILES = "too_few_tiles"  # bag + reliquat hold fewer than 2 tiles
    REQUIREMENT_UNREACHABLE = "requirement_unreachable"  # no rack from bag + reliquat meets the rule
    NO_LEGAL_PLAY = "no_legal_play"  # the rack has no legal play on the board
    ROUND_LIMIT = "max_rounds"  # the game's number of rounds (its max_rounds setting) was reached
    LAST_DRAW = "last_draw"  # every line of the game's imposed draws was played (docs/rules.md §6.18)


class GameOverError(ValueError):
    """A draw asked for when the game is over; ``reason`` says why."""

    def __init__(self, reason: EndReason) -> None:
        super().__init__(f"the game is over: {reason.value.replace('_', ' ')}")
        self.reason = reason


@dataclass(frozen=True)
class Requirement:
    """At least this many vowels and consonants on a completed rack."""

    vowels: int
    consonants: int

    def met_by(self, balance: Balance) -> bool:
        """Whether a rack with these counts passes: the ``either`` tiles cover both shortfalls."""
        shortfall = max(0, self.vowels - balance.vowels) + max(0, self.consonants - balance.consonants)
        return shortfall <= balance.either


@dataclass(frozen=True)
class DrawRule:
    """The draw settings of a game (docs/rules.md §6.2); the defaults are the federation's."""

    min_vowels: int = 2
    min_consonants: int = 2
    late_min_vowels: int = 1
    late_min_consonants: int = 1
    late_from_round: int = 16  # the first round played under the late minimums
    blanks_either: bool = True  # a blank counts as vowel or consonant as needed

    def __post_init__(self) -> None:
        counts = (self.min_vowels, self.min_consonants, self.late_min_vowels, self.late_min_consonants)
        if any(n < 0 for n in counts):
            raise ValueError(f"draw rule: minimums cannot be negative, got {counts}")
        if self.late_from_round < 1:
            raise ValueError(f"draw rule: late_from_round must be 1 or more, got {self.late_from_round}")

    def requirement(self, round_number: int) -> Requirement:
        """The minimums that apply to the rack of round ``round_number`` (rounds count from 1)."""
        if round_number < 1:
            raise ValueError(f"rounds count from 1, got {round_number}")
        if round_number < self.late_from_round:
            return Requirement(self.min_vowels, self.min_consonants)
        return Requirement(self.late_min_vowels, self.late_min_consonants)


@dataclass(frozen=True)
class Balance:
    """How many tiles of a rack or a bag are vowels, consonants, either, or neither."""

    vowels: int = 0
    consonants: int = 0
    either: int = 0
    neither: int = 0

    @property
    def total(self) -> int:
        return self.vowels + self.consonants + self.either + self.neither

    @classmethod
    def of(cls, tiles: Iterable[str], tileset: TileSet, blanks_either: bool = True) -> Balance:
        """Count ``tiles`` (``?`` for a blank) by kind under the tile set and the blank setting."""
        v = c = e = n = 0
        for tile in tiles:
            if tile == BLANK:
                if blanks_either:
                    e += 1
                else:
                    n += 1
            elif tile in tileset.either:
                e += 1
            elif tile in tileset.vowels:
                v += 1
            else:
                c += 1
        return cls(v, c, e, n)


def can_satisfy(pool: Balance, requirement: Requirement, rack_size: int) -> bool:
    """Whether some rack of ``min(rack_size, pool.total)`` tiles from ``pool`` meets ``requirement``.

    Exact: take the needed vowels and consonants, cover each shortfall with ``either`` tiles, fill
    up with anything. Possible iff the shortfalls fit in the ``either`` tiles and the minimums fit
    in the rack (when the pool is smaller than a rack, the rack is the whole pool).
    """
    size = min(rack_size, pool.total)
    return requirement.met_by(pool) and requirement.vowels + requirement.consonants <= size


@dataclass(frozen=True)
class Tirage:
    """One completed rack: the tiles kept from before and the tiles drawn, each sorted."""

    kept: str
    new: str

    @property
    def rack(self) -> str:
        return self.kept + self.new

    @property
    def written(self) -> str:
        """``ALR+?ALS``; just the new tiles when nothing was kept, ``ALS+`` when the bag had none."""
        return f"{self.kept}+{self.new}" if self.kept else self.new


@dataclass(frozen=True)
class Draw:
    """The draw of one round: the reliquat it started from, every rejected rack, the final rack."""

    round_number: int
    reliquat: str
    requirement: Requirement
    final: Tirage
    rejets: tuple[Tirage, ...] = field(default=())

    @property
    def rack(self) -> str:
        """The rack played this round (reliquat first unless a rejet returned it to the bag)."""
        return self.final.rack

    @property
    def written(self) -> str:
        """The final rack as ``RELIQUAT+NEW``."""
        return self.final.written

    @property
    def record(self) -> str:
        """Every attempt in order, rejected racks prefixed with ``-``: ``-ALR+EEIU EAILRST``."""
        return " ".join([f"-{t.written}" for t in self.rejets] + [self.final.written])


class DrawSource(Protocol):
    """Where a game's racks come from: a :class:`Bag` drawn from the seed, or a list of imposed draws
    (:class:`~.imposed.ImposedDraws`, docs/rules.md §6.18)."""

    def end_reason(self, reliquat: str, round_number: int) -> EndReason | None:
        """Why no rack can be drawn for round ``round_number`` around ``reliquat``, or ``None``."""

    def draw(self, reliquat: str, round_number: int) -> Draw:
        """The draw of round ``round_number`` around ``reliquat``."""


def _tiles(text: str | Iterable[str], tileset: TileSet, what: str) -> list[str]:
    tiles = [BLANK if ch == BLANK else ch.upper() for ch in text]
    for ch in tiles:
        if ch != BLANK and ch not in tileset.letters:
            raise ValueError(f"{what}: {ch!r} is not a tile (letters and ? for a blank)")
    return sorted(tiles)


def _is_sub_multiset(part: Iterable[str], whole: Iterable[str]) -> bool:
    return not (Counter(part) - Counter(whole))


def reliquat_after(rack: str | Sequence[str], move: Move) -> str:
    """The tiles left on ``rack`` after ``move`` (a blank played as any letter takes a ``?``), sorted."""
    left = Counter(BLANK if ch == BLANK else ch.upper() for ch in rack)
    used = Counter(move.rack_tiles())
    if used - left:
        missing = "".join(sorted((used - left).elements()))
        raise ValueError(f"the play uses {missing}, which the rack {''.join(rack)} does not hold")
    return "".join(sorted((left - used).elements()))


def end_without_play(moves: Sequence[Move]) -> EndReason | None:
    """``NO_LEGAL_PLAY`` when the generator found no play for the rack, else ``None``.

    Pass the list of :func:`trainer.engine.movegen.top_moves` (or ``generate_moves``): judge by
    the list, not the score, since a play of two blanks is legal and scores 0.
    """
    return None if moves else EndReason.NO_LEGAL_PLAY


class Bag:
    """The bag of a duplicate game and the rack out of it; :meth:`draw` gives each round's rack.

    ``tiles`` (default: the full set) and ``rack`` (tiles already out on a rack) let a test or a
    tool start from any position; a game starts with the full bag and an empty rack.
    """

    def __init__(
        self,
        rules: Ruleset,
        rule: DrawRule | None = None,
        seed: int | None = None,
        tiles: Iterable[str] | None = None,
        rack: str = "",
    ) -> None:
        self.rules = rules
        self.rule = rule if rule is not None else DrawRule()
        for number in (1, self.rule.late_from_round):
            req = self.rule.requirement(number)
            if req.vowels + req.consonants > rules.rack_size:
                raise ValueError(
                    f"draw rule: {req.vowels} vowels + {req.consonants} consonants do not fit "
                    f"on a rack of {rules.rack_size}"
                )
        self.seed: int = seed if seed is not None else secrets.randbits(64)
        self._rng = random.Random(self.seed)
        full = rules.tileset.bag()
        self._tiles = _tiles(full if tiles is None else tiles, rules.tileset, "bag")
        self._rack = _tiles(rack, rules.tileset, "rack")
        if len(self._rack) > rules.rack_size:
            raise ValueError(f"rack: {len(self._rack)} tiles, at most {rules.rack_size}")
        if not _is_sub_multiset(self._tiles + self._rack, full):
            raise ValueError("bag and rack hold more tiles than the tile set has")

    @property
    def tiles(self) -> str:
        """The tiles in the bag, sorted."""
        return "".join(self._tiles)

    @property
    def rack(self) -> str:
        """The tiles of the last rack drawn (empty before the first draw)."""
        return "".join(self._rack)

    def __len__(self) -> int:
        return len(self._tiles)

    def balance(self, tiles: Iterable[str]) -> Balance:
        return Balance.of(tiles, self.rules.tileset, self.rule.blanks_either)

    def _reliquat(self, reliquat: str | Sequence[str]) -> list[str]:
        kept = _tiles(reliquat, self.rules.tileset, "reliquat")
        if not _is_sub_multiset(kept, self._rack):
            raise ValueError(f"reliquat {''.join(kept)} is not part of the last rack {self.rack or '(none)'}")
        return kept

    def end_reason(self, reliquat: str | Sequence[str], round_number: int) -> EndReason | None:
        """Why no rack can be drawn for round ``round_number`` from bag + ``reliquat``, or ``None``."""
        pool = self._tiles + self._reliquat(reliquat)
        if len(pool) < MIN_TILES:
            return EndReason.TOO_FEW_TILES
        if not can_satisfy(self.balance(pool), self.rule.requirement(round_number), self.rules.rack_size):
            return EndReason.REQUIREMENT_UNREACHABLE
        return None

    def _take(self, count: int) -> str:
        taken = [self._tiles.pop(self._rng.randrange(len(self._tiles))) for _ in range(min(count, len(self._tiles)))]
        return "".join(sorted(taken))

    def _put_first(self, kept: str) -> str:
        """Tiles that go on a rack holding ``kept`` before it is completed at random: none here; a joker game's blank
        (:class:`~.joker.JokerBag`, docs/rules.md §6.24)."""
        return ""

    def _complete(self, kept: str) -> str:
        """The tiles that complete ``kept`` to a rack, sorted: :meth:`_put_first`'s, then tiles taken at random."""
        first = self._put_first(kept)
        for tile in first:
            self._tiles.remove(tile)
        return "".join(sorted(first + self._take(self.rules.rack_size - len(kept) - len(first))))

    def draw(self, reliquat: str | Sequence[str], round_number: int) -> Draw:
        """Complete ``reliquat`` (tiles of the last rack not played) to a rack for ``round_number``.

        The last rack's other tiles are on the board and leave the game. Raises
        :class:`GameOverError` when :meth:`end_reason` says the game is over.
        """
        reason = self.end_reason(reliquat, round_number)
        if reason is not None:
            raise GameOverError(reason)
        kept = "".join(self._reliquat(reliquat))
        requirement = self.rule.requirement(round_number)
        self._rack = []
        attempt = Tirage(kept, self._complete(kept))
        rejets: list[Tirage] = []
        while not requirement.met_by(self.balance(attempt.rack)):
            if len(rejets) >= _MAX_ATTEMPTS:  # pragma: no cover - unreachable under a feasible requirement
                raise RuntimeError(f"round {round_number}: no passing rack after {_MAX_ATTEMPTS} rejets")
            rejets.append(attempt)
            self._tiles = sorted(self._tiles + list(attempt.rack))
            attempt = Tirage("", self._complete(""))
        self._rack = list(attempt.rack)
        return Draw(round_number, kept, requirement, attempt, tuple(rejets))
