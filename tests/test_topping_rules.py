"""Topping's pure rules (docs/rules.md §6.26): the costs and their checks, the hints on real positions, a round's
seconds, whether a play is a top, the ranking by time and the records."""

from __future__ import annotations

import pytest

from trainer.duplicate.draw import DrawRule
from trainer.duplicate.errors import RuleError
from trainer.duplicate.rounds import DuplicateGame, Position, Round, Setup, judge
from trainer.duplicate.topping import (
    HINT_KINDS,
    Hint,
    RoundTime,
    ToppingCosts,
    game_record,
    hint,
    is_top,
    letters_left,
    next_hint,
    overall_record,
    ranking,
    round_seconds,
)
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.notation import format_move
from trainer.engine.rules import Ruleset


def _rounds(rules: Ruleset, lexicon: Lexicon, count: int) -> list[Round]:
    """The first ``count`` rounds of the seed-4 game with a new game's settings (§6.4, §6.7)."""
    game = DuplicateGame(
        Setup(rules, lexicon, rules.notation, DrawRule(), 4, first_play_across=True, first_play_best_placement=True)
    )
    played = []
    for _ in range(count):
        assert game.start_round() is not None
        played.append(game.place())
    return played


@pytest.fixture(scope="module")
def en_rounds(en_rules: Ruleset, en_lexicon: Lexicon) -> list[Round]:
    return _rounds(en_rules, en_lexicon, 3)


@pytest.fixture(scope="module")
def fr_rounds(fr_rules: Ruleset, fr_lexicon: Lexicon) -> list[Round]:
    return _rounds(fr_rules, fr_lexicon, 2)


# --- the costs ------------------------------------------------------------------------------------


def test_default_costs() -> None:
    """§6.26's table of costs."""
    costs = ToppingCosts()
    assert costs.as_dict() == {
        "limit_seconds": 180,
        "penalty_seconds": 60,
        "wrong_play_seconds": 10,
        "length": 10,
        "direction": 10,
        "square": 20,
        "letter": 15,
    }
    assert [costs.hint_seconds(kind) for kind in HINT_KINDS] == [10, 10, 20, 15]
    assert ToppingCosts.from_dict({}) == costs


def test_costs_from_a_dict() -> None:
    costs = ToppingCosts.from_dict({"limit_seconds": 60, "letter": 0, "penalty_seconds": 3600})
    assert (costs.limit_seconds, costs.letter, costs.penalty_seconds, costs.square) == (60, 0, 3600, 20)


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"limit_seconds": 9}, "limit_seconds", "'limit_seconds' must be a whole number of seconds from 10 to 3600"),
        ({"limit_seconds": 3601}, "limit_seconds", "from 10 to 3600"),
        ({"penalty_seconds": -1}, "penalty_seconds", "'penalty_seconds' must be a whole number of seconds from 0 to"),
        ({"wrong_play_seconds": 601}, "wrong_play_seconds", "from 0 to 600"),
        ({"letter": 601}, "letter", "'letter' must be a whole number of seconds from 0 to 600"),
        ({"square": 1.5}, "square", "'square' must be a whole number"),
        ({"length": True}, "length", "'length' must be a whole number"),
        ({"direction": "10"}, "direction", "'direction' must be a whole number"),
        ({"hints": 3}, "hints", "unknown topping cost 'hints' (known: limit_seconds, penalty_seconds,"),
    ],
)
def test_costs_refused_name_the_field(data: dict[str, object], field: str, message: str) -> None:
    """§6.26: a cost out of its range, not a whole number, or unknown is refused, naming it."""
    with pytest.raises(RuleError) as refused:
        ToppingCosts.from_dict(data)
    assert refused.value.code == "bad_topping_cost"
    assert refused.value.params["field"] == field
    assert message in str(refused.value)


def test_costs_checked_when_made() -> None:
    with pytest.raises(RuleError, match="'limit_seconds' must be"):
        ToppingCosts(limit_seconds=5)


# --- a round's seconds ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("elapsed", "found", "wrong", "hints", "seconds"),
    [
        (42.3, True, 1, ["length"], 62.3),
        (12.04, True, 0, [], 12.0),
        (42.35, True, 0, ["letter", "letter", "square"], 92.4),
        (95.5, True, 3, ["direction", "length"], 145.5),
        (180.0, False, 0, [], 240.0),
        (31.0, False, 2, ["length", "letter"], 285.0),
    ],
)
def test_worked_examples(elapsed: float, found: bool, wrong: int, hints: list[str], seconds: float) -> None:
    """docs/rules.md §6.26's worked examples of a round's seconds (the default costs)."""
    assert round_seconds(elapsed, found, wrong, hints, ToppingCosts()) == seconds
    assert round_seconds(elapsed, found, wrong, hints) == seconds


def test_found_time_capped_at_the_limit_and_never_negative() -> None:
    assert round_seconds(250.0, True, 0, []) == 180.0
    assert round_seconds(-3.0, True, 0, []) == 0.0
    costs = ToppingCosts(limit_seconds=60, penalty_seconds=0, wrong_play_seconds=0)
    assert round_seconds(10.0, False, 4, ["square"], costs) == 80.0


def test_an_unknown_hint_is_refused() -> None:
    with pytest.raises(RuleError) as refused:
        round_seconds(10.0, True, 0, ["word"])
    assert refused.value.code == "bad_hint"


# --- hints on real positions ----------------------------------------------------------------------


def test_hints_english(en_rounds: list[Round]) -> None:
    """§6.26's hint table, English: the top of round 3 of seed 4 is 10D RIDER."""
    top = en_rounds[2].placed
    assert format_move(top, "english") == "10D RIDER"
    assert hint(top, "length", 0, "english") == Hint("length", 5)
    assert hint(top, "direction", 0, "english") == Hint("direction", "across")
    assert hint(top, "square", 0, "english") == Hint("square", "D10")
    assert hint(top, "square", 0, "french") == Hint("square", "J4")  # the game's notation names the square
    shown = [hint(top, "letter", k, "english") for k in range(4)]
    assert [(h.position, h.value) for h in shown] == [(1, "R"), (2, "I"), (3, "D"), (4, "E")]
    assert shown[0].text == "letter 1 of the top's word is R"
    assert letters_left(top, 4) == 0
    with pytest.raises(RuleError) as refused:
        hint(top, "letter", 4, "english")
    assert refused.value.code == "no_more_letters"


def test_hints_french_through_a_board_letter(fr_rounds: list[Round]) -> None:
    """§6.26's hint table, French notation: round 2 of seed 4 is 4H CABINAIS, down through the board's C; its
    length counts the letter on the board."""
    first, second = fr_rounds
    assert format_move(first.placed, "french") == "H3 ECOULE"
    top = second.placed
    assert format_move(top, "french") == "4H CABINAIS"
    assert len(top.tiles) == 7
    assert hint(top, "length", 0, "french").value == 8
    assert hint(top, "direction", 0, "french").value == "down"
    assert hint(top, "square", 0, "french").value == "H4"
    assert hint(top, "letter", 0, "french") == Hint("letter", "C", 1)
    assert hint(top, "letter", 6, "french") == Hint("letter", "I", 7)
    with pytest.raises(RuleError, match="7 of 8"):
        hint(top, "letter", 7, "french")


def test_each_hint_once_but_letters_again(en_rounds: list[Round]) -> None:
    """§6.26: length, direction and square once a round; the letter hint again, one more letter each time."""
    top = en_rounds[2].placed
    assert next_hint(top, "letter", ["length", "letter"], "english") == Hint("letter", "I", 2)
    for kind in ("length", "direction", "square"):
        with pytest.raises(RuleError) as refused:
            next_hint(top, kind, [kind], "english")
        assert refused.value.code == "hint_taken"
    with pytest.raises(RuleError) as refused:
        next_hint(top, "anagram", [], "english")
    assert refused.value.code == "bad_hint"


# --- finding the top ------------------------------------------------------------------------------


def test_any_top_of_the_top_score_is_found(en_rules: Ruleset, en_lexicon: Lexicon, en_rounds: list[Round]) -> None:
    """§6.26: CWM's six placements all score 20; each one handed in is the top, whichever is placed."""
    first = en_rounds[0]
    tops = [format_move(m, "english") for m in first.tops]
    assert tops == ["8F CWM", "8G CWM", "8H CWM", "H6 CWM", "H7 CWM", "H8 CWM"]
    position = Position(en_rules, en_lexicon, "english", Board.empty(en_rules), first.draw.rack, True)
    for written in ("8H CWM", "H6 CWM", "8F CWM"):
        play, score = judge(position, written)
        assert score == 20
        assert is_top(play, tops)
    play, score = judge(position, "8H MEOW")
    assert score < 20
    assert not is_top(play, tops)


# --- the ranking and the records ------------------------------------------------------------------


def test_ranking_example() -> None:
    """§6.26's ranking example: equal totals, the more rounds found first; shared ranks when all is equal."""
    times = {
        "Ann": [RoundTime(62.3, True), RoundTime(240.0, False)],
        "Bob": [RoundTime(150.0, True), RoundTime(152.3, True)],
        "Cy": [RoundTime(100.0, True), RoundTime(100.0, True)],
    }
    standings = ranking(times)
    assert [(s.rank, s.player, s.seconds, s.found) for s in standings] == [
        (1, "Cy", 200.0, 2),
        (2, "Bob", 302.3, 2),
        (3, "Ann", 302.3, 1),
    ]
    assert standings[0].average == 100.0
    tied = ranking(
        {"Zoe": [RoundTime(0.1, True), RoundTime(0.2, True)], "Al": [RoundTime(0.25, True), RoundTime(0.05, True)]}
    )
    assert [(s.rank, s.player, s.seconds) for s in tied] == [(1, "Al", 0.3), (1, "Zoe", 0.3)]


def test_records() -> None:
    """§6.26's records: per game the best total; overall the best average over sessions of at least 5 rounds."""
    assert game_record([612.4, 540.0, 575.2]) == 540.0
    assert game_record([]) is None
    five = [RoundTime(80.0, True)] * 5
    ten = [RoundTime(70.0, True)] * 10
    three = [RoundTime(30.0, True)] * 3
    assert overall_record([five, ten, three]) == 70.0
    assert overall_record([three]) is None
