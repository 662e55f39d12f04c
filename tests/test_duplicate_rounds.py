"""The round lifecycle as pure functions of plain values (trainer/duplicate/rounds.py, docs/rules.md §6).

The service (tests/test_games_service.py) runs the same functions against a database; here each rule
is checked on its own, with the clock in the test's hands.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from trainer.duplicate.draw import DrawRule, EndReason
from trainer.duplicate.errors import RuleError
from trainer.duplicate.mode import BEST_WORDS_KEPT
from trainer.duplicate.rounds import (
    GameEnd,
    GameState,
    GameStatus,
    OpenedRound,
    PlayedRound,
    Position,
    RoundClock,
    RoundStatus,
    Setup,
    check_advance,
    check_close_now,
    check_end,
    check_start,
    choose_top,
    closes_at,
    correction,
    deadline_of,
    extend,
    judge,
    judge_round,
    next_round,
    pause,
    place,
    replay,
    resume,
    reveal_until,
)
from trainer.engine.board import Board, Move
from trainer.engine.errors import EngineError
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import generate_moves, summarise_moves
from trainer.engine.notation import format_move
from trainer.engine.rules import Ruleset

NOW = datetime(2026, 11, 23, 20, 0, tzinfo=UTC)
DEADLINE = NOW + timedelta(seconds=80)


def _playing(status: GameStatus = GameStatus.PLAYING, clock: RoundClock | None = None) -> GameState:
    return GameState(status, 1, clock or RoundClock(1, RoundStatus.OPEN, DEADLINE))


class _Code:
    """``with _Code("not_running"):`` expects a RuleError with that code."""

    def __init__(self, code: str) -> None:
        self.code = code

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: object, error: object, _tb: object) -> bool:
        assert isinstance(error, RuleError), f"expected RuleError {self.code!r}, got {error!r}"
        assert error.code == self.code, (error.code, str(error))
        return True


def test_the_clock_counts_down_to_the_deadline_and_stops_when_paused() -> None:
    """§6.6: a round closes at its deadline; a paused round keeps its seconds left and never closes by itself."""
    clock = RoundClock(1, RoundStatus.OPEN, DEADLINE)
    assert clock.seconds_left(NOW) == 80 and not clock.due(NOW)
    assert clock.seconds_left(DEADLINE + timedelta(seconds=5)) == 0
    assert not clock.due(DEADLINE) and clock.due(closes_at(DEADLINE))  # settled: a play may still be on its way
    paused = RoundClock(1, RoundStatus.PAUSED, None, 42.5)
    assert paused.seconds_left(NOW) == 42.5 and not paused.due(NOW + timedelta(days=1))
    assert RoundClock(1, RoundStatus.CLOSED).seconds_left(NOW) is None
    naive = RoundClock(1, RoundStatus.OPEN, DEADLINE.replace(tzinfo=None))  # as SQLite hands it back: UTC
    assert naive.seconds_left(NOW) == 80
    assert deadline_of(NOW, 180) == NOW + timedelta(seconds=180)


def test_pause_resume_and_more_time_as_docs_rules_6_6_works_them_out() -> None:
    """The worked example of §6.6: a 180 s round paused at 100 s (80 s left), given 20 s more while paused and
    resumed at 700 s, ends at 800 s."""
    started = NOW
    state = _playing(clock=RoundClock(1, RoundStatus.OPEN, started + timedelta(seconds=180)))
    left = pause(state, started + timedelta(seconds=100))
    assert left == 80
    paused = GameState(GameStatus.PAUSED, 1, RoundClock(1, RoundStatus.PAUSED, None, left))
    more = extend(paused, 20, started + timedelta(seconds=300))
    assert (more.status, more.deadline, more.paused_left) == (RoundStatus.PAUSED, None, 100)
    resumed = GameState(GameStatus.PAUSED, 1, more)
    assert resume(resumed, started + timedelta(seconds=700)) == started + timedelta(seconds=800)
    running = extend(_playing(), 30, NOW)
    assert running.deadline == DEADLINE + timedelta(seconds=30) and running.status is RoundStatus.OPEN


@pytest.mark.parametrize(
    ("transition", "state", "code"),
    [
        (lambda s: pause(s, NOW), _playing(GameStatus.PAUSED), "not_running"),
        (lambda s: pause(s, NOW), GameState(GameStatus.REVEALING, 1, RoundClock(1, RoundStatus.CLOSED)), "not_running"),
        (lambda s: resume(s, NOW), _playing(), "not_paused"),
        (
            lambda s: extend(s, 30, NOW),
            GameState(GameStatus.REVEALING, 1, RoundClock(1, RoundStatus.CLOSED)),
            "not_running",
        ),
        (lambda s: extend(s, 30, NOW), GameState(GameStatus.LOBBY), "not_running"),
        (lambda s: extend(s, 0, NOW), _playing(), "bad_seconds"),
        (lambda s: extend(s, 3601, NOW), _playing(), "bad_seconds"),
        (lambda s: extend(s, True, NOW), _playing(), "bad_seconds"),
        (lambda s: extend(s, "30", NOW), _playing(), "bad_seconds"),
        (check_close_now, GameState(GameStatus.REVEALING, 1, RoundClock(1, RoundStatus.CLOSED)), "not_running"),
        (check_close_now, GameState(GameStatus.LOBBY), "not_running"),
        (check_advance, _playing(), "not_revealing"),
        (check_start, _playing(), "already_started"),
        (check_end, GameState(GameStatus.FINISHED, 3), "game_finished"),
    ],
)
def test_a_transition_the_state_does_not_allow_is_refused_by_name(
    transition: Callable[[GameState], object], state: GameState, code: str
) -> None:
    with _Code(code):
        transition(state)


def test_what_the_state_allows() -> None:
    check_start(GameState(GameStatus.LOBBY))
    check_advance(GameState(GameStatus.REVEALING, 1, RoundClock(1, RoundStatus.CLOSED)))
    check_end(GameState(GameStatus.LOBBY))
    assert check_close_now(_playing()).number == 1
    assert check_close_now(GameState(GameStatus.PAUSED, 1, RoundClock(1, RoundStatus.PAUSED, None, 3.0))).number == 1
    assert reveal_until(NOW, 30) == NOW + timedelta(seconds=30) and reveal_until(NOW, None) is None


def test_another_top_only_a_top_and_only_during_its_reveal() -> None:
    """§6.8: the director may place another of the round's tops until the next round starts."""
    revealing = GameState(GameStatus.REVEALING, 2, RoundClock(2, RoundStatus.CLOSED))
    tops = ["8D HUMBLE", "H4 HUMBLE"]
    assert choose_top(revealing, 2, "H4 HUMBLE", tops) == "H4 HUMBLE"
    with _Code("not_a_top"):
        choose_top(revealing, 2, "8D HUMBLES", tops)
    with _Code("not_revealing"):
        choose_top(revealing, 1, "H4 HUMBLE", tops)  # an earlier round
    with _Code("not_revealing"):
        choose_top(_playing(), 1, "H4 HUMBLE", tops)


def test_a_correction_says_its_score_and_why() -> None:
    """§6.12: a correction sets the score that counts (0-10000) and must give a reason."""
    assert correction(12, "  misread bulletin ") == (12, "misread bulletin")
    for score in (-1, 10_001, True, "12", None):
        with _Code("bad_score"):
            correction(score, "why")
    for reason in ("", "   ", None, 3):
        with _Code("reason_missing"):
            correction(12, reason)


def _setup(rules: Ruleset, lexicon: Lexicon, max_rounds: int | None = None) -> Setup:
    return Setup(rules, lexicon, rules.notation, DrawRule(), 2026, max_rounds)


def test_the_server_and_a_simulation_open_the_same_rounds(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    """Drawn again from the seed after the rounds stored, a round opens as the in-memory game opens it."""
    from trainer.duplicate.rounds import DuplicateGame

    setup = _setup(en_rules, en_lexicon)
    game = DuplicateGame(setup)
    played: list[PlayedRound] = []
    cells = "".join(Board.empty(en_rules).cells)
    for _ in range(3):
        opened = next_round(setup, played, cells)
        assert isinstance(opened, OpenedRound)
        draw = game.start_round()
        assert draw == opened.draw and list(opened.analysis.tops) == game.tops
        assert sum(count for _score, count in opened.analysis.score_counts) == len(
            generate_moves(setup.board(cells), en_rules, en_lexicon, draw.rack)
        )
        placed = opened.tops(setup.notation)[0]
        played.append(PlayedRound(opened.number, draw.rack, cells, placed))
        cells, reliquat = place(setup, cells, placed, draw.rack)
        assert game.place().reliquat == reliquat and "".join(game.board.cells) == cells
    bag, reliquat = replay(setup, played)
    assert (bag.tiles, reliquat) == (game.bag.tiles, game.reliquat)


def test_a_stored_game_the_seed_does_not_draw_is_never_guessed(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    setup = _setup(en_rules, en_lexicon)
    cells = "".join(Board.empty(en_rules).cells)
    opened = next_round(setup, [], cells)
    assert isinstance(opened, OpenedRound)
    other = "".join(sorted(opened.draw.rack))[::-1].replace(opened.draw.rack[0], "Z", 1)
    with pytest.raises(ValueError, match="the seed draws"):
        replay(setup, [PlayedRound(1, other, cells, opened.tops(setup.notation)[0])])


def test_the_number_of_rounds_ends_the_game(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    setup = _setup(en_rules, en_lexicon, max_rounds=1)
    cells = "".join(Board.empty(en_rules).cells)
    first = next_round(setup, [], cells)
    assert isinstance(first, OpenedRound)
    placed = first.tops(setup.notation)[0]
    after, _reliquat = place(setup, cells, placed, first.draw.rack)
    ended = next_round(setup, [PlayedRound(1, first.draw.rack, cells, placed)], after)
    assert ended == GameEnd(EndReason.ROUND_LIMIT) and ended.reason.value == "max_rounds"


def test_each_last_play_is_judged_and_ranked_among_every_legal_play(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    """§6.9 and §6.10: a valid play scores its value and ranks 1 + the legal plays scoring more; a play whose
    words are not in the lexicon scores 0 and has no rank."""
    board = Board.empty(en_rules)
    rack = "AEINRST"
    position = Position(en_rules, en_lexicon, "english", board, rack)
    moves = generate_moves(board, en_rules, en_lexicon, rack)
    counts: dict[int, int] = {}
    for move in moves:
        counts[move.score or 0] = counts.get(move.score or 0, 0) + 1
    score_counts = sorted(counts.items(), reverse=True)
    top = max(moves, key=lambda m: m.score or 0)
    lesser = min(moves, key=lambda m: m.score or 0)
    judged = judge_round(
        position, {"ann": format_move(top), "bob": format_move(lesser), "cy": "8D NIRSTAE"}, score_counts
    )
    assert (judged["ann"].score, judged["ann"].rank, judged["ann"].valid) == (top.score, 1, True)
    better = sum(count for score, count in score_counts if score > (lesser.score or 0))
    assert (judged["bob"].score, judged["bob"].rank) == (lesser.score, 1 + better)
    assert (judged["cy"].score, judged["cy"].valid, judged["cy"].rank) == (0, False, None)
    assert judged["cy"].invalid_words == ("NIRSTAE",)
    # A play handed in is judged on its placement only, written canonically, scored as placed (§4.2).
    assert judge(position, "8d RETAINS") == ("8D RETAINS", 66)  # R on D8 (double letter), H8 doubles, +50
    with pytest.raises(EngineError, match="no Q"):
        judge(position, "8D QI")


def best_distinct_words(moves: list[Move], words: int) -> list[Move]:
    """Every top, then the best placement of each of the ``words`` best other words (docs/rules.md §6.1)."""
    ranked = sorted(moves, key=lambda m: -(m.score or 0))
    tops = [m for m in ranked if m.score == ranked[0].score]
    seen = {m.word.upper() for m in tops}
    others: list[Move] = []
    for move in ranked[len(tops) :]:
        if len(others) < words and move.word.upper() not in seen:
            seen.add(move.word.upper())
            others.append(move)
    return tops + others


def test_a_round_keeps_the_same_summary_without_building_every_play(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    """Issue 14: a two-blank opening built 20,000-40,000 play objects in the server when the round keeps the
    tops, the next best and a score count. The summary is what every play would give, built for the kept."""
    positions = json.loads((Path(__file__).resolve().parent.parent / "bench" / "positions.json").read_text())
    chosen = [p for p in positions if p["rules"] == "en"][:6]
    cases = [(Board.empty(en_rules), "AE??RST"), (Board.empty(en_rules), "QZXJKVW")]
    cases += [(Board(en_rules.layout, list("".join(p["board"]))), p["rack"]) for p in chosen]
    cases.append((cases[-1][0], "E?S?T"))  # two blanks on a midgame board
    for board, rack in cases:
        moves = generate_moves(board, en_rules, en_lexicon, rack)
        summary = summarise_moves(board, en_rules, en_lexicon, rack, BEST_WORDS_KEPT)
        if not moves:
            assert summary is None
            continue
        assert summary is not None
        top = max(m.score or 0 for m in moves)
        assert summary.tops == [m for m in moves if m.score == top], rack
        assert summary.score_counts == sorted(Counter(m.score or 0 for m in moves).items(), reverse=True), rack
        assert summary.best == best_distinct_words(moves, BEST_WORDS_KEPT), rack
        assert sum(count for _score, count in summary.score_counts) == len(moves)
