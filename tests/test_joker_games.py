"""Joker games and presets on the server (docs/rules.md §6.24, §6.14): a joker club game through the API (every draw
holds the blank, each top that places it has it swapped back, the server drawing what a simulation draws), what the
console, the projector and the phones say of it, its GCG record and round list; presets through the API and the
New game form without JavaScript; the migration that adds the two settings to the games made before.

Plays are chosen with the engine in the test, from the board and rack the API shows.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import flask_migrate
import sqlalchemy
from flask import Flask
from flask.testing import FlaskClient

from tests.test_api import Api
from tests.test_api import api as api  # the fixture
from tests.test_imposed_games import best_play
from tests.test_pages import GAME_FORM, act, csrf_token, join, join_code, log_in, new_game, submit, text_of
from tests.test_pages import director as director  # the fixture
from trainer.core.database import db
from trainer.duplicate.draw import DrawRule
from trainer.duplicate.rounds import DuplicateGame, Setup
from trainer.engine.lexicon import Lexicon
from trainer.engine.notation import format_move, square_name
from trainer.engine.rules import Ruleset
from trainer.games.models import Game

SEED = 31415926535897932385  # round 1 keeps the blank (JUNTO); rounds 2-5 place it, each swapped back
MIGRATIONS = Path(__file__).resolve().parent.parent / "trainer" / "migrations"
MIGRATION = next((MIGRATIONS / "versions").glob("*_game_variant_and_preset.py"))


def simulated(rules: Ruleset, lexicon: Lexicon, rounds: int, first_move_rules: bool = True) -> DuplicateGame:
    """The game the server should play: a new game's settings (the form of the page tests leaves the first-move
    rules unticked), played in memory."""
    game = DuplicateGame(
        Setup(
            rules,
            lexicon,
            "english",
            DrawRule(),
            SEED,
            max_rounds=rounds,
            first_play_across=first_move_rules,
            first_play_best_placement=first_move_rules,
            variant="joker",
        )
    )
    game.play_to_end()
    return game


def test_a_joker_club_game_holds_a_blank_in_every_draw_and_swaps_it_back(
    api: Api, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    alice = api.token()
    game = api.new_game(alice, variant="joker", seed=SEED, max_rounds=5, reveal_seconds=None)
    gid = game["id"]
    assert (game["variant"], game["preset"], game["round_seconds"]) == ("joker", None, 180)
    assert api.get(f"/api/games/{gid}")["settings"]["variant"] == "joker"
    ann = api.join(game["join_code"], "Ann")
    expected = simulated(en_rules, en_lexicon, 5)
    assert [r.blank is not None and r.blank.swapped for r in expected.rounds] == [False, True, True, True, True]
    assert expected.rounds[4].draw.rejets  # round 5 rejects a rack, and the fresh one takes the blank first again

    state = api.ok("POST", f"/api/games/{gid}/start", token=alice)
    notes = []
    while state["status"] == "playing":
        number = state["round"]
        played = expected.rounds[number - 1]
        assert (state["draw"], state["rack"].count("?")) == (played.draw.record, 1)
        api.ok(
            "POST",
            f"/api/games/{gid}/rounds/{number}/plays",
            {"move": best_play(state, en_rules, en_lexicon)},
            ann["token"],
        )
        api.ok("POST", f"/api/games/{gid}/close", token=alice)
        details = api.get(f"/api/games/{gid}/rounds/{number}", token=alice)
        assert details["placed"] == format_move(played.placed, "english")
        board = api.get(f"/api/games/{gid}")["board"]
        blank = played.blank
        if blank is None:
            assert details["blank"] is None and details["reliquat"] == ""  # the round's own reliquat: none yet
        else:
            square = square_name(blank.row, blank.col, "english")
            assert details["blank"] == {"letter": blank.letter, "square": square, "swapped": True}
            assert board[blank.row][blank.col] == blank.letter  # a real tile in the blank's place
            notes.append(f"#note round {number}, joker: the blank ({blank.letter}) on {square} is replaced by the "
                         f"letter {blank.letter} from the bag")  # fmt: skip
        state = api.ok("POST", f"/api/games/{gid}/next", token=alice)
    assert (state["status"], state["end_reason"], state["round"]) == ("finished", "max_rounds", 5)
    assert ["".join(state["board"])] == ["".join(expected.board.rows())]
    assert api.get(f"/api/games/{gid}/standings")["standings"][0]["tops"] == 5

    code, gcg = api.call("GET", f"/api/games/{gid}/export.gcg", token=alice)
    assert code == 200 and "#description Duplicate (en, joker game)" in gcg
    assert [line for line in gcg.splitlines() if ", joker: " in line] == notes
    code, listed = api.call("GET", f"/api/games/{gid}/draws.txt", token=alice)
    assert code == 200 and "# a joker game (docs/rules.md §6.24)" in listed and "cannot be played as imposed" in listed
    assert listed.splitlines()[-5:] == [r.draw.record for r in expected.rounds]


def test_a_joker_game_is_not_played_from_imposed_draws(api: Api) -> None:
    alice = api.token()
    code, answer = api.call("POST", "/api/games", {"variant": "joker", "draws": "EIMORSU\nER+AEINT"}, alice)
    assert code == 422 and answer["error"].startswith("a joker game draws its racks from its seed")
    assert api.new_game(alice, variant="joker", draws="")["variant"] == "joker"  # no list: drawn from the seed


def test_presets_set_both_times_and_a_time_that_disagrees_is_refused(api: Api) -> None:
    alice = api.token()
    blitz = api.new_game(alice, preset="blitz")
    assert (blitz["preset"], blitz["round_seconds"], blitz["reveal_seconds"]) == ("blitz", 60, 15)
    rapid = api.new_game(alice, round_seconds=120, reveal_seconds=20)
    assert (
        rapid["preset"] == "semi-rapid" and api.get(f"/api/games/{rapid['id']}")["settings"]["preset"] == "semi-rapid"
    )
    assert api.new_game(alice, round_seconds=90)["preset"] is None
    assert api.new_game(alice, preset="classic", round_seconds=180)["preset"] == "classic"
    code, answer = api.call("POST", "/api/games", {"preset": "blitz", "round_seconds": 90}, alice)
    assert code == 422
    assert answer["error"] == (
        "'round_seconds' is 90, but the preset blitz sets it to 60: leave 'round_seconds' out, or leave 'preset' out "
        "to give your own times"
    )
    code, answer = api.call("POST", "/api/games", {"preset": "fast"}, alice)
    assert code == 422 and "'preset' must be one of classic, semi-rapid, blitz" in answer["error"]


def _settings(app: Flask, game_id: int) -> tuple[str, str | None, int, int | None]:
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        return game.variant, game.preset, game.round_seconds, game.reveal_seconds


def test_the_new_game_form_takes_a_preset_and_the_variant_without_javascript(
    app: Flask, client: FlaskClient, director: str
) -> None:
    """docs/rules.md §6.14: the time fields keep their defaults when the page's script does not run; a preset chosen
    then sets them, and a time changed to another value than the preset's is refused under the preset's list."""
    log_in(client)
    page = client.get("/director/games/new").get_data(as_text=True)
    assert '<option selected value="classic">Classic: 3 minutes a round, 30 s reveal</option>' in page
    assert 'data-presets="{&#34;classic&#34;: [180, 30]' in page and "js/settings-form.js" in page
    untouched = {"round_seconds": "180", "reveal_seconds": "30"}
    blitz = new_game(client, preset="blitz", variant="joker", **untouched)
    assert _settings(app, blitz) == ("joker", "blitz", 60, 15)
    assert _settings(app, new_game(client, preset="semi-rapid", round_seconds="120", reveal_seconds="20"))[1:] == (
        "semi-rapid",
        120,
        20,
    )
    assert _settings(app, new_game(client, preset="", round_seconds="75"))[1:] == (None, 75, None)  # GAME_FORM's
    token = csrf_token(client, "/director/games/new")
    refused = client.post(
        "/director/games/new", data={**GAME_FORM, "preset": "blitz", "round_seconds": "90", "csrf_token": token}
    )
    assert refused.status_code == 400
    assert 'id="preset-error">The preset blitz sets the time per round to 60 seconds' in refused.get_data(as_text=True)
    french = client.post(
        "/director/games/new?lang=fr",
        data={**GAME_FORM, "variant": "joker", "draws": "EIMORSU", "seed": "", "csrf_token": token},
    )
    assert french.status_code == 400
    assert "Une partie joker tire ses tirages de sa graine" in text_of(french.get_data(as_text=True))


def test_the_screens_say_it_is_a_joker_game_and_what_became_of_the_blank(
    app: Flask, client: FlaskClient, director: str, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    log_in(client)
    game_id = new_game(client, variant="joker", seed=str(SEED))
    ann = app.test_client()
    assert join(ann, join_code(app, game_id), "Ann").status_code == 303
    note = "Joker game: every draw holds a blank. When the top places it, the blank is swapped for its letter"
    for path, who in ((f"/director/games/{game_id}", client), (f"/games/{game_id}/projector", client),
                      (f"/play/{game_id}", ann)):  # fmt: skip
        assert note in text_of(who.get(path).get_data(as_text=True)), path
    assert "Partie joker : chaque tirage contient un joker" in text_of(
        ann.get(f"/play/{game_id}?lang=fr").get_data(as_text=True)
    )
    expected = simulated(en_rules, en_lexicon, 2, first_move_rules=False)  # GAME_FORM leaves them unticked
    assert [(r.blank is None, format_move(r.placed, "english")) for r in expected.rounds] == [
        (True, "H4 JUNTO"),
        (False, "5E BROUGhT"),  # its h on J5
    ]
    said = "The blank (H) on J5 is replaced by the letter H from the bag."
    assert act(client, game_id, "start").get_json()["status"] == "playing"
    for number in (1, 2):
        assert act(client, game_id, "close").status_code == 200
        for page in (
            client.get(f"/director/games/{game_id}"),
            client.get(f"/games/{game_id}/projector"),
            ann.get(f"/play/{game_id}?lang=en"),  # Ann read the lobby in French
        ):
            assert (said in text_of(page.get_data(as_text=True))) == (number == 2), number
        if number == 1:
            assert act(client, game_id, "next").status_code == 200
            assert submit(ann, game_id, best_move(app, game_id, en_rules, en_lexicon)).status_code == 200
    french = text_of(ann.get(f"/play/{game_id}?lang=fr").get_data(as_text=True))
    assert "Le joker (H) en J5 est remplacé par la lettre H prise dans le sac." in french


def best_move(app: Flask, game_id: int, rules: Ruleset, lexicon: Lexicon) -> str:
    state: dict[str, Any] = Api(app.test_client()).get(f"/api/games/{game_id}")
    return best_play(state, rules, lexicon)


def test_the_games_made_before_are_classic_games_with_the_preset_their_times_make(app: Flask, api: Api) -> None:
    """The migration, down and up again on this database (SQLite, then PostgreSQL)."""
    alice = api.token()
    made = [api.new_game(alice, **times)["id"] for times in ({}, {"preset": "blitz"}, {"round_seconds": 90})]
    spec = importlib.util.spec_from_file_location("variant_migration", MIGRATION)
    assert spec is not None and spec.loader is not None
    migration = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(migration)
    with app.app_context():
        for game_id in made:
            db.session.get(Game, game_id).variant = "joker"  # type: ignore[union-attr]
        db.session.commit()
        flask_migrate.downgrade(directory=str(MIGRATIONS), revision=migration.down_revision)
        columns = {c["name"] for c in sqlalchemy.inspect(db.engine).get_columns("game")}
        assert "variant" not in columns and "preset" not in columns
        flask_migrate.upgrade(directory=str(MIGRATIONS))
        db.session.remove()
        assert [_settings(app, game_id)[:2] for game_id in made] == [
            ("classic", "classic"),
            ("classic", "blitz"),
            ("classic", None),
        ]
