"""The official sheets of a game, as a club prints them (docs/rules.md §6.20): the results sheet, the game
sheet (each round's draw, top and running top total) and a player's sheet. Read only: the rows are gathered
here, the pages (trainer.web.sheets) lay them out for A4 paper, and trainer.games.export writes the same rows as CSV."""

from __future__ import annotations

from dataclasses import dataclass

from ..core.database import db
from ..duplicate.results import GameResults
from ..duplicate.rounds import RoundStatus
from .competitions import SIMULTANEOUS, room_label_of
from .models import Competition, Game


@dataclass(frozen=True)
class SheetHeading:
    """What names a game on its sheets besides its code and date (docs/rules.md §6.20): the event it is played in
    (a simultaneous game's or a tournament's name) and, for a room of a simultaneous game, the club: the room's
    name its director gave it, else its place in the event (``room_number``, shown "Room n")."""

    event: str | None
    event_kind: str | None  # "simultaneous" or "tournament"
    club: str | None
    room_number: int | None


def sheet_heading(game: Game) -> SheetHeading:
    competition = db.session.get(Competition, game.competition_id) if game.competition_id is not None else None
    if competition is None:
        return SheetHeading(None, None, game.room_name, None)
    label = room_label_of(game) if competition.kind == SIMULTANEOUS else None
    return SheetHeading(
        competition.name,
        competition.kind,
        game.room_name,
        label.number if label is not None and label.name is None else None,
    )


def table_numbers(game: Game) -> dict[str, int]:
    """The players' table numbers by name (paper players, docs/rules.md §6.21; any player may have one)."""
    return {p.name: p.table_number for p in game.players if p.table_number is not None}


@dataclass(frozen=True)
class SheetRound:
    """One closed round of the game sheet."""

    number: int
    draw: str  # RELIQUAT+NEW, rejets first with a '-' (docs/rules.md §6.3)
    top: str  # the play placed, with its coordinate
    top_score: int
    top_total: int  # the running total of the tops, this round included
    finders: int  # players who found the top
    players: int


def game_sheet(game: Game, results: GameResults) -> list[SheetRound]:
    """Every closed round of ``game`` in order, with how many of its players found the top."""
    scored = {r.number: r for r in results.rounds}
    rows: list[SheetRound] = []
    running = 0
    for round_ in game.rounds:
        if round_.status != RoundStatus.CLOSED or round_.number not in scored:
            continue
        result = scored[round_.number]
        running += round_.top_score or 0
        finders = sum(1 for p in result.players.values() if p.top)
        rows.append(
            SheetRound(
                round_.number,
                round_.draw_record,
                round_.placed_move or "",
                round_.top_score or 0,
                running,
                finders,
                len(result.players),
            )
        )
    return rows
