"""The club word wall through Flask's test client, on SQLite and PostgreSQL: the director makes a wall
with the form, players join and type words, the first finder is credited, the screen shows every
find with its finder, the deadline ends the wall, and nobody sees or does what is not theirs.

Expected words come from the bundled word list itself (a brute force over the file, sharing nothing
with the word graph), the probability ranks from :mod:`drills`. Time is injected, never slept.
The same night in a real browser is tests/browser/test_word_wall.py.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime, timedelta
from functools import cache
from html import unescape
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

import wordlists
from drills.probability import probability_index
from tests.brute_force import read_words
from trainer.core import accounts
from trainer.core.accounts import Director
from trainer.core.database import db
from trainer.core.errors import Refused
from trainer.core.lexicons import lexicon_store
from trainer.http.errors import status_of
from trainer.wall import service
from trainer.wall.models import Wall, WallFind, WallPlayer

T0 = datetime(2026, 3, 2, 20, 0, tzinfo=UTC)


# ---------------------------------------------------------------- helpers (as in test_pages.py)


def csrf_token(client: FlaskClient, path: str) -> str:
    """The CSRF token of the form on ``path``, as a browser would read it."""
    html = client.get(path).get_data(as_text=True)
    match = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', html)
    assert match, f"no CSRF token on {path}"
    return match.group(1)


def text_of(html: str) -> str:
    """The visible text of a page, spaces collapsed."""
    without_scripts = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", without_scripts))).strip()


def page_text(client: FlaskClient, path: str) -> str:
    answer = client.get(path)
    assert answer.status_code == 200, (path, answer.status_code)
    return text_of(answer.get_data(as_text=True))


@cache
def anagrams_from_the_file(letters: str) -> list[str]:
    """Every word of the bundled English list spelt with exactly ``letters`` (independent of drills)."""
    need = Counter(letters)
    return sorted(w for w in read_words(wordlists.bundled_path("en")) if len(w) == len(letters) and Counter(w) == need)


def add_director(app: Flask, name: str) -> None:
    with app.app_context():
        accounts.create_director(name, "password123")


def log_in(client: FlaskClient, username: str) -> None:
    token = csrf_token(client, "/director/login")
    answer = client.post("/director/login", data={"csrf_token": token, "username": username, "password": "password123"})
    assert answer.status_code == 303, text_of(answer.get_data(as_text=True))


WALL_FORM = {
    "lexicon": "en",
    "source": "rank",
    "length": "7",
    "first": "1",
    "last": "20",
    "words": "",
    "seconds": "120",
}


def post_wall(client: FlaskClient, **changes: str) -> Any:
    token = csrf_token(client, "/director/walls/new")
    return client.post("/director/walls/new", data={**WALL_FORM, **changes, "csrf_token": token})


def new_wall(client: FlaskClient, **changes: str) -> int:
    answer = post_wall(client, **changes)
    assert answer.status_code == 303, text_of(answer.get_data(as_text=True))
    return int(answer.headers["Location"].rsplit("/", 1)[1])


def act(client: FlaskClient, wall_id: int, action: str) -> Any:
    token = csrf_token(client, f"/director/walls/{wall_id}")
    return client.post(
        f"/director/walls/{wall_id}/{action}", data={"csrf_token": token}, headers={"Accept": "application/json"}
    )


def join(client: FlaskClient, code: str, name: str) -> Any:
    token = csrf_token(client, "/walls/join")
    return client.post("/walls/join", data={"csrf_token": token, "code": code, "name": name})


def answer(client: FlaskClient, wall_id: int, word: str) -> list[dict[str, Any]]:
    """The verdicts on ``word`` (one or several words), as the phone's script receives them."""
    token = csrf_token(client, f"/walls/{wall_id}/play")
    reply = client.post(
        f"/walls/{wall_id}/play/answer",
        data={"csrf_token": token, "word": word},
        headers={"Accept": "application/json"},
    )
    assert reply.status_code == 200, reply.get_data(as_text=True)
    results: list[dict[str, Any]] = reply.get_json()["results"]
    return results


def wall_row(app: Flask, wall_id: int) -> Wall:
    with app.app_context():
        wall = db.session.get(Wall, wall_id)
        assert wall is not None
        db.session.expunge(wall)
        return wall


PASTED = "silent, RETAINS\naridest"  # three alphagrams: EILNST, AEINRST, ADEIRST (in this order)


@pytest.fixture
def room(app: Flask, client: FlaskClient) -> tuple[int, str, FlaskClient, FlaskClient]:
    """A wall of pasted words with Bob and Cy in its lobby: (wall id, join code, Bob's phone, Cy's phone)."""
    add_director(app, "alice")
    log_in(client, "alice")
    wall_id = new_wall(client, source="words", words=PASTED)
    code = wall_row(app, wall_id).join_code
    bob, cy = app.test_client(), app.test_client()
    assert join(bob, code, "Bob").status_code == 303
    assert join(cy, code, "Cy").status_code == 303
    return wall_id, code, bob, cy


# ---------------------------------------------------------------- making a wall


def test_a_wall_of_the_most_probable_sevens_through_the_form(app: Flask, client: FlaskClient) -> None:
    add_director(app, "alice")
    log_in(client, "alice")
    assert client.get("/director/walls/new").status_code == 200
    wall_id = new_wall(client, first="3", last="12", seconds="90")
    wall = wall_row(app, wall_id)
    with app.app_context():
        ranked = probability_index(lexicon_store().load("en")).between(7, 3, 12)
        expected = [entry.letters for entry in ranked]
    assert wall.alphagrams == expected and len(expected) == 10
    assert all(len(key) == 7 and key == "".join(sorted(key)) for key in wall.alphagrams)
    for key in wall.alphagrams:
        assert wall.answers[key] == anagrams_from_the_file(key), key
    assert (wall.status, wall.seconds, wall.lexicon, wall.deadline) == ("lobby", 90, "en", None)
    assert re.fullmatch(r"[A-HJ-NP-Z2-9]{6}", wall.join_code)

    console = page_text(client, f"/director/walls/{wall_id}")
    assert wall.join_code in console and "Start the wall" in console and expected[0] in console
    assert f"/walls/join?code={wall.join_code}" in console
    qr = client.get(f"/director/walls/{wall_id}/qr.svg")
    assert qr.status_code == 200 and qr.content_type == "image/svg+xml"
    assert "Word wall" in page_text(client, "/director/walls/")


def test_pasted_words_put_their_alphagrams_up_in_the_order_pasted(app: Flask, client: FlaskClient) -> None:
    add_director(app, "alice")
    log_in(client, "alice")
    wall = wall_row(app, new_wall(client, source="words", words=PASTED + " listen"))
    assert wall.alphagrams == ["EILNST", "AEINRST", "ADEIRST"]  # LISTEN is SILENT's alphagram again
    assert {key: wall.answers[key] for key in wall.alphagrams} == {
        key: anagrams_from_the_file(key) for key in wall.alphagrams
    }


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"first": "20", "last": "10"}, "The last rank must not be below the first."),
        ({"first": "1", "last": "101"}, "A wall has at most 100 alphagrams."),
        ({"length": "16"}, "A whole number from 2 to 15."),
        ({"seconds": "5"}, "A whole number from 10 to 3600."),
        ({"seconds": ""}, "A whole number from 10 to 3600."),
        ({"source": "words", "words": "RETAINS QXZV"}, "Not in the word list en: QXZV."),
        ({"source": "words", "words": "  "}, "Paste at least one word."),
    ],
)
def test_the_form_says_what_is_wrong(app: Flask, client: FlaskClient, changes: dict[str, str], message: str) -> None:
    add_director(app, "alice")
    log_in(client, "alice")
    refused = post_wall(client, **changes)
    assert refused.status_code == 400
    assert message in text_of(refused.get_data(as_text=True))
    with app.app_context():
        assert db.session.execute(select(Wall)).first() is None


def test_ranks_past_the_end_of_the_list_are_refused(app: Flask) -> None:
    with app.app_context():
        director = accounts.create_director("alice", "password123")
        lexicon = lexicon_store().load("en")
        count = len(probability_index(lexicon).ranked(15))
        with pytest.raises(Refused) as refused:
            service.create_wall(director, "en", {"length": 15, "first": count + 1, "last": count + 5, "seconds": 60})
        assert refused.value.code == "wall_empty_range" and refused.value.params["count"] == count
        with pytest.raises(Refused) as unknown:
            service.create_wall(director, "nope", {"words": "RETAINS", "seconds": 60})
        assert unknown.value.code == "bad_setting"


# ---------------------------------------------------------------- a wall in play


def test_two_phones_find_words_and_the_screen_shows_who_found_them(
    app: Flask, client: FlaskClient, room: tuple[int, str, FlaskClient, FlaskClient]
) -> None:
    wall_id, _code, bob, cy = room
    lobby = page_text(bob, f"/walls/{wall_id}/play")
    assert "The wall starts when the director is ready" in lobby and "AEINRST" not in lobby
    screen = page_text(client, f"/walls/{wall_id}/screen")
    assert "2 players" in screen and "Bob" in screen and "Cy" in screen and "AEINRST" not in screen
    assert answer(bob, wall_id, "SILENT")[0]["message"] == "The wall has not started yet: wait for the director."

    assert act(client, wall_id, "start").get_json() == {"ok": True, "status": "running"}
    assert act(client, wall_id, "start").get_json()["error"] == "The wall has already started."
    wall = wall_row(app, wall_id)
    assert wall.status == "running" and wall.started_at is not None and wall.deadline is not None
    assert wall.deadline - wall.started_at == timedelta(seconds=120)

    silent = anagrams_from_the_file("EILNST")
    retains = anagrams_from_the_file("AEINRST")
    assert "SILENT" in silent and "TINSEL" in silent and "STAINER" in retains
    assert answer(bob, wall_id, "silent") == [{"word": "SILENT", "ok": True, "message": "SILENT: found!"}]
    assert answer(cy, wall_id, "SILENT") == [
        {"word": "SILENT", "ok": False, "message": "SILENT: already found by Bob."}
    ]
    assert answer(bob, wall_id, "SILENT")[0]["message"] == "SILENT: you found it already."
    # Several words before one Enter: each judged on its own.
    verdicts = answer(cy, wall_id, "tinsel, stainer QUIZ AEINRST")
    assert [(v["word"], v["ok"]) for v in verdicts] == [
        ("TINSEL", True),
        ("STAINER", True),
        ("QUIZ", False),
        ("AEINRST", False),
    ]
    assert verdicts[2]["message"] == "QUIZ: not on this wall (its letters are not one of the alphagrams)."
    assert "AEINRST" not in retains and verdicts[3]["message"] == "AEINRST: not a word."
    assert answer(cy, wall_id, " ")[0]["message"] == "Type a word first."

    with app.app_context():
        finds = {
            (f.word, f.alphagram, p.name)
            for f, p in db.session.execute(
                select(WallFind, WallPlayer).join(WallPlayer, WallFind.player_id == WallPlayer.id)
            )
        }
    assert finds == {("SILENT", "EILNST", "Bob"), ("TINSEL", "EILNST", "Cy"), ("STAINER", "AEINRST", "Cy")}

    html = client.get(f"/walls/{wall_id}/screen/live").get_data(as_text=True)
    tile = re.search(r'data-alphagram="EILNST">(.*?)</li>\s*</ul>', html, re.S)
    assert tile, html
    assert "SILENT Bob" in text_of(tile.group(1)) and "TINSEL Cy" in text_of(tile.group(1))
    assert f"2 of {len(silent)} found" in text_of(tile.group(1))
    screen = text_of(html)
    assert f"3 of {len(silent) + len(retains) + len(anagrams_from_the_file('ADEIRST'))} words found" in screen
    assert re.search(r"1 Cy 2 2 Bob 1", screen), screen
    assert re.search(r'data-seconds-left="1[01]\d\.\d+"', html)  # the countdown from the server's seconds left

    phone = page_text(bob, f"/walls/{wall_id}/play")
    assert "STAINER Cy" in phone and "You found 1 word." in phone and "Rank 2 of 2." in phone
    assert "ARIDEST" not in phone  # nobody found it: it stays hidden while the wall runs


def test_the_deadline_ends_the_wall_and_late_answers_are_refused(app: Flask) -> None:
    with app.app_context():
        director = accounts.create_director("alice", "password123")
        wall = service.create_wall(director, "en", {"words": "SILENT RETAINS", "seconds": 60})
        bob, _ = service.join_wall(wall.join_code.lower(), "  Bob  ", now=T0)
        assert bob.name == "Bob"
        with pytest.raises(Refused) as early:
            service.submit_answer(wall, bob, "SILENT", now=T0)
        assert early.value.code == "wall_not_started"
        service.start_wall(wall, now=T0)
        assert service.wall_view(wall, now=T0 + timedelta(seconds=20.5)).countdown == 40
        found = service.submit_answer(wall, bob, "LISTEN", now=T0 + timedelta(seconds=59.9))
        assert found.word == "LISTEN" and found.alphagram == "EILNST"
        with pytest.raises(Refused) as late:
            service.submit_answer(wall, bob, "TINSEL", now=T0 + timedelta(seconds=60))
        assert late.value.code == "wall_over" and status_of(late.value) == 409
        db.session.refresh(wall)
        assert wall.status == "finished"
        view = service.wall_view(wall, bob, now=T0 + timedelta(seconds=61))
        assert view.seconds_left is None and view.mine == ("LISTEN",)
        tile = next(t for t in view.tiles if t.key == "EILNST")
        assert [f.word for f in tile.found] == ["LISTEN"]
        assert set(tile.missed) == set(anagrams_from_the_file("EILNST")) - {"LISTEN"}  # shown once it is over
        with pytest.raises(Refused) as joined_late:
            service.join_wall(wall.join_code, "Cy", now=T0 + timedelta(seconds=61))
        assert joined_late.value.code == "wall_over"
        assert db.session.execute(select(WallFind.word)).scalars().all() == ["LISTEN"]


def test_a_phone_after_the_deadline_is_told_the_wall_is_over(
    app: Flask, client: FlaskClient, room: tuple[int, str, FlaskClient, FlaskClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    wall_id, _code, bob, cy = room
    act(client, wall_id, "start")
    assert answer(bob, wall_id, "RETAINS")[0]["ok"]
    later = wall_row(app, wall_id).deadline
    assert later is not None
    monkeypatch.setattr(service, "utcnow", lambda: later + timedelta(seconds=1))
    assert answer(cy, wall_id, "RETINAS") == [
        {"word": "RETINAS", "ok": False, "message": "The wall is over: no more answers."}
    ]
    assert wall_row(app, wall_id).status == "finished"
    results = page_text(client, f"/walls/{wall_id}/screen")
    assert "Results" in results and re.search(r"1 Bob 1 2 Cy 0", results), results
    assert "RETINAS nobody" in results  # what nobody found is shown at the end
    assert "The wall is over." in page_text(cy, f"/walls/{wall_id}/play")


def test_end_now_closes_the_wall_at_once(
    app: Flask, client: FlaskClient, room: tuple[int, str, FlaskClient, FlaskClient]
) -> None:
    wall_id, code, bob, _cy = room
    act(client, wall_id, "start")
    assert act(client, wall_id, "end").get_json() == {"ok": True, "status": "finished"}
    assert act(client, wall_id, "end").get_json()["error"] == "The wall is over: no more answers."
    assert answer(bob, wall_id, "SILENT")[0]["message"] == "The wall is over: no more answers."
    late = join(app.test_client(), code, "Dee")
    assert late.status_code == 400 and "The wall is over" in text_of(late.get_data(as_text=True))


def test_a_page_without_javascript_posts_and_comes_back_with_the_verdict(
    client: FlaskClient, room: tuple[int, str, FlaskClient, FlaskClient]
) -> None:
    wall_id, _code, bob, _cy = room
    act(client, wall_id, "start")
    token = csrf_token(bob, f"/walls/{wall_id}/play")
    posted = bob.post(f"/walls/{wall_id}/play/answer", data={"csrf_token": token, "word": "ASTRIDE"})
    assert posted.status_code == 303 and posted.headers["Location"] == f"/walls/{wall_id}/play"
    assert "ASTRIDE: found!" in page_text(bob, f"/walls/{wall_id}/play")
    no_token = bob.post(f"/walls/{wall_id}/play/answer", data={"word": "TIRADES"})
    assert no_token.status_code == 400


# ---------------------------------------------------------------- joining


def test_joining_errors_are_said_next_to_the_field(
    app: Flask, client: FlaskClient, room: tuple[int, str, FlaskClient, FlaskClient]
) -> None:
    wall_id, code, bob, _cy = room
    other = app.test_client()
    unknown = join(other, "ZZZZZZ", "Dee")
    assert unknown.status_code == 400
    assert "No word wall has the code ZZZZZZ." in text_of(unknown.get_data(as_text=True))
    taken = join(other, code, "Bob")
    assert "Someone on this wall is already called Bob" in text_of(taken.get_data(as_text=True))
    assert join(other, code, "Bad\x00name").status_code == 400
    # The join link of the screen brings a phone that joined already straight back to the wall.
    back = bob.get(f"/walls/join?code={code.lower()}")
    assert back.status_code == 303 and back.headers["Location"] == f"/walls/{wall_id}/play"
    assert f'value="{code}"' in other.get(f"/walls/join?code={code}").get_data(as_text=True)


# ---------------------------------------------------------------- who may see what


def test_other_directors_get_403_and_strangers_are_sent_to_join(
    app: Flask, client: FlaskClient, room: tuple[int, str, FlaskClient, FlaskClient]
) -> None:
    wall_id, _code, bob, _cy = room
    add_director(app, "bea")
    bea = app.test_client()
    log_in(bea, "bea")
    token = csrf_token(bea, "/director/walls/new")
    for path in (
        f"/director/walls/{wall_id}",
        f"/director/walls/{wall_id}/live",
        f"/director/walls/{wall_id}/qr.svg",
        f"/walls/{wall_id}/screen",
        f"/walls/{wall_id}/screen/live",
    ):
        assert bea.get(path).status_code == 403, path
    assert bea.post(f"/director/walls/{wall_id}/start", data={"csrf_token": token}).status_code == 403
    assert wall_row(app, wall_id).status == "lobby"
    assert wall_id not in [
        int(n) for n in re.findall(r"/director/walls/(\d+)", bea.get("/director/walls/").get_data(as_text=True))
    ]

    nobody = app.test_client()
    for path in (f"/director/walls/{wall_id}", f"/walls/{wall_id}/screen", "/director/walls/new"):
        refused = nobody.get(path)
        assert refused.status_code == 302 and refused.headers["Location"].startswith("/director/login"), path
    sent = nobody.get(f"/walls/{wall_id}/play")
    assert sent.status_code == 303 and sent.headers["Location"] == "/walls/join"
    assert nobody.get(f"/walls/{wall_id}/play/live").status_code == 403
    token = csrf_token(nobody, "/walls/join")
    posted = nobody.post(f"/walls/{wall_id}/play/answer", data={"csrf_token": token, "word": "SILENT"})
    assert posted.status_code == 303 and posted.headers["Location"] == "/walls/join"
    # A player of one wall is a stranger on another.
    other_wall = new_wall(client, source="words", words="POTS")
    assert bob.get(f"/walls/{other_wall}/play").status_code == 303
    assert client.get("/walls/999999/play").status_code == 404
    assert client.get("/director/walls/999999").status_code == 404
    assert "No such word wall" in text_of(client.get("/walls/999999/screen").get_data(as_text=True))


def test_the_wall_in_french(app: Flask, client: FlaskClient, room: tuple[int, str, FlaskClient, FlaskClient]) -> None:
    wall_id, _code, bob, cy = room
    act(client, wall_id, "start")
    answer(bob, wall_id, "SILENT")
    bob.get("/?lang=fr")
    cy.get("/?lang=fr")
    assert answer(cy, wall_id, "SILENT")[0]["message"] == "SILENT : déjà trouvé par Bob."
    phone = page_text(cy, f"/walls/{wall_id}/play")
    assert "Mur de mots" in phone and "Votre mot" in phone
    client.get("/?lang=fr")
    assert "Mur de mots" in page_text(client, f"/walls/{wall_id}/screen")
    assert "Nouveau mur de mots" in page_text(client, "/director/walls/new")


def test_the_wall_tables_are_migrated(app: Flask) -> None:
    with app.app_context():
        names = set(db.inspect(db.engine).get_table_names())
        assert {"wall", "wall_player", "wall_find"} <= names
        assert db.session.execute(select(Director)).first() is None
