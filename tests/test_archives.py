"""The archive of finished games (issue 18), on SQLite and PostgreSQL: the list's filters and pages, one game's
rounds (draw, top, next best, how many found it) and standings through the API and the pages, the games held back
while another game of their draw is behind them (docs/rules.md §6.4), and filters that cannot be read.

Expected figures come from the engine and the standings API, never from the archive's own code."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from flask import Flask
from sqlalchemy import event, select

from tests.processes import best_play
from tests.test_api import Api
from tests.test_api import api as api  # the fixture
from tests.test_pages import text_of
from trainer.core.accounts import Director
from trainer.core.database import db
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import generate_moves
from trainer.engine.notation import format_move
from trainer.engine.rules import Ruleset
from trainer.games import archives, draws, service
from trainer.games.models import Game

SEED = 10**19


def _word(move: str) -> str:
    return move.split()[-1].upper()


def _finished(
    app: Flask, director: str, seed: int, players: tuple[str, ...] = (), rules: str = "en", day: str | None = None
) -> int:
    """A game of ``director`` played for one round (nobody plays) and ended; made on ``day`` (YYYY-MM-DD) if given."""
    with app.app_context():
        owner = db.session.execute(select(Director).where(Director.username == director)).scalar_one()
        game = service.create_game(owner, {"rules": rules, "seed": seed, "reveal_seconds": None})
        for name in players:
            service.join_game(game.join_code, name)
        service.start_game(game, director)
        service.end_game(game, director)
        if day is not None:
            game.created_at = datetime.fromisoformat(day).replace(hour=20, tzinfo=UTC)
            db.session.commit()
        return game.id


def _ids(api: Api, query: str = "") -> list[int]:
    return [g["id"] for g in api.get(f"/api/archives{query}")["games"]]


@contextmanager
def _statements(app: Flask) -> Iterator[list[str]]:
    """The SQL statements run inside the block."""
    seen: list[str] = []

    def count(*args: Any) -> None:
        seen.append(str(args[2]))

    engine = db.engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", count)


# ---------------------------------------------------------------- the list: filters and pages


def test_the_list_filters_and_pages_the_finished_games_newest_first(api: Api, app: Flask) -> None:
    first = _finished(app, "alice", SEED + 1, ("Ann", "Bob"), day="2026-01-10")
    french = _finished(app, "alice", SEED + 2, rules="fr", day="2026-02-15")
    last = _finished(app, "bruno", SEED + 3, ("Cy", "Dee", "Eve"), day="2026-03-01")
    alice = api.token()
    lobby = api.new_game(alice, seed=SEED + 4)["id"]  # ended in its lobby: nothing played, not archived
    api.ok("POST", f"/api/games/{lobby}/end", token=alice)
    playing = api.new_game(alice, seed=SEED + 5)["id"]  # not over
    api.ok("POST", f"/api/games/{playing}/start", token=alice)

    answer = api.get("/api/archives")
    assert [g["id"] for g in answer["games"]] == [last, french, first]
    assert (answer["total"], answer["page"], answer["pages"], answer["per_page"]) == (3, 1, 1, archives.PAGE_SIZE)
    rows = {g["id"]: g for g in answer["games"]}
    assert (rows[last]["director"], rows[last]["players"], rows[last]["rounds"]) == ("bruno", 3, 1)
    assert (rows[french]["rules"], rows[french]["lexicon"], rows[french]["players"]) == ("fr", "fr", 0)
    for game_id, row in rows.items():  # winners and top totals as the game's own standings give them
        standings = api.get(f"/api/games/{game_id}/standings")
        assert row["top_total"] == standings["top_total"] > 0
        first_rank = [s["name"] for s in standings["standings"] if s["rank"] == 1]
        assert [w["name"] for w in row["winners"]] == first_rank
        assert row["url"] == f"/api/archives/{game_id}"

    for query, expected in [
        ("?rules=fr", [french]),
        ("?rules=en&lexicon=en", [last, first]),
        ("?director=bruno", [last]),
        ("?date_from=2026-02-01", [last, french]),
        ("?date_to=2026-02-15", [french, first]),  # both ends included
        ("?date_from=2026-02-15&date_to=2026-02-15", [french]),
        ("?min_players=2", [last, first]),
        ("?max_players=0", [french]),
        ("?min_players=1&max_players=2", [first]),
        ("?rules=&lexicon=&date_from=&min_players=", [last, french, first]),  # an empty field is no filter
        ("?director=nobody", []),
        ("?lang=fr&theme=contrast", [last, french, first]),  # the pages' own parameters are left alone
    ]:
        assert _ids(api, query) == expected, query
    two = api.get("/api/archives?per_page=2")
    assert [g["id"] for g in two["games"]] == [last, french] and (two["total"], two["pages"]) == (3, 2)
    assert _ids(api, "?per_page=2&page=2") == [first]
    assert api.get("/api/archives?per_page=2&page=3")["games"] == []

    # No query per game: a page of three games reads as many statements as a page of one.
    with app.app_context():
        with _statements(app) as one:
            archives.list_games(archives.Query(per_page=1))
        db.session.expire_all()
        with _statements(app) as three:
            page = archives.list_games(archives.Query(per_page=3))
        assert len(page.games) == 3 and len(three) == len(one), (len(one), len(three))

    html = api.client.get("/archives?director=bruno&lang=en").get_data(as_text=True)
    assert f'href="/archives/{last}"' in html and f'href="/archives/{first}"' not in html
    assert "1 game." in text_of(html)
    paged = api.client.get("/archives?per_page=2").get_data(as_text=True)
    assert 'href="/archives?per_page=2&amp;page=2"' in paged and 'rel="prev"' not in paged
    french_page = text_of(api.client.get("/archives?lang=fr").get_data(as_text=True))
    assert "Afficher les parties" in french_page and "3 parties." in french_page and "Show the games" not in french_page


# ---------------------------------------------------------------- one game: rounds, next best, finders, standings


def _next_best(board_rows: list[str], rack: str, tops: list[str], top: int, rules: Ruleset, lexicon: Lexicon) -> int:
    """The score of the best play of a word none of the tops makes, found by the engine here."""
    board = Board.from_rows(rules.layout, board_rows)
    words = {_word(t) for t in tops}
    return max(
        (m.score or 0)
        for m in generate_moves(board, rules, lexicon, rack)
        if (m.score or 0) < top and _word(format_move(m)) not in words
    )


def test_a_game_s_rounds_show_the_draw_the_top_the_next_best_and_who_found_it(
    api: Api, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    alice = api.token()
    game = api.new_game(alice, rules="en", seed=SEED + 11, max_rounds=2, reveal_seconds=None)
    gid = game["id"]
    tokens = {name: api.join(game["join_code"], name)["token"] for name in ("Ann", "Bob", "Cy")}
    api.ok("POST", f"/api/games/{gid}/start", token=alice)
    expected = []
    for number, finders in ((1, ["Ann"]), (2, ["Bob", "Cy"])):
        state = api.get(f"/api/games/{gid}")
        top, score, lesser = best_play(state, en_rules, en_lexicon)
        for name in ("Ann", "Bob", "Cy"):
            move = top if name in finders else lesser
            if not (number == 1 and name == "Cy"):  # Cy hands in nothing in round 1
                api.ok("POST", f"/api/games/{gid}/rounds/{number}/plays", {"move": move}, token=tokens[name])
        api.ok("POST", f"/api/games/{gid}/close", token=alice)
        details = api.get(f"/api/games/{gid}/rounds/{number}")
        following = _next_best(state["board"], state["rack"], details["tops"], score, en_rules, en_lexicon)
        expected.append((state["draw"], details["placed"], score, following, len(finders)))
        api.ok("POST", f"/api/games/{gid}/next", token=alice)  # after round 2: the game is over
    assert api.get(f"/api/games/{gid}")["status"] == "finished"

    record = api.get(f"/api/archives/{gid}")
    assert [
        (r["draw"], r["top"], r["top_score"], r["next_best"]["score"], r["found_by"]) for r in record["rounds"]
    ] == [(draw, top, score, following, found) for draw, top, score, following, found in expected]
    for r in record["rounds"]:
        assert r["of"] == 3 and _word(r["next_best"]["move"]) not in {_word(t) for t in r["tops"]}
    assert record["top_total"] == expected[0][2] + expected[1][2] == record["rounds"][-1]["top_total"]
    standings = api.get(f"/api/games/{gid}/standings")
    assert [(s["name"], s["total"], s["rank"]) for s in record["standings"]] == [
        (s["name"], s["total"], s["rank"]) for s in standings["standings"]
    ]
    assert [w["name"] for w in record["winners"]] == [s["name"] for s in standings["standings"] if s["rank"] == 1]
    for url in record["exports"].values():  # the downloads, open to all for a finished game
        assert api.client.get(url).status_code == 200, url

    html = api.client.get(f"/archives/{gid}").get_data(as_text=True)
    text = text_of(html)
    for draw, top, _score, _following, found in expected:
        assert draw in text and top in text and f"{found} of 3" in text
    assert record["rounds"][0]["next_best"]["move"] in text and "Next best" in text
    for kind, url in record["exports"].items():
        # The page's CSV is in the reader's spreadsheet convention (docs/rules.md §6.20); the API's is the plain one.
        assert f'href="{f"/archives/{gid}/standings.csv" if kind == "csv" else url}"' in html, kind
    assert 'class="table-wrap" tabindex="0"' in html  # a keyboard scrolls the wide tables
    assert "Sheets to print" not in text  # only for the game's director
    french = text_of(api.client.get(f"/archives/{gid}?lang=fr").get_data(as_text=True))
    assert f"{expected[0][4]} sur 3" in french and "Sous-tops" in french and "Classement" in french
    assert "Found by" not in french and "Standings" not in french
    listed = text_of(api.client.get("/archives?lang=en").get_data(as_text=True))
    winners = ", ".join(w["name"] for w in record["winners"])
    assert f"Game {game['join_code']}" in listed and winners in listed


# ---------------------------------------------------------------- fairness: a draw another game is still playing


def _hidden(api: Api, app: Flask, gid: int) -> bool:
    """Whether the archive holds ``gid`` back, checked everywhere it could leak: the list, the API, the page; and
    that the list's batched rule agrees with the rule of every outsider's read (draws.shown_to_outsiders)."""
    listed = gid in _ids(api)
    code, _answer = api.call("GET", f"/api/archives/{gid}")
    page = api.client.get(f"/archives/{gid}")
    index = api.client.get("/archives").get_data(as_text=True)
    with app.app_context():
        held = draws.finished_not_shown()
        for game in db.session.execute(select(Game).where(Game.status == "finished")).scalars():
            assert (game.id in held) == (game.round_number > 0 and not draws.shown_to_outsiders(game)), game.id
    if gid in held:
        assert not listed and code == 403 and page.status_code == 403 and f"/archives/{gid}" not in index
        assert "still being played" in text_of(page.get_data(as_text=True))
        return True
    assert listed and code == 200 and page.status_code == 200
    return False


def test_a_game_whose_draw_is_still_being_played_elsewhere_stays_out_of_the_archive(api: Api, app: Flask) -> None:
    """docs/rules.md §6.4: game A (two rounds) is over; Bruno replays its seed in game B."""
    alice, bruno = api.token(), api.token("bruno")
    a = api.new_game(alice, seed=SEED + 21, max_rounds=2, reveal_seconds=None)["id"]
    api.ok("POST", f"/api/games/{a}/start", token=alice)
    for _ in range(2):
        api.ok("POST", f"/api/games/{a}/close", token=alice)
        api.ok("POST", f"/api/games/{a}/next", token=alice)
    assert not _hidden(api, app, a)
    other_rule = api.new_game(bruno, seed=SEED + 21, draw_rule={"min_vowels": 1})["id"]  # another draw: no matter
    assert not _hidden(api, app, a)
    b = api.new_game(bruno, seed=SEED + 21, max_rounds=2, reveal_seconds=None)["id"]
    assert not _hidden(api, app, a)  # B's lobby has shown nothing: it holds nobody back (issue 26)
    api.ok("POST", f"/api/games/{b}/start", token=bruno)
    assert _hidden(api, app, a)  # B has opened round 1: the embargo starts
    api.ok("POST", f"/api/games/{b}/close", token=bruno)
    assert _hidden(api, app, a)  # A showed round 2, which B has not closed
    api.ok("POST", f"/api/games/{b}/next", token=bruno)
    api.ok("POST", f"/api/games/{b}/close", token=bruno)
    assert not _hidden(api, app, a)  # B has caught up
    api.ok("POST", f"/api/games/{b}/next", token=bruno)
    assert not _hidden(api, app, b) and other_rule not in _ids(api)

    # A room of a simultaneous game, ended early, is held back while another room has not caught up with it.
    first = api.new_game(alice, seed=SEED + 22, reveal_seconds=None)["id"]
    body = {"kind": "simultaneous", "name": "Spring", "game_id": first}
    event = api.ok("POST", "/api/competitions", body, token=alice, status=201)
    room = api.ok("POST", f"/api/competitions/{event['code']}/rooms", token=bruno, status=201)["id"]
    api.ok("POST", f"/api/games/{first}/start", token=alice)
    api.ok("POST", f"/api/games/{first}/end", token=alice)
    assert not _hidden(api, app, first)  # the other room waits in its lobby
    api.ok("POST", f"/api/games/{room}/start", token=bruno)
    assert _hidden(api, app, first)  # the room shows round 1 but has not closed it
    api.ok("POST", f"/api/games/{room}/close", token=bruno)
    assert not _hidden(api, app, first)


def test_the_kind_filter_tells_club_games_from_simultaneous_rooms_and_tournament_games(api: Api, app: Flask) -> None:
    """A club game has no competition; a simultaneous game's rooms and a tournament's games are found by their
    competition's kind (trainer.games.competitions)."""
    alice = api.token()
    club = _finished(app, "alice", SEED + 31)
    first = api.new_game(alice, seed=SEED + 32, reveal_seconds=None)["id"]
    body = {"kind": "simultaneous", "name": "Spring", "game_id": first}
    api.ok("POST", "/api/competitions", body, token=alice, status=201)
    api.ok("POST", f"/api/games/{first}/start", token=alice)
    api.ok("POST", f"/api/games/{first}/end", token=alice)
    assert _ids(api, "?kind=club") == [club]
    assert _ids(api, "?kind=simultaneous") == [first]
    assert _ids(api, "?kind=tournament") == []
    assert set(_ids(api)) == {club, first}
    page = text_of(api.client.get("/archives?kind=simultaneous&lang=fr").get_data(as_text=True))
    assert "Genre de partie" in page and "1 partie." in page, page


# ---------------------------------------------------------------- what cannot be read


def test_filters_that_cannot_be_read_are_a_400_naming_them_never_a_500(api: Api, app: Flask) -> None:
    for query, field in [
        ("rules=xx", "rules"),
        ("date_from=2026-13-01", "date_from"),
        ("date_to=yesterday", "date_to"),
        ("date_from=2026-3-1", "date_from"),
        ("min_players=-1", "min_players"),
        ("max_players=ten", "max_players"),
        ("min_players=99999999999999999999", "min_players"),
        ("min_players=3&max_players=2", "max_players"),
        ("date_from=2026-03-02&date_to=2026-03-01", "date_to"),
        ("page=0", "page"),
        ("page=²", "page"),
        ("per_page=1000", "per_page"),
        ("kind=solo", "kind"),
        ("lexicon=" + "x" * 200, "lexicon"),
        ("director=" + "y" * 100, "director"),
    ]:
        code, answer = api.call("GET", f"/api/archives?{query}")
        assert code == 400 and field in answer["error"], (query, answer)
        page = api.client.get(f"/archives?{query}")
        assert page.status_code == 400, query
        html = page.get_data(as_text=True)
        assert 'role="alert"' in html, query
        if field not in ("page", "per_page"):  # the form's own fields are marked
            assert re.search(f'id="filter-{field}"[^>]* aria-invalid="true"', html), query
    english = text_of(api.client.get("/archives?date_from=2026-13-01&lang=en").get_data(as_text=True))
    assert "From: “2026-13-01” is not a date. Write it as year-month-day, like 2026-03-12." in english
    french = text_of(api.client.get("/archives?date_from=2026-13-01&lang=fr").get_data(as_text=True))
    assert "n’est pas une date" in french and "is not a date" not in french
    french = text_of(api.client.get("/archives?min_players=3&max_players=2&lang=fr").get_data(as_text=True))
    assert "joueurs" in french and "fewer players" not in french

    alice = api.token()
    playing = api.new_game(alice, seed=SEED + 31)["id"]
    for gid in (playing, 999_999):
        code, answer = api.call("GET", f"/api/archives/{gid}")
        assert code == 404 and "archive" in answer["error"]
        assert api.client.get(f"/archives/{gid}").status_code == 404
    assert "Il n’y a pas" in text_of(api.client.get(f"/archives/{playing}?lang=fr").get_data(as_text=True))
    assert api.client.get("/archives/x").status_code == 404
    header = api.client.get("/?lang=fr").get_data(as_text=True)
    assert re.search(r'<nav class="site-nav".*href="/archives">Archives</a>.*</nav>', header, re.S)
