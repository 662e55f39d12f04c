"""A player's history (docs/rules.md §6.25) and the "From my games" deck (§7.12), on SQLite and PostgreSQL:
linking plays to a learner account (and refusing to link another's), the causes of points lost with the rules
document's examples, the history's figures against the game's own standings, the page and the API, and the deck
filled once.

Expected figures come from the engine and the standings, never from the history's own code."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import func, select

from tests.test_pages import csrf_token, text_of
from trainer.core import accounts
from trainer.core.accounts import Director, Learner
from trainer.core.clock import utcnow
from trainer.core.database import db
from trainer.duplicate.lostpoints import CAUSES, Loss, classify
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move, parse_move
from trainer.engine.play import evaluate, score_move
from trainer.engine.rules import Ruleset, ruleset
from trainer.games import history, service
from trainer.games.models import Game, Player, PlayerRecord, Round
from trainer.study.models import Deck, DeckCard, GameCard

SEED = 7 * 10**19
CAUSE_NAMES = {
    "missing": "Late or missing play",
    "invalid": "Invalid word",
    "same_word": "Lower play of the same word",
    "bingo": "Missed bingo",
    "hook": "Hook missed",
    "premium": "Premium square missed",
    "lower": "Another lower play",
}


# ---------------------------------------------------------------- the causes, §6.25's examples


def _women(rules: Ruleset) -> str:
    """§6.25's board: WOMEN at 8D on the empty board."""
    board = Board.empty(rules)
    board.place(parse_move("8D WOMEN", board).tiles)
    return "".join(board.cells)


@pytest.mark.parametrize(
    ("rack", "top", "top_score", "play", "score", "valid", "expected"),
    [
        ("AEINRST", "E5 SENORITA", 82, None, 0, False, Loss(82, "missing")),
        ("AEINRST", "E5 SENORITA", 82, "9E RESAINT", 0, False, Loss(82, "invalid")),
        ("ADEILNR", "G2 RENAILED", 63, "G7 RENAILED", 62, True, Loss(1, "same_word")),
        ("AEINRST", "E5 SENORITA", 82, "8A AIRWOMEN", 39, True, Loss(43, "bingo")),
        ("AEINRST", "E5 SENORITA", 82, "9E RETAINS", 70, True, Loss(12, "premium")),
        ("EFLOQRV", "9E REF", 25, "D3 REFLOW", 24, True, Loss(1, "hook")),
        ("EKLNNRW", "E6 KNOWER", 26, "7E NEW", 25, True, Loss(1, "premium")),
        ("DFLOQRS", "9G FOLDS", 25, "9G FOLD", 24, True, Loss(1, "lower")),
        ("DFLOQRS", "9G FOLDS", 25, "9G FOLDS", 25, True, Loss(0, None)),
    ],
)
def test_each_cause_of_the_rules_example(
    en_rules: Ruleset,
    en_lexicon: Lexicon,
    rack: str,
    top: str,
    top_score: int,
    play: str | None,
    score: int,
    valid: bool,
    expected: Loss,
) -> None:
    """§6.25's table: the engine scores each play as the table says, and each round gets the cause it names."""
    cells = _women(en_rules)
    board = Board(en_rules.layout, list(cells))
    plays = {
        format_move(m): score_move(board, en_rules, m)[0] for m in generate_moves(board, en_rules, en_lexicon, rack)
    }
    assert plays[top] == top_score == max(plays.values())
    if play is not None and valid:
        assert plays[play] == score
    elif play is not None:  # a play whose main word is not in the lexicon: it scores 0 (§6.9)
        assert evaluate(board, en_rules, en_lexicon, play, rack).invalid_words
    assert classify(en_rules, cells, "english", top, top_score, play, valid, score) == expected
    assert expected.cause is None or expected.cause in CAUSES


def test_a_bingo_stem_drops_the_blank_then_the_board_letter_then_the_last_letter() -> None:
    """§7.12: SENORITA through the board's O gives AEINRST; RETAINs (the s a blank) AEINRT; RETAINS AEINRS."""
    assert history.stem_of("SENORITA", [], ["O"]) == "AEINRST"
    assert history.stem_of("RETAINS", ["S"], []) == "AEINRT"
    assert history.stem_of("RETAINS", [], []) == "AEINRS"


# ---------------------------------------------------------------- a club game with a linked player


@dataclass
class Played:
    game_id: int
    player_id: int
    tops: list[tuple[str, int]]  # each round's top and its score, from the engine


def _club_game(app: Flask, seed: int, plan: list[str], learner: str | None = "lea", link: bool = True) -> Played:
    """A game of alice with Lea (linked to ``learner``) and Bob; each round Lea hands in, as ``plan`` says, the top
    ("top"), the round's lowest legal play ("low"), a play with a word not in the lexicon ("bad") or nothing
    ("none"); Bob always plays the top. The game ends after the plan."""
    with app.app_context():
        owner = db.session.execute(select(Director).where(Director.username == "alice")).scalar_one()
        game = service.create_game(owner, {"rules": "en", "seed": seed, "reveal_seconds": None})
        lea, _ = service.join_game(game.join_code, "Lea")
        bob, _ = service.join_game(game.join_code, "Bob")
        if learner is not None and link:
            account = db.session.execute(select(Learner).where(Learner.username == learner)).scalar_one()
            history.link(lea, account)
        service.start_game(game, "alice")
        from trainer.core.lexicons import lexicon_store

        lexicon = lexicon_store().load("en")
        rules = ruleset(game.rules)
        tops = []
        for n, what in enumerate(plan, start=1):
            db.session.refresh(game)
            round_ = service.current_round(game)
            assert round_ is not None and round_.number == n
            board = Board(rules.layout, list(round_.board_before))
            moves = sorted(
                (
                    (score_move(board, rules, m)[0], format_move(m))
                    for m in generate_moves(board, rules, lexicon, round_.rack)
                ),
                key=lambda p: (-p[0], p[1]),
            )
            top_score = moves[0][0]
            service.submit(game, bob, n, moves[0][1])
            if what == "top":
                service.submit(game, lea, n, moves[0][1])
            elif what == "low":
                service.submit(game, lea, n, moves[-1][1])
            elif what == "bad":
                service.submit(game, lea, n, _phony(board, rules, round_.rack))
            service.close_now(game, "alice")
            db.session.refresh(game)
            round_ = db.session.get(Round, round_.id)
            assert round_ is not None and round_.top_score == top_score
            tops.append((round_.placed_move or "", top_score))
            if n < len(plan):
                service.advance(game, "alice")
        db.session.refresh(game)
        if game.status != "finished":
            service.end_game(game, "alice")
        return Played(game.id, lea.id, tops)


def _phony(board: Board, rules: Ruleset, rack: str) -> str:
    """Two tiles of the rack side by side that make no word (placed legally: through the centre or by a tile)."""
    letters = [t for t in rack if t != "?"]
    for row in range(board.size):
        for col in range(board.size - 1):
            if board.at(row, col) == "." and board.at(row, col + 1) == ".":
                touches = board.is_empty() and row == 7 and col in (6, 7)
                touches = touches or any(
                    board.on_board(r, c) and board.at(r, c) != "."
                    for r, c in ((row - 1, col), (row + 1, col), (row - 1, col + 1), (row + 1, col + 1))
                )
                if touches:
                    from trainer.engine.notation import format_coordinate

                    return f"{format_coordinate(row, col, True)} {letters[0]}{letters[1]}"
    raise AssertionError("no place for a phony")


@pytest.fixture
def club(app: Flask) -> None:
    with app.app_context():
        accounts.create_director("alice", "password123")
        accounts.create_learner("lea", "password123")
        accounts.create_learner("max", "password123")


def _learner(name: str) -> Learner:
    return db.session.execute(select(Learner).where(Learner.username == name)).scalar_one()


def test_the_history_gives_each_game_its_standing_and_the_points_lost(app: Flask, club: None) -> None:
    """§6.25: total, percentage and rank as the game's standings give them; the points lost add up to the difference
    between the top total and the total, each round under one cause."""
    games = [
        _club_game(app, SEED + 1, ["top", "low", "none"]),
        _club_game(app, SEED + 2, ["low", "top"]),
        _club_game(app, SEED + 3, ["top", "top"]),
    ]
    with app.app_context():
        lea = _learner("lea")
        history.refresh(lea)
        seen = history.history(lea, last=10)
        assert [g.game_id for g in seen.games] == [g.game_id for g in games]
        lost = 0
        for line, played in zip(seen.games, games, strict=True):
            game = db.session.get(Game, played.game_id)
            assert game is not None
            standing = next(s for s in service.results_of_games([game])[game.id].standings if s.player == "Lea")
            assert (line.total, line.percentage, line.rank, line.players) == (
                standing.total,
                f"{standing.percentage:.2f}",
                standing.rank,
                2,
            )
            assert line.top_total == sum(score for _, score in played.tops)
            lost += line.top_total - line.total
        assert seen.lost == lost
        causes = {cause: (points, rounds) for cause, points, rounds in seen.losses}
        assert causes["missing"][1] == 1  # game 1, round 3
        assert sum(rounds for _, rounds in causes.values()) == 3  # two lower plays and one missing
        assert history.history(lea, last=1).lost == 0  # the last game: both tops found
        assert history.history(lea, last=2).lost == seen.games[1].top_total - seen.games[1].total


def test_a_correction_after_the_end_is_followed(app: Flask, club: None) -> None:
    played = _club_game(app, SEED + 4, ["low", "top"])
    with app.app_context():
        lea = _learner("lea")
        history.refresh(lea)
        before = history.history(lea).games[0]
        game = db.session.get(Game, played.game_id)
        assert game is not None
        round_ = db.session.execute(select(Round).where(Round.game_id == game.id, Round.number == 1)).scalar_one()
        service.correct(game, round_.number, played.player_id, played.tops[0][1], "slip misread", "alice")
        history.refresh(lea)
        after = history.history(lea).games[0]
        assert after.total == before.total + (before.top_total - before.total)
        assert after.percentage == "100.00" and history.history(lea).lost == 0


def test_only_finished_linked_games_are_seen(app: Flask, club: None) -> None:
    _club_game(app, SEED + 5, ["top"], link=False)
    with app.app_context():
        owner = db.session.execute(select(Director).where(Director.username == "alice")).scalar_one()
        game = service.create_game(owner, {"rules": "en", "seed": SEED + 10, "reveal_seconds": None})
        lea, _ = service.join_game(game.join_code, "Lea")
        history.link(lea, _learner("lea"))
        service.start_game(game, "alice")  # linked, but still being played
        history.refresh(_learner("lea"))
        assert history.history(_learner("lea")).games == []


# ---------------------------------------------------------------- linking


def _log_in(client: FlaskClient, name: str) -> None:
    answer = client.post(
        "/study/login",
        data={"csrf_token": csrf_token(client, "/study/login"), "username": name, "password": "password123"},
    )
    assert answer.status_code == 303


def _new_game(app: Flask) -> tuple[int, str]:
    with app.app_context():
        owner = db.session.execute(select(Director).where(Director.username == "alice")).scalar_one()
        game = service.create_game(owner, {"rules": "en", "seed": SEED + 9, "reveal_seconds": None})
        return game.id, game.join_code


def _join(client: FlaskClient, code: str, name: str, link: bool = True) -> None:
    page = client.get(f"/join?code={code}").get_data(as_text=True)
    data = {"csrf_token": csrf_token(client, f"/join?code={code}"), "code": code, "name": name}
    if link:
        assert 'name="link"' in page
        data["link"] = "y"
    assert client.post("/join", data=data).status_code == 303


def _player(app: Flask, game_id: int, name: str) -> Player:
    with app.app_context():
        player = db.session.execute(select(Player).where(Player.game_id == game_id, Player.name == name)).scalar_one()
        db.session.expunge(player)
        return player


def test_joining_logged_in_as_a_learner_links_the_plays(app: Flask, client: FlaskClient, club: None) -> None:
    game_id, code = _new_game(app)
    _log_in(client, "lea")
    _join(client, code, "Lea")
    with app.app_context():
        assert _player(app, game_id, "Lea").learner_id == _learner("lea").id
    other = app.test_client()  # not logged in: no box, no link
    assert 'name="link"' not in other.get(f"/join?code={code}").get_data(as_text=True)
    _join(other, code, "Bob", link=False)
    assert _player(app, game_id, "Bob").learner_id is None
    unticked = app.test_client()
    _log_in(unticked, "max")
    _join(unticked, code, "Max", link=False)
    assert _player(app, game_id, "Max").learner_id is None
    # Lea again, on a second phone under another name: that player plays, unlinked (one player an account a game).
    second = app.test_client()
    _log_in(second, "lea")
    _join(second, code, "Lea2")
    assert _player(app, game_id, "Lea2").learner_id is None
    assert "another player in this game" in second.get(f"/play/{game_id}").get_data(as_text=True)


def _rounds_key(app: Flask, player_id: int) -> str:
    from trainer.games.record import record_key

    with app.app_context():
        player = db.session.get(Player, player_id)
        assert player is not None
        return record_key(player)


def test_a_player_keeps_their_plays_later_and_nobody_else_can(app: Flask, client: FlaskClient, club: None) -> None:
    """§6.25: the link from the My rounds page works only in the browser that holds the player's token, logged in as
    the learner; a link made is never taken over by another account."""
    game_id, code = _new_game(app)
    _join(client, code, "Lea", link=False)
    bob = app.test_client()
    _join(bob, code, "Bob", link=False)
    lea_id = _player(app, game_id, "Lea").id
    key = _rounds_key(app, lea_id)
    page = client.get(f"/play/rounds/{key}").get_data(as_text=True)
    assert "history.link" not in page and f"/study/link/{key}" not in page  # not logged in: no button

    # Max, logged in on Bob's phone, has Lea's My rounds link: he cannot take her plays.
    _log_in(bob, "max")
    assert f"/study/link/{key}" not in bob.get(f"/play/rounds/{key}").get_data(as_text=True)
    token = csrf_token(bob, "/study/history")
    assert bob.post(f"/study/link/{key}", data={"csrf_token": token}).status_code == 403
    assert _player(app, game_id, "Lea").learner_id is None

    _log_in(client, "lea")
    page = client.get(f"/play/rounds/{key}").get_data(as_text=True)
    assert f"/study/link/{key}" in page
    token = csrf_token(client, f"/play/rounds/{key}")
    assert client.post(f"/study/link/{key}", data={"csrf_token": token}).status_code == 303
    with app.app_context():
        assert _player(app, game_id, "Lea").learner_id == _learner("lea").id
        # Once linked, the plays stay Lea's: another account is refused, even from her own browser.
        player = db.session.get(Player, lea_id)
        assert player is not None
        with pytest.raises(Exception, match="another account"):
            history.link(player, _learner("max"))
        bob_player = db.session.execute(
            select(Player).where(Player.game_id == game_id, Player.name == "Bob")
        ).scalar_one()
        with pytest.raises(Exception, match="another player in this game"):
            history.link(bob_player, _learner("lea"))


def test_the_director_is_offered_the_clubs_known_players(app: Flask, club: None) -> None:
    _club_game(app, SEED + 6, ["top"])
    with app.app_context():
        alice = db.session.execute(select(Director).where(Director.username == "alice")).scalar_one()
        assert history.known_players(alice.id) == ["lea"]
        bruno = accounts.create_director("bruno", "password123")
        assert history.known_players(bruno.id) == []


# ---------------------------------------------------------------- the page and the API


def test_the_history_page_and_the_api(app: Flask, client: FlaskClient, club: None) -> None:
    games = [_club_game(app, SEED + 7, ["low", "top"]), _club_game(app, SEED + 8, ["none", "top"])]
    _log_in(client, "lea")
    page = client.get("/study/history")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert html.count('class="point"') == 2 and "<polyline" in html
    text = text_of(html)
    assert "Late or missing play" in text and "Points lost, by cause, over the last 2 games" in text
    api = app.test_client()
    token = api.post("/api/auth/learner-token", json={"username": "lea", "password": "password123"}).get_json()
    headers = {"Authorization": f"Bearer {token['token']}"}
    answer = api.get("/api/me/history?last=1", headers=headers).get_json()
    assert [g["id"] for g in answer["games"]] == [g.game_id for g in games]
    assert answer["last"] == 1
    missing = next(c for c in answer["losses"] if c["cause"] == "missing")
    assert missing["rounds"] == 1 and missing["points"] == games[1].tops[0][1]
    french = client.get("/study/history?lang=fr").get_data(as_text=True)
    assert "Coup en retard ou absent" in text_of(french)
    assert app.test_client().get("/api/me/history").status_code == 401
    assert client.get("/api/me/history").status_code == 401  # the API takes tokens, never the pages' cookies
    wrong = api.post("/api/auth/learner-token", json={"username": "lea", "password": "wrong-password"})
    assert wrong.status_code == 401


# ---------------------------------------------------------------- the "From my games" deck


def _deck(learner: Learner) -> Deck | None:
    return db.session.execute(select(Deck).where(Deck.learner_id == learner.id)).scalar_one_or_none()


def test_missed_tops_become_new_cards_once(app: Flask, client: FlaskClient, club: None) -> None:
    """§7.12: each top Lea missed is an anagram card of its word (a bingo adds its stem card), new, in her "From my
    games" deck of the game's lexicon, with the round it came from; seeing the game again adds nothing."""
    played = _club_game(app, SEED + 1, ["top", "low", "none"])
    _log_in(client, "lea")
    assert client.get("/study/").status_code == 200  # the decks page catches up
    with app.app_context():
        lea = _learner("lea")
        deck = _deck(lea)
        assert deck is not None and deck.lexicon == "en" and deck.name == "From my games"
        game = db.session.get(Game, played.game_id)
        player = db.session.get(Player, played.player_id)
        assert game is not None and player is not None
        missed = history.missed_tops(game, player)
        assert [m.round_number for m in missed] == [2, 3]
        expected = set()
        for m in missed:
            expected.add(f"anagram:en:{''.join(sorted(m.word))}")
            if m.bingo:
                expected.add(f"stem:en:{m.stem}")
        rows = list(db.session.execute(select(DeckCard).where(DeckCard.deck_id == deck.id)).scalars())
        assert {r.card_id for r in rows} == expected
        assert all(r.state == 0 for r in rows)
        sources = db.session.execute(select(func.count(GameCard.id))).scalar()
        assert sources == sum(2 if m.bingo else 1 for m in missed)
        first = next(r for r in rows if r.card_id == f"anagram:en:{''.join(sorted(missed[0].word))}")
        round_two = db.session.execute(
            select(Round).where(Round.game_id == game.id, Round.number == missed[0].round_number)
        ).scalar_one()
        card_url = f"/study/decks/{deck.id}/cards/{first.id}"
        missed_cause = missed[0].cause
        expected_line = (
            f"Game {game.id}, round {round_two.number}: draw {round_two.draw_record}, "
            f"top {round_two.placed_move} ({round_two.top_score})"
        )
    page = text_of(client.get(card_url).get_data(as_text=True))  # the card's context: its round, draw and top
    assert f"{expected_line} · {CAUSE_NAMES[missed_cause]}" in page, page
    client.get("/study/")
    client.get("/study/history")
    with app.app_context():
        assert db.session.execute(select(func.count(DeckCard.id))).scalar() == len(expected)
        assert db.session.execute(select(func.count(GameCard.id))).scalar() == sources
        assert db.session.execute(select(func.count(PlayerRecord.id))).scalar() == 1


def test_the_learner_chooses_what_feeds_the_deck(app: Flask, client: FlaskClient, club: None) -> None:
    _log_in(client, "lea")
    token = csrf_token(client, "/study/history")
    assert client.post("/study/history/feed", data={"csrf_token": token, "feed": "off"}).status_code == 303
    _club_game(app, SEED + 1, ["none", "none"])
    client.get("/study/history")
    with app.app_context():
        lea = _learner("lea")
        assert lea.from_games == "off" and _deck(lea) is None
        assert len(history.history(lea).games) == 1  # the history has the game all the same


def test_a_missed_card_is_there_the_next_day(app: Flask, client: FlaskClient, club: None) -> None:
    """The card a missed top made is a new card: the study page shows it that day and, new cards being new until
    answered, the next day too (§7.8)."""
    _club_game(app, SEED + 1, ["none"])
    _log_in(client, "lea")
    client.get("/study/")
    with app.app_context():
        lea = _learner("lea")
        deck = _deck(lea)
        assert deck is not None
        from trainer.study import service as study

        tomorrow = utcnow() + timedelta(days=1)
        picked = study.next_card(deck, tomorrow)
        assert picked is not None and picked[0].card_id.startswith("anagram:en:")
        assert re.fullmatch(r"anagram:en:[A-Z]+", picked[0].card_id)
