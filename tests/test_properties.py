"""Property tests (hypothesis): the generator, the validator, the scorer and the notation agree.

Positions are built by playing random legal plays from seeded random racks, so they look like
real games (blanks included); then, for a random rack drawn from what is left in the bag:

- every generated play passes :func:`validate` with the generator's score, and the same score
  comes out of :func:`score_move` and out of the ``tirage score`` JSON handler;
- formatting a play and parsing it back gives the same play, in both notations and all three
  ways of writing played-through letters;
- tiles put down at random are accepted by the validator exactly when the generator lists them.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trainer.engine.analysis import score as score_handler
from trainer.engine.board import EMPTY, Board, Move, Tile
from trainer.engine.errors import IllegalPlayError
from trainer.engine.lexicon import Lexicon, LexiconStore
from trainer.engine.movegen import count_moves, generate_moves, top_moves
from trainer.engine.notation import format_move, parse_move
from trainer.engine.play import move_from_tiles, score_move, validate
from trainer.engine.rules import BLANK, Ruleset, ruleset

SEEDS = st.integers(min_value=0, max_value=24)
TURNS = st.integers(min_value=0, max_value=10)
RACK_SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SAMPLE = 40  # generated plays checked one by one per example


@pytest.fixture(scope="module", params=["en", "fr"])
def game(request: pytest.FixtureRequest, lexicon_store: LexiconStore) -> tuple[Ruleset, Lexicon]:
    code: str = request.param
    return ruleset(code), lexicon_store.load(code)


_POSITIONS: dict[tuple[str, int, int], tuple[tuple[str, ...], tuple[str, ...]]] = {}


def _position(rules: Ruleset, lexicon: Lexicon, seed: int, turns: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(board cells, tiles not on the board) after ``turns`` random legal plays; memoised."""
    key = (lexicon.name, seed, turns)
    if key in _POSITIONS:
        return _POSITIONS[key]
    if turns == 0:
        bag = rules.tileset.bag()
        random.Random(seed).shuffle(bag)
        result = tuple(Board.empty(rules).cells), tuple(bag)
    else:
        cells, bag_left = _position(rules, lexicon, seed, turns - 1)
        board = Board(rules.layout, cells)
        rack, bag = list(bag_left[:7]), list(bag_left[7:])
        moves = generate_moves(board, rules, lexicon, rack)
        if moves:
            move = random.Random(seed * 1000 + turns).choice(moves)  # any legal play: varied positions
            board.place(move.tiles)
            for tile in move.tiles:
                rack.remove(BLANK if tile.blank else tile.letter)
        result = tuple(board.cells), tuple(bag + rack)  # unplayed tiles go back to the bag
    _POSITIONS[key] = result
    return result


def position(game: tuple[Ruleset, Lexicon], seed: int, turns: int, rack_seed: int) -> tuple[Board, list[str]]:
    """A board after ``turns`` random plays, and a random rack from the tiles not on it."""
    rules, lexicon = game
    cells, bag = _position(rules, lexicon, seed, turns)
    rack = random.Random(rack_seed).sample(bag, min(rules.rack_size, len(bag)))
    return Board(rules.layout, cells), rack


def sample(moves: list[Move], rack_seed: int) -> list[Move]:
    return random.Random(rack_seed).sample(moves, min(SAMPLE, len(moves)))


@SETTINGS
@given(seed=SEEDS, turns=TURNS, rack_seed=RACK_SEEDS)
def test_generated_plays_validate_with_the_same_score(
    game: tuple[Ruleset, Lexicon], lexicon_store: LexiconStore, seed: int, turns: int, rack_seed: int
) -> None:
    rules, lexicon = game
    board, rack = position(game, seed, turns, rack_seed)
    rows = board.rows()
    moves = generate_moves(board, rules, lexicon, rack)
    for move in sample(moves, rack_seed):
        assert move.score is not None
        result = validate(board, rules, lexicon, move, rack)
        assert result.move == move
        assert result.score == move.score, format_move(move)
        assert score_move(board, rules, move)[0] == move.score, format_move(move)
        text = format_move(move, rules.notation)
        answer = score_handler({"rules": rules.code, "board": rows, "move": text, "rack": "".join(rack)}, lexicon_store)
        assert answer["score"] == move.score, text
        assert answer["valid"] is True, text
        assert answer["move"] == text
        assert (
            sum(score for _, score in answer["words"])
            + (rules.bingo_bonus if len(move.tiles) == rules.rack_size else 0)
            == move.score
        )
    assert board.rows() == rows  # checking plays never changes the board


@SETTINGS
@given(seed=SEEDS, turns=TURNS, rack_seed=RACK_SEEDS)
def test_format_then_parse_gives_the_same_play(
    game: tuple[Ruleset, Lexicon], seed: int, turns: int, rack_seed: int
) -> None:
    rules, lexicon = game
    board, rack = position(game, seed, turns, rack_seed)
    for move in sample(generate_moves(board, rules, lexicon, rack), rack_seed):
        for notation in ("english", "french"):
            for through in ("plain", "parens", "dot"):
                text = format_move(move, notation, through)
                parsed = parse_move(text, board, notation)
                assert parsed == move, text
                assert (parsed.row, parsed.col, parsed.horizontal, parsed.word) == (
                    move.row,
                    move.col,
                    move.horizontal,
                    move.word,
                ), text
                assert sorted(parsed.tiles, key=lambda t: (t.row, t.col)) == sorted(
                    move.tiles, key=lambda t: (t.row, t.col)
                ), text


@SETTINGS
@given(seed=SEEDS, turns=TURNS, rack_seed=RACK_SEEDS)
def test_generator_lists_each_play_once_and_agrees_with_top_and_count(
    game: tuple[Ruleset, Lexicon], seed: int, turns: int, rack_seed: int
) -> None:
    rules, lexicon = game
    board, rack = position(game, seed, turns, rack_seed)
    moves = generate_moves(board, rules, lexicon, rack)
    assert len(set(moves)) == len(moves)
    assert count_moves(board, rules, lexicon, rack) == len(moves)
    top_score, top = top_moves(board, rules, lexicon, rack)
    best = max((m.score or 0 for m in moves), default=0)
    assert top_score == best
    assert set(top) == {m for m in moves if m.score == best}
    assert all(m.score == top_score for m in top)


@SETTINGS
@given(seed=SEEDS, turns=TURNS, rack_seed=RACK_SEEDS)
def test_random_placements_are_legal_exactly_when_generated(
    game: tuple[Ruleset, Lexicon], seed: int, turns: int, rack_seed: int
) -> None:
    rules, lexicon = game
    board, rack = position(game, seed, turns, rack_seed)
    if not rack:
        return
    generated = {m: m.score for m in generate_moves(board, rules, lexicon, rack)}
    rng = random.Random(rack_seed)
    size = board.size
    filled = [(r, c) for r in range(size) for c in range(size) if board.at(r, c) != EMPTY]
    anchors = (
        [divmod(rules.layout.start, size)]
        if not filled
        else [
            (r + a, c + b)
            for r, c in filled
            for a, b in ((0, 1), (1, 0), (0, -1), (-1, 0))
            if board.on_board(r + a, c + b) and board.at(r + a, c + b) == EMPTY
        ]
    )
    for _ in range(150):
        row, col = rng.choice(anchors)
        dr, dc = rng.choice([(0, 1), (1, 0)])
        back = rng.randrange(rules.rack_size)
        r, c = row - dr * back, col - dc * back
        letters = rng.sample(rack, rng.randint(1, len(rack)))
        tiles: list[Tile] = []
        while letters and board.on_board(r, c):
            if board.at(r, c) == EMPTY:
                letter = letters.pop()
                if letter == BLANK:
                    tiles.append(Tile(r, c, rng.choice(rules.tileset.letters), blank=True))
                else:
                    tiles.append(Tile(r, c, letter))
            r, c = r + dr, c + dc
        try:
            move = move_from_tiles(board, tiles)
            result = validate(board, rules, lexicon, move, rack)
        except IllegalPlayError as error:
            assert Move(0, 0, True, "", tuple(tiles)) not in generated, (tiles, str(error))
            continue
        assert move in generated, format_move(move)
        assert result.score == generated[move]
