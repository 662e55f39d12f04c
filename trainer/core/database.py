"""The database every service stores its rows in (Flask-SQLAlchemy), and its migrations (Flask-Migrate).

Created unbound here and bound to an application by :func:`init_app`, so that tests can build as many
applications as they like, each with its own instance folder and database. Models derive from
:data:`Model`.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import flask_migrate
from flask import Flask
from flask_sqlalchemy import SQLAlchemy
from sqlalchemy import Column, DateTime, Dialect, Engine, Integer, MetaData, Table, TypeDecorator, event, text
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.orm import DeclarativeBase, registry
from sqlalchemy.pool import ConnectionPoolEntry

from . import group_commit

# Named constraints let Alembic alter SQLite tables later (batch mode needs names to drop them).
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

SQLITE_BUSY_TIMEOUT_MS = 5000


class UTCDateTime(TypeDecorator[datetime]):
    """Datetimes stored as UTC and always read back timezone-aware (SQLite keeps no zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: use timezone-aware UTC datetimes")
        return value.astimezone(UTC).replace(tzinfo=None) if dialect.name == "sqlite" else value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    """Base class of every model (SQLAlchemy 2 typed declarative style)."""

    registry = registry(
        metadata=MetaData(naming_convention=NAMING_CONVENTION), type_annotation_map={datetime: UTCDateTime}
    )


db = SQLAlchemy(model_class=Base)
migrate = flask_migrate.Migrate()
MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"

# One row, written by each health check: a write that commits is the only proof the database takes writes.
health_check = Table(
    "health_check",
    Base.metadata,
    Column("id", Integer, primary_key=True),
    Column("checked_at", UTCDateTime(), nullable=False),
)

if TYPE_CHECKING:  # what db.Model is at run time: Base with Flask-SQLAlchemy's mixins
    Model = Base
else:
    Model = db.Model


def _set_sqlite_pragmas(dbapi_connection: Any, _connection_record: Any) -> None:
    """WAL lets readers (projector, phones) go on while a writer commits; SQLite leaves foreign keys off by default."""
    if not isinstance(dbapi_connection, sqlite3.Connection):
        return
    cursor = dbapi_connection.cursor()
    try:
        # First: switching a new file to WAL needs it to itself, so a process starting beside another waits.
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode=WAL")
        # Commits write the log without syncing it; trainer.core.group_commit syncs it, once for every
        # commit waiting, before any of them returns (as durable as FULL, without one fsync each).
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()


class _PooledFile:
    """The pooled connections to one SQLite file, renewed all together after the file could not be written.

    SQLite opens a file it may not write (a read-only mount, an immutable file) read-only, silently. Worse, the
    connections of one process to one file share one index of the log in shared memory, opened by the first
    connection that needs it, read-only if that one could not write; it stays so, refusing every connection's
    writes even once the file is writable again, until every connection to the file in the process has closed
    (a server under traffic kept answering 503 for minutes). So:

    * a connection opened while the file cannot be written is closed when handed back: reads go on during an
      outage, and no such connection stays in the pool;
    * a write error moves the generation on (:func:`recover_from`): the pool's idle connections close at once,
      the others when handed back, and a new connection waits (:data:`RENEW_WAIT_SECONDS` at most) until no
      older one is open, so that it opens the file and its index afresh.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.generation = 0
        self._renewed = 0  # the generation whose new connections waited for the older ones to close
        self._lock = threading.Lock()
        self._open: dict[int, tuple[ConnectionPoolEntry, int]] = {}  # id of the entry: (entry, its generation)

    def connecting(self, _dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        """First of the connection's set-up, before anything reads the file (and opens its index)."""
        generation = self.generation
        if self._renewed < generation:  # the first connections after a write error: wait once, not each
            limit = time.monotonic() + RENEW_WAIT_SECONDS
            while self._older_open() and time.monotonic() < limit:
                time.sleep(0.005)  # a request's time: they close as they are handed back
            self._renewed = max(self._renewed, generation)
        with self._lock:
            self._open[id(record)] = (record, generation)
        record.info[_GENERATION] = generation  # older than the current one if a write failed meanwhile
        record.info[_READ_ONLY] = not os.access(self.path, os.W_OK)  # a read-only mount, an immutable file

    def _older_open(self) -> bool:
        with self._lock:
            for key, (record, generation) in list(self._open.items()):
                if record.dbapi_connection is None:  # closed without a close event (a failed set-up)
                    del self._open[key]
                elif generation < self.generation:
                    return True
            return False

    def closing(self, _dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        with self._lock:
            self._open.pop(id(record), None)

    def handed_back(self, dbapi_connection: Any, record: ConnectionPoolEntry) -> None:
        if dbapi_connection is not None and (
            record.info.get(_READ_ONLY) or record.info.get(_GENERATION) != self.generation
        ):
            record.invalidate()  # closed now; the pool opens a new one when it needs one

    def renew(self) -> None:
        with self._lock:
            self.generation += 1


RENEW_WAIT_SECONDS = 2.0  # the longest a new connection waits for older ones to close (a stuck request)
_GENERATION = "tirage.generation"
_READ_ONLY = "tirage.read_only"
_pooled_files: weakref.WeakKeyDictionary[Engine, _PooledFile] = weakref.WeakKeyDictionary()


def watch_sqlite(engine: Engine) -> None:
    """Set the pragmas on every new connection of this one engine (never a global listener), and let no
    connection that cannot write stay in its pool (:class:`_PooledFile`)."""
    if engine.dialect.name != "sqlite":
        return
    if not event.contains(engine, "connect", _set_sqlite_pragmas):
        event.listen(engine, "connect", _set_sqlite_pragmas)
    path = engine.url.database
    if path and path != ":memory:" and not path.startswith("file:") and engine not in _pooled_files:
        pooled = _pooled_files[engine] = _PooledFile(path)
        event.listen(engine, "connect", pooled.connecting, insert=True)  # before the pragmas read the file
        event.listen(engine, "close", pooled.closing)
        event.listen(engine, "checkin", pooled.handed_back)


def init_app(app: Flask) -> None:
    """Bind the database to ``app`` and bring it to the latest schema."""
    db.init_app(app)
    migrate.init_app(app, db, directory=str(MIGRATIONS_DIR), render_as_batch=True)
    with app.app_context():
        for engine in db.engines.values():
            watch_sqlite(engine)
            private_sqlite_file(engine)
        # Brings the database (SQLite file or PostgreSQL) to the latest schema; a club's data
        # survives upgrades. Connects once, so the SQLite file exists (in WAL mode) from the start.
        with migration_lock(db.engine):
            flask_migrate.upgrade(directory=str(MIGRATIONS_DIR))
        engine = db.engine
        if engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:"):
            group_commit.install(app, db.session.session_factory.class_, str(engine.url.database))


# pg_advisory_lock's key for "migrations": any fixed 64-bit number no other program on the database uses.
MIGRATION_LOCK_KEY = 0x7469726167650001  # "tirage" and 1
MIGRATION_LOCK_SUFFIX = "-migrations.lock"  # beside the SQLite file: instance/tirage.sqlite-migrations.lock
log = logging.getLogger(__name__)


@contextlib.contextmanager
def migration_lock(engine: Engine) -> Iterator[None]:
    """Hold the database's migration lock: one process at a time brings the schema up, the next finds it done.

    ``tirage serve`` and ``tirage director create`` started together on a new database both created the
    tables, and one failed ("table alembic_version already exists"). On PostgreSQL the lock is a session
    advisory lock (other programs' transactions are not blocked); on SQLite an ``flock`` of a file beside the
    database. Either is released when its process ends, even killed.
    """
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            key = {"key": MIGRATION_LOCK_KEY}
            if not connection.execute(text("SELECT pg_try_advisory_lock(:key)"), key).scalar():
                log.info("waiting for another process to finish the database's migrations")
                connection.execute(text("SELECT pg_advisory_lock(:key)"), key)
            connection.commit()  # the lock belongs to the session: no transaction left open while it is held
            try:
                yield
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), key)
                connection.commit()
        return
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    if not database or database == ":memory:" or database.startswith("file:"):
        yield  # a database only this process sees
        return
    with _locked_file(database + MIGRATION_LOCK_SUFFIX):
        yield


@contextlib.contextmanager
def _locked_file(path: str) -> Iterator[None]:
    """An exclusive ``flock`` of ``path`` (made if missing). A folder no one may write in (a read-only mount)
    holds no lock file, and no process can migrate a database there: go on without one."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        try:
            fd = os.open(path, os.O_RDONLY)  # flock works on a file opened for reading
        except OSError:
            yield
            return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.info("waiting for another process to finish the database's migrations")
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def private_sqlite_file(engine: Engine) -> None:
    """The SQLite file readable by its owner only (it holds password hashes and players' tokens' hashes): made so
    before SQLite creates it, and mended when an older server left it readable by others. SQLite gives its
    ``-wal`` and ``-shm`` files the database file's mode."""
    path = engine.url.database if engine.dialect.name == "sqlite" else None
    if not path or path == ":memory:" or path.startswith("file:"):
        return
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))  # an empty file is a new database
    for name in (path, f"{path}-wal", f"{path}-shm"):
        with contextlib.suppress(FileNotFoundError, PermissionError):  # another user's file we may only read
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, 0o600)


def table_of(model: type[Base]) -> Table:
    """The table of a model, for Core statements (a room's plays are inserted as rows, not ORM objects)."""
    table = model.__table__
    assert isinstance(table, Table)
    return table


# What the DBAPI raises for a refused or lost connection: the request did not complete, it may be retried.
DATABASE_DOWN = (OperationalError, InterfaceError)


# SQLite's primary result codes of a file it could not write: READONLY, IOERR, CANTOPEN.
_FILE_NOT_WRITTEN = {8, 10, 14}


def cannot_write(error: BaseException) -> bool:
    """Whether ``error`` says the database's file (or a PostgreSQL server in recovery) takes no write."""
    cause = getattr(error, "orig", None) or error
    code = getattr(cause, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in _FILE_NOT_WRITTEN:
        return True
    return "readonly" in str(cause).replace("-", "").replace(" ", "").lower()


def recover_from(error: BaseException) -> None:
    """After a database error, what lets the next attempt succeed once its cause is gone.

    A SQLite file that could not be written (a read-only mount, an immutable file) leaves connections that
    cannot write even once it can: every connection open now is closed, the idle ones at once and the others
    when handed back (:class:`_PooledFile`), so that the next ones open the file afresh. (PostgreSQL's pool
    checks each connection before use by itself.)
    """
    if not cannot_write(error):
        return
    for engine in db.engines.values():
        pooled = _pooled_files.get(engine)
        if pooled is not None:
            pooled.renew()
        engine.dispose()


def writable() -> str | None:
    """None when a write to the database commits now; else why not, in one line (for the health check)."""
    try:
        with db.engine.begin() as connection:
            connection.execute(health_check.delete())
            connection.execute(health_check.insert().values(checked_at=datetime.now(UTC)))
    except (OperationalError, InterfaceError, DBAPIError) as error:
        recover_from(error)
        return database_error_summary(error)
    return None


def database_error_summary(error: Exception) -> str:
    """The driver's message without the SQL and the link SQLAlchemy appends: one line per log entry."""
    lines = str(getattr(error, "orig", None) or error).strip().splitlines()
    return lines[0] if lines else type(error).__name__
