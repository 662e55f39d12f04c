"""The browser-test infrastructure end to end: Chromium opens the real server's home page in
English and in French, and axe-core finds nothing serious on it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.axe import format_violations, serious_violations
from tests.processes import TirageServer


def test_home_page_in_english_then_french_without_serious_accessibility_violations(
    page: Page, live_server: TirageServer, axe: Callable[..., list[dict[str, Any]]]
) -> None:
    response = page.goto(f"{live_server.base_url}/")
    assert response is not None and response.status == 200
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", level=1)).to_have_text("Tirage")
    serious = serious_violations(axe(page))
    assert not serious, f"axe-core found serious violations on / (English):\n{format_violations(serious)}"

    page.goto(f"{live_server.base_url}/?lang=fr")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.get_by_text("Parties en duplicate")).to_be_visible()
    serious = serious_violations(axe(page))
    assert not serious, f"axe-core found serious violations on /?lang=fr:\n{format_violations(serious)}"
