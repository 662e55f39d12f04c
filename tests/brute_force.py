"""An obviously correct (and slow) generator of every legal play, to check the fast one against.

It shares nothing with :mod:`trainer.engine.movegen` nor with the word graph: words come
straight from the word list file, every span of every line is tried, and each word that fits a
span's board letters is checked tile by tile against the rack and the perpendicular words.
Scores come from :func:`trainer.engine.play.score_move`, which the game-record replays check on
their own.

The only shortcut is a filter applied once per line before the spans are tried: it drops words
with more letters found neither on the rack nor on the line than the rack has blanks (see
:func:`_coverable`). It is a necessary condition only, so it removes no legal play; every
surviving word still goes through the full checks.
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
from trainer.engine.rules import BLANK, Ruleset

Plays = dict[frozenset[Tile], int]


@cache
def read_words(path: Path) -> tuple[str, ...]:
    """The words of a compressed word list file, in file order."""
    return tuple(gzip.decompress(Path(path).read_bytes()).decode("ascii").split())


@cache
def word_set(path: Path) -> frozenset[str]:
    return frozenset(read_words(path))


@cache
def _word_text(path: Path) -> str:
    """All the words, one per line, for regex scans with ``re.M``."""
    return "\n".join(read_words(path)) + "\n"


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.M)


def _coverable(text: str, letters: set[str], blanks: int) -> dict[int, str]:
    """The words of ``text`` with at most ``blanks`` letters outside ``letters``, by length.

    A word played on a line is made of the board letters it goes through and the tiles it
    places; the former are letters of that line, the latter come from the rack, a blank
    standing for any letter. So each letter of a playable word that is neither on the rack
    nor on the line needs a blank: a word with more such letters (counted with repeats) than
    the rack has blanks cannot be played on the line. This is a necessary condition only; the
    span checks do the rest.
    """
    chars = "".join(sorted(letters))
    inside = f"[{chars}]*" if chars else ""
    outside = f"[^{chars}\\n]" if chars else "[^\\n]"
    scan = _regex(f"^{inside}(?:{outside}{inside}){{0,{blanks}}}$")
    by_length: dict[int, list[str]] = {}
    for word in scan.findall(text):
        by_length.setdefault(len(word), []).append(word)
    return {length: "\n".join(words) + "\n" for length, words in by_length.items()}


def all_plays(board: Board, rules: Ruleset, word_list: Path, rack: str) -> Plays:
    """Every legal play as {set of new tiles: score}."""
    words = word_set(word_list)
    text = _word_text(word_list)
    n = board.size
    rack_count = Counter(rack)
    blanks = rack_count.pop(BLANK, 0)
    first_play = board.is_empty()
    start_square = divmod(rules.layout.start, n)

    def occupied(r: int, c: int) -> bool:
        return 0 <= r < n and 0 <= c < n and board.at(r, c) != EMPTY

    def touches(r: int, c: int) -> bool:
        return any(occupied(r + a, c + b) for a, b in ((0, 1), (0, -1), (1, 0), (-1, 0)))

    @cache
    def cross_ok(square: tuple[int, int], letter: str, horizontal: bool) -> bool:
        """Whether ``letter`` on ``square`` makes a word (or nothing) across a play in that direction."""
        return _cross_word_valid(board, square, letter, horizontal, words)

    plays: Plays = {}
    candidates_cache: dict[frozenset[str], dict[int, str]] = {}
    for horizontal in (True, False):
        for line in range(n):
            squares = [(line, j) if horizontal else (j, line) for j in range(n)]
            cells = [board.at(r, c) for r, c in squares]  # the line in reading order, "." when empty
            letters = frozenset(rack_count) | {ch.upper() for ch in cells if ch != EMPTY}
            if letters not in candidates_cache:
                candidates_cache[letters] = _coverable(text, set(letters), blanks)
            candidates = candidates_cache[letters]
            for s in range(n):
                if s > 0 and cells[s - 1] != EMPTY:
                    continue  # the word would go on through the tile before the span
                for e in range(s + 1, n):
                    if e + 1 < n and cells[e + 1] != EMPTY:
                        continue  # the word would go on through the tile after the span
                    empty = [j for j in range(s, e + 1) if cells[j] == EMPTY]
                    if not 1 <= len(empty) <= len(rack):
                        continue
                    if first_play:
                        if start_square not in squares[s : e + 1]:
                            continue
                    elif len(empty) == e - s + 1 and not any(touches(*squares[j]) for j in empty):
                        continue  # goes through no tile and touches none
                    pattern = "".join("." if ch == EMPTY else ch.upper() for ch in cells[s : e + 1])
                    for word in _regex(f"^{pattern}$").findall(candidates.get(e - s + 1, "")):
                        new = [(squares[j], word[j - s]) for j in empty]
                        if not all(cross_ok(square, letter, horizontal) for square, letter in new):
                            continue
                        for choice in _blank_choices([letter for _, letter in new], rack_count, blanks):
                            tiles = tuple(
                                Tile(r, c, letter, is_blank)
                                for ((r, c), letter), is_blank in zip(new, choice, strict=True)
                            )
                            move = Move(*squares[s], horizontal, word, tiles)
                            plays[frozenset(tiles)] = score_move(board, rules, move)[0]
    return plays


def _blank_choices(letters: list[str], rack: Counter[str], blanks: int) -> list[tuple[bool, ...]]:
    """Every way to play ``letters``: for each, whether a blank plays it.

    Blanks go on every subset of at most ``blanks`` positions; a choice is kept when the rack
    holds the letters left for lettered tiles.
    """
    needed = Counter(letters)
    if sum(max(0, k - rack[letter]) for letter, k in needed.items()) > blanks:
        return []  # more letters missing from the rack than blanks to stand for them
    choices = []
    for count in range(min(blanks, len(letters)) + 1):
        for on_blank in itertools.combinations(range(len(letters)), count):
            left = needed.copy()
            for i in on_blank:
                left[letters[i]] -= 1
            if all(rack[letter] >= k for letter, k in left.items()):
                choices.append(tuple(i in on_blank for i in range(len(letters))))
    return choices


def _cross_word_valid(
    board: Board, square: tuple[int, int], letter: str, horizontal: bool, words: frozenset[str]
) -> bool:
    """Whether the perpendicular run through a new ``letter`` on ``square`` is a word (or one letter)."""
    n = board.size
    row, col = square
    dr, dc = (1, 0) if horizontal else (0, 1)
    r, c = row, col
    while 0 <= r - dr < n and 0 <= c - dc < n and board.at(r - dr, c - dc) != EMPTY:
        r, c = r - dr, c - dc
    letters = []
    while 0 <= r < n and 0 <= c < n and ((r, c) == (row, col) or board.at(r, c) != EMPTY):
        letters.append(letter if (r, c) == (row, col) else board.at(r, c).upper())
        r, c = r + dr, c + dc
    return len(letters) == 1 or "".join(letters) in words
