"""The round lifecycle of a duplicate game, as a state machine over plain values (docs/rules.md §6).

::

    lobby ─start─▶ playing ⇄ paused ─close─▶ revealing ─next─▶ playing … ─▶ finished
                   (pause, resume, extend)      (choose another top)        (the draw ends it, or the director)

The transitions are functions of the state as the server stored it and of ``now``: each returns what
changes (a deadline, the seconds left of a paused round, the play placed) or raises
:class:`~.errors.RuleError` naming why not. Nothing here reads a clock or a database: the service
(:mod:`trainer.games.service`) loads the state, asks these functions, and stores what they return with
guarded updates, so that two processes racing for one transition still make it once.

A round's content comes from the game's :class:`Setup` and its mode (:mod:`.modes`):
:func:`open_round` draws the rack and analyses it while the players think, :func:`judge` takes a
player's play (placement only: words are judged at the close), :func:`judge_round` judges every
player's last play at the close, :func:`place` puts the chosen top on the board, and
:func:`score` turns the closed rounds into results and standings.

:class:`DuplicateGame` plays a whole game in memory with the same functions (for tests and tools):
the server and a simulation cannot disagree on a rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import TypeVar

from trainer.engine.board import Board, Move
from trainer.engine.errors import IllegalPlayError
from trainer.engine.lexicon import Lexicon
from trainer.engine.notation import format_move, parse_move
from trainer.engine.play import Evaluation, evaluate
from trainer.engine.rules import Notation, Ruleset

from .draw import Bag, Draw, DrawRule, DrawSource, EndReason
from .errors import RuleError
from .firstplay import best_first_placement
from .imposed import ImposedDraws
from .joker import CLASSIC, JOKER, BlankFate, JokerBag, blank_fate, swap_on_board
from .mode import Analysis, Mode
from .modes import mode
from .results import RulingKind

K = TypeVar("K")

MIN_EXTRA_SECONDS, MAX_EXTRA_SECONDS = 1, 3600
MAX_CORRECTED_SCORE = 10_000
MAX_PENALTY = 1_000  # points one penalty may take
MAX_REASON = 200  # characters of an arbiter's reason (a correction, a ruling, a cancellation), as the forms take
# A round closes this long after its deadline (docs/rules.md §6.6): a play that arrived before the deadline
# is still being written when the clock runs out, and it must count. Nothing arriving after the deadline does.
SETTLE = timedelta(seconds=1.5)


class GameStatus(StrEnum):
    LOBBY = "lobby"
    STARTING = "starting"  # a transition is opening a round (held inside one transaction)
    PLAYING = "playing"
    PAUSED = "paused"
    REVEALING = "revealing"
    FINISHED = "finished"


class RoundStatus(StrEnum):
    OPEN = "open"
    PAUSED = "paused"
    CLOSED = "closed"


# --- the clock ------------------------------------------------------------------------------------


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class RoundClock:
    """The clock of the game's current round: open until ``deadline``, or paused with ``paused_left`` seconds."""

    number: int
    status: RoundStatus
    deadline: datetime | None = None
    paused_left: float | None = None

    def seconds_left(self, now: datetime) -> float | None:
        """Seconds until the deadline (never below zero); a paused round's seconds; None once closed."""
        if self.status is RoundStatus.CLOSED:
            return None
        if self.status is RoundStatus.PAUSED:
            return self.paused_left
        assert self.deadline is not None
        return max(0.0, (_aware(self.deadline) - now).total_seconds())

    def due(self, now: datetime) -> bool:
        """Whether the server's clock closes the round now (a paused round never closes by itself)."""
        return self.status is RoundStatus.OPEN and self.deadline is not None and closes_at(_aware(self.deadline)) <= now


@dataclass(frozen=True)
class GameState:
    """Where a game stands: its status, its current round's number and clock (None before the first round)."""

    status: GameStatus
    round_number: int = 0
    clock: RoundClock | None = None


def deadline_of(now: datetime, round_seconds: int) -> datetime:
    """The deadline of a round opened ``now``: plays must arrive before it."""
    return now + timedelta(seconds=round_seconds)


def closes_at(deadline: datetime) -> datetime:
    """When the server's clock closes a round with this deadline: once every play that arrived before it is
    written (:data:`SETTLE` later)."""
    return deadline + SETTLE


def check_start(state: GameState) -> None:
    if state.status is not GameStatus.LOBBY:
        raise RuleError("already_started", "the game has already started")


def pause(state: GameState, now: datetime) -> float:
    """Stop the running round's clock; the seconds it had left."""
    clock = state.clock
    if state.status is not GameStatus.PLAYING or clock is None or clock.status is not RoundStatus.OPEN:
        raise RuleError("not_running", "only a running round can be paused")
    left = clock.seconds_left(now)
    assert left is not None
    return left


def resume(state: GameState, now: datetime) -> datetime:
    """Start the paused round's clock again; its new deadline."""
    clock = state.clock
    if state.status is not GameStatus.PAUSED or clock is None or clock.status is not RoundStatus.PAUSED:
        raise RuleError("not_paused", "the game is not paused")
    return now + timedelta(seconds=clock.paused_left or 0)


def extend(state: GameState, seconds: object, now: datetime) -> RoundClock:
    """The current round's clock with ``seconds`` more (on its deadline, or on its seconds left when paused)."""
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int)
        or not MIN_EXTRA_SECONDS <= seconds <= MAX_EXTRA_SECONDS
    ):
        raise RuleError(
            "bad_seconds", f"'seconds' must be a whole number from {MIN_EXTRA_SECONDS} to {MAX_EXTRA_SECONDS}"
        )
    clock = state.clock
    if clock is None or clock.status is RoundStatus.CLOSED:
        raise RuleError("not_running", "there is no round running to extend")
    if clock.status is RoundStatus.PAUSED:
        return RoundClock(clock.number, clock.status, None, (clock.paused_left or 0) + seconds)
    assert clock.deadline is not None
    return RoundClock(clock.number, clock.status, clock.deadline + timedelta(seconds=seconds))


def check_close_now(state: GameState) -> RoundClock:
    """The director may close the running (or paused) round before its deadline; its clock."""
    clock = state.clock
    running = state.status in (GameStatus.PLAYING, GameStatus.PAUSED)
    if clock is None or clock.status is RoundStatus.CLOSED or not running:
        raise RuleError("not_running", "no round is running")
    return clock


def reveal_until(now: datetime, reveal_seconds: int | None) -> datetime | None:
    """When the next round starts after a round closed ``now``; None: when the director says."""
    return None if reveal_seconds is None else now + timedelta(seconds=reveal_seconds)


def check_advance(state: GameState) -> None:
    """The director may start the next round only during a reveal."""
    if state.status is not GameStatus.REVEALING:
        raise RuleError("not_revealing", "the next round starts only after a round's reveal")


def check_end(state: GameState) -> None:
    if state.status is GameStatus.FINISHED:
        raise RuleError("game_finished", "the game is already over")


def choose_top(state: GameState, number: int, move: object, tops: Sequence[str]) -> str:
    """Another of the round's tops placed instead, until the next round starts."""
    if state.status is not GameStatus.REVEALING or state.round_number != number:
        raise RuleError("not_revealing", "another top can be chosen only during the reveal of the last round")
    if not isinstance(move, str) or move not in tops:
        raise RuleError("not_a_top", f"{move!r} is not one of the round's tops ({', '.join(tops)})", move=str(move))
    return move


def correction(score: object, reason: object) -> tuple[int, str]:
    """A director's correction of a round score: the score that counts from now on, and why (docs/rules.md §6)."""
    if isinstance(score, bool) or not isinstance(score, int) or not 0 <= score <= MAX_CORRECTED_SCORE:
        raise RuleError("bad_score", f"'score' must be a whole number from 0 to {MAX_CORRECTED_SCORE}")
    return score, arbiter_reason(reason, "reason_missing", "'reason' is required: say why the score is corrected")


def ruling(kind: object, points: object, reason: object) -> tuple[RulingKind, int, str]:
    """An arbiter's ruling on a player's round (docs/rules.md §6.19): its kind, a penalty's points, and why."""
    try:
        checked = RulingKind(kind) if isinstance(kind, str) else None
    except ValueError:
        checked = None
    if checked is None:
        choices = ", ".join(k.value for k in RulingKind)
        raise RuleError("bad_ruling", f"'kind' must be one of: {choices}", choices=choices)
    if checked is RulingKind.PENALTY:
        if isinstance(points, bool) or not isinstance(points, int) or not 1 <= points <= MAX_PENALTY:
            raise RuleError("bad_penalty", f"'points' must be a whole number from 1 to {MAX_PENALTY}")
    elif points not in (None, 0):
        raise RuleError("points_not_taken", f"a {checked.value} takes no points: only a penalty does")
    why = arbiter_reason(reason)
    return checked, points if checked is RulingKind.PENALTY and isinstance(points, int) else 0, why


def arbiter_reason(
    reason: object, missing: str = "ruling_reason_missing", message: str = "'reason' is required: say why"
) -> str:
    """An arbiter's reason, trimmed: required (``missing`` names its absence), at most :data:`MAX_REASON`
    characters, as the pages' forms take it (the API took a reason of any length)."""
    if not isinstance(reason, str) or not reason.strip():
        raise RuleError(missing, message)
    why = reason.strip()
    if len(why) > MAX_REASON:
        raise RuleError("reason_too_long", f"'reason' is at most {MAX_REASON} characters", n=MAX_REASON)
    return why


# --- a round's content ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Setup:
    """What a game's draws and judging depend on; none of it changes during the game."""

    rules: Ruleset
    lexicon: Lexicon
    notation: Notation
    draw_rule: DrawRule
    seed: int
    max_rounds: int | None = None  # None: until the bag says the game is over
    mode: Mode = field(default_factory=lambda: mode("classic"))
    # The federation's first-move rules (docs/rules.md §6.7, §6.9); a game's settings turn them on (the
    # default of a new game), a simulation without them keeps the plain rules.
    first_play_across: bool = False
    first_play_best_placement: bool = False
    imposed: ImposedDraws | None = None  # docs/rules.md §6.18: the racks come from this list, not from the seed
    variant: str = CLASSIC  # docs/rules.md §6.24: "joker", every draw holds the blank (trainer.duplicate.joker)

    def __post_init__(self) -> None:
        if self.variant == JOKER and self.imposed is not None:
            raise ValueError("a joker game draws its racks from its seed, not from imposed draws")

    def board(self, cells: str | None = None) -> Board:
        """The board with ``cells`` (rows joined, as stored), or an empty one."""
        return Board(self.rules.layout, list(cells)) if cells is not None else Board.empty(self.rules)

    def draw_source(self) -> DrawSource:
        """Where the racks come from, before the first round: the imposed draws, or a full bag drawn from the seed (a
        joker game's: one blank, put first on every rack)."""
        if self.imposed is not None:
            return self.imposed
        if self.variant == JOKER:
            return JokerBag(self.rules, self.draw_rule, seed=self.seed)
        return Bag(self.rules, self.draw_rule, seed=self.seed)

    def blank_fate(self, board_before: Board, move: Move, rack: str) -> BlankFate | None:
        """In a joker game, what becomes of the blank when ``move`` is the top placed (docs/rules.md §6.24); None in
        a classic game, or when the play leaves the blank on the rack."""
        return blank_fate(self.rules, board_before, move, rack) if self.variant == JOKER else None


@dataclass(frozen=True)
class PlayedRound:
    """A closed round as the server keeps it: enough to draw the next rack again."""

    number: int
    rack: str
    board_before: str  # the board's cells when the round opened
    placed: str  # the play placed, written in the game's notation


@dataclass(frozen=True)
class OpenedRound:
    """A round drawn and analysed, ready to open."""

    number: int
    draw: Draw
    analysis: Analysis

    def tops(self, notation: Notation) -> list[str]:
        return [format_move(m, notation) for m in self.analysis.tops]

    def best_plays(self, notation: Notation) -> list[list[object]]:
        """``[[play, score], ...]``, best first: what the reveal lists as tops and next best."""
        return [[format_move(m, notation), m.score or 0] for m in self.analysis.best]


@dataclass(frozen=True)
class GameEnd:
    """No round opens: why, and the draw that had no legal play (for that reason only)."""

    reason: EndReason
    draw: Draw | None = None


def _placed(setup: Setup, board: Board, move: Move, rack: str, bag: DrawSource | None) -> tuple[str, BlankFate | None]:
    """Put the top ``move`` on ``board`` by the game's mode and return the reliquat; in a joker game, swap the blank
    it places for its letter from the bag (on the board, and in ``bag`` when the caller draws from one)."""
    fate = setup.blank_fate(board, move, rack)
    reliquat = setup.mode.place(board, move, rack)
    swap_on_board(board, fate)
    if fate is not None and fate.swapped and isinstance(bag, JokerBag):
        bag.swap_blank(fate.letter)
    return reliquat, fate


def replay(setup: Setup, played: Sequence[PlayedRound]) -> tuple[DrawSource, str]:
    """The bag as it stands after ``played`` (drawn again from the seed, or read from the imposed draws, round by
    round) and the reliquat.

    A stored rack the seed (or the list) does not draw again means the stored game and its settings disagree: a
    ``ValueError``, never a guess.
    """
    bag = setup.draw_source()
    reliquat = ""
    for round_ in played:
        draw = setup.mode.draw(bag, reliquat, round_.number)
        if sorted(draw.rack) != sorted(round_.rack):
            raise ValueError(f"round {round_.number}: the seed draws {draw.rack}, the game holds {round_.rack}")
        board = setup.board(round_.board_before)
        move = parse_move(round_.placed, board, setup.notation)
        reliquat, _fate = _placed(setup, board, move, round_.rack, bag)
    return bag, reliquat


def open_round(
    setup: Setup, bag: DrawSource, reliquat: str, number: int, board: Board, everything: bool = True
) -> OpenedRound | GameEnd:
    """Draw round ``number``'s rack from ``bag`` around ``reliquat`` and analyse it on ``board``; or why the game
    ends instead (the number of rounds reached, no rack can be drawn or the imposed draws are all played, the
    rack has no legal play)."""
    if setup.max_rounds is not None and number > setup.max_rounds:
        return GameEnd(EndReason.ROUND_LIMIT)
    reason = bag.end_reason(reliquat, number)
    if reason is not None:
        return GameEnd(reason)
    draw = setup.mode.draw(bag, reliquat, number)
    across_first = setup.first_play_across and board.is_empty()
    analysis = setup.mode.analyse(board, setup.rules, setup.lexicon, draw.rack, everything, across_first)
    if analysis is None:
        return GameEnd(EndReason.NO_LEGAL_PLAY, draw)
    if setup.imposed is not None:
        analysis = setup.imposed.published_top_first(analysis, number, draw.rack)
    return OpenedRound(number, draw, analysis)


def next_round(setup: Setup, played: Sequence[PlayedRound], board_cells: str) -> OpenedRound | GameEnd:
    """The round after ``played`` on the board ``board_cells``, drawn again from the seed or read from the imposed
    draws (the server's way)."""
    bag, reliquat = replay(setup, played)
    return open_round(setup, bag, reliquat, len(played) + 1, setup.board(board_cells))


# How many distinct plays (and first-move words) one position remembers: a room of 10,000 phones hands in about
# 500 distinct plays a round, so this bounds memory without ever being reached in practice.
MEMO_LIMIT = 50_000


@dataclass
class JudgingMemo:
    """What a position has already worked out: each distinct play's evaluation and each word's best first-move
    placement. Ten thousand players hand in a few hundred distinct plays, and the first-move rule tries every
    placement of a word (ten times a plain evaluation), so each is worked out once per position, not per player.
    ``evaluations`` counts the engine's evaluations (tests read it)."""

    plays: dict[str, Evaluation] = field(default_factory=dict)
    first_placements: dict[str, Evaluation | None] = field(default_factory=dict)
    evaluations: int = 0


@dataclass(frozen=True)
class Position:
    """A round as plays are judged against it: its rack on its board, under the game's rules."""

    rules: Ruleset
    lexicon: Lexicon
    notation: Notation
    board: Board
    rack: str
    first_play_best_placement: bool = False  # docs/rules.md §6.9: a first play scores its word's best placement
    memo: JudgingMemo = field(default_factory=JudgingMemo, repr=False, compare=False)

    @classmethod
    def of(cls, setup: Setup, board_before: str, rack: str) -> Position:
        """Round's position under the game's setup: its board when it opened, its rack."""
        return cls(
            setup.rules, setup.lexicon, setup.notation, setup.board(board_before), rack, setup.first_play_best_placement
        )


@dataclass(frozen=True)
class PlayResult:
    """A player's last play of a round, judged at the close."""

    move: str
    score: int  # its value, 0 when a word is not in the lexicon
    valid: bool
    invalid_words: tuple[str, ...]
    rank: int | None  # among the round's legal plays (1 + how many score more); None when not valid


def _evaluated(position: Position, text: str) -> Evaluation:
    """The engine's evaluation of a play, with the first-move rule applied (docs/rules.md §6.9), worked out once
    per distinct play text and position (a refused play is not remembered: it is refused before it costs much)."""
    memo = position.memo
    known = memo.plays.get(text)
    if known is None:
        known = _evaluate_with_first_move_rule(position, text)
        if len(memo.plays) < MEMO_LIMIT:
            memo.plays[text] = known
    return known


def _evaluate(position: Position, move: Move) -> Evaluation:
    position.memo.evaluations += 1
    return evaluate(position.board, position.rules, position.lexicon, move, position.rack, position.notation)


def _best_first_placement(position: Position, word: str) -> Evaluation | None:
    """The word's best placement on the empty board from the round's rack, once per word (every placement of
    a word through the centre is tried: about ten evaluations)."""
    memo = position.memo
    if word in memo.first_placements:
        return memo.first_placements[word]
    memo.evaluations += 1
    best = best_first_placement(position.board, position.rules, position.lexicon, word, position.rack)
    if len(memo.first_placements) < MEMO_LIMIT:
        memo.first_placements[word] = best
    return best


def _evaluate_with_first_move_rule(position: Position, text: str) -> Evaluation:
    """On the empty board of a game with ``first_play_best_placement``, the play is credited with its word's
    best placement (its own move kept), and a placement that misses the centre is no reason to refuse it."""
    move = parse_move(text, position.board, position.notation)
    if not (position.first_play_best_placement and position.board.is_empty()):
        return _evaluate(position, move)
    try:
        own: Evaluation | None = _evaluate(position, move)
    except IllegalPlayError as error:
        if error.code != "first_not_on_start":
            raise
        own = None
    best = _best_first_placement(position, move.word.upper())
    if best is None or (own is not None and own.score >= best.score):
        if own is None:  # the rack cannot make the word through the centre either: the first refusal stands
            return _evaluate(position, move)
        return own
    return Evaluation(move, best.score, best.words, best.invalid_words)


def judge(position: Position, text: str) -> tuple[str, int]:
    """A play handed in: written canonically, with its score (as placed, or under the first-move rule). Its
    placement must be legal (the engine's error says why not); whether its words are valid is not looked at
    before the close."""
    evaluation = _evaluated(position, text)
    return format_move(evaluation.move, position.notation), evaluation.score


def judge_round(
    position: Position, last_plays: Mapping[K, str], score_counts: Iterable[Sequence[int]]
) -> dict[K, PlayResult]:
    """Every player's last play of the round, judged: its score if every word is valid (else 0), and its rank
    among the round's legal plays, from ``score_counts`` ([score, how many legal plays score it])."""
    counts = [(int(score), int(count)) for score, count in score_counts]
    judged: dict[K, PlayResult] = {}
    for player, move in last_plays.items():
        evaluation = _evaluated(position, move)
        better = sum(count for score, count in counts if score > evaluation.score)
        judged[player] = PlayResult(
            move=move,
            score=evaluation.score if evaluation.valid else 0,
            valid=evaluation.valid,
            invalid_words=tuple(evaluation.invalid_words),
            rank=1 + better if evaluation.valid else None,
        )
    return judged


def place(setup: Setup, board_before: str, move: str, rack: str) -> tuple[str, str]:
    """The board's cells once ``move`` (in the game's notation) is placed on ``board_before`` (in a joker game, with
    the blank swapped for its letter from the bag: docs/rules.md §6.24), and the reliquat."""
    board = setup.board(board_before)
    reliquat, _fate = _placed(setup, board, parse_move(move, board, setup.notation), rack, None)
    return "".join(board.cells), reliquat


# --- a whole game in memory -----------------------------------------------------------------------


@dataclass(frozen=True)
class Round:
    """A played round: its draw, its tops in tie-break order, the play placed and what it left."""

    number: int
    draw: Draw
    top_score: int
    tops: tuple[Move, ...]
    placed: Move
    reliquat: str
    blank: BlankFate | None = None  # a joker game's blank, when the top placed it (docs/rules.md §6.24)


class DuplicateGame:
    """A game played in memory with the server's rules: :meth:`start_round`, then :meth:`place`, until
    :attr:`end` is set. Only the tops are looked for (no score of every play): it is for simulations."""

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        self.board = setup.board()
        self.bag = setup.draw_source()
        self.rounds: list[Round] = []
        self.end: EndReason | None = None
        self.current: OpenedRound | None = None  # the open round, until a play is placed
        self.last_draw: Draw | None = None  # the draw of the last round started, played or not

    @property
    def rules(self) -> Ruleset:
        return self.setup.rules

    @property
    def notation(self) -> Notation:
        return self.setup.notation

    @property
    def seed(self) -> int:
        return self.setup.seed

    @property
    def reliquat(self) -> str:
        """The tiles carried to the next round."""
        return self.rounds[-1].reliquat if self.rounds else ""

    @property
    def top_score(self) -> int:
        return self.current.analysis.top_score if self.current is not None else 0

    @property
    def tops(self) -> list[Move]:
        """The open round's tops, in tie-break order."""
        return list(self.current.analysis.tops) if self.current is not None else []

    def start_round(self) -> Draw | None:
        """Draw the next rack and find its tops; ``None`` once the game is over (:attr:`end` says why).

        A rack with no legal play ends the game: its draw stays in :attr:`last_draw`.
        """
        if self.current is not None:
            raise RuntimeError(f"round {self.current.number} is still open: place a play first")
        if self.end is not None:
            return None
        opened = open_round(self.setup, self.bag, self.reliquat, len(self.rounds) + 1, self.board, everything=False)
        if isinstance(opened, GameEnd):
            self.end = opened.reason
            self.last_draw = opened.draw or self.last_draw
            return None
        self.current, self.last_draw = opened, opened.draw
        return opened.draw

    def place(self, move: Move | str | None = None) -> Round:
        """Put a top of the open round on the board (default: the tie-break's first) and close it.

        ``move`` may be written in the game's notation; it must be one of the round's tops.
        """
        opened = self.current
        if opened is None:
            raise RuntimeError("no round is open: start one first")
        if isinstance(move, str):
            move = parse_move(move, self.board, self.notation)
        tops = opened.analysis.tops
        chosen = tops[0] if move is None else move
        if chosen not in tops:
            written = format_move(chosen, self.notation)
            raise ValueError(
                f"{written} is not a top play of round {opened.number} ({opened.analysis.top_score} points)"
            )
        chosen = tops[tops.index(chosen)]  # the generator's play, with its score
        reliquat, fate = _placed(self.setup, self.board, chosen, opened.draw.rack, self.bag)
        played = Round(opened.number, opened.draw, opened.analysis.top_score, tops, chosen, reliquat, fate)
        self.rounds.append(played)
        self.current = None
        return played

    def play_to_end(self) -> list[Round]:
        """Play every remaining round, placing the default top each time."""
        while self.start_round() is not None:
            self.place()
        return self.rounds


def simulate(setup: Setup) -> DuplicateGame:
    """A whole game placing the default top every round."""
    game = DuplicateGame(setup)
    game.play_to_end()
    return game


def replay_game(setup: Setup, placed: Iterable[Move | str]) -> DuplicateGame:
    """The game after placing ``placed`` (plays or their text in the game's notation), round by round.

    The next round is not started: the caller starts it (and so redraws it identically).
    """
    game = DuplicateGame(setup)
    for move in placed:
        if game.start_round() is None:
            raise ValueError(f"the game ended ({game.end}) before round {len(game.rounds) + 1}")
        game.place(move)
    return game
