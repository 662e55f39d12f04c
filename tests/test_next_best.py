"""The reveal's "next best" (docs/rules.md §6.1): the best words after the tops, each once, at its best placement.

On an empty board with AEEGNTV the top is VENTAGE, 80 points at H4 and 8D; it also fits at a dozen other
places (8G and H7 for 76, 8B, 8C, 8F... for 74): the twelve best plays are all VENTAGE, which the projector
used to list as its "next best". A club discusses AVENGE, GENEVA, VENGE...
"""

from __future__ import annotations

from trainer.duplicate.classic import CLASSIC
from trainer.duplicate.mode import BEST_WORDS_KEPT
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move
from trainer.engine.rules import Ruleset
from trainer.games.display import NEXT_BEST_SHOWN, next_best_words

RACK = "AEEGNTV"
NEXT_BEST = [("8C AVENGE", 28), ("8H GENEVA", 28), ("8D VENGE", 26), ("8H GANEV", 26), ("8D VEGAN", 26)]


def test_a_round_keeps_every_top_then_the_best_placement_of_each_of_the_next_best_words(
    en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    analysis = CLASSIC.analyse(Board.empty(en_rules), en_rules, en_lexicon, RACK, everything=True)
    assert analysis is not None
    kept = [(format_move(move), move.score) for move in analysis.best]
    assert kept[:2] == [("H4 VENTAGE", 80), ("8D VENTAGE", 80)]  # the tops, in tie-break order (§6.7)
    assert kept[2:7] == NEXT_BEST
    assert kept[7:] == [("8D VEENA", 24), ("8D VENAE", 24), ("8H EVENT", 18), ("8G GAVE", 16), ("8G VANG", 16)]
    words = [play.split()[1] for play, _score in kept[2:]]
    assert len(words) == BEST_WORDS_KEPT == len(set(words)) and "VENTAGE" not in words


def test_the_reveal_lists_each_word_once_also_for_rounds_stored_with_every_placement(
    en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    tops = ["H4 VENTAGE", "8D VENTAGE"]
    analysis = CLASSIC.analyse(Board.empty(en_rules), en_rules, en_lexicon, RACK, everything=True)
    assert analysis is not None
    stored = [(format_move(move), move.score or 0) for move in analysis.best]
    assert next_best_words(stored, tops, 80) == NEXT_BEST
    # Rounds opened before this stored the best plays as they came: VENTAGE a dozen times, then the rest.
    plays = sorted(generate_moves(Board.empty(en_rules), en_rules, en_lexicon, RACK), key=lambda m: -(m.score or 0))
    stored_before = [(format_move(move), move.score or 0) for move in plays[:60]]
    assert sum(play.endswith(" VENTAGE") for play, _score in stored_before[:12]) == 12
    assert next_best_words(stored_before, tops, 80) == NEXT_BEST
    assert len(NEXT_BEST) == NEXT_BEST_SHOWN


def test_a_blank_makes_the_same_word_and_plays_below_the_top_only_are_listed() -> None:
    stored: list[list[object]] = [
        ["8D VENTAGE", 80],
        ["8G VENTAGe", 76],  # the top's word with a blank: not listed again
        ["8C AVENGE", 28],
        ["8H GENEVA", 28],
        ["8H aVENGE", 27],  # AVENGE again, lower
        ["8D VENGE", 26],
    ]
    assert next_best_words(stored, ["8D VENTAGE"], 80) == [("8C AVENGE", 28), ("8H GENEVA", 28), ("8D VENGE", 26)]
    # A play of the top score is a top, never a "next best".
    assert next_best_words([["8D VENTAGE", 80], ["H4 VENTAGE", 80]], ["8D VENTAGE"], 80) == []
