"""The figures of the help page (``/help``), worked out by the rules themselves so that the page cannot
disagree with them: plays read and scored by the engine, the worked example scored by
:mod:`trainer.duplicate.results`, defaults read from the settings' declaration (docs/rules.md §4–§6).

Plain values only: the template (templates/help.html) says them in words, in the reader's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from functools import cache

from ..duplicate.draw import DrawRule
from ..duplicate.results import (
    Correction,
    GameResults,
    RoundRecord,
    SoloRule,
    Submission,
    percentage,
    score_game,
    shared_ranks,
)
from ..duplicate.settings import BY_NAME
from ..engine.board import Board, Move
from ..engine.notation import ThroughStyle, format_coordinate, format_move, parse_move
from ..engine.play import check_placement, score_move
from ..engine.rules import Notation, Ruleset, ruleset

# The examples' words are words in both bundled lexicons, made of letters worth the same in both tile sets,
# so one set of figures serves an English and a French game (tests/test_help.py checks both).
RULES = "en"
FIRST = "8D TRAIN"  # the first play, English notation
PLAYERS = ("Anne", "Bruno", "Chloé")


def _default(name: str) -> int:
    value = BY_NAME[name].default
    assert isinstance(value, int) and not isinstance(value, bool), name
    return value


@dataclass(frozen=True)
class Cell:
    letter: str  # "" for an empty square; lower case for a blank
    value: int
    premium: str  # tw dw tl dl start, or ""
    new: bool  # put down by the play shown


@dataclass(frozen=True)
class Excerpt:
    """A few rows and columns of the board around a play, labelled in one notation."""

    column_labels: tuple[str, ...]
    row_labels: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


@dataclass(frozen=True)
class Figure:
    """A play written in one notation, drawn on the board."""

    written: str
    notation: Notation
    across: bool
    row: str  # the label of the play's first row, in this notation
    column: str
    excerpt: Excerpt


@dataclass(frozen=True)
class Term:
    letter: str
    value: int  # face value (0 for a blank)
    multiplier: int  # the letter premium under a new tile, else 1
    board: bool  # already on the board


@dataclass(frozen=True)
class WordSum:
    word: str
    terms: tuple[Term, ...]
    subtotal: int
    multiplier: int  # the word premiums under new tiles, multiplied
    score: int


@dataclass(frozen=True)
class ScoreExample:
    english: str
    french: str
    before: tuple[str, str]  # the play already on the board in English and French notation, or ("", "")
    words: tuple[WordSum, ...]
    bingo: int  # the bonus for using every tile of the rack, or 0
    score: int  # the engine's score


@dataclass(frozen=True)
class Cover:
    """How the player's last play of a round came out, and what they handed in before it."""

    player: str
    replaced: tuple[int, ...]  # the scores of the plays handed in before the last one
    invalid_score: int | None  # the value as placed of a play refused for a word not in the lexicon


@dataclass(frozen=True)
class Guide:
    rules: Ruleset
    draw: DrawRule
    round_seconds: int
    reveal_seconds: int
    solo_bonus: int
    solo_min_players: int
    warnings_free: int  # the settings' defaults (docs/rules.md §6.19)
    warning_penalty: int
    notation: tuple[Figure, ...]  # across and down in English, then in French
    same_text: str  # a play's text that is across in English notation and down in French notation
    blank: tuple[str, str, str]  # a play with a blank in English and French notation, and the blank's letter
    through: tuple[tuple[str, ...], tuple[str, ...]]  # one play written in each style, English then French
    through_figures: tuple[Figure, Figure]
    partial: tuple[str, str]  # the new tile alone, which is refused: the whole word must be written
    scores: tuple[ScoreExample, ...]
    rank_scores: tuple[int, ...]
    rank_example: tuple[int, int, int]  # a play's score, its rank, of how many
    percentage_example: tuple[int, int, Fraction, Decimal]  # total, top total, exact value, the figure shown
    percentage_without_top: Decimal  # the percentage while the top total is 0
    tie_totals: tuple[int, ...]
    tie_ranks: tuple[int, ...]
    example: GameResults
    covers: dict[tuple[int, str], Cover]
    with_bonus: GameResults  # the same game in a room large enough for the solo bonus
    correction: Correction
    corrected: GameResults


def _premium(rules: Ruleset, row: int, col: int) -> str:
    layout = rules.layout
    index = row * layout.size + col
    if index == layout.start:
        return "start"
    word, letter = layout.word_multipliers[index], layout.letter_multipliers[index]
    return {3: "tw", 2: "dw"}.get(word) or {3: "tl", 2: "dl"}.get(letter, "")


def _labels(notation: Notation, rows: range, columns: range) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Column and row labels: English names columns by letters, French names rows by letters (§5.1)."""
    if notation == "english":
        return _letters(columns), _numbers(rows)
    return _numbers(columns), _letters(rows)


def _letters(span: range) -> tuple[str, ...]:
    return tuple(chr(ord("A") + i) for i in span)


def _numbers(span: range) -> tuple[str, ...]:
    return tuple(str(i + 1) for i in span)


def excerpt(rules: Ruleset, board: Board, move: Move, notation: Notation, margin: int = 1) -> Excerpt:
    """The play's squares and ``margin`` squares around them, after the play."""
    dr, dc = (0, 1) if move.horizontal else (1, 0)
    last = len(move.word) - 1
    size = board.size
    rows = range(max(0, move.row - margin), min(size, move.row + dr * last + margin + 1))
    columns = range(max(0, move.col - margin), min(size, move.col + dc * last + margin + 1))
    after = board.copy()
    after.place(move.tiles)
    new = {(t.row, t.col) for t in move.tiles}
    cells = tuple(
        tuple(
            Cell(
                "" if after.at(r, c) == "." else after.at(r, c),
                0 if after.at(r, c) == "." else rules.tileset.value(after.at(r, c)),
                _premium(rules, r, c),
                (r, c) in new,
            )
            for c in columns
        )
        for r in rows
    )
    column_labels, row_labels = _labels(notation, rows, columns)
    return Excerpt(column_labels, row_labels, cells)


def figure(rules: Ruleset, board: Board, written: str, notation: Notation) -> Figure:
    move = parse_move(written, board, notation)
    columns, rows = _labels(notation, range(move.row, move.row + 1), range(move.col, move.col + 1))
    return Figure(written, notation, move.horizontal, rows[0], columns[0], excerpt(rules, board, move, notation))


def breakdown(rules: Ruleset, board: Board, move: Move) -> tuple[tuple[WordSum, ...], int]:
    """Each word's sum as §4.1 writes it, and the bingo bonus: the engine's own words, term by term."""
    _score, words = score_move(board, rules, move)
    new = {(t.row, t.col): t for t in move.tiles}
    size = rules.layout.size
    sums = []
    for word in words:
        terms, multiplier = [], 1
        for r, c in word.squares:
            tile = new.get((r, c))
            letter = tile.char if tile is not None else board.at(r, c)
            premium = rules.layout.letter_multipliers[r * size + c] if tile is not None else 1
            if tile is not None:
                multiplier *= rules.layout.word_multipliers[r * size + c]
            terms.append(Term(letter, rules.tileset.value(letter), premium, tile is None))
        subtotal = sum(t.value * t.multiplier for t in terms)
        sums.append(WordSum(word.text, tuple(terms), subtotal, multiplier, word.score))
    bingo = rules.bingo_bonus if len(move.tiles) == rules.rack_size else 0
    return tuple(sums), bingo


def score_example(rules: Ruleset, english: str, before: str = "") -> ScoreExample:
    board = Board.empty(rules)
    written = ("", "")
    if before:
        placed = parse_move(before, board, "english")
        board.place(placed.tiles)
        written = (before, format_move(placed, "french"))
    move = parse_move(english, board, "english")
    check_placement(board, rules, move)
    score, _words = score_move(board, rules, move)
    words, bingo = breakdown(rules, board, move)
    return ScoreExample(english, format_move(move, "french"), written, words, bingo, score)


def _spread(*counts: tuple[int, int]) -> tuple[int, ...]:
    """A round's legal plays' scores from (score, how many plays) pairs."""
    return tuple(score for score, n in counts for _ in range(n))


def _play(player: str, score: int, valid: bool = True) -> Submission:
    return Submission(player, "", score, valid)  # the words are not the example's point


def example_rounds() -> tuple[RoundRecord, ...]:
    """Three rounds, three players: a replaced play, a word not in the lexicon, a round without a play, two solos."""
    anne, bruno, chloe = PLAYERS
    return (
        RoundRecord(
            1,
            30,
            _spread((30, 2), (27, 1), (24, 3), (22, 6), (20, 15), (16, 40), (12, 120)),
            (_play(anne, 30), _play(bruno, 22), _play(chloe, 30), _play(bruno, 24)),
        ),
        RoundRecord(
            2,
            50,
            _spread((50, 1), (41, 2), (36, 4), (30, 10), (26, 25), (18, 60), (10, 150)),
            (_play(bruno, 26), _play(anne, 50), _play(chloe, 41, valid=False)),
        ),
        RoundRecord(
            3,
            42,
            _spread((42, 1), (38, 3), (35, 5), (28, 20), (20, 80), (12, 100)),
            (_play(chloe, 38), _play(bruno, 42)),
        ),
    )


def _covers(rounds: tuple[RoundRecord, ...]) -> dict[tuple[int, str], Cover]:
    covers = {}
    for record in rounds:
        for player in PLAYERS:
            mine = [s for s in record.submissions if s.player == player]
            refused = mine[-1].score if mine and not mine[-1].valid else None
            covers[record.number, player] = Cover(player, tuple(s.score for s in mine[:-1]), refused)
    return covers


@cache
def guide() -> Guide:
    rules = ruleset(RULES)
    empty = Board.empty(rules)
    first = parse_move(FIRST, empty, "english")
    start = (first.row, first.col)
    notation = tuple(
        figure(rules, empty, f"{format_coordinate(*start, across, written)} {first.word}", written)
        for written in ("english", "french")
        for across in (True, False)
    )
    blank = first.word[0].lower() + first.word[1:]  # the same play with a blank for its first letter
    with_first = empty.copy()
    with_first.place(first.tiles)
    hooked = parse_move(f"{FIRST}S", with_first, "english")
    styles: tuple[ThroughStyle, ...] = ("plain", "parens", "dot")
    through = tuple(tuple(format_move(hooked, n, style) for style in styles) for n in ("english", "french"))
    hook = hooked.tiles[0]
    solo = SoloRule(_default("solo_bonus"), _default("solo_min_players"))
    rounds = example_rounds()
    # Chloé's round 2 play was refused for a word the director then finds in the lexicon: it counts as placed.
    refused = next(s for s in rounds[1].submissions if not s.valid)
    correction = Correction(refused.player, rounds[1].number, refused.score, "word wrongly refused")
    rank_scores = (30, 30, 24, 22, 22, 20, 18, 12)
    rank_record = RoundRecord(1, rank_scores[0], rank_scores)
    return Guide(
        rules=rules,
        draw=DrawRule(),
        round_seconds=_default("round_seconds"),
        reveal_seconds=_default("reveal_seconds"),
        solo_bonus=solo.bonus,
        solo_min_players=solo.min_players,
        warnings_free=_default("warnings_before_penalty"),
        warning_penalty=_default("warning_penalty"),
        notation=notation,
        same_text=notation[0].written,
        blank=(
            f"{format_coordinate(*start, True, 'english')} {blank}",
            f"{format_coordinate(*start, True, 'french')} {blank}",
            first.word[0],
        ),
        through=(through[0], through[1]),
        through_figures=(
            figure(rules, with_first, through[0][0], "english"),
            figure(rules, with_first, through[1][0], "french"),
        ),
        partial=(
            f"{format_coordinate(hook.row, hook.col, True, 'english')} {hook.char}",
            f"{format_coordinate(hook.row, hook.col, True, 'french')} {hook.char}",
        ),
        scores=(
            score_example(rules, FIRST),
            score_example(rules, f"{format_coordinate(*start, True, 'english')} {blank}"),
            score_example(rules, "8B ORIENTS"),
            score_example(rules, "7G HOP", before=FIRST),
        ),
        rank_scores=rank_scores,
        rank_example=(24, rank_record.rank(24), rank_record.plays),
        # 98.625: the third decimal is a 5, rounded up to 98.63 (where Python's round() on a float gives 98.62).
        percentage_example=(789, 800, Fraction(100 * 789, 800), percentage(789, 800)),
        percentage_without_top=percentage(0, 0),
        tie_totals=(512, 498, 498, 470),
        tie_ranks=tuple(shared_ranks((512, 498, 498, 470))),
        example=score_game(rounds, PLAYERS, solo_rule=solo),
        covers=_covers(rounds),
        with_bonus=score_game(rounds, PLAYERS, solo_rule=solo, active=solo.min_players),
        correction=correction,
        corrected=score_game(rounds, PLAYERS, [correction], solo_rule=solo),
    )
