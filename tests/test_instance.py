"""The instance folder and the database's first start, with real processes (issue 26, items 8 and 9).

* Which folder: a source checkout keeps its data in its own ``instance/`` (README, "Run the server"); an
  installed package in the user's data folder; ``TIRAGE_INSTANCE`` wins over both; ``tirage serve`` says
  which and why (docs/deployment.md, "The instance folder").
* Two commands started at once on a new instance both bring the schema up, one after the other, under a
  lock (docs/deployment.md, "Upgrading").
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres import Server as PostgresServer
from tests.processes import WAIT, TirageServer, free_port, tirage_command, wait_until
from trainer.core.paths import SOURCE_ROOT, locate_instance
from trainer.engine.lexicon import Lexicon, LexiconStore

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "correct horse"


def _environment(home: Path, **extra: str) -> dict[str, str]:
    """This environment without anything that names a data folder or a database, and a HOME of the test's own."""
    env = {**os.environ, "HOME": str(home), "PYTHONUNBUFFERED": "1", **extra}
    for name in ("TIRAGE_INSTANCE", "DATABASE_URL", "REDIS_URL", "TIRAGE_SECRET_KEY", "XDG_DATA_HOME"):
        if name not in extra:
            env.pop(name, None)
    return env


# ---------------------------------------------------------------- item 8: which instance folder


def test_a_fresh_clone_keeps_its_data_in_its_own_instance_folder(
    tmp_path: Path, lexicon_store: LexiconStore, en_lexicon: Lexicon
) -> None:
    """Since the package moved into ``core/``, the checkout was looked for one folder too deep: every clone used
    ``~/.local/share/tirage``, so two clones shared one database and secret key. A clone of this repository, its
    own code imported (``python -m trainer.cli`` from the clone's folder), with no ``TIRAGE_INSTANCE`` and a
    HOME of its own, writes its database and secret key in the clone's ``instance/``, and says so."""
    clone = tmp_path / "clone"
    cloned = subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], capture_output=True, text=True)
    assert cloned.returncode == 0, cloned.stderr
    home = tmp_path / "home"
    home.mkdir()
    env = _environment(home)
    which = subprocess.run(
        [sys.executable, "-c", "import trainer; print(trainer.__file__)"], cwd=clone, env=env, capture_output=True,
        text=True,
    )  # fmt: skip
    assert Path(which.stdout.strip()) == clone / "trainer" / "__init__.py", which.stdout + which.stderr
    # The graphs of the bundled lexicons, so that the server builds none (it would, in the background).
    shutil.copytree(lexicon_store.cache_dir, clone / "instance" / "cache")

    created = subprocess.run(
        [sys.executable, "-m", "trainer.cli", "director", "create", "dana", "--password", PASSWORD],
        cwd=clone, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert created.returncode == 0, created.stdout + created.stderr
    assert (clone / "instance" / "tirage.sqlite").is_file() and (clone / "instance" / "secret_key").is_file()
    assert not (home / ".local").exists(), "the clone wrote in the user's data folder"

    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            [sys.executable, "-m", "trainer.cli", "serve", "--port", str(port)],
            cwd=clone, env=env, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        line = f"instance folder {clone / 'instance'}, this source checkout's"
        wait_until(lambda: line in log.read_text(), "tirage serve to say its instance folder", WAIT, log.read_text)
    finally:
        server.terminate()
        server.wait(timeout=WAIT)
    assert not (home / ".local").exists(), log.read_text()


def test_an_installed_package_uses_the_users_data_folder_and_tirage_instance_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a wheel puts the package (``site-packages``, no ``pyproject.toml`` of Tirage above it) the data goes to
    the user's data folder; a ``pyproject.toml`` of another project does not make a checkout."""
    monkeypatch.delenv("TIRAGE_INSTANCE", raising=False)
    site_packages = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    site_packages.mkdir(parents=True)
    home = tmp_path / "home"
    installed = locate_instance(site_packages, home)
    assert (installed.path, installed.reason) == (home / ".local" / "share" / "tirage", "installed")
    (site_packages / "pyproject.toml").write_text('[project]\nname = "another"\n')
    assert locate_instance(site_packages, home).reason == "installed"
    assert locate_instance(SOURCE_ROOT, home) == locate_instance(ROOT, home)
    assert locate_instance(ROOT, home).path == ROOT / "instance"  # this checkout, as the tests run it
    monkeypatch.setenv("TIRAGE_INSTANCE", str(tmp_path / "chosen"))
    chosen = locate_instance(ROOT, home)
    assert (chosen.path, chosen.describe()) == (tmp_path / "chosen", "set by TIRAGE_INSTANCE")


# ---------------------------------------------------------------- item 9: migrations under a lock


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_database(request: pytest.FixtureRequest) -> Iterator[str]:
    """A database with no table yet, as a club's first start finds it: the instance folder's SQLite file ("") or
    a new PostgreSQL database (not the migrated template the ``app`` fixture copies)."""
    if request.param == "sqlite":
        yield ""
        return
    server: PostgresServer = request.getfixturevalue("postgres")
    url = server.new_database()
    yield url
    server.drop_database(url)


def test_serve_and_director_create_started_together_on_a_new_instance_both_work(
    tmp_path: Path, lexicon_store: LexiconStore, en_lexicon: Lexicon, empty_database: str
) -> None:
    """``tirage serve`` and ``tirage director create`` started at once on a new instance both ran the migrations:
    "table alembic_version already exists", and the server exited. Now each waits for the other's migrations
    (a file lock beside the SQLite file, an advisory lock on PostgreSQL) and finds the schema made. Two
    ``director create`` beside the server make the race certain without the lock."""
    server = TirageServer(tmp_path, lexicon_store.cache_dir, env_extra={"DATABASE_URL": empty_database or None})
    directors = [
        subprocess.Popen(
            [*tirage_command(), "director", "create", name, "--password", PASSWORD],
            cwd=tmp_path,
            env=server.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for name in ("alice", "bob")
    ]
    try:
        server.start()  # fails with its log if it exits
        for director in directors:
            output, _ = director.communicate(timeout=WAIT)
            assert director.returncode == 0, output.decode(errors="replace")
        for name in ("alice", "bob"):
            server.ok("POST", "/api/auth/token", {"username": name, "password": PASSWORD})
    finally:
        for director in directors:
            if director.poll() is None:
                director.kill()
                director.communicate()
        server.stop()
