"""``tirage backup`` and ``tirage restore``: the whole database as one SQLite file, and back.

A backup is a Tirage SQLite database (its ``alembic_version`` says which schema), in rollback-journal
mode so that it is one self-contained file. From SQLite it is the online backup API's copy, made in one
read transaction, so it is one consistent state even while the server writes. From PostgreSQL every
table is read in one ``REPEATABLE READ, READ ONLY`` transaction (one snapshot) into a SQLite file whose
schema the migrations made. Either way it is written beside its final name and renamed once complete.

A restore checks the file, brings a temporary copy of it to the current schema (an older backup goes
through the same migrations a server upgrade would), then copies every row into the configured
database in one transaction, in foreign-key order: a restore that fails changes nothing.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import alembic.command
import alembic.util
import flask_migrate
from alembic.script import ScriptDirectory
from flask import Flask
from sqlalchemy import Connection, Engine, Table, create_engine, delete, func, insert, make_url, select, text
from sqlalchemy.exc import SQLAlchemyError

from .core import accounts as _accounts  # noqa: F401  (each import registers its tables in db.metadata)
from .core.database import MIGRATIONS_DIR, SQLITE_BUSY_TIMEOUT_MS, db, watch_sqlite  # the server's own SQLite set-up
from .core.paths import instance_path
from .games import models as _games  # noqa: F401
from .study import models as _study  # noqa: F401
from .wall import models as _wall  # noqa: F401

_SIDE_FILES = ("-wal", "-shm", "-journal")
BATCH_ROWS = 1000  # rows per INSERT: memory stays small whatever the size of the club's history


class BackupError(Exception):
    """A backup or restore refused or failed; the message is for the person at the keyboard."""


@dataclass(frozen=True)
class Summary:
    """What a backup holds (or a restore put in place): the schema revision and each table's rows."""

    path: Path
    revision: str
    counts: dict[str, int]
    size: int

    def describe(self) -> str:
        rows = ", ".join(f"{name} {count}" for name, count in self.counts.items() if count)
        total = sum(self.counts.values())
        return f"{total} rows in {len(self.counts)} tables" + (f" ({rows})" if rows else "")


def configured_url() -> str:
    """The database the server uses: ``$DATABASE_URL``, else the instance folder's SQLite file."""
    from .app import database_uri

    return database_uri(instance_path())


def shown_url(url: str) -> str:
    """A database URL fit to print: the password hidden."""
    return make_url(url).render_as_string(hide_password=True)


def default_path() -> Path:
    """``backups/tirage-YYYYMMDD-HHMMSSZ.sqlite`` in the instance folder (UTC, so names sort by time)."""
    return instance_path() / "backups" / f"tirage-{datetime.now(UTC):%Y%m%d-%H%M%S}Z.sqlite"


def tables() -> list[Table]:
    """Every table of the application, parents before children (the order rows can be inserted in)."""
    return list(db.metadata.sorted_tables)


def head_revision() -> str:
    head = ScriptDirectory(str(MIGRATIONS_DIR)).get_current_head()
    assert head is not None
    return head


# ------------------------------------------------------------------ backup


def backup(target: Path, url: str | None = None) -> Summary:
    """Write a consistent copy of the database at ``url`` (default: the configured one) to ``target``."""
    url = url or configured_url()
    target = target.absolute()
    backend, database = make_url(url).get_backend_name(), Path(make_url(url).database or "").resolve()
    if backend == "sqlite" and target.resolve() in {
        database,
        *(database.with_name(database.name + end) for end in _SIDE_FILES),
    }:
        raise BackupError(f"{target} is the database itself: write the backup to another file")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
        os.close(handle)  # mode 0600: a backup holds password hashes
    except FileExistsError:  # mkdir found a file where the folder should be
        raise BackupError(f"cannot write the backup to {target}: {target.parent} is not a folder") from None
    except OSError as exc:
        raise BackupError(f"cannot write the backup to {target}: {exc.strerror or exc}") from None
    partial = Path(name)
    try:
        if backend == "sqlite":
            _backup_sqlite(database, partial)
        elif backend == "postgresql":
            _backup_postgresql(url, partial)
        else:
            raise BackupError(f"cannot back up a {backend} database: Tirage uses SQLite or PostgreSQL")
        summary = describe(partial)
        os.replace(partial, target)
    except OSError as exc:
        raise BackupError(f"cannot write the backup to {target}: {exc.strerror or exc}") from None
    except (sqlite3.Error, SQLAlchemyError) as exc:
        raise BackupError(f"the backup failed: {_first_line(exc)}") from None
    finally:
        for leftover in (partial, *(partial.with_name(partial.name + end) for end in _SIDE_FILES)):
            leftover.unlink(missing_ok=True)
    return Summary(target, summary.revision, summary.counts, summary.size)


def _backup_sqlite(database: Path, out: Path) -> None:
    if not database.is_file():
        raise BackupError(f"there is no database at {database} yet: nothing to back up")
    with (
        contextlib.closing(sqlite3.connect(database, timeout=SQLITE_BUSY_TIMEOUT_MS / 1000)) as source,
        contextlib.closing(sqlite3.connect(out)) as copy,
    ):
        # Every page in one step: one read transaction, so one committed state; WAL lets the server
        # go on writing meanwhile.
        source.backup(copy)
        copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, no -wal beside it


def _backup_postgresql(url: str, out: Path) -> None:
    with _migrated(f"sqlite:///{out}") as copy:  # the schema first, so the snapshot is held briefly
        source = create_engine(url)
        try:
            with source.connect() as reading:
                reading.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
                with reading.begin():  # the first query fixes the snapshot every table is read from
                    revision = reading.execute(text("SELECT version_num FROM alembic_version")).scalar()
                    if revision != head_revision():
                        raise BackupError(
                            f"the database has schema {revision}, this Tirage writes {head_revision()}: "
                            "back up with the Tirage version the server runs"
                        )
                    with copy.begin() as writing:
                        _copy_rows(reading, writing)
        finally:
            source.dispose()
    with contextlib.closing(sqlite3.connect(out)) as finished:
        finished.execute("PRAGMA journal_mode=DELETE")


def describe(path: Path) -> Summary:
    """The revision and row counts of a backup file, after SQLite's own check of its pages."""
    with contextlib.closing(sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)) as conn:
        problems = [row[0] for row in conn.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            raise BackupError(f"{path} is damaged: {problems[0]}")
        revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()[0]
        present = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        counts = {
            t.name: conn.execute(f'SELECT count(*) FROM "{t.name}"').fetchone()[0]
            for t in tables()
            if t.name in present
        }
    return Summary(path, revision, counts, path.stat().st_size)


# ------------------------------------------------------------------ restore


def restore(source: Path, url: str | None = None, replace: bool = False) -> Summary:
    """Put the rows of the backup ``source`` into the database at ``url`` (default: the configured one).

    The database must hold no data, unless ``replace``: then its rows are deleted in the same
    transaction that copies the backup's, so it ends as the backup or, on failure, as it was.
    """
    url = url or configured_url()
    with tempfile.TemporaryDirectory(prefix="tirage-restore-") as folder:
        copy = Path(folder) / "backup.sqlite"
        try:
            shutil.copyfile(source, copy)  # the user's file is never written to, not even to upgrade it
        except OSError as exc:
            raise BackupError(f"cannot read {source}: {exc.strerror or exc}") from None
        revision = _check_backup(copy, source)
        if make_url(url).get_backend_name() == "sqlite":
            Path(make_url(url).database or "").parent.mkdir(parents=True, exist_ok=True)
        try:
            with (
                _migrated(f"sqlite:///{copy}") as backup_db,
                _migrated(url, server=True) as target,
                backup_db.connect() as reading,
                target.begin() as writing,
            ):
                held = {name: count for name, count in _count_rows(writing).items() if count}
                if held and not replace:
                    rows = ", ".join(f"{name} {count}" for name, count in held.items())
                    raise BackupError(
                        f"the database {shown_url(url)} already holds data ({rows}): restore into "
                        "an empty database, or give --replace to delete its data first"
                    )
                for table in reversed(tables()):
                    writing.execute(delete(table))
                counts = _copy_rows(reading, writing)
                if writing.dialect.name == "postgresql":
                    _reset_sequences(writing)
        except SQLAlchemyError as exc:
            raise BackupError(f"the restore failed and changed nothing: {_first_line(exc)}") from None
    return Summary(source, revision, counts, source.stat().st_size)


def _check_backup(copy: Path, shown: Path) -> str:
    """The schema revision of a backup file; a clear refusal for anything else."""
    try:
        with contextlib.closing(sqlite3.connect(copy)) as conn:
            if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise BackupError(f"{shown} is damaged (SQLite's check of its pages fails)")
            present = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "alembic_version" not in present:
                raise BackupError(f"{shown} is not a Tirage backup: it has no alembic_version table")
            versions = [row[0] for row in conn.execute("SELECT version_num FROM alembic_version")]
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{shown} is not a Tirage backup: it is not a SQLite database ({exc})") from None
    if len(versions) != 1:
        raise BackupError(f"{shown} is not a Tirage backup: its alembic_version holds {len(versions)} rows")
    known = {script.revision for script in ScriptDirectory(str(MIGRATIONS_DIR)).walk_revisions()}
    if versions[0] not in known:
        raise BackupError(
            f"{shown} has schema {versions[0]!r}, which this Tirage does not know "
            "(made by a newer version?): restore it with that version"
        )
    return str(versions[0])


def _reset_sequences(conn: Connection) -> None:
    """Rows came with their ids: each id sequence goes past the largest, or the next insert would clash."""
    for table in tables():
        if "id" in table.c:
            name = conn.dialect.identifier_preparer.format_table(table)
            conn.execute(
                text(
                    f"SELECT setval(pg_get_serial_sequence(:table, 'id'), coalesce(max(id), 0) + 1, false) FROM {name}"
                ),
                {"table": name},
            )


# ------------------------------------------------------------------ shared


@contextlib.contextmanager
def _migrated(url: str, server: bool = False) -> Iterator[Engine]:
    """An engine on ``url`` once the migrations brought it to the latest schema, as a server start does.

    ``server``: the connection settings of the server (WAL and foreign keys on SQLite), for the
    configured database; a backup file keeps SQLite's defaults.
    """
    app = Flask(__name__)
    app.config["SQLALCHEMY_DATABASE_URI"] = url
    db.init_app(app)
    migrate = flask_migrate.Migrate(app, db, directory=str(MIGRATIONS_DIR), render_as_batch=True)
    with app.app_context():
        engine = db.engine
        if server:
            watch_sqlite(engine)
        try:
            # Alembic itself, not flask_migrate.upgrade, which exits the process on an error.
            config: Any = migrate.get_config(str(MIGRATIONS_DIR))  # an Alembic Config (its stubs cannot say so yet)
            alembic.command.upgrade(config, "head")
        except alembic.util.CommandError as exc:
            engine.dispose()
            raise BackupError(f"cannot bring {shown_url(url)} to this Tirage's schema: {exc}") from None
        except BaseException:
            engine.dispose()
            raise
    try:
        yield engine
    finally:
        engine.dispose()


def _copy_rows(reading: Connection, writing: Connection) -> dict[str, int]:
    """Every row of every table, parents first, through the models' column types (UTC times, JSON)."""
    counts: dict[str, int] = {}
    for table in tables():
        result = reading.execution_options(yield_per=BATCH_ROWS).execute(
            select(table).order_by(*table.primary_key.columns)
        )
        counts[table.name] = 0
        for rows in result.partitions():
            writing.execute(insert(table), [dict(row._mapping) for row in rows])
            counts[table.name] += len(rows)
    return counts


def _count_rows(conn: Connection) -> dict[str, int]:
    return {table.name: int(conn.execute(select(func.count()).select_from(table)).scalar_one()) for table in tables()}


def _first_line(error: BaseException) -> str:
    original = getattr(error, "orig", None) or error
    return (str(original).strip().splitlines() or [type(original).__name__])[0]
