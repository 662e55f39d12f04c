"""A club on a LAN (issue 15): ``tirage serve --lan`` on the machine's network addresses, the address and
QR code it prints, join links that phones can open, ``TIRAGE_PUBLIC_URL``; and the server's log of word
graphs being built. The projector's QR code photographed in Chromium is in tests/browser/test_lan_qr.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.network import decode_terminal_qr, require_lan_address
from tests.processes import WAIT, TirageServer, free_port, tirage_command
from tests.test_pages import join_code, log_in, new_game
from tests.test_wall import new_wall, wall_row
from trainer.cli import lan_banner
from trainer.core import accounts
from trainer.engine.lexicon import Lexicon, LexiconStore
from trainer.http.lan import BadPublicUrl, public_url

PHONES = re.compile(r"^Phones in the room open (http://\S+/) \(on the same Wi-Fi as this machine\)$", re.M)
WORDS = "train\nrains\ntrains\nretain\n"


def _qr_lines(output: str) -> list[str]:
    """The QR code's lines, as printed after the address: the first run of lines made only of half blocks."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line and set(line) <= set("█▀▄ "))
    end = next((i for i in range(start, len(lines)) if not (lines[i] and set(lines[i]) <= set("█▀▄ "))), len(lines))
    return lines[start:end]


@pytest.fixture(scope="module")
def lan_server(
    tmp_path_factory: pytest.TempPathFactory, lexicon_store: LexiconStore, en_lexicon: Lexicon, fr_lexicon: Lexicon
) -> Iterator[TirageServer]:
    """``tirage serve --lan`` as a club starts it on the laptop, with one word list of the club's whose word
    graphs are not built yet (the bundled lexicons' are in its cache), so it builds them as it starts."""
    folder = tmp_path_factory.mktemp("lan")
    server = TirageServer(folder, lexicon_store.cache_dir, {"PYTHONUNBUFFERED": "1"}, serve_args=("--lan",))
    (folder / "club.txt").write_text(WORDS, "utf-8")
    server.cli("lexicon", "import", "club", str(folder / "club.txt"), "--rules", "en")
    for built in (server.instance / "cache").glob("club-*"):
        built.unlink()  # as if the list had been copied in by hand: the server builds its graphs
    server.start()
    yield server
    server.stop()


def test_serve_lan_prints_the_address_phones_open_and_answers_there(lan_server: TirageServer) -> None:
    machine = require_lan_address()
    output = lan_server.wait_for(lambda: lan_server.output() if PHONES.search(lan_server.output()) else "", "the URL")
    printed = PHONES.search(output)
    assert printed is not None, output
    url = printed.group(1)
    parts = urlsplit(url)
    assert parts.hostname in machine and parts.port == lan_server.port, (url, machine)
    assert f"allow TCP port {lan_server.port}" in output
    # A phone in the room opens that address: the server answers there, not only on 127.0.0.1.
    with urllib.request.urlopen(f"{url}healthz", timeout=10) as answer:
        assert answer.status == 200
    with urllib.request.urlopen(f"{url}join", timeout=10) as answer:
        assert answer.status == 200 and "Join a game" in answer.read().decode()
    # The QR code in the terminal, read as a phone's camera reads it, is that address.
    assert decode_terminal_qr(_qr_lines(output)) == url


def test_the_server_logs_each_word_graph_build_with_its_time(lan_server: TirageServer) -> None:
    """Issue 15: nothing was logged while word graphs were built, so a slow first start looked stuck."""
    done = re.compile(r"INFO: +lexicon club: word graphs built in \d+\.\d s$", re.M)
    output = lan_server.wait_for(lambda: lan_server.output() if done.search(lan_server.output()) else "", "the log")
    started = output.index("lexicon club: building its word graphs")
    assert started < done.search(output).start()  # type: ignore[union-attr]
    assert "lexicon en: building" not in output  # a cached graph is loaded, not built: nothing to say


def test_on_no_network_it_says_so_and_serves_this_machine(tmp_path: Path, lexicon_store: LexiconStore) -> None:
    """A laptop on no network (in a network namespace of its own, with loopback only) starts all the same and
    says what to do, instead of printing an address no phone can open."""
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-n", "true"], check=False).returncode != 0:
        reason = "`unshare -n` (util-linux, as root) is needed to start the server on no network"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    server = TirageServer(tmp_path, lexicon_store.cache_dir, {"PYTHONUNBUFFERED": "1"})
    with server.log.open("ab") as log:
        process = subprocess.Popen(
            ["unshare", "-n", *tirage_command(), "serve", "--lan", "--port", str(server.port)],
            cwd=tmp_path,
            env=server.env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
    try:
        server.wait_for(lambda: "Uvicorn running" in server.output(), "the server to start")
    finally:
        process.terminate()
        process.wait(timeout=WAIT)
    output = server.output()
    assert "No network address found: this machine is on no network that phones could reach." in output
    assert f"until then Tirage answers on this machine only, at http://127.0.0.1:{server.port}/" in output
    assert "Phones in the room open" not in output and "█" not in output


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("ftp://club.example.org", "must start with http:// or https://"),
        ("club.example.org", "must start with http:// or https://"),
        ("https://club.example.org/?room=1", "must not have a query"),
    ],
)
def test_a_bad_public_url_stops_the_server_at_start(tmp_path: Path, value: str, says: str) -> None:
    server = TirageServer(tmp_path, env_extra={"TIRAGE_PUBLIC_URL": value})
    result = subprocess.run(
        [*tirage_command(), "serve", "--lan", "--port", str(free_port())],
        cwd=tmp_path,
        env=server.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"Error: TIRAGE_PUBLIC_URL={value!r} " in result.stderr and says in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and "Uvicorn running" not in result.stderr


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ("https://club.example.org/", "https://club.example.org"),
        ("  http://192.168.1.23:5000  ", "http://192.168.1.23:5000"),
        ("https://Club.Example.org:443/tirage/", "https://club.example.org/tirage"),
        ("http://[fd00::2]:8000", "http://[fd00::2]:8000"),
        ("", None),
    ],
)
def test_good_public_urls_are_kept_without_their_last_slash(value: str, kept: str | None) -> None:
    assert public_url(value) == kept


@pytest.mark.parametrize(
    "value",
    ["https://", "http://:5000", "http://club.example.org:99999", "https://u:p@club.example.org", "http://a b.org"],
)
def test_bad_public_urls_are_refused(value: str) -> None:
    with pytest.raises(BadPublicUrl, match="TIRAGE_PUBLIC_URL="):
        public_url(value)


# ---------------------------------------------------------------- join links, by the rule of web.common


class _ClientAt(FlaskClient):
    """A browser that opens every page at one address (the test client's own is ``localhost``)."""

    host = "localhost"

    def open(self, *args: Any, **kwargs: Any) -> TestResponse:
        kwargs.setdefault("base_url", f"http://{self.host}")
        return super().open(*args, **kwargs)


def _client_at(app: Flask, host: str) -> FlaskClient:
    app.test_client_class = _ClientAt
    client = app.test_client()
    assert isinstance(client, _ClientAt)
    client.host = host
    return client


def _console_link(app: Flask, host: str) -> tuple[str, str]:
    """The join link a director's console shows when opened at ``host``, and the game's code."""
    with app.app_context():
        accounts.create_director("alice", "password123")
    client = _client_at(app, host)
    log_in(client)
    game_id = new_game(client)
    page = client.get(f"/director/games/{game_id}").get_data(as_text=True)
    code = join_code(app, game_id)
    found = re.search(r'<a href="([^"]+/join\?code=' + code + ')"', page)
    assert found, page
    return found.group(1), code


def test_on_a_lan_server_a_page_at_localhost_gives_the_lan_address(app: Flask) -> None:
    machine = require_lan_address()
    app.config["TIRAGE_LAN"] = True
    link, code = _console_link(app, "127.0.0.1:5000")
    parts = urlsplit(link)
    assert parts.hostname in machine and parts.port == 5000 and link.endswith(f":5000/join?code={code}"), link


def test_at_another_name_or_without_lan_the_link_keeps_the_request_host(app: Flask) -> None:
    app.config["TIRAGE_LAN"] = True
    link, code = _console_link(app, "scrabble.club.lan:8080")
    assert link == f"http://scrabble.club.lan:8080/join?code={code}"
    app.config["TIRAGE_LAN"] = False  # listening on 127.0.0.1 only: a LAN link would lead nowhere
    client = _client_at(app, "127.0.0.1:5000")
    log_in(client)
    game_id = new_game(client)
    page = client.get(f"/director/games/{game_id}").get_data(as_text=True)
    assert f'href="http://127.0.0.1:5000/join?code={join_code(app, game_id)}"' in page


def test_a_public_url_makes_every_join_link(app: Flask) -> None:
    app.config["TIRAGE_LAN"] = True
    app.config["TIRAGE_PUBLIC_URL"] = "https://club.example.org/tirage"
    link, code = _console_link(app, "127.0.0.1:5000")
    assert link == f"https://club.example.org/tirage/join?code={code}"
    client = app.test_client()
    log_in(client)
    game_id = new_game(client)
    projector = client.get(f"/games/{game_id}/projector").get_data(as_text=True)
    assert f"https://club.example.org/tirage/join?code={join_code(app, game_id)}" in projector
    wall_id = new_wall(client, first="1", last="5")
    console = client.get(f"/director/walls/{wall_id}").text
    assert f"https://club.example.org/tirage/walls/join?code={wall_row(app, wall_id).join_code}" in console


# ---------------------------------------------------------------- what `tirage serve --lan` prints


def test_the_banner_gives_the_ipv4_address_first_and_the_others_after() -> None:
    text = lan_banner(["fd00::2", "192.168.1.23", "10.0.0.5"], 5000, None)
    assert "Phones in the room open http://192.168.1.23:5000/ " in text
    assert "other addresses: http://[fd00::2]:5000/, http://10.0.0.5:5000/" in text
    assert decode_terminal_qr(_qr_lines(text)) == "http://192.168.1.23:5000/"


def test_the_banner_of_a_machine_on_no_network_says_so() -> None:
    text = lan_banner([], 5000, None)
    assert text.startswith("No network address found")
    assert "Wi-Fi or to a phone's hotspot" in text and "http://127.0.0.1:5000/" in text
    assert "█" not in text  # no QR code of an address no phone can open


def test_the_banner_of_a_public_url_gives_it() -> None:
    text = lan_banner(["192.168.1.23"], 5000, "https://club.example.org")
    assert text.startswith("Phones open https://club.example.org/ (TIRAGE_PUBLIC_URL)")
    assert decode_terminal_qr(_qr_lines(text)) == "https://club.example.org/"
