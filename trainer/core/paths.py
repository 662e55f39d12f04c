"""Where Tirage keeps its data: the instance folder (database, secret key, imported lexicons, graph cache).

Three places, first match wins (``tirage serve`` prints which, and why):

* ``$TIRAGE_INSTANCE`` when set (a deployment names its folder);
* ``instance/`` of the source checkout the code runs from (a clone, or an editable install of one), so that
  two clones under one account never share a database, a secret key or a word-graph cache;
* else, Tirage being installed (a wheel in site-packages), the user's data folder ``~/.local/share/tirage``.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

PROJECT_NAME = "tirage"
# This file is trainer/core/paths.py: the checkout, if it is one, is the folder above the package.
SOURCE_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class InstanceFolder:
    """The instance folder and why it is this one."""

    path: Path
    reason: str  # "TIRAGE_INSTANCE", "checkout" or "installed"

    def describe(self) -> str:
        """Why, in the words ``tirage serve`` prints after the folder."""
        return {
            "TIRAGE_INSTANCE": "set by TIRAGE_INSTANCE",
            "checkout": "this source checkout's",
            "installed": "Tirage is installed: the user's data folder",
        }[self.reason]


def is_checkout(root: Path) -> bool:
    """Whether ``root`` is a source checkout of Tirage: its ``pyproject.toml`` names this project (a
    ``site-packages`` folder, where a wheel puts the package, has none)."""
    try:
        with (root / "pyproject.toml").open("rb") as file:
            project = tomllib.load(file).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return isinstance(project, dict) and project.get("name") == PROJECT_NAME


def locate_instance(source_root: Path = SOURCE_ROOT, home: Path | None = None) -> InstanceFolder:
    """The instance folder for code found under ``source_root``, with the reason (see the module's docstring)."""
    configured = os.environ.get("TIRAGE_INSTANCE")
    if configured:
        return InstanceFolder(Path(configured).resolve(), "TIRAGE_INSTANCE")
    if is_checkout(source_root):
        return InstanceFolder(source_root / "instance", "checkout")
    return InstanceFolder((home or Path.home()) / ".local" / "share" / "tirage", "installed")


def instance_path() -> Path:
    """The instance folder of this process."""
    return locate_instance().path
