"""Rate limits on guessing and flooding (Flask-Limiter), shared by the pages, the API and the fast path.

A club joins hundreds of phones from one public address (its Wi-Fi's NAT) and the load benchmark runs
thousands of players from 127.0.0.1, so nothing a player does normally is limited per address. What is limited:

- joining (``/join``, ``/walls/join``, ``/api/join``): only *refused guesses* count, a join code that
  names no game, per address and across all addresses at once. The second cap is what makes guessing
  a code hopeless (see :data:`DEFAULT_LIMITS`); a successful join never counts.
- logging in (director and learner pages, ``/api/auth/token``): refused attempts with a name and a
  password, per address and per account name from that address (so nobody can lock an account's owner
  out from elsewhere).
- handing in plays (``/play/<id>/submit``, ``/api/games/<id>/rounds/<n>/plays``): every play, per
  player (their token), generous for a player who changes their play several times;
- typing words on a word wall (``/walls/<id>/play/answer``): every answer, per player, generous for a
  fast typist, and a bound on what one player can make the server do.
- the current password a logged-in account must give again (``/account/password``): refused ones, per
  account, whatever the address (a stolen login must not find the password by trying).

A view takes part by being marked with :func:`limited` and tells a refused guess with
:func:`refused_guess`. Each application gets its own limiter (tests build many applications and
must not share counts). Counts live in Redis when ``TIRAGE_REDIS_URL`` is set, so every web process
of a server shares them, else in the process's memory. ``RATELIMIT_ENABLED = False`` turns them off;
the ``TIRAGE_RATELIMIT_*`` settings change them (read on each request). A 429 says what was limited and
carries Retry-After: JSON ``{"error": ...}`` on the API and to the pages' scripts, else a page.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, Response, current_app, g, jsonify, render_template, request
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_babel import ngettext
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from flask_login import current_user
from limits import RateLimitItem
from limits import parse as parse_limit

from . import limit_storage as limit_storage  # registers tirage-memory://
from .addresses import client_network
from .auth import bearer
from .body import json_field
from .negotiate import is_api_request, wants_json
from .session import PLAYER_TOKENS, WALL_TOKENS, session_token

F = TypeVar("F", bound=Callable[..., Any])

LIMITER_KEY = "tirage.limiter"
LIMITS_ATTRIBUTE = "tirage_limits"
REFUSED_FLAG = "tirage_refused_guess"

# Join codes are 6 characters of a 32-letter alphabet: 32**6 = 1,073,741,824 codes. With G games
# (their codes stay taken after the game), one guess hits with probability G / 32**6, so a guesser
# needs 32**6 / G guesses on average: at the cap of 300 refused guesses a minute across all addresses,
# 3.6 million minutes (about 6.8 years) for one game, 25 days if 100 codes are taken.
DEFAULT_LIMITS: dict[str, str] = {
    "TIRAGE_RATELIMIT_JOIN": "20/minute",  # refused join codes from one address (a club's typos stay far below)
    "TIRAGE_RATELIMIT_JOIN_ALL": "300/minute",  # refused join codes from all addresses together
    # Players who joined from one address: a club's Wi-Fi joins a few hundred phones in minutes; a flood of fake
    # players (5,000 in 55 s) now takes 8 minutes, and the director can close the room and remove them.
    "TIRAGE_RATELIMIT_JOINED": "600/minute",
    "TIRAGE_RATELIMIT_SIGNUP": "20/hour",  # learner accounts made from one address (a club's evening of sign-ups)
    "TIRAGE_RATELIMIT_LOGIN": "10/minute",  # refused logins from one address, and for one account name
    "TIRAGE_RATELIMIT_SUBMIT": "30/minute",  # plays handed in by one player
    "TIRAGE_RATELIMIT_ANSWER": "120/minute",  # words typed on a word wall by one player (two a second)
    "TIRAGE_RATELIMIT_PASSWORD": "10/hour",  # wrong current passwords given for one logged-in account
}

# What each limit says when it is reached. The limit carries its kind in ``error_message``.
JOIN, JOIN_ALL, JOINED, SIGNUP = "join", "join_all", "joined", "signup"
LOGIN, SUBMIT, ANSWER, PASSWORD = "login", "submit", "answer", "password"
API_MESSAGES: dict[str, str] = {
    JOIN: "too many join codes that name no game were tried from your network: try again in {seconds} s",
    JOIN_ALL: "too many join codes that name no game were tried on this server: try again in {seconds} s",
    JOINED: "too many players joined from your network within a minute: try again in {seconds} s",
    SIGNUP: "too many accounts were made from your network: try again in {seconds} s",
    LOGIN: "too many failed logins: try again in {seconds} s",
    SUBMIT: "too many plays handed in within a minute: try again in {seconds} s",
    ANSWER: "too many words typed within a minute: try again in {seconds} s",
    PASSWORD: "too many wrong current passwords for this account: try again in {seconds} s",
}


# ---------------------------------------------------------------- what views use


def limited(*kinds: str) -> Callable[[F], F]:
    """Mark a view for the limits of ``kinds`` (``join``, ``login``, ``submit``); :func:`init_app` applies them."""

    def mark(view: F) -> F:
        setattr(view, LIMITS_ATTRIBUTE, kinds)
        return view

    return mark


def refused_guess() -> None:
    """This request tried a join code or a password that was wrong: it counts against the limits."""
    setattr(g, REFUSED_FLAG, True)


# ---------------------------------------------------------------- who a request counts for


def _was_refused(_response: Response) -> bool:
    return bool(getattr(g, REFUSED_FLAG, False))


def _joined(response: Response) -> bool:
    """A join or a sign-up that was taken (a player or an account made), counted against the address."""
    return response.status_code in (201, 303) and not _was_refused(response)


def _everyone() -> str:
    return "everyone"


def _address() -> str:
    """The client's address (its /64 network for IPv6). Behind a reverse proxy the server must pass the client's
    own (uvicorn rewrites it from X-Forwarded-For for the proxies in TIRAGE_TRUSTED_PROXIES, and for no other)."""
    return client_network(get_remote_address())


def _body_field(name: str) -> str:
    """A text field of the page's form or of the API's JSON body, without failing on any body (limits run
    before the view)."""
    if request.blueprint == "api":
        return json_field(name)
    value: Any = request.form.get(name)
    return value.strip().lower()[:200] if isinstance(value, str) else ""


def _account_name() -> str:
    """The account a login tries, from this address, as ``director:alice@192.0.2.7``; "" when it names none.

    Counted with the address: a guesser elsewhere must not lock the account's owner out.
    """
    name = _body_field("username")
    if not name:
        return ""
    kind = "learner" if request.endpoint == "study.login" else "director"
    return f"{kind}:{name}@{_address()}"


def _logged_in_account() -> str:
    """The account logged in on the pages, as ``director:7`` (its login's key left out: every login of the
    account shares the count); "" when none."""
    user: Any = current_user
    user_id = user.get_id() if user.is_authenticated else None
    return ":".join(str(user_id).split(":")[:2]) if user_id else ""


def _player() -> str:
    """The player handing in a play or a wall's word: their token (hashed: a count's key is no credential), "" if
    none."""
    token: str | None
    view_args = request.view_args or {}
    if request.blueprint == "api":
        token = bearer()
    elif isinstance(view_args.get("wall_id"), int):
        token = session_token(WALL_TOKENS, view_args["wall_id"])
    else:
        game_id = view_args.get("game_id")
        token = session_token(PLAYER_TOKENS, game_id) if isinstance(game_id, int) else None
    return player_limit_key(token) if token else ""


def player_limit_key(token: str) -> str:
    """Whose plays a count is of: the player's token, hashed (a count's key is no credential)."""
    return f"player:{hashlib.sha256(token.encode()).hexdigest()[:32]}"


@functools.lru_cache(maxsize=16)
def _parsed_limit(text: str) -> RateLimitItem:
    return parse_limit(text)


def submit_allowed(app: Flask, token: str) -> bool:
    """Count one play of the player with ``token`` against the submit limit, as the views' limit does (the same
    counter, so the event loop's play path and the views share it); False when the limit is reached.

    A storage that fails lets the play through, as the views' limits do (``RATELIMIT_SWALLOW_ERRORS``).
    """
    if not app.config.get("RATELIMIT_ENABLED", True):
        return True
    item = _parsed_limit(str(app.config.get("TIRAGE_RATELIMIT_SUBMIT") or DEFAULT_LIMITS["TIRAGE_RATELIMIT_SUBMIT"]))
    prefix = app.config.get("RATELIMIT_KEY_PREFIX") or ""
    identifiers = [prefix, player_limit_key(token), "submit"] if prefix else [player_limit_key(token), "submit"]
    try:
        return bool(limiter(app).limiter.hit(item, *identifiers))
    except Exception:
        if app.config.get("RATELIMIT_SWALLOW_ERRORS", True):
            return True
        raise


def _config_limit(key: str) -> Callable[[], str]:
    """The limit as configured now (a test or an operator may change it on a running application)."""
    return lambda: str(current_app.config.get(key) or DEFAULT_LIMITS[key])


# ---------------------------------------------------------------- the limiter


def limiter(app: Flask | None = None) -> Limiter:
    """The application's limiter (for tests and for an operator's shell: ``limiter().reset()``)."""
    found: Limiter = (app or current_app).extensions[LIMITER_KEY]
    return found


def _apply_limits(app: Flask, limits: Limiter) -> None:
    """Wrap every view marked with :func:`limited` in its limits (this application's views only)."""
    join = [
        limits.shared_limit(
            _config_limit("TIRAGE_RATELIMIT_JOIN"),
            scope="join-refused",
            methods=["POST"],
            deduct_when=_was_refused,
            error_message=JOIN,
        ),
        limits.shared_limit(
            _config_limit("TIRAGE_RATELIMIT_JOIN_ALL"),
            scope="join-refused-all",
            methods=["POST"],
            key_func=_everyone,
            deduct_when=_was_refused,
            error_message=JOIN_ALL,
        ),
        limits.shared_limit(
            _config_limit("TIRAGE_RATELIMIT_JOINED"),
            scope="joined",
            methods=["POST"],
            deduct_when=_joined,
            error_message=JOINED,
        ),
    ]
    login = [
        limits.shared_limit(
            _config_limit("TIRAGE_RATELIMIT_LOGIN"),
            scope="login-refused",
            methods=["POST"],
            deduct_when=_was_refused,
            error_message=LOGIN,
        ),
        limits.shared_limit(
            _config_limit("TIRAGE_RATELIMIT_LOGIN"),
            scope="login-refused-name",
            methods=["POST"],
            key_func=_account_name,
            exempt_when=lambda: not _account_name(),
            deduct_when=_was_refused,
            error_message=LOGIN,
        ),
    ]
    signup = [
        limits.shared_limit(
            _config_limit("TIRAGE_RATELIMIT_SIGNUP"),
            scope="signup",
            methods=["POST"],
            deduct_when=_joined,  # an account made: the page moves on (303)
            error_message=SIGNUP,
        ),
    ]
    submit = [
        limits.shared_limit(
            _config_limit("TIRAGE_RATELIMIT_SUBMIT"),
            scope="submit",
            methods=["POST"],
            key_func=_player,
            exempt_when=lambda: not _player(),
            error_message=SUBMIT,
        ),
    ]
    answer = [
        limits.shared_limit(
            _config_limit("TIRAGE_RATELIMIT_ANSWER"),
            scope="answer",
            methods=["POST"],
            key_func=_player,
            exempt_when=lambda: not _player(),
            error_message=ANSWER,
        ),
    ]
    password = [
        limits.shared_limit(
            _config_limit("TIRAGE_RATELIMIT_PASSWORD"),
            scope="password-refused",
            methods=["POST"],
            key_func=_logged_in_account,
            exempt_when=lambda: not _logged_in_account(),
            deduct_when=_was_refused,
            error_message=PASSWORD,
        ),
    ]
    decorators = {JOIN: join, SIGNUP: signup, LOGIN: login, SUBMIT: submit, ANSWER: answer, PASSWORD: password}
    for endpoint, view in list(app.view_functions.items()):
        kinds = getattr(view, LIMITS_ATTRIBUTE, ())
        if not kinds:
            continue
        wrapped: Callable[..., Any] = view
        for kind in kinds:
            for decorator in decorators[kind]:
                wrapped = decorator(wrapped)
        app.view_functions[endpoint] = wrapped


def _seconds_left() -> int:
    """Whole seconds until the breached limit lets a request through again (at least 1)."""
    try:
        current = limiter().current_limit
        reset_at = current.reset_at if current is not None else None
    except Exception:  # the storage went away since: say a minute rather than fail
        reset_at = None
    if reset_at is None:
        return 60
    return max(1, math.ceil(reset_at - time.time()))


def _page_message(kind: str, seconds: int) -> str:
    if kind == JOIN:
        said = ngettext(
            "Too many join codes that name no game were tried from your network. Check the code on "
            "the screen and try again in %(num)s second.",
            "Too many join codes that name no game were tried from your network. Check the code on "
            "the screen and try again in %(num)s seconds.",
            seconds,
        )
    elif kind == JOIN_ALL:
        said = ngettext(
            "Too many join codes that name no game were tried on this server just now. Try again in %(num)s second.",
            "Too many join codes that name no game were tried on this server just now. Try again in %(num)s seconds.",
            seconds,
        )
    elif kind == JOINED:
        said = ngettext(
            "Too many players joined from your network within a minute. Try again in %(num)s second.",
            "Too many players joined from your network within a minute. Try again in %(num)s seconds.",
            seconds,
        )
    elif kind == SIGNUP:
        said = ngettext(
            "Too many accounts were made from your network. Try again in %(num)s second.",
            "Too many accounts were made from your network. Try again in %(num)s seconds.",
            seconds,
        )
    elif kind == LOGIN:
        said = ngettext(
            "Too many failed logins. Wait %(num)s second, then try again.",
            "Too many failed logins. Wait %(num)s seconds, then try again.",
            seconds,
        )
    elif kind == PASSWORD:
        said = ngettext(
            "Too many wrong current passwords were given for this account. Wait %(num)s second, then try again.",
            "Too many wrong current passwords were given for this account. Wait %(num)s seconds, then try again.",
            seconds,
        )
    elif kind == ANSWER:
        said = ngettext(
            "Too many words typed within a minute. Wait %(num)s second, then go on.",
            "Too many words typed within a minute. Wait %(num)s seconds, then go on.",
            seconds,
        )
    else:
        said = ngettext(
            "Too many plays handed in within a minute. Wait %(num)s second, then hand in your play again.",
            "Too many plays handed in within a minute. Wait %(num)s seconds, then hand in your play again.",
            seconds,
        )
    return str(said)


def too_many(error: RateLimitExceeded) -> ResponseReturnValue:
    """429 with what was limited and when to come back: JSON for the API and the pages' scripts, else a page."""
    kind = str(error.limit.error_message or SUBMIT)
    seconds = _seconds_left()
    headers = {"Retry-After": str(seconds)}
    if is_api_request():
        return jsonify(error=API_MESSAGES.get(kind, API_MESSAGES[SUBMIT]).format(seconds=seconds)), 429, headers
    message = _page_message(kind, seconds)
    if wants_json():
        return jsonify(ok=False, error=message), 429, headers
    page = render_template("error.html", code=429, title=_("Too many attempts"), explanation=message)
    return page, 429, headers


# ---------------------------------------------------------------- the storage


def storage_uri(redis_url: str | None) -> str:
    """Where the counts live: the server's Redis (in the ``limits`` library's spelling), else memory."""
    if not redis_url:
        return "tirage-memory://"  # trainer.http.limit_storage
    if redis_url.startswith("unix://"):  # redis-py's socket URL; limits calls it redis+unix://
        return "redis+unix://" + redis_url[len("unix://") :]
    return redis_url


def init_app(app: Flask) -> None:
    """The limiter; call after every blueprint is registered (the limits wrap their views)."""
    for key, value in DEFAULT_LIMITS.items():  # the environment may set them (a benchmark's many phones)
        app.config.setdefault(key, os.environ.get(key) or value)
    app.config.setdefault("RATELIMIT_STORAGE_URI", storage_uri(app.config.get("TIRAGE_REDIS_URL")))
    app.config.setdefault(
        "RATELIMIT_STORAGE_OPTIONS",
        {"socket_timeout": 2, "socket_connect_timeout": 2}
        if "memory://" not in app.config["RATELIMIT_STORAGE_URI"]
        else {},
    )
    # Fixed windows: a counter per key, cheap enough to count every play of a room of thousands
    # (a burst may reach twice a limit across a window's edge, which these limits allow for).
    app.config.setdefault("RATELIMIT_STRATEGY", "fixed-window")
    app.config.setdefault("RATELIMIT_KEY_PREFIX", "tirage")  # the Redis may serve other programs too
    app.config.setdefault("RATELIMIT_SWALLOW_ERRORS", True)  # Redis away: let players in rather than fail them
    app.config.setdefault("RATELIMIT_ENABLED", True)
    limits = Limiter(key_func=_address, app=app)
    app.extensions[LIMITER_KEY] = limits
    _apply_limits(app, limits)
    app.register_error_handler(RateLimitExceeded, too_many)
