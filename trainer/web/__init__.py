"""The pages (server-rendered Jinja templates in ``templates/``, a little JavaScript in ``static/``).

Blueprints: ``pages`` (home, health check), ``director`` (the director's console), ``play`` (players'
phones), ``projector`` (the room's screen), ``archives`` (finished games), ``study`` (word study), ``wall`` (the
club word wall).
Views stay thin and call the services (:mod:`trainer.games`, :mod:`trainer.study`, :mod:`trainer.wall`).

Language (:mod:`trainer.http.language`): ``?lang=xx`` wins and is remembered in a cookie here; else the
cookie; else the browser's Accept-Language; else English. The choice is a link, not a form, so it works
on any phone without JavaScript. The large-print, high-contrast theme is chosen the same way
(``?theme=contrast``). Logins are Flask-Login's (:mod:`.auth`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from babel import Locale
from flask import Flask, Response, current_app, has_request_context, request
from flask_babel import get_locale

from ..http.language import DEFAULT_LANGUAGE, LANG_COOKIE, LANG_COOKIE_MAX_AGE, LANG_PARAM, LANGUAGES, supported

THEMES: tuple[str, ...] = ("standard", "contrast")
THEME_PARAM = "theme"
THEME_COOKIE = "tirage_theme"


def current_theme() -> str:
    """``contrast`` (large print, high contrast) or ``standard``: ``?theme=`` wins, then the cookie."""
    for asked in (request.args.get(THEME_PARAM), request.cookies.get(THEME_COOKIE)):
        if asked in THEMES:
            return asked
    return THEMES[0]


def _remember_language(response: Response) -> Response:
    """Keep an explicit ``?lang=`` or ``?theme=`` choice for later visits; tell caches the page depends on them."""
    asked = supported(request.args.get(LANG_PARAM))
    secure = bool(current_app.config.get("SESSION_COOKIE_SECURE"))  # https only, like the session (TIRAGE_HTTPS)
    if asked and request.cookies.get(LANG_COOKIE) != asked:
        response.set_cookie(
            LANG_COOKIE, asked, max_age=LANG_COOKIE_MAX_AGE, samesite="Lax", httponly=True, secure=secure
        )
    theme = request.args.get(THEME_PARAM)
    if theme in THEMES and request.cookies.get(THEME_COOKIE) != theme:
        response.set_cookie(
            THEME_COOKIE, theme, max_age=LANG_COOKIE_MAX_AGE, samesite="Lax", httponly=True, secure=secure
        )
    if request.endpoint != "static":
        response.vary.update(("Accept-Language", "Cookie"))
    return response


def _autonym(code: str) -> str:
    """A language's name in that language ("English", "Français"): a reader finds their own whatever the page's."""
    name = Locale.parse(code).get_display_name(code) or code
    return name[:1].upper() + name[1:]


def _language_context() -> dict[str, Any]:
    """``current_language`` for ``<html lang>`` and ``language_choices`` for the switcher on every page."""
    current = str(get_locale() or DEFAULT_LANGUAGE)
    choices: list[dict[str, Any]] = []
    if not has_request_context():  # a template rendered outside a request (a future e-mail, say)
        return {"current_language": current, "language_choices": choices, "theme": THEMES[0]}
    for code in LANGUAGES:
        choices.append(
            {
                "code": code,
                "label": _autonym(code),
                "url": _this_page_with(LANG_PARAM, code),
                "current": code == current,
            }
        )
    theme = current_theme()
    other = THEMES[1] if theme == THEMES[0] else THEMES[0]
    return {
        "current_language": current,
        "language_choices": choices,
        "theme": theme,
        "theme_switch_url": _this_page_with(THEME_PARAM, other),
    }


def _this_page_with(name: str, value: str) -> str:
    """This page's address with one query parameter set (the rest of the query kept)."""
    args = request.args.copy()
    args[name] = value
    return f"{request.script_root}{request.path}?{urlencode(list(args.items(multi=True)))}"


def init_app(app: Flask) -> None:
    """Wire logins, the language and theme cookies, the templates' context and the blueprints into ``app``."""
    from . import (
        account,
        archives,
        auth,
        bulletins,
        competitions,
        director,
        history,
        lexicons,
        pages,
        play,
        practice,
        projector,
        sheets,
        study,
        topping,
        wall,
    )

    auth.init_app(app)
    app.after_request(_remember_language)
    app.context_processor(_language_context)
    for module in (
        pages,
        account,
        archives,
        director,
        bulletins,
        competitions,
        lexicons,
        play,
        projector,
        sheets,
        study,
        history,
        topping,
        practice,
        wall,
    ):
        app.register_blueprint(module.bp)
    history.init_app(app)
