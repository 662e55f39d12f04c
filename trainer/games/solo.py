"""Solo duplicate practice (docs/rules.md §6.27): one play a round, judged as a club game judges it, the top and the
next best shown once it is handed in, and, for a replay, the learner placed in the original room's standings.

A round ends for the learner when they hand in a play (or pass), or when a timed round's clock has run out: then it
counts as a missing play, as in a club (§6.6). A play whose placement the rules refuse is not taken (the learner
corrects it, as on a phone in a club); a play with a word not in the lexicon is taken and scores 0 (§6.9).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..core.clock import utcnow
from ..core.database import db
from ..core.errors import Refused
from ..duplicate import rounds
from ..engine.errors import EngineError
from . import practice
from .cache import game_results
from .models import PracticeRound, PracticeSession

MAX_PLAY_LENGTH = 40


def _check_open(session: PracticeSession, number: int) -> PracticeRound:
    if session.kind != practice.SOLO:
        raise Refused("wrong_kind", "this is a topping session, not solo practice")
    if session.status == practice.FINISHED:
        raise Refused("practice_over", "this practice session is over")
    round_ = practice.round_of(session, number)
    if round_.shown_at is None:
        raise Refused("round_not_started", f"round {number} has not started", round=number)
    if round_.answered_at is not None:
        raise Refused("already_answered", f"round {number} is over: you answered it already", round=number)
    return round_


def answer(session: PracticeSession, number: int, text: object, now: datetime | None = None) -> PracticeRound:
    """Hand in ``text`` for round ``number`` ("" or None: pass). Refused when the round is not the learner's to
    answer or the placement is illegal (the engine's reason in ``cause``); otherwise the round is over for the
    learner and its result stored before this returns."""
    now = now or utcnow()
    round_ = _check_open(session, number)
    written = text.strip() if isinstance(text, str) else ""
    if text is not None and not isinstance(text, str):
        raise Refused("bad_text", "a play is text, like 8D WORD")
    if len(written) > MAX_PLAY_LENGTH:
        raise Refused("bad_text", f"a play has at most {MAX_PLAY_LENGTH} characters")
    late = practice.is_late(round_, now)
    if written:
        position = practice.position(session, round_)
        try:
            move, _score = rounds.judge(position, written)
        except EngineError as error:
            if not late:
                raise Refused.because(error) from None
            move = None  # too late anyway: what it was does not matter
        if move is not None:
            result = rounds.judge_round(position, {0: move}, round_.legal_scores or [])[0]
            round_.move = move
            round_.valid = result.valid
            round_.invalid_words = list(result.invalid_words)
            round_.rank = result.rank
            round_.score = 0 if late else result.score
    round_.late = late and bool(written)
    round_.answered_at = now
    db.session.commit()
    return round_


@dataclass(frozen=True)
class Line:
    """A line of the original room's standings, the learner's among them."""

    name: str
    total: int
    rank: int
    you: bool = False


@dataclass(frozen=True)
class Placement:
    """Where the learner's total would have put them in the replayed game's standings after the same rounds: ``rank``
    of ``of`` (the room's players and the learner)."""

    rounds: int
    total: int
    top_total: int
    rank: int
    of: int
    lines: tuple[Line, ...]


def placement(session: PracticeSession) -> Placement | None:
    """The learner among the original room after the rounds they played (their totals, bonuses and penalties
    included, over those rounds); None for a fresh draw, which had no room."""
    game = practice.source_game(session)
    if game is None:
        return None
    played = [r for r in session.rounds if r.answered_at is not None]
    count = len(played)
    total = sum(r.score for r in played)
    results = game_results(game)
    room = [(s.player, sum(s.round_totals[:count])) for s in results.standings]
    rank = 1 + sum(1 for _name, theirs in room if theirs > total)
    ordered = sorted(room, key=lambda line: -line[1])
    lines: list[Line] = []
    placed = False
    for name, theirs in ordered:
        if not placed and total >= theirs:
            lines.append(Line("", total, rank, you=True))
            placed = True
        lines.append(Line(name, theirs, 1 + sum(1 for _n, t in room if t > theirs) + (1 if total > theirs else 0)))
    if not placed:
        lines.append(Line("", total, rank, you=True))
    return Placement(count, total, sum(r.top_score for r in played), rank, len(room) + 1, tuple(lines))
