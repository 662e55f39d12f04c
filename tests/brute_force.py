"""An obviously correct (and slow) generator of every legal play, to check the fast one against.

It shares nothing with :mod:`trainer.engine.movegen`: words come straight from the word list
file, every span of every line is tried, and each word that fits a span's board letters is
checked tile by tile against the rack and the perpendicular words. Scores come from
:func:`trainer.engine.play.score_move`, which the game-record replays check on their own.
"""

from __future__ import annotations

import gzip
import itertools
import re
from collections import Counter
from functools import cache
from pathlib import Path

from trainer.engine.board import EMPTY, Board, Move, Tile
from trainer.engine.play import score_move
from trainer.engine.rules import Ruleset


@cache
def words_by_length(path: Path) -> dict[int, str]:
    """All words of the list, one ``\\n``-joined string per length (for fast regex scans)."""
    words = gzip.decompress(path.read_bytes()).decode("ascii").split()
    by_length: dict[int, list[str]] = {}
    for w in words:
        by_length.setdefault(len(w), []).append(w)
    return {n: "\n".join(ws) + "\n" for n, ws in by_length.items()}


@cache
def word_set(path: Path) -> frozenset[str]:
    return frozenset(gzip.decompress(path.read_bytes()).decode("ascii").split())


def all_plays(board: Board, rules: Ruleset, word_list: Path, rack: str) -> dict[frozenset[Tile], int]:
    """Every legal play as {set of new tiles: score}."""
    words = word_set(word_list)
    by_length = words_by_length(word_list)
    n = board.size
    rack_count = Counter(rack)
    blanks = rack_count.pop("?", 0)
    first_play = board.is_empty()
    start_square = divmod(rules.layout.start, n)

    def tile(r: int, c: int) -> str:
        return board.at(r, c) if 0 <= r < n and 0 <= c < n else EMPTY

    plays: dict[frozenset[Tile], int] = {}
    for horizontal in (True, False):
        dr, dc = (0, 1) if horizontal else (1, 0)
        for line in range(n):
            for s in range(n):
                for e in range(s + 1, n):
                    squares = [(line, j) if horizontal else (j, line) for j in range(s, e + 1)]
                    r0, c0 = squares[0]
                    r1, c1 = squares[-1]
                    if tile(r0 - dr, c0 - dc) != EMPTY or tile(r1 + dr, c1 + dc) != EMPTY:
                        continue
                    empty = [sq for sq in squares if tile(*sq) == EMPTY]
                    if not 1 <= len(empty) <= len(rack):
                        continue
                    if first_play:
                        if start_square not in squares:
                            continue
                    elif len(empty) == len(squares) and not any(
                        tile(r + a, c + b) != EMPTY for r, c in empty for a, b in ((0, 1), (0, -1), (1, 0), (-1, 0))
                    ):
                        continue
                    pattern = "".join("." if tile(*sq) == EMPTY else tile(*sq).upper() for sq in squares)
                    text = by_length.get(len(squares), "")
                    for match in re.finditer(f"^{pattern}$", text, re.M):
                        word = match.group(0)
                        new_letters = [word[squares.index(sq)] for sq in empty]
                        for choice in _blank_choices(new_letters, rack_count, blanks):
                            tiles = tuple(Tile(r, c, letter, is_blank)
                                          for (r, c), letter, is_blank in zip(empty, new_letters, choice))
                            if not _cross_words_valid(board, tiles, horizontal, words):
                                continue
                            move = Move(r0, c0, horizontal, word, tiles)
                            plays[frozenset(tiles)] = score_move(board, rules, move)[0]
    return plays


def _blank_choices(letters: list[str], rack: Counter[str], blanks: int) -> list[tuple[bool, ...]]:
    """Every way to play ``letters``: for each, whether a blank plays it."""
    choices = []
    for choice in itertools.product((False, True), repeat=len(letters)):
        if sum(choice) > blanks:
            continue
        used = Counter(letter for letter, is_blank in zip(letters, choice) if not is_blank)
        if all(rack[letter] >= k for letter, k in used.items()):
            choices.append(choice)
    return choices


def _cross_words_valid(board: Board, tiles: tuple[Tile, ...], horizontal: bool, words: frozenset[str]) -> bool:
    n = board.size
    dr, dc = (1, 0) if horizontal else (0, 1)
    for t in tiles:
        r, c = t.row, t.col
        while 0 <= r - dr < n and 0 <= c - dc < n and board.at(r - dr, c - dc) != EMPTY:
            r, c = r - dr, c - dc
        letters = []
        while 0 <= r < n and 0 <= c < n and ((r, c) == (t.row, t.col) or board.at(r, c) != EMPTY):
            letters.append(t.letter if (r, c) == (t.row, t.col) else board.at(r, c).upper())
            r, c = r + dr, c + dc
        if len(letters) > 1 and "".join(letters) not in words:
            return False
    return True
