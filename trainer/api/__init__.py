"""The JSON API of duplicate games under ``/api``, described at ``/api/openapi.json``.

Directors create and run games with a bearer token from ``/api/auth/token``; players join with a
game's code and submit with their own token; displays read the state, the results and the event
stream without a token (nothing secret is in them before a round closes).
"""

from __future__ import annotations

from flask import Flask

from ..http.csrf import csrf
from . import archives as archives
from . import competitions as competitions
from . import events as events
from . import games as games
from . import me as me
from . import openapi as openapi
from . import practice as practice
from . import topping as topping
from .common import bp


def init_app(app: Flask) -> None:
    """Register the API; it authenticates with bearer tokens, never with cookies, so forms' CSRF checks skip it."""
    csrf.exempt(bp)
    app.register_blueprint(bp)
