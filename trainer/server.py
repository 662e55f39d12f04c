"""The production server: the Flask application (pages and API) behind the event loop's fast paths.

:mod:`trainer.live` answers what a whole room asks at once (event streams, plays, reveals, the phone
fragment) and hands everything else to the Flask application; the phone fragment is rendered by the
pages' own renderer (:class:`trainer.web.phone.PhoneFragments`), wired in here. ``tirage serve`` runs
this under uvicorn.
"""

from __future__ import annotations

import os

from flask import Flask

from .app import create_app
from .live.asgi import DEFAULT_THREADS, TirageASGI
from .web.phone import PhoneFragments


def serving_app(app: Flask, threads: int = DEFAULT_THREADS) -> TirageASGI:
    """The ASGI application of one web process serving ``app``."""
    return TirageASGI(app, PhoneFragments(app), threads)


def from_environment() -> TirageASGI:
    """The application of one uvicorn worker (``tirage serve --workers N`` imports it by name)."""
    scheduler = os.environ.get("TIRAGE_SERVE_SCHEDULER") == "1"
    threads = int(os.environ.get("TIRAGE_SERVE_THREADS", DEFAULT_THREADS))
    lan = os.environ.get("TIRAGE_SERVE_LAN") == "1"  # listening on every address (`--lan`)
    config = {"TIRAGE_SCHEDULER": scheduler, "TIRAGE_ANALYSIS_PROCESS": True, "TIRAGE_LAN": lan}
    return serving_app(create_app(config), threads)
