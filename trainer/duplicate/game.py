"""A duplicate game as a pure state machine: draw, find the tops, place one, draw again.

Each round: the bag completes the reliquat to a rack (:mod:`.draw`), the move generator finds
every top play, the tie-break orders them (:mod:`.tiebreak`), one of them goes on the board (the
first by default, another if the director says so), and the tiles of the rack it did not use
are the next round's reliquat. The game ends as GAME-RULES.md section 6 says (too few tiles,
no rack can meet the draw rule, no legal play) or after the game's number of rounds.

The server keeps the seed, the settings and the placed plays; :func:`replay` rebuilds the game
from them, since the same seed, settings and placed plays give the same draws.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from trainer.engine.board import Board, Move
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import top_moves
from trainer.engine.notation import format_move, parse_move
from trainer.engine.rules import Notation, Ruleset

from .draw import Bag, Draw, DrawRule, EndReason, end_without_play, reliquat_after
from .tiebreak import order_tops


@dataclass(frozen=True)
class GameSettings:
    """The settings of a game that shape its draws and its length."""

    draw_rule: DrawRule = field(default_factory=DrawRule)
    rounds: int | None = None  # the number of rounds to play; None: to the end of the game
    notation: Notation | None = None  # None: the ruleset's notation


@dataclass(frozen=True)
class Round:
    """A played round: its draw, its tops in tie-break order, the play placed and what it left."""

    number: int
    draw: Draw
    top_score: int
    tops: tuple[Move, ...]
    placed: Move
    reliquat: str


class DuplicateGame:
    """One duplicate game: call :meth:`start_round` then :meth:`place` until :attr:`end` is set."""

    def __init__(
        self, rules: Ruleset, lexicon: Lexicon, seed: int | None = None, settings: GameSettings | None = None
    ) -> None:
        self.rules = rules
        self.lexicon = lexicon
        self.settings = settings if settings is not None else GameSettings()
        self.notation: Notation = self.settings.notation or rules.notation
        self.board = Board.empty(rules)
        self.bag = Bag(rules, self.settings.draw_rule, seed)
        self.rounds: list[Round] = []
        self.end: EndReason | None = None
        self.current: Draw | None = None  # the open round's draw, until a play is placed
        self.top_score = 0
        self.tops: list[Move] = []  # the open round's tops, in tie-break order
        self.last_draw: Draw | None = None  # the draw of the last round started, played or not

    @property
    def seed(self) -> int:
        return self.bag.seed

    @property
    def reliquat(self) -> str:
        """The tiles carried to the next round."""
        return self.rounds[-1].reliquat if self.rounds else ""

    def start_round(self) -> Draw | None:
        """Draw the next rack and find its tops; ``None`` once the game is over (:attr:`end` says why).

        A rack with no legal play ends the game: its draw stays in :attr:`last_draw`.
        """
        if self.current is not None:
            raise RuntimeError(f"round {self.current.round_number} is still open: place a play first")
        if self.end is not None:
            return None
        number = len(self.rounds) + 1
        limit = self.settings.rounds
        reason = EndReason.ROUND_LIMIT if limit is not None and number > limit else None
        reason = reason or self.bag.end_reason(self.reliquat, number)
        if reason is not None:
            self.end = reason
            return None
        draw = self.bag.draw(self.reliquat, number)
        self.last_draw = draw
        top_score, tops = top_moves(self.board, self.rules, self.lexicon, draw.rack)
        self.end = end_without_play(tops)
        if self.end is not None:
            return None
        self.current, self.top_score, self.tops = draw, top_score, order_tops(tops, draw.rack)
        return draw

    def place(self, move: Move | str | None = None) -> Round:
        """Put a top of the open round on the board (default: the tie-break's first) and close it.

        ``move`` may be written in the game's notation; it must be one of the round's tops.
        """
        draw = self.current
        if draw is None:
            raise RuntimeError("no round is open: start one first")
        if isinstance(move, str):
            move = parse_move(move, self.board, self.notation)
        chosen = self.tops[0] if move is None else move
        if chosen not in self.tops:
            written = format_move(chosen, self.notation)
            raise ValueError(f"{written} is not a top play of round {draw.round_number} ({self.top_score} points)")
        chosen = self.tops[self.tops.index(chosen)]  # the generator's play, with its score
        self.board.place(chosen.tiles)
        played = Round(
            draw.round_number, draw, self.top_score, tuple(self.tops), chosen, reliquat_after(draw.rack, chosen)
        )
        self.rounds.append(played)
        self.current, self.tops = None, []
        return played

    def play_to_end(self) -> list[Round]:
        """Play every remaining round, placing the default top each time."""
        while self.start_round() is not None:
            self.place()
        return self.rounds


def simulate(
    rules: Ruleset, lexicon: Lexicon, seed: int | None = None, settings: GameSettings | None = None
) -> DuplicateGame:
    """A whole game placing the default top every round."""
    game = DuplicateGame(rules, lexicon, seed, settings)
    game.play_to_end()
    return game


def replay(
    rules: Ruleset, lexicon: Lexicon, seed: int, placed: Iterable[Move | str], settings: GameSettings | None = None
) -> DuplicateGame:
    """The game after placing ``placed`` (plays or their text in the game's notation), round by round.

    The next round is not started: the caller starts it (and so redraws it identically).
    """
    game = DuplicateGame(rules, lexicon, seed, settings)
    for move in placed:
        if game.start_round() is None:
            raise ValueError(f"the game ended ({game.end}) before round {len(game.rounds) + 1}")
        game.place(move)
    return game
