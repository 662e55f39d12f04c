"""Checking and scoring a play (docs/rules.md §3 and §4).

The placement rules are checked one by one, each with its own message; word validity is
checked apart (:func:`evaluate`), because the duplicate server must not reveal it before a
round closes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .board import EMPTY, Board, Move, Tile
from .errors import IllegalPlayError, InvalidWordsError, RackError
from .lexicon import Lexicon
from .notation import parse_move, square_name
from .rules import BLANK, Notation, Ruleset

_ORDINALS = ["", "", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth"]


@dataclass(frozen=True)
class Word:
    """A word formed by a play, with its score and squares (row, col)."""

    text: str
    score: int
    squares: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Evaluation:
    """A play that passed the placement rules: its score and words, and which are not words."""

    move: Move
    score: int
    words: tuple[Word, ...]
    invalid_words: tuple[str, ...]

    @property
    def valid(self) -> bool:
        return not self.invalid_words


def parse_rack(text: str, rules: Ruleset) -> list[str]:
    """Rack tiles from text such as ``AEINRT?`` (upper case letters, ``?`` for a blank)."""
    if not isinstance(text, str):
        raise RackError("the rack must be text such as 'AEINRT?'")
    tiles = [ch.upper() if ch != BLANK else BLANK for ch in text.strip()]
    for ch in tiles:
        if ch != BLANK and ch not in rules.tileset.letters:
            raise RackError(
                f"rack has {ch!r}, which is not a tile (letters and ? for a blank)", code="bad_rack_tile", tile=ch
            )
    if len(tiles) > rules.rack_size:
        raise RackError(
            f"rack has {len(tiles)} tiles, at most {rules.rack_size}", code="rack_too_long", count=len(tiles)
        )
    return tiles


def move_from_tiles(board: Board, tiles: Sequence[Tile], notation: Notation = "english") -> Move:
    """The play made by ``tiles`` (any order): checks they are new, in one line and without gaps.

    Squares in error messages are named in ``notation``.
    """

    def name(r: int, c: int) -> str:
        return square_name(r, c, notation)

    if not tiles:
        raise IllegalPlayError("the play places no tile", code="no_tiles")
    squares = {(t.row, t.col) for t in tiles}
    if len(squares) != len(tiles):
        raise IllegalPlayError("two tiles on the same square", code="same_square")
    for t in tiles:
        if not board.on_board(t.row, t.col):
            raise IllegalPlayError(
                f"the tile {t.char} at row {t.row + 1}, column {t.col + 1} is off the board",
                code="off_board",
                row=t.row + 1,
                col=t.col + 1,
            )
        if board.at(t.row, t.col) != EMPTY:
            raise IllegalPlayError(
                f"{name(t.row, t.col)} is already taken", code="square_taken", square=name(t.row, t.col)
            )
    rows = {t.row for t in tiles}
    cols = {t.col for t in tiles}
    if len(rows) > 1 and len(cols) > 1:
        raise IllegalPlayError("the tiles are not all in one row or one column", code="not_in_line")
    if len(tiles) == 1:
        t = tiles[0]
        across = _run(board, squares, t.row, t.col, 0, 1)
        horizontal = len(across) > 1 or len(_run(board, squares, t.row, t.col, 1, 0)) == 1
    else:
        horizontal = len(rows) == 1
    dr, dc = (0, 1) if horizontal else (1, 0)
    first = min(tiles, key=lambda t: (t.row, t.col))
    last = max(tiles, key=lambda t: (t.row, t.col))
    by_square = {(t.row, t.col): t for t in tiles}
    r, c = first.row, first.col
    while (r, c) != (last.row, last.col):
        r, c = r + dr, c + dc
        if (r, c) not in by_square and board.at(r, c) == EMPTY:
            raise IllegalPlayError(f"there is a gap at {name(r, c)}", code="gap", square=name(r, c))
    run = _run(board, by_square, first.row, first.col, dr, dc)
    word = "".join(by_square[sq].char if sq in by_square else board.at(*sq) for sq in run)
    return Move(run[0][0], run[0][1], horizontal, word, tuple(sorted(tiles, key=lambda t: (t.row, t.col))))


def _run(
    board: Board, new: Iterable[tuple[int, int]] | dict[tuple[int, int], Tile], row: int, col: int, dr: int, dc: int
) -> list[tuple[int, int]]:
    """The squares of the whole run of tiles (board and new) through (row, col) along (dr, dc)."""
    new_squares = new if isinstance(new, dict) else set(new)

    def filled(r: int, c: int) -> bool:
        return board.on_board(r, c) and ((r, c) in new_squares or board.at(r, c) != EMPTY)

    r, c = row, col
    while filled(r - dr, c - dc):
        r, c = r - dr, c - dc
    run = []
    while filled(r, c):
        run.append((r, c))
        r, c = r + dr, c + dc
    return run


def check_placement(
    board: Board, rules: Ruleset, move: Move, rack: Sequence[str] | None = None, notation: Notation = "english"
) -> None:
    """Raise :class:`IllegalPlayError` for the first placement rule the play breaks.

    ``rack`` (tiles, ``?`` for blanks) is checked when given. Words are not looked up here.
    """

    def name(r: int, c: int) -> str:
        return square_name(r, c, notation)

    if not move.tiles:
        raise IllegalPlayError("the play places no new tile", code="no_tiles")
    if rack is not None:
        _check_rack(move, rack)
    for t in move.tiles:
        if board.at(t.row, t.col) != EMPTY:
            raise IllegalPlayError(
                f"{name(t.row, t.col)} is already taken", code="square_taken", square=name(t.row, t.col)
            )
    dr, dc = (0, 1) if move.horizontal else (1, 0)
    before = (move.row - dr, move.col - dc)
    after = (move.row + dr * len(move.word), move.col + dc * len(move.word))
    for r, c in (before, after):
        if board.on_board(r, c) and board.at(r, c) != EMPTY:
            raise IllegalPlayError(
                f"the word continues through the tile at {name(r, c)}: write the whole word",
                code="partial_word",
                square=name(r, c),
            )
    squares = {(t.row, t.col) for t in move.tiles}
    if board.is_empty():
        start = divmod(rules.layout.start, board.size)
        if start not in squares:
            raise IllegalPlayError(
                f"the first play must cover the centre square {name(*start)}",
                code="first_not_on_start",
                square=name(*start),
            )
        if len(move.tiles) < 2:
            raise IllegalPlayError("the first play must have at least two letters", code="first_too_short")
        return
    through_board = len(move.word) > len(move.tiles)
    touches = through_board or any(
        board.on_board(t.row + a, t.col + b) and board.at(t.row + a, t.col + b) != EMPTY
        for t in move.tiles
        for a, b in ((0, 1), (0, -1), (1, 0), (-1, 0))
    )
    if not touches:
        raise IllegalPlayError("the play does not touch any tile on the board", code="not_connected")
    if len(move.word) < 2 and not _cross_words(board, move):
        raise IllegalPlayError("the play forms no word of two letters or more", code="no_word")


def _check_rack(move: Move, rack: Sequence[str]) -> None:
    available = Counter(rack)
    needed: Counter[str] = Counter()
    for t in move.tiles:
        key = BLANK if t.blank else t.letter
        needed[key] += 1
        if needed[key] > available[key]:
            what = "blank" if key == BLANK else key
            nth = needed[key]
            if nth == 1:
                message = f"rack has no {what}"
            else:
                ordinal = _ORDINALS[nth] if nth < len(_ORDINALS) else f"{nth}th"
                message = f"rack has no {ordinal} {what}"
            raise IllegalPlayError(message, code="not_in_rack", tile=what, count=nth)


def _cross_words(board: Board, move: Move) -> list[list[tuple[int, int]]]:
    """Runs of two or more squares perpendicular to the play through each new tile."""
    dr, dc = (1, 0) if move.horizontal else (0, 1)
    squares = {(t.row, t.col) for t in move.tiles}
    runs = []
    for t in move.tiles:
        run = _run(board, squares, t.row, t.col, dr, dc)
        if len(run) > 1:
            runs.append(run)
    return runs


def score_move(board: Board, rules: Ruleset, move: Move) -> tuple[int, list[Word]]:
    """Score a placed-legal play: the sum of its words, plus the bingo bonus (section 4)."""
    new = {(t.row, t.col): t for t in move.tiles}
    size = board.size
    lm, wm = rules.layout.letter_multipliers, rules.layout.word_multipliers
    value = rules.tileset.value
    dr, dc = (0, 1) if move.horizontal else (1, 0)
    main = [(move.row + dr * i, move.col + dc * i) for i in range(len(move.word))]
    runs = ([main] if len(main) > 1 else []) + _cross_words(board, move)
    words: list[Word] = []
    for run in runs:
        total, multiplier, letters = 0, 1, []
        for r, c in run:
            tile = new.get((r, c))
            if tile is not None:
                total += value(tile.char) * lm[r * size + c]
                multiplier *= wm[r * size + c]
                letters.append(tile.char)
            else:
                ch = board.at(r, c)
                total += value(ch)
                letters.append(ch)
        words.append(Word("".join(letters), total * multiplier, tuple(run)))
    score = sum(w.score for w in words)
    if len(move.tiles) == rules.rack_size:
        score += rules.bingo_bonus
    return score, words


def evaluate(
    board: Board,
    rules: Ruleset,
    lexicon: Lexicon,
    move: Move | str,
    rack: Sequence[str] | str | None = None,
    notation: Notation | None = None,
) -> Evaluation:
    """Check the placement (raising on the first broken rule), then score and look up the words."""
    notation = notation or rules.notation
    if isinstance(rack, str):
        rack = parse_rack(rack, rules)
    if isinstance(move, str):
        move = parse_move(move, board, notation)
    check_placement(board, rules, move, rack, notation)
    score, words = score_move(board, rules, move)
    invalid = tuple(dict.fromkeys(w.text.upper() for w in words if w.text not in lexicon))
    return Evaluation(move, score, tuple(words), invalid)


def validate(
    board: Board,
    rules: Ruleset,
    lexicon: Lexicon,
    move: Move | str,
    rack: Sequence[str] | str | None = None,
    notation: Notation | None = None,
) -> Evaluation:
    """Like :func:`evaluate`, but a play with words missing from the lexicon raises too."""
    result = evaluate(board, rules, lexicon, move, rack, notation)
    if result.invalid_words:
        raise InvalidWordsError(list(result.invalid_words))
    return result
