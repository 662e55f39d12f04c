"""The play path of ``tirage serve`` (issue 6): plays judged in the event loop, written in batches.

``service.store_plays`` is checked on both databases; the ASGI application is called in-process with
real requests (its writer thread and database are real), and its answers are compared with the Flask
view's, which stays the reference for every refusal.
"""

from __future__ import annotations

import asyncio
import json
import time
from datetime import timedelta
from typing import Any

from flask import Flask
from sqlalchemy import select, text

from tests.test_live import run_async
from trainer.core import accounts
from trainer.core.database import db
from trainer.core.errors import Refused
from trainer.core.lexicons import lexicon_store
from trainer.games import service
from trainer.games.models import Event, Game, Round, Submission
from trainer.games.service import AcceptedPlay, PendingPlay
from trainer.http.errors import status_of
from trainer.http.headers import HSTS
from trainer.live.asgi import TirageASGI
from trainer.server import serving_app

PASSWORD = "correct horse battery"
DIRECTOR = "director"


def _started_game(app: Flask, players: int) -> tuple[int, list[str], list[str]]:
    """A started game (its director is :data:`DIRECTOR`), its players' tokens, and the legal plays of its first
    rack (best first)."""
    from trainer.engine.board import Board
    from trainer.engine.movegen import generate_moves
    from trainer.engine.notation import format_move
    from trainer.engine.rules import ruleset

    with app.app_context():
        director = accounts.authenticate_director(DIRECTOR, PASSWORD) or accounts.create_director(DIRECTOR, PASSWORD)
        game = service.create_game(director, {"rules": "en", "round_seconds": 60})
        tokens = [service.join_game(game.join_code, f"P{i}")[1] for i in range(players)]
        service.start_game(game, "test")
        round_ = service.current_round(game)
        assert round_ is not None
        rules = ruleset("en")
        moves = generate_moves(
            Board(rules.layout, list(round_.board_before)), rules, lexicon_store().load("en"), round_.rack
        )
        plays = [format_move(m) for m in sorted(moves, key=lambda m: -(m.score or 0))]
        return game.id, tokens, plays


# ------------------------------------------------------------------------------ store_plays


def test_a_burst_is_written_at_once_and_only_late_plays_are_refused(app: Flask) -> None:
    game_id, _tokens, plays = _started_game(app, 3)
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        round_ = service.current_round(game)
        assert round_ is not None and round_.deadline is not None
        deadline = round_.deadline
        playing = service.round_playing(game, 1)
        players = sorted(game.players, key=lambda p: p.name)

        def pending(player_index: int, play: str, seconds_before: float) -> PendingPlay:
            move, score = service.judge(playing, play)
            player = players[player_index]
            return PendingPlay(
                playing, player.id, player.name, move, score, deadline - timedelta(seconds=seconds_before)
            )

        burst = [
            pending(0, plays[0], 5),
            pending(1, plays[1], 4),
            pending(0, plays[2], 3),
            pending(2, plays[3], -1),  # a second after the deadline: refused
            pending(2, plays[4], 0.5),
        ]
        outcomes = service.store_plays(burst)

        assert [type(o) for o in outcomes] == [AcceptedPlay, AcceptedPlay, AcceptedPlay, Refused, AcceptedPlay]
        late = outcomes[3]
        assert isinstance(late, Refused) and status_of(late) == 409 and late.code == "round_closed"
        stored = db.session.execute(
            select(Submission.player_id, Submission.move)
            .where(Submission.round_id == playing.round_id)
            .order_by(Submission.id)
        ).all()
        assert [tuple(row) for row in stored] == [
            (players[0].id, burst[0].move),
            (players[1].id, burst[1].move),
            (players[0].id, burst[2].move),
            (players[2].id, burst[4].move),
        ]
        events = (
            db.session.execute(
                select(Event).where(Event.game_id == game_id, Event.kind == "submission").order_by(Event.id)
            )
            .scalars()
            .all()
        )
        # The projector's count of players who handed in: a second play of the same player adds nobody.
        assert [(e.author, e.data["submissions"]) for e in events] == [("P0", 1), ("P1", 2), ("P0", 2), ("P2", 3)]

        # Once the round is closed, nothing more is taken, whatever its receive time says.
        assert service.close_round(game_id, 1, "test", early=True)
        (after_close,) = service.store_plays([pending(1, plays[0], 10)])
        assert isinstance(after_close, Refused) and after_close.code == "round_closed"
        assert db.session.query(Submission).count() == 4


# ------------------------------------------------------------------------------ the ASGI play path


class Answer:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status, self.headers, self.body = status, headers, body

    def json(self) -> Any:
        return json.loads(self.body)


async def _post(asgi: TirageASGI, path: str, body: bytes, token: str | None, method: str = "POST") -> Answer:
    """One request through the ASGI application, as uvicorn hands it over."""
    headers = [
        (b"host", b"testserver"),
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }
    chunks = [body[:10], body[10:]]  # in two pieces, as a network may deliver it

    async def receive() -> dict[str, Any]:
        if chunks:
            chunk = chunks.pop(0)
            return {"type": "http.request", "body": chunk, "more_body": bool(chunks)}
        await asyncio.sleep(3600)  # the client waits for the answer
        return {"type": "http.disconnect"}

    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await asgi(scope, receive, send)
    start = sent[0]
    return Answer(
        start["status"],
        {k.decode(): v.decode() for k, v in start["headers"]},
        b"".join(m.get("body", b"") for m in sent[1:]),
    )


def _plays_path(game_id: int, number: int = 1) -> str:
    return f"/api/games/{game_id}/rounds/{number}/plays"


def test_plays_of_a_room_are_taken_in_the_event_loop_and_all_stored(app: Flask, served: TirageASGI) -> None:
    game_id, tokens, plays = _started_game(app, 40)
    answers: list[Answer] = []
    sent: list[tuple[str, str]] = []

    async def room() -> None:
        for round_trip in range(2):  # each player hands in twice: the second play replaces the first
            calls = []
            for index, token in enumerate(tokens):
                play = plays[(index + round_trip) % len(plays)]
                sent.append((token, play))
                calls.append(_post(served, _plays_path(game_id), json.dumps({"move": play}).encode(), token))
            answers.extend(await asyncio.gather(*calls))  # the whole room at once

    run_async(room())
    assert [a.status for a in answers] == [200] * 80, [a.body for a in answers if a.status != 200][:3]
    assert served.desk.counts.taken == 80 and served.desk.counts.handed_on == 0
    assert served.desk.counts.batches <= 80
    for answer in answers:
        assert answer.headers["content-type"] == "application/json"
        assert answer.headers["content-security-policy"].startswith("default-src 'self'")
    with app.app_context():
        round_ = db.session.execute(select(Round).where(Round.game_id == game_id)).scalar_one()
        for answer, (token, _play) in zip(answers[40:], sent[40:], strict=True):
            player = service.player_for_token(token)
            assert player is not None
            last = service.last_submission(round_, player.id)
            assert last is not None and last.move == answer.json()["move"]
        assert service.submission_count(round_) == 40


def test_the_event_loop_answers_a_play_as_the_flask_view_does(app: Flask, served: TirageASGI) -> None:
    game_id, tokens, plays = _started_game(app, 2)
    body = json.dumps({"move": plays[0]}).encode()
    fast = _run(_post(served, _plays_path(game_id), body, tokens[0]))
    view = app.test_client().post(_plays_path(game_id), data=body, headers={"Authorization": f"Bearer {tokens[1]}"})
    assert served.desk.counts.taken == 1
    assert fast.status == view.status_code == 200
    fast_data, view_data = fast.json(), view.get_json()
    assert fast_data.keys() == view_data.keys() == {"round", "move", "score", "received_at"}
    assert (fast_data["move"], fast_data["score"]) == (view_data["move"], view_data["score"])
    assert (
        fast.body.endswith(b"\n")
        and fast.body[:-1] == json.dumps(fast_data, separators=(",", ":"), sort_keys=True).encode()
    )
    for name in ("content-security-policy", "x-content-type-options", "referrer-policy", "x-frame-options"):
        assert fast.headers[name] == view.headers[name]


def _run(coroutine: Any) -> Any:
    result: list[Any] = []

    async def wrapper() -> None:
        result.append(await coroutine)

    run_async(wrapper())
    return result[0]


def test_every_refusal_is_the_flask_views_own_answer(app: Flask, served: TirageASGI) -> None:
    game_id, tokens, plays = _started_game(app, 2)
    other_game, other_tokens, _ = _started_game(app, 1)
    with app.app_context():
        director_token = accounts.director_token(DIRECTOR, PASSWORD)
    cases: list[tuple[str, bytes, str | None]] = [
        (_plays_path(game_id), json.dumps({"move": plays[0]}).encode(), None),  # no token
        (_plays_path(game_id), json.dumps({"move": plays[0]}).encode(), "not-a-token"),
        (_plays_path(game_id), json.dumps({"move": plays[0]}).encode(), director_token),
        (_plays_path(game_id), json.dumps({"move": plays[0]}).encode(), other_tokens[0]),  # another game's player
        (_plays_path(other_game), json.dumps({"move": plays[0]}).encode(), tokens[0]),
        (_plays_path(game_id, 2), json.dumps({"move": plays[0]}).encode(), tokens[0]),  # not started
        (_plays_path(game_id), b'{"move": "Z99 CAT"}', tokens[0]),  # not a play: refused in the event loop
        (_plays_path(game_id), b'{"move": 8}', tokens[0]),
        (_plays_path(game_id), b'{"move": "8H A\\u0000"}', tokens[0]),
        (_plays_path(game_id), b'{"move": ["8H", "CAT"]}', tokens[0]),
        (_plays_path(game_id), b"[]", tokens[0]),
        (_plays_path(game_id), b"{" * 100_000, tokens[0]),  # too large
        (_plays_path(game_id), b"not json", tokens[0]),
        (f"/api/games/{2**31}/rounds/1/plays", json.dumps({"move": plays[0]}).encode(), tokens[0]),
    ]
    client = app.test_client()
    for path, body, token in cases:
        fast = _run(_post(served, path, body, token))
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        view = client.post(path, data=body, headers=headers)
        assert 400 <= fast.status < 500, (path, body[:40], fast.status)
        assert (fast.status, fast.body) == (view.status_code, view.data), (path, body[:40])
    # A play the engine refuses is answered in the event loop (garbage is common at a deadline); the rest is
    # the view's.
    assert served.desk.counts.taken == 0
    assert served.desk.counts.refused == 1
    assert served.desk.counts.handed_on == len(cases) - 1


def test_the_submit_limit_is_one_count_for_both_paths(app: Flask, served: TirageASGI) -> None:
    app.config["TIRAGE_RATELIMIT_SUBMIT"] = "3/minute"
    game_id, tokens, plays = _started_game(app, 1)
    body = json.dumps({"move": plays[0]}).encode()
    for _ in range(2):
        assert _run(_post(served, _plays_path(game_id), body, tokens[0])).status == 200
    client = app.test_client()
    headers = {"Authorization": f"Bearer {tokens[0]}"}
    assert client.post(_plays_path(game_id), data=body, headers=headers).status_code == 200  # the third
    refused = _run(_post(served, _plays_path(game_id), body, tokens[0]))
    assert refused.status == 429 and int(refused.headers["retry-after"]) >= 1
    assert "too many plays" in refused.json()["error"]
    garbage = _run(_post(served, _plays_path(game_id), b'{"move": "Z99 CAT"}', tokens[0]))
    assert garbage.status == 429  # refused plays count too, and the limit is said first, as the view does
    assert served.desk.counts.taken == 2
    with app.app_context():
        assert db.session.query(Submission).count() == 3


def test_a_play_that_arrives_after_the_close_is_refused_as_late(app: Flask, served: TirageASGI) -> None:
    game_id, tokens, plays = _started_game(app, 1)
    body = json.dumps({"move": plays[0]}).encode()
    assert _run(_post(served, _plays_path(game_id), body, tokens[0])).status == 200  # the round is now known
    with app.app_context():
        assert service.close_round(game_id, 1, "test", early=True)
    late = _run(_post(served, _plays_path(game_id), body, tokens[0]))
    assert late.status == 409 and late.json() == {"error": "round 1 is closed"}
    assert served.desk.counts.taken == 2  # judged here, refused by the writer's check of the round row
    with app.app_context():
        assert db.session.query(Submission).count() == 1


# ------------------------------------------------------------------------------ the reveal read


def test_each_phone_reads_its_reveal_from_answers_built_once_per_version(app: Flask, served: TirageASGI) -> None:
    game_id, tokens, plays = _started_game(app, 3)
    client = app.test_client()
    me = f"/api/games/{game_id}/rounds/1/me"

    def view(token: str) -> tuple[int, bytes]:
        answer = client.get(me, headers={"Authorization": f"Bearer {token}"})
        return answer.status_code, answer.data

    async def scenario() -> None:
        await served.hub.start()
        try:
            for token, play in zip(tokens[:2], plays[:2], strict=True):  # the third player hands in nothing
                assert (
                    await _post(served, _plays_path(game_id), json.dumps({"move": play}).encode(), token)
                ).status == 200
            early = await _post(served, me, b"", tokens[0], "GET")
            assert early.status == 403 and "published when it closes" in early.json()["error"]
            opened = served.hub.versions[game_id]  # from the database: no event read since the hub started
            await asyncio.to_thread(_close, app, game_id)
            await _until(lambda: served.hub.versions[game_id] > opened)
            for token in tokens:
                fast = await _post(served, me, b"", token, "GET")
                assert (fast.status, fast.body) == await asyncio.to_thread(view, token)
            assert served.desk.counts.reveals == 3 and served.desk.counts.reveal_builds == 1
            mine = json.loads((await _post(served, me, b"", tokens[1], "GET")).body)
            assert mine["result"]["move"] == plays[1] and mine["standing"]["of"] == 3

            # A correction is a new version: the phone told of it reads the corrected figures.
            before = served.hub.versions[game_id]
            await asyncio.to_thread(_correct, app, game_id, tokens[1], 7)
            await _until(lambda: served.hub.versions[game_id] > before)
            corrected = json.loads((await _post(served, me, b"", tokens[1], "GET")).body)
            assert corrected["result"]["score"] == 7
            assert (await asyncio.to_thread(view, tokens[1]))[1] == (
                await _post(served, me, b"", tokens[1], "GET")
            ).body
            assert served.desk.counts.reveal_builds == 2
            # Another game's player, no token: the view's own refusals.
            for token in (None, "not-a-token"):
                refused = await _post(served, me, b"", token, "GET")
                assert refused.status == 401
        finally:
            await served.hub.stop()

    run_async(scenario())


def _close(app: Flask, game_id: int) -> None:
    with app.app_context():
        assert service.close_round(game_id, 1, "test", early=True)


def _correct(app: Flask, game_id: int, token: str, score: int) -> None:
    with app.app_context():
        game = db.session.get(Game, game_id)
        player = service.player_for_token(token)
        assert game is not None and player is not None
        service.correct(game, 1, player.id, score, "misread tile", "test")


async def _until(condition: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the event hub did not read the event"
        await asyncio.sleep(0.02)


def test_a_play_the_database_cannot_store_is_answered_503_and_not_taken(app: Flask, served: TirageASGI) -> None:
    game_id, tokens, plays = _started_game(app, 1)
    body = json.dumps({"move": plays[0]}).encode()
    assert _run(_post(served, _plays_path(game_id), body, tokens[0])).status == 200  # player and round known

    def rename(old: str, new: str) -> None:
        with app.app_context():
            db.session.execute(text(f"ALTER TABLE {old} RENAME TO {new}"))
            db.session.commit()

    rename("submission", "submission_away")  # the writer's INSERT fails, as with a broken database
    try:
        failed = _run(_post(served, _plays_path(game_id), json.dumps({"move": plays[1]}).encode(), tokens[0]))
    finally:
        rename("submission_away", "submission")
    assert failed.status == 503 and int(failed.headers["retry-after"]) > 0
    assert "try again" in failed.json()["error"]
    again = _run(_post(served, _plays_path(game_id), json.dumps({"move": plays[2]}).encode(), tokens[0]))
    assert again.status == 200
    with app.app_context():
        stored = db.session.execute(select(Submission.move).order_by(Submission.id)).scalars().all()
        assert len(stored) == 2 and plays[1] not in stored  # the refused play left nothing behind


def test_behind_https_the_event_loops_answers_carry_hsts_too(app: Flask) -> None:
    app.config["TIRAGE_HTTPS"] = True
    asgi = serving_app(app, threads=2)
    asgi.desk.start()
    try:
        game_id, tokens, plays = _started_game(app, 1)
        taken = _run(_post(asgi, _plays_path(game_id), json.dumps({"move": plays[0]}).encode(), tokens[0]))
        refused = _run(_post(asgi, "/api/games/999999/events", b"", None, "GET"))
    finally:
        asgi.desk.stop()
    view = app.test_client().post(
        _plays_path(game_id), data=json.dumps({"move": plays[0]}), headers={"Authorization": f"Bearer {tokens[0]}"}
    )
    assert taken.status == 200 and refused.status == 404
    assert taken.headers["strict-transport-security"] == view.headers["Strict-Transport-Security"] == HSTS
    assert refused.headers["strict-transport-security"] == HSTS
