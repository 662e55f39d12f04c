"""The official sheets' pages and the game sheet's CSV (docs/rules.md §6.20): what each holds, in English and
French, for the game's director only. Printing them to PDF is tests/browser/test_sheets.py."""

from __future__ import annotations

import csv
import io
from decimal import Decimal

from flask import Flask
from flask.testing import FlaskClient

from tests.test_club_night import _player_id
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
from trainer.duplicate.results import RoundRecord, Ruling, RulingKind, Submission, score_game
from trainer.games.export import latin_1


def _game(app: Flask, client: FlaskClient) -> int:
    """Two rounds: Bob finds the top each time, Cy plays the least play in round 1 and nothing in round 2; Cy is
    warned in round 2. The game is still running (the third round open)."""
    with app.app_context():
        accounts.create_director("alice", "password123")
    log_in(client)
    game_id = new_game(client)
    bob, cy = app.test_client(), app.test_client()
    for phone, name in ((bob, "Bob"), (cy, "Cy")):
        assert join(phone, join_code(app, game_id), name).status_code == 303
    assert act(client, game_id, "start").get_json()["ok"]
    for number in (1, 2):
        plays = plays_of(app, current_round(app, game_id))
        assert submit(bob, game_id, plays[0][0]).get_json()["ok"]
        if number == 1:
            assert submit(cy, game_id, plays[-1][0]).get_json()["ok"]
        assert act(client, game_id, "close").get_json()["ok"]
        assert act(client, game_id, "next").get_json()["ok"]
    page = f"/director/games/{game_id}/rounds/2"
    client.post(
        f"/director/games/{game_id}/rounds/2/rulings",
        data={
            "csrf_token": csrf_token(client, page),
            "player_id": str(_player_id(app, game_id, "Cy")),
            "kind": "warning",
            "reason": "talked",
            "back": "round",
        },
    )
    return game_id


def test_the_sheets_hold_the_standings_the_rounds_and_a_players_record(app: Flask, client: FlaskClient) -> None:
    game_id = _game(app, client)
    standings = client.get(f"/api/games/{game_id}/standings").get_json()
    details = [client.get(f"/api/games/{game_id}/rounds/{n}").get_json() for n in (1, 2)]

    index = text_of(client.get(f"/director/games/{game_id}/sheets/").get_data(as_text=True))
    assert "Results sheet" in index and "Game sheet" in index and "Bob" in index and "Cy" in index
    assert "Provisional: the game is not over." in index

    results = text_of(client.get(f"/director/games/{game_id}/sheets/results").get_data(as_text=True))
    assert "Provisional: the game is not over." in results
    for s in standings["standings"]:
        line = f"{s['rank']} {s['name']} {s['total']} {s['negatif']} {s['percentage']:.2f} {s['tops']} {s['solos']}"
        assert f"{line} {s['warnings']} {s['penalty']}" in results, (line, results)
    assert "Cy" in results and "2 rounds" in results and "2 players" in results

    sheet = text_of(client.get(f"/director/games/{game_id}/sheets/game").get_data(as_text=True))
    running = 0
    for d in details:
        running += d["top_score"]
        finders = sum(1 for r in d["results"] if r["top"]) if "results" in d else None
        assert f"{d['number']} {d['draw']} {d['placed']} {d['top_score']} {running}" in sheet, sheet
        if finders is not None:
            assert f"{finders} of 2" in sheet

    rows = list(csv.DictReader(io.StringIO(client.get(f"/director/games/{game_id}/sheets/game.csv").get_data(True))))
    assert [(r["round"], r["draw"].lstrip("'"), r["top"], r["score"]) for r in rows] == [
        (str(d["number"]), d["draw"], d["placed"], str(d["top_score"])) for d in details
    ]
    assert rows[-1]["top_total"] == str(sum(d["top_score"] for d in details)) and rows[0]["found_by"] == "1"

    cy = text_of(
        client.get(f"/director/games/{game_id}/sheets/players/{_player_id(app, game_id, 'Cy')}").get_data(True)
    )
    assert "Player sheet: Cy" in cy and "Warning from the arbiter (free): talked" in cy

    french = client.get(f"/director/games/{game_id}/sheets/results", headers={"Accept-Language": "fr"})
    assert "Feuille de résultats" in text_of(french.get_data(as_text=True))


def test_a_joker_games_sheets_say_so(app: Flask, client: FlaskClient) -> None:
    """docs/rules.md §6.20: every sheet's heading names the variant of a joker game (§6.24); a classic game's does
    not."""
    with app.app_context():
        accounts.create_director("alice", "password123")
    log_in(client)
    joker, classic = new_game(client, variant="joker"), new_game(client)
    assert act(client, joker, "start").get_json()["ok"] and act(client, classic, "start").get_json()["ok"]
    for path in ("results", "game"):
        assert "Joker game ·" in text_of(client.get(f"/director/games/{joker}/sheets/{path}").get_data(True))
        assert "Joker game" not in text_of(client.get(f"/director/games/{classic}/sheets/{path}").get_data(True))
    french = client.get(f"/director/games/{joker}/sheets/results", headers={"Accept-Language": "fr"})
    assert "Partie joker ·" in text_of(french.get_data(as_text=True))


def test_the_sheets_are_the_games_director_only(app: Flask, client: FlaskClient) -> None:
    game_id = _game(app, client)
    with app.app_context():
        accounts.create_director("bruno", "password123")
    other = app.test_client()
    log_in(other, "bruno")
    for path in ("", "results", "game", "game.csv"):
        assert other.get(f"/director/games/{game_id}/sheets/{path}").status_code == 403, path
    assert app.test_client().get(f"/director/games/{game_id}/sheets/results").status_code in (302, 303)
    assert client.get(f"/director/games/{game_id}/sheets/players/999999").status_code == 404


def test_the_worked_example_of_docs_rules_6_20() -> None:
    """Tops of 80, 24 and 33; Bob finds all three, Ann the first and the last, with a free warning."""
    tops = (80, 24, 33)
    rounds = [
        RoundRecord(
            n,
            top,
            [top, 10],
            [Submission("Bob", "b", top, True), Submission("Ann", "a", top if n != 2 else 10, n != 2)],
        )
        for n, top in enumerate(tops, start=1)
    ]
    warned = [Ruling("Ann", 1, RulingKind.WARNING, "talked")]
    results = score_game(rounds, ["Bob", "Ann"], rulings=warned)
    assert [sum(tops[:n]) for n in (1, 2, 3)] == [80, 104, 137] and results.top_total == 137
    ann = results.standings[1]
    line = (
        ann.rank,
        ann.player,
        ann.total,
        ann.negatif,
        ann.percentage,
        ann.tops,
        ann.solos,
        ann.warnings,
        ann.penalty,
    )
    assert line == (2, "Ann", 113, -24, Decimal("82.48"), 2, 0, 1, 0)


def test_the_sigles_file_has_a_line_per_table_in_latin_1(app: Flask, client: FlaskClient) -> None:
    """docs/rules.md §6.20: Zoé plays on paper at table 3; Bob and Cy, on phones, take tables 4 and 5."""
    game_id = _game(app, client)
    page = f"/director/games/{game_id}/bulletins"
    added = client.post(
        f"/director/games/{game_id}/paper-players",
        data={"csrf_token": csrf_token(client, page), "name": "Zoé", "table": "3"},
    )
    assert added.status_code == 303
    standings = {s["name"]: s["total"] for s in client.get(f"/api/games/{game_id}/standings").get_json()["standings"]}
    answer = client.get(f"/director/games/{game_id}/sheets/results.sigles.txt")
    assert answer.status_code == 200 and "iso-8859-1" in answer.headers["Content-Type"]
    text = answer.get_data().decode("latin-1")
    assert text.split("\r\n") == [
        '"1","--table vide--","-1"',
        '"2","--table vide--","-1"',
        '"3","Zoé","0"',
        f'"4","Bob","{standings["Bob"]}"',
        f'"5","Cy","{standings["Cy"]}"',
        "",
    ]
    assert "Zo\xe9".encode("latin-1") in answer.get_data()  # é as one Latin-1 byte, not UTF-8's two


def test_the_sigles_file_writes_every_name_in_latin_1_and_runs_no_formula(app: Flask, client: FlaskClient) -> None:
    """docs/rules.md §6.20: a name outside Latin-1 is transliterated (it was "?????"), a name a spreadsheet would run
    as a formula starts with an apostrophe, as in the CSV files (it was written raw)."""
    game_id = _game(app, client)
    page = f"/director/games/{game_id}/bulletins"
    for table, name in (("1", "=1+1"), ("2", "Алиса"), ("3", "Œdipe")):
        added = client.post(
            f"/director/games/{game_id}/paper-players",
            data={"csrf_token": csrf_token(client, page), "name": name, "table": table},
        )
        assert added.status_code == 303, name
    text = client.get(f"/director/games/{game_id}/sheets/results.sigles.txt").get_data().decode("latin-1")
    assert text.split("\r\n")[:3] == ['"1","\'=1+1","0"', '"2","Alisa","0"', '"3","OEdipe","0"']
    assert "?" not in text
    written = {name: latin_1(name) for name in ("Ελένη", "Łukasz", "Nguyễn", "Zoé", "Jürgen", "ß", "Æsa", "😀Bob")}
    assert written == {
        "Ελένη": "Eleni",
        "Łukasz": "Lukasz",
        "Nguyễn": "Nguyen",
        "Zoé": "Zoé",  # Latin-1's own letters stay
        "Jürgen": "Jürgen",
        "ß": "ß",
        "Æsa": "Æsa",
        "😀Bob": "?Bob",  # a symbol is no letter
    }
