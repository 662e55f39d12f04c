"""A player's history across games (docs/rules.md §6.25): plays linked to a learner account, each finished game's
total, percentage and rank, the points lost by cause, and the tops the player missed, in club games and in their
finished solo practice and topping sessions (for the "From my games" deck, §7.12, which the study service fills:
this service only says which rounds).

A linked player's figures in a finished game are worked out once and kept (:class:`PlayerRecord`), with the id of
the game's last event: a correction made after the end moves it, and the figures are worked out again. A history
of 500 games is then a few reads (``bench/history.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import exists, func, select
from sqlalchemy.exc import IntegrityError

from ..core.accounts import Learner
from ..core.database import db
from ..core.errors import Refused
from ..duplicate.lostpoints import CAUSES, classify
from ..duplicate.rounds import GameStatus, RoundStatus
from ..engine.board import Board
from ..engine.notation import parse_move
from ..engine.rules import Notation, Ruleset, ruleset
from . import practice, service
from .models import Correction, Event, Game, Player, PlayerRecord, PracticeRound, PracticeSession, Result, Round

DEFAULT_LAST = 10  # games the breakdown of points lost looks back on, unless the learner chooses
FEEDS = ("tops", "bingos", "off")  # learner.from_games: which missed tops become cards (§7.12)


# --- linking ----------------------------------------------------------------------------------------


def link(player: Player, learner: Learner) -> bool:
    """Link ``player``'s plays to ``learner`` (the caller has checked that this browser is that player and is
    logged in as that learner). Whether anything changed; refused when the plays are another account's
    (``player_linked``) or the account has another player in this game (``learner_in_game``)."""
    if player.learner_id == learner.id:
        return False
    if player.learner_id is not None:
        raise Refused("player_linked", "these plays are linked to another account")
    other = db.session.execute(
        select(Player.id).where(Player.game_id == player.game_id, Player.learner_id == learner.id)
    ).first()
    if other is not None:
        raise Refused("learner_in_game", "your account has another player in this game")
    service.check_no_other_room(player.game, None, learner_id=learner.id)  # one room of an event (§6.22)
    player.learner_id = learner.id
    db.session.commit()
    return True


def known_players(director_id: int) -> list[str]:
    """The names of the learner accounts linked to a player of this director's games: the club's known players."""
    rows = db.session.execute(
        select(Learner.username)
        .join(Player, Player.learner_id == Learner.id)
        .join(Game, Game.id == Player.game_id)
        .where(Game.director_id == director_id)
        .distinct()
        .order_by(Learner.username)
    ).scalars()
    return list(rows)


# --- figures ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MissedTop:
    """A round whose top a linked player did not find, with what a card needs (§7.12)."""

    learner_id: int
    game_id: int  # the club game's id, or the practice session's
    round_id: int | None  # the club game's round; None for a practice session's round
    round_number: int
    lexicon: str
    rack: str
    top: str
    word: str  # the top's main word, upper case (a blank as the letter it stands for)
    bingo: bool
    stem: str | None  # a bingo's stem: the word less one letter (§7.12)
    cause: str
    practice_round_id: int | None = None  # a solo practice or topping session's round (§6.27, §6.28)
    kind: str = "club"  # "club", or the practice session's kind: "solo" or "topping"


def stem_of(word: str, blank_letters: Sequence[str], through: Sequence[str]) -> str:
    """A bingo's stem (§7.12): the word's letters less the letter a blank stood for, or else less the board's letter
    it was played through, or else less the last letter in alphabetical order; sorted."""
    letters = sorted(word.upper())
    drop = blank_letters[0] if blank_letters else through[0] if through else letters[-1]
    letters.remove(drop.upper())
    return "".join(letters)


def _last_events(game_ids: Sequence[int]) -> dict[int, int]:
    if not game_ids:
        return {}
    rows = db.session.execute(
        select(Event.game_id, func.max(Event.id)).where(Event.game_id.in_(game_ids)).group_by(Event.game_id)
    )
    return {game_id: int(last or 0) for game_id, last in rows}


REFRESH_BATCH = 100  # games worked out in one request at most; the rest on the next (a first visit after many)


def refresh(learner: Learner) -> int:
    """Work out the figures of the learner's finished games not yet recorded, or changed since, at most
    :data:`REFRESH_BATCH` of them (oldest first); how many are left for later. Committed.

    What is kept is checked in two light reads (the linked players of finished games without figures; the figures
    whose game has an event past them, one index seek a game), so a history whose figures are all kept costs a few
    milliseconds."""
    unseen = db.session.execute(
        select(Player.id)
        .join(Game, Game.id == Player.game_id)
        .where(
            Player.learner_id == learner.id,
            Game.status == GameStatus.FINISHED,
            ~exists().where(PlayerRecord.player_id == Player.id),
        )
        .order_by(Game.created_at, Player.id)
    ).scalars()
    moved = db.session.execute(  # a correction or a ruling after the end: an event past the one the figures saw
        select(PlayerRecord.player_id).where(
            PlayerRecord.learner_id == learner.id,
            exists().where(Event.game_id == PlayerRecord.game_id, Event.id > PlayerRecord.version),
        )
    ).scalars()
    stale = [*unseen, *moved]
    if not stale:
        return 0
    now, later = stale[:REFRESH_BATCH], len(stale) - REFRESH_BATCH
    pairs = db.session.execute(
        select(Player, Game).join(Game, Game.id == Player.game_id).where(Player.id.in_(now))
    ).all()
    records = {
        record.player_id: record
        for record in db.session.execute(select(PlayerRecord).where(PlayerRecord.player_id.in_(now))).scalars()
    }
    versions = _last_events([game.id for _, game in pairs])
    results = service.results_of_games([game for _, game in pairs])
    for player, game in pairs:
        losses, _ = _losses(game, player)
        record = records.get(player.id)
        if record is None:
            record = PlayerRecord(player_id=player.id, learner_id=learner.id, game_id=game.id, carded=False)
        standing = next((s for s in results[game.id].standings if s.player == player.name), None)
        closed = [r for r in game.rounds if r.status == RoundStatus.CLOSED]
        record.version = versions.get(game.id, 0)
        record.played_at = max((r.closed_at for r in closed if r.closed_at is not None), default=game.created_at)
        record.total = standing.total if standing is not None else 0
        record.top_total = sum(r.top_score or 0 for r in closed)
        record.percentage = f"{standing.percentage:.2f}" if standing is not None else "0.00"
        record.rank = standing.rank if standing is not None else None
        record.players = len(results[game.id].standings)
        record.rounds = len(closed)
        record.losses = losses
        db.session.add(record)
    try:
        db.session.commit()
    except IntegrityError:  # another request of the learner's recorded the same game at this moment: theirs stands
        db.session.rollback()
    return max(0, later)


def take_missed(learner: Learner) -> list[MissedTop]:
    """The tops missed in the learner's recorded games and finished practice sessions that the "From my games" deck
    has not had yet, each game and session marked as had (the caller commits, with the cards)."""
    missed: list[MissedTop] = []
    rows = db.session.execute(
        select(PlayerRecord, Player, Game)
        .join(Player, Player.id == PlayerRecord.player_id)
        .join(Game, Game.id == PlayerRecord.game_id)
        .where(PlayerRecord.learner_id == learner.id, PlayerRecord.carded.is_(False))
    ).all()
    for record, player, game in rows:
        missed.extend(_losses(game, player)[1])
        record.carded = True
    missed.extend(_take_practice(learner))
    return missed


def _take_practice(learner: Learner) -> list[MissedTop]:
    """The tops missed in the learner's finished practice sessions not taken yet (§7.12), each session marked as
    taken (the caller commits, with the cards). A solo round whose top was not found gives its cause as a club
    round does (§6.25, computed from the round's board, its top and the learner's play; a late play is a missing
    one, ``same_word`` gives no card); a topping round not found (given up, or out of time) gives ``missing``; a
    round found, or not over for the learner when the session ended, gives nothing."""
    missed: list[MissedTop] = []
    sessions = db.session.execute(
        select(PracticeSession).where(
            PracticeSession.learner_id == learner.id,
            PracticeSession.status == practice.FINISHED,
            PracticeSession.carded.is_(False),
        )
    ).scalars()
    for session in sessions:
        rules = ruleset(session.rules)
        notation: Notation = "french" if session.notation == "french" else "english"
        over = db.session.execute(
            select(PracticeRound)
            .where(PracticeRound.session_id == session.id, PracticeRound.answered_at.is_not(None))
            .order_by(PracticeRound.number)
        ).scalars()
        for round_ in over:
            top = round_.placed_move or (round_.tops or [""])[0]
            if not top:
                continue
            if session.kind == practice.TOPPING:
                cause: str | None = None if round_.found else "missing"
            else:
                move = None if round_.late else round_.move
                cause = classify(
                    rules, round_.board_before, notation, top, round_.top_score, move, bool(round_.valid), round_.score
                ).cause
            if cause is None or cause == "same_word":
                continue
            card = _missed_top(rules, notation, round_.board_before, top)
            if card is None:
                continue
            word, bingo, stem = card
            missed.append(
                MissedTop(
                    learner_id=learner.id,
                    game_id=session.id,
                    round_id=None,
                    round_number=round_.number,
                    lexicon=session.lexicon,
                    rack=round_.rack,
                    top=top,
                    word=word,
                    bingo=bingo,
                    stem=stem,
                    cause=cause,
                    practice_round_id=round_.id,
                    kind=session.kind,
                )
            )
        session.carded = True
    return missed


def _losses(game: Game, player: Player) -> tuple[dict[str, list[int]], list[MissedTop]]:
    """The player's points lost in ``game`` by cause ({cause: [points, rounds]}) and the rounds whose top they
    missed."""
    rules = ruleset(game.rules)
    notation: Notation = "french" if game.notation == "french" else "english"
    closed = [r for r in game.rounds if r.status == RoundStatus.CLOSED]
    ids = [r.id for r in closed]
    results = {
        row.round_id: row
        for row in db.session.execute(
            select(Result).where(Result.player_id == player.id, Result.round_id.in_(ids))
        ).scalars()
    }
    corrected: dict[int, int] = {}
    for row in db.session.execute(
        select(Correction)
        .where(Correction.player_id == player.id, Correction.round_id.in_(ids))
        .order_by(Correction.id)
    ).scalars():
        corrected[row.round_id] = row.score  # the latest counts (§6.12)
    losses: dict[str, list[int]] = {}
    missed: list[MissedTop] = []
    for round_ in closed:
        top = round_.placed_move or (round_.tops or [""])[0]
        result = results.get(round_.id)
        score = corrected.get(round_.id, result.score if result is not None else 0)
        move = result.move if result is not None else None
        valid = result.valid if result is not None else False
        loss = classify(rules, round_.board_before, notation, top, round_.top_score or 0, move, valid, score)
        if loss.cause is None:
            continue
        points, count = losses.get(loss.cause, [0, 0])
        losses[loss.cause] = [points + loss.points, count + 1]
        absent = round_.closed_at is not None and player.joined_at > round_.closed_at  # joined after this round
        if absent or loss.cause == "same_word" or not top:
            continue
        card = _missed_top(rules, notation, round_.board_before, top)
        if card is not None:
            word, bingo, stem = card
            missed.append(
                MissedTop(
                    learner_id=player.learner_id or 0,
                    game_id=game.id,
                    round_id=round_.id,
                    round_number=round_.number,
                    lexicon=game.lexicon,
                    rack=round_.rack,
                    top=top,
                    word=word,
                    bingo=bingo,
                    stem=stem,
                    cause=loss.cause,
                )
            )
    return losses, missed


def _missed_top(rules: Ruleset, notation: Notation, board_cells: str, top: str) -> tuple[str, bool, str | None] | None:
    """What a card of a missed ``top`` needs: its main word (upper case), whether it is a bingo, and a bingo's stem;
    None when the stored top does not read (no card rather than a wrong one)."""
    board = Board(rules.layout, list(board_cells))
    try:
        best = parse_move(top, board, notation)
    except Exception:
        return None
    bingo = len(best.tiles) == rules.rack_size
    placed = {(t.row, t.col) for t in best.tiles}
    step = (0, 1) if best.horizontal else (1, 0)
    squares = [(best.row + step[0] * i, best.col + step[1] * i) for i in range(len(best.word))]
    through = [board.at(r, c).upper() for r, c in squares if (r, c) not in placed]
    blanks = [t.letter for t in best.tiles if t.blank]
    word = best.word.upper()
    return word, bingo, stem_of(word, blanks, through) if bingo else None


def missed_tops(game: Game, player: Player) -> list[MissedTop]:
    """The rounds of ``game`` whose top ``player`` missed (tests, and a game seen again)."""
    return _losses(game, player)[1]


@dataclass(frozen=True)
class GameLine:
    game_id: int
    played_at: datetime
    lexicon: str
    total: int
    top_total: int
    percentage: str
    rank: int | None
    players: int
    rounds: int
    join_code: str  # how the player knew the game (its number is the database's)


@dataclass(frozen=True)
class History:
    """A learner's games, oldest first, and the points lost by cause over the last ``last`` of them."""

    games: list[GameLine]
    last: int
    losses: list[tuple[str, int, int]]  # (cause, points, rounds), in the order of CAUSES

    @property
    def lost(self) -> int:
        return sum(points for _, points, _ in self.losses)


def history(learner: Learner, last: int = DEFAULT_LAST) -> History:
    """The learner's recorded games and the breakdown over the last ``last`` (call :func:`refresh` first)."""
    rows = db.session.execute(
        select(
            PlayerRecord.game_id,
            PlayerRecord.played_at,
            Game.lexicon,
            PlayerRecord.total,
            PlayerRecord.top_total,
            PlayerRecord.percentage,
            PlayerRecord.rank,
            PlayerRecord.players,
            PlayerRecord.rounds,
            Game.join_code,
        )
        .join(Game, Game.id == PlayerRecord.game_id)
        .where(PlayerRecord.learner_id == learner.id)
        .order_by(PlayerRecord.played_at, PlayerRecord.id)
    ).all()
    games = [GameLine(**row._mapping) for row in rows]  # the columns are named as the fields
    totals: dict[str, list[int]] = {}
    if last > 0:
        for losses in db.session.execute(
            select(PlayerRecord.losses)
            .where(PlayerRecord.learner_id == learner.id)
            .order_by(PlayerRecord.played_at.desc(), PlayerRecord.id.desc())
            .limit(last)
        ).scalars():
            for cause, (points, count) in losses.items():
                sums = totals.setdefault(cause, [0, 0])
                sums[0] += points
                sums[1] += count
    breakdown = [(cause, totals.get(cause, [0, 0])[0], totals.get(cause, [0, 0])[1]) for cause in CAUSES]
    return History(games, last, breakdown)


@dataclass(frozen=True)
class RoundContext:
    """Where a card of the "From my games" deck came from (§7.12): the game, the round, its draw and its top."""

    game_id: int  # the club game's id, or the practice session's
    round_number: int
    draw: str
    top: str
    top_score: int
    kind: str = "club"  # "club", or the practice session's kind: "solo" or "topping"


def round_contexts(round_ids: Sequence[int]) -> dict[int, RoundContext]:
    """Each round's context, by round id."""
    if not round_ids:
        return {}
    rows = db.session.execute(
        select(Round.id, Round.game_id, Round.number, Round.draw_record, Round.placed_move, Round.top_score).where(
            Round.id.in_(round_ids)
        )
    ).all()
    return {
        round_id: RoundContext(game_id, number, draw, top or "", top_score or 0)
        for round_id, game_id, number, draw, top, top_score in rows
    }


def practice_round_contexts(practice_round_ids: Sequence[int]) -> dict[int, RoundContext]:
    """Each practice session's round's context, by practice round id (the session's id as ``game_id``)."""
    if not practice_round_ids:
        return {}
    rows = db.session.execute(
        select(
            PracticeRound.id,
            PracticeRound.session_id,
            PracticeSession.kind,
            PracticeRound.number,
            PracticeRound.draw_record,
            PracticeRound.placed_move,
            PracticeRound.top_score,
        )
        .join(PracticeSession, PracticeSession.id == PracticeRound.session_id)
        .where(PracticeRound.id.in_(practice_round_ids))
    ).all()
    return {
        round_id: RoundContext(session_id, number, draw, top or "", top_score or 0, kind)
        for round_id, session_id, kind, number, draw, top, top_score in rows
    }
