"""Who has handed in, on the director's console (docs/rules.md §6.6; issue 28 item 6): the room's stream says only
how many plays are in, the console lists who is still missing, those first, capped for a big room with the rest
counted; the list is the director's alone. The console in Chromium is tests/browser/test_console_handins.py.
"""

from __future__ import annotations

from flask import Flask
from flask.testing import FlaskClient

from tests.test_bulletins import _page_post
from tests.test_pages import act, current_round, join, join_code, log_in, new_game, plays_of, submit, text_of
from trainer.core import accounts
from trainer.core.database import db
from trainer.games import handins
from trainer.games.models import Game


def _hand_ins(app: Flask, game_id: int, shown: int = handins.SHOWN) -> handins.HandIns | None:
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        return handins.hand_ins(game, shown)


def _state(h: handins.HandIns) -> list[tuple[str, bool]]:
    return [(p.name, p.handed_in) for p in h.listed]


def test_the_console_lists_who_has_not_handed_in_first_and_caps_a_big_room(app: Flask, client: FlaskClient) -> None:
    with app.app_context():
        accounts.create_director("alice", "password123")
    log_in(client)
    game_id = new_game(client)
    phones = {}
    for name in ("zoé", "Bob", "Ann", "cy", "Dan"):
        phones[name] = app.test_client()
        assert join(phones[name], join_code(app, game_id), name).status_code == 303
    assert "Eve plays on paper at table 7." in _page_post(
        client, game_id, "paper-players", {"name": "Eve", "table": "7"}
    )
    assert _hand_ins(app, game_id) is None  # the lobby: no round in progress
    assert act(client, game_id, "start").get_json()["ok"]

    h = _hand_ins(app, game_id)
    assert h is not None and (h.round_number, h.players, h.handed_in, h.not_yet) == (1, 6, 0, 6)
    assert [name for name, _ in _state(h)] == ["Ann", "Bob", "cy", "Dan", "Eve", "zoé"]  # by name, case folded

    (top, _score), *_ = plays_of(app, current_round(app, game_id))
    for name in ("Bob", "zoé", "Dan"):
        assert submit(phones[name], game_id, top).get_json()["ok"]
    assert submit(phones["Bob"], game_id, top).get_json()["ok"]  # a second play: still one player in
    assert "taken" in _page_post(client, game_id, "bulletins", {"who": "7", "move": top})  # Eve's slip
    h = _hand_ins(app, game_id)
    assert h is not None and (h.players, h.handed_in, h.not_yet, h.left_off) == (6, 4, 2, 0)
    assert _state(h) == [("Ann", False), ("cy", False), ("Bob", True), ("Dan", True), ("Eve", True), ("zoé", True)]
    eve = next(p for p in h.listed if p.name == "Eve")
    assert (eve.paper, eve.table_number) == (True, 7)

    # A room bigger than the list: the missing first, the rest counted.
    h = _hand_ins(app, game_id, shown=3)
    assert h is not None and _state(h) == [("Ann", False), ("cy", False), ("Bob", True)]
    assert (h.left_off, h.left_off_not_yet) == (3, 0)
    h = _hand_ins(app, game_id, shown=1)
    assert h is not None and _state(h) == [("Ann", False)] and (h.left_off, h.left_off_not_yet) == (5, 1)

    # The console's fragment, fetched by its script: the count and each player's state, nobody's play.
    fragment = client.get(f"/director/games/{game_id}/hand-ins")
    assert fragment.status_code == 200
    text = text_of(fragment.get_data(as_text=True))
    assert "4 of 6 handed in · 2 not yet" in text
    assert "Ann not yet" in text and "Bob handed in" in text and "Eve table 7 on paper handed in" in text
    assert top.split()[-1] not in text
    page = text_of(client.get(f"/director/games/{game_id}").get_data(as_text=True))
    assert "Who has handed in" in page and "cy not yet" in page

    # The director's alone: a player's browser is sent to the login, like any console page.
    assert phones["Ann"].get(f"/director/games/{game_id}/hand-ins").status_code in (302, 303)

    # In French.
    french = client.get(f"/director/games/{game_id}/hand-ins", headers={"Accept-Language": "fr"})
    text = text_of(french.get_data(as_text=True))
    assert "4 sur 6 ont rendu leur coup · 2 pas encore" in text and "Ann pas encore" in text
    assert "Eve table 7 sur papier rendu" in text

    assert act(client, game_id, "close").get_json()["ok"]
    assert _hand_ins(app, game_id) is None  # the reveal: the results say who played what
    assert "not yet" not in text_of(client.get(f"/director/games/{game_id}/hand-ins").get_data(as_text=True))
