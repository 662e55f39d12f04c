"""The application's lexicon store: each word graph is loaded once per process, not per request."""

from __future__ import annotations

from pathlib import Path

from flask import Flask, current_app

from ..engine.lexicon import LexiconStore

_KEY = "tirage.lexicon_store"


def init_app(app: Flask) -> None:
    """A store on the instance folder (imported lists and the graph cache live there)."""
    app.extensions[_KEY] = LexiconStore(Path(app.instance_path))


def lexicon_store(app: Flask | None = None) -> LexiconStore:
    """The store of ``app`` (default: the current application)."""
    store: LexiconStore = (app or current_app).extensions[_KEY]
    return store
