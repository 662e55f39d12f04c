"""Bearer tokens (``Authorization: Bearer ...``): a director's signed token or a player's random token.

The same parsing serves the Flask views (:func:`bearer`) and the event loop's fast path, which reads
raw ASGI headers (:func:`bearer_in`).
"""

from __future__ import annotations

from flask import request


def bearer_in(authorization: str | None) -> str | None:
    """The token of an ``Authorization`` header value, if it is a bearer token."""
    scheme, _sep, token = (authorization or "").partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def bearer() -> str | None:
    """The bearer token of this request, if any."""
    return bearer_in(request.headers.get("Authorization"))
