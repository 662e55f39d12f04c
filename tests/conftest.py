"""Shared fixtures. Lexicon graphs are built once per test session in a temporary data folder."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon, LexiconStore
from trainer.engine.rules import Ruleset, ruleset

if TYPE_CHECKING:
    from trainer.live.asgi import TirageASGI

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def lexicon_store(tmp_path_factory: pytest.TempPathFactory) -> LexiconStore:
    return LexiconStore(tmp_path_factory.mktemp("tirage-data"))


@pytest.fixture(scope="session")
def en_rules() -> Ruleset:
    return ruleset("en")


@pytest.fixture(scope="session")
def fr_rules() -> Ruleset:
    return ruleset("fr")


@pytest.fixture(scope="session")
def en_lexicon(lexicon_store: LexiconStore) -> Lexicon:
    return lexicon_store.load("en")


@pytest.fixture(scope="session")
def fr_lexicon(lexicon_store: LexiconStore) -> Lexicon:
    return lexicon_store.load("fr")


@pytest.fixture
def empty_board(en_rules: Ruleset) -> Board:
    return Board.empty(en_rules)


# Web application fixtures (flaskr style). Each test gets a fresh application on a temporary instance
# folder, so tests never read or write the checkout's instance/ (database, secret key, lexicon cache).
import os  # noqa: E402
import shutil  # noqa: E402
from collections.abc import Iterator  # noqa: E402

from flask import Flask  # noqa: E402
from flask.testing import FlaskClient, FlaskCliRunner  # noqa: E402

from tests.postgres import Server  # noqa: E402


@pytest.fixture(scope="session")
def postgres() -> Iterator[Server]:
    """A real PostgreSQL server for the whole session (started on first use)."""
    server = Server()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database brought to the latest schema once per session; each ``app`` starts from a copy of it
    (running the 22 migrations took about 90 % of a fresh application's start)."""
    from trainer.app import DATABASE_FILE, create_app
    from trainer.core.database import db

    instance = tmp_path_factory.mktemp("migrated-sqlite")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIRAGE_INSTANCE", str(instance))
        patch.delenv("DATABASE_URL", raising=False)
        patch.delenv("TIRAGE_SECRET_KEY", raising=False)
        application = create_app({"TESTING": True})
        with application.app_context():
            db.session.remove()
            for engine in db.engines.values():
                engine.dispose()  # the last connection's close checkpoints the WAL into the file
    database = instance / DATABASE_FILE
    assert (
        not database.with_name(DATABASE_FILE + "-wal").exists()
        or not database.with_name(DATABASE_FILE + "-wal").stat().st_size
    ), "the template's WAL was not checkpointed"
    return database


@pytest.fixture(scope="session")
def postgres_template(postgres: Server) -> str:
    """A PostgreSQL database brought to the latest schema once per session, the template of every test's own."""
    from trainer.app import create_app
    from trainer.core.database import db

    url = postgres.new_database(name="tirage_template")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIRAGE_INSTANCE", str(postgres.folder / "template-instance"))
        patch.setenv("DATABASE_URL", url)
        patch.delenv("TIRAGE_SECRET_KEY", raising=False)
        application = create_app({"TESTING": True})
        with application.app_context():
            db.session.remove()
            for engine in db.engines.values():
                engine.dispose()  # CREATE DATABASE ... TEMPLATE needs the template without connections
    return "tirage_template"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Each database test runs on SQLite (the default) and on PostgreSQL (``DATABASE_URL``), each on a database
    already migrated (a copy of the session's template), dropped at the end."""
    if request.param == "sqlite":
        yield ""
        return
    server: Server = request.getfixturevalue("postgres")
    template: str = request.getfixturevalue("postgres_template")
    url = server.new_database(template=template)
    yield url
    server.drop_database(url)


def _link_or_copy(source: str, destination: str) -> None:
    try:
        os.link(source, destination)
    except OSError:  # another file system
        shutil.copy2(source, destination)


@pytest.fixture
def app(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    lexicon_store: LexiconStore,
    en_lexicon: Lexicon,
    fr_lexicon: Lexicon,
    database_url: str,
) -> Iterator[Flask]:
    """A fresh application on a temporary instance folder, its lexicon cache copied from the session's
    (built once per session by the lexicon fixtures, so no test waits for a graph build)."""
    from trainer.app import create_app
    from trainer.core.database import db

    instance = tmp_path / "instance"
    if lexicon_store.cache_dir.is_dir():
        # Hard links, not copies (15 MB a test): the store only ever replaces a cache file by renaming a new one
        # over it, so no test can change the session's files through its links.
        shutil.copytree(lexicon_store.cache_dir, instance / "cache", copy_function=_link_or_copy)
    if not database_url:
        template: Path = request.getfixturevalue("migrated_sqlite")
        shutil.copy2(template, instance / template.name)  # keeps its owner-only mode
    monkeypatch.setenv("TIRAGE_INSTANCE", str(instance))
    if database_url:
        monkeypatch.setenv("DATABASE_URL", database_url)
    else:
        monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("TIRAGE_SECRET_KEY", raising=False)
    application = create_app({"TESTING": True})
    yield application
    with application.app_context():
        db.session.remove()
        for engine in db.engines.values():
            engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


@pytest.fixture
def served(app: Flask) -> Iterator[TirageASGI]:
    """The ASGI application of ``tirage serve`` on ``app``, called in-process, with its play writer running."""
    from trainer.server import serving_app  # imported late, as the application is (see ``app``)

    asgi = serving_app(app, threads=4)
    asgi.desk.start()
    try:
        yield asgi
    finally:
        asgi.desk.stop()
