"""The help page in Chromium on a phone (390×844, touch): reached from the site's header and the join page,
in English and French, in both themes, without scrolling sideways and without a serious axe-core finding
(and, in the large-print theme, every text at the AAA contrast that theme promises)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.axe import format_violations, serious_violations
from tests.processes import TirageServer

PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
THEMES = ("standard", "contrast")
AAA_CONTRAST = "color-contrast-enhanced"
TITLES = {"en": "How duplicate works", "fr": "Le duplicate, mode d’emploi"}


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(locale="en-GB", **PHONE)
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def test_a_player_finds_the_help_from_the_header_and_the_join_page(phone: Page, live_server: TirageServer) -> None:
    phone.goto(f"{live_server.base_url}/")
    phone.locator(".site-nav").get_by_role("link", name="Help").tap()
    expect(phone).to_have_url(re.compile(r"/help$"))
    expect(phone.get_by_role("heading", level=1)).to_have_text(TITLES["en"])
    # The contents lead to each section; the notation section is where the phone's page sends a player.
    phone.get_by_role("navigation", name="On this page").get_by_role("link", name="How to write a play").tap()
    expect(phone).to_have_url(re.compile(r"/help#notation$"))
    expect(phone.locator("#notation h2")).to_be_in_viewport()

    phone.goto(f"{live_server.base_url}/join?lang=fr")
    phone.get_by_role("link", name="Le déroulement d’un coup, l’écriture d’un coup et le calcul des scores").tap()
    expect(phone).to_have_url(re.compile(r"/help$"))
    expect(phone.get_by_role("heading", level=1)).to_have_text(TITLES["fr"])


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_the_page_fits_a_phone_and_passes_axe_in_both_themes(
    phone: Page, live_server: TirageServer, axe: Callable[..., list[dict[str, Any]]], lang: str
) -> None:
    problems: list[str] = []
    for theme in THEMES:
        phone.goto(f"{live_server.base_url}/help?lang={lang}&theme={theme}")
        expect(phone.locator("html")).to_have_attribute("data-theme", theme)
        expect(phone.get_by_role("heading", level=1)).to_have_text(TITLES[lang])
        expect(phone.locator("table[data-standings]")).to_have_count(3)
        # Against the layout width: on a mobile viewport window.innerWidth grows with a page that is too wide.
        wide = phone.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if wide > 0:
            problems.append(f"{lang}, {theme} theme: the page is {wide}px wider than the phone")
        # A board excerpt is drawn whole on the screen: no square beyond the right edge.
        for right in phone.locator("table.excerpt").evaluate_all("ts => ts.map(t => t.getBoundingClientRect().right)"):
            if right > PHONE["viewport"]["width"]:
                problems.append(f"{lang}, {theme} theme: a board excerpt ends at {right}px")
        if theme == "standard":  # large print may need a table scrolled in its box; standard print may not
            for region in phone.locator(".table-wrap").evaluate_all(
                "ws => ws.map(w => [w.getAttribute('aria-label'), w.scrollWidth - w.clientWidth])"
            ):
                if region[1] > 0:
                    problems.append(f"{lang}: the table {region[0]!r} is {region[1]}px wider than the phone")
        options = {"rules": {AAA_CONTRAST: {"enabled": True}}} if theme == "contrast" else None
        violations = axe(phone, None, options)
        serious = serious_violations([v for v in violations if v["id"] != AAA_CONTRAST])
        if serious:
            problems.append(f"{lang}, {theme} theme: serious violations:\n{format_violations(serious)}")
        below_aaa = [v for v in violations if v["id"] == AAA_CONTRAST]
        if below_aaa:
            problems.append(f"{lang}, {theme} theme: text below AAA contrast:\n{format_violations(below_aaa)}")
    assert not problems, "\n".join(problems)
