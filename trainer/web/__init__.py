"""The web layer: language choice for every request, then the blueprints (``pages`` for now).

Language: ``?lang=xx`` wins and is remembered in a cookie; else the cookie; else the browser's
Accept-Language; else English. The choice is a link, not a form, so it works on any phone without JavaScript.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from babel import Locale
from flask import Flask, Response, has_request_context, request
from flask_babel import get_locale

from ..extensions import babel

LANGUAGES: tuple[str, ...] = ("en", "fr")
DEFAULT_LANGUAGE = "en"
LANG_PARAM = "lang"
LANG_COOKIE = "tirage_lang"
LANG_COOKIE_MAX_AGE = 365 * 24 * 3600


def _supported(code: str | None) -> str | None:
    """``code`` reduced to a supported language (``FR``, ``fr-CA`` and ``fr_FR`` give ``fr``), else None."""
    if not code:
        return None
    primary = code.strip().replace("_", "-").split("-")[0].lower()
    return primary if primary in LANGUAGES else None


def select_locale() -> str:
    """The language of this request (Flask-Babel calls this once per request)."""
    if not has_request_context():
        return DEFAULT_LANGUAGE
    return (
        _supported(request.args.get(LANG_PARAM))
        or _supported(request.cookies.get(LANG_COOKIE))
        or request.accept_languages.best_match(LANGUAGES)
        or DEFAULT_LANGUAGE
    )


def _remember_language(response: Response) -> Response:
    """Keep an explicit ``?lang=`` choice for later visits; tell caches the page depends on the language."""
    asked = _supported(request.args.get(LANG_PARAM))
    if asked and request.cookies.get(LANG_COOKIE) != asked:
        response.set_cookie(LANG_COOKIE, asked, max_age=LANG_COOKIE_MAX_AGE, samesite="Lax", httponly=True)
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
        return {"current_language": current, "language_choices": choices}
    for code in LANGUAGES:
        args = request.args.copy()
        args[LANG_PARAM] = code
        choices.append(
            {
                "code": code,
                "label": _autonym(code),
                "url": f"{request.script_root}{request.path}?{urlencode(list(args.items(multi=True)))}",
                "current": code == current,
            }
        )
    return {"current_language": current, "language_choices": choices}


def init_app(app: Flask) -> None:
    """Wire translations, the language cookie and the blueprints into ``app``."""
    from . import pages

    babel.init_app(app, locale_selector=select_locale)
    app.after_request(_remember_language)
    app.context_processor(_language_context)
    app.register_blueprint(pages.bp)
