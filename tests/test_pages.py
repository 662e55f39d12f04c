"""The pages through Flask's test client, on SQLite and PostgreSQL: who may see and do what, forms with
their CSRF tokens and errors, what a player's page shows (and hides) at each stage of a round.

The same flows in a real browser, with the JavaScript, are in tests/browser/.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from trainer.core import accounts
from trainer.core.database import db
from trainer.core.lexicons import lexicon_store
from trainer.engine.board import Board
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move
from trainer.engine.rules import ruleset
from trainer.games.models import Correction, Game, Player, Round, Submission

GAME_FORM: dict[str, Any] = {
    "rules": "en",
    "lexicon": "",
    "notation": "default",
    "variant": "classic",
    "preset": "",  # none: the times below (docs/rules.md §6.14)
    "round_seconds": "180",
    "reveal_seconds": "",
    "max_rounds": "",
    "solo_bonus": "10",
    "solo_min_players": "16",
    "warning_penalty": "5",
    "warnings_before_penalty": "3",
    "min_vowels": "2",
    "min_consonants": "2",
    "late_from_round": "16",
    "late_min_vowels": "1",
    "late_min_consonants": "1",
    "blanks_either": "y",
    "seed": "12345 67890 12345 67890",
}


def csrf_token(client: FlaskClient, path: str) -> str:
    """The CSRF token of the form on ``path``, as a browser would read it."""
    html = client.get(path).get_data(as_text=True)
    match = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', html)
    assert match, f"no CSRF token on {path}"
    return match.group(1)


def text_of(html: str) -> str:
    """The visible text of a page, spaces collapsed (enough to check what a reader sees)."""
    without_scripts = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", without_scripts))).strip()


@pytest.fixture
def director(app: Flask) -> str:
    with app.app_context():
        accounts.create_director("alice", "password123")
    return "alice"


def log_in(client: FlaskClient, username: str = "alice", password: str = "password123") -> None:
    token = csrf_token(client, "/director/login")
    answer = client.post("/director/login", data={"csrf_token": token, "username": username, "password": password})
    assert answer.status_code == 303, text_of(answer.get_data(as_text=True))


def new_game(client: FlaskClient, **changes: str) -> int:
    token = csrf_token(client, "/director/games/new")
    answer = client.post("/director/games/new", data={**GAME_FORM, **changes, "csrf_token": token})
    assert answer.status_code == 303, text_of(answer.get_data(as_text=True))
    return int(answer.headers["Location"].rsplit("/", 1)[1])


def act(client: FlaskClient, game_id: int, action: str, **data: str) -> Any:
    token = csrf_token(client, f"/director/games/{game_id}")
    path = f"/director/games/{game_id}/{action}"
    return client.post(path, data={"csrf_token": token, **data}, headers={"Accept": "application/json"})


def join(client: FlaskClient, code: str, name: str) -> Any:
    token = csrf_token(client, "/join")
    return client.post("/join", data={"csrf_token": token, "code": code, "name": name})


def submit(client: FlaskClient, game_id: int, move: str, json: bool = True, **headers: str) -> Any:
    token = csrf_token(client, f"/play/{game_id}")
    number = re.search(r'name="round" value="(\d+)"', client.get(f"/play/{game_id}").get_data(as_text=True))
    assert number
    accept = {"Accept": "application/json"} if json else {}
    return client.post(
        f"/play/{game_id}/submit",
        data={"csrf_token": token, "round": number.group(1), "move": move},
        headers={**accept, **headers},
    )


def join_code(app: Flask, game_id: int) -> str:
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        return game.join_code


def current_round(app: Flask, game_id: int) -> Round:
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        round_ = db.session.execute(
            select(Round).where(Round.game_id == game_id, Round.number == game.round_number)
        ).scalar_one()
        db.session.expunge(round_)
        return round_


def plays_of(app: Flask, round_: Round) -> list[tuple[str, int]]:
    """Every legal play of the round (from the engine, independently of what the round stored)."""
    rules = ruleset("en")
    with app.app_context():
        moves = generate_moves(
            Board(rules.layout, list(round_.board_before)), rules, lexicon_store().load("en"), round_.rack
        )
    return sorted(((format_move(m, "english"), m.score or 0) for m in moves), key=lambda p: -p[1])


@pytest.fixture
def room(app: Flask, client: FlaskClient, director: str) -> tuple[int, FlaskClient, FlaskClient]:
    """A game with two players who joined through the pages, started: (game id, Bob's browser, Cy's browser)."""
    log_in(client)
    game_id = new_game(client)
    code = join_code(app, game_id)
    bob, cy = app.test_client(), app.test_client()
    assert join(bob, code, "Bob").status_code == 303
    assert join(cy, code, "Cy").status_code == 303
    assert act(client, game_id, "start").get_json() == {"ok": True, "status": "playing"}
    return game_id, bob, cy


# ---------------------------------------------------------------- the director's pages


def test_director_pages_need_a_login_and_come_back_after_it(client: FlaskClient, director: str) -> None:
    answer = client.get("/director/games/new")
    assert answer.status_code == 302 and answer.headers["Location"].startswith("/director/login?next=")
    token = csrf_token(client, "/director/login")
    wrong = client.post("/director/login", data={"csrf_token": token, "username": "alice", "password": "nope-nope"})
    assert wrong.status_code == 400 and "Wrong director name or password." in text_of(wrong.get_data(as_text=True))
    right = client.post(
        "/director/login?next=/director/games/new",
        data={"csrf_token": token, "username": "alice", "password": "password123"},
    )
    assert right.status_code == 303 and right.headers["Location"] == "/director/games/new"


def test_login_never_redirects_to_another_site(client: FlaskClient, director: str) -> None:
    token = csrf_token(client, "/director/login")
    for target in ("//evil.example/", "https://evil.example/", "/\\evil.example"):
        answer = client.post(
            f"/director/login?next={target}", data={"csrf_token": token, "username": "alice", "password": "password123"}
        )
        assert answer.headers["Location"] == "/director/"


def test_forms_without_a_csrf_token_are_refused(app: Flask, client: FlaskClient, director: str) -> None:
    log_in(client)
    answer = client.post("/director/games/new", data=GAME_FORM)
    assert answer.status_code == 400 and "Form expired" in text_of(answer.get_data(as_text=True))
    with app.app_context():
        assert db.session.execute(select(func.count(Game.id))).scalar() == 0


def test_the_new_game_form_has_every_setting_with_its_default(app: Flask, client: FlaskClient, director: str) -> None:
    log_in(client)
    html = client.get("/director/games/new").get_data(as_text=True)
    for name, value in (
        ("round_seconds", "180"),
        ("solo_bonus", "10"),
        ("solo_min_players", "16"),
        ("warning_penalty", "5"),
        ("warnings_before_penalty", "3"),
        ("min_vowels", "2"),
        ("min_consonants", "2"),
        ("late_from_round", "16"),
    ):
        assert re.search(rf'name="{name}"[^>]*value="{value}"', html), name
    for name in (
        "rules",
        "lexicon",
        "notation",
        "reveal_seconds",
        "max_rounds",
        "late_min_vowels",
        "late_min_consonants",
        "blanks_either",
        "seed",
    ):
        assert f'name="{name}"' in html, name
    game_id = new_game(client, rules="fr", max_rounds="5", reveal_seconds="45", solo_bonus="0")
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        assert (game.rules, game.lexicon, game.notation) == ("fr", "fr", "french")  # French notation by default
        assert (game.max_rounds, game.reveal_seconds, game.solo_bonus, game.seed) == (5, 45, 0, 12345678901234567890)
        assert game.draw_rule["min_vowels"] == 2 and game.draw_rule["blanks_either"] is True


def test_bad_settings_are_explained_and_create_nothing(app: Flask, client: FlaskClient, director: str) -> None:
    log_in(client)
    token = csrf_token(client, "/director/games/new")
    answer = client.post("/director/games/new", data={**GAME_FORM, "round_seconds": "5", "csrf_token": token})
    page = text_of(answer.get_data(as_text=True))
    assert answer.status_code == 400 and "A whole number from 10 to 3600." in page
    mismatch = client.post("/director/games/new", data={**GAME_FORM, "lexicon": "fr", "csrf_token": token})
    assert mismatch.status_code == 400 and "The lexicon fr is for the fr rules." in text_of(
        mismatch.get_data(as_text=True)
    )
    # docs/rules.md §6.4: a short seed is found from round 1's rack, so the form says how long one must be.
    short = client.post("/director/games/new", data={**GAME_FORM, "seed": "12345", "csrf_token": token})
    assert short.status_code == 400 and "must have at least 20 digits" in text_of(short.get_data(as_text=True))
    french = client.post(
        "/director/games/new",
        data={**GAME_FORM, "seed": "12345", "csrf_token": token},
        headers={"Accept-Language": "fr"},
    )
    assert "doit avoir au moins 20 chiffres" in text_of(french.get_data(as_text=True))
    with app.app_context():
        assert db.session.execute(select(func.count(Game.id))).scalar() == 0


def test_the_lobby_shows_the_code_the_qr_code_and_who_joined(app: Flask, client: FlaskClient, director: str) -> None:
    log_in(client)
    game_id = new_game(client)
    code = join_code(app, game_id)
    assert join(app.test_client(), code, "Bob").status_code == 303
    page = client.get(f"/director/games/{game_id}").get_data(as_text=True)
    assert f'class="join-code">{code}<' in page and f"/join?code={code}" in page
    assert "Bob" in text_of(page)
    qr = client.get(f"/director/games/{game_id}/qr.svg")
    assert qr.status_code == 200 and qr.content_type == "image/svg+xml"
    svg = qr.get_data(as_text=True)
    assert 'xmlns="http://www.w3.org/2000/svg"' in svg and "<path" in svg  # a document an <img> can show


def test_another_director_cannot_see_or_run_the_game(app: Flask, client: FlaskClient, director: str) -> None:
    log_in(client)
    game_id = new_game(client)
    with app.app_context():
        accounts.create_director("bruno", "password456")
    other = app.test_client()
    log_in(other, "bruno", "password456")
    for path in (
        f"/director/games/{game_id}",
        f"/games/{game_id}/projector",
        f"/director/games/{game_id}/qr.svg",
        f"/director/games/{game_id}/export.csv",
    ):
        assert other.get(path).status_code == 403, path
    missing = other.get("/games/424242/projector")
    assert missing.status_code == 404 and "There is no game number 424242" in text_of(missing.get_data(as_text=True))
    token = csrf_token(other, "/director/")
    assert other.post(f"/director/games/{game_id}/start", data={"csrf_token": token}).status_code == 403
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None and game.status == "lobby"


def test_players_cannot_reach_the_director_or_the_projector(room: tuple[int, FlaskClient, FlaskClient]) -> None:
    game_id, bob, _cy = room
    for path in (f"/director/games/{game_id}", f"/games/{game_id}/projector", f"/director/games/{game_id}/qr.svg"):
        answer = bob.get(path)
        assert answer.status_code == 302 and "/director/login" in answer.headers["Location"], path
    token = csrf_token(bob, f"/play/{game_id}")
    answer = bob.post(f"/director/games/{game_id}/close", data={"csrf_token": token})
    assert answer.status_code == 302 and "/director/login" in answer.headers["Location"]


# ---------------------------------------------------------------- players


def test_joining_errors_are_next_to_the_field(app: Flask, client: FlaskClient, director: str) -> None:
    log_in(client)
    code = join_code(app, new_game(client))
    visitor = app.test_client()
    unknown = join(visitor, "NOPE99", "Bob")
    assert unknown.status_code == 400
    assert re.search(r'id="code-error">No game has the code NOPE99', unknown.get_data(as_text=True))
    assert join(visitor, code.lower(), "Bob").status_code == 303  # codes are read in any case
    taken = join(app.test_client(), code, "  Bob ")
    assert taken.status_code == 400
    assert re.search(r'id="name-error">Someone in this game is already called Bob', taken.get_data(as_text=True))
    empty = join(app.test_client(), code, "")
    assert empty.status_code == 400 and 'id="name-error">Enter your name.' in empty.get_data(as_text=True)


def test_a_player_keeps_their_identity_and_play_across_reloads(
    app: Flask, room: tuple[int, FlaskClient, FlaskClient]
) -> None:
    game_id, bob, _cy = room
    code = join_code(app, game_id)
    # The join link again (a second scan of the QR code) leads back to the same player, not a new one.
    again = bob.get(f"/join?code={code}")
    assert again.status_code == 303 and again.headers["Location"] == f"/play/{game_id}"
    round_ = current_round(app, game_id)
    play, score = plays_of(app, round_)[-1]
    answer = submit(bob, game_id, play)
    assert answer.get_json() == {"ok": True, "move": play, "score": score}
    page = text_of(bob.get(f"/play/{game_id}").get_data(as_text=True))
    # Handed in, its score hidden until the reveal: the room learns scores together.
    assert "Bob" in page and f"Handed in: {play}" in page and "points as placed" not in page
    with app.app_context():
        assert db.session.execute(select(func.count(Player.id)).where(Player.game_id == game_id)).scalar() == 2


def test_the_play_page_hands_its_script_the_players_own_token_and_no_cache_keeps_it(
    app: Flask, room: tuple[int, FlaskClient, FlaskClient]
) -> None:
    """The page's script hands plays in through the API (the event-loop path); the token it gets is the
    player's, acts for them only, and the page is never stored."""
    game_id, bob, cy = room
    page = bob.get(f"/play/{game_id}")
    assert page.headers["Cache-Control"] == "no-store"
    html = page.get_data(as_text=True)
    token = re.search(r'data-token="([^"]+)"', html)
    api = re.search(r'data-game-api="([^"]+)"', html)
    assert token is not None and api is not None and api.group(1) == f"/api/games/{game_id}"
    assert token.group(1) != re.search(r'data-token="([^"]+)"', cy.get(f"/play/{game_id}").get_data(as_text=True))[1]
    round_ = current_round(app, game_id)
    play, score = plays_of(app, round_)[0]
    taken = app.test_client().post(
        f"{api.group(1)}/rounds/{round_.number}/plays",
        json={"move": play},
        headers={"Authorization": f"Bearer {token.group(1)}"},
    )
    assert taken.status_code == 200 and taken.get_json()["score"] == score
    assert f"Handed in: {play}" in text_of(bob.get(f"/play/{game_id}/live").get_data(as_text=True))
    assert "Handed in:" not in text_of(cy.get(f"/play/{game_id}/live").get_data(as_text=True))


def test_a_stranger_is_sent_to_join_and_a_missing_game_says_so(
    app: Flask, room: tuple[int, FlaskClient, FlaskClient]
) -> None:
    game_id, _bob, _cy = room
    stranger = app.test_client()
    answer = stranger.get(f"/play/{game_id}")
    assert answer.status_code == 303 and answer.headers["Location"] == "/join"
    assert stranger.get(f"/play/{game_id}/live").status_code == 403
    missing = stranger.get("/play/999999")
    assert missing.status_code == 404 and "There is no game number 999999" in text_of(missing.get_data(as_text=True))


def test_refused_plays_are_explained_in_the_players_language_and_never_stored(
    app: Flask, room: tuple[int, FlaskClient, FlaskClient]
) -> None:
    game_id, bob, _cy = room
    rack = current_round(app, game_id).rack
    absent = next(letter for letter in "ZQXJKVWY" if letter not in rack)
    two = "".join(letter for letter in rack if letter != "?")[:2]
    for move, message in (
        ("H8", "Write a square and a word, like 8D TRAIN."),
        ("Z9 " + two, "Z is off the board."),
        ("8A " + two, "The first play must cover the centre square H8."),
        (f"8H {absent}{absent}", f"Your rack has no {absent}."),
    ):
        answer = submit(bob, game_id, move)
        assert answer.status_code == 422 and answer.get_json() == {"ok": False, "error": message}, move
    # Without the page's script, the form is posted and the error shown next to the input.
    plain = submit(bob, game_id, "Z9 " + two, json=False)
    assert plain.status_code == 422 and 'id="move-error" role="alert" data-play-error>Z is off the board.' in (
        plain.get_data(as_text=True)
    )
    french = submit(bob, game_id, "8A " + two, **{"Accept-Language": "fr"})
    assert french.get_json()["error"] == "Le premier coup doit passer par la case centrale H8."
    with app.app_context():
        assert db.session.execute(select(func.count(Submission.id))).scalar() == 0


def test_a_play_can_be_replaced_until_the_close_and_the_last_one_counts(
    app: Flask, client: FlaskClient, room: tuple[int, FlaskClient, FlaskClient]
) -> None:
    game_id, bob, cy = room
    round_ = current_round(app, game_id)
    plays = plays_of(app, round_)
    (top, top_score), (lesser, lesser_score) = plays[0], plays[-1]
    assert submit(bob, game_id, top).get_json()["ok"]
    assert submit(bob, game_id, lesser).get_json()["ok"]  # Bob changes his mind
    assert submit(cy, game_id, top).get_json()["ok"]
    # Before the close, nothing on any page gives the tops away.
    for client_, path in (
        (bob, f"/play/{game_id}/live"),
        (client, f"/games/{game_id}/projector/live"),
        (client, f"/director/games/{game_id}/live"),
    ):
        page = client_.get(path).get_data(as_text=True)
        assert round_.tops and not [t for t in round_.tops if t in page], path  # Bob's page shows his own play only
    projector = client.get(f"/games/{game_id}/projector/live").get_data(as_text=True)
    assert re.search(r"data-submissions>2<", projector)
    assert act(client, game_id, "close").get_json() == {"ok": True, "status": "revealing"}
    bob_page = text_of(bob.get(f"/play/{game_id}/live").get_data(as_text=True))
    assert f"Your play {lesser}" in bob_page and f"Difference {lesser_score - top_score}" in bob_page
    cy_page = text_of(cy.get(f"/play/{game_id}/live").get_data(as_text=True))
    assert f"Score {top_score}" in cy_page and "Difference 0" in cy_page and "Solo top!" in cy_page
    standings = client.get(f"/api/games/{game_id}/standings").get_json()["standings"]
    assert [(s["name"], s["total"]) for s in standings] == [("Cy", top_score), ("Bob", lesser_score)]
    assert f"You are 2 of 2 with {lesser_score} points" in bob_page


def test_late_plays_are_refused_after_the_close(
    app: Flask, client: FlaskClient, room: tuple[int, FlaskClient, FlaskClient]
) -> None:
    game_id, bob, _cy = room
    play = plays_of(app, current_round(app, game_id))[0][0]
    token = csrf_token(bob, f"/play/{game_id}")
    assert act(client, game_id, "close").get_json()["ok"]
    answer = bob.post(
        f"/play/{game_id}/submit",
        data={"csrf_token": token, "round": "1", "move": play},
        headers={"Accept": "application/json"},
    )
    assert answer.status_code == 422
    assert answer.get_json()["error"] == "Round 1 is closed: your play came too late."


# ---------------------------------------------------------------- running the night


def test_the_director_runs_a_game_from_the_console(
    app: Flask, client: FlaskClient, room: tuple[int, FlaskClient, FlaskClient]
) -> None:
    game_id, bob, _cy = room
    assert act(client, game_id, "toggle").get_json() == {"ok": True, "status": "paused"}
    assert "Paused" in text_of(bob.get(f"/play/{game_id}/live").get_data(as_text=True))
    assert act(client, game_id, "toggle").get_json() == {"ok": True, "status": "playing"}
    before = current_round(app, game_id).deadline
    token = csrf_token(client, f"/director/games/{game_id}")
    assert (
        client.post(f"/director/games/{game_id}/extend", data={"csrf_token": token, "seconds": "60"}).status_code == 303
    )
    after = current_round(app, game_id).deadline
    assert before is not None and after is not None and 59 <= (after - before).total_seconds() <= 61
    refused = act(client, game_id, "next")
    assert refused.status_code == 409 and refused.get_json()["error"] == (
        "This can only be done during a round's reveal."
    )
    assert act(client, game_id, "close").get_json()["status"] == "revealing"
    assert act(client, game_id, "next").get_json()["status"] == "playing"
    assert current_round(app, game_id).number == 2
    assert act(client, game_id, "end").get_json() == {"ok": True, "status": "finished"}
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None and game.end_reason == "director"
        assert [r.status for r in game.rounds] == ["closed", "closed"]  # the round in play was closed first
    over = text_of(bob.get(f"/play/{game_id}").get_data(as_text=True))
    assert "The game is over. Thank you for playing!" in over
    late_join = join(app.test_client(), join_code(app, game_id), "Zoe")
    assert 'id="code-error">This game is over.' in late_join.get_data(as_text=True)
    listing = text_of(client.get("/director/").get_data(as_text=True))
    assert f"Game {join_code(app, game_id)}" in listing and "Game over" in listing
    csv = client.get(f"/director/games/{game_id}/export.csv")
    assert csv.status_code == 200 and csv.get_data(as_text=True).startswith("rank,name,total")
    gcg = client.get(f"/director/games/{game_id}/export.gcg")
    assert gcg.status_code == 200 and "attachment" in gcg.headers["Content-Disposition"]


def test_corrections_and_another_top_from_the_console(
    app: Flask, client: FlaskClient, room: tuple[int, FlaskClient, FlaskClient]
) -> None:
    game_id, bob, _cy = room
    play, score = plays_of(app, current_round(app, game_id))[-1]
    assert submit(bob, game_id, play).get_json()["ok"]
    assert act(client, game_id, "close").get_json()["ok"]
    with app.app_context():
        bob_id = db.session.execute(select(Player.id).where(Player.name == "Bob")).scalar_one()
    console = client.get(f"/director/games/{game_id}").get_data(as_text=True)
    assert f'name="player_id" value="{bob_id}"' in console
    token = csrf_token(client, f"/director/games/{game_id}")
    no_reason = client.post(
        f"/director/games/{game_id}/rounds/1/corrections",
        data={"csrf_token": token, "player_id": str(bob_id), "score": "30", "reason": ""},
        follow_redirects=True,
    )
    assert "Say why the score is corrected." in text_of(no_reason.get_data(as_text=True))
    done = client.post(
        f"/director/games/{game_id}/rounds/1/corrections",
        follow_redirects=True,
        data={"csrf_token": token, "player_id": str(bob_id), "score": "30", "reason": "misread"},
    )
    assert "The score is corrected." in text_of(done.get_data(as_text=True))
    with app.app_context():
        assert [(c.score, c.reason) for c in db.session.execute(select(Correction)).scalars()] == [(30, "misread")]
    assert "Score 30" in text_of(bob.get(f"/play/{game_id}/live").get_data(as_text=True))
    # Another top: only one of the round's tops may be placed.
    refused = client.post(
        f"/director/games/{game_id}/rounds/1/top",
        headers={"Accept": "application/json"},
        data={"csrf_token": token, "move": play if score else "8H ZZ"},
    )
    assert refused.status_code == 422 and "is not one of the round's top plays" in refused.get_json()["error"]


def test_the_projector_shows_the_round_then_the_reveal(
    app: Flask, client: FlaskClient, room: tuple[int, FlaskClient, FlaskClient]
) -> None:
    game_id, bob, _cy = room
    round_ = current_round(app, game_id)
    page = client.get(f"/games/{game_id}/projector").get_data(as_text=True)
    tiles = re.findall(r'<li class="tile[^"]*" data-letter="(.)"', page)
    assert sorted(tiles) == sorted(round_.rack)
    assert re.search(r'class="clock clock-big"[^>]*data-seconds-left="1[0-9]{2}\.', page)
    assert "Round 1" in text_of(page)
    top = (round_.tops or [])[0]
    assert submit(bob, game_id, top).get_json()["ok"]
    assert act(client, game_id, "close").get_json()["ok"]
    reveal = text_of(client.get(f"/games/{game_id}/projector/live").get_data(as_text=True))
    assert f"Round 1: the top {round_.placed_move or top}" in reveal or f"Round 1: the top {top}" in reveal
    assert "1 player found the top" in reveal and "1 of 2 handed in a play" in reveal
    assert "Bob" in reveal and "Standings" in reveal
    highlighted = re.findall(
        r'class="sq[^"]*highlight[^"]*"', client.get(f"/games/{game_id}/projector/live").get_data(as_text=True)
    )
    assert len(highlighted) == len(top.split()[1])  # the first play: every letter is a new tile


def test_the_theme_switch_is_one_click_and_remembered(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    assert 'data-theme="standard"' in page
    link = re.search(r'href="([^"]*theme=contrast[^"]*)"', page)
    assert link
    contrast = client.get(unescape(link.group(1)))
    assert 'data-theme="contrast"' in contrast.get_data(as_text=True)
    assert 'data-theme="contrast"' in client.get("/join").get_data(as_text=True)
