"""The round lifecycle on a real database (SQLite and PostgreSQL): transitions, races, the sweep."""

from __future__ import annotations

import os
import threading
from collections import Counter
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import select

from trainer.core import accounts
from trainer.core.database import db
from trainer.core.errors import Refused
from trainer.core.lexicons import lexicon_store
from trainer.duplicate import rounds
from trainer.duplicate.draw import reliquat_after
from trainer.duplicate.rounds import SETTLE
from trainer.engine.board import Board
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move, parse_move
from trainer.engine.rules import ruleset
from trainer.games import scheduler, service
from trainer.games.analyst import KEY as ANALYST_KEY
from trainer.games.analyst import Analyst
from trainer.games.models import Correction, Event, Game, Player, Result, Round, Submission
from trainer.games.service import AcceptedPlay, PendingPlay
from trainer.http.errors import status_of


def _game(app: Flask, **settings: object) -> tuple[int, list[tuple[int, str]]]:
    """A started game with three players: (game id, [(player id, name)])."""
    with app.app_context():
        director = accounts.create_director("ann", "password1")
        game = service.create_game(director, {"seed": 10**19 + 7, "reveal_seconds": 30, **settings})
        players = [service.join_game(game.join_code, name)[0] for name in ("Bob", "Cy", "Di")]
        service.start_game(game, "ann")
        return game.id, [(p.id, p.name) for p in players]


def _round(game_id: int, number: int) -> Round:
    return db.session.execute(select(Round).where(Round.game_id == game_id, Round.number == number)).scalar_one()


def _lesser_play(round_: Round) -> str:
    """A legal play scoring less than the top, found independently of the stored tops."""
    rules = ruleset("en")
    board = Board(rules.layout, list(round_.board_before))
    moves = generate_moves(board, rules, lexicon_store().load("en"), round_.rack)
    lesser = min((m for m in moves if (m.score or 0) < (round_.top_score or 0)), key=lambda m: m.score or 0)
    return format_move(lesser, "english")


def test_a_round_closes_once_at_its_deadline_and_the_next_starts_after_the_pause(app: Flask) -> None:
    game_id, players = _game(app)
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None and game.status == "playing" and game.round_number == 1
        first = _round(game_id, 1)
        assert first.deadline is not None and (first.deadline - first.started_at) == timedelta(seconds=180)
        deadline = first.deadline
        bob = db.session.get(Player, players[0][0])
        assert bob is not None and first.tops
        service.submit(game, bob, 1, first.tops[0], deadline - timedelta(seconds=1))
        assert not service.close_round(game_id, 1, "test", deadline - timedelta(seconds=1))  # not due yet
        assert service.close_round(game_id, 1, "test", deadline)
        assert not service.close_round(game_id, 1, "test", deadline + timedelta(seconds=1))  # never twice
        db.session.expire_all()
        game = db.session.get(Game, game_id)
        assert game is not None and game.status == "revealing"
        assert game.next_round_at == deadline + timedelta(seconds=30)
        assert service.due_work(deadline + timedelta(seconds=29)) == []
        assert service.due_work(deadline + timedelta(seconds=30)) == [("next", game_id, 1)]
        assert service.next_round(game_id, 1, "test", deadline + timedelta(seconds=30))
        assert not service.next_round(game_id, 1, "test", deadline + timedelta(seconds=31))
        second = _round(game_id, 2)
        placed = parse_move(first.tops[0], Board(ruleset("en").layout, list(first.board_before)), "english")
        assert second.reliquat == reliquat_after(first.rack, placed)
        assert Counter(second.reliquat) <= Counter(second.rack) or second.draw_record.startswith("-")
        kinds = [
            e.kind
            for e in db.session.execute(select(Event).where(Event.game_id == game_id).order_by(Event.id)).scalars()
        ]
        assert kinds == [
            "created",
            "joined",
            "joined",
            "joined",
            "round_started",
            "submission",
            "round_closed",
            "round_started",
        ]


def test_two_closers_at_once_close_the_round_exactly_once(app: Flask) -> None:
    game_id, _ = _game(app)
    with app.app_context():
        deadline = _round(game_id, 1).deadline
        assert deadline is not None
    outcomes: list[bool] = []

    def close() -> None:
        with app.app_context():
            outcomes.append(service.close_round(game_id, 1, "racer", deadline + timedelta(seconds=1)))
            db.session.remove()

    threads = [threading.Thread(target=close) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(outcomes) == [False, False, False, True]
    with app.app_context():
        closes = db.session.execute(select(Event).where(Event.game_id == game_id, Event.kind == "round_closed")).all()
        assert len(closes) == 1


def test_every_accepted_submission_counts_even_when_it_races_the_close(app: Flask) -> None:
    game_id, players = _game(app)
    with app.app_context():
        first = _round(game_id, 1)
        assert first.deadline is not None and first.tops
        deadline, top = first.deadline, first.tops[0]
    accepted: dict[int, int] = Counter()
    refused: list[int] = []
    start = threading.Barrier(len(players) + 1)

    def player(player_id: int) -> None:
        with app.app_context():
            game = db.session.get(Game, game_id)
            me = db.session.get(Player, player_id)
            assert game is not None and me is not None
            start.wait()
            for _ in range(20):
                try:
                    service.submit(game, me, 1, top, deadline - timedelta(milliseconds=1))
                    accepted[player_id] += 1
                except Refused as exc:
                    assert status_of(exc) == 409, str(exc)
                    refused.append(player_id)
                    break
            db.session.remove()

    def closer() -> None:
        with app.app_context():
            start.wait()
            assert service.close_round(game_id, 1, "racer", deadline, early=True)
            db.session.remove()

    threads = [threading.Thread(target=player, args=(pid,)) for pid, _ in players] + [threading.Thread(target=closer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    with app.app_context():
        round_id = _round(game_id, 1).id
        stored = Counter(
            s.player_id for s in db.session.execute(select(Submission).where(Submission.round_id == round_id)).scalars()
        )
        judged = {r.player_id for r in db.session.execute(select(Result).where(Result.round_id == round_id)).scalars()}
    assert stored == accepted  # every "accepted" answer is on disk, nothing else is
    assert judged == {pid for pid, n in accepted.items() if n}  # and every player who got one is judged


def test_pause_keeps_the_time_left_and_extend_adds_to_it(app: Flask) -> None:
    game_id, _ = _game(app)
    with app.app_context():
        game = db.session.get(Game, game_id)
        first = _round(game_id, 1)
        assert game is not None and first.deadline is not None
        t0 = first.deadline - timedelta(seconds=100)
        service.pause(game, "ann", t0)
        assert game.status == "paused" and service.seconds_left(_round(game_id, 1)) == pytest.approx(100)
        assert service.due_work(first.started_at + timedelta(hours=1)) == []  # a paused round never closes
        service.extend(game, 20, "ann", t0)
        service.resume(game, "ann", t0 + timedelta(minutes=10))
        resumed = _round(game_id, 1)
        assert resumed.deadline == t0 + timedelta(minutes=10, seconds=120)
        service.extend(game, 5, "ann", t0 + timedelta(minutes=10))
        assert _round(game_id, 1).deadline == t0 + timedelta(minutes=10, seconds=125)
        with pytest.raises(Refused, match="'seconds' must be a whole number"):
            service.extend(game, 0, "ann")


def test_late_and_malformed_plays_are_refused_with_the_reason(app: Flask) -> None:
    game_id, players = _game(app)
    with app.app_context():
        game = db.session.get(Game, game_id)
        bob = db.session.get(Player, players[0][0])
        first = _round(game_id, 1)
        assert game is not None and bob is not None and first.deadline is not None
        with pytest.raises(Refused) as refused:
            service.submit(game, bob, 1, "8D", first.started_at)
        assert status_of(refused.value) == 422 and "expected a coordinate and a word" in str(refused.value)
        with pytest.raises(Refused) as late:
            service.submit(game, bob, 1, first.tops[0] if first.tops else "", first.deadline)
        assert status_of(late.value) == 409 and "closed" in str(late.value)
        assert db.session.execute(select(Submission)).first() is None


def test_the_sweep_closes_overdue_rounds_as_after_a_restart(app: Flask) -> None:
    game_id, players = _game(app, round_seconds=10)
    with app.app_context():
        first = _round(game_id, 1)
        game = db.session.get(Game, game_id)
        bob = db.session.get(Player, players[0][0])
        assert game is not None and bob is not None and first.tops and first.deadline is not None
        service.submit(game, bob, 1, first.tops[0])
        # The server was down when the deadline passed: move it into the past, as the clock would.
        first.deadline = service.utcnow() - timedelta(seconds=5)
        db.session.commit()
    runner = scheduler.RoundScheduler(app)
    try:
        assert scheduler.sweep(runner.app_key) == 1
        assert scheduler.sweep(runner.app_key) == 0
    finally:
        runner.shutdown()
    with app.app_context():
        closed = _round(game_id, 1)
        assert closed.status == "closed"
        result = db.session.execute(select(Result).where(Result.round_id == closed.id)).scalar_one()
        assert (result.player_id, result.score, result.valid) == (players[0][0], closed.top_score, True)


def test_same_seed_same_plays_same_draws(app: Flask) -> None:
    racks = []
    for name in ("first", "second"):
        with app.app_context():
            director = accounts.create_director(name, "password1")
            game = service.create_game(director, {"seed": 10**19 + 2026, "max_rounds": 3})
            service.start_game(game, name)
            now = service.utcnow()
            for number in (1, 2, 3):
                assert service.close_round(game.id, number, "test", now, early=True)
                service.next_round(game.id, number, "test", now)
            db.session.expire_all()
            game = db.session.get(Game, game.id)
            assert game is not None and game.status == "finished" and game.end_reason == "max_rounds"
            racks.append([(r.rack, r.draw_record, r.placed_move) for r in game.rounds])
    assert racks[0] == racks[1] and len(racks[0]) == 3


def test_the_director_may_place_another_top_until_the_next_round(app: Flask) -> None:
    game_id, _ = _game(app)
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        first = _round(game_id, 1)
        assert service.close_round(game_id, 1, "test", service.utcnow(), early=True)
        db.session.expire_all()
        tops = first.tops or []
        with pytest.raises(Refused) as wrong:
            service.choose_top(game, 1, "8A NOPE", "ann")
        assert status_of(wrong.value) == 422
        assert len(tops) > 1, "this seed's first rack has several tops"
        service.choose_top(game, 1, tops[1], "ann")
        board = Board(ruleset("en").layout, list(first.board_before))
        board.place(parse_move(tops[1], board, "english").tiles)
        assert db.session.get(Game, game_id).board == "".join(board.cells)  # type: ignore[union-attr]
        service.next_round(game_id, 1, "test", service.utcnow())
        with pytest.raises(Refused):
            service.choose_top(game, 1, tops[0], "ann")


def test_corrections_apply_on_top_of_the_original(app: Flask) -> None:
    game_id, players = _game(app, solo_min_players=1)
    with app.app_context():
        game = db.session.get(Game, game_id)
        first = _round(game_id, 1)
        bob = db.session.get(Player, players[0][0])
        cy = db.session.get(Player, players[1][0])
        assert game is not None and bob is not None and cy is not None and first.tops
        service.submit(game, bob, 1, first.tops[0])
        lesser = _lesser_play(first)
        service.submit(game, cy, 1, lesser)
        assert service.close_round(game_id, 1, "test", service.utcnow(), early=True)
        before = service.results(game)
        standing = {s.player: s for s in before.standings}
        assert standing["Bob"].total == (first.top_score or 0) + 10  # solo bonus with one active player needed
        service.correct(game, 1, cy.id, first.top_score, "misread tile on the slip", "ann")
        after = service.results(game)
        row = after.rounds[0].players["Cy"]
        assert (row.score, row.top, row.original) == (first.top_score, True, row.original)
        assert not after.rounds[0].players["Bob"].solo  # two players now share the top
        assert db.session.execute(select(Correction)).scalar_one().reason == "misread tile on the slip"
        kept = db.session.execute(select(Submission).where(Submission.player_id == cy.id)).scalar_one()
        assert kept.move == lesser  # the submission itself is never overwritten


def test_a_finished_game_refuses_new_players(app: Flask) -> None:
    with app.app_context():
        director = accounts.create_director("zed", "password1")
        game = service.create_game(director, {"max_rounds": 1})
        service.start_game(game, "zed")
        now: datetime = service.utcnow()
        service.close_round(game.id, 1, "test", now, early=True)
        service.next_round(game.id, 1, "test", now)
        with pytest.raises(Refused) as refused:
            service.join_game(game.join_code, "Late")
        assert status_of(refused.value) == 409


def test_a_round_closes_once_its_deadline_has_settled_and_counts_every_play_that_arrived_before_it(
    app: Flask,
) -> None:
    """docs/rules.md §6.6: the clock closes a round SETTLE after its deadline, so that a play which arrived before
    the deadline and is still being written counts; a play that arrived at or after the deadline does not."""
    game_id, players = _game(app)
    with app.app_context():
        first = _round(game_id, 1)
        assert first.deadline is not None and first.tops
        deadline = first.deadline
        assert service.due_work(deadline) == []
        assert service.due_work(deadline + SETTLE - timedelta(milliseconds=1)) == []
        assert service.due_work(deadline + SETTLE) == [("close", game_id, 1)]
        game = db.session.get(Game, game_id)
        assert game is not None
        playing = service.round_playing(game, 1)
        move, score = service.judge(playing, first.tops[0])
        (bob_id, bob), (cy_id, cy) = players[0], players[1]
        outcomes = service.store_plays(
            [
                PendingPlay(playing, bob_id, bob, move, score, deadline - timedelta(milliseconds=1)),
                PendingPlay(playing, cy_id, cy, move, score, deadline),
            ]
        )
        assert isinstance(outcomes[0], AcceptedPlay) and isinstance(outcomes[1], Refused)
        assert outcomes[1].code == "round_closed" and status_of(outcomes[1]) == 409
        assert service.close_round(game_id, 1, "scheduler", deadline + SETTLE)
        results = {r.player_id: r for r in db.session.execute(select(Result)).scalars()}
        assert results[bob_id].move == move and results[bob_id].score == score and cy_id not in results


def test_under_the_server_a_rounds_opening_runs_in_a_worker_process(app: Flask) -> None:
    """Finding every play of a two-blank rack held the serving process's interpreter for 0.5-1.1 s, while no play of
    any other game was answered. Under ``tirage serve`` that work runs in a worker process, and gives the same round."""
    worker = Analyst(Path(app.instance_path))
    app.extensions[ANALYST_KEY] = worker
    try:
        game_id, _players = _game(app, seed=10**19 + 2027)
        with app.app_context():
            game = db.session.get(Game, game_id)
            assert game is not None
            first = _round(game_id, 1)
            in_place = rounds.next_round(service.setup_of(game), [], first.board_before)
            assert isinstance(in_place, rounds.OpenedRound)
            assert (first.rack, first.tops) == (in_place.draw.rack, in_place.tops("english"))
            assert first.legal_scores == [list(pair) for pair in in_place.analysis.score_counts]
        assert worker.opened == 1 and worker.worker_pid() != os.getpid()
    finally:
        worker.stop()


class _DirectorChoosesMeanwhile:
    """Works the next round out in place, while the director places another top at that very moment (through
    the real service, in a thread of its own, as a second request would)."""

    def __init__(self, app: Flask, game_id: int, other_top: str) -> None:
        self.app, self.game_id, self.other_top = app, game_id, other_top
        self.boards: list[str] = []

    def next_round(self, spec: object, played: list[rounds.PlayedRound], board: str) -> object:
        self.boards.append(board)
        if len(self.boards) == 1:
            thread = threading.Thread(target=self._choose)
            thread.start()
            thread.join()
        with self.app.app_context():
            game = db.session.get(Game, self.game_id)
            assert game is not None
            return rounds.next_round(service.setup_of(game), played, board)

    def _choose(self) -> None:
        with self.app.app_context():
            game = db.session.get(Game, self.game_id)
            assert game is not None
            service.choose_top(game, 1, self.other_top, "ann")


def test_a_next_round_worked_out_on_a_board_the_director_has_since_changed_is_worked_out_again(app: Flask) -> None:
    """The engine works a round's opening out before anything is written (so no play waits on it); if the
    director placed another top meanwhile, the round opens on the board as it now is, never on the old one."""
    game_id, _ = _game(app)
    with app.app_context():
        first = _round(game_id, 1)
        assert service.close_round(game_id, 1, "test", service.utcnow(), early=True)
        tops = list(first.tops or [])
        assert len(tops) > 1, "this seed's first rack has several tops"
        placed_first = db.session.get(Game, game_id).board  # type: ignore[union-attr]
        meanwhile = _DirectorChoosesMeanwhile(app, game_id, tops[1])
        app.extensions[ANALYST_KEY] = meanwhile
        try:
            assert service.next_round(game_id, 1, "test", service.utcnow())
        finally:
            del app.extensions[ANALYST_KEY]
        db.session.expire_all()
        second = _round(game_id, 2)
        board = Board(ruleset("en").layout, list(first.board_before))
        board.place(parse_move(tops[1], board, "english").tiles)
        assert meanwhile.boards == [placed_first, "".join(board.cells)]
        assert second.board_before == "".join(board.cells) and first.placed_move == tops[1]
