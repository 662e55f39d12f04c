"""Move generation: every legal play of a position, or only the top-scoring ones.

The generator is Appel and Jacobson's ("The world's fastest Scrabble program", 1988) over the
DAWG of :mod:`trainer.engine.wordgraph`: for each anchor (an empty square next to a tile) it
builds left parts from the rack on the free squares before the anchor, then extends right
through the board's tiles. Cross-checks are bitmasks ANDed with the graph's child masks, and the
score is kept up to date square by square so that a play is scored when it is found.

Top-only mode (:func:`top_moves`) computes, for every (anchor, start) pair, an upper bound on the
score of any play from that start through that anchor (best tiles of the rack on the best
squares, ignoring words), visits the pairs best bound first and stops as soon as the next bound
is below the best score found: the answer stays exact and most of the search is skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .board import EMPTY, Board, Move, Tile
from .lexicon import Lexicon
from .rules import BLANK, Ruleset
from .wordgraph import TERMINAL

BLANK_FLAG = 32  # tile code: letter index, plus this flag when a blank plays the letter

# A found play: (score, horizontal, line, start, end, placed), ``placed`` = ((index on line, code), ...)
RawPlay = tuple[int, bool, int, int, int, tuple[tuple[int, int], ...]]


@dataclass
class _Line:
    """One row (across) or column (down) with what the generator needs about each square."""

    index: int
    horizontal: bool
    cell: list[int]  # letter index of the tile, -1 when empty
    value: list[int]  # face value of the tile (0 for a blank)
    cross: list[int]  # letters allowed by the perpendicular word (all when none)
    cross_base: list[int]  # value of the perpendicular tiles, -1 when no perpendicular word
    lm: list[int]
    wm: list[int]
    anchors: list[int]

    def __post_init__(self) -> None:
        self.anchor_set = frozenset(self.anchors)


class Position:
    """A board and a lexicon prepared for generation: cross-checks and anchors of every line."""

    def __init__(self, board: Board, rules: Ruleset, lexicon: Lexicon) -> None:
        self.board = board
        self.rules = rules
        self.lexicon = lexicon
        self.size = board.size
        letters = rules.tileset.letters
        index = {ch: i for i, ch in enumerate(letters)}
        self.all_letters = (1 << len(letters)) - 1
        n = self.size
        self.cells = [-1 if ch == EMPTY else index[ch.upper()] for ch in board.cells]
        self.values = [0 if ch == EMPTY or ch.islower() else rules.tileset.values[index[ch]] for ch in board.cells]
        self.empty_board = all(c < 0 for c in self.cells)
        self.lines: list[_Line] = []
        for horizontal in (True, False):
            for i in range(n):
                squares = [i * n + j for j in range(n)] if horizontal else [j * n + i for j in range(n)]
                self.lines.append(self._line(i, horizontal, squares))

    def _line(self, index: int, horizontal: bool, squares: list[int]) -> _Line:
        n = self.size
        cells, values = self.cells, self.values
        layout = self.rules.layout
        step = n if horizontal else 1  # perpendicular direction
        cell = [cells[sq] for sq in squares]
        cross: list[int] = []
        cross_base: list[int] = []
        anchors: list[int] = []
        for j, sq in enumerate(squares):
            if cell[j] >= 0:
                cross.append(0)
                cross_base.append(-1)
                continue
            before, after = self._perpendicular(sq, step, horizontal)
            if before or after:
                cross.append(self._cross_set(before, after))
                cross_base.append(sum(values[s] for s in before) + sum(values[s] for s in after))
                anchors.append(j)
            else:
                cross.append(self.all_letters)
                cross_base.append(-1)
                if (j > 0 and cell[j - 1] >= 0) or (j + 1 < n and cell[j + 1] >= 0):
                    anchors.append(j)
        if self.empty_board and layout.start in squares:
            anchors = [squares.index(layout.start)]
        return _Line(
            index, horizontal, cell, [values[sq] for sq in squares], cross, cross_base,
            [layout.letter_multipliers[sq] for sq in squares], [layout.word_multipliers[sq] for sq in squares],
            anchors,
        )

    def _perpendicular(self, sq: int, step: int, horizontal: bool) -> tuple[list[int], list[int]]:
        """Squares of the tiles just before and after ``sq`` across the line (in reading order)."""
        n = self.size
        cells = self.cells
        before: list[int] = []
        s = sq - step
        while s >= 0 and (horizontal or s // n == sq // n) and cells[s] >= 0:
            before.append(s)
            s -= step
        before.reverse()
        after: list[int] = []
        s = sq + step
        while s < n * n and (horizontal or s // n == sq // n) and cells[s] >= 0:
            after.append(s)
            s += step
        return before, after

    def _cross_set(self, before: list[int], after: list[int]) -> int:
        cells = self.cells
        key = (tuple(cells[s] for s in before), tuple(cells[s] for s in after))
        cache = self.lexicon.cross_set_cache
        allowed = cache.get(key)
        if allowed is None:
            graph = self.lexicon.graph
            allowed = 0
            node = graph.walk(key[0])
            if node >= 0:
                letters = graph.info[node] & ~TERMINAL
                while letters:
                    low = letters & -letters
                    letter = low.bit_length() - 1
                    letters ^= low
                    end = graph.walk(key[1], graph.child(node, letter))
                    if end >= 0 and graph.info[end] & TERMINAL:
                        allowed |= low
            if len(cache) > 200_000:
                cache.clear()
            cache[key] = allowed
        return allowed


def _rack_counts(rack: Sequence[str], letters: str) -> tuple[list[int], int]:
    counts = [0] * len(letters)
    blanks = 0
    for ch in rack:
        if ch == BLANK:
            blanks += 1
        else:
            counts[letters.index(ch)] += 1
    return counts, blanks


class _Search:
    """One generation over a position and rack; results land in ``self.found``."""

    def __init__(self, position: Position, rack: Sequence[str], top_only: bool) -> None:
        self.position = position
        self.counts, self.blanks = _rack_counts(rack, position.rules.tileset.letters)
        self.rack_size = len(rack)
        self.bingo_size = position.rules.rack_size
        self.bingo_bonus = position.rules.bingo_bonus
        self.letter_values = position.rules.tileset.values
        self.top_only = top_only
        self.best = -1
        self.found: list[RawPlay] = []

    def line(self, line: _Line, anchors: list[tuple[int, int]] | None = None) -> None:
        """Generate the plays of ``line``, or only those of the given (anchor, start) pairs."""
        graph = self.position.lexicon.graph
        info, first, targets = graph.info, graph.first, graph.targets
        root = graph.root
        cell, value, cross, cross_base, lm, wm = line.cell, line.value, line.cross, line.cross_base, line.lm, line.wm
        n = len(cell)
        counts = self.counts
        letter_values = self.letter_values
        bingo_size, bingo_bonus = self.bingo_size, self.bingo_bonus
        horizontal, line_index = line.horizontal, line.index
        found = self.found
        top_only = self.top_only
        placed: list[tuple[int, int]] = []
        state = self  # best score and blanks live on the search object

        def record(start: int, end: int, score: int) -> None:
            if len(placed) == 1 and not horizontal and cross_base[placed[0][0]] >= 0:
                return  # a single tile with words both ways was found across already
            if top_only:
                if score < state.best:
                    return
                if score > state.best:
                    state.best = score
                    found.clear()
            found.append((score, horizontal, line_index, start, end, tuple(placed)))

        def extend(node: int, i: int, anchor: int, start: int, main: int, mult: int, crosses: int) -> None:
            if i < n and cell[i] >= 0:  # a board tile: follow it
                letter = cell[i]
                mask = info[node]
                bit = 1 << letter
                if mask & bit:
                    extend(targets[first[node] + (mask & (bit - 1)).bit_count()], i + 1, anchor, start,
                           main + value[i], mult, crosses)
                return
            mask = info[node]
            if i > anchor and mask & TERMINAL and i - start > 1:
                score = main * mult + crosses
                if len(placed) == bingo_size:
                    score += bingo_bonus
                record(start, i, score)
            if i >= n:
                return
            candidates = mask & cross[i]
            if not candidates:
                return
            base = first[node]
            l_mult, w_mult, x_base = lm[i], wm[i], cross_base[i]
            while candidates:
                low = candidates & -candidates
                candidates ^= low
                letter = low.bit_length() - 1
                child = targets[base + (mask & (low - 1)).bit_count()]
                if counts[letter]:
                    counts[letter] -= 1
                    tile_score = letter_values[letter] * l_mult
                    placed.append((i, letter))
                    extend(child, i + 1, anchor, start, main + tile_score, mult * w_mult,
                           crosses if x_base < 0 else crosses + (x_base + tile_score) * w_mult)
                    placed.pop()
                    counts[letter] += 1
                if state.blanks:
                    state.blanks -= 1
                    placed.append((i, letter | BLANK_FLAG))
                    extend(child, i + 1, anchor, start, main, mult * w_mult,
                           crosses if x_base < 0 else crosses + x_base * w_mult)
                    placed.pop()
                    state.blanks += 1

        left: list[int] = []  # codes of the left part being built, in reading order

        def left_parts(node: int, anchor: int, limit: int, start_wanted: int) -> None:
            """Try the left part built so far as the start of a play, then grow it by one tile."""
            length = len(left)
            start = anchor - length
            if start_wanted < 0 or start_wanted == start:
                main = 0
                mult = 1
                for j, code in enumerate(left, start):
                    placed.append((j, code))
                    if not code & BLANK_FLAG:
                        main += letter_values[code] * lm[j]
                    mult *= wm[j]
                extend(node, anchor, anchor, start, main, mult, 0)
                del placed[:]
            if length >= limit or (start_wanted >= 0 and start <= start_wanted):
                return
            mask = info[node]
            candidates = mask & ~TERMINAL
            base = first[node]
            while candidates:
                low = candidates & -candidates
                candidates ^= low
                letter = low.bit_length() - 1
                child = targets[base + (mask & (low - 1)).bit_count()]
                if counts[letter]:
                    counts[letter] -= 1
                    left.append(letter)
                    left_parts(child, anchor, limit, start_wanted)
                    left.pop()
                    counts[letter] += 1
                if state.blanks:
                    state.blanks -= 1
                    left.append(letter | BLANK_FLAG)
                    left_parts(child, anchor, limit, start_wanted)
                    left.pop()
                    state.blanks += 1

        pairs = anchors if anchors is not None else [(a, -1) for a in line.anchors]
        for anchor, start_wanted in pairs:
            if anchor > 0 and cell[anchor - 1] >= 0:
                start = anchor - 1
                while start > 0 and cell[start - 1] >= 0:
                    start -= 1
                node = root
                main = 0
                for j in range(start, anchor):
                    mask = info[node]
                    bit = 1 << cell[j]
                    if not mask & bit:
                        node = -1
                        break
                    node = targets[first[node] + (mask & (bit - 1)).bit_count()]
                    main += value[j]
                if node >= 0:
                    extend(node, anchor, anchor, start, main, 1, 0)
            else:
                left_parts(root, anchor, left_limit(line, anchor, self.rack_size), start_wanted)


def left_limit(line: _Line, anchor: int, rack_size: int) -> int:
    """How many tiles a left part may hold: the free non-anchor squares just before ``anchor``.

    Such squares touch no tile, so they need no cross-check, and a play found from a later
    anchor never starts before an earlier one: each play is found once.
    """
    limit = 0
    j = anchor - 1
    while j >= 0 and line.cell[j] < 0 and j not in line.anchor_set and limit < rack_size - 1:
        limit += 1
        j -= 1
    return limit


def _start_bounds(position: Position, line: _Line, rack: Sequence[str]) -> list[tuple[int, int, int]]:
    """(bound, anchor, start) for every start a play through ``anchor`` can have on ``line``.

    The bound is the best score any play from that start through the anchor could make if every
    arrangement of the rack were a word: tile values sorted against square coefficients.
    """
    rules = position.rules
    letters = rules.tileset.letters
    values = sorted((0 if ch == BLANK else rules.tileset.values[letters.index(ch)] for ch in rack), reverse=True)
    rack_size = len(rack)
    playable = position.all_letters if BLANK in rack else sum(1 << letters.index(ch) for ch in set(rack))
    bingo_size, bingo_bonus = rules.rack_size, rules.bingo_bonus
    cell, value, cross, cross_base, lm, wm = line.cell, line.value, line.cross, line.cross_base, line.lm, line.wm
    n = len(cell)
    out: list[tuple[int, int, int]] = []
    for anchor in line.anchors:
        if anchor > 0 and cell[anchor - 1] >= 0:
            start = anchor - 1
            while start > 0 and cell[start - 1] >= 0:
                start -= 1
            starts = [start]
        else:
            starts = list(range(anchor, anchor - left_limit(line, anchor, rack_size) - 1, -1))
        for start in starts:
            best = -1
            fixed = 0  # face value of board tiles in the span
            mult = 1
            empties: list[tuple[int, int, int]] = []  # (letter mult, cross word mult or 0, cross base)
            cross_fixed = 0
            for j in range(start, n):
                if cell[j] >= 0:
                    fixed += value[j]
                else:
                    if not cross[j] & playable or len(empties) == rack_size:
                        break
                    has_cross = cross_base[j] >= 0
                    empties.append((lm[j], wm[j] if has_cross else 0, cross_base[j]))
                    mult *= wm[j]
                    if has_cross:
                        cross_fixed += cross_base[j] * wm[j]
                if j < anchor or (j + 1 < n and cell[j + 1] >= 0) or j - start < 1:
                    continue  # not a possible end: the anchor is not covered or the word goes on
                coefficients = sorted((l_m * (mult + x_m) for l_m, x_m, _ in empties), reverse=True)
                bound = fixed * mult + cross_fixed + sum(c * v for c, v in zip(coefficients, values))
                if len(empties) == bingo_size:
                    bound += bingo_bonus
                if bound > best:
                    best = bound
            if best >= 0:
                out.append((best, anchor, start))
    return out


def _to_move(position: Position, raw: RawPlay) -> Move:
    score, horizontal, index, start, end, placed = raw
    letters = position.rules.tileset.letters
    by_index = dict(placed)
    tiles = []
    word = []
    for j in range(start, end):
        row, col = (index, j) if horizontal else (j, index)
        code = by_index.get(j)
        if code is None:
            word.append(position.board.at(row, col))
        else:
            tile = Tile(row, col, letters[code & ~BLANK_FLAG], bool(code & BLANK_FLAG))
            tiles.append(tile)
            word.append(tile.char)
    row, col = (index, start) if horizontal else (start, index)
    return Move(row, col, horizontal, "".join(word), tuple(tiles), score)


def _checked_rack(rack: Sequence[str] | str, rules: Ruleset) -> list[str]:
    tiles = [ch.upper() if ch != BLANK else ch for ch in rack]
    for ch in tiles:
        if ch != BLANK and ch not in rules.tileset.letters:
            raise ValueError(f"rack has {ch!r}, which is not a tile")
    return tiles


def generate_moves(board: Board, rules: Ruleset, lexicon: Lexicon, rack: Sequence[str] | str) -> list[Move]:
    """Every legal play with ``rack`` (``?`` for a blank), each with its score."""
    position = Position(board, rules, lexicon)
    search = _Search(position, _checked_rack(rack, rules), top_only=False)
    for line in position.lines:
        search.line(line)
    return [_to_move(position, raw) for raw in search.found]


def count_moves(board: Board, rules: Ruleset, lexicon: Lexicon, rack: Sequence[str] | str) -> int:
    """How many legal plays ``rack`` has (without building the plays)."""
    position = Position(board, rules, lexicon)
    search = _Search(position, _checked_rack(rack, rules), top_only=False)
    for line in position.lines:
        search.line(line)
    return len(search.found)


def top_moves(board: Board, rules: Ruleset, lexicon: Lexicon, rack: Sequence[str] | str) -> tuple[int, list[Move]]:
    """The top score and every play that reaches it (``(0, [])`` when there is no legal play)."""
    tiles = _checked_rack(rack, rules)
    position = Position(board, rules, lexicon)
    search = _Search(position, tiles, top_only=True)
    if not tiles:
        return 0, []
    bounds = [
        (bound, line_number, anchor, start)
        for line_number, line in enumerate(position.lines)
        for bound, anchor, start in _start_bounds(position, line, tiles)
    ]
    bounds.sort(reverse=True)
    for bound, line_number, anchor, start in bounds:
        if bound < search.best:
            break
        search.line(position.lines[line_number], [(anchor, start)])
    if search.best < 0:
        return 0, []
    return search.best, [_to_move(position, raw) for raw in search.found]
