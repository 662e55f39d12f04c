"""Games record their lexicon (name, edition, SHA-256 of its words), and a list changed or removed afterwards never
re-judges a finished game (issue 17), on SQLite and PostgreSQL.

A game is played on a club's imported list; the club then loads another list under the same name (or removes it):
the game's standings, rounds, sheets, CSV and GCG exports and API answers stay as they were, its pages name the
edition it was played with and say that the list has changed since, and nothing loads the new list to show them.
Drills (study decks, the word wall) offer every lexicon of the catalogue, a club's imported ones too.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Iterator
from typing import Any

import flask_migrate
import pytest
import sqlalchemy
from flask import Flask
from flask.testing import FlaskClient

from tests.test_api import Api, check_against_spec
from tests.test_pages import act, csrf_token, join, join_code, log_in, new_game, submit, text_of
from trainer.core import accounts
from trainer.core.database import MIGRATIONS_DIR, db
from trainer.core.errors import Refused
from trainer.core.lexicons import lexicon_store
from trainer.engine.board import Board
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move
from trainer.engine.rules import ruleset
from trainer.games import bulletins
from trainer.games.models import Game, Player, Round
from trainer.http.errors import status_of

EDITION = "Club 2025"
CHANGED = "The list club has changed since this game began (another edition was loaded)."
REMOVED = "The list club is no longer on this server."
CHANGED_FR = "La liste club a changé depuis le début de cette partie"


def _short_words(app: Flask) -> list[str]:
    """Every word of two to four letters of the bundled English list: most racks have a play, the graphs build
    at once."""
    with app.app_context():
        return [word for word in lexicon_store().words_of("en") if len(word) <= 4]


def _load_list(app: Flask, words: list[str], edition: str) -> None:
    """Load ``words`` as the club's lexicon ``club`` (rules ``en``), as the lexicons' page does; its graphs are
    built when a game first needs them."""
    with app.app_context():
        store = lexicon_store()
        store.add_list("club", sorted(words), "en", edition=edition, description="the club's list")
        store.set_status("club", "ready")


@pytest.fixture
def director(app: Flask) -> str:
    with app.app_context():
        accounts.create_director("alice", "password123")
    return "alice"


def _plays(app: Flask, game_id: int) -> list[tuple[str, int]]:
    """The open round's legal plays on the club's list, best first (from the engine, not from the server)."""
    rules = ruleset("en")
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        round_ = next(r for r in game.rounds if r.number == game.round_number)
        board = Board(rules.layout, list(round_.board_before))
        moves = generate_moves(board, rules, lexicon_store().load("club"), round_.rack)
    assert moves, "the club's list has no play for this rack"
    return sorted(((format_move(m, "english"), m.score or 0) for m in moves), key=lambda p: (-p[1], p[0]))


def _finished_game(app: Flask, client: FlaskClient) -> int:
    """Two rounds on the club's list: Bob finds each top, Cy plays the least play of round 1 and nothing after."""
    log_in(client)
    game_id = new_game(client, lexicon="club", max_rounds="2")
    bob, cy = app.test_client(), app.test_client()
    for phone, name in ((bob, "Bob"), (cy, "Cy")):
        assert join(phone, join_code(app, game_id), name).status_code == 303
    assert act(client, game_id, "start").get_json()["ok"]
    for number in (1, 2):
        plays = _plays(app, game_id)
        assert submit(bob, game_id, plays[0][0]).get_json()["ok"]
        if number == 1:
            assert submit(cy, game_id, plays[-1][0]).get_json()["ok"]
        assert act(client, game_id, "close").get_json()["ok"]
        assert act(client, game_id, "next").get_json()["ok"]
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None and game.status == "finished", game and game.status
    return game_id


def _player_id(app: Flask, game_id: int, name: str) -> int:
    with app.app_context():
        return int(
            db.session.execute(
                sqlalchemy.select(Player.id).where(Player.game_id == game_id, Player.name == name)
            ).scalar_one()
        )


PAGES = (
    "/director/games/{id}",
    "/director/games/{id}/live",
    "/director/games/{id}/rounds/1",
    "/director/games/{id}/rounds/2",
    "/games/{id}/projector",
    "/games/{id}/projector/live",
    "/director/games/{id}/sheets/",
    "/director/games/{id}/sheets/results",
    "/director/games/{id}/sheets/game",
    "/director/games/{id}/sheets/players/{bob}",
    "/director/",
)
FILES = (
    "/director/games/{id}/sheets/game.csv",
    "/director/games/{id}/export.csv",
    "/director/games/{id}/export.gcg",
    "/director/games/{id}/draws.txt",
    "/director/games/{id}/sheets/results.sigles.txt",
)
API = (
    "/api/games/{id}/standings",
    "/api/games/{id}/rounds/1",
    "/api/games/{id}/rounds/2",
    "/api/games/{id}/export.csv",
    "/api/games/{id}/export.gcg",
    "/api/games/{id}/draws.txt",
)


def _everything(app: Flask, client: FlaskClient, game_id: int) -> dict[str, Any]:
    """Every page, file and API answer of the game: pages as their visible text, the rest as given."""
    ids = {"id": game_id, "bob": _player_id(app, game_id, "Bob")}
    seen: dict[str, Any] = {}
    for path in (*PAGES, *FILES):
        answer = client.get(path.format(**ids))
        assert answer.status_code == 200, (path, answer.status_code)
        seen[path] = text_of(answer.get_data(as_text=True)) if path in PAGES else answer.get_data(as_text=True)
    api = Api(app.test_client())
    for path in API:
        seen[path] = api.get(path.format(**ids))
    seen["state"] = api.get(f"/api/games/{game_id}")
    return seen


def _without(text: str, note: str) -> str:
    return re.sub(r"\s+", " ", text.replace(note, "")).strip()


@pytest.fixture
def club(app: Flask) -> Iterator[list[str]]:
    words = _short_words(app)
    _load_list(app, words, EDITION)
    yield words


def test_a_game_records_its_lexicons_name_edition_and_fingerprint(
    app: Flask, client: FlaskClient, director: str, club: list[str]
) -> None:
    log_in(client)
    game_id = new_game(client, lexicon="club")
    sha = hashlib.sha256(("\n".join(club) + "\n").encode()).hexdigest()  # one upper-case word a line, sorted
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        assert (game.lexicon, game.lexicon_edition, game.lexicon_sha256) == ("club", EDITION, sha)
    state = Api(app.test_client()).get(f"/api/games/{game_id}")
    assert (state["lexicon"], state["lexicon_edition"], state["lexicon_sha256"], state["lexicon_since"]) == (
        "club",
        EDITION,
        sha,
        "unchanged",
    )
    console = text_of(client.get(f"/director/games/{game_id}").get_data(as_text=True))
    assert f"Lexicon: club ({EDITION})" in console and CHANGED not in console
    projector = text_of(client.get(f"/games/{game_id}/projector").get_data(as_text=True))
    assert f"Lexicon: club ({EDITION})" in projector
    french = text_of(client.get(f"/director/games/{game_id}?lang=fr").get_data(as_text=True))
    assert f"Lexique : club ({EDITION})" in french
    listing = text_of(client.get("/director/").get_data(as_text=True))
    assert f"en · club ({EDITION})" in listing

    # A bundled lexicon's edition, recorded the same way; the API's creation answer has it too.
    api = Api(app.test_client())
    token = api.ok("POST", "/api/auth/token", {"username": "alice", "password": "password123"})["token"]
    created = api.ok("POST", "/api/games", {"rules": "fr"}, token=token, status=201)
    with app.app_context():
        fingerprint = lexicon_store().fingerprint("fr")
        edition = lexicon_store().catalogue()["fr"]["edition"]
    assert edition and (created["lexicon"], created["lexicon_edition"], created["lexicon_sha256"]) == (
        "fr",
        edition,
        fingerprint,
    )


def test_a_list_replaced_in_the_lobby_is_the_one_the_game_records_at_its_start(
    app: Flask, client: FlaskClient, director: str, club: list[str]
) -> None:
    log_in(client)
    game_id = new_game(client, lexicon="club", max_rounds="1")
    assert join(app.test_client(), join_code(app, game_id), "Bob").status_code == 303
    _load_list(app, club[:-1], "Club 2026")
    assert Api(app.test_client()).get(f"/api/games/{game_id}")["lexicon_since"] == "changed"
    assert act(client, game_id, "start").get_json()["ok"]
    state = Api(app.test_client()).get(f"/api/games/{game_id}")
    assert (state["lexicon_edition"], state["lexicon_since"]) == ("Club 2026", "unchanged")


def test_a_new_edition_never_rejudges_a_finished_game(
    app: Flask, client: FlaskClient, director: str, club: list[str]
) -> None:
    game_id = _finished_game(app, client)
    before = _everything(app, client, game_id)
    assert before["state"]["lexicon_since"] == "unchanged" and before["state"]["lexicon_edition"] == EDITION
    totals = {s["name"]: s["total"] for s in before["/api/games/{id}/standings"]["standings"]}
    assert totals["Bob"] > totals["Cy"] > 0  # real plays, judged valid with the club's list

    # The club loads another edition: none of the words played is in it.
    _load_list(app, ["QAT", "ZAX"], "Club 2026")
    after = _everything(app, client, game_id)
    with app.app_context():
        assert lexicon_store().states()["club"] == "not loaded yet"  # nothing read the new list's words
    for path in (*FILES, *API):
        assert after[path] == before[path], path  # standings, rounds, exports: as judged when the rounds closed
    assert after["state"] == {**before["state"], "lexicon_since": "changed"}
    for path in PAGES:
        if path == "/director/":
            assert after[path] == before[path]
            continue
        if "projector/live" in path or path.endswith("/rounds/1") or path.endswith("/rounds/2"):
            assert after[path] == before[path], path  # the projector's changing part, a round's page: as they were
            continue
        assert CHANGED in after[path] and CHANGED not in before[path], path
        assert f"({EDITION})" in after[path] and "Club 2026" not in after[path], path
        assert (
            _without(after[path], CHANGED + " Closed rounds keep the results worked out when they closed.")
            == (before[path])
        ), path
    french = text_of(client.get(f"/director/games/{game_id}/sheets/results?lang=fr").get_data(as_text=True))
    assert CHANGED_FR in french and f"Lexique : club ({EDITION})" in french

    # The exports name the lexicon and the edition the game was played with.
    rows = list(csv.DictReader(io.StringIO(after["/api/games/{id}/export.csv"])))
    assert {(r["lexicon"], r["edition"]) for r in rows} == {("club", EDITION)}
    assert [r["name"] for r in rows] == ["(top)", "Bob", "Cy"] and rows[1]["total"] == str(totals["Bob"])
    sheet_rows = list(csv.DictReader(io.StringIO(after["/director/games/{id}/sheets/game.csv"])))
    assert len(sheet_rows) == 2 and {(r["lexicon"], r["edition"]) for r in sheet_rows} == {("club", EDITION)}
    gcg = after["/api/games/{id}/export.gcg"]
    assert "\n#lexicon club\n" in gcg and f"lexicon club ({EDITION})" in gcg
    assert f"# played with the lexicon club ({EDITION})\n" in after["/api/games/{id}/draws.txt"]
    standings = after["/api/games/{id}/standings"]
    assert (standings["lexicon"], standings["lexicon_edition"]) == ("club", EDITION)

    # A slip declared on time for the last round would be judged with another list: refused.
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        # Cy's seat made a paper one (docs/rules.md §6.21: only paper players' slips are taken), so that the slip is
        # refused for the list that changed, not for the seat.
        cy = next(p for p in game.players if p.name == "Cy")
        cy.paper = True
        db.session.commit()
        with pytest.raises(Refused) as refused:
            bulletins.enter(game, "Cy", "8H QAT", "alice", declared=True)
        assert refused.value.code == "lexicon_changed" and status_of(refused.value) == 409
    page = f"/director/games/{game_id}/bulletins"
    answer = client.post(
        page,
        data={"csrf_token": csrf_token(client, page), "who": "Cy", "move": "8H QAT", "declared": "y"},
        follow_redirects=True,
    )
    shown = text_of(answer.get_data(as_text=True))  # in French: the results sheet was asked for in French above
    assert "La liste club a changé depuis que le coup 2 a été jugé : ce bulletin ne peut plus être pris." in shown


def test_a_removed_lexicon_leaves_its_games_whole(
    app: Flask, client: FlaskClient, director: str, club: list[str]
) -> None:
    game_id = _finished_game(app, client)
    before = _everything(app, client, game_id)
    with app.app_context():
        lexicon_store().remove("club")
        assert "club" not in lexicon_store().catalogue()
    after = _everything(app, client, game_id)
    for path in (*FILES, *API):
        assert after[path] == before[path], path
    assert after["state"]["lexicon_since"] == "removed"
    for path in ("/director/games/{id}", "/games/{id}/projector", "/director/games/{id}/sheets/results"):
        assert REMOVED in after[path] and f"Lexicon: club ({EDITION})" in after[path], path
    code, answer = Api(app.test_client()).call("GET", f"/api/games/{game_id}")
    assert code == 200
    check_against_spec("GET", f"/api/games/{game_id}", code, answer)


def test_a_game_made_before_lexicons_were_recorded(
    app: Flask, client: FlaskClient, director: str, club: list[str]
) -> None:
    """The migration leaves the games made before it without an edition or a fingerprint: their pages name the
    lexicon alone and say nothing of a change. Down and up again on this database (SQLite, then PostgreSQL)."""
    game_id = _finished_game(app, client)
    with app.app_context():
        flask_migrate.downgrade(directory=str(MIGRATIONS_DIR), revision="0017_competitions")
        columns = {c["name"] for c in sqlalchemy.inspect(db.engine).get_columns("game")}
        assert "lexicon_edition" not in columns and "lexicon_sha256" not in columns
        flask_migrate.upgrade(directory=str(MIGRATIONS_DIR))
        db.session.remove()
        game = db.session.get(Game, game_id)
        assert game is not None and (game.lexicon_edition, game.lexicon_sha256) == (None, None)
        assert len(game.rounds) == 2 and all(isinstance(r, Round) for r in game.rounds)
    _load_list(app, ["QAT", "ZAX"], "Club 2026")
    seen = _everything(app, client, game_id)
    assert seen["state"]["lexicon_since"] == "unknown" and seen["state"]["lexicon_edition"] is None
    results = seen["/director/games/{id}/sheets/results"]
    assert "Lexicon: club ·" in results and CHANGED not in results
    assert {r["edition"] for r in csv.DictReader(io.StringIO(seen["/api/games/{id}/export.csv"]))} == {""}


def test_no_room_of_a_simultaneous_game_opens_on_another_list(app: Flask, director: str, club: list[str]) -> None:
    api = Api(app.test_client())
    with app.app_context():
        accounts.create_director("bruno", "password123")
    alice, bruno = (
        api.ok("POST", "/api/auth/token", {"username": name, "password": "password123"})["token"]
        for name in ("alice", "bruno")
    )
    first = api.ok("POST", "/api/games", {"lexicon": "club", "max_rounds": 2}, token=alice, status=201)
    event = api.ok(
        "POST", "/api/competitions", {"kind": "simultaneous", "name": "Club night", "game_id": first["id"]}, alice, 201
    )
    api.ok("POST", "/api/join", {"code": first["join_code"], "name": "Ann"}, status=201)
    api.ok("POST", f"/api/games/{first['id']}/start", token=alice)
    room = api.ok("POST", f"/api/competitions/{event['code']}/rooms", None, bruno, 201)
    assert (room["lexicon_edition"], room["lexicon_sha256"]) == (EDITION, first["lexicon_sha256"])

    _load_list(app, club[:-1], "Club 2026")
    code, answer = api.call("POST", f"/api/competitions/{event['code']}/rooms", None, bruno)
    assert code == 409 and "changed" in answer["error"], answer


# ---------------------------------------------------------------- drills on a club's list


def test_decks_and_walls_offer_every_lexicon_and_a_deck_builds_from_an_imported_one(
    app: Flask, club: list[str]
) -> None:
    client = app.test_client()
    form = client.get("/study/signup").get_data(as_text=True)
    token = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', form)
    assert token
    signed = client.post(
        "/study/signup", data={"csrf_token": token.group(1), "username": "lea", "password": "password123"}
    )
    assert signed.status_code == 303
    with app.app_context():
        catalogue = lexicon_store().catalogue()
    assert {"en", "fr", "club"} <= set(catalogue)
    new_deck = client.get("/study/decks/new").get_data(as_text=True)
    for name in catalogue:
        assert re.search(rf'<option[^>]* value="{name}"', new_deck), name
    assert EDITION in new_deck
    deck = {
        "name": "club fours",
        "lexicon": "club",
        "kind": "anagram",
        "length": "4",
        "first": "1",
        "last": "20",
        "blanks": "0",
        "stem_length": "6",
        "stem_count": "100",
        "twos_part": "hooks",
        "words": "",
        "new_per_day": "20",
        "reviews_per_day": "200",
        "desired_retention": "0.9",
    }
    token_new = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', new_deck)
    assert token_new
    made = client.post("/study/decks/new", data={**deck, "csrf_token": token_new.group(1)})
    assert made.status_code == 303, text_of(made.get_data(as_text=True))
    page = client.get(made.headers["Location"]).get_data(as_text=True)
    prompt = re.search(r'class="prompt">([A-Z?]+)<', page)
    assert prompt and len(prompt.group(1)) == 4
    assert any(sorted(word) == sorted(prompt.group(1)) for word in club)  # a card of the club's four-letter words

    director = app.test_client()
    with app.app_context():
        accounts.create_director("alice", "password123")
    log_in(director)
    wall_form = director.get("/director/walls/new").get_data(as_text=True)
    for name in catalogue:
        assert re.search(rf'<option[^>]* value="{name}"', wall_form), name
