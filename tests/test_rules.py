"""Rules as data (docs/rules.md §1 and §2): tile sets, the standard layout, rulesets."""

from __future__ import annotations

import dataclasses

import pytest

from trainer.engine.board import Board
from trainer.engine.errors import BoardError
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import generate_moves, top_moves
from trainer.engine.notation import format_move, parse_coordinate, parse_move
from trainer.engine.play import validate
from trainer.engine.rules import BLANK, Layout, Ruleset, ruleset, ruleset_codes

# docs/rules.md §1.1 and §1.2, copied letter by letter: letter -> (count, value).
ENGLISH_TILES = {
    "A": (9, 1),
    "B": (2, 3),
    "C": (2, 3),
    "D": (4, 2),
    "E": (12, 1),
    "F": (2, 4),
    "G": (3, 2),
    "H": (2, 4),
    "I": (9, 1),
    "J": (1, 8),
    "K": (1, 5),
    "L": (4, 1),
    "M": (2, 3),
    "N": (6, 1),
    "O": (8, 1),
    "P": (2, 3),
    "Q": (1, 10),
    "R": (6, 1),
    "S": (4, 1),
    "T": (6, 1),
    "U": (4, 1),
    "V": (2, 4),
    "W": (2, 4),
    "X": (1, 8),
    "Y": (2, 4),
    "Z": (1, 10),
}
FRENCH_TILES = {
    "A": (9, 1),
    "B": (2, 3),
    "C": (2, 3),
    "D": (3, 2),
    "E": (15, 1),
    "F": (2, 4),
    "G": (2, 2),
    "H": (2, 4),
    "I": (8, 1),
    "J": (1, 8),
    "K": (1, 10),
    "L": (5, 1),
    "M": (3, 2),
    "N": (6, 1),
    "O": (6, 1),
    "P": (2, 3),
    "Q": (1, 8),
    "R": (6, 1),
    "S": (6, 1),
    "T": (6, 1),
    "U": (6, 1),
    "V": (2, 4),
    "W": (1, 10),
    "X": (1, 10),
    "Y": (1, 10),
    "Z": (1, 10),
}

# docs/rules.md §2.2, English square names (column letter, row number).
TRIPLE_WORD = ["A1", "H1", "O1", "A8", "O8", "A15", "H15", "O15"]
DOUBLE_WORD = [
    "B2",
    "C3",
    "D4",
    "E5",
    "N2",
    "M3",
    "L4",
    "K5",
    "B14",
    "C13",
    "D12",
    "E11",
    "N14",
    "M13",
    "L12",
    "K11",
    "H8",
]
TRIPLE_LETTER = ["F2", "J2", "B6", "F6", "J6", "N6", "B10", "F10", "J10", "N10", "F14", "J14"]
DOUBLE_LETTER = [
    "D1",
    "L1",
    "G3",
    "I3",
    "A4",
    "H4",
    "O4",
    "C7",
    "G7",
    "I7",
    "M7",
    "D8",
    "L8",
    "C9",
    "G9",
    "I9",
    "M9",
    "A12",
    "H12",
    "O12",
    "G13",
    "I13",
    "D15",
    "L15",
]


def square(name: str, size: int = 15) -> int:
    """Square index of an English square name: ``B2`` is column B, row 2."""
    col, row = ord(name[0]) - ord("A"), int(name[1:]) - 1
    return row * size + col


@pytest.mark.parametrize(("code", "expected", "total"), [("en", ENGLISH_TILES, 100), ("fr", FRENCH_TILES, 102)])
def test_tile_sets_match_the_rules(code: str, expected: dict[str, tuple[int, int]], total: int) -> None:
    tiles = ruleset(code).tileset
    assert tiles.total == total
    assert len(tiles.bag()) == total
    assert tiles.blanks == 2
    assert tiles.bag().count(BLANK) == 2
    assert tiles.letters == "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    actual = {letter: (count, tiles.value(letter)) for letter, count in zip(tiles.letters, tiles.counts, strict=True)}
    assert actual == expected
    for letter, (count, _) in expected.items():
        assert tiles.bag().count(letter) == count


@pytest.mark.parametrize("code", ["en", "fr"])
def test_blanks_are_worth_nothing(code: str) -> None:
    tiles = ruleset(code).tileset
    assert tiles.value(BLANK) == 0
    assert tiles.value("z") == 0  # a blank standing for Z
    assert tiles.value("Z") == 10


def test_french_y_counts_as_vowel_or_consonant() -> None:
    assert ruleset("fr").tileset.either == frozenset("Y")
    assert ruleset("en").tileset.either == frozenset()
    assert ruleset("fr").tileset.vowels == frozenset("AEIOU")


@pytest.mark.parametrize(
    ("names", "letter", "word"),
    [(TRIPLE_WORD, 1, 3), (DOUBLE_WORD, 1, 2), (TRIPLE_LETTER, 3, 1), (DOUBLE_LETTER, 2, 1)],
    ids=["triple-word", "double-word", "triple-letter", "double-letter"],
)
def test_each_listed_premium_square(names: list[str], letter: int, word: int, en_rules: Ruleset) -> None:
    layout = en_rules.layout
    for name in names:
        sq = square(name)
        assert (name, layout.letter_multipliers[sq], layout.word_multipliers[sq]) == (name, letter, word)


def test_premium_counts_and_no_other_premium(en_rules: Ruleset) -> None:
    layout = en_rules.layout
    assert layout.size == 15
    assert (len(TRIPLE_WORD), len(DOUBLE_WORD), len(TRIPLE_LETTER), len(DOUBLE_LETTER)) == (8, 17, 12, 24)
    listed = {square(n) for n in TRIPLE_WORD + DOUBLE_WORD + TRIPLE_LETTER + DOUBLE_LETTER}
    assert len(listed) == 8 + 17 + 12 + 24
    assert sum(m == 3 for m in layout.word_multipliers) == 8
    assert sum(m == 2 for m in layout.word_multipliers) == 17
    assert sum(m == 3 for m in layout.letter_multipliers) == 12
    assert sum(m == 2 for m in layout.letter_multipliers) == 24
    for sq in range(15 * 15):
        if sq not in listed:
            assert (layout.letter_multipliers[sq], layout.word_multipliers[sq]) == (1, 1), divmod(sq, 15)


def test_centre_is_the_start_and_a_double_word(en_rules: Ruleset, fr_rules: Ruleset) -> None:
    assert en_rules.layout.start == square("H8") == 7 * 15 + 7
    assert en_rules.layout.word_multipliers[square("H8")] == 2
    assert fr_rules.layout == en_rules.layout


def test_rulesets(en_rules: Ruleset, fr_rules: Ruleset) -> None:
    assert ruleset_codes() == ["en", "fr"]
    assert (en_rules.notation, fr_rules.notation) == ("english", "french")
    assert (en_rules.lexicon, fr_rules.lexicon) == ("en", "fr")
    assert en_rules.rack_size == fr_rules.rack_size == 7
    assert en_rules.bingo_bonus == fr_rules.bingo_bonus == 50


def test_unknown_ruleset_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown rules 'de' \(known: en, fr\)"):
        ruleset("de")


def test_a_new_layout_is_data() -> None:
    text = "# a toy board\n=.=\n.*.\n'.\"\n"
    layout = Layout.from_text("toy", text)
    assert layout.size == 3
    assert layout.start == 4
    assert layout.word_multipliers == (3, 1, 3, 1, 2, 1, 1, 1, 1)
    assert layout.letter_multipliers == (1, 1, 1, 1, 1, 1, 2, 1, 3)
    board = Board(layout)
    assert board.rows() == ["...", "...", "..."]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("..\n...\n", "expected a square grid"),
        ("...\n.x.\n...\n", "unknown symbol 'x' at row 2"),
        ("...\n...\n...\n", "expected one start square"),
        ("*..\n.*.\n...\n", "found 2"),
    ],
)
def test_bad_layout_text(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Layout.from_text("bad", text)


def test_board_rows_round_trip(en_rules: Ruleset) -> None:
    rows = ["." * 15] * 15
    rows[7] = "...TRAiN......."
    board = Board.from_rows(en_rules.layout, rows)
    assert board.rows() == rows
    assert str(board) == "\n".join(rows)
    assert board.at(7, 6) == "i"
    assert board.tile_count() == 5
    assert sorted(board.tiles_on_board()) == sorted("TRA?N")
    assert board == Board.from_rows(en_rules.layout, board.rows())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda rows: rows[:14], "the board has 14 rows, expected 15"),
        (lambda rows: [*rows[:3], "." * 14, *rows[4:]], "board row 4 has 14 squares, expected 15"),
        (lambda rows: [*rows[:2], "..1" + "." * 12, *rows[3:]], r"board row 3, square 3: '1' is not"),
        (lambda rows: [*rows[:2], "..É" + "." * 12, *rows[3:]], r"board row 3, square 3: 'É' is not"),
        (lambda rows: "\n".join(rows), "must be a list of 15 strings"),
        (lambda rows: [*rows[:14], 7], "board row 15 is not a string"),
    ],
    ids=["rows", "squares", "digit", "accent", "text", "not-a-string"],
)
def test_malformed_boards(change, message: str, en_rules: Ruleset) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(BoardError, match=message):
        Board.from_rows(en_rules.layout, change(["." * 15] * 15))


def test_a_21_by_21_board_plays_with_no_code_change(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    """A bigger board is a data file: notation, validation and the move generator follow its size."""
    rows = ["." * 21 for _ in range(21)]
    rows[10] = "." * 10 + "*" + "." * 10
    rows[10] = "=" + rows[10][1:]
    big = dataclasses.replace(en_rules, layout=Layout.from_text("super21", "\n".join(rows)))
    board = Board.empty(big)
    top_score, tops = top_moves(board, big, en_lexicon, "QUIZ")
    assert top_score > 0 and tops
    assert all(any((t.row, t.col) == (10, 10) for t in m.tiles) for m in tops)
    board.place(tops[0].tiles)
    assert parse_coordinate("11U", "english", size=21) == (10, 20, True)
    assert format_move(parse_move("U11 QI", board, "english"), "english") == "U11 QI"
    edge = Board.from_rows(big.layout, ["." * 21] * 10 + ["." * 19 + "AT"] + ["." * 21] * 10)
    moves = generate_moves(edge, big, en_lexicon, "AEIOU")
    assert any(t.col == 20 and t.row == 11 for m in moves for t in m.tiles)  # e.g. U11 TO, down
    for move in moves:
        assert validate(edge, big, en_lexicon, move, "AEIOU").score == move.score
