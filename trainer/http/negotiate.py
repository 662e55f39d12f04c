"""How to answer a request: JSON for programs (the API, the pages' scripts), HTML for a browser."""

from __future__ import annotations

from flask import request


def is_api_request() -> bool:
    """Programs calling ``/api/`` get JSON they can parse, never an HTML page (errors included)."""
    return request.path == "/api" or request.path.startswith("/api/")


def wants_json() -> bool:
    """The page's script (fetch) asks for JSON; a plain form post gets a redirect or a page instead."""
    return request.accept_mimetypes.best == "application/json"
