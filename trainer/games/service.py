"""Running duplicate games on the database: load a game's state, ask the rules, store what they return.

The rules are pure and live in :mod:`trainer.duplicate`: the settings (:mod:`~trainer.duplicate.settings`),
the round lifecycle (:mod:`~trainer.duplicate.rounds`), the game's mode (draws, analysis, placement,
scoring). This module is their SQL.

Every transition is a guarded ``UPDATE ... WHERE status = ...`` whose row count says whether this
caller made it, so a second scheduler, a retried job or a restart never closes a round twice: the
guards restate the rules' preconditions so that the database decides between racing callers. A
submission takes the same round row as the close (``UPDATE round SET status = status WHERE status =
'open' AND deadline > received_at``), so the two are serialised by the database: a submission is either
committed before the close reads the submissions, or refused as late. Every accepted submission is
committed before the server answers.

Tops and the score of every legal play are computed when a round opens (while players think) and
kept out of every answer until the round closes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flask import current_app
from sqlalchemy import delete, distinct, func, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from ..core.accounts import Director
from ..core.clock import aware, utcnow
from ..core.codes import hash_token, new_join_code, new_rejoin_code, new_token, typed_code
from ..core.database import db, table_of
from ..core.errors import Refused
from ..core.lexicons import lexicon_store
from ..core.names import name_key, player_name
from ..duplicate import imposed, rounds
from ..duplicate import settings as declared
from ..duplicate.errors import RuleError
from ..duplicate.joker import JOKER, BlankFate, blank_fate
from ..duplicate.mode import Mode
from ..duplicate.modes import mode
from ..duplicate.results import Correction as CorrectionRecord
from ..duplicate.results import GameResults, RoundRecord, RulingKind, SoloRule, WarningRule
from ..duplicate.results import Ruling as RulingRecord
from ..duplicate.results import Submission as SubmissionRecord
from ..duplicate.rounds import (
    GameEnd,
    GameState,
    GameStatus,
    OpenedRound,
    PlayedRound,
    Position,
    RoundClock,
    RoundStatus,
    Setup,
)
from ..engine.board import Board
from ..engine.errors import EngineError
from ..engine.notation import parse_move
from ..engine.rules import Notation, ruleset
from . import analyst, draws, edition, tokens
from .analyst import SetupSpec
from .models import Competition, Correction, Event, Game, Player, Result, Round, Ruling, Submission

# Called as planner(kind, game_id, round_number, when) after a transition sets a new deadline, so
# an in-process scheduler can fire on time; the scheduler's sweep catches anything it misses.
OPENING_ATTEMPTS = 3  # a round's opening worked out again when the director chose another top meanwhile

Planner = Callable[[str, int, int, datetime], None]
PLANNER_KEY = "tirage.planner"
CANCEL = "cancel"  # the kind of a Ruling row that cancels an earlier one
# Rulings one player may be given in one round, cancelled ones included (docs/rules.md §6.19): enough for any
# night, and a bound on what a script could write into a round's record.
MAX_RULINGS = 20
# Key in Session.info: games whose events this transaction wrote with plain INSERTs (trainer.games.notify
# wakes their event streams after the commit; events added as objects are noticed by themselves).
EVENTS_WRITTEN_KEY = "tirage.event_games"


def _plan(kind: str, game_id: int, number: int, when: datetime) -> None:
    planner: Planner | None = current_app.extensions.get(PLANNER_KEY)
    if planner is not None:
        planner(kind, game_id, number, when)


def log(game_id: int, kind: str, data: dict[str, Any], author: str, now: datetime | None = None) -> None:
    """Append to the game's event log (the caller commits with the change it describes)."""
    db.session.add(Event(game_id=game_id, kind=kind, data=data, author=author, created_at=now or utcnow()))


def _guarded(statement: Any) -> bool:
    """Run a guarded UPDATE; whether it changed exactly one row (else it is rolled back: someone else did it)."""
    done = db.session.execute(statement)
    if done.rowcount != 1:  # type: ignore[attr-defined]
        db.session.rollback()
        return False
    return True


# --- a game's rules and state, as the pure rules take them ----------------------------------------


def game_settings(data: object) -> dict[str, Any]:
    """A new game's settings from a request, checked, defaults filled in (docs/rules.md §6.14)."""
    lexicons = {name: entry["rules"] for name, entry in lexicon_store().catalogue().items()}
    try:
        return declared.validate(data, lexicons)
    except RuleError as error:
        raise Refused.because(error) from None


def notation_of(game: Game) -> Notation:
    return "french" if game.notation == "french" else "english"


def mode_of(game: Game) -> Mode:
    return mode(game.mode)


def spec_of(game: Game) -> SetupSpec:
    """The game's setup by name (what a worker process needs to open its rounds)."""
    return SetupSpec(
        game.rules,
        game.lexicon,
        notation_of(game),
        game.draw_rule,
        game.seed,
        game.max_rounds,
        game.mode,
        game.first_play_across,
        game.first_play_best_placement,
        game.imposed_draws,
        game.variant,
    )


def setup_of(game: Game) -> Setup:
    """What the game's draws and judging depend on (its lexicon loaded from the application's store)."""
    return spec_of(game).setup(lexicon_store())


def clock_of(round_: Round | None) -> RoundClock | None:
    if round_ is None:
        return None
    return RoundClock(round_.number, RoundStatus(round_.status), round_.deadline, round_.seconds_left_when_paused)


def state_of(game: Game, round_: Round | None = None) -> GameState:
    """The game's state (its current round read unless given)."""
    current = round_ if round_ is not None else current_round(game)
    return GameState(GameStatus(game.status), game.round_number, clock_of(current))


def _rule(check: Callable[[], Any]) -> Any:
    """What the rules say, their refusal passed on as the server's."""
    try:
        return check()
    except RuleError as error:
        raise Refused.because(error) from None


def board_rows(game: Game, cells: str | None = None) -> list[str]:
    return Board(ruleset(game.rules).layout, list(cells if cells is not None else game.board)).rows()


# --- games and players ---------------------------------------------------------------------------


def create_game(director: Director, data: object) -> Game:
    """A new game in its lobby, with the settings of ``data`` and, in its ``draws`` field, the list of draws it plays
    instead of drawing from its seed (docs/rules.md §6.18), checked before it is stored."""
    settings = game_settings(data)
    rules = ruleset(settings["rules"])
    assert isinstance(data, dict)  # game_settings refuses anything else
    listed: imposed.ImposedDraws | None = _rule(
        lambda: imposed.requested(data, rules, declared.draw_rule(settings[declared.DRAW_RULE]), settings["variant"])
    )
    game = Game(
        join_code=new_join_code(),
        director_id=director.id,
        board="".join(Board.empty(rules).cells),
        imposed_draws=listed.text if listed is not None else None,
        **settings,
    )
    edition.record(game)  # the lexicon's edition and fingerprint, named on the game's pages and exports
    db.session.add(game)
    try:
        db.session.flush()
    except IntegrityError:  # the same code drawn by another room a moment ago
        db.session.rollback()
        raise Refused("no_code", "no free join code: try again") from None
    created: dict[str, Any] = {"settings": declared.shown(settings, private=True)}
    if listed is not None:  # how many rounds, not the draws: the log is streamed to the room
        created["imposed_draws"] = len(listed)
    log(game.id, "created", created, director.username)
    db.session.commit()
    return game


def imposed_reliquat_differs(game: Game, round_: Round) -> tuple[str, str] | None:
    """In a game with imposed draws, when the top placed in ``round_`` leaves other tiles than the list keeps for
    the next round: (what the top leaves, what the list keeps). The next round plays the list's rack all the same
    (docs/rules.md §6.18); the director may place another top that leaves the list's reliquat."""
    if game.imposed_draws is None or round_.placed_move is None or game.status == GameStatus.FINISHED:
        return None  # a finished game places nothing more (and its lexicon is never loaded again)
    setup = setup_of(game)
    assert setup.imposed is not None
    kept = setup.imposed.published_reliquat(round_.number)
    _board, left = rounds.place(setup, round_.board_before, round_.placed_move, round_.rack)
    return None if kept is None or left == kept else (left, kept)


def blank_of(game: Game, round_: Round) -> BlankFate | None:
    """In a joker game, what became of the blank the round's placed top used: swapped for its letter from the bag,
    or left on the board (docs/rules.md §6.24); None otherwise. Worked out from the round's board and rack alone."""
    if game.variant != JOKER or round_.placed_move is None:
        return None
    rules = ruleset(game.rules)
    board = Board(rules.layout, list(round_.board_before))
    try:
        return blank_fate(rules, board, parse_move(round_.placed_move, board, notation_of(game)), round_.rack)
    except (EngineError, ValueError):  # a stored play the board cannot take: nothing to say of it
        return None


def join_game(
    code: object, name: object, held_tokens: Iterable[str] = (), learner_id: int | None = None
) -> tuple[Player, str]:
    """A new player of the game with join code ``code``, and their token (shown once). ``held_tokens``: the player
    tokens the joining browser (or API client) already holds; ``learner_id``: the learner account it is logged in
    as. With either, or with the same name, a place in another room of the same simultaneous game is refused
    (docs/rules.md §6.22)."""
    if not isinstance(code, str) or not code.strip():
        raise Refused("code_missing", "'code' is missing: give the game's join code")
    name = player_name(name)
    typed = typed_code(code)
    game = db.session.execute(select(Game).where(Game.join_code == typed)).scalar_one_or_none()
    if game is None:
        raise Refused("unknown_code", f"no game has the code {typed!r}", join_code=typed)
    if game.status == GameStatus.FINISHED:
        raise Refused("game_finished", "this game is finished")
    if game.locked:
        raise Refused("room_locked", "the director has closed this game to new players: ask them to open it")
    key = name_key(name)
    check_name_free(game, name, key)
    check_no_other_room(game, key, held_tokens, learner_id)
    token = new_token()
    player = Player(game_id=game.id, name=name, name_key=key, token_hash=hash_token(token))
    db.session.add(player)
    try:
        db.session.flush()
    except IntegrityError:  # the same name joined a moment ago, between the check and here
        db.session.rollback()
        raise Refused("name_taken", f"the name {name!r} is taken in this game: choose another", name=name) from None
    log(game.id, "joined", {"players": player_count(game)}, name)
    db.session.commit()
    return player, token


def check_name_free(game: Game, name: str, key: str, besides: int | None = None) -> None:
    """Refused (``name_taken``, naming the player who has it) when a player of ``game`` other than ``besides``
    has a name that reads the same: the same but for case, accents or look-alike letters (core.names)."""
    query = select(Player.name).where(Player.game_id == game.id, Player.name_key == key)
    if besides is not None:
        query = query.where(Player.id != besides)
    holder = db.session.execute(query).scalar_one_or_none()
    if holder is not None:
        raise Refused(
            "name_taken", f"the name {name!r} is taken in this game (by {holder!r}): choose another", name=holder
        )


def check_no_other_room(
    game: Game,
    key: str | None,
    held_tokens: Iterable[str] = (),
    learner_id: int | None = None,
    besides: int | None = None,
) -> None:
    """Refused (``in_another_room``) when ``game`` is a room of a simultaneous game and the newcomer already holds a
    place in another of its rooms: a player of the same name (its key, §6.16), a token the same browser holds, or
    a player linked to the same learner account (docs/rules.md §6.22). The other room is not named: its name would
    tell nothing the player does not know, and its code must not be told. A tournament's games are not rooms: the
    same players play them all."""
    if not in_simultaneous(game):
        return
    rooms = select(Game.id).where(Game.competition_id == game.competition_id, Game.id != game.id)
    same = [Player.name_key == key] if key is not None else []
    hashes = {hash_token(token) for token in held_tokens if token}
    if hashes:
        same.append(Player.token_hash.in_(hashes))
    if learner_id is not None:
        same.append(Player.learner_id == learner_id)
    if not same:
        return
    query = select(Player.id).where(Player.game_id.in_(rooms), or_(*same))
    if besides is not None:
        query = query.where(Player.id != besides)
    if db.session.execute(query.limit(1)).first() is not None:
        raise Refused(
            "in_another_room",
            "you already have a place in another room of this simultaneous game: a player plays in one room only",
        )


def _player_of(game: Game, player_id: object) -> Player:
    player = (
        db.session.get(Player, player_id) if isinstance(player_id, int) and not isinstance(player_id, bool) else None
    )
    if player is None or player.game_id != game.id:
        raise Refused("no_player", f"game {game.id} has no player {player_id!r}")
    return player


def lock_room(game: Game, locked: bool, author: str) -> None:
    """Close the game to new players (``locked``) or open it again; the players already in stay."""
    if game.locked != locked:
        game.locked = locked
        log(game.id, "locked" if locked else "unlocked", {}, author)
    db.session.commit()


def rename_player(game: Game, player_id: object, name: object, author: str) -> Player:
    """The director renames a player (a typo, an impostor's "Zoe"): the same rules as a join; their plays stay."""
    player = _player_of(game, player_id)
    new_name = player_name(name)
    key = name_key(new_name)
    check_name_free(game, new_name, key, besides=player.id)
    check_no_other_room(game, key, besides=player.id)
    old = player.name
    player.name, player.name_key = new_name, key
    log(game.id, "renamed", {"player": player.id, "from": old, "to": new_name}, author)
    db.session.commit()
    return player


def remove_player(game: Game, player_id: object, author: str) -> None:
    """The director removes a player (a prank, a duplicate): their token stops working and the standings are those
    of the others. What they handed in stays in the game's record: the ``removed`` event carries every play of
    theirs (round, play, score as placed, when received) and every correction, before the rows go."""
    player = _player_of(game, player_id)
    numbers = {r.id: r.number for r in game.rounds}
    plays = [
        {
            "round": numbers.get(s.round_id),
            "move": s.move,
            "score_as_placed": s.score_as_placed,
            "received_at": s.received_at.isoformat(),
            # a paper bulletin keeps who typed it in, and whether it was declared on time (docs/rules.md §6.21)
            **({"entered_by": s.entered_by, "declared": s.declared} if s.entered_by is not None else {}),
        }
        for s in db.session.execute(
            select(Submission).where(Submission.player_id == player.id).order_by(Submission.id)
        ).scalars()
    ]
    corrections = [
        {"round": numbers.get(c.round_id), "score": c.score, "reason": c.reason, "author": c.author}
        for c in db.session.execute(
            select(Correction).where(Correction.player_id == player.id).order_by(Correction.id)
        ).scalars()
    ]
    rulings = [
        {
            "id": r.id,
            "round": numbers.get(r.round_id),
            "kind": r.kind,
            "points": r.points,
            "reason": r.reason,
            "author": r.author,
            "at": aware(r.created_at).isoformat(),
            **({"cancels": r.cancels} if r.cancels is not None else {}),
        }
        for r in db.session.execute(select(Ruling).where(Ruling.player_id == player.id).order_by(Ruling.id)).scalars()
    ]
    for model in (Correction, Ruling, Result, Submission):
        db.session.execute(delete(model).where(model.player_id == player.id))
    tokens.retire(player, tokens.REMOVED)  # the phone is told why it stopped (§6.16)
    db.session.delete(player)
    record = {"player": player.id, "name": player.name, "plays": plays, "corrections": corrections, "rulings": rulings}
    log(game.id, "removed", {**record, "players": player_count(game)}, author)
    db.session.commit()


REJOIN_SECONDS = 600  # a rejoin code works once, for ten minutes


def offer_rejoin(game: Game, player_id: object, author: str, now: datetime | None = None) -> str:
    """A one-time code (shown once) with which ``player_id`` takes their place again on a new phone, with their plays
    and results; the code replaces any earlier one (docs/rules.md §6.16)."""
    player = _player_of(game, player_id)
    if game.status == GameStatus.FINISHED:
        raise Refused("game_finished", "this game is finished")
    now = now or utcnow()
    code = new_rejoin_code()
    player.rejoin_hash = hash_token(code)
    player.rejoin_expires_at = now + timedelta(seconds=REJOIN_SECONDS)
    log(game.id, "rejoin_offered", {"player": player.id}, author, now)
    db.session.commit()
    return code


def rejoin(code: object, now: datetime | None = None, held_tokens: Iterable[str] = ()) -> tuple[Player, str]:
    """The player a rejoin code was given to, with a new token: the old phone's token stops working. A browser
    holding a place in another room of the same simultaneous game (``held_tokens``) is refused (§6.22)."""
    typed = typed_code(code)
    if not typed:
        raise Refused("code_missing", "'code' is missing: give the rejoin code")
    now = now or utcnow()
    player = db.session.execute(select(Player).where(Player.rejoin_hash == hash_token(typed))).scalar_one_or_none()
    expires = player.rejoin_expires_at if player is not None else None
    if player is None or expires is None or expires <= now or player.game.status == GameStatus.FINISHED:
        raise Refused("unknown_rejoin_code", "this rejoin code is not valid: ask the director for a new one")
    check_no_other_room(player.game, None, held_tokens)
    tokens.retire(player, tokens.TAKEN_OVER, now)  # the old phone is told it was taken over (§6.16)
    token = new_token()
    player.token_hash = hash_token(token)
    player.rejoin_hash = None
    player.rejoin_expires_at = None
    log(player.game_id, "rejoined", {"player": player.id}, player.name, now)
    db.session.commit()
    return player, token


def player_for_token(token: str) -> Player | None:
    return db.session.execute(select(Player).where(Player.token_hash == hash_token(token))).scalar_one_or_none()


# --- rounds ---------------------------------------------------------------------------------------


def current_round(game: Game) -> Round | None:
    if game.round_number == 0:
        return None
    return db.session.execute(
        select(Round).where(Round.game_id == game.id, Round.number == game.round_number)
    ).scalar_one_or_none()


def _played(game: Game) -> list[PlayedRound]:
    played = []
    for round_ in game.rounds:
        if round_.placed_move is None:  # the stored game is broken: never guess a play
            raise RuntimeError(f"game {game.id} round {round_.number} has no placed play")
        played.append(PlayedRound(round_.number, round_.rack, round_.board_before, round_.placed_move))
    return played


def _finish(game: Game, reason: str, author: str, now: datetime) -> None:
    game.status = GameStatus.FINISHED
    game.end_reason = reason
    game.next_round_at = None
    log(game.id, "finished", {"reason": reason, "rounds": len(game.rounds)}, author, now)


@dataclass(frozen=True)
class _Opening:
    """A round's opening worked out from the game as it was read: applied only if the game is still so."""

    spec: SetupSpec
    board: str
    opened: OpenedRound | GameEnd


def _work_out_opening(game: Game) -> _Opening:
    """The engine's work for the next round (in its own process under the server), done before any write: a
    write takes the database's write lock, and no play could be stored while the engine works."""
    spec, board = spec_of(game), game.board
    return _Opening(spec, board, analyst.next_round(spec, _played(game), board))


def _open_round(game: Game, opening: _Opening, author: str, now: datetime) -> Round | None:
    """Open the worked-out round, or finish the game when the rules say it is over."""
    opened = opening.opened
    if isinstance(opened, GameEnd):
        _finish(game, opened.reason.value, author, now)
        return None
    draw = opened.draw
    deadline = rounds.deadline_of(now, game.round_seconds)
    round_ = Round(
        game_id=game.id,
        number=opened.number,
        rack=draw.rack,
        reliquat=draw.reliquat,
        draw_record=draw.record,
        board_before=game.board,
        status=RoundStatus.OPEN,
        started_at=now,
        deadline=deadline,
        top_score=opened.analysis.top_score,
        tops=opened.tops(notation_of(game)),
        legal_scores=[[score, count] for score, count in opened.analysis.score_counts],
        best_plays=opened.best_plays(notation_of(game)),
    )
    db.session.add(round_)
    game.round_number = opened.number
    game.status = GameStatus.PLAYING
    game.next_round_at = None
    log(
        game.id,
        "round_started",
        {"round": opened.number, "rack": draw.rack, "draw": draw.record, "deadline": deadline.isoformat()},
        author,
        now,
    )
    return round_


def start_game(game: Game, author: str, now: datetime | None = None) -> Round | None:
    now = now or utcnow()
    _rule(lambda: rounds.check_start(state_of(game)))
    if game.lexicon not in lexicon_store().catalogue():  # removed while the game waited in its lobby
        raise Refused("lexicon_gone", f"the game's lexicon {game.lexicon!r} is no longer on this server")
    opening = _work_out_opening(game)  # a game's settings never change, so this opening stays right
    db.session.rollback()  # nothing held while the engine worked
    if not _guarded(
        update(Game).where(Game.id == game.id, Game.status == GameStatus.LOBBY).values(status=GameStatus.STARTING)
    ):
        raise Refused("already_started", "the game has already started")
    db.session.refresh(game)
    edition.record(game)  # a list replaced while the game waited in its lobby is the one it is played with
    round_ = _open_round(game, opening, author, now)
    if round_ is not None:  # the embargo of the draw's other games starts now, not in the lobby (docs/rules.md §6.4)
        draws.announce_shared_draw(game, author)
    db.session.commit()
    if round_ is not None and round_.deadline is not None:
        _plan("close", game.id, round_.number, rounds.closes_at(round_.deadline))
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
    position: Position


@dataclass(frozen=True)
class PendingPlay:
    """A play judged legal in its placement, not yet written: :func:`store_plays` decides whether it is on time."""

    playing: RoundPlaying
    player_id: int
    player_name: str
    move: str
    score_as_placed: int
    received_at: datetime
    entered_by: str | None = None  # a paper bulletin: the arbiter who typed it in (trainer.games.bulletins)
    # The hash of the token the play came with (the live play path, which knows players from memory): the play is
    # refused unless the player still holds it, so a phone taken over by a rejoin stops at once (§6.16).
    token_hash: str | None = None


def round_playing(game: Game, number: int) -> RoundPlaying:
    """Round ``number`` of ``game`` as plays are judged against it; refused when it has not started or is over.

    Whether it is still open when a play is written is for :func:`store_plays` to say."""
    round_ = db.session.execute(
        select(Round).where(Round.game_id == game.id, Round.number == number)
    ).scalar_one_or_none()
    if round_ is None:
        raise Refused("round_not_started", f"round {number} has not started", round=number)
    if round_.status == RoundStatus.CLOSED or number != game.round_number:
        raise _round_closed(number)
    setup = setup_of(game)
    position = Position.of(setup, round_.board_before, round_.rack)
    return RoundPlaying(game.id, number, round_.id, position)


def judge(playing: RoundPlaying, text: object) -> tuple[str, int]:
    """The play in canonical notation and its score as placed; placement errors are refused, word validity
    is not looked at before the close. Pure engine work: no database."""
    if not isinstance(text, str):
        raise Refused("move_missing", "'move' is missing: give a play such as \"8D TRAIN\"")
    try:
        return rounds.judge(playing.position, text)
    except EngineError as error:
        raise Refused.because(error, "illegal_play") from None


def _round_closed(number: int) -> Refused:
    return Refused("round_closed", f"round {number} is closed", round=number)


def _taken(round_id: int, received_at: datetime) -> bool:
    """Take the round row for plays received up to ``received_at``, if it was still open then. Taking the row
    serialises the plays with the close: see the module docstring."""
    taken = db.session.execute(
        update(Round)
        .where(
            Round.id == round_id,
            Round.status.in_((RoundStatus.OPEN, RoundStatus.PAUSED)),
            (Round.deadline.is_(None)) | (Round.deadline > received_at),
        )
        .values(status=Round.status)
    )
    return bool(taken.rowcount == 1)  # type: ignore[attr-defined]


def _token_holders(player_ids: set[int]) -> dict[int, str]:
    """The token hash of each of these players still in their game (a removed player is not there)."""
    rows = db.session.execute(select(Player.id, Player.token_hash).where(Player.id.in_(player_ids)))
    return {row.id: row.token_hash for row in rows}


def _no_longer_playing(play: PendingPlay, holders: dict[int, str]) -> Refused | None:
    """Why ``play`` is not the player's any more: they were removed, or their place was taken over by another
    phone since the token was read (docs/rules.md §6.16); None when it still is."""
    held = holders.get(play.player_id)
    if held is None:
        return tokens.refusal(tokens.REMOVED)
    if play.token_hash is not None and play.token_hash != held:
        return tokens.refusal(tokens.TAKEN_OVER)
    return None


def store_plays(plays: Sequence[PendingPlay]) -> list[AcceptedPlay | Refused]:
    """Write ``plays`` in one transaction, each with its ``submission`` event; for each, what it became.

    A play received before its round's deadline (or while the round was paused) is taken, any other is
    refused as late; a play of a player removed since, or handed in with a token its player no longer holds,
    is refused (401) and never written. One transaction for a burst of plays costs one commit (and on SQLite one fsync)
    instead of one each, which is what lets one process keep up with a room's last seconds. Committed
    before it returns: nobody is told a play is taken before it is on disk.
    """
    outcome: list[AcceptedPlay | Refused] = [_round_closed(play.playing.number) for play in plays]
    holders = _token_holders({play.player_id for play in plays})
    by_round: dict[int, list[int]] = {}
    for index, play in enumerate(plays):
        gone = _no_longer_playing(play, holders)
        if gone is not None:  # never written: a removed player's row is gone, and its play would fail the others'
            outcome[index] = gone
            continue
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
                    "entered_by": play.entered_by,
                }
            )
            data: dict[str, Any] = {"round": play.playing.number, "submissions": count}
            if play.entered_by is not None:  # a paper bulletin: who typed it in (a private event, never streamed)
                data["entered_by"] = play.entered_by
            events.append(
                {
                    "game_id": play.playing.game_id,
                    "kind": "submission",
                    "author": play.player_name,
                    "data": data,
                    "created_at": play.received_at,
                }
            )
            outcome[i] = AcceptedPlay(play.move, play.score_as_placed, play.received_at)
    if submissions:
        # Core INSERTs on the tables (not ORM objects, not even the ORM's bulk path): this runs for every play
        # of a room in the last seconds of a round.
        db.session.execute(insert(table_of(Submission)), submissions)
        db.session.execute(insert(table_of(Event)), events)
        db.session.info.setdefault(EVENTS_WRITTEN_KEY, set()).update(event["game_id"] for event in events)
    db.session.commit()
    return outcome


def submit(game: Game, player: Player, number: int, text: object, now: datetime | None = None) -> AcceptedPlay:
    """Record ``player``'s play for round ``number``; placement errors are refused at once (422),
    word validity is not looked at before the close. Plays are taken while the round is paused
    too: a pause stops the clock, not the players' thinking."""
    now = now or utcnow()
    if player.game_id != game.id:
        raise Refused("wrong_game", "this token is not for this game")
    if not isinstance(text, str):
        raise Refused("move_missing", "'move' is missing: give a play such as \"8D TRAIN\"")
    playing = round_playing(game, number)
    move, score = judge(playing, text)
    (outcome,) = store_plays([PendingPlay(playing, player.id, player.name, move, score, now)])
    if isinstance(outcome, Refused):
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


def last_plays(round_id: int) -> dict[int, tuple[str, int]]:
    """Each player's last play of the round (play, score as placed), by player id: read once for a room."""
    rows = db.session.execute(
        select(Submission.player_id, Submission.move, Submission.score_as_placed)
        .where(Submission.round_id == round_id)
        .order_by(Submission.id)
    )
    return {row.player_id: (row.move, row.score_as_placed) for row in rows}


def last_play(round_id: int, player_id: int) -> tuple[str, int] | None:
    """One player's last play of the round (play, score as placed), if any."""
    last = db.session.execute(
        select(Submission.move, Submission.score_as_placed)
        .where(Submission.round_id == round_id, Submission.player_id == player_id)
        .order_by(Submission.id.desc())
        .limit(1)
    ).first()
    return (last.move, last.score_as_placed) if last is not None else None


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
        condition.append(Round.status.in_((RoundStatus.OPEN, RoundStatus.PAUSED)))
    else:  # RoundClock.due, as a guard
        condition += [Round.status == RoundStatus.OPEN, Round.deadline <= now]
    if not _guarded(update(Round).where(*condition).values(status=RoundStatus.CLOSED, closed_at=now)):
        return False
    game = db.session.get(Game, game_id)
    round_ = db.session.execute(select(Round).where(*condition[:2])).scalar_one()
    assert game is not None
    db.session.refresh(round_)
    setup = setup_of(game)
    position = Position.of(setup, round_.board_before, round_.rack)
    # Rows, not ORM objects, in and out: a room of 10,000 hands in some 20,000 plays.
    last: dict[int, str] = {}
    for player_id, move in db.session.execute(
        select(Submission.player_id, Submission.move).where(Submission.round_id == round_.id).order_by(Submission.id)
    ):
        last[player_id] = move
    judged = rounds.judge_round(position, last, round_.legal_scores or [])
    if judged:
        db.session.execute(
            insert(table_of(Result)),
            [
                {
                    "round_id": round_.id,
                    "player_id": player_id,
                    "move": result.move,
                    "score": result.score,
                    "valid": result.valid,
                    "invalid_words": list(result.invalid_words) or None,
                    "rank": result.rank,
                }
                for player_id, result in judged.items()
            ],
        )
    round_.placed_move = (round_.tops or [])[0]
    game.board, _reliquat = rounds.place(setup, round_.board_before, round_.placed_move, round_.rack)
    game.status = GameStatus.REVEALING
    game.next_round_at = rounds.reveal_until(now, game.reveal_seconds)
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


def next_round(game_id: int, number: int, author: str, now: datetime | None = None) -> bool:
    """Start the round after ``number`` if the game is still revealing ``number``; returns whether
    this call did (idempotent, like :func:`close_round`)."""
    now = now or utcnow()
    for _attempt in range(OPENING_ATTEMPTS):
        game = db.session.get(Game, game_id)
        if game is None or game.status != GameStatus.REVEALING or game.round_number != number:
            db.session.rollback()
            return False
        db.session.refresh(game)
        opening = _work_out_opening(game)
        db.session.rollback()
        # Applied only on the board it was worked out on: the director may have chosen another top meanwhile.
        if _guarded(
            update(Game)
            .where(
                Game.id == game_id,
                Game.status == GameStatus.REVEALING,
                Game.round_number == number,
                Game.board == opening.board,
            )
            .values(status=GameStatus.STARTING)
        ):
            db.session.refresh(game)
            round_ = _open_round(game, opening, author, now)
            db.session.commit()
            if round_ is not None and round_.deadline is not None:
                _plan("close", game.id, round_.number, rounds.closes_at(round_.deadline))
            return True
    return False


def close_now(game: Game, author: str, now: datetime | None = None) -> None:
    """The director closes the running round before its deadline."""
    clock: RoundClock = _rule(lambda: rounds.check_close_now(state_of(game)))
    if not close_round(game.id, clock.number, author, now, early=True):
        raise Refused("just_closed", "the round has just closed")


def advance(game: Game, author: str, now: datetime | None = None) -> None:
    """The director starts the next round without waiting for the end of the reveal pause."""
    _rule(lambda: rounds.check_advance(state_of(game)))
    if not next_round(game.id, game.round_number, author, now):
        raise Refused("not_revealing", "the next round starts only after a round's reveal")


def end_game(game: Game, author: str, now: datetime | None = None) -> None:
    """End the game now, at the director's word. A round in play is closed first, so its plays count."""
    now = now or utcnow()
    state = state_of(game)
    _rule(lambda: rounds.check_end(state))
    if state.clock is not None and state.clock.status is not RoundStatus.CLOSED:
        close_round(game.id, state.clock.number, author, now, early=True)
        db.session.refresh(game)
    # Guarded like every transition: the scheduler may start the next round at this very moment.
    if not _guarded(
        update(Game)
        .where(Game.id == game.id, Game.status.in_((GameStatus.LOBBY, GameStatus.REVEALING)))
        .values(status=GameStatus.FINISHED, end_reason="director", next_round_at=None)
    ):
        raise Refused("just_closed", "the game changed at this moment: try again")
    log(game.id, "finished", {"reason": "director", "rounds": len(game.rounds)}, author, now)
    db.session.commit()
    db.session.refresh(game)


def pause(game: Game, author: str, now: datetime | None = None) -> None:
    now = now or utcnow()
    round_ = current_round(game)
    left: float = _rule(lambda: rounds.pause(state_of(game, round_), now))
    assert round_ is not None
    if not _guarded(
        update(Round)
        .where(Round.id == round_.id, Round.status == RoundStatus.OPEN, Round.deadline > now)
        .values(status=RoundStatus.PAUSED, deadline=None, seconds_left_when_paused=left)
    ):
        raise Refused("just_closed", "the round has just closed")
    game.status = GameStatus.PAUSED
    log(game.id, "paused", {"round": round_.number, "seconds_left": round(left, 1)}, author, now)
    db.session.commit()


def resume(game: Game, author: str, now: datetime | None = None) -> None:
    now = now or utcnow()
    round_ = current_round(game)
    deadline: datetime = _rule(lambda: rounds.resume(state_of(game, round_), now))
    assert round_ is not None
    round_.status, round_.deadline, round_.seconds_left_when_paused = RoundStatus.OPEN, deadline, None
    game.status = GameStatus.PLAYING
    log(game.id, "resumed", {"round": round_.number, "deadline": deadline.isoformat()}, author, now)
    db.session.commit()
    _plan("close", game.id, round_.number, rounds.closes_at(deadline))


def extend(game: Game, seconds: object, author: str, now: datetime | None = None) -> None:
    now = now or utcnow()
    round_ = current_round(game)
    clock: RoundClock = _rule(lambda: rounds.extend(state_of(game, round_), seconds, now))
    assert round_ is not None
    if clock.status is RoundStatus.PAUSED:
        round_.seconds_left_when_paused = clock.paused_left
    elif _guarded(
        update(Round)
        .where(Round.id == round_.id, Round.status == RoundStatus.OPEN, Round.deadline > now)
        .values(deadline=clock.deadline)
    ):
        db.session.refresh(round_)
    else:
        raise Refused("just_closed", "the round has just closed")
    log(game.id, "extended", {"round": round_.number, "seconds": seconds}, author, now)
    db.session.commit()
    if round_.deadline is not None:
        _plan("close", game.id, round_.number, rounds.closes_at(round_.deadline))


def choose_top(game: Game, number: int, move: object, author: str) -> None:
    """Place another of the round's tops instead (until the next round starts); not in a room of a simultaneous
    game, whose rooms must keep the same board (docs/rules.md §6.22)."""
    if in_simultaneous(game):
        raise Refused("fixed_top", "in a simultaneous game every room places the same top: another cannot be placed")
    round_ = current_round(game)
    tops = list(round_.tops or []) if round_ is not None else []
    chosen: str = _rule(lambda: rounds.choose_top(state_of(game, round_), number, move, tops))
    assert round_ is not None
    round_.placed_move = chosen
    game.board, _reliquat = rounds.place(setup_of(game), round_.board_before, chosen, round_.rack)
    log(game.id, "placed", {"round": number, "placed": chosen}, author)
    db.session.commit()


def in_simultaneous(game: Game) -> bool:
    if game.competition_id is None:
        return False
    competition = db.session.get(Competition, game.competition_id)
    return competition is not None and competition.kind == "simultaneous"


def _closed_round(game: Game, number: int) -> Round:
    round_ = db.session.execute(
        select(Round).where(Round.game_id == game.id, Round.number == number)
    ).scalar_one_or_none()
    if round_ is None or round_.status != RoundStatus.CLOSED:
        raise Refused("round_not_closed", f"round {number} is not closed", round=number)
    return round_


def _row_id(value: object) -> bool:
    """Whether ``value`` may be looked up as a row's id: not a bool, and within an INTEGER column (a larger id
    would overflow in the query, a 500, rather than miss)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**31


def _arbitrated_player(game: Game, player_id: object) -> Player:
    player = db.session.get(Player, player_id) if _row_id(player_id) else None
    if player is None or player.game_id != game.id:
        raise Refused("unknown_player", "'player_id' is not a player of this game")
    return player


def correct(game: Game, number: int, player_id: object, score: object, reason: object, author: str) -> None:
    """A director's correction of a player's round score; kept beside the original, never over it."""
    round_ = _closed_round(game, number)
    player = _arbitrated_player(game, player_id)
    corrected, why = _rule(lambda: rounds.correction(score, reason))
    db.session.add(Correction(round_id=round_.id, player_id=player.id, score=corrected, reason=why, author=author))
    log(game.id, "corrected", {"round": number, "player": player.name, "score": corrected, "reason": why}, author)
    db.session.commit()


def give_ruling(
    game: Game, number: int, player_id: object, kind: object, points: object, reason: object, author: str
) -> Ruling:
    """The arbiter's warning, penalty, or solo granted or withdrawn, on a player's closed round (docs/rules.md
    §6.19); logged, with its reason and author, and kept beside the round's results."""
    round_ = _closed_round(game, number)
    player = _arbitrated_player(game, player_id)
    checked, taken, why = _rule(lambda: rounds.ruling(kind, points, reason))
    given = db.session.execute(
        select(func.count(Ruling.id)).where(
            Ruling.round_id == round_.id, Ruling.player_id == player.id, Ruling.kind != CANCEL
        )
    ).scalar_one()
    if given >= MAX_RULINGS:
        raise Refused(
            "too_many_rulings",
            f"{player.name} has {MAX_RULINGS} rulings in round {number} already, the most one player can be given "
            "in a round",
            name=player.name,
            round=number,
            n=MAX_RULINGS,
        )
    row = Ruling(round_id=round_.id, player_id=player.id, kind=checked.value, points=taken, reason=why, author=author)
    db.session.add(row)
    db.session.flush()
    data = {"ruling": row.id, "round": number, "player": player.name, "kind": checked.value, "reason": why}
    log(game.id, "ruled", {**data, "points": taken} if taken else data, author)
    db.session.commit()
    return row


def cancel_ruling(game: Game, ruling_id: object, reason: object, author: str) -> None:
    """Cancel a ruling given by mistake: a new row says so, the ruling itself stays in the record."""
    row = db.session.get(Ruling, ruling_id) if _row_id(ruling_id) else None
    round_ = db.session.get(Round, row.round_id) if row is not None else None
    if row is None or round_ is None or round_.game_id != game.id or row.kind == CANCEL:
        raise Refused("unknown_ruling", f"game {game.id} has no ruling {ruling_id!r}")
    if ruling_id in cancelled_rulings(game):
        raise Refused("ruling_cancelled", f"ruling {ruling_id} is already cancelled")
    why = _rule(lambda: rounds.arbiter_reason(reason))
    db.session.add(
        Ruling(round_id=row.round_id, player_id=row.player_id, kind=CANCEL, cancels=row.id, reason=why, author=author)
    )
    player = db.session.get(Player, row.player_id)
    data = {"ruling": row.id, "round": round_.number, "player": player.name if player else "", "reason": why}
    log(game.id, "ruling_cancelled", {**data, "kind": row.kind}, author)
    db.session.commit()


def _game_rulings(game: Game) -> list[Ruling]:
    return list(
        db.session.execute(
            select(Ruling).join(Round, Round.id == Ruling.round_id).where(Round.game_id == game.id).order_by(Ruling.id)
        ).scalars()
    )


def cancelled_rulings(game: Game) -> set[int]:
    return {r.cancels for r in _game_rulings(game) if r.kind == CANCEL and r.cancels is not None}


@dataclass(frozen=True)
class Cancellation:
    """Who cancelled a ruling, when, and why."""

    reason: str
    author: str
    at: datetime


@dataclass(frozen=True)
class RulingEntry:
    """A ruling as the game's record keeps it (docs/rules.md §6.19): given by whom, when and why, and its
    cancellation if it was cancelled (a cancelled ruling counts no more, but stays in the record)."""

    id: int
    round_number: int
    player_id: int
    player: str
    kind: str  # a RulingKind's value
    points: int  # a penalty's points (what a warning costs depends on the warnings before it)
    reason: str
    author: str
    at: datetime
    cancelled: Cancellation | None


def rulings_record(game: Game, number: int | None = None, player_id: int | None = None) -> list[RulingEntry]:
    """Every ruling of the game in the order given, cancelled ones too, each with its cancellation; only round
    ``number``'s, or only player ``player_id``'s, when given."""
    query = (
        select(Ruling, Round.number, Player.name)
        .join(Round, Round.id == Ruling.round_id)
        .join(Player, Player.id == Ruling.player_id)
        .where(Round.game_id == game.id)
        .order_by(Ruling.id)
    )
    if number is not None:
        query = query.where(Round.number == number)
    if player_id is not None:
        query = query.where(Ruling.player_id == player_id)
    rows = db.session.execute(query).all()
    cancellations = {
        row.cancels: Cancellation(row.reason, row.author, aware(row.created_at))
        for row, _number, _name in rows
        if row.kind == CANCEL and row.cancels is not None
    }
    return [
        RulingEntry(
            row.id,
            round_number,
            row.player_id,
            name,
            row.kind,
            row.points,
            row.reason,
            row.author,
            aware(row.created_at),
            cancellations.get(row.id),
        )
        for row, round_number, name in rows
        if row.kind != CANCEL
    ]


# --- results --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scoring:
    """What scoring a game's closed rounds takes, read from the database: the rounds, the players, the
    corrections and the live rulings (trainer.games.competitions scores several games' together)."""

    rounds: list[RoundRecord]
    players: list[str]
    corrections: list[CorrectionRecord]
    rulings: list[RulingRecord]
    solo_rule: SoloRule
    warning_rule: WarningRule


def scoring(game: Game) -> Scoring:
    return scorings([game])[game.id]


def scorings(games: Sequence[Game]) -> dict[int, Scoring]:
    """:func:`scoring` of each of ``games``, by game id, read in five queries whatever their number of games, rounds
    and players (a page of the archive scores fifty games at once)."""
    ids = [game.id for game in games]
    if not ids:
        return {}
    names: dict[int, dict[int, str]] = {game_id: {} for game_id in ids}
    for p in db.session.execute(select(Player).where(Player.game_id.in_(ids)).order_by(Player.id)).scalars():
        names[p.game_id][p.id] = p.name
    closed: dict[int, list[Round]] = {game_id: [] for game_id in ids}
    for round_ in db.session.execute(
        select(Round).where(Round.game_id.in_(ids), Round.status == RoundStatus.CLOSED).order_by(Round.number)
    ).scalars():
        closed[round_.game_id].append(round_)
    in_closed = (Round.game_id.in_(ids), Round.status == RoundStatus.CLOSED)
    results: dict[int, list[Result]] = {}
    for row in db.session.execute(
        select(Result).join(Round, Round.id == Result.round_id).where(*in_closed).order_by(Result.id)
    ).scalars():
        results.setdefault(row.round_id, []).append(row)
    corrections: dict[int, list[Correction]] = {}
    for c in db.session.execute(
        select(Correction).join(Round, Round.id == Correction.round_id).where(*in_closed).order_by(Correction.id)
    ).scalars():
        corrections.setdefault(c.round_id, []).append(c)
    given: dict[int, list[Ruling]] = {game_id: [] for game_id in ids}
    for ruling, game_id in db.session.execute(
        select(Ruling, Round.game_id).join(Round, Round.id == Ruling.round_id).where(Round.game_id.in_(ids))
        .order_by(Ruling.id)
    ):  # fmt: skip
        given[game_id].append(ruling)
    return {
        game.id: _scoring(game, names[game.id], closed[game.id], results, corrections, given[game.id]) for game in games
    }


def _scoring(
    game: Game,
    names: dict[int, str],
    closed: list[Round],
    results: dict[int, list[Result]],
    corrections: dict[int, list[Correction]],
    given: list[Ruling],
) -> Scoring:
    """A game's :class:`Scoring` from its rows: players by id, closed rounds in order, each round's results and
    corrections (by round id, in the order they were written), every ruling of the game in order."""
    records: list[RoundRecord] = []
    corrected: list[CorrectionRecord] = []
    for round_ in closed:
        rows = results.get(round_.id, [])
        submissions = [SubmissionRecord(names[r.player_id], r.move or "", r.score, r.valid) for r in rows]
        scores = [score for score, count in round_.legal_scores or [] for _ in range(count)]
        records.append(RoundRecord(round_.number, round_.top_score or 0, scores, submissions))
        for c in corrections.get(round_.id, []):
            corrected.append(CorrectionRecord(names[c.player_id], round_.number, c.score, c.reason, c.author))
    numbers = {r.id: r.number for r in closed}
    cancelled = {r.cancels for r in given if r.kind == CANCEL}
    rulings = [
        RulingRecord(names[r.player_id], numbers[r.round_id], RulingKind(r.kind), r.reason, r.author, r.points, r.id)
        for r in given
        if r.kind != CANCEL and r.id not in cancelled and r.round_id in numbers
    ]
    return Scoring(
        records,
        list(names.values()),
        corrected,
        rulings,
        SoloRule(game.solo_bonus, game.solo_min_players),
        WarningRule(game.warning_penalty, game.warnings_before_penalty),
    )


def results(game: Game) -> GameResults:
    """Every closed round's results and the standings, corrections and rulings applied, as the game's mode scores
    them."""
    return results_of(scoring(game), game)


def results_of_games(games: Sequence[Game]) -> dict[int, GameResults]:
    """:func:`results` of each of ``games``, by game id, read together (:func:`scorings`)."""
    read = scorings(games)
    return {game.id: results_of(read[game.id], game) for game in games}


def results_of(read: Scoring, game: Game) -> GameResults:
    """The results of ``game`` from what :func:`scoring` read of it, as its mode scores them."""
    return mode_of(game).score(
        read.rounds,
        read.players,
        read.corrections,
        read.solo_rule,
        rulings=read.rulings,
        warning_rule=read.warning_rule,
    )


def due_work(now: datetime) -> list[tuple[str, int, int]]:
    """Transitions whose time has come: rounds whose deadline has settled (RoundClock.due), reveals past
    their pause."""
    closes = db.session.execute(
        select(Round.game_id, Round.number).where(
            Round.status == RoundStatus.OPEN, Round.deadline <= now - rounds.SETTLE
        )
    ).all()
    nexts = db.session.execute(
        select(Game.id, Game.round_number).where(Game.status == GameStatus.REVEALING, Game.next_round_at <= now)
    ).all()
    return [("close", g, n) for g, n in closes] + [("next", g, n) for g, n in nexts]


def seconds_left(round_: Round | None, now: datetime | None = None) -> float | None:
    clock = clock_of(round_)
    return clock.seconds_left(now or utcnow()) if clock is not None else None
