"""The federation's first-move rules (issue 16): the first top goes across (docs/rules.md §6.7) and a first-move
play scores its word's best placement wherever it was put (§6.9). Both are game settings, on for a new game;
games made before them keep the rules they were played with.
"""

from __future__ import annotations

import pytest
from flask import Flask
from sqlalchemy import select

from trainer.core import accounts
from trainer.core.database import db
from trainer.core.errors import Refused
from trainer.duplicate.draw import Bag, DrawRule
from trainer.duplicate.firstplay import best_first_placement
from trainer.duplicate.rounds import OpenedRound, Position, Setup, judge, open_round
from trainer.duplicate.tiebreak import order_tops
from trainer.engine import Board, Lexicon, Ruleset
from trainer.engine.errors import IllegalPlayError
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move, parse_move
from trainer.engine.rules import Notation
from trainer.games import service
from trainer.games.cache import game_results
from trainer.games.models import Game, Round

SEEDS = range(1, 201)


def _first_tops(rules: Ruleset, lexicon: Lexicon, notation: Notation, across: bool) -> list[bool]:
    """Whether the first top placed is across, for each seed of SEEDS (the server's own way to open a round)."""
    placed = []
    for seed in SEEDS:
        setup = Setup(rules, lexicon, notation, DrawRule(), seed, first_play_across=across)
        opened = open_round(setup, Bag(rules, DrawRule(), seed=seed), "", 1, Board.empty(rules), everything=False)
        assert isinstance(opened, OpenedRound)
        placed.append(opened.analysis.tops[0].horizontal)
    return placed


def test_the_first_top_goes_across_on_200_french_games(fr_rules: Ruleset, fr_lexicon: Lexicon) -> None:
    """§6.7: with ``first_play_across`` every one of 200 seeds places an across top; without it, the reading
    order puts a down copy first in most of them (which is why the rule is needed)."""
    assert all(_first_tops(fr_rules, fr_lexicon, "french", across=True))
    assert sum(not across for across in _first_tops(fr_rules, fr_lexicon, "french", across=False)) > 100


def test_across_first_keeps_the_usual_order_among_across_tops(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    board = Board.empty(en_rules)
    rack = "?AEEGOY"  # §6.7's example: four tops of 26, YOGEE and YOGEEs, across and down
    moves = generate_moves(board, en_rules, en_lexicon, rack)
    top = max(m.score or 0 for m in moves)
    tops = [m for m in moves if m.score == top]
    written = [format_move(m, "english") for m in order_tops(tops, rack, across_first=True)]
    assert written[:2] == ["8D YOGEE", "8D YOGEEs"] and all(w.startswith("H") for w in written[2:])
    assert format_move(order_tops(tops, rack)[0], "english") == "H4 YOGEE"


# Worked example of §6.9 (English, empty board, rack ELMNNOW): WOMEN scores 28 across from 8D (its W on the
# double letter D8, the word on the centre's double word) and 22 from 8H (no letter on a double letter).
@pytest.mark.parametrize(
    ("rack", "play", "as_placed", "credited"),
    [
        ("ELMNNOW", "8H WOMEN", 22, 28),
        ("ELMNNOW", "H8 WOMEN", 22, 28),  # down from the centre: the same
        ("ELMNNOW", "8D WOMEN", 28, 28),  # the best placement itself
        ("ELMNNOW", "8A WOMEN", None, 28),  # misses the centre: taken, and credited as the word
        ("?ELMNNO", "H4 wOMEN", 12, 14),  # the blank as W, at its best place too
        ("EEMNNOW", "8H WOMEN", 22, 28),
    ],
)
def test_a_first_play_scores_its_words_best_placement(
    en_rules: Ruleset, en_lexicon: Lexicon, rack: str, play: str, as_placed: int | None, credited: int
) -> None:
    board = Board.empty(en_rules)
    plain = Position(en_rules, en_lexicon, "english", board, rack)
    federation = Position(en_rules, en_lexicon, "english", board, rack, first_play_best_placement=True)
    if as_placed is None:
        with pytest.raises(IllegalPlayError, match="must cover the centre square H8"):
            judge(plain, play)
    else:
        assert judge(plain, play) == (play, as_placed)
    assert judge(federation, play) == (play, credited)  # the player's play, kept as written
    best = best_first_placement(board, en_rules, en_lexicon, play.split()[1], rack)
    assert best is not None and best.score == credited


def test_the_rule_never_lends_tiles_and_stops_after_the_first_move(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    board = Board.empty(en_rules)
    federation = Position(en_rules, en_lexicon, "english", board, "?ELMNNO", first_play_best_placement=True)
    with pytest.raises(IllegalPlayError, match="rack has no W"):  # a letter the player does not hold
        judge(federation, "8D WOMEn")
    with pytest.raises(IllegalPlayError, match="at least two letters"):
        judge(federation, "8H N")
    board.place(parse_move("8D WOMEN", board, "english").tiles)
    later = Position(en_rules, en_lexicon, "english", board, "ELMNOST", first_play_best_placement=True)
    assert judge(later, "E5 MELON")[1] == best_second_score(en_rules, en_lexicon, board, "E5 MELON")
    with pytest.raises(IllegalPlayError):
        judge(later, "1A MELON")  # not touching: refused as on any later move


def best_second_score(rules: Ruleset, lexicon: Lexicon, board: Board, play: str) -> int:
    """The engine's own score of ``play`` as placed (a later move has no best-placement rule)."""
    move = parse_move(play, board, "english")
    found = [m for m in generate_moves(board, rules, lexicon, "ELMNOST") if m == move]
    assert found, f"{play} should be a legal play"
    return found[0].score or 0


# ---------------------------------------------------------------- on the server


def _started(app: Flask, **settings: object) -> tuple[int, int, str]:
    """A started English game with one player: (game id, player id, round 1's top as stored)."""
    with app.app_context():
        director = accounts.create_director("arbiter", "password123")
        game = service.create_game(director, {"seed": 10**19 + 41, "reveal_seconds": None, **settings})
        player, _token = service.join_game(game.join_code, "Zoe")
        service.start_game(game, "arbiter")
        top = db.session.execute(select(Round.tops).where(Round.game_id == game.id)).scalar_one()[0]
        return game.id, player.id, str(top)


def _off_centre(top: str) -> str:
    """The top's word across row 7 from column B: a placement that misses the centre square."""
    return f"7B {top.split()[1]}"


def test_a_new_game_places_its_first_top_across_and_credits_a_play_put_anywhere(app: Flask) -> None:
    game_id, player_id, top = _started(app)
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None and game.first_play_across and game.first_play_best_placement
        assert top[0].isdigit(), f"the first top {top} should be across (a row number first in English notation)"
        player = next(p for p in game.players if p.id == player_id)
        accepted = service.submit(game, player, 1, _off_centre(top))
        assert accepted.move == _off_centre(top)
        service.close_round(game_id, 1, "arbiter", early=True)
        game = db.session.get(Game, game_id)
        assert game is not None
        results = game_results(game)
        zoe = results.rounds[0].players["Zoe"]
        assert zoe.score == results.rounds[0].top_score and zoe.top and zoe.rank == 1


def test_a_game_without_the_rules_judges_the_first_move_as_placed(app: Flask) -> None:
    game_id, player_id, top = _started(app, first_play_across=False, first_play_best_placement=False)
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        player = next(p for p in game.players if p.id == player_id)
        with pytest.raises(Refused) as refused:
            service.submit(game, player, 1, _off_centre(top))
        assert "the first play must cover the centre square H8" in str(refused.value)


def test_a_round_judges_each_distinct_play_once(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    """Issue 27: under §6.9 a first play costs about ten evaluations (every placement of its word), and every
    player's play was judged separately although a room hands in few distinct plays. A round of 300 players
    handing in five distinct plays of two words costs one evaluation per distinct play and one best-placement
    search per word, at the close and on the play path, with the same results as judging each afresh."""
    from trainer.duplicate.rounds import judge_round

    board = Board.empty(en_rules)
    plays = ["8H WOMEN", "H8 WOMEN", "8D WOMEN", "8A WOMEN", "8H MOWN"]
    room = {player: plays[player % len(plays)] for player in range(300)}

    def position() -> Position:
        return Position(en_rules, en_lexicon, "english", board, "ELMNNOW", first_play_best_placement=True)

    closing = position()
    judged = judge_round(closing, room, [])
    # 5 plays evaluated as placed (8A refused there, then credited by its word's search); 2 words searched.
    assert closing.memo.evaluations == len(plays) + 2
    for player, move in room.items():
        alone = judge_round(position(), {player: move}, [])[player]
        assert judged[player] == alone
    assert [judged[p].score for p in range(4)] == [28, 28, 28, 28]  # WOMEN, wherever it was put (§6.9)

    on_the_play_path = position()
    for move in room.values():
        judge(on_the_play_path, move)
    assert on_the_play_path.memo.evaluations == len(plays) + 2
