"""The JSON API of duplicate games (issue 3), played as clients play it.

Every answer is also checked against the OpenAPI document the server publishes: its status must
be one the document lists for the operation, and its body must match the documented schema.
Expected figures (tops, ranks, scores, standings) are computed here with the engine, not read
from the server. Rounds are ended with the director's /close: no test waits for a deadline.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import re
import shutil
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from fractions import Fraction
from itertools import permutations
from math import floor
from pathlib import Path
from typing import Any

import openapi_spec_validator
import pytest
from flask import Flask
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from referencing import Registry
from referencing.jsonschema import DRAFT202012

from trainer.api.openapi import document
from trainer.core.accounts import create_director, create_learner
from trainer.duplicate.draw import reliquat_after
from trainer.engine.board import Board, Move
from trainer.engine.gcg import Placement, parse_gcg
from trainer.engine.lexicon import Lexicon, LexiconStore
from trainer.engine.movegen import generate_moves, top_moves
from trainer.engine.notation import format_move, parse_move
from trainer.engine.play import evaluate
from trainer.engine.rules import Ruleset

PASSWORD = "correct horse"
SPEC = document()

REGISTRY: Any = Registry().with_resource("urn:tirage-openapi", DRAFT202012.create_resource(SPEC))


def _operation(method: str, path: str) -> dict[str, Any]:
    """The documented operation that serves ``method path`` (path parameters matched as segments)."""
    for template, item in SPEC["paths"].items():
        pattern = "^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path) and method.lower() in item:
            return dict(item[method.lower()])
    raise AssertionError(f"{method} {path} is not in the OpenAPI document")


@functools.cache
def _validator(ref: str) -> Any:
    return Draft202012Validator({"$ref": "urn:tirage-openapi" + ref}, registry=REGISTRY)


def check_against_spec(method: str, path: str, status: int, body: Any) -> None:
    """The answer's status is documented for the operation, and a JSON body matches its schema."""
    responses = _operation(method, path.split("?")[0])["responses"]
    assert str(status) in responses, f"{method} {path} answered {status}, not documented ({sorted(responses)})"
    response = responses[str(status)]
    if "$ref" in response:
        response = SPEC["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
    schema = response.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return
    validator = _validator(schema["$ref"]) if "$ref" in schema else Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(body), key=str)
    assert not errors, f"{method} {path} {status}: {errors[0].message} at {list(errors[0].absolute_path)}"


class Api:
    """A client of the JSON API that checks every answer against the OpenAPI document."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
        documented: bool = True,
    ) -> tuple[int, Any]:
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        data = raw if raw is not None else (json.dumps(body) if body is not None else None)
        response = self.client.open(
            path, method=method, data=data, headers=sent, content_type="application/json" if data is not None else None
        )
        assert response.status_code < 500, f"{method} {path}: {response.status_code} {response.get_data()[:300]!r}"
        if response.mimetype != "application/json":
            assert response.status_code < 400, f"{method} {path}: error {response.status_code} is not JSON"
            if documented:
                check_against_spec(method, path, response.status_code, None)
            return response.status_code, response.get_data(as_text=True)
        answer = response.get_json()
        if response.status_code >= 400:
            assert isinstance(answer, dict) and isinstance(answer.get("error"), str) and answer["error"], answer
        if response.status_code == 401:
            assert response.headers.get("WWW-Authenticate", "").startswith("Bearer")
        if documented:
            check_against_spec(method, path, response.status_code, answer)
        return response.status_code, answer

    def ok(self, method: str, path: str, body: Any = None, token: str | None = None, status: int = 200) -> Any:
        code, answer = self.call(method, path, body, token)
        assert code == status, f"{method} {path}: {code} {answer}"
        return answer

    def get(self, path: str, token: str | None = None) -> Any:
        return self.ok("GET", path, token=token)

    def token(self, username: str = "alice") -> str:
        return str(self.ok("POST", "/api/auth/token", {"username": username, "password": PASSWORD})["token"])

    def new_game(self, director: str, **settings: Any) -> dict[str, Any]:
        game: dict[str, Any] = self.ok("POST", "/api/games", settings, token=director, status=201)
        return game

    def join(self, code: str, name: str) -> dict[str, Any]:
        joined: dict[str, Any] = self.ok("POST", "/api/join", {"code": code, "name": name}, status=201)
        return joined


@pytest.fixture
def api(app: Flask, lexicon_store: LexiconStore, en_lexicon: Lexicon) -> Api:
    """A client on a fresh application whose instance folder has the session's word graphs (no 15 s rebuild)."""
    cache = Path(app.instance_path) / "cache"
    if not cache.is_dir():  # the app fixture copies them already; never build them per test
        shutil.copytree(lexicon_store.cache_dir, cache)
    with app.app_context():
        create_director("alice", PASSWORD)
        create_director("bruno", PASSWORD)
    return Api(app.test_client())


def board_of(rules: Ruleset, rows: list[str]) -> Board:
    return Board.from_rows(rules.layout, rows)


def phony_on_empty_board(board: Board, rules: Ruleset, lexicon: Lexicon, rack: str) -> tuple[str, int, str]:
    """A legal first play of two rack tiles through the centre that is not a word: (play, score, word)."""
    for a, b in permutations(rack.replace("?", ""), 2):
        text = f"8H {a}{b}"
        evaluation = evaluate(board, rules, lexicon, text, rack)
        if evaluation.invalid_words:
            return text, evaluation.score, evaluation.invalid_words[0]
    raise AssertionError(f"every pair of {rack} is a word")


def lesser(moves: list[Move], top: int, avoid: frozenset[str] = frozenset()) -> Move:
    """A legal play that scores less than the top (about the middle of the list), not one of ``avoid``."""
    below = sorted(
        (m for m in moves if (m.score or 0) < top and format_move(m) not in avoid),
        key=lambda m: (-(m.score or 0), format_move(m)),
    )
    assert below, "every play is a top"
    return below[len(below) // 3]


def rank_of(moves: list[Move], score: int) -> int:
    return 1 + sum(1 for m in moves if (m.score or 0) > score)


def percentage(total: int, top_total: int) -> float:
    """100 × total ÷ top total with two decimals, the exact fraction rounded half up (docs/rules.md §6.13)."""
    return floor(Fraction(10_000 * total, top_total) + Fraction(1, 2)) / 100


def competition_ranks(totals: dict[str, int]) -> dict[str, int]:
    return {name: 1 + sum(1 for other in totals.values() if other > total) for name, total in totals.items()}


def parse_time(text: str) -> datetime:
    assert text.endswith("Z") or text.endswith("+00:00"), text
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# ------------------------------------------------------------------------------------- a full game


def test_a_full_game_through_the_api(api: Api, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    alice = api.token()
    game = api.new_game(alice, rules="en", seed=10**19 + 2, max_rounds=2, reveal_seconds=None, solo_min_players=3)
    gid, code = game["id"], game["join_code"]
    assert (game["seed"], game["max_rounds"], game["reveal_seconds"], game["status"]) == (
        str(10**19 + 2),
        2,
        None,
        "lobby",
    )
    assert (game["round_seconds"], game["solo_bonus"], game["notation"]) == (180, 10, "english")
    players = {name: api.join(code.lower(), name) for name in ("Ann", "Bob", "Cat", "Dan")}
    tokens = {name: p["token"] for name, p in players.items()}
    ids = {name: p["player_id"] for name, p in players.items()}
    assert all(p["game_id"] == gid for p in players.values())
    lobby = api.get(f"/api/games/{gid}")
    assert (lobby["status"], lobby["round"], lobby["players"], lobby["rack"]) == ("lobby", 0, 4, None)
    assert "seed" not in lobby["settings"] and "join_code" not in lobby  # no foreseeing the draws, no gate-crashing

    # Round 1 ------------------------------------------------------------------------------------------
    state = api.ok("POST", f"/api/games/{gid}/start", token=alice)
    assert (state["status"], state["round"], state["submissions"]) == ("playing", 1, 0)
    assert state["board"] == ["." * 15] * 15 and len(state["rack"]) == 7
    deadline = parse_time(state["deadline"])
    assert 178 <= (deadline - datetime.now(UTC)).total_seconds() <= 180
    assert 178 <= state["seconds_left"] <= 180
    board1, rack1 = board_of(en_rules, state["board"]), state["rack"]
    moves1 = generate_moves(board1, en_rules, en_lexicon, rack1)
    top1, tops1 = top_moves(board1, en_rules, en_lexicon, rack1)
    assert tops1 and max(m.score or 0 for m in moves1) == top1
    top_play = format_move(tops1[-1])
    low = lesser(moves1, top1)
    phony, phony_score, phony_word = phony_on_empty_board(board1, en_rules, en_lexicon, rack1)
    plays = f"/api/games/{gid}/rounds/1/plays"

    accepted = api.ok("POST", plays, {"move": top_play}, tokens["Ann"])
    assert (accepted["round"], accepted["move"], accepted["score"]) == (1, top_play, top1)
    assert abs((parse_time(accepted["received_at"]) - datetime.now(UTC)).total_seconds()) < 5
    assert api.ok("POST", plays, {"move": top_play}, tokens["Bob"])["score"] == top1
    assert api.ok("POST", plays, {"move": format_move(low)}, tokens["Bob"])["score"] == low.score  # the last counts
    # A phony is taken with its score as placed: validity is only told at the reveal.
    accepted = api.ok("POST", plays, {"move": phony}, tokens["Cat"])
    assert (accepted["move"], accepted["score"]) == (phony, phony_score) and "valid" not in accepted
    # Malformed plays and broken placement rules are refused at once, with the reason.
    for text, reason in [
        ("8H", "expected a coordinate and a word"),
        ("8H QQ", "rack has no Q"),
        ("8O ABC", "runs off the board"),
        ("8H " + next(t for t in rack1 if t != "?"), "at least two letters"),  # off the centre is taken (§6.9)
        ("Z99 AB", ""),
        ("", "expected a coordinate"),
    ]:
        code_, answer = api.call("POST", plays, {"move": text}, tokens["Dan"])
        assert code_ == 422 and reason in answer["error"], (text, answer)
    assert api.call("POST", plays, {"move": 42}, tokens["Dan"])[0] == 422
    assert api.call("POST", f"/api/games/{gid}/rounds/2/plays", {"move": top_play}, tokens["Dan"])[0] == 404
    playing = api.get(f"/api/games/{gid}")
    assert playing["submissions"] == 3  # Ann, Bob, Cat: players, not submissions
    assert top_play not in json.dumps(playing) and "Ann" not in json.dumps(playing)
    assert api.call("GET", f"/api/games/{gid}/rounds/1")[0] == 403  # no results before the close

    closed = api.ok("POST", f"/api/games/{gid}/close", token=alice)
    assert (closed["status"], closed["round_status"], closed["next_round_at"]) == ("revealing", "closed", None)
    code_, answer = api.call("POST", plays, {"move": top_play}, tokens["Dan"])  # late
    assert code_ == 409 and "closed" in answer["error"]
    assert api.call("POST", f"/api/games/{gid}/close", token=alice)[0] == 409

    r1 = api.get(f"/api/games/{gid}/rounds/1", alice)
    spectator = api.get(f"/api/games/{gid}/rounds/1")  # what the projector shows: the tops, nobody's play
    assert "results" not in spectator and (spectator["tops"], spectator["plays"]) == (r1["tops"], r1["plays"])
    placed1 = parse_move(r1["placed"], board1)
    assert (r1["number"], r1["rack"], r1["top_score"], r1["plays"]) == (1, rack1, top1, len(moves1))
    assert sorted(r1["tops"]) == sorted(format_move(m) for m in tops1) and r1["placed"] == r1["tops"][0]
    assert placed1.score is None and evaluate(board1, en_rules, en_lexicon, placed1, rack1).score == top1
    assert r1["draw"] == rack1 and r1["board_before"] == ["." * 15] * 15 and r1["solo"] == "Ann"
    assert parse_time(r1["started_at"]) <= parse_time(r1["closed_at"]) <= parse_time(r1["deadline"])
    results1 = {p["name"]: p for p in r1["results"]}
    assert list(results1) == ["Ann", "Bob", "Cat", "Dan"]
    assert results1["Ann"] == {
        "player_id": ids["Ann"],
        "name": "Ann",
        "move": top_play,
        "score": top1,
        "original": top1,
        "valid": True,
        "invalid_words": [],
        "late": False,
        "difference": 0,
        "top": True,
        "solo": True,
        "bonus": 10,
        "rank": 1,
        "of": len(moves1),
        "corrections": [],
        "rulings": [],
        "warnings": 0,
        "penalty": 0,
        "total": top1 + 10,
    }
    assert results1["Bob"] == {
        "player_id": ids["Bob"],
        "name": "Bob",
        "move": format_move(low),
        "score": low.score,
        "original": low.score,
        "valid": True,
        "invalid_words": [],
        "late": False,
        "difference": (low.score or 0) - top1,
        "top": False,
        "solo": False,
        "bonus": 0,
        "rank": rank_of(moves1, low.score or 0),
        "of": len(moves1),
        "corrections": [],
        "rulings": [],
        "warnings": 0,
        "penalty": 0,
        "total": low.score,
    }
    assert results1["Cat"] == {
        "player_id": ids["Cat"],
        "name": "Cat",
        "move": phony,
        "score": 0,
        "original": 0,
        "valid": False,
        "invalid_words": [phony_word],
        "late": False,
        "difference": -top1,
        "top": False,
        "solo": False,
        "bonus": 0,
        "rank": None,
        "of": len(moves1),
        "corrections": [],
        "rulings": [],
        "warnings": 0,
        "penalty": 0,
        "total": 0,
    }
    assert results1["Dan"] == {
        "player_id": ids["Dan"],
        "name": "Dan",
        "move": None,
        "score": 0,
        "original": 0,
        "valid": False,
        "invalid_words": [],
        "late": False,
        "difference": -top1,
        "top": False,
        "solo": False,
        "bonus": 0,
        "rank": None,
        "of": len(moves1),
        "corrections": [],
        "rulings": [],
        "warnings": 0,
        "penalty": 0,
        "total": 0,
    }

    # Round 2: the reliquat carries ---------------------------------------------------------------------
    board2 = board1.copy()
    board2.place(placed1.tiles)
    reliquat = reliquat_after(rack1, placed1)
    assert reliquat, "the seed was chosen for a top that leaves tiles"
    assert api.ok("POST", f"/api/games/{gid}/next", token=alice)["status"] == "playing"
    assert api.call("POST", f"/api/games/{gid}/next", token=alice)[0] == 409
    state = api.get(f"/api/games/{gid}")
    assert (state["round"], state["submissions"], state["board"]) == (2, 0, board2.rows())
    rack2 = state["rack"]
    assert state["draw"].startswith(f"{reliquat}+") and rack2.startswith(reliquat)  # no rejet with this seed
    eve = api.join(code, "Eve")  # joins late: round 1 scores 0 for her
    moves2 = generate_moves(board2, en_rules, en_lexicon, rack2)
    top2, tops2 = top_moves(board2, en_rules, en_lexicon, rack2)
    low2 = lesser(moves2, top2)
    other2 = lesser(moves2, top2, avoid=frozenset({format_move(low2)}))
    plays = f"/api/games/{gid}/rounds/2/plays"
    api.ok("POST", plays, {"move": format_move(low2)}, tokens["Ann"])
    api.ok("POST", plays, {"move": format_move(tops2[0])}, tokens["Bob"])
    api.ok("POST", plays, {"move": format_move(tops2[-1])}, tokens["Cat"])
    api.ok("POST", plays, {"move": format_move(other2)}, eve["token"])
    assert api.call("POST", f"/api/games/{gid}/rounds/1/plays", {"move": format_move(low2)}, tokens["Dan"])[0] == 409
    api.ok("POST", f"/api/games/{gid}/close", token=alice)
    corrected = api.ok(
        "POST",
        f"/api/games/{gid}/rounds/2/corrections",
        {"player_id": ids["Dan"], "score": 7, "reason": "paper slip read late"},
        alice,
        status=201,
    )
    dan2 = next(p for p in corrected["results"] if p["name"] == "Dan")
    assert (dan2["move"], dan2["original"], dan2["score"], dan2["difference"]) == (None, 0, 7, 7 - top2)
    assert dan2["corrections"] == [{"score": 7, "reason": "paper slip read late", "author": "alice"}]
    finished = api.ok("POST", f"/api/games/{gid}/next", token=alice)
    assert (finished["status"], finished["end_reason"], finished["round"]) == ("finished", "max_rounds", 2)

    r2 = {p["name"]: p for p in api.get(f"/api/games/{gid}/rounds/2", alice)["results"]}
    assert list(r2) == ["Ann", "Bob", "Cat", "Dan", "Eve"]
    expected2 = {"Ann": low2.score or 0, "Bob": top2, "Cat": top2, "Dan": 7, "Eve": other2.score or 0}
    for name, score in expected2.items():
        assert (r2[name]["score"], r2[name]["difference"], r2[name]["bonus"]) == (score, score - top2, 0), name
        assert r2[name]["top"] == (name in ("Bob", "Cat")) and not r2[name]["solo"], name  # two found it: no solo
    assert r2["Ann"]["rank"] == rank_of(moves2, low2.score or 0) and r2["Bob"]["rank"] == 1
    assert r2["Eve"]["rank"] == rank_of(moves2, other2.score or 0) and r2["Dan"]["rank"] is None
    r1_again = {p["name"]: p for p in api.get(f"/api/games/{gid}/rounds/1", alice)["results"]}
    assert r1_again["Eve"]["score"] == 0 and r1_again["Eve"]["move"] is None

    # Standings ---------------------------------------------------------------------------------------
    scores1 = {"Ann": top1, "Bob": low.score or 0, "Cat": 0, "Dan": 0, "Eve": 0}
    bonus1 = {"Ann": 10}
    totals = {n: scores1[n] + bonus1.get(n, 0) + expected2[n] for n in scores1}
    top_total = top1 + top2
    ranks = competition_ranks(totals)
    table = api.get(f"/api/games/{gid}/standings")
    assert (table["rounds"], table["top_scores"], table["top_total"]) == ([1, 2], [top1, top2], top_total)
    assert [s["total"] for s in table["standings"]] == sorted(totals.values(), reverse=True)
    for line in table["standings"]:
        name = line["name"]
        assert line == {
            "rank": ranks[name],
            "player_id": ids.get(name, eve["player_id"]),
            "name": name,
            "total": totals[name],
            "negatif": totals[name] - top_total,  # the solo bonus included
            "percentage": percentage(totals[name], top_total),
            "tops": (name == "Ann") + (name in ("Bob", "Cat")),
            "solos": int(name == "Ann"),
            "warnings": 0,
            "penalty": 0,
            "bonus": bonus1.get(name, 0),
            "rounds": [scores1[name] + bonus1.get(name, 0), expected2[name]],
            "round_scores": [scores1[name], expected2[name]],  # the bonus apart (docs/rules.md §6.11)
        }, name
        assert isinstance(line["percentage"], float) and round(line["percentage"], 2) == line["percentage"], line
    by_name = {line["name"]: line for line in table["standings"]}
    differences = (scores1["Ann"] - top1) + (expected2["Ann"] - top2)
    assert by_name["Ann"]["negatif"] == differences + 10  # Ann's solo bonus counts in her négatif
    assert all(line["negatif"] == line["total"] - top_total for line in table["standings"])
    mine = api.get(f"/api/games/{gid}/rounds/2/me", tokens["Ann"])["standing"]  # checked against MyRound
    assert (mine["total"], mine["negatif"], mine["percentage"]) == (
        totals["Ann"],
        totals["Ann"] - top_total,
        by_name["Ann"]["percentage"],
    )

    # Exports -----------------------------------------------------------------------------------------
    code_, text = api.call("GET", f"/api/games/{gid}/export.csv")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == [
        "rank",
        "name",
        "total",
        "negatif",
        "percentage",
        "tops",
        "solos",
        "bonus",
        "warnings",
        "penalty",
        "round 1",
        "round 2",
        "lexicon",
        "edition",
    ]
    assert rows[1][1:5] == ["(top)", str(top_total), "0", "100.00"] and rows[1][10:12] == [str(top1), str(top2)]
    assert {tuple(r[-2:]) for r in rows[1:]} == {("en", game["lexicon_edition"])}  # the game's list on every line
    assert [(r[1], int(r[0]), int(r[2]), int(r[3]), r[4]) for r in rows[2:]] == [
        (s["name"], s["rank"], s["total"], s["negatif"], f"{s['percentage']:.2f}") for s in table["standings"]
    ]
    assert all(re.fullmatch(r"\d+\.\d\d", r[4]) for r in rows[1:]), rows  # always two decimals: 62.50, 100.00
    code_, text = api.call("GET", f"/api/games/{gid}/export.gcg")
    assert text.startswith("#character-encoding UTF-8\n")
    record = parse_gcg(text, "export.gcg")
    assert [p.nick for p in record.players] == ["Top"]
    assert record.lexicon == "en" and f"lexicon en ({game['lexicon_edition']})" in (record.description or "")
    placements = [e for e in record.events if isinstance(e, Placement)]
    assert [(p.rack, p.score, p.total) for p in placements] == [(rack1, top1, top1), (rack2, top2, top_total)]
    replay = Board.empty(en_rules)
    for placement in placements:
        move = parse_move(placement.play, replay, "english")
        assert evaluate(replay, en_rules, en_lexicon, move, placement.rack).score == placement.score
        replay.place(move.tiles)
    assert replay.rows() == api.get(f"/api/games/{gid}")["board"]
    assert "seed" in api.get(f"/api/games/{gid}")["settings"]  # once the game is over, anyone may replay it


def test_the_director_can_place_another_top_until_the_next_round(api: Api, en_rules: Ruleset) -> None:
    alice, bruno = api.token(), api.token("bruno")
    game = api.new_game(alice, seed=10**19 + 0, reveal_seconds=None, max_rounds=3)
    gid = game["id"]
    player = api.join(game["join_code"], "Ann")
    api.ok("POST", f"/api/games/{gid}/start", token=alice)
    assert api.call("POST", f"/api/games/{gid}/rounds/1/top", {"move": "8D X"}, alice)[0] == 409  # not closed yet
    api.ok("POST", f"/api/games/{gid}/close", token=alice)
    round1 = api.get(f"/api/games/{gid}/rounds/1")
    assert len(round1["tops"]) > 1, "seed 0 was chosen for a round with several tops"
    other = round1["tops"][1]
    assert api.call("POST", f"/api/games/{gid}/rounds/1/top", {"move": other}, bruno)[0] == 403
    assert api.call("POST", f"/api/games/{gid}/rounds/1/top", {"move": other}, player["token"])[0] == 403
    assert api.call("POST", f"/api/games/{gid}/rounds/1/top", {"move": "8H ZZZ"}, alice)[0] == 422
    assert api.call("POST", f"/api/games/{gid}/rounds/1/top", {"move": ["x"]}, alice)[0] == 422
    assert api.call("POST", f"/api/games/{gid}/rounds/2/top", {"move": other}, alice)[0] == 409
    state = api.ok("POST", f"/api/games/{gid}/rounds/1/top", {"move": other}, alice)
    expected = Board.empty(en_rules)
    expected.place(parse_move(other, expected).tiles)
    assert state["board"] == expected.rows()
    assert api.get(f"/api/games/{gid}/rounds/1")["placed"] == other
    api.ok("POST", f"/api/games/{gid}/next", token=alice)
    assert api.get(f"/api/games/{gid}")["board"] == expected.rows()  # round 2 is played on the chosen top
    assert api.call("POST", f"/api/games/{gid}/rounds/1/top", {"move": round1["tops"][0]}, alice)[0] == 409


# ------------------------------------------------------------------------------------- auth


def test_tokens_and_who_may_do_what(api: Api) -> None:
    for credentials in (
        {"username": "alice", "password": "wrong password"},
        {"username": "nobody", "password": "x"},
        {"username": "alice"},
        {"username": 1, "password": ["x"]},
    ):
        code, answer = api.call("POST", "/api/auth/token", credentials)
        assert code == 401 and answer == {"error": "wrong username or password"}
    alice, bruno = api.token(), api.token("bruno")
    assert api.call("POST", "/api/games", {})[0] == 401
    assert api.call("POST", "/api/games", {}, token="not-a-token")[0] == 401
    assert api.call("POST", "/api/games", {}, token=alice[:-2] + "xx")[0] == 401  # tampered signature
    assert api.call("POST", "/api/games", {}, headers={"Authorization": f"Basic {alice}"})[0] == 401
    assert api.call("POST", "/api/games", {}, headers={"Authorization": f"bearer {alice}"})[0] == 201

    game = api.new_game(alice, seed=10**19 + 5, reveal_seconds=None)
    gid = game["id"]
    other = api.new_game(bruno, seed=10**19 + 6)
    ann = api.join(game["join_code"], "Ann")
    zoe = api.join(other["join_code"], "Zoe")
    code, answer = api.call("POST", "/api/join", {"code": game["join_code"], "name": " Ann "})
    assert code == 409 and "taken" in answer["error"]
    assert api.call("POST", "/api/join", {"code": "NOPE99", "name": "Ann"})[0] == 404

    for action in ("start", "pause", "resume", "close", "next", "end"):
        assert api.call("POST", f"/api/games/{gid}/{action}")[0] == 401, action
        code, answer = api.call("POST", f"/api/games/{gid}/{action}", token=bruno)
        assert code == 403 and "own director" in answer["error"], action
        code, answer = api.call("POST", f"/api/games/{gid}/{action}", token=ann["token"])
        assert code == 403 and "player" in answer["error"], action
    assert api.call("POST", f"/api/games/{gid}/extend", {"seconds": 30}, token=bruno)[0] == 403
    assert api.call("POST", "/api/games", {}, token=ann["token"])[0] == 403
    assert api.call("POST", "/api/games/999/start", token=alice)[0] == 404

    api.ok("POST", f"/api/games/{gid}/start", token=alice)
    assert api.call("POST", f"/api/games/{gid}/start", token=alice)[0] == 409
    plays = f"/api/games/{gid}/rounds/1/plays"
    rack = api.get(f"/api/games/{gid}")["rack"]
    play = {"move": f"8H {rack[0]}{rack[1]}".replace("?", "A")}
    assert api.call("POST", plays, play)[0] == 401
    assert api.call("POST", plays, play, token="junk")[0] == 401
    code, answer = api.call("POST", plays, play, token=alice)
    assert code == 403 and "only players" in answer["error"]
    code, answer = api.call("POST", plays, play, token=zoe["token"])  # a player of another game
    assert code == 403 and "not for this game" in answer["error"]
    assert api.call("GET", f"/api/games/{gid}")[1]["submissions"] == 0
    assert "join_code" not in api.get(f"/api/games/{gid}", token=bruno)
    assert api.get(f"/api/games/{gid}", token=alice)["join_code"] == game["join_code"]
    assert (
        api.call(
            "POST",
            f"/api/games/{gid}/rounds/1/corrections",
            {"player_id": ann["player_id"], "score": 5, "reason": "x"},
            token=ann["token"],
        )[0]
        == 403
    )


def test_the_director_ends_a_game_and_the_round_in_play_counts(api: Api) -> None:
    alice = api.token()
    game = api.new_game(alice, seed=10**19 + 8)
    gid = game["id"]
    ann = api.join(game["join_code"], "Ann")
    api.ok("POST", f"/api/games/{gid}/start", token=alice)
    rack = api.get(f"/api/games/{gid}")["rack"]
    code, answer = api.call(
        "POST", f"/api/games/{gid}/rounds/1/plays", {"move": f"8H {rack[0]}{rack[1]}"}, token=ann["token"]
    )
    handed_in = answer["move"] if code == 200 else None  # a blank first tile is refused: then no play
    ended = api.ok("POST", f"/api/games/{gid}/end", token=alice)
    assert ended["status"] == "finished" and ended["end_reason"] == "director"
    details = api.get(f"/api/games/{gid}/rounds/1", alice)
    assert details["status"] == "closed"
    assert [r["move"] for r in details["results"] if r["name"] == "Ann"] == [handed_in]
    code, answer = api.call("POST", f"/api/games/{gid}/end", token=alice)
    assert code == 409 and answer == {"error": "the game is already over"}
    assert api.call("POST", f"/api/games/{gid}/next", token=alice)[0] == 409


# ------------------------------------------------------------------------------------- rounds and time


def test_round_results_are_hidden_until_the_round_closes(api: Api) -> None:
    alice = api.token()
    game = api.new_game(alice, seed=10**19 + 3, reveal_seconds=None)
    gid = game["id"]
    assert api.call("GET", f"/api/games/{gid}/rounds/1")[0] == 404  # not started
    api.ok("POST", f"/api/games/{gid}/start", token=alice)
    code, answer = api.call("GET", f"/api/games/{gid}/rounds/1")
    assert code == 403 and "closes" in answer["error"]
    assert api.call("GET", f"/api/games/{gid}/rounds/1", token=alice)[0] == 403  # the director neither
    assert api.call("GET", f"/api/games/{gid}/rounds/2")[0] == 404
    assert api.call("GET", f"/api/games/{gid + 1}/rounds/1")[0] == 404
    assert (
        api.call(
            "POST", f"/api/games/{gid}/rounds/1/corrections", {"player_id": 1, "score": 5, "reason": "early"}, alice
        )[0]
        == 409
    )
    api.ok("POST", f"/api/games/{gid}/close", token=alice)
    details = api.get(f"/api/games/{gid}/rounds/1", alice)
    assert details["status"] == "closed" and details["closed_at"] and details["results"] == []


def test_pause_keeps_the_time_left_and_extend_adds_to_it(api: Api) -> None:
    alice = api.token()
    gid = api.new_game(alice, seed=10**19 + 4, round_seconds=120)["id"]
    assert api.call("POST", f"/api/games/{gid}/pause", token=alice)[0] == 409  # nothing to pause in the lobby
    api.ok("POST", f"/api/games/{gid}/start", token=alice)
    paused = api.ok("POST", f"/api/games/{gid}/pause", token=alice)
    left = paused["seconds_left"]
    assert (paused["status"], paused["round_status"], paused["deadline"]) == ("paused", "paused", None)
    assert 119 <= left <= 120
    assert api.call("POST", f"/api/games/{gid}/pause", token=alice)[0] == 409
    time.sleep(0.3)
    assert api.get(f"/api/games/{gid}")["seconds_left"] == left  # the clock is stopped
    assert api.ok("POST", f"/api/games/{gid}/extend", {"seconds": 20}, alice)["seconds_left"] == pytest.approx(
        left + 20, abs=0.1
    )
    resumed = api.ok("POST", f"/api/games/{gid}/resume", token=alice)
    assert resumed["status"] == "playing" and resumed["round_status"] == "open"
    until = (parse_time(resumed["deadline"]) - datetime.now(UTC)).total_seconds()
    assert left + 20 - 1 <= until <= left + 20 + 0.1
    assert api.call("POST", f"/api/games/{gid}/resume", token=alice)[0] == 409
    extended = api.ok("POST", f"/api/games/{gid}/extend", {"seconds": 30}, alice)
    assert (parse_time(extended["deadline"]) - parse_time(resumed["deadline"])).total_seconds() == pytest.approx(30)
    for junk in (0, -5, 3601, "30", 1.5, True, None, [30]):
        code, answer = api.call("POST", f"/api/games/{gid}/extend", {"seconds": junk}, alice)
        assert code == 422 and "seconds" in answer["error"], junk
    api.ok("POST", f"/api/games/{gid}/close", token=alice)
    assert api.call("POST", f"/api/games/{gid}/extend", {"seconds": 30}, alice)[0] == 409
    assert api.call("POST", f"/api/games/{gid}/pause", token=alice)[0] == 409


def test_the_reveal_pause_is_announced(api: Api) -> None:
    alice = api.token()
    gid = api.new_game(alice, seed=10**19 + 4, reveal_seconds=45)["id"]
    api.ok("POST", f"/api/games/{gid}/start", token=alice)
    closed = api.ok("POST", f"/api/games/{gid}/close", token=alice)
    until = (parse_time(closed["next_round_at"]) - datetime.now(UTC)).total_seconds()
    assert 44 <= until <= 45
    assert api.ok("POST", f"/api/games/{gid}/next", token=alice)["round"] == 2  # the director need not wait


# ------------------------------------------------------------------------------------- events


def sse(text: str) -> list[dict[str, Any]]:
    """The events of a Server-Sent Events body: id, event, data (JSON); comments as {"comment": ...}."""
    events = []
    for block in text.split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.splitlines():
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "":
                fields["comment"] = value
            elif name == "data":
                fields["data"] = json.loads(value)
            else:
                fields[name] = value
        if fields:
            events.append(fields)
    return events


def test_events_stream_with_ids_and_resume(api: Api, app: Flask) -> None:
    alice = api.token()
    game = api.new_game(alice, seed=10**19 + 3, reveal_seconds=None)
    gid = game["id"]
    ann, bob = api.join(game["join_code"], "Ann"), api.join(game["join_code"], "Bob")
    state = api.ok("POST", f"/api/games/{gid}/start", token=alice)
    rack = state["rack"]
    first = f"8H {rack[0]}{rack[1]}".replace("?", "E")
    for token in (ann["token"], ann["token"], bob["token"]):
        api.ok("POST", f"/api/games/{gid}/rounds/1/plays", {"move": first}, token)
    api.ok("POST", f"/api/games/{gid}/close", token=alice)

    code, body = api.call("GET", f"/api/games/{gid}/events?timeout=0")
    assert code == 200
    stream = sse(body)
    assert stream[0] == {"retry": "2000"}
    events = [e for e in stream if "id" in e]
    kinds = [e["event"] for e in events]
    assert kinds == [
        "created",
        "joined",
        "joined",
        "round_started",
        "submission",
        "submission",
        "submission",
        "round_closed",
    ]
    ids = [int(e["id"]) for e in events]
    assert ids == sorted(set(ids))
    assert all(e["data"]["id"] == int(e["id"]) and e["data"]["kind"] == e["event"] for e in events)
    assert all(parse_time(e["data"]["at"]) for e in events)
    submissions = [e["data"] for e in events if e["event"] == "submission"]
    assert [s["submissions"] for s in submissions] == [1, 1, 2]  # players who handed in a play, not plays
    for s in submissions:
        assert set(s) == {"id", "kind", "at", "round", "submissions"}
    assert "Ann" not in body and "Bob" not in body and first not in body and "seed" not in body
    started = next(e["data"] for e in events if e["event"] == "round_started")
    assert (started["round"], started["rack"]) == (1, rack)

    # A client that reconnects gets what it missed, and nothing twice.
    resume_at = ids[3]
    later = [
        int(e["id"])
        for e in sse(
            api.call("GET", f"/api/games/{gid}/events?timeout=0", headers={"Last-Event-ID": str(resume_at)})[1]
        )
        if "id" in e
    ]
    assert later == ids[4:]
    by_query = api.call("GET", f"/api/games/{gid}/events?timeout=0&last_event_id={ids[-2]}")[1]
    assert [int(e["id"]) for e in sse(by_query) if "id" in e] == ids[-1:]
    assert [
        e
        for e in sse(api.call("GET", f"/api/games/{gid}/events?timeout=0", headers={"Last-Event-ID": str(ids[-1])})[1])
        if "id" in e
    ] == []

    # Events written while a client listens arrive on the open stream; a quiet stream gets heartbeats.
    app.config.update(TIRAGE_SSE_POLL=0.05, TIRAGE_SSE_HEARTBEAT=0.2)
    received: list[str] = []
    listener = threading.Thread(
        target=lambda: received.append(
            app.test_client()
            .get(f"/api/games/{gid}/events?timeout=1.5", headers={"Last-Event-ID": str(ids[-1])})
            .get_data(as_text=True)
        )
    )
    began = time.monotonic()
    listener.start()
    time.sleep(0.5)
    api.ok("POST", f"/api/games/{gid}/next", token=alice)
    listener.join(timeout=10)
    assert not listener.is_alive() and time.monotonic() - began >= 1.4  # the stream lasts its timeout, then ends
    live = sse(received[0])
    assert [e["event"] for e in live if "id" in e] == ["round_started"]
    # A named event without id, so that a page's EventSource sees it (comments never reach the page's script).
    assert any(e.get("event") == "heartbeat" and "id" not in e for e in live)


def test_events_of_unknown_games_and_bad_resume_points(api: Api) -> None:
    assert api.call("GET", "/api/games/42/events?timeout=0")[0] == 404
    gid = api.new_game(api.token())["id"]
    for query, headers in [
        ("timeout=soon", {}),
        ("timeout=-1", {}),
        ("timeout=1e9", {}),
        ("timeout=nan", {}),
        ("last_event_id=x", {}),
        ("", {"Last-Event-ID": "²"}),
        ("", {"Last-Event-ID": "-3"}),
        ("", {"Last-Event-ID": "9" * 30}),
    ]:
        code, answer = api.call("GET", f"/api/games/{gid}/events?{query}", headers=headers)
        assert code == 400, (query, headers, answer)


# ------------------------------------------------------------------------------------- bad input


JUNK_BODIES: list[bytes] = [
    b"",
    b"{",
    b"[1, 2]",
    b'"text"',
    b"null",
    b"\xff\xfe\x00",
    b"[" * 100_000,
    json.dumps({"move": "8H A\u0000B", "name": "\u0000"}).encode(),
    b"x" * 70_000,
]
JUNK_VALUES: list[Any] = [None, [], {}, "x", "", -1, 0, 10**30, True, 1.5, "\U0001f600" * 50]


def _junk_objects(operation: dict[str, Any]) -> list[dict[str, Any]]:
    """Objects with every documented field of the request body set to each junk value in turn."""
    ref = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
    fields = list(SPEC["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]].get("properties", {})) if ref else []
    return [{name: value for name in fields or ["x"]} for value in JUNK_VALUES]


def test_no_input_makes_a_500(api: Api) -> None:
    """Every documented operation, fed junk bodies, junk ids and every kind of token: JSON errors, never a 500."""
    alice = api.token()
    game = api.new_game(alice, seed=10**19 + 1, reveal_seconds=None)
    player = api.join(game["join_code"], "Ann")["token"]
    calls = 0
    for template, item in SPEC["paths"].items():
        for method, operation in item.items():
            junk = JUNK_BODIES + [json.dumps(o).encode() for o in _junk_objects(operation)]
            for game_id, number in [(game["id"], 1), (999_999, 1), (game["id"], 2**31), (2**70, 10**30), ("x", "y")]:
                path = template.replace("{game_id}", str(game_id)).replace("{number}", str(number))
                if path.endswith("/events"):
                    path += "?timeout=0"
                for token in (None, alice, player, "junk"):
                    # Every junk body where it can get past routing and tokens; one body elsewhere.
                    full = method == "post" and game_id == game["id"] and number == 1 and token in (alice, player)
                    for raw in junk if full else [b"{}"]:
                        api.call(method.upper(), path, token=token, raw=raw)  # checks: no 500, JSON, documented
                        calls += 1
    assert calls > 500
    assert api.call("POST", "/api/games/1/nothing-here", documented=False)[0] == 404
    assert api.call("DELETE", f"/api/games/{game['id']}", documented=False)[0] == 405
    # Settings are checked field by field, with the field named in the error.
    for settings, field in [
        ({"rules": "xx"}, "rules"),
        ({"lexicon": "nope"}, "lexicon"),
        ({"notation": 1}, "notation"),
        ({"round_seconds": 5}, "round_seconds"),
        ({"draw_rule": {"min_vowels": "2"}}, "min_vowels"),
        ({"draw_rule": {"bogus": 1}}, "bogus"),
        ({"seed": -1}, "seed"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"solo_bonus": True}, "solo_bonus"),
    ]:
        code, answer = api.call("POST", "/api/games", settings, token=alice)
        assert code == 422 and field in answer["error"], (settings, answer)


OUT_OF_RANGE = [2**31, 2**63]  # past PostgreSQL's INTEGER, past SQLite's 64 bits


def test_every_id_in_a_body_is_checked_against_its_range(api: Api, app: Flask) -> None:
    """Every documented body field set to numbers past an id's range, on real games, players, rulings and sessions,
    with each kind of token (a director's, a player's, a learner's): a clear refusal, never an overflow (a 500)."""
    with app.app_context():
        create_learner("lea", PASSWORD)
    alice = api.token()
    lea = str(api.ok("POST", "/api/auth/learner-token", {"username": "lea", "password": PASSWORD})["token"])
    archived = api.new_game(alice, reveal_seconds=None)
    api.ok("POST", f"/api/games/{archived['id']}/start", token=alice)
    api.ok("POST", f"/api/games/{archived['id']}/end", token=alice)
    solo = api.ok("POST", "/api/practice", {"game": archived["id"]}, lea, status=201)["session"]["id"]
    topping = api.ok("POST", "/api/topping", {"game": archived["id"]}, lea, status=201)["id"]
    game = api.new_game(alice, reveal_seconds=None)
    ann = api.join(game["join_code"], "Ann")
    api.ok("POST", f"/api/games/{game['id']}/start", token=alice)
    places = {"game_id": game["id"], "number": 1, "player_id": ann["player_id"], "ruling_id": 1, "code": "X"}
    for template, item in SPEC["paths"].items():
        for method, operation in item.items():
            if "requestBody" not in operation:
                continue
            session = topping if template.startswith("/api/topping/") else solo
            path = template.format(session_id=session, **places)
            learners = template.startswith(("/api/practice", "/api/topping"))
            for field in _junk_objects(operation)[0]:
                for value in OUT_OF_RANGE:
                    for token in [lea] if learners else [alice, ann["token"]]:  # Api.call: no 500, documented
                        api.call(method.upper(), path, {field: value}, token)
    # The one the issue names, with its message: no such game in the archive.
    code, answer = api.call("POST", "/api/practice", {"game": 2**63}, lea)
    assert code == 404 and "no game" in answer["error"], answer


def test_settings_of_another_type_are_refused_not_read_as_left_out(api: Api) -> None:
    """schemathesis found {"lexicon": {}} accepted (201): an empty object or list was read as "left out". The document
    says a string or null; anything else is refused with 422, naming the setting."""
    alice = api.token()
    for value in ({}, [], 0, False, ["fr"]):
        for field in ("lexicon", "notation"):
            code, answer = api.call("POST", "/api/games", {"rules": "fr", field: value}, token=alice)
            assert code == 422 and field in answer["error"], (field, value, answer)
    # Left out, null or empty: the ruleset's own lexicon and notation.
    default = api.new_game(alice, rules="fr")
    for given in ({"lexicon": None, "notation": None}, {"lexicon": "", "notation": ""}):
        made = api.new_game(alice, rules="fr", **given)
        assert (made["lexicon"], made["notation"]) == (default["lexicon"], default["notation"]) != (None, None)


def test_the_openapi_document_is_valid_and_matches_the_routes(api: Api, app: Flask) -> None:
    served = api.get("/api/openapi.json")
    assert served == json.loads(json.dumps(SPEC)) and served["openapi"].startswith("3.1")
    routes = {
        (re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.endpoint.startswith("api.")
        for method in rule.methods or ()
        if method not in ("HEAD", "OPTIONS")
    }
    documented = {(path, method) for path, item in SPEC["paths"].items() for method in item}
    assert routes == documented
    for path, item in SPEC["paths"].items():
        for method, operation in item.items():
            assert "responses" in operation and "summary" in operation, (path, method)
            names = {p["name"] for p in operation.get("parameters", []) if p["in"] == "path"}
            assert names == set(re.findall(r"\{(\w+)\}", path)), (path, method)
    openapi_spec_validator.validate(served)


def test_join_codes_are_read_forgivingly_and_names_tidied(api: Api) -> None:
    alice = api.token()
    game = api.new_game(alice)
    joined = api.join(f"  {game['join_code'].lower()} ", "  Anne   Marie ")
    assert joined["name"] == "Anne Marie"
    assert Counter(p["name"] for p in api.get(f"/api/games/{game['id']}/standings")["standings"]) == {"Anne Marie": 1}
