"""The language of a request: ``?lang=xx`` wins (and is remembered in a cookie by the pages), else the
cookie, else the browser's Accept-Language, else English. Flask-Babel asks :func:`select_locale`; the
event loop's fast path, which answers outside Flask, asks :func:`choose_language` with the same rule."""

from __future__ import annotations

from decimal import Decimal

from flask import Flask, has_request_context, request
from flask_babel import Babel, format_decimal
from werkzeug.datastructures import LanguageAccept

LANGUAGES: tuple[str, ...] = ("en", "fr")
DEFAULT_LANGUAGE = "en"
LANG_PARAM = "lang"
LANG_COOKIE = "tirage_lang"
LANG_COOKIE_MAX_AGE = 365 * 24 * 3600

babel = Babel()


def supported(code: str | None) -> str | None:
    """``code`` reduced to a supported language (``FR``, ``fr-CA`` and ``fr_FR`` give ``fr``), else None."""
    if not code:
        return None
    primary = code.strip().replace("_", "-").split("-")[0].lower()
    return primary if primary in LANGUAGES else None


def choose_language(asked: str | None, remembered: str | None, accepted: LanguageAccept) -> str:
    """``?lang=``, else the cookie, else the browser's Accept-Language, else English."""
    return supported(asked) or supported(remembered) or accepted.best_match(LANGUAGES) or DEFAULT_LANGUAGE


def select_locale() -> str:
    """The language of this request (Flask-Babel calls this once per request)."""
    if not has_request_context():
        return DEFAULT_LANGUAGE
    return choose_language(request.args.get(LANG_PARAM), request.cookies.get(LANG_COOKIE), request.accept_languages)


def format_percentage(value: Decimal) -> str:
    """A standings percentage with exactly two decimals, in the request's language: ``98.75`` in English,
    ``98,75`` in French (docs/rules.md §6.13). The value is already rounded, so the format only writes it."""
    return str(format_decimal(value, "0.00"))


def init_app(app: Flask) -> None:
    babel.init_app(app, locale_selector=select_locale)
    app.add_template_filter(format_percentage, "percentage")
