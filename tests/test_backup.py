"""``tirage backup`` while a game runs, and ``tirage restore`` into a new instance (issue 6).

A real ``tirage serve`` runs an English game on SQLite and on PostgreSQL. One thread hands in plays
ten a second, another closes rounds and opens the next ones, and meanwhile the real ``tirage backup``
runs again and again. Each backup must be one moment of the database: no
submission without its player and round, the event log agreeing with the rows, every play the server
acknowledged before the backup began inside it, and nothing that came after a missing play. Then the
last backup is restored into a new instance (a new SQLite folder, a new PostgreSQL database), and a
server started on it shows the same game, and goes on with it. A club's database also moves from SQLite
to PostgreSQL and back with every row unchanged. Refusals: a database that holds data, files that are
not backups, a backup that cannot be written.
"""

from __future__ import annotations

import json
import os
import random
import re
import sqlite3
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, text

from tests.postgres import Server as PostgresServer
from tests.processes import SchedulerProcess, TirageServer, parse_time, tirage_command
from trainer.backup import head_revision
from trainer.cli import main
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon, LexiconStore
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move
from trainer.engine.rules import Ruleset

PASSWORD = "correct horse"
# A player may hand in 30 plays a minute (trainer.http.ratelimit): many players, a play every 0.1 s in all.
PLAYERS = ("Ann", "Bob", "Cy", "Di", *(f"Player {n}" for n in range(5, 25)))
PAUSE = 0.1
BACKUPS_DURING_PLAY = 3
Row = tuple[Any, ...]


@pytest.fixture(params=["sqlite", "postgresql"])
def new_database(request: pytest.FixtureRequest) -> Iterator[Any]:
    """Makes the DATABASE_URL of a new, empty database: "" is the instance folder's SQLite file."""
    if request.param == "sqlite":
        yield lambda: ""
    else:
        server: PostgresServer = request.getfixturevalue("postgres")
        yield server.new_database


def _server(folder: Path, url: str, cache: Path, *serve_args: str) -> TirageServer:
    return TirageServer(folder, cache, env_extra={"DATABASE_URL": url} if url else None, serve_args=serve_args)


def _url(server: TirageServer) -> str:
    """The URL to read the server's database directly (the reference the backups are checked against)."""
    return server.env.get("DATABASE_URL") or f"sqlite:///{server.instance / 'tirage.sqlite'}"


def _query(url: str, sql: str) -> list[Row]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(text(sql))]
    finally:
        engine.dispose()


SUBMISSIONS = (
    "SELECT s.id, s.round_id, r.number, s.player_id, s.move, s.score_as_placed "
    "FROM submission s JOIN round r ON r.id = s.round_id ORDER BY s.id"
)


class Players(threading.Thread):
    """Hands in legal plays for every player in turn, ten a second, round after round.

    ``acked`` lists (player id, round, play) in the order the server acknowledged them: one thread,
    one play at a time, so that is also the order of the submission rows.
    """

    def __init__(
        self, server: TirageServer, game_id: int, players: dict[str, dict[str, Any]], rules: Ruleset, lexicon: Lexicon
    ) -> None:
        super().__init__(daemon=True)
        self.server, self.game_id, self.players, self.rules, self.lexicon = server, game_id, players, rules, lexicon
        self.acked: list[tuple[int, int, str]] = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.error: BaseException | None = None

    def acknowledged(self) -> list[tuple[int, int, str]]:
        with self.lock:
            return list(self.acked)

    def run(self) -> None:
        try:
            turn = 0
            plays: dict[int, list[str]] = {}
            while not self.stop.is_set():
                state = self.server.ok("GET", f"/api/games/{self.game_id}")
                if state["round_status"] != "open":
                    time.sleep(0.02)
                    continue
                number = state["round"]
                if number not in plays:
                    board = Board.from_rows(self.rules.layout, state["board"])
                    moves = sorted(
                        generate_moves(board, self.rules, self.lexicon, state["rack"]),
                        key=lambda m: (-(m.score or 0), format_move(m)),
                    )
                    plays[number] = [format_move(m) for m in moves[:12]]
                while not self.stop.is_set():
                    player = self.players[PLAYERS[turn % len(PLAYERS)]]
                    move = plays[number][turn % len(plays[number])]
                    turn += 1
                    code, answer = self.server.call(
                        "POST", f"/api/games/{self.game_id}/rounds/{number}/plays", {"move": move}, player["token"]
                    )
                    if code == 409:  # the round closed under us: on to the next one
                        time.sleep(PAUSE)
                        break
                    assert code == 200, answer
                    with self.lock:
                        self.acked.append((player["player_id"], number, answer["move"]))
                    time.sleep(PAUSE)
        except BaseException as exc:  # reported by the test
            self.error = exc


class Director(threading.Thread):
    """Closes the running round early and opens the next, again and again; stops just after an opening."""

    def __init__(self, server: TirageServer, game_id: int, token: str) -> None:
        super().__init__(daemon=True)
        self.server, self.game_id, self.token = server, game_id, token
        self.stop = threading.Event()
        self.error: BaseException | None = None
        self.rounds = 1

    def run(self) -> None:
        try:
            while not self.stop.wait(1.2):
                self.server.ok("POST", f"/api/games/{self.game_id}/close", token=self.token)
                time.sleep(0.3)
                self.server.ok("POST", f"/api/games/{self.game_id}/next", token=self.token)
                self.rounds += 1
        except BaseException as exc:
            self.error = exc


def _view(server: TirageServer, game_id: int, director: str) -> dict[str, Any]:
    """What the API shows the director of the game: state (the clock's seconds aside), standings, every closed
    round with every player's play."""
    state = server.ok("GET", f"/api/games/{game_id}")
    state.pop("seconds_left")
    rounds = {
        n: server.ok("GET", f"/api/games/{game_id}/rounds/{n}", token=director)
        for n in range(1, state["round"] + 1)
        if n < state["round"] or state["round_status"] == "closed"
    }
    return {"state": state, "standings": server.ok("GET", f"/api/games/{game_id}/standings"), "rounds": rounds}


def _check_snapshot(path: Path, acked_before: list[tuple[int, int, str]], final: list[Row]) -> list[Row]:
    """``path`` is one consistent moment of the source database; returns its submissions."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",), "a backup is one self-contained file"
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [(head_revision(),)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        submissions = conn.execute(SUBMISSIONS).fetchall()
        orphans = conn.execute(
            "SELECT count(*) FROM submission s LEFT JOIN player p ON p.id = s.player_id "
            "LEFT JOIN round r ON r.id = s.round_id WHERE p.id IS NULL OR r.id IS NULL"
        ).fetchone()
        assert orphans == (0,)
        # The event log and the rows were read at the same moment: each submission has its event, and
        # the last event of a round counts the players who handed in.
        events: dict[int, list[int]] = {}
        for (data,) in conn.execute("SELECT data FROM event WHERE kind = 'submission' ORDER BY id"):
            entry = json.loads(data)
            events.setdefault(entry["round"], []).append(entry["submissions"])
        by_round: dict[int, list[Row]] = {}
        for row in submissions:
            by_round.setdefault(row[2], []).append(row)
        assert {n: len(counts) for n, counts in events.items()} == {n: len(rows) for n, rows in by_round.items()}
        for number, rows in by_round.items():
            assert events[number][-1] == len({row[3] for row in rows}), f"round {number}"
        # A closed round has its results and its close in the log, an open one neither.
        closes = {
            json.loads(d)["round"]: json.loads(d)["submissions"]
            for (d,) in conn.execute("SELECT data FROM event WHERE kind = 'round_closed'")
        }
        for number, status in conn.execute("SELECT number, status FROM round"):
            results = conn.execute(
                "SELECT count(*) FROM result JOIN round ON round.id = result.round_id WHERE round.number = ?", (number,)
            ).fetchone()[0]
            submitters = len({row[3] for row in by_round.get(number, [])})
            if status == "closed":
                assert closes.get(number) == results == submitters, f"round {number}"
            else:
                assert number not in closes and results == 0, f"round {number}"
        status, current = conn.execute("SELECT status, round_number FROM game").fetchone()
        latest = conn.execute("SELECT status FROM round WHERE number = ?", (current,)).fetchone()[0]
        assert (status, latest) in {("playing", "open"), ("revealing", "closed")}
    finally:
        conn.close()
    # Every play acknowledged before the backup began is in it, and it holds the first rows of the
    # final table: no play is missing from before a play it has.
    assert len(submissions) >= len(acked_before)
    assert [(row[3], row[2], row[4]) for row in submissions[: len(acked_before)]] == acked_before
    assert [tuple(row) for row in submissions] == final[: len(submissions)]
    return submissions


def test_backups_during_a_game_are_consistent_and_restore_into_a_new_instance(
    tmp_path: Path,
    new_database: Any,
    lexicon_store: LexiconStore,
    en_lexicon: Lexicon,
    fr_lexicon: Lexicon,
    en_rules: Ruleset,
) -> None:
    # The source's rounds close only at the director's word (its server runs no round clock), so the
    # game stands still once the director and the players stop: a reference to compare the restore with.
    source = _server(tmp_path / "source", new_database(), lexicon_store.cache_dir, "--no-scheduler")
    source.create_director("alice", PASSWORD)
    restored: TirageServer | None = None
    scheduler: SchedulerProcess | None = None
    players_thread: Players | None = None
    director_thread: Director | None = None
    try:
        source.start()
        alice = source.ok("POST", "/api/auth/token", {"username": "alice", "password": PASSWORD})["token"]
        game = source.ok(
            "POST", "/api/games", {"seed": 10**19 + 5, "round_seconds": 10, "reveal_seconds": None}, alice, status=201
        )
        gid = game["id"]
        players = {
            name: source.ok("POST", "/api/join", {"code": game["join_code"], "name": name}, status=201)
            for name in PLAYERS
        }
        source.ok("POST", f"/api/games/{gid}/start", token=alice)

        players_thread = Players(source, gid, players, en_rules, en_lexicon)
        director_thread = Director(source, gid, alice)
        players_thread.start()
        director_thread.start()
        source.wait_for(lambda: len(players_thread.acknowledged()) >= 8 or players_thread.error, "the first plays")
        backups: list[tuple[Path, list[tuple[int, int, str]]]] = []
        for number in range(BACKUPS_DURING_PLAY):
            acked_before = players_thread.acknowledged()
            if number == 0:  # the default name: a UTC time in the instance folder's backups/
                answer = source.cli("backup").stdout
                path = Path(answer.split("backup written to ", 1)[1].split(" (", 1)[0])
                assert path.parent == source.instance / "backups" and path.name.startswith("tirage-"), answer
            else:
                path = tmp_path / f"during-{number}.sqlite"
                answer = source.cli("backup", str(path)).stdout
            assert f"schema {head_revision()}" in answer and "submission " in answer, answer
            backups.append((path, acked_before))
        director_thread.stop.set()
        director_thread.join(timeout=10)
        # The reference moment: a round just opened, a few plays in it, nobody playing any more.
        source.wait_for(lambda: source.ok("GET", f"/api/games/{gid}")["round_status"] == "open", "a round to open")
        source.wait_for(
            lambda: (
                players_thread.error
                or players_thread.acknowledged()[-1][1] == source.ok("GET", f"/api/games/{gid}")["round"]
            ),
            "a play in the new round",
        )
        time.sleep(0.5)
        players_thread.stop.set()
        players_thread.join(timeout=10)
        assert players_thread.error is None, players_thread.error
        assert director_thread.error is None, director_thread.error

        before = _view(source, gid, alice)
        reference = tmp_path / "reference.sqlite"
        answer = source.cli("backup", str(reference)).stdout
        assert _view(source, gid, alice) == before, "taking a backup changed the game"
        final = _query(_url(source), SUBMISSIONS)
        sizes = []
        for path, acked_before in [*backups, (reference, players_thread.acknowledged())]:
            sizes.append(len(_check_snapshot(path, acked_before, final)))
            assert oct(path.stat().st_mode & 0o777) == "0o600", "a backup holds password hashes: the owner's only"
        assert sizes == sorted(sizes) and sizes[-1] == len(final), sizes
        assert len({len(backup_rounds) for backup_rounds in _rounds_seen(backups)}) > 1, (
            "every backup saw the same rounds: the game did not move while they ran"
        )
        assert f"submission {len(final)}," in answer or f"submission {len(final)})" in answer, answer

        # Restore into a new instance and a new database; a server on it shows the same game. Its round
        # clock is a separate `tirage scheduler`, started once the game was compared (else an overdue
        # round would close before anyone could look at the restored state).
        restored = _server(tmp_path / "restored", new_database(), lexicon_store.cache_dir, "--no-scheduler")
        answer = restored.cli("restore", str(reference)).stdout
        assert f"submission {len(final)}" in answer and "start the server again" in answer, answer
        source.stop()
        restored.start()
        director = restored.ok("POST", "/api/auth/token", {"username": "alice", "password": PASSWORD})["token"]
        assert _view(restored, gid, director) == before
        assert restored.ok("GET", f"/api/games/{gid}", token=director)["join_code"] == game["join_code"]

        # The open round goes on: it closes at the deadline it had (at once if that passed), judging the
        # plays of the backup.
        number, deadline = before["state"]["round"], parse_time(before["state"]["deadline"])
        scheduler = SchedulerProcess(restored).start()
        restored.wait_for(
            lambda: restored.ok("GET", f"/api/games/{gid}")["status"] == "revealing",
            "the restored round to close",
            timeout=30,
        )
        closed = restored.ok("GET", f"/api/games/{gid}/rounds/{number}", token=director)
        assert parse_time(closed["closed_at"]) >= deadline
        last = {row[3]: row[4] for row in final if row[2] == number}
        names = {p["player_id"]: name for name, p in players.items()}
        judged = {r["name"]: r["move"] for r in closed["results"] if r["move"]}
        assert judged == {names[pid]: move for pid, move in last.items()}
        # ... and the game with it: the next round, a player's old token, new rows with new ids.
        state = restored.ok("POST", f"/api/games/{gid}/next", token=director)
        board = Board.from_rows(en_rules.layout, state["board"])
        move = format_move(generate_moves(board, en_rules, en_lexicon, state["rack"])[0])
        restored.ok("POST", f"/api/games/{gid}/rounds/{number + 1}/plays", {"move": move}, players["Ann"]["token"])

        # A second restore into this database, which now holds data, is refused and changes nothing.
        counts = "SELECT (SELECT count(*) FROM submission), (SELECT count(*) FROM player), (SELECT count(*) FROM game)"
        held = _query(_url(restored), counts)
        refused = _tirage(restored.env, restored.tmp_dir, "restore", str(backups[0][0]))
        assert refused.returncode == 1
        assert "already holds data" in refused.stderr and "--replace" in refused.stderr, refused.stderr
        assert "Traceback" not in refused.stderr
        assert _query(_url(restored), counts) == held == [(len(final) + 1, len(PLAYERS), 1)]
    finally:
        for thread in (players_thread, director_thread):
            if thread is not None:
                thread.stop.set()
        source.kill()
        if scheduler is not None:
            scheduler.kill()
        if restored is not None:
            restored.kill()


def _rounds_seen(backups: list[tuple[Path, list[tuple[int, int, str]]]]) -> list[list[Row]]:
    seen = []
    for path, _ in backups:
        with sqlite3.connect(path) as conn:
            seen.append(conn.execute("SELECT number, status FROM round ORDER BY number").fetchall())
    return seen


def _tirage(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*tirage_command(), *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


# ---------------------------------------------------------------------- refusals


def _run(instance: Path, *args: str) -> Any:
    """The CLI in this process on ``instance`` (SQLite), as the command line runs it."""
    env = {"TIRAGE_INSTANCE": str(instance), "DATABASE_URL": None, "TIRAGE_SECRET_KEY": None}
    return CliRunner().invoke(main, list(args), env=env)


def _directors(instance: Path) -> list[Row]:
    database = instance / "tirage.sqlite"
    if not database.exists():
        return []
    with sqlite3.connect(database) as conn:
        return conn.execute("SELECT id, username FROM director ORDER BY id").fetchall()


def test_restore_refuses_what_is_not_a_backup_and_a_database_with_data(tmp_path: Path) -> None:
    source, target = tmp_path / "source", tmp_path / "target"
    assert _run(source, "director", "create", "alice", "--password", PASSWORD).exit_code == 0
    backup = tmp_path / "club.sqlite"
    made = _run(source, "backup", str(backup))
    assert made.exit_code == 0 and "director 1" in made.output, made.output

    noise = tmp_path / "noise.sqlite"
    noise.write_bytes(random.Random(6).randbytes(50_000))
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    foreign = tmp_path / "other-app.sqlite"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
    future = tmp_path / "future.sqlite"
    future.write_bytes(backup.read_bytes())
    with sqlite3.connect(future) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0099_from_the_future'")
    for path, message in [
        (noise, "is not a Tirage backup: it is not a SQLite database"),
        (empty, "is not a Tirage backup: it has no alembic_version table"),
        (foreign, "is not a Tirage backup: it has no alembic_version table"),
        (future, "has schema '0099_from_the_future', which this Tirage does not know"),
    ]:
        refused = _run(target, "restore", str(path))
        assert refused.exit_code == 1 and isinstance(refused.exception, SystemExit), refused.output
        assert message in refused.output, refused.output
        assert not (target / "tirage.sqlite").exists(), "a refused file must not even create the database"

    # A database with data: refused, untouched; --replace (confirmed) puts the backup in its place.
    assert _run(target, "director", "create", "zoe", "--password", PASSWORD).exit_code == 0
    assert _run(target, "director", "create", "yann", "--password", PASSWORD).exit_code == 0
    refused = _run(target, "restore", str(backup))
    assert refused.exit_code == 1 and "already holds data (director 2)" in refused.output, refused.output
    assert _directors(target) == [(1, "zoe"), (2, "yann")]
    declined = CliRunner().invoke(
        main,
        ["restore", "--replace", str(backup)],
        input="n\n",
        env={"TIRAGE_INSTANCE": str(target), "DATABASE_URL": None},
    )
    assert declined.exit_code == 1 and _directors(target) == [(1, "zoe"), (2, "yann")]
    replaced = _run(target, "restore", "--replace", "--yes", str(backup))
    assert replaced.exit_code == 0, replaced.output
    assert _directors(target) == _directors(source) == [(1, "alice")]
    assert _run(target, "director", "create", "zoe", "--password", PASSWORD).exit_code == 0  # ids go on
    assert _directors(target) == [(1, "alice"), (2, "zoe")]


def test_a_backup_from_an_older_version_is_brought_to_the_current_schema(tmp_path: Path) -> None:
    """A backup made before an upgrade restores into the new version: its rows go through the
    migrations on a copy, and the file itself is left as it was."""
    import flask_migrate
    from flask import Flask

    from trainer.core.database import MIGRATIONS_DIR, db

    old = tmp_path / "before-the-upgrade.sqlite"
    app = Flask(__name__)
    app.config["SQLALCHEMY_DATABASE_URI"] = f"sqlite:///{old}"
    db.init_app(app)
    flask_migrate.Migrate(app, db, directory=str(MIGRATIONS_DIR), render_as_batch=True)
    with app.app_context():
        flask_migrate.upgrade(directory=str(MIGRATIONS_DIR), revision="0003_word_study")
        for engine in db.engines.values():
            engine.dispose()
    with sqlite3.connect(old) as conn:
        conn.execute(
            "INSERT INTO director (id, username, password_hash, created_at) "
            "VALUES (1, 'alice', 'scrypt:hash', '2026-05-01 19:30:00.000000')"
        )
        assert "wall" not in {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    before = old.read_bytes()

    target = tmp_path / "instance"
    restored = _run(target, "restore", str(old))
    assert restored.exit_code == 0 and "schema 0003_word_study" in restored.output, restored.output
    assert _directors(target) == [(1, "alice")]
    with sqlite3.connect(target / "tirage.sqlite") as conn:
        assert conn.execute("SELECT version_num FROM alembic_version").fetchall() == [(head_revision(),)]
        assert conn.execute("SELECT count(*) FROM wall").fetchone() == (0,)
    assert old.read_bytes() == before


def test_backup_refusals_are_one_clear_line(tmp_path: Path) -> None:
    instance = tmp_path / "instance"
    env = {**os.environ, "TIRAGE_INSTANCE": str(instance)}
    env.pop("DATABASE_URL", None)
    nothing = _tirage(env, tmp_path, "backup", str(tmp_path / "b.sqlite"))
    assert nothing.returncode == 1 and "there is no database" in nothing.stderr, nothing.stderr
    assert _run(instance, "director", "create", "alice", "--password", PASSWORD).exit_code == 0

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where a folder should be")
    failed = _tirage(env, tmp_path, "backup", str(blocker / "club.sqlite"))
    assert failed.returncode == 1, failed.stdout
    assert failed.stderr.strip().splitlines() == [
        f"Error: cannot write the backup to {blocker / 'club.sqlite'}: {blocker} is not a folder"
    ], failed.stderr
    deeper = _run(instance, "backup", str(blocker / "more" / "club.sqlite"))
    assert deeper.exit_code == 1 and "cannot write the backup to" in deeper.output, deeper.output
    assert "Not a directory" in deeper.output, deeper.output
    itself = _run(instance, "backup", str(instance / "tirage.sqlite"))
    assert itself.exit_code == 1 and "is the database itself" in itself.output, itself.output
    assert _directors(instance) == [(1, "alice")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["instance", "not-a-folder"], "no half-written file left"


# ---------------------------------------------------------------------- SQLite to PostgreSQL and back


def _every_row(path: Path) -> dict[str, list[Row]]:
    with sqlite3.connect(path) as conn:
        names = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        return {name: conn.execute(f'SELECT * FROM "{name}" ORDER BY 1').fetchall() for name in names}


def _schema(path: Path) -> list[tuple[str, str, list[str]]]:
    """Each table's and index's definition, its clauses sorted: SQLite keeps a table's constraints in the order
    they were written, and a migration that rebuilds a table (Alembic's batch mode) writes them in the order it
    reflects them, which is not fixed from one process to the next. Which clauses there are is what counts."""
    with sqlite3.connect(path) as conn:
        found = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    return [(kind, name, _clauses(sql or "")) for kind, name, sql in found]


def _clauses(sql: str) -> list[str]:
    """``CREATE TABLE t (\n\ta INT, \n\tb INT\n)`` as its sorted clauses, the closing parenthesis apart."""
    return sorted(re.split(r",\s*\n", re.sub(r"\s*\n\)\s*$", "", sql)))


def test_a_club_moves_from_sqlite_to_postgresql_and_back_unchanged(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    postgres: PostgresServer,
    lexicon_store: LexiconStore,
    en_lexicon: Lexicon,
    en_rules: Ruleset,
) -> None:
    """Every kind of row (games, word study, word wall; times, JSON, booleans, nulls) survives SQLite ->
    backup -> PostgreSQL -> backup: the second file holds exactly the first one's rows and schema."""
    import shutil

    from drills.scheduling import CardState
    from trainer.app import create_app
    from trainer.backup import backup, restore
    from trainer.core import accounts
    from trainer.core.accounts import create_director
    from trainer.core.database import db
    from trainer.games import service
    from trainer.study import service as study
    from trainer.wall import service as wall

    instance = tmp_path / "instance"
    shutil.copytree(lexicon_store.cache_dir, instance / "cache")
    monkeypatch.setenv("TIRAGE_INSTANCE", str(instance))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    app = create_app()
    with app.app_context():
        director = create_director("alice", PASSWORD)
        game = service.create_game(director, {"seed": 10**19 + 9, "round_seconds": 60, "reveal_seconds": None})
        ann, _ = service.join_game(game.join_code, "Ann")
        bob, _ = service.join_game(game.join_code, "Bob")
        round_ = service.start_game(game, "alice")
        assert round_ is not None
        state = {"board": service.board_rows(game), "rack": round_.rack}
        moves = generate_moves(Board.from_rows(en_rules.layout, state["board"]), en_rules, en_lexicon, state["rack"])
        service.submit(game, ann, 1, format_move(moves[0]))
        service.submit(game, bob, 1, format_move(moves[-1]))
        service.close_now(game, "alice")
        service.correct(game, 1, bob.id, 3, "scoring slip", "alice")
        service.advance(game, "alice")
        learner = accounts.create_learner("lea", PASSWORD)
        cards = [CardState("anagram:en:AEINRST", 1), CardState("anagram:en:EILNST", 2)]  # no lexicon-wide ranking
        deck, _ = study.create_deck(learner, "sevens", "en", {"kind": "words", "text": "RETAINS SILENT"}, states=cards)
        picked = study.next_card(deck)
        assert picked is not None
        study.answer(deck, picked[0], ["RETAINS"], 4.2)
        board = wall.create_wall(director, "en", {"words": "SILENT RETAINS", "seconds": 60})
        wall.join_wall(board.join_code, "Cy")
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()

    first, second = tmp_path / "from-sqlite.sqlite", tmp_path / "from-postgresql.sqlite"
    backup(first)
    url = postgres.new_database()
    restore(first, url)
    backup(second, url)
    rows = _every_row(first)
    assert all(
        rows[name]
        for name in (
            "game",
            "round",
            "submission",
            "result",
            "correction",
            "event",
            "deck_card",
            "review",
            "wall",
            "wall_player",
        )
    ), {k: len(v) for k, v in rows.items()}
    assert _every_row(second) == rows
    assert _schema(second) == _schema(first)


# ---------------------------------------------------------------- migration 0022 with data in place


def _table_of(change: Any) -> str:
    """The table an entry of alembic's compare_metadata is about."""
    first = change[0] if isinstance(change, list) else change
    if first[0].endswith("_column") or first[0].startswith("modify_"):
        return str(first[2])
    item = first[1]  # a table, or an index or a constraint of one
    return str(getattr(item, "table", item).name)


def test_the_practice_cards_migration_goes_down_and_up_with_cards_in_place(app: Any) -> None:
    """0022 (docs/rules.md §7.12), on SQLite and PostgreSQL with a club game's card and a practice round's card in
    place: down, the practice round's card goes (the deck card and the club's stay, round_id not null again); up,
    the columns are back, the models agree with the migrations, and a card with no round or two is refused."""
    import flask_migrate
    import sqlalchemy
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext
    from sqlalchemy import func, select
    from sqlalchemy.exc import IntegrityError

    from trainer.core import accounts
    from trainer.core.database import MIGRATIONS_DIR, db
    from trainer.games import practice, service
    from trainer.games.models import PracticeSession, Round
    from trainer.study.models import Deck, DeckCard, GameCard

    with app.app_context():
        director = accounts.create_director("alice", PASSWORD)
        lea = accounts.create_learner("lea", PASSWORD)
        game = service.create_game(director, {"rules": "en", "seed": 27182818284590452353, "reveal_seconds": None})
        service.start_game(game, "alice")
        service.end_game(game, "alice")
        session = practice.from_archive(lea, game.id, practice.SOLO, False)
        practice.finish(session)
        session.carded = True
        round_id = db.session.execute(select(Round.id).where(Round.game_id == game.id)).scalars().first()
        practice_round_id = session.rounds[0].id
        deck = Deck(learner_id=lea.id, name="From my games", lexicon="en", source={"kind": "games"})
        db.session.add(deck)
        db.session.flush()
        card = DeckCard(deck_id=deck.id, card_id="anagram:en:AEINRST", rank=1, state=0)
        db.session.add(card)
        db.session.flush()
        db.session.add(GameCard(deck_card_id=card.id, round_id=round_id, cause="missing"))
        db.session.add(GameCard(deck_card_id=card.id, practice_round_id=practice_round_id, cause="bingo"))
        db.session.commit()
        session_id, card_id, rounds = session.id, card.id, len(session.rounds)
        db.session.remove()

        flask_migrate.downgrade(directory=str(MIGRATIONS_DIR), revision="0021_practice")
        inspector = sqlalchemy.inspect(db.engine)
        columns = {c["name"]: c for c in inspector.get_columns("game_card")}
        assert "practice_round_id" not in columns and not columns["round_id"]["nullable"]
        assert "carded" not in {c["name"] for c in inspector.get_columns("practice_session")}
        with db.engine.connect() as conn:
            assert conn.execute(text("SELECT deck_card_id, round_id, cause FROM game_card")).all() == [
                (card_id, round_id, "missing")
            ]
            assert conn.execute(text("SELECT count(*) FROM deck_card")).scalar() == 1
            assert conn.execute(text("SELECT count(*) FROM practice_round")).scalar() == rounds

        flask_migrate.upgrade(directory=str(MIGRATIONS_DIR))
        db.session.remove()
        with db.engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": False}), db.metadata)
        ours = [d for d in diff if _table_of(d) in ("game_card", "practice_session")]  # others' are not this test's
        assert ours == [], ours  # (types not compared: SQLite reads a BigInteger key back as INTEGER)
        again = db.session.get(PracticeSession, session_id)
        assert again is not None and again.carded is False  # taken again after the way down and up: its cards are one
        db.session.add(GameCard(deck_card_id=card_id, practice_round_id=practice_round_id, cause="bingo"))
        db.session.commit()
        for wrong in ({}, {"round_id": round_id, "practice_round_id": practice_round_id}):
            db.session.add(GameCard(deck_card_id=card_id, cause="missing", **wrong))
            with pytest.raises(IntegrityError):
                db.session.commit()
            db.session.rollback()
        db.session.add(GameCard(deck_card_id=card_id, practice_round_id=practice_round_id, cause="bingo"))
        with pytest.raises(IntegrityError):  # the same card and round twice
            db.session.commit()
        db.session.rollback()
        assert db.session.execute(select(func.count(GameCard.id))).scalar() == 2
