"""Whole duplicate games with real plays: the draw rule, the placed tops, the reliquat, the end, replays."""

from __future__ import annotations

import itertools
import secrets
from collections import Counter
from typing import Any

import pytest

from tests.test_duplicate_draw import any_rack_passes, expected_need, passes
from trainer.duplicate.draw import Bag, DrawRule, EndReason
from trainer.duplicate.results import RoundRecord, Submission, score_round
from trainer.duplicate.rounds import DuplicateGame, Setup, replay_game, simulate
from trainer.duplicate.tiebreak import tiebreak_key
from trainer.engine.board import Move, Tile
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move
from trainer.engine.play import evaluate
from trainer.engine.rules import Ruleset

SEEDS = range(20)


def _setup(rules: Ruleset, lexicon: Lexicon, seed: int | None = None, **settings: Any) -> Setup:
    """A game's setup as the server makes it from its settings (a random seed when none is given)."""
    draw_rule = settings.pop("draw_rule", DrawRule())
    return Setup(rules, lexicon, rules.notation, draw_rule, secrets.randbits(63) if seed is None else seed, **settings)


@pytest.fixture(params=["en", "fr"])
def game_rules(request: pytest.FixtureRequest) -> tuple[str, Ruleset, Lexicon]:
    code: str = request.param
    rules: Ruleset = request.getfixturevalue(f"{code}_rules")
    lexicon: Lexicon = request.getfixturevalue(f"{code}_lexicon")
    return code, rules, lexicon


def test_seeded_games_follow_section_6(game_rules: tuple[str, Ruleset, Lexicon]) -> None:
    code, rules, lexicon = game_rules
    full = Counter(rules.tileset.bag())
    rejets = 0
    for seed in SEEDS:
        game = simulate(_setup(rules, lexicon, seed))
        assert game.end is not None and 12 <= len(game.rounds) <= 35
        previous = ""
        for number, played in enumerate(game.rounds, start=1):
            draw = played.draw
            assert draw.round_number == number and draw.reliquat == previous
            assert passes(draw.rack, code, expected_need(number)), (seed, number, draw.record)
            assert all(not passes(r.rack, code, expected_need(number)) for r in draw.rejets)
            rejets += len(draw.rejets)
            # The placed play is a top, the tie-break's first, made from the rack.
            assert played.placed in played.tops and played.placed.score == played.top_score
            assert tiebreak_key(played.placed, draw.rack) == min(tiebreak_key(m, draw.rack) for m in played.tops)
            used = Counter(played.placed.rack_tiles())
            assert Counter(played.reliquat) + used == Counter(draw.rack)
            previous = played.reliquat
        on_board = game.board.tiles_on_board()
        assert len(on_board) == sum(len(r.placed.tiles) for r in game.rounds)
        assert Counter(on_board) + Counter(game.bag.tiles) + Counter(game.reliquat) == full
        left = game.bag.tiles + game.reliquat
        number = len(game.rounds) + 1
        if game.end is EndReason.TOO_FEW_TILES:
            assert len(left) < 2
        elif game.end is EndReason.REQUIREMENT_UNREACHABLE:
            assert not any_rack_passes(left, code, expected_need(number))
        else:
            assert game.end is EndReason.NO_LEGAL_PLAY and game.last_draw is not None
            assert game.last_draw.round_number == number
    assert rejets > 0


def test_the_top_is_the_best_legal_play(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    game = DuplicateGame(_setup(en_rules, en_lexicon, 21))
    for _ in range(4):
        draw = game.start_round()
        assert draw is not None
        moves = generate_moves(game.board, en_rules, en_lexicon, draw.rack)
        best = max(m.score or 0 for m in moves)
        assert game.top_score == best
        assert set(game.tops) == {m for m in moves if m.score == best}
        game.place()


def test_same_seed_same_game_and_a_seedless_game_can_be_replayed(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    def story(game: DuplicateGame) -> list[str]:
        return [f"{r.draw.record} {format_move(r.placed)}" for r in game.rounds]

    assert story(simulate(_setup(en_rules, en_lexicon, 3))) == story(simulate(_setup(en_rules, en_lexicon, 3)))
    assert story(simulate(_setup(en_rules, en_lexicon, 3))) != story(simulate(_setup(en_rules, en_lexicon, 4)))
    seedless = simulate(_setup(en_rules, en_lexicon))
    assert story(simulate(_setup(en_rules, en_lexicon, seedless.seed))) == story(seedless)


def test_replay_from_the_placed_plays(fr_rules: Ruleset, fr_lexicon: Lexicon) -> None:
    game = simulate(_setup(fr_rules, fr_lexicon, 5))
    placed = [format_move(r.placed, "french") for r in game.rounds]
    halfway = replay_game(_setup(fr_rules, fr_lexicon, 5), placed[:6])
    assert halfway.start_round() == game.rounds[6].draw
    whole = replay_game(_setup(fr_rules, fr_lexicon, 5), placed)
    assert whole.board == game.board and whole.bag.tiles == game.bag.tiles
    assert whole.start_round() is None and whole.end is game.end


def test_the_director_may_place_another_top_but_only_a_top(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    game = DuplicateGame(_setup(en_rules, en_lexicon, 0))
    with pytest.raises(RuntimeError, match="no round is open"):
        game.place()
    draw = game.start_round()
    assert draw is not None and len(game.tops) > 1
    with pytest.raises(RuntimeError, match="still open"):
        game.start_round()
    lesser = next(
        m for m in generate_moves(game.board, en_rules, en_lexicon, draw.rack) if (m.score or 0) < game.top_score
    )
    with pytest.raises(ValueError, match="not a top play"):
        game.place(lesser)
    other = game.tops[1]
    played = game.place(format_move(other))
    assert played.placed == other and played.placed.score == played.top_score
    assert Counter(played.reliquat) + Counter(other.rack_tiles()) == Counter(draw.rack)


def test_a_game_can_have_a_number_of_rounds(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    game = simulate(_setup(en_rules, en_lexicon, 2, max_rounds=3))
    assert len(game.rounds) == 3 and game.end is EndReason.ROUND_LIMIT
    assert game.start_round() is None


def test_a_rack_without_a_legal_play_ends_the_game(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    game = DuplicateGame(_setup(en_rules, en_lexicon, 1, draw_rule=DrawRule(0, 0, 0, 0)))
    game.bag = Bag(en_rules, game.setup.draw_rule, seed=1, tiles="JQXZ")  # no word among these
    assert game.start_round() is None
    assert game.end is EndReason.NO_LEGAL_PLAY
    assert game.last_draw is not None and game.last_draw.rack == "JQXZ" and not game.rounds


def test_a_round_scored_against_every_legal_play(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    """What the server does at a close: evaluate each last submission, rank it among all plays."""
    game = DuplicateGame(_setup(en_rules, en_lexicon, 11))
    draw = game.start_round()
    assert draw is not None
    moves = generate_moves(game.board, en_rules, en_lexicon, draw.rack)
    scores = [m.score or 0 for m in moves]
    lesser = sorted(moves, key=lambda m: m.score or 0)[len(moves) // 2]
    letters = [t for t in draw.rack if t != "?"]
    nonsense = next(
        e
        for a, b in itertools.permutations(letters, 2)
        if not (
            e := evaluate(
                game.board, en_rules, en_lexicon, Move(7, 6, True, a + b, (Tile(7, 6, a), Tile(7, 7, b))), draw.rack
            )
        ).valid
    )

    def judged(player: str, move: Move, late: bool = False) -> Submission:
        return Submission.from_evaluation(
            player, evaluate(game.board, en_rules, en_lexicon, move, draw.rack), late=late
        )

    record = RoundRecord(
        1,
        game.top_score,
        scores,
        [
            judged("ann", game.tops[0]),
            judged("bob", lesser),
            Submission.from_evaluation("cid", nonsense),
            judged("dan", game.tops[0], late=True),
        ],
    )
    result = score_round(record, ["ann", "bob", "cid", "dan", "eve"], active_players=5)
    ann, bob, cid, dan, eve = (result.players[p] for p in ["ann", "bob", "cid", "dan", "eve"])
    assert (ann.score, ann.rank, ann.of, ann.top, ann.solo, ann.bonus) == (game.top_score, 1, len(moves), True, True, 0)
    assert bob.score == lesser.score and bob.difference == (lesser.score or 0) - game.top_score
    assert bob.rank == 1 + sum(1 for s in scores if s > (lesser.score or 0))
    assert (cid.valid, cid.score, cid.rank) == (False, 0, None)
    assert (dan.score, dan.rank, dan.top) == (0, 1, False)
    assert (eve.move, eve.score) == (None, 0)
    game.place()
