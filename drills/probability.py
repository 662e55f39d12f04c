"""Probability order: the alphagrams a player draws most often come first, so they are studied first.

For an alphagram (letters in alphabetical order, RETAINS -> AEINRST) the number of ways to draw it
from a full bag is the product over its letters of C(count in bag, count in word), plus the ways
where blanks stand in for some of its letters (docs/rules.md §7.2). Dividing by C(total tiles, length)
gives the probability; alphagrams of one length are ranked by that number, ties alphabetical.
The order depends on the tile set (English and French bags differ) and the lexicon (which
alphagrams have words), so an index is built per lexicon.

Everything is integer arithmetic over small precomputed tables: ranking every length of the
English lexicon (240,000 alphagrams) takes a few seconds in pure Python (bench/drills.py).
"""

from __future__ import annotations

import gc
import itertools
import re
import threading
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from math import comb
from typing import NamedTuple, overload

from trainer.engine.lexicon import Lexicon
from trainer.engine.rules import BLANK, TileSet

MIN_LENGTH = 2
MAX_LENGTH = 15

_RUNS = re.compile(r"((.)\2*)")  # "AAEINR" -> runs "AA", "E", "I", "N", "R"


def alphagram(word: str) -> str:
    """The letters of ``word`` in alphabetical order, blanks (``?``) last: the key of an anagram card."""
    letters = sorted(word.replace(BLANK, ""))
    return "".join(letters) + BLANK * word.count(BLANK)


class BagOdds:
    """How many ways a tile set's full bag yields a given alphagram or rack.

    Per (letter, count in word) the coefficients C(count in bag, count - d) for d = 0..blanks are
    tabulated once, so an alphagram costs one small polynomial product (the power of x counts the
    blanks standing in) instead of any enumeration.
    """

    def __init__(self, tileset: TileSet) -> None:
        self.tileset = tileset
        self.blanks = tileset.blanks
        self.total = tileset.total
        bag = dict(zip(tileset.letters, tileset.counts, strict=True))
        # "AA" -> (C(9, 2), C(9, 1), C(9, 0)) for English: 0, 1 or 2 of the As drawn as blanks.
        self._runs: dict[str, tuple[int, ...]] = {}
        for letter, count in bag.items():
            for n in range(1, MAX_LENGTH + 1):
                self._runs[letter * n] = tuple(comb(count, n - d) if n - d >= 0 else 0 for d in range(self.blanks + 1))
        self._blank_ways = tuple(comb(self.blanks, k) for k in range(self.blanks + 1))
        self._draws = {n: comb(self.total, n) for n in range(MAX_LENGTH + 1)}

    def ways(self, letters: str) -> int:
        """Ways to draw the tiles that spell ``letters`` (any order), blanks standing in for any of them.

        Exact count of distinct draws: a draw holds, per letter, j real tiles (j at most the count
        in the word) and k blanks for the rest, and there are C(bag, j) * C(blanks, k) of each.
        Letters outside the tile set make no draw: 0. A ``?`` in ``letters`` is a blank tile of the
        rack itself, see :meth:`rack_ways`.
        """
        if BLANK in letters:
            return self.rack_ways(letters)
        if any(ch not in self.tileset.letters for ch in set(letters)) or len(letters) > MAX_LENGTH:
            return 0
        return self.alphagram_ways(alphagram(letters))

    def alphagram_ways(self, key: str) -> int:
        """:meth:`ways` for a sorted key of tile letters (no checks: the index's inner loop)."""
        runs = self._runs
        if self.blanks == 2:  # the usual bag, written out: the polynomial a0 + a1 x + a2 x^2
            a0, a1, a2 = 1, 0, 0
            for run, _ in _RUNS.findall(key):
                b0, b1, b2 = runs[run]
                a0, a1, a2 = a0 * b0, a0 * b1 + a1 * b0, a0 * b2 + a1 * b1 + a2 * b0
            w0, w1, w2 = self._blank_ways
            return a0 * w0 + a1 * w1 + a2 * w2
        poly: tuple[int, ...] = (1,) + (0,) * self.blanks
        for run, _ in _RUNS.findall(key):
            poly = _multiply(poly, runs[run])
        return sum(c * b for c, b in zip(poly, self._blank_ways, strict=True))

    def rack_ways(self, rack: str) -> int:
        """Ways to draw exactly ``rack``, where ``?`` is a blank tile (the odds of a blank-anagram card)."""
        blanks = rack.count(BLANK)
        if blanks > self.blanks:
            return 0
        ways = comb(self.blanks, blanks)
        for run, _ in _RUNS.findall(alphagram(rack.replace(BLANK, ""))):
            ways *= comb(self._count(run[0]), len(run))
        return ways

    def probability(self, letters: str) -> float:
        """``ways(letters)`` over the number of draws of that many tiles."""
        n = len(letters)
        draws = self._draws.get(n) or comb(self.total, n)
        return self.ways(letters) / draws if draws else 0.0

    def _count(self, letter: str) -> int:
        letters = self.tileset.letters
        return self.tileset.counts[letters.index(letter)] if letter in letters else 0


def _multiply(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Product of two polynomials, truncated to the length of ``a`` (no more blanks than the bag has)."""
    size = len(a)
    return tuple(sum(a[i] * b[k - i] for i in range(k + 1)) for k in range(size))


class RankedAlphagram(NamedTuple):
    """One anagram card's content: its letters, its words, its odds and its place in its length.

    Made on demand from a packed :class:`RankedList` (a named tuple: cheap to build).
    """

    letters: str
    words: tuple[str, ...]
    ways: int
    rank: int  # 1 = the most probable alphagram of this length with at least one word


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building many small acyclic objects (strings,
    tuples): otherwise it walks the growing heap again and again, a fifth of the build time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class RankedList(Sequence[RankedAlphagram]):
    """The alphagrams (or racks) of one length in rank order, packed in a few flat strings and arrays.

    Every key has the same length ``size``, so key ``i`` is ``keys[i * size:(i + 1) * size]``,
    and its words are ``words[start[i] * size:start[i + 1] * size]`` cut every ``size`` letters.
    A sorted copy of the keys gives lookups by binary search. English: about 12 MB for every
    length, where one Python object per alphagram took over 130 MB.
    """

    def __init__(self, size: int, entries: Sequence[tuple[int, str]], groups: Mapping[str, Sequence[str]]) -> None:
        """``entries``: (ways, key) in rank order; ``groups``: key -> its words, sorted."""
        self.size = size
        self._keys = "".join(key for _, key in entries)
        self._ways = array("q", (ways for ways, _ in entries))
        self._start = array("I", itertools.accumulate((len(groups[key]) for _, key in entries), initial=0))
        self._words = "".join(word for _, key in entries for word in groups[key])
        by_key = sorted(range(len(entries)), key=lambda i: entries[i][1])
        self._sorted_keys = "".join(entries[i][1] for i in by_key)
        self._sorted_index = array("I", by_key)

    def __len__(self) -> int:
        return len(self._ways)

    @overload
    def __getitem__(self, i: int) -> RankedAlphagram: ...

    @overload
    def __getitem__(self, i: slice) -> list[RankedAlphagram]: ...

    def __getitem__(self, i: int | slice) -> RankedAlphagram | list[RankedAlphagram]:
        if isinstance(i, slice):
            return [self._entry(j) for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self._entry(i)

    def __iter__(self) -> Iterator[RankedAlphagram]:
        return (self._entry(i) for i in range(len(self)))

    def _entry(self, i: int) -> RankedAlphagram:
        n = self.size
        words = self._words[self._start[i] * n : self._start[i + 1] * n]
        return RankedAlphagram(
            self._keys[i * n : (i + 1) * n],
            tuple(words[j : j + n] for j in range(0, len(words), n)),
            self._ways[i],
            i + 1,
        )

    def find(self, key: str) -> RankedAlphagram | None:
        """The entry of ``key`` (binary search over the sorted keys), or None."""
        n = self.size
        if len(key) != n:
            return None
        keys = self._sorted_keys
        low, high = 0, len(self)
        while low < high:
            middle = (low + high) // 2
            if keys[middle * n : (middle + 1) * n] < key:
                low = middle + 1
            else:
                high = middle
        if low < len(self) and keys[low * n : (low + 1) * n] == key:
            return self._entry(self._sorted_index[low])
        return None


class ProbabilityIndex:
    """Every alphagram of a lexicon with words, ranked per length; blank racks ranked on demand.

    Built in one pass over the lexicon's words (group by alphagram, weigh, sort per length).
    """

    def __init__(self, lexicon: Lexicon, words: Iterable[str] | None = None) -> None:
        with gc_paused():
            self._build(lexicon, words)

    def _build(self, lexicon: Lexicon, words: Iterable[str] | None) -> None:
        self.lexicon_name = lexicon.name
        self.tileset = lexicon.rules.tileset
        self.odds = BagOdds(self.tileset)
        groups: dict[str, list[str]] = {}
        for word in lexicon.words() if words is None else words:  # the graph gives them sorted
            key = "".join(sorted(word))
            found = groups.get(key)
            if found is None:
                groups[key] = [word]
            else:
                found.append(word)
        if words is not None:
            for found in groups.values():
                found.sort()
        per_length: dict[int, list[tuple[int, str]]] = {}
        ways = self.odds.alphagram_ways
        for key in groups:
            per_length.setdefault(len(key), []).append((-ways(key), key))
        self._by_length: dict[int, RankedList] = {}
        for length, entries in per_length.items():
            entries.sort()
            self._by_length[length] = RankedList(length, [(-negative, key) for negative, key in entries], groups)
        self._blank_racks: dict[tuple[int, int], RankedList] = {}
        self._lock = threading.Lock()

    @property
    def lengths(self) -> list[int]:
        return sorted(self._by_length)

    def ranked(self, length: int) -> Sequence[RankedAlphagram]:
        """The alphagrams of ``length`` letters in probability order (empty when there are none)."""
        return self._by_length.get(length, ())

    def between(self, length: int, first: int = 1, last: int | None = None) -> Sequence[RankedAlphagram]:
        """Ranks ``first`` to ``last`` inclusive (1-based, as players say "7s 1-1000")."""
        ranked = self.ranked(length)
        return ranked[max(first, 1) - 1 : len(ranked) if last is None else max(last, 0)]

    def get(self, letters: str) -> RankedAlphagram | None:
        """The entry of an alphagram, or of a rack with blanks (ranking those racks on first use);
        None when it makes no word."""
        key = alphagram(letters)
        blanks = key.count(BLANK)
        ranked = self.blank_racks(len(key), blanks) if blanks else self._by_length.get(len(key))
        return ranked.find(key) if isinstance(ranked, RankedList) else None

    def blank_racks(self, length: int, blanks: int) -> Sequence[RankedAlphagram]:
        """Racks of ``length`` tiles of which ``blanks`` are blanks that make at least one word, ranked.

        A rack's odds are those of drawing exactly it (``BagOdds.rack_ways``). Built on first use
        from the ranked alphagrams of that length (each gives its sub-racks) and kept.
        """
        if blanks <= 0:
            return self.ranked(length)
        if blanks > self.tileset.blanks:
            return ()
        with self._lock:
            cached = self._blank_racks.get((length, blanks))
            if cached is None:
                with gc_paused():
                    cached = self._rank_blank_racks(length, blanks)
                self._blank_racks[(length, blanks)] = cached
            return cached

    def _rank_blank_racks(self, length: int, blanks: int) -> RankedList:
        """Each sub-rack (``blanks`` letters made blanks) of the alphagrams of ``length``, with all its words."""
        racks: dict[str, set[str]] = {}
        for entry in self.ranked(length):
            for rack in _sub_racks(entry.letters, blanks):
                found = racks.get(rack)
                if found is None:
                    racks[rack] = set(entry.words)
                else:
                    found.update(entry.words)
        weighed = sorted((-self.odds.rack_ways(rack), rack) for rack in racks)
        return RankedList(
            length,
            [(-negative, rack) for negative, rack in weighed],
            {rack: sorted(words) for rack, words in racks.items()},
        )


def _sub_racks(letters: str, blanks: int) -> set[str]:
    """Each way to replace ``blanks`` of ``letters`` by ``?`` (as racks: remaining letters sorted, then ``?``s)."""
    racks = {letters}
    for _ in range(blanks):
        racks = {
            rack[:i] + rack[i + 1 :] for rack in racks for i in range(len(rack)) if i == 0 or rack[i] != rack[i - 1]
        }
    return {rack + BLANK * blanks for rack in racks}


_INDEXES: dict[tuple[str, str], tuple[Lexicon, ProbabilityIndex]] = {}
_INDEXES_LOCK = threading.Lock()


def probability_index(lexicon: Lexicon) -> ProbabilityIndex:
    """The index of ``lexicon``, built on first use and kept for the process (one per lexicon object:
    a re-imported lexicon is a new object and gets a new index)."""
    key = (lexicon.name, lexicon.rules.tileset.name)
    with _INDEXES_LOCK:
        cached = _INDEXES.get(key)
        if cached is not None and cached[0] is lexicon:
            return cached[1]
    index = ProbabilityIndex(lexicon)
    with _INDEXES_LOCK:
        _INDEXES[key] = (lexicon, index)
    return index


def cached_index(lexicon: Lexicon) -> ProbabilityIndex | None:
    """The index of ``lexicon`` if it is built already (never builds: for lookups that can do without)."""
    with _INDEXES_LOCK:
        cached = _INDEXES.get((lexicon.name, lexicon.rules.tileset.name))
    return cached[1] if cached is not None and cached[0] is lexicon else None
