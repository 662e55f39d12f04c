"""Arbitration: warnings, penalties, solos granted or withdrawn, and cancelled rulings (docs/rules.md §6.19).

The figures are checked on the rules document's worked example with ``results.score_game``; then a game is
played through the API and the pages, and every place that shows the rulings is read: the round's details,
the standings, the CSV, the event log, the director's round page, the player's phone and *My rounds*.
"""

from __future__ import annotations

import csv
import io
import re
from decimal import Decimal

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from tests.test_api import PASSWORD, Api, phony_on_empty_board
from tests.test_api import api as api  # the fixture
from tests.test_club_night import _player_id, _rounds_link
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
from trainer.core.database import db
from trainer.duplicate.errors import RuleError
from trainer.duplicate.results import (
    RoundRecord,
    Ruling,
    RulingKind,
    SoloRule,
    Submission,
    WarningRule,
    score_game,
)
from trainer.duplicate.rounds import ruling
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.rules import Ruleset
from trainer.games import events, service
from trainer.games.models import Event, Game
from trainer.games.models import Ruling as RulingRow

TOP = 40
W, P = RulingKind.WARNING, RulingKind.PENALTY


def _example_rounds() -> list[RoundRecord]:
    """docs/rules.md §6.19: four rounds, each top 40; Dan scores 40 (alone), 31, nothing, 38; Ann 30 each."""
    scores = [40, 38, 31, 30, 12]
    dan = {1: 40, 2: 31, 4: 38}
    rounds = []
    for number in range(1, 5):
        plays = [Submission("Ann", "ann", 30, True)]
        if number in dan:
            plays.append(Submission("Dan", "dan", dan[number], True))
        rounds.append(RoundRecord(number, TOP, scores, plays))
    return rounds


def _example_rulings() -> list[Ruling]:
    return [
        Ruling("Dan", 1, W, "slip unreadable"),
        Ruling("Dan", 2, W, "spoke during the round"),
        Ruling("Dan", 2, W, "spoke again"),
        Ruling("Dan", 3, W, "bulletin after the call"),
        Ruling("Dan", 4, P, "phone out during the round", points=10),
    ]


def _dan(rulings: list[Ruling], solo_rule: SoloRule | None = None) -> tuple[int, int, Decimal, int, int, int]:
    results = score_game(_example_rounds(), ["Ann", "Dan"], solo_rule=solo_rule, rulings=rulings)
    dan = next(s for s in results.standings if s.player == "Dan")
    return dan.total, dan.negatif, dan.percentage, dan.warnings, dan.penalty, dan.solos


def test_the_worked_example_of_docs_rules_6_19() -> None:
    results = score_game(_example_rounds(), ["Ann", "Dan"], rulings=_example_rulings())
    dan_rounds = [r.players["Dan"] for r in results.rounds]
    assert [p.total for p in dan_rounds] == [40, 31, -5, 28]  # the fourth warning costs 5; a round below 0
    assert [p.penalty for p in dan_rounds] == [0, 0, 5, 10]
    assert [r.points for r in dan_rounds[2].rulings] == [5]  # the warning carries what it cost
    assert dan_rounds[2].score == 0  # the score itself stays 0: the penalty is beside it
    assert _dan(_example_rulings()) == (94, -66, Decimal("58.75"), 4, 15, 1)
    assert results.top_total == 160


def test_the_variations_of_the_worked_example() -> None:
    fifth = [*_example_rulings(), Ruling("Dan", 4, W, "spoke again, round 4")]
    assert _dan(fifth)[:5] == (89, -71, Decimal("55.63"), 5, 20)
    without_round_3 = [r for r in _example_rulings() if r.round_number != 3]  # the round-3 warning cancelled
    assert _dan(without_round_3)[:5] == (99, -61, Decimal("61.88"), 3, 10)
    withdrawn = [*_example_rulings(), Ruling("Dan", 1, RulingKind.SOLO_WITHDRAWN, "play copied")]
    assert _dan(withdrawn) == (94, -66, Decimal("58.75"), 4, 15, 0)  # no bonus to lose below 16 players
    two = SoloRule(10, 2)
    assert _dan(_example_rulings(), two)[0] == 104
    assert _dan(withdrawn, two)[0] == 94 and _dan(withdrawn, two)[5] == 0


def test_a_solo_granted_the_latest_of_grant_and_withdrawal_decides_and_the_free_warnings_are_a_setting() -> None:
    rounds = _example_rounds()
    granted = [Ruling("Ann", 2, RulingKind.SOLO_GRANTED, "her play was misread")]
    results = score_game(rounds, ["Ann", "Dan"], solo_rule=SoloRule(10, 2), rulings=granted)
    assert results.rounds[1].players["Ann"].solo and results.rounds[1].players["Ann"].bonus == 10
    assert not results.rounds[1].players["Ann"].top  # a granted solo does not pretend she scored the top
    both = [*granted, Ruling("Ann", 2, RulingKind.SOLO_WITHDRAWN, "granted by mistake")]
    assert not score_game(rounds, ["Ann"], rulings=both).rounds[1].players["Ann"].solo
    again = [*both, Ruling("Ann", 2, RulingKind.SOLO_GRANTED, "checked the slip again")]
    assert score_game(rounds, ["Ann"], rulings=again).rounds[1].players["Ann"].solo
    strict = score_game(rounds, ["Dan"], rulings=_example_rulings(), warning_rule=WarningRule(penalty=7, free=1))
    dan = next(s for s in strict.standings if s.player == "Dan")
    assert (dan.warnings, dan.penalty) == (4, 3 * 7 + 10)


@pytest.mark.parametrize(
    ("kind", "points", "reason", "code"),
    [
        ("caution", None, "x", "bad_ruling"),
        (None, None, "x", "bad_ruling"),
        ("penalty", None, "x", "bad_penalty"),
        ("penalty", 0, "x", "bad_penalty"),
        ("penalty", -5, "x", "bad_penalty"),
        ("penalty", 1001, "x", "bad_penalty"),
        ("penalty", True, "x", "bad_penalty"),
        ("warning", 5, "x", "points_not_taken"),
        ("warning", None, "  ", "ruling_reason_missing"),
        ("solo_granted", None, None, "ruling_reason_missing"),
    ],
)
def test_a_ruling_is_refused_with_the_reason_named(kind: object, points: object, reason: object, code: str) -> None:
    with pytest.raises(RuleError) as refused:
        ruling(kind, points, reason)
    assert refused.value.code == code


# ------------------------------------------------------------------------------------- through the API


def test_rulings_through_the_api_appear_in_the_round_the_standings_the_csv_and_the_log(
    app: Flask, api: Api, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    alice = api.token()
    game = api.new_game(alice, rules="en", max_rounds=2, reveal_seconds=None, solo_min_players=2)
    gid = game["id"]
    ann, dan = (api.join(game["join_code"], name) for name in ("Ann", "Dan"))
    api.ok("POST", f"/api/games/{gid}/start", token=alice)
    state = api.get(f"/api/games/{gid}", alice)
    phony, _score, _word = phony_on_empty_board(Board.empty(en_rules), en_rules, en_lexicon, state["rack"])
    for player in (ann, dan):  # both play (a word not in the lexicon: 0): two active players, solos get a bonus
        api.ok("POST", f"/api/games/{gid}/rounds/1/plays", {"move": phony}, player["token"])
    path = f"/api/games/{gid}/rounds/1/rulings"
    code, answer = api.call("POST", path, {"player_id": dan["player_id"], "kind": "warning", "reason": "x"}, alice)
    assert code == 409 and "not closed" in answer["error"]  # nothing is ruled on a round still being played
    api.ok("POST", f"/api/games/{gid}/close", token=alice)
    details = api.get(f"/api/games/{gid}/rounds/1", alice)
    for _ in range(4):
        api.ok("POST", path, {"player_id": dan["player_id"], "kind": "warning", "reason": "slip"}, alice, status=201)
    penalised = api.ok(
        "POST", path, {"player_id": ann["player_id"], "kind": "penalty", "points": 7, "reason": "late"}, alice, 201
    )
    by_name = {p["name"]: p for p in penalised["results"]}
    assert [r["points"] for r in by_name["Dan"]["rulings"]] == [0, 0, 0, 5]
    assert (by_name["Dan"]["warnings"], by_name["Dan"]["penalty"], by_name["Dan"]["total"]) == (4, 5, -5)
    assert by_name["Ann"]["rulings"][0] | {"id": 0} == {
        "id": 0,
        "kind": "penalty",
        "points": 7,
        "reason": "late",
        "author": "alice",
    }
    assert (by_name["Ann"]["total"], by_name["Ann"]["score"]) == (-7, 0)  # a round below 0: only by a penalty

    granted = api.ok(
        "POST", path, {"player_id": ann["player_id"], "kind": "solo_granted", "reason": "misread slip"}, alice, 201
    )
    ann_round = {p["name"]: p for p in granted["results"]}["Ann"]
    assert (ann_round["solo"], ann_round["bonus"], ann_round["total"]) == (True, 10, 3)

    first_warning = by_name["Dan"]["rulings"][0]["id"]
    cancel = f"/api/games/{gid}/rulings/{first_warning}/cancel"
    code, answer = api.call("POST", cancel, {"reason": ""}, alice)
    assert code == 422 and "reason" in answer["error"]
    assert api.ok("POST", cancel, {"reason": "given to the wrong player"}, alice, 204) == ""
    code, answer = api.call("POST", cancel, {"reason": "twice"}, alice)
    assert code == 409 and "already cancelled" in answer["error"]
    bruno = api.token("bruno")
    code, _answer = api.call("POST", path, {"player_id": dan["player_id"], "kind": "warning", "reason": "x"}, bruno)
    assert code in (403, 404)  # another director's game

    table = {s["name"]: s for s in api.get(f"/api/games/{gid}/standings")["standings"]}
    top_total = details["top_score"]
    assert (table["Dan"]["warnings"], table["Dan"]["penalty"], table["Dan"]["total"]) == (3, 0, 0)
    assert (table["Ann"]["warnings"], table["Ann"]["penalty"], table["Ann"]["total"]) == (0, 7, 3)
    assert table["Ann"]["solos"] == 1
    assert all(s["negatif"] == s["total"] - top_total for s in table.values())

    _code, text = api.call("GET", f"/api/games/{gid}/export.csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    ann_row = next(r for r in rows if r["name"] == "Ann")
    # The round's score and the solo bonus apart (issue 28 item 3): a score of 0, 10 for the solo granted, 7 off.
    assert (ann_row["warnings"], ann_row["penalty"], ann_row["bonus"], ann_row["total"], ann_row["round 1"]) == (
        "0",
        "7",
        "10",
        "3",
        "0",
    )

    with app.app_context():  # the game's record: every ruling and the cancellation, with author and reason
        logged = db.session.execute(
            select(Event.kind, Event.data, Event.author).where(Event.game_id == gid).order_by(Event.id)
        ).all()
    ruled = [(d["kind"], d["player"], d.get("points"), a) for k, d, a in logged if k == "ruled"]
    assert ruled == [
        *[("warning", "Dan", None, "alice")] * 4,
        ("penalty", "Ann", 7, "alice"),
        ("solo_granted", "Ann", None, "alice"),
    ]
    cancelled = [d for k, d, _a in logged if k == "ruling_cancelled"]
    assert cancelled == [
        {"ruling": first_warning, "round": 1, "player": "Dan", "reason": "given to the wrong player", "kind": "warning"}
    ]


@pytest.fixture
def ruled(app: Flask, client: FlaskClient) -> tuple[int, FlaskClient]:
    """A closed round in which the director warned Bob four times through the round page; Bob's phone."""
    with app.app_context():
        accounts.create_director("alice", "password123")
    log_in(client)
    game_id = new_game(client, warnings_before_penalty="3", warning_penalty="5")
    bob = app.test_client()
    assert join(bob, join_code(app, game_id), "Bob").status_code == 303
    assert act(client, game_id, "start").get_json()["ok"]
    (top, _score), *_rest = plays_of(app, current_round(app, game_id))
    assert submit(bob, game_id, top).get_json()["ok"]
    assert act(client, game_id, "close").get_json()["ok"]
    page = f"/director/games/{game_id}/rounds/1"
    for number in range(1, 5):
        answer = client.post(
            f"/director/games/{game_id}/rounds/1/rulings",
            data={
                "csrf_token": csrf_token(client, page),
                "player_id": str(_player_id(app, game_id, "Bob")),
                "kind": "warning",
                "points": "",
                "reason": f"talking {number}",
                "back": "round",
            },
        )
        assert answer.status_code == 303 and answer.headers["Location"].endswith(f"{page}#results")
    return game_id, bob


def test_the_round_page_the_phone_and_my_rounds_show_each_ruling_with_its_reason(
    client: FlaskClient, ruled: tuple[int, FlaskClient]
) -> None:
    game_id, bob = ruled
    page = text_of(client.get(f"/director/games/{game_id}/rounds/1").get_data(as_text=True))
    assert "Warning from the arbiter (free): talking 1" in page
    assert "Warning from the arbiter, 5 points off: talking 4" in page
    phone = text_of(bob.get(f"/play/{game_id}").get_data(as_text=True))
    assert "Warning from the arbiter, 5 points off: talking 4" in phone
    assert re.search(r"Score \d+ − 5 penalty", phone), phone
    mine = text_of(bob.get(_rounds_link(bob, game_id)).get_data(as_text=True))
    assert "Warning from the arbiter (free): talking 3" in mine and "5 points off: talking 4" in mine
    french = bob.get(_rounds_link(bob, game_id), headers={"Accept-Language": "fr"})
    assert "Avertissement de l’arbitre, 5 points retirés : talking 4" in text_of(french.get_data(as_text=True))


def test_a_penalty_without_points_and_a_missing_reason_are_refused_on_the_page(
    app: Flask, client: FlaskClient, ruled: tuple[int, FlaskClient]
) -> None:
    game_id, _bob = ruled
    page = f"/director/games/{game_id}/rounds/1"
    player = str(_player_id(app, game_id, "Bob"))
    for data, message in (
        ({"kind": "penalty", "points": "", "reason": "late"}, "A penalty is from 1 to 1000 points."),
        ({"kind": "penalty", "points": "5000", "reason": "late"}, "A penalty is from 1 to 1000 points."),
        ({"kind": "warning", "points": "", "reason": ""}, "Say why."),
    ):
        answer = client.post(
            f"/director/games/{game_id}/rounds/1/rulings",
            data={"csrf_token": csrf_token(client, page), "player_id": player, "back": "round", **data},
            follow_redirects=True,
        )
        assert answer.status_code == 200 and message in text_of(answer.get_data(as_text=True)), message


# --------------------------------------------------------------------------------------- the rulings' record

MOMENT = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"


def _cancel_on_the_page(app: Flask, client: FlaskClient, game_id: int, reason: str) -> None:
    """Cancel Bob's first warning from the round page, as the director does."""
    with app.app_context():
        first = db.session.execute(select(RulingRow.id).order_by(RulingRow.id)).scalars().first()
    page = f"/director/games/{game_id}/rounds/1"
    answer = client.post(
        f"/director/games/{game_id}/rulings/{first}/cancel",
        data={"csrf_token": csrf_token(client, page), "reason": reason, "back": "round", "number": "1"},
    )
    assert answer.status_code == 303


def test_every_ruling_and_its_cancellation_is_on_the_console_the_round_page_and_the_sheets(
    app: Flask, client: FlaskClient, ruled: tuple[int, FlaskClient]
) -> None:
    """docs/rules.md §6.19, "The record": each ruling with its author, time and reason, a cancelled one with its
    cancellation's; the console once showed neither author nor time and dropped cancelled rulings."""
    game_id, _bob = ruled
    _cancel_on_the_page(app, client, game_id, "given to the wrong table")
    with app.app_context():
        bob = db.session.execute(select(RulingRow.player_id)).scalars().first()
    cancelled = rf"Warning talking 1 alice {MOMENT} Cancelled by alice at {MOMENT} ?: given to the wrong table"
    kept = rf"Warning talking 4 alice {MOMENT} –"
    pages = {
        "console": (f"/director/games/{game_id}", "Rulings of the game", "1 Bob "),
        "round page": (f"/director/games/{game_id}/rounds/1", "Rulings of round 1", ""),
        "results sheet": (f"/director/games/{game_id}/sheets/results", "Rulings", "1 Bob "),
        "player sheet": (f"/director/games/{game_id}/sheets/players/{bob}", "Rulings", "1 "),
    }
    for name, (path, heading, before) in pages.items():
        text = text_of(client.get(path).get_data(as_text=True))
        assert heading in text, name
        assert re.search(before + cancelled, text), (name, text)
        assert re.search(before + kept, text), (name, text)
    french = text_of(
        client.get(f"/director/games/{game_id}/rounds/1", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    )
    assert re.search(rf"Annulée par alice le {MOMENT} : given to the wrong table", french), french


def test_the_event_stream_names_a_ruling_and_its_cancellation_by_the_events_kind(
    app: Flask, client: FlaskClient, ruled: tuple[int, FlaskClient]
) -> None:
    """docs/rules.md §6.19: a cancellation is streamed as `ruling_cancelled`, the ruling's own kind beside it as
    `ruling_kind` (it once overwrote the event's: a cancelled warning streamed as a `warning`)."""
    game_id, _bob = ruled
    _cancel_on_the_page(app, client, game_id, "given to the wrong table")
    streamed = events.events_after(app, game_id, 0, quiet=True, limit=100)
    rulings = [e for e in streamed if e["kind"] in ("ruled", "ruling_cancelled")]
    assert [e["kind"] for e in rulings] == ["ruled"] * 4 + ["ruling_cancelled"]
    assert all(e["ruling_kind"] == "warning" and e["by"] == "alice" for e in rulings)
    assert rulings[-1]["reason"] == "given to the wrong table" and rulings[-1]["ruling"] == rulings[0]["ruling"]


def test_a_reason_is_at_most_200_characters_and_a_player_at_most_20_rulings_a_round(
    app: Flask, api: Api, client: FlaskClient
) -> None:
    """docs/rules.md §6.19: the API takes a reason as the forms do (200 characters at most), and a player is given
    at most 20 rulings in a round, cancelled ones included."""
    alice = api.token()
    game = api.new_game(alice, rules="en", max_rounds=2, reveal_seconds=None)
    gid = game["id"]
    dan = api.join(game["join_code"], "Dan")
    api.ok("POST", f"/api/games/{gid}/start", token=alice)
    api.ok("POST", f"/api/games/{gid}/close", token=alice)
    path = f"/api/games/{gid}/rounds/1/rulings"
    too_long = "x" * 201
    for url, body in (
        (path, {"player_id": dan["player_id"], "kind": "warning", "reason": too_long}),
        (f"/api/games/{gid}/rounds/1/corrections", {"player_id": dan["player_id"], "score": 3, "reason": too_long}),
    ):
        code, answer = api.call("POST", url, body, alice)
        assert (code, answer["error"]) == (422, "'reason' is at most 200 characters")
    given = api.ok("POST", path, {"player_id": dan["player_id"], "kind": "warning", "reason": "y" * 200}, alice, 201)
    first = given["results"][0]["rulings"][0]["id"]
    code, answer = api.call("POST", f"/api/games/{gid}/rulings/{first}/cancel", {"reason": too_long}, alice)
    assert (code, answer["error"]) == (422, "'reason' is at most 200 characters")
    assert api.ok("POST", f"/api/games/{gid}/rulings/{first}/cancel", {"reason": "by mistake"}, alice, 204) == ""

    with app.app_context():  # 19 more: 20 in all, the cancelled one counted
        played = db.session.get(Game, gid)
        assert played is not None
        for number in range(19):
            service.give_ruling(played, 1, dan["player_id"], "warning", None, f"talking {number}", "alice")
    code, answer = api.call(
        "POST", path, {"player_id": dan["player_id"], "kind": "penalty", "points": 5, "reason": "z"}, alice
    )
    assert code == 409
    assert answer["error"] == "Dan has 20 rulings in round 1 already, the most one player can be given in a round"
    with app.app_context():
        assert len(db.session.execute(select(RulingRow.id).where(RulingRow.kind != "cancel")).all()) == 20

    log_in(client, "alice", PASSWORD)  # the page's refusal, in French
    page = f"/director/games/{gid}/rounds/1"
    answer = client.post(
        f"/director/games/{gid}/rounds/1/rulings",
        data={
            "csrf_token": csrf_token(client, page),
            "player_id": str(dan["player_id"]),
            "kind": "warning",
            "points": "",
            "reason": "again",
            "back": "round",
        },
        headers={"Accept-Language": "fr"},
        follow_redirects=True,
    )
    assert "Dan a déjà 20 décisions au coup 1 : c’est le plus qu’un joueur puisse recevoir en un coup." in text_of(
        answer.get_data(as_text=True)
    )
