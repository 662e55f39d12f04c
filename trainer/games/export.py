"""A finished (or running) game as files: the standings and the game sheet as CSV, the placed plays as a GCG
record, the round list.

The CSV is for a club's spreadsheet: one line per player, best first, with what each round
added, after a line with the tops. Names are players' own text, so a name a spreadsheet would
run as a formula (``=``, ``+``, ``-``, ``@``) is written with a leading apostrophe. The last two
columns of every line name the lexicon the game was played with and its edition (the same on every
line, so a reader that takes columns by name, or the first ones by place, reads the rest as before).

The GCG record follows the board: one ``>Top:`` line per closed round with the rack, the placed
play in English coordinates (``.`` for tiles played through, lower case for blanks), its score
and the running top total, then a ``#note`` with the draw (``RELIQUAT+NEW``, rejets with ``-``).
``#lexicon`` holds the lexicon's name only, as GCG readers expect; its edition is in ``#description``. In a joker
game (docs/rules.md §6.24) the description says so, and a round whose top placed the blank has a second note saying
what became of it (``#note round 3, joker: the blank (E) on 8H is replaced by the letter E from the bag``).

Everything here is read from what the game stored (results judged at each round's close): nothing
loads the lexicon, so a list changed or removed since changes none of it.

The round list is the draw of every closed round, one a line as docs/rules.md §6.3 writes it: what a club
pastes to play the same racks as a game with imposed draws (§6.18), and reads back as the same racks. A joker game's
list says in its header that it cannot be played so (§6.24).
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from anyascii import anyascii

from ..duplicate.imposed import round_list
from ..duplicate.joker import JOKER, BlankFate
from ..duplicate.results import GameResults, percentage
from ..engine.board import Board
from ..engine.notation import format_move, parse_move, square_name
from ..engine.rules import ruleset
from .edition import label
from .models import Game
from .service import blank_of, notation_of
from .sheets import SheetRound

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
GCG_NICK = "Top"


@dataclass(frozen=True)
class CsvStyle:
    """How a spreadsheet of the reader's language reads a CSV file: a French one takes ``,`` for the decimal
    comma, so its cells are separated by ``;``, and it reads UTF-8 only after a byte-order mark."""

    delimiter: str = ","
    decimal: str = "."
    bom: bool = False

    def number(self, value: Decimal) -> str:
        return f"{value:.2f}".replace(".", self.decimal)

    def file(self, text: str) -> str:
        return ("\ufeff" if self.bom else "") + text


PLAIN_CSV = CsvStyle()  # the API's files: the same whatever the reader's language
SPREADSHEET_CSV = {"fr": CsvStyle(delimiter=";", decimal=",", bom=True)}


def csv_style(language: str | None) -> CsvStyle:
    """The CSV convention of a page's downloads in ``language`` (docs/rules.md §6.20)."""
    return SPREADSHEET_CSV.get(language or "", PLAIN_CSV)


def _cell(text: str) -> str:
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def _one_line(text: str) -> str:
    """``text`` with its line breaks as spaces: an edition is a club's text, and a pragma or a comment is one line."""
    return " ".join(text.split())


def _lexicon_cells(game: Game) -> list[str]:
    """The lexicon's name and edition, the last two cells of every line of a CSV export."""
    return [game.lexicon, _cell(game.lexicon_edition or "")]


def standings_csv(game: Game, results: GameResults, style: CsvStyle = PLAIN_CSV) -> str:
    """Rank, name, total, négatif, percentage, tops, solos, solo bonus points, warnings, penalty points, one column
    per round with the round's score (its bonus and penalties apart, as the help and docs/rules.md §6.13 say: total =
    the rounds' scores + bonus - penalty), then the game's lexicon and its edition.

    The percentage is written with two decimals and the style's decimal mark (98.75, or 98,75 in French).
    """
    out = io.StringIO()
    writer = csv.writer(out, delimiter=style.delimiter)
    lexicon = _lexicon_cells(game)
    numbers = [r.number for r in results.rounds]
    writer.writerow(
        [
            "rank",
            "name",
            "total",
            "negatif",
            "percentage",
            "tops",
            "solos",
            "bonus",
            "warnings",
            "penalty",
            *(f"round {n}" for n in numbers),
            "lexicon",
            "edition",
        ]
    )
    writer.writerow(
        [
            "",
            "(top)",
            results.top_total,
            0,
            style.number(percentage(results.top_total, results.top_total)),  # 100.00, or 0.00 before any round
            len(numbers),
            "",
            "",
            "",
            "",
            *(r.top_score for r in results.rounds),
            *lexicon,
        ]
    )
    for s in results.standings:
        writer.writerow(
            [
                s.rank,
                _cell(s.player),
                s.total,
                s.negatif,
                style.number(s.percentage),
                s.tops,
                s.solos,
                s.bonus,
                s.warnings,
                s.penalty,
                *s.round_scores,
                *lexicon,
            ]
        )
    return style.file(out.getvalue())


def game_sheet_csv(game: Game, rows: Sequence[SheetRound], style: CsvStyle = PLAIN_CSV) -> str:
    """The game sheet (trainer.games.sheets) as CSV: round, draw, top, score, running top total, finders, players,
    the game's lexicon and its edition."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=style.delimiter)
    lexicon = _lexicon_cells(game)
    writer.writerow(["round", "draw", "top", "score", "top_total", "found_by", "players", "lexicon", "edition"])
    for r in rows:
        writer.writerow([r.number, _cell(r.draw), r.top, r.top_score, r.top_total, r.finders, r.players, *lexicon])
    return style.file(out.getvalue())


def game_gcg(game: Game) -> str:
    """The placed play of every closed round as a GCG record of one player, ``Top``."""
    rules = ruleset(game.rules)
    notation = notation_of(game)
    lines = [
        "#character-encoding UTF-8",
        f"#player1 {GCG_NICK} Tirage duplicate game {game.id}",
        f"#title Tirage duplicate game {game.id}",
        f"#lexicon {game.lexicon}",
        f"#description Duplicate ({game.rules}{', joker game' if game.variant == JOKER else ''}), lexicon "
        f"{_one_line(label(game.lexicon, game.lexicon_edition))}: the top play placed each round",
    ]
    total = 0
    for round_ in game.rounds:
        if round_.status != "closed" or round_.placed_move is None:
            continue
        board = Board(rules.layout, list(round_.board_before))
        move = parse_move(round_.placed_move, board, notation)
        score = round_.top_score or 0
        total += score
        coordinate, word = format_move(move, "english", through="dot").split(" ")
        lines.append(f">{GCG_NICK}: {round_.rack} {coordinate} {word} +{score} {total}")
        lines.append(f"#note round {round_.number}, draw {round_.draw_record}")
        blank = blank_of(game, round_)
        if blank is not None:
            lines.append(f"#note round {round_.number}, joker: {_blank_text(blank)}")
    return "\n".join(lines) + "\n"


def _blank_text(blank: BlankFate) -> str:
    """What became of a joker game's blank, in English (the GCG record's notes are)."""
    square = square_name(blank.row, blank.col, "english")
    if blank.swapped:
        return f"the blank ({blank.letter}) on {square} is replaced by the letter {blank.letter} from the bag"
    return f"no {blank.letter} is left in the bag: the blank ({blank.letter}) on {square} stays on the board"


def game_draws(game: Game) -> str:
    """The draw of every closed round, one a line (docs/rules.md §6.18), after a comment naming the game."""
    closed = [r for r in game.rounds if r.status == "closed"]
    origin = "imposed draws" if game.imposed_draws is not None else "drawn from its seed"
    header = [
        f"Tirage duplicate game {game.id} ({game.rules}, {origin}): the draw of each round, one a line",
        f"{len(closed)} rounds; a rejected rack is written first, with a -",
        f"played with the lexicon {_one_line(label(game.lexicon, game.lexicon_edition))}",
    ]
    if game.variant == JOKER:
        header.append(
            "a joker game (docs/rules.md §6.24): the blank goes back to the bag after each top that places it, so "
            "this list cannot be played as imposed draws"
        )
    return round_list((r.draw_record for r in closed), header)


EMPTY_TABLE = "--table vide--"  # how the federation's results file names a table nobody sat at
SIGLES_ENCODING = "latin-1"
# The French ligature, which Latin-1 lacks, written as French writes it without it ("OEdipe", not "Oedipe").
LIGATURES = {"Œ": "OE", "œ": "oe"}


def latin_1(text: str) -> str:
    """``text`` with every character Latin-1 lacks written with those it has: a letter with an accent Latin-1 lacks
    loses it ("Łukasz" is "Lukasz", "Nguyễn" "Nguyen"), the French ligature is spelled out ("OEdipe"),
    and another script is transliterated ("Алиса" is "Alisa", "Ελένη" "Eleni", by anyascii). Latin-1's own
    characters stay ("Zoé", "Jürgen", "Æsa"). Any other character (a symbol, an emoji) is "?"."""
    written = []
    for character in text:
        if ord(character) < 256:
            written.append(character)
            continue
        bare = "".join(c for c in unicodedata.normalize("NFKD", character) if not unicodedata.combining(c))
        if bare and all(ord(c) < 256 for c in bare):
            written.append(bare)
        elif character in LIGATURES:
            written.append(LIGATURES[character])
        elif unicodedata.category(character)[0] in "LN":  # a letter or a digit; a symbol's name is no name's part
            written.append(anyascii(character) or "?")
        else:
            written.append("?")
    return "".join(written)


def sigles(game: Game, results: GameResults) -> bytes:
    """The results file that the French federation's SIGLES program reads to register a tournament game
    (docs/rules.md §6.20): one line per table from 1 to the highest, ``"table","name","total"``, every field
    quoted; a table nobody sat at is ``"n","--table vide--","-1"``. Latin-1, as that program reads it (a name's
    other characters written with Latin-1's: :func:`latin_1`), and a name a spreadsheet would run as a formula
    starts with an apostrophe, as in the CSV files. Players without a table number take the numbers after the
    highest one, in the order they joined."""
    totals = {s.player: s.total for s in results.standings}
    tables: dict[int, str] = {p.table_number: p.name for p in game.players if p.table_number is not None}
    following = max(tables, default=0)
    for player in game.players:
        if player.table_number is None:
            following += 1
            tables[following] = player.name
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    for number in range(1, max(tables, default=0) + 1):
        name = tables.get(number)
        if name is None:
            writer.writerow([number, EMPTY_TABLE, -1])
        else:
            writer.writerow([number, _cell(latin_1(name)), totals.get(name, 0)])
    return out.getvalue().encode(SIGLES_ENCODING, errors="replace")
