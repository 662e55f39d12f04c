"""Accounts: directors run games and walls, learners study words. One person, one name per kind.

Passwords are hashed with Werkzeug's scrypt. A director using the JSON API gets a signed token
(itsdangerous, keyed by the application's secret) instead of a session. Login pages and the CLI
share the rules here: a name of 1 to 80 characters, a password of at least 8.
"""

from __future__ import annotations

import functools
import secrets
from datetime import datetime
from typing import TypeVar

from flask import current_app
from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy import String, select
from sqlalchemy.orm import Mapped, mapped_column
from werkzeug.security import check_password_hash, generate_password_hash

from .clock import utcnow
from .database import Model, db
from .errors import Refused

DIRECTOR_TOKEN_MAX_AGE = 24 * 3600  # a club night, with margin
MIN_PASSWORD = 8
MAX_ACCOUNT_NAME = 80


class Director(Model):
    """A club official who creates and runs games and walls (``tirage director create``)."""

    __tablename__ = "director"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Learner(Model):
    """Someone who studies words; their decks and progress are theirs alone."""

    __tablename__ = "learner"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    day_starts_hour: Mapped[int] = mapped_column(default=4)  # a study day runs from 4 am to 4 am (UTC)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


A = TypeVar("A", Director, Learner)


def check_password(password: object) -> str:
    """``password`` if it is long enough (``short_password`` otherwise): asked before anything else."""
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise Refused("short_password", f"the password must have at least {MIN_PASSWORD} characters", n=MIN_PASSWORD)
    return password


def _new_account(model: type[A], username: object, password: object, kind: str, taken: str) -> A:
    """A new account of ``model``: a name of 1 to 80 characters (``bad_<kind>_name``) that no other account of
    that kind has (``<kind>_taken``), a long enough password (``short_password``), committed."""
    name = username.strip() if isinstance(username, str) else ""
    if not 1 <= len(name) <= MAX_ACCOUNT_NAME:
        raise Refused(f"bad_{kind}_name", f"the name must be 1 to {MAX_ACCOUNT_NAME} characters")
    secret = check_password(password)
    if db.session.execute(select(model.id).where(model.username == name)).first() is not None:
        raise Refused(f"{kind}_taken", taken.format(name=name), name=name)
    account = model(username=name, password_hash=generate_password_hash(secret))
    db.session.add(account)
    db.session.commit()
    return account


def create_director(username: object, password: object) -> Director:
    return _new_account(Director, username, password, "director", "a director named {name!r} exists already")


def create_learner(username: object, password: object) -> Learner:
    return _new_account(Learner, username, password, "learner", "the name {name!r} is taken")


def _authenticate(model: type[A], username: object, password: object) -> A | None:
    """The account with this name and password, else None: the same answer, in the same time, for either mistake
    (a name that does not exist still costs one password check, so timing does not tell it)."""
    if not isinstance(username, str) or not isinstance(password, str):
        return None
    account = db.session.execute(select(model).where(model.username == username.strip())).scalar_one_or_none()
    matches = check_password_hash(account.password_hash if account is not None else _unknown_hash(), password)
    return account if account is not None and matches else None


@functools.cache
def _unknown_hash() -> str:
    """A hash no password matches, checked for names that have no account."""
    return generate_password_hash(secrets.token_urlsafe(16))


def authenticate_director(username: object, password: object) -> Director | None:
    return _authenticate(Director, username, password)


def authenticate_learner(username: object, password: object) -> Learner | None:
    return _authenticate(Learner, username, password)


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="tirage-director")


def director_token(username: object, password: object) -> str | None:
    """A token for the director if the password is right, else None."""
    director = authenticate_director(username, password)
    return None if director is None else _serializer().dumps({"director": director.id})


def director_for_token(token: str) -> Director | None:
    try:
        data = _serializer().loads(token, max_age=DIRECTOR_TOKEN_MAX_AGE)
    except BadSignature:
        return None
    director_id = data.get("director") if isinstance(data, dict) else None
    return db.session.get(Director, director_id) if isinstance(director_id, int) else None
