"""Classic duplicate (docs/rules.md §6): the bag completes the reliquat under the draw rule, the top play
goes on the board, the rack's other tiles are carried to the next round, players score their play."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from trainer.engine.board import Board, Move
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import summarise_moves, top_moves
from trainer.engine.rules import Ruleset

from .draw import Draw, DrawSource, reliquat_after
from .mode import BEST_WORDS_KEPT, Analysis, Mode
from .results import Correction, GameResults, RoundRecord, Ruling, SoloRule, WarningRule, score_game
from .text import N_
from .tiebreak import order_tops


class Classic(Mode):
    name = "classic"
    title = N_("Classic duplicate")

    def draw(self, bag: DrawSource, reliquat: str, number: int) -> Draw:
        return bag.draw(reliquat, number)

    def analyse(
        self, board: Board, rules: Ruleset, lexicon: Lexicon, rack: str, everything: bool, across_first: bool = False
    ) -> Analysis | None:
        if not everything:
            top_score, tops = top_moves(board, rules, lexicon, rack)
            return Analysis(top_score, tuple(order_tops(tops, rack, across_first))) if tops else None
        summary = summarise_moves(board, rules, lexicon, rack, BEST_WORDS_KEPT)  # play objects for the kept only
        if summary is None:
            return None
        tops = order_tops(summary.tops, rack, across_first)
        best = (*tops, *summary.best[len(summary.tops) :])  # the tops in tie-break order, then the next best words
        return Analysis(tops[0].score or 0, tuple(tops), tuple(summary.score_counts), best)

    def place(self, board: Board, move: Move, rack: str) -> str:
        board.place(move.tiles)
        return reliquat_after(rack, move)

    def score(
        self,
        rounds: Sequence[RoundRecord],
        players: Iterable[str],
        corrections: Iterable[Correction],
        solo_rule: SoloRule,
        rulings: Iterable[Ruling] = (),
        warning_rule: WarningRule | None = None,
    ) -> GameResults:
        return score_game(rounds, players, corrections, solo_rule, rulings=rulings, warning_rule=warning_rule)


CLASSIC = Classic()
