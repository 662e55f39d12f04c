"""A real ``tirage serve`` process killed with SIGKILL mid-round, then started again (issue 3).

What a club would notice: every play the server said it took is still there, and the round
closes at the deadline the players saw, not at some later time chosen by the restart. A round
whose deadline passed while the server was down is closed as soon as it is back. Every wait is
bounded; the server's log is shown when something goes wrong.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.processes import TirageServer as Server
from tests.processes import best_play as _best_play
from tests.processes import parse_time as _parse_time
from trainer.duplicate.rounds import closes_at
from trainer.engine.lexicon import Lexicon, LexiconStore
from trainer.engine.rules import Ruleset

PASSWORD = "correct horse"
CLOSE_TOLERANCE = 1.5  # the scheduler sweeps every second


@pytest.fixture
def server(tmp_path: Path, lexicon_store: LexiconStore, en_lexicon: Lexicon, fr_lexicon: Lexicon) -> Iterator[Server]:
    """SQLite and a secret key in the instance folder; every lexicon cached, so the server builds none as it
    starts (a background build would compete with the scheduler for the CPU during the timing checks)."""
    running = Server(tmp_path, lexicon_store.cache_dir)
    running.create_director("alice", PASSWORD)
    yield running
    running.kill()


def test_a_killed_server_keeps_every_play_and_closes_rounds_on_time(
    server: Server, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    server.start()
    alice = server.ok("POST", "/api/auth/token", {"username": "alice", "password": PASSWORD})["token"]
    game = server.ok(
        "POST",
        "/api/games",
        {"seed": 10**19 + 11, "round_seconds": 10, "reveal_seconds": None, "max_rounds": 3},
        alice,
        status=201,
    )
    gid = game["id"]
    ann = server.ok("POST", "/api/join", {"code": game["join_code"], "name": "Ann"}, status=201)
    bob = server.ok("POST", "/api/join", {"code": game["join_code"], "name": "Bob"}, status=201)

    # Round 1: killed mid-round, restarted before the deadline.
    state = server.ok("POST", f"/api/games/{gid}/start", token=alice)
    deadline = _parse_time(state["deadline"])
    top, top_score, low = _best_play(state, en_rules, en_lexicon)
    assert server.ok("POST", f"/api/games/{gid}/rounds/1/plays", {"move": top}, ann["token"])["score"] == top_score
    server.kill()
    server.start()
    assert datetime.now(UTC) < deadline, "the server took the whole round to restart: nothing left to test"
    after_restart = server.ok("GET", f"/api/games/{gid}")
    assert (after_restart["status"], after_restart["submissions"]) == ("playing", 1)
    assert _parse_time(after_restart["deadline"]) == deadline
    server.ok("POST", f"/api/games/{gid}/rounds/1/plays", {"move": low}, bob["token"])  # still open, same token
    server.wait_for(lambda: server.ok("GET", f"/api/games/{gid}")["status"] == "revealing", "the round to close")
    round1 = server.ok("GET", f"/api/games/{gid}/rounds/1", token=alice)
    late = (_parse_time(round1["closed_at"]) - closes_at(deadline)).total_seconds()  # settled: docs/rules.md §6.6
    assert 0 <= late <= CLOSE_TOLERANCE, f"closed {late:.3f} s after the settled deadline"
    assert _parse_time(round1["deadline"]) == deadline
    results = {p["name"]: p for p in round1["results"]}
    assert (results["Ann"]["move"], results["Ann"]["score"], results["Ann"]["top"]) == (top, top_score, True)
    assert results["Bob"]["move"] == low and results["Bob"]["valid"]
    code, answer = server.call("POST", f"/api/games/{gid}/rounds/1/plays", {"move": top}, bob["token"])
    assert code == 409, answer

    # Round 2: the server is down when the deadline passes; it closes the round as soon as it is back.
    state = server.ok("POST", f"/api/games/{gid}/next", token=alice)
    deadline2 = _parse_time(state["deadline"])
    top2, top2_score, _low2 = _best_play(state, en_rules, en_lexicon)
    server.ok("POST", f"/api/games/{gid}/rounds/2/plays", {"move": top2}, bob["token"])
    server.kill()
    server.wait_for(lambda: datetime.now(UTC) > deadline2, "the deadline to pass while the server is down")
    restarted = datetime.now(UTC)
    server.start()
    back = datetime.now(UTC)
    server.wait_for(lambda: server.ok("GET", f"/api/games/{gid}")["status"] == "revealing", "the overdue close")
    round2 = server.ok("GET", f"/api/games/{gid}/rounds/2", token=alice)
    assert restarted <= _parse_time(round2["closed_at"]) <= datetime.now(UTC)
    assert (_parse_time(round2["closed_at"]) - max(back, closes_at(deadline2))).total_seconds() <= CLOSE_TOLERANCE
    results2 = {p["name"]: p for p in round2["results"]}
    assert (results2["Bob"]["move"], results2["Bob"]["score"]) == (top2, top2_score)

    # The log says each round was closed once, by the scheduler, whatever the restarts.
    code, body = server.call("GET", f"/api/games/{gid}/events?timeout=0")
    closes = [
        json.loads(line[len("data: ") :])
        for line in body.splitlines()
        if line.startswith("data: ") and '"kind":"round_closed"' in line
    ]
    assert [(c["round"], c["by"]) for c in closes] == [(1, "scheduler"), (2, "scheduler")]


def test_a_stopped_server_ends_every_open_stream_with_a_last_event_and_no_traceback(server: Server) -> None:
    """Issue 28 item 8: stopping the server with phones connected printed one traceback per open stream (uvicorn's
    graceful shutdown ran out and cancelled them). Now each stream gets a last ``closing`` event (with when to
    come back) and ends, and the server exits cleanly by itself."""
    import signal
    import socket

    server.start()
    alice = server.ok("POST", "/api/auth/token", {"username": "alice", "password": PASSWORD})["token"]
    game = server.ok("POST", "/api/games", {"rules": "en"}, alice, status=201)
    request = f"GET /api/games/{game['id']}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
    phones = []
    for _ in range(17):
        phone = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        phone.sendall(request.encode())
        phones.append(phone)
    for phone in phones:  # each stream is open: its first event (the game's creation) has come
        received = b""
        while b"event: created" not in received:
            chunk = phone.recv(65536)
            assert chunk, received
            received += chunk
    assert server.process is not None
    server.process.terminate()  # SIGTERM, as a service manager stops it
    # uvicorn ends by raising the signal it caught again once it has shut down: -SIGTERM is its clean exit.
    assert server.process.wait(timeout=60) in (0, -signal.SIGTERM), server.output()
    for phone in phones:
        rest = b""
        while chunk := phone.recv(65536):
            rest += chunk
        phone.close()
        assert b'event: closing\ndata: {"reason":"server_stopping"}' in rest, rest
    log = server.output()
    assert "Traceback" not in log and "CancelledError" not in log, log
