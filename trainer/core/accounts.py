"""Accounts: directors run games and walls, learners study words. One person, one name per kind.

Passwords are hashed with Werkzeug's scrypt. A director using the JSON API gets a signed token
(itsdangerous, keyed by the application's secret) instead of a session. Login pages and the CLI
share the rules here: a name of 1 to 80 characters, a password of at least 8.

A login of the pages is a :class:`LoginSession` row, named by a random key the browser's cookies carry:
logging out deletes it, so every copy of those cookies stops working; a password change deletes every
login of the account (and the API tokens signed before it); a "remember me" cookie is exchanged for a
new key each time it brings a browser back, and lives :data:`REMEMBER_DAYS` days.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from datetime import datetime, timedelta
from typing import TypeVar

from flask import current_app
from itsdangerous import BadSignature, URLSafeTimedSerializer
from sqlalchemy import ForeignKey, Index, String, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column
from werkzeug.security import check_password_hash, generate_password_hash

from .clock import utcnow
from .codes import hash_token
from .database import Model, db
from .errors import Refused

DIRECTOR_TOKEN_MAX_AGE = 24 * 3600  # a club night, with margin
REMEMBER_DAYS = 30  # a "remember me" login unused this long ends
ROTATION_GRACE = timedelta(seconds=60)  # a replaced remember key still serves the requests already under way
MIN_PASSWORD = 8
MAX_ACCOUNT_NAME = 80


class Director(Model):
    """A club official who creates and runs games and walls (``tirage director create``), or an assistant arbiter
    (``lead_id`` set): an account a director makes for a helper, which only enters paper bulletins in that
    director's games (docs/rules.md §6.21)."""

    __tablename__ = "director"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    lead_id: Mapped[int | None] = mapped_column(ForeignKey("director.id"), default=None, index=True)

    @property
    def is_assistant(self) -> bool:
        return self.lead_id is not None

    def arbitrates(self, director_id: int) -> bool:
        """Whether this account may enter bulletins in the games of director ``director_id``."""
        return director_id in (self.id, self.lead_id)


class Learner(Model):
    """Someone who studies words; their decks and progress are theirs alone."""

    __tablename__ = "learner"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(80), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    day_starts_hour: Mapped[int] = mapped_column(default=4)  # a study day runs from 4 am to 4 am (UTC)
    # Which missed tops of the learner's games become cards of their "From my games" deck (docs/rules.md §7.12):
    # "tops" (every top missed), "bingos" (bingos only) or "off".
    from_games: Mapped[str] = mapped_column(String(8), default="tops", server_default="tops")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


A = TypeVar("A", Director, Learner)
ACCOUNT_KINDS: dict[str, type[Director] | type[Learner]] = {"director": Director, "learner": Learner}


class LoginSession(Model):
    """One login of the pages: deleted at logout, replaced when a remember cookie is used, gone after a password
    change. The browser holds the key; the table only its hash."""

    __tablename__ = "login_session"
    __table_args__ = (Index("ix_login_session_account", "account_kind", "account_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    account_kind: Mapped[str] = mapped_column(String(16))  # director or learner
    account_id: Mapped[int] = mapped_column()
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column()


def check_password(password: object) -> str:
    """``password`` if it is long enough (``short_password`` otherwise): asked before anything else."""
    if not isinstance(password, str) or len(password) < MIN_PASSWORD:
        raise Refused("short_password", f"the password must have at least {MIN_PASSWORD} characters", n=MIN_PASSWORD)
    return password


def _new_account(
    model: type[A], username: object, password: object, kind: str, taken: str, lead_id: int | None = None
) -> A:
    """A new account of ``model``: a name of 1 to 80 characters (``bad_<kind>_name``) that no other account of
    that kind has (``<kind>_taken``), a long enough password (``short_password``), committed."""
    name = username.strip() if isinstance(username, str) else ""
    if not 1 <= len(name) <= MAX_ACCOUNT_NAME:
        raise Refused(f"bad_{kind}_name", f"the name must be 1 to {MAX_ACCOUNT_NAME} characters", n=MAX_ACCOUNT_NAME)
    secret = check_password(password)
    if db.session.execute(select(model.id).where(model.username == name)).first() is not None:
        raise Refused(f"{kind}_taken", taken.format(name=name), name=name)
    account = model(username=name, password_hash=generate_password_hash(secret))
    if lead_id is not None and isinstance(account, Director):
        account.lead_id = lead_id
    db.session.add(account)
    try:
        db.session.commit()
    except IntegrityError:  # the same name signed up a moment ago, between the check and the write
        db.session.rollback()
        raise Refused(f"{kind}_taken", taken.format(name=name), name=name) from None
    return account


def create_director(username: object, password: object) -> Director:
    return _new_account(Director, username, password, "director", "a director named {name!r} exists already")


def create_assistant(lead: Director, username: object, password: object) -> Director:
    """An assistant arbiter's account for ``lead``'s games: it logs in like a director, and only enters bulletins."""
    if lead.is_assistant:
        raise Refused("assistant_cannot_direct", "an assistant arbiter cannot make accounts")
    return _new_account(
        Director, username, password, "director", "a director named {name!r} exists already", lead_id=lead.id
    )


def assistants_of(lead: Director) -> list[Director]:
    return list(db.session.execute(select(Director).where(Director.lead_id == lead.id).order_by(Director.id)).scalars())


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


def _kind_of(account: Director | Learner) -> str:
    return "director" if isinstance(account, Director) else "learner"


def start_login(account: Director | Learner, now: datetime | None = None) -> str:
    """A new login of ``account``; its key, for the browser's cookies (committed)."""
    key = secrets.token_urlsafe(24)
    now = now or utcnow()
    db.session.add(
        LoginSession(
            key_hash=hash_token(key),
            account_kind=_kind_of(account),
            account_id=account.id,
            created_at=now,
            expires_at=now + timedelta(days=REMEMBER_DAYS),
        )
    )
    db.session.commit()
    return key


def logged_in(kind: str, account_id: int, key: str, now: datetime | None = None) -> Director | Learner | None:
    """The account of a live login (``kind``, id and key as the cookie holds them), else None."""
    model = ACCOUNT_KINDS.get(kind)
    if model is None:
        return None
    row = db.session.execute(select(LoginSession).where(LoginSession.key_hash == hash_token(key))).scalar_one_or_none()
    if row is None or row.account_kind != kind or row.account_id != account_id or row.expires_at <= (now or utcnow()):
        return None
    return db.session.get(Director, account_id) if model is Director else db.session.get(Learner, account_id)


def login_of(user_id: str) -> tuple[Director | Learner, str] | None:
    """The account and key of a login as the session holds it (``director:<id>:<key>``), if it is live."""
    kind, number, key = [*user_id.split(":"), "", ""][:3]
    if not (number.isascii() and number.isdigit() and key):
        return None  # a cookie of an older version (no key) is a login that has ended
    account = logged_in(kind, int(number), key)
    return (account, key) if account is not None else None


def end_login(key: str) -> None:
    """Log out: the login with this key ends, in every browser that holds a copy of its cookies."""
    db.session.execute(delete(LoginSession).where(LoginSession.key_hash == hash_token(key)))
    db.session.commit()


def renew_login(account: Director | Learner, key: str, now: datetime | None = None) -> str:
    """A remember cookie was used: a new key for the login, the old one ending after :data:`ROTATION_GRACE` (the
    browser's other requests of the moment still carry it). A stolen cookie used once is then useless to one of
    the two holders, who finds themselves logged out."""
    now = now or utcnow()
    row = db.session.execute(select(LoginSession).where(LoginSession.key_hash == hash_token(key))).scalar_one_or_none()
    if row is not None:
        row.expires_at = min(row.expires_at, now + ROTATION_GRACE)
    return start_login(account, now)


def end_every_login(account: Director | Learner) -> None:
    """Every login of the account ends (the caller commits)."""
    db.session.execute(
        delete(LoginSession).where(
            LoginSession.account_kind == _kind_of(account), LoginSession.account_id == account.id
        )
    )


def change_password(account: Director | Learner, password: object) -> None:
    """A new password (``short_password`` if too short); every login of the account and its API tokens end."""
    account.password_hash = generate_password_hash(check_password(password))
    end_every_login(account)
    db.session.commit()


def _password_mark(director: Director) -> str:
    """A few characters of the password hash's digest, in API tokens: a new password voids the tokens before it."""
    return hashlib.sha256(director.password_hash.encode()).hexdigest()[:16]


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="tirage-director")


def director_token(username: object, password: object) -> str | None:
    """A token for the director if the password is right, else None."""
    director = authenticate_director(username, password)
    return (
        None if director is None else _serializer().dumps({"director": director.id, "mark": _password_mark(director)})
    )


def director_for_token(token: str) -> Director | None:
    try:
        data = _serializer().loads(token, max_age=DIRECTOR_TOKEN_MAX_AGE)
    except BadSignature:
        return None
    director_id = data.get("director") if isinstance(data, dict) else None
    director = db.session.get(Director, director_id) if isinstance(director_id, int) else None
    return director if director is not None and data.get("mark") == _password_mark(director) else None


LEARNER_TOKEN_MAX_AGE = 30 * 24 * 3600  # a learner's API token: a month, or until their password changes


def _learner_serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="tirage-learner")


def learner_token(username: object, password: object) -> str | None:
    """A token for the learner's own data in the JSON API (their history) if the password is right, else None."""
    learner = authenticate_learner(username, password)
    if learner is None:
        return None
    return _learner_serializer().dumps({"learner": learner.id, "mark": _mark(learner.password_hash)})


def learner_for_token(token: str) -> Learner | None:
    try:
        data = _learner_serializer().loads(token, max_age=LEARNER_TOKEN_MAX_AGE)
    except BadSignature:
        return None
    learner_id = data.get("learner") if isinstance(data, dict) else None
    learner = db.session.get(Learner, learner_id) if isinstance(learner_id, int) else None
    return learner if learner is not None and data.get("mark") == _mark(learner.password_hash) else None


def _mark(password_hash: str) -> str:
    return hashlib.sha256(password_hash.encode()).hexdigest()[:16]
