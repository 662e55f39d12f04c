"""Director accounts and the bearer tokens of the JSON API.

Directors log in with a password (hashed with Werkzeug's scrypt) and receive a signed token
(itsdangerous, keyed by the app's secret); players receive a random token when they join, kept
only as a hash, that lets them submit for themselves in their game.
"""

from __future__ import annotations

from flask import current_app
from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy import select
from werkzeug.security import check_password_hash, generate_password_hash

from ..extensions import db
from .models import Director

DIRECTOR_TOKEN_MAX_AGE = 24 * 3600  # a club night, with margin
MIN_PASSWORD = 8


class AccountError(ValueError):
    """A director account that cannot be created."""


def create_director(username: str, password: str) -> Director:
    username = username.strip()
    if not 1 <= len(username) <= 80:
        raise AccountError("the director name must be 1 to 80 characters")
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"the password must have at least {MIN_PASSWORD} characters")
    if db.session.execute(select(Director.id).where(Director.username == username)).first() is not None:
        raise AccountError(f"a director named {username!r} exists already")
    director = Director(username=username, password_hash=generate_password_hash(password))
    db.session.add(director)
    db.session.commit()
    return director


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="tirage-director")


def authenticate(username: object, password: object) -> Director | None:
    """The director with this name and password, else None (the same answer for either mistake)."""
    if not isinstance(username, str) or not isinstance(password, str):
        return None
    director = db.session.execute(select(Director).where(Director.username == username.strip())).scalar_one_or_none()
    if director is None or not check_password_hash(director.password_hash, password):
        return None
    return director


def director_token(username: object, password: object) -> str | None:
    """A token for the director if the password is right, else None."""
    director = authenticate(username, password)
    return None if director is None else _serializer().dumps({"director": director.id})


def director_for_token(token: str) -> Director | None:
    try:
        data = _serializer().loads(token, max_age=DIRECTOR_TOKEN_MAX_AGE)
    except BadSignature:
        return None
    director_id = data.get("director") if isinstance(data, dict) else None
    return db.session.get(Director, director_id) if isinstance(director_id, int) else None
