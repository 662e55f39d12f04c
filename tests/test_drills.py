"""Word-study drills: probability order, the three drill types, scheduling and imports.

Answers are checked against the bundled word list file read directly (tests/brute_force.py's
reader), never against the word graph the drills use, and probabilities against draws enumerated
tile by tile. Time is always injected; nothing sleeps.
"""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta, timezone
from math import comb
from pathlib import Path

import pytest
from fsrs import Rating, Scheduler, State

import wordlists
from drills.cardbox import (
    CARDBOX_SCHEDULE,
    CardboxRow,
    box_interval,
    cardbox_of,
    export_cardbox,
    import_cardbox,
    import_word_list,
    read_cardbox,
    write_cardbox,
)
from drills.cards import ANAGRAM, STEM, TWOS, Card, CardError, Feedback, Reason, cards_from_words, split_answers
from drills.probability import BagOdds, alphagram, probability_index
from drills.registry import DRILL_TYPES, card_from_id, check, register
from drills.scheduling import (
    CardState,
    DayBoundary,
    DayCount,
    DeckLimits,
    DeckQueue,
    Pick,
    PickKind,
    RatingThresholds,
    ReviewKind,
    count_day,
    new_states,
    pick_next,
    rating_for,
)
from drills.words import two_letter_words
from tests.brute_force import read_words
from trainer.engine.lexicon import Lexicon, LexiconStore
from trainer.engine.rules import TileSet, ruleset

ROOT = Path(__file__).resolve().parent.parent
T0 = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)  # a Monday evening


# -- the word list, read straight from the file ---------------------------------------------------


@pytest.fixture(scope="module")
def en_words() -> tuple[str, ...]:
    return read_words(wordlists.bundled_path("en"))


@pytest.fixture(scope="module")
def en_set(en_words: tuple[str, ...]) -> frozenset[str]:
    return frozenset(en_words)


def brute_anagrams(words: Iterable[str], rack: str) -> set[str]:
    """Words spelt by exactly the tiles of ``rack`` (``?`` a blank), by counting letters."""
    need = Counter(rack.replace("?", ""))
    return {w for w in words if len(w) == len(rack) and not need - Counter(w)}


# -- probability --------------------------------------------------------------------------------


def draws_by_enumeration(tileset: TileSet, word: str) -> int:
    """Draws of len(word) physical tiles from the full bag that can spell ``word``, tile by tile."""
    bag = tileset.bag()
    need = Counter(word)
    count = 0
    for draw in itertools.combinations(range(len(bag)), len(word)):
        tiles = Counter(bag[i] for i in draw)
        blanks = tiles.pop("?", 0)
        if not tiles - need and sum((need - tiles).values()) == blanks:
            count += 1
    return count


def draws_by_tile_types(tileset: TileSet, word: str) -> int:
    """The same count for longer words: every multiset of tile types drawn (only the word's
    letters and the blank can be in a draw that spells it), weighted by its number of draws."""
    counts = dict(zip(tileset.letters, tileset.counts, strict=True)) | {"?": tileset.blanks}
    need = Counter(word)
    kinds = [*sorted(need), "?"]
    total = 0
    for draw in itertools.combinations_with_replacement(kinds, len(word)):
        tiles = Counter(draw)
        blanks = tiles.pop("?", 0)
        if not tiles - need and sum((need - tiles).values()) == blanks:
            ways = comb(tileset.blanks, blanks)
            for letter, n in tiles.items():
                ways *= comb(counts[letter], n)
            total += ways
    return total


@pytest.mark.parametrize("word", ["AA", "QI", "ZZ", "XU", "EEE", "JAB"])
def test_ways_count_every_draw_of_the_bag(word: str) -> None:
    tileset = ruleset("en").tileset
    assert BagOdds(tileset).ways(word) == draws_by_enumeration(tileset, word)


@pytest.mark.parametrize("rules", ["en", "fr"])
@pytest.mark.parametrize("word", ["AEINRST", "EEEIRST", "AAEINST", "QUIZ", "JUKEBOX", "KWAS", "ESSAYEES", "ZZZ"])
def test_ways_per_tile_set(rules: str, word: str) -> None:
    tileset = ruleset(rules).tileset
    odds = BagOdds(tileset)
    assert odds.ways(word) == odds.ways(word[::-1]) == draws_by_tile_types(tileset, word)
    assert odds.probability(word) == pytest.approx(odds.ways(word) / comb(tileset.total, len(word)))


def test_tile_sets_give_different_odds() -> None:
    en, fr = BagOdds(ruleset("en").tileset), BagOdds(ruleset("fr").tileset)
    assert en.ways("KW") != fr.ways("KW")  # one K and two W in English; one of each in French
    assert BagOdds(ruleset("en").tileset).ways("A1") == 0


def test_rack_ways_count_exact_racks() -> None:
    tileset = ruleset("en").tileset
    odds = BagOdds(tileset)
    bag = tileset.bag()
    for rack in ("A?", "??", "E?", "QI"):
        exact = sum(1 for d in itertools.combinations(bag, 2) if sorted(d) == sorted(rack))
        assert odds.rack_ways(rack) == exact, rack


def test_index_ranks_every_alphagram_of_the_word_list(en_lexicon: Lexicon, en_words: tuple[str, ...]) -> None:
    index = probability_index(en_lexicon)
    groups: dict[str, set[str]] = {}
    for word in en_words:
        groups.setdefault("".join(sorted(word)), set()).add(word)
    assert sum(len(index.ranked(n)) for n in range(2, 16)) == len(groups)
    odds = BagOdds(ruleset("en").tileset)
    for length in range(2, 16):
        ranked = index.ranked(length)
        assert [e.rank for e in ranked] == list(range(1, len(ranked) + 1))
        for before, after in itertools.pairwise(ranked):
            assert before.ways > after.ways or (before.ways == after.ways and before.letters < after.letters)
    rng = random.Random(5)
    for key in rng.sample(sorted(groups), 300):
        entry = index.get(key)
        assert entry is not None and set(entry.words) == groups[key]
        assert entry.ways == odds.ways(key)


def test_probability_order_ties_are_alphabetical(en_lexicon: Lexicon) -> None:
    ranked = probability_index(en_lexicon).ranked(8)
    ties = [(a, b) for a, b in itertools.pairwise(ranked) if a.ways == b.ways]
    assert ties, "8-letter alphagrams with the same odds exist"
    assert all(a.letters < b.letters for a, b in ties)
    assert all(a.ways >= b.ways for a, b in itertools.pairwise(ranked))


def test_alphagram_puts_blanks_last() -> None:
    assert alphagram("RETAINS") == "AEINRST"
    assert alphagram("T?RA?") == "ART??"


# -- anagram cards ------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["AEINRST", "EINORST", "ADEER", "AELST", "OPST", "JO", "AEINRT?", "EIRST??", "X?"])
def test_anagram_answers_are_every_word_of_the_letters(
    en_lexicon: Lexicon, en_words: tuple[str, ...], key: str
) -> None:
    card = card_from_id(en_lexicon, f"anagram:en:{key}")
    assert card.answers == brute_anagrams(en_words, key)
    assert card.answers, key


def test_anagram_lists_by_length_and_probability_range(en_lexicon: Lexicon, en_words: tuple[str, ...]) -> None:
    cards = ANAGRAM.cards(en_lexicon, 7, 11, 40)
    assert [c.rank for c in cards] == list(range(11, 41))
    assert all(len(c.key) == 7 for c in cards)
    assert all(a.ways is not None and b.ways is not None and a.ways >= b.ways for a, b in itertools.pairwise(cards))
    sevens = [w for w in en_words if len(w) == 7]
    for card in cards[:5]:
        assert card.answers == brute_anagrams(sevens, card.key)
    # The most probable 7s are the ones with the largest number of draws among all 7s in the list.
    odds = BagOdds(ruleset("en").tileset)
    best = max(odds.ways("".join(sorted(w))) for w in sevens)
    assert ANAGRAM.cards(en_lexicon, 7, 1, 1)[0].ways == best


def test_blank_anagram_lists(en_lexicon: Lexicon, en_words: tuple[str, ...]) -> None:
    cards = ANAGRAM.cards(en_lexicon, 7, 1, 15, blanks=1)
    assert len(cards) == 15 and all(c.key.count("?") == 1 and len(c.key) == 7 for c in cards)
    sevens = [w for w in en_words if len(w) == 7]
    odds = BagOdds(ruleset("en").tileset)
    for a, b in itertools.pairwise(cards):
        assert a.ways is not None and b.ways is not None
        assert a.ways > b.ways or (a.ways == b.ways and a.key < b.key)
    for card in cards[:4]:
        assert card.answers == brute_anagrams(sevens, card.key)
        assert card.ways == odds.rack_ways(card.key)
        assert card_from_id(en_lexicon, card.id).answers == card.answers


def test_check_reports_right_wrong_and_missed(en_lexicon: Lexicon, en_set: frozenset[str]) -> None:
    card = card_from_id(en_lexicon, "anagram:en:AEINRST")
    feedback = check(card, ["retains", " Stainer , nastier", "RÉTAINS", "aeinrst", "TRAINEE", "retains"])
    assert feedback.right == ("RETAINS", "STAINER", "NASTIER")
    assert "AEINRST" not in en_set and "TRAINEE" in en_set
    assert {(w.answer, w.reason) for w in feedback.wrong} == {
        ("AEINRST", Reason.NOT_A_WORD),
        ("TRAINEE", Reason.NOT_FROM_LETTERS),
    }
    assert set(feedback.missed) == card.answers - {"RETAINS", "STAINER", "NASTIER"}
    assert not feedback.perfect
    assert check(card, sorted(card.answers)).perfect


def test_split_answers_normalises() -> None:
    assert split_answers(["  été ", "a,b;c/d", "", "ETE"]) == ["ETE", "A", "B", "C", "D"]


def test_pasted_words_become_alphagram_cards(en_lexicon: Lexicon, en_set: frozenset[str]) -> None:
    text = "retains\nStainer, zoo\nqzxj  Éclat\n# a comment\nx"
    made = cards_from_words(en_lexicon, text.splitlines())
    assert [c.key for c in made.cards] == ["OOZ", "ACELT", "AEINRST"]  # shorter first, then by probability
    assert {word for word, _ in made.skipped} == {"QZXJ", "X"}
    assert "ECLAT" in en_set and all(c.rank is not None for c in made.cards)


# -- stems -------------------------------------------------------------------------------------


def brute_stem(words: Iterable[str], stem: str) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for word in words:
        if len(word) == len(stem) + 1:
            extra = Counter(word) - Counter(stem)
            if sum(extra.values()) == 1:
                out.setdefault(next(iter(extra)), set()).add(word)
    return out


@pytest.mark.parametrize("stem", ["AEINST", "AEIRST", "DEINST", "AEINRST"])
def test_stem_letters_and_words(en_lexicon: Lexicon, en_words: tuple[str, ...], stem: str) -> None:
    expected = brute_stem(en_words, stem)
    card = card_from_id(en_lexicon, f"stem:en:{stem}")
    assert {letter: set(words) for letter, words in card.groups} == expected
    assert card.answers == set().union(*expected.values())
    letters = card_from_id(en_lexicon, f"stem:en:letters:{stem}")
    assert letters.answers == set(expected)
    missing = next(ch for ch in "QJXZVKWYBCDFGHMP" if ch not in expected)
    feedback = check(letters, [sorted(expected)[0], missing, "WORD"])
    assert feedback.right == (sorted(expected)[0],)
    assert [(w.answer, w.reason) for w in feedback.wrong] == [
        (missing, Reason.MAKES_NO_WORD),
        ("WORD", Reason.NOT_ON_CARD),
    ]


def test_top_stems_rank_by_bingos(en_lexicon: Lexicon, en_words: tuple[str, ...]) -> None:
    bingos: Counter[str] = Counter()
    for word in en_words:
        if len(word) == 7:
            key = "".join(sorted(word))
            for stem in {key[:i] + key[i + 1 :] for i in range(7)}:
                bingos[stem] += 1
    top = STEM.top(en_lexicon, 6, 25)
    assert [s.bingos for s in top] == [bingos[s.letters] for s in top]
    assert top[0].bingos == max(bingos.values())
    assert [s.bingos for s in top] == sorted((s.bingos for s in top), reverse=True)
    assert top[-1].bingos >= sorted(bingos.values(), reverse=True)[24]
    cards = STEM.cards(en_lexicon, 6, 3)
    assert [c.rank for c in cards] == [1, 2, 3] and cards[0].key == top[0].letters
    assert cards[0].answers == card_from_id(en_lexicon, cards[0].id).answers


def test_stem_check_reasons(en_lexicon: Lexicon, en_set: frozenset[str]) -> None:
    card = card_from_id(en_lexicon, "stem:en:AEINST")
    feedback = check(card, ["retains", "AEINSTQ", "TRAINEE", "satine"])
    assert "RETAINS" in en_set and not {"AEINSTQ", "SATINE"} & en_set
    assert feedback.right == ("RETAINS",)  # AEINST + R
    assert dict((w.answer, w.reason) for w in feedback.wrong) == {
        "AEINSTQ": Reason.NOT_A_WORD,
        "TRAINEE": Reason.NOT_FROM_LETTERS,
        "SATINE": Reason.NOT_FROM_LETTERS,
    }


# -- twos --------------------------------------------------------------------------------------


def test_twos_grids_cover_every_two_half_phony(en_lexicon: Lexicon, en_set: frozenset[str]) -> None:
    twos = {w for w in en_set if len(w) == 2}
    grids = TWOS.grids(en_lexicon, size=20)
    shown = [pair for card in grids for pair in card.key.removeprefix("grid:").split("-")]
    assert len(shown) == len(set(shown))
    assert {pair for pair in shown if pair in en_set} == twos
    for card in grids:
        pairs = card.key.removeprefix("grid:").split("-")
        valid = [p for p in pairs if p in en_set]
        assert card.answers == set(valid)
        assert abs(len(valid) - (len(pairs) - len(valid))) <= 1
        assert len(pairs) <= 20
    assert [c.id for c in TWOS.grids(en_lexicon, size=20)] == [c.id for c in grids]  # stable
    assert [c.id for c in TWOS.grids(en_lexicon, size=20, seed=1)] != [c.id for c in grids]
    card = grids[0]
    phony = next(p for p in card.key.removeprefix("grid:").split("-") if p not in en_set)
    feedback = check(card, [phony, "QI" if "QI" not in card.key else "ZA", *sorted(card.answers)[:1]])
    assert [w.reason for w in feedback.wrong] == [Reason.NOT_A_WORD, Reason.NOT_ON_CARD]


@pytest.mark.parametrize("where", ["start", "end", "with"])
def test_twos_with_a_letter(en_lexicon: Lexicon, en_set: frozenset[str], where: str) -> None:
    twos = [w for w in en_set if len(w) == 2]
    cards = TWOS.letter_cards(en_lexicon, where)  # type: ignore[arg-type]
    assert cards
    for card in cards:
        letter = card.key[-1]
        positions = {"start": (0,), "end": (1,), "with": (0, 1)}[where]
        assert card.answers == {w for w in twos if any(w[i] == letter for i in positions)}
    expected = {"start": {w[0] for w in twos}, "end": {w[1] for w in twos}, "with": set("".join(twos))}
    assert {card.key[-1] for card in cards} == expected[where]


def test_twos_hooks(en_lexicon: Lexicon, en_set: frozenset[str]) -> None:
    threes = {w for w in en_set if len(w) == 3}
    cards = TWOS.hook_cards(en_lexicon)
    assert len(cards) == len([w for w in en_set if len(w) == 2]) - 2  # MY and XU take no hook: no card (§7.5)
    for card in cards:
        two = card.key.removeprefix("hooks:")
        assert card.answers == {w for w in threes if w[1:] == two or w[:2] == two}
        front, back = dict(card.groups)["front"], dict(card.groups)["back"]
        assert all(w in en_set and w[1:] == two for w in front) and all(w in en_set and w[:2] == two for w in back)
    at = card_from_id(en_lexicon, "twos:en:hooks:AT")
    feedback = check(at, ["eat", "ATQ", "BOT"])
    assert dict((w.answer, w.reason) for w in feedback.wrong) == {
        "ATQ": Reason.NOT_A_WORD,
        "BOT": Reason.NOT_FROM_LETTERS,
    }


# -- the registry ---------------------------------------------------------------------------------


def test_every_card_comes_back_from_its_id(en_lexicon: Lexicon) -> None:
    cards: list[Card] = [
        *ANAGRAM.cards(en_lexicon, 5, 1, 3),
        *ANAGRAM.cards(en_lexicon, 4, 1, 2, blanks=2),
        *STEM.cards(en_lexicon, 6, 2),
        *STEM.cards(en_lexicon, 7, 1, ask="letters"),
        *TWOS.grids(en_lexicon)[:2],
        *TWOS.letter_cards(en_lexicon, "end")[:2],
        *TWOS.hook_cards(en_lexicon)[:2],
    ]
    assert {c.type for c in cards} == set(DRILL_TYPES) == {"anagram", "stem", "twos"}
    for card in cards:
        again = card_from_id(en_lexicon, card.id)
        assert (again.id, again.kind, again.prompt, again.answers, again.groups) == (
            card.id,
            card.kind,
            card.prompt,
            card.answers,
            card.groups,
        )


@pytest.mark.parametrize(
    "card_id",
    [
        "anagram:en",
        "quiz:en:ABC",
        "anagram:fr:AEINRST",
        "anagram:en:AB1",
        "anagram:en:A",
        "anagram:en:AB???",
        "twos:en:hooks:Q",
        "twos:en:grid:ABC",
        "stem:en:AEINST?",
    ],
)
def test_bad_card_ids_are_refused(en_lexicon: Lexicon, card_id: str) -> None:
    with pytest.raises(CardError):
        card_from_id(en_lexicon, card_id)


def test_a_type_name_is_registered_once() -> None:
    with pytest.raises(ValueError, match="registered already"):
        register(type(ANAGRAM)())
    assert register(ANAGRAM) is ANAGRAM


# -- rating -----------------------------------------------------------------------------------------


def feedback(right: int, missed: int = 0, wrong: int = 0) -> Feedback:
    from drills.cards import Wrong

    return Feedback(
        "x",
        tuple(f"R{i}" for i in range(right)),
        tuple(Wrong(f"W{i}", Reason.NOT_A_WORD) for i in range(wrong)),
        tuple(f"M{i}" for i in range(missed)),
    )


@pytest.mark.parametrize(
    ("right", "missed", "wrong", "seconds", "expected"),
    [
        (3, 1, 0, 1.0, Rating.Again),  # missed one, however fast
        (4, 0, 1, 1.0, Rating.Again),  # a phony among the right answers
        (1, 0, 0, 6.0, Rating.Easy),  # at the easy limit
        (1, 0, 0, 6.1, Rating.Good),
        (1, 0, 0, 20.0, Rating.Good),  # at the hard limit
        (1, 0, 0, 20.1, Rating.Hard),
        (5, 0, 0, 20.0, Rating.Easy),  # five answers: 4 extra x 4 s more on both limits
        (5, 0, 0, 36.5, Rating.Hard),
        (0, 0, 0, 2.0, Rating.Easy),  # a two with no hooks, answered "none" quickly
    ],
)
def test_rating_rules(right: int, missed: int, wrong: int, seconds: float, expected: Rating) -> None:
    assert rating_for(feedback(right, missed, wrong), seconds) == expected


def test_rating_thresholds_are_parameters() -> None:
    lenient = RatingThresholds(easy_seconds=1, hard_seconds=100, per_extra_answer=0, wrong_fails=False)
    assert rating_for(feedback(2, 0, 1), 50, lenient) == Rating.Good
    assert rating_for(feedback(2, 0, 0), 101, lenient) == Rating.Hard


# -- study days and the queue -------------------------------------------------------------------------


def test_day_boundary() -> None:
    four_utc = DayBoundary()
    assert four_utc.day(datetime(2026, 3, 3, 3, 59, tzinfo=UTC)).isoformat() == "2026-03-02"
    assert four_utc.day(datetime(2026, 3, 3, 4, 0, tzinfo=UTC)).isoformat() == "2026-03-03"
    paris = DayBoundary(hour=4, utc_offset=timedelta(hours=1))
    moment = datetime(2026, 3, 3, 3, 30, tzinfo=timezone(timedelta(hours=1)))  # 03:30 in Paris
    assert paris.day(moment).isoformat() == "2026-03-02"
    assert paris.start(moment) == datetime(2026, 3, 2, 3, 0, tzinfo=UTC)
    assert paris.end(moment) - paris.start(moment) == timedelta(days=1)
    with pytest.raises(ValueError, match="timezone"):
        four_utc.day(datetime(2026, 3, 3))


def scheduler() -> Scheduler:
    return Scheduler(enable_fuzzing=False)


def reviewed(
    card_id: str, due: datetime, state: State = State.Review, step: int | None = None, rank: int = 0
) -> CardState:
    from fsrs import Card as FsrsCard

    return CardState(
        card_id,
        rank,
        FsrsCard(
            card_id=1,
            state=state,
            step=step,
            stability=5.0,
            difficulty=5.0,
            due=due,
            last_review=due - timedelta(days=5),
        ),
    )


def test_reviews_due_first_oldest_first_then_new_by_rank() -> None:
    states = [
        CardState("new-b", 2),
        CardState("new-a", 1),
        CardState("new-c", 3),
        reviewed("due-late", T0 - timedelta(hours=1)),
        reviewed("due-early", T0 - timedelta(days=3)),
        reviewed("due-tonight", T0 + timedelta(hours=5)),  # before the 04:00 day boundary: due today
        reviewed("tomorrow", T0 + timedelta(hours=11)),
    ]
    queue = DeckQueue(states)
    order = []
    done = DayCount()
    now = T0
    while (pick := queue.next_card(now, done, DeckLimits(new_per_day=2, learn_ahead=timedelta(0)))) is not None:
        order.append((pick.card_id, pick.kind))
        review = queue.answer(pick.card_id, Rating.Good, now, scheduler())
        done = done.add(review)
        now += timedelta(seconds=30)
    assert order[:5] == [
        ("due-early", PickKind.REVIEW),
        ("due-late", PickKind.REVIEW),
        ("due-tonight", PickKind.REVIEW),
        ("new-a", PickKind.NEW),
        ("new-b", PickKind.NEW),
    ]
    assert "tomorrow" not in [c for c, _ in order] and "new-c" not in [c for c, _ in order]
    assert done == DayCount(new=2, reviews=3)


def test_daily_limits() -> None:
    states = [reviewed(f"r{i:02}", T0 - timedelta(minutes=i)) for i in range(10)] + [
        CardState(f"n{i}", i) for i in range(10)
    ]
    limits = DeckLimits(new_per_day=3, reviews_per_day=4, learn_ahead=timedelta(0))
    assert pick_next(states, T0, DayCount(new=0, reviews=4), limits) == Pick("n0", PickKind.NEW)
    assert pick_next(states, T0, DayCount(new=3, reviews=3), limits) == Pick("r09", PickKind.REVIEW)
    assert pick_next(states, T0, DayCount(new=3, reviews=4), limits) is None


def test_learn_ahead_gives_the_soonest_due_card_when_asked() -> None:
    """§7.8: a review not due today comes only when the learner asks to study ahead (issue 28, item 11)."""
    states = [
        reviewed("in-3-days", T0 + timedelta(days=3)),
        reviewed("in-2-days", T0 + timedelta(days=2)),
        CardState("new", 1),
    ]
    assert pick_next(states, T0, DayCount(new=20)) is None  # the day's end
    assert pick_next(states, T0, DayCount(new=20), ahead=True) == Pick("in-2-days", PickKind.AHEAD)
    assert pick_next(states, T0, DayCount(new=20, reviews=200), ahead=True) is None  # no reviews left today
    assert pick_next(states, T0, DayCount(new=20), DeckLimits(learn_ahead=timedelta(days=1)), ahead=True) is None


def test_missed_cards_come_back_in_the_session() -> None:
    sched = scheduler()
    queue = DeckQueue([reviewed(f"r{i}", T0 - timedelta(days=1, minutes=i)) for i in range(8)])
    recent: list[str] = []
    now = T0
    first = queue.next_card(now)
    assert first == Pick("r7", PickKind.REVIEW)
    review = queue.answer("r7", Rating.Again, now, sched)
    assert review.kind == ReviewKind.REVIEW and queue.state("r7").fsrs.state == State.Relearning  # type: ignore[union-attr]
    recent.append("r7")
    shown = []
    for _ in range(6):  # answered quickly: the 10-minute relearning step is not over, 4 other cards are
        now += timedelta(seconds=20)
        pick = queue.next_card(now, recent=recent, limits=DeckLimits(again_after_cards=4))
        assert pick is not None
        shown.append(pick)
        queue.answer(pick.card_id, Rating.Good, now, sched)
        recent.append(pick.card_id)
    assert shown[4] == Pick("r7", PickKind.AGAIN)
    assert [p.card_id for p in shown[:4]] == ["r6", "r5", "r4", "r3"]


def test_missed_card_returns_after_its_delay_and_not_twice_in_a_row() -> None:
    sched = scheduler()
    queue = DeckQueue([CardState("a", 1), CardState("b", 2)])
    review = queue.answer("a", Rating.Again, T0, sched)
    assert review.kind == ReviewKind.NEW
    limits = DeckLimits(again_after_cards=0)
    assert queue.next_card(T0, DayCount(new=1), limits, recent=["a"]) == Pick("b", PickKind.NEW)
    later = T0 + timedelta(minutes=2)  # the first learning step (1 minute) is over
    assert queue.next_card(later, DayCount(new=1), limits, recent=["a"]) == Pick("b", PickKind.NEW)
    assert queue.next_card(later, DayCount(new=1), limits, recent=["a", "x"]) == Pick("a", PickKind.AGAIN)
    only = DeckQueue([queue.state("a")])  # nothing else left: the missed card, learnt ahead
    assert only.next_card(T0, DayCount(new=1), limits, recent=["a"]) == Pick("a", PickKind.AHEAD)


def test_undo_restores_the_card() -> None:
    queue = DeckQueue([CardState("a", 1), CardState("b", 2)])
    review = queue.answer("a", Rating.Good, T0, scheduler())
    assert queue.next_card(T0, DayCount().add(review)) == Pick("b", PickKind.NEW)
    queue.undo(review)
    assert queue.state("a") == CardState("a", 1) and queue.next_card(T0) == Pick("a", PickKind.NEW)
    assert DayCount().add(review).add(review, -1) == DayCount()


def reference_pick(
    states: Sequence[CardState],
    now: datetime,
    done: DayCount,
    limits: DeckLimits,
    boundary: DayBoundary,
    recent: Sequence[str],
) -> Pick | None:
    """The queue's rules written as plain scans over every state (no index), to check the index."""
    last = recent[-1] if recent else None
    learning = sorted((s.fsrs.due, s.card_id) for s in states if s.fsrs and s.fsrs.state != State.Review)
    reviews = sorted((s.fsrs.due, s.card_id) for s in states if s.fsrs and s.fsrs.state == State.Review)
    new = sorted((s.rank, s.card_id) for s in states if s.fsrs is None)
    ready = [cid for due, cid in learning if due <= now and cid != last]
    if ready:
        return Pick(ready[0], PickKind.AGAIN)
    if limits.again_after_cards and recent:
        since: dict[str, int] = {}
        for n, cid in enumerate(reversed(recent)):
            since.setdefault(cid, n)
        by_id = {s.card_id: s for s in states}
        waited = [
            (by_id[c].fsrs.due, c)
            for c, n in since.items()  # type: ignore[union-attr]
            if n >= limits.again_after_cards
            and by_id[c].fsrs is not None
            and by_id[c].fsrs.state != State.Review
            and by_id[c].fsrs.step == 0
        ]  # type: ignore[union-attr]
        if waited:
            return Pick(min(waited)[1], PickKind.AGAIN)
    reviews_left = done.reviews < limits.reviews_per_day
    due_today = [cid for due, cid in reviews if due < boundary.end(now) and cid != last]
    if reviews_left and due_today:
        return Pick(due_today[0], PickKind.REVIEW)
    if done.new < limits.new_per_day and new:
        return Pick(new[0][1], PickKind.NEW)
    ahead = [e for e in learning if e[1] != last][:1]  # a review not due today only when asked (not here)
    horizon = now + limits.learn_ahead if limits.learn_ahead is not None else datetime.max.replace(tzinfo=UTC)
    ahead = [e for e in ahead if e[0] <= horizon] or [e for e in learning if e[1] == last and e[0] <= horizon]
    return Pick(min(ahead)[1], PickKind.AHEAD) if ahead else None


def test_queue_across_simulated_days() -> None:
    """Thirty study days of a learner with 150 new cards: the index agrees with plain scans, and the
    limits, orders and same-session returns hold every day."""
    rng = random.Random(7)
    sched = scheduler()
    boundary = DayBoundary(hour=4, utc_offset=timedelta(hours=-5))
    limits = DeckLimits(new_per_day=12, reviews_per_day=25, again_after_cards=3, learn_ahead=timedelta(minutes=20))
    queue = DeckQueue(CardState(f"c{i:03}", rank) for i, rank in enumerate(rng.sample(range(1, 151), 150)))
    new_ranks: list[int] = []
    reviews_per_day = []
    for day in range(30):
        now = T0 + timedelta(days=day, minutes=rng.randrange(0, 300))
        done = DayCount()
        recent: list[str] = []
        missed_today: dict[str, datetime] = {}
        review_dues: list[datetime] = []
        for _ in range(400):
            pick = queue.next_card(now, done, limits, boundary, recent)
            assert pick == reference_pick(queue.states(), now, done, limits, boundary, recent)
            if pick is None:
                break
            state = queue.state(pick.card_id)
            if pick.kind == PickKind.NEW:
                new_ranks.append(state.rank)
                last = recent[-1] if recent else None
                assert not any(
                    s.fsrs and s.fsrs.state != State.Review and s.fsrs.due <= now and s.card_id != last
                    for s in queue.states()
                )
            if pick.kind == PickKind.REVIEW:
                review_dues.append(state.fsrs.due)  # type: ignore[union-attr]
            rating = Rating.Again if rng.random() < 0.2 else rng.choice([Rating.Hard, Rating.Good, Rating.Easy])
            review = queue.answer(pick.card_id, rating, now, sched, duration_ms=rng.randrange(2000, 30000))
            done = done.add(review)
            if rating == Rating.Again:
                missed_today[pick.card_id] = now
            else:
                missed_today.pop(pick.card_id, None)
            recent.append(pick.card_id)
            now += timedelta(seconds=rng.randrange(5, 60))
        else:
            pytest.fail("a study day never ended")
        assert done.new <= limits.new_per_day and done.reviews <= limits.reviews_per_day
        assert not missed_today, f"day {day}: missed cards not seen again: {missed_today}"
        assert review_dues == sorted(review_dues)
        reviews_per_day.append(done.reviews)
    assert new_ranks == list(range(1, len(new_ranks) + 1))  # new cards in probability order, none skipped
    assert len(new_ranks) == 150  # 12 a day: all met within the 30 days
    assert max(reviews_per_day) == limits.reviews_per_day  # the review limit was reached on some day


def test_count_day_uses_the_study_day() -> None:
    sched = scheduler()
    queue = DeckQueue([CardState("a", 1), CardState("b", 2), reviewed("r", T0 - timedelta(days=1))])
    reviews = [
        queue.answer("a", Rating.Good, T0.replace(hour=3), sched),  # 03:00: still yesterday's study day
        queue.answer("b", Rating.Good, T0, sched),
        queue.answer("r", Rating.Good, T0, sched),
        queue.answer("b", Rating.Good, T0 + timedelta(minutes=15), sched),
    ]  # a learning step
    assert [r.kind for r in reviews] == [ReviewKind.NEW, ReviewKind.NEW, ReviewKind.REVIEW, ReviewKind.LEARNING]
    assert count_day(reviews, T0) == DayCount(new=1, reviews=1)


def test_new_states_keep_probability_rank(en_lexicon: Lexicon) -> None:
    states = new_states(ANAGRAM.cards(en_lexicon, 7, 1, 30))
    queue = DeckQueue(reversed(states))
    assert queue.next_card(T0) == Pick(states[0].card_id, PickKind.NEW)


# -- imports ------------------------------------------------------------------------------------


@pytest.mark.parametrize("retention", [0.9, 0.8])
def test_cardbox_round_trip(en_lexicon: Lexicon, tmp_path: Path, retention: float) -> None:
    sched = Scheduler(desired_retention=retention, enable_fuzzing=False)
    keys = [c.key for c in ANAGRAM.cards(en_lexicon, 7, 1, 13)]
    rows = [
        CardboxRow(key, box, (T0 + timedelta(days=box, hours=box)).replace(microsecond=0), correct=box)
        for box, key in enumerate(keys)
    ]
    rows.append(CardboxRow("QQQQQQQ", 3, T0))  # no word in this lexicon
    path = tmp_path / "Anagrams.db"
    write_cardbox(path, rows)
    read = read_cardbox(path)
    assert read == rows
    imported = import_cardbox(read, en_lexicon, T0, sched)
    assert [q for q, _ in imported.skipped] == ["QQQQQQQ"]
    assert len(imported.states) == 13
    for row, state in zip(rows, imported.states, strict=False):
        card = state.fsrs
        assert card is not None and card.state == State.Review and card.due == row.next_scheduled
        interval = box_interval(row.cardbox)
        if interval >= timedelta(days=1):  # fsrs counts elapsed whole days
            # The stability fits the box: one box interval after the last review, recall is at the target.
            assert sched.get_card_retrievability(card, card.last_review + interval) == pytest.approx(retention)
    exported = export_cardbox(imported.states, sched)
    assert [(r.question, r.cardbox, r.next_scheduled) for r in exported] == [
        (row.question, min(row.cardbox, len(CARDBOX_SCHEDULE) - 1), row.next_scheduled) for row in rows[:13]
    ]


def test_cardbox_boxes_follow_fsrs_after_a_review(en_lexicon: Lexicon) -> None:
    sched = scheduler()
    imported = import_cardbox([CardboxRow("AEINRST", 4, T0)], en_lexicon, T0, sched)
    state = imported.states[0]
    queue = DeckQueue([state])
    assert queue.next_card(T0) == Pick("anagram:en:AEINRST", PickKind.REVIEW)
    missed = queue.answer(state.card_id, Rating.Again, T0, sched)
    assert cardbox_of(missed.after.fsrs, sched) == 0  # type: ignore[arg-type]
    right = queue.answer(state.card_id, Rating.Good, T0 + timedelta(days=20), sched)
    assert cardbox_of(right.after.fsrs, sched) >= 1  # type: ignore[arg-type]


def test_cardbox_refuses_other_files(tmp_path: Path) -> None:
    path = tmp_path / "not.db"
    path.write_bytes(b"not a database at all, just text" * 10)
    with pytest.raises(ValueError, match="not a Zyzzyva cardbox"):
        read_cardbox(path)


def test_word_list_import(en_lexicon: Lexicon, en_words: tuple[str, ...]) -> None:
    states, made = import_word_list(en_lexicon, "zoo\nRETAINS stainer\nnotaword\n")
    assert [s.card_id for s in states] == ["anagram:en:OOZ", "anagram:en:AEINRST"]
    assert all(s.is_new for s in states) and made.skipped == [("NOTAWORD", "not a word of en")]
    assert made.cards[1].answers == brute_anagrams(en_words, "AEINRST")


# -- architecture ---------------------------------------------------------------------------------


def test_drills_import_no_web_or_database_code() -> None:
    """Dependencies point down: drills use the engine, never Flask or SQLAlchemy."""
    code = (
        "import sys, importlib, pkgutil, drills\n"
        "for m in pkgutil.walk_packages(drills.__path__, 'drills.'): importlib.import_module(m.name)\n"
        "web = ('flask', 'sqlalchemy', 'flask_sqlalchemy', 'werkzeug', 'flask_login')\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in web)\n"
        "print(','.join(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"drills import {result.stdout.strip()}"


@pytest.mark.parametrize(("name", "hookless"), [("en", {"MY", "XU"}), ("fr", {"EH", "EX", "QI", "XI"})])
def test_no_generated_card_of_a_bundled_list_lacks_an_answer(
    name: str, hookless: set[str], lexicon_store: LexiconStore
) -> None:
    """Issue 28, item 15 (docs/rules.md §7.5): every twos card a deck can be made of, of either bundled list, has
    something to type. A two that takes no hook has no hooks card; French AA, KA and OM take their plurals
    (wordlists/sources/fr-additions.txt): `?AA?` is AAS, `?KA?` holds KAS, `?OM?` holds OMS."""
    lexicon = lexicon_store.load(name)
    hooks = TWOS.hook_cards(lexicon)
    cards = [*hooks, *TWOS.grids(lexicon)]
    cards += [card for where in ("start", "end", "with") for card in TWOS.letter_cards(lexicon, where)]
    assert [card.id for card in cards if not card.answers] == []
    twos = {card.key.removeprefix("hooks:") for card in hooks}
    assert set(two_letter_words(lexicon)) - twos == hookless
    assert [card.rank for card in hooks] == list(range(1, len(hooks) + 1))
    if name == "fr":
        by_two = {card.key: card.answers for card in hooks}
        assert by_two["hooks:AA"] == {"AAS"}
        assert "KAS" in by_two["hooks:KA"] and "OMS" in by_two["hooks:OM"]
