"""The lexicons bundled with Tirage: compressed word lists and the registry that names them."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import TypedDict


class BundledLexicon(TypedDict):
    file: str
    rules: str
    edition: str
    description: str


def bundled() -> dict[str, BundledLexicon]:
    """The registry of bundled lexicons, by name."""
    registry: dict[str, BundledLexicon] = json.loads(
        resources.files(__name__).joinpath("registry.json").read_text("utf-8")
    )
    return registry


def bundled_path(name: str) -> Path:
    """Path of a bundled lexicon's compressed word list."""
    return Path(str(resources.files(__name__).joinpath(bundled()[name]["file"])))
