"""What a learner notices in their first week of study (issue 28, items 11-14; docs/rules.md §7.4-§7.8, §7.14,
§7.17): the day's end and studying ahead, same-day repeats, stem cards of both kinds, the answering aids (answers
counted, the next interval on each grade, hooks at the reveal, a typo asked again), and the small things. Database
tests run on SQLite and PostgreSQL; decks are made from card states (no probability table to build)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler, State
from sqlalchemy import select

from drills.scheduling import CardState, review_card
from trainer.core.accounts import Learner
from trainer.core.database import db
from trainer.core.errors import Refused
from trainer.games.models import PracticeSession
from trainer.study import service
from trainer.study.builder import DeckBuilder
from trainer.study.models import Deck, DeckCard, Review
from trainer.web.messages import game_message

from .test_study import _sign_up, _token

T0 = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
FR = {"Accept-Language": "fr"}


@pytest.fixture
def study_app(app: Flask) -> Flask:
    app.config["TIRAGE_FSRS_FUZZ"] = False  # exact due dates
    return app


def _learner(name: str = "lea") -> Learner:
    return db.session.execute(select(Learner).where(Learner.username == name)).scalar_one()


def _deck(keys: tuple[str, ...], kind: str = "words", **limits: int) -> Deck:
    """A deck of the signed-up learner whose cards are given by id (no probability table to build)."""
    states = [CardState(key, rank) for rank, key in enumerate(keys, start=1)]
    source = {"kind": kind, "text": ""} if kind == "words" else {"kind": kind, "length": 6, "count": 1}
    deck, _ = service.create_deck(_learner(), "mine", "en", source, states=states, **limits)
    return deck


def _row(deck: Deck, card_id: str) -> DeckCard:
    return db.session.execute(
        select(DeckCard).where(DeckCard.deck_id == deck.id, DeckCard.card_id == card_id)
    ).scalar_one()


def _text(html: str) -> str:
    """A page's text as read: tags gone, spaces folded."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# ---------------------------------------------------------------- item 11: the day's end, same-day repeats


def test_a_same_day_repeat_never_lengthens_an_interval() -> None:
    """§7.7: a new card graded Easy is in review for 8 days (stability 8.3); answered again 30 s later, fsrs alone
    would make it 13.0 days. Here a pass within a day of the last review leaves the card as it was; Again still
    sends it to relearning."""
    scheduler = Scheduler(enable_fuzzing=False)
    first = review_card(CardState("a"), Rating.Easy, T0, scheduler).after
    assert first.fsrs is not None and round(first.fsrs.stability, 1) == 8.3
    assert first.fsrs.due == T0 + timedelta(days=8)
    for rating in (Rating.Hard, Rating.Good, Rating.Easy):
        for later in (timedelta(seconds=30), timedelta(hours=23, minutes=59)):
            again = review_card(first, rating, T0 + later, scheduler)
            assert again.after.fsrs is not None and again.log.rating == rating
            assert again.after.fsrs.stability == first.fsrs.stability  # Easy alone would have made it 13.0
            assert again.after.fsrs.due == T0 + later + timedelta(days=8)  # the same 8 days, from the repeat
    lapse = review_card(first, Rating.Again, T0 + timedelta(seconds=30), scheduler).after
    assert lapse.fsrs is not None and lapse.fsrs.state == State.Relearning
    next_day = review_card(first, Rating.Easy, T0 + timedelta(days=1), scheduler).after
    assert next_day.fsrs is not None and next_day.fsrs.stability > first.fsrs.stability  # a day later it counts


@pytest.mark.parametrize(
    ("headers", "done", "tomorrow", "ahead", "nothing_ahead"),
    [
        (
            {},
            "Done for today",
            "Tomorrow: 0 reviews due · 1 new card",
            "Study ahead",
            "Nothing is left to study ahead today.",
        ),
        (
            FR,
            "Fini pour aujourd’hui",
            "Demain : 0 révision due · 1 nouvelle carte",
            "Étudier en avance",
            "Il ne reste rien à étudier en avance aujourd’hui.",
        ),
    ],
)
def test_the_days_end_says_what_is_next_and_studies_ahead_only_when_asked(
    study_app: Flask, headers: dict[str, str], done: str, tomorrow: str, ahead: str, nothing_ahead: str
) -> None:
    """§7.8: one new card a day. Two cards answered Easy two days ago (due in 6 days), today's new card answered
    Easy: the page says the day is done and what tomorrow holds (the fourth card), and shows none of the three by
    itself. "Study ahead" brings the two older ones, never today's (answering it again would change nothing)."""
    client = study_app.test_client()
    _sign_up(client)
    now = datetime.now(UTC)
    older, today = ("anagram:en:AEILNOT", "anagram:en:AEINRST"), "anagram:en:ADEINOR"
    with study_app.app_context():
        deck = _deck((*older, today, "anagram:en:AEGINRT"), new_per_day=1)
        for key, when in ((older[0], now - timedelta(days=2)), (older[1], now - timedelta(days=2)), (today, now)):
            row = _row(deck, key)
            service.answer(deck, row, service.card_of(deck, row).solutions(), 2.0, when)  # all right, fast: Easy
        deck_id, today_id = deck.id, _row(deck, today).id
    url = f"/study/decks/{deck_id}"
    page = _text(client.get(url, headers=headers).get_data(as_text=True))
    assert done in page and tomorrow in page and ahead in page
    assert not re.search(r"AEILNOT|AEINRST|ADEINOR|AEGINRT", page)
    token = _token(client, url)
    seen = []
    for _ in range(2):  # the two cards answered two days ago, ahead of their day
        early = client.get(f"{url}?ahead=1", headers=headers).get_data(as_text=True)
        card = re.search(r'name="card" value="(\d+)"', early)
        prompt = re.search(r'class="prompt">([A-Z?]+)<', early)
        assert card is not None and prompt is not None
        assert 'name="ahead" value="1"' in early  # the answer keeps the learner studying ahead
        seen.append(prompt.group(1))
        with study_app.app_context():
            deck = db.session.get(Deck, deck_id)
            row = db.session.get(DeckCard, int(card.group(1)))
            assert deck is not None and row is not None
            answers = " ".join(service.card_of(deck, row).solutions())
        answered = client.post(
            f"{url}/answer",
            data={"csrf_token": token, "card": card.group(1), "answers": answers, "seconds": "2", "ahead": "1"},
        )
        assert answered.status_code == 303 and "ahead=1" in answered.headers["Location"]
        shown = client.get(answered.headers["Location"]).get_data(as_text=True)
        assert f'href="/study/decks/{deck_id}?ahead=1" data-next' in shown
    assert sorted(seen) == ["AEILNOT", "AEINRST"]
    assert nothing_ahead in _text(client.get(f"{url}?ahead=1", headers=headers).get_data(as_text=True))
    with study_app.app_context():
        row = db.session.get(DeckCard, today_id)
        assert row is not None and row.stability is not None and round(row.stability, 1) == 8.3


# ---------------------------------------------------------------- item 12: stem cards of both kinds


@pytest.mark.parametrize(
    ("headers", "asks", "letters_only", "instruction"),
    [
        (
            {},
            "Each stem card asks for",
            "The letters only: which letters make a word with the stem",
            "Which letters make a word with this stem? Type the letters.",
        ),
        (
            FR,
            "Chaque carte de radical demande",
            "Les lettres seules : quelles lettres font un mot avec le radical",
            "Quelles lettres forment un mot avec ce radical ? Tapez les lettres.",
        ),
    ],
)
def test_the_deck_form_makes_stem_cards_of_both_kinds(
    study_app: Flask, headers: dict[str, str], asks: str, letters_only: str, instruction: str
) -> None:
    """§7.4: the form offers the stem card that asks for the words and the one that asks for the letters only."""
    from .test_study import DECK_FORM

    client = study_app.test_client()
    _sign_up(client)
    form_page = _text(client.get("/study/decks/new", headers=headers).get_data(as_text=True))
    assert asks in form_page and letters_only in form_page
    for ask, name in (("letters", "letters"), ("words", "words")):
        posted = {**DECK_FORM, "name": name, "kind": "stem", "stem_count": "2", "stem_ask": ask}
        made = client.post("/study/decks/new", data={**posted, "csrf_token": _token(client, "/study/decks/new")})
        assert made.status_code == 303, made.get_data(as_text=True)
    with study_app.app_context():
        cards = db.session.execute(select(DeckCard.card_id).order_by(DeckCard.id)).scalars().all()
        letters_deck = db.session.execute(select(Deck.id).where(Deck.name == "letters")).scalar_one()
    assert cards == ["stem:en:letters:AEIRST", "stem:en:letters:AEINST", "stem:en:AEIRST", "stem:en:AEINST"]
    page = _text(client.get(f"/study/decks/{letters_deck}", headers=headers).get_data(as_text=True))
    assert "AEIRST + ?" in page and instruction in page


def test_a_stems_reveal_lists_its_words_in_columns_by_added_letter(study_app: Flask) -> None:
    """§7.4: AEIRST's 69 sevens at the reveal: one block per added letter in a column layout, the grades in the bar
    that stays at the bottom of the screen (its layout on a phone: tests/browser/test_study_page.py)."""
    client = study_app.test_client()
    _sign_up(client)
    with study_app.app_context():
        deck = _deck(("stem:en:AEIRST",), kind="stem")
        row = _row(deck, "stem:en:AEIRST")
        _, review = service.answer(deck, row, ["SATIRES", "SATIREX"], 30.0)
        url = f"/study/decks/{deck.id}/reviews/{review.id}"
        letters = [letter for letter, _words in service.card_of(deck, row).groups]
    shown = client.get(url).get_data(as_text=True)
    assert '<dl class="answer-groups stem-columns">' in shown
    blocks = re.findall(r'<div class="answer-group">\s*<dt>.*?<strong[^>]*>([A-Z])</strong>', shown, re.S)
    assert blocks == letters and len(blocks) > 10  # one block per added letter, in alphabetical order
    bar = shown[shown.index("data-grade-bar") :]
    assert all(f'data-rating="{n}"' in bar for n in (1, 2, 3, 4)) and "data-next" in bar


# ---------------------------------------------------------------- item 13: the answering aids


def _answer(client: FlaskClient, deck_id: int, data: dict[str, str], headers: dict[str, str] | None = None) -> Any:
    url = f"/study/decks/{deck_id}"
    return client.post(f"{url}/answer", data={"csrf_token": _token(client, url), **data}, headers=headers or {})


@pytest.mark.parametrize(
    ("headers", "count", "grades", "typo"),
    [
        (
            {},
            "2 answers · found: 0",
            ["1 · Again 1 min", "2 · Hard 6 min", "3 · Good 10 min", "4 · Easy 8 d"],
            "TOENAXL: letters not on this card. Correct it (or leave it out) and reveal again.",
        ),
        (
            FR,
            "2 réponses · trouvées : 0",
            ["1 · À revoir 1 min", "2 · Difficile 6 min", "3 · Bien 10 min", "4 · Facile 8 j"],
            "TOENAXL : des lettres qui ne sont pas sur cette carte. Corrigez (ou retirez) et révélez de nouveau.",
        ),
    ],
)
def test_the_answering_aids(
    study_app: Flask, headers: dict[str, str], count: str, grades: list[str], typo: str
) -> None:
    """§7.6-§7.7: the number of answers while typing; a typo of letters not on the card asks again, the words kept,
    nothing graded; at the reveal each grade button says the wait it gives, and each answer stands between its
    front and back hooks (DELATION, GELATION, RELATION, ELATIONS; TOENAILS)."""
    client = study_app.test_client()
    _sign_up(client)
    with study_app.app_context():
        deck = _deck(("anagram:en:AEILNOT",))
        deck_id, row_id = deck.id, _row(deck, "anagram:en:AEILNOT").id
    page = client.get(f"/study/decks/{deck_id}", headers=headers).get_data(as_text=True)
    assert count in _text(page)
    asked = _answer(client, deck_id, {"card": str(row_id), "answers": "toenail toenaxl", "seconds": "2"}, headers)
    again = asked.get_data(as_text=True)
    assert asked.status_code == 422 and typo in _text(again)
    assert re.search(r'class="prompt">AEILNOT<', again) and ">TOENAIL TOENAXL</textarea>" in again
    assert 'name="spent" value="2.0"' in again  # the time already spent counts toward the grade
    with study_app.app_context():
        assert db.session.execute(select(Review)).first() is None  # nothing graded
    answered = _answer(client, deck_id, {"card": str(row_id), "answers": "TOENAIL ELATION", "seconds": "1"}, headers)
    shown = client.get(answered.headers["Location"], headers=headers).get_data(as_text=True)
    buttons = [_text(b).strip() for b in re.findall(r"<button[^>]*data-rating[^>]*>(.*?)</button>", shown, re.S)]
    assert buttons == grades
    rows = re.findall(r'<tr><td class="hooks front">(.*?)</td><th scope="row" class="answer">(.*?)</th>'
                      r'<td class="hooks back">(.*?)</td></tr>', shown)  # fmt: skip
    assert rows == [("DGR", "ELATION", "S"), ("–", "TOENAIL", "S")]  # DELATION GELATION RELATION ELATIONS


def test_giving_up_with_a_typo_is_graded_again(study_app: Flask) -> None:
    """§7.6: "I don't know" is an answer even with a slip among the words: Again."""
    client = study_app.test_client()
    _sign_up(client)
    with study_app.app_context():
        deck = _deck(("anagram:en:AEILNOT",))
        deck_id, row_id = deck.id, _row(deck, "anagram:en:AEILNOT").id
    gave_up = _answer(client, deck_id, {"card": str(row_id), "answers": "TOENAXL", "missed": "1"})
    assert gave_up.status_code == 303
    with study_app.app_context():
        assert db.session.execute(select(Review.rating)).scalar_one() == 1


# ---------------------------------------------------------------- item 14: small things


def test_a_deck_waiting_for_its_word_list_is_not_called_too_costly(app: Flask, tmp_path: Path) -> None:
    """The build's limit counts the deck's own work, never the wait for the word list's graphs (built the first
    time after a start): a worker still loading past its warm-up says the list is not ready, not that the deck is
    too costly. A fresh folder: the worker has en's graphs to build, far more than the 10 ms given here."""
    worker = DeckBuilder(tmp_path, seconds=60.0, warm_up=0.01)
    with pytest.raises(Refused) as refused:
        worker.build("en", {"kind": "twos", "part": "hooks"})
    worker.stop()
    assert refused.value.code == "lexicon_not_ready"
    said = {}
    for language in ("en", "fr"):
        with app.test_request_context(headers={"Accept-Language": language}):
            said[language] = game_message(refused.value)
    assert said == {
        "en": "The word list en is still being prepared on the server. Make the deck again in a few minutes.",
        "fr": "La liste de mots en est encore en préparation sur le serveur. Refaites le paquet dans quelques minutes.",
    }


@pytest.mark.parametrize(("headers", "own"), [({}, "Default of the rules"), (FR, "Par défaut (selon les règles)")])
def test_topping_alone_offers_the_rules_own_list(study_app: Flask, headers: dict[str, str], own: str) -> None:
    """The Topping alone form, like the solo practice form, offers the rules' own list, chosen by default: French
    rules with it play the French list."""
    client = study_app.test_client()
    _sign_up(client)
    page = client.get("/practice/topping", headers=headers).get_data(as_text=True)
    assert re.search(rf'<option value="" selected>{re.escape(own)}</option>', page), page[page.index('id="lexicon"') :][
        :300
    ]
    assert '<option value="fr">fr (fr)</option>' in page
    token = _token(client, "/practice/topping")
    made = client.post(
        "/practice/topping",
        data={
            "csrf_token": token,
            "source": "fresh",
            "rules": "fr",
            "lexicon": "",
            "variant": "classic",
            "rounds": "1",
        },
    )
    assert made.status_code == 303, _text(made.get_data(as_text=True))[:600]
    with study_app.app_context():
        assert db.session.execute(select(PracticeSession.lexicon)).scalar_one() == "fr"


@pytest.mark.parametrize(("headers", "stability"), [({}, "2 hours ("), (FR, "2 heures (")])
def test_a_stability_under_a_day_reads_in_hours(study_app: Flask, headers: dict[str, str], stability: str) -> None:
    """§7.14: a card's page gives a stability of 0.064 days (92 minutes) as "2 hours", not "0 days"."""
    client = study_app.test_client()
    _sign_up(client)
    now = datetime.now(UTC)
    learning = FsrsCard(
        card_id=1, state=State.Learning, step=0, stability=0.064, difficulty=5.0, due=now, last_review=now
    )
    with study_app.app_context():
        deck, _ = service.create_deck(
            _learner(),
            "mine",
            "en",
            {"kind": "words", "text": ""},
            states=[CardState("anagram:en:AEILNOT", 1, learning)],
        )
        url = f"/study/decks/{deck.id}/cards/{_row(deck, 'anagram:en:AEILNOT').id}"
    page = _text(client.get(url, headers=headers).get_data(as_text=True))
    assert stability in page and "0 day" not in page and "0 jour" not in page


@pytest.mark.parametrize(
    ("headers", "said"),
    [({}, "1 line was left out (no valid word): QZXV"), (FR, "1 ligne a été ignorée (aucun mot valable) : QZXV")],
)
def test_one_line_left_out_is_said_in_the_singular(study_app: Flask, headers: dict[str, str], said: str) -> None:
    from .test_study import DECK_FORM

    client = study_app.test_client()
    _sign_up(client)
    form = {**DECK_FORM, "kind": "words", "words": "RETAINS\nQZXV", "csrf_token": _token(client, "/study/decks/new")}
    made = client.post("/study/decks/new", data=form, headers=headers)
    assert made.status_code == 303
    assert said in _text(client.get(made.headers["Location"], headers=headers).get_data(as_text=True))
