"""Solo duplicate practice (docs/rules.md §6.27), on SQLite and PostgreSQL: an archived club game replayed alone and
the learner placed in the original room's standings, a fresh draw whose rounds are drawn ahead, the clock (a round
that runs out, a late play), an illegal play refused, sessions that are the learner's only, tops hidden until the
round is answered, and a session resumed, through the API and the pages, in English and French.

Expected figures come from the engine and the game's own API (standings, rounds), never from the practice code."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from tests.test_api import Api
from tests.test_api import api as api  # the fixture
from tests.test_pages import csrf_token, text_of
from trainer.core import accounts
from trainer.core.accounts import Director, Learner
from trainer.core.clock import aware, seconds_until
from trainer.core.database import db
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move
from trainer.engine.play import score_move
from trainer.engine.rules import ruleset
from trainer.games import practice, service, solo
from trainer.games.models import PracticeRound, PracticeSession

SEED = 31 * 10**19  # 21 digits
PASSWORD = "password123"


# ---------------------------------------------------------------- helpers

_LEXICON: list[Lexicon] = []


@pytest.fixture(autouse=True)
def _lexicon(en_lexicon: Lexicon) -> None:
    """The English graph the tests' own plays are found with (the session's)."""
    _LEXICON[:] = [en_lexicon]


def _plays(rules_code: str, cells: str, rack: str) -> list[tuple[int, str]]:
    """Every legal play of ``rack`` on ``cells``, best first (the engine's scores)."""
    rules = ruleset(rules_code)
    board = Board(rules.layout, list(cells))
    lexicon = _LEXICON[0]
    moves = {format_move(m): score_move(board, rules, m)[0] for m in generate_moves(board, rules, lexicon, rack)}
    return sorted(((score, move) for move, score in moves.items()), key=lambda p: (-p[0], p[1]))


@dataclass
class Club:
    game_id: int
    join_code: str
    rounds: int


def _club_game(app: Flask, seed: int, plans: dict[str, list[str]], round_seconds: int = 180) -> Club:
    """A club game of alice: each player hands in, round by round, the top ("top"), the lowest legal play ("low")
    or nothing ("none"), as ``plans`` says; the game ends after the plans' rounds."""
    rounds = len(next(iter(plans.values())))
    with app.app_context():
        owner = db.session.execute(select(Director).where(Director.username == "alice")).scalar_one()
        game = service.create_game(
            owner, {"rules": "en", "seed": seed, "reveal_seconds": None, "round_seconds": round_seconds}
        )
        players = {name: service.join_game(game.join_code, name)[0] for name in plans}
        service.start_game(game, "alice")
        for n in range(1, rounds + 1):
            db.session.refresh(game)
            round_ = service.current_round(game)
            assert round_ is not None and round_.number == n
            plays = _plays(game.rules, round_.board_before, round_.rack)
            for name, plan in plans.items():
                if plan[n - 1] == "top":
                    service.submit(game, players[name], n, plays[0][1])
                elif plan[n - 1] == "low":
                    service.submit(game, players[name], n, plays[-1][1])
            service.close_now(game, "alice")
            db.session.refresh(game)
            if n < rounds:
                service.advance(game, "alice")
        db.session.refresh(game)
        if game.status != "finished":
            service.end_game(game, "alice")
        return Club(game.id, game.join_code, rounds)


@pytest.fixture
def club(app: Flask, api: Api) -> None:
    """Directors alice and bruno (the ``api`` fixture's), learners lea and max."""
    with app.app_context():
        accounts.create_learner("lea", PASSWORD)
        accounts.create_learner("max", PASSWORD)


def _token(api: Api, name: str) -> str:
    answer = api.ok("POST", "/api/auth/learner-token", {"username": name, "password": PASSWORD})
    return str(answer["token"])


def _log_in(client: FlaskClient, name: str) -> None:
    answer = client.post(
        "/study/login",
        data={"csrf_token": csrf_token(client, "/study/login"), "username": name, "password": PASSWORD},
    )
    assert answer.status_code == 303


def _cells(state: dict[str, Any]) -> str:
    return "".join(state["round"]["board"])


def _room_totals(api: Api, game_id: int, rounds: int) -> dict[str, int]:
    """Each player's total after ``rounds`` rounds, from the game's own round results (the API, as its director)."""
    director = api.token("alice")
    totals: dict[str, int] = {s["name"]: 0 for s in api.get(f"/api/games/{game_id}/standings")["standings"]}
    for n in range(1, rounds + 1):
        for player in api.get(f"/api/games/{game_id}/rounds/{n}", token=director)["results"]:
            totals[player["name"]] += player["total"]
    return totals


def _expected_place(room: dict[str, int], mine: int) -> tuple[int, int]:
    return 1 + sum(1 for total in room.values() if total > mine), len(room) + 1


def _wait_for_ahead(app: Flask) -> None:
    """Wait until the background work asked so far is done (one worker: a task queued now runs after them)."""
    executor = app.extensions.get("tirage.practice_ahead")
    if executor is not None:
        executor.submit(lambda: None).result(timeout=60)


def _move_clock_back(app: Flask, session_id: int, seconds: float) -> None:
    """The round being played was shown ``seconds`` earlier than it was (its deadline with it): no sleeping."""
    with app.app_context():
        session = db.session.get(PracticeSession, session_id)
        assert session is not None
        round_ = practice.round_of(session, session.round_number)
        assert round_.shown_at is not None
        round_.shown_at -= timedelta(seconds=seconds)
        if round_.deadline is not None:
            round_.deadline -= timedelta(seconds=seconds)
        db.session.commit()


# ---------------------------------------------------------------- a replay and its placement (§6.27)


PLANS = {
    "Ann": ["top", "top", "top"],
    "Bob": ["top", "low", "top"],
    "Cyd": ["low", "low", "low"],
    "Dee": ["none", "top", "low"],
}


def test_a_replay_places_the_learner_in_the_original_standings(api: Api, app: Flask, club: None) -> None:
    """§6.27's example: the learner plays the top, then a lower play, then passes; after each round, and at the end,
    their rank among the room after as many rounds is 1 + the players with more points, of the room and them."""
    game = _club_game(app, SEED + 1, PLANS)
    token = _token(api, "lea")
    state = api.ok("POST", "/api/practice", {"game": game.game_id, "timed": False}, token=token, status=201)
    session_id = state["session"]["id"]
    assert state["session"]["source_game"] == game.game_id and state["session"]["rounds_total"] == game.rounds
    assert state["session"]["timed"] is False and state["round"]["deadline"] is None
    total = 0
    for n, plan in enumerate(["top", "low", "none"], start=1):
        state = api.get(f"/api/practice/{session_id}", token=token)
        assert state["round"]["number"] == n and state["reveal"] is None
        archived = api.get(f"/api/games/{game.game_id}/rounds/{n}")
        assert state["round"]["rack"] == archived["rack"] and state["round"]["board"] == archived["board_before"]
        plays = _plays("en", _cells(state), state["round"]["rack"])
        chosen = {"top": plays[0], "low": plays[-1], "none": (0, "")}[plan]
        state = api.ok("POST", f"/api/practice/{session_id}/answer", {"round": n, "play": chosen[1]}, token=token)
        reveal = state["reveal"]
        assert reveal["tops"] == archived["tops"] and reveal["top_score"] == archived["top_score"] == plays[0][0]
        assert reveal["score"] == chosen[0] and (reveal["play"] is None) == (plan == "none")
        words = {reveal["placed"].split()[-1].upper()}
        for item in reveal["next_best"]:  # distinct words, each below the top, best first
            assert item["score"] < reveal["top_score"] and item["play"].split()[-1].upper() not in words
            words.add(item["play"].split()[-1].upper())
        assert [i["score"] for i in reveal["next_best"]] == sorted(
            (i["score"] for i in reveal["next_best"]), reverse=True
        )
        total += chosen[0]
        room = _room_totals(api, game.game_id, n)
        rank, of = _expected_place(room, total)
        assert (state["placement"]["rank"], state["placement"]["of"], state["placement"]["total"]) == (rank, of, total)
        ours = [line for line in state["placement"]["standings"] if line["you"]]
        assert len(ours) == 1 and ours[0]["rank"] == rank and ours[0]["total"] == total
        state = api.ok("POST", f"/api/practice/{session_id}/next", token=token)
    assert state["session"]["status"] == "finished" and state["round"] is None and state["reveal"] is None
    assert state["session"]["total"] == total and len(state["rounds"]) == 3
    room = _room_totals(api, game.game_id, 3)
    assert room == {s["name"]: s["total"] for s in api.get(f"/api/games/{game.game_id}/standings")["standings"]}
    assert (state["placement"]["rank"], state["placement"]["of"]) == _expected_place(room, total)
    listed = api.get("/api/practice", token=token)["sessions"]
    assert [s["id"] for s in listed] == [session_id] and listed[0]["status"] == "finished"


def test_the_pages_replay_a_game_from_its_archive_page(app: Flask, client: FlaskClient, club: None) -> None:
    """The archive page's button, the round page, the reveal with the next best, and the summary with the learner's
    line in the room's standings: "You would have been 2nd of 5"."""
    game = _club_game(app, SEED + 2, PLANS)
    archive = client.get(f"/archives/{game.game_id}").get_data(as_text=True)
    assert "Replay this game alone (log in)" in text_of(archive)  # not logged in: a link to the login
    _log_in(client, "lea")
    archive = client.get(f"/archives/{game.game_id}").get_data(as_text=True)
    assert "data-replay" in archive and 'action="/practice/replay"' in archive
    answer = client.post(
        "/practice/replay",
        data={"replay-csrf_token": csrf_token(client, "/practice"), "replay-game": str(game.game_id)},
    )
    assert answer.status_code == 303
    url = answer.headers["Location"]
    page = client.get(url).get_data(as_text=True)
    assert "Round 1 of 3" in text_of(page) and 'id="play-form"' in page
    assert 'class="clock' not in page  # untimed: the box was left unticked
    session_id = int(url.rsplit("/", 1)[1])
    token = csrf_token(client, url)
    with app.app_context():
        session = db.session.get(PracticeSession, session_id)
        assert session is not None
        total = 0
        for n in range(1, 4):
            round_ = practice.round_of(session, n)
            plays = _plays("en", round_.board_before, round_.rack)
            play = plays[0] if n != 2 else plays[1]
            assert round_.placed_move.split()[-1] not in text_of(client.get(url).get_data(as_text=True))
            answer = client.post(f"{url}/answer", data={"csrf_token": token, "round": str(n), "move": play[1]})
            assert answer.status_code == 303
            reveal = client.get(url).get_data(as_text=True)
            said = text_of(reveal)
            assert f"Round {n}: the top" in said and f"{round_.placed_move} · {round_.top_score} points" in said
            assert "Next best" in said and f"Score {play[0]}" in said
            total += play[0]
            assert f"Your total: {total} of" in said
            assert "So far you would be" in said
            assert client.post(f"{url}/next", data={"csrf_token": token}).status_code == 303
    api = Api(app.test_client())
    room = _room_totals(api, game.game_id, 3)
    rank, of = _expected_place(room, total)
    summary = client.get(url).get_data(as_text=True)
    ordinal = {1: "1st", 2: "2nd", 3: "3rd"}.get(rank, f"{rank}th")
    assert f"You would have been {ordinal} of {of}." in text_of(summary)
    assert f'data-placed="{rank}" data-of="{of}"' in summary and 'class="me" data-you' in summary
    french = client.get(f"{url}?lang=fr").get_data(as_text=True)
    assert f"Vous auriez été {'1er' if rank == 1 else f'{rank}e'} sur {of}." in text_of(french)
    hub = text_of(client.get("/practice?lang=en").get_data(as_text=True))
    assert "Finished" in hub and f"Replay of game {game.join_code}" in hub


def test_stopping_after_a_round_places_the_learner_after_the_rounds_played(
    api: Api, app: Flask, client: FlaskClient, club: None
) -> None:
    """§6.27, stopping: refused while a round is in play (409), taken once it is over; the session is finished with
    the rounds played, and the placement is after those rounds. The pages: "Stop here" on a reveal, and the summary
    says where the learner stopped."""
    game = _club_game(app, SEED + 3, PLANS)
    token = _token(api, "lea")
    state = api.ok("POST", "/api/practice", {"game": game.game_id, "timed": False}, token=token, status=201)
    session_id = state["session"]["id"]
    code, refused = api.call("POST", f"/api/practice/{session_id}/stop", token=token)
    assert code == 409 and "not over" in refused["error"]
    plays = _plays("en", _cells(state), state["round"]["rack"])
    api.ok("POST", f"/api/practice/{session_id}/answer", {"round": 1, "play": plays[0][1]}, token=token)
    state = api.ok("POST", f"/api/practice/{session_id}/stop", token=token)
    assert state["session"]["status"] == "finished" and state["round"] is None and len(state["rounds"]) == 1
    rank, of = _expected_place(_room_totals(api, game.game_id, 1), plays[0][0])
    assert (state["placement"]["rounds"], state["placement"]["rank"], state["placement"]["of"]) == (1, rank, of)
    code, refused = api.call("POST", f"/api/practice/{session_id}/stop", token=token)
    assert code == 409

    _log_in(client, "max")
    started = client.post(
        "/practice/replay",
        data={"replay-csrf_token": csrf_token(client, "/practice"), "replay-game": str(game.game_id)},
    )
    url = started.headers["Location"]
    page = client.get(url).get_data(as_text=True)
    assert "Stop here" not in text_of(page)  # a round in play: answer it first
    with app.app_context():
        session = db.session.get(PracticeSession, int(url.rsplit("/", 1)[1]))
        assert session is not None
        round_ = practice.round_of(session, 1)
        move = _plays("en", round_.board_before, round_.rack)[-1][1]
    token_page = csrf_token(client, url)
    assert client.post(f"{url}/answer", data={"csrf_token": token_page, "round": "1", "move": move}).status_code == 303
    assert "Stop here" in text_of(client.get(url).get_data(as_text=True))
    assert client.post(f"{url}/stop", data={"csrf_token": token_page}).status_code == 303
    summary = text_of(client.get(url).get_data(as_text=True))
    assert "Solo practice: the result" in summary and "You stopped after 1 round." in summary
    french = text_of(client.get(f"{url}?lang=fr").get_data(as_text=True))
    assert "Vous vous êtes arrêté après 1 coup." in french


# ---------------------------------------------------------------- a fresh draw, worked out ahead


def test_a_fresh_draw_works_the_next_round_out_ahead(api: Api, app: Flask, club: None) -> None:
    token = _token(api, "lea")
    state = api.ok(
        "POST", "/api/practice", {"settings": {"rules": "en", "max_rounds": 3, "seed": 5}, "timed": True}, token=token,
        status=201,
    )  # fmt: skip
    session_id = state["session"]["id"]
    assert state["session"]["source_game"] is None and state["session"]["round_seconds"] == 180
    with app.app_context():
        session = db.session.get(PracticeSession, session_id)
        assert session is not None and session.seed != 5  # never the learner's seed (§6.4)
    for n in range(1, 4):
        _wait_for_ahead(app)
        with app.app_context():  # the round after the one shown is stored before it is asked for
            stored = db.session.execute(select(func.count()).where(PracticeRound.session_id == session_id)).scalar_one()
            assert stored == min(n + 1, 3)
        state = api.get(f"/api/practice/{session_id}", token=token)
        assert state["round"]["number"] == n and "tops" not in state["round"]
        assert 179 < state["round"]["seconds_left"] <= 180
        plays = _plays("en", _cells(state), state["round"]["rack"])
        state = api.ok("POST", f"/api/practice/{session_id}/answer", {"round": n, "play": plays[0][1]}, token=token)
        assert state["reveal"]["score"] == state["reveal"]["top_score"] == plays[0][0]
        state = api.ok("POST", f"/api/practice/{session_id}/next", token=token)
    assert state["session"]["status"] == "finished" and state["placement"] is None
    assert state["session"]["total"] == state["session"]["top_total"]


def test_a_fresh_draw_in_the_pages_with_a_joker_variant(app: Flask, client: FlaskClient, club: None) -> None:
    _log_in(client, "lea")
    form = {"fresh-csrf_token": csrf_token(client, "/practice"), "fresh-rules": "en", "fresh-lexicon": "",
            "fresh-variant": "joker", "fresh-preset": "blitz", "fresh-max_rounds": "2", "fresh-timed": "y"}  # fmt: skip
    answer = client.post("/practice/fresh", data=form)
    assert answer.status_code == 303
    page = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert 'class="clock' in page and "1:00" in page and "Joker game" in text_of(page)
    assert '<li class="tile blank" data-letter="?">' in page  # a joker game: a blank in every draw
    wrong = client.post("/practice/fresh", data={**form, "fresh-round_seconds": "30"})  # not the blitz's minute
    assert wrong.status_code == 422 and "data-error" in wrong.get_data(as_text=True)


# ---------------------------------------------------------------- the clock (§6.27, §6.6)


def test_a_timed_round_that_runs_out_is_over_with_no_play(api: Api, app: Flask, club: None) -> None:
    game = _club_game(app, SEED + 3, {"Ann": ["top", "top"], "Bob": ["low", "low"]}, round_seconds=60)
    token = _token(api, "lea")
    state = api.ok("POST", "/api/practice", {"game": game.game_id}, token=token, status=201)
    session_id = state["session"]["id"]
    assert state["round"]["seconds_left"] == pytest.approx(60, abs=1)
    _move_clock_back(app, session_id, 60.5)  # past the deadline, inside its grace of 1.5 s: still open
    assert api.get(f"/api/practice/{session_id}", token=token)["round"] is not None
    _move_clock_back(app, session_id, 1.5)  # 62 s: over
    state = api.get(f"/api/practice/{session_id}", token=token)
    assert state["round"] is None and state["reveal"]["play"] is None and state["reveal"]["score"] == 0
    code, answer = api.call("POST", f"/api/practice/{session_id}/answer", {"round": 1, "play": ""}, token=token)
    assert code == 409 and "answered" in answer["error"]


def test_a_late_play_counts_zero(api: Api, app: Flask, club: None) -> None:
    game = _club_game(app, SEED + 4, {"Ann": ["top"], "Bob": ["low"]}, round_seconds=60)
    token = _token(api, "lea")
    state = api.ok("POST", "/api/practice", {"game": game.game_id}, token=token, status=201)
    session_id = state["session"]["id"]
    plays = _plays("en", _cells(state), state["round"]["rack"])
    _move_clock_back(app, session_id, 60 + 2)
    with app.app_context():  # the play arrives before anything reads the session: the round is still open in the db
        session = db.session.get(PracticeSession, session_id)
        assert session is not None and practice.round_of(session, 1).answered_at is None
    state = api.ok("POST", f"/api/practice/{session_id}/answer", {"round": 1, "play": plays[0][1]}, token=token)
    assert state["reveal"]["late"] is True and state["reveal"]["score"] == 0 and state["session"]["total"] == 0


# ---------------------------------------------------------------- refusals, privacy, resuming


def test_an_illegal_play_is_refused_with_its_reason(api: Api, app: Flask, client: FlaskClient, club: None) -> None:
    """A placement the rules refuse is not taken (the round stays open) and the reason is said: a tile the rack does
    not hold, in English and French, through the API, the form and the page's script."""
    game = _club_game(app, SEED + 5, {"Ann": ["top"]})
    token = _token(api, "lea")
    state = api.ok("POST", "/api/practice", {"game": game.game_id}, token=token, status=201)
    session_id = state["session"]["id"]
    rack = state["round"]["rack"]
    missing = next(letter for letter in "QZXJKWVY" if letter not in rack)
    off_rack = f"8H {rack.replace('?', '')[0]}{missing}"  # through the centre, with a tile the rack lacks
    code, answer = api.call("POST", f"/api/practice/{session_id}/answer", {"round": 1, "play": off_rack}, token=token)
    assert code == 422 and missing in answer["error"]
    assert api.get(f"/api/practice/{session_id}", token=token)["round"] is not None  # nothing counted
    _log_in(client, "lea")
    url = f"/practice/{session_id}"
    data = {"csrf_token": csrf_token(client, url), "round": "1", "move": off_rack}
    page = client.post(f"{url}/answer", data=data)
    assert page.status_code == 422
    assert f"Your rack has no {missing}." in text_of(page.get_data(as_text=True))
    french = client.post(f"{url}/answer?lang=fr", data=data)
    assert f"Votre tirage n’a pas de {missing}." in text_of(french.get_data(as_text=True))
    fetched = client.post(f"{url}/answer?lang=en", data=data, headers={"Accept": "application/json"})
    assert fetched.status_code == 422 and fetched.get_json() == {
        "ok": False,
        "error": f"Your rack has no {missing}.",
    }


def test_a_session_is_its_learners_only(api: Api, app: Flask, club: None) -> None:
    game = _club_game(app, SEED + 6, {"Ann": ["top"]})
    lea = _token(api, "lea")
    state = api.ok("POST", "/api/practice", {"game": game.game_id}, token=lea, status=201)
    session_id = state["session"]["id"]
    other = _token(api, "max")
    assert api.call("GET", f"/api/practice/{session_id}", token=other)[0] == 404
    assert api.call("POST", f"/api/practice/{session_id}/answer", {"round": 1, "play": ""}, token=other)[0] == 404
    assert api.call("POST", f"/api/practice/{session_id}/next", token=other)[0] == 404
    assert api.get("/api/practice", token=other)["sessions"] == []
    assert api.call("GET", f"/api/practice/{session_id}")[0] == 401
    client = app.test_client()
    _log_in(client, "max")
    assert client.get(f"/practice/{session_id}").status_code == 404
    assert client.get(f"/practice/{session_id + 1}").status_code == 404
    assert app.test_client().get(f"/practice/{session_id}").status_code == 302  # to the login


def test_the_tops_are_hidden_until_the_round_is_answered(api: Api, app: Flask, client: FlaskClient, club: None) -> None:
    game = _club_game(app, SEED + 7, {"Ann": ["top", "top"], "Bob": ["low", "low"]})
    token = _token(api, "lea")
    state = api.ok("POST", "/api/practice", {"game": game.game_id}, token=token, status=201)
    session_id = state["session"]["id"]
    archived = api.get(f"/api/games/{game.game_id}/rounds/1")
    top_word = archived["placed"].split()[-1].upper()
    shown = api.get(f"/api/practice/{session_id}", token=token)
    assert shown["reveal"] is None and top_word not in str(shown)
    assert not {"tops", "top_score", "placed", "next_best"} & set(shown["round"])
    _log_in(client, "lea")
    page = client.get(f"/practice/{session_id}").get_data(as_text=True)
    assert top_word not in page and "Next best" not in page
    code, answer = api.call("POST", f"/api/practice/{session_id}/next", token=token)
    assert code == 409 and "not over" in answer["error"]  # no moving on to see it either


def test_a_session_resumes_where_it_was(api: Api, app: Flask, club: None) -> None:
    """Closing the browser loses nothing: a new browser (a new login) opens the same round with the clock still
    running from when it was first shown; after an answer, the reveal; after the next, round 2."""
    game = _club_game(app, SEED + 8, {"Ann": ["top", "top"], "Bob": ["low", "low"]}, round_seconds=120)
    first = app.test_client()
    _log_in(first, "lea")
    answer = first.post(
        "/practice/replay",
        data={
            "replay-csrf_token": csrf_token(first, "/practice"),
            "replay-game": str(game.game_id),
            "replay-timed": "y",
        },
    )
    url = answer.headers["Location"]
    assert "Round 1 of 2" in text_of(first.get(url).get_data(as_text=True))
    session_id = int(url.rsplit("/", 1)[1])
    _move_clock_back(app, session_id, 50)
    second = app.test_client()  # the browser closed and opened again
    _log_in(second, "lea")
    hub = second.get("/practice").get_data(as_text=True)
    assert "In play" in text_of(hub) and f'href="{url}"' in hub
    page = second.get(url).get_data(as_text=True)
    assert "Round 1 of 2" in text_of(page) and ("1:10" in page or "1:09" in page)  # 120 − 50 s, still running
    second.post(f"{url}/answer", data={"csrf_token": csrf_token(second, url), "round": "1", "pass": "1"})
    third = app.test_client()
    _log_in(third, "lea")
    assert "Round 1: the top" in text_of(third.get(url).get_data(as_text=True))
    third.post(f"{url}/next", data={"csrf_token": csrf_token(third, url)})
    assert "Round 2 of 2" in text_of(first.get(url).get_data(as_text=True))


def test_replays_that_cannot_be_made_are_refused_in_the_readers_language(
    api: Api, app: Flask, client: FlaskClient, club: None
) -> None:
    token = _token(api, "lea")
    assert api.call("POST", "/api/practice", {"game": 12345}, token=token)[0] == 404
    assert api.call("POST", "/api/practice", {"kind": "chess"}, token=token)[0] == 400
    assert api.call("POST", "/api/practice", {"settings": {"rules": "xx"}}, token=token)[0] == 422
    _log_in(client, "lea")
    data = {"replay-csrf_token": csrf_token(client, "/practice"), "replay-game": "12345"}
    answer = client.post("/practice/replay", data=data)
    assert answer.status_code == 404 and "only finished games can be replayed" in text_of(answer.get_data(as_text=True))
    answer = client.post("/practice/replay?lang=fr", data=data)
    assert answer.status_code == 404
    assert "Cette partie n'est pas dans les archives" in text_of(answer.get_data(as_text=True))
    answer = client.post("/practice/replay", data={**data, "replay-game": "abc"})
    assert answer.status_code == 422


# ---------------------------------------------------------------- §6.27's worked examples


T = datetime(2026, 3, 12, 20, 0, 0, tzinfo=UTC)


def _replay_at(app: Flask, game_id: int, learner: str, shown: datetime) -> int:
    """A timed replay of ``game_id`` whose first round the server showed at ``shown``."""
    with app.app_context():
        account = db.session.execute(select(Learner).where(Learner.username == learner)).scalar_one()
        session = practice.from_archive(account, game_id, practice.SOLO, True)
        first = practice.current(session, shown)
        assert first is not None and first.number == 1
        return session.id


@pytest.mark.parametrize(("after", "late"), [(61.5, False), (61.6, True)])
def test_the_clock_example(app: Flask, club: None, after: float, late: bool) -> None:
    """§6.27: shown at 20:00:00.0 with 60 s; a top received at 20:01:01.5 scores, at 20:01:01.6 it is late: 0."""
    game = _club_game(app, SEED + 9, {"Ann": ["top"]}, round_seconds=60)
    session_id = _replay_at(app, game.game_id, "lea", T)
    with app.app_context():
        session = db.session.get(PracticeSession, session_id)
        assert session is not None
        round_ = practice.round_of(session, 1)
        assert aware(round_.deadline) == T + timedelta(seconds=60)
        top = _plays("en", round_.board_before, round_.rack)[0]
        answered = solo.answer(session, 1, top[1], T + timedelta(seconds=after))
        assert (answered.late, answered.score) == (late, 0 if late else top[0])


def test_a_round_with_no_play_is_over_after_the_grace(app: Flask, club: None) -> None:
    game = _club_game(app, SEED + 10, {"Ann": ["top", "top"]}, round_seconds=60)
    session_id = _replay_at(app, game.game_id, "lea", T)
    with app.app_context():
        session = db.session.get(PracticeSession, session_id)
        assert session is not None
        shown = practice.current(session, T + timedelta(seconds=61.5))
        assert shown is not None and shown.answered_at is None
        over = practice.current(session, T + timedelta(seconds=61.6))
        assert over is not None and over.answered_at is not None and over.move is None and over.score == 0


def test_the_resuming_example(app: Flask, club: None) -> None:
    """§6.27: shown at 20:00:00 with 120 s; opened again at 20:01:20: the same round, 40 s left; at 20:02:05, over."""
    game = _club_game(app, SEED + 11, {"Ann": ["top", "top"]}, round_seconds=120)
    session_id = _replay_at(app, game.game_id, "lea", T)
    with app.app_context():
        session = db.session.get(PracticeSession, session_id)
        assert session is not None
        again = practice.current(session, T + timedelta(seconds=80))
        assert again is not None and again.number == 1 and again.answered_at is None and again.deadline is not None
        assert seconds_until(again.deadline, T + timedelta(seconds=80)) == 40
        later = practice.current(session, T + timedelta(seconds=125))
        assert later is not None and later.number == 1 and later.answered_at is not None and later.score == 0
        assert practice.reveal(later).top_score == later.top_score


@dataclass
class _Standing:
    player: str
    round_totals: tuple[int, ...]


@pytest.mark.parametrize(
    ("mine", "rank", "lines"),
    [
        (100, 2, [("Ann", 1), ("", 2), ("Bob", 3), ("Cyd", 3), ("Dee", 5)]),
        (95, 2, [("Ann", 1), ("", 2), ("Bob", 2), ("Cyd", 2), ("Dee", 5)]),
        (130, 1, [("", 1), ("Ann", 2), ("Bob", 3), ("Cyd", 3), ("Dee", 5)]),
        (50, 5, [("Ann", 1), ("Bob", 2), ("Cyd", 2), ("Dee", 4), ("", 5)]),
    ],
)
def test_the_placement_example(
    monkeypatch: pytest.MonkeyPatch, mine: int, rank: int, lines: list[tuple[str, int]]
) -> None:
    """§6.27: Ann 120, Bob 95, Cyd 95, Dee 60 after 3 rounds (a fourth round played by the room does not count)."""
    room = [
        _Standing("Ann", (50, 40, 30, 9)),
        _Standing("Bob", (30, 30, 35, 9)),
        _Standing("Cyd", (45, 25, 25, 9)),
        _Standing("Dee", (20, 20, 20, 99)),
    ]
    monkeypatch.setattr(solo, "game_results", lambda game: SimpleNamespace(standings=room))
    monkeypatch.setattr(practice, "source_game", lambda session: object())
    played = [SimpleNamespace(answered_at=T, score=s, top_score=60) for s in (mine - 20, 10, 10)]
    session = SimpleNamespace(rounds=[*played, SimpleNamespace(answered_at=None, score=0, top_score=60)])
    where = solo.placement(session)  # type: ignore[arg-type]
    assert where is not None
    assert (where.rounds, where.total, where.top_total, where.rank, where.of) == (3, mine, 180, rank, 5)
    assert [(line.name, line.rank) for line in where.lines] == lines
    assert [line.you for line in where.lines].count(True) == 1
