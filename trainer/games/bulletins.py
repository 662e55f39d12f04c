"""Paper bulletins (docs/rules.md §6.21): players without a phone write their play on a slip, and an arbiter
types it in. A room may mix phones and paper.

A bulletin is a submission like a phone's, judged the same way and taken on the same clock: typed in while the
round is open, it is taken with the time it was typed. A slip handed in before the deadline and typed in after
the close is taken only on the arbiter's declaration that it was handed in on time (``declared``), and only for
the round just closed, before the next one starts: its result is worked out then, the others' stay as they
were, and the standings follow. Every bulletin keeps the name of the arbiter who typed it in.

Bulletins are for paper players only: a phone player's play comes from their phone, never from an arbiter's
keyboard (else an arbiter could hand in the top for a phone player who never played).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..core.clock import aware, utcnow
from ..core.codes import hash_token
from ..core.database import db, table_of
from ..core.errors import Refused
from ..core.names import name_key, player_name
from ..duplicate import rounds
from ..duplicate.rounds import GameStatus, Position, RoundStatus
from ..engine.errors import EngineError
from . import edition, service
from .models import Game, Player, Result, Round, Submission

MAX_TABLE = 9_999  # table numbers a room's plan may hold


@dataclass(frozen=True)
class Bulletin:
    """A bulletin as it was taken: whose, which round, the play in canonical notation and its score as placed."""

    player: Player
    round_number: int
    move: str
    score_as_placed: int
    declared: bool


def _table(value: object) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TABLE:
        raise Refused("bad_table", f"a table number is a whole number from 1 to {MAX_TABLE}", n=MAX_TABLE)
    return value


def next_free_table(game: Game) -> int:
    taken = db.session.execute(select(func.max(Player.table_number)).where(Player.game_id == game.id)).scalar()
    return int(taken or 0) + 1


def add_paper_player(game: Game, name: object, table: object, author: str) -> Player:
    """A player without a phone, at table ``table`` (the next free number when none is given). Nobody holds
    their token: their plays come as bulletins."""
    if game.status == GameStatus.FINISHED:
        raise Refused("game_finished", "this game is finished")
    checked = player_name(name)
    number = _table(table) or next_free_table(game)
    if db.session.execute(select(Player.id).where(Player.game_id == game.id, Player.table_number == number)).first():
        raise Refused("table_taken", f"table {number} has a player already", table=number)
    key = name_key(checked)
    service.check_name_free(game, checked, key)
    player = Player(
        game_id=game.id,
        name=checked,
        name_key=key,
        token_hash=hash_token(secrets.token_urlsafe(32)),  # a token nobody is given: this player has no phone
        paper=True,
        table_number=number,
    )
    db.session.add(player)
    try:
        db.session.flush()
    except IntegrityError:  # the same name or table taken a moment ago
        db.session.rollback()
        raise Refused("table_taken", f"table {number} or the name {checked!r} is taken", table=number) from None
    service.log(game.id, "joined", {"players": service.player_count(game), "paper": True, "table": number}, author)
    db.session.commit()
    return player


def find_player(game: Game, who: object) -> Player:
    """The player a bulletin names: a table number ("12"), or a name as it reads (case and accents aside)."""
    text = who.strip() if isinstance(who, str) else str(who) if isinstance(who, int) else ""
    if not text:
        raise Refused("bulletin_player_missing", "say whose bulletin it is: a table number or a name")
    if text.isascii() and text.isdigit():
        found = db.session.execute(
            select(Player).where(Player.game_id == game.id, Player.table_number == int(text[:6]))
        ).scalar_one_or_none()
        if found is None:
            raise Refused("unknown_table", f"no player is at table {text}", table=text)
        return found
    found = db.session.execute(
        select(Player).where(Player.game_id == game.id, Player.name_key == name_key(text[:200]))
    ).scalar_one_or_none()
    if found is None:
        raise Refused("unknown_bulletin_player", f"no player of this game is called {text!r}", name=text)
    return found


def enter(
    game: Game, who: object, text: object, author: str, declared: bool = False, now: datetime | None = None
) -> Bulletin:
    """Take a bulletin for the round being played, or, ``declared`` on time by the arbiter, for the round just
    closed; see the module doc."""
    now = now or utcnow()
    player = find_player(game, who)
    if not player.paper:
        raise Refused(
            "not_paper_player",
            f"{player.name} plays on a phone: their plays come only from their phone, never as a bulletin",
            name=player.name,
        )
    if not isinstance(text, str) or not text.strip():
        raise Refused("move_missing", "'move' is missing: give a play such as \"8D TRAIN\"")
    round_ = service.current_round(game)
    if round_ is not None and round_.status != RoundStatus.CLOSED:
        playing = service.round_playing(game, round_.number)
        move, score = service.judge(playing, text)
        pending = service.PendingPlay(playing, player.id, player.name, move, score, now, entered_by=author)
        (outcome,) = service.store_plays([pending])
        if isinstance(outcome, Refused):
            raise _late(round_.number)
        return Bulletin(player, round_.number, outcome.move, outcome.score_as_placed, False)
    closed = _just_closed(game)
    if closed is None:
        raise Refused("no_round_for_bulletin", "no round is being played or has just closed")
    if not declared:
        raise _late(closed.number)
    return _enter_declared(game, closed, player, text, author, now)


def _late(number: int) -> Refused:
    return Refused(
        "bulletin_late",
        f"round {number} is closed: a slip handed in before the deadline is entered with the declaration that it "
        "was on time",
        round=number,
    )


def _just_closed(game: Game) -> Round | None:
    """The last round, if it is closed and the next has not started (the reveal, or the end of the game)."""
    if game.status not in (GameStatus.REVEALING, GameStatus.FINISHED) or game.round_number < 1:
        return None
    return db.session.execute(
        select(Round).where(
            Round.game_id == game.id, Round.number == game.round_number, Round.status == RoundStatus.CLOSED
        )
    ).scalar_one_or_none()


def _enter_declared(game: Game, round_: Round, player: Player, text: str, author: str, now: datetime) -> Bulletin:
    if round_.closed_at is not None and aware(player.joined_at) > aware(round_.closed_at):
        raise Refused(
            "joined_after_round",
            f"{player.name} was added after round {round_.number} closed: no slip of theirs was handed in for it",
            name=player.name,
            round=round_.number,
        )
    played = edition.played_lexicon(game)
    if played.changed:  # the round was judged with the game's list: another would judge this slip differently
        raise Refused(
            "lexicon_changed",
            f"the lexicon {played.name} has changed since round {round_.number} was judged: a bulletin can no "
            "longer be taken for it",
            lexicon=played.name,
            round=round_.number,
        )
    setup = service.setup_of(game)
    position = Position.of(setup, round_.board_before, round_.rack)
    try:
        move, score = rounds.judge(position, text)
    except EngineError as error:  # the engine's refusal of the placement, as for a play typed in on time
        raise Refused.because(error, "illegal_play") from None
    # The game read above may be stale: the next round may have opened since. This guarded write of the game's
    # row holds it until the commit (PostgreSQL's row lock, SQLite's write lock), so the next round opens either
    # before it (and the declaration is refused) or after the declared result is in, never in between.
    still_revealing = (
        update(Game)
        .where(
            Game.id == game.id,
            Game.round_number == round_.number,
            Game.status.in_((GameStatus.REVEALING, GameStatus.FINISHED)),
        )
        .values(round_number=Game.round_number)
    )
    if db.session.execute(still_revealing).rowcount != 1:  # type: ignore[attr-defined]
        db.session.rollback()
        raise Refused(
            "declaration_closed",
            f"round {round_.number} takes no more declared bulletins: the next round has started",
            round=round_.number,
        )
    db.session.execute(
        insert(table_of(Submission)),
        [
            {
                "round_id": round_.id,
                "player_id": player.id,
                "move": move,
                "score_as_placed": score,
                "received_at": now,
                "entered_by": author,
                "declared": True,
            }
        ],
    )
    judged = rounds.judge_round(position, {player.id: move}, round_.legal_scores or [])[player.id]
    db.session.execute(delete(Result).where(Result.round_id == round_.id, Result.player_id == player.id))
    db.session.add(
        Result(
            round_id=round_.id,
            player_id=player.id,
            move=judged.move,
            score=judged.score,
            valid=judged.valid,
            invalid_words=list(judged.invalid_words) or None,
            rank=judged.rank,
        )
    )
    # Not a "submission" event: this one changes the round's results, so the caches of results must follow. The
    # play itself is in the submission row, not in the event that every screen of the room receives.
    service.log(game.id, "bulletin_declared", {"round": round_.number, "player": player.name}, author, now)
    db.session.commit()
    return Bulletin(player, round_.number, move, score, True)


def entered(game: Game, round_: Round) -> list[tuple[Player, Submission]]:
    """The bulletins typed in for ``round_``, latest last, with their players: what the arbiters entered."""
    rows = db.session.execute(
        select(Player, Submission)
        .join(Submission, Submission.player_id == Player.id)
        .where(Submission.round_id == round_.id, Submission.entered_by.is_not(None))
        .order_by(Submission.id)
    ).all()
    return [(player, submission) for player, submission in rows]


def paper_players(game: Game) -> list[Player]:
    return sorted(
        (p for p in game.players if p.paper or p.table_number is not None),
        key=lambda p: (p.table_number or MAX_TABLE + 1, p.id),
    )
