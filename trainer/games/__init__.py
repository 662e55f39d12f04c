"""Duplicate games on the server: database rows, the round lifecycle service, the deadline scheduler.

The pure rules of the game (draws, tie-break, results) are in :mod:`trainer.duplicate`; this
package stores games and runs their rounds on the server's clock.
"""

from __future__ import annotations

from flask import Flask

from . import models as models  # registers the tables before the migrations run


def init_app(app: Flask) -> None:
    """Start the round scheduler in this process when ``TIRAGE_SCHEDULER`` is set."""
    from . import scheduler

    scheduler.init_app(app, start=bool(app.config.get("TIRAGE_SCHEDULER")))
