"""The first play of a duplicate game as the federation judges it (docs/rules.md §6.9, "The first play").

On the empty board every placement of a word through the centre is open to every player, so the French
federation credits a first-move play with the best placement of its word, wherever the player put it and
whichever of its letters the blank stands for (**Setting** ``first_play_best_placement``). The score is the
engine's own (:func:`trainer.engine.play.evaluate`) for each placement tried: at most two directions times
the word's length, times the ways the blanks can sit among repeated letters.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator

from trainer.engine.board import Board, Move, Tile
from trainer.engine.errors import EngineError
from trainer.engine.lexicon import Lexicon
from trainer.engine.play import Evaluation, evaluate
from trainer.engine.rules import Ruleset


def _spellings(word: str, rack: str) -> Iterator[tuple[bool, ...]]:
    """Which letters of ``word`` are blanks, each way the rack allows: real tiles first, a blank for each
    letter the rack lacks, on any of that letter's places in the word."""
    have = Counter(tile for tile in rack if tile != "?")
    lacking = {letter: count - have[letter] for letter, count in Counter(word).items() if count > have[letter]}
    if sum(lacking.values()) > rack.count("?"):
        return
    choices = [
        list(itertools.combinations([i for i, ch in enumerate(word) if ch == letter], count))
        for letter, count in lacking.items()
    ]
    for picked in itertools.product(*choices):
        blanks = {i for group in picked for i in group}
        yield tuple(i in blanks for i in range(len(word)))


def first_play_placements(board: Board, rules: Ruleset, word: str, rack: str) -> Iterator[Move]:
    """Every placement of ``word`` (letters, any case) through the centre of the empty ``board`` that ``rack``
    can make, across and down."""
    letters = word.upper()
    size = board.size
    centre_row, centre_col = divmod(rules.layout.start, size)
    spellings = list(_spellings(letters, rack))
    for horizontal in (True, False):
        centre = centre_col if horizontal else centre_row
        for start in range(max(0, centre - len(letters) + 1), min(centre, size - len(letters)) + 1):
            row, col = (centre_row, start) if horizontal else (start, centre_col)
            for blanks in spellings:
                tiles = tuple(
                    Tile(row, col + i, ch, blank) if horizontal else Tile(row + i, col, ch, blank)
                    for i, (ch, blank) in enumerate(zip(letters, blanks, strict=True))
                )
                written = "".join(ch.lower() if blank else ch for ch, blank in zip(letters, blanks, strict=True))
                yield Move(row, col, horizontal, written, tiles)


def best_first_placement(board: Board, rules: Ruleset, lexicon: Lexicon, word: str, rack: str) -> Evaluation | None:
    """The best-scoring placement of ``word`` as a first play from ``rack`` (the engine's evaluation), or None
    when the rack cannot make it or the board is not empty."""
    if not board.is_empty() or len(word) < 2:
        return None
    best: Evaluation | None = None
    for move in first_play_placements(board, rules, word, rack):
        try:
            evaluation = evaluate(board, rules, lexicon, move, rack)
        except EngineError:  # a word longer than the board allows through the centre: no placement
            continue
        if best is None or evaluation.score > best.score:
            best = evaluation
    return best
