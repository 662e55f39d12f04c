"""A token stops working when its player is removed or their place is taken over by a rejoin (issue 26, items 1
and 2; docs/rules.md §6.16), on every path and in every process; and one bad play never fails another.

The live play path keeps token -> player in memory: the writer checks each play's player still holds its token,
and every process's event hub forgets the token when it reads the ``removed`` or ``rejoined`` event, and ends
the streams opened with it (the phone page says "This place was taken over by another phone").
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Iterator, MutableMapping
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import pytest
from flask import Flask
from sqlalchemy import select

from tests.processes import TirageServer, best_play
from tests.redis_server import RedisServer
from tests.test_live import run_async
from tests.test_pages import csrf_token, text_of
from tests.test_play_desk import DIRECTOR, PASSWORD, Answer, _plays_path, _post, _started_game
from trainer.core import accounts
from trainer.core.clock import utcnow
from trainer.core.codes import hash_token
from trainer.core.database import db
from trainer.core.errors import Refused
from trainer.engine.lexicon import Lexicon, LexiconStore
from trainer.engine.rules import Ruleset
from trainer.games import service
from trainer.games.models import Game, Player, Submission
from trainer.games.service import AcceptedPlay, PendingPlay
from trainer.http.errors import status_of
from trainer.live.asgi import TirageASGI

WAIT = 20.0
TAKEN_OVER = "This place was taken over by another phone."
TAKEN_OVER_API = "this place was taken over by another phone: the new phone plays now"
REMOVED_API = "the director removed this player from the game"


def _players(app: Flask, game_id: int) -> list[Player]:
    game = db.session.get(Game, game_id)
    assert game is not None
    return sorted(game.players, key=lambda p: p.name)


def _pending(app: Flask, game_id: int, player: Player, play: str, token: str | None = None) -> PendingPlay:
    game = db.session.get(Game, game_id)
    assert game is not None
    playing = service.round_playing(game, 1)
    move, score = service.judge(playing, play)
    pending = PendingPlay(playing, player.id, player.name, move, score, utcnow())
    return pending if token is None else replace(pending, token_hash=hash_token(token))


def _stored(game_id: int) -> list[tuple[str, str]]:
    """(player, play) of every play stored in the game, in order."""
    rows = db.session.execute(
        select(Player.name, Submission.move)
        .join(Player, Player.id == Submission.player_id)
        .where(Player.game_id == game_id)
        .order_by(Submission.id)
    )
    return [(row.name, row.move) for row in rows]


def _remove(app: Flask, game_id: int, player_id: int) -> None:
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        service.remove_player(game, player_id, DIRECTOR)


def _rejoin(app: Flask, game_id: int, player_id: int) -> str:
    """The player takes their place again on a new phone (docs/rules.md §6.16): the new phone's token."""
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        code = service.offer_rejoin(game, player_id, DIRECTOR)
        return service.rejoin(code)[1]


# ------------------------------------------------------------------------------ the writer (item 1)


def test_a_removed_players_play_is_refused_and_the_batch_around_it_is_stored(app: Flask) -> None:
    """A poisoned batch, as the live path hands one in when it still knew the removed player: before, the play
    failed its foreign key and took the honest plays of its transaction with it."""
    game_id, _tokens, plays = _started_game(app, 3)
    with app.app_context():
        p0, p1, p2 = _players(app, game_id)
        batch = [_pending(app, game_id, p0, plays[0]), _pending(app, game_id, p2, plays[1])]
        batch.append(_pending(app, game_id, p1, plays[2]))
    _remove(app, game_id, p2.id)
    with app.app_context():
        first, removed, last = service.store_plays(batch)
        assert isinstance(first, AcceptedPlay) and isinstance(last, AcceptedPlay)
        assert isinstance(removed, Refused) and removed.code == "player_removed" and status_of(removed) == 401
        assert _stored(game_id) == [("P0", batch[0].move), ("P1", batch[2].move)]


def test_a_play_handed_in_with_a_token_taken_over_by_a_rejoin_is_refused(app: Flask) -> None:
    """docs/rules.md §6.16: the old phone's token stops working at the rejoin, even where it is known from memory."""
    game_id, tokens, plays = _started_game(app, 2)
    with app.app_context():
        p0, _p1 = _players(app, game_id)
        old = _pending(app, game_id, p0, plays[0], tokens[0])
    new_token = _rejoin(app, game_id, p0.id)
    with app.app_context():
        (refused,) = service.store_plays([old])
        assert isinstance(refused, Refused) and refused.code == "taken_over" and status_of(refused) == 401
        (taken,) = service.store_plays([_pending(app, game_id, p0, plays[1], new_token)])
        assert isinstance(taken, AcceptedPlay)
        assert _stored(game_id) == [("P0", taken.move)]


def test_the_writer_writes_a_failing_batch_again_play_by_play(app: Flask, served: TirageASGI) -> None:
    """One bad play never fails another: a play the database refuses (a score no column holds: on purpose) is the
    only one refused; the honest plays of its batch are taken."""
    game_id, _tokens, plays = _started_game(app, 3)
    with app.app_context():
        p0, p1, p2 = _players(app, game_id)
        honest = [_pending(app, game_id, p0, plays[0]), _pending(app, game_id, p2, plays[1])]
        poisoned = _pending(app, game_id, p1, plays[2])
    poison = PendingPlay(poisoned.playing, p1.id, p1.name, poisoned.move, 2**70, poisoned.received_at)
    outcomes = served.desk.write([honest[0], poison, honest[1]])
    assert isinstance(outcomes[0], AcceptedPlay) and isinstance(outcomes[2], AcceptedPlay)
    assert isinstance(outcomes[1], Exception) and not isinstance(outcomes[1], Refused)
    with app.app_context():
        assert _stored(game_id) == [("P0", honest[0].move), ("P2", honest[1].move)]


def test_a_removed_player_handing_in_with_the_room_costs_the_room_nothing(app: Flask, served: TirageASGI) -> None:
    """Through the live play path: 30 players and a removed one whose token it still knows hand in at once; every
    honest play is taken (200), the removed player's is refused with a message (401)."""
    game_id, tokens, plays = _started_game(app, 31)
    body = json.dumps({"move": plays[0]}).encode()
    removed_token = tokens[15]
    assert _run(_post(served, _plays_path(game_id), body, removed_token)).status == 200  # now known from memory
    with app.app_context():
        removed_id = service.player_for_token(removed_token).id  # type: ignore[union-attr]
    _remove(app, game_id, removed_id)  # the hub is not running: only the writer can tell

    async def room() -> list[Answer]:
        return await asyncio.gather(*(_post(served, _plays_path(game_id), body, token) for token in tokens))

    answers = run_async(room())
    refused = answers.pop(15)
    assert [a.status for a in answers] == [200] * 30, [a.body for a in answers if a.status != 200][:3]
    assert refused.status == 401 and refused.json() == {"error": "the director removed this player from the game"}
    assert refused.headers["www-authenticate"].startswith("Bearer")
    with app.app_context():
        assert len(_stored(game_id)) == 30


def _run(coroutine: Any) -> Any:
    async def wrapper() -> Any:
        return await coroutine

    return run_async(wrapper())


# ------------------------------------------------------------------------------ the old phone (item 2)


async def _request(asgi: TirageASGI, path: str, token: str | None = None, cookie: str | None = None) -> Answer:
    """A GET through the ASGI application."""
    headers = [(b"host", b"testserver")]
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    if cookie is not None:
        headers.append((b"cookie", cookie.encode()))
    path, _, query = path.partition("?")
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query.encode(),
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 80),
    }

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    sent: list[MutableMapping[str, Any]] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    await asgi(scope, receive, send)
    start = sent[0]
    return Answer(
        start["status"],
        {k.decode(): v.decode() for k, v in start["headers"]},
        b"".join(m.get("body", b"") for m in sent[1:]),
    )


async def _stream(asgi: TirageASGI, path: str, cookie: str, sent: list[bytes]) -> None:
    """An event stream through the ASGI application until it ends, its body's pieces put in ``sent``."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"quiet=1",
        "headers": [(b"host", b"testserver"), (b"cookie", cookie.encode())],
        "client": ("127.0.0.1", 50001),
        "server": ("127.0.0.1", 80),
    }

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.body":
            sent.append(message.get("body", b""))
            if not message.get("more_body"):
                sent.append(b"<end>")

    await asgi(scope, receive, send)


def _phone_joins(app: Flask, game_id: int, name: str) -> tuple[Any, str]:
    """A phone joins through the page: its test client and its session cookie."""
    phone = app.test_client()
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        code = game.join_code
    answer = phone.post("/join", data={"csrf_token": csrf_token(phone, "/join"), "code": code, "name": name})
    assert answer.status_code == 303
    return phone, _cookie(phone)


def _cookie(phone: Any) -> str:
    cookie = phone.get_cookie("session")
    assert cookie is not None
    return f"session={cookie.value}"


def test_after_a_rejoin_the_old_phone_is_refused_everywhere_and_told_so(app: Flask, served: TirageASGI) -> None:
    """docs/rules.md §6.16, through the live paths with the event hub running: the old phone's plays, its reveal,
    its page's fragment and its open event stream; the new phone's play is the one that counts."""
    with app.app_context():
        director = accounts.create_director(DIRECTOR, PASSWORD)
        game_id = service.create_game(director, {"rules": "en", "round_seconds": 60}).id
    old_phone, old_cookie = _phone_joins(app, game_id, "Zoe")
    _cy, _cy_cookie = _phone_joins(app, game_id, "Cy")
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        service.start_game(game, "test")
        zoe = next(p for p in game.players if p.name == "Zoe")
        zoe_id = zoe.id
    plays = _legal_plays(app, game_id)
    old_token = _page_token(old_phone, game_id)
    stream: list[bytes] = []

    async def scenario() -> None:
        await served.hub.start()
        try:
            listening = asyncio.create_task(_stream(served, f"/api/games/{game_id}/events", old_cookie, stream))
            body = json.dumps({"move": plays[0]}).encode()
            assert (await _post(served, _plays_path(game_id), body, old_token)).status == 200  # known from memory
            assert (await _request(served, f"/play/{game_id}/live", cookie=old_cookie)).status == 200
            new_phone, new_cookie = await asyncio.to_thread(_rejoin_on_a_new_phone, app, game_id, zoe_id)
            new_token = await asyncio.to_thread(_page_token, new_phone, game_id)
            # At once: by the writer if the hub has not read the rejoin yet, else by the view.
            late = await _post(served, _plays_path(game_id), json.dumps({"move": plays[1]}).encode(), old_token)
            assert late.status == 401, late.body
            new = await _post(served, _plays_path(game_id), json.dumps({"move": plays[2]}).encode(), new_token)
            assert new.status == 200
            # The new phone shows the play that counts.
            shown = await _request(served, f"/play/{game_id}/live", cookie=new_cookie)
            assert f"Handed in: {new.json()['move']}" in text_of(shown.body.decode())
            await _until(lambda: b"<end>" in stream)  # the hub read the rejoin: the live paths forgot the token
            # The old phone's open stream was told, and ended.
            told = b"".join(stream).decode()
            assert 'event: revoked\ndata: {"reason": "taken_over"}' in told and told.endswith("<end>")
            # Forgotten by the live paths: the view answers, from the database.
            again = await _post(served, _plays_path(game_id), json.dumps({"move": plays[1]}).encode(), old_token)
            assert again.status == 401 and again.json() == {"error": TAKEN_OVER_API}
            # The fragment says why (live.js shows the notice on this header), not "Join the game first".
            fragment = await _request(served, f"/play/{game_id}/live", cookie=old_cookie)
            assert fragment.status == 401 and fragment.headers["x-tirage-revoked"] == "taken_over"
            assert fragment.body.decode() == TAKEN_OVER
            await asyncio.to_thread(_close, app, game_id)
            mine_before = await _request(served, f"/api/games/{game_id}/rounds/1/me", token=old_token)
            assert mine_before.status == 401 and mine_before.json() == {"error": TAKEN_OVER_API}
            mine = await _request(served, f"/api/games/{game_id}/rounds/1/me", token=new_token)
            assert mine.status == 200 and mine.json()["result"]["move"] == new.json()["move"]
            listening.cancel()
        finally:
            await served.hub.stop()

    run_async(scenario())
    # The old phone's page: on a reload, not its player any more.
    assert old_phone.get(f"/play/{game_id}").status_code == 303


def _rejoin_on_a_new_phone(app: Flask, game_id: int, player_id: int) -> tuple[Any, str]:
    """The director gives a rejoin code; a new phone types it on the rejoin page: its client and session cookie."""
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        code = service.offer_rejoin(game, player_id, DIRECTOR)
    phone = app.test_client()
    answer = phone.post("/rejoin", data={"csrf_token": csrf_token(phone, f"/rejoin?code={code}"), "code": code})
    assert answer.status_code == 303
    return phone, _cookie(phone)


def _legal_plays(app: Flask, game_id: int) -> list[str]:
    from trainer.core.lexicons import lexicon_store
    from trainer.engine.board import Board
    from trainer.engine.movegen import generate_moves
    from trainer.engine.notation import format_move
    from trainer.engine.rules import ruleset

    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        round_ = service.current_round(game)
        assert round_ is not None
        rules = ruleset("en")
        moves = generate_moves(
            Board(rules.layout, list(round_.board_before)), rules, lexicon_store().load("en"), round_.rack
        )
        return [format_move(m) for m in sorted(moves, key=lambda m: -(m.score or 0))]


def _page_token(phone: Any, game_id: int) -> str:
    """The player token the phone page hands its script (data-token of the play form)."""
    html = phone.get(f"/play/{game_id}").get_data(as_text=True)
    start = html.index('data-token="') + len('data-token="')
    return str(html[start : html.index('"', start)])


def _close(app: Flask, game_id: int) -> None:
    with app.app_context():
        assert service.close_round(game_id, 1, "test", early=True)


async def _until(condition: Any, timeout: float = WAIT) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "the event hub did not read the event"
        await asyncio.sleep(0.02)


def test_the_phone_page_carries_the_taken_over_notice_in_english_and_french(app: Flask) -> None:
    with app.app_context():
        director = accounts.create_director(DIRECTOR, PASSWORD)
        game_id = service.create_game(director, {"rules": "en", "round_seconds": 60}).id
    phone, _cookie_text = _phone_joins(app, game_id, "Zoe")
    english = phone.get(f"/play/{game_id}").get_data(as_text=True)
    assert 'data-revoked="taken_over"' in english and TAKEN_OVER in text_of(english)
    french = phone.get(f"/play/{game_id}", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert "Cette place a été reprise par un autre téléphone." in text_of(french)
    assert "L’arbitre vous a retiré de cette partie." in text_of(french)


# ------------------------------------------------------------------------------ several processes, Redis


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    yield server
    server.stop()


async def _revoked_on(server: TirageServer, game_id: int, token: str, opened: asyncio.Event) -> str:
    """Open the game's event stream with ``token`` on ``server`` (``opened`` is set once it answers) and read until
    it says the token was revoked: what it said."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(
        f"GET /api/games/{game_id}/events?quiet=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode()
    )
    said = b""
    try:
        while chunk := await reader.read(65536):
            said += chunk
            if b"retry:" in said:
                opened.set()
            if b"event: revoked" in said:
                break
    finally:
        writer.close()
    return said.decode()


def test_a_removal_on_one_web_process_stops_the_token_on_another_through_redis(
    tmp_path: Path, lexicon_store: LexiconStore, en_rules: Ruleset, en_lexicon: Lexicon, postgres: Any,
    redis_server: RedisServer,
) -> None:  # fmt: skip
    """Two ``tirage serve`` processes with Redis (their database poll set to ten minutes, so only Redis can tell
    them): the director removes a player on the first; the second, which knew the player's token from memory,
    refuses it at once and ends the stream opened with it."""
    env = {"DATABASE_URL": postgres.new_database(), "REDIS_URL": redis_server.url, "TIRAGE_LIVE_POLL": "600"}
    first = TirageServer(tmp_path / "a", lexicon_store.cache_dir, env_extra=env)
    second = TirageServer(tmp_path / "b", lexicon_store.cache_dir, env_extra=env, serve_args=("--no-scheduler",))
    (tmp_path / "b" / "instance").mkdir(parents=True, exist_ok=True)
    first.start()
    (tmp_path / "b" / "instance" / "secret_key").write_bytes((tmp_path / "a" / "instance" / "secret_key").read_bytes())
    second.start()
    try:
        first.create_director("alice", PASSWORD)
        director = first.ok("POST", "/api/auth/token", {"username": "alice", "password": PASSWORD})["token"]
        game = first.ok("POST", "/api/games", {"rules": "en", "round_seconds": 120}, director, status=201)
        gid = game["id"]
        ann, bob = (first.ok("POST", "/api/join", {"code": game["join_code"], "name": n}, None, 201) for n in "AB")
        state = first.ok("POST", f"/api/games/{gid}/start", None, director)
        top, _score, lesser = best_play(state, en_rules, en_lexicon)
        plays = f"/api/games/{gid}/rounds/1/plays"
        second.ok("POST", plays, {"move": top}, bob["token"])  # the second process knows Bob's token now

        async def scenario() -> str:
            opened = asyncio.Event()
            listening = asyncio.create_task(_revoked_on(second, gid, bob["token"], opened))
            await asyncio.wait_for(opened.wait(), WAIT)
            removal = f"/api/games/{gid}/players/{bob['player_id']}"
            await asyncio.to_thread(first.ok, "DELETE", removal, None, director, 204)
            return await asyncio.wait_for(listening, WAIT)

        said = run_async(scenario())
        assert 'event: revoked\ndata: {"reason": "player_removed"}' in said
        status, _headers, body = second.request("POST", plays, {"move": lesser}, bob["token"])
        assert status == 401 and json.loads(body)["error"], body
        assert second.ok("POST", plays, {"move": lesser}, ann["token"])["move"]
    finally:
        second.stop()
        first.stop()


# ------------------------------------------------------------------------------ what the old phone is told


def _night(app: Flask) -> tuple[int, dict[str, Any], dict[str, str]]:
    """A started game with Zoe and Cy on their phones (joined through the page): their test clients and tokens."""
    with app.app_context():
        director = accounts.create_director(DIRECTOR, PASSWORD)
        game_id = service.create_game(director, {"rules": "en", "round_seconds": 60}).id
    phones = {name: _phone_joins(app, game_id, name)[0] for name in ("Zoe", "Cy")}
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        service.start_game(game, "test")
    return game_id, phones, {name: _page_token(phone, game_id) for name, phone in phones.items()}


def _player_id(app: Flask, game_id: int, name: str) -> int:
    with app.app_context():
        return next(p.id for p in _players(app, game_id) if p.name == name)


def test_the_views_tell_the_old_phone_it_was_taken_over_and_a_removed_player_why(app: Flask) -> None:
    """docs/rules.md §6.16: a token retired by a rejoin or a removal is answered 401 with what happened (the API,
    the page's fragment, the form the page's script posts, the page itself), not "join the game again"."""
    game_id, phones, tokens = _night(app)
    plays = _legal_plays(app, game_id)
    _new_phone, _cookie_text = _rejoin_on_a_new_phone(app, game_id, _player_id(app, game_id, "Zoe"))
    _remove(app, game_id, _player_id(app, game_id, "Cy"))
    api = app.test_client()
    for name, said in (("Zoe", TAKEN_OVER_API), ("Cy", REMOVED_API)):
        answer = api.post(_plays_path(game_id), json={"move": plays[0]}, headers=_bearer(tokens[name]))
        assert answer.status_code == 401 and answer.get_json() == {"error": said}, name
        assert api.get(f"/api/games/{game_id}/rounds/1/me", headers=_bearer(tokens[name])).status_code == 401
    never = api.post(_plays_path(game_id), json={"move": plays[0]}, headers=_bearer("x" * 32))
    assert never.status_code == 401 and never.get_json() == {"error": "the token is not valid: join the game again"}

    zoe, cy = phones["Zoe"], phones["Cy"]
    fragment = zoe.get(f"/play/{game_id}/live")
    assert fragment.status_code == 401 and fragment.headers["X-Tirage-Revoked"] == "taken_over"
    assert fragment.get_data(as_text=True) == TAKEN_OVER
    assert cy.get(f"/play/{game_id}/live").headers["X-Tirage-Revoked"] == "player_removed"
    # The page's script posts the form when the API refuses a play: the answer names the reason (play.js).
    form = {"csrf_token": csrf_token(zoe, "/join"), "move": plays[0], "round": "1"}
    posted = zoe.post(f"/play/{game_id}/submit", data=form, headers={"Accept": "application/json"})
    assert posted.status_code == 401
    assert posted.get_json() == {"ok": False, "error": TAKEN_OVER, "revoked": "taken_over"}
    # The page itself (a reload, a browser without the script): the join page, saying why.
    page = zoe.get(f"/play/{game_id}", follow_redirects=True)
    assert page.request.path == "/join" and TAKEN_OVER in text_of(page.get_data(as_text=True))
    french = cy.get(f"/play/{game_id}", headers={"Accept-Language": "fr"}, follow_redirects=True)
    assert "L’arbitre vous a retiré de cette partie." in text_of(french.get_data(as_text=True))


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_stream_opened_with_a_stale_token_is_told_why_at_once(app: Flask, served: TirageASGI) -> None:
    """An event stream opened after the token stopped working (the old phone reconnecting, an API client) gets the
    ``revoked`` event at once and ends, on the live path and on the Flask view; before, it was an outsider's."""
    game_id, phones, tokens = _night(app)
    _rejoin_on_a_new_phone(app, game_id, _player_id(app, game_id, "Zoe"))
    _remove(app, game_id, _player_id(app, game_id, "Cy"))
    events = f"/api/games/{game_id}/events?quiet=1&timeout=2"
    taken_over = 'retry: 2000\n\nevent: revoked\ndata: {"reason": "taken_over"}\n\n'
    removed = 'retry: 2000\n\nevent: revoked\ndata: {"reason": "player_removed"}\n\n'

    async def live() -> list[str]:
        answers = [  # (an open stream would not end here: no heartbeat task ends it at its timeout)
            await asyncio.wait_for(_request(served, events, cookie=_cookie(phones["Zoe"])), WAIT),
            await asyncio.wait_for(_request(served, events, token=tokens["Zoe"]), WAIT),
            await asyncio.wait_for(_request(served, events, token=tokens["Cy"]), WAIT),
        ]
        assert {a.status for a in answers} == {200}
        return [a.body.decode() for a in answers]

    assert run_async(live()) == [taken_over, taken_over, removed]
    flask_view = [
        phones["Zoe"].get(events).get_data(as_text=True),
        app.test_client().get(events, headers=_bearer(tokens["Zoe"])).get_data(as_text=True),
        app.test_client().get(events, headers=_bearer(tokens["Cy"])).get_data(as_text=True),
    ]
    assert flask_view == [taken_over, taken_over, removed]


def test_the_flask_event_stream_ends_when_its_token_is_taken_over(app: Flask) -> None:
    """The Flask view (no ``tirage serve``) tells a stream open with the token as the live path does: the rejoin
    (a quiet event the phone's stream does not show) ends it with ``revoked``."""
    app.config.update(TIRAGE_SSE_POLL=0.01)
    game_id, phones, _tokens = _night(app)
    answer = phones["Zoe"].get(f"/api/games/{game_id}/events?quiet=1&timeout=3", buffered=False)
    pieces = iter(cast(Iterable[bytes], answer.response))
    assert next(pieces) == b"retry: 2000\n\n"  # open
    _rejoin_on_a_new_phone(app, game_id, _player_id(app, game_id, "Zoe"))
    rest = b"".join(pieces).decode()
    assert rest.endswith('event: revoked\ndata: {"reason": "taken_over"}\n\n'), rest
    answer.close()


def test_a_directors_stream_ends_when_their_password_changes(app: Flask, served: TirageASGI) -> None:
    """A director's stream opened before a password change (which ends their logins and API tokens) ends at the
    next heartbeat, on the live path (opened with the page's login) and on the Flask view (with an API token)."""
    from tests.test_pages import log_in

    app.config.update(TIRAGE_SSE_POLL=0.01, TIRAGE_SSE_HEARTBEAT=0.05)
    game_id, _phones, _tokens = _night(app)
    console = app.test_client()
    log_in(console, DIRECTOR, PASSWORD)
    with app.app_context():
        api_token = accounts.director_token(DIRECTOR, PASSWORD)
    assert api_token is not None
    answer = app.test_client().get(f"/api/games/{game_id}/events?timeout=3", headers=_bearer(api_token), buffered=False)
    pieces = iter(cast(Iterable[bytes], answer.response))
    assert next(pieces) == b"retry: 2000\n\n"
    served.streams.heartbeat = 0.05
    stream: list[bytes] = []

    async def scenario() -> None:
        await served.hub.start()
        served.streams.start()
        try:
            listening = asyncio.create_task(_stream(served, f"/api/games/{game_id}/events", _cookie(console), stream))
            await _until(lambda: b"heartbeat" in b"".join(stream))  # open, and inside
            await asyncio.to_thread(_change_password, app)
            await _until(lambda: b"<end>" in stream)
            listening.cancel()
        finally:
            served.streams.stop()
            await served.hub.stop()

    run_async(scenario())
    rest = b"".join(pieces).decode()  # the Flask view's stream: ended at its next heartbeat, not at its timeout
    assert "event: heartbeat" not in rest and "revoked" not in rest, rest
    answer.close()


def _change_password(app: Flask) -> None:
    with app.app_context():
        director = db.session.execute(select(accounts.Director).where(accounts.Director.username == DIRECTOR)).scalar()
        assert director is not None
        accounts.change_password(director, "another password")


def test_the_retired_tokens_migration_goes_down_and_up(app: Flask) -> None:
    """0024 on SQLite and PostgreSQL: down, the table goes; up, it is back as the models say, and a rejoin writes the
    old phone's token in it."""
    import flask_migrate
    import sqlalchemy
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from tests.test_backup import _table_of
    from trainer.core.database import MIGRATIONS_DIR
    from trainer.games.models import RetiredToken

    with app.app_context():
        flask_migrate.downgrade(directory=str(MIGRATIONS_DIR), revision="0023_game_room_name")
        assert "retired_token" not in sqlalchemy.inspect(db.engine).get_table_names()
        flask_migrate.upgrade(directory=str(MIGRATIONS_DIR))
        db.session.remove()
        with db.engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": False}), db.metadata)
        assert [d for d in diff if _table_of(d) == "retired_token"] == []
    game_id, tokens, _plays = _started_game(app, 1)
    with app.app_context():
        player_id = _players(app, game_id)[0].id
    _rejoin(app, game_id, player_id)
    with app.app_context():
        (retired,) = db.session.execute(select(RetiredToken)).scalars()
        assert (retired.token_hash, retired.game_id, retired.reason) == (hash_token(tokens[0]), game_id, "taken_over")


def test_my_rounds_after_a_rejoin_are_the_players_and_the_old_phone_reads_them_as_an_outsider(app: Flask) -> None:
    """The audit of §6.16's other cached identities: a *My rounds* link names the player, not a phone (§6.17), so it
    still works after a rejoin; the old phone, whose token stopped, reads it as an outsider (no way back to the
    game), the new phone as the player's own."""
    from trainer.games.record import record_key

    game_id, phones, _tokens = _night(app)
    new_phone, _cookie_text = _rejoin_on_a_new_phone(app, game_id, _player_id(app, game_id, "Zoe"))
    with app.app_context():
        zoe = next(p for p in _players(app, game_id) if p.name == "Zoe")
        link = f"/play/rounds/{record_key(zoe)}"
    old_view, new_view = (text_of(p.get(link).get_data(as_text=True)) for p in (phones["Zoe"], new_phone))
    assert "Zoe" in old_view and "Back to the game" not in old_view
    assert "Back to the game" in new_view
