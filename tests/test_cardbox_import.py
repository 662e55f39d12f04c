"""Importing a Zyzzyva cardbox into a deck, and what the study pages say when they refuse (issue 26, item 12)."""

from __future__ import annotations

import ast
import io
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select

from drills.cardbox import CardboxRow, write_cardbox
from tests.test_pages import text_of
from tests.test_study import _sign_up, _token
from trainer.core.database import db
from trainer.core.errors import Refused
from trainer.study.models import Deck, DeckCard
from trainer.web.messages import game_message

ROOT = Path(__file__).resolve().parent.parent
STUDY_SOURCES = [*sorted((ROOT / "trainer" / "study").glob("*.py")), ROOT / "trainer" / "web" / "study.py"]
FALLBACK = {"en": "The server could not do this now.", "fr": "Le serveur n’a pas pu le faire pour l’instant."}


def _refusal_codes() -> set[str]:
    """Every code the study service and pages refuse with (``Refused("code", ...)`` in their source)."""
    codes = set()
    for path in STUDY_SOURCES:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Refused" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    codes.add(first.value)
    return codes


def test_every_study_refusal_has_its_own_message_in_both_languages(app: Flask) -> None:
    """The cardbox import and the study pages said "The server could not do this now." for refusals the table of
    messages lacked (not_a_cardbox, unknown_deck, bad_grade, ...)."""
    codes = _refusal_codes()
    assert {"not_a_cardbox", "unknown_deck", "bad_grade", "empty_deck", "card_quota"} <= codes  # the scan reads them
    for code in sorted(codes):
        for params in ({}, {"setting": "days", "low": 2, "n": 80}):
            said = {}
            for language in ("en", "fr"):
                with app.test_request_context(headers={"Accept-Language": language}):
                    said[language] = game_message(Refused(code, "an English message for the API", **params))
                assert said[language] != FALLBACK[language], (code, language)
            assert said["en"] != said["fr"], (code, "not translated")


def _cardbox_upload(client: FlaskClient, data: bytes, language: str = "en") -> str:
    answer = client.post(
        "/study/decks/import",
        data={
            "csrf_token": _token(client, "/study/decks/import"),
            "name": "from Zyzzyva",
            "lexicon": "en",
            "file": (io.BytesIO(data), "Anagrams.db"),
        },
        content_type="multipart/form-data",
        headers={"Accept-Language": language},
        follow_redirects=True,
    )
    return answer.get_data(as_text=True)


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("en", "This file is not a Zyzzyva cardbox"),
        ("fr", "Ce fichier n’est pas une cardbox Zyzzyva"),
    ],
)
def test_a_file_that_is_no_cardbox_is_said_so(app: Flask, tmp_path: Path, language: str, message: str) -> None:
    """An SQLite file without Zyzzyva's table of questions: the import page says what is wrong with it."""
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE notes (text)")
    connection.close()
    client = app.test_client()
    _sign_up(client)
    page = _cardbox_upload(client, path.read_bytes(), language)
    assert message in page and FALLBACK[language] not in page


@pytest.mark.parametrize(
    ("language", "left_out", "merged"),
    [
        (
            "en",
            "3 lines of the cardbox were left out: line 2, QQQQQQQ: no word of en; line 4, ZZ9: “9” is not a letter of"
            " the tiles; line 5: no question",
            "1 line of the cardbox was the card of an earlier line, whose schedule is kept: line 3, aeinrst: as line 1,"
            " AEINRST",
        ),
        (
            "fr",
            "3 lignes de la cardbox ont été laissées de côté : ligne 2, QQQQQQQ : aucun mot de en; ligne 4, ZZ9 :"
            " « 9 » n’est pas une lettre des jetons; ligne 5 : pas de question",
            "1 ligne de la cardbox était la carte d’une ligne précédente, dont le calendrier est gardé : ligne 3,"
            " aeinrst : comme la ligne 1, AEINRST",
        ),
    ],
)
def test_a_cardbox_import_reports_the_lines_left_out_and_merged(
    app: Flask, tmp_path: Path, language: str, left_out: str, merged: str
) -> None:
    """docs/rules.md §7.10: rows that make no card were dropped, and two rows of one alphagram merged, without a
    word; the import now says which lines and why, as a word list's report does."""
    path = tmp_path / "Anagrams.db"
    due = datetime.now(UTC) + timedelta(days=4)
    write_cardbox(
        path,
        [
            CardboxRow("AEINRST", 3, due),
            CardboxRow("QQQQQQQ", 1, due),
            CardboxRow("aeinrst", 0, due),  # the same card as line 1
            CardboxRow("ZZ9", 1, due),
        ],
    )
    with sqlite3.connect(path) as connection:
        connection.execute("INSERT INTO questions (question, cardbox) VALUES (NULL, 2)")
    connection.close()
    client = app.test_client()
    _sign_up(client)
    page = " ".join(text_of(_cardbox_upload(client, path.read_bytes(), language)).split())  # the decks' page
    assert left_out in page and merged in page, page[:2000]
    with app.app_context():
        deck = db.session.execute(select(Deck)).scalar_one()
        rows = db.session.execute(select(DeckCard).where(DeckCard.deck_id == deck.id)).scalars().all()
        assert [row.card_id.rsplit(":", 1)[1] for row in rows] == ["AEINRST"]
        assert rows[0].due is not None and abs(rows[0].due.replace(tzinfo=UTC) - due) < timedelta(seconds=1)
