"""Notation of squares and plays (docs/rules.md §5): both conventions, round trips, errors."""

from __future__ import annotations

import itertools

import pytest

from trainer.engine.board import Board, Move, Tile
from trainer.engine.errors import EngineError, IllegalPlayError, NotationError
from trainer.engine.notation import format_coordinate, format_move, parse_coordinate, parse_move, square_name
from trainer.engine.rules import Ruleset

SIZE = 15
NOTATIONS = ("english", "french")
STYLES = ("plain", "parens", "dot")
LETTERS = "ABCDEFGHIJKLMNO"
EVERY_COORDINATE = list(itertools.product(NOTATIONS, range(SIZE), range(SIZE), (True, False)))


def board_with(rules: Ruleset, **rows: str) -> Board:
    """An empty board with some rows filled, e.g. ``r8="...TRAIN......."`` (rows are 1-based)."""
    lines = ["." * SIZE] * SIZE
    for key, text in rows.items():
        lines[int(key[1:]) - 1] = text
    return Board.from_rows(rules.layout, lines)


# --- squares and coordinates ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "col", "english", "french"),
    [(7, 7, "H8", "H8"), (0, 0, "A1", "A1"), (0, 14, "O1", "A15"), (14, 0, "A15", "O1"), (7, 3, "D8", "H4")],
)
def test_square_names(row: int, col: int, english: str, french: str) -> None:
    assert square_name(row, col, "english") == english
    assert square_name(row, col, "french") == french


def test_square_names_are_all_distinct() -> None:
    for notation in NOTATIONS:
        names = {square_name(r, c, notation) for r in range(SIZE) for c in range(SIZE)}
        assert len(names) == SIZE * SIZE


@pytest.mark.parametrize(
    ("notation", "text", "expected"),
    [
        ("english", "8D", (7, 3, True)),  # row 8, from column D: across
        ("english", "D8", (7, 3, False)),  # column D, from row 8: down
        ("french", "H4", (7, 3, True)),  # row H, from column 4: across
        ("french", "4H", (7, 3, False)),  # column 4, from row H: down
        ("english", "H4", (3, 7, False)),  # the same text means another play in each convention
        ("french", "8D", (3, 7, False)),
        ("english", "15O", (14, 14, True)),
        ("english", "O15", (14, 14, False)),
        ("french", "O15", (14, 14, True)),
        ("french", "15O", (14, 14, False)),
        ("english", "8d", (7, 3, True)),  # either case
        ("french", "h4", (7, 3, True)),
        ("english", " 8D ", (7, 3, True)),
    ],
)
def test_parse_coordinate_examples(notation: str, text: str, expected: tuple[int, int, bool]) -> None:
    assert parse_coordinate(text, notation) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("row", "col", "horizontal", "english", "french"),
    [(7, 3, True, "8D", "H4"), (7, 3, False, "D8", "4H"), (0, 0, True, "1A", "A1"), (14, 14, False, "O15", "15O")],
)
def test_format_coordinate_examples(row: int, col: int, horizontal: bool, english: str, french: str) -> None:
    assert format_coordinate(row, col, horizontal, "english") == english
    assert format_coordinate(row, col, horizontal, "french") == french


def test_every_coordinate_round_trips() -> None:
    """Every square, both directions, both notations, in upper and lower case."""
    for notation, row, col, horizontal in EVERY_COORDINATE:
        text = format_coordinate(row, col, horizontal, notation)
        assert parse_coordinate(text, notation) == (row, col, horizontal), (notation, text)
        assert parse_coordinate(text.lower(), notation) == (row, col, horizontal), (notation, text)


def test_every_coordinate_has_its_own_text() -> None:
    for notation in NOTATIONS:
        texts = {format_coordinate(r, c, h, notation) for _, r, c, h in EVERY_COORDINATE}
        assert len(texts) == SIZE * SIZE * 2


def test_the_line_comes_first() -> None:
    """English across names the row number first; French across names the row letter first."""
    for row, col in itertools.product(range(SIZE), range(SIZE)):
        assert format_coordinate(row, col, True, "english") == f"{row + 1}{LETTERS[col]}"
        assert format_coordinate(row, col, False, "english") == f"{LETTERS[col]}{row + 1}"
        assert format_coordinate(row, col, True, "french") == f"{LETTERS[row]}{col + 1}"
        assert format_coordinate(row, col, False, "french") == f"{col + 1}{LETTERS[row]}"


@pytest.mark.parametrize(
    ("notation", "text", "message"),
    [
        ("english", "P8", "column P is off the board"),
        ("english", "8P", "column P is off the board"),
        ("english", "16A", "row 16 is off the board"),
        ("english", "A0", "row 0 is off the board"),
        ("french", "P8", "row P is off the board"),
        ("french", "8P", "row P is off the board"),
        ("french", "A16", "column 16 is off the board"),
        ("french", "0A", "column 0 is off the board"),
    ],
)
def test_coordinate_off_the_board(notation: str, text: str, message: str) -> None:
    with pytest.raises(NotationError, match=f"^{message}$") as caught:
        parse_coordinate(text, notation)  # type: ignore[arg-type]
    assert caught.value.code == "off_board_coordinate"


@pytest.mark.parametrize("text", ["", "8", "H", "88", "HH", "8D8", "H8x", "1 A", "H-8", "8É", "123A", "８D", "٨D"])
def test_not_a_coordinate(text: str) -> None:
    with pytest.raises(NotationError, match="is not a coordinate") as caught:
        parse_coordinate(text)
    assert caught.value.code == "bad_coordinate"
    assert caught.value.params == {"text": text.strip()}


def test_unknown_notation() -> None:
    with pytest.raises(NotationError, match="unknown notation 'german'"):
        parse_coordinate("8D", "german")  # type: ignore[arg-type]
    with pytest.raises(NotationError, match="unknown notation"):
        square_name(0, 0, "german")  # type: ignore[arg-type]


# --- plays ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("notation", "text"),
    [("english", "8D TRAIN"), ("english", "D8 TRAIN"), ("french", "H4 TRAIN"), ("french", "4H TRAIN")],
)
def test_parse_move_in_both_conventions(notation: str, text: str, empty_board: Board) -> None:
    move = parse_move(text, empty_board, notation)  # type: ignore[arg-type]
    across = move.horizontal
    assert (move.row, move.col, move.word) == (7, 3, "TRAIN")
    squares = [(t.row, t.col) for t in move.tiles]
    if across:
        assert squares == [(7, 3), (7, 4), (7, 5), (7, 6), (7, 7)]
    else:
        assert squares == [(7, 3), (8, 3), (9, 3), (10, 3), (11, 3)]
    assert "".join(t.letter for t in move.tiles) == "TRAIN"
    assert format_move(move, notation) == text  # type: ignore[arg-type]


def test_english_and_french_name_the_same_play(empty_board: Board) -> None:
    assert parse_move("8D TRAIN", empty_board, "english") == parse_move("H4 TRAIN", empty_board, "french")
    assert parse_move("D8 TRAIN", empty_board, "english") == parse_move("4H TRAIN", empty_board, "french")
    assert parse_move("8D TRAIN", empty_board, "english") != parse_move("D8 TRAIN", empty_board, "english")


def test_blank_is_lower_case(empty_board: Board) -> None:
    move = parse_move("8D TRAiN", empty_board)
    assert [t.blank for t in move.tiles] == [False, False, False, True, False]
    assert move.tiles[3] == Tile(7, 6, "I", blank=True)
    assert move.tiles[3].char == "i"
    assert move.word == "TRAiN"
    assert move.rack_tiles() == "TRA?N"
    assert move.blanks == 1
    assert format_move(move) == "8D TRAiN"
    assert move != parse_move("8D TRAIN", empty_board)


def test_played_through_letters_in_three_forms(en_rules: Ruleset) -> None:
    board = board_with(en_rules, r8="...TRAIN.......")
    forms = ["8D TRAINS", "8D (TRAIN)S", "8D .....S", "8D T(RA).NS", "8D (T)R(A)(I)(N)S", "8D t(r)a.nS"]
    moves = [parse_move(text, board) for text in forms]
    expected = Move(7, 3, True, "TRAINS", (Tile(7, 8, "S"),))
    for text, move in zip(forms, moves, strict=True):
        assert move == expected, text
        assert (move.row, move.col, move.horizontal, move.word) == (7, 3, True, "TRAINS"), text
    assert format_move(moves[0], through="plain") == "8D TRAINS"
    assert format_move(moves[0], through="parens") == "8D (TRAIN)S"
    assert format_move(moves[0], through="dot") == "8D .....S"


def test_played_through_letter_in_the_middle(en_rules: Ruleset) -> None:
    board = board_with(en_rules, r8="...TRAIN.......")
    move = parse_move("D7 ATE", board)
    assert move == parse_move("D7 A(T)E", board) == parse_move("D7 A.E", board)
    assert move.tiles == (Tile(6, 3, "A"), Tile(8, 3, "E"))
    assert format_move(move, "english", "parens") == "D7 A(T)E"
    assert format_move(move, "english", "dot") == "D7 A.E"
    assert format_move(move, "french", "parens") == "4G A(T)E"


def test_several_played_through_groups(en_rules: Ruleset) -> None:
    # Like A(D)DITION: new, board, new, board board, new.
    board = board_with(en_rules, r8="....R.IN.......")
    move = parse_move("8D TRAINS", board)
    assert [(t.col, t.letter) for t in move.tiles] == [(3, "T"), (5, "A"), (8, "S")]
    assert format_move(move, through="parens") == "8D T(R)A(IN)S"
    assert format_move(move, through="dot") == "8D T.A..S"
    assert format_move(move, "french", "parens") == "H4 T(R)A(IN)S"


def test_played_through_blank_keeps_its_case(en_rules: Ruleset) -> None:
    board = board_with(en_rules, r8="...TRAiN.......")
    move = parse_move("8D TRAINS", board)
    assert move.word == "TRAiNS"
    assert format_move(move, through="parens") == "8D (TRAiN)S"
    assert parse_move(format_move(move), board) == move


@pytest.mark.parametrize("notation", NOTATIONS)
@pytest.mark.parametrize("style", STYLES)
def test_every_square_and_direction_round_trips(notation: str, style: str, en_rules: Ruleset) -> None:
    """A three-letter play from every square it fits, both ways: new tile, board tile (a blank), new blank."""
    checked = 0
    for row, col, horizontal in itertools.product(range(SIZE), range(SIZE), (True, False)):
        dr, dc = (0, 1) if horizontal else (1, 0)
        if row + 2 * dr >= SIZE or col + 2 * dc >= SIZE:
            continue
        cells = ["."] * (SIZE * SIZE)
        cells[(row + dr) * SIZE + col + dc] = "a"
        board = Board(en_rules.layout, cells)
        tiles = (Tile(row, col, "T"), Tile(row + 2 * dr, col + 2 * dc, "N", blank=True))
        move = Move(row, col, horizontal, "Tan", tiles)
        text = format_move(move, notation, style)  # type: ignore[arg-type]
        word = {"plain": "Tan", "parens": "T(a)n", "dot": "T.n"}[style]
        assert text == f"{format_coordinate(row, col, horizontal, notation)} {word}"  # type: ignore[arg-type]
        parsed = parse_move(text, board, notation)  # type: ignore[arg-type]
        assert parsed == move
        assert (parsed.row, parsed.col, parsed.horizontal, parsed.word, parsed.tiles) == (
            row,
            col,
            horizontal,
            "Tan",
            tiles,
        )
        checked += 1
    assert checked == 2 * SIZE * (SIZE - 2)


# --- errors ---------------------------------------------------------------------------------


def test_nothing_to_play_through(empty_board: Board) -> None:
    for text in ("8D TRAI(N)", "8D TRAI."):
        with pytest.raises(IllegalPlayError, match=r"^no tile at H8 to play through$") as caught:
            parse_move(text, empty_board)
        assert caught.value.code == "nothing_to_play_through"
        assert caught.value.params == {"square": "H8"}


def test_errors_name_squares_in_the_games_notation(empty_board: Board) -> None:
    # French G4: row G, from column 4; the '.' falls on row G, column 6.
    with pytest.raises(IllegalPlayError, match=r"^no tile at G6 to play through$"):
        parse_move("G4 TR.", empty_board, "french")
    with pytest.raises(IllegalPlayError, match=r"^no tile at F7 to play through$"):
        parse_move("7D TR.", empty_board, "english")


def test_word_runs_off_the_board(empty_board: Board) -> None:
    with pytest.raises(IllegalPlayError, match=r"^TRAIN runs off the board \(5 letters from L8\)$") as caught:
        parse_move("8L TRAIN", empty_board)
    assert caught.value.code == "off_board"
    with pytest.raises(IllegalPlayError, match=r"from H12\)$"):
        parse_move("H12 TRAIN", empty_board, "french")
    with pytest.raises(IllegalPlayError, match=r"^TRAIN runs off the board \(5 letters from H12\)$"):
        parse_move("H12 TRAIN", empty_board, "english")  # column H, rows 12 to 16


def test_word_does_not_match_the_board(en_rules: Ruleset) -> None:
    board = board_with(en_rules, r8="...TRAIN.......")
    with pytest.raises(IllegalPlayError, match=r"^D8 holds T, not B$") as caught:
        parse_move("8D BRAIN", board)
    assert caught.value.code == "tile_mismatch"
    assert caught.value.params == {"square": "D8", "board": "T", "written": "B"}
    with pytest.raises(IllegalPlayError, match=r"^H4 holds T, not B$"):
        parse_move("H4 BRAIN", board, "french")


@pytest.mark.parametrize(
    ("text", "message", "code"),
    [
        ("8D", "expected a coordinate and a word", "bad_notation"),
        ("", "expected a coordinate and a word", "bad_notation"),
        ("8D TRAIN 12", "expected a coordinate and a word", "bad_notation"),
        ("TRAIN 8D", "is not a coordinate", "bad_coordinate"),
        ("P8 TRAIN", "column P is off the board", "off_board_coordinate"),
        ("8D TR-AIN", "'TR-AIN': unexpected '-' at position 3", "bad_word"),
        ("8D TRAÏN", "unexpected 'Ï' at position 4", "bad_word"),
        ("8D TR()AIN", r"unexpected '\(' at position 3", "bad_word"),
        ("8D TR(AIN", r"unexpected '\(' at position 3", "bad_word"),
        ("8D TRA?N", r"unexpected '\?' at position 4", "bad_word"),
    ],
)
def test_text_that_is_not_a_play(text: str, message: str, code: str, empty_board: Board) -> None:
    with pytest.raises(NotationError, match=message) as caught:
        parse_move(text, empty_board)
    assert caught.value.code == code


def test_a_play_must_be_text(empty_board: Board) -> None:
    with pytest.raises(NotationError, match="must be text"):
        parse_move(None, empty_board)  # type: ignore[arg-type]


def test_error_classes() -> None:
    """Syntax errors and illegal plays are told apart, and both are ValueErrors with a code."""
    assert issubclass(NotationError, EngineError)
    assert issubclass(IllegalPlayError, EngineError)
    assert issubclass(EngineError, ValueError)
    assert not issubclass(NotationError, IllegalPlayError)
    assert not issubclass(IllegalPlayError, NotationError)
    assert NotationError("x").code == "bad_notation"
    assert IllegalPlayError("x").code == "illegal"
    assert IllegalPlayError("x", code="gap", square="E7").params == {"square": "E7"}


def test_format_move_refuses_an_unknown_through_style(empty_board: Board) -> None:
    move = parse_move("8D TRAIN", empty_board, "english")
    with pytest.raises(ValueError, match="unknown style 'brackets'"):
        format_move(move, "english", through="brackets")  # type: ignore[arg-type]
