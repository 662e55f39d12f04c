"""Notation of squares and plays, in both conventions of docs/rules.md §5.

English (tournament): columns are letters, rows numbers; ``8D`` (row first) is across,
``D8`` (column first) is down. French (duplicate): rows are letters, columns numbers; ``H4``
(row first) is across, ``4H`` (column first) is down. Square names follow the same convention:
English ``H8`` is column H row 8, French ``H8`` is row H column 8.

In the word, a blank is lower case and letters already on the board may be written plainly,
in parentheses, or as ``.``. The formatter writes plain letters unless asked otherwise.
"""

from __future__ import annotations

import re
from typing import Literal

from .board import Board, Move, Tile
from .errors import IllegalPlayError, NotationError
from .rules import Notation

ThroughStyle = Literal["plain", "parens", "dot"]
NOTATIONS: tuple[Notation, ...] = ("english", "french")

_COORD = re.compile(r"^(?:([A-Za-z])([0-9]{1,2})|([0-9]{1,2})([A-Za-z]))$")  # ASCII digits only, not any \d
_WORD_ITEM = re.compile(r"\(([A-Za-z]+)\)|([A-Za-z])|(\.)")


def _letter_name(index: int) -> str:
    return chr(ord("A") + index)


def _check_notation(notation: str) -> Notation:
    if notation == "english":
        return "english"
    if notation == "french":
        return "french"
    raise NotationError(f"unknown notation {notation!r} (use english or french)", code="unknown_notation")


def square_name(row: int, col: int, notation: Notation = "english") -> str:
    """``H8`` for the centre in both conventions; English names the column first."""
    if _check_notation(notation) == "english":
        return f"{_letter_name(col)}{row + 1}"
    return f"{_letter_name(row)}{col + 1}"


def format_coordinate(row: int, col: int, horizontal: bool, notation: Notation = "english") -> str:
    """The coordinate of a play starting at (row, col): the line first, then the square on it."""
    if _check_notation(notation) == "english":
        return f"{row + 1}{_letter_name(col)}" if horizontal else f"{_letter_name(col)}{row + 1}"
    return f"{_letter_name(row)}{col + 1}" if horizontal else f"{col + 1}{_letter_name(row)}"


def parse_coordinate(text: str, notation: Notation = "english", size: int = 15) -> tuple[int, int, bool]:
    """(row, col, horizontal) of a coordinate such as ``8D`` (English) or ``H4`` (French)."""
    notation = _check_notation(notation)
    match = _COORD.match(text.strip())
    if not match:
        example = "8D or D8" if notation == "english" else "H4 or 4H"
        raise NotationError(
            f"{text.strip()!r} is not a coordinate (expected a letter and a number, like {example})",
            code="bad_coordinate",
            text=text.strip(),
        )
    if match.group(1):  # letter first
        letter, number, letter_first = match.group(1).upper(), int(match.group(2)), True
    else:
        letter, number, letter_first = match.group(4).upper(), int(match.group(3)), False
    letter_index = ord(letter) - ord("A")
    # English: letters are columns, and the number first means across. French: the reverse.
    letter_axis, number_axis = ("column", "row") if notation == "english" else ("row", "column")
    if letter_index >= size:
        raise NotationError(
            f"{letter_axis} {letter} is off the board", code="off_board_coordinate", axis=letter_axis, name=letter
        )
    if not 1 <= number <= size:
        raise NotationError(
            f"{number_axis} {number} is off the board", code="off_board_coordinate", axis=number_axis, name=str(number)
        )
    if notation == "english":
        return number - 1, letter_index, not letter_first
    return letter_index, number - 1, letter_first


def _parse_word(text: str) -> list[tuple[str, bool]]:
    """Items of a written word: (char, marked_through); char ``.`` is an unnamed board tile."""
    items: list[tuple[str, bool]] = []
    position = 0
    while position < len(text):
        match = _WORD_ITEM.match(text, position)
        if not match:
            raise NotationError(
                f"{text!r}: unexpected {text[position]!r} at position {position + 1}", code="bad_word", word=text
            )
        if match.group(1):
            items.extend((ch, True) for ch in match.group(1))
        elif match.group(2):
            items.append((match.group(2), False))
        else:
            items.append((".", True))
        position = match.end()
    if not items:
        raise NotationError("the play has no word", code="bad_word", word=text)
    return items


def parse_move(text: str, board: Board, notation: Notation = "english") -> Move:
    """Read ``COORD WORD`` against ``board``; letters on the board become played-through.

    Raises :class:`NotationError` for text that is not a play and :class:`IllegalPlayError`
    when the word does not fit the board (off the edge, a mismatch with a tile on the board).
    Rack and rules are checked by :func:`trainer.engine.play.check_placement`.
    """
    if not isinstance(text, str):
        raise NotationError("the play must be text such as '8D TRAIN'", code="bad_notation")
    parts = text.split()
    if len(parts) != 2:
        example = "8D TRAIN" if notation == "english" else "H4 TRAIN"
        raise NotationError(
            f"{text.strip()!r}: expected a coordinate and a word, like {example}",
            code="bad_notation",
            text=text.strip(),
        )
    row, col, horizontal = parse_coordinate(parts[0], notation, board.size)
    items = _parse_word(parts[1])
    dr, dc = (0, 1) if horizontal else (1, 0)
    end_row, end_col = row + dr * (len(items) - 1), col + dc * (len(items) - 1)
    if not board.on_board(end_row, end_col):
        raise IllegalPlayError(
            f"{parts[1]} runs off the board ({len(items)} letters from {square_name(row, col, notation)})",
            code="off_board",
            word=parts[1],
            square=square_name(row, col, notation),
        )
    word: list[str] = []
    tiles: list[Tile] = []
    for i, (ch, marked) in enumerate(items):
        r, c = row + dr * i, col + dc * i
        on_board = board.at(r, c)
        name = square_name(r, c, notation)
        if on_board == ".":
            if marked:
                raise IllegalPlayError(
                    f"no tile at {name} to play through", code="nothing_to_play_through", square=name
                )
            tiles.append(Tile.from_char(r, c, ch))
            word.append(ch)
        else:
            if ch != "." and ch.upper() != on_board.upper():
                raise IllegalPlayError(
                    f"{name} holds {on_board.upper()}, not {ch.upper()}",
                    code="tile_mismatch",
                    square=name,
                    board=on_board.upper(),
                    written=ch.upper(),
                )
            word.append(on_board)
    return Move(row, col, horizontal, "".join(word), tuple(tiles))


def format_move(move: Move, notation: Notation = "english", through: ThroughStyle = "plain") -> str:
    """``8D TRAIN``: the coordinate and the whole main word, played-through letters per ``through``."""
    if through not in ("plain", "parens", "dot"):
        raise ValueError(f"unknown style {through!r} for played-through letters (use plain, parens or dot)")
    new_squares = {(t.row, t.col) for t in move.tiles}
    dr, dc = (0, 1) if move.horizontal else (1, 0)
    out: list[str] = []
    in_parens = False
    for i, ch in enumerate(move.word):
        is_new = (move.row + dr * i, move.col + dc * i) in new_squares
        if through == "dot":
            out.append(ch if is_new else ".")
        elif through == "parens":
            if not is_new and not in_parens:
                out.append("(")
                in_parens = True
            elif is_new and in_parens:
                out.append(")")
                in_parens = False
            out.append(ch)
        else:
            out.append(ch)
    if in_parens:
        out.append(")")
    return f"{format_coordinate(move.row, move.col, move.horizontal, notation)} {''.join(out)}"
