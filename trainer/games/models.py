"""Database rows of duplicate games: games, players, rounds, submissions, results and the event log.

The state that matters is in these rows, never only in memory: deadlines, submissions and every
transition live here, so a restart (or a second scheduler) picks up exactly where the last left.
Submissions, corrections and events are append-only: nothing overwrites what a player handed in.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from sqlalchemy import JSON, BigInteger, Dialect, ForeignKey, Index, String, Text, UniqueConstraint, false
from sqlalchemy.orm import Mapped, mapped_column, relationship
from sqlalchemy.types import TypeDecorator

from ..core.clock import utcnow
from ..core.codes import register_code_column
from ..core.database import Model

GAME_IDS = (2**32, 2**53)  # random ids in this range: past any counted id, and exact as a JavaScript number


def new_game_id() -> int:
    """A fresh game id: 53 random bits less a little, so that game URLs cannot be guessed by counting."""
    low, high = GAME_IDS
    return low + secrets.randbelow(high - low)


class SeedDigits(TypeDecorator[int]):
    """A seed of up to 40 digits (128 random bits and more), kept as its digits: no integer column holds it."""

    impl = String(40)
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Dialect) -> str | None:
        return None if value is None else str(int(value))

    def process_result_value(self, value: str | int | None, dialect: Dialect) -> int | None:
        return None if value is None else int(value)


class Competition(Model):
    """A simultaneous game (rooms playing the same draw, one ranking) or a tournament (games, one ranking),
    docs/rules.md §6.22–6.23. Its ``code`` lets other directors open a room in a simultaneous game."""

    __tablename__ = "competition"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(12), unique=True)
    kind: Mapped[str] = mapped_column(String(16))  # simultaneous, tournament
    name: Mapped[str] = mapped_column(String(80))
    director_id: Mapped[int] = mapped_column(ForeignKey("director.id"))
    # A simultaneous game's settings as a new game takes them (the draws' list included): every room's own.
    settings: Mapped[dict[str, object] | None] = mapped_column(JSON, default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    games: Mapped[list[Game]] = relationship(order_by="Game.created_at")


register_code_column(Competition.code)


class Game(Model):
    """One duplicate game and its settings (trainer.duplicate.settings, docs/rules.md §6.14)."""

    __tablename__ = "game"

    # Random (:func:`new_game_id`): a game's id is in its URLs, and nobody should find games by counting.
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False, default=lambda: new_game_id())
    join_code: Mapped[str] = mapped_column(String(12), unique=True)
    director_id: Mapped[int] = mapped_column(ForeignKey("director.id"))
    rules: Mapped[str] = mapped_column(String(16))
    lexicon: Mapped[str] = mapped_column(String(40))
    # The lexicon's edition and the SHA-256 of its words when the game was made and again when it started
    # (trainer.games.edition): a club may load a new edition under the same name, and the game's pages still name the
    # list it was played with. None for the games made before they were recorded.
    lexicon_edition: Mapped[str | None] = mapped_column(String(80), default=None)
    lexicon_sha256: Mapped[str | None] = mapped_column(String(64), default=None)
    notation: Mapped[str] = mapped_column(String(16))
    mode: Mapped[str] = mapped_column(String(16), default="classic")  # trainer.duplicate.modes
    # classic or joker (docs/rules.md §6.24, trainer.duplicate.joker): every draw of a joker game holds the blank.
    variant: Mapped[str] = mapped_column(String(16), default="classic", server_default="classic")
    # The preset the round and reveal times are (docs/rules.md §6.14): classic, semi-rapid, blitz; None: none of them.
    preset: Mapped[str | None] = mapped_column(String(16), default=None)
    round_seconds: Mapped[int] = mapped_column(default=180)
    # None: wait for the director. No column default: SQLAlchemy would put it in place of an explicit None.
    reveal_seconds: Mapped[int | None] = mapped_column()
    draw_rule: Mapped[dict[str, object]] = mapped_column(JSON)
    solo_bonus: Mapped[int] = mapped_column(default=10)
    solo_min_players: Mapped[int] = mapped_column(default=16)
    seed: Mapped[int] = mapped_column(SeedDigits, index=True)  # index: the games that share a draw
    # The list of draws the game plays instead of drawing from its seed (docs/rules.md §6.18): each round's draw
    # as §6.3 writes it, one a line (trainer.duplicate.imposed). None: the seed draws the racks.
    imposed_draws: Mapped[str | None] = mapped_column(Text, default=None)
    max_rounds: Mapped[int | None] = mapped_column(default=None)
    # What warnings cost (docs/rules.md §6.19): the federation's 5 points from the fourth on.
    warning_penalty: Mapped[int] = mapped_column(default=5, server_default="5")
    warnings_before_penalty: Mapped[int] = mapped_column(default=3, server_default="3")
    # The federation's first-move rules (docs/rules.md §6.7, §6.9): on for a new game; games made before
    # they existed keep the rules they were played with (the migration's default).
    first_play_across: Mapped[bool] = mapped_column(default=True, server_default=false())
    first_play_best_placement: Mapped[bool] = mapped_column(default=True, server_default=false())
    # The projector's optional cues (trainer.duplicate.settings, section "projector").
    thirty_seconds_cue: Mapped[bool] = mapped_column(default=False, server_default=false())
    end_beeps: Mapped[bool] = mapped_column(default=False, server_default=false())
    spoken_announcements: Mapped[bool] = mapped_column(default=False, server_default=false())
    # A room of a simultaneous game, or a game of a tournament (trainer.games.competitions); its number there.
    competition_id: Mapped[int | None] = mapped_column(ForeignKey("competition.id"), default=None, index=True)
    locked: Mapped[bool] = mapped_column(default=False)  # the director closed the room to new players
    # A room's name on its simultaneous game's public ranking (its club's), never its join code; None: "Room n".
    room_name: Mapped[str | None] = mapped_column(String(80), default=None)
    status: Mapped[str] = mapped_column(String(16), default="lobby")  # lobby playing paused revealing finished
    round_number: Mapped[int] = mapped_column(default=0)
    board: Mapped[str] = mapped_column(Text)  # rows joined, as in ``tirage analyze``
    end_reason: Mapped[str | None] = mapped_column(String(40), default=None)
    next_round_at: Mapped[datetime | None] = mapped_column(default=None)  # end of the reveal pause
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    rounds: Mapped[list[Round]] = relationship(back_populates="game", order_by="Round.number")
    players: Mapped[list[Player]] = relationship(back_populates="game", order_by="Player.id")


register_code_column(Game.join_code)


class Player(Model):
    """Someone who joined a game with its code; their token only lets them submit for themselves."""

    __tablename__ = "player"
    __table_args__ = (
        UniqueConstraint("game_id", "name"),
        Index("ix_player_game_id_name_key", "game_id", "name_key", unique=True),  # no second "Zoe" (core.names)
        Index("ix_player_game_id_table_number", "game_id", "table_number", unique=True),  # one player a table
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("game.id"))
    name: Mapped[str] = mapped_column(String(40))
    name_key: Mapped[str] = mapped_column(String(160))  # trainer.core.names.name_key
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    joined_at: Mapped[datetime] = mapped_column(default=utcnow)
    # A one-time code the director gives a player whose phone died (service.offer_rejoin), hashed like tokens.
    rejoin_hash: Mapped[str | None] = mapped_column(String(64), default=None, index=True, unique=True)
    rejoin_expires_at: Mapped[datetime | None] = mapped_column(default=None)
    # A player without a phone (docs/rules.md §6.21): the arbiters enter their paper bulletins; nobody holds
    # their token. Their numbered place in the room, for the bulletins and the sheets (any player may have one).
    paper: Mapped[bool] = mapped_column(default=False, server_default=false())
    table_number: Mapped[int | None] = mapped_column(default=None)
    # The learner account this player's plays belong to (docs/rules.md §6.25): set by the player alone, from a
    # browser that holds both their token and the account's login (trainer.games.history.link).
    learner_id: Mapped[int | None] = mapped_column(ForeignKey("learner.id"), default=None, index=True)

    game: Mapped[Game] = relationship(back_populates="players")


class RetiredToken(Model):
    """A player token that stopped working, and why (docs/rules.md §6.16): its place was taken over by another
    phone (a rejoin) or its player was removed. Kept so the old phone is told which, not "join the game again"."""

    __tablename__ = "retired_token"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("game.id"), index=True)
    reason: Mapped[str] = mapped_column(String(16))  # "taken_over" or "player_removed"
    at: Mapped[datetime] = mapped_column(default=utcnow)


class Round(Model):
    """A round: its rack, its deadline, and once closed its tops and the play placed."""

    __tablename__ = "round"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("game.id"))
    number: Mapped[int]
    rack: Mapped[str] = mapped_column(String(16))
    reliquat: Mapped[str] = mapped_column(String(16), default="")
    draw_record: Mapped[str] = mapped_column(Text)  # RELIQUAT+NEW, rejets prefixed with '-'
    board_before: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="open")  # open, paused, closed
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    deadline: Mapped[datetime | None] = mapped_column(default=None)
    seconds_left_when_paused: Mapped[float | None] = mapped_column(default=None)
    closed_at: Mapped[datetime | None] = mapped_column(default=None)
    top_score: Mapped[int | None] = mapped_column(default=None)
    tops: Mapped[list[str] | None] = mapped_column(JSON, default=None)  # every top play, tie-break order
    placed_move: Mapped[str | None] = mapped_column(String(40), default=None)
    # [[score, how many legal plays score it]], best first: the rank of any play (docs/rules.md §6.10)
    legal_scores: Mapped[list[list[int]] | None] = mapped_column(JSON, default=None)
    best_plays: Mapped[list[list[object]] | None] = mapped_column(JSON, default=None)  # [[play, score]], best first

    game: Mapped[Game] = relationship(back_populates="rounds")


class Submission(Model):
    """A play handed in (append-only; the last accepted before the deadline counts)."""

    __tablename__ = "submission"
    __table_args__ = (Index("ix_submission_round_player", "round_id", "player_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("round.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"))
    move: Mapped[str] = mapped_column(String(40))
    score_as_placed: Mapped[int]
    received_at: Mapped[datetime] = mapped_column(default=utcnow)
    # A paper bulletin: who typed it in; ``declared``: entered after the deadline on the arbiter's word that the
    # slip was handed in before it (docs/rules.md §6.21).
    entered_by: Mapped[str | None] = mapped_column(String(80), default=None)
    declared: Mapped[bool] = mapped_column(default=False, server_default=false())


class Result(Model):
    """A player's result for a closed round, as computed at the close (corrections apply on top)."""

    __tablename__ = "result"
    __table_args__ = (UniqueConstraint("round_id", "player_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("round.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"))
    move: Mapped[str | None] = mapped_column(String(40))
    score: Mapped[int]
    valid: Mapped[bool]
    invalid_words: Mapped[list[str] | None] = mapped_column(JSON, default=None)
    rank: Mapped[int | None] = mapped_column(default=None)  # among all legal plays of the round


class Correction(Model):
    """A director's correction of a player's round score, with its reason; never overwrites."""

    __tablename__ = "correction"

    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("round.id"))
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"))
    score: Mapped[int]
    reason: Mapped[str] = mapped_column(Text)
    author: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Ruling(Model):
    """An arbiter's ruling on a player's round: a warning, a penalty, a solo granted or withdrawn
    (trainer.duplicate.results.RulingKind), or the cancellation of an earlier ruling (``kind`` "cancel",
    ``cancels`` its id). Append-only like corrections: a mistaken ruling is cancelled, never erased."""

    __tablename__ = "ruling"

    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("round.id"), index=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id"))
    kind: Mapped[str] = mapped_column(String(16))
    points: Mapped[int] = mapped_column(default=0)  # a penalty's points
    cancels: Mapped[int | None] = mapped_column(ForeignKey("ruling.id"), default=None)
    reason: Mapped[str] = mapped_column(Text)
    author: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class Event(Model):
    """The append-only log of a game: draws, submissions, closes, placements, corrections.

    Its increasing ``id`` is also the Server-Sent Events id, so a client that reconnects with
    ``Last-Event-ID`` gets every state change it missed.
    """

    __tablename__ = "event"
    __table_args__ = (Index("ix_event_game_id_id", "game_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("game.id"))
    kind: Mapped[str] = mapped_column(String(32))
    data: Mapped[dict[str, object]] = mapped_column(JSON)
    author: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class PlayerRecord(Model):
    """A linked player's figures in a finished game, worked out once (trainer.games.history) and kept while the
    game's event log does not move (``version``: its last event id; a correction after the end moves it)."""

    __tablename__ = "player_record"

    id: Mapped[int] = mapped_column(primary_key=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("player.id", ondelete="CASCADE"), unique=True)
    learner_id: Mapped[int] = mapped_column(ForeignKey("learner.id"), index=True)
    game_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("game.id"))
    version: Mapped[int] = mapped_column(default=0)
    played_at: Mapped[datetime] = mapped_column()  # when the game's last round closed
    total: Mapped[int] = mapped_column(default=0)
    top_total: Mapped[int] = mapped_column(default=0)
    percentage: Mapped[str] = mapped_column(String(12), default="0.00")  # two decimals, as §6.13 writes it
    rank: Mapped[int | None] = mapped_column(default=None)
    players: Mapped[int] = mapped_column(default=0)
    rounds: Mapped[int] = mapped_column(default=0)
    losses: Mapped[dict[str, list[int]]] = mapped_column(JSON, default=dict)  # cause: [points, rounds]
    # Whether the tops missed in this game went to the "From my games" deck (docs/rules.md §7.12): once only.
    carded: Mapped[bool] = mapped_column(default=False, server_default=false())


class PracticeSession(Model):
    """A learner's training alone (docs/rules.md §6.27 solo practice, §6.26 topping): the rounds of an archived game
    or of a fresh draw, played round by round. Kept whole, so that it is resumed where it was left."""

    __tablename__ = "practice_session"

    # Random, like a game's: the id is in the session's URLs.
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False, default=lambda: new_game_id())
    learner_id: Mapped[int] = mapped_column(ForeignKey("learner.id"), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # "solo" or "topping" (trainer.games.practice.KINDS)
    # The archived game replayed; None for a fresh draw (then ``seed`` draws the racks).
    source_game_id: Mapped[int | None] = mapped_column(BigInteger, ForeignKey("game.id"), default=None, index=True)
    seed: Mapped[int | None] = mapped_column(SeedDigits, default=None)
    rules: Mapped[str] = mapped_column(String(16))
    lexicon: Mapped[str] = mapped_column(String(40))
    lexicon_edition: Mapped[str | None] = mapped_column(String(80), default=None)
    lexicon_sha256: Mapped[str | None] = mapped_column(String(64), default=None)
    notation: Mapped[str] = mapped_column(String(16))
    variant: Mapped[str] = mapped_column(String(16), default="classic")
    draw_rule: Mapped[dict[str, object]] = mapped_column(JSON)
    first_play_across: Mapped[bool] = mapped_column(default=True)
    first_play_best_placement: Mapped[bool] = mapped_column(default=True)
    max_rounds: Mapped[int | None] = mapped_column(default=None)
    # A solo round's clock (None: untimed); a topping round's time limit.
    round_seconds: Mapped[int | None] = mapped_column(default=None)
    # What a topping session's penalties and hints cost (trainer.duplicate.topping.ToppingCosts as a dict).
    costs: Mapped[dict[str, object] | None] = mapped_column(JSON, default=None)
    status: Mapped[str] = mapped_column(String(16), default="playing")  # playing, finished
    round_number: Mapped[int] = mapped_column(default=0)  # the round shown last (0: none yet)
    rounds_total: Mapped[int | None] = mapped_column(default=None)  # known for a replay; a fresh draw's at its end
    end_reason: Mapped[str | None] = mapped_column(String(40), default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    # Finished and its missed tops taken for the "From my games" deck (docs/rules.md §7.12), once.
    carded: Mapped[bool] = mapped_column(default=False, server_default=false())

    rounds: Mapped[list[PracticeRound]] = relationship(
        back_populates="session", order_by="PracticeRound.number", cascade="all, delete-orphan"
    )


class PracticeRound(Model):
    """A round of a practice session: what the round is (copied from the archived game, or drawn and analysed ahead of
    the player for a fresh draw) and, once played, the learner's answer."""

    __tablename__ = "practice_round"
    __table_args__ = (UniqueConstraint("session_id", "number"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    session_id: Mapped[int] = mapped_column(BigInteger, ForeignKey("practice_session.id", ondelete="CASCADE"))
    number: Mapped[int]
    rack: Mapped[str] = mapped_column(String(16))
    draw_record: Mapped[str] = mapped_column(Text)
    board_before: Mapped[str] = mapped_column(Text)
    top_score: Mapped[int]
    tops: Mapped[list[str]] = mapped_column(JSON)  # every top, tie-break order
    placed_move: Mapped[str] = mapped_column(String(40))  # the top the round placed (the archived game's choice)
    legal_scores: Mapped[list[list[int]] | None] = mapped_column(JSON, default=None)  # [[score, count]], best first
    best_plays: Mapped[list[list[object]] | None] = mapped_column(JSON, default=None)  # [[play, score]], best first
    shown_at: Mapped[datetime | None] = mapped_column(default=None)  # first shown to the learner: the clock starts
    deadline: Mapped[datetime | None] = mapped_column(default=None)  # a timed round's
    answered_at: Mapped[datetime | None] = mapped_column(default=None)  # the round is over for the learner
    move: Mapped[str | None] = mapped_column(String(40), default=None)  # the play counted, canonical; None: none
    score: Mapped[int] = mapped_column(default=0)  # what it counts (0 when invalid, late or missing)
    valid: Mapped[bool | None] = mapped_column(default=None)
    invalid_words: Mapped[list[str] | None] = mapped_column(JSON, default=None)
    rank: Mapped[int | None] = mapped_column(default=None)  # among the round's legal plays (§6.10)
    late: Mapped[bool] = mapped_column(default=False)
    seconds: Mapped[float | None] = mapped_column(default=None)  # topping: the round's time, costs included
    found: Mapped[bool | None] = mapped_column(default=None)  # topping: the top was found in the time limit

    session: Mapped[PracticeSession] = relationship(back_populates="rounds")


class PracticeAttempt(Model):
    """What a topping round saw besides its answer (append-only): a wrong play, or a hint taken, with its cost."""

    __tablename__ = "practice_attempt"

    id: Mapped[int] = mapped_column(primary_key=True)
    round_id: Mapped[int] = mapped_column(ForeignKey("practice_round.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))  # "play" (a wrong play) or "hint"
    move: Mapped[str | None] = mapped_column(String(40), default=None)  # the play, canonical
    score: Mapped[int | None] = mapped_column(default=None)
    hint: Mapped[str | None] = mapped_column(String(16), default=None)  # length, direction, square, letter
    cost_seconds: Mapped[float] = mapped_column(default=0.0)
    at: Mapped[datetime] = mapped_column(default=utcnow)
