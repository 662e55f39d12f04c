"""The négatif and the percentage of the standings, the French federation's figures (docs/rules.md §6.13), the
same on every page, export and the API: négatif = total − top total (solo bonuses included), percentage =
100 × total ÷ top total with two decimals, half up; a decimal comma on French pages.

The figures themselves are tested in tests/test_duplicate_results.py; here a game with a solo bonus and a
correction is played through the pages, and every place that shows the standings is read.
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from fractions import Fraction
from math import floor

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.test_club_night import _correct, _player_id, _rounds_link
from tests.test_pages import act, current_round, join, join_code, log_in, new_game, plays_of, submit, text_of
from trainer.core import accounts
from trainer.http import language

Room = tuple[int, FlaskClient, FlaskClient]


def two_decimals(total: int, top_total: int) -> str:
    """100 × total ÷ top total, the exact fraction rounded half up to hundredths, written with a point."""
    hundredths = floor(Fraction(10_000 * total, top_total) + Fraction(1, 2))
    return f"{hundredths // 100}.{hundredths % 100:02d}"


@pytest.fixture
def played(app: Flask, client: FlaskClient) -> tuple[int, FlaskClient, FlaskClient, dict[str, int], int]:
    """One round closed: Bob alone finds the top (a solo, with its bonus: solo_min_players is 2), Cy's lesser
    play is corrected by the director. (game id, Bob's phone, Cy's phone, totals by name, top total)."""
    with app.app_context():
        accounts.create_director("alice", "password123")
    log_in(client)
    game_id = new_game(client, solo_min_players="2", solo_bonus="10")
    bob, cy = app.test_client(), app.test_client()
    for phone, name in ((bob, "Bob"), (cy, "Cy")):
        assert join(phone, join_code(app, game_id), name).status_code == 303
    assert act(client, game_id, "start").get_json()["ok"]
    plays = plays_of(app, current_round(app, game_id))
    (top, top_score), (other, other_score) = plays[0], plays[-1]
    assert submit(bob, game_id, top).get_json()["ok"]
    assert submit(cy, game_id, other).get_json()["ok"]
    assert act(client, game_id, "close").get_json()["ok"]
    corrected = max(other_score + 1, top_score // 3)  # a figure that does not divide evenly
    _correct(client, game_id, 1, _player_id(app, game_id, "Cy"), corrected, "slip misread")
    return game_id, bob, cy, {"Bob": top_score + 10, "Cy": corrected}, top_score


def test_the_api_and_the_csv_give_total_minus_top_total_and_two_decimals(
    client: FlaskClient, played: tuple[int, FlaskClient, FlaskClient, dict[str, int], int]
) -> None:
    game_id, _bob, _cy, totals, top_total = played
    table = client.get(f"/api/games/{game_id}/standings").get_json()
    assert table["top_total"] == top_total
    lines = {s["name"]: s for s in table["standings"]}
    assert lines["Bob"]["negatif"] == 10  # the solo bonus counts: the old négatif (differences only) said 0
    for name, total in totals.items():
        line = lines[name]
        assert (line["total"], line["negatif"]) == (total, total - top_total), name
        assert isinstance(line["percentage"], float), line
        assert f"{line['percentage']:.2f}" == two_decimals(total, top_total), line
        assert Decimal(repr(line["percentage"])) == Decimal(two_decimals(total, top_total)), line  # no float noise

    exported = client.get(f"/director/games/{game_id}/export.csv")
    assert exported.status_code == 200
    rows = list(csv.reader(io.StringIO(exported.get_data(as_text=True))))
    assert rows[0][:5] == ["rank", "name", "total", "negatif", "percentage"]
    assert rows[1][1:5] == ["(top)", str(top_total), "0", "100.00"]
    assert {row[1]: row[2:5] for row in rows[2:]} == {
        name: [str(total), str(total - top_total), two_decimals(total, top_total)] for name, total in totals.items()
    }


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_page_shows_the_same_figures_with_two_decimals(
    app: Flask, client: FlaskClient, played: tuple[int, FlaskClient, FlaskClient, dict[str, int], int], language: str
) -> None:
    game_id, bob, cy, totals, top_total = played
    query = f"?lang={language}"

    def shown(total: int) -> str:
        figure = two_decimals(total, top_total)
        return figure.replace(".", ",") if language == "fr" else figure

    def row(rank: int, name: str, tops: int, solos: int) -> str:
        total = totals[name]
        return f"{rank} {name} {total} {total - top_total} {shown(total)} {tops} {solos}"

    lines = (row(1, "Bob", 1, 1), row(2, "Cy", 0, 0))
    pages = {
        "console": client.get(f"/director/games/{game_id}/live{query}"),
        "projector": client.get(f"/games/{game_id}/projector/live{query}"),
        "Bob's phone": bob.get(f"/play/{game_id}/live{query}"),
    }
    for where, answer in pages.items():
        assert answer.status_code == 200, where
        text = text_of(answer.get_data(as_text=True))
        for line in lines:
            assert line in text, (where, line, text)
        wrong = two_decimals(totals["Cy"], top_total).replace(".", "," if language == "en" else ".")
        assert f" {wrong} " not in text, where  # the other language's separator

    mine = text_of(cy.get(_rounds_link(cy, game_id) + query).get_data(as_text=True))
    if language == "fr":
        assert f"avec {totals['Cy']} points ({shown(totals['Cy'])} % du top)" in mine, mine
    else:
        assert f"with {totals['Cy']} points ({shown(totals['Cy'])}% of the top)" in mine, mine

    assert act(client, game_id, "end").get_json()["ok"]
    games = text_of(client.get(f"/director/{query}").get_data(as_text=True))
    assert f"Bob ({totals['Bob']}, {shown(totals['Bob'])}%)" in games


def test_the_percentage_is_written_in_the_request_language() -> None:
    plain = Flask(__name__)
    language.init_app(plain)
    values = [Decimal(v) for v in ("98.75", "62.50", "100.00", "0.00", "112.50")]
    with plain.test_request_context("/?lang=en"):
        assert [language.format_percentage(v) for v in values] == ["98.75", "62.50", "100.00", "0.00", "112.50"]
    with plain.test_request_context("/?lang=fr"):
        assert [language.format_percentage(v) for v in values] == ["98,75", "62,50", "100,00", "0,00", "112,50"]


def test_a_french_readers_csv_files_are_in_a_french_spreadsheets_convention(
    client: FlaskClient, played: tuple[int, FlaskClient, FlaskClient, dict[str, int], int]
) -> None:
    """Issue 28 item 7 (docs/rules.md §6.20): a French spreadsheet reads ``99.38`` as text and takes ``,`` for the
    decimal comma, so a French reader's downloads are ``;``-separated with decimal commas after a UTF-8 byte-order
    mark; an English reader's are unchanged, and so is the API's file whatever the language."""
    game_id, _bob, _cy, totals, top_total = played
    client.set_cookie(language.LANG_COOKIE, "fr")
    french = client.get(f"/director/games/{game_id}/export.csv").get_data()
    assert french.startswith("\ufeff".encode())
    rows = list(csv.reader(io.StringIO(french.decode("utf-8-sig")), delimiter=";"))
    assert rows[0][:5] == ["rank", "name", "total", "negatif", "percentage"]
    assert rows[1][4] == "100,00"
    assert {row[1]: row[4] for row in rows[2:]} == {
        name: two_decimals(total, top_total).replace(".", ",") for name, total in totals.items()
    }
    sheet = client.get(f"/director/games/{game_id}/sheets/game.csv").get_data()
    assert sheet.startswith("\ufeff".encode()) and sheet.decode("utf-8-sig").startswith("round;draw;top;")

    api = client.get(f"/api/games/{game_id}/export.csv", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert not api.startswith("\ufeff") and api.splitlines()[1].split(",")[4] == "100.00"
    client.set_cookie(language.LANG_COOKIE, "en")
    english = client.get(f"/director/games/{game_id}/export.csv").get_data(as_text=True)
    assert english == api

    assert act(client, game_id, "end").get_json()["ok"]  # the archive's download, for anyone
    reader = client.application.test_client()
    assert reader.get(f"/archives/{game_id}/standings.csv").get_data(as_text=True) == api
    reader.set_cookie(language.LANG_COOKIE, "fr")
    assert reader.get(f"/archives/{game_id}/standings.csv").get_data() == french
    assert f'href="/archives/{game_id}/standings.csv"' in reader.get(f"/archives/{game_id}").get_data(as_text=True)


@pytest.mark.parametrize("language_code", ["en", "fr"])
def test_the_solo_bonus_is_shown_apart_from_the_rounds_score_everywhere(
    client: FlaskClient, played: tuple[int, FlaskClient, FlaskClient, dict[str, int], int], language_code: str
) -> None:
    """Issue 28 item 3 (docs/rules.md §6.13): the projector showed "AERIE · 22 (solo)" under a top of 12 and the
    CSV's round column was 22, while the help says the bonus is not part of the round's score. The round's score
    and the bonus are apart on the projector, the phone, the CSV and the API; the total still counts both."""
    game_id, bob, _cy, totals, top_total = played
    solo = "solo"  # the same word in French
    projector = text_of(client.get(f"/games/{game_id}/projector/live?lang={language_code}").get_data(as_text=True))
    assert f"· {top_total} + 10 {solo}" in projector, projector
    assert f"· {totals['Bob']}" not in projector, projector  # never the score and the bonus as one figure
    phone = text_of(bob.get(f"/play/{game_id}/live?lang={language_code}").get_data(as_text=True))
    assert f"{top_total} + 10 {solo}" in phone, phone

    rows = list(csv.DictReader(io.StringIO(client.get(f"/api/games/{game_id}/export.csv").get_data(as_text=True))))
    bob_row = next(r for r in rows if r["name"] == "Bob")
    assert (bob_row["round 1"], bob_row["bonus"], bob_row["total"]) == (str(top_total), "10", str(totals["Bob"]))
    lines = {s["name"]: s for s in client.get(f"/api/games/{game_id}/standings").get_json()["standings"]}
    assert (lines["Bob"]["round_scores"], lines["Bob"]["bonus"], lines["Bob"]["rounds"]) == (
        [top_total],
        10,
        [totals["Bob"]],
    )
    assert lines["Cy"]["bonus"] == 0 and lines["Cy"]["round_scores"] == [totals["Cy"]]
