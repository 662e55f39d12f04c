"""Move generation: every legal play of a position, or only the top-scoring ones.

The search is Gordon's GADDAG algorithm ("A faster Scrabble move generation algorithm", 1994)
over the flat graph of :mod:`trainer.engine.wordgraph`: from each anchor (an empty square next
to a tile) it places a tile, reads leftwards over free squares and board tiles, turns at the
separator and reads rightwards. A play is found from its leftmost anchor only, so each is found
once. Cross-checks are letter bitmasks ANDed with the graph's child masks, and the score is kept
up to date square by square.

Blanks: the walk takes a letter from the rack's real tiles first and from a blank only when none
is left, so each sequence of letters is walked once; the ways to designate blanks are expanded,
and scored exactly, when a word is found (:func:`_designations`; for a rack with one blank, every
rack of a joker game, without building a product of choices: 155 ms of CPU became 64 ms for
``?EHIMOR`` on the empty board).

Top-only mode (:func:`top_moves`) bounds, for every (anchor, start), the best score any play
could reach there (the rack's best tiles on the best squares, words ignored), searches anchors
best bound first, skips the starts whose bound is below the best found so far, and stops when
the next anchor cannot reach it: the answer stays exact. (A finer bound at each turn of the
search was tried and cost more than it saved: median 16.8 ms with it, 8.4 ms without.) With blanks it branches on
"a blank here" rather than on its 26 letters (:class:`_BlankSetSearch`), because a blank's
letter changes no score; the letters are found for the top plays only.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from .board import EMPTY, Board, Move, Tile
from .lexicon import Lexicon
from .rules import BLANK, Ruleset
from .wordgraph import TERMINAL, WordGraph

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
            index,
            horizontal,
            cell,
            [values[sq] for sq in squares],
            cross,
            cross_base,
            [layout.letter_multipliers[sq] for sq in squares],
            [layout.word_multipliers[sq] for sq in squares],
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


def _designations(
    placed: list[tuple[int, int]],
    rack_counts: list[int],
    blanks: int,
    coefficient: dict[int, int],
    letter_values: Sequence[int],
) -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    """Every way to play the letters ``placed`` ((square, letter), in search order) with the rack:
    which of them blanks play. Returns (points lost to blanks, tiles with ``BLANK_FLAG`` set).

    A letter used more often than the rack holds it must take blanks; blanks may also stand in
    for a letter the rack has (each such choice is its own play).
    """
    if blanks == 1:
        return _one_blank_designations(placed, rack_counts, coefficient, letter_values)
    positions: dict[int, list[int]] = {}
    for k, (_, letter) in enumerate(placed):
        positions.setdefault(letter, []).append(k)
    choices_per_letter: list[list[tuple[int, int, tuple[int, ...]]]] = []  # (blanks, loss, indices)
    for letter, ks in positions.items():
        need = max(0, len(ks) - rack_counts[letter])
        options = []
        for n_blank in range(need, min(len(ks), blanks) + 1):
            for chosen in itertools.combinations(ks, n_blank):
                options.append(
                    (n_blank, sum(letter_values[letter] * coefficient[placed[k][0]] for k in chosen), chosen)
                )
        choices_per_letter.append(options)
    out = []
    for combination in itertools.product(*choices_per_letter):
        if sum(c[0] for c in combination) > blanks:
            continue
        blank_indices = {k for c in combination for k in c[2]}
        tiles = tuple(
            (square, letter | BLANK_FLAG if k in blank_indices else letter) for k, (square, letter) in enumerate(placed)
        )
        out.append((sum(c[1] for c in combination), tiles))
    return out


def _one_blank_designations(
    placed: list[tuple[int, int]],
    rack_counts: list[int],
    coefficient: dict[int, int],
    letter_values: Sequence[int],
) -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    """:func:`_designations` for a rack with one blank (every rack of a joker game, docs/rules.md §6.24), in the same
    order, without building the product of every letter's choices: the letter the rack is short of takes the blank
    at each of its places; with none short, the word is played without it, then with it at each place of the
    letters (the last letter to appear first, as the product orders them)."""
    positions: dict[int, list[int]] = {}
    for k, (_, letter) in enumerate(placed):
        positions.setdefault(letter, []).append(k)
    short = [ks for letter, ks in positions.items() if len(ks) > rack_counts[letter]]
    if len(short) > 1 or (short and len(short[0]) - rack_counts[placed[short[0][0]][1]] > 1):
        return []  # more letters missing than one blank plays (the walk never finds such a word)
    out: list[tuple[int, tuple[tuple[int, int], ...]]] = []
    if short:
        places = short[0]
    else:
        out.append((0, tuple(placed)))
        places = [k for ks in reversed(positions.values()) for k in ks]
    for k in places:
        square, letter = placed[k]
        tiles = list(placed)
        tiles[k] = (square, letter | BLANK_FLAG)
        out.append((letter_values[letter] * coefficient[square], tuple(tiles)))
    return out


class _Search:
    """One generation over a position and rack; results land in ``self.found``.

    The walk is designation-free: a letter is taken from the rack's real tiles first and from a
    blank only when none is left, so each letter sequence is walked once, and the scores kept
    along the way count every tile as real (an upper bound). When a word is found, the blank
    designations are expanded and scored exactly (:func:`_designations`).

    The take-a-tile / give-it-back steps are written out in each loop rather than called:
    they run once per graph arc, and a function call there costs more than the rest of the step.
    """

    def __init__(self, position: Position, rack: Sequence[str], top_only: bool) -> None:
        """``top_only`` searches keep the best plays only; racks with blanks go to
        :class:`_BlankSetSearch` in that mode, so this class's bounds assume none."""
        self.position = position
        self.counts, self.blanks = _rack_counts(rack, position.rules.tileset.letters)
        self.rack_counts = list(self.counts)
        self.rack_blanks = self.blanks
        self.rack_size = len(rack)
        self.bingo_size = position.rules.rack_size
        self.bingo_bonus = position.rules.bingo_bonus
        self.letter_values = position.rules.tileset.values
        self.real_mask = sum(1 << k for k, c in enumerate(self.counts) if c)  # letters with a real tile left
        self.top_only = top_only
        self.best = -1
        self.found: list[RawPlay] = []

    def line(self, line: _Line, start_bounds: dict[int, dict[int, int]] | None = None) -> None:
        """Generate the plays of ``line``; in top-only mode, only from the anchors of ``start_bounds``
        (anchor -> {start: bound}), and only from starts whose bound can still reach the best."""
        gaddag = self.position.lexicon.gaddag
        info, first, targets = gaddag.info, gaddag.first, gaddag.targets
        root = gaddag.root
        separator_bit = 1 << (gaddag.alphabet_size - 1)
        letters_mask = self.position.all_letters
        cell, value, cross, cross_base, lm, wm = line.cell, line.value, line.cross, line.cross_base, line.lm, line.wm
        anchor_set = line.anchor_set
        n = len(cell)
        counts = self.counts
        rack_counts, rack_blanks = self.rack_counts, self.rack_blanks
        letter_values = self.letter_values
        bingo_size, bingo_bonus = self.bingo_size, self.bingo_bonus
        horizontal, line_index = line.horizontal, line.index
        found = self.found
        top_only = self.top_only
        placed: list[tuple[int, int]] = []  # (square on the line, letter), in search order
        state = self  # best score and blanks live on the search object
        bounds: dict[int, int] = {}  # start -> bound, for the anchor being searched (top-only)
        reach: list[int] = [0] * (n + 1)  # reach[j]: best bound of the starts at or before j

        def record(start: int, end: int, mult: int, score: int) -> None:
            """A word from ``start`` to ``end``; ``score`` counts every new tile as real."""
            if len(placed) == 1 and not horizontal and cross_base[placed[0][0]] >= 0:
                return  # a single tile with words both ways was found across already
            if top_only and score < state.best:
                return
            if not rack_blanks:
                variants = [(0, tuple(placed))]
            else:
                coefficient = {j: lm[j] * (mult + (wm[j] if cross_base[j] >= 0 else 0)) for j, _ in placed}
                variants = _designations(placed, rack_counts, rack_blanks, coefficient, letter_values)
            for loss, tiles in variants:
                exact = score - loss
                if top_only:
                    if exact < state.best:
                        continue
                    if exact > state.best:
                        state.best = exact
                        found.clear()
                found.append((exact, horizontal, line_index, start, end, tiles))

        def extend(node: int, i: int, start: int, main: int, mult: int, crosses: int) -> None:
            """Right of the anchor, after the separator: follow tiles, place rack tiles, record words."""
            if i < n and cell[i] >= 0:
                bit = 1 << cell[i]
                mask = info[node]
                if mask & bit:
                    extend(
                        targets[first[node] + (mask & (bit - 1)).bit_count()],
                        i + 1,
                        start,
                        main + value[i],
                        mult,
                        crosses,
                    )
                return
            mask = info[node]
            if mask & TERMINAL and i - start > 1:
                score = main * mult + crosses
                if len(placed) == bingo_size:
                    score += bingo_bonus
                record(start, i, mult, score)
            if i >= n:
                return
            candidates = mask & cross[i]
            if not state.blanks:
                candidates &= state.real_mask
            if not candidates:
                return
            base = first[node]
            l_mult, w_mult, x_base = lm[i], wm[i], cross_base[i]
            mult_after = mult * w_mult
            while candidates:
                low = candidates & -candidates
                candidates ^= low
                letter = low.bit_length() - 1
                if counts[letter]:
                    counts[letter] -= 1
                    if not counts[letter]:
                        state.real_mask ^= low
                    real = True
                elif state.blanks:
                    state.blanks -= 1
                    real = False
                else:
                    continue
                tile_score = letter_values[letter] * l_mult
                placed.append((i, letter))
                extend(
                    targets[base + (mask & (low - 1)).bit_count()],
                    i + 1,
                    start,
                    main + tile_score,
                    mult_after,
                    crosses if x_base < 0 else crosses + (x_base + tile_score) * w_mult,
                )
                placed.pop()
                if real:
                    if not counts[letter]:
                        state.real_mask |= low
                    counts[letter] += 1
                else:
                    state.blanks += 1

        def go_left(node: int, j: int, anchor: int, room: int, main: int, mult: int, crosses: int) -> None:
            """Left of the anchor (reading the reversed prefix): follow tiles, place tiles, or turn."""
            if j >= 0 and cell[j] >= 0:
                bit = 1 << cell[j]
                mask = info[node]
                if mask & bit:
                    go_left(
                        targets[first[node] + (mask & (bit - 1)).bit_count()],
                        j - 1,
                        anchor,
                        room,
                        main + value[j],
                        mult,
                        crosses,
                    )
                return
            mask = info[node]
            start = j + 1
            if mask & separator_bit and (not top_only or bounds.get(start, -1) >= state.best):
                extend(
                    targets[first[node] + (mask & (separator_bit - 1)).bit_count()],
                    anchor + 1,
                    start,
                    main,
                    mult,
                    crosses,
                )
            if room <= 0 or j < 0 or j in anchor_set or (top_only and reach[j] < state.best):
                return
            candidates = mask & letters_mask  # a free square left of an anchor has no cross word
            if not state.blanks:
                candidates &= state.real_mask
            base = first[node]
            l_mult, w_mult = lm[j], wm[j]
            mult_after = mult * w_mult
            while candidates:
                low = candidates & -candidates
                candidates ^= low
                letter = low.bit_length() - 1
                if counts[letter]:
                    counts[letter] -= 1
                    if not counts[letter]:
                        state.real_mask ^= low
                    real = True
                elif state.blanks:
                    state.blanks -= 1
                    real = False
                else:
                    continue
                placed.append((j, letter))
                go_left(
                    targets[base + (mask & (low - 1)).bit_count()],
                    j - 1,
                    anchor,
                    room - 1,
                    main + letter_values[letter] * l_mult,
                    mult_after,
                    crosses,
                )
                placed.pop()
                if real:
                    if not counts[letter]:
                        state.real_mask |= low
                    counts[letter] += 1
                else:
                    state.blanks += 1

        anchors = list(start_bounds) if start_bounds is not None else line.anchors
        for anchor in anchors:
            if start_bounds is not None:
                bounds = start_bounds[anchor]
                best_so_far = -1
                for j in range(n):
                    best_so_far = max(best_so_far, bounds.get(j, -1))
                    reach[j] = best_so_far
            room = left_limit(line, anchor, self.rack_size)
            mask = info[root]
            candidates = mask & cross[anchor]
            if not state.blanks:
                candidates &= state.real_mask
            l_mult, w_mult, x_base = lm[anchor], wm[anchor], cross_base[anchor]
            while candidates:
                low = candidates & -candidates
                candidates ^= low
                letter = low.bit_length() - 1
                if counts[letter]:
                    counts[letter] -= 1
                    if not counts[letter]:
                        state.real_mask ^= low
                    real = True
                elif state.blanks:
                    state.blanks -= 1
                    real = False
                else:
                    continue
                tile_score = letter_values[letter] * l_mult
                placed.append((anchor, letter))
                go_left(
                    targets[first[root] + (mask & (low - 1)).bit_count()],
                    anchor - 1,
                    anchor,
                    room,
                    tile_score,
                    w_mult,
                    0 if x_base < 0 else (x_base + tile_score) * w_mult,
                )
                placed.pop()
                if real:
                    if not counts[letter]:
                        state.real_mask |= low
                    counts[letter] += 1
                else:
                    state.blanks += 1


class _NodeSets:
    """Sets of graph nodes, interned: the states of a lazily built DFA over the graph.

    After a blank the search stands on every node a letter could lead to; set ``k`` is kept
    once, with the OR of its nodes' masks, and transitions are memoised as ``(k, letters) -> k'``
    so that the same step taken from another anchor or line costs one dict lookup.
    """

    def __init__(self, graph: WordGraph) -> None:
        self.graph = graph
        self.members: list[tuple[int, ...]] = []
        self.mask: list[int] = []  # OR of ``info`` over the members: letters out, and TERMINAL
        self.index: dict[tuple[int, ...], int] = {}
        self.transitions: dict[int, int] = {}
        self.letter_bits = graph.alphabet_size + 1  # width of the ``letters`` part of a key

    def intern(self, nodes: tuple[int, ...]) -> int:
        known = self.index.get(nodes)
        if known is None:
            known = self.index[nodes] = len(self.members)
            self.members.append(nodes)
            info = self.graph.info
            mask = 0
            for node in nodes:
                mask |= info[node]
            self.mask.append(mask)
        return known

    def step(self, state: int, letters: int) -> int:
        """The set reached from set ``state`` by any letter of ``letters``; -1 when empty."""
        key = state << self.letter_bits | letters
        known = self.transitions.get(key)
        if known is not None:
            return known
        info, first, targets = self.graph.info, self.graph.first, self.graph.targets
        out = set()
        for node in self.members[state]:
            mask = info[node]
            candidates = mask & letters
            base = first[node]
            while candidates:
                low = candidates & -candidates
                candidates ^= low
                out.add(targets[base + (mask & (low - 1)).bit_count()])
        result = self.intern(tuple(sorted(out))) if out else -1
        self.transitions[key] = result
        return result


class _BlankSetSearch:
    """Top-only search for racks with blanks, where a blank's letter changes no score.

    The walk branches on which rack tile goes on a square (each distinct letter, or a blank),
    not on which letter a blank stands for: after a blank the search holds the *set* of graph
    nodes its possible letters lead to (:class:`_NodeSets`), so one branch stands for up to 26.
    Words are recognised when any node of the set ends one; the letters of the blanks of the
    top plays are found afterwards (:meth:`designate`).
    """

    def __init__(self, search: _Search) -> None:
        self.search = search
        self.sets = _NodeSets(search.position.lexicon.gaddag)

    def line(self, line: _Line, start_bounds: dict[int, dict[int, int]]) -> None:
        search = self.search
        gaddag = search.position.lexicon.gaddag
        sets = self.sets
        step, set_mask = sets.step, sets.mask
        separator_bit = 1 << (gaddag.alphabet_size - 1)
        letters_mask = search.position.all_letters
        cell, value, cross, cross_base, lm, wm = line.cell, line.value, line.cross, line.cross_base, line.lm, line.wm
        anchor_set = line.anchor_set
        n = len(cell)
        counts = search.counts
        letter_values = search.letter_values
        bingo_size, bingo_bonus = search.bingo_size, search.bingo_bonus
        horizontal, line_index = line.horizontal, line.index
        found = search.found
        placed: list[tuple[int, int]] = []  # (square, letter), letter UNKNOWN_BLANK for a blank

        def record(start: int, end: int, score: int) -> None:
            if len(placed) == 1 and not horizontal and cross_base[placed[0][0]] >= 0:
                return
            if score < search.best:
                return
            if score > search.best:
                search.best = score
                found.clear()
            found.append((score, horizontal, line_index, start, end, tuple(placed)))

        def tiles_to_try(mask: int) -> list[int]:
            """Distinct real letters of the rack that ``mask`` allows, then a blank if one is left."""
            out = []
            candidates = mask & search.real_mask
            while candidates:
                low = candidates & -candidates
                candidates ^= low
                out.append(low.bit_length() - 1)
            if search.blanks and mask & letters_mask:
                out.append(UNKNOWN_BLANK)
            return out

        def take(letter: int) -> None:
            if letter == UNKNOWN_BLANK:
                search.blanks -= 1
            else:
                counts[letter] -= 1
                if not counts[letter]:
                    search.real_mask ^= 1 << letter

        def give_back(letter: int) -> None:
            if letter == UNKNOWN_BLANK:
                search.blanks += 1
            else:
                if not counts[letter]:
                    search.real_mask |= 1 << letter
                counts[letter] += 1

        def extend(state: int, i: int, start: int, main: int, mult: int, crosses: int) -> None:
            if i < n and cell[i] >= 0:
                state = step(state, 1 << cell[i])
                if state >= 0:
                    extend(state, i + 1, start, main + value[i], mult, crosses)
                return
            mask = set_mask[state]
            if i - start > 1 and mask & TERMINAL:
                score = main * mult + crosses
                if len(placed) == bingo_size:
                    score += bingo_bonus
                record(start, i, score)
            if i >= n:
                return
            allowed = mask & cross[i]
            if not allowed:
                return
            l_mult, w_mult, x_base = lm[i], wm[i], cross_base[i]
            for letter in tiles_to_try(allowed):
                is_blank = letter == UNKNOWN_BLANK
                after = step(state, allowed if is_blank else 1 << letter)
                if after < 0:
                    continue
                tile_score = 0 if is_blank else letter_values[letter] * l_mult
                take(letter)
                placed.append((i, letter))
                extend(
                    after,
                    i + 1,
                    start,
                    main + tile_score,
                    mult * w_mult,
                    crosses if x_base < 0 else crosses + (x_base + tile_score) * w_mult,
                )
                placed.pop()
                give_back(letter)

        def go_left(state: int, j: int, anchor: int, room: int, main: int, mult: int, crosses: int) -> None:
            if j >= 0 and cell[j] >= 0:
                state = step(state, 1 << cell[j])
                if state >= 0:
                    go_left(state, j - 1, anchor, room, main + value[j], mult, crosses)
                return
            mask = set_mask[state]
            start = j + 1
            if mask & separator_bit and bounds.get(start, -1) >= search.best:
                extend(step(state, separator_bit), anchor + 1, start, main, mult, crosses)
            if room <= 0 or j < 0 or j in anchor_set or reach[j] < search.best:
                return
            allowed = mask & letters_mask
            l_mult, w_mult = lm[j], wm[j]
            for letter in tiles_to_try(allowed):
                is_blank = letter == UNKNOWN_BLANK
                after = step(state, allowed if is_blank else 1 << letter)
                if after < 0:
                    continue
                take(letter)
                placed.append((j, letter))
                go_left(
                    after,
                    j - 1,
                    anchor,
                    room - 1,
                    main + (0 if is_blank else letter_values[letter] * l_mult),
                    mult * w_mult,
                    crosses,
                )
                placed.pop()
                give_back(letter)

        root = sets.intern((gaddag.root,))
        reach = [0] * (n + 1)
        for anchor, bounds in start_bounds.items():
            best_so_far = -1
            for j in range(n):
                best_so_far = max(best_so_far, bounds.get(j, -1))
                reach[j] = best_so_far
            room = left_limit(line, anchor, search.rack_size)
            allowed = set_mask[root] & cross[anchor]
            l_mult, w_mult, x_base = lm[anchor], wm[anchor], cross_base[anchor]
            for letter in tiles_to_try(allowed):
                is_blank = letter == UNKNOWN_BLANK
                after = step(root, allowed if is_blank else 1 << letter)
                if after < 0:
                    continue
                tile_score = 0 if is_blank else letter_values[letter] * l_mult
                take(letter)
                placed.append((anchor, letter))
                go_left(
                    after,
                    anchor - 1,
                    anchor,
                    room,
                    tile_score,
                    w_mult,
                    0 if x_base < 0 else (x_base + tile_score) * w_mult,
                )
                placed.pop()
                give_back(letter)

    def designate(self, raw: RawPlay) -> list[RawPlay]:
        """The plays a found pattern stands for: every letter its blanks can take that makes its
        main word a word (the cross-checks already held each blank to letters that fit across)."""
        search = self.search
        position = search.position
        score, horizontal, index, start, end, placed = raw
        line = position.lines[index if horizontal else position.size + index]
        by_square = dict(placed)
        blanks = [j for j, letter in placed if letter == UNKNOWN_BLANK]
        graph = position.lexicon.graph
        out = []
        for letters in itertools.product(*(_bits(line.cross[j] & position.all_letters) for j in blanks)):
            chosen = dict(zip(blanks, letters, strict=True))
            word = [
                line.cell[j] if line.cell[j] >= 0 else chosen.get(j, by_square.get(j, -1)) for j in range(start, end)
            ]
            if graph.contains(word):
                tiles = tuple((j, chosen[j] | BLANK_FLAG if j in chosen else letter) for j, letter in placed)
                out.append((score, horizontal, index, start, end, tiles))
        return out


UNKNOWN_BLANK = 31  # a blank whose letter is not chosen yet (letter indices stay below 31)


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        mask ^= low
        out.append(low.bit_length() - 1)
    return out


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
                bound = fixed * mult + cross_fixed + sum(c * v for c, v in zip(coefficients, values, strict=False))
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


def _all_plays(
    board: Board, rules: Ruleset, lexicon: Lexicon, rack: Sequence[str] | str
) -> tuple[Position, list[RawPlay]]:
    position = Position(board, rules, lexicon)
    search = _Search(position, _checked_rack(rack, rules), top_only=False)
    for line in position.lines:
        search.line(line)
    return position, search.found


def generate_moves(board: Board, rules: Ruleset, lexicon: Lexicon, rack: Sequence[str] | str) -> list[Move]:
    """Every legal play with ``rack`` (``?`` for a blank), each with its score."""
    position, found = _all_plays(board, rules, lexicon, rack)
    return [_to_move(position, raw) for raw in found]


@dataclass(frozen=True)
class MoveSummary:
    """What a duplicate round keeps of its rack's plays: the tops, how many plays score each score (best first)
    and the best plays: every top, then the best placement of each of the next best distinct words (the
    reveal's "next best", docs/rules.md §6.1)."""

    tops: list[Move]
    score_counts: list[tuple[int, int]]
    best: list[Move]


def _word_key(position: Position, raw: RawPlay) -> tuple[int, ...]:
    """The word a found play forms along its direction (played-through letters included, a blank as its
    letter), as letter indices, without building the play."""
    _score, horizontal, index, start, end, placed = raw
    cells = position.lines[index if horizontal else position.size + index].cell
    by_index = dict(placed)
    return tuple(cells[j] if j not in by_index else by_index[j] & ~BLANK_FLAG for j in range(start, end))


def summarise_moves(
    board: Board, rules: Ruleset, lexicon: Lexicon, rack: Sequence[str] | str, words: int
) -> MoveSummary | None:
    """:func:`generate_moves` reduced to a :class:`MoveSummary` (None when there is no legal play), building play
    objects for the kept plays only: a two-blank rack has 20,000 to 40,000 plays, and a round keeps a dozen.

    ``best`` holds every top, then, best first, the best placement of each of the ``words`` best words other
    than the tops' (one word at five places is one idea for a room, not five)."""
    position, found = _all_plays(board, rules, lexicon, rack)
    if not found:
        return None
    counts = Counter(raw[0] for raw in found)
    top = max(counts)
    tops = [raw for raw in found if raw[0] == top]
    seen = {_word_key(position, raw) for raw in tops}
    # Stable: plays of one score stay in the order they were found (reverse=True keeps it too).
    found.sort(key=_score_of, reverse=True)
    others: list[RawPlay] = []
    for raw in itertools.islice(found, len(tops), None):
        if len(others) == words:
            break
        key = _word_key(position, raw)
        if key not in seen:
            seen.add(key)
            others.append(raw)
    best = [_to_move(position, raw) for raw in tops + others]
    return MoveSummary(best[: len(tops)], sorted(counts.items(), reverse=True), best)


def _score_of(raw: RawPlay) -> int:
    return raw[0]


def count_moves(board: Board, rules: Ruleset, lexicon: Lexicon, rack: Sequence[str] | str) -> int:
    """How many legal plays ``rack`` has (without building the plays)."""
    return len(_all_plays(board, rules, lexicon, rack)[1])


def top_moves(board: Board, rules: Ruleset, lexicon: Lexicon, rack: Sequence[str] | str) -> tuple[int, list[Move]]:
    """The top score and every play that reaches it (``(0, [])`` when there is no legal play)."""
    tiles = _checked_rack(rack, rules)
    position = Position(board, rules, lexicon)
    search = _Search(position, tiles, top_only=True)
    if not tiles:
        return 0, []
    # Anchors best bound first; each is searched once, with its starts' bounds for pruning.
    per_anchor: dict[tuple[int, int], dict[int, int]] = {}
    for line_number, line in enumerate(position.lines):
        for bound, anchor, start in _start_bounds(position, line, tiles):
            per_anchor.setdefault((line_number, anchor), {})[start] = bound
    order = sorted(((max(b.values()), key) for key, b in per_anchor.items()), reverse=True)
    blank_search = _BlankSetSearch(search) if search.blanks else None
    for bound, (line_number, anchor) in order:
        if bound < search.best:
            break
        anchor_bounds = {anchor: per_anchor[(line_number, anchor)]}
        if blank_search is not None:
            blank_search.line(position.lines[line_number], anchor_bounds)
        else:
            search.line(position.lines[line_number], anchor_bounds)
    if search.best < 0:
        return 0, []
    found = search.found
    if blank_search is not None:
        found = [play for raw in found for play in blank_search.designate(raw)]
    return search.best, [_to_move(position, raw) for raw in found]
