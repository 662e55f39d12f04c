"""Request bodies: how large each may be, and JSON objects read the same way by every endpoint.

Every request's body has a limit (:func:`body_limit`): 64 KiB for the JSON API, 256 KiB for a page's
form, more only where a form takes a word list or a file. ``tirage serve`` enforces it before the body
reaches a thread (:mod:`trainer.live.door`, which also gives a body :data:`BODY_SECONDS` to arrive) and
marks what it refused with :data:`REFUSED_HEADER`; here the application answers those marks, in the
reader's language, and applies the same limits itself when it runs without that server (Werkzeug
counts the body as it reads it). Within a form's limit a multipart body stays in memory; a file in it
is taken only where a form asks for one.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Flask, abort, request
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge

from ..core.errors import Refused
from .negotiate import is_api_request

MAX_BODY = 64 * 1024  # the JSON API: settings, a play, a correction are a few hundred bytes
MAX_FORM = 256 * 1024  # a page's form (a word wall's pasted words are the largest, 20,000 characters)
MAX_UPLOAD = 50 * 1024 * 1024  # a file a learner brings (a Zyzzyva cardbox or a word list)
UPLOAD_PATHS = frozenset({"/study/decks/import", "/director/lexicons/upload"})  # the forms that take a file
SMALL_FILE_PATHS = frozenset({"/director/games/new"})  # forms that take a small file within a form's limit (draws)
LARGE_FORM_PATHS = {"/study/decks/new": 8 * 1024 * 1024}  # a deck's pasted list: up to 2,000,000 characters
BODY_SECONDS = 20.0  # for a body to arrive whole (an upload: UPLOAD_SECONDS)
UPLOAD_SECONDS = 300.0
REFUSED_HEADER = "X-Tirage-Refused"  # set by the server's door, never by a client: "too-large" or "too-slow"


def body_limit(path: str) -> int:
    """The most bytes a request to ``path`` may send."""
    if path in UPLOAD_PATHS:
        return MAX_UPLOAD + 64 * 1024  # the file and the rest of its multipart form
    if path == "/api" or path.startswith("/api/"):
        return MAX_BODY
    return LARGE_FORM_PATHS.get(path, MAX_FORM)


def body_seconds(path: str) -> float:
    """How long the body of a request to ``path`` may take to arrive."""
    return UPLOAD_SECONDS if path in UPLOAD_PATHS else BODY_SECONDS


class UnstorableText(BadRequest):
    """A page's form holds a character no database stores (NUL); its error page says so."""


class UploadCutOff(BadRequest):
    """A file's form that ended before its end (the connection dropped): its error page says to send it again,
    where the CSRF check would have called it an expired form."""


def _too_large() -> Refused:
    return Refused("body_too_large", f"the request body is too large (at most {MAX_BODY // 1024} KiB)")


def _limit_body() -> None:
    """Before every view: the door's refusals answered, and its limits applied to the body read here."""
    refused = request.headers.get(REFUSED_HEADER)
    api = is_api_request()
    if refused == "too-large":
        if api:
            raise _too_large()
        abort(413)
    if refused == "too-slow":
        abort(408)
    request.max_content_length = body_limit(request.path)
    # The pages' scripts post their forms as multipart (FormData): fine within a form's limit, which keeps it
    # in memory. A file, though, is taken only where a form asks for one.
    takes_files = request.path in UPLOAD_PATHS or request.path in SMALL_FILE_PATHS
    if not api and request.mimetype.startswith("multipart/") and not takes_files and request.files:
        abort(415)
    # Werkzeug reads a form that ends before its closing boundary as empty; every form of ours has fields.
    multipart = request.mimetype.startswith("multipart/")
    if takes_files and multipart and request.content_length and not request.form and not request.files:
        raise UploadCutOff()
    if not api and request.method == "POST" and any("\x00" in value for value in request.form.values()):
        raise UnstorableText()


def parse_json_object(raw: bytes) -> dict[str, Any]:
    """``raw`` as a JSON object; refused (``not_json_object``) when it is not one.

    Parsed here rather than by ``request.get_json``, which lets a deeply nested body escape as a
    RecursionError (a 500). Text a database cannot store is refused too (:func:`_check_text`).
    """
    if len(raw) > MAX_BODY:
        raise _too_large()
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
        elif isinstance(item, str):
            _check_text(item)
    return data


def _check_text(text: str) -> None:
    """Text a database can store: no NUL character (PostgreSQL refuses it), no lone UTF-16 surrogate (which
    JSON's ``\\ud800`` escapes can make and no UTF-8 can encode)."""
    if "\x00" in text:
        raise Refused("nul_in_text", "text in the request must not contain NUL characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise Refused(
            "bad_text", "text in the request must be Unicode characters (a lone surrogate is not one)"
        ) from None


def json_body() -> dict[str, Any]:
    """This request's JSON object, whatever its Content-Type (see :func:`parse_json_object`)."""
    try:
        raw = request.get_data(cache=True)
    except RequestEntityTooLarge:
        raise _too_large() from None
    return parse_json_object(raw)


def json_field(name: str) -> str:
    """A text field of the request's JSON body, lower case, without failing on any body (rate limits read
    it before the view); "" when there is none."""
    try:
        value = json_body().get(name)
    except Refused:
        return ""
    return value.strip().lower()[:200] if isinstance(value, str) else ""


def init_app(app: Flask) -> None:
    app.before_request(_limit_body)
