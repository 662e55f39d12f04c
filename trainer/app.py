"""The application factory: ``create_app()`` builds a configured Flask application.

Configuration, in order of precedence: ``test_config`` (tests), environment variables
(``TIRAGE_SECRET_KEY``, ``DATABASE_URL``, ``REDIS_URL``, ``TIRAGE_PUBLIC_URL``, ``TIRAGE_INSTANCE`` via
:mod:`trainer.core.paths`),
then defaults that need nothing set up: a SQLite database and a generated secret key, both in the
instance folder. The production server wraps this application: :mod:`trainer.server`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import secrets
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask

from . import api, games, http, web
from .core import database, lexicons
from .core.accounts import REMEMBER_DAYS
from .core.paths import instance_path
from .http import ratelimit
from .http.lan import public_url
from .study import builder as study_builder
from .study import models as _study_models  # noqa: F401  (each service's models module registers its tables)
from .wall import models as _wall_models  # noqa: F401

PACKAGE_DIR = Path(__file__).resolve().parent
# Templates sit at the top of the source tree (docs/architecture.md), where a source checkout and an editable
# install find them; a wheel carries them inside the package (pyproject.toml maps them to trainer/templates).
SOURCE_TEMPLATE_DIR = PACKAGE_DIR.parent / "templates"
WHEEL_TEMPLATE_DIR = PACKAGE_DIR / "templates"
STATIC_DIR = PACKAGE_DIR / "static"
TRANSLATIONS_DIR = PACKAGE_DIR / "translations"

SECRET_KEY_FILE = "secret_key"
DATABASE_FILE = "tirage.sqlite"


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """A new application on the instance folder; ``test_config`` overrides any setting."""
    templates = template_dir()
    instance = instance_path()
    instance.mkdir(parents=True, exist_ok=True)
    app = Flask(
        __name__,
        instance_path=str(instance),
        template_folder=str(templates),
        static_folder=str(STATIC_DIR),
    )
    overrides = dict(test_config or {})
    https = os.environ.get("TIRAGE_HTTPS", "").strip().lower() in ("1", "true", "yes", "on")
    app.config.from_mapping(
        SECRET_KEY=overrides.get("SECRET_KEY") or _secret_key(instance),
        SQLALCHEMY_DATABASE_URI=database_uri(instance),
        SQLALCHEMY_ENGINE_OPTIONS=engine_options(database_uri(instance)),
        BABEL_TRANSLATION_DIRECTORIES=str(TRANSLATIONS_DIR),
        BABEL_DEFAULT_LOCALE="en",
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        REMEMBER_COOKIE_SAMESITE="Lax",  # Flask-Login's "remember me" cookie of director and learner logins
        REMEMBER_COOKIE_HTTPONLY=True,
        REMEMBER_COOKIE_DURATION=timedelta(days=REMEMBER_DAYS),  # its login row lives as long (core.accounts)
        # Behind https (a proxy that terminates TLS), cookies must never travel in clear: TIRAGE_HTTPS=1.
        TIRAGE_HTTPS=https,
        SESSION_COOKIE_SECURE=https,
        REMEMBER_COOKIE_SECURE=https,
        RATELIMIT_ENABLED=True,  # limits on refused joins and logins and on plays: trainer.http.ratelimit
        WTF_CSRF_TIME_LIMIT=None,  # a form left open through a long club night must still submit
        TIRAGE_SCHEDULER=False,  # `tirage serve` and `tirage scheduler` turn it on, in one process
        TIRAGE_REDIS_URL=os.environ.get("REDIS_URL") or None,  # event wake-ups across processes (trainer.live)
        # How often each web process's event hub reads the event table even when nobody woke it.
        TIRAGE_LIVE_POLL=float(os.environ["TIRAGE_LIVE_POLL"]) if os.environ.get("TIRAGE_LIVE_POLL") else None,
        # Limits of `tirage serve` (trainer/live): how long a request body may take to arrive (default: 20 s, an
        # upload 300 s), event streams one address may hold (2,000) and the process holds in all (what its
        # open-files limit allows), the bytes a second one address's catch-ups send (16 MB), every address's together
        # (32 MB), and every address's while plays come first, in a round's last seconds (2 MB).
        TIRAGE_BODY_SECONDS=_number("TIRAGE_BODY_SECONDS"),
        TIRAGE_STREAMS_PER_ADDRESS=_number("TIRAGE_STREAMS_PER_ADDRESS"),
        TIRAGE_STREAMS=_number("TIRAGE_STREAMS"),
        TIRAGE_CATCH_UP_BYTES_PER_SECOND=_number("TIRAGE_CATCH_UP_BYTES_PER_SECOND"),
        TIRAGE_CATCH_UP_BYTES_PER_SECOND_IN_ALL=_number("TIRAGE_CATCH_UP_BYTES_PER_SECOND_IN_ALL"),
        TIRAGE_CATCH_UP_BYTES_IN_RUSH=_number("TIRAGE_CATCH_UP_BYTES_IN_RUSH"),
        # Seconds a new deck's cards may take to work out in their own process (trainer.study.builder; 60).
        TIRAGE_DECK_BUILD_SECONDS=_number("TIRAGE_DECK_BUILD_SECONDS"),
        # The address join links and QR codes give phones (a proxy's, a fixed name): checked below.
        TIRAGE_PUBLIC_URL=os.environ.get("TIRAGE_PUBLIC_URL"),
        # Listening on the network (`tirage serve --lan`): a page opened at localhost gives phones the LAN address.
        TIRAGE_LAN=False,
    )
    app.config.from_mapping(overrides)
    # A bad address fails here, at start, rather than in every QR code of the night (lan.BadPublicUrl).
    app.config["TIRAGE_PUBLIC_URL"] = public_url(app.config["TIRAGE_PUBLIC_URL"])

    database.init_app(app)
    lexicons.init_app(app)
    games.init_app(app)
    study_builder.init_app(app)
    http.init_app(app)  # first of the transports: the ``id`` URL converter, errors, headers
    api.init_app(app)
    web.init_app(app)
    ratelimit.init_app(app)  # last: its limits wrap the views registered above
    return app


def template_dir() -> Path:
    """The templates of a source checkout (or an editable install), else those a wheel installed."""
    for folder in (SOURCE_TEMPLATE_DIR, WHEEL_TEMPLATE_DIR):
        if (folder / "base.html").is_file():
            return folder
    raise RuntimeError(f"no templates in {SOURCE_TEMPLATE_DIR} or {WHEEL_TEMPLATE_DIR}: the installation is incomplete")


def _number(variable: str) -> float | None:
    """A positive number from the environment, else None (the default applies)."""
    try:
        value = float(os.environ.get(variable, ""))
    except ValueError:
        return None
    return value if value > 0 else None


def _secret_key(instance: Path) -> str:
    """``$TIRAGE_SECRET_KEY``, else a key made once and kept in the instance folder so sessions survive restarts."""
    configured = os.environ.get("TIRAGE_SECRET_KEY")
    if configured:
        return configured
    path = instance / SECRET_KEY_FILE
    if not path.exists():
        # Written whole to a temporary file, then linked into place: linking fails if the name exists, so
        # when several workers start together exactly one key wins and nobody reads a half-written file.
        fd, tmp = tempfile.mkstemp(dir=instance, prefix=".secret_key-")
        try:
            with os.fdopen(fd, "w", encoding="ascii") as out:
                out.write(secrets.token_hex(32))
            with contextlib.suppress(FileExistsError):
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
    if path.stat().st_mode & 0o077:  # a key readable by others (an older version, a copy): only the owner
        with contextlib.suppress(PermissionError):  # another user's file that we may only read: leave it
            path.chmod(0o600)
    return path.read_text("ascii").strip()


def engine_options(uri: str) -> dict[str, Any]:
    """Connection pools as large as the server's threads (pages and API calls, event-stream reads, the
    scheduler), so connections are reused: past the pool, SQLAlchemy opens and closes one per request,
    and a new SQLite connection reads the schema again — under a room's plays that was most of the
    server's time. A pooled PostgreSQL connection is also checked before use, so that after a database
    restart a request reconnects rather than fails (a SQLite file cannot go away)."""
    if uri.startswith("sqlite"):
        return {"pool_size": 32, "max_overflow": 32}
    return {"pool_pre_ping": True, "pool_size": 16, "max_overflow": 16}


def database_uri(instance: Path) -> str:
    """``$DATABASE_URL`` (as hosting platforms set it), else a SQLite file in the instance folder."""
    configured = os.environ.get("DATABASE_URL")
    if configured:
        return normalise_database_url(configured)
    return f"sqlite:///{instance / DATABASE_FILE}"


def normalise_database_url(url: str) -> str:
    """Make a driver-less PostgreSQL URL usable by SQLAlchemy 2.

    Platforms hand out ``postgres://`` which SQLAlchemy no longer accepts. Such a URL, and a plain
    ``postgresql://``, get the psycopg (3) driver when it is installed; otherwise ``postgresql://``,
    which SQLAlchemy serves with psycopg2. A URL that names its driver is left alone.
    """
    scheme, sep, rest = url.partition("://")
    if not sep or scheme not in ("postgres", "postgresql"):
        return url
    driver = "postgresql+psycopg" if _psycopg_installed() else "postgresql"
    return f"{driver}://{rest}"


def _psycopg_installed() -> bool:
    """Whether psycopg 3 can be imported (looked up, not imported, to keep start-up light)."""
    return importlib.util.find_spec("psycopg") is not None
