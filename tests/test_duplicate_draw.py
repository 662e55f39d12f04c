"""The draw of a duplicate game (docs/rules.md §6.2–6.5): the vowel/consonant rule, rejets, seeds, the end.

Most games here are bag-only: each round "plays" a random part of the rack, as a play would, so
hundreds of seeded games run in well under a second. Games with real plays are in
test_duplicate_game.py. Vowels, consonants and either-tiles are spelled out below from the rules
text, not taken from the code under test.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainer.duplicate.draw import (
    Bag,
    Balance,
    Draw,
    DrawRule,
    EndReason,
    GameOverError,
    Requirement,
    Tirage,
    can_satisfy,
    end_without_play,
    reliquat_after,
)
from trainer.engine.board import Board, Move, Tile
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import top_moves
from trainer.engine.rules import Ruleset, ruleset

VOWELS = set("AEIOU")


def kinds(tiles: str, code: str, blanks_either: bool = True) -> tuple[int, int, int]:
    """(vowels, consonants, either) of ``tiles`` per the rules text: Y is either in French only."""
    either_letters = {"Y"} if code == "fr" else set()
    v = sum(1 for t in tiles if t in VOWELS)
    e = sum(1 for t in tiles if t in either_letters or (t == "?" and blanks_either))
    c = sum(1 for t in tiles if t != "?" and t not in VOWELS and t not in either_letters)
    return v, c, e


def passes(tiles: str, code: str, need: tuple[int, int], blanks_either: bool = True) -> bool:
    """Whether some assignment of the either-tiles gives the rack ``need`` vowels and consonants."""
    v, c, e = kinds(tiles, code, blanks_either)
    return any(v + as_vowels >= need[0] and c + e - as_vowels >= need[1] for as_vowels in range(e + 1))


def any_rack_passes(
    pool: str, code: str, need: tuple[int, int], rack_size: int = 7, blanks_either: bool = True
) -> bool:
    """Brute force: does any rack of min(rack_size, len(pool)) tiles of ``pool`` pass?"""
    size = min(rack_size, len(pool))
    return any(
        passes("".join(rack), code, need, blanks_either) for rack in set(itertools.combinations(sorted(pool), size))
    )


def expected_need(round_number: int) -> tuple[int, int]:
    return (2, 2) if round_number <= 15 else (1, 1)


def bag_game(
    rules: Ruleset, seed: int, rule: DrawRule | None = None
) -> tuple[list[tuple[Draw, int]], EndReason, Bag, str, list[str]]:
    """A game where each round places a random part of the rack.

    Returns each draw with the number of tiles in bag + reliquat before it, the end reason, the
    bag, the last reliquat and every tile placed.
    """
    bag = Bag(rules, rule, seed)
    plays = random.Random(seed * 7919 + 1)
    reliquat = ""
    draws: list[tuple[Draw, int]] = []
    placed: list[str] = []
    for number in itertools.count(1):
        reason = bag.end_reason(reliquat, number)
        if reason is not None:
            return draws, reason, bag, reliquat, placed
        pool = len(bag) + len(reliquat)
        draw = bag.draw(reliquat, number)
        draws.append((draw, pool))
        rack = list(draw.rack)
        used = plays.sample(rack, plays.randint(1, len(rack)))
        placed += used
        reliquat = "".join(sorted((Counter(rack) - Counter(used)).elements()))
    raise AssertionError("unreachable")


@pytest.mark.parametrize("code", ["en", "fr"])
def test_every_rack_of_many_seeded_games_follows_the_rule(code: str, en_rules: Ruleset, fr_rules: Ruleset) -> None:
    rules = en_rules if code == "en" else fr_rules
    full = Counter(rules.tileset.bag())
    seen_rejets = seen_late = 0
    reasons: Counter[EndReason] = Counter()
    for seed in range(500):
        draws, reason, bag, reliquat, placed = bag_game(rules, seed)
        for number, (draw, pool) in enumerate(draws, start=1):
            need = expected_need(number)
            assert draw.round_number == number
            assert (draw.requirement.vowels, draw.requirement.consonants) == need
            assert passes(draw.rack, code, need), (seed, number, draw.record)
            assert len(draw.rack) == min(7, pool)
            for i, rejected in enumerate(draw.rejets):
                assert not passes(rejected.rack, code, need), (seed, number, draw.record)
                assert rejected.kept == (draw.reliquat if i == 0 else "")
                assert len(rejected.rack) == min(7, pool)
            assert draw.final.kept == ("" if draw.rejets else draw.reliquat)
            assert draw.record.split() == [f"-{t.written}" for t in draw.rejets] + [draw.written]
            seen_rejets += len(draw.rejets)
            seen_late += number >= 16
        # Tiles are conserved: placed + bag + reliquat = the full set.
        assert Counter(placed) + Counter(bag.tiles) + Counter(reliquat) == full
        left = bag.tiles + reliquat
        reasons[reason] += 1
        if reason is EndReason.TOO_FEW_TILES:
            assert len(left) < 2
        else:
            assert reason is EndReason.REQUIREMENT_UNREACHABLE
            assert len(left) >= 2 and not any_rack_passes(left, code, expected_need(len(draws) + 1))
    assert seen_rejets > 20 and seen_late > 100
    assert set(reasons) == {EndReason.TOO_FEW_TILES, EndReason.REQUIREMENT_UNREACHABLE}


def test_the_late_rule_starts_at_its_round(en_rules: Ruleset) -> None:
    one_vowel = "ABCDFGHJKLMN"
    bag = Bag(en_rules, seed=1, tiles=one_vowel)
    assert bag.end_reason("", 15) is EndReason.REQUIREMENT_UNREACHABLE
    assert bag.end_reason("", 16) is None
    draw = bag.draw("", 16)
    assert "A" in draw.rack and len(draw.rack) == 7
    early = Bag(en_rules, DrawRule(late_from_round=10), seed=1, tiles=one_vowel)
    assert early.end_reason("", 9) is EndReason.REQUIREMENT_UNREACHABLE
    assert early.end_reason("", 10) is None


def test_the_minimums_are_settings(en_rules: Ruleset) -> None:
    rule = DrawRule(min_vowels=3, min_consonants=3)
    for seed in range(30):
        draws, *_ = bag_game(en_rules, seed, rule)
        early = [d for d, _ in draws if d.round_number < 16]
        assert early and all(passes(d.rack, "en", (3, 3)) for d in early)
    with pytest.raises(ValueError, match="do not fit"):
        Bag(en_rules, DrawRule(min_vowels=4, min_consonants=4))
    with pytest.raises(ValueError):
        DrawRule(min_vowels=-1)


@pytest.mark.parametrize("code", ["en", "fr"])
def test_same_seed_same_draws_and_a_seedless_bag_records_its_seed(
    code: str, en_rules: Ruleset, fr_rules: Ruleset
) -> None:
    rules = en_rules if code == "en" else fr_rules
    records = [[d.record for d, _ in bag_game(rules, 99)[0]] for _ in range(2)]
    assert records[0] == records[1]
    assert records[0] != [d.record for d, _ in bag_game(rules, 100)[0]]

    seedless = Bag(rules)
    replay = Bag(rules, seed=seedless.seed)
    assert seedless.seed != Bag(rules).seed
    reliquat = ""
    for number in range(1, 6):
        first, second = seedless.draw(reliquat, number), replay.draw(reliquat, number)
        assert first == second
        reliquat = first.rack[:2]


def test_the_draw_depends_on_the_tiles_left_not_on_their_history(en_rules: Ruleset) -> None:
    """Only the tiles in the bag count, not their order: so tiles returned by a rejet, or a club that
    placed another top leaving the same tiles, change nothing in the next draws."""
    a = Bag(en_rules, seed=5, tiles="AEIOUBCDFGHJKLMN", rack="")
    b = Bag(en_rules, seed=5, tiles="NMLKJHGFDCBUOIEA", rack="")
    assert a.draw("", 1) == b.draw("", 1)


def test_rejets_are_recorded_and_written_with_a_minus(en_rules: Ruleset) -> None:
    # Bag + reliquat hold exactly two vowels: the rack passes only when both are on it.
    records = []
    for seed in range(40):
        bag = Bag(en_rules, seed=seed, tiles="AEKLM", rack="BCDFG")
        draw = bag.draw("BCDFG", 1)
        assert "A" in draw.rack and "E" in draw.rack
        assert len(bag.tiles) == 3
        records.append(draw.record)
        if draw.rejets:
            assert draw.record.startswith("-BCDFG+")
            assert draw.final.kept == "" and draw.written == draw.final.new
    assert any(r.startswith("-") for r in records) and any(not r.startswith("-") for r in records)


def test_written_forms() -> None:
    assert Tirage("ALR", "?ALS").written == "ALR+?ALS"
    assert Tirage("", "AEINRST").written == "AEINRST"
    draw = Draw(3, "ALR", Requirement(2, 2), Tirage("", "AEINRST"), (Tirage("ALR", "BCDF"), Tirage("", "BBCDFGH")))
    assert draw.record == "-ALR+BCDF -BBCDFGH AEINRST"
    assert draw.written == "AEINRST"


def test_the_example_of_the_rules_is_written_as_there(en_rules: Ruleset) -> None:
    bag = Bag(en_rules, seed=3, tiles="SLA?", rack="ALRXZ")
    draw = bag.draw("RLA", 4)  # the reliquat in any order; ALR kept, the last four tiles drawn
    assert draw.written == "ALR+?ALS" and draw.rack == "ALR?ALS"


def test_a_short_bag_gives_every_tile_left(en_rules: Ruleset) -> None:
    bag = Bag(en_rules, seed=0, tiles="EOT", rack="ABCDRST")
    draw = bag.draw("BRS", 20)
    assert sorted(draw.rack) == sorted("BRSEOT") and not draw.rejets and len(bag) == 0
    assert bag.end_reason("BRS", 21) is EndReason.REQUIREMENT_UNREACHABLE  # bag empty, no vowel left
    assert bag.end_reason("BOT", 21) is None  # the reliquat alone is still a rack
    assert bag.draw("BOT", 21).rack == "BOT"


def test_a_rejet_that_would_redraw_the_same_tiles_ends_the_game(en_rules: Ruleset) -> None:
    """With 7 tiles or fewer left the rack is all of them: if it fails, the game ends, no endless rejets."""
    bag = Bag(en_rules, seed=0, tiles="KLM", rack="ABCDFGH")
    assert bag.end_reason("BCDF", 5) is EndReason.REQUIREMENT_UNREACHABLE  # 0 vowels in BCDF + KLM
    with pytest.raises(GameOverError) as error:
        bag.draw("BCDF", 5)
    assert error.value.reason is EndReason.REQUIREMENT_UNREACHABLE
    assert bag.tiles == "KLM"  # nothing was drawn


def test_fewer_than_two_tiles_end_the_game(en_rules: Ruleset) -> None:
    assert Bag(en_rules, seed=0, tiles="E", rack="ABCDFGH").end_reason("", 17) is EndReason.TOO_FEW_TILES
    assert Bag(en_rules, seed=0, tiles="", rack="ABCDFGH").end_reason("A", 17) is EndReason.TOO_FEW_TILES
    assert Bag(en_rules, seed=0, tiles="E", rack="ABCDFGH").end_reason("B", 17) is None


def test_blanks_count_as_either_unless_the_setting_says_no(en_rules: Ruleset) -> None:
    assert Bag(en_rules, seed=0, tiles="??BCDFG").draw("", 1).rack == "??BCDFG"
    strict = Bag(en_rules, DrawRule(blanks_either=False), seed=0, tiles="??BCDFG")
    assert strict.end_reason("", 1) is EndReason.REQUIREMENT_UNREACHABLE
    assert Balance.of("?A", en_rules.tileset, blanks_either=False) == Balance(vowels=1, neither=1)


def test_y_counts_as_either_in_french_only(en_rules: Ruleset, fr_rules: Ruleset) -> None:
    assert Bag(fr_rules, seed=0, tiles="AYBCDFG").draw("", 1).rack == "ABCDFGY"
    assert Bag(en_rules, seed=0, tiles="AYBCDFG").end_reason("", 1) is EndReason.REQUIREMENT_UNREACHABLE
    assert Balance.of("YAB", fr_rules.tileset) == Balance(vowels=1, consonants=1, either=1)


def test_the_reliquat_must_come_from_the_last_rack(en_rules: Ruleset) -> None:
    bag = Bag(en_rules, seed=8)
    rack = bag.draw("", 1).rack
    with pytest.raises(ValueError, match="not part of the last rack"):
        bag.draw(rack + rack[0], 2)
    other = next(t for t in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if t not in rack)
    with pytest.raises(ValueError, match="not part of the last rack"):
        bag.draw(other, 2)
    with pytest.raises(ValueError, match="more tiles than the tile set"):
        Bag(en_rules, tiles="QQ")


def test_the_reliquat_after_a_play_keeps_the_unplayed_tiles(en_rules: Ruleset) -> None:
    # TA with a blank standing for the A: the blank leaves the rack, the real A stays.
    move = Move(7, 7, True, "Ta", (Tile(7, 7, "T"), Tile(7, 8, "A", blank=True)))
    assert reliquat_after("AEIRST?", move) == "AEIRS"
    assert reliquat_after("AEIRST?", Move(7, 7, True, "TA", (Tile(7, 7, "T"), Tile(7, 8, "A")))) == "?EIRS"
    with pytest.raises(ValueError, match="does not hold"):
        reliquat_after("EIRST", Move(7, 7, True, "TA", (Tile(7, 7, "T"), Tile(7, 8, "A"))))


def test_the_end_without_a_legal_play_is_judged_by_the_list(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    board = Board.empty(en_rules)
    score, moves = top_moves(board, en_rules, en_lexicon, "??")
    assert score == 0 and moves  # two blanks: a legal play worth 0, the game goes on
    assert end_without_play(moves) is None
    assert end_without_play(top_moves(board, en_rules, en_lexicon, "Q")[1]) is EndReason.NO_LEGAL_PLAY


def brute_force_possible(pool: Balance, need: Requirement, rack_size: int) -> bool:
    size = min(rack_size, pool.total)
    for v, c, e in itertools.product(range(pool.vowels + 1), range(pool.consonants + 1), range(pool.either + 1)):
        n = size - v - c - e
        if 0 <= n <= pool.neither and any(v + k >= need.vowels and c + e - k >= need.consonants for k in range(e + 1)):
            return True
    return False


small = st.integers(min_value=0, max_value=9)


@settings(max_examples=400, deadline=None)
@given(small, small, st.integers(0, 4), st.integers(0, 3), st.integers(0, 4), st.integers(0, 4), st.integers(1, 8))
def test_feasibility_is_decided_exactly(
    v: int, c: int, e: int, n: int, need_v: int, need_c: int, rack_size: int
) -> None:
    pool, need = Balance(v, c, e, n), Requirement(need_v, need_c)
    assert can_satisfy(pool, need, rack_size) == brute_force_possible(pool, need, rack_size)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from("AEIOUYBCDKLMNRST??"), min_size=0, max_size=12),
    st.integers(1, 25),
    st.sampled_from(["en", "fr"]),
)
def test_the_bag_ends_exactly_when_no_rack_can_pass(tiles: list[str], round_number: int, code: str) -> None:
    rules = ruleset(code)
    tiles = list((Counter(tiles) & Counter(rules.tileset.bag())).elements())  # no more of a tile than the set has
    bag = Bag(rules, seed=round_number, tiles=tiles)
    reason = bag.end_reason("", round_number)
    pool = "".join(tiles)
    if len(pool) < 2:
        assert reason is EndReason.TOO_FEW_TILES
    else:
        possible = any_rack_passes(pool, code, expected_need(round_number))
        assert (reason is None) == possible
        if possible:
            assert passes(bag.draw("", round_number).rack, code, expected_need(round_number))
