"""Running duplicate games on the database.

Every transition is a guarded ``UPDATE ... WHERE status = ...`` whose row count says whether this
caller made it, so a second scheduler, a retried job or a restart never closes a round twice. A
submission takes the same round row as the close (``UPDATE round SET submissions = ... WHERE
status = 'open' AND deadline > now``), so the two are serialised by the database: a submission is
either committed before the close reads the submissions, or refused as late. Every accepted
submission is committed before the server answers.

Tops and the score of every legal play are computed when a round opens (while players think) and
kept out of every answer until the round closes.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import current_app
from sqlalchemy import distinct, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..duplicate.draw import Bag, DrawRule, GameOverError, reliquat_after
from ..duplicate.results import Correction as CorrectionRecord
from ..duplicate.results import GameResults, RoundRecord, SoloRule, score_game
from ..duplicate.results import Submission as SubmissionRecord
from ..duplicate.tiebreak import order_tops
from ..engine.board import Board
from ..engine.errors import EngineError
from ..engine.lexicon import Lexicon
from ..engine.movegen import generate_moves
from ..engine.notation import format_move, parse_move
from ..engine.play import evaluate
from ..engine.rules import Notation, Ruleset, ruleset
from ..extensions import db, lexicon_store
from .models import Correction, Director, Event, Game, Player, Result, Round, Submission, utcnow

JOIN_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread on a projector
JOIN_CODE_LENGTH = 6

# Called as planner(kind, game_id, round_number, when) after a transition sets a new deadline, so
# an in-process scheduler can fire on time; the scheduler's sweep catches anything it misses.
Planner = Callable[[str, int, int, datetime], None]
PLANNER_KEY = "tirage.planner"
BEST_PLAYS_KEPT = 12  # the best plays of a round, shown at its reveal (tops and next best)
# Key in Session.info: games whose events this transaction wrote with plain INSERTs (trainer.live.notify
# wakes their event streams after the commit; events added as objects are noticed by themselves).
EVENTS_WRITTEN_KEY = "tirage.event_games"


class GameError(Exception):
    """A request the game cannot take now, with the HTTP status that says why.

    ``code`` and ``params`` name the problem for the pages, which say it in the reader's language
    (``trainer.web.messages``); ``engine`` is the engine's own error when a play was refused.
    """

    def __init__(
        self,
        message: str,
        status: int = 409,
        code: str = "refused",
        engine: EngineError | None = None,
        **params: object,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.engine = engine
        self.params = params


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _plan(kind: str, game_id: int, number: int, when: datetime) -> None:
    planner: Planner | None = current_app.extensions.get(PLANNER_KEY)
    if planner is not None:
        planner(kind, game_id, number, when)


def log(game_id: int, kind: str, data: dict[str, Any], author: str, now: datetime | None = None) -> None:
    """Append to the game's event log (the caller commits with the change it describes)."""
    db.session.add(Event(game_id=game_id, kind=kind, data=data, author=author, created_at=now or utcnow()))


# --- settings ------------------------------------------------------------------------------------


def _int_setting(
    data: dict[str, Any], key: str, default: int | None, low: int, high: int, allow_none: bool = False
) -> int | None:
    value = data.get(key, default)
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        more = " or null" if allow_none else ""
        raise GameError(
            f"'{key}' must be a whole number from {low} to {high}{more}", 422, code="bad_setting", setting=key
        )
    return value


def game_settings(data: object) -> dict[str, Any]:
    """Validated game settings from a request, defaults of GAME-RULES.md section 6 filled in."""
    if not isinstance(data, dict):
        raise GameError("the settings must be a JSON object", 422, code="bad_setting", setting="settings")
    rules_code = data.get("rules", "en")
    try:
        rules = ruleset(rules_code) if isinstance(rules_code, str) else None
    except ValueError as exc:
        raise GameError(str(exc), 422, code="bad_setting", setting="rules") from None
    if rules is None:
        raise GameError("'rules' must be a string such as \"en\"", 422, code="bad_setting", setting="rules")
    lexicon_name = data.get("lexicon", rules.lexicon)
    catalogue = lexicon_store().catalogue()
    if not isinstance(lexicon_name, str) or lexicon_name not in catalogue:
        raise GameError(
            f"unknown lexicon {lexicon_name!r} (known: {', '.join(sorted(catalogue))})",
            422,
            code="bad_setting",
            setting="lexicon",
        )
    if catalogue[lexicon_name]["rules"] != rules.code:
        raise GameError(
            f"lexicon {lexicon_name!r} is for rules {catalogue[lexicon_name]['rules']!r}",
            422,
            code="lexicon_rules",
            lexicon=lexicon_name,
            rules=catalogue[lexicon_name]["rules"],
        )
    notation = data.get("notation", rules.notation)
    if notation not in ("english", "french"):
        raise GameError('\'notation\' must be "english" or "french"', 422, code="bad_setting", setting="notation")
    draw = data.get("draw_rule", {})
    if not isinstance(draw, dict):
        raise GameError("'draw_rule' must be an object", 422, code="bad_setting", setting="draw_rule")
    defaults = asdict(DrawRule())
    unknown = sorted(set(draw) - set(defaults))
    if unknown:
        raise GameError(
            f"unknown draw_rule setting {unknown[0]!r} (known: {', '.join(defaults)})",
            422,
            code="bad_setting",
            setting="draw_rule",
        )
    rule = {key: draw.get(key, default) for key, default in defaults.items()}
    for key, value in rule.items():
        expected = bool if key == "blanks_either" else int
        if not isinstance(value, expected) or (expected is int and (isinstance(value, bool) or not 0 <= value <= 30)):
            raise GameError(
                f"draw_rule '{key}' must be {'true or false' if expected is bool else 'from 0 to 30'}",
                422,
                code="bad_setting",
                setting=key,
            )
    try:
        Bag(rules, DrawRule(**rule), seed=0)
    except ValueError as exc:
        raise GameError(str(exc), 422, code="impossible_draw_rule") from None
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
        raise GameError(
            "'seed' must be a whole number from 0 to 2^63 - 1, or left out", 422, code="bad_setting", setting="seed"
        )
    return {
        "rules": rules.code,
        "lexicon": lexicon_name,
        "notation": notation,
        "round_seconds": _int_setting(data, "round_seconds", 180, 10, 3600),
        "reveal_seconds": _int_setting(data, "reveal_seconds", 30, 0, 3600, allow_none=True),
        "draw_rule": rule,
        "solo_bonus": _int_setting(data, "solo_bonus", 10, 0, 100),
        "solo_min_players": _int_setting(data, "solo_min_players", 16, 1, 100_000),
        "seed": seed if seed is not None else secrets.randbits(63),
        "max_rounds": _int_setting(data, "max_rounds", None, 1, 100, allow_none=True),
    }


# --- games and players ---------------------------------------------------------------------------


def create_game(director: Director, data: object) -> Game:
    settings = game_settings(data)
    rules = ruleset(settings["rules"])
    for _ in range(20):
        code = "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))
        if db.session.execute(select(Game.id).where(Game.join_code == code)).first() is None:
            break
    game = Game(join_code=code, director_id=director.id, board="".join(Board.empty(rules).cells), **settings)
    db.session.add(game)
    db.session.flush()
    log(game.id, "created", {"settings": {k: v for k, v in settings.items()}}, director.username)
    db.session.commit()
    return game


def join_game(code: object, name: object) -> tuple[Player, str]:
    """A new player of the game with join code ``code``, and their token (shown once)."""
    if not isinstance(code, str) or not code.strip():
        raise GameError("'code' is missing: give the game's join code", 422, code="code_missing")
    if not isinstance(name, str) or not 1 <= len(name.strip()) <= 40:
        raise GameError("'name' must be 1 to 40 characters", 422, code="bad_name")
    game = db.session.execute(select(Game).where(Game.join_code == code.strip().upper())).scalar_one_or_none()
    if game is None:
        raise GameError(
            f"no game has the code {code.strip().upper()!r}", 404, code="unknown_code", join_code=code.strip().upper()
        )
    if game.status == "finished":
        raise GameError("this game is finished", 409, code="game_finished")
    name = " ".join(name.split())
    taken = db.session.execute(select(Player.id).where(Player.game_id == game.id, Player.name == name)).first()
    if taken is not None:
        raise GameError(f"the name {name!r} is taken in this game: choose another", 409, code="name_taken", name=name)
    token = secrets.token_urlsafe(24)
    player = Player(game_id=game.id, name=name, token_hash=hash_token(token))
    db.session.add(player)
    try:
        db.session.flush()
    except IntegrityError:  # the same name joined a moment ago, between the check and here
        db.session.rollback()
        raise GameError(
            f"the name {name!r} is taken in this game: choose another", 409, code="name_taken", name=name
        ) from None
    log(game.id, "joined", {"players": player_count(game)}, name)
    db.session.commit()
    return player, token


def player_for_token(token: str) -> Player | None:
    return db.session.execute(select(Player).where(Player.token_hash == hash_token(token))).scalar_one_or_none()


def _rules(game: Game) -> Ruleset:
    return ruleset(game.rules)


def _lexicon(game: Game) -> Lexicon:
    return lexicon_store().load(game.lexicon)


def _board(game: Game, cells: str) -> Board:
    return Board(_rules(game).layout, list(cells))


def board_rows(game: Game, cells: str | None = None) -> list[str]:
    return _board(game, cells if cells is not None else game.board).rows()


def _notation(game: Game) -> Notation:
    return "french" if game.notation == "french" else "english"


# --- rounds ---------------------------------------------------------------------------------------


def current_round(game: Game) -> Round | None:
    if game.round_number == 0:
        return None
    return db.session.execute(
        select(Round).where(Round.game_id == game.id, Round.number == game.round_number)
    ).scalar_one_or_none()


def _replayed_bag(game: Game) -> tuple[Bag, str]:
    """The bag as it stands after the rounds played, rebuilt from the seed, and the reliquat."""
    rules = _rules(game)
    bag = Bag(rules, DrawRule(**game.draw_rule), seed=game.seed)
    reliquat = ""
    for played in game.rounds:
        draw = bag.draw(played.reliquat, played.number)
        if sorted(draw.rack) != sorted(played.rack):  # the stored game and the seed disagree: never guess
            raise RuntimeError(f"game {game.id} round {played.number}: replay drew {draw.rack}, stored {played.rack}")
        if played.placed_move is None:
            raise RuntimeError(f"game {game.id} round {played.number} has no placed play")
        move = parse_move(played.placed_move, _board(game, played.board_before), _notation(game))
        reliquat = reliquat_after(played.rack, move)
    return bag, reliquat


def _finish(game: Game, reason: str, author: str, now: datetime) -> None:
    game.status = "finished"
    game.end_reason = reason
    game.next_round_at = None
    log(game.id, "finished", {"reason": reason, "rounds": len(game.rounds)}, author, now)


def _open_round(game: Game, author: str, now: datetime) -> Round | None:
    """Draw and open the next round, or finish the game when §6 says it is over."""
    number = game.round_number + 1
    if game.max_rounds is not None and number > game.max_rounds:
        _finish(game, "max_rounds", author, now)
        return None
    bag, reliquat = _replayed_bag(game)
    try:
        draw = bag.draw(reliquat, number)
    except GameOverError as over:
        _finish(game, str(over.reason), author, now)
        return None
    rules, lexicon = _rules(game), _lexicon(game)
    board = _board(game, game.board)
    moves = generate_moves(board, rules, lexicon, draw.rack)
    if not moves:
        _finish(game, "no_legal_play", author, now)
        return None
    top_score = max(m.score or 0 for m in moves)
    tops = order_tops([m for m in moves if m.score == top_score], draw.rack)
    scores = Counter(m.score or 0 for m in moves)
    best = sorted(moves, key=lambda m: -(m.score or 0))[:BEST_PLAYS_KEPT]
    deadline = now + timedelta(seconds=game.round_seconds)
    round_ = Round(
        game_id=game.id,
        number=number,
        rack=draw.rack,
        reliquat=draw.reliquat,
        draw_record=draw.record,
        board_before=game.board,
        status="open",
        started_at=now,
        deadline=deadline,
        top_score=top_score,
        tops=[format_move(m, _notation(game)) for m in tops],
        legal_scores=[[score, count] for score, count in sorted(scores.items(), reverse=True)],
        best_plays=[[format_move(m, _notation(game)), m.score or 0] for m in best],
    )
    db.session.add(round_)
    game.round_number = number
    game.status = "playing"
    game.next_round_at = None
    log(
        game.id,
        "round_started",
        {"round": number, "rack": draw.rack, "draw": draw.record, "deadline": deadline.isoformat()},
        author,
        now,
    )
    return round_


def start_game(game: Game, author: str, now: datetime | None = None) -> Round | None:
    now = now or utcnow()
    done = db.session.execute(update(Game).where(Game.id == game.id, Game.status == "lobby").values(status="starting"))
    if done.rowcount != 1:  # type: ignore[attr-defined]
        db.session.rollback()
        raise GameError("the game has already started", 409, code="already_started")
    db.session.refresh(game)
    round_ = _open_round(game, author, now)
    db.session.commit()
    if round_ is not None and round_.deadline is not None:
        _plan("close", game.id, round_.number, round_.deadline)
    return round_


@dataclass(frozen=True)
class AcceptedPlay:
    """A play as it was taken: canonical notation, score as placed, when the server received it."""

    move: str
    score_as_placed: int
    received_at: datetime


@dataclass(frozen=True)
class RoundPlaying:
    """What judging a play of a round needs. None of it changes once the round exists (its rack, the board
    it is played on, the game's rules), so a web process may keep it for the round's whole life."""

    game_id: int
    number: int
    round_id: int
    rack: str
    board: Board
    rules: Ruleset
    lexicon: Lexicon
    notation: Notation


@dataclass(frozen=True)
class PendingPlay:
    """A play judged legal in its placement, not yet written: :func:`store_plays` decides whether it is on time."""

    playing: RoundPlaying
    player_id: int
    player_name: str
    move: str
    score_as_placed: int
    received_at: datetime


def round_playing(game: Game, number: int) -> RoundPlaying:
    """Round ``number`` of ``game`` as plays are judged against it; refused when it has not started or is over.

    Whether it is still open when a play is written is for :func:`store_plays` to say."""
    round_ = db.session.execute(
        select(Round).where(Round.game_id == game.id, Round.number == number)
    ).scalar_one_or_none()
    if round_ is None:
        raise GameError(
            f"round {number} has not started",
            404 if number > game.round_number else 409,
            code="round_not_started",
            round=number,
        )
    if round_.status == "closed" or number != game.round_number:
        raise GameError(f"round {number} is closed", 409, code="round_closed", round=number)
    return RoundPlaying(
        game.id,
        number,
        round_.id,
        round_.rack,
        _board(game, round_.board_before),
        _rules(game),
        _lexicon(game),
        _notation(game),
    )


def judge(playing: RoundPlaying, text: object) -> tuple[str, int]:
    """The play in canonical notation and its score as placed; placement errors are refused (422), word
    validity is not looked at before the close. Pure engine work: no database."""
    if not isinstance(text, str):
        raise GameError("'move' is missing: give a play such as \"8D TRAIN\"", 422, code="move_missing")
    try:
        move = parse_move(text, playing.board, playing.notation)
        evaluation = evaluate(playing.board, playing.rules, playing.lexicon, move, playing.rack, playing.notation)
    except EngineError as exc:
        raise GameError(str(exc), 422, code="illegal_play", engine=exc) from None
    return format_move(evaluation.move, playing.notation), evaluation.score


def _round_closed(number: int) -> GameError:
    return GameError(f"round {number} is closed", 409, code="round_closed", round=number)


def _taken(round_id: int, received_at: datetime) -> bool:
    """Take the round row for plays received up to ``received_at``, if it was still open then. Taking the row
    serialises the plays with the close: see the module docstring."""
    taken = db.session.execute(
        update(Round)
        .where(
            Round.id == round_id,
            Round.status.in_(("open", "paused")),
            (Round.deadline.is_(None)) | (Round.deadline > received_at),
        )
        .values(status=Round.status)
    )
    return bool(taken.rowcount == 1)  # type: ignore[attr-defined]


def store_plays(plays: Sequence[PendingPlay]) -> list[AcceptedPlay | GameError]:
    """Write ``plays`` in one transaction, each with its ``submission`` event; for each, what it became.

    A play received before its round's deadline (or while the round was paused) is taken, any other is
    refused as late. One transaction for a burst of plays costs one commit (and on SQLite one fsync)
    instead of one each, which is what lets one process keep up with a room's last seconds. Committed
    before it returns: nobody is told a play is taken before it is on disk.
    """
    outcome: list[AcceptedPlay | GameError] = [_round_closed(play.playing.number) for play in plays]
    by_round: dict[int, list[int]] = {}
    for index, play in enumerate(plays):
        by_round.setdefault(play.playing.round_id, []).append(index)
    submissions: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    for round_id, indexes in by_round.items():
        latest = max(plays[i].received_at for i in indexes)
        if _taken(round_id, latest):
            on_time = indexes
        else:  # the deadline fell within this burst, or the round is over: each play on its own time
            on_time = [i for i in indexes if _taken(round_id, plays[i].received_at)]
        if not on_time:
            continue
        players = {plays[i].player_id for i in on_time}
        seen = set(
            db.session.execute(
                select(Submission.player_id)
                .distinct()
                .where(Submission.round_id == round_id, Submission.player_id.in_(players))
            ).scalars()
        )
        count = int(
            db.session.execute(
                select(func.count(distinct(Submission.player_id))).where(Submission.round_id == round_id)
            ).scalar_one()
        )
        for i in on_time:
            play = plays[i]
            if play.player_id not in seen:
                seen.add(play.player_id)
                count += 1
            submissions.append(
                {
                    "round_id": round_id,
                    "player_id": play.player_id,
                    "move": play.move,
                    "score_as_placed": play.score_as_placed,
                    "received_at": play.received_at,
                }
            )
            events.append(
                {
                    "game_id": play.playing.game_id,
                    "kind": "submission",
                    "author": play.player_name,
                    "data": {"round": play.playing.number, "submissions": count},
                    "created_at": play.received_at,
                }
            )
            outcome[i] = AcceptedPlay(play.move, play.score_as_placed, play.received_at)
    if submissions:
        # Core INSERTs on the tables (not ORM objects, not even the ORM's bulk path): this runs for every play
        # of a room in the last seconds of a round.
        db.session.execute(insert(Submission.__table__), submissions)
        db.session.execute(insert(Event.__table__), events)
        db.session.info.setdefault(EVENTS_WRITTEN_KEY, set()).update(event["game_id"] for event in events)
    db.session.commit()
    return outcome


def submit(game: Game, player: Player, number: int, text: object, now: datetime | None = None) -> AcceptedPlay:
    """Record ``player``'s play for round ``number``; placement errors are refused at once (422),
    word validity is not looked at before the close. Plays are taken while the round is paused
    too: a pause stops the clock, not the players' thinking."""
    now = now or utcnow()
    if player.game_id != game.id:
        raise GameError("this token is not for this game", 403, code="wrong_game")
    if not isinstance(text, str):
        raise GameError("'move' is missing: give a play such as \"8D TRAIN\"", 422, code="move_missing")
    playing = round_playing(game, number)
    move, score = judge(playing, text)
    (outcome,) = store_plays([PendingPlay(playing, player.id, player.name, move, score, now)])
    if isinstance(outcome, GameError):
        raise outcome
    return outcome


def last_submission(round_: Round, player_id: int) -> Submission | None:
    """The play that counts for this player in this round: their last one."""
    return db.session.execute(
        select(Submission)
        .where(Submission.round_id == round_.id, Submission.player_id == player_id)
        .order_by(Submission.id.desc())
        .limit(1)
    ).scalar_one_or_none()


def submission_count(round_: Round) -> int:
    """How many players have handed in a play (counted by the database: this runs on every submission)."""
    return int(
        db.session.execute(
            select(func.count(distinct(Submission.player_id))).where(Submission.round_id == round_.id)
        ).scalar_one()
    )


def player_count(game: Game) -> int:
    return int(db.session.execute(select(func.count(Player.id)).where(Player.game_id == game.id)).scalar_one())


def close_round(game_id: int, number: int, author: str, now: datetime | None = None, early: bool = False) -> bool:
    """Close round ``number`` if it is still open and due (or ``early``, by the director).

    Returns whether this call closed it. Judges each player's last submission, places the first
    top of the tie-break, and starts the reveal pause.
    """
    now = now or utcnow()
    condition = [Round.game_id == game_id, Round.number == number]
    if early:
        condition.append(Round.status.in_(("open", "paused")))
    else:
        condition += [Round.status == "open", Round.deadline <= now]
    done = db.session.execute(update(Round).where(*condition).values(status="closed", closed_at=now))
    if done.rowcount != 1:  # type: ignore[attr-defined]
        db.session.rollback()
        return False
    game = db.session.get(Game, game_id)
    round_ = db.session.execute(select(Round).where(*condition[:2])).scalar_one()
    assert game is not None
    db.session.refresh(round_)
    rules, lexicon = _rules(game), _lexicon(game)
    board = _board(game, round_.board_before)
    # Rows, not ORM objects, in and out: a room of 10,000 hands in some 20,000 plays.
    last: dict[int, str] = {}
    for player_id, move in db.session.execute(
        select(Submission.player_id, Submission.move).where(Submission.round_id == round_.id).order_by(Submission.id)
    ):
        last[player_id] = move
    score_counts = round_.legal_scores or []  # [score, how many legal plays score it]
    results: list[dict[str, Any]] = []
    for player_id, move in last.items():
        evaluation = evaluate(board, rules, lexicon, move, round_.rack, _notation(game))
        better = sum(count for score, count in score_counts if score > evaluation.score)
        rank = 1 + better if evaluation.valid else None
        results.append(
            {
                "round_id": round_.id,
                "player_id": player_id,
                "move": move,
                "score": evaluation.score if evaluation.valid else 0,
                "valid": evaluation.valid,
                "invalid_words": list(evaluation.invalid_words) or None,
                "rank": rank,
            }
        )
    if results:
        db.session.execute(insert(Result.__table__), results)
    tops = round_.tops or []
    round_.placed_move = tops[0]
    _place(game, round_)
    game.status = "revealing"
    game.next_round_at = now + timedelta(seconds=game.reveal_seconds) if game.reveal_seconds is not None else None
    log(
        game.id,
        "round_closed",
        {"round": number, "top_score": round_.top_score, "placed": round_.placed_move, "submissions": len(last)},
        author,
        now,
    )
    db.session.commit()
    if game.next_round_at is not None:
        _plan("next", game.id, number, game.next_round_at)
    return True


def _place(game: Game, round_: Round) -> None:
    board = _board(game, round_.board_before)
    assert round_.placed_move is not None
    board.place(parse_move(round_.placed_move, board, _notation(game)).tiles)
    game.board = "".join(board.cells)


def next_round(game_id: int, number: int, author: str, now: datetime | None = None) -> bool:
    """Start the round after ``number`` if the game is still revealing ``number``; returns whether
    this call did (idempotent, like :func:`close_round`)."""
    now = now or utcnow()
    done = db.session.execute(
        update(Game)
        .where(Game.id == game_id, Game.status == "revealing", Game.round_number == number)
        .values(status="starting")
    )
    if done.rowcount != 1:  # type: ignore[attr-defined]
        db.session.rollback()
        return False
    game = db.session.get(Game, game_id)
    assert game is not None
    db.session.refresh(game)
    round_ = _open_round(game, author, now)
    db.session.commit()
    if round_ is not None and round_.deadline is not None:
        _plan("close", game.id, round_.number, round_.deadline)
    return True


def close_now(game: Game, author: str, now: datetime | None = None) -> None:
    """The director closes the running round before its deadline."""
    round_ = current_round(game)
    if round_ is None or round_.status == "closed" or game.status not in ("playing", "paused"):
        raise GameError("no round is running", 409, code="not_running")
    if not close_round(game.id, round_.number, author, now, early=True):
        raise GameError("the round has just closed", 409, code="just_closed")


def advance(game: Game, author: str, now: datetime | None = None) -> None:
    """The director starts the next round without waiting for the end of the reveal pause."""
    if game.status != "revealing" or not next_round(game.id, game.round_number, author, now):
        raise GameError("the next round starts only after a round's reveal", 409, code="not_revealing")


def end_game(game: Game, author: str, now: datetime | None = None) -> None:
    """End the game now, at the director's word. A round in play is closed first, so its plays count."""
    now = now or utcnow()
    if game.status == "finished":
        raise GameError("the game is already over", 409, code="game_finished")
    round_ = current_round(game)
    if round_ is not None and round_.status != "closed":
        close_round(game.id, round_.number, author, now, early=True)
        db.session.refresh(game)
    # Guarded like every transition: the scheduler may start the next round at this very moment.
    done = db.session.execute(
        update(Game)
        .where(Game.id == game.id, Game.status.in_(("lobby", "revealing")))
        .values(status="finished", end_reason="director", next_round_at=None)
    )
    if done.rowcount != 1:  # type: ignore[attr-defined]
        db.session.rollback()
        raise GameError("the game changed at this moment: try again", 409, code="just_closed")
    log(game.id, "finished", {"reason": "director", "rounds": len(game.rounds)}, author, now)
    db.session.commit()
    db.session.refresh(game)


def pause(game: Game, author: str, now: datetime | None = None) -> None:
    now = now or utcnow()
    round_ = current_round(game)
    if game.status != "playing" or round_ is None or round_.status != "open" or round_.deadline is None:
        raise GameError("only a running round can be paused", 409, code="not_running")
    left = max(0.0, (round_.deadline - now).total_seconds())
    done = db.session.execute(
        update(Round)
        .where(Round.id == round_.id, Round.status == "open", Round.deadline > now)
        .values(status="paused", deadline=None, seconds_left_when_paused=left)
    )
    if done.rowcount != 1:  # type: ignore[attr-defined]
        db.session.rollback()
        raise GameError("the round has just closed", 409, code="just_closed")
    game.status = "paused"
    log(game.id, "paused", {"round": round_.number, "seconds_left": round(left, 1)}, author, now)
    db.session.commit()


def resume(game: Game, author: str, now: datetime | None = None) -> None:
    now = now or utcnow()
    round_ = current_round(game)
    if game.status != "paused" or round_ is None or round_.status != "paused":
        raise GameError("the game is not paused", 409, code="not_paused")
    deadline = now + timedelta(seconds=round_.seconds_left_when_paused or 0)
    round_.status, round_.deadline, round_.seconds_left_when_paused = "open", deadline, None
    game.status = "playing"
    log(game.id, "resumed", {"round": round_.number, "deadline": deadline.isoformat()}, author, now)
    db.session.commit()
    _plan("close", game.id, round_.number, deadline)


def extend(game: Game, seconds: object, author: str, now: datetime | None = None) -> None:
    now = now or utcnow()
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not 1 <= seconds <= 3600:
        raise GameError("'seconds' must be a whole number from 1 to 3600", 422, code="bad_seconds")
    round_ = current_round(game)
    if round_ is None or round_.status == "closed":
        raise GameError("there is no round running to extend", 409, code="not_running")
    if round_.status == "paused":
        round_.seconds_left_when_paused = (round_.seconds_left_when_paused or 0) + seconds
    else:
        assert round_.deadline is not None
        done = db.session.execute(
            update(Round)
            .where(Round.id == round_.id, Round.status == "open", Round.deadline > now)
            .values(deadline=round_.deadline + timedelta(seconds=seconds))
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            db.session.rollback()
            raise GameError("the round has just closed", 409, code="just_closed")
        db.session.refresh(round_)
    log(game.id, "extended", {"round": round_.number, "seconds": seconds}, author, now)
    db.session.commit()
    if round_.deadline is not None:
        _plan("close", game.id, round_.number, round_.deadline)


def choose_top(game: Game, number: int, move: object, author: str) -> None:
    """Place another of the round's tops instead (until the next round starts)."""
    round_ = current_round(game)
    if game.status != "revealing" or round_ is None or round_.number != number:
        raise GameError("another top can be chosen only during the reveal of the last round", 409, code="not_revealing")
    tops = round_.tops or []
    if move not in tops:
        raise GameError(
            f"{move!r} is not one of the round's tops ({', '.join(tops)})", 422, code="not_a_top", move=str(move)
        )
    round_.placed_move = str(move)
    _place(game, round_)
    log(game.id, "placed", {"round": number, "placed": round_.placed_move}, author)
    db.session.commit()


def correct(game: Game, number: int, player_id: object, score: object, reason: object, author: str) -> None:
    round_ = db.session.execute(
        select(Round).where(Round.game_id == game.id, Round.number == number)
    ).scalar_one_or_none()
    if round_ is None or round_.status != "closed":
        raise GameError(f"round {number} is not closed", 409, code="round_not_closed", round=number)
    # Not a bool, and within an INTEGER column: a larger id would overflow in the query (a 500), not miss.
    known = isinstance(player_id, int) and not isinstance(player_id, bool) and 0 < player_id < 2**31
    player = db.session.get(Player, player_id) if known else None
    if player is None or player.game_id != game.id:
        raise GameError("'player_id' is not a player of this game", 422, code="unknown_player")
    if isinstance(score, bool) or not isinstance(score, int) or not 0 <= score <= 10_000:
        raise GameError("'score' must be a whole number from 0 to 10000", 422, code="bad_score")
    if not isinstance(reason, str) or not reason.strip():
        raise GameError("'reason' is required: say why the score is corrected", 422, code="reason_missing")
    db.session.add(
        Correction(round_id=round_.id, player_id=player.id, score=score, reason=reason.strip(), author=author)
    )
    log(
        game.id, "corrected", {"round": number, "player": player.name, "score": score, "reason": reason.strip()}, author
    )
    db.session.commit()


# --- results --------------------------------------------------------------------------------------


def results(game: Game) -> GameResults:
    """Every closed round's results and the standings, corrections applied."""
    names = {p.id: p.name for p in game.players}
    records: list[RoundRecord] = []
    corrections: list[CorrectionRecord] = []
    for round_ in game.rounds:
        if round_.status != "closed":
            continue
        rows = db.session.execute(select(Result).where(Result.round_id == round_.id)).scalars()
        submissions = [SubmissionRecord(names[r.player_id], r.move or "", r.score, r.valid) for r in rows]
        scores = [score for score, count in round_.legal_scores or [] for _ in range(count)]
        records.append(RoundRecord(round_.number, round_.top_score or 0, scores, submissions))
        for c in db.session.execute(
            select(Correction).where(Correction.round_id == round_.id).order_by(Correction.id)
        ).scalars():
            corrections.append(CorrectionRecord(names[c.player_id], round_.number, c.score, c.reason, c.author))
    return score_game(records, list(names.values()), corrections, SoloRule(game.solo_bonus, game.solo_min_players))


def due_work(now: datetime) -> list[tuple[str, int, int]]:
    """Transitions whose time has come: rounds past their deadline, reveals past their pause."""
    closes = db.session.execute(
        select(Round.game_id, Round.number).where(Round.status == "open", Round.deadline <= now)
    ).all()
    nexts = db.session.execute(
        select(Game.id, Game.round_number).where(Game.status == "revealing", Game.next_round_at <= now)
    ).all()
    return [("close", g, n) for g, n in closes] + [("next", g, n) for g, n in nexts]


def seconds_left(round_: Round | None, now: datetime | None = None) -> float | None:
    if round_ is None or round_.status == "closed":
        return None
    if round_.status == "paused":
        return round_.seconds_left_when_paused
    assert round_.deadline is not None
    return seconds_until(round_.deadline, now or utcnow())


def seconds_until(deadline: datetime, now: datetime) -> float:
    """Seconds from ``now`` to ``deadline`` (stored naive in UTC by SQLite), never below zero."""
    return max(0.0, ((deadline if deadline.tzinfo else deadline.replace(tzinfo=UTC)) - now).total_seconds())
