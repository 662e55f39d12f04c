"""Lexicon questions the drills ask: the anagrams of a rack, the twos, the hooks of a word.

Answered from the lexicon's word graph (DAWG), so a card can be rebuilt from its id in a
millisecond without the probability index.
"""

from __future__ import annotations

from trainer.engine.lexicon import Lexicon, normalise_word
from trainer.engine.rules import BLANK
from trainer.engine.wordgraph import LETTERS_MASK, TERMINAL


def anagrams(lexicon: Lexicon, rack: str) -> list[str]:
    """Every word of ``lexicon`` that uses all tiles of ``rack`` (``?`` a blank), sorted.

    A depth-first walk of the graph with the rack's letter counts: a real tile is used whenever
    the rack has one (a blank would only repeat the same word), otherwise a blank.
    """
    rack = normalise_word(rack)
    blanks = rack.count(BLANK)
    encoded = lexicon.encode(rack.replace(BLANK, ""))
    if encoded is None:
        return []
    graph = lexicon.graph
    info, first, targets = graph.info, graph.first, graph.targets
    letters = lexicon.letters
    counts = [0] * len(letters)
    for index in encoded:
        counts[index] += 1
    length = len(rack)
    found: list[str] = []
    path: list[int] = []

    def walk(node: int, blanks_left: int) -> None:
        mask = info[node]
        if len(path) == length:
            if mask & TERMINAL:
                found.append("".join(letters[i] for i in path))
            return
        arcs = mask & LETTERS_MASK
        index = first[node]
        while arcs:  # the node's children, lowest letter first, as the graph stores them
            low = arcs & -arcs
            letter = low.bit_length() - 1
            child = targets[index]
            index += 1
            arcs ^= low
            if counts[letter]:
                counts[letter] -= 1
                path.append(letter)
                walk(child, blanks_left)
                path.pop()
                counts[letter] += 1
            elif blanks_left:
                path.append(letter)
                walk(child, blanks_left - 1)
                path.pop()

    walk(graph.root, blanks)
    return found  # the walk visits letters in order, so the words come sorted


def two_letter_words(lexicon: Lexicon) -> list[str]:
    """The lexicon's two-letter words, sorted (every pair of its letters tried against the graph)."""
    letters = lexicon.letters
    return [a + b for a in letters for b in letters if lexicon.graph.contains([letters.index(a), letters.index(b)])]


def hooks(lexicon: Lexicon, word: str) -> tuple[str, str]:
    """(front hooks, back hooks) of ``word``: the letters that make a word before it, and after it."""
    word = normalise_word(word)
    front = "".join(ch for ch in lexicon.letters if ch + word in lexicon)
    back = "".join(ch for ch in lexicon.letters if word + ch in lexicon)
    return front, back
