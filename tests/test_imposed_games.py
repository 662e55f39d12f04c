"""Games played from imposed draws (docs/rules.md §6.18), through the API and the director's pages: created from a
pasted list or a file, checked before they start, played to the last line, and a finished game's round list
downloaded and played again as the same racks.

Plays are chosen with the engine in the test, from the board and rack the API shows.
"""

from __future__ import annotations

import io
import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.test_api import Api
from tests.test_api import api as api  # the fixture
from tests.test_pages import GAME_FORM, act, csrf_token, log_in, text_of
from tests.test_pages import director as director  # the fixture
from trainer.core.database import db
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move
from trainer.engine.rules import Ruleset
from trainer.games.models import Event, Game

# Four rounds: round 2 keeps ER of EIMORSU, round 3 rejects EN+AIOUU (one consonant) for a fresh ABDLOST.
PASTED = """\
# The club's simultaneous, as the federation published it
1 EIMORSU
2 ER+AEINT
3 -EN+AIOUU ABDLOST   # rejet: a single consonant
4 LST+EEGR
"""
STORED = "EIMORSU\nER+AEINT\n-EN+AIOUU ABDLOST\nLST+EEGR\n"
RACKS = ["EIMORSU", "ERAEINT", "ABDLOST", "LSTEEGR"]  # the reliquat first, as the draws are written


def best_play(state: dict[str, Any], rules: Ruleset, lexicon: Lexicon) -> str:
    """The best-scoring play of the rack on the board the API shows (the engine's, in the test)."""
    board = Board.from_rows(rules.layout, state["board"])
    moves = generate_moves(board, rules, lexicon, state["rack"])
    return format_move(max(moves, key=lambda m: (m.score or 0, format_move(m))))


def play_to_the_end(
    api: Api, director: str, game_id: int, token: str, rules: Ruleset, lexicon: Lexicon
) -> list[dict[str, Any]]:
    """Start the game and play every round (one play each, the director closing it) until it is over; each
    round's state as it opened."""
    opened = []
    state = api.ok("POST", f"/api/games/{game_id}/start", token=director)
    while state["status"] == "playing":
        opened.append(state)
        number = state["round"]
        api.ok("POST", f"/api/games/{game_id}/rounds/{number}/plays", {"move": best_play(state, rules, lexicon)}, token)
        api.ok("POST", f"/api/games/{game_id}/close", token=director)
        state = api.ok("POST", f"/api/games/{game_id}/next", token=director)
    return opened


def test_an_imposed_game_plays_each_lines_rack_to_the_last_line(
    api: Api, app: Flask, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    alice = api.token()
    game = api.new_game(alice, draws=PASTED, reveal_seconds=None)
    gid = game["id"]
    assert game["draws"] == STORED  # kept as §6.3 writes each draw, comments and numbers left out
    assert api.get(f"/api/games/{gid}")["imposed_draws"] is True
    assert "draws" not in api.get(f"/api/games/{gid}")  # nobody but the director sees the racks to come
    ann = api.join(game["join_code"], "Ann")

    opened = play_to_the_end(api, alice, gid, ann["token"], en_rules, en_lexicon)
    assert [s["rack"] for s in opened] == RACKS
    assert [s["draw"] for s in opened] == STORED.splitlines()
    final = api.get(f"/api/games/{gid}")
    assert (final["status"], final["end_reason"], final["round"]) == ("finished", "last_draw", 4)
    standings = api.get(f"/api/games/{gid}/standings")["standings"]
    assert standings[0]["name"] == "Ann" and standings[0]["total"] > 0
    for number, rack in enumerate(RACKS, 1):
        assert api.get(f"/api/games/{gid}/rounds/{number}")["rack"] == rack
    with app.app_context():
        created = next(e for e in db.session.query(Event).filter_by(game_id=gid, kind="created"))
        assert created.data["imposed_draws"] == 4 and "EIMORSU" not in str(created.data)  # the log is streamed

    # The round list downloads as it was given, and makes a game of the same racks.
    status, text = api.call("GET", f"/api/games/{gid}/draws.txt")
    assert status == 200 and text.startswith(f"# Tirage duplicate game {gid} (en, imposed draws)")
    assert [line for line in text.splitlines() if not line.startswith("#")] == STORED.splitlines()
    again = api.new_game(alice, draws=text)
    assert again["draws"] == STORED


def test_a_seed_games_round_list_is_played_again_as_the_same_racks_and_tops(
    api: Api, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    """Three rounds drawn from a seed, downloaded, then played as imposed draws (from the round list, and from the
    GCG record): the same racks, draws, boards and tops."""
    alice = api.token()
    seeded = api.new_game(alice, seed=4 * 10**19 + 4, max_rounds=3, reveal_seconds=None)
    ann = api.join(seeded["join_code"], "Ann")
    first = play_to_the_end(api, alice, seeded["id"], ann["token"], en_rules, en_lexicon)
    assert len(first) == 3
    status, listed = api.call("GET", f"/api/games/{seeded['id']}/draws.txt")
    assert status == 200 and "drawn from its seed" in listed
    status, gcg = api.call("GET", f"/api/games/{seeded['id']}/export.gcg")
    assert status == 200

    for text in (listed, gcg):
        game = api.new_game(alice, draws=text, reveal_seconds=None)
        assert game["draws"] == "".join(f"{s['draw']}\n" for s in first)
        bea = api.join(game["join_code"], "Bea")
        replayed = play_to_the_end(api, alice, game["id"], bea["token"], en_rules, en_lexicon)
        assert [(s["rack"], s["draw"], s["board"]) for s in replayed] == [
            (s["rack"], s["draw"], s["board"]) for s in first
        ]
        tops = [api.get(f"/api/games/{g}/rounds/{n}")["tops"] for g in (seeded["id"], game["id"]) for n in (1, 2, 3)]
        assert tops[:3] == tops[3:]
        assert api.get(f"/api/games/{game['id']}")["end_reason"] == "last_draw"


def test_a_list_is_refused_before_the_game_exists_naming_each_line(api: Api, app: Flask) -> None:
    alice = api.token()
    for draws, expected in [
        ("EIMORSU\nER+AEINT\n-AEIOU+EEIKLRT\n", "line 3: -AEIOU+EEIKLRT has 12 tiles: a rack holds 7"),
        ("EIMORSU\nEZ+AEINT\n", "line 2: the reliquat EZ is not part of the last rack EIMORSU"),
        ("AEIOUUS\n", "line 1: AEIOSUU does not meet the draw rule of round 1"),
        ("EIM+OR+SU\nÉTÉ\n", "line 1: 'EIM+OR+SU' is not a draw: write RELIQUAT+NEW; line 2: 'É' is not a tile"),
    ]:
        code, answer = api.call("POST", "/api/games", {"draws": draws}, alice)
        assert code == 422 and expected in answer["error"], answer
    code, answer = api.call("POST", "/api/games", {"draws": STORED, "seed": 10**19}, alice)
    assert code == 422 and "leave 'seed' out" in answer["error"]
    code, answer = api.call("POST", "/api/games", {"draws": ["EIMORSU"]}, alice)
    assert code == 422 and "'draws' must be text" in answer["error"]
    # French rules: the same list is checked against the French bag and the game's draw rule.
    code, answer = api.call("POST", "/api/games", {"rules": "fr", "draws": "ABCDFGY\n"}, alice)
    assert code == 201 and answer["draws"] == "ABCDFGY\n"  # Y makes up the second vowel in French (§1.4)
    code, answer = api.call("POST", "/api/games", {"rules": "en", "draws": "ABCDFGY\n"}, alice)
    assert code == 422 and "line 1: ABCDFGY does not meet the draw rule" in answer["error"]
    with app.app_context():
        assert db.session.query(Game).count() == 1


def test_games_of_one_list_share_their_draw_and_the_games_of_its_seed_do_not(api: Api) -> None:
    """docs/rules.md §6.4's embargo for outsiders follows the racks: a second game of the same list (written
    otherwise) hides the first from outsiders until it has closed the same rounds; a game of the first one's seed
    plays other racks and hides nothing."""
    alice = api.token()
    first = api.new_game(alice, draws=STORED, reveal_seconds=None)
    api.ok("POST", f"/api/games/{first['id']}/start", token=alice)
    assert api.call("GET", f"/api/games/{first['id']}")[0] == 200
    api.new_game(alice, seed=first["seed"])  # the seed of a game with imposed draws draws none of its racks
    assert api.call("GET", f"/api/games/{first['id']}")[0] == 200
    second = api.new_game(alice, draws=PASTED, reveal_seconds=None)  # the same list, as published
    assert api.call("GET", f"/api/games/{first['id']}")[0] == 200  # in its lobby it holds nobody back (issue 26)
    api.ok("POST", f"/api/games/{second['id']}/start", token=alice)
    code, answer = api.call("GET", f"/api/games/{first['id']}", documented=False)  # §6.4's 403: not in the API document
    assert code == 403 and "shares its draw" in answer["error"]
    api.ok("POST", f"/api/games/{second['id']}/close", token=alice)
    assert api.call("GET", f"/api/games/{first['id']}")[0] == 200


# ------------------------------------------------------------------------------------- the director's pages


def _new_game_form(client: FlaskClient, **fields: Any) -> Any:
    token = csrf_token(client, "/director/games/new")
    return client.post(
        "/director/games/new",
        data={**GAME_FORM, "seed": "", **fields, "csrf_token": token},
        content_type="multipart/form-data",
    )


def test_the_director_pastes_or_uploads_a_list_and_downloads_the_rounds(
    app: Flask, client: FlaskClient, director: str
) -> None:
    log_in(client)
    page = client.get("/director/games/new").get_data(as_text=True)
    assert 'name="draws"' in page and 'name="draws_file"' in page and 'enctype="multipart/form-data"' in page

    pasted = _new_game_form(client, draws=PASTED)
    assert pasted.status_code == 303, text_of(pasted.get_data(as_text=True))
    game_id = int(pasted.headers["Location"].rsplit("/", 1)[1])
    uploaded = _new_game_form(client, draws_file=(io.BytesIO(("\ufeff" + PASTED).encode()), "simultaneous.txt"))
    assert uploaded.status_code == 303, text_of(uploaded.get_data(as_text=True))
    with app.app_context():
        stored = {g.id: g.imposed_draws for g in db.session.query(Game)}
    assert list(stored.values()) == [STORED, STORED]

    console = client.get(f"/director/games/{game_id}").get_data(as_text=True)
    assert "imposed draws" in text_of(console)
    assert f'href="/director/games/{game_id}/draws.txt"' in console
    act(client, game_id, "start")
    act(client, game_id, "close")
    download = client.get(f"/director/games/{game_id}/draws.txt")
    assert download.status_code == 200 and download.mimetype == "text/plain"
    assert "attachment" in download.headers["Content-Disposition"]
    assert download.get_data(as_text=True).endswith("\nEIMORSU\n")  # the closed round: round 1


def test_a_refused_list_is_explained_line_by_line_in_the_directors_language(
    app: Flask, client: FlaskClient, director: str
) -> None:
    log_in(client)
    bad = "EIMORSU\nEZ+AEINT\n"
    answer = _new_game_form(client, draws=bad)
    page = text_of(answer.get_data(as_text=True))
    assert answer.status_code == 400
    assert "Line 2: the reliquat EZ is not part of the last rack EIMORSU." in page
    assert bad.strip() in answer.get_data(as_text=True)  # the list stays in the form, to be fixed
    token = csrf_token(client, "/director/games/new")
    french = client.post(
        "/director/games/new",
        data={**GAME_FORM, "seed": "", "draws": "EIM+OR+SU\nAEIOUUS\n", "csrf_token": token},
        headers={"Accept-Language": "fr"},
    )
    assert french.status_code == 400
    assert re.search(r"Ligne 1 : « EIM\+OR\+SU » n’est pas un tirage", text_of(french.get_data(as_text=True)))
    both = _new_game_form(client, draws=STORED, draws_file=(io.BytesIO(STORED.encode()), "list.txt"))
    assert both.status_code == 400 and "Paste the draws or choose a file, not both." in text_of(
        both.get_data(as_text=True)
    )
    seeded = _new_game_form(client, draws=STORED, seed="12345 67890 12345 67890")
    assert seeded.status_code == 400 and "leave the seed empty" in text_of(seeded.get_data(as_text=True))
    with app.app_context():
        assert db.session.query(Game).count() == 0
