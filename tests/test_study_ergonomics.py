"""Study ergonomics (issue 18, docs/rules.md §7.4, §7.10, §7.13-7.17): the card browser and a card's history, moving a
backlog of reviews, a card marked missed from its page, a deck's list edited, the exports on the deck's page, stem
answers by added letter, the progress charts' axes and retention week by week. Database tests run on SQLite and
PostgreSQL; decks are made from card states (no probability table to build) except where words are added."""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from flask import Flask
from fsrs import Card as FsrsCard
from fsrs import Scheduler, State
from sqlalchemy import func, select

from drills.backlog import mean_recall, postpone, spread
from drills.cardbox import read_cardbox
from drills.cards import STEM, grouped_answers
from drills.registry import check, search
from drills.scheduling import CardState, DayBoundary
from trainer.core.accounts import Learner
from trainer.core.database import db
from trainer.engine.lexicon import Lexicon
from trainer.study import browser, service
from trainer.study.models import Deck, DeckCard, Review

from .test_study import _sign_up, _token

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)  # a Tuesday noon; the study day began at 04:00 UTC


def _review_card(number: int, stability: float, days_since: float, now: datetime = NOW) -> FsrsCard:
    """A card in review, last answered ``days_since`` days before ``now``, due ``stability`` days after that."""
    last = now - timedelta(days=days_since)
    return FsrsCard(
        card_id=number,
        state=State.Review,
        stability=stability,
        difficulty=5.0,
        due=last + timedelta(days=stability),
        last_review=last,
    )


# The example of docs/rules.md §7.13: five cards in review, all overdue at noon on 10 March 2026.
BACKLOG = {"A": (2, 5), "B": (10, 15), "C": (30, 35), "D": (4, 6), "E": (60, 62)}  # stability, days since


def _backlog_states() -> list[CardState]:
    return [CardState(name, 0, _review_card(n, s, t)) for n, (name, (s, t)) in enumerate(BACKLOG.items())]


def test_spreading_and_postponing_a_backlog_move_due_dates_only() -> None:
    """§7.13's example: least likely recalled first (A, then D and B tied at 1.5 stabilities, D less stable, then C,
    E); over 3 days A and D stay today, B and C go to 11 March, E to 12 March, each at 04:00 UTC."""
    scheduler = Scheduler()
    moved = spread(_backlog_states(), NOW, 3, scheduler)
    assert [(m.card_id, m.due) for m in moved] == [
        ("B", datetime(2026, 3, 11, 4, tzinfo=UTC)),
        ("C", datetime(2026, 3, 11, 4, tzinfo=UTC)),
        ("E", datetime(2026, 3, 12, 4, tzinfo=UTC)),
    ]
    for m in moved:
        assert m.before.fsrs is not None and m.after.fsrs is not None
        assert m.after.fsrs.stability == m.before.fsrs.stability
        assert m.after.fsrs.difficulty == m.before.fsrs.difficulty
        assert m.after.fsrs.last_review == m.before.fsrs.last_review
    assert [round(m.recall_now, 3) for m in moved] == [0.870, 0.889, 0.898]
    assert [round(m.recall_then, 3) for m in moved] == [0.870, 0.889, 0.897]  # fsrs counts whole days
    later = postpone(_backlog_states(), NOW, 2, scheduler)
    assert [m.card_id for m in later] == ["A", "D", "B", "C", "E"]
    assert {m.due for m in later} == {datetime(2026, 3, 12, 4, tzinfo=UTC)}
    assert [round(m.recall_then, 3) for m in later] == [0.809, 0.857, 0.865, 0.887, 0.897]
    recall = mean_recall(later)
    assert recall is not None and (round(recall[0], 3), round(recall[1], 3)) == (0.871, 0.863)
    with pytest.raises(ValueError):
        spread(_backlog_states(), NOW, 1, scheduler)
    # A card due later today is in the backlog; one due tomorrow, a learning card and a new card are not.
    tomorrow = CardState("F", 0, _review_card(9, 3, 2, NOW + timedelta(days=1, hours=1)))
    learning = CardState("G", 0, FsrsCard(card_id=10, due=NOW - timedelta(days=3)))
    assert postpone([tomorrow, learning, CardState("H")], NOW, 1, scheduler, DayBoundary()) == []


def test_searching_cards_by_question_or_answer() -> None:
    """§7.14: RETAINS names its anagram card, its racks with blanks and the stems it is made from."""
    ids, patterns = search("en", "Retains")
    assert {"anagram:en:AEINRST", "anagram:en:AEINST?", "stem:en:AEINST", "stem:en:letters:AEIRST"} <= ids
    assert "stem:en:AEINRST" in ids and not patterns  # the seven letters as a stem of their own
    ids, patterns = search("en", "qi")
    assert {"twos:en:hooks:QI", "twos:en:start:Q", "twos:en:end:I", "anagram:en:IQ"} <= ids
    assert "twos:en:grid:*-QI-*" in patterns
    assert search("en", "?QI?")[0] >= {"twos:en:hooks:QI"}
    assert search("en", "") == (frozenset(), ())


def test_a_stems_answers_by_added_letter(en_lexicon: Lexicon) -> None:
    """§7.4: AEINST + R: ANESTRI ANTSIER NASTIER RATINES RETAINS RETINAS RETSINA STAINER STEARIN."""
    card = STEM.card(en_lexicon, "AEINST")
    feedback = check(card, ["retains", "nastier", "zzzzzzz"])
    groups = {group.name: group for group in grouped_answers(card, feedback)}
    assert len(groups) == 23 and list(groups)[:2] == ["A", "B"]
    r = groups["R"]
    assert [w.word for w in r.words] == [
        "ANESTRI", "ANTSIER", "NASTIER", "RATINES", "RETAINS", "RETINAS", "RETSINA", "STAINER", "STEARIN",
    ]  # fmt: skip
    assert {w.word for w in r.words if w.status == "right"} == {"NASTIER", "RETAINS"}
    assert all(w.status == "missed" for w in groups["B"].words)
    letters = STEM.card(en_lexicon, "letters:AEINST")
    asked = {g.name: g for g in grouped_answers(letters, check(letters, ["R", "B"]))}
    assert (asked["R"].status, asked["Z"].status, asked["R"].words[0].status) == ("right", "missed", "")


# ---------------------------------------------------------------- on the server


@pytest.fixture
def study_app(app: Flask) -> Flask:
    app.config["TIRAGE_FSRS_FUZZ"] = False  # exact due dates
    return app


def _learner(name: str = "lea") -> Learner:
    """The learner signed up through the pages (``_sign_up``), in the current application context."""
    return db.session.execute(select(Learner).where(Learner.username == name)).scalar_one()


WORDS = ("AEINRST", "AEIRST", "AEILNOT", "ADEIRT", "EINORST", "AEINST", "AEILRT", "AEGINRT")


def _words_deck(learner: Learner, states: list[CardState] | None = None) -> Deck:
    """A deck "made from words" whose cards are given (no probability table to build)."""
    if states is None:
        states = [CardState(f"anagram:en:{key}", rank) for rank, key in enumerate(WORDS, start=1)]
    deck, _ = service.create_deck(learner, "mine", "en", {"kind": "words", "text": ""}, states=states)
    return deck


def _row(deck: Deck, card_id: str) -> DeckCard:
    return db.session.execute(
        select(DeckCard).where(DeckCard.deck_id == deck.id, DeckCard.card_id == card_id)
    ).scalar_one()


def test_the_card_browser_and_a_cards_history(study_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(browser, "PAGE_SIZE", 3)
    client = study_app.test_client()
    _sign_up(client)
    with study_app.app_context():
        deck = _words_deck(_learner())
        row = _row(deck, "anagram:en:AEINRST")
        start = datetime.now(UTC) - timedelta(days=20)
        service.answer(deck, row, service.card_of(deck, row).solutions(), 60.0, start)  # all right, slow: Hard
        service.answer(deck, row, [], 5.0, start + timedelta(minutes=10), missed=True)  # Again
        service.answer(deck, row, service.card_of(deck, row).solutions(), 3.0, start + timedelta(minutes=20))  # Easy
        deck_id, row_id = deck.id, row.id
        assert row.state == int(State.Review) and row.stability is not None
        stability, due = row.stability, row.due
    url = f"/study/decks/{deck_id}/cards"
    page = client.get(url).get_data(as_text=True)
    assert "8 cards." in page and "Page 1 of 3." in page and 'rel="next"' in page
    assert ">AEINRST</a>" in page and ">ADEIRT</a>" not in page  # the deck's order: ranks 1-3 on page 1
    third = client.get(f"{url}?page=3").get_data(as_text=True)
    assert ">AEGINRT</a>" in third and 'rel="prev"' in third and 'rel="next"' not in third
    for text in ("retains", "nastier", "aeinrst", "RETAINS"):
        found = client.get(url, query_string={"q": text}).get_data(as_text=True)
        assert "1 card." in found and f'/cards/{row_id}"' in found, text
    assert "No card matches." in client.get(url, query_string={"q": "zzz"}).get_data(as_text=True)
    reviewed = client.get(url, query_string={"state": "review"}).get_data(as_text=True)
    assert "1 card." in reviewed and ">AEINRST</a>" in reviewed
    fresh = client.get(url, query_string={"state": "new", "sort": "due"}).get_data(as_text=True)
    assert "7 cards." in fresh and ">AEINRST</a>" not in fresh
    later = client.get(url, query_string={"due": "later"}).get_data(as_text=True)
    due_now = client.get(url, query_string={"due": "due"}).get_data(as_text=True)
    assert ("1 card." in later) != ("1 card." in due_now)  # the reviewed card is one or the other
    assert client.get(url, query_string={"state": "bogus", "page": "x"}).status_code == 200  # unknown: ignored

    card = client.get(f"{url}/{row_id}").get_data(as_text=True)
    assert "Its schedule" in card and "review" in card and "Chance to recall it now" in card
    history = card[card.index("Its history") :]
    # Newest first: Easy (the interval the answer gave: its due date less the answer's time), Again, Hard.
    grades = re.findall(r"<td>(Again|Hard|Good|Easy)</td>", history)
    assert grades == ["Easy", "Again", "Hard"], grades
    with study_app.app_context():
        entries = browser.history(db.session.get(DeckCard, row_id))  # type: ignore[arg-type]
        assert due is not None and entries[0].stability == stability
        assert entries[0].interval == due - entries[0].review.reviewed_at
        assert entries[-1].interval == timedelta(minutes=5.5)  # Hard on a new card: between fsrs's 1 and 10 minutes
    with study_app.app_context():  # a twos deck: the grids holding QI are found by pattern, ID is not GRID's
        twos, _ = service.create_deck(
            _learner(),
            "twos",
            "en",
            {"kind": "twos", "part": "grid"},
            states=[
                CardState(card_id, rank)
                for rank, card_id in enumerate(
                    ("twos:en:grid:AB-QI-XO", "twos:en:grid:QI", "twos:en:grid:AD-ID", "twos:en:hooks:QI"), start=1
                )
            ],
        )
        found = browser.browse(twos, browser.CardQuery(text="qi"))
        assert [c.row.card_id for c in found.cards] == ["twos:en:grid:AB-QI-XO", "twos:en:grid:QI", "twos:en:hooks:QI"]
        assert [c.row.card_id for c in browser.browse(twos, browser.CardQuery(text="id")).cards] == [
            "twos:en:grid:AD-ID"
        ]
    other = study_app.test_client()
    _sign_up(other, "max")
    assert other.get(f"{url}/{row_id}").status_code == 404 and other.get(url).status_code == 404


def test_a_card_marked_missed_outside_a_session(study_app: Flask) -> None:
    """§7.15: "I got this wrong" grades the card Again now, as an answer: counted, in its history, undoable."""
    client = study_app.test_client()
    _sign_up(client)
    with study_app.app_context():
        deck = _words_deck(_learner(), [CardState("anagram:en:AEINRST", 1, _review_card(1, 30, 10, datetime.now(UTC)))])
        deck_id, row_id = deck.id, _row(deck, "anagram:en:AEINRST").id
    card_url = f"/study/decks/{deck_id}/cards/{row_id}"
    token = _token(client, card_url)
    marked = client.post(f"{card_url}/missed", data={"csrf_token": token})
    assert marked.status_code == 303 and marked.headers["Location"].endswith(card_url)
    page = client.get(card_url).get_data(as_text=True)
    assert "Marked missed" in page and "marked missed from this page" in page and "relearning" in page
    with study_app.app_context():
        review = db.session.execute(select(Review)).scalar_one()
        assert (review.rating, review.kind, review.note, review.answers) == (1, "review", "marked", [])
        same = db.session.get(Deck, deck_id)
        assert same is not None and service.day_count(same, datetime.now(UTC)).reviews == 1
        assert db.session.get(DeckCard, row_id).state == int(State.Relearning)  # type: ignore[union-attr]
    assert "Undo its last grade" in page
    undone = client.post(f"/study/decks/{deck_id}/undo", data={"csrf_token": token, "card_page": str(row_id)})
    assert undone.headers["Location"].endswith(card_url)
    with study_app.app_context():
        assert db.session.get(DeckCard, row_id).state == int(State.Review)  # type: ignore[union-attr]
        assert db.session.execute(select(Review.undone)).scalar_one() is True
    assert client.post(f"{card_url}/missed", data={}).status_code == 400  # no token: nothing marked
    with study_app.app_context():
        assert db.session.execute(select(func.count(Review.id))).scalar_one() == 1


def test_moving_a_backlog_from_the_deck_page(study_app: Flask) -> None:
    """§7.13 on the server: spread over 3 days, then postponed by 2; the schedule but the dates is kept."""
    client = study_app.test_client()
    _sign_up(client)
    now = datetime.now(UTC)
    boundary = DayBoundary()
    states = [
        CardState(f"anagram:en:{key}", n, _review_card(n, s, t, now))
        for n, (key, (s, t)) in enumerate(zip(WORDS, BACKLOG.values(), strict=False))
    ]
    with study_app.app_context():
        deck = _words_deck(_learner(), states)
        deck_id = deck.id
        before = {row.card_id: (row.stability, row.fsrs) for row in db.session.execute(select(DeckCard)).scalars()}
    page_url = f"/study/decks/{deck_id}/overview"
    page = client.get(page_url).get_data(as_text=True)
    assert "5 reviews are due today (5 of them since before today)." in page
    token = _token(client, page_url)
    moved = client.post(
        f"/study/decks/{deck_id}/postpone", data={"csrf_token": token, "how": "spread", "spread_days": "3"}
    )
    assert moved.status_code == 303
    page = client.get(page_url).get_data(as_text=True)
    assert "3 reviews moved." in page and "2 reviews are due today" in page
    with study_app.app_context():
        rows = {row.card_id: row for row in db.session.execute(select(DeckCard)).scalars()}
        tomorrow = boundary.start(now) + timedelta(days=1)
        dues = sorted(row.due for row in rows.values() if row.due is not None and row.due >= boundary.end(now))
        assert dues == [tomorrow, tomorrow, tomorrow + timedelta(days=1)]
        for card_id, row in rows.items():
            stability, fsrs = before[card_id]
            assert row.stability == stability and row.fsrs is not None and fsrs is not None
            assert {k: v for k, v in row.fsrs.items() if k != "due"} == {k: v for k, v in fsrs.items() if k != "due"}
        assert {key: rows[f"anagram:en:{key}"].due for key in ("AEIRST", "AEILNOT", "EINORST")} == {
            "AEIRST": tomorrow,  # B
            "AEILNOT": tomorrow,  # C
            "EINORST": tomorrow + timedelta(days=1),  # E; A (AEINRST) and D (ADEIRT) stay today
        }
    client.post(f"/study/decks/{deck_id}/postpone", data={"csrf_token": token, "how": "postpone", "postpone_days": "2"})
    with study_app.app_context():
        after = {row.card_id: row.due for row in db.session.execute(select(DeckCard)).scalars()}
        assert after["anagram:en:AEINRST"] == after["anagram:en:ADEIRT"] == tomorrow + timedelta(days=1)
    page = client.get(page_url).get_data(as_text=True)
    assert "No review is due today: nothing to move." in page
    bad = client.post(
        f"/study/decks/{deck_id}/postpone",
        data={"csrf_token": token, "how": "spread", "spread_days": "31"},
        headers={"Accept-Language": "fr"},
    )
    assert "Choisissez un nombre de jours de 2 à 30." in client.get(bad.headers["Location"]).get_data(as_text=True)


def test_editing_a_deck_made_from_words(study_app: Flask) -> None:
    """§7.16: added words become new cards in their probability place; removing asks first, then deletes the
    cards with their reviews; a generated deck's list is not edited."""
    client = study_app.test_client()
    _sign_up(client)
    with study_app.app_context():
        deck = _words_deck(_learner(), [CardState("anagram:en:AEINRST", 9)])
        row = _row(deck, "anagram:en:AEINRST")
        service.answer(deck, row, ["RETAINS"], 3.0, datetime.now(UTC))
        deck_id, row_id = deck.id, row.id
        generated, _ = service.create_deck(
            deck.learner,
            "stems",
            "en",
            {"kind": "stem", "length": 6, "count": 3},
            states=[CardState("stem:en:AEINST", 1)],
        )
        generated_id = generated.id
    list_url = f"/study/decks/{deck_id}/list"
    token = _token(client, list_url)
    added = client.post(f"{list_url}/add", data={"csrf_token": token, "words": "nastier toenail\nsatire xqzzy"})
    page = client.get(added.headers["Location"]).get_data(as_text=True)
    assert "2 cards added." in page and "1 word was in the deck already." in page and "XQZZY" in page
    with study_app.app_context():
        ranks = dict(
            db.session.execute(select(DeckCard.card_id, DeckCard.rank).where(DeckCard.deck_id == deck_id)).all()
        )
        assert set(ranks) == {"anagram:en:AEINRST", "anagram:en:AEILNOT", "anagram:en:AEIRST"}
        assert ranks["anagram:en:AEILNOT"] == 3  # its probability rank among the sevens (§7.2)
    asked = client.post(f"{list_url}/remove", data={"csrf_token": token, "words": "stainer aeilnot zzz"})
    shown = asked.get_data(as_text=True)
    assert asked.status_code == 200 and "2 cards would be removed." in shown and "1 review would be deleted" in shown
    assert "Not in this deck: ZZZ." in shown and "export.csv" in shown
    with study_app.app_context():
        assert db.session.execute(select(func.count(DeckCard.id))).scalar_one() == 4  # nothing deleted yet
    ids = re.findall(r'name="card" value="(\d+)"', shown)
    assert str(row_id) in ids and len(ids) == 2
    done = client.post(f"{list_url}/remove", data={"csrf_token": token, "confirm": "1", "card": ids})
    page = client.get(done.headers["Location"]).get_data(as_text=True)
    assert "Cards removed: 2; reviews deleted with them: 1." in page
    with study_app.app_context():
        assert set(db.session.execute(select(DeckCard.card_id)).scalars()) == {"anagram:en:AEIRST", "stem:en:AEINST"}
        assert db.session.execute(select(func.count(Review.id))).scalar_one() == 0
    # From a card's page: the confirmation for that card.
    with study_app.app_context():
        only = db.session.execute(select(DeckCard.id).where(DeckCard.deck_id == deck_id)).scalar_one()
    one = client.post(f"{list_url}/remove", data={"csrf_token": token, "card": str(only)}).get_data(as_text=True)
    assert "1 card would be removed." in one and "AEIRST" in one
    fixed = client.get(f"/study/decks/{generated_id}/list").get_data(as_text=True)
    assert "its list is not edited here" in fixed and "Words to add" not in fixed
    refused = client.post(f"/study/decks/{generated_id}/list/add", data={"csrf_token": token, "words": "retains"})
    assert "make a new deck instead" in client.get(refused.headers["Location"]).get_data(as_text=True)


def test_the_deck_page_explains_and_serves_the_exports(study_app: Flask, tmp_path: Path) -> None:
    """§7.10: the deck's page links both exports with what they hold; the cardbox is one Zyzzyva can read."""
    client = study_app.test_client()
    _sign_up(client)
    with study_app.app_context():
        deck = _words_deck(
            _learner(),
            [
                CardState("anagram:en:AEINRST", 1, _review_card(1, 30, 10, datetime.now(UTC))),
                CardState("anagram:en:AEIRST", 2),
            ],
        )
        row = _row(deck, "anagram:en:AEINRST")
        service.answer(deck, row, [], 3.0, datetime.now(UTC), missed=True)
        service.answer(deck, row, service.card_of(deck, row).solutions(), 3.0, datetime.now(UTC))
        deck_id = deck.id
    page = client.get(f"/study/decks/{deck_id}/overview").get_data(as_text=True)
    assert f"/study/decks/{deck_id}/export.csv" in page and f"/study/decks/{deck_id}/cardbox.db" in page
    assert "Zyzzyva" in page and "spreadsheet" in page
    assert f'href="/study/decks/{deck_id}/overview"' in client.get("/study/").get_data(as_text=True)
    answer = client.get(f"/study/decks/{deck_id}/cardbox.db")
    assert answer.status_code == 200 and answer.data.startswith(b"SQLite format 3\x00")
    path = tmp_path / "Anagrams.db"
    path.write_bytes(answer.data)
    rows = read_cardbox(path)
    assert [(r.question, r.correct, r.incorrect, r.streak) for r in rows] == [("AEINRST", 1, 1, 1)]
    with sqlite3.connect(path) as connection:
        assert connection.execute("select count(*) from questions").fetchone() == (1,)  # new cards left out


def test_stem_answers_on_the_study_and_card_pages(study_app: Flask) -> None:
    client = study_app.test_client()
    _sign_up(client)
    with study_app.app_context():
        deck, _ = service.create_deck(
            _learner(),
            "stems",
            "en",
            {"kind": "stem", "length": 6, "count": 1},
            states=[CardState("stem:en:AEINST", 1)],
        )
        row = _row(deck, "stem:en:AEINST")
        _, review = service.answer(deck, row, ["RETAINS", "INSTEAD"], 10.0, datetime.now(UTC))
        deck_id, row_id, review_id = deck.id, row.id, review.id
    shown = client.get(f"/study/decks/{deck_id}/reviews/{review_id}").get_data(as_text=True)
    assert "2 right, 65 missed." in shown
    r_line = re.search(r"AEINST \+ </span><strong[^>]*>R</strong></dt>\s*<dd>(.*?)</dd>", shown, re.S)
    assert r_line is not None
    assert re.findall(r'class="word (right|missed)">([A-Z]+)', r_line.group(1))[:5] == [
        ("missed", "ANESTRI"), ("missed", "ANTSIER"), ("missed", "NASTIER"), ("missed", "RATINES"),
        ("right", "RETAINS"),
    ]  # fmt: skip
    card = client.get(f"/study/decks/{deck_id}/cards/{row_id}").get_data(as_text=True)
    assert re.search(r"AEINST \+ </span><strong[^>]*>R</strong></dt>\s*<dd>ANESTRI ANTSIER NASTIER", card)


def test_progress_charts_have_numbered_axes_and_retention_by_week(study_app: Flask) -> None:
    """§7.17: the value axes go 0 to a round top; retention is the share of reviews not graded Again, week by week
    (seven study days ending today), with the number of reviews."""
    assert service.axis_ticks(7) == [0, 2, 4, 6, 8] and service.axis_ticks(0) == [0, 1]
    assert service.axis_ticks(37) == [0, 10, 20, 30, 40] and service.axis_ticks(1234) == [0, 500, 1000, 1500]
    client = study_app.test_client()
    _sign_up(client)
    now = datetime.now(UTC)
    with study_app.app_context():
        learner = _learner()
        deck = _words_deck(
            learner,
            [
                CardState(f"anagram:en:{key}", n, _review_card(n, 2, 3 if n < 4 else 20, now))
                for n, key in enumerate(WORDS)
            ],
        )
        rows = db.session.execute(select(DeckCard).order_by(DeckCard.id)).scalars().all()
        for n, row in enumerate(rows[:4]):  # this week: 3 remembered of 4
            service.answer(deck, row, [] if n == 0 else service.card_of(deck, row).solutions(), 8.0, now, missed=n == 0)
        for row in rows[4:6]:  # two weeks ago: 0 of 2
            service.answer(deck, row, [], 8.0, now - timedelta(days=15), missed=True)
        figures = service.progress(learner, now)
    weeks = figures["retention_weeks"]
    assert len(weeks) == 12 and [(share, count) for _start, share, count in weeks[-3:]] == [
        (0.0, 2),
        (None, 0),
        (0.75, 4),
    ]
    assert weeks[-1][0] == DayBoundary().day(now) - timedelta(days=6)
    page = client.get("/study/progress").get_data(as_text=True)
    chart = page[page.index('id="retention-weeks-title"') :]
    assert '>75 %</td><td class="num">4</td>' in chart and ">100 %</text>" in chart  # table and axis
    answers = page[page.index('id="reviews-title"') : page.index('id="due-title"')]
    assert re.findall(r'text-anchor="end" class="axis">(\d+)</text>', answers) == ["0", "1", "2", "3", "4"]  # 4 today
    french = client.get("/study/progress", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert "Mémorisation semaine par semaine" in french


def test_the_new_pages_in_french(study_app: Flask) -> None:
    client = study_app.test_client()
    _sign_up(client)
    with study_app.app_context():
        deck = _words_deck(_learner())
        deck_id, row_id = deck.id, _row(deck, "anagram:en:AEINRST").id
    fr = {"Accept-Language": "fr"}
    expected = {
        f"/study/decks/{deck_id}/overview": "Aucune révision n’est due aujourd’hui",
        f"/study/decks/{deck_id}/cards": "Une question ou une réponse",
        f"/study/decks/{deck_id}/cards/{row_id}": "Je me suis trompé",
        f"/study/decks/{deck_id}/list": "Mots à ajouter",
    }
    for url, text in expected.items():
        page = client.get(url, headers=fr).get_data(as_text=True)
        assert text in page, url
