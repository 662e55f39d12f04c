"""Faults in the split deployment (issue 6): web processes started with ``--no-scheduler``, one
``tirage scheduler``, PostgreSQL, each killed or restarted in the middle of a round.

What a club would notice, and what each test checks with real processes:

* the web process dies (SIGKILL) while phones hand in plays: every play the server acknowledged is
  stored and the last acknowledged one is scored; the round closes at its deadline, even while the
  web process is down (the scheduler is alive); a live-event client reconnects with
  ``Last-Event-ID`` and gets exactly the events it missed, no duplicate;
* the scheduler dies: no round closes while it is down; plays are taken until the deadline and
  refused after it with the clear "round N is closed"; restarted, it closes a round at its deadline,
  or at once when the deadline passed while it was down;
* PostgreSQL restarts: while it is down every request gets a 503 that says the database is
  unavailable (JSON for the API and the phones' script, a page for the pages), never a 500, and
  nothing is acknowledged that is not stored; once it is back the web process and the scheduler go
  on by themselves, without a restart.

The three tests share one deployment (starting it costs more than a round) and each plays its own
game. Every wait is bounded; the logs of the web process, the scheduler and PostgreSQL are printed
after each test, so pytest shows them when it fails.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any, TypeVar

import pytest
import sqlalchemy
from sqlalchemy.pool import NullPool

from tests.postgres import Server as PostgresServer
from tests.processes import WAIT, SchedulerProcess, TirageServer, best_play, parse_time, wait_until
from trainer.core.clock import iso
from trainer.duplicate.rounds import closes_at
from trainer.engine.lexicon import Lexicon, LexiconStore
from trainer.engine.rules import Ruleset

PASSWORD = "correct horse"
ROUND_SECONDS = 10  # the shortest round a game allows
CLOSE_TOLERANCE = 1.5  # the scheduler sweeps every second
PACE = 1.0  # seconds between a phone's plays: under the 30 plays a minute a player may hand in
RETRY_PAUSE = 0.3  # a phone whose play got no answer, or a 503, tries again sooner
DATABASE_MESSAGE = re.compile(r"\bdatabase is unavailable\b")

_T = TypeVar("_T")


def now() -> datetime:
    return datetime.now(UTC)


# ---------------------------------------------------------------- the deployment


@dataclass
class Deployment:
    """The web process, the scheduler and PostgreSQL of one club, and a direct look at its database."""

    web: TirageServer
    scheduler: SchedulerProcess
    postgres: PostgresServer
    database: sqlalchemy.Engine
    director: str = ""  # the director's API token

    def logs(self, since: dict[str, int] | None = None) -> str:
        """The processes' logs (from ``since``, the sizes :meth:`log_sizes` gave), for failure messages."""
        parts = []
        for name, path in self._log_files().items():
            text = path.read_bytes()[(since or {}).get(name, 0) :].decode(errors="replace") if path.exists() else ""
            parts.append(f"----- {name} log -----\n{text[-6000:]}")
        return "\n".join(parts)

    def log_sizes(self) -> dict[str, int]:
        return {name: path.stat().st_size if path.exists() else 0 for name, path in self._log_files().items()}

    def _log_files(self) -> dict[str, Path]:
        return {"web": self.web.log, "scheduler": self.scheduler.log, "postgres": self.postgres.folder / "server.log"}

    def wait_for(self, ready: Callable[[], _T], what: str, timeout: float = WAIT) -> _T:
        """Poll ``ready`` every 0.1 s; fail with every log after ``timeout``."""
        return wait_until(ready, what, timeout, self.logs)

    def sleep_until(self, moment: datetime) -> None:
        time.sleep(max(0.0, (moment - now()).total_seconds()))

    # ------------------------------------------------------------ the database, as it is (not as the web says)

    def round_row(self, game_id: int, number: int) -> dict[str, Any]:
        with self.database.connect() as connection:
            row = (
                connection.execute(
                    sqlalchemy.text("SELECT status, deadline, closed_at FROM round WHERE game_id = :g AND number = :n"),
                    {"g": game_id, "n": number},
                )
                .mappings()
                .one()
            )
        return dict(row)

    def closed(self, game_id: int, number: int) -> bool:
        return bool(self.round_row(game_id, number)["status"] == "closed")

    def submissions(self, game_id: int, number: int) -> dict[str, list[tuple[str, str]]]:
        """Every stored play of a round: ``{player: [(move, received_at as the API writes it), ...]}`` in order."""
        with self.database.connect() as connection:
            rows = connection.execute(
                sqlalchemy.text(
                    "SELECT p.name, s.move, s.received_at FROM submission s JOIN player p ON p.id = s.player_id "
                    "JOIN round r ON r.id = s.round_id WHERE r.game_id = :g AND r.number = :n ORDER BY s.id"
                ),
                {"g": game_id, "n": number},
            ).all()
        stored: dict[str, list[tuple[str, str]]] = {}
        for name, move, received_at in rows:
            stored.setdefault(name, []).append((move, str(iso(received_at))))
        return stored

    def event_log(self, game_id: int) -> list[tuple[int, str, str, datetime]]:
        """The game's event table: id, kind, author, time."""
        with self.database.connect() as connection:
            rows = connection.execute(
                sqlalchemy.text("SELECT id, kind, author, created_at FROM event WHERE game_id = :g ORDER BY id"),
                {"g": game_id},
            ).all()
        return [(int(i), str(k), str(a), c) for i, k, a, c in rows]

    # ------------------------------------------------------------ games

    def new_game(self, seed: int, names: tuple[str, ...]) -> tuple[int, str, dict[str, str]]:
        """A game with ``names`` joined: its id, its join code and each player's token."""
        game = self.web.ok(
            "POST",
            "/api/games",
            {"seed": 10**19 + seed, "round_seconds": ROUND_SECONDS, "reveal_seconds": None, "max_rounds": 4},
            self.director,
            status=201,
        )
        tokens = {
            name: self.web.ok("POST", "/api/join", {"code": game["join_code"], "name": name}, status=201)["token"]
            for name in names
        }
        return int(game["id"]), str(game["join_code"]), tokens


@pytest.fixture(scope="module")
def split(
    tmp_path_factory: pytest.TempPathFactory,
    postgres: PostgresServer,
    lexicon_store: LexiconStore,
    en_lexicon: Lexicon,
    fr_lexicon: Lexicon,
) -> Iterator[Deployment]:
    """``tirage serve --no-scheduler`` and ``tirage scheduler`` on one PostgreSQL database. Every lexicon is
    cached in the instance folder, so no process spends the rounds building word graphs."""
    url = postgres.new_database()
    web = TirageServer(
        tmp_path_factory.mktemp("faults"),
        lexicon_store.cache_dir,
        env_extra={"DATABASE_URL": url},
        serve_args=("--no-scheduler",),
    )
    scheduler = SchedulerProcess(web)
    engine = sqlalchemy.create_engine(url, poolclass=NullPool)  # no pooled connection outlives an outage
    deployment = Deployment(web, scheduler, postgres, engine)
    try:
        web.create_director("alice", PASSWORD)
        web.start()
        scheduler.start()
        deployment.director = web.ok("POST", "/api/auth/token", {"username": "alice", "password": PASSWORD})["token"]
        yield deployment
    finally:
        scheduler.stop()
        web.stop()
        engine.dispose()
        if not postgres.running:  # a failed test must not leave the session's server down
            postgres.start()


@pytest.fixture
def deployment(split: Deployment) -> Iterator[Deployment]:
    """The shared deployment, every part running (a failed test may have left one down); its logs of this
    test are printed afterwards, which pytest shows when the test fails."""
    if not split.postgres.running:
        split.postgres.start()
    if not split.web.running:
        split.web.start()
    if not split.scheduler.running:
        split.scheduler.start()
    sizes = split.log_sizes()
    yield split
    print(split.logs(sizes))


# ---------------------------------------------------------------- clients


@dataclass
class Attempt:
    """One play a phone handed in, and what came back (``status`` None: no answer at all)."""

    player: str
    move: str
    sent: datetime
    answered: datetime
    status: int | None
    answer: Any

    @property
    def acknowledged(self) -> bool:
        return self.status == 200


class Phones:
    """Players handing in plays from threads, as phones do: each alternates between two plays (so the
    one scored tells which came last), retries soon after a failure, and stops at the clear refusal
    of a closed round, or at ``give_up``."""

    def __init__(
        self,
        web: TirageServer,
        game_id: int,
        number: int,
        tokens: dict[str, str],
        moves: tuple[str, str],
        give_up: datetime,
    ) -> None:
        self.web, self.path, self.number = web, f"/api/games/{game_id}/rounds/{number}/plays", number
        self.moves, self.give_up = moves, give_up
        self.attempts: dict[str, list[Attempt]] = {name: [] for name in tokens}
        self.threads = [
            threading.Thread(target=self._play, args=(name, token, index), daemon=True)
            for index, (name, token) in enumerate(tokens.items())
        ]

    def start(self) -> Phones:
        for thread in self.threads:
            thread.start()
        return self

    def join(self) -> None:
        limit = (self.give_up - now()).total_seconds() + 15
        for thread in self.threads:
            thread.join(timeout=max(0.0, limit))
            assert not thread.is_alive(), "a phone is still waiting for an answer"

    def _play(self, name: str, token: str, index: int) -> None:
        time.sleep(index * PACE / len(self.threads))  # spread out, as a room is
        turn = index
        while now() < self.give_up:
            move = self.moves[turn % 2]
            turn += 1
            sent = now()
            try:
                status, _headers, text = self.web.request("POST", self.path, {"move": move}, token, timeout=10)
                answer: Any = json.loads(text) if text.startswith("{") else text
            except (OSError, http.client.HTTPException) as error:  # refused, reset: the server is down
                status, answer = None, repr(error)
            self.attempts[name].append(Attempt(name, move, sent, now(), status, answer))
            if status == 409:
                return  # the round is closed: a phone shows it and stops
            time.sleep(PACE if status == 200 else RETRY_PAUSE)

    def acknowledged(self) -> list[Attempt]:
        return [a for tries in list(self.attempts.values()) for a in list(tries) if a.acknowledged]

    def everyone_acknowledged(self) -> bool:
        return all(any(a.acknowledged for a in list(tries)) for tries in self.attempts.values())


class EventReader(threading.Thread):
    """An SSE client of ``/api/games/<id>/events`` read line by line, reconnecting like a browser's
    EventSource (``Last-Event-ID`` set to the last id received) whenever its connection ends."""

    def __init__(self, web: TirageServer, game_id: int) -> None:
        super().__init__(daemon=True)
        self.web, self.game_id = web, game_id
        self.events: list[tuple[int, int, str, int | None]] = []  # (connection number, id, kind, round)
        self.connections: list[int] = []  # the Last-Event-ID each connection sent (0: none)
        self.ended: list[datetime] = []  # when each connection ended
        self.refused: list[int] = []  # statuses of reconnections the server answered with an error
        self.halt = threading.Event()
        self._connection: http.client.HTTPConnection | None = None

    def run(self) -> None:
        last = 0
        while not self.halt.is_set():
            connection = self._connection = http.client.HTTPConnection("127.0.0.1", self.web.port, timeout=30)
            connected = False
            try:
                headers = {"Accept": "text/event-stream", **({"Last-Event-ID": str(last)} if last else {})}
                connection.request("GET", f"/api/games/{self.game_id}/events", headers=headers)
                response = connection.getresponse()
                if response.status != 200:
                    self.refused.append(response.status)
                    continue
                connected = True
                self.connections.append(last)
                number = len(self.connections)
                event_id: int | None = None
                kind, data = "", ""
                while not self.halt.is_set():
                    line = response.readline()
                    if not line:
                        break
                    text = line.decode("utf-8").rstrip("\r\n")
                    if text.startswith("id:"):
                        event_id = int(text[3:].strip())
                    elif text.startswith("event:"):
                        kind = text[6:].strip()
                    elif text.startswith("data:"):
                        data += text[5:].strip()
                    elif text == "":  # the blank line ends an event (a heartbeat has no id)
                        if event_id is not None:
                            self.events.append((number, event_id, kind, json.loads(data or "{}").get("round")))
                            last = event_id
                        event_id, kind, data = None, "", ""
            except (OSError, http.client.HTTPException):
                pass  # the server went away: reconnect, as EventSource does
            finally:
                connection.close()
                if connected:
                    self.ended.append(now())
            self.halt.wait(0.2)  # EventSource's retry pause, shortened for the test

    def stop(self) -> None:
        self.halt.set()
        connection = self._connection
        if connection is not None and connection.sock is not None:
            with contextlib.suppress(OSError):
                connection.sock.shutdown(socket.SHUT_RDWR)  # unblock the read
        self.join(timeout=10)
        assert not self.is_alive(), "the event reader did not stop"

    def saw(self, kind: str, number: int) -> bool:
        """Whether an event of ``kind`` about round ``number`` came."""
        return any((k, r) == (kind, number) for _n, _i, k, r in list(self.events))


class Browser:
    """A browser on the pages, with its cookies (the session holds a player's token or a director's login)."""

    def __init__(self, web: TirageServer) -> None:
        self.web = web
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        self.csrf = ""
        self.url = ""  # where the last request ended, redirects followed

    def open(
        self, path: str, form: dict[str, str] | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, str, dict[str, str]]:
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        request = urllib.request.Request(f"{self.web.base_url}{path}", data=data, headers=headers or {})
        try:
            with self.opener.open(request, timeout=10) as answer:
                status, text, head = answer.status, answer.read().decode(), dict(answer.headers)
                self.url = answer.geturl()
        except urllib.error.HTTPError as error:
            status, text, head = error.code, error.read().decode(errors="replace"), dict(error.headers)
            self.url = error.geturl()
        found = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', text)
        if found:
            self.csrf = found.group(1)
        return int(status), text, head

    def join(self, code: str, name: str) -> Browser:
        """A phone joins the game (its play page, with the form's CSRF token, comes back)."""
        self.open("/join")
        status, text, _ = self.open("/join", {"csrf_token": self.csrf, "code": code, "name": name})
        assert status == 200 and "csrf_token" in text, f"joining the game failed: {status}\n{text[:500]}"
        return self

    def login(self, name: str, password: str) -> Browser:
        """A director logs in on the console."""
        self.open("/director/login")
        status, text, _ = self.open(
            "/director/login", {"csrf_token": self.csrf, "username": name, "password": password}
        )
        assert status == 200 and "/director/login" not in self.url, f"login failed: {status}\n{text[:500]}"
        return self


# ---------------------------------------------------------------- checks


def check_round(
    deployment: Deployment, game_id: int, number: int, phones: Phones, allowed_failure: Callable[[Attempt], bool]
) -> int:
    """What the players were told matches what the round kept and scored; returns the acknowledged count.

    * every attempt is acknowledged, or refused after the deadline with "round N is closed", or one of
      the failures the fault allows (``allowed_failure``): never a 500 nor any other refusal;
    * every acknowledged play is in the database, before the deadline; nothing else is stored but the
      plays whose answer was lost;
    * each phone ends on the clear refusal of a closed round;
    * the play scored is the last acknowledged one, or one sent after it whose answer was lost.
    """
    row = deployment.round_row(game_id, number)
    deadline, logs = row["deadline"], deployment.logs
    stored = deployment.submissions(game_id, number)
    details = deployment.web.ok("GET", f"/api/games/{game_id}/rounds/{number}", token=deployment.director)
    results = {r["name"]: r for r in details["results"]}
    acknowledged = 0
    for name, attempts in phones.attempts.items():
        assert attempts, f"{name} handed in nothing"
        for a in attempts:
            if a.acknowledged:
                assert a.answer["move"] == a.move and a.answer["round"] == number, a
            elif a.status == 409:
                assert a.answer == {"error": f"round {number} is closed"}, a
                assert a.answered >= deadline, f"refused before the deadline {deadline}: {a}"
            else:
                assert allowed_failure(a), f"an answer this fault does not explain: {a}\n{logs()}"
        last = attempts[-1]
        assert last.status == 409, f"{name}'s phone did not end on the closed round: {last}"
        acked = [a for a in attempts if a.acknowledged]
        unanswered = [a for a in attempts if not a.acknowledged and a.status != 409]
        kept = stored.get(name, [])
        for a in acked:
            assert parse_time(a.answer["received_at"]) < deadline, a
            assert (a.move, a.answer["received_at"]) in kept, f"acknowledged, not stored: {a}\nstored: {kept}"
        extra = [entry for entry in kept if entry not in {(a.move, a.answer["received_at"]) for a in acked}]
        assert len(extra) <= len(unanswered), f"{name}: stored without an acknowledgement: {extra}"
        assert {move for move, _ in extra} <= {a.move for a in unanswered}, extra
        if acked:
            after = {a.move for a in unanswered if a.sent >= acked[-1].sent}
            assert results[name]["move"] in {acked[-1].move} | after, (
                f"{name} scored {results[name]['move']}, last acknowledged {acked[-1].move}"
            )
            assert results[name]["move"] == kept[-1][0]  # the last one stored counts
        acknowledged += len(acked)
    return acknowledged


def closed_late(deployment: Deployment, game_id: int, number: int) -> float:
    """Seconds between the moment the round should close (its deadline, settled: docs/rules.md §6.6) and its
    close (negative: closed early)."""
    row = deployment.round_row(game_id, number)
    assert row["status"] == "closed" and row["closed_at"] is not None, row
    return float((row["closed_at"] - closes_at(row["deadline"])).total_seconds())


def within(moment: datetime, start: datetime, end: datetime, slack: float = 0.0) -> bool:
    return start - timedelta(seconds=slack) <= moment <= end + timedelta(seconds=slack)


# ---------------------------------------------------------------- the web process dies


def test_killed_web_process_loses_no_acknowledged_play_and_clients_resync(
    deployment: Deployment, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    d = deployment
    game_id, _code, tokens = d.new_game(21, ("Ann", "Bob", "Cleo", "Dan"))

    # Round 1: SIGKILL while four phones hand in plays; started again before the deadline.
    state = d.web.ok("POST", f"/api/games/{game_id}/start", token=d.director)
    deadline = parse_time(state["deadline"])
    top, _score, low = best_play(state, en_rules, en_lexicon)
    assert top != low
    phones = Phones(d.web, game_id, 1, tokens, (top, low), deadline + timedelta(seconds=8)).start()
    d.wait_for(phones.everyone_acknowledged, "a first play of every phone")
    workers = d.web.workers()
    assert workers, "round 1 opened in the server's analyst process: it should be running"
    killed = now()
    d.web.kill()
    time.sleep(0.5)  # the phones keep trying a dead server
    d.web.start()
    back = now()
    assert back < deadline - timedelta(seconds=2), "the restart took the round: nothing left to test"
    phones.join()
    d.wait_for(lambda: d.closed(game_id, 1), "round 1 to close")
    assert 0 <= closed_late(d, game_id, 1) <= CLOSE_TOLERANCE, d.round_row(game_id, 1)
    lost = [a for tries in phones.attempts.values() for a in tries if a.status is None]
    assert lost, "no phone noticed the kill: the fault was not injected mid-round"
    # The killed server's analyst could not be stopped by it: it ends by itself once orphaned (trainer.games.analyst).
    d.wait_for(lambda: not any(d.web.alive(pid) for pid in workers), "the killed server's analyst to end")
    acknowledged = check_round(
        d, game_id, 1, phones, lambda a: a.status is None and within(a.answered, killed, back, slack=0.5)
    )
    assert any(a.sent > back for a in phones.acknowledged()), "no play taken after the restart"

    # Round 2: an event stream is open when the web process dies; the scheduler closes the round at its
    # deadline while the web is down; the stream reconnects with Last-Event-ID and gets what it missed.
    state = d.web.ok("POST", f"/api/games/{game_id}/next", token=d.director)
    deadline2 = parse_time(state["deadline"])
    top2, _score2, _low2 = best_play(state, en_rules, en_lexicon)
    reader = EventReader(d.web, game_id)
    reader.start()
    try:
        d.web.ok("POST", f"/api/games/{game_id}/rounds/2/plays", {"move": top2}, tokens["Ann"])
        d.wait_for(lambda: reader.saw("submission", 2), "the stream to show round 2's first play")
        d.web.kill()
        killed2 = now()
        assert killed2 < deadline2 - timedelta(seconds=1), "round 2 ended before the kill: nothing to miss"
        d.wait_for(lambda: reader.ended, "the stream to end with the web process")
        first = [event_id for number, event_id, _k, _r in list(reader.events) if number == 1]
        d.wait_for(
            lambda: d.closed(game_id, 2),
            "the scheduler to close round 2 while the web process is down",
            timeout=ROUND_SECONDS + 5,
        )
        assert 0 <= closed_late(d, game_id, 2) <= CLOSE_TOLERANCE, d.round_row(game_id, 2)
        restarted = now()
        d.web.start()
        d.wait_for(lambda: reader.saw("round_closed", 2), "the reconnected stream to deliver round 2's close")
    finally:
        reader.stop()
    log = d.event_log(game_id)
    received = [event_id for _n, event_id, _k, _r in reader.events]
    assert received == sorted(set(received)), f"duplicates or disorder: {received}"
    assert received == [i for i, *_ in log if i <= received[-1]], f"missed events: {received} of {log}"
    assert reader.connections[0] == 0 and len(reader.connections) >= 2, reader.connections
    assert reader.connections[1] == first[-1], "the reconnection did not resume from the last id it got"
    missed = [(i, k, a) for i, k, a, at in log if killed2 <= at <= restarted]
    assert ("round_closed", "scheduler") in {(k, a) for _i, k, a in missed}, log
    assert {i for i, _k, _a in missed} <= {i for number, i, _k, _r in reader.events if number >= 2}
    results = {r["name"]: r for r in d.web.ok("GET", f"/api/games/{game_id}/rounds/2", token=d.director)["results"]}
    assert results["Ann"]["move"] == top2
    print(
        f"web killed twice; {sum(len(t) for t in phones.attempts.values())} plays handed in, "
        f"{acknowledged} acknowledged and checked, {len(lost)} without an answer; "
        f"{len(received)} events over {len(reader.connections)} stream connections "
        f"(reconnections refused: {reader.refused})"
    )


# ---------------------------------------------------------------- the scheduler dies


def test_killed_scheduler_closes_no_round_while_down_then_closes_on_time_or_at_once(
    deployment: Deployment, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    d = deployment
    game_id, _code, tokens = d.new_game(22, ("Ann", "Bob"))

    # Round 1: killed mid-round, started again before the deadline: the round closes at its deadline.
    state = d.web.ok("POST", f"/api/games/{game_id}/start", token=d.director)
    deadline = parse_time(state["deadline"])
    top, _score, low = best_play(state, en_rules, en_lexicon)
    d.web.ok("POST", f"/api/games/{game_id}/rounds/1/plays", {"move": top}, tokens["Ann"])
    d.scheduler.kill()
    d.web.ok("POST", f"/api/games/{game_id}/rounds/1/plays", {"move": low}, tokens["Bob"])  # taken meanwhile
    time.sleep(1.0)
    d.scheduler.start()
    assert now() < deadline - timedelta(seconds=1), "the restart took the round: nothing left to test"
    d.wait_for(lambda: d.closed(game_id, 1), "round 1 to close")
    assert 0 <= closed_late(d, game_id, 1) <= CLOSE_TOLERANCE, d.round_row(game_id, 1)
    results = {
        r["name"]: r["move"] for r in d.web.ok("GET", f"/api/games/{game_id}/rounds/1", token=d.director)["results"]
    }
    assert results == {"Ann": top, "Bob": low}

    # Round 2: the deadline passes while the scheduler is down. Plays are taken until the deadline and
    # refused after it with the usual message; nothing closes until the scheduler is back, then at once.
    state = d.web.ok("POST", f"/api/games/{game_id}/next", token=d.director)
    deadline2 = parse_time(state["deadline"])
    top2, _score2, low2 = best_play(state, en_rules, en_lexicon)
    d.web.ok("POST", f"/api/games/{game_id}/rounds/2/plays", {"move": top2}, tokens["Ann"])
    d.scheduler.kill()
    d.web.ok("POST", f"/api/games/{game_id}/rounds/2/plays", {"move": low2}, tokens["Bob"])
    d.sleep_until(deadline2 + timedelta(seconds=2))
    code, answer = d.web.call("POST", f"/api/games/{game_id}/rounds/2/plays", {"move": top2}, tokens["Bob"])
    assert (code, answer) == (409, {"error": "round 2 is closed"})
    assert d.round_row(game_id, 2)["status"] == "open" and d.round_row(game_id, 2)["closed_at"] is None
    assert d.web.ok("GET", f"/api/games/{game_id}")["status"] == "playing"
    code, answer = d.web.call("GET", f"/api/games/{game_id}/rounds/2")
    assert code == 403, answer  # no results before the close
    restarted = now()
    d.scheduler.start()
    up = now()
    d.wait_for(lambda: d.closed(game_id, 2), "the overdue round to close", timeout=5)
    closed_at = d.round_row(game_id, 2)["closed_at"]
    assert within(closed_at, restarted, up + timedelta(seconds=CLOSE_TOLERANCE)), (restarted, closed_at, up)
    results = {
        r["name"]: r["move"] for r in d.web.ok("GET", f"/api/games/{game_id}/rounds/2", token=d.director)["results"]
    }
    assert results == {"Ann": top2, "Bob": low2}  # Bob's late play was refused and not stored
    assert [move for move, _ in d.submissions(game_id, 2)["Bob"]] == [low2]
    closes = [(k, a) for _i, k, a, _at in d.event_log(game_id) if k == "round_closed"]
    assert closes == [("round_closed", "scheduler")] * 2  # each round closed once


# ---------------------------------------------------------------- PostgreSQL restarts


def test_postgresql_restart_gives_clear_503s_and_everything_recovers_without_a_restart(
    deployment: Deployment, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    d = deployment
    game_id, code, tokens = d.new_game(23, ("Ann", "Bob", "Cleo", "Dan"))
    assert d.web.process is not None and d.scheduler.process is not None
    pids = (d.web.process.pid, d.scheduler.process.pid)  # the same processes at the end: nothing restarted
    phone = Browser(d.web).join(code, "Eve")
    console = Browser(d.web).login("alice", PASSWORD)

    # Round 1: PostgreSQL stops (cleanly) mid-round while four phones hand in plays, then starts again.
    state = d.web.ok("POST", f"/api/games/{game_id}/start", token=d.director)
    deadline = parse_time(state["deadline"])
    top, _score, low = best_play(state, en_rules, en_lexicon)
    phones = Phones(d.web, game_id, 1, tokens, (top, low), deadline + timedelta(seconds=8)).start()
    d.wait_for(phones.everyone_acknowledged, "a first play of every phone")
    down = now()
    d.postgres.halt("fast")
    try:
        d.wait_for(
            lambda: any(a.status == 503 for tries in phones.attempts.values() for a in list(tries)),
            "a phone to get a 503",
            timeout=5,
        )
        status, headers, text = d.web.request("GET", f"/api/games/{game_id}")
        assert status == 503 and DATABASE_MESSAGE.search(json.loads(text)["error"]), text
        assert headers.get("retry-after", "").isdigit(), headers
        status, _headers, page = d.web.request("GET", f"/play/{game_id}")
        assert status == 503 and "<h1>Database unavailable</h1>" in page and "Traceback" not in page, page[:800]
        status, _headers, page = d.web.request("GET", f"/play/{game_id}?lang=fr")
        assert status == 503 and "Base de données indisponible" in page, page[:800]
        # A logged-in director's page header needs the database too: the page says the same, plainer.
        status, page, _ = console.open("/director/")
        assert status == 503 and "<h1>Database unavailable</h1>" in page and "Traceback" not in page, page[:800]
        # The phone's own script posts its play and expects JSON: it gets a message it can show.
        status, text, _ = phone.open(
            f"/play/{game_id}/submit",
            {"csrf_token": phone.csrf, "round": "1", "move": top},
            {"Accept": "application/json"},
        )
        assert status == 503, text[:500]
        assert json.loads(text) == {
            "ok": False,
            "error": "The server cannot reach its database for a moment. Wait a few seconds and try again.",
        }
        assert d.web.running and d.scheduler.running
        time.sleep(max(0.0, 1.5 - (now() - down).total_seconds()))  # an outage of a second and a half at least
    finally:
        d.postgres.start()
    back = now()
    assert back < deadline - timedelta(seconds=2), "the outage took the round: nothing left to test"
    phones.join()
    d.wait_for(lambda: d.closed(game_id, 1), "round 1 to close")
    assert 0 <= closed_late(d, game_id, 1) <= CLOSE_TOLERANCE, d.round_row(game_id, 1)
    refused = [a for tries in phones.attempts.values() for a in tries if a.status == 503]
    for a in refused:
        assert DATABASE_MESSAGE.search(a.answer["error"]), a
    # 503s only for requests made while the database was down: the first request after it is back reconnects.
    acknowledged = check_round(
        d, game_id, 1, phones, lambda a: a.status == 503 and down - timedelta(seconds=1) <= a.sent <= back
    )
    assert any(a.sent > back for a in phones.acknowledged()), "no play taken once the database was back"
    for browser, page_path in ((phone, f"/play/{game_id}"), (console, f"/director/games/{game_id}")):
        status, text, _ = browser.open(page_path)
        assert status == 200, text[:500]  # the same sessions, the pages are back

    # Round 2: PostgreSQL crashes (immediate stop) and is down when the deadline passes; the scheduler's
    # sweeps go on and close the round as soon as it is back.
    state = d.web.ok("POST", f"/api/games/{game_id}/next", token=d.director)
    deadline2 = parse_time(state["deadline"])
    top2, _score2, _low2 = best_play(state, en_rules, en_lexicon)
    d.web.ok("POST", f"/api/games/{game_id}/rounds/2/plays", {"move": top2}, tokens["Bob"])
    d.postgres.halt("immediate")
    try:
        status, _headers, text = d.web.request(
            "POST", f"/api/games/{game_id}/rounds/2/plays", {"move": top2}, tokens["Cleo"]
        )
        assert status == 503 and DATABASE_MESSAGE.search(json.loads(text)["error"]), text
        d.sleep_until(deadline2 + timedelta(seconds=1.5))
        assert d.web.running and d.scheduler.running
    finally:
        d.postgres.start()
    back2 = now()
    d.wait_for(lambda: d.closed(game_id, 2), "round 2 to close once the database is back", timeout=10)
    closed_at = d.round_row(game_id, 2)["closed_at"]
    assert within(closed_at, back2 - timedelta(seconds=1), back2 + timedelta(seconds=CLOSE_TOLERANCE)), (
        back2,
        closed_at,
    )
    results = {
        r["name"]: r["move"] for r in d.web.ok("GET", f"/api/games/{game_id}/rounds/2", token=d.director)["results"]
    }
    assert {name: move for name, move in results.items() if move} == {"Bob": top2}  # Cleo's got a 503: not stored
    assert "Cleo" not in d.submissions(game_id, 2)
    assert d.web.running and d.scheduler.running
    assert (d.web.process.pid, d.scheduler.process.pid) == pids
    assert "Traceback" not in d.scheduler.output(), d.scheduler.output()[-3000:]
    print(
        f"PostgreSQL stopped twice; {sum(len(t) for t in phones.attempts.values())} plays handed in, "
        f"{acknowledged} acknowledged and checked, {len(refused)} refused with a 503"
    )
