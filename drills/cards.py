"""Cards and answers: what each drill type asks, and what the learner's typed words were worth.

A card is plain data with a stable id, ``"{type}:{lexicon}:{key}"`` (``anagram:en:AEINRST``,
``stem:en:AEINST``, ``twos:en:hooks:QI``), so a deck stores ids and any process rebuilds the card
from the lexicon. Prompts are language-neutral (letters and ``?``); the pages add the sentence
in the learner's language from ``Card.kind``.

The drill types are classes with one instance each in :mod:`drills.registry`; each builds a card
from its key and says why a typed answer is wrong. Checking is the same for all: typed answers
are normalised (case, accents, separators), matched against the card's answer set, and the rest
reported as right, wrong (with a reason) or missed.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import ClassVar, Literal

from trainer.engine.lexicon import Lexicon, normalise_word
from trainer.engine.rules import BLANK

from .probability import MAX_LENGTH, MIN_LENGTH, BagOdds, alphagram, cached_index, gc_paused, probability_index
from .words import anagrams, hooks, two_letter_words

_SEPARATORS = re.compile(r"[\s,;/]+")


class CardError(ValueError):
    """A card id or key that names no card (unknown type, wrong lexicon, letters outside the tiles)."""


class Reason(StrEnum):
    """Why a typed answer is wrong; the values are the English wording (the pages translate)."""

    NOT_A_WORD = "not a word"
    NOT_FROM_LETTERS = "not from these letters"
    NOT_ON_CARD = "not on this card"
    MAKES_NO_WORD = "makes no word"


@dataclass(frozen=True, slots=True)
class Wrong:
    answer: str
    reason: Reason


@dataclass(frozen=True, slots=True)
class Feedback:
    """The verdict on one attempt: shown at once, and the input of the rating (scheduling)."""

    card_id: str
    right: tuple[str, ...]  # in the order typed
    wrong: tuple[Wrong, ...]  # in the order typed
    missed: tuple[str, ...]  # sorted

    @property
    def perfect(self) -> bool:
        """Every answer found and nothing wrong typed."""
        return not self.wrong and not self.missed

    @property
    def answer_count(self) -> int:
        return len(self.right) + len(self.missed)

    @property
    def typos(self) -> tuple[str, ...]:
        """Typed words made of letters the card does not hold: slips of the finger, asked again rather than
        graded (docs/rules.md §7.6)."""
        return tuple(wrong.answer for wrong in self.wrong if wrong.reason == Reason.NOT_FROM_LETTERS)


@dataclass(frozen=True, slots=True)
class Card:
    """One question. ``answers`` is the full answer set; ``groups`` shows it organised after the card
    (stem: letter -> words; hooks: front/back; grid: valid/phony)."""

    id: str
    type: str
    kind: str  # what is asked, for the page's wording: "anagram", "stem-words", "twos-hooks", ...
    lexicon: str
    key: str
    prompt: str
    answers: frozenset[str]
    groups: tuple[tuple[str, tuple[str, ...]], ...] = ()
    rank: int | None = None  # place in its list (probability order for anagrams): new cards come in this order
    ways: int | None = None  # draws of its tiles from a full bag, when that means something

    def solutions(self) -> list[str]:
        return sorted(self.answers)


@dataclass(frozen=True, slots=True)
class GroupedWord:
    """One word of an answer group, with what became of it in an attempt: "right", "missed" or "" (not asked
    for, as a stem's words on a card that asks for its letters, or no attempt to judge)."""

    word: str
    status: str = ""


@dataclass(frozen=True, slots=True)
class AnswerGroup:
    """A card's answers under one heading: a stem's added letter (``R`` for AEINST: RETAINS, NASTIER, ...), a
    two's front or back hooks, a grid's valid or phony pairs. ``status`` is the heading's own, when the card
    asks for the headings (a stem's letters)."""

    name: str
    words: tuple[GroupedWord, ...]
    status: str = ""


def _status(answer: str, card: Card, feedback: Feedback | None) -> str:
    if feedback is None or answer not in card.answers:
        return ""
    return "right" if answer in feedback.right else "missed"


def grouped_answers(card: Card, feedback: Feedback | None = None) -> tuple[AnswerGroup, ...]:
    """The card's answers in its groups (none for a card without groups), each marked right or missed when
    ``feedback`` is the attempt's. A stem card's groups are its added letters, in alphabetical order."""
    return tuple(
        AnswerGroup(
            name,
            tuple(GroupedWord(word, _status(word, card, feedback)) for word in words),
            _status(name, card, feedback) if card.kind == "stem-letters" else "",
        )
        for name, words in card.groups
    )


def make_id(drill_type: str, lexicon: str, key: str) -> str:
    return f"{drill_type}:{lexicon}:{key}"


def parse_id(card_id: str) -> tuple[str, str, str]:
    """(type, lexicon, key) of a card id; :class:`CardError` when it has fewer than three parts."""
    parts = card_id.split(":", 2)
    if len(parts) != 3 or not all(parts):
        raise CardError(f"not a card id: {card_id!r} (expected type:lexicon:key)")
    return parts[0], parts[1], parts[2]


def split_answers(answers: Iterable[str]) -> list[str]:
    """Typed answers as words: each entry split on spaces, commas, semicolons and slashes (a learner
    may type several words before Enter), upper-cased without accents, repeats dropped."""
    seen: dict[str, None] = {}
    for entry in answers:
        for piece in _SEPARATORS.split(entry):
            word = normalise_word(piece)
            if word:
                seen.setdefault(word, None)
    return list(seen)


def _contains(word: str, letters: str) -> bool:
    """Does ``word`` hold every letter of ``letters`` (with repeats)?"""
    return not Counter(letters) - Counter(word)


def _fits_rack(word: str, rack: str) -> bool:
    """Can ``word`` be spelt with exactly the tiles of ``rack`` (``?`` blanks)?"""
    return len(word) == len(rack) and _contains(word, rack.replace(BLANK, ""))


def _tile_letters(lexicon: Lexicon, letters: str, what: str) -> str:
    """``letters`` normalised, or :class:`CardError` when a letter is not one of the lexicon's tiles."""
    letters = normalise_word(letters)
    bad = sorted(set(letters) - set(lexicon.letters) - {BLANK})
    if bad:
        raise CardError(f"{what} {letters!r}: {''.join(bad)!r} not among the tiles of {lexicon.name}")
    return letters


@dataclass(frozen=True, slots=True)
class KeySearch:
    """The card keys a searched text names: exact keys, and patterns in which ``*`` is any run of characters."""

    keys: frozenset[str]
    patterns: tuple[str, ...] = ()


def _search_text(text: str) -> str:
    """A searched text as the keys write it: letters and ``?``, upper case, accents and separators gone."""
    return "".join(ch for ch in normalise_word(text) if ch.isalpha() or ch == BLANK)


class DrillType:
    """A kind of drill: builds cards from keys and says why an answer is wrong (CTFd-style plug-in)."""

    name: ClassVar[str]
    title: ClassVar[str]

    def card(self, lexicon: Lexicon, key: str) -> Card:
        """The card with this key (the part of the id after the lexicon)."""
        raise NotImplementedError

    def why_wrong(self, card: Card, answer: str) -> Reason:
        """Why ``answer`` (normalised, not in the answer set) is wrong on ``card``."""
        raise NotImplementedError

    def search(self, text: str) -> KeySearch:
        """The keys of this type's cards whose question is ``text`` (its letters in any order, ``?`` a blank)
        or whose answers hold it: the card browser's search."""
        return KeySearch(frozenset())

    def check(self, card: Card, answers: Iterable[str]) -> Feedback:
        """Right, wrong (with why) and missed answers of one attempt."""
        typed = split_answers(answers)
        right = tuple(word for word in typed if word in card.answers)
        wrong = tuple(Wrong(word, self.why_wrong(card, word)) for word in typed if word not in card.answers)
        missed = tuple(sorted(card.answers.difference(right)))
        return Feedback(card.id, right, wrong, missed)


# -- anagrams ---------------------------------------------------------------------------------


class AnagramDrill(DrillType):
    """An alphagram of 2-15 tiles, up to two of them blanks: type every word it makes."""

    name = "anagram"
    title = "Anagrams"

    def card(self, lexicon: Lexicon, key: str) -> Card:
        rack = alphagram(_tile_letters(lexicon, key, "alphagram"))
        blanks = rack.count(BLANK)
        if not MIN_LENGTH <= len(rack) <= MAX_LENGTH or blanks > min(2, lexicon.rules.tileset.blanks):
            raise CardError(f"alphagram {rack!r}: {MIN_LENGTH}-{MAX_LENGTH} tiles, at most two blanks")
        index = cached_index(lexicon)
        entry = index.get(rack) if index is not None and blanks == 0 else None
        if entry is not None:
            return self.from_entry(lexicon.name, entry.letters, entry.words, entry.rank, entry.ways)
        return self.from_entry(
            lexicon.name, rack, tuple(anagrams(lexicon, rack)), None, BagOdds(lexicon.rules.tileset).ways(rack)
        )

    def from_entry(self, lexicon: str, rack: str, words: Sequence[str], rank: int | None, ways: int) -> Card:
        """The card of an index entry (its words already known: no graph walk)."""
        return Card(
            make_id(self.name, lexicon, rack),
            self.name,
            "anagram",
            lexicon,
            rack,
            rack,
            frozenset(words),
            rank=rank,
            ways=ways,
        )

    def why_wrong(self, card: Card, answer: str) -> Reason:
        return Reason.NOT_A_WORD if _fits_rack(answer, card.key) else Reason.NOT_FROM_LETTERS

    def search(self, text: str) -> KeySearch:
        """The alphagram of ``text``, and for a word, its racks with one or two of its letters as blanks."""
        letters = _search_text(text)
        if not MIN_LENGTH <= len(letters) <= MAX_LENGTH:
            return KeySearch(frozenset())
        keys = {alphagram(letters)}
        if BLANK not in letters:
            for blanks in (1, 2):
                for kept in combinations(sorted(letters), len(letters) - blanks):
                    keys.add("".join(kept) + BLANK * blanks)
        return KeySearch(frozenset(keys))

    def cards(
        self, lexicon: Lexicon, length: int, first: int = 1, last: int | None = None, blanks: int = 0
    ) -> list[Card]:
        """Ranks ``first``-``last`` of the ``length``-tile alphagrams (with ``blanks`` blanks) in
        probability order: "7s 1-1000", "8s with a blank 1-500"."""
        index = probability_index(lexicon)
        ranked = index.blank_racks(length, blanks) if blanks else index.ranked(length)
        last = len(ranked) if last is None else last
        with gc_paused():
            return [
                self.from_entry(lexicon.name, e.letters, e.words, e.rank, e.ways)
                for e in ranked[max(first, 1) - 1 : max(last, 0)]
            ]


@dataclass(frozen=True, slots=True)
class WordListImport:
    """Cards made from pasted or uploaded words, and the lines left out (with why)."""

    cards: list[Card]
    skipped: list[tuple[str, str]]


def cards_from_words(lexicon: Lexicon, words: Iterable[str]) -> WordListImport:
    """Anagram cards for the alphagrams of ``words`` (pasted text or a word list file's lines), one
    card per alphagram, in probability order; words that are not in the lexicon are skipped."""
    index = probability_index(lexicon)
    keys: dict[str, None] = {}
    skipped: list[tuple[str, str]] = []
    lines = [line for line in words if not line.lstrip().startswith("#")]  # comment lines of a word list file
    for word in split_answers(lines):
        if not MIN_LENGTH <= len(word) <= MAX_LENGTH:
            skipped.append((word, f"not {MIN_LENGTH}-{MAX_LENGTH} letters"))
        elif word not in lexicon:
            skipped.append((word, f"not a word of {lexicon.name}"))
        else:
            keys.setdefault(alphagram(word), None)
    entries = [entry for entry in (index.get(key) for key in keys) if entry is not None]
    entries.sort(key=lambda e: (len(e.letters), e.rank))
    cards = [ANAGRAM.from_entry(lexicon.name, e.letters, e.words, e.rank, e.ways) for e in entries]
    return WordListImport(cards, skipped)


# -- bingo stems ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Stem:
    """A stem and what it makes: ``letters`` -> the words of one more letter."""

    letters: str
    bingos: int  # words made by adding one letter
    groups: tuple[tuple[str, tuple[str, ...]], ...]
    ways: int


def _stem_groups(lexicon: Lexicon, stem: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Letter -> words of ``stem`` plus that letter, from one walk of the graph with a blank."""
    groups: dict[str, list[str]] = {}
    for word in anagrams(lexicon, stem + BLANK):
        extra = (Counter(word) - Counter(stem)).most_common(1)[0][0]
        groups.setdefault(extra, []).append(word)
    return tuple((letter, tuple(groups[letter])) for letter in sorted(groups))


class StemDrill(DrillType):
    """A stem of 6 (or 7, or any 2-14) letters: which letters make a word of one more, and which words.

    Key ``AEINST`` asks for the words; ``letters:AEINST`` asks for the letters only.
    """

    name = "stem"
    title = "Bingo stems"

    def card(self, lexicon: Lexicon, key: str) -> Card:
        ask: Literal["words", "letters"] = "words"
        letters = key
        if key.startswith("letters:"):
            ask, letters = "letters", key.removeprefix("letters:")
        stem = alphagram(_tile_letters(lexicon, letters, "stem"))
        if BLANK in stem or not MIN_LENGTH <= len(stem) < MAX_LENGTH:
            raise CardError(f"stem {stem!r}: {MIN_LENGTH}-{MAX_LENGTH - 1} letters, no blank")
        groups = _stem_groups(lexicon, stem)
        found = Stem(stem, sum(len(words) for _, words in groups), groups, BagOdds(lexicon.rules.tileset).ways(stem))
        return self.from_stem(lexicon.name, found, ask)

    def from_stem(
        self, lexicon: str, stem: Stem, ask: Literal["words", "letters"] = "words", rank: int | None = None
    ) -> Card:
        key = stem.letters if ask == "words" else f"letters:{stem.letters}"
        if ask == "words":
            answers = frozenset(word for _, words in stem.groups for word in words)
        else:
            answers = frozenset(letter for letter, _ in stem.groups)
        return Card(
            make_id(self.name, lexicon, key),
            self.name,
            f"stem-{ask}",
            lexicon,
            key,
            f"{stem.letters} + {BLANK}",
            answers,
            stem.groups,
            rank,
            stem.ways,
        )

    def search(self, text: str) -> KeySearch:
        """The stem ``text`` itself, and the stems a word of one more letter is made from (both ways of asking)."""
        letters = _search_text(text).replace(BLANK, "")
        stems = {alphagram(letters)} if MIN_LENGTH <= len(letters) < MAX_LENGTH else set()
        if MIN_LENGTH < len(letters) <= MAX_LENGTH:
            stems.update(alphagram(letters[:i] + letters[i + 1 :]) for i in range(len(letters)))
        return KeySearch(frozenset(stems | {f"letters:{stem}" for stem in stems}))

    def why_wrong(self, card: Card, answer: str) -> Reason:
        stem = card.key.removeprefix("letters:")
        if card.kind == "stem-letters":
            return Reason.MAKES_NO_WORD if len(answer) == 1 else Reason.NOT_ON_CARD
        if len(answer) == len(stem) + 1 and _contains(answer, stem):
            return Reason.NOT_A_WORD
        return Reason.NOT_FROM_LETTERS

    def top(self, lexicon: Lexicon, length: int, n: int = 100) -> list[Stem]:
        """The ``n`` stems of ``length`` letters that make the most words of ``length + 1``.

        Every (length + 1)-letter alphagram gives one stem per distinct letter left out, so one
        pass over that length's alphagrams counts them all. Ties: more probable stem first, then
        alphabetical.
        """
        index = probability_index(lexicon)
        groups: dict[str, dict[str, tuple[str, ...]]] = {}
        for entry in index.ranked(length + 1):
            letters = entry.letters
            for i, letter in enumerate(letters):
                if i and letters[i - 1] == letter:
                    continue
                groups.setdefault(letters[:i] + letters[i + 1 :], {})[letter] = entry.words
        counted = sorted(
            groups,
            key=lambda stem: (-sum(len(w) for w in groups[stem].values()), -index.odds.alphagram_ways(stem), stem),
        )
        return [
            Stem(
                stem,
                sum(len(w) for w in groups[stem].values()),
                tuple((letter, groups[stem][letter]) for letter in sorted(groups[stem])),
                index.odds.alphagram_ways(stem),
            )
            for stem in counted[:n]
        ]

    def cards(
        self, lexicon: Lexicon, length: int, n: int = 100, ask: Literal["words", "letters"] = "words"
    ) -> list[Card]:
        """Cards for the top ``n`` stems of ``length`` letters, ranked as :meth:`top`."""
        stems = self.top(lexicon, length, n)
        return [self.from_stem(lexicon.name, stem, ask, rank) for rank, stem in enumerate(stems, start=1)]


def top_stems(lexicon: Lexicon, length: int, n: int = 100) -> list[Stem]:
    """The ``n`` stems of ``length`` letters that make the most bingos (see :meth:`StemDrill.top`)."""
    return STEM.top(lexicon, length, n)


# -- twos ---------------------------------------------------------------------------------------

TwosWhere = Literal["start", "end", "with"]


class TwosDrill(DrillType):
    """The two-letter words: valid-or-phony grids, all twos with a letter, and the hooks of each two.

    Keys: ``grid:AB-QI-XO`` (type the valid pairs of the grid), ``start:Q``, ``end:Q``, ``with:Q``
    (type every two starting with, ending with, or containing Q), ``hooks:QI`` (type every
    three-letter word made by a letter before or after QI).
    """

    name = "twos"
    title = "Two-letter words"

    def card(self, lexicon: Lexicon, key: str) -> Card:
        what, _, rest = key.partition(":")
        if what == "grid":
            pairs = tuple(_tile_letters(lexicon, pair, "twos grid") for pair in rest.split("-") if pair)
            if not pairs or any(len(pair) != 2 or BLANK in pair for pair in pairs):
                raise CardError(f"twos grid {rest!r}: expected letter pairs separated by '-'")
            return self._grid(lexicon, pairs)
        rest = _tile_letters(lexicon, rest, "twos card")
        if BLANK in rest:
            raise CardError(f"twos card {key!r}: no blank here")
        if what in ("start", "end", "with") and len(rest) == 1:
            return self._with_letter(lexicon, rest, what)  # type: ignore[arg-type]
        if what == "hooks" and len(rest) == 2:
            return self._hooks(lexicon, rest)
        raise CardError(f"twos card {key!r}: expected grid:PAIRS, start:L, end:L, with:L or hooks:TWO")

    def _grid(self, lexicon: Lexicon, pairs: Sequence[str], rank: int | None = None) -> Card:
        valid = tuple(pair for pair in pairs if pair in lexicon)
        phony = tuple(pair for pair in pairs if pair not in valid)
        key = "grid:" + "-".join(pairs)
        return Card(
            make_id(self.name, lexicon.name, key),
            self.name,
            "twos-grid",
            lexicon.name,
            key,
            " ".join(pairs),
            frozenset(valid),
            (("valid", valid), ("phony", phony)),
            rank,
        )

    def _with_letter(
        self,
        lexicon: Lexicon,
        letter: str,
        where: TwosWhere,
        twos: Sequence[str] | None = None,
        rank: int | None = None,
    ) -> Card:
        twos = two_letter_words(lexicon) if twos is None else twos
        answers = tuple(two for two in twos if _two_matches(two, letter, where))
        key = f"{where}:{letter}"
        prompt = {"start": f"{letter}{BLANK}", "end": f"{BLANK}{letter}", "with": f"{letter}{BLANK} {BLANK}{letter}"}
        return Card(
            make_id(self.name, lexicon.name, key),
            self.name,
            f"twos-{where}",
            lexicon.name,
            key,
            prompt[where],
            frozenset(answers),
            rank=rank,
        )

    def _hooks(self, lexicon: Lexicon, two: str, rank: int | None = None) -> Card:
        front, back = hooks(lexicon, two)
        front_words = tuple(letter + two for letter in front)
        back_words = tuple(two + letter for letter in back)
        key = f"hooks:{two}"
        return Card(
            make_id(self.name, lexicon.name, key),
            self.name,
            "twos-hooks",
            lexicon.name,
            key,
            f"{BLANK}{two}{BLANK}",
            frozenset(front_words + back_words),
            (("front", front_words), ("back", back_words)),
            rank,
        )

    def search(self, text: str) -> KeySearch:
        """A letter's cards; a two's hooks, its letters' cards and the grids holding it; a three's twos' hooks."""
        letters = _search_text(text).replace(BLANK, "")
        keys: set[str] = set()
        patterns: tuple[str, ...] = ()
        if len(letters) == 1:
            keys.update(f"{where}:{letters}" for where in ("start", "end", "with"))
        elif len(letters) == 2:
            keys.update((f"hooks:{letters}", f"start:{letters[0]}", f"end:{letters[1]}"))
            keys.update(f"with:{letter}" for letter in letters)
            patterns = (f"grid:{letters}-*", f"grid:*-{letters}-*", f"grid:*-{letters}", f"grid:{letters}")
        elif len(letters) == 3:
            keys.update((f"hooks:{letters[1:]}", f"hooks:{letters[:2]}"))
        return KeySearch(frozenset(keys), patterns)

    def why_wrong(self, card: Card, answer: str) -> Reason:
        what, _, rest = card.key.partition(":")
        if what == "grid":
            return Reason.NOT_A_WORD if answer in rest.split("-") else Reason.NOT_ON_CARD
        if what == "hooks":
            fits = len(answer) == 3 and rest in (answer[1:], answer[:2])
            return Reason.NOT_A_WORD if fits else Reason.NOT_FROM_LETTERS
        fits = len(answer) == 2 and _two_matches(answer, rest, what)  # type: ignore[arg-type]
        return Reason.NOT_A_WORD if fits else Reason.NOT_FROM_LETTERS

    def grids(self, lexicon: Lexicon, size: int = 20, seed: int = 0) -> list[Card]:
        """Valid-or-phony grids covering every two once, each half valid and half phony.

        The phonies are the pairs a player is likeliest to see on a rack (most probable first), as
        many as there are twos. Valid and phony pairs are shuffled apart (seeded by the lexicon's
        name and ``seed``, so the same grids come back every time) and dealt ``size // 2`` of each
        per grid.
        """
        half = max(1, size // 2)
        valid = two_letter_words(lexicon)
        odds = BagOdds(lexicon.rules.tileset)
        others = [a + b for a in lexicon.letters for b in lexicon.letters if a + b not in set(valid)]
        phony = sorted(others, key=lambda pair: (-odds.ways(pair), pair))[: len(valid)]
        rng = random.Random(f"{lexicon.name}:{seed}")
        rng.shuffle(valid)
        rng.shuffle(phony)
        cards = []
        for number, start in enumerate(range(0, max(len(valid), len(phony)), half), start=1):
            pairs = valid[start : start + half] + phony[start : start + half]
            rng.shuffle(pairs)
            cards.append(self._grid(lexicon, pairs, number))
        return cards

    def letter_cards(self, lexicon: Lexicon, where: TwosWhere = "with") -> list[Card]:
        """One card per letter that has twos (starting with, ending with, or containing it)."""
        twos = two_letter_words(lexicon)
        letters = [letter for letter in lexicon.letters if any(_two_matches(two, letter, where) for two in twos)]
        return [self._with_letter(lexicon, letter, where, twos, rank) for rank, letter in enumerate(letters, start=1)]

    def hook_cards(self, lexicon: Lexicon) -> list[Card]:
        """One card per two that takes a hook: its front and back hooks. A two without any (English MY and XU,
        French EH, EX, QI and XI) has no card: there would be nothing to type (docs/rules.md §7.5)."""
        hooked = [two for two in two_letter_words(lexicon) if any(hooks(lexicon, two))]
        return [self._hooks(lexicon, two, rank) for rank, two in enumerate(hooked, start=1)]


def _two_matches(two: str, letter: str, where: TwosWhere) -> bool:
    if where == "start":
        return two[0] == letter
    if where == "end":
        return two[1] == letter
    return letter in two


ANAGRAM = AnagramDrill()
STEM = StemDrill()
TWOS = TwosDrill()
