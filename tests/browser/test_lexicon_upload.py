"""A club's own word list loaded in real Chromium (docs/rules.md §2.4): the director uploads a list of a thousand
words, waits while it is read, reads its report (the two-letter words, the lines left out, the difference with en),
accepts it, watches the progress bar until the lexicon is built, and a phone plays a round judged by it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from tests.browser.axe import serious_violations
from tests.browser.game_night import Night, position
from tests.processes import TirageServer
from trainer.engine.lexicon import LexiconStore

REFUSED_LINES = ["two words", "x", "ABCDEFGHIJKLMNOP", "r2d2"]


def club_list(en_words: list[str], folder: Path) -> tuple[Path, list[str]]:
    """ENABLE's 96 two-letter words and 903 longer ones in mixed case, one word ENABLE lacks, and four lines a
    list should not hold: a thousand words."""
    twos = [w for w in en_words if len(w) == 2]
    longer_candidates = [w for w in en_words if 3 <= len(w) <= 7]
    longer = longer_candidates[:: len(longer_candidates) // 905][:903]
    lines = [w.lower() for w in twos] + [w.capitalize() for w in longer] + ["Zyxwvut"] + REFUSED_LINES
    path = folder / "club-2026.txt"
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path, sorted({*twos, *longer, "ZYXWVUT"})


def test_a_club_list_is_uploaded_reported_built_and_played(
    night: Night, live_server: TirageServer, tmp_path: Path, axe: Callable[..., list[dict[str, Any]]]
) -> None:
    store = LexiconStore(live_server.instance)
    en_words = store.words_of("en")
    path, words = club_list(en_words, tmp_path)
    assert len(words) == 1000
    director = night.director()
    page = director.console

    page.get_by_role("link", name="Lexicons").click()
    expect(page).to_have_url(re.compile(r"/director/lexicons/$"))
    assert serious_violations(axe(page)) == []
    page.locator("#file").set_input_files(str(path))
    page.locator("#rules").select_option("en")
    page.locator("#name").fill("club2026")
    page.locator("#edition").fill("Club list 2026")
    page.locator("#compare_with").select_option("en")
    page.get_by_role("button", name="Read the list").click()

    # The report, before anything is kept: the page follows the reading (in a process of its own), then shows it.
    expect(page).to_have_url(re.compile(r"/director/lexicons/uploads/"))
    expect(page.locator("#report-summary")).to_contain_text("1,000 words · 4 lines left out", timeout=60_000)
    twos = [w for w in words if len(w) == 2]
    expect(page.locator("#twos-title")).to_have_text(f"The {len(twos)} two-letter words")
    expect(page.locator("#twos")).to_have_text(" ".join(twos))
    refused = page.locator("table.refused tbody tr")
    expect(refused).to_have_count(len(REFUSED_LINES))
    assert [row.locator("td").nth(1).inner_text() for row in refused.all()] == REFUSED_LINES
    expect(refused.nth(3)).to_contain_text("“2” is not a letter of the tiles")
    expect(page.locator("#added-title")).to_have_text("New in this edition: 1 word")
    expect(page.locator("#added")).to_have_text("ZYXWVUT")
    expect(page.locator("#removed-title")).to_have_text(f"Not in this edition: {len(en_words) - 999:,} words")
    assert serious_violations(axe(page)) == []
    for heading in page.locator("h1, h2, h3").all():  # a projector-size laptop shows it without sideways scroll
        box = heading.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 1366

    # Accepted: the bar shows the build, then the lexicon is ready.
    page.get_by_role("button", name="Accept and build the lexicon").click()
    expect(page).to_have_url(re.compile(r"/director/lexicons/club2026$"))
    bar = page.locator("progress.lexicon-progress")
    ready = page.locator("#lexicon-ready")
    expect(bar.or_(ready)).to_be_visible()
    expect(ready).to_have_text("Ready: choose it in the game form, the deck form or a word wall.", timeout=60_000)
    expect(bar).to_have_count(0)

    # A round judged by the club's list: the phone's top is credited as the engine finds it with that list.
    expect(page.get_by_role("link", name="New game")).to_be_visible()
    page.get_by_role("link", name="Lexicons").last.click()
    expect(page.locator("table.lexicons")).to_contain_text("club2026 Club list 2026 en 1,000 Ready")
    page.get_by_role("link", name="My games").last.click()
    game = director.create_game(rules="en", seed=20261126_00000_00000_00001, lexicon="club2026")
    ann = night.player("Ann")
    ann.join(game)
    ann.wait_for("lobby")
    director.press("start")
    ann.wait_for("playing", 1)
    club = LexiconStore(live_server.instance).load("club2026")
    assert club.words() == words
    where = position(live_server, game.id, club)
    top = where.plain()
    assert top.word in words
    ann.submit(where.written(top))
    director.press("close")
    ann.wait_for("revealing", 1)
    assert ann.result()["Score"] == str(where.credited(top, club))
    night.errors.check()
