"""Fuzzing the way a play comes in (issue 6): the notation parser, then the submission path end to end.

(a) The parser, with any text and with text made of the notation's own alphabet: it reads a play or
refuses it with the engine's own errors (``ValueError`` subclasses with a ``code``), nothing else; a
play it reads is written back the same. (b) Plays through the Flask test client, on SQLite and
PostgreSQL: any JSON body, any move, wrong content types, huge or deeply nested bodies, any round
number, any token. Never a 5xx, always a JSON error, and a refused request stores nothing: the counts
of submissions and events move only when a play is accepted. The API's whole surface is fuzzed
against its OpenAPI document in tests/test_api_fuzz.py; this file goes deep on the one path a whole
room uses at once.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from tests.test_pages import csrf_token
from trainer.core import accounts
from trainer.core.database import db
from trainer.engine.board import Board
from trainer.engine.errors import EngineError, IllegalPlayError, NotationError
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move, parse_move
from trainer.engine.play import evaluate
from trainer.engine.rules import Ruleset
from trainer.games import service
from trainer.games.models import Event, Game, Submission
from trainer.http.body import MAX_BODY

PARSER_EXAMPLES = 300
API_EXAMPLES = 150  # per database
PAGE_EXAMPLES = 60  # per database

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
NOTATION_ALPHABET = LETTERS + LETTERS.lower() + "0123456789.() ?"

# ---------------------------------------------------------------- (a) the notation parser

coordinates = st.builds(
    lambda letter, number, first: f"{letter}{number}" if first else f"{number}{letter}",
    st.sampled_from(LETTERS + "az"),
    st.integers(-1, 20),
    st.booleans(),
)
written_words = st.text(alphabet=LETTERS + LETTERS.lower() + ".()", max_size=17)
separators = st.sampled_from([" ", "  ", "\t", "\u00a0", "\n", "", " x "])
notation_text = st.one_of(
    st.builds(lambda c, s, w: c + s + w, coordinates, separators, written_words),  # nearly right plays
    st.text(alphabet=NOTATION_ALPHABET + "\t", max_size=25),  # anything in the notation's alphabet
)


@pytest.fixture(scope="module")
def boards(en_rules: Ruleset) -> list[Board]:
    """The empty board, and one with a word on it to play through and against."""
    played = Board.empty(en_rules)
    played.place(parse_move("8D TRAINS", played).tiles)
    played.place(parse_move("E5 QUaRT", played).tiles)  # through the R, with a blank (lower case)
    return [Board.empty(en_rules), played]


def _read_or_refuse(text: str, board: Board, notation: str) -> None:
    try:
        move = parse_move(text, board, notation)  # type: ignore[arg-type]
    except (NotationError, IllegalPlayError) as error:
        assert isinstance(error, ValueError) and isinstance(error.code, str) and error.code and str(error)
    else:
        assert parse_move(format_move(move, notation), board, notation) == move  # type: ignore[arg-type]


@given(text=st.text(max_size=40), which=st.integers(0, 1), notation=st.sampled_from(["english", "french"]))
@settings(max_examples=PARSER_EXAMPLES, deadline=None, database=None)
def test_the_parser_reads_or_refuses_any_text(boards: list[Board], text: str, which: int, notation: str) -> None:
    _read_or_refuse(text, boards[which], notation)


@given(
    text=notation_text,
    which=st.integers(0, 1),
    notation=st.sampled_from(["english", "french"]),
    rack=st.sampled_from(["AEINRST", "QUA?SH", "EE?", "ZZZZZZZ", ""]),
)
@settings(max_examples=PARSER_EXAMPLES, deadline=None, database=None)
def test_the_parser_and_the_rules_read_or_refuse_notation_like_text(
    boards: list[Board], en_rules: Ruleset, en_lexicon: Lexicon, text: str, which: int, notation: str, rack: str
) -> None:
    _read_or_refuse(text, boards[which], notation)
    try:  # the rest of the way a submission takes: placement rules and scoring, with a rack
        evaluation = evaluate(boards[which], en_rules, en_lexicon, text, rack, notation)  # type: ignore[arg-type]
    except EngineError as error:
        assert error.code and str(error)
    else:
        assert evaluation.score >= 0 and evaluation.move.tiles


# ---------------------------------------------------------------- (b) the submission path


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=15,
)
moves = st.one_of(notation_text, st.text(max_size=30), json_values)


def _bodies(rack_plays: list[str]) -> st.SearchStrategy[bytes]:
    def dumped(value: Any) -> bytes:
        return json.dumps(value).encode()

    return st.one_of(
        st.builds(
            lambda move, extra: dumped({"move": move, **extra}),
            moves,
            st.dictionaries(st.text(max_size=8), json_values, max_size=3),
        ),
        st.sampled_from(rack_plays).map(lambda move: dumped({"move": move})),  # some are taken
        json_values.map(dumped),
        st.binary(max_size=200),
        st.integers(MAX_BODY - 16, 3 * MAX_BODY).map(lambda n: b'{"move": "8H ' + b"A" * n + b'"}'),  # too large
        st.integers(100, 50_000).map(lambda n: b"[" * n + b"]" * n),  # deeply nested
        st.text(max_size=10).map(lambda t: dumped({"move": "8H A\u0000" + t})),  # NUL, which PostgreSQL refuses
    )


CONTENT_TYPES = [
    None,
    "application/json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/json; charset=utf-16",
    "image/png",
]


def _counts(app: Flask) -> tuple[int, int]:
    with app.app_context():
        return (
            int(db.session.execute(select(func.count()).select_from(Submission)).scalar_one()),
            int(db.session.execute(select(func.count()).select_from(Event)).scalar_one()),
        )


@pytest.fixture
def game_in_play(app: Flask, en_rules: Ruleset, en_lexicon: Lexicon) -> dict[str, Any]:
    """A started game with a player, the plays of its first rack, and the submit limit out of the way
    (the fuzzer plays thousands of times a minute as one player; tests/test_security.py tests the limit)."""
    app.config["TIRAGE_RATELIMIT_SUBMIT"] = "1000000/minute"
    with app.app_context():
        director = accounts.create_director("fuzz", "password1")
        game = service.create_game(director, {"seed": 10**19 + 11})
        _player, token = service.join_game(game.join_code, "Ann")
        service.start_game(game, "fuzz")
        rack = service.current_round(game).rack  # type: ignore[union-attr]
        gid = game.id
        other = service.create_game(director, {"seed": 10**19 + 12}).id  # not started: its round 1 does not exist
        db.session.remove()
    board = Board.empty(en_rules)
    rack_plays = [format_move(m) for m in generate_moves(board, en_rules, en_lexicon, rack)][:20]
    return {"id": gid, "token": token, "rack_plays": rack_plays, "other": other}


def test_no_submission_makes_a_server_error_or_stores_anything_when_refused(
    app: Flask, client: FlaskClient, game_in_play: dict[str, Any]
) -> None:
    gid, token = game_in_play["id"], game_in_play["token"]
    seen: dict[int, int] = {}

    @given(
        body=_bodies(game_in_play["rack_plays"]),
        content_type=st.sampled_from(CONTENT_TYPES),
        number=st.one_of(
            st.just("1"), st.integers(-5, 2**70).map(str), st.text(max_size=10).map(lambda t: quote(t, safe=""))
        ),
        game=st.sampled_from([str(gid), str(gid), str(game_in_play["other"]), "999999", "0", "x"]),
        who=st.sampled_from(["player", "none", "junk", "basic"]),
        method=st.sampled_from(["POST", "PUT", "GET"]),
        elsewhere=st.integers(0, 9),
    )
    @settings(
        max_examples=API_EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    def run(
        body: bytes, content_type: str | None, number: str, game: str, who: str, method: str, elsewhere: int
    ) -> None:
        if elsewhere < 7:  # most bodies go all the way in: the player's POST to the open round
            number, game, who, method = "1", str(gid), "player", "POST"
        headers = {
            "player": {"Authorization": f"Bearer {token}"},
            "none": {},
            "junk": {"Authorization": "Bearer x"},
            "basic": {"Authorization": f"Basic {token}"},
        }[who]
        before = _counts(app)
        answer = client.open(
            f"/api/games/{game}/rounds/{number}/plays",
            method=method,
            data=body,
            headers=headers,
            content_type=content_type,
        )
        seen[answer.status_code] = seen.get(answer.status_code, 0) + 1
        assert answer.status_code < 500, (answer.status_code, answer.get_data()[:300])
        assert answer.is_json, (answer.status_code, answer.get_data()[:300])
        reply = answer.get_json()
        after = _counts(app)
        if answer.status_code == 200:
            assert set(reply) == {"round", "move", "score", "received_at"}
            assert after == (before[0] + 1, before[1] + 1)  # the play and its one event
        else:
            assert isinstance(reply, dict) and isinstance(reply.get("error"), str) and reply["error"], reply
            assert after == before, (answer.status_code, reply)

    run()
    assert seen.get(200, 0) > 0 and sum(n for code, n in seen.items() if code >= 400) > 0, seen
    print(f"\nAPI submissions by status: {dict(sorted(seen.items()))}")


def test_no_play_from_the_phone_page_makes_a_server_error(app: Flask, game_in_play: dict[str, Any]) -> None:
    gid = game_in_play["id"]
    with app.app_context():
        game = db.session.get(Game, gid)
        assert game is not None
        code = game.join_code
    phone = app.test_client()
    token = csrf_token(phone, "/join")
    assert phone.post("/join", data={"csrf_token": token, "code": code, "name": "Bob"}).status_code == 303
    token = csrf_token(phone, f"/play/{gid}")
    seen: dict[int, int] = {}

    @given(
        move=st.one_of(notation_text, st.text(max_size=40), st.sampled_from(game_in_play["rack_plays"])),
        number=st.one_of(
            st.just("1"), st.text(max_size=6), st.integers(-3, 2**80).map(str), st.sampled_from(["²", "١", "9" * 5000])
        ),
        as_json=st.booleans(),
    )
    @settings(
        max_examples=PAGE_EXAMPLES,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    def run(move: str, number: str, as_json: bool) -> None:
        before = _counts(app)
        answer = phone.post(
            f"/play/{gid}/submit",
            data={"csrf_token": token, "round": number, "move": move},
            headers={"Accept": "application/json"} if as_json else {},
        )
        seen[answer.status_code] = seen.get(answer.status_code, 0) + 1
        assert answer.status_code < 500, (answer.status_code, answer.get_data()[:300])
        after = _counts(app)
        accepted = answer.status_code in (200, 303)
        if as_json:
            reply = answer.get_json()
            assert reply["ok"] is accepted and (accepted or reply["error"]), reply
        assert after == ((before[0] + 1, before[1] + 1) if accepted else before), (answer.status_code, move, number)

    run()
    print(f"\nPage submissions by status: {dict(sorted(seen.items()))}")
