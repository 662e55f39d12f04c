"""The QR code a room scans (issue 15): the projector on the laptop, opened at 127.0.0.1, of a server started
with ``tirage serve --lan``; its QR code photographed in Chromium and read by a real decoder (zxing-cpp)
must carry the laptop's network address, or ``TIRAGE_PUBLIC_URL`` when it is set.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.network import decode_qr_png, require_lan_address
from tests.processes import TirageServer
from trainer.engine.lexicon import Lexicon, LexiconStore

PASSWORD = "a long enough club password"
StartServer = Callable[..., TirageServer]  # (public_url=None): a `tirage serve --lan` started, with director alice


@pytest.fixture
def server_factory(
    tmp_path: Path, lexicon_store: LexiconStore, en_lexicon: Lexicon, fr_lexicon: Lexicon
) -> Iterator[StartServer]:
    """Starts ``tirage serve --lan`` (with ``TIRAGE_PUBLIC_URL`` if given) and a director, stopped after the test."""
    started: list[TirageServer] = []

    def start(public_url: str | None = None) -> TirageServer:
        server = TirageServer(
            tmp_path / f"server{len(started)}",
            lexicon_store.cache_dir,
            {"TIRAGE_PUBLIC_URL": public_url, "PYTHONUNBUFFERED": "1"},
            serve_args=("--lan",),
        )
        started.append(server)
        server.start()
        server.create_director("alice", PASSWORD)
        return server

    yield start
    for server in started:
        server.stop()


def _new_game_on_the_projector(page: Page, server: TirageServer) -> tuple[str, str]:
    """Log in and create a game on the laptop at 127.0.0.1, open its projector: the QR code's text, the code."""
    base = server.base_url
    assert urlsplit(base).hostname == "127.0.0.1"
    page.goto(f"{base}/director/login")
    page.locator("#username").fill("alice")
    page.locator("#password").fill(PASSWORD)
    page.locator("form.stack-form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/director/$"))
    page.goto(f"{base}/director/games/new")
    page.locator("form.settings-form button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/director/games/\d+$"))
    game_id = int(page.url.rsplit("/", 1)[1])
    code = page.locator(".lobby-panel .join-code").inner_text().strip()
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.goto(f"{base}/games/{game_id}/projector")
    qr = page.locator("img.qr")
    expect(qr).to_be_visible()
    page.wait_for_function(
        "() => { const i = document.querySelector('img.qr'); return i.complete && i.naturalWidth > 0 }"
    )
    return decode_qr_png(qr.screenshot()), code


def test_the_projector_at_localhost_shows_a_qr_code_of_the_lan_address(
    browser: Browser, server_factory: StartServer
) -> None:
    machine = require_lan_address()
    server = server_factory()
    context = browser.new_context(locale="en-GB")
    try:
        scanned, code = _new_game_on_the_projector(context.new_page(), server)
    finally:
        context.close()
    parts = urlsplit(scanned)
    assert parts.hostname in machine, (scanned, machine)
    assert scanned == f"http://{parts.hostname}:{server.port}/join?code={code}"
    assert f"Phones in the room open http://{parts.hostname}:{server.port}/ " in server.output()
    # A phone that scanned it gets the join page with the code filled in.
    phone = browser.new_context(locale="en-GB", viewport={"width": 390, "height": 844})
    try:
        page = phone.new_page()
        page.goto(scanned)
        expect(page.locator("#code")).to_have_value(code)
    finally:
        phone.close()


def test_with_a_public_url_the_qr_code_carries_it(browser: Browser, server_factory: StartServer) -> None:
    server = server_factory("https://club.example.org/tirage/")
    context = browser.new_context(locale="en-GB")
    try:
        scanned, code = _new_game_on_the_projector(context.new_page(), server)
    finally:
        context.close()
    assert scanned == f"https://club.example.org/tirage/join?code={code}"
    assert "Phones open https://club.example.org/tirage/ (TIRAGE_PUBLIC_URL)" in server.output()
