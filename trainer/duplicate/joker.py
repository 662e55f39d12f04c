"""Joker games (docs/rules.md §6.24): every draw holds the blank, and a blank the top places is swapped back for
its letter from the bag.

A game's ``variant`` setting is ``classic`` or ``joker`` (:data:`VARIANTS`); any game mode may be played as a joker
game, since the variant changes only where the racks come from (:class:`JokerBag`) and what the placed top leaves
on the board (:func:`blank_fate`, :func:`swap_on_board`). The rules:

- **One blank in play.** The tile set's other blanks stay out of the bag for the whole game (:func:`joker_tiles`).
- **Every draw holds it.** When a rack is completed and the blank is in the bag (not in the reliquat), it goes on
  the rack first; the rack is then completed at random from the bag as usual. A rejet sends the whole rack back,
  and the blank goes first again on the fresh rack. The draw rule counts the blank as it counts any blank (§1.4):
  as a vowel or a consonant, or, with ``blanks_either`` off, as neither: the other six tiles must then meet the
  minimums, and a draw rule whose minimums need seven is refused (:class:`JokerBag`).
- **The swap.** The top is found, chosen and scored as in any game (the blank is worth 0). When the top placed on
  the board uses the blank and its letter is still in the bag, that letter leaves the bag and takes the blank's
  square, and the blank goes back into the bag, to be put first on the next rack. When no such letter is left the
  blank stays on the board as a blank for the rest of the game, and no later draw holds a blank.
- **Counted, not looked up.** In a game drawn from a full bag every tile is in the bag, on the board (the blank in
  lower case) or on the rack, so the bag holds a letter's count in the set less the board's capitals and the rack's
  copies of it (:func:`letters_in_bag`). The server decides the swap from the round's board and rack alone; the bag
  of a game replayed from its seed makes the same swap (:meth:`JokerBag.swap_blank` checks it can).
- **Not from imposed draws.** A list of draws says nothing of the tops that send the blank back, and a game played
  from one counts no tiles in play (§6.18): a joker game draws from its seed (:func:`check_not_imposed`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from trainer.engine.board import Board, Move
from trainer.engine.rules import BLANK, Ruleset, TileSet

from .draw import Bag, DrawRule
from .errors import RuleError
from .text import N_

CLASSIC = "classic"
JOKER = "joker"
VARIANTS: dict[str, str] = {CLASSIC: N_("Classic"), JOKER: N_("Joker game")}  # name: title (English; translated)


def joker_tiles(tileset: TileSet) -> list[str]:
    """A joker game's full bag: the set's letters and one blank."""
    return [tile for tile in tileset.bag() if tile != BLANK] + [BLANK]


@dataclass(frozen=True)
class BlankFate:
    """What became of the blank of a top placed in a joker game: swapped for its letter from the bag, or left on
    the board (no such letter in the bag)."""

    row: int
    col: int
    letter: str  # the letter it stood for, upper case
    swapped: bool  # the letter from the bag is on the blank's square, and the blank is back in the bag


def letters_in_bag(rules: Ruleset, board: Board, rack: str | Sequence[str]) -> Counter[str]:
    """The letters in the bag of a game drawn from a full bag, while ``rack`` is played on ``board``: the set's,
    less the letters on the board (a blank's letter is not a tile of its letter) and on the rack."""
    tileset = rules.tileset
    left = Counter(dict(zip(tileset.letters, tileset.counts, strict=True)))
    left.subtract(ch for ch in board.cells if "A" <= ch <= "Z")
    left.subtract(ch.upper() for ch in rack if ch != BLANK)
    return +left


def blank_fate(rules: Ruleset, board_before: Board, move: Move, rack: str | Sequence[str]) -> BlankFate | None:
    """The swap when ``move``, the top placed on ``board_before`` from ``rack``, uses the blank; None when it does
    not (the blank, if the rack holds it, stays in the reliquat)."""
    blanks = [tile for tile in move.tiles if tile.blank]
    if not blanks:
        return None
    if len(blanks) > 1:
        raise ValueError("a joker game has one blank in play, and this play places two")
    tile = blanks[0]
    return BlankFate(tile.row, tile.col, tile.letter, letters_in_bag(rules, board_before, rack)[tile.letter] > 0)


def swap_on_board(board: Board, fate: BlankFate | None) -> None:
    """Put the letter from the bag in the blank's place on ``board`` (the top already placed), when it was swapped."""
    if fate is None or not fate.swapped:
        return
    index = fate.row * board.size + fate.col
    if board.cells[index] != fate.letter.lower():
        raise ValueError(f"the square of the blank holds {board.cells[index]!r}, not the blank {fate.letter.lower()!r}")
    board.cells[index] = fate.letter


def check_not_imposed(variant: str) -> None:
    """A joker game cannot be played from a list of imposed draws (docs/rules.md §6.24)."""
    if variant == JOKER:
        raise RuleError(
            "joker_imposed",
            "a joker game draws its racks from its seed: the blank goes back to the bag only when a top places it, "
            "which a list of imposed draws cannot follow. Leave the draws out, or play the list as a classic game",
            setting="variant",
        )


class JokerBag(Bag):
    """The bag of a joker game: one blank, put first on every rack while it is in the bag, and given back by
    :meth:`swap_blank` when a top placed it and its letter leaves the bag for the board.

    ``tiles`` (default: the set's letters and one blank) and ``rack`` start it from any position, as a
    :class:`~.draw.Bag`'s do; together they hold one blank at most.
    """

    def __init__(
        self,
        rules: Ruleset,
        rule: DrawRule | None = None,
        seed: int | None = None,
        tiles: Iterable[str] | None = None,
        rack: str = "",
    ) -> None:
        super().__init__(rules, rule, seed, joker_tiles(rules.tileset) if tiles is None else tiles, rack)
        if (self.tiles + self.rack).count(BLANK) > 1:
            raise ValueError("a joker game has one blank in play: bag and rack hold more")
        for number in (1, self.rule.late_from_round):
            needed = self.rule.requirement(number)
            if not self.rule.blanks_either and needed.vowels + needed.consonants > rules.rack_size - 1:
                raise ValueError(
                    f"draw rule: {needed.vowels} vowels + {needed.consonants} consonants do not fit beside the blank "
                    f"of a joker game, which counts as neither, on a rack of {rules.rack_size}"
                )

    def _put_first(self, kept: str) -> str:
        held = BLANK in kept or BLANK not in self.tiles or len(kept) >= self.rules.rack_size
        return "" if held else BLANK

    def swap_blank(self, letter: str) -> None:
        """The swap in the bag: one ``letter`` leaves it for the board, and the blank comes back into it."""
        tiles = list(self.tiles)
        if BLANK in tiles:
            raise ValueError("the bag holds the blank already")
        if letter not in tiles:
            raise ValueError(f"the bag holds no {letter}: the blank stays on the board")
        tiles.remove(letter)
        self._tiles = sorted([*tiles, BLANK])
