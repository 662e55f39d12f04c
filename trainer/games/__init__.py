"""Duplicate games on the server: their rows, the service that runs their rounds on the server's clock,
the deadline scheduler, what clients may see of them, and the wake-ups of event streams.

The rules of the game (draws, the round lifecycle, tie-break, results, modes, settings) are pure and
live in :mod:`trainer.duplicate`; this package loads a game's state, asks those rules, and stores
what they return.
"""

from __future__ import annotations

from flask import Flask

from . import models as models  # registers the tables before the migrations run


def init_app(app: Flask) -> None:
    """A worker process for rounds' openings when ``TIRAGE_ANALYSIS_PROCESS`` is set, the watch on commits that
    wakes event streams, and the round scheduler in this process when ``TIRAGE_SCHEDULER`` is set."""
    from . import analyst, notify, scheduler

    analyst.init_app(app)
    notify.init_app(app)
    scheduler.init_app(app, start=bool(app.config.get("TIRAGE_SCHEDULER")))
