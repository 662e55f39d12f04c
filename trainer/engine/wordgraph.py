"""A minimal DAWG (directed acyclic word graph) in three flat 32-bit arrays.

Built once from a sorted word list (Daciuk et al.'s incremental algorithm), saved to disk and
memory-mapped on load, so that several worker processes share one copy through the page cache.

Layout of the arrays, for node ``n``:

* ``info[n]``: bits 0-30 are the set of letters with an arc out of ``n`` (bit ``i`` = letter
  index ``i``); bit 31 says a word ends at ``n``.
* ``first[n]``: index in ``targets`` of the child for the lowest letter of ``info[n]``;
  the child for letter ``i`` is ``targets[first[n] + popcount(info[n] & ((1 << i) - 1))]``.

The move generator reads these arrays directly in its inner loops; :class:`WordGraph` wraps
them for everything else.
"""

from __future__ import annotations

import mmap
import os
import struct
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

MAGIC = b"TIRDAWG1"
HEADER = struct.Struct("<8sIIII")  # magic, alphabet size, nodes, targets, root
TERMINAL = 1 << 31
LETTERS_MASK = TERMINAL - 1
T = TypeVar("T")


TICK_EVERY = 20_000


def ticking(items: Iterable[T], tick: Callable[[], None]) -> Iterator[T]:
    """``items``, calling ``tick`` after each :data:`TICK_EVERY` of them (a long build's progress)."""
    for count, item in enumerate(items, start=1):
        if count % TICK_EVERY == 0:
            tick()
        yield item


class WordGraph:
    """Words over an alphabet of at most 31 letters, as letter indices."""

    def __init__(
        self,
        info: Sequence[int],
        first: Sequence[int],
        targets: Sequence[int],
        root: int,
        alphabet_size: int,
        keepalive: object = None,
    ) -> None:
        self.info = info
        self.first = first
        self.targets = targets
        self.root = root
        self.alphabet_size = alphabet_size
        self._keepalive = keepalive  # the mmap behind the memoryviews

    @property
    def node_count(self) -> int:
        return len(self.info)

    def child(self, node: int, letter: int) -> int:
        """The node after ``letter``, or -1 when no word continues that way."""
        mask = self.info[node]
        bit = 1 << letter
        if not mask & bit:
            return -1
        return self.targets[self.first[node] + (mask & (bit - 1)).bit_count()]

    def walk(self, letters: Iterable[int], node: int | None = None) -> int:
        """Follow ``letters`` from ``node`` (default: the root); -1 if the path leaves the graph."""
        info, first, targets = self.info, self.first, self.targets
        n = self.root if node is None else node
        for letter in letters:
            mask = info[n]
            bit = 1 << letter
            if not mask & bit:
                return -1
            n = targets[first[n] + (mask & (bit - 1)).bit_count()]
        return n

    def is_word_end(self, node: int) -> bool:
        return node >= 0 and bool(self.info[node] & TERMINAL)

    def contains(self, letters: Sequence[int]) -> bool:
        return self.is_word_end(self.walk(letters))

    def words(self, node: int | None = None, prefix: tuple[int, ...] = ()) -> Iterator[tuple[int, ...]]:
        """Every word below ``node`` in alphabetical order (as letter-index tuples)."""
        n = self.root if node is None else node
        mask = self.info[n]
        if mask & TERMINAL:
            yield prefix
        letters = mask & LETTERS_MASK
        index = self.first[n]
        while letters:
            low = letters & -letters
            letter = low.bit_length() - 1
            yield from self.words(self.targets[index], (*prefix, letter))
            index += 1
            letters ^= low

    # -- building and storage -------------------------------------------------------------

    @classmethod
    def build(cls, words: Iterable[Sequence[int]], alphabet_size: int) -> WordGraph:
        """Build the minimal graph of ``words``, which must come sorted and without repeats."""
        if alphabet_size > 31:
            raise ValueError("a word graph holds at most 31 letters")
        register: dict[tuple[bool, tuple[tuple[int, int], ...]], int] = {}
        nodes: list[tuple[bool, tuple[tuple[int, int], ...]]] = []
        # The path of the previous word: nodes not yet minimised, and the letters between them.
        path: list[tuple[list[bool], list[tuple[int, int]]]] = [([False], [])]
        path_letters: list[int] = []
        previous: Sequence[int] = ()

        def minimise_down_to(depth: int) -> None:
            while len(path_letters) > depth:
                terminal, arcs = path.pop()
                key = (terminal[0], tuple(arcs))
                node_id = register.get(key)
                if node_id is None:
                    node_id = register[key] = len(nodes)
                    nodes.append(key)
                path[-1][1].append((path_letters.pop(), node_id))

        for word in words:
            common = 0
            limit = min(len(word), len(previous))
            while common < limit and word[common] == previous[common]:
                common += 1
            if common == len(word) or (common < len(previous) and word[common] <= previous[common]):
                raise ValueError("words must be sorted and unique to build a word graph")
            minimise_down_to(common)
            for letter in word[common:]:
                path.append(([False], []))
                path_letters.append(letter)
            path[-1][0][0] = True
            previous = word
        minimise_down_to(0)
        root_terminal, root_arcs = path[0]
        nodes.append((root_terminal[0], tuple(root_arcs)))

        info: list[int] = []
        first: list[int] = []
        targets: list[int] = []
        for terminal, arcs in nodes:
            mask = TERMINAL if terminal else 0
            first.append(len(targets))
            for letter, child in arcs:
                mask |= 1 << letter
                targets.append(child)
            info.append(mask)
        return cls(info, first, targets, len(nodes) - 1, alphabet_size)

    @classmethod
    def build_gaddag(
        cls, words: Iterable[Sequence[int]], alphabet_size: int, tick: Callable[[], None] | None = None
    ) -> WordGraph:
        """Build the GADDAG of ``words`` (Gordon, 1994): for each word and each split point,
        the reversed prefix, the separator (letter index ``alphabet_size``), then the suffix.

        A search can then start from any letter of a word and read outwards, which is what
        the move generator does from each anchor square.
        """
        separator = bytes([alphabet_size])
        entries = []
        for letters in words:
            word = bytes(letters)  # bytes slice, compare and sort much faster than tuples
            for split in range(1, len(word) + 1):
                entries.append(word[split - 1 :: -1] + separator + word[split:])
        entries.sort()
        return cls.build(entries if tick is None else ticking(entries, tick), alphabet_size + 1)

    def save(self, path: Path) -> None:
        """Write the graph atomically, so a concurrent reader never sees half a file."""
        import array

        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as out:
            out.write(HEADER.pack(MAGIC, self.alphabet_size, len(self.info), len(self.targets), self.root))
            for values in (self.info, self.first, self.targets):
                data = array.array("I", values)
                if sys.byteorder != "little":
                    data.byteswap()
                out.write(data.tobytes())
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> WordGraph:
        """Memory-map a saved graph; ``ValueError`` if the file is not one."""
        with open(path, "rb") as f:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        if len(mapped) < HEADER.size:
            raise ValueError(f"{path} is not a word graph (too short)")
        magic, alphabet_size, n_nodes, n_targets, root = HEADER.unpack_from(mapped)
        if magic != MAGIC or len(mapped) != HEADER.size + 4 * (2 * n_nodes + n_targets):
            raise ValueError(f"{path} is not a word graph of this version")
        if sys.byteorder != "little":  # pragma: no cover - no big-endian machine to test on
            import array

            arrays = []
            for offset, count in ((0, n_nodes), (n_nodes, n_nodes), (2 * n_nodes, n_targets)):
                data = array.array("I")
                data.frombytes(mapped[HEADER.size + 4 * offset : HEADER.size + 4 * (offset + count)])
                data.byteswap()
                arrays.append(data)
            return cls(arrays[0], arrays[1], arrays[2], root, alphabet_size)
        view = memoryview(mapped)[HEADER.size :].cast("I")
        return cls(
            view[:n_nodes], view[n_nodes : 2 * n_nodes], view[2 * n_nodes :], root, alphabet_size, keepalive=mapped
        )
