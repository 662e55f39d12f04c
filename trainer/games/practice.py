"""A learner's training alone between club nights (docs/rules.md §6.27 solo practice, §6.26 topping): the rounds of
an archived game, or of a fresh draw, played round by round in a :class:`PracticeSession`.

**Where the rounds come from.** A replay copies the archived game's closed rounds when the session is made (draw,
board, tops, the play placed, every legal score and the next best): the learner plays exactly the rounds the room
played, on the boards the room had. A fresh draw is drawn from a new seed with the club's rules, and each round is
drawn and analysed by the engine *ahead of the learner*: when a round is shown, the next one is worked out in the
background (:func:`prepare_ahead`), so that answering a round never waits for the engine (``bench/practice.py``).

**Fairness** (docs/rules.md §6.4): only a game the archive shows may be replayed, by the archive's own rule. A
round's tops are stored with it but given to the learner only once the round is over for them (the pages and the
API read them through :func:`reveal`).

**The clock.** A round's clock starts when the server first shows it (``shown_at``); a timed solo round's deadline
is that plus the session's round time, and a play that arrives after it (and its second and a half of grace, as in a
club game, §6.6) counts as late: 0 points. The clock runs while the browser is closed, as a club night's does.

This module holds what both kinds share (making, reading and resuming sessions, the rounds, judging a play); solo
practice's answer and placement are :mod:`.solo`'s, topping's times and hints :mod:`.topping`'s.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flask import Flask, current_app
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from ..core import ids
from ..core.accounts import Learner
from ..core.clock import utcnow
from ..core.database import db
from ..core.errors import Refused
from ..core.lexicons import lexicon_store
from ..duplicate import rounds
from ..duplicate import settings as declared
from ..duplicate.rounds import GameEnd, GameStatus, PlayedRound, Position, RoundStatus, Setup
from ..engine.board import Board
from ..engine.rules import Notation, ruleset
from . import analyst, draws, edition, service
from .analyst import SetupSpec
from .display import next_best_words
from .models import Game, PracticeRound, PracticeSession

log = logging.getLogger(__name__)

KINDS = ("solo", "topping")
SOLO, TOPPING = KINDS
PLAYING, FINISHED = "playing", "finished"
SETTLE = rounds.SETTLE  # a timed round takes what arrived before its deadline (docs/rules.md §6.6)
MAX_SESSIONS_LISTED = 50
PRIVATE_SETTINGS = frozenset({"seed", "draws", "imposed_draws", "mode"})  # never the learner's to choose
_AHEAD_KEY = "tirage.practice_ahead"


# --- making a session ---------------------------------------------------------------------------------


def _refused_kind(kind: object) -> Refused:
    return Refused("bad_kind", f"a practice session is 'solo' or 'topping', not {kind!r}", field="kind")


def from_archive(learner: Learner, game_id: object, kind: object, timed: bool = True) -> PracticeSession:
    """A session replaying the archived game ``game_id``: its rounds copied, its settings taken (a solo session
    ``timed`` plays on the game's round time). Refused as the archive refuses the game (``not_archived``,
    ``draw_not_public``: docs/rules.md §6.4)."""
    if kind not in KINDS:
        raise _refused_kind(kind)
    asked = ids.game_id(game_id)
    game = db.session.get(Game, asked) if asked is not None else None
    if game is None or game.status != GameStatus.FINISHED or game.round_number == 0:
        raise Refused("not_archived", f"there is no game {game_id} in the archive (the archive keeps finished games)")
    if not draws.shown_to_outsiders(game):
        raise Refused("draw_not_public", "this game's draw is being played elsewhere: it is in the archive afterwards")
    closed = [r for r in game.rounds if r.status == RoundStatus.CLOSED and r.placed_move and r.top_score is not None]
    if not closed:
        raise Refused("not_archived", f"game {game_id} closed no round: there is nothing to replay")
    session = PracticeSession(
        learner_id=learner.id,
        kind=kind,
        source_game_id=game.id,
        seed=game.seed,  # shown with the archived game; the rounds are copied, never drawn again
        rules=game.rules,
        lexicon=game.lexicon,
        lexicon_edition=game.lexicon_edition,
        lexicon_sha256=game.lexicon_sha256,
        notation=game.notation,
        variant=game.variant,
        draw_rule=game.draw_rule,
        first_play_across=game.first_play_across,
        first_play_best_placement=game.first_play_best_placement,
        max_rounds=game.max_rounds,
        round_seconds=game.round_seconds if timed or kind == TOPPING else None,
        rounds_total=len(closed),
    )
    session.rounds = [
        PracticeRound(
            number=r.number,
            rack=r.rack,
            draw_record=r.draw_record,
            board_before=r.board_before,
            top_score=r.top_score or 0,
            tops=list(r.tops or []),
            placed_move=r.placed_move or "",
            legal_scores=r.legal_scores,
            best_plays=r.best_plays,
        )
        for r in closed
    ]
    db.session.add(session)
    db.session.commit()
    return session


def fresh(learner: Learner, data: object, kind: object, timed: bool = True) -> PracticeSession:
    """A session on a fresh draw: the game settings of ``data`` checked as a game's (rules, lexicon, variant, preset
    and round time, number of rounds; docs/rules.md §6.14), a new seed, and its first round drawn and analysed."""
    if kind not in KINDS:
        raise _refused_kind(kind)
    if not isinstance(data, dict):
        raise Refused("bad_settings", "the settings are a JSON object")
    # A fresh draw is always a new seed: a seed of the learner's choosing could be a club's game in play (§6.4).
    asked = {name: value for name, value in data.items() if name not in PRIVATE_SETTINGS}
    settings = service.game_settings({**asked, "mode": "classic"})
    session = PracticeSession(
        learner_id=learner.id,
        kind=kind,
        seed=settings["seed"],
        rules=settings["rules"],
        lexicon=settings["lexicon"],
        notation=settings["notation"],
        variant=settings["variant"],
        draw_rule=settings[declared.DRAW_RULE],
        first_play_across=settings["first_play_across"],
        first_play_best_placement=settings["first_play_best_placement"],
        max_rounds=settings["max_rounds"],
        round_seconds=settings["round_seconds"] if timed or kind == TOPPING else None,
    )
    session.lexicon_edition, session.lexicon_sha256 = edition.recorded(session.lexicon)
    db.session.add(session)
    db.session.flush()
    if _draw_next(session) is None:  # a rack with no play at all: nothing to train on
        db.session.rollback()
        raise Refused("no_playable_draw", "the draw gives no round to play: try again")
    db.session.commit()
    return session


# --- the rounds of a fresh draw -------------------------------------------------------------------------


def is_fresh(session: PracticeSession) -> bool:
    """Whether the session draws its own rounds (a fresh draw), rather than replaying an archived game's."""
    return session.source_game_id is None


def spec_of(session: PracticeSession) -> SetupSpec:
    """The session's setup by name, as a game's (what the analyst's process needs)."""
    notation: Notation = "french" if session.notation == "french" else "english"
    assert session.seed is not None
    return SetupSpec(
        session.rules,
        session.lexicon,
        notation,
        session.draw_rule,
        session.seed,
        session.max_rounds,
        "classic",
        session.first_play_across,
        session.first_play_best_placement,
        None,
        session.variant,
    )


def setup_of(session: PracticeSession) -> Setup:
    return spec_of(session).setup(lexicon_store())


def _stored_rounds(session_id: int) -> list[PracticeRound]:
    return list(
        db.session.execute(
            select(PracticeRound).where(PracticeRound.session_id == session_id).order_by(PracticeRound.number)
        ).scalars()
    )


def _draw_next(session: PracticeSession) -> PracticeRound | None:
    """Draw and analyse the round after the session's last stored one and add it (the caller commits); None when
    the draw ends the game (then ``rounds_total`` is set)."""
    stored = _stored_rounds(session.id)
    played = [PlayedRound(r.number, r.rack, r.board_before, r.placed_move) for r in stored]
    spec = spec_of(session)
    if stored:
        last = stored[-1]
        board, _reliquat = rounds.place(setup_of(session), last.board_before, last.placed_move, last.rack)
    else:
        board = "".join(Board.empty(ruleset(session.rules)).cells)
    opened = analyst.next_round(spec, played, board, analyst.PRACTICE_KEY)  # never in a club round's way
    if isinstance(opened, GameEnd):
        session.rounds_total = len(stored)
        session.end_reason = opened.reason.value
        return None
    round_ = PracticeRound(
        session_id=session.id,
        number=opened.number,
        rack=opened.draw.rack,
        draw_record=opened.draw.record,
        board_before=board,
        top_score=opened.analysis.top_score,
        tops=opened.tops(spec.notation),
        placed_move=opened.tops(spec.notation)[0],
        legal_scores=[[score, count] for score, count in opened.analysis.score_counts],
        best_plays=opened.best_plays(spec.notation),
    )
    db.session.add(round_)
    return round_


def ensure_round(session: PracticeSession, number: int) -> PracticeRound | None:
    """Round ``number`` of the session, drawn now if it was not worked out ahead; None when the game has ended
    before it. Two requests drawing the same round store it once."""
    while True:
        stored = _stored_rounds(session.id)
        if len(stored) >= number:
            return stored[number - 1]
        if session.rounds_total is not None or not is_fresh(session):
            return None
        try:
            added = _draw_next(session)
            db.session.commit()
        except IntegrityError:  # drawn a moment ago by the background work: read it
            db.session.rollback()
            db.session.refresh(session)
            continue
        if added is None:  # the draw ended, or the background work stored this round meanwhile: read again
            db.session.refresh(session)
            continue


def _executor(app: Flask) -> ThreadPoolExecutor:
    executor: ThreadPoolExecutor | None = app.extensions.get(_AHEAD_KEY)
    if executor is None:
        with _LOCK:
            executor = app.extensions.get(_AHEAD_KEY)
            if executor is None:
                executor = ThreadPoolExecutor(1, thread_name_prefix="practice-ahead")
                app.extensions[_AHEAD_KEY] = executor
    return executor


_LOCK = threading.Lock()


def _prepare(app: Flask, session_id: int, number: int) -> None:
    with app.app_context():
        try:
            session = db.session.get(PracticeSession, session_id)
            if session is not None:
                ensure_round(session, number)
        except Exception:  # the learner's request draws the round itself if this failed
            log.exception("drawing round %s of practice session %s ahead", number, session_id)
        finally:
            db.session.remove()


def prepare_ahead(session: PracticeSession, number: int) -> None:
    """Work out round ``number`` of a fresh draw in the background, if it is not stored yet."""
    if not is_fresh(session) or session.rounds_total is not None:
        return
    if db.session.execute(
        select(func.count()).where(PracticeRound.session_id == session.id, PracticeRound.number == number)
    ).scalar_one():
        return
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    _executor(app).submit(_prepare, app, session.id, number)


# --- reading and resuming -----------------------------------------------------------------------------


def session_of(learner: Learner, session_id: object) -> PracticeSession:
    """The learner's session ``session_id``; another learner's is refused as if it did not exist."""
    asked = ids.game_id(session_id)
    session = db.session.get(PracticeSession, asked) if asked is not None else None
    if session is None or session.learner_id != learner.id:
        raise Refused("no_practice", f"you have no practice session {session_id}")
    return session


def sessions(learner: Learner, kind: str | None = None) -> list[PracticeSession]:
    """The learner's sessions, newest first: those in play first (to resume), then the finished."""
    query = select(PracticeSession).where(PracticeSession.learner_id == learner.id)
    if kind is not None:
        query = query.where(PracticeSession.kind == kind)
    query = query.order_by(PracticeSession.status.desc(), PracticeSession.created_at.desc())
    return list(db.session.execute(query.limit(MAX_SESSIONS_LISTED)).scalars())


def round_of(session: PracticeSession, number: int) -> PracticeRound:
    round_ = db.session.execute(
        select(PracticeRound).where(PracticeRound.session_id == session.id, PracticeRound.number == number)
    ).scalar_one_or_none()
    if round_ is None:
        raise Refused("round_not_started", f"round {number} has not started", round=number)
    return round_


def current(session: PracticeSession, now: datetime | None = None) -> PracticeRound | None:
    """The round the learner is on: unanswered (being played), or answered (its reveal is shown until the learner
    moves on with :func:`advance`). The first round is shown when the session is first opened. A round whose clock
    ran out unanswered is over (:func:`expire`). None once the session is finished."""
    if session.status == FINISHED:
        return None
    now = now or utcnow()
    if not session.round_number:
        return advance(session, now)
    round_ = round_of(session, session.round_number)
    expire(session, round_, now)
    return round_


def advance(session: PracticeSession, now: datetime | None = None) -> PracticeRound | None:
    """Show the next round (its clock starts now, and the one after is worked out ahead), once the current one is
    over for the learner; finish the session when there is none. The round shown, or None when finished."""
    if session.status == FINISHED:
        raise Refused("practice_over", "this practice session is over")
    now = now or utcnow()
    if session.round_number:
        shown = round_of(session, session.round_number)
        expire(session, shown, now)
        if shown.answered_at is None:
            raise Refused("round_not_over", f"round {shown.number} is not over: answer it first", round=shown.number)
    next_round = ensure_round(session, session.round_number + 1)
    if next_round is None:
        finish(session, now)
        return None
    next_round.shown_at = now
    next_round.deadline = now + timedelta(seconds=session.round_seconds) if session.round_seconds else None
    session.round_number = next_round.number
    db.session.commit()
    prepare_ahead(session, next_round.number + 1)
    return next_round


def expire(session: PracticeSession, round_: PracticeRound, now: datetime) -> bool:
    """End ``round_`` when its clock ran out unanswered (the browser was closed, say): no play counted, as a club
    counts a missing play (§6.6). Whether it ended now."""
    if round_.answered_at is not None or not is_late(round_, now):
        return False
    assert round_.deadline is not None
    round_.answered_at = round_.deadline
    if session.kind == TOPPING:
        round_.found = False
    db.session.commit()
    return True


def last_answered(session: PracticeSession) -> PracticeRound | None:
    """The round answered last (the one to reveal), if any."""
    return db.session.execute(
        select(PracticeRound)
        .where(PracticeRound.session_id == session.id, PracticeRound.answered_at.is_not(None))
        .order_by(PracticeRound.number.desc())
        .limit(1)
    ).scalar_one_or_none()


STOPPED = "stopped"  # PracticeSession.end_reason of a session the learner ended before its last round


def stop(session: PracticeSession, now: datetime | None = None) -> None:
    """End the session at the learner's word, once the round shown is over for them (answered, passed, given up or
    its clock run out; ``round_not_over`` before): the rounds not shown count for nothing (docs/rules.md §6.27)."""
    if session.status == FINISHED:
        raise Refused("practice_over", "this practice session is over")
    now = now or utcnow()
    if session.round_number:
        shown = round_of(session, session.round_number)
        expire(session, shown, now)
        if shown.answered_at is None:
            raise Refused("round_not_over", f"round {shown.number} is not over: answer it first", round=shown.number)
    finish(session, now, reason=STOPPED)


def finish(session: PracticeSession, now: datetime | None = None, reason: str | None = None) -> None:
    """End the session (every round played, or the learner stops); the rounds not shown are not counted."""
    if session.status == FINISHED:
        return
    session.status = FINISHED
    session.finished_at = now or utcnow()
    if reason is not None:
        session.end_reason = reason
    elif session.end_reason is None:
        session.end_reason = "all_rounds"
    db.session.commit()


def is_late(round_: PracticeRound, now: datetime) -> bool:
    """Whether a play arriving ``now`` is past the round's deadline and its grace (a timed round only)."""
    return round_.deadline is not None and now > round_.deadline + SETTLE


def position(session: PracticeSession, round_: PracticeRound) -> Position:
    """The round as plays are judged against it: its rack on its board, under the session's rules."""
    return Position.of(setup_of(session), round_.board_before, round_.rack)


def board_rows(session: PracticeSession, cells: str) -> list[str]:
    return Board(ruleset(session.rules).layout, list(cells)).rows()


# --- what the learner sees once a round is over ----------------------------------------------------


@dataclass(frozen=True)
class Reveal:
    """A round as shown once it is over for the learner: the tops, the next best distinct words and their scores."""

    number: int
    rack: str
    top_score: int
    tops: list[str]
    placed: str
    next_best: list[tuple[str, int]]


def reveal(round_: PracticeRound) -> Reveal:
    """The round's reveal; refused while the learner has not finished the round (its tops are not theirs yet)."""
    if round_.answered_at is None:
        raise Refused("round_not_over", f"round {round_.number} is not over: its top is shown once you answer")
    tops = list(round_.tops)
    return Reveal(
        round_.number,
        round_.rack,
        round_.top_score,
        tops,
        round_.placed_move,
        next_best_words(round_.best_plays or [], tops, round_.top_score),
    )


def source_game(session: PracticeSession) -> Game | None:
    return db.session.get(Game, session.source_game_id) if session.source_game_id is not None else None


def summary(session: PracticeSession) -> dict[str, Any]:
    """A session as its list shows it: kind, source, rounds played and total so far."""
    played = [r for r in session.rounds if r.answered_at is not None]
    return {
        "id": session.id,
        "kind": session.kind,
        "source_game": session.source_game_id,
        "rules": session.rules,
        "lexicon": session.lexicon,
        "variant": session.variant,
        "timed": session.round_seconds is not None,
        "round_seconds": session.round_seconds,
        "status": session.status,
        "round": session.round_number,
        "rounds_total": session.rounds_total,
        "rounds_played": len(played),
        "total": sum(r.score for r in played),
        "top_total": sum(r.top_score for r in played),
        "seconds": round(sum(r.seconds or 0.0 for r in played), 1),
        "created_at": session.created_at.isoformat(),
        "finished_at": session.finished_at.isoformat() if session.finished_at else None,
    }
