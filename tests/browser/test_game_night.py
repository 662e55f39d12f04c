"""A whole club night through the real pages, in real Chromium, against the real ``tirage serve``.

A director logs in and creates a game with the form; players join on their phones (390×844, touch)
with the join link; rounds are played by tapping the board and by typing notation, closed with the
projector's keys and the console's buttons, and the phones' figures are checked against what the
server computed. The same in French; then screenshots for the documentation and axe-core on every
state of the phone and the projector, in both themes (the contrast theme also to WCAG AAA).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.browser.axe import format_violations, serious_violations
from tests.browser.game_night import (
    PASSWORD,
    Night,
    Player,
    api,
    live,
    position,
    standings_rows,
)
from tests.processes import TirageServer
from trainer.engine import Lexicon

SEED = 20240611_000000_000000  # same seed, same racks: reproducible plays and screenshots


def expect_reveal_figures(player: Player, server: TirageServer, game_id: int, number: int) -> dict[str, object]:
    """The phone's reveal shows the top and the player's play, score, difference and rank as the server has them."""
    # Every player's figures: the director's view of the round (a spectator sees only the tops).
    director = server.ok("POST", "/api/auth/token", {"username": "club", "password": PASSWORD})["token"]
    details = server.ok("GET", f"/api/games/{game_id}/rounds/{number}", token=director)
    mine = next(r for r in details["results"] if r["name"] == player.name)
    page = player.page
    expect(page.locator("#live .my-result h2")).to_contain_text(str(number))
    expect(page.locator("#live .my-result .top-play strong")).to_have_text(details["placed"])
    expect(page.locator("#live .my-result .top-play")).to_contain_text(str(details["top_score"]))
    figures = player.result()
    values = list(figures.values())
    assert values[0] == mine["move"], figures
    assert values[1] == str(mine["score"]), figures
    assert values[2] == str(mine["difference"]), figures
    assert re.match(rf"^{mine['rank']}\D+{mine['of']}\D", values[3]), figures
    table = api(server, f"/games/{game_id}/standings")
    me = next(s for s in table["standings"] if s["name"] == player.name)
    standing = page.locator("#live .my-standing")
    expect(standing).to_contain_text(str(me["rank"]))
    expect(standing).to_contain_text(f"{me['total']} ")
    expect(page.locator("#live table.standings tbody tr")).to_have_count(len(table["standings"]))
    return mine


def test_three_phones_play_two_rounds_run_from_the_console_and_the_projector(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon
) -> None:
    director = night.director()
    game = director.create_game(rules="en", max_rounds=2, seed=SEED)
    projector = director.open_projector(game)
    expect(projector.locator(".join-code")).to_have_text(game.code)
    expect(projector.locator(".join-url")).to_have_text(game.join_url)

    ann, bea, cy = (night.player(name) for name in ("Ann", "Bea", "Cy"))
    for player in (ann, bea, cy):
        player.join(game)
        player.wait_for("lobby")
    expect(director.console.locator(".player-list li")).to_have_text(["Ann", "Bea", "Cy"])
    expect(projector.locator("[data-players]")).to_have_text("3 players")

    # Space twice on the projector starts the game (once only asks: tests/browser/test_projector.py).
    projector.keyboard.press(" ")
    expect(projector.locator("[data-key-prompt]")).to_be_visible()
    projector.keyboard.press(" ")
    for page in (director.console, projector, ann.page, bea.page, cy.page):
        expect(live(page)).to_have_attribute("data-status", "playing")
    for player in (ann, bea, cy):
        expect(player.page.locator(".phone-now .clock")).to_have_text(re.compile(r"^\d+:\d\d$"))
        expect(player.page.locator("#play-form")).to_be_visible()

    # ---- round 1
    r1 = position(live_server, game.id, en_lexicon)
    assert ann.rack() == r1.rack
    ann_move = r1.plain(below_top=True, across=False)  # down, to use the direction buttons
    bea_first = r1.plain(below_top=True, avoid=(ann_move,))
    bea_final = r1.plain()  # the top: her replacement is what counts
    assert bea_final.score == r1.top_score, f"the seed's rack {r1.rack} should have a top without a blank"
    cy_move = r1.plain(below_top=True, avoid=(ann_move, bea_first))

    ann.tap_play(ann_move, r1)
    ann.hand_in()
    expect(ann.submitted).to_have_attribute("data-submitted", r1.written(ann_move))

    bea.submit(r1.written(bea_first))
    bea.submit(r1.written(bea_final))

    # A letter the rack does not hold: refused at once, the reason next to the input; then a legal play.
    # (Off the centre square would be taken: a first play is credited with its best placement, §6.9.)
    night.errors.tolerate(cy.context, r"status of 422 .*/(submit|plays)")
    missing = next(letter for letter in "QZXJKVWYFHB" if letter not in r1.rack)
    cy.type_play(f"{r1.written(cy_move).split()[0]} {missing}{cy_move.word[1:]}")
    cy.hand_in()
    expect(cy.error).to_have_text(f"Your rack has no {missing}.")
    expect(cy.move_input).to_have_attribute("aria-invalid", "true")
    expect(cy.page.locator(".phone-now .submitted.none")).to_be_visible()
    cy.submit(r1.written(cy_move))
    expect(cy.move_input).not_to_have_attribute("aria-invalid", "true")

    expect(director.console.locator("[data-submissions]")).to_have_text("3")
    expect(projector.locator("[data-submissions]")).to_have_text("3")

    # R twice on the projector reveals.
    projector.keyboard.press("r")
    projector.keyboard.press("r")
    for player in (ann, bea, cy):
        player.wait_for("revealing", 1)
        expect(player.page.locator("#play-form")).to_be_hidden()
    details = api(live_server, f"/games/{game.id}/rounds/1")
    assert details["top_score"] == r1.top_score  # the server's engine and ours agree
    expect(projector.locator(".reveal .top-play .move")).to_have_text(details["placed"])
    expect(projector.locator(".reveal .top-play .score")).to_have_text(str(r1.top_score))
    mine = {p.name: expect_reveal_figures(p, live_server, game.id, 1) for p in (ann, bea, cy)}
    assert mine["Bea"]["move"] == r1.written(bea_final) and mine["Bea"]["top"], mine["Bea"]
    expect(bea.page.locator("#live .my-result .success")).to_be_visible()
    assert mine["Ann"]["move"] == r1.written(ann_move) and mine["Ann"]["score"] == r1.credited(ann_move, en_lexicon)
    assert mine["Cy"]["move"] == r1.written(cy_move) and mine["Cy"]["score"] == r1.credited(cy_move, en_lexicon)
    expect(director.console.locator(".reveal-panel table.results tbody tr")).to_have_count(3)

    # ---- round 2, started with → twice on the projector
    projector.keyboard.press("ArrowRight")
    projector.keyboard.press("ArrowRight")
    for player in (ann, bea, cy):
        player.wait_for("playing", 2)
        expect(player.submitted).to_have_class(re.compile(r"\bnone\b"))
    r2 = position(live_server, game.id, en_lexicon)
    assert r2.round == 2 and cy.rack() == r2.rack
    ann_move = r2.plain()
    cy_move = r2.plain(below_top=True, avoid=(ann_move,))
    bea_move = r2.plain(below_top=True, avoid=(ann_move, cy_move))
    ann.tap_play(ann_move, r2)
    ann.hand_in()
    expect(ann.submitted).to_have_attribute("data-submitted", r2.written(ann_move))
    cy.submit(r2.written(cy_move))

    # Cy's phone loses the network: a play handed in now is not lost with the page, it is refused with a
    # reason; the room goes on; back online and reloaded, the phone is the same player with the same play.
    night.errors.tolerate(cy.context, r"ERR_INTERNET_DISCONNECTED|ERR_NETWORK_CHANGED")
    cy.context.set_offline(True)
    cy.type_play(r2.written(bea_move))
    cy.hand_in()
    expect(cy.error).to_contain_text("no connection")
    expect(cy.move_input).to_have_value(r2.written(bea_move))
    assert cy.page.url.endswith(f"/play/{game.id}")
    bea.submit(r2.written(bea_move))
    expect(director.console.locator("[data-submissions]")).to_have_text("3")
    cy.context.set_offline(False)
    cy.page.reload()
    expect(cy.page.locator(".phone-now .who")).to_have_text("Cy")
    cy.wait_for("playing", 2)
    expect(cy.submitted).to_have_attribute("data-submitted", r2.written(cy_move))
    expect(cy.page.locator("[data-connection-lost]")).to_be_hidden()

    # The console's Close button reveals round 2.
    director.press("close")
    for player in (ann, bea, cy):
        player.wait_for("revealing", 2)
    mine = {p.name: expect_reveal_figures(p, live_server, game.id, 2) for p in (ann, bea, cy)}
    assert mine["Cy"]["move"] == r2.written(cy_move), mine["Cy"]

    # → twice after the last round (max_rounds 2) ends the game; the phones' final standings are the server's.
    projector.keyboard.press("ArrowRight")
    projector.keyboard.press("ArrowRight")
    for page in (director.console, projector, ann.page, bea.page, cy.page):
        expect(live(page)).to_have_attribute("data-status", "finished")
    expect(director.console.locator(".live-state")).to_contain_text("the last round was played")
    final = standings_rows(live_server, game.id)
    totals = [int(row[2]) for row in final]
    assert len(final) == 3 and totals == sorted(totals, reverse=True), final
    for player in (ann, bea, cy):
        expect(player.page.locator("#live .notice")).to_contain_text("over")
        assert player.standings() == final
        expect(player.page.locator("#live table.standings tr.me td").nth(1)).to_have_text(player.name)
    night.errors.check()


def test_a_french_game_in_french_with_french_notation(
    night: Night, live_server: TirageServer, fr_lexicon: Lexicon
) -> None:
    director = night.director(locale="fr-FR")
    console = director.console
    expect(console.locator("html")).to_have_attribute("lang", "fr")
    expect(console.get_by_role("heading", level=1)).to_have_text("Mes parties")
    game = director.create_game(rules="fr", seed=SEED)
    expect(console.locator("#lobby-heading")).to_have_text("Salle d’attente")
    projector = director.open_projector(game)
    expect(projector.locator("html")).to_have_attribute("lang", "fr")
    expect(projector.locator("#join-heading")).to_have_text("Rejoindre la partie")

    chloe, denis = night.player("Chloé", locale="fr-FR"), night.player("Denis", locale="fr-FR")
    chloe.page.goto(f"{live_server.base_url}/")
    expect(chloe.page.locator("html")).to_have_attribute("lang", "fr")
    chloe.page.get_by_role("link", name="Rejoindre une partie").first.tap()
    expect(chloe.page.locator("label[for=name]")).to_have_text("Votre nom")
    for player in (chloe, denis):
        player.join(game)
        player.wait_for("lobby")

    console.locator('#live button[data-action="start"]').click()
    expect(console.locator("#live details.confirm summary")).to_have_text("Clore le coup maintenant…")
    expect(console.locator('#live button[data-action="close"]')).to_have_text("Oui, clore le coup 1 maintenant")
    for player in (chloe, denis):
        player.wait_for("playing", 1)
        page = player.page
        expect(page.locator("html")).to_have_attribute("lang", "fr")
        expect(page.locator(".phone-now .round-label")).to_contain_text("Coup 1")
        expect(page.locator(".phone-now .round-label .status")).to_have_text("· Coup en cours")
        expect(page.locator("#play-help")).to_contain_text("H4 TRAIN")
        expect(page.locator("#play-help-notation")).to_contain_text("notation française")
        expect(page.locator('[data-direction="across"]')).to_have_text("Horizontal →")
        expect(page.locator("#play-form button[type=submit]")).to_have_text("Valider")

    r1 = position(live_server, game.id, fr_lexicon)
    assert r1.notation == "french" and denis.rack() == r1.rack
    typed = r1.plain(across=True)
    tapped = r1.plain(below_top=True, across=False, avoid=(typed,))
    assert re.match(r"^[A-O]\d+ ", r1.written(typed)), r1.written(typed)  # across: the row letter first

    # A letter the rack does not hold, refused in French; then French notation is accepted.
    night.errors.tolerate(denis.context, r"status of 422 .*/(submit|plays)")
    missing = next(letter for letter in "QZXJKVWYFHB" if letter not in r1.rack)
    denis.type_play(f"{r1.written(typed).split()[0]} {missing}{typed.word[1:]}")
    denis.hand_in()
    expect(denis.error).to_have_text(f"Votre tirage n’a pas de {missing}.")
    denis.submit(r1.written(typed))
    expect(denis.submitted).to_have_text(f"Coup rendu : {r1.written(typed)}")
    chloe.tap_play(tapped, r1)
    chloe.hand_in()
    expect(chloe.submitted).to_have_attribute("data-submitted", r1.written(tapped))

    director.press("close")
    for player in (chloe, denis):
        player.wait_for("revealing", 1)
        expect(player.page.locator("#live .my-result h2")).to_have_text("Coup 1 : le top")
        expect(player.page.locator("#live .my-result .figures dt").first).to_have_text("Votre coup")
        expect(player.page.locator("#live table.standings caption")).to_have_text("Classement")
        expect_reveal_figures(player, live_server, game.id, 1)
    expect(projector.locator("#reveal-heading")).to_have_text("Coup 1 : le top")

    # The console's "End the game".
    console.locator("details.end-game summary").click()
    expect(console.locator('#live button[data-action="end"]')).to_have_text("Terminer la partie maintenant")
    director.press("end")
    final = standings_rows(live_server, game.id, "fr")
    for player in (chloe, denis):
        player.wait_for("finished")
        expect(player.page.locator("#live .notice")).to_have_text("La partie est terminée. Merci d’avoir joué !")
        assert player.standings() == final
    expect(console.locator("#live .notice")).to_contain_text("arrêtée par l’arbitre")
    night.errors.check()


PROJECTOR_SIZES = ((1920, 1080), (1280, 720))
THEMES = ("standard", "contrast")

# What the page draws outside the window (the projector hides its overflow: that would be lost):
# elements that show something themselves (text, an image, a tile), not the boxes around them.
_OUTSIDE = """() => {
    const width = window.innerWidth, height = window.innerHeight, found = [];
    for (const element of document.querySelectorAll("body *")) {
        if (element.closest("[hidden], .visually-hidden, .skip-link, script, caption")) continue;
        const shows = element.matches("img, svg, td, th, li, input, button") ||
            Array.from(element.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
        if (!shows) continue;
        const box = element.getBoundingClientRect();
        if (!box.width || !box.height || getComputedStyle(element).visibility === "hidden") continue;
        if (box.right > width + 1 || box.bottom > height + 1 || box.left < -1) {
            const text = (element.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 40);
            found.push(`<${element.tagName.toLowerCase()} class="${element.className}"> at ` +
                       `[${Math.round(box.left)}, ${Math.round(box.top)}, ${Math.round(box.right)}, ` +
                       `${Math.round(box.bottom)}]: ${text}`);
        }
    }
    return found;
}"""


def projector_shots(projector: Page, url: str, state: str, folder: Path) -> list[str]:
    """The projector at both sizes in both themes, saved as projector-WIDTH-THEME-STATE.png; what overflows."""
    problems: list[str] = []
    for theme in THEMES:
        projector.goto(f"{url}?theme={theme}")
        expect(projector.locator("html")).to_have_attribute("data-theme", theme)
        expect(live(projector)).to_have_attribute("data-status", "playing" if state == "round" else "revealing")
        for width, height in PROJECTOR_SIZES:
            projector.set_viewport_size({"width": width, "height": height})
            projector.screenshot(path=folder / f"projector-{width}-{theme}-{state}.png")
            problems += [
                f"projector {width}×{height} {theme} {state}: {where}" for where in projector.evaluate(_OUTSIDE)
            ]
    return problems


def phone_shot(player: Player, theme: str, state: str, folder: Path) -> list[str]:
    """The whole phone page, saved as phone-THEME-STATE.png; what is wider than the phone."""
    page = player.page
    expect(page.locator("html")).to_have_attribute("data-theme", theme)
    page.screenshot(path=folder / f"phone-{theme}-{state}.png", full_page=True)
    # The layout viewport's width: in a mobile browser window.innerWidth grows with a page that is too wide.
    wide = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    return [f"phone {theme} {state}: the page is {wide}px wider than the phone"] if wide > 0 else []


def test_screenshots_of_the_projector_and_a_phone_fit_their_screens(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon, screenshot_dir: Path
) -> None:
    director = night.director()
    game = director.create_game(rules="en", round_seconds=180, seed=SEED)
    projector = director.open_projector(game)
    projector_url = f"{live_server.base_url}/games/{game.id}/projector"
    players = [night.player(name) for name in ("Ann", "Bea", "Cy")]
    for player in players:
        player.join(game)
    phone, play_url = players[0], f"{live_server.base_url}/play/{game.id}"
    director.press("start")
    for player in players:
        player.wait_for("playing", 1)
    # Round 2 shows a board with tiles on it and a "last top" on the projector.
    director.press("close")
    phone.wait_for("revealing", 1)
    director.press("next")
    for player in players:
        player.wait_for("playing", 2)
    where = position(live_server, game.id, en_lexicon)
    moves = [where.plain(), where.plain(below_top=True)]
    moves.append(where.plain(below_top=True, avoid=tuple(moves)))
    for player, move in zip(players[1:], moves[1:], strict=True):
        player.submit(where.written(move))

    problems = projector_shots(projector, projector_url, "round", screenshot_dir)
    for theme in THEMES:
        phone.page.goto(f"{play_url}?theme={theme}")
        phone.wait_for("playing", 2)
        # Typed, not tapped (a tap leaves the touch highlight in the picture): a preview, not handed in.
        phone.type_play(where.written(moves[0]))
        expect(phone.page.locator("#live td.sq.preview")).to_have_count(len(moves[0].tiles))
        direction = "across" if moves[0].horizontal else "down"
        expect(phone.page.locator(f'[data-direction="{direction}"]')).to_have_attribute("aria-pressed", "true")
        problems += phone_shot(phone, theme, "round", screenshot_dir)
    phone.hand_in()
    expect(phone.submitted).to_have_attribute("data-submitted", where.written(moves[0]))

    projector.keyboard.press("r")
    projector.keyboard.press("r")
    phone.wait_for("revealing", 2)
    problems += projector_shots(projector, projector_url, "reveal", screenshot_dir)
    for theme in THEMES:
        phone.page.goto(f"{play_url}?theme={theme}")
        phone.wait_for("revealing", 2)
        problems += phone_shot(phone, theme, "reveal", screenshot_dir)
    assert not problems, "layout problems:\n" + "\n".join(problems)
    night.errors.check()


AAA_CONTRAST = "color-contrast-enhanced"  # axe's WCAG AAA text-contrast rule, off unless enabled


def accessibility_problems(axe: Callable[..., list[dict[str, Any]]], page: Page, where: str, theme: str) -> list[str]:
    """axe-core on the page as it is: serious or critical violations; in the contrast theme, also any
    text below the AAA contrast ratios (7:1, 4.5:1 for large text), which that theme promises."""
    options = {"rules": {AAA_CONTRAST: {"enabled": True}}} if theme == "contrast" else None
    violations = axe(page, None, options)
    problems = []
    serious = serious_violations([v for v in violations if v["id"] != AAA_CONTRAST])
    if serious:
        problems.append(f"{where}, {theme} theme: serious violations:\n{format_violations(serious)}")
    below_aaa = [v for v in violations if v["id"] == AAA_CONTRAST]
    if below_aaa:
        problems.append(f"{where}, {theme} theme: text below AAA contrast:\n{format_violations(below_aaa)}")
    return problems


def test_phone_and_projector_pass_axe_in_both_themes_and_the_contrast_theme_reaches_aaa(
    night: Night, live_server: TirageServer, en_lexicon: Lexicon, axe: Callable[..., list[dict[str, Any]]]
) -> None:
    director = night.director()
    game = director.create_game(rules="en", seed=SEED)
    projector = director.open_projector(game)
    projector.set_viewport_size({"width": 1280, "height": 720})
    ann, bea = night.player("Ann"), night.player("Bea")
    pages = {
        "phone": (ann.page, f"{live_server.base_url}/play/{game.id}"),
        "projector": (projector, f"{live_server.base_url}/games/{game.id}/projector"),
    }
    problems: list[str] = []

    def check(state: str, status: str, before: Callable[[], None] = lambda: None) -> None:
        for theme in THEMES:
            for who, (page, url) in pages.items():
                page.goto(f"{url}?theme={theme}")
                expect(page.locator("html")).to_have_attribute("data-theme", theme)
                expect(live(page)).to_have_attribute("data-status", status)
                if who == "phone":
                    before()
                problems.extend(accessibility_problems(axe, page, f"{who} ({state})", theme))

    for theme in THEMES:
        ann.page.goto(f"{game.join_url}&theme={theme}")
        expect(ann.page.locator("#code")).to_have_value(game.code)
        problems.extend(accessibility_problems(axe, ann.page, "join page", theme))
    ann.join(game)
    bea.join(game)
    check("lobby", "lobby")

    # Round 1 closed at once: round 2 has tiles on the board (tappable squares with letters).
    director.press("start")
    ann.wait_for("playing", 1)
    director.press("close")
    ann.wait_for("revealing", 1)
    director.press("next")
    ann.wait_for("playing", 2)
    where = position(live_server, game.id, en_lexicon)
    bea.submit(where.written(where.plain()))
    night.errors.tolerate(ann.context, r"status of 422 .*/(submit|plays)")

    # A word of the rack's tiles alone (none played through), so the rack holds every letter of it.
    own_word = next(m.word for m in where.moves if not m.blanks and len(m.tiles) == len(m.word))

    def refused_play_with_its_preview() -> None:
        ann.type_play(f"1A {own_word}")  # away from the tiles: a preview and an error
        ann.hand_in()
        expect(ann.error).to_contain_text("must touch")
        expect(ann.page.locator("#live td.sq.preview")).to_have_count(len(own_word))

    check("round", "playing", refused_play_with_its_preview)
    ann.submit(where.written(where.plain(below_top=True)))

    projector.keyboard.press("r")
    projector.keyboard.press("r")
    ann.wait_for("revealing", 2)
    check("reveal", "revealing")
    assert not problems, "accessibility problems:\n" + "\n".join(problems)
    night.errors.check()
