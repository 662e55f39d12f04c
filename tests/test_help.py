"""The help page (/help): in English and French, its sections, links to it, and every figure on it checked
against the rules computed here on their own: the worked example with trainer.duplicate.results, the plays
with the engine (docs/rules.md §4–§6).

The same page in Chromium at a phone's size, in both themes, is tests/browser/test_help_page.py.
"""

from __future__ import annotations

import re
from decimal import Decimal
from html import unescape
from html.parser import HTMLParser

import pytest
from flask.testing import FlaskClient

from trainer.duplicate.results import (
    Correction,
    GameResults,
    RoundRecord,
    SoloRule,
    Submission,
    percentage,
    score_game,
    shared_ranks,
)
from trainer.duplicate.settings import BY_NAME
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.notation import format_move, parse_move, square_name
from trainer.engine.play import evaluate
from trainer.engine.rules import Notation, ruleset

SECTIONS = ("round", "notation", "scoring", "standings", "example")


@pytest.fixture
def database_url() -> str:
    """SQLite only: the page reads no database, so PostgreSQL would add nothing here."""
    return ""


def text_of(html: str) -> str:
    without_scripts = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", without_scripts))).strip()


def page(client: FlaskClient, query: str = "", **headers: str) -> str:
    answer = client.get(f"/help{query}", headers=headers)
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


# ---------------------------------------------------------------- a small reader of the page's markup


class Element:
    def __init__(self, tag: str, attrs: dict[str, str], parent: Element | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Element] = []
        self.parts: list[str] = []

    @property
    def text(self) -> str:
        return re.sub(r"\s+", " ", "".join(self.parts)).strip()

    def find_all(self, tag: str | None = None, **attrs: str | None) -> list[Element]:
        """Descendants with ``tag`` and the attributes given (a value of None: any value)."""
        found = []
        for child in self.children:
            if (tag is None or child.tag == tag) and all(child.has(name, value) for name, value in attrs.items()):
                found.append(child)
            found.extend(child.find_all(tag, **attrs))
        return found

    def has(self, name: str, value: str | None) -> bool:
        """``class_`` matches one of the element's classes; ``data_x`` is the attribute ``data-x``."""
        name = name.rstrip("_")
        if name not in self.attrs:
            return False
        if value is None:
            return True
        return value in self.attrs[name].split() if name == "class" else self.attrs[name] == value

    def one(self, tag: str | None = None, **attrs: str | None) -> Element:
        found = self.find_all(tag, **attrs)
        assert len(found) == 1, f"expected one <{tag} {attrs}>, found {len(found)}"
        return found[0]


class _Reader(HTMLParser):
    VOID = frozenset({"meta", "link", "input", "br", "img", "hr"})

    def __init__(self) -> None:
        super().__init__()
        self.root = Element("root", {}, None)
        self.at = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k.replace("-", "_"): v or "" for k, v in attrs}, self.at)
        self.at.children.append(element)
        if tag not in self.VOID:
            self.at = element

    def handle_endtag(self, tag: str) -> None:
        at: Element | None = self.at
        while at is not None and at.tag != tag:
            at = at.parent
        if at is not None and at.parent is not None:
            self.at = at.parent

    def handle_data(self, data: str) -> None:
        element: Element | None = self.at
        while element is not None:  # every ancestor's text includes it
            element.parts.append(data)
            element = element.parent


def read(html: str) -> Element:
    reader = _Reader()
    reader.feed(html)
    return reader.root


# ---------------------------------------------------------------- languages, sections, links


def test_the_page_answers_in_english_with_its_sections(client: FlaskClient) -> None:
    html = page(client)
    assert '<html lang="en"' in html
    root = read(html)
    assert root.one("h1").text == "How duplicate works"
    for section in SECTIONS:
        assert root.one("section", id=section)
        assert f'href="#{section}"' in html  # the contents at the top lead to each section
    text = text_of(html)
    for phrase in (
        "How a round works",
        "How to write a play",
        "English notation",
        "French notation",
        "What a play scores",
        "The rank of your play",
        "Solos",
        "Corrections",
        "Négatif",
        "Percentage",
        "A worked example",
    ):
        assert phrase in text


@pytest.mark.parametrize(("query", "headers"), [("?lang=fr", {}), ("", {"Accept-Language": "fr-FR,fr;q=0.9"})])
def test_the_page_answers_in_french(client: FlaskClient, query: str, headers: dict[str, str]) -> None:
    html = page(client, query, **headers)
    assert '<html lang="fr"' in html
    root = read(html)
    assert root.one("h1").text == "Le duplicate, mode d’emploi"
    for section in SECTIONS:
        assert root.one("section", id=section)
    text = text_of(html)
    for phrase in (
        "Le déroulement d’un coup",
        "Écrire un coup",
        "Notation française",
        "Jokers",
        "Le rang de votre coup",
        "la somme des écarts au top",
        "Un exemple complet",
        "Classement après le coup 3",
        "1 sur 187 coups possibles",
        "font 98,625, affiché 98,63",  # a French decimal comma
        "arrondi à deux décimales",
        "il vaut 0,00.",
        "chaque solo ajoute 10 points au total et au négatif du joueur",
    ):
        assert phrase in text, phrase
    for english in ("How a round works", "Rank of the play", "legal plays", "by default"):
        assert english not in text, english


def test_the_header_the_home_page_and_the_join_page_link_to_it(client: FlaskClient) -> None:
    for path in ("/", "/join", "/help", "/director/login"):
        html = client.get(path).get_data(as_text=True)
        header = read(html).one("nav", class_="site-nav")
        assert [a.attrs["href"] for a in header.find_all("a") if a.text == "Help"] == ["/help"], path
    for path in ("/", "/join"):
        links = [a for a in read(client.get(path).get_data(as_text=True)).find_all("a", href="/help")]
        assert len(links) == 2, f"{path}: the header's link and one in the page"
    french_join = read(client.get("/join?lang=fr").get_data(as_text=True))
    assert {a.text for a in french_join.find_all("a", href="/help")} == {
        "Aide",
        "Le déroulement d’un coup, l’écriture d’un coup et le calcul des scores",
    }


# ---------------------------------------------------------------- the figures, computed here on their own


def example_rounds() -> list[RoundRecord]:
    """The story the page tells, restated: round 1 Bruno replaces a 22 by a 24; round 2 Anne alone finds the
    top and Chloé's 41 has a word not in the lexicon; round 3 Anne hands in nothing and Bruno alone tops."""

    def spread(*counts: tuple[int, int]) -> list[int]:
        return [score for score, n in counts for _ in range(n)]

    return [
        RoundRecord(
            1,
            30,
            spread((30, 2), (27, 1), (24, 3), (22, 6), (20, 15), (16, 40), (12, 120)),
            [
                Submission("Anne", "", 30, True),
                Submission("Bruno", "", 22, True),
                Submission("Chloé", "", 30, True),
                Submission("Bruno", "", 24, True),
            ],
        ),
        RoundRecord(
            2,
            50,
            spread((50, 1), (41, 2), (36, 4), (30, 10), (26, 25), (18, 60), (10, 150)),
            [Submission("Bruno", "", 26, True), Submission("Anne", "", 50, True), Submission("Chloé", "", 41, False)],
        ),
        RoundRecord(
            3,
            42,
            spread((42, 1), (38, 3), (35, 5), (28, 20), (20, 80), (12, 100)),
            [Submission("Chloé", "", 38, True), Submission("Bruno", "", 42, True)],
        ),
    ]


def default_solo_rule() -> SoloRule:
    bonus, players = BY_NAME["solo_bonus"].default, BY_NAME["solo_min_players"].default
    assert isinstance(bonus, int) and isinstance(players, int)
    return SoloRule(bonus, players)


def shown_percentage(value: Decimal, language: str) -> str:
    """A percentage as the pages write it: two decimals, a decimal comma in French (docs/rules.md §6.13)."""
    text = f"{value:.2f}"
    return text.replace(".", ",") if language == "fr" else text


def check_standings(root: Element, key: str, expected: GameResults, language: str) -> None:
    table = root.one("table", data_standings=key)
    rows = table.find_all("tr", data_player=None)
    assert [row.attrs["data_player"] for row in rows] == [s.player for s in expected.standings], key
    for row, standing in zip(rows, expected.standings, strict=True):
        shown = {cell.attrs["data_figure"]: cell.text for cell in row.find_all("td", data_figure=None)}
        assert shown == {
            "rank": str(standing.rank),
            "total": str(standing.total),
            "negatif": str(standing.negatif),
            "percentage": shown_percentage(standing.percentage, language),
            "tops": str(standing.tops),
            "solos": str(standing.solos),
        }, f"{key}: {standing.player}"


@pytest.mark.parametrize("query", ["?lang=en", "?lang=fr"])
def test_the_worked_example_shows_what_the_scoring_module_computes(client: FlaskClient, query: str) -> None:
    root = read(page(client, query))
    rounds, rule = example_rounds(), default_solo_rule()
    players = ("Anne", "Bruno", "Chloé")
    game = score_game(rounds, players, solo_rule=rule)

    table = root.one("table", data_example_rounds="")
    for result in game.rounds:
        body = table.one("tbody", data_round=str(result.number))
        assert (body.attrs["data_top"], body.attrs["data_plays"]) == (str(result.top_score), str(result.plays))
        for name in players:
            mine = result.players[name]
            row = body.one("tr", data_player=name)
            cells = {cell.attrs["data_figure"]: cell.text for cell in row.find_all("td", data_figure=None)}
            assert cells["score"] == str(mine.score)
            assert cells["difference"] == str(mine.difference)
            if mine.rank is None:
                assert re.fullmatch(r"\D+", cells["rank"]), cells["rank"]  # "no rank", in words
            else:
                assert re.findall(r"\d+", cells["rank"]) == [str(mine.rank), str(mine.of)]

    language = query.removeprefix("?lang=")
    with_bonus = score_game(rounds, players, solo_rule=rule, active=rule.min_players)
    check_standings(root, "example", game, language)
    check_standings(root, "bonus", with_bonus, language)
    refused = Correction("Chloé", 2, 41, "the word is in the lexicon")
    check_standings(root, "corrected", score_game(rounds, players, [refused], solo_rule=rule), language)

    # The story the figures tell, as the page says it.
    assert [s.player for s in game.standings] == ["Bruno", "Anne", "Chloé"]
    assert game.rounds[1].solo == "Anne" and game.rounds[2].solo == "Bruno"
    assert [str(s.percentage) for s in game.standings] == ["75.41", "65.57", "55.74"]  # 92, 80, 68 of 122
    for results in (game, with_bonus):
        assert all(s.negatif == s.total - results.top_total for s in results.standings)
    # With the bonus, each solo adds 10 to the négatif too (the old definition left it out).
    assert {s.player: s.negatif for s in with_bonus.standings} == {"Bruno": -20, "Anne": -32, "Chloé": -54}

    # Each player's sums under the table, in the reader's language.
    sums = [li.text for li in root.one("ul", class_="help-sums").find_all("li")]
    if language == "fr":
        assert sums[0] == (
            "Bruno : total 24 + 26 + 42 = 92 ; négatif 92 − 122 = -30 ; "
            "pourcentage 100 × 92 ÷ 122 = 75,4098…, affiché 75,41."
        )
    else:
        assert sums[0] == (
            "Bruno: total 24 + 26 + 42 = 92; négatif 92 − 122 = -30; "
            "percentage 100 × 92 ÷ 122 = 75.4098…, shown as 75.41."
        )


def test_the_rules_figures_are_the_modules(client: FlaskClient) -> None:
    root = read(page(client))
    text = text_of(page(client))
    rule = default_solo_rule()
    solos = root.one("p", data_solo_bonus=None)
    assert (solos.attrs["data_solo_bonus"], solos.attrs["data_solo_players"]) == (
        str(rule.bonus),
        str(rule.min_players),
    )
    assert f"The solo bonus, {rule.bonus} points by default" in solos.text
    assert f"at least {rule.min_players} active players" in solos.text
    warned = root.one("p", data_warnings_free=None)  # docs/rules.md §6.19, the settings' defaults
    free, points = BY_NAME["warnings_before_penalty"].default, BY_NAME["warning_penalty"].default
    assert (warned.attrs["data_warnings_free"], warned.attrs["data_warning_points"]) == (str(free), str(points))
    assert f"The first {free} warnings of a game are free; each one after costs {points} points." in warned.text

    example = root.one("dd", data_percentage_example=None)
    assert example.attrs["data_percentage_example"] == str(percentage(789, 800)) == "98.63"
    assert example.attrs["data_percentage_without_top"] == str(percentage(0, 0)) == "0.00"
    assert "rounded to two decimals, a 5 in the third decimal rounding up" in text
    assert "789 points for a top total of 800 make 98.625, shown as 98.63" in text
    assert "before the first round, it is 0.00." in text
    assert "a whole number" not in text and "halves rounded up" not in text  # the old definition
    assert root.one("dd", data_tie_ranks=None).attrs["data_tie_ranks"] == ",".join(
        map(str, shared_ranks([512, 498, 498, 470]))
    )
    record = RoundRecord(1, 30, [30, 30, 24, 22, 22, 20, 18, 12])
    assert root.one("p", data_rank_example=None).attrs["data_rank_example"] == f"{record.rank(24)}/{record.plays}"
    assert f"a play of 24 is ranked {record.rank(24)} of {record.plays} legal plays" in text

    minutes, reveal = BY_NAME["round_seconds"].default, BY_NAME["reveal_seconds"].default
    assert isinstance(minutes, int) and isinstance(reveal, int)
    assert f"{minutes // 60} minutes by default" in text and f"for {reveal} seconds by default" in text
    rules = ruleset("en")
    assert f"Using all {rules.rack_size} tiles of the rack earns {rules.bingo_bonus} more points" in text


def grid(table: Element) -> dict[tuple[str, str], str]:
    """(row label, column label) → the letter on the square, for the squares of an excerpt the play puts a tile on."""
    columns = [th.text for th in table.one("thead").find_all("th")]
    placed = {}
    for row in table.one("tbody").find_all("tr"):
        label = row.one("th").text
        for column, cell in zip(columns, row.find_all("td"), strict=True):
            if "highlight" in cell.attrs["class"].split():
                placed[label, column] = cell.one("span").parts[0].strip()
    return placed


def expected_squares(written: str, board: Board, notation: Notation) -> dict[tuple[str, str], str]:
    move = parse_move(written, board, notation)
    placed = {}
    for tile in move.tiles:
        name = square_name(tile.row, tile.col, notation)  # English: column then row; French: row then column
        column, row = (name[0], name[1:]) if notation == "english" else (name[1:], name[0])
        placed[row, column] = tile.letter
    return placed


def test_the_notation_pictures_draw_the_plays_the_engine_reads(client: FlaskClient) -> None:
    root = read(page(client))
    rules = ruleset("en")
    empty = Board.empty(rules)
    excerpts = root.find_all("table", data_play=None)
    shown = {(t.attrs["data_play"], t.attrs["data_notation"]) for t in excerpts}
    assert {("8D TRAIN", "english"), ("D8 TRAIN", "english"), ("H4 TRAIN", "french"), ("4H TRAIN", "french")} <= shown
    with_train = empty.copy()
    with_train.place(parse_move("8D TRAIN", empty, "english").tiles)
    notations: dict[str, Notation] = {"english": "english", "french": "french"}
    for table in excerpts:
        written, notation = table.attrs["data_play"], notations[table.attrs["data_notation"]]
        board = with_train if written.endswith("TRAINS") else empty
        assert grid(table) == expected_squares(written, board, notation), written

    # The same text is across in one notation and down in the other, as the page warns.
    same = root.one("p", data_same_text=None).attrs["data_same_text"]
    assert parse_move(same, empty, "english").horizontal and not parse_move(same, empty, "french").horizontal
    # The three ways of writing a played-through letter are one play, in each notation.
    dl = root.one("dl", class_="help-forms")
    assert [dt.text for dt in dl.find_all("dt")] == ["English notation", "French notation"]
    for notation, dd in zip(notations.values(), dl.find_all("dd"), strict=True):
        forms = [code.text for code in dd.find_all("code")]
        assert len(forms) == 3 and "(" in forms[1] and "." in forms[2]
        moves = {parse_move(form, with_train, notation) for form in forms}
        assert len(moves) == 1 and format_move(moves.pop(), notation) == forms[0]


def test_the_scoring_examples_score_what_the_engine_says_in_both_rule_sets(
    client: FlaskClient, en_lexicon: Lexicon, fr_lexicon: Lexicon
) -> None:
    root = read(page(client))
    examples = root.one("ul", class_="score-examples").find_all("li", data_play=None)
    assert len(examples) >= 4
    sets: tuple[tuple[str, Lexicon, Notation], ...] = (("en", en_lexicon, "english"), ("fr", fr_lexicon, "french"))
    for li in examples:
        english, french = (code.text for code in li.one("p", class_="score-play").find_all("code"))
        before = [code.text for code in li.find_all("code")][2:]  # "With 8D TRAIN (H4 TRAIN) already on the board."
        for (code, lexicon, notation), written, first in zip(
            sets, (english, french), (before[:1], before[1:]), strict=True
        ):
            rules = ruleset(code)
            board = Board.empty(rules)
            for play in first:
                board.place(parse_move(play, board, notation).tiles)
            result = evaluate(board, rules, lexicon, written, notation=notation)
            assert result.valid, f"{written}: {result.invalid_words} not in the {code} word list"
            assert str(result.score) == li.attrs["data_score"], f"{written} with the {code} rules"
        sums = [span.text for span in li.one("p", class_="score-sum").find_all("span")]
        # Each line ends with what it adds: the words and the bingo bonus make the play's score.
        assert sum(int(re.findall(r"\d+", line)[-1]) for line in sums) == int(li.attrs["data_score"]), sums
