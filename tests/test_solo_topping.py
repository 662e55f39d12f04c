"""Topping alone (docs/rules.md §6.28, on §6.26's rules), on SQLite and PostgreSQL: a round's seconds on the server's
clock with a wrong play and hints, a round not found, giving up, hints refused, the records per game and overall with
§6.28's numbers, and what the pages and the API keep back while a round is played; another learner's session is 404.

Times are controlled by passing ``now`` to the service, or by putting a round's stored times back (never a sleep).
Expected tops and wrong plays come from the engine, never from the topping module."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select, update

from tests.test_api import Api
from tests.test_api import api as api  # the fixture
from tests.test_pages import csrf_token, text_of
from trainer.core import accounts
from trainer.core.accounts import Director, Learner
from trainer.core.database import db
from trainer.core.errors import Refused
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move
from trainer.engine.rules import ruleset
from trainer.games import practice, service, solo_topping
from trainer.games.models import PracticeRound, PracticeSession

SEED = 31_415_926_535_897_932_384  # 23 digits
PASSWORD = "correct horse"


def _learner(app: Flask, name: str = "lea") -> int:
    with app.app_context():
        return accounts.create_learner(name, PASSWORD).id


def _get_learner(learner_id: int) -> Learner:
    learner = db.session.get(Learner, learner_id)
    assert learner is not None
    return learner


def _archived(app: Flask, seed: int = SEED, rounds: int = 1) -> int:
    """A finished club game of ``rounds`` rounds (nobody played), in the archive."""
    with app.app_context():
        owner = db.session.execute(select(Director).where(Director.username == "alice")).scalar_one_or_none()
        if owner is None:
            owner = accounts.create_director("alice", PASSWORD)
        game = service.create_game(owner, {"rules": "en", "seed": seed, "reveal_seconds": None})
        service.start_game(game, "alice")
        for number in range(1, rounds):
            assert service.close_round(game.id, number, "alice", early=True)
            assert service.next_round(game.id, number, "alice")
        service.end_game(game, "alice")
        return game.id


def _opened(
    learner_id: int, game_id: int, costs: dict[str, int] | None = None
) -> tuple[PracticeSession, PracticeRound, datetime]:
    """A topping session of the learner on ``game_id``, its first round shown: the session, the round, and when the
    server showed it (inside an application context)."""
    session = solo_topping.start(_get_learner(learner_id), game_id, costs=costs)
    round_ = solo_topping.current(session)
    assert round_ is not None
    return session, round_, _shown_at(round_)


def _wrong_play(session: PracticeSession, round_: PracticeRound, lexicon: Lexicon) -> str:
    """A legal play of the round that is not a top (the lowest-scoring, from the engine)."""
    rules = ruleset(session.rules)
    board = Board(rules.layout, list(round_.board_before))
    moves = sorted(generate_moves(board, rules, lexicon, round_.rack), key=lambda m: (m.score or 0, format_move(m)))
    return format_move(moves[0])


def _stored(session_id: int) -> PracticeSession:
    session = db.session.get(PracticeSession, session_id)
    assert session is not None
    return session


def _shown_at(round_: PracticeRound) -> datetime:
    assert round_.shown_at is not None
    return round_.shown_at


# ---------------------------------------------------------------- §6.28's first example: a round found


def test_a_round_found_with_a_wrong_play_and_hints_costs_the_clock_and_them(app: Flask, en_lexicon: Lexicon) -> None:
    learner_id = _learner(app)
    game_id = _archived(app)
    with app.app_context():
        learner = _get_learner(learner_id)
        session = solo_topping.start(learner, game_id, costs={"limit_seconds": 120})
        assert (session.round_seconds, solo_topping.costs_of(session).limit_seconds) == (120, 120)
        assert solo_topping.costs_of(session).wrong_play_seconds == 10  # the default of §6.26
        round_ = solo_topping.current(session)
        assert round_ is not None and round_.number == 1
        start = _shown_at(round_)
        assert round_.deadline == start + timedelta(seconds=120)

        wrong = _wrong_play(session, round_, en_lexicon)
        tried = solo_topping.play(session, 1, wrong, start + timedelta(seconds=12))
        assert (tried.top, tried.cost) == (False, 10.0)
        with pytest.raises(Refused) as again:  # the same wrong play again: refused, costs once
            solo_topping.play(session, 1, wrong, start + timedelta(seconds=13))
        assert again.value.code == "already_tried"
        length = solo_topping.take_hint(session, 1, "length", start + timedelta(seconds=20))
        top_word = round_.placed_move.split()[-1]
        assert (length.hint.value, length.seconds) == (len(top_word), 10.0)
        with pytest.raises(Refused) as taken:
            solo_topping.take_hint(session, 1, "length", start + timedelta(seconds=21))
        assert taken.value.code == "hint_taken"
        letter = solo_topping.take_hint(session, 1, "letter", start + timedelta(seconds=25))
        assert (letter.hint.value, letter.hint.position, letter.seconds) == (top_word[0], 1, 15.0)
        with pytest.raises(Refused) as illegal:  # an illegal placement costs nothing
            solo_topping.play(session, 1, "8H ZZZZZZZ", start + timedelta(seconds=30))
        assert illegal.value.code != "already_tried"

        found = solo_topping.play(session, 1, round_.tops[-1], start + timedelta(seconds=42, milliseconds=340))
        assert found.top
        # 42.34 s on the clock + 10 (one wrong play) + 10 (length) + 15 (a letter) = 77.34, to the tenth 77.3
        assert (round_.found, round_.seconds) == (True, 77.3)
        st = solo_topping.state(session, round_)
        assert st.breakdown == solo_topping.Breakdown(42.3, 0, 1, 10, 25, 77.3)
        with pytest.raises(Refused) as over:
            solo_topping.take_hint(session, 1, "square", start + timedelta(seconds=50))
        assert over.value.code == "already_answered"
        assert solo_topping.next_round(session, start + timedelta(seconds=60)) is None  # one round: finished
        assert session.status == practice.FINISHED and solo_topping.total(session) == 77.3


# ---------------------------------------------------------------- not found, given up, hints refused


def test_a_round_whose_limit_passes_unanswered_costs_the_limit_and_the_penalty(app: Flask) -> None:
    """§6.28: the browser closed mid-round, the clock runs on; read later, the round is over, not found."""
    learner_id = _learner(app)
    game_id = _archived(app)
    with app.app_context():
        session, round_, start = _opened(learner_id, game_id, {"limit_seconds": 60})
        solo_topping.take_hint(session, 1, "direction", start + timedelta(seconds=5))
        assert solo_topping.current(session, start + timedelta(seconds=61)) is round_  # the grace: still open
        assert round_.answered_at is None
        later = start + timedelta(minutes=30)
        with pytest.raises(Refused) as up:
            solo_topping.play(session, 1, round_.tops[0], later)
        assert up.value.code == "time_up"
        # 60 (the limit) + 60 (the penalty) + 10 (direction) = 130
        assert (round_.found, round_.seconds, round_.answered_at) == (False, 130.0, round_.deadline)
        assert solo_topping.state(session, round_, later).breakdown == solo_topping.Breakdown(60.0, 60, 0, 0, 10, 130.0)


def test_giving_up_and_letters_until_one_is_left(app: Flask) -> None:
    learner_id = _learner(app)
    game_id = _archived(app)
    with app.app_context():
        session, round_, start = _opened(learner_id, game_id)
        word = round_.placed_move.split()[-1]
        shown = [solo_topping.take_hint(session, 1, "letter", start).hint for _ in range(len(word) - 1)]
        assert [(h.position, h.value) for h in shown] == [(i + 1, word[i]) for i in range(len(word) - 1)]
        with pytest.raises(Refused) as none_left:
            solo_topping.take_hint(session, 1, "letter", start)
        assert none_left.value.code == "no_more_letters"
        for junk in ("colour", None, 3):
            with pytest.raises(Refused) as bad:
                solo_topping.take_hint(session, 1, junk, start)
            assert bad.value.code == "bad_hint"
        solo_topping.give_up(session, 1, start + timedelta(seconds=7))
        # given up: the limit (180) + the penalty (60) + the letters (15 each)
        assert (round_.found, round_.seconds) == (False, 240.0 + 15 * (len(word) - 1))
        with pytest.raises(Refused) as twice:
            solo_topping.give_up(session, 1, start + timedelta(seconds=8))
        assert twice.value.code == "already_answered"


def test_costs_are_checked_before_a_session_is_made(app: Flask) -> None:
    learner_id = _learner(app)
    with app.app_context():
        learner = _get_learner(learner_id)
        for costs, field in [({"limit_seconds": 5}, "limit_seconds"), ({"hint": 3}, "hint"), ("x", "")]:
            with pytest.raises(Refused) as bad:
                solo_topping.start(learner, None, {"max_rounds": 2}, costs)
            assert (bad.value.code, bad.value.params["field"]) == ("bad_topping_cost", field)
        for game in (True, -1, 2**70, "12"):
            with pytest.raises(Refused) as missing:
                solo_topping.start(learner, game)
            assert missing.value.code == "not_archived"
        assert not db.session.execute(select(PracticeSession)).scalars().all()


# ---------------------------------------------------------------- the records, §6.28's numbers


def _played(app: Flask, learner_id: int, game_id: int | None, seconds: list[float]) -> int:
    """A finished session whose rounds cost ``seconds``: each round found after that many seconds on the clock
    (below the limit), or given up (240 s) for a negative figure."""
    with app.app_context():
        learner = _get_learner(learner_id)
        settings = {"rules": "en", "max_rounds": len(seconds)}
        session = solo_topping.start(learner, game_id, None if game_id else settings)
        for index, figure in enumerate(seconds):
            round_ = solo_topping.current(session)
            assert round_ is not None and round_.number == index + 1
            start = _shown_at(round_)
            if figure < 0:
                solo_topping.give_up(session, round_.number, start + timedelta(seconds=1))
            else:
                assert solo_topping.play(session, round_.number, round_.tops[0], start + timedelta(seconds=figure)).top
            solo_topping.next_round(session, start + timedelta(seconds=500))
        assert session.status == practice.FINISHED
        return session.id


def test_records_per_game_and_overall(app: Flask) -> None:
    learner_id = _learner(app)
    other = _learner(app, "max")
    game_id = _archived(app, rounds=2)
    first = _played(app, learner_id, game_id, [30.0, 50.0])  # 80 s: the game's first session
    second = _played(app, learner_id, game_id, [20.0, 40.5])  # 60.5 s: a new record on this game
    third = _played(app, learner_id, game_id, [25.0, 40.0])  # 65 s: not one
    fresh = _played(app, learner_id, None, [10.0, 20.0, 30.0, 40.0, 50.0])  # 5 rounds, average 30
    slower = _played(app, learner_id, None, [20.0, 20.0, 40.0, 40.0, -1.0])  # average 72: no record
    faster = _played(app, learner_id, None, [5.0, 10.0, 20.0, 20.0, 27.2])  # average 16.4: a new overall record
    _played(app, other, game_id, [1.0, 1.0])  # another learner's: not hers
    with app.app_context():
        learner = _get_learner(learner_id)
        results = {s: solo_topping.result(learner, _stored(s)) for s in (first, second, third)}
        assert [(r.total, r.game_before, r.new_game, r.new_overall) for r in results.values()] == [
            (80.0, None, False, False),  # nothing to beat yet; and 2 rounds count for no overall record
            (60.5, 80.0, True, False),
            (65.0, 60.5, False, False),
        ]
        five = [solo_topping.result(learner, _stored(s)) for s in (fresh, slower, faster)]
        assert [(r.average, r.overall_before, r.new_overall) for r in five] == [
            (30.0, None, True),  # the first session of 5 rounds sets it
            (72.0, 30.0, False),
            (16.4, 30.0, True),
        ]
        records = solo_topping.records(learner)
        assert (records.overall, records.overall_session) == (16.4, faster)
        on_game = [g for g in records.games if g.source_game == game_id]
        assert [(g.seconds, g.sessions, g.session_id) for g in on_game] == [(60.5, 3, second)]
        assert len(records.games) == 4  # the archived game and each fresh draw


def test_a_stopped_session_sets_no_game_record_but_counts_overall_with_five_rounds(app: Flask, api: Api) -> None:
    """§6.28, stopping: refused while a round is in play, taken once it is over; a session stopped after one round of
    a two-round game has a lower total than the whole game's and is no record on it; a fresh draw stopped after five
    rounds counts for the overall record."""
    learner_id = _learner(app)
    game_id = _archived(app, rounds=2)
    whole = _played(app, learner_id, game_id, [30.0, 50.0])
    with app.app_context():
        learner = _get_learner(learner_id)
        session, round_, start = _opened(learner_id, game_id)
        with pytest.raises(Refused) as refused:
            solo_topping.stop(session, start + timedelta(seconds=5))
        assert refused.value.code == "round_not_over"
        assert solo_topping.play(session, 1, round_.tops[0], start + timedelta(seconds=10.0)).top
        solo_topping.stop(session, start + timedelta(seconds=20))
        assert (session.status, session.end_reason) == (practice.FINISHED, practice.STOPPED)
        result = solo_topping.result(learner, session)
        assert (result.total, result.rounds, result.new_game) == (10.0, 1, False)
        on_game = [g for g in solo_topping.records(learner).games if g.source_game == game_id]
        assert [(g.seconds, g.sessions, g.session_id) for g in on_game] == [(80.0, 1, whole)]

        fresh = solo_topping.start(learner, None, {"rules": "en", "max_rounds": 8})
        for number in range(1, 6):
            round_ = solo_topping.current(fresh)
            assert round_ is not None and round_.number == number
            start = _shown_at(round_)
            assert solo_topping.play(fresh, number, round_.tops[0], start + timedelta(seconds=12.0)).top
            if number < 5:
                solo_topping.next_round(fresh, start + timedelta(seconds=20))
        solo_topping.stop(fresh, start + timedelta(seconds=20))
        result = solo_topping.result(learner, fresh)
        assert (result.rounds, result.average, result.new_overall) == (5, 12.0, True)
        assert solo_topping.records(learner).overall == 12.0
    token = _learner_token(api, "lea")
    started = api.ok("POST", "/api/topping", {"game": game_id}, token=token, status=201)
    session_id = started["id"]
    code, _answer = api.call("POST", f"/api/topping/{session_id}/stop", token=token)
    assert code == 409
    api.ok("POST", f"/api/topping/{session_id}/give-up", {"round": 1}, token=token)
    stopped = api.ok("POST", f"/api/topping/{session_id}/stop", token=token)
    assert stopped["status"] == "finished" and stopped["current"] is None and stopped["result"]["rounds"] == 1

    client = app.test_client()  # the pages: "Stop here" once the round is over
    _log_in(client, "lea")
    started = api.ok("POST", "/api/topping", {"game": game_id}, token=token, status=201)
    url = f"/practice/topping/{started['id']}"
    assert "Stop here" not in text_of(client.get(url).get_data(as_text=True))
    form = {"csrf_token": csrf_token(client, url), "round": "1"}
    assert client.post(f"{url}/give-up", data=form).status_code == 303
    assert "Stop here" in text_of(client.get(url).get_data(as_text=True))
    assert client.post(f"{url}/stop", data=form).status_code == 303
    assert "Session over" in text_of(client.get(url).get_data(as_text=True))


# ---------------------------------------------------------------- the API and the pages


def _learner_token(api: Api, name: str) -> str:
    answer = api.ok("POST", "/api/auth/learner-token", {"username": name, "password": PASSWORD})
    return str(answer["token"])


def _secret_words(round_: dict[str, Any], tops: list[str]) -> list[str]:
    return [t.split()[-1].upper() for t in tops]


def test_the_api_keeps_the_tops_back_until_the_round_is_over(api: Api, app: Flask, en_lexicon: Lexicon) -> None:
    _learner(app, "lea")
    _learner(app, "max")
    game_id = _archived(app, rounds=2)
    lea, max_ = _learner_token(api, "lea"), _learner_token(api, "max")
    made = api.ok("POST", "/api/topping", {"game": game_id, "costs": {"wrong_play_seconds": 5}}, lea, status=201)
    sid = made["id"]
    assert made["costs"]["wrong_play_seconds"] == 5 and made["current"]["number"] == 1
    with app.app_context():
        round_ = db.session.execute(
            select(PracticeRound).where(PracticeRound.session_id == sid, PracticeRound.number == 1)
        ).scalar_one()
        tops, placed = list(round_.tops), round_.placed_move
        wrong = _wrong_play(_stored(sid), round_, en_lexicon)
    state = api.ok("POST", f"/api/topping/{sid}/play", {"round": 1, "play": wrong}, lea)
    assert state["play"] == {"move": wrong, "top": False, "seconds": 5.0}
    state = api.ok("POST", f"/api/topping/{sid}/hint", {"round": 1, "kind": "square"}, lea)
    assert state["hint"]["kind"] == "square" and sorted(state["current"]["hints"][0]["value"]) == sorted(
        placed.split()[0]
    )
    assert api.call("POST", f"/api/topping/{sid}/hint", {"round": 1, "kind": "square"}, lea)[0] == 409
    assert api.call("POST", f"/api/topping/{sid}/next", token=lea)[0] == 409  # the round is not over
    for answer in (state, api.get(f"/api/topping/{sid}", lea)):
        current = answer["current"]
        assert (current["over"], current["reveal"], current["seconds"]) == (False, None, None)
        assert current["more_letters"] is True and "letters_left" not in current  # a count would tell the length
        text = str({k: v for k, v in current.items() if k not in ("board", "rack")}).upper()
        hidden = [w for w in _secret_words(current, tops) if w not in wrong.upper()]
        assert not any(re.search(rf"\b{w}\b", text) for w in hidden), text
    # another learner: as if there were no such session
    for method, path in [("GET", f"/api/topping/{sid}"), ("POST", f"/api/topping/{sid}/give-up")]:
        assert api.call(method, path, {"round": 1}, max_)[0] == 404
    assert api.call("GET", f"/api/topping/{sid}")[0] == 401
    # with the time moved back, a top found: the clock, the wrong play and the hint
    with app.app_context():
        stored = db.session.get(PracticeRound, round_.id)
        assert stored is not None and stored.shown_at is not None and stored.deadline is not None
        stored.shown_at -= timedelta(seconds=100)
        stored.deadline -= timedelta(seconds=100)
        db.session.commit()
    found = api.ok("POST", f"/api/topping/{sid}/play", {"round": 1, "play": tops[0]}, lea)
    current = found["current"]
    assert found["play"]["top"] and current["over"] and current["found"] and current["reveal"]["tops"] == tops
    assert 125.0 <= current["seconds"] <= 130.0  # 100 s and a moment on the clock + 5 + 20 (the square)
    assert current["breakdown"]["wrong_seconds"] == 5 and current["breakdown"]["hints_seconds"] == 20
    nxt = api.ok("POST", f"/api/topping/{sid}/next", token=lea)
    assert nxt["current"]["number"] == 2 and [r["number"] for r in nxt["rounds"]] == [1]
    done = api.ok("POST", f"/api/topping/{sid}/give-up", {"round": 2}, lea)
    assert done["current"]["found"] is False and done["current"]["seconds"] == 240.0
    end = api.ok("POST", f"/api/topping/{sid}/next", token=lea)
    assert end["status"] == "finished" and end["current"] is None and end["result"]["rounds"] == 2
    listed = api.get("/api/topping", lea)
    assert [s["id"] for s in listed["sessions"]] == [sid]
    assert listed["records"]["games"][0]["seconds"] == end["result"]["total"]
    assert api.get("/api/topping", max_)["sessions"] == []


def _log_in(client: FlaskClient, name: str) -> None:
    token = csrf_token(client, "/study/login")
    answer = client.post("/study/login", data={"username": name, "password": PASSWORD, "csrf_token": token})
    assert answer.status_code in (302, 303), answer.get_data(as_text=True)[:500]


def test_the_pages_play_a_round_and_keep_the_top_back(app: Flask, client: FlaskClient, en_lexicon: Lexicon) -> None:
    _learner(app, "lea")
    _learner(app, "max")
    game_id = _archived(app)
    assert client.get("/practice/topping").status_code == 302  # a learner's page: log in first
    assert "Topping on this game" not in client.get(f"/archives/{game_id}").get_data(as_text=True)
    _log_in(client, "lea")
    archived = client.get(f"/archives/{game_id}").get_data(as_text=True)
    assert "Topping on this game" in archived and f"/practice/topping?game={game_id}" in archived
    chosen = client.get(f"/practice/topping?game={game_id}").get_data(as_text=True)
    assert f'value="{game_id}"' in chosen and re.search(r'value="game"\s+checked', chosen)
    page = client.get("/practice/topping")
    assert page.status_code == 200 and "Topping" in text_of(page.get_data(as_text=True))
    token = csrf_token(client, "/practice/topping")
    bad = client.post("/practice/topping", data={"csrf_token": token, "source": "fresh", "limit_seconds": "5"})
    assert bad.status_code == 422
    assert "must be a whole number of seconds from 10 to 3600" in text_of(bad.get_data(as_text=True))
    none = client.post("/practice/topping", data={"csrf_token": token, "source": "game", "game": "12x"})
    assert none.status_code == 422 and "not in the archive" in text_of(none.get_data(as_text=True))
    made = client.post("/practice/topping", data={"csrf_token": token, "source": "game", "game": str(game_id)})
    assert made.status_code in (302, 303), made.get_data(as_text=True)[:800]
    url = made.headers["Location"]
    sid = int(url.rstrip("/").rsplit("/", 1)[1])
    with app.app_context():
        round_ = db.session.execute(select(PracticeRound).where(PracticeRound.session_id == sid)).scalar_one()
        tops = list(round_.tops)
        wrong = _wrong_play(_stored(sid), round_, en_lexicon)
    html = client.get(url).get_data(as_text=True)
    word = tops[0].split()[-1].upper()
    assert not any(top in html for top in tops), "a top is on the page while the round is played"
    token = csrf_token(client, url)
    hinted = client.post(f"{url}/hint", data={"csrf_token": token, "round": "1", "kind": "length"})
    assert hinted.status_code in (302, 303)
    html = client.get(url).get_data(as_text=True)
    assert f"Length: {len(word)} letters" in text_of(html)
    again = client.post(
        f"{url}/hint", data={"csrf_token": token, "round": "1", "kind": "length"}, follow_redirects=True
    )
    assert "You have taken this hint already this round." in text_of(again.get_data(as_text=True))
    tried = client.post(f"{url}/play", data={"csrf_token": token, "round": "1", "play": wrong}, follow_redirects=True)
    assert f"{wrong}: not the top (+10 s)." in text_of(tried.get_data(as_text=True))
    junk = client.post(f"{url}/play", data={"csrf_token": token, "round": "x", "play": "Q"}, follow_redirects=True)
    assert junk.status_code == 200
    found = client.post(f"{url}/play", data={"csrf_token": token, "round": "1", "play": tops[0]}, follow_redirects=True)
    shown = text_of(found.get_data(as_text=True))
    assert tops[0] in shown and "Next round" in shown
    french = text_of(client.get(f"{url}?lang=fr").get_data(as_text=True))
    assert "Coup suivant" in french and "Le top" in french
    other = app.test_client()
    _log_in(other, "max")
    assert other.get(url).status_code == 404
    assert other.post(f"{url}/give-up", data={"csrf_token": csrf_token(other, "/practice/topping")}).status_code == 404


JUNK: list[Any] = [None, [], {}, "x", "", -1, 0, 10**30, True, 1.5, "\U0001f600" * 50]


def test_junk_never_makes_a_500(api: Api, app: Flask) -> None:
    """Every topping operation, fed junk fields with a learner token: JSON refusals, never a 500 (the Api client
    checks each answer against the OpenAPI document)."""
    _learner(app, "lea")
    lea = _learner_token(api, "lea")
    sid = api.ok("POST", "/api/topping", {"settings": {"max_rounds": 2}}, lea, status=201)["id"]
    for value in JUNK:
        bodies = [{"game": value}, {"settings": value}, {"costs": value}, {"game": 1, "costs": {"letter": value}}]
        for body in bodies if value not in (None, {}) else bodies[3:]:  # None or {}: the defaults, a session made
            assert api.call("POST", "/api/topping", body, lea)[0] in (400, 404, 409, 422), body
        for action, field in (("play", "play"), ("hint", "kind"), ("give-up", "round")):
            for body in ({"round": value, field: value}, {"round": 1, field: value}, {field: value}):
                assert api.call("POST", f"/api/topping/{sid}/{action}", body, lea)[0] in (400, 404, 409, 422)
    for path in (f"/api/topping/{2**70}", "/api/topping/0", "/api/topping/x"):
        assert api.call("GET", path, token=lea, documented=False)[0] == 404
    assert api.call("POST", f"/api/topping/{sid}/next", raw=b"[", token=lea)[0] in (400, 409)
    assert api.get(f"/api/topping/{sid}", lea)["current"]["hints"] == []  # nothing junk was taken


def test_a_round_ended_by_another_request_is_not_ended_twice(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    """A double tap, or two tabs: the round ended by one request (here straight in the database) is refused to the
    other, which changes nothing."""
    learner_id = _learner(app)
    game_id = _archived(app)
    with app.app_context():
        session, round_, start = _opened(learner_id, game_id)
        assert round_.answered_at is None  # as this request read it, before the other ended the round
        with db.engine.begin() as other:
            other.execute(
                update(PracticeRound)
                .where(PracticeRound.id == round_.id)
                .values(answered_at=start + timedelta(seconds=1), found=False)
            )
        guarded: list[int] = []
        end = solo_topping._end

        def spied(r: PracticeRound, now: datetime, **values: object) -> None:
            guarded.append(r.number)
            end(r, now, **values)

        monkeypatch.setattr(solo_topping, "_end", spied)
        with pytest.raises(Refused) as late:
            solo_topping.play(session, 1, round_.tops[0], start + timedelta(seconds=2))
        assert late.value.code == "already_answered" and guarded == [1]  # refused by the guarded update
        db.session.rollback()
        again = db.session.get(PracticeRound, round_.id)
        assert again is not None and (again.found, again.answered_at) == (False, start + timedelta(seconds=1))


def test_a_round_drawn_ahead_meanwhile_is_not_taken_for_the_end_of_the_draw(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """practice.ensure_round: the background work stores round 2 between the learner's request reading the rounds
    (one) and drawing the next itself (it then reads two, and the draw of a 2-round session ends at a third): the
    request gives round 2, not "the session is over"."""
    learner_id = _learner(app)
    with app.app_context():
        session = solo_topping.start(_get_learner(learner_id), None, {"rules": "en", "max_rounds": 2})
        sid = session.id
        assert practice.ensure_round(session, 2) is not None  # round 2 stored, as the background work does
        stored = practice._stored_rounds
        calls: list[int] = []

        def stale_once(session_id: int) -> list[PracticeRound]:
            calls.append(session_id)
            rounds = stored(session_id)
            return rounds[:1] if len(calls) == 1 else rounds  # the first read predates round 2

        monkeypatch.setattr(practice, "_stored_rounds", stale_once)
        second = practice.ensure_round(_stored(sid), 2)
        assert second is not None and second.number == 2 and len(calls) >= 2


def test_a_joker_fresh_draw(app: Flask) -> None:
    """The variant joker (docs/rules.md §6.24): the rack holds the blank, and the top found ends the round."""
    learner_id = _learner(app)
    with app.app_context():
        session = solo_topping.start(_get_learner(learner_id), None, {"variant": "joker", "max_rounds": 1})
        assert session.variant == "joker"
        round_ = solo_topping.current(session)
        assert round_ is not None and "?" in round_.rack
        assert solo_topping.play(session, 1, round_.tops[0], _shown_at(round_) + timedelta(seconds=3)).top
        assert (round_.found, round_.seconds) == (True, 3.0)
