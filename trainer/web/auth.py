"""Logins for the pages (Flask-Login): directors run games, learners study words; the JSON API
keeps its bearer tokens.

A logged-in user is identified as ``director:<id>`` or ``learner:<id>``, so the two kinds of
account share one login manager without their ids colliding.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from flask import Flask, abort, make_response, redirect, render_template, request, url_for
from flask_babel import lazy_gettext as _l
from flask_login import LoginManager, UserMixin, current_user

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

    def __init__(self, director: Director) -> None:
        self.director = director

    def get_id(self) -> str:
        return f"director:{self.director.id}"

    @property
    def username(self) -> str:
        return self.director.username


class LearnerLogin(UserMixin):
    """The logged-in learner, as Flask-Login sees them."""

    def __init__(self, learner: Learner) -> None:
        self.learner = learner

    def get_id(self) -> str:
        return f"learner:{self.learner.id}"

    @property
    def username(self) -> str:
        return self.learner.username


def _load_user(user_id: str) -> DirectorLogin | LearnerLogin | None:
    kind, _, number = user_id.partition(":")
    if not number.isdigit():
        return None
    if kind == "director":
        director = db.session.get(Director, int(number))
        return DirectorLogin(director) if director is not None else None
    if kind == "learner":
        learner = db.session.get(Learner, int(number))
        return LearnerLogin(learner) if learner is not None else None
    return None


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
    """Like Flask-Login's ``login_required``, for director pages."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if logged_in_director() is None:
            return login_manager.unauthorized()
        return view(*args, **kwargs)

    return cast(F, wrapper)


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
