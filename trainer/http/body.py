"""Request bodies: JSON objects of bounded size, read the same way by every endpoint."""

from __future__ import annotations

import json
from typing import Any

from flask import request

from ..core.errors import Refused

MAX_BODY = 64 * 1024  # settings, a play, a correction: a few hundred bytes


def parse_json_object(raw: bytes) -> dict[str, Any]:
    """``raw`` as a JSON object; refused (``not_json_object``) when it is not one.

    Parsed here rather than by ``request.get_json``, which lets a deeply nested body escape as a
    RecursionError (a 500). Text with NUL characters is refused too: PostgreSQL cannot store it.
    """
    if len(raw) > MAX_BODY:
        raise Refused("body_too_large", f"the request body is too large (at most {MAX_BODY // 1024} KiB)")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise Refused("not_json_object", "the request body must be a JSON object")
    pending: list[Any] = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif isinstance(item, str) and "\x00" in item:
            raise Refused("nul_in_text", "text in the request must not contain NUL characters")
    return data


def json_body() -> dict[str, Any]:
    """This request's JSON object, whatever its Content-Type (see :func:`parse_json_object`)."""
    return parse_json_object(request.get_data(cache=True))


def json_field(name: str) -> str:
    """A text field of the request's JSON body, lower case, without failing on any body (rate limits read
    it before the view); "" when there is none."""
    try:
        value = json_body().get(name)
    except Refused:
        return ""
    return value.strip().lower()[:200] if isinstance(value, str) else ""
