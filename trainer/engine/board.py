"""The board: a layout with the tiles on it, and the value objects that describe plays.

A square is an ``int`` (``row * size + col``, 0-based). A tile is a one-character string:
``A``-``Z`` for a lettered tile, ``a``-``z`` for a blank standing for that letter.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .errors import BoardError
from .rules import Layout, Ruleset

Square = int
EMPTY = "."


@dataclass(frozen=True)
class Tile:
    """One tile placed by a play: where, which letter, and whether it is a blank."""

    row: int
    col: int
    letter: str  # upper case; the letter a blank stands for when ``blank``
    blank: bool = False

    @property
    def char(self) -> str:
        """``A`` for a lettered tile, ``a`` for a blank standing for A."""
        return self.letter.lower() if self.blank else self.letter

    @classmethod
    def from_char(cls, row: int, col: int, char: str) -> Tile:
        return cls(row, col, char.upper(), char.islower())


@dataclass(frozen=True, eq=False)
class Move:
    """A play: the new tiles it puts on the board.

    Two plays are equal exactly when they put the same tiles on the same squares, so a single
    tile read across or down is one play. ``row``/``col``/``horizontal`` locate the main word,
    ``word`` spells it with the tiles played through (blanks in lower case).
    """

    row: int
    col: int
    horizontal: bool
    word: str
    tiles: tuple[Tile, ...]
    score: int | None = field(default=None, compare=False)

    @property
    def key(self) -> frozenset[Tile]:
        return frozenset(self.tiles)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    @property
    def blanks(self) -> int:
        return sum(t.blank for t in self.tiles)

    def rack_tiles(self) -> str:
        """The rack tiles this play uses, blanks as ``?``."""
        return "".join("?" if t.blank else t.letter for t in self.tiles)


class Board:
    """Tiles on a layout. Mutable: :meth:`place` adds a play's tiles."""

    def __init__(self, layout: Layout, cells: Sequence[str] | None = None) -> None:
        self.layout = layout
        self.size = layout.size
        self.cells: list[str] = list(cells) if cells is not None else [EMPTY] * (self.size * self.size)
        if len(self.cells) != self.size * self.size:
            raise BoardError(f"expected {self.size * self.size} squares, got {len(self.cells)}")

    @classmethod
    def from_rows(cls, layout: Layout, rows: Sequence[str]) -> Board:
        """A board from ``size`` strings of ``size`` characters: ``.``, ``A``-``Z``, ``a``-``z``."""
        if isinstance(rows, str) or not isinstance(rows, Sequence):
            raise BoardError(f"the board must be a list of {layout.size} strings")
        if len(rows) != layout.size:
            raise BoardError(f"the board has {len(rows)} rows, expected {layout.size}")
        cells: list[str] = []
        for r, row in enumerate(rows, start=1):
            if not isinstance(row, str):
                raise BoardError(f"board row {r} is not a string")
            if len(row) != layout.size:
                raise BoardError(f"board row {r} has {len(row)} squares, expected {layout.size}")
            for c, ch in enumerate(row, start=1):
                if ch != EMPTY and not ("A" <= ch <= "Z" or "a" <= ch <= "z"):
                    raise BoardError(f"board row {r}, square {c}: {ch!r} is not '.', A-Z or a-z")
            cells.extend(row)
        return cls(layout, cells)

    @classmethod
    def empty(cls, rules: Ruleset) -> Board:
        return cls(rules.layout)

    def rows(self) -> list[str]:
        n = self.size
        return ["".join(self.cells[r * n : (r + 1) * n]) for r in range(n)]

    def __str__(self) -> str:
        return "\n".join(self.rows())

    def __repr__(self) -> str:
        return f"Board.from_rows(layout({self.layout.name!r}), {self.rows()!r})"

    def copy(self) -> Board:
        return Board(self.layout, self.cells)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.layout == other.layout and self.cells == other.cells

    def __hash__(self) -> int:
        return hash((self.layout.name, tuple(self.cells)))

    def on_board(self, row: int, col: int) -> bool:
        return 0 <= row < self.size and 0 <= col < self.size

    def at(self, row: int, col: int) -> str:
        """The tile at (row, col), ``.`` when empty."""
        return self.cells[row * self.size + col]

    def is_empty(self) -> bool:
        return self.cells.count(EMPTY) == len(self.cells)  # counted in C: judged for every play handed in

    def tile_count(self) -> int:
        return len(self.cells) - self.cells.count(EMPTY)

    def place(self, tiles: Iterable[Tile]) -> None:
        """Put tiles on empty squares (the caller has validated the play)."""
        for tile in tiles:
            index = tile.row * self.size + tile.col
            if self.cells[index] != EMPTY:
                raise BoardError(f"square {tile.row + 1},{tile.col + 1} is already taken")
            self.cells[index] = tile.char

    def tiles_on_board(self) -> list[str]:
        """The tiles on the board as rack characters (blanks as ``?``)."""
        return ["?" if ch.islower() else ch for ch in self.cells if ch != EMPTY]
