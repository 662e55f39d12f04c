"""The web application skeleton: languages, error pages, health check, database, and a real server process."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import text

import trainer.app as app_module
from tests.processes import TirageServer
from trainer.app import create_app, normalise_database_url
from trainer.core.database import db
from trainer.engine.rules import ruleset_codes
from trainer.http.language import LANG_COOKIE

ROOT = Path(__file__).resolve().parent.parent
FR_PO = ROOT / "trainer" / "translations" / "fr" / "LC_MESSAGES" / "messages.po"
FR_MO = FR_PO.with_suffix(".mo")

EN_HOME = "Duplicate sessions"
FR_HOME = "Parties en duplicate"


def html_lang(body: str) -> str:
    match = re.search(r'<html lang="([^"]+)"', body)
    assert match, "the page has no <html lang>"
    return match.group(1)


# ---------------------------------------------------------------- home page and languages


def test_home_page_in_english_by_default(client: FlaskClient) -> None:
    response = client.get("/")
    body = response.get_data(as_text=True)
    assert response.status_code == 200
    assert html_lang(body) == "en"
    assert 'name="viewport"' in body
    for text_ in (EN_HOME, "Word study", "Club nights", "Join a game"):
        assert text_ in body
    for code in ruleset_codes():
        assert f"<code>{code}</code>" in body
    assert "ENABLE (public domain)" in body  # the bundled lexicon's description
    assert 'href="/?lang=fr"' in body and ">Français<" in body


@pytest.mark.parametrize("accept", ["fr", "fr-FR,fr;q=0.9,en;q=0.5", "de, fr;q=0.5, en;q=0.3"])
def test_home_page_in_french_from_accept_language(client: FlaskClient, accept: str) -> None:
    body = client.get("/", headers={"Accept-Language": accept}).get_data(as_text=True)
    assert html_lang(body) == "fr"
    assert FR_HOME in body and "Rejoindre une partie" in body
    assert EN_HOME not in body


def test_lang_parameter_wins_and_the_cookie_remembers_it(client: FlaskClient) -> None:
    english_browser = {"Accept-Language": "en"}
    response = client.get("/?lang=fr", headers=english_browser)
    assert html_lang(response.get_data(as_text=True)) == "fr"
    assert LANG_COOKIE in response.headers["Set-Cookie"]

    later = client.get("/", headers=english_browser)
    assert html_lang(later.get_data(as_text=True)) == "fr"
    assert FR_HOME in later.get_data(as_text=True)
    assert "Set-Cookie" not in later.headers  # nothing new to remember

    back = client.get("/?lang=en", headers={"Accept-Language": "fr"})
    assert html_lang(back.get_data(as_text=True)) == "en"
    assert html_lang(client.get("/", headers={"Accept-Language": "fr"}).get_data(as_text=True)) == "en"


def test_unknown_languages_fall_back_to_english(client: FlaskClient) -> None:
    response = client.get("/?lang=xx", headers={"Accept-Language": "de, it;q=0.8"})
    assert html_lang(response.get_data(as_text=True)) == "en"
    assert "Set-Cookie" not in response.headers


def test_pages_say_they_depend_on_the_language(client: FlaskClient) -> None:
    assert {"Accept-Language", "Cookie"} <= set(client.get("/").vary)
    with client.get("/static/tirage.css") as css:
        assert css.status_code == 200 and css.mimetype == "text/css"
        assert "Accept-Language" not in css.vary


def test_language_links_keep_the_rest_of_the_query(client: FlaskClient) -> None:
    body = client.get("/?round=3&lang=en").get_data(as_text=True)
    assert 'href="/?round=3&amp;lang=fr"' in body
    assert 'aria-current="true">English<' in body


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("headers", "lang", "title"),
    [({}, "en", "Not found"), ({"Accept-Language": "fr"}, "fr", "Introuvable")],
)
def test_404_is_a_page_in_the_readers_language(
    client: FlaskClient, headers: dict[str, str], lang: str, title: str
) -> None:
    response = client.get("/no/such/page", headers=headers)
    body = response.get_data(as_text=True)
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    assert html_lang(body) == lang
    assert f"<h1>{title}</h1>" in body
    assert "Traceback" not in body


def test_405_page_keeps_the_allow_header(client: FlaskClient) -> None:
    response = client.post("/", headers={"Accept-Language": "fr"})
    assert response.status_code == 405
    assert "GET" in response.headers["Allow"]
    assert "Méthode non autorisée" in response.get_data(as_text=True)


def test_api_errors_are_json(client: FlaskClient) -> None:
    response = client.get("/api/nope")
    assert response.status_code == 404
    assert response.mimetype == "application/json"
    assert response.get_json() == {"error": "Not found"}
    assert client.get("/api/nope", headers={"Accept-Language": "fr"}).get_json() == {"error": "Introuvable"}


def test_an_unexpected_exception_gives_a_500_page_without_a_traceback(app: Flask) -> None:
    def explode() -> str:
        raise RuntimeError("secret detail of the failure")

    app.add_url_rule("/boom", "boom", explode)
    app.add_url_rule("/api/boom", "api_boom", explode)
    app.config["PROPAGATE_EXCEPTIONS"] = False  # TESTING would re-raise into the test instead
    client = app.test_client()

    for headers, lang, title in (({}, "en", "Server error"), ({"Accept-Language": "fr"}, "fr", "Erreur du serveur")):
        response = client.get("/boom", headers=headers)
        body = response.get_data(as_text=True)
        assert response.status_code == 500
        assert html_lang(body) == lang and f"<h1>{title}</h1>" in body
        assert "Traceback" not in body and "secret detail" not in body

    api = client.get("/api/boom")
    assert api.status_code == 500
    assert api.get_json() == {"error": "Server error"}


def test_healthz(client: FlaskClient) -> None:
    """Healthy means the database took a write just now; each lexicon says where it stands."""
    response = client.get("/healthz")
    assert response.status_code == 200
    answer = response.get_json()
    assert (answer["status"], answer["database"], answer["rebuilt_lexicons"]) == ("ok", "writable", {})
    assert set(answer["lexicons"]) >= {"en", "fr"} and set(answer["lexicons"].values()) <= {"ready", "not loaded yet"}


# ---------------------------------------------------------------- instance folder, database, configuration


def test_instance_folder_is_the_temporary_one(app: Flask, tmp_path: Path) -> None:
    assert Path(app.instance_path) == tmp_path / "instance"
    assert Path(app.instance_path) != ROOT / "instance"


@pytest.mark.parametrize("database_url", [""], ids=["sqlite"])  # this one is about the SQLite file
def test_sqlite_database_is_created_in_the_instance_folder_in_wal_mode(app: Flask) -> None:
    database = Path(app.instance_path) / "tirage.sqlite"
    assert database.is_file()
    with sqlite3.connect(database) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"  # persisted in the file
    with app.app_context():
        assert db.session.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert db.session.execute(text("PRAGMA busy_timeout")).scalar() == 5000
    # The listener belongs to the application's engine, not to every SQLite engine in the process.
    other = sqlalchemy.create_engine("sqlite://")
    with other.connect() as connection:
        assert connection.execute(text("PRAGMA foreign_keys")).scalar() == 0
    other.dispose()


def test_secret_key_survives_a_restart_and_the_environment_wins(app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    key_file = Path(app.instance_path) / "secret_key"
    assert key_file.is_file() and len(app.config["SECRET_KEY"]) >= 32
    assert create_app({"TESTING": True}).config["SECRET_KEY"] == app.config["SECRET_KEY"]
    monkeypatch.setenv("TIRAGE_SECRET_KEY", "from-the-environment")
    assert create_app({"TESTING": True}).config["SECRET_KEY"] == "from-the-environment"


def test_database_url_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TIRAGE_INSTANCE", str(tmp_path / "instance"))
    elsewhere = tmp_path / "elsewhere.sqlite"
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{elsewhere}")
    application = create_app({"TESTING": True})
    assert application.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{elsewhere}"
    assert elsewhere.is_file()
    assert not (tmp_path / "instance" / "tirage.sqlite").exists()
    with application.app_context():
        db.engine.dispose()


@pytest.mark.parametrize(
    ("url", "with_psycopg", "expected"),
    [
        ("postgres://u:p@host:5432/club", True, "postgresql+psycopg://u:p@host:5432/club"),
        ("postgres://u:p@host:5432/club", False, "postgresql://u:p@host:5432/club"),
        ("postgresql://u@host/club", True, "postgresql+psycopg://u@host/club"),
        ("postgresql+psycopg2://u@host/club", True, "postgresql+psycopg2://u@host/club"),
        ("sqlite:////srv/tirage.sqlite", True, "sqlite:////srv/tirage.sqlite"),
    ],
)
def test_normalise_database_url(monkeypatch: pytest.MonkeyPatch, url: str, with_psycopg: bool, expected: str) -> None:
    monkeypatch.setattr(app_module, "_psycopg_installed", lambda: with_psycopg)
    assert normalise_database_url(url) == expected


# ---------------------------------------------------------------- translations and templates


def test_every_message_has_a_french_translation_and_the_mo_is_up_to_date() -> None:
    with (ROOT / "babel.cfg").open() as cfg:
        method_map, options_map = parse_mapping_cfg(cfg, str(ROOT / "babel.cfg"))
    keywords = {**DEFAULT_KEYWORDS, "_l": None, "lazy_gettext": None}  # the forms' lazy labels too
    extracted = {
        message
        for _file, _line, message, _comments, _context in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=keywords
        )
    }
    with FR_PO.open("rb") as po_file:
        po = read_po(po_file, locale="fr")
    with FR_MO.open("rb") as mo_file:
        mo = read_mo(mo_file)
    assert extracted, "nothing extracted: is babel.cfg right?"
    for message_id in extracted:
        entry = po.get(message_id)
        assert entry is not None, f"{message_id!r} is missing from {FR_PO.name}: run pybabel update (see babel.cfg)"
        assert entry.string and not entry.fuzzy, f"{message_id!r} has no French translation"
        compiled = mo.get(message_id)
        # Plural entries come back as a list from the .mo and a tuple from the .po.
        same = (
            compiled is not None
            and (tuple(compiled.string) if isinstance(compiled.string, list) else compiled.string) == entry.string
        )
        assert same, f"messages.mo is stale for {message_id!r}: run pybabel compile"


_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
_VISIBLE_ATTRIBUTE = re.compile(r'\b(?:title|alt|aria-label|placeholder)="([^"]*)"')
_TAG = re.compile(r"<[^>]*>", re.S)


@pytest.mark.parametrize("template", sorted((ROOT / "templates").rglob("*.html")), ids=lambda p: p.name)
def test_templates_have_no_hard_coded_text(template: Path) -> None:
    """Every word a reader sees must come from ``_()`` (or from data), so the French page is all French."""
    source = template.read_text("utf-8")
    for value in _VISIBLE_ATTRIBUTE.findall(source):
        assert not re.search(r"[^\W\d_]", _JINJA.sub("", value)), f"{template.name}: attribute text {value!r}"
    outside_tags = _TAG.sub(" ", re.sub(r"<(script|style)\b.*?</\1>", " ", _JINJA.sub(" ", source), flags=re.S))
    words = re.findall(r"[^\W\d_]+", re.sub(r"&\w+;", " ", outside_tags))
    assert not words, f"{template.name}: hard-coded text {words}"


# ---------------------------------------------------------------- a real server process


def test_tirage_serve_answers_over_http(tmp_path: Path) -> None:
    # Started from an unrelated folder (tmp_path): templates, static files and translations must not depend on the cwd.
    server = TirageServer(tmp_path)
    with server:
        status, body = server.get("/", headers={"Accept-Language": "fr"})
        assert status == 200 and FR_HOME in body, server.output()
        status, _css = server.get("/static/tirage.css")
        assert status == 200
        assert (tmp_path / "instance" / "tirage.sqlite").is_file()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_postgresql_from_database_url_gets_the_migrated_schema(app: Flask) -> None:
    """With DATABASE_URL on a PostgreSQL server the app runs the migrations there, not on SQLite."""
    from trainer.core.database import db

    with app.app_context():
        assert db.engine.dialect.name == "postgresql"
        tables = set(sqlalchemy.inspect(db.engine).get_table_names())
    assert {"alembic_version", "game", "player", "round", "submission", "result", "event"} <= tables
    assert not (Path(app.instance_path) / "tirage.sqlite").exists()
