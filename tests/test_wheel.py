"""``pip install .`` gives a working server: the wheel carries every source file, template and data file, and
a fresh virtual environment with only that wheel installed serves the join page and the projector page.

The wheel is built as pip builds it for a user (an isolated build from pyproject.toml) and installed with
its dependencies from the package index, as README.md tells a user to; the server runs from the new
environment with its working directory outside the checkout, so nothing of the source tree is used.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import free_port, wait_until

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "wheel-password"
NOT_SOURCE = (".git", ".venv", "node_modules", "build", "instance", "__pycache__", "*.egg-info", ".mypy_cache")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of the source tree (setuptools builds in the tree it is given)."""
    out = tmp_path_factory.mktemp("wheel")
    source = tmp_path_factory.mktemp("source") / "tirage"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*NOT_SOURCE))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), str(source)],
        check=True,
        capture_output=True,
        text=True,
    )
    (built,) = out.glob("tirage-*.whl")
    return built


def _source_files() -> Iterator[tuple[Path, str]]:
    """Every file of the source tree a server needs, with its path inside the wheel."""
    for package in ("trainer", "drills", "wordlists"):
        for path in (ROOT / package).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix not in (".po", ".pyc"):
                if path.is_relative_to(ROOT / "wordlists" / "sources"):
                    continue  # the scripts that made the bundled lists: tools, not the server
                yield path, path.relative_to(ROOT).as_posix()
    for path in (ROOT / "templates").rglob("*.html"):
        yield path, "trainer/templates/" + path.relative_to(ROOT / "templates").as_posix()


def test_the_wheel_holds_every_source_template_and_data_file(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    missing = sorted(inside for _path, inside in _source_files() if inside not in names)
    assert not missing, f"the wheel lacks {missing[:20]}"
    assert any(name.startswith("trainer/templates/play/") for name in names)


def _fetch(opener: urllib.request.OpenerDirector, url: str, data: dict[str, str] | bytes | None = None,
           headers: dict[str, str] | None = None) -> tuple[int, str]:  # fmt: skip
    body = urllib.parse.urlencode(data).encode() if isinstance(data, dict) else data
    request = urllib.request.Request(url, data=body, headers=headers or {})
    with opener.open(request, timeout=30) as answer:
        return answer.status, answer.read().decode()


def test_a_wheel_installed_in_a_fresh_environment_serves_the_pages(wheel: Path, tmp_path: Path) -> None:
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=True)
    python = environment / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", str(wheel)], capture_output=True, text=True, timeout=900
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import trainer; print(trainer.__file__)"], cwd=elsewhere, capture_output=True, text=True
    )
    assert str(environment) in where.stdout, where.stdout + where.stderr  # the wheel's code, not the checkout's
    env = {**os.environ, "TIRAGE_INSTANCE": str(tmp_path / "instance")}
    for name in ("DATABASE_URL", "REDIS_URL", "TIRAGE_SECRET_KEY"):
        env.pop(name, None)
    tirage = str(environment / "bin" / "tirage")
    created = subprocess.run(
        [tirage, "director", "create", "wheel", "--password", PASSWORD],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert created.returncode == 0, created.stdout + created.stderr
    port = free_port()
    log = (tmp_path / "serve.log").open("w+")
    server = subprocess.Popen(
        [tirage, "serve", "--port", str(port)], cwd=elsewhere, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    try:

        def up() -> bool:
            try:
                return _fetch(opener, f"{base}/healthz")[0] == 200
            except OSError:
                return False

        wait_until(up, "the wheel's server", 60, lambda: (tmp_path / "serve.log").read_text())
        status, join = _fetch(opener, f"{base}/join")
        assert status == 200 and 'name="code"' in join and 'name="name"' in join
        status, login = _fetch(opener, f"{base}/director/login")
        token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', login)
        assert status == 200 and token is not None, login
        _fetch(opener, f"{base}/director/login", {"csrf_token": token[1], "username": "wheel", "password": PASSWORD})
        status, answer = _fetch(
            opener,
            f"{base}/api/auth/token",
            json.dumps({"username": "wheel", "password": PASSWORD}).encode(),
            {"Content-Type": "application/json"},
        )
        bearer = json.loads(answer)["token"]
        status, answer = _fetch(
            opener,
            f"{base}/api/games",
            b"{}",
            {"Content-Type": "application/json", "Authorization": f"Bearer {bearer}"},
        )
        game = json.loads(answer)
        status, projector = _fetch(opener, f"{base}/games/{game['id']}/projector")
        assert status == 200 and game["join_code"] in projector and "qr.svg" in projector
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
