"""The phone page's live fragment answered in the event loop (issue 6): the same page as the Flask view's.

The ASGI application is called in-process with the session cookie a real page join set; each answer
is compared with the Flask view's own answer for the same browser, which stays the reference.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from tests.test_live import run_async
from tests.test_pages import join, plays_of, text_of
from tests.test_play_desk import _post
from trainer.core import accounts
from trainer.core.database import db
from trainer.games import service
from trainer.games.models import Game
from trainer.live.asgi import TirageASGI
from trainer.web.phone import PhoneFragments

PASSWORD = "correct horse battery"
PLAYERS = 12  # more than the ten lines of the phone's standings


class Phone:
    def __init__(self, app: Flask, code: str, name: str) -> None:
        self.name = name
        self.browser: FlaskClient = app.test_client()
        assert join(self.browser, code, name).status_code == 303
        cookie = self.browser.get_cookie("session")
        assert cookie is not None
        self.cookie = cookie.value


def _game(app: Flask) -> tuple[int, str]:
    with app.app_context():
        director = accounts.create_director("director", PASSWORD)
        game = service.create_game(director, {"rules": "en", "round_seconds": 60})
        return game.id, game.join_code


def _act(asgi: TirageASGI, game_id: int, action: str) -> None:
    """A director's action, then what the process's event hub does when woken by it: read the new events
    (the game's version moves on)."""
    app = asgi.flask
    with app.app_context():
        game = db.session.get(Game, game_id)
        assert game is not None
        if action == "start":
            service.start_game(game, "test")
        elif action == "close":
            assert service.close_round(game_id, game.round_number, "test", early=True)
    asgi.hub._fan_out(asgi.hub._read())


async def _get(
    asgi: TirageASGI, path: str, cookie: str | None, language: str = "en", query: bytes = b""
) -> tuple[int, dict[str, str], str]:
    headers = [(b"host", b"localhost"), (b"accept", b"text/html"), (b"accept-language", language.encode())]
    if cookie is not None:
        headers.append((b"cookie", f"session={cookie}".encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query,
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("localhost", 80),
    }

    async def receive() -> dict[str, Any]:
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    await asgi(scope, receive, send)
    start = sent[0]
    return (
        start["status"],
        {k.decode().lower(): v.decode() for k, v in start["headers"]},
        b"".join(m.get("body", b"") for m in sent[1:]).decode(),
    )


def _same_clock(html: str) -> str:
    """The clock's seconds left differ by the time between two requests."""
    return re.sub(
        r'data-seconds-left="[^"]*" data-running="1">[^<]*<', 'data-seconds-left="…" data-running="1">…<', html
    )


def _check(asgi: TirageASGI, phone: Phone, game_id: int, language: str = "en") -> str:
    """The fragment answered in the event loop, checked against the Flask view's for the same browser."""
    status, headers, html = run_async(_get(asgi, f"/play/{game_id}/live", phone.cookie, language))
    view = phone.browser.get(f"/play/{game_id}/live", headers={"Accept-Language": language})
    assert status == view.status_code == 200
    assert _same_clock(html) == _same_clock(view.get_data(as_text=True))
    for name in ("content-type", "vary", "content-security-policy", "x-content-type-options", "referrer-policy"):
        assert headers.get(name) == view.headers.get(name), name
    return html


def test_a_room_reads_the_same_fragment_as_the_view_in_every_state_built_once_per_version(
    app: Flask, served: TirageASGI
) -> None:
    game_id, code = _game(app)
    phones = [Phone(app, code, f"Player {i:02d}") for i in range(PLAYERS)]
    pages = served.pages

    lobby = _check(served, phones[0], game_id)
    assert "You are in." in text_of(lobby) and "Player 00" in lobby

    _act(served, game_id, "start")
    playing = _check(served, phones[1], game_id)
    assert 'data-running="1"' in playing and "Your play: none yet" in playing
    plays = plays_of(app, service_round(app, game_id))
    builds_before = pages.builds
    # A play through the server's play path shows on the player's page at once (plays do not change the
    # version: the page reads the player's play once one was stored since the rendering).
    taken = run_async(
        _post(
            served,
            f"/api/games/{game_id}/rounds/1/plays",
            json.dumps({"move": plays[0][0]}).encode(),
            _token(phones[0]),
        )
    )
    assert taken.status == 200
    assert f'data-submitted="{plays[0][0]}"' in _check(served, phones[0], game_id)
    # Plays through the Flask views show once the event hub has read their submission events.
    for i, phone in enumerate(phones[1:-1], start=1):  # all but the last hand a play in (one more the top)
        move = plays[0][0] if i < 2 else plays[5 + i][0]
        answer = phone.browser.post(
            f"/api/games/{game_id}/rounds/1/plays",
            json={"move": move},
            headers={"Authorization": f"Bearer {_token(phone)}"},
        )
        assert answer.status_code == 200, answer.get_data(as_text=True)
    served.hub._fan_out(served.hub._read())
    assert f'data-submitted="{plays[8][0]}"' in _check(served, phones[3], game_id)
    assert "Your play: none yet" in _check(served, phones[-1], game_id)
    assert pages.builds == builds_before

    _act(served, game_id, "close")
    answered = pages.answered
    revealed = [_check(served, phone, game_id) for phone in phones]
    assert pages.answered == answered + PLAYERS
    assert pages.builds == builds_before + 1  # the whole room from one rendering
    assert 'class="me"' in revealed[0]  # a top: their line of the standings stands out
    assert 'class="me"' not in revealed[-1]  # no play: not among the first ten of twelve
    assert "You handed in no play this round" in text_of(revealed[-1])
    assert "Your play" in text_of(revealed[5])

    french = _check(served, phones[2], game_id, "fr")
    assert "Votre coup" in text_of(french) and "Your play" not in text_of(french)
    assert pages.builds == builds_before + 2  # one rendering per language


def test_what_the_fast_path_cannot_answer_is_the_views_answer(app: Flask, served: TirageASGI) -> None:
    game_id, code = _game(app)
    bob = Phone(app, code, "Bob")
    _act(served, game_id, "start")
    handed_on = served.pages.handed_on

    stranger = run_async(_get(served, f"/play/{game_id}/live", None))
    assert stranger[0] == 403 and stranger[2] == app.test_client().get(f"/play/{game_id}/live").get_data(as_text=True)
    forged = run_async(_get(served, f"/play/{game_id}/live", bob.cookie[:-3] + "abc"))
    assert forged[0] == 403
    other_game = run_async(_get(served, "/play/999999/live", bob.cookie))
    assert other_game[0] == 404
    switched = run_async(_get(served, f"/play/{game_id}/live", bob.cookie, query=b"lang=fr"))
    assert switched[0] == 200 and "set-cookie" in switched[1]  # the view remembers the language asked for
    assert served.pages.handed_on == handed_on + 4
    assert served.pages.answered == 0

    # Someone who joined after the room's fragments were built is answered by the view (until a new version).
    _check(served, bob, game_id)
    late = Phone(app, code, "Late")
    assert "Late" in _check(served, late, game_id)


def service_round(app: Flask, game_id: int) -> Any:
    from tests.test_pages import current_round

    return current_round(app, game_id)


def _token(phone: Phone) -> str:
    found = re.search(
        r'data-token="([^"]+)"', phone.browser.get(re.sub(r"/live$", "", _play_path(phone))).get_data(as_text=True)
    )
    assert found is not None
    return found.group(1)


def _play_path(phone: Phone) -> str:
    with phone.browser.session_transaction() as session:
        game_id = next(iter(session["players"]))
    return f"/play/{game_id}"


def test_a_filling_lobby_is_rendered_once_and_each_newcomer_is_added(app: Flask, served: TirageASGI) -> None:
    """Every join is a new version of the game; the lobby's fragment only names the player, so joins alone do
    not render it again for the whole room."""
    game_id, code = _game(app)
    first = Phone(app, code, "First")
    served.hub._fan_out(served.hub._read())
    _check(served, first, game_id)
    builds = served.pages.builds
    for name in ("Second", "Third"):
        newcomer = Phone(app, code, name)
        served.hub._fan_out(served.hub._read())  # the hub reads the join
        assert name in _check(served, newcomer, game_id)
        assert _check(served, first, game_id).count("First") == 1  # the lobby names each phone its own player
    assert served.pages.builds == builds and served.pages.handed_on == 0

    _act(served, game_id, "start")  # anything but a join: rendered again
    assert 'data-status="playing"' in _check(served, first, game_id)
    assert served.pages.builds == builds + 1


def test_each_players_own_line_is_the_views_in_every_case_the_macros_write(app: Flask, served: TirageASGI) -> None:
    """Each player's own parts of the room (their name, their result) are the macros of play/_me.html rendered once
    per shape of result, not once per player (issue 27, item 3), and still the view's byte for byte: an invalid play,
    a solo with its bonus, a correction, the arbiter's rulings (free and costly warnings, a penalty, a solo granted
    and withdrawn; docs/rules.md §6.19), no play, names and reasons to escape; in English and French."""
    with app.app_context():
        director = accounts.create_director("director", PASSWORD)
        game = service.create_game(
            director,
            {
                "rules": "en",
                "round_seconds": 60,
                "solo_min_players": 1,
                # every play of plays_of() scores as listed: the top is the engine's
                "first_play_across": False,
                "first_play_best_placement": False,
            },
        )
        game_id, code = game.id, game.join_code
    names = ["Zoé <&\"'> & co", "Bob", "Cy", "Di", "Ed", "Fa", "Gus", "Hal", "Ivy", "Jo", "Kim"]
    phones = [Phone(app, code, name) for name in names]
    _act(served, game_id, "start")
    plays = plays_of(app, service_round(app, game_id))
    longest = max((p for p in plays if " " in p[0]), key=lambda p: len(p[0].split()[1]))
    place, word = longest[0].split()
    invalid = f"{place} {word[::-1]}"
    below = [move for move, score in plays if score < plays[0][1]]  # the top is Zoé's alone: a solo
    moves = {0: plays[0][0], 1: invalid, 2: below[0], 4: below[1], 5: below[1], 6: below[2], 7: below[2], 8: below[2]}
    for i, move in moves.items():
        answer = phones[i].browser.post(
            f"/api/games/{game_id}/rounds/1/plays",
            json={"move": move},
            headers={"Authorization": f"Bearer {_token(phones[i])}"},
        )
        assert answer.status_code == 200, answer.get_data(as_text=True)
    _act(served, game_id, "close")
    with app.app_context():
        closed = db.session.get(Game, game_id)
        assert closed is not None
        ids = {p.name: p.id for p in closed.players}
        reason = 'the tiles <b>"moved"</b> & fell'
        service.correct(closed, 1, ids["Di"], 5, f"paper slip: {reason}", "director")
        service.correct(closed, 1, ids[names[0]], plays[0][1], reason, "director")  # the top kept
        for n in range(4):  # three free warnings, the fourth costs points
            service.give_ruling(closed, 1, ids["Cy"], "warning", None, f"talking ({n}) <again>", "arbiter")
        service.give_ruling(closed, 1, ids["Bob"], "penalty", 7, "phone & notes out", "arbiter")
        service.give_ruling(closed, 1, ids["Ed"], "solo_granted", None, "Fa's play was 'not the same'", "arbiter")
        service.give_ruling(closed, 1, ids["Fa"], "solo_withdrawn", None, "<late>", "arbiter")
    served.hub._fan_out(served.hub._read())

    english = [_check(served, phone, game_id) for phone in phones]
    # One rendering of the name, and one of the result per shape: Gus, Hal and Ivy share one, Jo and Kim another.
    renderer = served.pages.renderer
    assert isinstance(renderer, PhoneFragments) and renderer.own_renderings == 1 + 8
    text = [text_of(html) for html in english]
    assert "Zoé <&\"'> & co" in text[0] and "Zoé &lt;&amp;&#34;&#39;&gt; &amp; co" in english[0]
    assert "Solo top!" in text[0] and "solo" in text[0] and "Corrected by the director" in text[0]
    assert "the tiles &lt;b&gt;&#34;moved&#34;&lt;/b&gt; &amp; fell" in english[0]
    assert "not valid" in text[1] and "Penalty of 7 points: phone & notes out" in text[1]
    assert "Warning from the arbiter (free)" in text[2] and "points off: talking (3) <again>" in text[2]
    assert "You handed in no play this round" in text[3] and "paper slip" in text[3]
    assert "Solo granted by the arbiter" in text[4] and "Solo withdrawn by the arbiter: <late>" in text[5]
    assert "Your play" in text[6] and "Your play" in text[8]
    assert "You handed in no play this round" in text[9]
    french = [text_of(_check(served, phone, game_id, "fr")) for phone in phones]
    assert "non valable" in french[1] and "Solo retiré" in french[5]
