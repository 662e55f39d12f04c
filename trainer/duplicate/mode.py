"""What a game mode says: how a kind of duplicate game draws each rack, what it needs to know of a rack
before the round opens, what goes on the board at the close and what is carried to the next round, and
how its players are scored. The modes by name are in :mod:`.modes`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from trainer.engine.board import Board, Move
from trainer.engine.lexicon import Lexicon
from trainer.engine.rules import Ruleset

from .draw import Draw, DrawSource
from .results import Correction, GameResults, RoundRecord, Ruling, SoloRule, WarningRule

BEST_WORDS_KEPT = 10  # words kept besides the tops, each at its best placement: the reveal's "next best"


@dataclass(frozen=True)
class Analysis:
    """What a round needs to know of its rack before it opens (found while the players think).

    ``score_counts`` and ``best`` are the server's (ranks of plays, the reveal's next best); a game
    simulated for tests or replays asks only for the tops and leaves them empty.
    """

    top_score: int
    tops: tuple[Move, ...]  # every top play, in tie-break order: the first is placed by default
    score_counts: tuple[tuple[int, int], ...] = ()  # (score, how many legal plays score it), best first
    # Every top, then the best placement of each of the BEST_WORDS_KEPT best other words, best first.
    best: tuple[Move, ...] = ()


class Mode(ABC):
    """A kind of duplicate game: what every mode must say (:class:`.classic.Classic` says it for classic
    duplicate; a variant subclasses it and overrides what it changes)."""

    name: str = ""
    title: str = ""  # for the game form and the docs (English; the pages translate it)

    @abstractmethod
    def draw(self, bag: DrawSource, reliquat: str, number: int) -> Draw:
        """The rack of round ``number`` from the game's bag or imposed draws (``GameOverError`` when none can be
        drawn)."""

    @abstractmethod
    def analyse(
        self, board: Board, rules: Ruleset, lexicon: Lexicon, rack: str, everything: bool, across_first: bool = False
    ) -> Analysis | None:
        """The round's tops (and with ``everything``, every play's score and the best plays); None when the
        rack has no legal play (the game ends). ``across_first``: across tops before down ones (the first move
        under ``first_play_across``)."""

    @abstractmethod
    def place(self, board: Board, move: Move, rack: str) -> str:
        """Put the placed play on ``board`` and return the tiles carried to the next round (the reliquat)."""

    @abstractmethod
    def score(
        self,
        rounds: Sequence[RoundRecord],
        players: Iterable[str],
        corrections: Iterable[Correction],
        solo_rule: SoloRule,
        rulings: Iterable[Ruling] = (),
        warning_rule: WarningRule | None = None,
    ) -> GameResults:
        """Every closed round's results and the standings, the arbiter's corrections and rulings applied."""
