"""The code base passes ``ruff check`` (configured in pyproject.toml), as CI requires."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_check_is_clean() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_engine_passes_mypy_strict() -> None:
    """The engine is typed strictly (pyproject.toml [tool.mypy]); the rest has hints throughout."""
    result = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_engine_imports_no_web_or_database_code() -> None:
    """Dependencies point down: the engine (and the duplicate logic) stand without Flask or SQLAlchemy."""
    code = (
        "import sys, importlib, pkgutil, trainer.engine\n"
        "for m in pkgutil.walk_packages(trainer.engine.__path__, 'trainer.engine.'): importlib.import_module(m.name)\n"
        "web = ('flask', 'sqlalchemy', 'flask_sqlalchemy', 'werkzeug')\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in web)\n"
        "print(','.join(bad))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "", f"the engine imports {result.stdout.strip()}"
