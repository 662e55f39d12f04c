"""Which top play goes on the board when several share the top score (docs/rules.md §6.7).

The order, first criterion first (:func:`tiebreak_key`):

1. **Fewer blanks** used by the play: a blank kept on the rack is worth more to the next rounds.
2. **More balanced leave**: fewer repeated tiles among the tiles left on the rack, counted as
   ``len(leave) - len(set(leave))`` (``EEI`` has one repeat, ``EEE`` two, two blanks left one).
3. **Earliest in board reading order** of the main word's first square: the upper row first,
   then the left column; on the same square, across before down.
4. **The play as written** (:func:`trainer.engine.notation.format_move` in English notation,
   played-through letters plain), compared character by character: settles plays from the same
   square in the same direction, e.g. two designations of a blank (a lettered tile, upper case,
   before a blank, lower case).

Why reading order rather than the coordinate string: ``"10A" < "8D"`` as text, and English and
French coordinates of one square differ, while reading order is the same in both notations, so
clubs playing one game in different notations place the same play. The four criteria order any
set of distinct plays completely (two plays with the same start, direction and written word put
the same tiles down, so they are the same play), so the choice never depends on the order in
which the generator found the plays.

:func:`order_tops` returns every top in this order so that a director can pick another one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from trainer.engine.board import Move
from trainer.engine.notation import format_move

from .draw import reliquat_after


class TiebreakKey(NamedTuple):
    """The tie-break criteria of a play, smallest first; shown to a director to explain a choice."""

    blanks: int
    repeats: int
    row: int
    col: int
    down: bool
    written: str


def repeats(leave: str) -> int:
    """Tiles of ``leave`` that repeat an earlier tile of it: ``EEIS`` -> 1, ``??E`` -> 1."""
    return len(leave) - len(set(leave))


def tiebreak_key(move: Move, rack: str | Sequence[str]) -> TiebreakKey:
    """The sort key of ``move`` played from ``rack`` (``?`` for a blank)."""
    leave = reliquat_after(rack, move)
    return TiebreakKey(
        move.blanks, repeats(leave), move.row, move.col, not move.horizontal, format_move(move, "english")
    )


def order_tops(tops: Sequence[Move], rack: str | Sequence[str], across_first: bool = False) -> list[Move]:
    """The top plays, the one to place first; ``ValueError`` if they do not share one score.

    ``across_first``: the game's first move under **Setting** ``first_play_across`` (docs/rules.md §6.7): every
    across top comes before every down one, then the usual order.
    """
    scores = {move.score for move in tops}
    if len(scores) > 1:
        raise ValueError(f"the plays to order must share the top score, got scores {sorted(map(str, scores))}")
    if across_first:
        return sorted(tops, key=lambda move: (not move.horizontal, tiebreak_key(move, rack)))
    return sorted(tops, key=lambda move: tiebreak_key(move, rack))


def choose_top(tops: Sequence[Move], rack: str | Sequence[str]) -> Move:
    """The top play placed by default: the first of :func:`order_tops`."""
    if not tops:
        raise ValueError("there is no top play to choose from")
    return order_tops(tops, rack)[0]
