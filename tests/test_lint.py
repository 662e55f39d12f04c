"""The code base passes ``ruff check``, ``ruff format --check`` and strict mypy (configured in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_check_is_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_base_is_formatted() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_package_passes_mypy_strict() -> None:
    """trainer (services, transports and migrations included), drills and wordlists (pyproject.toml [tool.mypy])."""
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_pure_packages_import_no_web_or_database_code() -> None:
    """Dependencies point down: the engine, the duplicate rules and the drills stand without Flask or SQLAlchemy
    (imported for real, as a check beside tests/test_layers.py's reading of the source)."""
    code = (
        "import sys, importlib, pkgutil, trainer.engine, trainer.duplicate, drills\n"
        "for p in (trainer.engine, trainer.duplicate, drills):\n"
        "    for m in pkgutil.walk_packages(p.__path__, p.__name__ + '.'): importlib.import_module(m.name)\n"
        "web = ('flask', 'sqlalchemy', 'flask_sqlalchemy', 'werkzeug')\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in web)\n"
        "print(','.join(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"the pure packages import {result.stdout.strip()}"
