"""A club night's safety nets on the server (issue 15): what a phone's keyboard writes (docs/rules.md §5.4), a
player's own rounds at a link of their own, rejoining on a new phone (§6.16), the director's page for any
closed round with its corrections (§6.12), and a removed player's record kept in the game's log.

The phone page's script and the browser flows are in tests/browser/test_phone.py; these tests drive the same
routes as a browser without scripts would.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

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
from trainer.games import service
from trainer.games.models import Event, Game, Player, Submission
from trainer.games.present import event as streamed_event
from trainer.web.play import keyboard_case

Room = tuple[int, FlaskClient, FlaskClient]
FRENCH = {"Accept-Language": "fr"}


@pytest.fixture
def room(app: Flask, client: FlaskClient) -> Room:
    """Director alice logged in (``client``) and a game started with Bob and Cy joined from their phones."""
    with app.app_context():
        accounts.create_director("alice", "password123")
    log_in(client)
    game_id = new_game(client)
    bob, cy = app.test_client(), app.test_client()
    for phone, name in ((bob, "Bob"), (cy, "Cy")):
        assert join(phone, join_code(app, game_id), name).status_code == 303
    assert act(client, game_id, "start").get_json()["ok"]
    return game_id, bob, cy


def _player_id(app: Flask, game_id: int, name: str) -> int:
    with app.app_context():
        return int(
            db.session.execute(select(Player.id).where(Player.game_id == game_id, Player.name == name)).scalar_one()
        )


def _rounds_link(phone: FlaskClient, game_id: int) -> str:
    """The "My rounds" link of the player's phone page, as the page gives it."""
    html = phone.get(f"/play/{game_id}").get_data(as_text=True)
    found = re.search(r'<a href="(/play/rounds/[^"]+)" data-my-rounds>', html)
    assert found, "the phone page has no My rounds link"
    return found.group(1)


def _correct(director: FlaskClient, game_id: int, number: int, player_id: int, score: int, reason: str) -> str:
    page = f"/director/games/{game_id}/rounds/{number}"
    answer = director.post(
        f"/director/games/{game_id}/rounds/{number}/corrections",
        data={
            "csrf_token": csrf_token(director, page),
            "player_id": str(player_id),
            "score": str(score),
            "reason": reason,
            "back": "round",
        },
        follow_redirects=True,
    )
    assert answer.status_code == 200
    return text_of(answer.get_data(as_text=True))


# ---------------------------------------------------------------- what a phone's keyboard writes (§5.4)


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("8h adz", "8h ADZ"),  # all small: the keyboard's case, capitals
        ("8d humble ", "8d HUMBLE"),
        ("8H ADZ", "8H ADZ"),
        ("8H Adz", "8H Adz"),  # small letters among capitals: blanks, as typed
        ("8H tRAIN", "8H tRAIN"),
        ("8H", "8H"),  # no word: left for the server's own message
    ],
)
def test_a_word_all_in_small_letters_is_read_as_capitals(typed: str, read: str) -> None:
    assert keyboard_case(typed) == read


def test_a_play_typed_in_small_letters_is_handed_in_as_capitals(app: Flask, room: Room) -> None:
    game_id, bob, _cy = room
    play, score = plays_of(app, current_round(app, game_id))[0]
    answer = submit(bob, game_id, play.lower(), json=False)
    assert answer.status_code in (200, 303), text_of(answer.get_data(as_text=True))
    with app.app_context():
        stored = db.session.execute(select(Submission.move, Submission.score_as_placed)).one()
    assert tuple(stored) == (play, score)  # no blank anywhere: the capitals' score


def test_a_small_letter_the_rack_cannot_cover_with_a_blank_is_explained(app: Flask, room: Room) -> None:
    game_id, bob, _cy = room
    round_ = current_round(app, game_id)
    assert "?" not in round_.rack, "this test needs a rack without a blank (the seed of GAME_FORM)"
    play = next(p for p, _score in plays_of(app, round_) if len(p.split()[1]) >= 3)
    marked = play[:-1] + play[-1].lower()  # 8D HUMBLe: a blank asked for
    refused = submit(bob, game_id, marked).get_json()
    assert refused["ok"] is False
    assert refused["error"] == (
        "A small letter among capitals stands for a blank, and your rack has no blank: write that letter as a capital."
    )
    french = submit(bob, game_id, marked, **FRENCH).get_json()
    assert french["error"].startswith("Une minuscule parmi des majuscules est un joker"), french
    with app.app_context():
        assert db.session.execute(select(Submission)).first() is None


# ---------------------------------------------------------------- My rounds


def test_my_rounds_show_each_closed_round_with_its_correction_at_a_link_that_works_anywhere(
    app: Flask, client: FlaskClient, room: Room
) -> None:
    game_id, bob, cy = room
    round_ = current_round(app, game_id)
    (top, top_score), (other, other_score) = plays_of(app, round_)[0], plays_of(app, round_)[-1]
    assert submit(bob, game_id, top).get_json()["ok"]
    assert submit(cy, game_id, other).get_json()["ok"]
    bob_link, cy_link = _rounds_link(bob, game_id), _rounds_link(cy, game_id)
    during = text_of(bob.get(bob_link).get_data(as_text=True))
    assert "No round is over yet" in during and "Round 1 is being played" in during
    assert top not in during  # nothing of a round before its reveal

    assert act(client, game_id, "close").get_json()["ok"]
    said = _correct(client, game_id, 1, _player_id(app, game_id, "Cy"), other_score + 3, "arbiter's recount")
    assert "The score is corrected." in said

    bobs = text_of(bob.get(bob_link).get_data(as_text=True))
    assert f"Round 1 {round_.rack}" in bobs
    assert f"Your play {top} Score {top_score} The top " in bobs and "Difference 0" in bobs
    assert "Rank of your play 1 of " in bobs and "Solo top!" in bobs  # Cy played the lowest play
    cys = cy.get(cy_link)
    assert cys.headers["Cache-Control"] == "no-store" and cys.headers["Referrer-Policy"] == "no-referrer"
    text = text_of(cys.get_data(as_text=True))
    assert f"Your play {other} Score {other_score + 3} " in text
    assert f"Difference {other_score + 3 - top_score}" in text
    assert f"Corrected by the director to {other_score + 3} points (it was {other_score}): arbiter's recount" in text
    # The correction is on Cy's phone too, with its reason.
    assert "arbiter's recount" in text_of(cy.get(f"/play/{game_id}/live").get_data(as_text=True))

    # After the night, on another device (no session): the same record; in French on a French phone.
    elsewhere = app.test_client()
    assert f"Corrected by the director to {other_score + 3}" in text_of(elsewhere.get(cy_link).get_data(as_text=True))
    french = text_of(elsewhere.get(cy_link, headers=FRENCH).get_data(as_text=True))
    assert "Mes coups" in french and "arbiter's recount" in french

    # A link that is not one this server gave: a page that says so, not an error.
    forged = elsewhere.get(cy_link[:-3] + "abc")
    assert forged.status_code == 404 and "This link opens no player's rounds" in text_of(forged.get_data(as_text=True))


def test_my_rounds_of_a_shared_draw_hide_from_outsiders_what_another_room_has_not_closed(
    app: Flask, client: FlaskClient, room: Room
) -> None:
    """§6.4: a round a second room of the same draw has not closed is its future; the player sees their own."""
    game_id, bob, _cy = room
    second = new_game(client)  # GAME_FORM's seed: the same draw
    assert act(client, second, "start").get_json()["ok"]
    top, _score = plays_of(app, current_round(app, game_id))[0]
    assert submit(bob, game_id, top).get_json()["ok"]
    assert act(client, game_id, "close").get_json()["ok"]
    link = _rounds_link(bob, game_id)
    assert top in text_of(bob.get(link).get_data(as_text=True))
    outsider = text_of(app.test_client().get(link).get_data(as_text=True))
    assert top not in outsider and current_round(app, second).rack not in outsider
    assert "1 more round is shown here once every room playing this draw has closed it." in outsider
    assert act(client, second, "close").get_json()["ok"]
    assert top in text_of(app.test_client().get(link).get_data(as_text=True))


# ---------------------------------------------------------------- rejoin on a new phone (§6.16)


def _offer(director: FlaskClient, game_id: int, player_id: int) -> str:
    console = f"/director/games/{game_id}"
    html = director.get(console).get_data(as_text=True)
    assert f'action="/director/games/{game_id}/players/{player_id}/rejoin"' in html
    page = director.post(
        f"/director/games/{game_id}/players/{player_id}/rejoin", data={"csrf_token": csrf_token(director, console)}
    )
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    found = re.search(r"data-rejoin-code>([A-Z0-9]+)<", html)
    assert found and "<svg" in html, "the page shows the code and its QR code"
    assert f"/rejoin?code={found.group(1)}" in html
    return found.group(1)


def _rejoin(phone: FlaskClient, code: str, **headers: str) -> tuple[int, str]:
    token = csrf_token(phone, f"/rejoin?code={code}")
    answer = phone.post("/rejoin", data={"csrf_token": token, "code": code}, headers=headers)
    return answer.status_code, answer.headers.get("Location", "") or text_of(answer.get_data(as_text=True))


def test_a_player_whose_phone_died_rejoins_as_themselves_with_a_one_time_code(
    app: Flask, client: FlaskClient, room: Room
) -> None:
    game_id, bob, _cy = room
    top, top_score = plays_of(app, current_round(app, game_id))[0]
    assert submit(bob, game_id, top).get_json()["ok"]
    # The name is taken: the join page says what to do instead.
    taken = join(app.test_client(), join_code(app, game_id), "bob")
    assert "ask the director for your rejoin code" in text_of(taken.get_data(as_text=True))

    code = _offer(client, game_id, _player_id(app, game_id, "Bob"))
    new_phone = app.test_client()
    status, where = _rejoin(new_phone, code.lower())  # typed in small letters on a phone
    assert (status, where) == (303, f"/play/{game_id}")
    page = text_of(new_phone.get(f"/play/{game_id}").get_data(as_text=True))
    assert f"Handed in: {top}" in page  # Bob's play came with him
    assert bob.get(f"/play/{game_id}").status_code == 303  # the old phone's token stops working
    assert submit(new_phone, game_id, top).get_json()["ok"]

    again, said = _rejoin(app.test_client(), code)
    assert again == 400 and "This rejoin code is not valid: it works once, for ten minutes." in said
    assert act(client, game_id, "close").get_json()["ok"]
    with app.app_context():
        assert db.session.execute(select(Player.name)).scalars().all().count("Bob") == 1
    record = text_of(new_phone.get(_rounds_link(new_phone, game_id)).get_data(as_text=True))
    assert f"Bob in game {join_code(app, game_id)}" in record and f"Your play {top} Score {top_score}" in record


def test_a_rejoin_code_expires_after_ten_minutes_and_a_new_one_replaces_it(
    app: Flask, client: FlaskClient, room: Room
) -> None:
    game_id, _bob, _cy = room
    cy_id = _player_id(app, game_id, "Cy")
    first = _offer(client, game_id, cy_id)
    second = _offer(client, game_id, cy_id)
    status, said = _rejoin(app.test_client(), first, **FRENCH)
    assert status == 400 and "Ce code" in said, said  # the earlier code is cancelled, said in French
    with app.app_context():
        later = utcnow() + timedelta(seconds=service.REJOIN_SECONDS + 1)
        with pytest.raises(service.Refused) as refused:
            service.rejoin(second, now=later)
        assert refused.value.code == "unknown_rejoin_code"
    assert _rejoin(app.test_client(), second)[0] == 303  # still in its ten minutes now


# ---------------------------------------------------------------- the director's round pages, removal


def test_any_closed_round_can_be_corrected_from_its_own_page(app: Flask, client: FlaskClient, room: Room) -> None:
    game_id, bob, _cy = room
    play, score = plays_of(app, current_round(app, game_id))[-1]
    assert submit(bob, game_id, play).get_json()["ok"]
    assert act(client, game_id, "close").get_json()["ok"]
    assert act(client, game_id, "next").get_json()["ok"]  # round 2 is being played
    console = text_of(client.get(f"/director/games/{game_id}").get_data(as_text=True))
    assert "Results and corrections of round: 1" in console
    assert f'href="/director/games/{game_id}/rounds/1"' in client.get(f"/director/games/{game_id}").get_data(
        as_text=True
    )
    page = text_of(client.get(f"/director/games/{game_id}/rounds/1").get_data(as_text=True))
    assert play in page and "Bob" in page
    said = _correct(client, game_id, 1, _player_id(app, game_id, "Bob"), score + 10, "misread tile")
    assert "The score is corrected." in said
    assert f"Corrected by the director to {score + 10} points (it was {score}): misread tile" in text_of(
        bob.get(_rounds_link(bob, game_id)).get_data(as_text=True)
    )
    # A round not closed yet has no page of results: the console says so.
    open_round = client.get(f"/director/games/{game_id}/rounds/2", follow_redirects=True)
    assert "Round 2 is not closed: it has no results yet." in text_of(open_round.get_data(as_text=True))


def test_a_removed_players_plays_stay_in_the_log_but_are_never_streamed(
    app: Flask, client: FlaskClient, room: Room
) -> None:
    game_id, bob, _cy = room
    play, score = plays_of(app, current_round(app, game_id))[0]
    assert submit(bob, game_id, play).get_json()["ok"]
    link = _rounds_link(bob, game_id)
    token = csrf_token(client, f"/director/games/{game_id}")
    bob_id = _player_id(app, game_id, "Bob")
    removed = client.post(
        f"/director/games/{game_id}/players/{bob_id}/remove",
        data={"csrf_token": token},
        headers={"Accept": "application/json"},
    )
    assert removed.status_code == 200, removed.get_data(as_text=True)
    with app.app_context():
        row = db.session.execute(select(Event).where(Event.game_id == game_id, Event.kind == "removed")).scalar_one()
        assert [(p["round"], p["move"], p["score_as_placed"]) for p in row.data["plays"]] == [(1, play, score)]
        shown = streamed_event(row)
        assert "plays" not in shown and "corrections" not in shown and play not in str(shown)
        game = db.session.get(Game, game_id)
        assert game is not None and [p.name for p in game.players] == ["Cy"]
    assert app.test_client().get(link).status_code == 404  # the record link names no player now


def test_the_close_button_asks_to_be_pressed_a_second_time(client: FlaskClient, room: Room) -> None:
    game_id, _bob, _cy = room
    html = client.get(f"/director/games/{game_id}").get_data(as_text=True)
    confirm = re.search(r'<details class="confirm"[^>]*>\s*<summary[^>]*>([^<]+)</summary>(.*?)</details>', html, re.S)
    assert confirm, "the close button is behind a confirmation"
    assert confirm.group(1).strip() == "Close the round now…"
    assert "Yes, close round 1 now" in text_of(confirm.group(2))
