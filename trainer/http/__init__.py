"""What every transport shares (the JSON API, the pages, the event-loop fast path): reading requests
(JSON bodies, ids, bearer tokens, the session's room tokens, the language), limits on bodies and on
guessing and flooding, the answers to refusals and database outages, the security headers, and the
Server-Sent Events framing.

A transport (:mod:`trainer.api`, :mod:`trainer.web`, :mod:`trainer.live`) imports this package, the
services and :mod:`trainer.core`, never another transport. A refusal's HTTP status is decided here,
once (:func:`trainer.http.errors.status_of`).
"""

from __future__ import annotations

from flask import Flask

from . import body, errors, headers, ids, language
from .csrf import csrf


def init_app(app: Flask) -> None:
    """What the transports need before their blueprints are registered (the ``id`` URL converter first:
    rules are compiled when they are added). Rate limits wrap views, so they come after the blueprints:
    :func:`trainer.http.ratelimit.init_app`."""
    ids.init_app(app)
    body.init_app(app)  # before anything reads a form (the CSRF check does): its limits apply to that read
    language.init_app(app)
    csrf.init_app(app)
    errors.init_app(app)
    headers.init_app(app)
