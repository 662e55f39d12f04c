"""The official sheets of a game, as a club prints them (docs/rules.md §6.20): the results sheet, the game
sheet (each round's draw, top and running top total) and a player's sheet. Read only: the rows are gathered
here, the pages (trainer.web.sheets) lay them out for A4 paper, and trainer.games.export writes the same rows as CSV."""

from __future__ import annotations

from dataclasses import dataclass

from ..duplicate.results import GameResults
from ..duplicate.rounds import RoundStatus
from .models import Game


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
