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


def watch_sqlite(engine: Engine) -> None:
    """Set the pragmas on every new connection of this one engine (never a global listener)."""
    if engine.dialect.name == "sqlite" and not event.contains(engine, "connect", _set_sqlite_pragmas):
        event.listen(engine, "connect", _set_sqlite_pragmas)


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


def recover_from(error: BaseException) -> None:
    """After a database error, what lets the next attempt succeed once its cause is gone.

    SQLite opens a file it may not write read-only, silently, and a pooled connection stays so: once the
    file is writable again, every write would still fail. Such connections are thrown away, and the next
    ones open the file afresh. (PostgreSQL's pool checks each connection before use by itself.)
    """
    if "readonly" in str(getattr(error, "orig", None) or error).replace("-", "").replace(" ", "").lower():
        for engine in db.engines.values():
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
