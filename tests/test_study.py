"""Word study on the server (SQLite and PostgreSQL): learners' accounts, decks, the database-backed
queue against the pure one, grades, undo, daily limits across days, import and export, the pages."""

from __future__ import annotations

import csv
import io
import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from fsrs import Scheduler
from sqlalchemy import func, select

from drills.cardbox import CardboxRow, write_cardbox
from drills.probability import alphagram
from drills.scheduling import DayCount, DeckLimits, DeckQueue, ReviewKind
from trainer.core import accounts
from trainer.core.accounts import Learner
from trainer.core.database import db
from trainer.core.errors import Refused
from trainer.study import service
from trainer.study.models import Deck, DeckCard, Review

NOON = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


@pytest.fixture
def study_app(app: Flask) -> Flask:
    app.config["TIRAGE_FSRS_FUZZ"] = False  # exact due dates
    return app


def _learner(name: str = "lea") -> Learner:
    return accounts.create_learner(name, "password123")


def _words_deck(learner: Learner, words: str, **limits: int) -> Deck:
    deck, skipped = service.create_deck(learner, "mine", "en", {"kind": "words", "text": words}, **limits)
    assert not skipped
    return deck


def _perfect(deck: Deck, row: DeckCard) -> list[str]:
    return sorted(service.card_of(deck, row).answers)


def test_learners_and_their_passwords(study_app: Flask) -> None:
    with study_app.app_context():
        _learner()
        with pytest.raises(Refused) as taken:
            _learner()
        assert taken.value.code == "learner_taken"
        with pytest.raises(Refused) as short:
            accounts.create_learner("max", "short")
        assert short.value.code == "short_password"
        assert accounts.authenticate_learner("lea", "password123") is not None
        assert accounts.authenticate_learner("lea", "wrong-password") is None


def test_the_database_queue_picks_what_the_pure_queue_picks_over_simulated_days(study_app: Flask) -> None:
    """Answer 3 days of a 60-card deck, right and wrong in turn, and compare every pick with
    drills.scheduling.DeckQueue over all the deck's states (the reference)."""
    with study_app.app_context():
        learner = _learner()
        deck, _ = service.create_deck(
            learner,
            "7s",
            "en",
            {"kind": "anagram", "length": 7, "first": 1, "last": 60},
            new_per_day=8,
            reviews_per_day=30,
        )
        limits = DeckLimits(new_per_day=8, reviews_per_day=30)
        picks = 0
        for day in range(3):
            now = NOON + timedelta(days=day)
            for step in range(40):
                rows = db.session.execute(select(DeckCard).where(DeckCard.deck_id == deck.id)).scalars().all()
                states = [service._state(row) for row in rows]
                today = service._today(deck, now)
                done = DayCount(
                    new=sum(r.kind == ReviewKind.NEW.value for r in today),
                    reviews=sum(r.kind == ReviewKind.REVIEW.value for r in today),
                )
                expected = DeckQueue(states).next_card(
                    now, done, limits, service.boundary_of(deck), [r.card_id for r in today[-service.RECENT :]]
                )
                got = service.next_card(deck, now)
                assert (got[0].card_id if got else None) == (expected.card_id if expected else None), (day, step)
                if got is None:
                    break
                picks += 1
                row, _pick = got
                answers = _perfect(deck, row)
                typed = answers if step % 3 else answers[:-1]  # every third answer misses a word
                service.answer(deck, row, typed, 5.0, now)
                now += timedelta(seconds=30)
            assert service.day_count(deck, now).new <= 8
        assert picks > 40


def test_grades_from_answers_and_overrides_and_undo(study_app: Flask) -> None:
    with study_app.app_context():
        deck = _words_deck(_learner(), "RETAINS\nSATIRE")
        first = service.next_card(deck, NOON)
        assert first is not None
        row, _ = first
        answers = _perfect(deck, row)
        phony = row.card_id.rpartition(":")[2][::-1]  # the card's own letters, no word (other letters: a typo, §7.6)
        feedback, review = service.answer(deck, row, [*answers, phony], 3.0, NOON)
        assert review.rating == 1 and feedback.wrong  # a phony among the right answers: Again
        again = service.regrade(deck, 3, NOON)
        assert again.rating == 3 and again.suggested == 1
        assert db.session.get(DeckCard, row.id).state == 1  # type: ignore[union-attr]  # learning, step 1
        service.undo(deck)
        restored = db.session.get(DeckCard, row.id)
        assert restored is not None and restored.state == 0 and restored.fsrs is None  # new again
        assert db.session.execute(select(func.count(Review.id)).where(Review.undone.is_(True))).scalar() == 1
        nxt = service.next_card(deck, NOON)
        assert nxt is not None and nxt[0].id == row.id  # the undone card comes back first
        _, slow = service.answer(deck, row, answers, 600.0, NOON)
        assert slow.rating == 2  # all right but slow: Hard
        with pytest.raises(Refused):
            service.regrade(deck, 5, NOON)


def test_daily_limits_and_the_next_day(study_app: Flask) -> None:
    with study_app.app_context():
        words = "\n".join(["RETAINS", "SATIRE", "TOENAIL", "ELATION", "AILERON", "TRAINEE"])
        deck = _words_deck(_learner(), words, new_per_day=3)
        now = NOON
        seen = []
        while (got := service.next_card(deck, now)) is not None and len(seen) < 20:
            row, pick = got
            if pick.kind.value == "ahead":
                break
            seen.append(row.card_id)
            service.answer(deck, row, _perfect(deck, row), 3.0, now)  # all right and fast: Easy
            now += timedelta(seconds=10)
        assert len(set(seen)) == 3 and service.day_count(deck, now).new == 3
        tomorrow = service.next_card(deck, NOON + timedelta(days=1))
        assert tomorrow is not None and tomorrow[1].kind.value == "new"  # a new day, new cards again


def test_cardbox_import_keeps_the_schedule_and_export_has_every_review(study_app: Flask, tmp_path: Path) -> None:
    with study_app.app_context():
        learner = _learner()
        path = tmp_path / "cardbox.db"
        due = NOON + timedelta(days=3)
        write_cardbox(
            path,
            [
                CardboxRow(
                    alphagram("RETAINS"), 2, due, correct=5, incorrect=1, streak=2, last_correct=due - timedelta(days=7)
                ),
                CardboxRow("QQQQ", 0, None),
            ],
        )
        with sqlite3.connect(path) as connection:
            assert connection.execute("select count(*) from questions").fetchone()[0] == 2
        from drills.cardbox import import_cardbox, read_cardbox
        from trainer.core.lexicons import lexicon_store

        imported = import_cardbox(read_cardbox(path), lexicon_store().load("en"), NOON, Scheduler())
        assert [why for _q, why in imported.skipped]  # QQQQ makes no word
        deck, _ = service.create_deck(learner, "zyzzyva", "en", {"kind": "cardbox"}, states=imported.states)
        row = db.session.execute(select(DeckCard).where(DeckCard.deck_id == deck.id)).scalar_one()
        assert row.state == 2 and row.due is not None
        assert abs((row.due - (NOON + timedelta(days=3))).total_seconds()) < 2
        assert service.next_card(deck, NOON) is None  # nothing due today: the day's end (§7.8)
        assert service.next_card(deck, NOON, ahead=True) is not None  # studying ahead, asked for: the soonest card
        service.answer(deck, row, ["RETAINS"], 4.0, NOON)
        exported = list(csv.DictReader(io.StringIO(service.export_csv(deck))))
        assert len(exported) == 1 and exported[0]["card"] == "anagram:en:AEINRST"
        assert exported[0]["answers"] == "RETAINS" and exported[0]["kind"] == "review"


# ---------------------------------------------------------------- the pages


def _token(client: FlaskClient, path: str) -> str:
    match = re.search(r'name="csrf_token" (?:type="hidden" )?value="([^"]+)"', client.get(path).get_data(as_text=True))
    assert match, path
    return match.group(1)


def _sign_up(client: FlaskClient, name: str = "lea") -> None:
    answer = client.post(
        "/study/signup",
        data={"csrf_token": _token(client, "/study/signup"), "username": name, "password": "password123"},
    )
    assert answer.status_code == 303


@pytest.mark.parametrize(
    ("language", "taken", "short", "generic"),
    [
        (
            "en",
            "The name lea is taken: choose another one.",
            "The password must have at least 8 characters.",
            "The server could not do this now.",
        ),
        (
            "fr",
            "Le nom lea est déjà pris : choisissez-en un autre.",
            "Le mot de passe doit avoir au moins 8 caractères.",
            "Le serveur n’a pas pu le faire pour l’instant.",
        ),
    ],
)
def test_sign_up_says_what_is_wrong(study_app: Flask, language: str, taken: str, short: str, generic: str) -> None:
    """Issue 15: a taken name (and before it a short password) answered "The server could not do this now."."""
    _sign_up(study_app.test_client())
    client = study_app.test_client()
    for name, password, message in (("lea", "password123", taken), ("max", "short", short), ("max", "", None)):
        answer = client.post(
            "/study/signup",
            data={"csrf_token": _token(client, "/study/signup"), "username": name, "password": password},
            headers={"Accept-Language": language},
        )
        page = answer.get_data(as_text=True)
        assert answer.status_code == 400 and generic not in page, page
        if message is not None:
            assert message in page, page
    with study_app.app_context():
        assert db.session.execute(select(func.count()).select_from(Learner)).scalar_one() == 1


DECK_FORM = {
    "name": "7s",
    "lexicon": "en",
    "kind": "anagram",
    "length": "7",
    "first": "1",
    "last": "50",
    "blanks": "0",
    "stem_length": "6",
    "stem_count": "100",
    "twos_part": "hooks",
    "words": "",
    "new_per_day": "20",
    "reviews_per_day": "200",
    "desired_retention": "0.9",
}


def test_studying_through_the_pages(study_app: Flask) -> None:
    client = study_app.test_client()
    assert client.get("/study/").headers["Location"].startswith("/study/login")
    _sign_up(client)
    # The deck starts at rank 3 of the 7-letter alphagrams with words in ENABLE (1 is ADEINOR: ANEROID
    # alone; 2 is AEILNOR), so its first card, AEILNOT, has two words: ELATION and TOENAIL.
    form = {**DECK_FORM, "first": "3", "csrf_token": _token(client, "/study/decks/new")}
    made = client.post("/study/decks/new", data=form)
    assert made.status_code == 303
    study_url = made.headers["Location"]
    page = client.get(study_url).get_data(as_text=True)
    prompt = re.search(r'class="prompt">([A-Z?]+)<', page)
    card = re.search(r'name="card" value="(\d+)"', page)
    assert prompt and card and prompt.group(1) == "AEILNOT"  # the deck's likeliest 7-letter alphagram
    token = _token(client, study_url)
    checked = client.post(
        f"{study_url}/check",
        data={"csrf_token": token, "card": card.group(1), "word": "toenail"},
        headers={"Accept": "application/json"},
    )
    assert checked.get_json() == {"right": ["TOENAIL"], "wrong": []}
    answered = client.post(
        f"{study_url}/answer",
        data={"csrf_token": token, "card": card.group(1), "answers": "TOENAIL elation", "seconds": "3"},
    )
    shown = client.get(answered.headers["Location"]).get_data(as_text=True)
    assert "All right!" in shown and "Grade: Easy" in shown
    graded = client.post(f"{study_url}/grade", data={"csrf_token": token, "rating": "2"})
    assert graded.status_code == 303
    with study_app.app_context():
        review = db.session.execute(select(Review)).scalar_one()
        assert (review.rating, review.suggested, review.answers) == (2, 4, ["TOENAIL", "ELATION"])
    assert client.get("/study/progress").status_code == 200
    export = client.get(f"{study_url}/export.csv")
    assert export.status_code == 200 and "anagram:en:AEILNOT" in export.get_data(as_text=True)


def test_a_learners_decks_are_theirs_alone(study_app: Flask) -> None:
    lea, max_ = study_app.test_client(), study_app.test_client()
    _sign_up(lea)
    _sign_up(max_, "max")
    # A name no random token or page text can contain by chance ("7s" could, in a CSRF token).
    made = lea.post(
        "/study/decks/new", data={**DECK_FORM, "name": "Lea-only-sevens", "csrf_token": _token(lea, "/study/decks/new")}
    )
    deck_url = made.headers["Location"]
    assert "Lea-only-sevens" in lea.get("/study/").get_data(as_text=True)
    assert max_.get(deck_url).status_code == 404
    assert max_.get(f"{deck_url}/export.csv").status_code == 404
    token = _token(max_, "/study/decks/new")
    assert max_.post(f"{deck_url}/undo", data={"csrf_token": token}).status_code == 404
    assert "Lea-only-sevens" not in max_.get("/study/").get_data(as_text=True)


def test_sign_ups_from_one_address_are_limited(study_app: Flask) -> None:
    """Issue 14: open sign-up let anyone make accounts (and decks) without end."""
    study_app.config["TIRAGE_RATELIMIT_SIGNUP"] = "2/hour"
    for name in ("lea", "leo"):
        _sign_up(study_app.test_client(), name)
    client = study_app.test_client()
    answer = client.post(
        "/study/signup",
        data={"csrf_token": _token(client, "/study/signup"), "username": "lou", "password": "password123"},
        headers={"Accept-Language": "fr"},
    )
    assert answer.status_code == 429 and "Trop de comptes" in answer.get_data(as_text=True)
    with study_app.app_context():
        assert db.session.execute(select(func.count(Learner.id))).scalar_one() == 2
    other = study_app.test_client()
    answer = other.post(
        "/study/signup",
        data={"csrf_token": _token(other, "/study/signup"), "username": "lou", "password": "password123"},
        environ_base={"REMOTE_ADDR": "192.0.2.44"},
    )
    assert answer.status_code == 303  # another address is not held back


def test_a_learner_has_a_quota_of_decks_and_cards(study_app: Flask) -> None:
    study_app.config.update(TIRAGE_LEARNER_DECKS=2, TIRAGE_LEARNER_CARDS=120)
    client = study_app.test_client()
    _sign_up(client)
    for name in ("first", "second"):
        form = {**DECK_FORM, "name": name, "csrf_token": _token(client, "/study/decks/new")}
        assert client.post("/study/decks/new", data=form).status_code == 303
    form = {**DECK_FORM, "name": "third", "csrf_token": _token(client, "/study/decks/new")}
    page = client.post("/study/decks/new", data=form)
    assert "You have 2 decks, the most one learner may have" in page.get_data(as_text=True)
    with study_app.app_context():
        second = db.session.execute(select(Deck.id).where(Deck.name == "second")).scalar_one()
    token = _token(client, "/study/")
    deleted = client.post(f"/study/decks/{second}/delete", data={"csrf_token": token})
    page = client.get("/study/").get_data(as_text=True)
    assert deleted.status_code == 303 and "The deck “second” is deleted." in page and ">second</a>" not in page
    with study_app.app_context():
        learner = db.session.execute(select(Learner)).scalar_one()
        assert db.session.execute(select(func.count(DeckCard.id))).scalar_one() == 50  # the deck's cards went too
        with pytest.raises(Refused) as refused:  # 50 cards held, 100 more would pass 120
            service.create_deck(learner, "big", "en", {"kind": "anagram", "length": 7, "first": 1, "last": 100})
        assert refused.value.code == "card_quota"
        assert db.session.execute(select(func.count(Deck.id))).scalar_one() == 1
