"""Which top goes on the board: fewer blanks, then the more balanced leave, then reading order, then the word."""

from __future__ import annotations

import itertools
import random

import pytest

from trainer.duplicate.tiebreak import TiebreakKey, choose_top, order_tops, repeats, tiebreak_key
from trainer.engine.board import Board, Move, Tile
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import top_moves
from trainer.engine.notation import format_move
from trainer.engine.rules import Ruleset


def play(row: int, col: int, word: str, down: bool = False, score: int = 20) -> Move:
    """A play whose letters are all new tiles (lower case: a blank), 0-based row and column."""
    tiles = tuple(Tile.from_char(row + i * down, col + i * (not down), ch) for i, ch in enumerate(word))
    return Move(row, col, not down, word, tiles, score)


def written(moves: list[Move]) -> list[str]:
    return [format_move(m, "english") for m in moves]


def test_fewer_blanks_first_even_against_a_worse_leave_and_a_later_square() -> None:
    rack = "EEEIRS?"
    plain = play(9, 9, "RISE")  # leaves EE? : one repeat
    with_blank = play(0, 0, "EyE")  # leaves EIRS: no repeat, first square, but a blank
    for tops in ([plain, with_blank], [with_blank, plain]):
        assert order_tops(tops, rack) == [plain, with_blank]
    assert choose_top([with_blank, plain], rack) == plain


def test_then_the_leave_with_fewer_repeated_tiles() -> None:
    rack = "AEEIRST"
    repeated = play(0, 0, "STAIR")  # leaves EE
    balanced = play(5, 5, "RATES")  # leaves EI
    assert order_tops([repeated, balanced], rack) == [balanced, repeated]
    assert repeats("EE") == 1 and repeats("EEE") == 2 and repeats("EI") == 0 and repeats("??E") == 1


def test_then_reading_order_of_the_first_square_across_before_down() -> None:
    rack = "AEINRST"  # no repeated tile, so every leave is as balanced
    row7_col3 = play(7, 3, "RAT")  # 8D RAT
    row6_col10 = play(6, 10, "TEN")  # 7K TEN
    row7_col1_across = play(7, 1, "SIT")  # 8B SIT
    row7_col1_down = play(7, 1, "SIN", down=True)  # B8 SIN
    row9_col0 = play(9, 0, "TAN")  # 10A TAN: first as text ("10A" < "8D"), but a lower row
    tops = [row9_col0, row7_col3, row7_col1_down, row6_col10, row7_col1_across]
    assert written(order_tops(tops, rack)) == ["7K TEN", "8B SIT", "B8 SIN", "8D RAT", "10A TAN"]


def test_then_the_word_as_written_lettered_tile_before_blank() -> None:
    assert written(order_tops([play(7, 7, "TEN"), play(7, 7, "TAN")], "AENST")) == ["8H TAN", "8H TEN"]
    assert written(order_tops([play(7, 7, "tA"), play(7, 7, "Ta")], "AT?")) == ["8H Ta", "8H tA"]


def test_the_order_does_not_depend_on_the_order_found() -> None:
    rack = "AEINRST"
    tops = [play(7, 3, "RAT"), play(6, 10, "TEN"), play(7, 1, "SIT"), play(7, 1, "SIN", down=True), play(7, 7, "TAN")]
    orders = {tuple(written(order_tops(list(p), rack))) for p in itertools.permutations(tops)}
    assert len(orders) == 1


def test_the_key_explains_the_choice() -> None:
    assert tiebreak_key(play(0, 4, "EyE"), "EEEIRS?") == TiebreakKey(1, 0, 0, 4, False, "1E EyE")


def test_only_plays_sharing_one_score_are_ordered() -> None:
    with pytest.raises(ValueError, match="share the top score"):
        order_tops([play(7, 7, "TEN", score=12), play(7, 7, "TAN", score=10)], "AENST")
    with pytest.raises(ValueError, match="no top play"):
        choose_top([], "AENST")


def test_real_tops_with_blanks(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    rack = "AEINST?"
    board = Board.empty(en_rules)
    score, tops = top_moves(board, en_rules, en_lexicon, rack)
    assert len(tops) > 1
    ordered = order_tops(tops, rack)
    assert sorted(written(ordered)) == sorted(written(tops))
    keys = [tiebreak_key(m, rack) for m in ordered]
    assert keys == sorted(keys)
    assert keys[0].blanks == min(m.blanks for m in tops)
    shuffled = list(tops)
    random.Random(4).shuffle(shuffled)
    assert order_tops(shuffled, rack) == ordered
    assert all(m.score == score for m in ordered)
