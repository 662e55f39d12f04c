"""Joker games (docs/rules.md §6.24), the pure rules: every draw holds the one blank in play, a blank the top
places is swapped back for its letter from the bag, or stays on the board when the bag has none; the worked example
of the rules document, determinism, and the server's way of replaying a game agreeing with a simulation."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from trainer.duplicate.draw import Bag, DrawRule, EndReason
from trainer.duplicate.errors import RuleError
from trainer.duplicate.imposed import parse, requested
from trainer.duplicate.joker import (
    BlankFate,
    JokerBag,
    blank_fate,
    joker_tiles,
    letters_in_bag,
    swap_on_board,
)
from trainer.duplicate.rounds import DuplicateGame, OpenedRound, PlayedRound, Setup, next_round, place, replay
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.notation import format_move, parse_move
from trainer.engine.play import evaluate
from trainer.engine.rules import Ruleset

# docs/rules.md §6.24's worked example: English, seed 4, the default settings. (round, draw, top, score, blank)
EXAMPLE = {
    1: ("?DFINOY", "8D FONDlY", 32, BlankFate(7, 7, "L", swapped=True)),  # H8
    2: ("I+?AACEO", "H7 ALOpECIA", 62, BlankFate(9, 7, "P", swapped=True)),  # H10
    7: ("-?GRSVWW ?BIIRVV", "12A VIVID", 32, None),
    8: ("?BR+ELOS", "O8 OBLiGERS", 140, BlankFate(10, 14, "I", swapped=True)),  # O11
    19: ("?HKOPRY", "D1 HOKeY", 41, BlankFate(3, 3, "E", swapped=False)),  # D4
    20: ("PR+A", "10H PAP", 29, None),
}


def joker_setup(rules: Ruleset, lexicon: Lexicon, seed: int = 4) -> Setup:
    """A joker game with the settings a new game has (the federation's first-move rules)."""
    return Setup(
        rules,
        lexicon,
        rules.notation,
        DrawRule(),
        seed,
        first_play_across=True,
        first_play_best_placement=True,
        variant="joker",
    )


@pytest.fixture(scope="module")
def seed_4(en_rules: Ruleset, en_lexicon: Lexicon) -> DuplicateGame:
    game = DuplicateGame(joker_setup(en_rules, en_lexicon))
    game.play_to_end()
    return game


@pytest.fixture(scope="module")
def seed_4_boards(en_rules: Ruleset, en_lexicon: Lexicon) -> list[str]:
    """The board of the example's game after each of its first ten rounds, as a simulation plays them."""
    game = DuplicateGame(joker_setup(en_rules, en_lexicon))
    boards = []
    for _ in range(10):
        game.start_round()
        game.place()
        boards.append("".join(game.board.cells))
    return boards


def test_the_worked_example_of_docs_rules_6_24(seed_4: DuplicateGame, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    rounds = {r.number: r for r in seed_4.rounds}
    for number, (draw, top, score, blank) in EXAMPLE.items():
        played = rounds[number]
        assert (played.draw.record, format_move(played.placed, "english"), played.top_score) == (draw, top, score)
        assert played.blank == blank, number
    assert (len(seed_4.rounds), seed_4.end, seed_4.reliquat, seed_4.bag.tiles) == (20, EndReason.TOO_FEW_TILES, "R", "")
    board = seed_4.board
    assert board.at(7, 7) == "L" and board.at(9, 7) == "P" and board.at(10, 14) == "I"  # swapped: real tiles
    assert board.at(3, 3) == "e"  # round 19: no E was left, the blank stays a blank
    assert sum(ch.islower() for ch in board.cells) == 1
    # Round 2's ALOPECIA plays through the L on H8, a real tile: it counts its point (61 through a blank).
    before = rounds[2]
    assert before.reliquat == "" and "?" in before.draw.rack
    through_blank = Board.from_rows(en_rules.layout, ["." * 15] * 15)
    first = parse_move("8D FONDlY", through_blank, "english")
    through_blank.place(first.tiles)
    assert through_blank.at(7, 7) == "l"
    alopecia = parse_move("H7 ALOpECIA", through_blank, "english")
    assert evaluate(through_blank, en_rules, en_lexicon, alopecia, "?AACEIO", "english").score == 61


def test_every_draw_holds_the_blank_while_it_is_in_the_bag_and_one_blank_is_in_play(seed_4: DuplicateGame) -> None:
    for played in seed_4.rounds:
        blank_out = any(r.blank is not None and not r.blank.swapped for r in seed_4.rounds[: played.number - 1])
        for attempt in (*played.draw.rejets, played.draw.final):  # every rack, rejected ones too
            assert attempt.rack.count("?") == (0 if blank_out else 1), played.draw.record
            if "?" not in attempt.kept and not blank_out:
                assert attempt.new.startswith("?")  # put on the rack first, written first as §6.3 sorts it
    assert joker_tiles(seed_4.rules.tileset).count("?") == 1 and len(joker_tiles(seed_4.rules.tileset)) == 99


def test_a_blank_kept_in_the_reliquat_is_not_added_again(seed_4: DuplicateGame) -> None:
    """Rounds 7 and 8 of the example: VIVID leaves ?BR, and round 8 adds four letters, no second blank."""
    seventh, eighth = seed_4.rounds[6], seed_4.rounds[7]
    assert seventh.reliquat == "?BR" and seventh.blank is None
    assert (eighth.draw.final.kept, eighth.draw.final.new) == ("?BR", "ELOS")


def test_once_the_letter_is_gone_the_blank_stays_and_no_later_draw_holds_one(seed_4: DuplicateGame) -> None:
    eighteenth, nineteenth = seed_4.rounds[17], seed_4.rounds[18]
    assert eighteenth.blank == BlankFate(0, 8, "T", swapped=True)  # 1G TItULAR: a T was left
    assert "E" not in nineteenth.draw.rack and nineteenth.draw.rack.count("?") == 1
    assert nineteenth.blank is not None and not nineteenth.blank.swapped
    assert "?" not in seed_4.rounds[19].draw.record


def test_the_same_seed_gives_the_same_joker_game_and_another_than_the_classic_one(
    seed_4: DuplicateGame, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    again = DuplicateGame(joker_setup(en_rules, en_lexicon))
    again.play_to_end()
    assert [(r.draw, r.placed, r.blank) for r in again.rounds] == [(r.draw, r.placed, r.blank) for r in seed_4.rounds]
    assert again.board == seed_4.board
    classic = Bag(en_rules, DrawRule(), seed=4).draw("", 1)
    assert (classic.rack, seed_4.rounds[0].draw.rack) == ("CEEIMOW", "?DFINOY")  # docs/rules.md §5.5


def test_the_server_replays_a_joker_game_as_the_simulation_played_it(
    seed_4: DuplicateGame, seed_4_boards: list[str], en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    """The server keeps each round's rack, board and top, and draws the next round again from the seed: the swap is
    made again on the board (from the board and rack alone) and in the bag (the blank back first)."""
    setup = joker_setup(en_rules, en_lexicon)
    board = "".join(setup.board().cells)
    played: list[PlayedRound] = []
    for simulated in seed_4.rounds[:9]:
        rack = simulated.draw.rack
        played.append(PlayedRound(simulated.number, rack, board, format_move(simulated.placed, "english")))
        board, reliquat = place(setup, board, played[-1].placed, rack)
        assert (board, reliquat) == (seed_4_boards[simulated.number - 1], simulated.reliquat)
    opened = next_round(setup, played, board)
    assert isinstance(opened, OpenedRound) and opened.draw == seed_4.rounds[9].draw  # CGI+?AMN
    bag, reliquat = replay(setup, played)
    assert isinstance(bag, JokerBag) and "?" in bag.tiles and reliquat == "CGI"


def test_the_swap_is_counted_from_the_board_and_the_rack(en_rules: Ruleset) -> None:
    """In a game from a full bag, a letter is in the bag unless every copy is on the board (in capitals) or on the
    rack; a blank standing for it on the board is not one of them."""
    board = Board.empty(en_rules)
    rack = "?AEINRT"
    move = parse_move("8D RETaIN", board, "english")
    assert blank_fate(en_rules, board, move, rack) == BlankFate(7, 6, "A", swapped=True)
    assert letters_in_bag(en_rules, board, rack)["A"] == 8
    # Every Z but none: the Z is on the board (the set has one), so a blank played as Z stays.
    board.place(parse_move("8G ZA", board, "english").tiles)
    zed = parse_move("H7 zA", board, "english")
    assert letters_in_bag(en_rules, board, "?EO")["Z"] == 0
    assert blank_fate(en_rules, board, zed, "?EO") == BlankFate(6, 7, "Z", swapped=False)
    assert blank_fate(en_rules, board, parse_move("7H OE", board, "english"), "?EO") is None  # the blank stays kept
    after = board.copy()
    swapped = BlankFate(7, 6, "A", swapped=True)
    with pytest.raises(ValueError, match="not the blank"):
        swap_on_board(after, swapped)  # G8 holds the Z, not a blank
    swap_on_board(after, BlankFate(6, 7, "Z", swapped=False))
    assert after == board  # a blank that stays changes nothing


def test_a_rejet_sends_the_blank_back_and_the_fresh_rack_takes_it_first(en_rules: Ruleset) -> None:
    """Seeded bag-only games: every attempt, rejected or not, holds the blank, and the rack meets the draw rule."""
    rejected = 0
    for seed in range(1, 40):
        bag = JokerBag(en_rules, seed=seed)
        plays = random.Random(seed)
        reliquat, in_play = "", True
        for number in range(1, 30):
            if bag.end_reason(reliquat, number) is not None:
                break
            draw = bag.draw(reliquat, number)
            rejected += len(draw.rejets)
            assert all(attempt.rack.count("?") == in_play for attempt in (*draw.rejets, draw.final)), draw.record
            assert Counter(bag.tiles + draw.rack)["?"] == in_play
            assert draw.requirement.met_by(bag.balance(draw.rack))
            rack = list(draw.rack)
            plays.shuffle(rack)
            kept = rack[: plays.randrange(0, 4)]
            if in_play and "?" not in kept:  # the top placed the blank: its letter leaves the bag, if one is left
                letter = plays.choice("AEIOUY")
                if letter in bag.tiles:
                    bag.swap_blank(letter)
                else:
                    in_play = False
            reliquat = "".join(sorted(kept))
    assert rejected > 0


def test_a_blank_counting_as_neither_takes_a_place_on_the_rack(en_rules: Ruleset) -> None:
    """docs/rules.md §6.24 with blanks_either off: six tiles beside the blank must meet the minimums."""
    neither = DrawRule(blanks_either=False)
    bag = JokerBag(en_rules, neither, seed=1, tiles="?AEBCDFG")
    assert bag.end_reason("", 1) is None  # ? and six of AEBCDFG: both vowels are needed, and drawn after rejets
    drawn = bag.draw("", 1)
    assert drawn.rack.startswith("?") and {"A", "E"} <= set(drawn.rack)
    assert all(not {"A", "E"} <= set(attempt.rack) for attempt in drawn.rejets)
    three = JokerBag(en_rules, DrawRule(3, 3, blanks_either=False), seed=1, tiles="?AEIBCDGH").draw("", 1)
    assert len(three.rack) == 7 and three.rack.count("?") == 1 and {"A", "E", "I"} <= set(three.rack)  # six for 3 + 3
    with pytest.raises(ValueError, match="beside the blank"):
        JokerBag(en_rules, DrawRule(4, 3, blanks_either=False))
    with pytest.raises(ValueError, match="beside the blank"):
        JokerBag(en_rules, DrawRule(late_min_vowels=4, late_min_consonants=3, blanks_either=False))
    JokerBag(en_rules, DrawRule(4, 3))  # a blank counting as either makes up the seventh
    with pytest.raises(ValueError, match="one blank"):
        JokerBag(en_rules, tiles="??AEBCD")


def test_the_bag_swaps_only_a_letter_it_holds(en_rules: Ruleset) -> None:
    bag = JokerBag(en_rules, seed=1, tiles="AEEIRST")
    with pytest.raises(ValueError, match="holds no Z"):
        bag.swap_blank("Z")
    bag.swap_blank("E")
    assert bag.tiles == "?AEIRST"
    with pytest.raises(ValueError, match="already"):
        bag.swap_blank("A")


def test_a_joker_game_is_never_played_from_imposed_draws(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    """docs/rules.md §6.24: a list of draws says nothing of the tops that send the blank back."""
    with pytest.raises(RuleError) as refused:
        requested({"draws": "EIMORSU"}, en_rules, DrawRule(), "joker")
    assert refused.value.code == "joker_imposed" and refused.value.params == {"setting": "variant"}
    assert requested({"draws": " "}, en_rules, DrawRule(), "joker") is None  # no list: drawn from the seed
    listed = parse("EIMORSU", en_rules, DrawRule())
    with pytest.raises(ValueError, match="not from imposed draws"):
        Setup(en_rules, en_lexicon, "english", DrawRule(), 1, imposed=listed, variant="joker")


def test_a_joker_games_round_list_played_as_a_classic_games_is_refused_at_the_third_blank(
    seed_4: DuplicateGame, en_rules: Ruleset
) -> None:
    listed = "\n".join(r.draw.record for r in seed_4.rounds)
    with pytest.raises(RuleError) as refused:
        parse(listed, en_rules, DrawRule())
    assert "line 3: ?BHITTT takes tiles the bag no longer holds: ?" in str(refused.value)
