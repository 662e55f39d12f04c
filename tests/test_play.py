"""Checking and scoring plays (docs/rules.md §3 and §4), with scores worked out by hand.

Premium squares used below (English names): row 8 is ``=..'...*...'..=`` (A8 triple word, D8
double letter, H8 centre double word, L8 double letter, O8 triple word); G7 is a double letter;
row 1 has triple words at A1 and H1 and a double letter at D1; row 5 has double words at E5 and K5.
Letter values: A E I N O R S T 1, D 2, Q 10, X 8, blank 0.
"""

from __future__ import annotations

import copy
import pickle

import pytest

from trainer.engine.analysis import score as score_handler
from trainer.engine.board import Board, Move, Tile
from trainer.engine.errors import IllegalPlayError, InvalidWordsError, RackError
from trainer.engine.lexicon import Lexicon, LexiconStore
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move, parse_move
from trainer.engine.play import check_placement, evaluate, move_from_tiles, parse_rack, score_move, validate
from trainer.engine.rules import Ruleset

SIZE = 15


def board_with(rules: Ruleset, **rows: str) -> Board:
    """An empty board with some rows filled, e.g. ``r8="...TRAIN......."`` (rows are 1-based)."""
    lines = ["." * SIZE] * SIZE
    for key, text in rows.items():
        lines[int(key[1:]) - 1] = text
    return Board.from_rows(rules.layout, lines)


@pytest.fixture
def train_board(en_rules: Ruleset) -> Board:
    """TRAIN across row 8 from D8 to H8, as after the first play ``8D TRAIN``."""
    return board_with(en_rules, r8="...TRAIN.......")


def words_of(board: Board, rules: Ruleset, lexicon: Lexicon, text: str, rack: str | None = None) -> list[tuple]:
    result = evaluate(board, rules, lexicon, text, rack)
    return [(w.text, w.score) for w in result.words]


# --- racks ---------------------------------------------------------------------------------


def test_parse_rack(en_rules: Ruleset) -> None:
    assert parse_rack("AEINRT?", en_rules) == ["A", "E", "I", "N", "R", "T", "?"]
    assert parse_rack(" aeinrt? ", en_rules) == ["A", "E", "I", "N", "R", "T", "?"]
    assert parse_rack("", en_rules) == []


@pytest.mark.parametrize(
    ("rack", "message", "code"),
    [
        ("AEIN1", "rack has '1', which is not a tile", "bad_rack_tile"),
        ("AEÉ", "rack has 'É', which is not a tile", "bad_rack_tile"),
        ("AE IN", "rack has ' ', which is not a tile", "bad_rack_tile"),
        ("AEINRTSS", "rack has 8 tiles, at most 7", "rack_too_long"),
    ],
)
def test_bad_racks(rack: str, message: str, code: str, en_rules: Ruleset) -> None:
    with pytest.raises(RackError, match=message) as caught:
        parse_rack(rack, en_rules)
    assert caught.value.code == code


def test_rack_must_be_text(en_rules: Ruleset) -> None:
    with pytest.raises(RackError, match="must be text"):
        parse_rack(["A", "B"], en_rules)  # type: ignore[arg-type]


# --- the placement rules, one message each ---------------------------------------------------


def expect_illegal(
    board: Board, rules: Ruleset, lexicon: Lexicon, play: str | Move, message: str, code: str, rack: str | None = None
) -> IllegalPlayError:
    with pytest.raises(IllegalPlayError, match=message) as caught:
        evaluate(board, rules, lexicon, play, rack)
    assert caught.value.code == code
    assert not isinstance(caught.value, InvalidWordsError)
    return caught.value


def test_first_play_must_cover_the_centre(empty_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    error = expect_illegal(
        empty_board,
        en_rules,
        en_lexicon,
        "8A TRAIN",
        "^the first play must cover the centre square H8$",
        "first_not_on_start",
    )
    assert error.params == {"square": "H8"}
    expect_illegal(empty_board, en_rules, en_lexicon, "D8 TRAIN", "centre square H8", "first_not_on_start")


def test_first_play_needs_two_letters(empty_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    expect_illegal(
        empty_board, en_rules, en_lexicon, "8H A", "^the first play must have at least two letters$", "first_too_short"
    )


def test_later_plays_must_connect(train_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    expect_illegal(
        train_board, en_rules, en_lexicon, "1A AT", "^the play does not touch any tile on the board$", "not_connected"
    )
    # One square away diagonally is not touching either.
    expect_illegal(train_board, en_rules, en_lexicon, "9I AT", "does not touch", "not_connected")


def test_words_are_whole_runs(train_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    error = expect_illegal(
        train_board,
        en_rules,
        en_lexicon,
        "8E RAINS",
        "^the word continues through the tile at D8: write the whole word$",
        "partial_word",
    )
    assert error.params == {"square": "D8"}
    expect_illegal(train_board, en_rules, en_lexicon, "8A ZAX", "continues through the tile at D8", "partial_word")
    expect_illegal(train_board, en_rules, en_lexicon, "8I S", "continues through the tile at H8", "partial_word")
    # Down from D7, "A" stops short of the T under it.
    expect_illegal(train_board, en_rules, en_lexicon, "D7 A", "continues through the tile at D8", "partial_word")


def test_play_must_place_a_tile(train_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    expect_illegal(train_board, en_rules, en_lexicon, "8D TRAIN", "^the play places no new tile$", "no_tiles")
    expect_illegal(train_board, en_rules, en_lexicon, "8D (TRAIN)", "places no new tile", "no_tiles")


def test_square_taken(train_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    # A hand-built play on a taken square (the parser would read D8 as played through).
    move = Move(7, 3, True, "A", (Tile(7, 3, "A"),))
    expect_illegal(train_board, en_rules, en_lexicon, move, "^D8 is already taken$", "square_taken")
    with pytest.raises(IllegalPlayError, match=r"^D8 is already taken$"):
        move_from_tiles(train_board, [Tile(6, 3, "A"), Tile(7, 3, "T")])


@pytest.mark.parametrize(
    ("rack", "play", "message"),
    [
        ("TRE", "8D TREE", "^rack has no second E$"),
        ("EEEN", "8F EEEEN", "^rack has no fourth E$"),
        ("TRAN", "8D TRAIN", "^rack has no I$"),
        ("TRA?N", "8D TRAIN", "^rack has no I$"),  # a blank is not played as a capital letter
        ("TRAIN", "8D TRAiN", "^rack has no blank$"),
        ("?RAN", "8D tRAiN", "^rack has no second blank$"),
    ],
)
def test_tiles_not_in_rack(
    rack: str, play: str, message: str, empty_board: Board, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    expect_illegal(empty_board, en_rules, en_lexicon, play, message, "not_in_rack", rack=rack)


def test_rack_is_optional(empty_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    # T R E E on E8-H8: 4, x2 (H8) = 8, with or without a rack to check against.
    assert evaluate(empty_board, en_rules, en_lexicon, "8E TREE").score == 8
    assert evaluate(empty_board, en_rules, en_lexicon, "8E TREE", "TREE").score == 8


def test_tiles_placed_one_by_one(train_board: Board) -> None:
    # Two tiles in a column with the board's T between them: the play D7 ATE.
    move = move_from_tiles(train_board, [Tile(8, 3, "E"), Tile(6, 3, "A")])
    assert move == parse_move("D7 ATE", train_board)
    assert (move.row, move.col, move.horizontal, move.word) == (6, 3, False, "ATE")


@pytest.mark.parametrize(
    ("tiles", "message", "code"),
    [
        ([], "^the play places no tile$", "no_tiles"),
        ([Tile(6, 3, "A"), Tile(5, 4, "E")], "^the tiles are not all in one row or one column$", "not_in_line"),
        ([Tile(6, 3, "A"), Tile(6, 5, "A")], "^there is a gap at E7$", "gap"),
        ([Tile(6, 3, "A"), Tile(10, 3, "A")], "^there is a gap at D9$", "gap"),  # D8 is filled, D9 is not
        ([Tile(7, 15, "A")], "^the tile A at row 8, column 16 is off the board$", "off_board"),
        ([Tile(6, 3, "A"), Tile(6, 3, "E")], "^two tiles on the same square$", "same_square"),
    ],
    ids=["none", "not-in-line", "gap-across", "gap-down", "off-board", "same-square"],
)
def test_tiles_that_are_not_a_play(tiles: list[Tile], message: str, code: str, train_board: Board) -> None:
    with pytest.raises(IllegalPlayError, match=message) as caught:
        move_from_tiles(train_board, tiles)
    assert caught.value.code == code


def test_tile_errors_in_french_notation(train_board: Board) -> None:
    # The R of TRAIN is on row 8 (H), column 5: English E8, French H5.
    with pytest.raises(IllegalPlayError, match=r"^H5 is already taken$"):
        move_from_tiles(train_board, [Tile(6, 4, "A"), Tile(7, 4, "R")], "french")
    # Row 7 (G), columns 4 and 6: the gap is at column 5, English E7, French G5.
    with pytest.raises(IllegalPlayError, match=r"^there is a gap at G5$"):
        move_from_tiles(train_board, [Tile(6, 3, "A"), Tile(6, 5, "A")], "french")
    with pytest.raises(IllegalPlayError, match=r"^there is a gap at E7$"):
        move_from_tiles(train_board, [Tile(6, 3, "A"), Tile(6, 5, "A")])


def test_placement_errors_in_french_notation(fr_rules: Ruleset, fr_lexicon: Lexicon) -> None:
    # TRAIN on row H from column 4 (English 8D); RAINS from H5 leaves out the T on H4.
    board = board_with(fr_rules, r8="...TRAIN.......")
    with pytest.raises(IllegalPlayError, match=r"^the word continues through the tile at H4: write the whole word$"):
        evaluate(board, fr_rules, fr_lexicon, "H5 RAINS")
    assert evaluate(board, fr_rules, fr_lexicon, "H4 TRAINS").score == 6


def test_every_word_must_be_in_the_lexicon(train_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    # 9D ZZ under TR: forms ZZ across and TZ, RZ down; none is a word.
    with pytest.raises(InvalidWordsError, match=r"^not in the lexicon: ZZ, TZ, RZ$") as caught:
        validate(train_board, en_rules, en_lexicon, "9D ZZ")
    assert caught.value.words == ["ZZ", "TZ", "RZ"]
    assert caught.value.code == "invalid_words"
    assert isinstance(caught.value, IllegalPlayError)
    result = evaluate(train_board, en_rules, en_lexicon, "9D ZZ")
    assert not result.valid
    assert result.invalid_words == ("ZZ", "TZ", "RZ")


def test_only_the_invalid_words_are_listed(train_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    # 7F AX is valid (AX, AA, XI); 7F PX forms PX, PA and XI, and only PX is not a word.
    assert validate(train_board, en_rules, en_lexicon, "7F AX").valid
    with pytest.raises(InvalidWordsError) as caught:
        validate(train_board, en_rules, en_lexicon, "7F PX")
    assert caught.value.words == ["PX"]


def test_invalid_words_error_survives_pickle_and_copy() -> None:
    error = InvalidWordsError(["ZZ", "TZ"])
    for clone in (pickle.loads(pickle.dumps(error)), copy.copy(error)):
        assert str(clone) == "not in the lexicon: ZZ, TZ"
        assert clone.words == ["ZZ", "TZ"]
        assert clone.code == "invalid_words"


def test_a_phony_main_word(empty_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    with pytest.raises(InvalidWordsError, match=r"^not in the lexicon: TRXQN$"):
        validate(empty_board, en_rules, en_lexicon, "8D TRXQN")
    # A blank standing for a letter makes the same word as the letter.
    assert validate(empty_board, en_rules, en_lexicon, "8D TRaIN").valid


def test_placement_rules_come_before_words(empty_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    with pytest.raises(IllegalPlayError) as caught:
        validate(empty_board, en_rules, en_lexicon, "8A ZZZ")
    assert caught.value.code == "first_not_on_start"


def test_check_placement_does_not_look_up_words(empty_board: Board, en_rules: Ruleset) -> None:
    check_placement(empty_board, en_rules, parse_move("8D TRXQN", empty_board))  # no exception


# --- scoring, worked out by hand --------------------------------------------------------------


@pytest.mark.parametrize(
    ("play", "rack", "score"),
    [
        # T on D8 (DL) 2 + R A I 3 + N on H8 1 = 6, times 2 (H8) = 12.
        ("8D TRAIN", "TRAIN", 12),
        # Down the centre column: T on H8 1, then R A I N 4 (H9-H12 plain; H12 is DL: N 2) = 1+1+1+1+2 = 6, x2 = 12.
        ("H8 TRAIN", "TRAIN", 12),
        # Blank t on the DL: 0 x 2 = 0, + R A I N 4 = 4, x2 = 8.
        ("8D tRAIN", "?RAIN", 8),
        # Blank on the double word still doubles the rest: T2 R1 A1 I1 + n0 = 5, x2 = 10.
        ("8D TRAIn", "TRAI?", 10),
        # D on F8 2 + O on G8 1 + G on H8 2 = 5, x2 (H8) = 10.
        ("8F DOG", "DOG", 10),
        # Bingo: T on H8 1, R A I N 4, E on L8 (DL) 2, R 1 = 8, x2 = 16, + 50 = 66 (not (8+50) x 2).
        ("8H TRAINER", "TRAINER", 66),
    ],
)
def test_first_play_scores(
    play: str, rack: str, score: int, empty_board: Board, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    result = validate(empty_board, en_rules, en_lexicon, play, rack)
    assert result.score == score
    move = parse_move(play, empty_board)
    assert score_move(empty_board, en_rules, move)[0] == score


def test_two_double_words_make_four_times(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    # IT down H5-H6; 5E TRAINER puts T on E5 (DW) and R on K5 (DW), plays through the I on H5.
    # Seven letters of 1 = 7, x2 x2 = 28. Six tiles: no bingo.
    board = board_with(en_rules, r5=".......I.......", r6=".......T.......")
    result = validate(board, en_rules, en_lexicon, "5E TRAINER", "TRANER")
    assert result.score == 28
    assert [(w.text, w.score) for w in result.words] == [("TRAINER", 28)]


def test_two_triple_words_make_nine_times_then_the_bingo(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    # NO down E1-E2; 1A TRAINERS: T on A1 (TW), I on D1 (DL) 2, S on H1 (TW), N on the board.
    # T1 R1 A1 I2 N1 E1 R1 S1 = 9, x3 x3 = 81, seven tiles: + 50 = 131.
    board = board_with(en_rules, r1="....N..........", r2="....O..........")
    result = validate(board, en_rules, en_lexicon, "1A TRAINERS", "TRAIERS")
    assert result.score == 131
    assert [(w.text, w.score) for w in result.words] == [("TRAINERS", 81)]


def test_premiums_count_only_when_covered(train_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    # TRAINS: the T on D8 (DL) and N on H8 (DW) were covered last turn: 6 x 1 = 6.
    assert words_of(train_board, en_rules, en_lexicon, "8D TRAINS") == [("TRAINS", 6)]
    # ON down H7-H8 through the N: O on H7 1 + N 1 = 2 (H8 no longer doubles).
    assert words_of(train_board, en_rules, en_lexicon, "H7 ON") == [("ON", 2)]


def test_cross_words_with_a_letter_premium(train_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    # 7G XI: X on G7 (DL) = 16, I on H7 = 1.
    # XI across 16 + 1 = 17; XI down (X over the I of G8) 16 + 1 = 17; IN down (I over N of H8) 1 + 1 = 2.
    # The letter premium counts in both words it is part of; H8's double word is spent. 17 + 17 + 2 = 36.
    result = validate(train_board, en_rules, en_lexicon, "7G XI", "XI")
    assert [(w.text, w.score) for w in result.words] == [("XI", 17), ("XI", 17), ("IN", 2)]
    assert result.score == 36


def test_cross_words_with_a_blank_on_the_premium(train_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    # 7G xI with a blank x: 0 + 1 = 1 across, 0 + 1 = 1 down, IN 2: total 4.
    result = validate(train_board, en_rules, en_lexicon, "7G xI", "?I")
    assert [(w.text, w.score) for w in result.words] == [("xI", 1), ("xI", 1), ("IN", 2)]
    assert result.score == 4


def test_parallel_play(train_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    # 7F EX: E on F7 1, X on G7 (DL) 16. EX 17; EA down (E over A) 2; XI down (X over I) 17. Total 36.
    assert words_of(train_board, en_rules, en_lexicon, "7F EX", "EX") == [("EX", 17), ("EA", 2), ("XI", 17)]
    assert evaluate(train_board, en_rules, en_lexicon, "7F EX").score == 36


def test_bonus_only_for_all_seven_tiles(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    # 8H TRAINER through a T already on H8: six tiles, no bingo. T 1, R A I N 4, E on L8 (DL) 2,
    # R 1 = 8; H8's double word was spent by the T: 8.
    board = board_with(en_rules, r8=".......T.......")
    assert evaluate(board, en_rules, en_lexicon, "8H TRAINER", "RAINER").score == 8


# --- one tile, two words: one play ------------------------------------------------------------


def test_a_single_tile_forming_two_words_is_one_play(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    # TRAIN across row 8 and ON across row 9 at I9-J9: an S on I8 makes TRAINS across and SO down.
    board = board_with(en_rules, r8="...TRAIN.......", r9="........ON.....")
    across = parse_move("8D TRAINS", board)
    down = parse_move("I8 SO", board)
    placed = move_from_tiles(board, [Tile(7, 8, "S")])
    assert across == down == placed
    assert hash(across) == hash(down) == hash(placed)
    assert len({across, down, placed}) == 1
    # TRAINS 6 (I8 plain) + SO 2 = 8, whichever way it is written.
    for move in (across, down, placed):
        result = validate(board, en_rules, en_lexicon, move, "S")
        assert result.score == 8
        assert sorted(w.text for w in result.words) == ["SO", "TRAINS"]
    plays = [m for m in generate_moves(board, en_rules, en_lexicon, "S") if m == across]
    assert len(plays) == 1
    assert plays[0].score == 8


def test_move_equality_is_by_the_new_tiles() -> None:
    a = Move(7, 3, True, "TRAINS", (Tile(7, 8, "S"),))
    b = Move(7, 8, False, "SO", (Tile(7, 8, "S"),), score=8)
    assert a == b
    assert a != Move(7, 3, True, "TRAINs", (Tile(7, 8, "S", blank=True),))
    assert a != Move(7, 3, True, "TRAINS", (Tile(7, 9, "S"),))
    assert Move(0, 0, True, "AB", (Tile(0, 0, "A"), Tile(0, 1, "B"))) == Move(
        0, 0, True, "AB", (Tile(0, 1, "B"), Tile(0, 0, "A"))
    )


# --- the same answers through the JSON handler -----------------------------------------------


def test_score_handler_matches_the_engine(train_board: Board, lexicon_store: LexiconStore) -> None:
    request = {"board": train_board.rows(), "move": "7G XI", "rack": "XIEST"}
    assert score_handler(request, lexicon_store) == {
        "move": "7G XI",
        "score": 36,
        "words": [["XI", 17], ["XI", 17], ["IN", 2]],
        "valid": True,
    }
    phony = score_handler({"board": train_board.rows(), "move": "9D ZZ"}, lexicon_store)
    assert phony["valid"] is False
    assert phony["invalid_words"] == ["ZZ", "TZ", "RZ"]
    with pytest.raises(IllegalPlayError, match="rack has no second Q"):
        score_handler({"board": train_board.rows(), "move": "7F QQ", "rack": "Q"}, lexicon_store)


def test_score_handler_in_french(fr_rules: Ruleset, lexicon_store: LexiconStore) -> None:
    # French H4 TRAIN is English 8D TRAIN: 12 (same board, same letter values for T R A I N).
    result = score_handler({"rules": "fr", "board": ["." * 15] * 15, "move": "H4 TRAIN"}, lexicon_store)
    assert (result["move"], result["score"], result["valid"]) == ("H4 TRAIN", 12, True)
    english = score_handler(
        {"rules": "fr", "notation": "english", "board": ["." * 15] * 15, "move": "8D TRAIN"}, lexicon_store
    )
    assert english["score"] == 12
    assert format_move(parse_move("8D TRAIN", Board.empty(fr_rules)), "french") == "H4 TRAIN"
