"""Round results and standings of a duplicate game: scores, ranks, solos, corrections, percentages."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainer.duplicate.results import (
    Correction,
    GameResults,
    RoundRecord,
    SoloRule,
    Submission,
    percentage,
    score_game,
    score_round,
    shared_ranks,
    standings,
)
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.play import evaluate
from trainer.engine.rules import Ruleset


def sub(player: str, score: int, valid: bool = True, late: bool = False, move: str = "") -> Submission:
    return Submission(player, move or f"{player} {score}", score, valid, late)


ROUND = RoundRecord(
    number=1,
    top_score=40,
    play_scores=[35, 40, 20, 35, 30, 40],  # six legal plays, two of them tops
    submissions=[
        sub("ann", 20, move="first try"),
        sub("bob", 40),
        sub("cid", 35),
        sub("dan", 45, valid=False),  # a word not in the lexicon
        sub("eve", 30, late=True),
        sub("ann", 40, move="second try"),  # the last submission counts
    ],
)


def test_each_player_scores_their_last_valid_on_time_play() -> None:
    result = score_round(ROUND, ["ann", "bob", "cid", "dan", "eve", "fay"], active_players=6)
    ann, bob, cid, dan, eve, fay = (result.players[p] for p in ["ann", "bob", "cid", "dan", "eve", "fay"])
    assert (ann.move, ann.score, ann.difference, ann.top, ann.rank, ann.of) == ("second try", 40, 0, True, 1, 6)
    assert (bob.score, bob.top, bob.rank) == (40, True, 1)
    assert (cid.score, cid.difference, cid.top, cid.rank) == (35, -5, False, 3)  # two plays scored more
    assert (dan.valid, dan.score, dan.difference, dan.rank) == (False, 0, -40, None)
    assert (eve.late, eve.valid, eve.score, eve.difference, eve.rank) == (True, True, 0, -40, 5)
    assert (fay.move, fay.valid, fay.score, fay.difference, fay.rank) == (None, False, 0, -40, None)
    assert list(result.players) == ["ann", "bob", "cid", "dan", "eve", "fay"]
    assert result.plays == 6 and result.top_score == 40


def test_two_players_on_the_top_is_no_solo() -> None:
    result = score_round(ROUND, active_players=100)
    assert not any(p.solo or p.bonus for p in result.players.values())
    assert result.solo is None


def solo_round() -> RoundRecord:
    return RoundRecord(2, 50, [50, 45, 12], [sub("ann", 50), sub("bob", 45), sub("cid", 45, valid=False)])


def test_a_solo_gets_the_bonus_only_with_enough_active_players() -> None:
    with_16 = score_round(solo_round(), active_players=16).players["ann"]
    assert (with_16.solo, with_16.bonus, with_16.total) == (True, 10, 60)
    with_15 = score_round(solo_round(), active_players=15).players["ann"]
    assert (with_15.solo, with_15.bonus, with_15.total) == (True, 0, 50)
    custom = score_round(solo_round(), active_players=3, solo_rule=SoloRule(bonus=5, min_players=3))
    assert custom.players["ann"].bonus == 5 and custom.solo == "ann"
    assert custom.players["bob"].bonus == 0


def test_a_late_top_or_a_top_with_a_bad_word_is_not_found() -> None:
    record = RoundRecord(1, 50, [50, 45], [sub("ann", 50, late=True), sub("bob", 50, valid=False), sub("cid", 45)])
    result = score_round(record, active_players=20)
    assert not any(p.top or p.solo for p in result.players.values())


def test_active_players_are_counted_over_the_whole_game() -> None:
    """The 16th player only plays in round 2, yet round 1's solo gets its bonus: 16 played this game."""
    others = [f"p{i:02}" for i in range(14)]
    round1 = RoundRecord(1, 30, [30, 20], [sub("ann", 30)] + [sub(p, 20) for p in others])
    round2 = RoundRecord(2, 30, [30, 20], [sub("late", 20)])
    game = score_game([round1, round2])
    assert game.rounds[0].players["ann"].bonus == 10
    assert game.rounds[0].players["late"].score == 0  # joined late: 0 for round 1
    assert score_game([round1]).rounds[0].players["ann"].bonus == 0  # 15 active
    assert score_game([round1, round2], active=15).rounds[0].players["ann"].bonus == 0


def test_standings_with_ties_percentage_negatif_tops_and_solos() -> None:
    rounds = [
        RoundRecord(1, 40, [40, 30, 30, 10], [sub("ann", 40), sub("bob", 30), sub("cid", 30)]),
        RoundRecord(2, 50, [50, 45, 20], [sub("ann", 20), sub("bob", 50), sub("cid", 50), sub("dan", 50)]),
    ]
    game = score_game(rounds, ["ann", "bob", "cid", "dan"], solo_rule=SoloRule(bonus=10, min_players=3))
    table = {s.player: s for s in game.standings}
    assert [s.player for s in game.standings] == ["bob", "cid", "ann", "dan"]  # tied players keep join order
    assert [s.rank for s in game.standings] == [1, 1, 3, 4]
    assert game.top_total == 90
    # négatif = total - top total, the solo bonus included; percentages with two decimals, half up
    assert (table["ann"].total, table["ann"].negatif, table["ann"].percentage) == (70, -20, Decimal("77.78"))
    assert (table["bob"].total, table["bob"].negatif, table["bob"].percentage) == (80, -10, Decimal("88.89"))
    assert (table["dan"].total, table["dan"].negatif, table["dan"].percentage) == (50, -40, Decimal("55.56"))
    assert (table["ann"].tops, table["ann"].solos) == (1, 1)
    assert (table["bob"].tops, table["bob"].solos) == (1, 0)
    assert table["ann"].round_totals == (50, 20) and table["dan"].round_totals == (0, 50)


def test_shared_ranks_skip_after_a_tie() -> None:
    assert shared_ranks([9, 7, 7, 3]) == [1, 2, 2, 4]
    assert shared_ranks([5, 5, 5]) == [1, 1, 1]
    assert [s.rank for s in standings([])] == []


@given(st.lists(st.integers(min_value=-50, max_value=50), max_size=60))
def test_a_rank_is_one_more_than_the_players_ahead(values: list[int]) -> None:
    assert shared_ranks(values) == [1 + sum(1 for other in values if other > value) for value in values]


def test_percentage_has_two_decimals_rounded_half_up_and_is_zero_without_a_top() -> None:
    assert str(percentage(395, 400)) == "98.75"
    assert str(percentage(789, 800)) == "98.63"  # 98.625 exactly; round(98.625, 2) on a float says 98.62
    assert str(percentage(787, 800)) == "98.38"  # 98.375
    assert str(percentage(5, 8)) == "62.50"  # no longer 63: two decimals, always written
    assert str(percentage(1, 8)) == "12.50"
    assert str(percentage(1, 800)) == "0.13"  # 0.125
    assert str(percentage(80, 80)) == "100.00"
    assert str(percentage(90, 80)) == "112.50"  # solo bonuses can take a player past the top
    assert str(percentage(2, 3)) == "66.67" and str(percentage(1, 3)) == "33.33"
    assert str(percentage(0, 0)) == "0.00" and str(percentage(10, 0)) == "0.00"
    assert str(percentage(-1, 8)) == "-12.50" and str(percentage(-1, 800)) == "-0.13"  # half away from 0


@given(st.integers(min_value=-(10**6), max_value=10**7), st.integers(min_value=1, max_value=10**6))
def test_percentage_is_the_exact_fraction_rounded_half_up(total: int, top_total: int) -> None:
    exact = Fraction(100 * total, top_total)
    expected = (Decimal(exact.numerator) / Decimal(exact.denominator)).quantize(Decimal("0.01"), ROUND_HALF_UP)
    shown = percentage(total, top_total)
    assert shown == expected and shown.as_tuple().exponent == -2
    assert abs(Fraction(shown) - exact) <= Fraction(1, 200)


def test_rules_6_13_worked_example() -> None:
    """docs/rules.md §6.13, "Worked example": its figures, and its three variations."""
    r1 = RoundRecord(
        1,
        30,
        [30, 30, 24, 22, 22, 20, 18, 12],
        [sub("Ann", 30), sub("Bob", 22), sub("Cat", 30), sub("Bob", 24)],
    )
    r2 = RoundRecord(
        2,
        50,
        [50, 41, 36, 30, 30, 27, 26, 12],
        [sub("Ann", 50), sub("Bob", 26), sub("Cat", 41, valid=False)],
    )
    players = ["Ann", "Bob", "Cat"]

    def table(game: GameResults) -> list[tuple[int, str, int, int, str, int, int]]:
        return [(s.rank, s.player, s.total, s.negatif, str(s.percentage), s.tops, s.solos) for s in game.standings]

    game = score_game([r1, r2], players)
    assert game.top_total == 80
    bob = [game.rounds[0].players["Bob"], game.rounds[1].players["Bob"]]
    assert [(p.score, p.difference, p.rank, p.of) for p in bob] == [(24, -6, 3, 8), (26, -24, 7, 8)]
    cat = game.rounds[1].players["Cat"]
    assert (cat.score, cat.difference, cat.rank) == (0, -50, None)
    assert game.rounds[1].solo == "Ann" and game.rounds[1].players["Ann"].bonus == 0  # 3 players: no bonus
    assert table(game) == [
        (1, "Ann", 80, 0, "100.00", 2, 1),
        (2, "Bob", 50, -30, "62.50", 0, 0),
        (3, "Cat", 30, -50, "37.50", 1, 0),
    ]

    with_bonus = score_game([r1, r2], players, solo_rule=SoloRule(10, 3))
    assert table(with_bonus)[0] == (1, "Ann", 90, 10, "112.50", 2, 1)  # négatif 90 - 80: the bonus counts
    assert table(with_bonus)[1:] == table(game)[1:]

    misread = score_game([r1, r2], players, [Correction("Cat", 2, 36, "slip misread")])
    assert table(misread) == [
        (1, "Ann", 80, 0, "100.00", 2, 1),
        (2, "Cat", 66, -14, "82.50", 1, 0),
        (3, "Bob", 50, -30, "62.50", 0, 0),
    ]

    refused = score_game([r1, r2], players, [Correction("Cat", 2, 50, "word wrongly refused")])
    assert refused.rounds[1].solo is None
    assert table(refused) == [
        (1, "Ann", 80, 0, "100.00", 2, 0),
        (1, "Cat", 80, 0, "100.00", 2, 0),
        (3, "Bob", 50, -30, "62.50", 0, 0),
    ]

    # docs/rules.md §6.13's rounding sentence
    assert [str(percentage(t, top)) for t, top in [(789, 800), (395, 400), (2, 3), (790, 800)]] == [
        "98.63",
        "98.75",
        "66.67",
        "98.75",
    ]


def test_the_negatif_includes_solo_bonuses_and_corrections() -> None:
    """négatif == total - top total for every player, whatever the solos, bonuses, corrections and absences;
    under the old definition (the sum of the differences) the bonus was left out."""
    rounds = [
        RoundRecord(1, 40, [40, 35, 30], [sub("ann", 40), sub("bob", 35), sub("cid", 30)]),
        RoundRecord(2, 60, [60, 50, 20], [sub("ann", 50), sub("bob", 60), sub("cid", 20, valid=False)]),
        RoundRecord(3, 300, [300, 100], [sub("ann", 295), sub("cid", 100)]),
    ]
    fixes = [Correction("cid", 2, 20, "word accepted"), Correction("ann", 3, 300, "slip misread")]
    game = score_game(rounds, ["ann", "bob", "cid", "dan"], fixes, solo_rule=SoloRule(bonus=10, min_players=2))
    assert game.top_total == 400
    table = {s.player: s for s in game.standings}
    # ann: 40 + 10 (solo) + 50 + 300 + 10 (solo, by correction) = 410; differences 0 - 10 + 0 = -10
    assert (table["ann"].total, table["ann"].negatif, str(table["ann"].percentage)) == (410, 10, "102.50")
    assert (table["bob"].total, table["bob"].negatif, str(table["bob"].percentage)) == (105, -295, "26.25")
    assert (table["cid"].total, table["cid"].negatif, str(table["cid"].percentage)) == (150, -250, "37.50")
    assert (table["dan"].total, table["dan"].negatif, str(table["dan"].percentage)) == (0, -400, "0.00")
    for s in game.standings:
        assert s.negatif == s.total - game.top_total
        assert s.percentage == percentage(s.total, game.top_total)
    nobonus = score_game(rounds, ["ann", "bob", "cid", "dan"], fixes)  # 4 players < 16: no bonus
    assert {s.player: s.negatif for s in nobonus.standings} == {"ann": -10, "bob": -305, "cid": -250, "dan": -400}


def test_corrections_apply_on_top_of_the_original_and_follow_through() -> None:
    record = RoundRecord(1, 40, [40, 35, 30], [sub("ann", 40), sub("bob", 40, valid=False, move="8D BOGUS")])
    rule = SoloRule(bonus=10, min_players=2)
    before = score_game([record], solo_rule=rule)
    assert before.rounds[0].solo == "ann" and before.standings[0].total == 50

    accepted = Correction("bob", 1, 40, "word accepted on appeal", "director")
    after = score_game([record], corrections=[accepted], solo_rule=rule)
    bob = after.rounds[0].players["bob"]
    assert (bob.original, bob.score, bob.top, bob.move, bob.valid) == (0, 40, True, "8D BOGUS", False)
    assert bob.corrections == (accepted,)
    assert after.rounds[0].solo is None  # ann is no longer alone on the top
    assert {s.player: s.total for s in after.standings} == {"ann": 40, "bob": 40}
    assert [s.rank for s in after.standings] == [1, 1]

    withdrawn = Correction("bob", 1, 0, "appeal overturned", "chief arbiter")
    last = score_game([record], corrections=[accepted, withdrawn], solo_rule=rule)
    bob = last.rounds[0].players["bob"]
    assert (bob.original, bob.score, bob.top, bob.difference) == (0, 0, False, -40)
    assert bob.corrections == (accepted, withdrawn)  # every correction is kept, the last one counts
    assert last.rounds[0].solo == "ann"
    assert record.submissions[1].score == 40 and not record.submissions[1].valid  # the submission is untouched


def test_a_correction_can_lower_a_score_and_the_difference_follows() -> None:
    record = RoundRecord(1, 40, [40, 35, 30], [sub("ann", 35)])
    fix = Correction("ann", 1, 30, "tile misplaced on the sheet")
    ann = score_game([record], corrections=[fix]).standings[0]
    assert (ann.total, ann.negatif) == (30, -10)


def test_inconsistent_inputs_are_refused() -> None:
    with pytest.raises(ValueError, match="best play scores 45"):
        RoundRecord(1, 40, [45, 40])
    with pytest.raises(ValueError, match="no round 3"):
        score_game([ROUND], corrections=[Correction("ann", 3, 10, "typo")])
    with pytest.raises(ValueError, match="share a number"):
        score_game([ROUND, ROUND])


def test_submissions_from_the_engine(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    board = Board.empty(en_rules)
    good = Submission.from_evaluation("ann", evaluate(board, en_rules, en_lexicon, "8D TRAIN", "AINRTXE"))
    bad = Submission.from_evaluation("bob", evaluate(board, en_rules, en_lexicon, "8D TRAXN", "AINRTXE"))
    french = Submission.from_evaluation(
        "cid", evaluate(board, en_rules, en_lexicon, "8D TRAIN", "AINRTXE"), notation="french"
    )
    assert (good.move, good.score, good.valid) == ("8D TRAIN", 12, True)  # (2 + 1 + 1 + 1 + 1) x 2
    assert (bad.move, bad.valid) == ("8D TRAXN", False)
    assert french.move == "H4 TRAIN"
    result = score_round(RoundRecord(1, 12, [12, 8], [good, bad]), active_players=2)
    assert result.players["ann"].score == 12 and result.players["bob"].score == 0
