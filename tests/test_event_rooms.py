"""Events and rooms (issue 26, items 5 and 6): a simultaneous game's rooms are named in public by their names, never
by their join codes; a player holds a place in one room of an event only, and one who holds two by any route sees
nothing of a room ahead of their other one (docs/rules.md §6.22); a game of the same draw waiting in its lobby holds
nobody back, and the console and the archive say which game holds a finished game back, and until when (§6.4)."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from tests.test_api import PASSWORD, Api
from tests.test_api import api as api  # the fixture
from tests.test_live import run_async
from tests.test_pages import csrf_token, text_of
from tests.test_phone_pages import _get
from tests.test_security import page_login
from trainer.core import accounts
from trainer.core.codes import hash_token, new_token
from trainer.core.database import db
from trainer.core.errors import Refused
from trainer.core.names import name_key
from trainer.games import competitions, history, service
from trainer.games.models import Event, Game, Player
from trainer.http.language import LANG_COOKIE
from trainer.http.session import PLAYER_TOKENS
from trainer.live.asgi import TirageASGI

SEED = 10**19 + 2626


def _event(api: Api, room_name: str | None = None) -> tuple[dict[str, Any], str, dict[str, Any], str, str]:
    """Alice's room (the event's first) and Bruno's, in their lobbies: (alice's room, event code, bruno's room, and
    the two directors' tokens)."""
    alice, bruno = api.token("alice"), api.token("bruno")
    first = api.new_game(alice, rules="en", max_rounds=3, reveal_seconds=None, seed=SEED)
    body = {"kind": "simultaneous", "name": "Téléthon", "game_id": first["id"]}
    code = api.ok("POST", "/api/competitions", body, alice, 201)["code"]
    opened = {"room_name": room_name} if room_name is not None else None
    second = api.ok("POST", f"/api/competitions/{code}/rooms", opened, bruno, 201)
    return first, code, second, alice, bruno


def _page_join(client: FlaskClient, code: str, name: str) -> Any:
    data = {"csrf_token": csrf_token(client, "/join"), "code": code, "name": name}
    return client.post("/join", data=data)


# ---------------------------------------------------------------- item 5: rooms by their names, never their codes


def test_the_public_ranking_names_rooms_by_their_names_never_by_their_join_codes(api: Api, app: Flask) -> None:
    """docs/rules.md §6.22: a room-B player read room A's code on the ranking and joined room A (issue 26, item 5)."""
    first, code, second, alice, bruno = _event(api, room_name="Club de Lyon")
    assert second["room_name"] == "Club de Lyon"
    ann = api.join(first["join_code"], "Ann")
    api.join(second["join_code"], "Bob")
    for room, token in ((first, alice), (second, bruno)):
        api.ok("POST", f"/api/games/{room['id']}/start", token=token)
    api.ok("POST", f"/api/games/{first['id']}/close", token=alice)

    ranking = api.get(f"/api/competitions/{code}/ranking")
    assert ranking["rooms"] == [
        {"name": "Room 1", "status": "revealing"},
        {"name": "Club de Lyon", "status": "playing"},
    ]
    assert ranking["waiting_for"] == ["Club de Lyon"]
    pages = {lang: app.test_client().get(f"/events/{code}?lang={lang}").get_data(as_text=True) for lang in ("en", "fr")}
    assert "Waiting for rooms Club de Lyon to close their next round." in text_of(pages["en"])
    assert "Salle 1" in text_of(pages["fr"]) and "Room 1" in text_of(pages["en"])
    for shown in (str(ranking), *pages.values()):
        assert first["join_code"] not in shown and second["join_code"] not in shown
        assert str(first["id"]) not in shown and str(second["id"]) not in shown  # an id opens the game's reads too

    # Alice names her room; a name cannot be the other's, as names are compared (§6.16), nor a join code.
    named = api.ok("POST", f"/api/games/{first['id']}/room-name", {"room_name": "  Les  Jokers "}, alice)
    assert named == {"room_name": "Les Jokers", "room": "Les Jokers"}
    for taken, status_, why in (
        ("club de lyon", 409, "named 'Club de Lyon'"),
        (second["join_code"].lower(), 422, "cannot be a join code"),
    ):
        status, answer = api.call("POST", f"/api/games/{first['id']}/room-name", {"room_name": taken}, alice)
        assert status == status_ and why in answer["error"], answer
    status, answer = api.call("POST", f"/api/games/{first['id']}/room-name", {"room_name": code}, alice)
    assert status == 422 and "cannot be a join code" in answer["error"]
    assert api.call("POST", f"/api/games/{second['id']}/room-name", {"room_name": "Mine"}, alice)[0] == 403
    api.ok("POST", f"/api/games/{second['id']}/close", token=bruno)
    lines = {(s["room"], s["name"]) for s in api.get(f"/api/competitions/{code}/ranking")["standings"]}
    assert lines == {("Les Jokers", "Ann"), ("Club de Lyon", "Bob")}
    assert api.ok("POST", f"/api/games/{first['id']}/room-name", {"room_name": ""}, alice)["room"] == "Room 1"
    assert ann["game_id"] == first["id"]


def test_the_room_name_is_set_from_the_console_in_english_and_french(api: Api, app: Flask) -> None:
    first, code, second, _alice, _bruno = _event(api)
    console = app.test_client()
    assert page_login(console, "bruno", PASSWORD).status_code == 303
    page = text_of(console.get(f"/director/games/{second['id']}").get_data(as_text=True))
    assert "Room of a simultaneous game" in page
    token = csrf_token(console, f"/director/games/{second['id']}")
    answer = console.post(f"/director/games/{second['id']}/room-name", data={"csrf_token": token, "room_name": "Nice"})
    assert answer.status_code == 303
    assert "The room is named Nice on the ranking." in text_of(console.get(answer.location).get_data(as_text=True))
    refused = console.post(
        f"/director/games/{second['id']}/room-name?lang=fr",
        data={"csrf_token": token, "room_name": first["join_code"]},
    )
    page = text_of(console.get(refused.location + "?lang=fr").get_data(as_text=True))
    assert "Le nom d’une salle ne peut pas être un code" in page, page
    assert api.get(f"/api/competitions/{code}/ranking")["rooms"][1]["name"] == "Nice"


def test_a_player_of_one_room_cannot_join_another_room_of_the_event(api: Api, app: Flask) -> None:
    """docs/rules.md §6.22: one place in one room of an event, whoever asks: the browser that holds a place, the API
    client holding its token, the same name, the same learner account; a rejoin or a rename cannot make a second."""
    first, code, second, alice, _bruno = _event(api)
    phone = app.test_client()
    assert _page_join(phone, second["join_code"], "Bob").status_code == 303
    for lang, said in (
        ("en", "You already have a place in another room of this simultaneous game"),
        ("fr", "Vous avez déjà une place dans une autre salle de ce simultané"),
    ):
        phone.set_cookie(LANG_COOKIE, lang)
        answer = _page_join(phone, first["join_code"], "Robert")
        assert answer.status_code == 400 and said in text_of(answer.get_data(as_text=True)), lang
    bob = api.join(second["join_code"], "Bobby")
    status, answer = api.call("POST", "/api/join", {"code": first["join_code"], "name": "Other"}, bob["token"])
    assert status == 409 and "another room of this simultaneous game" in answer["error"]
    status, answer = api.call("POST", "/api/join", {"code": first["join_code"], "name": "BOBBY"})  # names read alike
    assert status == 409 and "another room" in answer["error"]
    status, answer = api.call("POST", "/api/join", {"code": code, "name": "Zed"})  # the event's code is no room's
    assert status == 404
    zed = api.join(first["join_code"], "Zed")  # a stranger to room B joins room A with room A's code
    status, answer = api.call(
        "POST", f"/api/games/{first['id']}/players/{zed['player_id']}/name", {"name": "Bob"}, alice
    )
    assert status == 409 and "another room" in answer["error"], answer

    with app.app_context():
        lea = accounts.create_learner("lea", PASSWORD)
        in_b = db.session.execute(select(Player).where(Player.game_id == second["id"], Player.name == "Bob"))
        history.link(in_b.scalar_one(), lea)
        with pytest.raises(Refused) as refused:  # the same account, joining room A under another name
            service.join_game(first["join_code"], "Lea", learner_id=lea.id)
        assert refused.value.code == "in_another_room"
        player, _token = service.join_game(first["join_code"], "Léa two")
        with pytest.raises(Refused) as refused:  # or keeping the plays of a room-A player it joined without it
            history.link(player, lea)
        assert refused.value.code == "in_another_room"


def _second_place(app: Flask, room_id: int, name: str) -> str:
    """A place for ``name`` in room ``room_id`` as no join allows it any more (a place from before the rule, a race
    between two joins): what the embargo must still cover. Its token."""
    token = new_token()
    with app.app_context():
        db.session.add(Player(game_id=room_id, name=name, name_key=name_key(name), token_hash=hash_token(token)))
        db.session.commit()
    return token


def test_a_player_holding_places_in_two_rooms_sees_nothing_of_the_room_ahead(api: Api, app: Flask) -> None:
    """docs/rules.md §6.22 and §6.4: whatever the route to a second place (the same name, the same browser), a
    player never sees a round's results in one room before it is closed in their other room."""
    first, _code, second, alice, bruno = _event(api)
    bob_b = api.join(second["join_code"], "Bob")
    bob_a = _second_place(app, first["id"], "Bob")
    for room, token in ((first, alice), (second, bruno)):
        api.ok("POST", f"/api/games/{room['id']}/start", token=token)
    assert api.call("GET", f"/api/games/{first['id']}", token=bob_a)[0] == 200  # round 1 open in both: the same rack
    api.ok("POST", f"/api/games/{first['id']}/close", token=alice)
    for path in ("", "/rounds/1", "/standings", "/rounds/1/me"):
        status, answer = api.call("GET", f"/api/games/{first['id']}{path}", token=bob_a, documented=False)
        assert status == 403 and "shares its draw" in answer["error"], path
    with app.app_context():
        player = db.session.execute(select(Player).where(Player.token_hash == hash_token(bob_a))).scalar_one()
        from trainer.games.record import record_key

        key = record_key(player)
    # The same browser, holding a place in both rooms (its session's tokens), on its My rounds page of room A.
    browser = app.test_client()
    with browser.session_transaction() as session:
        session[PLAYER_TOKENS] = {str(first["id"]): bob_a, str(second["id"]): bob_b["token"]}
    assert browser.get(f"/api/games/{first['id']}/rounds/1").status_code == 403
    page = text_of(browser.get(f"/play/rounds/{key}").get_data(as_text=True))
    assert "Round 1" not in page, page
    # Another browser's player of room A named otherwise holds no other place: room A is theirs as always.
    cy = _second_place(app, first["id"], "Cy")
    assert api.call("GET", f"/api/games/{first['id']}/rounds/1", token=cy)[0] == 200

    api.ok("POST", f"/api/games/{second['id']}/close", token=bruno)  # room B closes round 1: nothing left to spoil
    assert api.call("GET", f"/api/games/{first['id']}/rounds/1", token=bob_a)[0] == 200
    assert browser.get(f"/api/games/{first['id']}/rounds/1").status_code == 200
    assert "Round 1" in text_of(browser.get(f"/play/rounds/{key}").get_data(as_text=True))


# ---------------------------------------------------------------- item 6: a lobby holds nobody back; saying why


def test_a_lobby_of_the_same_draw_holds_nobody_back_and_the_console_and_archive_say_why(api: Api, app: Flask) -> None:
    """docs/rules.md §6.4: game A is over; Bruno makes game B with A's seed and leaves it in its lobby. A's players'
    My rounds and the archive show A; once B opens round 1 they wait, and A's console and the archive name B."""
    alice, bruno = api.token("alice"), api.token("bruno")
    a = api.new_game(alice, rules="en", seed=SEED + 1, max_rounds=2, reveal_seconds=None)
    ann = api.join(a["join_code"], "Ann")
    api.ok("POST", f"/api/games/{a['id']}/start", token=alice)
    for _ in range(2):
        api.ok("POST", f"/api/games/{a['id']}/close", token=alice)
        api.ok("POST", f"/api/games/{a['id']}/next", token=alice)
    assert api.get(f"/api/games/{a['id']}")["status"] == "finished"
    with app.app_context():
        player = db.session.get(Player, ann["player_id"])
        assert player is not None
        from trainer.games.record import record_key

        key = record_key(player)

    b = api.new_game(bruno, rules="en", seed=SEED + 1, max_rounds=2, reveal_seconds=None)
    outsider = app.test_client()  # Ann's My rounds link opened on another device
    assert "Round 2" in text_of(outsider.get(f"/play/rounds/{key}").get_data(as_text=True))
    assert a["id"] in [g["id"] for g in api.get("/api/archives")["games"]]
    assert api.call("GET", f"/api/games/{a['id']}/standings")[0] == 200
    with app.app_context():  # the lobby wrote nothing in A's log: an outsider's stream of A goes on
        kinds = db.session.execute(select(Event.kind).where(Event.game_id == a["id"])).scalars().all()
        assert "draw_shared" not in kinds

    api.ok("POST", f"/api/games/{b['id']}/start", token=bruno)  # B opens round 1: the embargo starts
    with app.app_context():
        kinds = db.session.execute(select(Event.kind).where(Event.game_id == a["id"])).scalars().all()
        assert kinds[-1] == "draw_shared"
    assert "Round 1" not in text_of(outsider.get(f"/play/rounds/{key}").get_data(as_text=True))
    assert a["id"] not in [g["id"] for g in api.get("/api/archives")["games"]]
    with app.app_context():
        made = db.session.get(Game, b["id"])
        assert made is not None
        day = made.created_at.strftime("%Y-%m-%d")
    director = app.test_client()
    assert page_login(director, "alice", PASSWORD).status_code == 303
    said = "Held back until the game bruno made on"
    console = text_of(director.get(f"/director/games/{a['id']}").get_data(as_text=True))
    assert said in console and "ends or closes round 2 (it has closed 0)" in console, console
    assert day in console
    archive = text_of(director.get("/archives").get_data(as_text=True))
    assert "1 finished game is held back" in archive and f"Your game {a['join_code']}: {said}" in archive, archive
    public = text_of(app.test_client().get(f"/archives/{a['id']}").get_data(as_text=True))
    assert said in public and a["join_code"] not in public and b["join_code"] not in public
    french = text_of(app.test_client().get(f"/archives/{a['id']}?lang=fr").get_data(as_text=True))
    assert "Retenue jusqu’à ce que la partie de bruno du" in french, french

    api.ok("POST", f"/api/games/{b['id']}/close", token=bruno)
    api.ok("POST", f"/api/games/{b['id']}/next", token=bruno)
    api.ok("POST", f"/api/games/{b['id']}/close", token=bruno)  # B has caught up with A
    assert a["id"] in [g["id"] for g in api.get("/api/archives")["games"]]
    console = text_of(director.get(f"/director/games/{a['id']}").get_data(as_text=True))
    assert "Held back" not in console


def test_the_event_stream_of_the_room_ahead_is_refused_on_the_fast_path_to_a_browser_with_two_places(
    app: Flask, served: TirageASGI
) -> None:
    """docs/rules.md §6.22 through ``tirage serve``'s event streams (trainer/live/streams.py): a browser holding a
    place in room B (by a join) and one in room A (under another name, by any route) opens room A's stream once
    room A has closed round 1 and room B has not: refused, as an outsider's; room B closes it: served."""
    with app.app_context():
        alice = accounts.create_director("alice", PASSWORD)
        bruno = accounts.create_director("bruno", PASSWORD)
        first = service.create_game(alice, {"rules": "en", "seed": SEED + 2, "reveal_seconds": None})
        event = competitions.create_simultaneous(alice, "Spring", first)
        second = competitions.open_room(event, bruno)
        a, b, b_code = first.id, second.id, second.join_code
    browser = app.test_client()
    assert _page_join(browser, b_code, "Bob").status_code == 303
    robert = _second_place(app, a, "Robert")
    with browser.session_transaction() as session:
        session[PLAYER_TOKENS] = {**session[PLAYER_TOKENS], str(a): robert}
    with app.app_context():
        for game_id in (a, b):
            game = db.session.get(Game, game_id)
            assert game is not None
            service.start_game(game, "test")
        assert service.close_round(a, 1, "test", early=True)
    cookie = browser.get_cookie("session")
    assert cookie is not None
    path = f"/api/games/{a}/events"
    status, _headers, body = run_async(_get(served, path, cookie.value, query=b"timeout=0"))
    assert status == 403 and "shares its draw" in body, body
    with app.app_context():
        assert service.close_round(b, 1, "test", early=True)
    status, _headers, body = run_async(_get(served, path, cookie.value, query=b"timeout=0"))
    assert status == 200 and "round_started" in body, body
