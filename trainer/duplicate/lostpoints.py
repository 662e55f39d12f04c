"""Where a player's points went: each round's difference from the top, put down to one cause
(docs/rules.md §6.25, "Points lost, by cause").

Pure: a round as it was stored (the board before it, the top, the play that counted and its score) in, one
:class:`Loss` out. The causes are tried in the order of :data:`CAUSES`; the first that holds takes the whole
difference.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainer.engine.board import Board, Move
from trainer.engine.errors import EngineError
from trainer.engine.notation import parse_move
from trainer.engine.rules import Notation, Ruleset

# In the order they are tried (§6.25): the first that holds takes the round's whole difference.
CAUSES = ("missing", "invalid", "same_word", "bingo", "hook", "premium", "lower")


@dataclass(frozen=True)
class Loss:
    """A round's points lost (the top's score less the score counted, 0 when the top was found) and its cause
    (None when nothing was lost)."""

    points: int
    cause: str | None


def _move(text: str | None, board: Board, notation: Notation) -> Move | None:
    if not text:
        return None
    try:
        return parse_move(text, board, notation)
    except EngineError:
        return None


def _word_premium(move: Move, rules: Ruleset) -> bool:
    """Whether the play puts a tile on a double or triple word square."""
    size = rules.layout.size
    return any(rules.layout.word_multipliers[tile.row * size + tile.col] > 1 for tile in move.tiles)


def _hooks(move: Move, board: Board) -> bool:
    """Whether the play makes a word across its own: one of its tiles lengthens or joins a word on the board."""
    dr, dc = (1, 0) if move.horizontal else (0, 1)
    return any(
        board.on_board(tile.row + dr * side, tile.col + dc * side)
        and board.at(tile.row + dr * side, tile.col + dc * side) != "."
        for tile in move.tiles
        for side in (-1, 1)
    )


def classify(
    rules: Ruleset,
    board_cells: str,
    notation: Notation,
    top: str,
    top_score: int,
    move: str | None,
    valid: bool,
    score: int,
) -> Loss:
    """The points a player lost in a round and why (§6.25).

    ``board_cells`` is the board before the round (the stored cells), ``top`` the top the round placed and
    ``top_score`` its score; ``move`` is the player's play that counted (None: no play on time), ``valid``
    whether every word of it was good, ``score`` the score counted (corrections included).
    """
    points = top_score - score
    if points <= 0:
        return Loss(0, None)
    if move is None:
        return Loss(points, "missing")
    if not valid:
        return Loss(points, "invalid")
    board = Board(rules.layout, list(board_cells))
    best = _move(top, board, notation)
    played = _move(move, board, notation)
    if best is None or played is None:
        return Loss(points, "lower")
    if played.word.upper() == best.word.upper():
        return Loss(points, "same_word")
    if len(best.tiles) == rules.rack_size and len(played.tiles) < rules.rack_size:
        return Loss(points, "bingo")
    if _hooks(best, board) and not _hooks(played, board):
        return Loss(points, "hook")
    if _word_premium(best, rules) and not _word_premium(played, rules):
        return Loss(points, "premium")
    return Loss(points, "lower")


def is_bingo(rules: Ruleset, board_cells: str, notation: Notation, top: str) -> bool:
    """Whether the top plays every tile of a full rack (a seven-letter word, or eight through a board tile)."""
    best = _move(top, Board(rules.layout, list(board_cells)), notation)
    return best is not None and len(best.tiles) == rules.rack_size
