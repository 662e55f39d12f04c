"""Scoring the players of a duplicate game: round results and standings (docs/rules.md §6.9–6.13).

Documented choices:

- **What a play scores.** The player's last submission of the round counts. It scores its value
  when it was on time and every word is in the lexicon, else 0; no submission scores 0, and so
  does every round before a player joined.
- **Rank of a play** ("3rd of 412"): ``1 +`` the number of the round's legal plays (distinct
  plays, as the move generator lists them) that score strictly more; ties share a rank, so every
  top is 1st and a play beaten by five plays is 6th whatever their scores. ``of`` is the number of
  legal plays. A learner reads it as "how many plays were better than mine". A play that is not
  valid (or no play) has no rank; a valid play sent late keeps its rank, to show how good it was,
  though it scores 0.
- **Top and solo.** A player finds the top when the score counted for the round equals the top
  score and comes from a counted play or a correction. A solo is a round where exactly one player
  found the top; the solo bonus (default 10) is added only when the game has at least
  ``min_players`` active players (default 16). A solo without bonus still counts in ``solos``.
  Active players: those with at least one submission in the game, unless the caller says how
  many there are.
- **Corrections** never overwrite: each is kept, with its reason and author, beside the original
  score, and the latest correction of a (player, round) sets the score that counts; tops, solos,
  differences and totals follow the corrected score.
- **Arbitration** (docs/rules.md §6.19): a warning, a penalty of so many points, a solo granted or
  withdrawn, each for a (player, round) with its reason and author. A player's warnings are counted in
  round order; from warning ``free + 1`` on (default: the fourth), each costs ``penalty`` points (default
  5) in the round it was given. A penalty's points are taken from that round's total, which may then be
  below zero: the only way a round counts less than nothing (a correction is never below 0). A solo
  granted makes the player's round a solo (the bonus follows the solo rule); a solo withdrawn removes it;
  the latest of the two for a (player, round) decides.
- **Standings** (the French federation's figures). Total = scores + solo bonuses - penalties
  (corrections included). Top total = the sum of the rounds' top scores. Négatif = total - top total: the sum
  of the differences from the top plus the solo bonuses less the penalties, so 0 or less without a
  bonus (or a correction above the top). Percentage = ``100 × total / top total`` as a :class:`~decimal.Decimal`
  with exactly two decimals, the exact fraction rounded half up (ROUND_HALF_UP: 98.625 gives
  98.63, where Python's ``round`` on a float would give 98.62); ``0.00`` when the top total is 0,
  as before the first round. Rank: by total, ties share a rank (1, 2, 2, 4); tied players keep
  the order of the players given (join order).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from enum import StrEnum

from trainer.engine.notation import format_move
from trainer.engine.play import Evaluation
from trainer.engine.rules import Notation


@dataclass(frozen=True)
class SoloRule:
    """The solo settings: the bonus and the fewest active players for it to be given."""

    bonus: int = 10
    min_players: int = 16


@dataclass(frozen=True)
class Submission:
    """A player's play for a round as the server judged it at the close."""

    player: str
    move: str  # as written, e.g. "8D TRAIN"
    score: int  # its value as placed
    valid: bool  # every word it forms is in the lexicon
    late: bool = False  # received after the deadline: scores 0

    @classmethod
    def from_evaluation(
        cls, player: str, evaluation: Evaluation, notation: Notation = "english", late: bool = False
    ) -> Submission:
        """A submission from the engine's evaluation of the play (placement already legal)."""
        return cls(player, format_move(evaluation.move, notation), evaluation.score, evaluation.valid, late)


@dataclass(frozen=True)
class Correction:
    """The director's correction of a player's score for one round; kept beside the original."""

    player: str
    round_number: int
    score: int  # the score that counts for the round from now on
    reason: str
    author: str = ""


class RulingKind(StrEnum):
    """What the arbiter may rule on a player's round, besides correcting its score."""

    WARNING = "warning"
    PENALTY = "penalty"
    SOLO_GRANTED = "solo_granted"
    SOLO_WITHDRAWN = "solo_withdrawn"


@dataclass(frozen=True)
class Ruling:
    """An arbiter's ruling on a player's round (docs/rules.md §6.19); kept with its reason and author."""

    player: str
    round_number: int
    kind: RulingKind
    reason: str
    author: str = ""
    points: int = 0  # a penalty's points, > 0; for a warning, what it cost once counted (set by scoring)
    ruling_id: int | None = None  # the stored ruling's id, to cancel it


@dataclass(frozen=True)
class WarningRule:
    """Warnings are free up to ``free``; each one after costs ``penalty`` points."""

    penalty: int = 5
    free: int = 3


@dataclass(frozen=True)
class RoundRecord:
    """What a closed round needs for scoring: top score, every legal play's score, submissions.

    ``submissions`` are in the order received: a player's last one counts.
    """

    number: int
    top_score: int
    play_scores: Sequence[int]
    submissions: Sequence[Submission] = ()
    _negated: tuple[int, ...] = field(init=False, repr=False, compare=False)  # -score, ascending

    def __post_init__(self) -> None:
        negated = tuple(sorted(-s for s in self.play_scores))
        if negated and -negated[0] != self.top_score:
            raise ValueError(f"round {self.number}: top score {self.top_score} but the best play scores {-negated[0]}")
        object.__setattr__(self, "_negated", negated)

    @property
    def plays(self) -> int:
        """How many legal plays the round had."""
        return len(self._negated)

    def rank(self, score: int) -> int:
        """Where a play scoring ``score`` stands among the round's legal plays (see module doc)."""
        return 1 + bisect_left(self._negated, -score)

    def last_submissions(self) -> dict[str, Submission]:
        last: dict[str, Submission] = {}
        for submission in self.submissions:
            last[submission.player] = submission
        return last


@dataclass(frozen=True)
class PlayerRound:
    """One player's result for one round."""

    player: str
    round_number: int
    move: str | None  # the play that counted for the round, None without a submission
    valid: bool  # the play was legal and every word in the lexicon
    late: bool
    original: int  # the score before corrections: the play's value if valid and on time, else 0
    score: int  # the score that counts, after corrections
    difference: int  # score - top score: ≤ 0 (unless a correction sets a score above the top)
    top: bool  # found the top
    solo: bool  # the only player to find the top
    bonus: int  # solo bonus given
    rank: int | None  # among the round's legal plays; None without a valid play
    of: int  # the round's number of legal plays
    corrections: tuple[Correction, ...] = ()
    rulings: tuple[Ruling, ...] = ()  # warnings with what each cost, penalties, solos granted or withdrawn

    @property
    def warnings(self) -> int:
        return sum(1 for r in self.rulings if r.kind is RulingKind.WARNING)

    @property
    def penalty(self) -> int:
        """Points taken from the round: penalties and the warnings that cost."""
        return sum(r.points for r in self.rulings if r.kind in (RulingKind.WARNING, RulingKind.PENALTY))

    @property
    def total(self) -> int:
        """What the round adds to the player's total: score and solo bonus, less penalties."""
        return self.score + self.bonus - self.penalty


@dataclass(frozen=True)
class RoundResult:
    """The results of one round, one :class:`PlayerRound` per player, in the players' order."""

    number: int
    top_score: int
    plays: int
    players: Mapping[str, PlayerRound]

    @property
    def solo(self) -> str | None:
        """The player who alone found the top, if one did."""
        return next((p.player for p in self.players.values() if p.solo), None)


def _players(
    players: Iterable[str], rounds: Iterable[RoundRecord], arbitrated: Iterable[Correction | Ruling]
) -> list[str]:
    """The given players, then anyone else who submitted, was corrected or ruled on, in first-seen order."""
    seen = dict.fromkeys(players)
    for record in rounds:
        seen.update(dict.fromkeys(s.player for s in record.submissions))
    seen.update(dict.fromkeys(c.player for c in arbitrated))
    return list(seen)


def _solo_ruled(rulings: Sequence[Ruling], computed: bool) -> bool:
    """Whether the round is a solo once the arbiter's latest grant or withdrawal, if any, is applied."""
    for ruling in reversed(rulings):
        if ruling.kind is RulingKind.SOLO_GRANTED:
            return True
        if ruling.kind is RulingKind.SOLO_WITHDRAWN:
            return False
    return computed


def cost_warnings(rulings: Iterable[Ruling], rule: WarningRule) -> list[Ruling]:
    """The rulings in round order (stable), each warning's ``points`` set to what it costs: 0 for a player's
    first ``rule.free`` warnings, ``rule.penalty`` for each after."""
    counted: dict[str, int] = {}
    costed: list[Ruling] = []
    for ruling in sorted(rulings, key=lambda r: r.round_number):
        if ruling.kind is RulingKind.WARNING:
            counted[ruling.player] = counted.get(ruling.player, 0) + 1
            ruling = replace(ruling, points=rule.penalty if counted[ruling.player] > rule.free else 0)
        costed.append(ruling)
    return costed


def score_round(
    record: RoundRecord,
    players: Iterable[str] = (),
    *,
    active_players: int,
    solo_rule: SoloRule | None = None,
    corrections: Iterable[Correction] = (),
    rulings: Iterable[Ruling] = (),
) -> RoundResult:
    """Score every player of one round; players without a submission score 0. ``rulings`` are this round's,
    a warning's ``points`` already set to what it costs (:func:`cost_warnings`)."""
    solo_rule = solo_rule if solo_rule is not None else SoloRule()
    mine = [c for c in corrections if c.round_number == record.number]
    ruled = [r for r in rulings if r.round_number == record.number]
    names = _players(players, [record], [*mine, *ruled])
    last = record.last_submissions()
    drafts: list[tuple[str, Submission | None, int, int, tuple[Correction, ...], bool]] = []
    for name in names:
        submission = last.get(name)
        counted = submission is not None and submission.valid and not submission.late
        original = submission.score if counted and submission is not None else 0
        fixes = tuple(c for c in mine if c.player == name)
        score = fixes[-1].score if fixes else original
        found = score == record.top_score and (counted or bool(fixes))
        drafts.append((name, submission, original, score, fixes, found))
    finders = sum(1 for *_, found in drafts if found)
    results: dict[str, PlayerRound] = {}
    for name, submission, original, score, fixes, found in drafts:
        theirs = tuple(r for r in ruled if r.player == name)
        solo = _solo_ruled(theirs, found and finders == 1)
        bonus = solo_rule.bonus if solo and active_players >= solo_rule.min_players else 0
        valid = submission is not None and submission.valid
        rank = record.rank(submission.score) if valid and submission is not None and record.plays else None
        results[name] = PlayerRound(
            player=name,
            round_number=record.number,
            move=submission.move if submission else None,
            valid=valid,
            late=submission.late if submission else False,
            original=original,
            score=score,
            difference=score - record.top_score,
            top=found,
            solo=solo,
            bonus=bonus,
            rank=rank,
            of=record.plays,
            corrections=fixes,
            rulings=theirs,
        )
    return RoundResult(record.number, record.top_score, record.plays, results)


@dataclass(frozen=True)
class Standing:
    """A player's line in the standings."""

    player: str
    rank: int
    total: int
    negatif: int  # total - top total
    percentage: Decimal  # 100 × total / top total, two decimals (98.75)
    tops: int
    solos: int
    round_totals: tuple[int, ...]  # what each round added (score + bonus - penalty), in round order
    warnings: int = 0
    penalty: int = 0  # points taken by penalties and warnings, in all
    bonus: int = 0  # solo bonuses given, in all
    round_scores: tuple[int, ...] = ()  # each round's score, bonus and penalties apart (docs/rules.md §6.13)


@dataclass(frozen=True)
class GameResults:
    """Every round's results and the standings after them."""

    rounds: tuple[RoundResult, ...]
    standings: tuple[Standing, ...]
    top_total: int


def percentage(total: int, top_total: int) -> Decimal:
    """``100 × total / top_total`` with two decimals, the exact fraction rounded half up (away from 0);
    ``Decimal("0.00")`` when ``top_total`` is 0. Integers only, so no float ever rounds it."""
    if top_total <= 0:
        return Decimal(0).scaleb(-2)
    hundredths = (2 * 10_000 * abs(total) + top_total) // (2 * top_total)
    return Decimal(hundredths if total >= 0 else -hundredths).scaleb(-2)


def shared_ranks(values: Sequence[int]) -> list[int]:
    """Competition ranks of ``values``, highest first, ties sharing a rank: [9, 7, 7, 3] -> [1, 2, 2, 4]."""
    # Sorted once rather than each value compared with every other: a room of 10,000 is 10^8 comparisons.
    rank_of: dict[int, int] = {}
    for position, value in enumerate(sorted(values, reverse=True), start=1):
        rank_of.setdefault(value, position)
    return [rank_of[value] for value in values]


def standings(results: Sequence[RoundResult], players: Iterable[str] = ()) -> list[Standing]:
    """The standings after ``results``, best first; see the module doc for each figure."""
    names = list(dict.fromkeys([*players, *(name for r in results for name in r.players)]))
    top_total = sum(r.top_score for r in results)
    rows: list[tuple[str, int, int, int, tuple[int, ...], int, int, int, tuple[int, ...]]] = []
    for name in names:
        mine = [p for r in results if (p := r.players.get(name)) is not None]
        totals = tuple(p.total if (p := r.players.get(name)) else 0 for r in results)
        scores = tuple(p.score if (p := r.players.get(name)) else 0 for r in results)
        tops = sum(1 for p in mine if p.top)
        solos = sum(1 for p in mine if p.solo)
        warnings = sum(p.warnings for p in mine)
        penalty = sum(p.penalty for p in mine)
        bonus = sum(p.bonus for p in mine)
        rows.append((name, sum(totals), tops, solos, totals, warnings, penalty, bonus, scores))
    ranks = shared_ranks([row[1] for row in rows])
    table = [
        Standing(
            name,
            rank,
            total,
            total - top_total,
            percentage(total, top_total),
            tops,
            solos,
            totals,
            warnings,
            penalty,
            bonus,
            scores,
        )
        for rank, (name, total, tops, solos, totals, warnings, penalty, bonus, scores) in zip(ranks, rows, strict=True)
    ]
    return sorted(table, key=lambda s: s.rank)  # stable: tied players keep the players' order


def active_players(rounds: Iterable[RoundRecord]) -> int:
    """Players with at least one submission in ``rounds`` (the default count for the solo bonus)."""
    return len({s.player for r in rounds for s in r.submissions})


def score_game(
    rounds: Sequence[RoundRecord],
    players: Iterable[str] = (),
    corrections: Iterable[Correction] = (),
    solo_rule: SoloRule | None = None,
    active: int | None = None,
    rulings: Iterable[Ruling] = (),
    warning_rule: WarningRule | None = None,
) -> GameResults:
    """Score every round and the standings; ``active`` overrides the count of active players."""
    corrections = list(corrections)
    costed = cost_warnings(rulings, warning_rule if warning_rule is not None else WarningRule())
    numbers = {r.number for r in rounds}
    if len(numbers) != len(rounds):
        raise ValueError("two rounds share a number")
    arbitrated: list[Correction | Ruling] = [*corrections, *costed]
    for c in arbitrated:
        if c.round_number not in numbers:
            raise ValueError(f"ruling for {c.player}: there is no round {c.round_number}")
    names = _players(players, rounds, arbitrated)
    count = active if active is not None else active_players(rounds)
    results = tuple(
        score_round(r, names, active_players=count, solo_rule=solo_rule, corrections=corrections, rulings=costed)
        for r in rounds
    )
    return GameResults(results, tuple(standings(results, names)), sum(r.top_score for r in rounds))
