"""Paper bulletins and assistant arbiters (docs/rules.md §6.21): players without a phone at numbered tables,
their slips typed in by an arbiter on the same clock and with the same judging as a phone's play, a slip typed
in after the close only on the arbiter's declaration, and assistant accounts that can do nothing else.

The keyboard entry of ten slips in Chromium is tests/browser/test_bulletins.py.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from tests.test_api import PASSWORD, Api
from tests.test_api import api as api  # the fixture
from tests.test_pages import (
    act,
    csrf_token,
    current_round,
    join,
    join_code,
    log_in,
    new_game,
    plays_of,
    submit,
    text_of,
)
from trainer.core import accounts
from trainer.core.clock import utcnow
from trainer.core.database import db
from trainer.core.errors import Refused
from trainer.games import bulletins, service
from trainer.games.models import Event, Game, Submission


def _page_post(client: FlaskClient, game_id: int, path: str, data: dict[str, str]) -> str:
    page = f"/director/games/{game_id}/bulletins"
    answer = client.post(
        f"/director/games/{game_id}/{path}",
        data={"csrf_token": csrf_token(client, page), **data},
        follow_redirects=True,
    )
    assert answer.status_code < 500
    return text_of(answer.get_data(as_text=True))


def _room(app: Flask, client: FlaskClient, password: str = "password123") -> tuple[int, FlaskClient]:
    """A game with a phone player (Bob) and two paper players (Ann at table 1, Cy at table 12), started."""
    with app.app_context():
        if accounts.authenticate_director("alice", password) is None:  # the api fixture makes her already
            accounts.create_director("alice", password)
    log_in(client, "alice", password)
    game_id = new_game(client)
    bob = app.test_client()
    assert join(bob, join_code(app, game_id), "Bob").status_code == 303
    assert "Ann plays on paper at table 1." in _page_post(client, game_id, "paper-players", {"name": "Ann"})
    assert "Cy plays on paper at table 12." in _page_post(
        client, game_id, "paper-players", {"name": "Cy", "table": "12"}
    )
    assert "Table 12 has a player already." in _page_post(
        client, game_id, "paper-players", {"name": "Dee", "table": "12"}
    )
    assert "already called Bob" in _page_post(client, game_id, "paper-players", {"name": "bob"})
    assert act(client, game_id, "start").get_json()["ok"]
    return game_id, bob


def test_a_mixed_room_bulletins_are_judged_like_phones_and_count(app: Flask, client: FlaskClient) -> None:
    game_id, bob = _room(app, client)
    plays = plays_of(app, current_round(app, game_id))
    (top, top_score), (other, other_score) = plays[0], plays[-1]
    assert submit(bob, game_id, other).get_json()["ok"]
    page = _page_post(client, game_id, "bulletins", {"who": "1", "move": top})
    assert f"Round 1, Ann (table 1): {top} taken." in page
    page = _page_post(client, game_id, "bulletins", {"who": "cy", "move": other})  # a name, any case
    assert f"Round 1, Cy (table 12): {other} taken." in page
    assert "No player is at table 7." in _page_post(client, game_id, "bulletins", {"who": "7", "move": top})
    assert "Say whose bulletin it is." in _page_post(client, game_id, "bulletins", {"who": "", "move": top})
    refused = _page_post(client, game_id, "bulletins", {"who": "1", "move": "8H ZZZZZZZ"})
    assert "taken" not in refused.split("Paper bulletins")[-1].split("Players without a phone")[0]
    listing = text_of(client.get(f"/director/games/{game_id}/bulletins").get_data(as_text=True))
    assert f"1 Ann {top} alice" in listing and f"12 Cy {other} alice" in listing
    assert f"Bob {other}" not in listing  # a phone's play is nobody's business before the close

    assert act(client, game_id, "close").get_json()["ok"]
    table = {s["name"]: s for s in client.get(f"/api/games/{game_id}/standings").get_json()["standings"]}
    assert (table["Ann"]["total"], table["Bob"]["total"], table["Cy"]["total"]) == (top_score, other_score, other_score)
    with app.app_context():
        entered_by = dict(db.session.execute(select(Submission.move, Submission.entered_by)).all())
    assert entered_by[top] == "alice" and len(entered_by) == 2  # Bob's and Cy's play are the same text
    with app.app_context():  # the game's log says which plays came on paper, and who typed them in
        logged = db.session.execute(select(Event.author, Event.data).where(Event.kind == "submission")).all()
    assert sorted((author, data.get("entered_by")) for author, data in logged) == [
        ("Ann", "alice"),
        ("Bob", None),
        ("Cy", "alice"),
    ]


def test_a_slip_typed_in_after_the_close_needs_the_arbiters_declaration(app: Flask, client: FlaskClient) -> None:
    game_id, _bob = _room(app, client)
    (top, top_score), *_ = plays_of(app, current_round(app, game_id))
    assert act(client, game_id, "close").get_json()["ok"]
    page = _page_post(client, game_id, "bulletins", {"who": "12", "move": top})
    assert "Round 1 is closed. If the slip was handed in before the deadline" in page
    assert client.get(f"/api/games/{game_id}/standings").get_json()["standings"][0]["total"] == 0
    page = _page_post(client, game_id, "bulletins", {"who": "12", "move": top, "declared": "y"})
    assert f"Round 1, Cy (table 12): {top} taken." in page and "declared on time" in page
    table = {s["name"]: s for s in client.get(f"/api/games/{game_id}/standings").get_json()["standings"]}
    assert table["Cy"]["total"] == top_score and table["Cy"]["tops"] == 1
    with app.app_context():
        logged = db.session.execute(select(Event.data, Event.author).where(Event.kind == "bulletin_declared")).all()
    assert [(d, a) for d, a in logged] == [({"round": 1, "player": "Cy"}, "alice")]  # no play in the stream

    assert act(client, game_id, "next").get_json()["ok"]  # the next round has started: round 1 is settled
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        taken = bulletins.enter(game, "1", plays_of(app, current_round(app, game_id))[0][0], "alice", declared=True)
    assert taken.round_number == 2 and not taken.declared  # a bulletin goes to the round being played


def test_a_bulletin_after_the_deadline_is_late_like_a_phones_play(app: Flask, client: FlaskClient) -> None:
    game_id, _bob = _room(app, client)
    (top, _score), *_ = plays_of(app, current_round(app, game_id))
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        deadline = service.current_round(game).deadline  # type: ignore[union-attr]
        assert deadline is not None
        on_time = bulletins.enter(game, "1", top, "alice", now=deadline - timedelta(seconds=1))
        assert on_time.round_number == 1
        try:
            bulletins.enter(game, "12", top, "alice", now=deadline + timedelta(seconds=1))
        except Refused as refused:
            assert refused.code == "bulletin_late"
        else:
            raise AssertionError("a bulletin typed in after the deadline was taken without a declaration")
        assert utcnow() < deadline  # the round is still open on the server's clock: only the time decided


def test_assistant_arbiters_enter_bulletins_and_nothing_else(app: Flask, client: FlaskClient, api: Api) -> None:
    game_id, _bob = _room(app, client, PASSWORD)
    page = "/director/assistants"
    answer = client.post(
        page,
        data={"csrf_token": csrf_token(client, page), "username": "marc", "password": "assistant1"},
        follow_redirects=True,
    )
    assert "marc can now log in and enter bulletins in your games." in text_of(answer.get_data(as_text=True))
    helper = app.test_client()
    log_in(helper, "marc", "assistant1")
    home = helper.get("/director/", follow_redirects=True)
    assert f"/director/games/{game_id}/bulletins" in home.get_data(as_text=True)
    assert helper.get("/director/games/new").status_code == 303  # no game of their own: back to their page
    assert helper.get(f"/director/games/{game_id}").status_code == 303  # nor the console
    assert helper.get("/director/assistants").status_code == 303
    (top, _score), *_ = plays_of(app, current_round(app, game_id))
    assert f"Round 1, Ann (table 1): {top} taken." in _page_post(
        helper, game_id, "bulletins", {"who": "1", "move": top}
    )
    with app.app_context():
        assert db.session.execute(select(Submission.entered_by)).scalars().all() == ["marc"]

    with app.app_context():
        accounts.create_director("zoe", "password123")
    zoe = app.test_client()
    log_in(zoe, "zoe")
    assert zoe.get(f"/director/games/{game_id}/bulletins").status_code == 403  # another director's game

    token = api.ok("POST", "/api/auth/token", {"username": "marc", "password": "assistant1"})["token"]
    code, answer = api.call("POST", "/api/games", {"rules": "en"}, token)
    assert code == 403 and "only enters paper bulletins" in answer["error"]
    code, answer = api.call("POST", f"/api/games/{game_id}/close", None, token)
    assert code == 403
    taken = api.ok("POST", f"/api/games/{game_id}/bulletins", {"player": 12, "move": top}, token, status=201)
    assert (taken["name"], taken["table"], taken["move"], taken["declared_on_time"]) == ("Cy", 12, top, False)
    added = api.ok("POST", f"/api/games/{game_id}/paper-players", {"name": "Eve"}, token, status=201)
    assert added["table"] == 13
    code, answer = api.call("POST", f"/api/games/{game_id}/bulletins", {"player": "99", "move": top}, token)
    assert code == 404 and "no player is at table 99" in answer["error"]


def test_a_phone_players_play_comes_only_from_the_phone(app: Flask, client: FlaskClient, api: Api) -> None:
    """docs/rules.md §6.21, "Only paper players": no bulletin is taken for a phone player, on time or declared; the
    top declared for Bob, who played nothing, once became his play."""
    game_id, _bob = _room(app, client, PASSWORD)
    (top, _score), *_ = plays_of(app, current_round(app, game_id))
    refusal = "Bob plays on a phone: their plays come only from their phone, never as a bulletin."
    assert refusal in _page_post(client, game_id, "bulletins", {"who": "Bob", "move": top})
    assert act(client, game_id, "close").get_json()["ok"]
    assert refusal in _page_post(client, game_id, "bulletins", {"who": "bob", "move": top, "declared": "y"})
    page = f"/director/games/{game_id}/bulletins"
    french = client.post(
        page,
        data={"csrf_token": csrf_token(client, page), "who": "Bob", "move": top, "declared": "y"},
        headers={"Accept-Language": "fr"},
    )
    assert french.status_code == 422
    assert "Bob joue sur un téléphone : ses coups ne viennent que de son téléphone" in text_of(
        french.get_data(as_text=True)
    )
    token = api.ok("POST", "/api/auth/token", {"username": "alice", "password": PASSWORD})["token"]
    declared = {"player": "Bob", "move": top, "declared_on_time": True}
    code, answer = api.call("POST", f"/api/games/{game_id}/bulletins", declared, token)
    assert code == 403 and answer["error"] == refusal.rstrip(".")
    table = {s["name"]: s for s in client.get(f"/api/games/{game_id}/standings").get_json()["standings"]}
    assert (table["Bob"]["total"], table["Bob"]["tops"]) == (0, 0)
    with app.app_context():
        assert db.session.execute(select(Submission.id)).first() is None
        assert db.session.execute(select(Event.id).where(Event.kind == "bulletin_declared")).first() is None


def test_a_declaration_is_for_the_round_just_closed_and_until_the_next_opens(app: Flask, client: FlaskClient) -> None:
    """docs/rules.md §6.21: a declared slip goes to the round just closed, for a paper player who was in it, and
    the next round's opening settles it, even when it opens between the arbiter's reading and the write."""
    game_id, _bob = _room(app, client)
    (top, _score), *_ = plays_of(app, current_round(app, game_id))
    assert act(client, game_id, "close").get_json()["ok"]
    assert "Dee plays on paper at table 13." in _page_post(client, game_id, "paper-players", {"name": "Dee"})
    page = _page_post(client, game_id, "bulletins", {"who": "13", "move": top, "declared": "y"})
    assert "Dee was added after round 1 closed: no slip of theirs was handed in for it." in page

    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None and game.status == "revealing"  # what the arbiter's request read
        with app.app_context():  # meanwhile, the director opens round 2 (another session, committed)
            assert service.next_round(game_id, 1, "alice")
        with pytest.raises(Refused) as refused:
            bulletins.enter(game, "12", top, "alice", declared=True)
        assert refused.value.code == "declaration_closed"
        assert refused.value.params == {"round": 1}
    table = {s["name"]: s for s in client.get(f"/api/games/{game_id}/standings").get_json()["standings"]}
    assert table["Cy"]["total"] == 0
    with app.app_context():
        assert db.session.execute(select(Submission.id).where(Submission.declared)).first() is None


def test_a_removed_paper_players_record_keeps_who_typed_in_their_bulletins(app: Flask, client: FlaskClient) -> None:
    """docs/rules.md §6.21: each bulletin keeps who typed it in and whether it was declared, also in the record
    of a player the director removed (§6.16), where it was once dropped."""
    game_id, _bob = _room(app, client)
    (top, _score), *_ = plays_of(app, current_round(app, game_id))
    assert act(client, game_id, "close").get_json()["ok"]
    assert "declared on time" in _page_post(client, game_id, "bulletins", {"who": "12", "move": top, "declared": "y"})
    with app.app_context():
        cy = db.session.execute(select(Submission.player_id)).scalar_one()
    removed = client.post(
        f"/director/games/{game_id}/players/{cy}/remove",
        data={"csrf_token": csrf_token(client, f"/director/games/{game_id}")},
        headers={"Accept": "application/json"},
    )
    assert removed.status_code == 200
    with app.app_context():
        row = db.session.execute(select(Event).where(Event.kind == "removed")).scalar_one()
    assert [(p["round"], p["move"], p["entered_by"], p["declared"]) for p in row.data["plays"]] == [
        (1, top, "alice", True)
    ]
