"""Where Tirage keeps its data: the instance folder (database, imported lexicons, graph cache)."""

from __future__ import annotations

import os
from pathlib import Path

_PROJECT_ROOT = Path(__file__).resolve().parent.parent


def instance_path() -> Path:
    """``$TIRAGE_INSTANCE`` if set; else ``instance/`` of a source checkout; else a user folder."""
    configured = os.environ.get("TIRAGE_INSTANCE")
    if configured:
        return Path(configured).resolve()
    if (_PROJECT_ROOT / "pyproject.toml").exists():
        return _PROJECT_ROOT / "instance"
    return Path.home() / ".local" / "share" / "tirage"
