"""What the game's screens show (the director's console, the players' phones, the projector), computed
once from the rows as plain objects, so the pages' templates and the event loop's fast path only lay
them out (read only).

Like :mod:`.present` (the API's shapes) it never shows a play, a name behind a submission or a word's
validity before the round closes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from math import ceil
from typing import Protocol

from sqlalchemy import func, select

from ..core.database import db
from ..duplicate.joker import BlankFate
from ..duplicate.results import GameResults, PlayerRound, Standing
from ..engine.board import Board
from ..engine.errors import EngineError
from ..engine.notation import parse_move, square_name
from ..engine.rules import Notation, ruleset
from . import service
from .cache import cached, game_results
from .models import Event, Game, Player, Round

BEST_PLAYERS_SHOWN = 5
NEXT_BEST_SHOWN = 5


@dataclass(frozen=True)
class Square:
    row: int
    col: int
    name: str  # in the game's notation
    letter: str  # "" when empty; lower case for a blank
    value: int | None
    premium: str  # tw dw tl dl start, or ""
    new: bool  # placed by the last play
    highlight: bool  # part of the play being revealed


@dataclass(frozen=True)
class BoardView:
    size: int
    rows: list[list[Square]]
    column_labels: list[str]
    row_labels: list[str]


@dataclass(frozen=True)
class RackTile:
    letter: str  # "?" for a blank
    value: int


@dataclass(frozen=True)
class Reveal:
    """A closed round as the room sees it after the close."""

    number: int
    rack: str
    top_score: int
    placed: str
    tops: list[str]
    next_best: list[tuple[str, int]]
    found_top: int
    submitted: int
    players: int
    best_players: list[PlayerRound]
    plays: int  # legal plays the rack had
    # A joker game's blank, when the top placed it (docs/rules.md §6.24): swapped for its letter, or left on the board.
    blank: BlankFate | None = None
    blank_square: str = ""  # its square, in the game's notation


@dataclass
class GameView:
    game: Game
    notation: Notation
    board: BoardView
    round: Round | None
    rack: list[RackTile]
    seconds_left: float | None
    submissions: int
    players: int
    last_play: tuple[str, int] | None  # the play placed at the last reveal and its score
    reveal: Reveal | None
    results: GameResults | None
    last_event_id: int = 0  # the page is up to date with the game's events up to this one
    standings: list[Standing] = field(default_factory=list)

    @property
    def status(self) -> str:
        return self.game.status

    @property
    def countdown(self) -> int | None:
        """Whole seconds left, rounded up (the clock shows 0:01 until the very end)."""
        return None if self.seconds_left is None else ceil(self.seconds_left)

    @property
    def top_total(self) -> int:
        return self.results.top_total if self.results is not None else 0

    @property
    def example(self) -> str:
        """A play written in this game's notation, for help texts and errors."""
        return "8D TRAIN" if self.notation == "english" else "H4 TRAIN"

    @property
    def alphabet(self) -> str:
        """The letters a blank may stand for in this game."""
        return ruleset(self.game.rules).tileset.letters


class Played(Protocol):
    """What draws a board or a rack: a game, or a learner's practice session (its rules and notation)."""

    @property
    def rules(self) -> str: ...

    @property
    def notation(self) -> str: ...


def notation_of(game: Played) -> Notation:
    return "french" if game.notation == "french" else "english"


def _letter(index: int) -> str:
    return chr(ord("A") + index)


def board_view(
    game: Played, cells: str, new: set[tuple[int, int]] | None = None, highlight: set[tuple[int, int]] | None = None
) -> BoardView:
    new, highlight = new or set(), highlight or set()
    rules = ruleset(game.rules)
    layout, tileset = rules.layout, rules.tileset
    notation = notation_of(game)
    size = layout.size
    rows: list[list[Square]] = []
    for r in range(size):
        row: list[Square] = []
        for c in range(size):
            index = r * size + c
            ch = cells[index]
            letter = "" if ch in ".-" else ch
            premium = _premium(layout.letter_multipliers[index], layout.word_multipliers[index], index == layout.start)
            row.append(
                Square(
                    r,
                    c,
                    square_name(r, c, notation),
                    letter,
                    tileset.value(letter) if letter else None,
                    premium,
                    (r, c) in new,
                    (r, c) in highlight,
                )
            )
        rows.append(row)
    numbers = [str(i + 1) for i in range(size)]
    letters = [_letter(i) for i in range(size)]
    if notation == "english":  # English: columns are letters, rows numbers; French the other way round
        return BoardView(size, rows, letters, numbers)
    return BoardView(size, rows, numbers, letters)


def _premium(letter_multiplier: int, word_multiplier: int, start: bool) -> str:
    if start:
        return "start"
    if word_multiplier == 3:
        return "tw"
    if word_multiplier == 2:
        return "dw"
    if letter_multiplier == 3:
        return "tl"
    if letter_multiplier == 2:
        return "dl"
    return ""


def play_squares(game: Played, board_cells: str, move: str | None) -> set[tuple[int, int]]:
    """The squares a play puts new tiles on (empty if it cannot be read)."""
    if not move:
        return set()
    rules = ruleset(game.rules)
    try:
        parsed = parse_move(move, Board(rules.layout, list(board_cells)), notation_of(game))
    except EngineError:
        return set()
    return {(t.row, t.col) for t in parsed.tiles}


def rack_view(game: Played, rack: str) -> list[RackTile]:
    tileset = ruleset(game.rules).tileset
    return [RackTile(ch, 0 if ch == "?" else tileset.value(ch)) for ch in rack]


def _closed_round(game: Game) -> Round | None:
    """The round whose reveal is showing: the current one once it is closed."""
    round_ = service.current_round(game)
    return round_ if round_ is not None and round_.status == "closed" else None


def _reveal(game: Game, round_: Round, results: GameResults) -> Reveal:
    scored = next(r for r in results.rounds if r.number == round_.number)
    players = list(scored.players.values())
    submitted = [p for p in players if p.move is not None]
    top_score = round_.top_score or 0
    tops = list(round_.tops or [])
    next_best = next_best_words(round_.best_plays or [], tops, top_score)
    best = sorted((p for p in submitted if p.valid), key=lambda p: (-p.total, p.player))[:BEST_PLAYERS_SHOWN]
    blank = service.blank_of(game, round_)
    return Reveal(
        number=round_.number,
        rack=round_.rack,
        top_score=top_score,
        placed=round_.placed_move or "",
        tops=tops,
        next_best=next_best,
        found_top=sum(1 for p in players if p.top),
        submitted=len(submitted),
        players=len(players),
        best_players=best,
        plays=scored.plays,
        blank=blank,
        blank_square=square_name(blank.row, blank.col, notation_of(game)) if blank is not None else "",
    )


def _word(written: str) -> str:
    """The word of a play as stored (``8D HUMBLE``: the whole word along its direction, a blank in lower case)."""
    return written.split()[-1].upper() if written.split() else ""


def next_best_words(
    best_plays: Sequence[Sequence[object]], tops: Sequence[str], top_score: int
) -> list[tuple[str, int]]:
    """The reveal's next best (docs/rules.md §6.1): the best words after the tops, each once at its best placement,
    best first. Rounds opened before the engine kept one placement a word stored the same word at several places:
    the first (best) is kept here too."""
    seen = {_word(top) for top in tops}
    chosen: list[tuple[str, int]] = []
    for move, score in best_plays:
        if not isinstance(move, str) or not isinstance(score, int) or score >= top_score:
            continue
        word = _word(move)
        if word not in seen:
            seen.add(word)
            chosen.append((move, score))
            if len(chosen) == NEXT_BEST_SHOWN:
                break
    return chosen


def game_view(game: Game) -> GameView:
    notation = notation_of(game)
    round_ = service.current_round(game)
    closed = _closed_round(game)
    results = game_results(game) if any(r.status == "closed" for r in game.rounds) else None
    # The same for every phone at a reveal, and it sorts the whole room: once per version of the game.
    reveal = (
        cached(game, ("reveal", closed.number), lambda: _reveal(game, closed, results))
        if closed is not None and results is not None
        else None
    )
    # The board: during a round, the position the rack is played on with the last play marked; at a
    # reveal, the position before the round with the placed top highlighted.
    if closed is not None:
        board = cached(
            game,
            "board",
            lambda: board_view(game, game.board, highlight=play_squares(game, closed.board_before, closed.placed_move)),
        )
        last_play = None
    else:
        previous = _previous_round(game, round_)
        board = cached(
            game,
            "board",
            lambda: board_view(
                game,
                game.board,
                new=play_squares(game, previous.board_before, previous.placed_move) if previous is not None else set(),
            ),
        )
        last_play = (previous.placed_move or "", previous.top_score or 0) if previous is not None else None
    submissions = service.submission_count(round_) if round_ is not None and round_.status != "closed" else 0
    view = GameView(
        game=game,
        notation=notation,
        board=board,
        round=round_,
        rack=rack_view(game, round_.rack) if round_ is not None else [],
        seconds_left=service.seconds_left(round_),
        submissions=submissions,
        players=service.player_count(game),
        last_play=last_play,
        reveal=reveal,
        results=results,
    )
    view.last_event_id = db.session.execute(select(func.max(Event.id)).where(Event.game_id == game.id)).scalar() or 0
    if results is not None:
        view.standings = list(results.standings)
    return view


def _previous_round(game: Game, round_: Round | None) -> Round | None:
    """The last closed round before the one in play (its placed play is the board's newest)."""
    if round_ is None or round_.number <= 1:
        return None
    return db.session.execute(
        select(Round).where(Round.game_id == game.id, Round.number == round_.number - 1)
    ).scalar_one_or_none()


@dataclass(frozen=True)
class PlayerView:
    """What one player sees of themselves: their play in this round, their last result, their place."""

    player: Player
    submitted: str | None
    submitted_score: int | None
    result: PlayerRound | None  # for the round being revealed
    standing: Standing | None


def player_view(view: GameView, player: Player) -> PlayerView:
    submitted = None
    submitted_score = None
    if view.round is not None and view.round.status != "closed":
        last = service.last_submission(view.round, player.id)
        if last is not None:
            submitted, submitted_score = last.move, last.score_as_placed
    own = results_of(view, [player])[player.id]
    return PlayerView(player, submitted, submitted_score, own.result, own.standing)


def results_of(view: GameView, players: list[Player]) -> dict[int, PlayerView]:
    """Each player's result of the round revealed and place in the standings, by player id, for a whole room
    at once (one pass over the standings); their play in the round being played is not read here."""
    scored = None
    if view.results is not None and view.reveal is not None:
        scored = next(r for r in view.results.rounds if r.number == view.reveal.number)
    standings = {s.player: s for s in view.results.standings} if view.results is not None else {}
    return {
        p.id: PlayerView(
            p, None, None, scored.players.get(p.name) if scored is not None else None, standings.get(p.name)
        )
        for p in players
    }
