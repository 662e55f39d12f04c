"""Rules as data: board layouts, tile sets and the rulesets that combine them.

Layouts and tile sets live in ``data/`` beside this module; a new board (say 21x21) or a new
tile set is a new data file, never new code.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

Notation = Literal["english", "french"]

BLANK = "?"

# Layout file symbols: (letter multiplier, word multiplier).
_PREMIUM_SYMBOLS: dict[str, tuple[int, int]] = {
    ".": (1, 1),
    "'": (2, 1),
    '"': (3, 1),
    "-": (1, 2),
    "=": (1, 3),
    "*": (1, 2),
}


@dataclass(frozen=True)
class Layout:
    """A board's size, premium squares and start square (squares are ``row * size + col``)."""

    name: str
    size: int
    letter_multipliers: tuple[int, ...]
    word_multipliers: tuple[int, ...]
    start: int

    @classmethod
    def from_text(cls, name: str, text: str) -> Layout:
        rows = [line for line in text.splitlines() if line and not line.startswith("#")]
        size = len(rows)
        if size == 0 or any(len(row) != size for row in rows):
            raise ValueError(f"layout {name}: expected a square grid, got rows of {[len(r) for r in rows]}")
        letter, word, starts = [], [], []
        for r, row in enumerate(rows):
            for c, symbol in enumerate(row):
                if symbol not in _PREMIUM_SYMBOLS:
                    raise ValueError(f"layout {name}: unknown symbol {symbol!r} at row {r + 1}")
                lm, wm = _PREMIUM_SYMBOLS[symbol]
                letter.append(lm)
                word.append(wm)
                if symbol == "*":
                    starts.append(r * size + c)
        if len(starts) != 1:
            raise ValueError(f"layout {name}: expected one start square '*', found {len(starts)}")
        return cls(name, size, tuple(letter), tuple(word), starts[0])


@dataclass(frozen=True)
class TileSet:
    """Letters with their counts and values; blanks are counted apart and worth 0."""

    name: str
    letters: str
    counts: tuple[int, ...]
    values: tuple[int, ...]
    blanks: int
    vowels: frozenset[str]
    either: frozenset[str]  # letters that count as vowel or consonant (Y in French)

    @property
    def total(self) -> int:
        return sum(self.counts) + self.blanks

    def value(self, letter: str) -> int:
        """Face value of a tile; a lower-case letter is a blank and worth 0."""
        if letter.islower() or letter == BLANK:
            return 0
        return self.values[self.letters.index(letter)]

    def bag(self) -> list[str]:
        """Every tile of a full bag, blanks as ``?``, in a fixed order."""
        tiles = [letter for letter, n in zip(self.letters, self.counts, strict=True) for _ in range(n)]
        return tiles + [BLANK] * self.blanks

    @classmethod
    def from_json(cls, data: dict[str, object]) -> TileSet:
        tiles = data["tiles"]
        assert isinstance(tiles, dict)
        letters = "".join(tiles)
        return cls(
            name=str(data["name"]),
            letters=letters,
            counts=tuple(int(tiles[ch][0]) for ch in letters),
            values=tuple(int(tiles[ch][1]) for ch in letters),
            blanks=int(str(data["blanks"])),
            vowels=frozenset(str(data["vowels"])),
            either=frozenset(str(data.get("both", ""))),
        )


@dataclass(frozen=True)
class Ruleset:
    """Everything a game needs apart from the words: layout, tiles, notation, default lexicon."""

    code: str
    name: str
    layout: Layout
    tileset: TileSet
    notation: Notation
    lexicon: str
    rack_size: int
    bingo_bonus: int


def _data_text(*parts: str) -> str:
    return resources.files("trainer.engine").joinpath("data", *parts).read_text("utf-8")


@cache
def layout(name: str) -> Layout:
    return Layout.from_text(name, _data_text("layouts", f"{name}.txt"))


@cache
def tileset(name: str) -> TileSet:
    return TileSet.from_json(json.loads(_data_text("tilesets", f"{name}.json")))


@cache
def _ruleset_table() -> dict[str, dict[str, object]]:
    table: dict[str, dict[str, object]] = json.loads(_data_text("rulesets.json"))
    return table


def ruleset_codes() -> list[str]:
    return sorted(_ruleset_table())


@cache
def ruleset(code: str) -> Ruleset:
    """The ruleset named ``code`` (``en``, ``fr``); ``ValueError`` names the known ones."""
    table = _ruleset_table()
    if code not in table:
        raise ValueError(f"unknown rules {code!r} (known: {', '.join(sorted(table))})")
    entry = table[code]
    notation = str(entry["notation"])
    if notation not in ("english", "french"):
        raise ValueError(f"rules {code}: unknown notation {notation!r}")
    return Ruleset(
        code=code,
        name=str(entry["name"]),
        layout=layout(str(entry["layout"])),
        tileset=tileset(str(entry["tileset"])),
        notation=notation,  # type: ignore[arg-type]
        lexicon=str(entry["lexicon"]),
        rack_size=int(str(entry["rack_size"])),
        bingo_bonus=int(str(entry["bingo_bonus"])),
    )
