"""Missed tops of solo practice and topping sessions become cards of the "From my games" deck (docs/rules.md §7.12),
on SQLite and PostgreSQL, §7.12's example among them: a solo replay whose bingo the learner missed gives the anagram
and the stem card once the session is finished and the decks page opened, and the card's page lists the practice
round; a topping round given up gives its card, a round found none; an unfinished session gives nothing yet, a
session is taken once, the "off" setting gives nothing, "bingos" only the bingos, a fresh draw counts as a replay
does, and a learner's sessions feed their own deck only.

Plays are chosen with the engine in the test (the lowest legal play misses the top), from the round's board and rack.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from tests.test_api import api as api  # the fixture
from tests.test_pages import text_of
from tests.test_solo_practice import _club_game, _log_in, _plays, _wait_for_ahead
from tests.test_solo_practice import _lexicon as _lexicon  # the autouse fixture _plays needs
from tests.test_solo_practice import club as club  # the fixture: learners lea and max
from trainer.core.accounts import Learner
from trainer.core.database import db
from trainer.engine.board import Board
from trainer.engine.notation import parse_move
from trainer.engine.rules import ruleset
from trainer.games import practice, solo, solo_topping
from trainer.games.models import PracticeRound, PracticeSession
from trainer.study.models import Deck, DeckCard, GameCard

SEED = 31 * 10**19 + 23  # round 1's top is a bingo, round 2's is not
T = datetime(2026, 3, 12, 20, 0, 0, tzinfo=UTC)


def _learner(name: str) -> Learner:
    return db.session.execute(select(Learner).where(Learner.username == name)).scalar_one()


def _deck(name: str) -> Deck | None:
    return db.session.execute(select(Deck).where(Deck.learner_id == _learner(name).id)).scalar_one_or_none()


def _card_ids(name: str) -> set[str]:
    deck = _deck(name)
    if deck is None:
        return set()
    return set(db.session.execute(select(DeckCard.card_id).where(DeckCard.deck_id == deck.id)).scalars())


def _top_word(round_: PracticeRound) -> tuple[str, int]:
    """The placed top's main word and how many tiles it plays (the engine's reading)."""
    rules = ruleset("en")
    move = parse_move(round_.placed_move, Board(rules.layout, list(round_.board_before)), "english")
    return move.word.upper(), len(move.tiles)


def _solo_replay(app: Flask, game_id: int, learner: str, plans: list[str], finish: bool = True) -> int:
    """A solo replay of ``game_id``: each round the top ("top") or the lowest legal play ("low"), as ``plans`` says;
    finished after the last plan when ``finish`` (the game's rounds all played, or the learner stops)."""
    with app.app_context():
        session = practice.from_archive(_learner(learner), game_id, practice.SOLO, False)
        now = T
        for number, plan in enumerate(plans, start=1):
            round_ = practice.current(session, now) if number == 1 else practice.advance(session, now)
            assert round_ is not None and round_.number == number
            plays = _plays("en", round_.board_before, round_.rack)
            solo.answer(session, number, plays[0][1] if plan == "top" else plays[-1][1], now + timedelta(seconds=5))
            now += timedelta(seconds=10)
        if finish:
            if practice.advance(session, now) is not None:
                practice.finish(session, now, "stopped")
            assert session.status == practice.FINISHED
        return session.id


def test_a_missed_bingo_of_a_solo_replay_gives_its_anagram_and_stem_cards(
    app: Flask, client: FlaskClient, club: None
) -> None:
    """§7.12: Lea replays a two-round game alone, hands in the lowest legal play in round 1 (whose top is a bingo)
    and the top in round 2. Once the session is finished, her decks page gives her From my games deck the anagram
    card of round 1's top and its stem card, with the practice round as their context; opening again adds nothing."""
    game = _club_game(app, SEED, {"Ann": ["top", "top"]})
    with app.app_context():
        session_id = _solo_replay(app, game.game_id, "lea", ["low", "top"], finish=False)
    _log_in(client, "lea")
    assert client.get("/study/").status_code == 200
    with app.app_context():
        assert _deck("lea") is None  # the session is not finished: nothing yet
        session = db.session.get(PracticeSession, session_id)
        assert session is not None and not session.carded
        assert practice.advance(session, T + timedelta(minutes=1)) is None  # no round left: finished
        assert session.status == practice.FINISHED
    assert client.get("/study/").status_code == 200
    with app.app_context():
        first = db.session.execute(
            select(PracticeRound).where(PracticeRound.session_id == session_id, PracticeRound.number == 1)
        ).scalar_one()
        word, tiles = _top_word(first)
        assert tiles == 7, "round 1's top is a bingo"
        ids = _card_ids("lea")
        anagram = f"anagram:en:{''.join(sorted(word))}"
        stems = {i for i in ids if i.startswith("stem:en:")}
        assert anagram in ids and len(stems) == 1 and ids == {anagram, *stems}
        stem = next(iter(stems)).removeprefix("stem:en:")
        assert len(stem) == 6 and all(stem.count(c) <= word.count(c) for c in stem)
        sources = list(db.session.execute(select(GameCard)).scalars())
        assert {(s.round_id, s.practice_round_id, s.cause) for s in sources} == {(None, first.id, "bingo")}
        assert len(sources) == 2
        deck = _deck("lea")
        assert deck is not None and deck.name == "From my games"
        row = db.session.execute(
            select(DeckCard).where(DeckCard.deck_id == deck.id, DeckCard.card_id == anagram)
        ).scalar_one()
        card_url = f"/study/decks/{deck.id}/cards/{row.id}"
        line = (
            f"Solo practice, round 1: draw {first.draw_record}, top {first.placed_move} ({first.top_score})"
            " · Missed bingo"
        )
    html = client.get(card_url).get_data(as_text=True)
    assert line in text_of(html), text_of(html)
    assert f'href="/practice/{session_id}"' in html
    french = client.get(card_url, headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert "Entraînement en solo, coup 1 : tirage" in text_of(french), text_of(french)
    client.get("/study/")  # opened again: nothing twice
    client.get("/study/history")
    with app.app_context():
        assert db.session.execute(select(func.count(GameCard.id))).scalar() == 2
        assert db.session.execute(select(func.count(DeckCard.id))).scalar() == 2
        assert _deck("max") is None  # Lea's session feeds Lea's deck only
        # §7.12's example goes on: a topping session on the same game, round 1 given up, then stopped
        topping = solo_topping.start(_learner("lea"), game.game_id)
        assert solo_topping.current(topping, T) is not None
        solo_topping.give_up(topping, 1, T + timedelta(seconds=30))
        practice.finish(topping, T + timedelta(seconds=40), "stopped")
        topping_id = topping.id
    client.get("/study/")
    with app.app_context():
        assert db.session.execute(select(func.count(DeckCard.id))).scalar() == 2  # the same two cards
        assert db.session.execute(select(func.count(GameCard.id))).scalar() == 4  # each with a second round
    page = text_of(client.get(card_url).get_data(as_text=True))
    assert line in page and "Topping, round 1: draw" in page and "· Late or missing play" in page, page
    assert f'href="/practice/topping/{topping_id}"' in client.get(card_url).get_data(as_text=True)


def test_a_topping_round_given_up_gives_its_card_and_a_round_found_none(
    app: Flask, client: FlaskClient, club: None
) -> None:
    """§7.12: a topping round not found (given up) gives the card of its top, cause ``missing``; a round found gives
    nothing. The card's page links to the topping session."""
    game = _club_game(app, SEED, {"Ann": ["top", "top"]})
    with app.app_context():
        session = solo_topping.start(_learner("lea"), game.game_id)
        first = solo_topping.current(session, T)
        assert first is not None
        solo_topping.give_up(session, 1, T + timedelta(seconds=30))
        second = solo_topping.next_round(session, T + timedelta(seconds=40))
        assert second is not None
        solo_topping.play(session, 2, second.placed_move, T + timedelta(seconds=50))
        assert second.found
        assert solo_topping.next_round(session, T + timedelta(seconds=60)) is None
        session_id, first_id = session.id, first.id
        word, tiles = _top_word(first)
        draw, top, score = first.draw_record, first.placed_move, first.top_score
    _log_in(client, "lea")
    client.get("/study/")
    with app.app_context():
        ids = _card_ids("lea")
        anagram = f"anagram:en:{''.join(sorted(word))}"
        assert anagram in ids and len(ids) == (2 if tiles == 7 else 1)
        sources = list(db.session.execute(select(GameCard)).scalars())
        assert {(s.round_id, s.practice_round_id, s.cause) for s in sources} == {(None, first_id, "missing")}
        deck = _deck("lea")
        assert deck is not None
        row = db.session.execute(
            select(DeckCard).where(DeckCard.deck_id == deck.id, DeckCard.card_id == anagram)
        ).scalar_one()
        card_url = f"/study/decks/{deck.id}/cards/{row.id}"
    html = client.get(card_url).get_data(as_text=True)
    assert f"Topping, round 1: draw {draw}, top {top} ({score}) · Late or missing play" in text_of(html)
    assert f'href="/practice/topping/{session_id}"' in html


def test_the_off_setting_and_another_learners_sessions_give_nothing(
    app: Flask, client: FlaskClient, club: None
) -> None:
    """Lea's setting is ``off``: her finished session gives no card (and is taken: turning the setting back on later
    does not bring it back, as for a club game). Max's missed bingo is in Max's deck, never in Lea's."""
    game = _club_game(app, SEED, {"Ann": ["top", "top"]})
    with app.app_context():
        _learner("lea").from_games = "off"
        db.session.commit()
    lea_session = _solo_replay(app, game.game_id, "lea", ["low", "low"])
    max_session = _solo_replay(app, game.game_id, "max", ["low", "top"])
    _log_in(client, "lea")
    client.get("/study/")
    with app.app_context():
        assert _deck("lea") is None
        taken = db.session.get(PracticeSession, lea_session)
        assert taken is not None and taken.carded
        untouched = db.session.get(PracticeSession, max_session)
        assert untouched is not None and not untouched.carded
        _learner("lea").from_games = "tops"
        db.session.commit()
    client.get("/study/")
    with app.app_context():
        assert _deck("lea") is None
    other = FlaskClient(app, use_cookies=True)
    _log_in(other, "max")
    other.get("/study/")
    with app.app_context():
        assert _deck("lea") is None
        assert len(_card_ids("max")) == 2  # round 1's bingo: its anagram and stem cards


def test_a_fresh_draw_counts_and_a_round_passed_is_a_missing_play(app: Flask, client: FlaskClient, club: None) -> None:
    """A solo session on a fresh draw feeds the deck as a replay does: round 1 passed (no play) gives the cards of
    its top with the cause ``missing``; round 2, the top found, gives nothing."""
    with app.app_context():
        session = practice.fresh(_learner("lea"), {"rules": "en", "max_rounds": 2}, practice.SOLO, False)
        first = practice.current(session, T)
        assert first is not None
        solo.answer(session, 1, "", T + timedelta(seconds=5))
        second = practice.advance(session, T + timedelta(seconds=10))
        assert second is not None
        solo.answer(session, 2, _plays("en", second.board_before, second.rack)[0][1], T + timedelta(seconds=15))
        assert practice.advance(session, T + timedelta(seconds=20)) is None
        first_id = first.id
        word, tiles = _top_word(first)
    _wait_for_ahead(app)
    _log_in(client, "lea")
    client.get("/study/")
    with app.app_context():
        ids = _card_ids("lea")
        assert f"anagram:en:{''.join(sorted(word))}" in ids and len(ids) == (2 if tiles == 7 else 1)
        sources = {(s.round_id, s.practice_round_id, s.cause) for s in db.session.execute(select(GameCard)).scalars()}
        assert sources == {(None, first_id, "missing")}


def test_the_bingos_setting_takes_only_a_practice_sessions_missed_bingos(
    app: Flask, client: FlaskClient, club: None
) -> None:
    """Lea's setting is ``bingos``: of a replay whose two tops she missed, only round 1's (a bingo) gives cards."""
    game = _club_game(app, SEED, {"Ann": ["top", "top"]})
    with app.app_context():
        _learner("lea").from_games = "bingos"
        db.session.commit()
    session_id = _solo_replay(app, game.game_id, "lea", ["low", "low"])
    _log_in(client, "lea")
    client.get("/study/")
    with app.app_context():
        first = db.session.execute(
            select(PracticeRound).where(PracticeRound.session_id == session_id, PracticeRound.number == 1)
        ).scalar_one()
        word, tiles = _top_word(first)
        assert tiles == 7
        ids = _card_ids("lea")
        assert len(ids) == 2 and f"anagram:en:{''.join(sorted(word))}" in ids
        rounds = {s.practice_round_id for s in db.session.execute(select(GameCard)).scalars()}
        assert rounds == {first.id}
