"""Who has handed in a play in the round in progress: the director's console only (docs/rules.md §6.6).

The room's event stream says only how many plays are in (a submission is private); the director sees who is
still missing. A room may have 10,000 players: the database counts, and only the first ``shown`` players are
read, those who have not handed in first, so the console's list stays small whatever the room's size.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import exists, select

from ..core.database import db
from ..duplicate.rounds import RoundStatus
from . import service
from .models import Game, Player, Round, Submission

# Players listed at most: a club's whole room; in a bigger one the "not yet" come first and the rest are counted.
SHOWN = 200


@dataclass(frozen=True)
class HandIn:
    """A player's state in the round: ``handed_in`` once a play (or a paper bulletin) of theirs is in."""

    player_id: int
    name: str
    table_number: int | None
    paper: bool
    handed_in: bool


@dataclass(frozen=True)
class HandIns:
    round_number: int
    players: int  # in the room
    handed_in: int  # of them
    listed: list[HandIn]  # those not handed in first, then those who have; by name within each; at most SHOWN

    @property
    def not_yet(self) -> int:
        return self.players - self.handed_in

    @property
    def left_off(self) -> int:
        """Players not listed (a room bigger than SHOWN)."""
        return self.players - len(self.listed)

    @property
    def left_off_not_yet(self) -> int:
        """Of those left off, how many have not handed in yet."""
        return self.not_yet - sum(1 for p in self.listed if not p.handed_in)


def hand_ins(game: Game, shown: int = SHOWN) -> HandIns | None:
    """Each player's state in ``game``'s round in progress (open or paused); None when no round is."""
    round_ = service.current_round(game)
    if round_ is None or round_.status not in (RoundStatus.OPEN, RoundStatus.PAUSED):
        return None
    return _of_round(game, round_, shown)


def _of_round(game: Game, round_: Round, shown: int) -> HandIns:
    handed = exists().where(Submission.round_id == round_.id, Submission.player_id == Player.id)
    rows = db.session.execute(
        select(Player.id, Player.name, Player.table_number, Player.paper, handed.label("handed_in"))
        .where(Player.game_id == game.id)
        .order_by(handed, Player.name_key, Player.id)  # false (not yet) before true
        .limit(shown)
    ).all()
    return HandIns(
        round_number=round_.number,
        players=service.player_count(game),
        handed_in=service.submission_count(round_),
        listed=[HandIn(r.id, r.name, r.table_number, bool(r.paper), bool(r.handed_in)) for r in rows],
    )
