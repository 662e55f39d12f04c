"""Attacks and bad input (issue 6): rate limits, cookies, security headers, acting as someone else, and
secrets that must stay hidden until their time (the seed, the next rack, the top, a word's validity).

Every test runs on SQLite and PostgreSQL (the ``app`` fixture) with the limits on, as a server runs.
Client addresses are set per request (``REMOTE_ADDR``) to play a club behind one NAT or an attacker.
"""

from __future__ import annotations

import json
import re
import secrets
import stat
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import permutations
from pathlib import Path
from typing import Any, cast

import pytest
from flask import Flask
from flask.testing import FlaskClient
from itsdangerous import TimestampSigner, URLSafeTimedSerializer
from sqlalchemy import func, select, update

from tests.redis_server import RedisServer
from tests.test_pages import csrf_token, text_of
from trainer.app import create_app
from trainer.core import accounts
from trainer.core.accounts import Director, LoginSession
from trainer.core.clock import utcnow
from trainer.core.database import db
from trainer.core.lexicons import lexicon_store
from trainer.engine.board import Board
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move
from trainer.engine.play import evaluate
from trainer.engine.rules import ruleset
from trainer.games.models import Event, Player, Round, Submission
from trainer.http.headers import CONTENT_SECURITY_POLICY

PASSWORD = "password123"
SEED = 73_560_118_942_031_174_461  # 20 digits, as a chosen seed must have (docs/rules.md §6.4)
CLUB = "198.51.100.7"  # the club's one public address (documentation range)

EXPECTED_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}


def at(address: str) -> dict[str, Any]:
    """Request arguments for a client at ``address``."""
    return {"environ_base": {"REMOTE_ADDR": address}}


def token_for(client: FlaskClient, username: str = "alice", address: str = "127.0.0.1") -> str:
    answer = client.post("/api/auth/token", json={"username": username, "password": PASSWORD}, **at(address))
    assert answer.status_code == 200, answer.get_json()
    return str(answer.get_json()["token"])


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_game(client: FlaskClient, token: str, **settings: Any) -> dict[str, Any]:
    answer = client.post("/api/games", json={"reveal_seconds": None, **settings}, headers=bearer(token))
    assert answer.status_code == 201, answer.get_json()
    game: dict[str, Any] = answer.get_json()
    return game


def api_join(client: FlaskClient, code: str, name: str, address: str = CLUB) -> dict[str, Any]:
    answer = client.post("/api/join", json={"code": code, "name": name}, **at(address))
    assert answer.status_code == 201, answer.get_json()
    joined: dict[str, Any] = answer.get_json()
    return joined


def page_join(client: FlaskClient, code: str, name: str, address: str = CLUB) -> Any:
    token = csrf_token(client, "/join")
    return client.post("/join", data={"csrf_token": token, "code": code, "name": name}, **at(address))


def page_login(
    client: FlaskClient,
    username: str,
    password: str,
    address: str = "127.0.0.1",
    path: str = "/director/login",
    **headers: str,
) -> Any:
    token = csrf_token(client, path)
    return client.post(
        path, data={"csrf_token": token, "username": username, "password": password}, headers=headers, **at(address)
    )


def page_submit(
    client: FlaskClient, game_id: int, move: str, json: bool = True, headers: dict[str, str] | None = None
) -> Any:
    token = csrf_token(client, f"/play/{game_id}")
    accept = {"Accept": "application/json"} if json else {}
    return client.post(
        f"/play/{game_id}/submit",
        data={"csrf_token": token, "round": "1", "move": move},
        headers={**accept, **(headers or {})},
    )


def rows(app: Flask, model: Any, **where: Any) -> int:
    with app.app_context():
        query = select(func.count()).select_from(model)
        for name, value in where.items():
            query = query.where(getattr(model, name) == value)
        return int(db.session.execute(query).scalar_one())


def the_round(app: Flask, game_id: int, number: int) -> Round:
    with app.app_context():
        round_ = db.session.execute(select(Round).where(Round.game_id == game_id, Round.number == number)).scalar_one()
        db.session.expunge(round_)
        return round_


def plays(app: Flask, rack: str) -> tuple[str, str]:
    """A legal play of ``rack`` on the empty board that is a word, and one that is not (a phony)."""
    rules = ruleset("en")
    board = Board.empty(rules)
    with app.app_context():
        lexicon = lexicon_store().load("en")
    word = format_move(sorted(generate_moves(board, rules, lexicon, rack), key=lambda m: m.score or 0)[0])
    for a, b in permutations(rack.replace("?", ""), 2):
        if evaluate(board, rules, lexicon, f"8H {a}{b}", rack).invalid_words:
            return word, f"8H {a}{b}"
    raise AssertionError(f"every pair of {rack} is a word")


@pytest.fixture
def directors(app: Flask) -> None:
    with app.app_context():
        accounts.create_director("alice", PASSWORD)
        accounts.create_director("bruno", PASSWORD)


def assert_429(answer: Any, words: str) -> None:
    """A 429 that says what was limited and when to come back, with the security headers too."""
    assert answer.status_code == 429, answer.get_data(as_text=True)[:300]
    assert 1 <= int(answer.headers["Retry-After"]) <= 61
    assert answer.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    text = answer.get_json()["error"] if answer.is_json else text_of(answer.get_data(as_text=True))
    assert words in text, text


# ---------------------------------------------------------------- rate limits: joining


def test_a_club_joins_from_one_address_and_only_refused_codes_are_limited(
    app: Flask, client: FlaskClient, directors: None
) -> None:
    game = new_game(client, token_for(client))
    code = game["join_code"]
    for n in range(40):  # a room of phones behind one NAT: never limited
        api_join(client, code, f"Api player {n}")
    phones = app.test_client()
    for n in range(20):
        assert page_join(phones, code, f"Phone {n}").status_code == 303
    for malformed in ({"code": "", "name": "x"}, {"code": code, "name": ""}, {"name": "x"}, {"code": ["x"]}):
        for _ in range(10):  # refused before any code is looked up: they guess nothing, so do not count
            assert client.post("/api/join", json=malformed, **at(CLUB)).status_code == 422
    for n in range(20):  # typos: each code names no game
        answer = client.post("/api/join", json={"code": f"NOPE{n:02d}", "name": "x"}, **at(CLUB))
        assert answer.status_code == 404, (n, answer.get_json())
    assert_429(
        client.post("/api/join", json={"code": "NOPE99", "name": "x"}, **at(CLUB)),
        "too many join codes that name no game were tried from your network",
    )
    # While the address is held back, even the right code waits (the answer must not tell a guesser it hit).
    assert_429(client.post("/api/join", json={"code": code, "name": "Late"}, **at(CLUB)), "try again in")
    token = csrf_token(phones, "/join")
    page = phones.post(
        "/join", data={"csrf_token": token, "code": code, "name": "Zoé"}, headers={"Accept-Language": "fr"}, **at(CLUB)
    )
    assert_429(page, "Trop de codes")
    assert "Trop de tentatives" in text_of(page.get_data(as_text=True))
    # Another address is not affected, and the refused attempts stored nothing.
    api_join(client, code, "Elsewhere", address="192.0.2.10")
    assert rows(app, Player, game_id=game["id"]) == 61


def test_names_are_normalised_and_no_second_zoe_joins(app: Flask, client: FlaskClient, directors: None) -> None:
    """docs/rules.md §6.16: case variants, accents, look-alike letters, invisible and direction characters."""
    game = new_game(client, token_for(client))
    code = game["join_code"]
    assert api_join(client, code, "Zoe")["name"] == "Zoe"
    assert api_join(client, code, "\uff22\uff4f\uff42")["name"] == "Bob"  # full-width letters, as NFKC reads them
    for same in ("zoe", "ZOE", "Zoé", "Z\u043ee", "\u0396oe", "Zo\u0435"):  # Cyrillic о, Greek Ζ, Cyrillic е
        answer = client.post("/api/join", json={"code": code, "name": same}, **at(CLUB))
        assert answer.status_code == 409, same
        assert "(by 'Zoe')" in answer.get_json()["error"], same
    for hidden in ("Zoe\u200b", "Z\u200doe", "\u202eeoZ", "Zo\u2066e", "Zoe\x07"):
        answer = client.post("/api/join", json={"code": code, "name": hidden}, **at(CLUB))
        assert answer.status_code == 422 and "cannot be shown" in answer.get_json()["error"], repr(hidden)
    phone = app.test_client()
    token = csrf_token(phone, "/join")
    page = phone.post(
        "/join", data={"csrf_token": token, "code": code, "name": "zoé"}, headers={"Accept-Language": "fr"}
    )
    assert (
        page.status_code == 400
        and "déjà" in text_of(page.get_data(as_text=True))
        and "Zoe" in text_of(page.get_data(as_text=True))
    )
    assert rows(app, Player, game_id=game["id"]) == 2


def test_the_director_renames_removes_and_closes_the_room(app: Flask, client: FlaskClient, directors: None) -> None:
    alice = token_for(client)
    game = new_game(client, alice)
    gid, code = game["id"], game["join_code"]
    zoe, fake, bob = (api_join(client, code, name) for name in ("Zoe", "Zo e", "Bob"))
    listed = client.get(f"/api/games/{gid}/players", headers=bearer(alice)).get_json()["players"]
    assert [p["name"] for p in listed] == ["Zoe", "Zo e", "Bob"]
    assert client.get(f"/api/games/{gid}/players", headers=bearer(token_for(client, "bruno"))).status_code == 403
    path = f"/api/games/{gid}/players/{bob['player_id']}/name"
    assert client.post(path, json={"name": "zoé"}, headers=bearer(alice)).status_code == 409
    assert client.post(path, json={"name": "Bob\u200b"}, headers=bearer(alice)).status_code == 422
    assert client.post(path, json={"name": "Bobby"}, headers=bearer(alice)).get_json()["name"] == "Bobby"
    assert (
        client.post(f"/api/games/{gid}/players/999999/name", json={"name": "X"}, headers=bearer(alice)).status_code
        == 404
    )

    # The impostor played once; removed, their play goes and their token stops working.
    rack = client.post(f"/api/games/{gid}/start", headers=bearer(alice)).get_json()["rack"]
    word, _phony = plays(app, rack)
    play = f"/api/games/{gid}/rounds/1/plays"
    assert client.post(play, json={"move": word}, headers=bearer(fake["token"])).status_code == 200
    assert client.delete(f"/api/games/{gid}/players/{fake['player_id']}", headers=bearer(alice)).status_code == 204
    assert client.post(play, json={"move": word}, headers=bearer(fake["token"])).status_code == 401
    assert rows(app, Submission, player_id=fake["player_id"]) == 0
    assert client.post(play, json={"move": word}, headers=bearer(zoe["token"])).status_code == 200
    client.post(f"/api/games/{gid}/close", headers=bearer(alice))
    names = [s["name"] for s in client.get(f"/api/games/{gid}/standings").get_json()["standings"]]
    assert sorted(names) == ["Bobby", "Zoe"]

    # Closed to newcomers: a clear refusal, the players already in stay; opened again, joins are taken.
    assert client.post(f"/api/games/{gid}/lock", headers=bearer(alice)).get_json()["locked"] is True
    answer = client.post("/api/join", json={"code": code, "name": "Late"}, **at(CLUB))
    assert answer.status_code == 403 and "closed this game to new players" in answer.get_json()["error"]
    phone = app.test_client()
    token = csrf_token(phone, "/join")
    page = phone.post(
        "/join", data={"csrf_token": token, "code": code, "name": "Late"}, headers={"Accept-Language": "fr"}
    )
    assert page.status_code == 400 and "fermé cette partie" in text_of(page.get_data(as_text=True))
    assert client.post(f"/api/games/{gid}/unlock", headers=bearer(alice)).get_json()["locked"] is False
    assert api_join(client, code, "Late")["name"] == "Late"
    kinds = [e["kind"] for e in _sse_data(client.get(f"/api/games/{gid}/events?timeout=0").get_data(as_text=True))]
    assert {"renamed", "removed", "locked", "unlocked"} <= set(kinds)

    # The console does the same from the page.
    director = app.test_client()
    assert page_login(director, "alice", PASSWORD).status_code == 303
    console = text_of(director.get(f"/director/games/{gid}").get_data(as_text=True))
    assert "The room is open" in console and "Remove Late from the standings" in console
    token = csrf_token(director, f"/director/games/{gid}")
    late = next(
        p
        for p in client.get(f"/api/games/{gid}/players", headers=bearer(alice)).get_json()["players"]
        if p["name"] == "Late"
    )
    assert (
        director.post(
            f"/director/games/{gid}/players/{late['player_id']}/rename", data={"csrf_token": token, "name": "Laetitia"}
        ).status_code
        == 303
    )
    assert director.post(f"/director/games/{gid}/lock", data={"csrf_token": token}).status_code == 303
    console = text_of(director.get(f"/director/games/{gid}").get_data(as_text=True))
    assert "The room is closed" in console and "Laetitia" in console
    assert (
        director.post(
            f"/director/games/{gid}/players/{late['player_id']}/remove", data={"csrf_token": token}
        ).status_code
        == 303
    )
    assert "Laetitia" not in text_of(director.get(f"/director/games/{gid}").get_data(as_text=True))


def test_joins_from_one_address_are_limited(app: Flask, client: FlaskClient, directors: None) -> None:
    """A join flood made 5,000 fake players in 55 s with the public code (issue 14): joins per address count."""
    app.config["TIRAGE_RATELIMIT_JOINED"] = "5/minute"
    game = new_game(client, token_for(client))
    for n in range(5):
        api_join(client, game["join_code"], f"Flood {n}")
    assert_429(
        client.post("/api/join", json={"code": game["join_code"], "name": "Flood 5"}, **at(CLUB)),
        "too many players joined from your network",
    )
    api_join(client, game["join_code"], "Elsewhere", address="192.0.2.10")  # another address is not held back
    assert rows(app, Player, game_id=game["id"]) == 6


def test_refused_codes_from_every_address_share_one_cap(app: Flask, client: FlaskClient, directors: None) -> None:
    """The cap on all addresses together is what makes guessing a code hopeless (300 a minute by default);
    the games' and the word walls' join pages count in the same pool."""
    game = new_game(client, token_for(client))
    guessers = [f"203.0.113.{n}" for n in range(1, 16)]  # 15 addresses x 20 refused codes = the default cap
    walls = app.test_client()
    wall_token = csrf_token(walls, "/walls/join")
    for address in guessers:
        for n in range(19):
            answer = client.post("/api/join", json={"code": f"Z{n:05d}", "name": "x"}, **at(address))
            assert answer.status_code == 404, (address, n)
        wall = walls.post("/walls/join", data={"csrf_token": wall_token, "code": "NOWALL", "name": "x"}, **at(address))
        assert wall.status_code == 400 and "NOWALL" in text_of(wall.get_data(as_text=True))
    assert_429(
        client.post("/api/join", json={"code": "ZZZZZZ", "name": "x"}, **at("192.0.2.99")), "tried on this server"
    )
    assert_429(
        client.post("/api/join", json={"code": game["join_code"], "name": "Ann"}, **at("192.0.2.99")),
        "tried on this server",
    )
    assert rows(app, Player) == 0


# ---------------------------------------------------------------- rate limits: logging in


def test_refused_logins_are_limited_per_address_and_per_name_from_it(
    app: Flask, client: FlaskClient, directors: None
) -> None:
    with app.app_context():
        accounts.create_learner("alice", PASSWORD)
    for credentials in (
        {},
        {"username": "carol"},
        {"password": "x"},
        {"username": ["alice"], "password": 1},
        {"username": " ", "password": "x"},
    ):
        for _ in range(6):  # no name and password: nobody's password was tried, so they do not count
            assert client.post("/api/auth/token", json=credentials, **at("192.0.2.1")).status_code == 401
    assert (
        client.post("/api/auth/token", json={"username": "alice", "password": "wrong"}, **at("192.0.2.1")).status_code
        == 401
    )

    for n in range(9):  # with the one above: 10 wrong passwords for alice from one address
        answer = client.post("/api/auth/token", json={"username": "alice", "password": f"wrong{n}"}, **at("192.0.2.1"))
        assert answer.status_code == 401, n
    assert_429(
        client.post("/api/auth/token", json={"username": "bruno", "password": PASSWORD}, **at("192.0.2.1")),
        "too many failed logins",
    )
    # Per name, from that address only: ten wrong passwords from one address do not lock alice out of her
    # account from hers (a guesser must not be able to keep the owner out); bruno logs in elsewhere too.
    assert token_for(client, "alice", "192.0.2.2")
    assert page_login(app.test_client(), " alice", PASSWORD, "192.0.2.3").status_code == 303
    assert token_for(client, "bruno", "192.0.2.2")
    # The same name from another address of the guesser's counts on its own: nine more, then it waits there.
    for n in range(10):
        answer = client.post("/api/auth/token", json={"username": "alice", "password": f"again{n}"}, **at("192.0.2.9"))
        assert answer.status_code == 401, n
    assert_429(
        client.post("/api/auth/token", json={"username": "alice", "password": PASSWORD}, **at("192.0.2.9")),
        "too many failed logins",
    )
    # A learner named alice is another account: her study login is not held back.
    learner = page_login(app.test_client(), "alice", PASSWORD, "192.0.2.4", path="/study/login")
    assert learner.status_code == 303

    # The pages count per address too, director and learner logins together.
    browser = app.test_client()
    for n in range(5):
        assert page_login(browser, f"nobody{n}", "wrong", "192.0.2.5").status_code == 400
        assert page_login(browser, f"nobody{n}", "wrong", "192.0.2.5", path="/study/login").status_code == 400
    page = page_login(browser, "bruno", PASSWORD, "192.0.2.5", path="/study/login", **{"Accept-Language": "fr"})
    assert_429(page, "Trop de connexions refusées")


# ---------------------------------------------------------------- rate limits: handing in plays


def test_plays_are_limited_per_player_not_per_address(app: Flask, client: FlaskClient, directors: None) -> None:
    alice = token_for(client)
    game = new_game(client, alice, seed=SEED)
    gid = game["id"]
    ann, bob = api_join(client, game["join_code"], "Ann"), api_join(client, game["join_code"], "Bob")
    cy = app.test_client()
    assert page_join(cy, game["join_code"], "Cy").status_code == 303
    state = client.post(f"/api/games/{gid}/start", headers=bearer(alice)).get_json()
    word, phony = plays(app, state["rack"])
    path = f"/api/games/{gid}/rounds/1/plays"
    for n in range(30):  # a player who changes their mind 30 times in a minute: still taken
        answer = client.post(path, json={"move": (word, phony, "8H")[n % 3]}, headers=bearer(ann["token"]), **at(CLUB))
        assert answer.status_code in (200, 422), (n, answer.get_json())
    before = rows(app, Submission), rows(app, Event)
    assert_429(
        client.post(path, json={"move": word}, headers=bearer(ann["token"]), **at(CLUB)),
        "too many plays handed in within a minute",
    )
    assert (rows(app, Submission), rows(app, Event)) == before  # the refused play is not stored
    assert rows(app, Submission, player_id=ann["player_id"]) == 20
    # Bob, from the same address, is not affected.
    assert client.post(path, json={"move": word}, headers=bearer(bob["token"]), **at(CLUB)).status_code == 200

    for n in range(30):  # the phone page counts its player the same way
        assert page_submit(cy, gid, (word, phony)[n % 2]).get_json()["ok"] is True
    answer = page_submit(cy, gid, word)
    assert_429(answer, "Too many plays handed in within a minute")
    assert answer.get_json()["ok"] is False  # the page's script shows the error next to the play
    page = page_submit(cy, gid, word, json=False, headers={"Accept-Language": "fr"})
    assert_429(page, "Trop de coups")


def test_limits_can_be_switched_off_and_redis_down_never_fails_a_request(app: Flask, directors: None) -> None:
    off = create_app({"TESTING": True, "RATELIMIT_ENABLED": False})
    client = off.test_client()
    for n in range(25):
        assert client.post("/api/join", json={"code": f"NOPE{n:02d}", "name": "x"}).status_code == 404
    # A Redis that does not answer: the limits are skipped (logged), players still join and play.
    down = create_app({"TESTING": True, "TIRAGE_REDIS_URL": "redis://127.0.0.1:1/0"})
    client = down.test_client()
    game = new_game(client, token_for(client))
    for n in range(25):
        assert client.post("/api/join", json={"code": f"NOPE{n:02d}", "name": "x"}).status_code == 404
    assert client.post("/api/join", json={"code": game["join_code"], "name": "Ann"}).status_code == 201
    for application in (off, down):
        with application.app_context():
            db.session.remove()
            for engine in db.engines.values():
                engine.dispose()


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A throwaway Redis server on a Unix socket (as ``REDIS_URL`` names one)."""
    server = RedisServer()
    yield server.url
    server.stop()


def test_web_processes_share_counts_through_redis(app: Flask, redis_url: str) -> None:
    """Two applications on one Redis, as two processes of one server: refused codes add up."""
    prefix = f"test-{secrets.token_hex(4)}"
    first, second = (
        create_app({"TESTING": True, "TIRAGE_REDIS_URL": redis_url, "RATELIMIT_KEY_PREFIX": prefix}) for _ in range(2)
    )
    for n in range(10):
        for application in (first, second):
            answer = application.test_client().post("/api/join", json={"code": f"NOPE{n:02d}", "name": "x"})
            assert answer.status_code == 404
    assert_429(second.test_client().post("/api/join", json={"code": "NOPE99", "name": "x"}), "from your network")
    assert_429(first.test_client().post("/api/join", json={"code": "NOPE99", "name": "x"}), "from your network")
    for application in (first, second):
        with application.app_context():
            db.session.remove()
            for engine in db.engines.values():
                engine.dispose()


# ---------------------------------------------------------------- headers and cookies


def test_every_answer_has_the_security_headers(app: Flask, client: FlaskClient, directors: None) -> None:
    game = new_game(client, token_for(client))
    answers = {
        "page": client.get("/"),
        "api": client.get(f"/api/games/{game['id']}"),
        "static": client.get("/static/tirage.css"),
        "error page": client.get("/no-such-page"),
        "api error": client.get("/api/games/999999"),
        "event stream": client.get(f"/api/games/{game['id']}/events?timeout=0"),
        "redirect": client.get("/director/"),
    }
    assert [
        answers["page"].status_code,
        answers["error page"].status_code,
        answers["api error"].status_code,
        answers["static"].status_code,
    ] == [200, 404, 404, 200]
    for kind, answer in answers.items():
        for name, value in EXPECTED_HEADERS.items():
            assert answer.headers.get(name) == value, (kind, name)
        assert "camera=()" in answer.headers["Permissions-Policy"], kind
        assert "Strict-Transport-Security" not in answer.headers, kind  # plain http: never promise https
        answer.close()


def _cookie(answer: Any, name: str) -> str:
    found = [c for c in answer.headers.getlist("Set-Cookie") if c.startswith(f"{name}=")]
    assert len(found) == 1, answer.headers.getlist("Set-Cookie")
    return str(found[0])


def _attributes(cookie: str) -> set[str]:
    return {part.strip().lower() for part in cookie.split(";")[1:]}


def test_cookies_are_http_only_and_same_site(app: Flask, client: FlaskClient, directors: None) -> None:
    answer = page_login(client, "alice", PASSWORD)
    assert answer.status_code == 303
    for name in ("session", "remember_token"):
        attributes = _attributes(_cookie(answer, name))
        assert {"httponly", "samesite=lax"} <= attributes, (name, attributes)
        assert "secure" not in attributes, name  # plain http: a Secure cookie would never come back
    language = client.get("/?lang=fr")
    assert {"httponly", "samesite=lax"} <= _attributes(_cookie(language, "tirage_lang"))


def _browser_with(app: Flask, cookies: dict[str, str]) -> FlaskClient:
    """Another browser holding copies of ``cookies`` (as a thief who copied them would)."""
    browser = app.test_client()
    for name, value in cookies.items():
        browser.set_cookie(name, value)
    return browser


def _cookies(client: FlaskClient, *names: str) -> dict[str, str]:
    found = {name: client.get_cookie(name) for name in names}
    assert all(found.values()), found
    return {name: cookie.value for name, cookie in found.items() if cookie is not None}


def _logged_in(browser: FlaskClient) -> bool:
    return browser.get("/director/").status_code == 200


def test_logging_out_ends_every_copy_of_the_login(app: Flask, client: FlaskClient, directors: None) -> None:
    """Issue 14: cookies copied before logout still worked, and the remember cookie was the same at every login."""
    assert page_login(client, "alice", PASSWORD).status_code == 303
    copied = _cookies(client, "session", "remember_token")
    assert _logged_in(_browser_with(app, copied)) and _logged_in(
        _browser_with(app, {"remember_token": copied["remember_token"]})
    )
    again = app.test_client()
    assert page_login(again, "alice", PASSWORD).status_code == 303
    assert _cookies(again, "remember_token")["remember_token"] != copied["remember_token"]  # a login of its own
    expires = client.get_cookie("remember_token").expires  # type: ignore[union-attr]
    assert expires is not None and 29 <= (expires - datetime.now(UTC)).days <= 30

    token = csrf_token(client, "/director/")
    assert client.post("/director/logout", data={"csrf_token": token}).status_code == 303
    for cookies in (copied, {"session": copied["session"]}, {"remember_token": copied["remember_token"]}):
        assert not _logged_in(_browser_with(app, cookies)), list(cookies)
    assert _logged_in(again)  # the other login goes on


def test_a_remember_cookie_is_exchanged_each_time_it_brings_a_browser_back(
    app: Flask, client: FlaskClient, directors: None
) -> None:
    assert page_login(client, "alice", PASSWORD).status_code == 303
    first = _cookies(client, "remember_token")
    came_back = _browser_with(app, first)  # the browser was closed: the session cookie is gone
    assert _logged_in(came_back)
    second = _cookies(came_back, "remember_token")
    assert second != first
    assert _logged_in(_browser_with(app, first))  # the browser's other requests of the moment still count
    with app.app_context():  # a minute later, the replaced cookie has ended
        db.session.execute(
            update(LoginSession)
            .where(LoginSession.expires_at < utcnow() + timedelta(minutes=2))
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
        db.session.commit()
    assert not _logged_in(_browser_with(app, first))
    assert _logged_in(_browser_with(app, second)) and _logged_in(came_back)


def test_a_new_password_ends_every_other_login_and_api_token(app: Flask, client: FlaskClient, directors: None) -> None:
    assert page_login(client, "alice", PASSWORD).status_code == 303
    laptop = app.test_client()
    assert page_login(laptop, "alice", PASSWORD).status_code == 303
    remembered = _cookies(laptop, "remember_token")
    api = token_for(client)
    assert client.get("/account/password").status_code == 200
    token = csrf_token(client, "/account/password")
    form = {"csrf_token": token, "current": PASSWORD, "new": "another-pass-1", "again": "another-pass-1"}
    wrong = client.post("/account/password", data={**form, "current": "not-it-at-all"})
    assert wrong.status_code == 400 and "not your current password" in text_of(wrong.get_data(as_text=True))
    short = client.post("/account/password", data={**form, "new": "short", "again": "short"})
    assert short.status_code == 400 and "at least 8 characters" in text_of(short.get_data(as_text=True))
    assert client.post("/account/password", data=form).status_code == 303
    assert _logged_in(client)  # this browser goes on, with a new login
    assert not _logged_in(laptop) and not _logged_in(_browser_with(app, remembered))
    answer = client.post("/api/games", json={}, headers=bearer(api))
    assert answer.status_code == 401  # the token signed before the change
    assert page_login(app.test_client(), "alice", PASSWORD).status_code == 400
    assert page_login(app.test_client(), "alice", "another-pass-1").status_code == 303
    # A learner's password works the same way.
    learner = app.test_client()
    signup = csrf_token(learner, "/study/signup")
    learner.post("/study/signup", data={"csrf_token": signup, "username": "lea", "password": PASSWORD})
    other = app.test_client()
    assert page_login(other, "lea", PASSWORD, path="/study/login").status_code == 303
    token = csrf_token(learner, "/account/password")
    assert learner.post("/account/password", data={**form, "csrf_token": token}).status_code == 303
    assert other.get("/study/").status_code == 302 and learner.get("/study/").status_code == 200


def test_wrong_current_passwords_are_limited_per_account(app: Flask, client: FlaskClient, directors: None) -> None:
    """A stolen login could try password after password on the password form: ten wrong ones an hour per account
    (TIRAGE_RATELIMIT_PASSWORD), counted across its logins and addresses; another account is not held back."""
    assert page_login(client, "alice", PASSWORD).status_code == 303
    laptop = app.test_client()
    assert page_login(laptop, "alice", PASSWORD, "192.0.2.8").status_code == 303
    form = {"csrf_token": csrf_token(client, "/account/password"), "new": "another-pass-1", "again": "another-pass-1"}
    for n in range(10):
        wrong = client.post("/account/password", data={**form, "current": f"guess-{n}"})
        assert wrong.status_code == 400 and "not your current password" in text_of(wrong.get_data(as_text=True))
    # The eleventh waits, from the account's other login and address, the right password too.
    token = csrf_token(laptop, "/account/password")
    held = laptop.post("/account/password", data={**form, "csrf_token": token, "current": PASSWORD}, **at("192.0.2.8"))
    assert held.status_code == 429 and int(held.headers["Retry-After"]) > 60
    said = text_of(held.get_data(as_text=True))
    assert "Too many wrong current passwords were given for this account" in said
    assert page_login(app.test_client(), "alice", PASSWORD).status_code == 303  # logging in is another matter
    bruno = app.test_client()
    assert page_login(bruno, "bruno", PASSWORD).status_code == 303
    token = csrf_token(bruno, "/account/password")
    assert bruno.post("/account/password", data={**form, "csrf_token": token, "current": PASSWORD}).status_code == 303


def test_behind_https_cookies_are_secure_and_hsts_is_sent(
    app: Flask, directors: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIRAGE_HTTPS", "1")
    secure = create_app({"TESTING": True})
    client = secure.test_client()
    client_args = {"base_url": "https://club.example"}
    token = re.search(
        r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"',
        client.get("/director/login", **client_args).get_data(as_text=True),
    )
    assert token
    answer = client.post(
        "/director/login",
        data={"csrf_token": token.group(1), "username": "alice", "password": PASSWORD},
        **client_args,
        headers={"Referer": "https://club.example/director/login"},
    )  # Flask-WTF checks it on https
    assert answer.status_code == 303
    for name in ("session", "remember_token"):
        assert {"httponly", "samesite=lax", "secure"} <= _attributes(_cookie(answer, name)), name
    assert "secure" in _attributes(_cookie(client.get("/?theme=contrast", **client_args), "tirage_theme"))
    assert answer.headers["Strict-Transport-Security"].startswith("max-age=")
    with secure.app_context():
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()


def test_the_secret_key_is_made_once_readable_by_its_owner_only(app: Flask) -> None:
    key_file = Path(app.instance_path) / "secret_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key_file.chmod(0o644)  # as an older version, or a careless copy, left it
    again = create_app({"TESTING": True})
    assert again.config["SECRET_KEY"] == app.config["SECRET_KEY"] == key_file.read_text("ascii").strip()
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    with again.app_context():
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()


# ---------------------------------------------------------------- acting as someone else


def test_a_player_acts_only_as_themselves(app: Flask, client: FlaskClient, directors: None) -> None:
    alice = token_for(client)
    game, other = new_game(client, alice, seed=SEED), new_game(client, alice, seed=SEED + 1)
    ann, bob = api_join(client, game["join_code"], "Ann"), api_join(client, game["join_code"], "Bob")
    rack = client.post(f"/api/games/{game['id']}/start", headers=bearer(alice)).get_json()["rack"]
    client.post(f"/api/games/{other['id']}/start", headers=bearer(alice))
    word, _phony = plays(app, rack)
    path = f"/api/games/{game['id']}/rounds/1/plays"
    # Bob names Ann in the body: the token decides who plays, the body's claims are ignored.
    answer = client.post(
        path,
        json={"move": word, "player_id": ann["player_id"], "name": "Ann", "token": ann["token"]},
        headers=bearer(bob["token"]),
    )
    assert answer.status_code == 200
    assert rows(app, Submission, player_id=bob["player_id"]) == 1
    assert rows(app, Submission, player_id=ann["player_id"]) == 0
    before = rows(app, Submission), rows(app, Event)
    for made_up in ("x" * 32, secrets.token_urlsafe(24), ann["token"][:-1], f"{ann['token']}x"):
        answer = client.post(path, json={"move": word}, headers=bearer(made_up))
        assert answer.status_code == 401 and "join the game again" in answer.get_json()["error"], made_up
    assert (rows(app, Submission), rows(app, Event)) == before

    # A phone's session for one game opens no other game.
    phone = app.test_client()
    assert page_join(phone, game["join_code"], "Cy").status_code == 303
    assert phone.get(f"/play/{game['id']}").status_code == 200
    assert phone.get(f"/play/{other['id']}").headers["Location"] == "/join"
    assert phone.get(f"/play/{other['id']}/live").status_code == 403
    token = csrf_token(phone, f"/play/{game['id']}")
    answer = phone.post(f"/play/{other['id']}/submit", data={"csrf_token": token, "round": "1", "move": word})
    assert answer.status_code == 303 and answer.headers["Location"] == "/join"
    assert rows(app, Submission) == before[0]


def _expired_director_token(app: Flask, director_id: int) -> str:
    """A token signed by this server 25 hours ago (itsdangerous reads the signing time from the clock)."""
    serializer = URLSafeTimedSerializer(app.config["SECRET_KEY"], salt="tirage-director")
    signer = cast(TimestampSigner, serializer.make_signer())
    signer.get_timestamp = lambda: int(time.time()) - 25 * 3600  # type: ignore[method-assign]
    payload = serializer.dump_payload({"director": director_id})
    return signer.sign(payload).decode()


def _round_one_closed(app: Flask, client: FlaskClient, director: str) -> tuple[int, dict[str, Any], str]:
    """A game of ``director`` with Ann in it, its first round played and closed: its id, Ann, a top."""
    game = new_game(client, director, seed=SEED)
    gid = game["id"]
    ann = api_join(client, game["join_code"], "Ann")
    client.post(f"/api/games/{gid}/start", headers=bearer(director))
    client.post(f"/api/games/{gid}/close", headers=bearer(director))
    return gid, ann, (the_round(app, gid, 1).tops or [""])[0]


def test_every_director_action_of_the_api_needs_the_games_own_director(
    app: Flask, client: FlaskClient, directors: None
) -> None:
    """What tests/test_api.py leaves out: junk, expired and foreign-server tokens on every action, and
    no token, a player's token or another director on extend, top and corrections."""
    alice, bruno = token_for(client), token_for(client, "bruno")
    gid, ann, top = _round_one_closed(app, client, alice)
    with app.app_context():
        alice_id = db.session.execute(select(Director.id).where(Director.username == "alice")).scalar_one()
    foreign = URLSafeTimedSerializer("another server's key", salt="tirage-director").dumps({"director": alice_id})
    actions: list[tuple[str, dict[str, Any] | None]] = [
        ("start", None),
        ("pause", None),
        ("resume", None),
        ("close", None),
        ("next", None),
        ("end", None),
        ("extend", {"seconds": 30}),
        ("rounds/1/top", {"move": top}),
        ("rounds/1/corrections", {"player_id": ann["player_id"], "score": 5, "reason": "x"}),
    ]
    refusals = {
        None: 401,
        "junk": 401,
        _expired_director_token(app, alice_id): 401,
        foreign: 401,
        ann["token"]: 403,
        bruno: 403,
    }
    events = rows(app, Event, game_id=gid)
    for action, body in actions:
        for token, status in refusals.items():
            headers = bearer(token) if token else {}
            answer = client.post(f"/api/games/{gid}/{action}", json=body or {}, headers=headers)
            assert answer.status_code == status, (action, token, answer.get_json())
            assert answer.get_json()["error"], (action, token)
    assert rows(app, Event, game_id=gid) == events  # nothing happened
    # The game's own director gets past the check (the game's state decides the rest).
    assert client.post(f"/api/games/{gid}/rounds/1/top", json={"move": top}, headers=bearer(alice)).status_code == 200


def test_every_director_action_of_the_pages_needs_the_games_own_director(
    app: Flask, client: FlaskClient, directors: None
) -> None:
    alice = token_for(client)
    gid, ann, top = _round_one_closed(app, client, alice)
    bruno = app.test_client()
    assert page_login(bruno, "bruno", PASSWORD).status_code == 303
    token = csrf_token(bruno, "/director/")
    events = rows(app, Event, game_id=gid)
    for action, data in [
        ("start", {}),
        ("pause", {}),
        ("resume", {}),
        ("toggle", {}),
        ("close", {}),
        ("next", {}),
        ("end", {}),
        ("extend", {"seconds": "30"}),
        ("rounds/1/top", {"move": top}),
        ("rounds/1/corrections", {"player_id": str(ann["player_id"]), "score": "5", "reason": "x"}),
    ]:
        answer = bruno.post(f"/director/games/{gid}/{action}", data={"csrf_token": token, **data})
        assert answer.status_code == 403, action
    assert bruno.get(f"/director/games/{gid}/export.gcg").status_code == 403
    assert bruno.get(f"/director/games/{gid}/live").status_code == 403
    assert rows(app, Event, game_id=gid) == events


# ---------------------------------------------------------------- secrets kept until their time


# ("tops" in the standings is how many tops a player found in closed rounds: not a secret.)
HIDDEN_KEYS = {"seed", "top_score", "placed", "best_plays", "legal_scores", "valid", "invalid_words"}


def _keys(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in _keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in _keys(v)}
    return set()


def _sse_data(body: str) -> list[dict[str, Any]]:
    return [json.loads(line[len("data: ") :]) for line in body.splitlines() if line.startswith("data: ")]


def test_the_seed_the_next_rack_and_the_top_stay_hidden_until_their_time(
    app: Flask, client: FlaskClient, directors: None
) -> None:
    alice, bruno = token_for(client), token_for(client, "bruno")
    game = new_game(client, alice, seed=SEED)
    gid = game["id"]
    ann = api_join(client, game["join_code"], "Ann")
    bob = app.test_client()
    assert page_join(bob, game["join_code"], "Bob").status_code == 303
    director = app.test_client()
    assert page_login(director, "alice", PASSWORD).status_code == 303
    client.post(f"/api/games/{gid}/start", headers=bearer(alice))

    def seen() -> dict[str, Any]:
        return {
            "state (anonymous)": client.get(f"/api/games/{gid}").get_json(),
            "state (player)": client.get(f"/api/games/{gid}", headers=bearer(ann["token"])).get_json(),
            "state (another director)": client.get(f"/api/games/{gid}", headers=bearer(bruno)).get_json(),
            "standings": client.get(f"/api/games/{gid}/standings").get_json(),
            "round": client.get(f"/api/games/{gid}/rounds/1").get_json(),
            "events": _sse_data(client.get(f"/api/games/{gid}/events?timeout=0").get_data(as_text=True)),
            "quiet events": _sse_data(client.get(f"/api/games/{gid}/events?timeout=0&quiet=1").get_data(as_text=True)),
            "csv": client.get(f"/api/games/{gid}/export.csv").get_data(as_text=True),
            "gcg": client.get(f"/api/games/{gid}/export.gcg").get_data(as_text=True),
            "phone": bob.get(f"/play/{gid}").get_data(as_text=True),
            "phone live": bob.get(f"/play/{gid}/live").get_data(as_text=True),
            "projector": director.get(f"/games/{gid}/projector").get_data(as_text=True),
            "projector live": director.get(f"/games/{gid}/projector/live").get_data(as_text=True),
        }

    during = seen()
    first = the_round(app, gid, 1)
    top_score, tops = first.top_score, list(first.tops or [])
    long_words = [t.split()[1] for t in tops if len(t.split()[1]) >= 5]
    for kind, shown in during.items():
        text = shown if isinstance(shown, str) else repr(shown)
        assert str(SEED) not in text, kind
        assert not any(top in text for top in tops), kind
        assert not any(word in text for word in long_words), kind
        if not isinstance(shown, str):
            assert not _keys(shown) & HIDDEN_KEYS, (kind, _keys(shown) & HIDDEN_KEYS)
    assert during["standings"]["top_scores"] == []  # only closed rounds count
    for kind in ("phone", "phone live"):
        assert f"{top_score} points" not in text_of(during[kind]), kind
    for kind in ("projector", "projector live"):
        assert f'<span class="score">{top_score}</span>' not in during[kind], kind
        assert 'class="top-play"' not in during[kind], kind

    client.post(f"/api/games/{gid}/close", headers=bearer(alice))
    after = seen()  # the same checks can see the top once it is public
    assert tops[0] in after["phone live"] and f"{top_score} points" in text_of(after["phone live"])
    assert f'<span class="score">{top_score}</span>' in after["projector live"]
    assert after["round"]["top_score"] == top_score
    assert str(SEED) not in repr(after["state (player)"])  # still hidden until the game is over
    client.post(f"/api/games/{gid}/next", headers=bearer(alice))
    second = the_round(app, gid, 2)
    for kind, shown in during.items():
        text = shown if isinstance(shown, str) else repr(shown)
        assert second.rack not in text and "".join(sorted(second.rack)) not in text, kind
    assert client.get(f"/api/games/{gid}").get_json()["rack"] == second.rack  # and it is shown once drawn
    client.post(f"/api/games/{gid}/end", headers=bearer(alice))
    assert client.get(f"/api/games/{gid}").get_json()["settings"]["seed"] == str(SEED)  # public once the game is over


def test_game_ids_cannot_be_found_by_counting(app: Flask, client: FlaskClient, directors: None) -> None:
    """docs/rules.md §6.4, "Shared draws": a game's id is drawn at random below 2**53, so counting finds nothing."""
    alice = token_for(client)
    ids = [new_game(client, alice)["id"] for _ in range(5)]
    assert all(2**32 <= gid < 2**53 for gid in ids) and len(set(ids)) == 5
    assert max(ids) - min(ids) > 1000  # not counted one after the other
    for gid in ids:
        assert client.get(f"/api/games/{gid + 1}").status_code == 404
        assert client.get(f"/api/games/{gid - 1}/rounds/1").status_code == 404
    assert client.get(f"/api/games/{2**53}").status_code == 404  # past any game id: a 404, never a 500


def test_a_game_sharing_its_draw_shows_outsiders_nothing_until_the_other_game_closed_the_round(
    app: Flask, client: FlaskClient, directors: None
) -> None:
    """docs/rules.md §6.4, "Shared draws": game 3's open-round tops were read from game 2 (same seed) (issue 14)."""
    alice, bruno = token_for(client), token_for(client, "bruno")
    first = new_game(client, alice, seed=SEED)
    gid = first["id"]
    ann = api_join(client, first["join_code"], "Ann")
    client.post(f"/api/games/{gid}/start", headers=bearer(alice))
    client.post(f"/api/games/{gid}/close", headers=bearer(alice))
    public = [
        f"/api/games/{gid}",
        f"/api/games/{gid}/rounds/1",
        f"/api/games/{gid}/standings",
        f"/api/games/{gid}/export.csv",
        f"/api/games/{gid}/export.gcg",
        f"/api/games/{gid}/events?timeout=0",
    ]
    assert all(client.get(path).status_code == 200 for path in public)  # alone with its draw: public once closed
    client.post(f"/api/games/{gid}/next", headers=bearer(alice))  # round 2 of the first game is open

    # Bruno's club plays the same draw (the same seed, the same rules), an hour behind. Its lobby has shown
    # nothing and holds nobody back (issue 26); the embargo starts as it opens round 1.
    second = new_game(client, bruno, seed=SEED)
    cleo = api_join(client, second["join_code"], "Cleo")
    assert all(client.get(path).status_code == 200 for path in public)
    sid = second["id"]
    client.post(f"/api/games/{sid}/start", headers=bearer(bruno))
    for path in public:
        answer = client.get(path)
        assert answer.status_code == 403, path
        assert "shares its draw with another game" in answer.get_json()["error"], path
        assert client.get(path, headers=bearer(cleo["token"])).status_code == 403, path  # a player of the other
        assert client.get(path, headers=bearer(bruno)).status_code == 403, path  # its director, who knows the seed
    for inside in (bearer(alice), bearer(ann["token"])):  # the first game's own people see it as before
        assert all(client.get(path, headers=inside).status_code == 200 for path in public)
    phone = app.test_client()  # a phone of the first game, by its session
    assert page_join(phone, first["join_code"], "Dan").status_code == 303
    assert phone.get(f"/api/games/{gid}/rounds/1").status_code == 200
    director = app.test_client()
    assert page_login(director, "alice", PASSWORD).status_code == 303
    assert director.get(f"/api/games/{gid}/standings").status_code == 200
    stranger = app.test_client()
    assert page_login(stranger, "bruno", PASSWORD).status_code == 303
    assert stranger.get(f"/api/games/{gid}/standings").status_code == 403

    # The first game's log says so; the second game shows its own rounds to everyone (nobody is behind it).
    kinds = [
        e["kind"]
        for e in _sse_data(
            client.get(f"/api/games/{gid}/events?timeout=0", headers=bearer(alice)).get_data(as_text=True)
        )
    ]
    assert kinds.index("draw_shared") > kinds.index("round_started")
    assert client.get(f"/api/games/{sid}").status_code == 200
    client.post(f"/api/games/{sid}/close", headers=bearer(bruno))
    assert client.get(f"/api/games/{gid}").status_code == 403  # the first game has shown round 2's rack
    client.post(f"/api/games/{sid}/next", headers=bearer(bruno))
    client.post(f"/api/games/{sid}/close", headers=bearer(bruno))
    assert all(client.get(path).status_code == 200 for path in public)  # round 2 closed by both: public again
    client.post(f"/api/games/{gid}/close", headers=bearer(alice))
    client.post(f"/api/games/{gid}/next", headers=bearer(alice))
    assert client.get(f"/api/games/{gid}").status_code == 403  # round 3 drawn by the first game only
    client.post(f"/api/games/{sid}/end", headers=bearer(bruno))
    assert client.get(f"/api/games/{gid}").status_code == 200  # the other game is over: nothing left to spoil


def _shape(html: str, *secrets_: str) -> str:
    """A page with what differs between two players blanked out: name, play, numbers, CSRF token, the player's
    own game token and record link."""
    for secret in secrets_:
        html = html.replace(secret, "…")
    html = re.sub(r'(name="csrf_token" (?:type="hidden" )?value=)"[^"]+"', r"\1", html)
    html = re.sub(r'(data-token=)"[^"]+"', r"\1", html)
    html = re.sub(r'(href="/play/rounds/)[^"]+"', r"\1", html)  # the player's own "My rounds" link
    return re.sub(r"\d+", "#", html)


def test_a_words_validity_does_not_show_before_the_reveal(app: Flask, client: FlaskClient, directors: None) -> None:
    alice = token_for(client)
    game = new_game(client, alice, seed=SEED)
    gid = game["id"]
    ann, dan = api_join(client, game["join_code"], "Ann"), api_join(client, game["join_code"], "Dan")
    bob, cy = app.test_client(), app.test_client()
    assert page_join(bob, game["join_code"], "Zebulon").status_code == 303
    assert page_join(cy, game["join_code"], "Quintus").status_code == 303
    rack = client.post(f"/api/games/{gid}/start", headers=bearer(alice)).get_json()["rack"]
    word, phony = plays(app, rack)

    path = f"/api/games/{gid}/rounds/1/plays"
    valid = client.post(path, json={"move": word}, headers=bearer(ann["token"]))
    invalid = client.post(path, json={"move": phony}, headers=bearer(dan["token"]))
    assert valid.status_code == invalid.status_code == 200
    assert set(valid.get_json()) == set(invalid.get_json()) == {"round", "move", "score", "received_at"}

    answers = page_submit(bob, gid, word), page_submit(cy, gid, phony)
    assert [a.status_code for a in answers] == [200, 200]
    assert [set(a.get_json()) for a in answers] == [{"ok", "move", "score"}] * 2
    assert answers[0].get_json()["ok"] is answers[1].get_json()["ok"] is True
    moves = [a.get_json()["move"] for a in answers]
    pages = [b.get(f"/play/{gid}/live").get_data(as_text=True) for b in (bob, cy)]
    assert _shape(pages[0], "Zebulon", moves[0]) == _shape(pages[1], "Quintus", moves[1])
    full = [b.get(f"/play/{gid}").get_data(as_text=True) for b in (bob, cy)]
    assert _shape(full[0], "Zebulon", moves[0]) == _shape(full[1], "Quintus", moves[1])
    assert all("not valid" not in text_of(page) for page in pages + full)

    client.post(f"/api/games/{gid}/close", headers=bearer(alice))
    revealed = [b.get(f"/play/{gid}/live").get_data(as_text=True) for b in (bob, cy)]
    assert "not valid" not in text_of(revealed[0]) and "not valid" in text_of(revealed[1])


def test_the_address_comes_from_the_server_not_from_a_header(app: Flask, client: FlaskClient) -> None:
    """A client cannot dodge the per-address count by claiming another address in X-Forwarded-For
    (only the server in front, uvicorn with --forwarded-allow-ips, may rewrite the address)."""
    for n in range(20):
        answer = client.post(
            "/api/join",
            json={"code": f"NOPE{n:02d}", "name": "x"},
            headers={"X-Forwarded-For": f"10.0.0.{n}", "X-Real-IP": f"10.0.1.{n}"},
            **at("192.0.2.77"),
        )
        assert answer.status_code == 404
    assert_429(
        client.post(
            "/api/join",
            json={"code": "NOPE99", "name": "x"},
            headers={"X-Forwarded-For": "10.9.9.9"},
            **at("192.0.2.77"),
        ),
        "from your network",
    )


def test_numbers_posted_by_forms_are_read_strictly() -> None:
    """Rounds, players and cards come back from forms as text: only a database-sized whole number counts
    ("²" passes str.isdigit but not int(); a huge number overflowed the database: both were 500s)."""
    from trainer.http.ids import MAX_ID, posted_number

    assert MAX_ID == 2**31 - 1  # one bound for the API, the pages and the fast path: PostgreSQL's INTEGER
    for text, number in [
        ("1", 1),
        (" 12 ", 12),
        ("0", 0),
        (str(MAX_ID), MAX_ID),
        (str(MAX_ID + 1), None),
        ("9" * 5000, None),
        ("²", None),
        ("١", None),
        ("-1", None),
        ("1.0", None),
        ("", None),
        (None, None),
        ("0x10", None),
    ]:
        assert posted_number(text) == number, text
