"""Topping as a club mode (docs/rules.md §6.26): a game of mode ``topping`` draws and places as a classic game, its
players hand in plays until one is a top, take hints, and the room is ranked by time; through the service (the
section's club example, on the server's clock), the JSON API and its OpenAPI document, and the pages (phone,
projector, console) in English and French. Classic games stay as they are (their own tests).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.test_api import Api
from tests.test_api import api as api  # the fixture
from tests.test_pages import act, csrf_token, join, join_code, log_in, new_game, submit, text_of
from tests.test_pages import director as director  # the fixture
from trainer.core.database import db
from trainer.core.errors import Refused
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move
from trainer.engine.rules import Ruleset
from trainer.games import service, topping
from trainer.games.models import Game, Player, Round

SEED = 27182818284590452353  # 20 digits (docs/rules.md §6.4)


def plays(board: list[str], rack: str, rules: Ruleset, lexicon: Lexicon) -> tuple[list[str], str]:
    """The rack's tops on the board (the engine's, in the test) and a legal play that is not a top."""
    moves = generate_moves(Board.from_rows(rules.layout, board), rules, lexicon, rack)
    best = max(m.score or 0 for m in moves)
    tops = sorted(format_move(m) for m in moves if m.score == best)
    lower = min((m for m in moves if (m.score or 0) < best), key=lambda m: (-(m.score or 0), format_move(m)))
    return tops, format_move(lower)


def _game(app: Flask, game_id: int) -> Game:
    game = db.session.get(Game, game_id)
    assert game is not None
    return game


def _player(game: Game, name: str) -> Player:
    return next(p for p in game.players if p.name == name)


def _round(game: Game) -> Round:
    round_ = service.current_round(game)
    assert round_ is not None
    return round_


def test_the_club_example_on_the_servers_clock(app: Flask, api: Api, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    """§6.26's club example: Ann hands in a wrong play, takes the length hint and finds the top 42.3 s after the round
    opened (42.3 + 10 + 10 = 62.3); Bob takes a letter and does not find it (180 + 60 + 15 = 255). In round 2 both
    find it, and the round closes as soon as the last one does."""
    alice = api.token()
    created = api.new_game(alice, mode="topping", seed=SEED, max_rounds=2, reveal_seconds=None)
    assert created["mode"] == "topping"
    for name in ("Ann", "Bob"):
        api.join(created["join_code"], name)
    gid = created["id"]
    state = api.ok("POST", f"/api/games/{gid}/start", token=alice)
    tops, lower = plays(state["board"], state["rack"], en_rules, en_lexicon)
    with app.app_context():
        game = _game(app, gid)
        ann, bob = _player(game, "Ann"), _player(game, "Bob")
        round_ = _round(game)
        assert sorted(round_.tops or []) == tops
        opened: datetime = round_.started_at

        def at(seconds: float) -> datetime:
            return opened + timedelta(seconds=seconds)

        wrong = topping.hand_in(game, ann, 1, lower, at(20))
        assert (wrong.top, wrong.elapsed) == (False, None)
        length = topping.take_hint(game, ann, 1, "length", at(30))
        assert length.value == len(topping.placed_top(game, round_).word)
        found = topping.hand_in(game, ann, 1, tops[-1], at(42.3))  # any top, not only the one placed
        assert found.top and found.elapsed == pytest.approx(42.3)
        with pytest.raises(Refused) as refused:
            topping.hand_in(game, ann, 1, tops[0], at(43))
        assert refused.value.code == "top_found_already"
        with pytest.raises(Refused) as refused:
            topping.take_hint(game, ann, 1, "square", at(44))
        assert refused.value.code == "top_found_already"
        letter = topping.take_hint(game, bob, 1, "letter", at(50))
        assert (letter.position, letter.value) == (1, (round_.tops or [""])[0].split()[1][0])
        with pytest.raises(Refused) as refused:
            topping.take_hint(game, bob, 1, "letters", at(51))
        assert refused.value.code == "bad_hint"
        service.close_now(game, "alice", at(100))

        figures = topping.results(game)
        ((first, lines),) = figures.rounds
        assert first.number == 1
        by_name = {line.name: line for line in lines}
        assert (by_name["Ann"].found, by_name["Ann"].wrong_plays, by_name["Ann"].hints) == (True, 1, ("length",))
        assert by_name["Ann"].seconds == 62.3
        assert (by_name["Bob"].found, by_name["Bob"].hints, by_name["Bob"].seconds) == (False, ("letter",), 255.0)
        assert [(s.rank, s.player, s.seconds) for s in figures.standings] == [(1, "Ann", 62.3), (2, "Bob", 255.0)]

    state = api.ok("POST", f"/api/games/{gid}/next", token=alice)
    tops, _lower = plays(state["board"], state["rack"], en_rules, en_lexicon)
    with app.app_context():
        game = _game(app, gid)
        opened = _round(game).started_at
        assert topping.hand_in(game, _player(game, "Bob"), 2, tops[0], opened + timedelta(seconds=5)).top
        assert _round(game).status == "open"  # Ann has not found it yet
        assert topping.hand_in(game, _player(game, "Ann"), 2, tops[0], opened + timedelta(seconds=10)).top
        db.session.refresh(game)
        assert (game.status, _round(game).status) == ("revealing", "closed")  # everyone found it: closed at once
    ranking = api.get(f"/api/games/{gid}/topping")
    assert [(s["rank"], s["name"], s["seconds"], s["found"], s["rounds"]) for s in ranking["standings"]] == [
        (1, "Ann", 72.3, 2, 2),
        (2, "Bob", 260.0, 1, 2),
    ]
    assert ranking["costs"]["limit_seconds"] == 180 and ranking["rounds"][1]["players"][0]["name"] == "Bob"


def test_the_api_says_top_or_not_and_gives_hints(api: Api, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    """Through the API (every answer checked against the OpenAPI document): a wrong play is answered ``top: false``
    without its score, a top ends the player's round, hints cost their seconds; a classic game has no topping."""
    alice = api.token()
    created = api.new_game(alice, mode="topping", seed=SEED, max_rounds=1, reveal_seconds=None)
    gid = created["id"]
    ann = api.join(created["join_code"], "Ann")["token"]
    bob = api.join(created["join_code"], "Bob")["token"]
    code, answer = api.call("POST", f"/api/games/{gid}/rounds/1/hints", {"kind": "length"}, ann)
    assert code == 404  # the round has not started
    state = api.ok("POST", f"/api/games/{gid}/start", token=alice)
    tops, lower = plays(state["board"], state["rack"], en_rules, en_lexicon)
    wrong = api.ok("POST", f"/api/games/{gid}/rounds/1/plays", {"move": lower}, ann)
    assert wrong["top"] is False and "score" not in wrong and wrong["elapsed"] is None
    hint = api.ok("POST", f"/api/games/{gid}/rounds/1/hints", {"kind": "direction"}, ann)
    assert hint["kind"] == "direction" and hint["value"] in ("across", "down") and hint["seconds"] == 10
    code, answer = api.call("POST", f"/api/games/{gid}/rounds/1/hints", {"kind": "direction"}, ann)
    assert code == 409 and answer["error"] == "the direction hint is taken already this round"
    code, answer = api.call("POST", f"/api/games/{gid}/rounds/1/hints", {"kind": "word"}, ann)
    assert code == 422 and answer["error"].startswith("'word' is not a hint")
    found = api.ok("POST", f"/api/games/{gid}/rounds/1/plays", {"move": tops[0]}, ann)
    assert found["top"] is True and found["elapsed"] >= 0
    code, answer = api.call("POST", f"/api/games/{gid}/rounds/1/plays", {"move": tops[0]}, ann)
    assert code == 409 and "found this round's top already" in answer["error"]
    assert api.get(f"/api/games/{gid}")["status"] == "playing"  # Bob is still looking
    ranking = api.get(f"/api/games/{gid}/topping")
    assert ranking["rounds"] == [] and {s["name"] for s in ranking["standings"]} == {"Ann", "Bob"}
    square = api.ok("POST", f"/api/games/{gid}/rounds/1/hints", {"kind": "square"}, bob)
    assert square["seconds"] == 20 and isinstance(square["value"], str)
    api.ok("POST", f"/api/games/{gid}/close", token=alice)
    ranking = api.get(f"/api/games/{gid}/topping")
    (ann_line, bob_line) = ranking["rounds"][0]["players"]
    assert (ann_line["name"], ann_line["found"], ann_line["wrong_plays"], ann_line["hints"]) == (
        "Ann",
        True,
        1,
        ["direction"],
    )
    assert ann_line["seconds"] == pytest.approx(ann_line["elapsed"] + 20, abs=0.11)
    assert (bob_line["found"], bob_line["seconds"]) == (False, 260.0)

    classic = api.new_game(alice)
    code, answer = api.call("GET", f"/api/games/{classic['id']}/topping", token=alice)
    assert code == 409 and answer["error"] == "this game is not a topping game"


def test_a_hint_is_never_streamed_with_its_taker(api: Api, app: Flask) -> None:
    alice = api.token()
    created = api.new_game(alice, mode="topping", seed=SEED, max_rounds=1)
    ann = api.join(created["join_code"], "Ann")["token"]
    api.ok("POST", f"/api/games/{created['id']}/start", token=alice)
    api.ok("POST", f"/api/games/{created['id']}/rounds/1/hints", {"kind": "length"}, ann)
    _code, body = api.call("GET", f"/api/games/{created['id']}/events?timeout=0")
    assert "topping_hint" in body and "Ann" not in body and '"player"' not in body


def _phone(app: Flask, client: FlaskClient, **settings: str) -> tuple[int, FlaskClient, FlaskClient]:
    log_in(client)
    game_id = new_game(client, mode="topping", seed=str(SEED), max_rounds="2", **settings)
    code = join_code(app, game_id)
    ann, bob = app.test_client(), app.test_client()
    assert join(ann, code, "Ann").status_code == 303 and join(bob, code, "Bob").status_code == 303
    assert act(client, game_id, "start").get_json()["status"] == "playing"
    return game_id, ann, bob


def _hint(phone: FlaskClient, game_id: int, kind: str) -> Any:
    token = csrf_token(phone, f"/play/{game_id}")
    return phone.post(f"/play/{game_id}/hint", data={"csrf_token": token, "kind": kind, "round": "1"})


def test_the_pages_of_a_topping_night(
    app: Flask, client: FlaskClient, director: str, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    """The phone offers the hints with their costs and shows what they reveal, says "not the top" to a wrong play
    (through the form: the page sends topping plays there) and the time of a top; the projector and the console rank
    by time."""
    game_id, ann, bob = _phone(app, client)
    with app.app_context():
        round_ = _round(_game(app, game_id))
        board = Board(en_rules.layout, list(round_.board_before)).rows()
        tops, lower = plays(board, round_.rack, en_rules, en_lexicon)
        top = topping.placed_top(_game(app, game_id), round_)
    page = ann.get(f"/play/{game_id}").get_data(as_text=True)
    assert 'data-token=""' in page  # topping plays go through the form
    seen = text_of(page)
    assert "Length (+10.0 s)" in seen and "Square (+20.0 s)" in seen and "A letter (+15.0 s)" in seen
    assert _hint(ann, game_id, "length").status_code == 303
    assert _hint(ann, game_id, "letter").status_code == 303
    seen = text_of(ann.get(f"/play/{game_id}/live").get_data(as_text=True))
    assert f"The top's word has {len(top.word)} letters." in seen
    assert f"Letter 1 of the top's word: {top.word[0]}." in seen
    assert "Length (+" not in seen and "A letter (+15.0 s)" in seen
    answer = _hint(ann, game_id, "length")
    assert "You have taken this hint already this round." in text_of(
        ann.get(answer.headers["Location"]).get_data(as_text=True)
    )

    wrong = submit(ann, game_id, lower)
    assert wrong.status_code == 422
    assert wrong.get_json()["error"] == "Not the top: try again (each wrong play costs 10 s)."
    assert "1 wrong play" in text_of(ann.get(f"/play/{game_id}/live").get_data(as_text=True))
    french = submit(bob, game_id, lower, **{"Accept-Language": "fr"})
    assert french.get_json()["error"] == "Ce n'est pas le top : essayez encore (chaque coup faux coûte 10 s)."
    assert submit(ann, game_id, tops[0]).get_json()["ok"] is True
    assert "You found the top in" in text_of(ann.get(f"/play/{game_id}/live").get_data(as_text=True))
    assert "1 / 2 found the top" in text_of(client.get(f"/games/{game_id}/projector").get_data(as_text=True))

    assert act(client, game_id, "close").status_code == 200
    projector = text_of(client.get(f"/games/{game_id}/projector").get_data(as_text=True))
    assert "Who found it, fastest first" in projector and "Ann · found in" in projector
    assert "Bob · not found · 1 wrong play · 250.0 s" in projector  # 180 + 60 + 10
    assert "Ranking by time" in projector and "Négatif" not in projector
    console = text_of(client.get(f"/director/games/{game_id}").get_data(as_text=True))
    assert "Ranking by time" in console and "Bob · not found" in console
    phone = text_of(bob.get(f"/play/{game_id}/live").get_data(as_text=True))
    assert (
        "You did not find the top. This round costs you 250.0 s." in phone and "You are 2 of 2 with 250.0 s." in phone
    )
    french = text_of(bob.get(f"/play/{game_id}/live?lang=fr").get_data(as_text=True))
    assert "Vous n'avez pas trouvé le top." in french and "Classement au temps" in french


def test_a_classic_phone_keeps_its_fast_path_and_its_page(app: Flask, client: FlaskClient, director: str) -> None:
    """A classic game's phone still hands plays in through the API (its token on the form) and shows no hint."""
    log_in(client)
    game_id = new_game(client)
    ann = app.test_client()
    assert join(ann, join_code(app, game_id), "Ann").status_code == 303
    act(client, game_id, "start")
    page = ann.get(f"/play/{game_id}").get_data(as_text=True)
    assert 'data-token=""' not in page and "data-topping-panel" not in page and "data-refresh-on-plays" not in page
    assert 'data-ignore-events="submission joined"' in page


def test_a_topping_game_from_the_new_game_form(app: Flask, client: FlaskClient, director: str) -> None:
    log_in(client)
    page = client.get("/director/games/new").get_data(as_text=True)
    assert '<option value="topping">Topping</option>' in page
    game_id = new_game(client, mode="topping")
    with app.app_context():
        assert _game(app, game_id).mode == "topping"
    french = client.get("/director/games/new?lang=fr").get_data(as_text=True)
    assert '<option value="topping">Topping</option>' in french
