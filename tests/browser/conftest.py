"""Fixtures for real-browser tests: Chromium (Debian's, driven by Playwright), a live server, axe-core.

Every test here is marked ``browser`` (``pytest -m "not browser"`` leaves them out). Where a
system part is missing (Chromium, or axe-core from ``npm ci --prefix tests/browser``) the tests
skip with the fix on a user's machine, but fail when ``CI`` is set: CI must never pass by skipping.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.browser.axe import require_axe, run_axe
from tests.processes import TirageServer
from trainer.engine.lexicon import Lexicon, LexiconStore

if TYPE_CHECKING:
    from tests.browser.game_night import Night

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_CHROMIUM = "/usr/bin/chromium"
# This machine's network is closed: without these Chromium tries to reach Google's services at
# start-up (component updates, sync, QUIC probes) and the first page can wait on those attempts.
# --no-sandbox because the tests run as root, where Chromium's sandbox refuses to start.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 10_000  # a page action or expectation slower than this is a failure, not a wait


def unavailable(what: str, reason: str) -> None:
    """Skip on a user's machine; in CI a missing system part is a failure."""
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run in CI: {what}: {reason}")
    pytest.skip(f"browser tests need {what}: {reason}")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives a real Chromium against a real server (tests/browser)")


@pytest.hookimpl(tryfirst=True)  # before -m selects on the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Debian's Chromium (``$TIRAGE_CHROMIUM`` to use another): Playwright's own builds cannot be downloaded here."""
    path = os.environ.get("TIRAGE_CHROMIUM") or DEFAULT_CHROMIUM
    if not (Path(path).is_file() and os.access(path, os.X_OK)):
        unavailable("Chromium", f"{path} not found (apt-get install chromium, or set TIRAGE_CHROMIUM)")
    return path


@pytest.fixture(scope="session")
def browser(chromium_path: str) -> Iterator[Browser]:
    """One headless Chromium for the session; each test gets its own context through ``page``."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    """A fresh page in its own context (no cookies from other tests), an English-speaking browser by default."""
    context = browser.new_context(locale="en-GB", viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    opened = context.new_page()
    yield opened
    context.close()


@pytest.fixture(scope="module")
def live_server(
    tmp_path_factory: pytest.TempPathFactory, lexicon_store: LexiconStore, en_lexicon: Lexicon, fr_lexicon: Lexicon
) -> Iterator[TirageServer]:
    """``tirage serve`` as a user starts it (SQLite in its instance folder, the scheduler on), one per module.

    Every lexicon is in its cache, so the server builds no word graph. ``live_server.base_url``
    is its address; ``live_server.create_director(name, password)`` runs ``tirage director create``
    on the same instance. State is shared by the module's tests: give each test its own names.
    """
    server = TirageServer(tmp_path_factory.mktemp("live-server"), lexicon_store.cache_dir)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def axe() -> Callable[..., list[dict[str, Any]]]:
    """``run_axe`` (tests/browser/axe.py), once axe-core is known to be installed (skip or fail otherwise)."""
    require_axe()
    return run_axe


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where pages are captured: a temporary folder, so a test run leaves the tracked images alone, unless
    ``TIRAGE_SCREENSHOTS`` names a folder (``TIRAGE_SCREENSHOTS=docs/screenshots`` remakes the README's;
    a relative path is from the checkout)."""
    asked = os.environ.get("TIRAGE_SCREENSHOTS", "").strip()
    if not asked:
        return tmp_path_factory.mktemp("screenshots")
    folder = Path(asked) if Path(asked).is_absolute() else ROOT / asked
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def director_name(live_server: TirageServer) -> str:
    """One director account for the module's games (``tirage director create`` takes a second a run); a module
    may name its own by overriding this fixture."""
    from tests.browser.game_night import PASSWORD  # game_night imports this module: imported when used

    live_server.create_director("club", PASSWORD)
    return "club"


@pytest.fixture
def night(browser: Browser, live_server: TirageServer, director_name: str) -> Iterator[Night]:
    """The people of a club night (a director, phones, a projector), each in a browser context of their own."""
    from tests.browser.game_night import night_of

    with night_of(browser, live_server, director_name) as opened:
        yield opened
