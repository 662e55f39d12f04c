"""Logins for the pages (Flask-Login): directors run games, learners study words; the JSON API
keeps its bearer tokens.

A logged-in user is identified as ``director:<id>:<key>`` or ``learner:<id>:<key>``, so the two kinds of
account share one login manager without their ids colliding; the key names the login's row
(:class:`trainer.core.accounts.LoginSession`), which logout deletes: a copied cookie then opens nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from flask import Flask, abort, make_response, redirect, render_template, request, url_for
from flask_babel import lazy_gettext as _l
from flask_login import LoginManager, UserMixin, current_user, login_user, logout_user, user_loaded_from_cookie

from ..core import accounts
from ..core.accounts import Director, Learner
from ..core.database import db
from ..games.models import Game

login_manager = LoginManager()
login_manager.login_view = "director.login"
login_manager.login_message = _l("Log in as a director to open this page.")
login_manager.session_protection = "basic"

F = TypeVar("F", bound=Callable[..., Any])


class DirectorLogin(UserMixin):
    """The logged-in director, as Flask-Login sees them."""

    def __init__(self, director: Director, key: str) -> None:
        self.director = director
        self.key = key

    def get_id(self) -> str:
        return f"director:{self.director.id}:{self.key}"

    @property
    def username(self) -> str:
        return self.director.username


class LearnerLogin(UserMixin):
    """The logged-in learner, as Flask-Login sees them."""

    def __init__(self, learner: Learner, key: str) -> None:
        self.learner = learner
        self.key = key

    def get_id(self) -> str:
        return f"learner:{self.learner.id}:{self.key}"

    @property
    def username(self) -> str:
        return self.learner.username


def _load_user(user_id: str) -> DirectorLogin | LearnerLogin | None:
    login = accounts.login_of(user_id)
    if login is None:
        return None
    account, key = login
    return DirectorLogin(account, key) if isinstance(account, Director) else LearnerLogin(account, key)


def log_in(account: Director | Learner) -> None:
    """Start a login of the pages for ``account`` (a row of its own, a "remember me" cookie)."""
    key = accounts.start_login(account)
    login_user(
        DirectorLogin(account, key) if isinstance(account, Director) else LearnerLogin(account, key), remember=True
    )


def log_out() -> None:
    """End this login: its row goes, so every copy of this browser's cookies stops working too."""
    key = getattr(current_user, "key", None)
    if isinstance(key, str):
        accounts.end_login(key)
    logout_user()


def _renew_remembered(_app: Flask, user: DirectorLogin | LearnerLogin, **_extra: Any) -> None:
    """A remember cookie brought the browser back: the login gets a new key and the browser new cookies."""
    account: Director | Learner = user.director if isinstance(user, DirectorLogin) else user.learner
    key = accounts.renew_login(account, user.key)
    login_user(
        DirectorLogin(account, key) if isinstance(account, Director) else LearnerLogin(account, key), remember=True
    )


def logged_in_learner() -> Learner | None:
    """The learner of this request's session, if any."""
    user = cast(Any, current_user)
    return user.learner if getattr(user, "is_authenticated", False) and isinstance(user, LearnerLogin) else None


def learner_required(view: F) -> F:
    """Word-study pages: a learner's login, else the study login page (coming back afterwards)."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if logged_in_learner() is None:
            return redirect(url_for("study.login", next=request.full_path.rstrip("?")))
        return view(*args, **kwargs)

    return cast(F, wrapper)


def logged_in_director() -> Director | None:
    """The director of this request's session, if any."""
    user = cast(Any, current_user)
    return user.director if getattr(user, "is_authenticated", False) and isinstance(user, DirectorLogin) else None


def directs(game: Game) -> bool:
    """Whether the logged-in director runs ``game``."""
    director = logged_in_director()
    return director is not None and director.id == game.director_id


def director_required(view: F) -> F:
    """Like Flask-Login's ``login_required``, for director pages. An assistant arbiter goes to their own page
    instead: they only enter bulletins."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        director = logged_in_director()
        if director is None:
            return login_manager.unauthorized()
        if director.is_assistant:
            return redirect(url_for("bulletins.home"), code=303)
        return view(*args, **kwargs)

    return cast(F, wrapper)


def arbiter_required(view: F) -> F:
    """Pages for a director and their assistant arbiters (the paper bulletins)."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if logged_in_director() is None:
            return login_manager.unauthorized()
        return view(*args, **kwargs)

    return cast(F, wrapper)


def game_of_arbiter(game_id: int) -> Game:
    """Game ``game_id`` if the logged-in director runs it or assists its director: 404 when there is none, 403
    when it is someone else's."""
    game = db.session.get(Game, game_id)
    if game is None:
        abort(make_response(render_template("game_missing.html", game_id=game_id), 404))
    director = logged_in_director()
    if director is None or not director.arbitrates(game.director_id):
        abort(403)
    return game


def game_of_director(game_id: int) -> Game:
    """The logged-in director's game ``game_id``: 404 when there is none, 403 when it is someone else's."""
    game = db.session.get(Game, game_id)
    if game is None:
        abort(make_response(render_template("game_missing.html", game_id=game_id), 404))
    if not directs(game):
        abort(403)
    return game


def init_app(app: Flask) -> None:
    login_manager.user_loader(_load_user)
    login_manager.init_app(app)
    user_loaded_from_cookie.connect(_renew_remembered, app)
