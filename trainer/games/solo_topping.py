"""Topping alone (docs/rules.md §6.28, on the rules of §6.26): a learner's practice session of kind ``topping``, each
round played until the top is found, given up or its time limit passes, and scored in seconds.

The clock is the server's: a round starts when the server first shows it (``shown_at``, :mod:`.practice`), and a
play counts at the moment the server receives it. A top ends the round (its seconds by
:func:`trainer.duplicate.topping.round_seconds`); a wrong play is recorded with its cost and answered "not the top"
only; a hint is recorded with its cost; giving up, or the limit passing unanswered (the browser closed, say), ends the
round not found. The session's figures are the sum of its rounds' seconds; the records are a learner's best total on
one game and best average over the finished sessions of at least five rounds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import selectinload

from ..core import ids
from ..core.accounts import Learner
from ..core.clock import utcnow
from ..core.database import db
from ..core.errors import Refused
from ..duplicate import rounds, topping
from ..duplicate.errors import RuleError
from ..duplicate.topping import DEFAULT_COSTS, HINT_KINDS, RECORD_MIN_ROUNDS, Hint, RoundTime, ToppingCosts
from ..engine.board import Board, Move
from ..engine.errors import EngineError
from ..engine.notation import parse_move
from ..engine.rules import Notation, ruleset
from . import practice
from .models import PracticeAttempt, PracticeRound, PracticeSession

MAX_PLAY_LENGTH = 40
PLAY, HINT = "play", "hint"  # PracticeAttempt.kind


# --- costs and making a session -------------------------------------------------------------------------


def read_costs(data: object) -> ToppingCosts:
    """The costs a learner asked for (None: the defaults of §6.26); refused ``bad_topping_cost`` naming the field."""
    if data is None:
        return DEFAULT_COSTS
    if not isinstance(data, Mapping):
        raise Refused("bad_topping_cost", "the topping costs must be an object of whole seconds", field="")
    try:
        return ToppingCosts.from_dict(data)
    except RuleError as error:
        raise Refused.because(error) from None


def costs_of(session: PracticeSession) -> ToppingCosts:
    """The session's costs (stored when it was made)."""
    stored = session.costs or {}
    return ToppingCosts(**{name: int(value) for name, value in stored.items() if isinstance(value, int)})


def start(learner: Learner, game_id: object = None, settings: object = None, costs: object = None) -> PracticeSession:
    """A topping session on the archived game ``game_id``, or (without one) on a fresh draw of ``settings``, with
    ``costs`` (checked before anything is made). Its rounds' time limit is the costs' ``limit_seconds``."""
    checked = read_costs(costs)
    if game_id is not None:
        if ids.game_id(game_id) is None:
            raise Refused("not_archived", f"there is no game {game_id} in the archive")
        session = practice.from_archive(learner, game_id, practice.TOPPING)
    else:
        session = practice.fresh(learner, {} if settings is None else settings, practice.TOPPING)
    session.costs = dict(checked.as_dict())
    session.round_seconds = checked.limit_seconds  # no round is shown yet: every deadline is shown_at + the limit
    db.session.commit()
    return session


def session_of(learner: Learner, session_id: object) -> PracticeSession:
    """The learner's topping session ``session_id`` (another's, or a solo one, as if it did not exist)."""
    session = practice.session_of(learner, session_id)
    if session.kind != practice.TOPPING:
        raise Refused("no_practice", f"you have no topping session {session_id}")
    return session


# --- a round ----------------------------------------------------------------------------------------------


def attempts(round_: PracticeRound) -> list[PracticeAttempt]:
    return list(
        db.session.execute(
            select(PracticeAttempt).where(PracticeAttempt.round_id == round_.id).order_by(PracticeAttempt.id)
        ).scalars()
    )


def notation_of(session: PracticeSession) -> Notation:
    return "french" if session.notation == "french" else "english"


def placed_top(session: PracticeSession, round_: PracticeRound) -> Move:
    """The top the round placed, as a play on its board (what the hints reveal)."""
    board = Board(ruleset(session.rules).layout, list(round_.board_before))
    return parse_move(round_.placed_move, board, notation_of(session))


@dataclass(frozen=True)
class HintShown:
    """A hint taken this round, with what it cost."""

    hint: Hint
    seconds: float


@dataclass(frozen=True)
class Breakdown:
    """What a round over cost (docs/rules.md §6.28): the clock (at most the limit), the penalty of a round not
    found, the wrong plays and the hints; ``seconds`` their sum as §6.26 rounds it."""

    clock: float
    penalty: int
    wrong_plays: int
    wrong_seconds: int
    hints_seconds: int
    seconds: float


@dataclass(frozen=True)
class RoundState:
    """A round as the learner may see it: while it is played, the hints taken and the wrong plays; once it is over,
    also how it ended, its seconds and their breakdown (the tops come from :func:`practice.reveal`)."""

    round: PracticeRound
    elapsed: float  # seconds on the server's clock since the round was shown (to the answer once over)
    limit: int
    hints: list[HintShown]
    wrong: list[str]  # the wrong plays, in order ("not the top")
    over: bool
    breakdown: Breakdown | None
    wrong_cost: int = 0  # what each wrong play costs

    @property
    def running_seconds(self) -> float:
        """What the round costs so far: the clock plus the wrong plays and the hints."""
        if self.breakdown is not None:
            return self.breakdown.seconds
        extra = sum(h.seconds for h in self.hints) + len(self.wrong) * self.wrong_cost
        return topping.tenths(min(self.elapsed, self.limit) + extra)

    @property
    def letters_left(self) -> int:
        shown = sum(1 for h in self.hints if h.hint.kind == "letter")
        word = len(self.round.placed_move.split()[-1]) if self.round.placed_move else 0
        return max(0, word - 1 - shown)

    def taken(self, kind: str) -> bool:
        return any(h.hint.kind == kind for h in self.hints)


def _elapsed(round_: PracticeRound, until: datetime) -> float:
    assert round_.shown_at is not None
    return max(0.0, (until - round_.shown_at).total_seconds())


def _hint_kinds(made: Sequence[PracticeAttempt]) -> list[str]:
    return [a.hint for a in made if a.kind == HINT and a.hint]


def breakdown(session: PracticeSession, round_: PracticeRound, made: Sequence[PracticeAttempt]) -> Breakdown:
    """The cost of ``round_``, over (found: the clock to the top; not found: the limit and the penalty)."""
    assert round_.answered_at is not None
    costs = costs_of(session)
    found = bool(round_.found)
    wrong = sum(1 for a in made if a.kind == PLAY)
    kinds = _hint_kinds(made)
    clock = topping.tenths(min(_elapsed(round_, round_.answered_at), costs.limit_seconds))
    seconds = topping.round_seconds(_elapsed(round_, round_.answered_at) if found else 0.0, found, wrong, kinds, costs)
    return Breakdown(
        clock if found else float(costs.limit_seconds),
        0 if found else costs.penalty_seconds,
        wrong,
        wrong * costs.wrong_play_seconds,
        topping.hints_seconds(kinds, costs),
        seconds,
    )


def _settle(session: PracticeSession, round_: PracticeRound) -> None:
    """Store the seconds of a round that ended without a top (its limit passed while nobody looked, say)."""
    if round_.answered_at is None or round_.seconds is not None:
        return
    if round_.found is None:
        round_.found = False
    round_.seconds = breakdown(session, round_, attempts(round_)).seconds
    db.session.commit()


def state(session: PracticeSession, round_: PracticeRound, now: datetime | None = None) -> RoundState:
    """What the learner may see of ``round_`` now (its clock's expiry applied first)."""
    now = now or utcnow()
    practice.expire(session, round_, now)
    _settle(session, round_)
    made = attempts(round_)
    costs = costs_of(session)
    notation = notation_of(session)
    shown: list[HintShown] = []
    kinds: list[str] = []
    if any(a.kind == HINT for a in made):
        top = placed_top(session, round_)
        for a in made:
            if a.kind == HINT and a.hint:
                shown.append(HintShown(topping.next_hint(top, a.hint, kinds, notation), a.cost_seconds))
                kinds.append(a.hint)
    over = round_.answered_at is not None
    until = round_.answered_at if round_.answered_at is not None else now
    return RoundState(
        round_,
        _elapsed(round_, until) if round_.shown_at is not None else 0.0,
        costs.limit_seconds,
        shown,
        [a.move or "" for a in made if a.kind == PLAY],
        over,
        breakdown(session, round_, made) if over else None,
        costs.wrong_play_seconds,
    )


def current(session: PracticeSession, now: datetime | None = None) -> PracticeRound | None:
    """The round the learner is on (the first is shown on the first open; a round whose limit passed is over, not
    found); None once the session is finished."""
    if session.kind != practice.TOPPING:
        raise Refused("wrong_kind", "this is solo practice, not a topping session")
    round_ = practice.current(session, now or utcnow())
    if round_ is not None:
        _settle(session, round_)
    return round_


def _open_round(session: PracticeSession, number: object, now: datetime) -> PracticeRound:
    if session.kind != practice.TOPPING:
        raise Refused("wrong_kind", "this is solo practice, not a topping session")
    if session.status == practice.FINISHED:
        raise Refused("practice_over", "this practice session is over")
    asked = ids.row_id(number)
    if asked is None:
        raise Refused("bad_round", "the round is a whole number", field="round")
    round_ = practice.round_of(session, asked)
    if round_.shown_at is None:
        raise Refused("round_not_started", f"round {number} has not started", round=number)
    if practice.expire(session, round_, now):
        _settle(session, round_)
        raise Refused("time_up", f"the time of round {number} is up: the round is over, not found", round=number)
    if round_.answered_at is not None:
        raise Refused("already_answered", f"round {number} is over", round=number)
    return round_


def _end(round_: PracticeRound, now: datetime, **values: object) -> None:
    """End ``round_`` at ``now`` with ``values``, unless another request ended it a moment ago (a double tap, two
    tabs): the database decides, with a guarded update, and the later request is refused ``already_answered``."""
    ended = db.session.execute(
        update(PracticeRound)
        .where(PracticeRound.id == round_.id, PracticeRound.answered_at.is_(None))
        .values(answered_at=now, **values)
    )
    if getattr(ended, "rowcount", 1) != 1:
        db.session.rollback()
        raise Refused("already_answered", f"round {round_.number} is over", round=round_.number)
    db.session.commit()
    db.session.refresh(round_)


@dataclass(frozen=True)
class Tried:
    """A play handed in: whether it is a top (which ends the round), and the cost of a wrong one."""

    move: str
    top: bool
    cost: float


def play(session: PracticeSession, number: object, text: object, now: datetime | None = None) -> Tried:
    """Hand in ``text`` for round ``number`` at the server's ``now``. A top ends the round, found; any other legal
    placement is a wrong play, recorded with its cost (the same wrong play twice is refused, ``already_tried``, and
    costs once). An illegal placement is refused with the engine's reason (``cause``) and costs nothing."""
    now = now or utcnow()
    round_ = _open_round(session, number, now)
    if not isinstance(text, str) or not text.strip():
        raise Refused("bad_text", "a play is text, like 8D WORD")
    written = text.strip()
    if len(written) > MAX_PLAY_LENGTH:
        raise Refused("bad_text", f"a play has at most {MAX_PLAY_LENGTH} characters")
    try:
        move, score = rounds.judge(practice.position(session, round_), written)
    except EngineError as error:
        raise Refused.because(error) from None
    costs = costs_of(session)
    made = attempts(round_)
    if topping.is_top(move, round_.tops):
        wrong = sum(1 for a in made if a.kind == PLAY)
        seconds = topping.round_seconds(_elapsed(round_, now), True, wrong, _hint_kinds(made), costs)
        _end(round_, now, move=move, score=score, valid=True, found=True, seconds=seconds)
        return Tried(move, True, 0.0)
    if any(a.kind == PLAY and a.move == move for a in made):
        raise Refused("already_tried", f"{move} is not the top: you tried it already", move=move)
    cost = float(costs.wrong_play_seconds)
    db.session.add(PracticeAttempt(round_id=round_.id, kind=PLAY, move=move, score=score, cost_seconds=cost, at=now))
    db.session.commit()
    return Tried(move, False, cost)


def take_hint(session: PracticeSession, number: object, kind: object, now: datetime | None = None) -> HintShown:
    """A hint of ``kind`` on round ``number``'s top, recorded with its cost; refused ``bad_hint``, ``hint_taken``
    (a kind other than a letter, taken already) or ``no_more_letters`` (every letter of the word but one shown)."""
    now = now or utcnow()
    if not isinstance(kind, str) or kind not in HINT_KINDS:
        raise Refused("bad_hint", f"{kind!r} is not a hint (the hints: {', '.join(HINT_KINDS)})", kind=str(kind))
    round_ = _open_round(session, number, now)
    taken = _hint_kinds(attempts(round_))
    try:
        shown = topping.next_hint(placed_top(session, round_), kind, taken, notation_of(session))
    except RuleError as error:
        raise Refused.because(error) from None
    cost = float(costs_of(session).hint_seconds(kind))
    db.session.add(PracticeAttempt(round_id=round_.id, kind=HINT, hint=kind, cost_seconds=cost, at=now))
    db.session.commit()
    return HintShown(shown, cost)


def give_up(session: PracticeSession, number: object, now: datetime | None = None) -> PracticeRound:
    """End round ``number`` not found: it costs the limit and the penalty, with its wrong plays and hints."""
    now = now or utcnow()
    round_ = _open_round(session, number, now)
    _end(round_, now, found=False)
    _settle(session, round_)
    return round_


def next_round(session: PracticeSession, now: datetime | None = None) -> PracticeRound | None:
    """Show the next round once the current one is over (refused ``round_not_over`` before); None when the session
    has ended (then it is finished)."""
    now = now or utcnow()
    current(session, now)
    return practice.advance(session, now)


def stop(session: PracticeSession, now: datetime | None = None) -> None:
    """End the session after the round shown is over (refused ``round_not_over`` before): a stopped session counts
    for the overall record when it has five rounds or more, never for its game's record (docs/rules.md §6.28)."""
    now = now or utcnow()
    current(session, now)
    practice.stop(session, now)


# --- the session's figures and the records ------------------------------------------------------------------


def times(session: PracticeSession) -> list[RoundTime]:
    """The rounds over, each with its seconds and whether its top was found."""
    return [
        RoundTime(float(r.seconds or 0.0), bool(r.found))
        for r in session.rounds
        if r.answered_at is not None and r.seconds is not None
    ]


def total(session: PracticeSession) -> float:
    return topping.total(times(session))


def average(session: PracticeSession) -> float:
    played = times(session)
    return topping.average(topping.total(played), len(played))


def game_key(session: PracticeSession) -> str:
    """What makes two sessions the same game for its record: the archived game, or a fresh draw's seed and settings."""
    if session.source_game_id is not None:
        return f"game:{session.source_game_id}"
    settings = [
        session.seed,
        session.rules,
        session.lexicon,
        session.variant,
        session.max_rounds,
        session.draw_rule,
        session.first_play_across,
        session.first_play_best_placement,
    ]
    return "draw:" + json.dumps(settings, sort_keys=True, default=str)


def finished(learner: Learner) -> list[PracticeSession]:
    """The learner's finished topping sessions, oldest first, with their rounds."""
    return list(
        db.session.execute(
            select(PracticeSession)
            .where(
                PracticeSession.learner_id == learner.id,
                PracticeSession.kind == practice.TOPPING,
                PracticeSession.status == practice.FINISHED,
            )
            .options(selectinload(PracticeSession.rounds))
            .order_by(PracticeSession.finished_at, PracticeSession.id)
        ).scalars()
    )


@dataclass(frozen=True)
class GameRecord:
    """A learner's record on one game: the best total over the finished sessions of its draws."""

    key: str
    source_game: int | None
    seed: int | None
    rounds: int
    seconds: float
    sessions: int
    session_id: int  # the session that set it


@dataclass(frozen=True)
class Records:
    """A learner's records: the best average per round over finished sessions of at least five rounds (and the
    session that set it), and each game's best total."""

    overall: float | None
    overall_session: int | None
    games: list[GameRecord]

    def game(self, session: PracticeSession) -> GameRecord | None:
        key = game_key(session)
        return next((g for g in self.games if g.key == key), None)


def records(learner: Learner, before: PracticeSession | None = None) -> Records:
    """The learner's records over their finished sessions (finished before ``before``, when given, and not it)."""
    done = finished(learner)
    if before is not None:
        cut = next((i for i, s in enumerate(done) if s.id == before.id), len(done))
        done = done[:cut]
    played = [(s, times(s)) for s in done]
    best: float | None = None
    best_session: int | None = None
    for s, t in played:
        figure = topping.overall_record([t])
        if figure is not None and (best is None or figure < best):
            best, best_session = figure, s.id
    by_game: dict[str, list[tuple[PracticeSession, list[RoundTime]]]] = {}
    for s, t in played:
        if t and s.end_reason != practice.STOPPED:  # a game's record is a whole game's total
            by_game.setdefault(game_key(s), []).append((s, t))
    games: list[GameRecord] = []
    for key, line in by_game.items():
        figure = topping.game_record(topping.total(t) for _s, t in line)
        assert figure is not None
        setter = next(s for s, t in line if topping.total(t) == figure)
        games.append(GameRecord(key, setter.source_game_id, setter.seed, len(line[0][1]), figure, len(line), setter.id))
    games.sort(key=lambda g: -max(s.id for s, _t in by_game[g.key]))  # the game played last first
    return Records(best, best_session, games)


@dataclass(frozen=True)
class Result:
    """A finished session against the records it could set (docs/rules.md §6.28): ``new_game`` when it beats an
    earlier session of the same game, ``new_overall`` when it has at least five rounds and beats every earlier
    such session's average (the first such session sets it)."""

    total: float
    average: float
    rounds: int
    found: int
    game_before: float | None
    overall_before: float | None
    new_game: bool
    new_overall: bool

    @property
    def new_record(self) -> bool:
        return self.new_game or self.new_overall


def result(learner: Learner, session: PracticeSession) -> Result:
    """The finished ``session``'s figures and whether they set a record, against the sessions finished before it."""
    played = times(session)
    earlier = records(learner, before=session)
    game_before = earlier.game(session)
    figure = topping.total(played)
    mean = topping.average(figure, len(played))
    whole = session.end_reason != practice.STOPPED
    new_game = whole and game_before is not None and bool(played) and figure < game_before.seconds
    new_overall = len(played) >= RECORD_MIN_ROUNDS and (earlier.overall is None or mean < earlier.overall)
    return Result(
        figure,
        mean,
        len(played),
        sum(1 for t in played if t.found),
        game_before.seconds if game_before is not None else None,
        earlier.overall,
        new_game,
        new_overall,
    )
