"""Running word walls on the database.

A wall goes lobby → running → finished. Its transitions are guarded ``UPDATE ... WHERE status =``
statements, like the duplicate games' (:mod:`trainer.games.service`), so two clicks or two
processes never start a wall twice. A wall ends at its deadline without any scheduler: whoever
reads it next (a phone, the screen) finishes it, and every answer is checked against the deadline
in the same guarded statement that takes the wall's row, so nothing late is ever credited.

Refusals are :class:`~trainer.games.service.GameError` with a stable ``code`` and ``params``; the
pages say them in the reader's language (``trainer.web.wall``).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from drills.cards import ANAGRAM, CardError, split_answers
from drills.probability import MAX_LENGTH, MIN_LENGTH, alphagram, probability_index
from trainer.engine.lexicon import Lexicon, normalise_word

from ..extensions import db, lexicon_store
from ..games.models import Director, Game, utcnow
from ..games.service import JOIN_CODE_ALPHABET, JOIN_CODE_LENGTH, GameError, hash_token
from .models import Wall, WallFind, WallPlayer

MIN_ALPHAGRAMS, MAX_ALPHAGRAMS = 1, 100
MIN_SECONDS, MAX_SECONDS = 10, 3600
DEFAULT_SECONDS = 300
MAX_PASTED = 20_000  # characters of pasted words: a hundred long words and more, never a whole list
MAX_NAME = 40
SHOWN_BAD_WORDS = 8  # unknown pasted words named in the refusal (the rest are counted)


# --- creating a wall ------------------------------------------------------------------------------


def _int_spec(spec: Mapping[str, Any], key: str, low: int, high: int, default: int | None = None) -> int:
    value = spec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise GameError(
            f"'{key}' must be a whole number from {low} to {high}",
            422,
            code="wall_bad_number",
            setting=key,
            low=low,
            high=high,
        )
    return value


def _lexicon(name: object) -> Lexicon:
    catalogue = lexicon_store().catalogue()
    if not isinstance(name, str) or name not in catalogue:
        raise GameError(
            f"unknown lexicon {name!r} (known: {', '.join(sorted(catalogue))})",
            422,
            code="bad_setting",
            setting="lexicon",
        )
    return lexicon_store().load(name)


def _keys_from_words(lexicon: Lexicon, text: str) -> list[str]:
    """The alphagrams of pasted words, in the order pasted (repeats and anagrams of earlier words once).

    Every word must be in the lexicon: a typing mistake would otherwise put a wrong alphagram on
    the room's screen.
    """
    if len(text) > MAX_PASTED:
        raise GameError(f"at most {MAX_PASTED} characters of words", 422, code="wall_words_too_long", limit=MAX_PASTED)
    keys: dict[str, None] = {}
    unknown: list[str] = []
    for word in split_answers(text.splitlines()):
        if MIN_LENGTH <= len(word) <= MAX_LENGTH and word in lexicon:
            keys.setdefault(alphagram(word), None)
        else:
            unknown.append(word)
    if unknown:
        shown = ", ".join(unknown[:SHOWN_BAD_WORDS]) + (" …" if len(unknown) > SHOWN_BAD_WORDS else "")
        raise GameError(
            f"not words of {lexicon.name}: {shown}",
            422,
            code="wall_unknown_words",
            words=shown,
            lexicon=lexicon.name,
            count=len(unknown),
        )
    if not keys:
        raise GameError("paste at least one word", 422, code="wall_no_words")
    return list(keys)


def _keys_from_range(lexicon: Lexicon, spec: Mapping[str, Any]) -> list[str]:
    """Ranks ``first``-``last`` of the alphagrams of ``length`` letters, in probability order (drills)."""
    length = _int_spec(spec, "length", MIN_LENGTH, MAX_LENGTH)
    first = _int_spec(spec, "first", 1, 10_000_000)
    last = _int_spec(spec, "last", 1, 10_000_000)
    if last < first:
        raise GameError("'last' must not be below 'first'", 422, code="wall_bad_range", first=first, last=last)
    if last - first + 1 > MAX_ALPHAGRAMS:
        raise GameError(
            f"at most {MAX_ALPHAGRAMS} alphagrams on a wall", 422, code="wall_too_many", limit=MAX_ALPHAGRAMS
        )
    index = probability_index(lexicon)
    entries = index.between(length, first, last)
    if not entries:
        raise GameError(
            f"{lexicon.name} has {len(index.ranked(length))} alphagrams of {length} letters",
            422,
            code="wall_empty_range",
            length=length,
            count=len(index.ranked(length)),
        )
    return [entry.letters for entry in entries]


def _answers(lexicon: Lexicon, keys: Sequence[str]) -> dict[str, list[str]]:
    """Each alphagram's words, from its anagram card: the same answers a learner's drill accepts."""
    answers: dict[str, list[str]] = {}
    for key in keys:
        try:
            card = ANAGRAM.card(lexicon, key)
        except CardError as exc:  # not from the lexicon's tiles: only a hand-made spec can get here
            raise GameError(str(exc), 422, code="bad_setting", setting="alphagrams") from None
        answers[card.key] = card.solutions()
    return answers


def _new_join_code() -> str:
    """A code no wall and no game has: a phone that types it on either join page is never misled."""
    for _ in range(20):
        code = "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))
        taken = (
            db.session.execute(select(Wall.id).where(Wall.join_code == code)).first()
            or db.session.execute(select(Game.id).where(Game.join_code == code)).first()
        )
        if taken is None:
            return code
    raise GameError("no free join code: try again", 503, code="no_code")


def create_wall(director: Director, lexicon_name: object, spec: Mapping[str, Any]) -> Wall:
    """A new wall in the lobby. ``spec``: ``seconds`` and either ``words`` (pasted text: their
    alphagrams) or ``length``, ``first`` and ``last`` (probability ranks, as players say "7s 1-50")."""
    lexicon = _lexicon(lexicon_name)
    seconds = _int_spec(spec, "seconds", MIN_SECONDS, MAX_SECONDS, DEFAULT_SECONDS)
    if "words" in spec:
        words = spec["words"]
        keys = _keys_from_words(lexicon, words if isinstance(words, str) else "")
    else:
        keys = _keys_from_range(lexicon, spec)
    if not MIN_ALPHAGRAMS <= len(keys) <= MAX_ALPHAGRAMS:
        raise GameError(
            f"at most {MAX_ALPHAGRAMS} alphagrams on a wall", 422, code="wall_too_many", limit=MAX_ALPHAGRAMS
        )
    answers = _answers(lexicon, keys)
    wall = Wall(
        director_id=director.id,
        join_code=_new_join_code(),
        lexicon=lexicon.name,
        alphagrams=list(answers),
        answers=answers,
        seconds=seconds,
        status="lobby",
    )
    db.session.add(wall)
    try:
        db.session.commit()
    except IntegrityError:  # the same code drawn by another wall a moment ago
        db.session.rollback()
        raise GameError("no free join code: try again", 503, code="no_code") from None
    return wall


# --- players ---------------------------------------------------------------------------------------


def _clean_name(name: object) -> str:
    """A player's name, spaces collapsed; control characters refused (PostgreSQL cannot store NUL)."""
    if not isinstance(name, str):
        raise GameError("'name' must be 1 to 40 characters", 422, code="bad_name")
    cleaned = " ".join(name.split())
    if not 1 <= len(cleaned) <= MAX_NAME or not cleaned.isprintable():
        raise GameError("'name' must be 1 to 40 characters", 422, code="bad_name")
    return cleaned


def wall_for_code(code: object) -> Wall | None:
    if not isinstance(code, str) or not code.strip():
        return None
    return db.session.execute(select(Wall).where(Wall.join_code == code.strip().upper())).scalar_one_or_none()


def join_wall(code: object, name: object, now: datetime | None = None) -> tuple[WallPlayer, str]:
    """A new player of the wall with join code ``code``, and their token (shown once, kept hashed).

    Players may join while the wall runs (someone always arrives late), not once it is over.
    """
    if not isinstance(code, str) or not code.strip():
        raise GameError("'code' is missing: give the wall's join code", 422, code="code_missing")
    cleaned = _clean_name(name)
    wall = wall_for_code(code)
    if wall is None:
        upper = code.strip().upper()[: 2 * JOIN_CODE_LENGTH]
        raise GameError(f"no wall has the code {upper!r}", 404, code="unknown_code", join_code=upper)
    expire(wall, now)
    if wall.status == "finished":
        raise GameError("this wall is over", 409, code="wall_over")
    taken = db.session.execute(
        select(WallPlayer.id).where(WallPlayer.wall_id == wall.id, WallPlayer.name == cleaned)
    ).first()
    if taken is not None:
        raise GameError(f"the name {cleaned!r} is taken on this wall", 409, code="name_taken", name=cleaned)
    token = secrets.token_urlsafe(24)
    player = WallPlayer(wall_id=wall.id, name=cleaned, token_hash=hash_token(token), joined_at=now or utcnow())
    db.session.add(player)
    try:
        db.session.commit()
    except IntegrityError:  # the same name joined between the check and here
        db.session.rollback()
        raise GameError(f"the name {cleaned!r} is taken on this wall", 409, code="name_taken", name=cleaned) from None
    return player, token


def player_for_token(token: str) -> WallPlayer | None:
    return db.session.execute(select(WallPlayer).where(WallPlayer.token_hash == hash_token(token))).scalar_one_or_none()


# --- the clock -------------------------------------------------------------------------------------


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def start_wall(wall: Wall, now: datetime | None = None) -> None:
    """Put the alphagrams up and start the countdown (once: a second click is refused)."""
    now = now or utcnow()
    done = db.session.execute(
        update(Wall)
        .where(Wall.id == wall.id, Wall.status == "lobby")
        .values(status="running", started_at=now, deadline=now + timedelta(seconds=wall.seconds))
    )
    if done.rowcount != 1:  # type: ignore[attr-defined]
        db.session.rollback()
        raise GameError("the wall has already started", 409, code="wall_started")
    db.session.commit()
    db.session.refresh(wall)


def expire(wall: Wall, now: datetime | None = None) -> bool:
    """Finish a running wall whose deadline has passed (called on every read); whether this call did."""
    now = now or utcnow()
    if wall.status != "running" or wall.deadline is None or _aware(wall.deadline) > now:
        return False
    done = db.session.execute(
        update(Wall).where(Wall.id == wall.id, Wall.status == "running", Wall.deadline <= now).values(status="finished")
    )
    db.session.commit()
    db.session.refresh(wall)
    return bool(done.rowcount == 1)  # type: ignore[attr-defined]


def end_wall(wall: Wall, now: datetime | None = None) -> None:
    """The director's "End now": the deadline becomes now, so an answer a moment later is late."""
    now = now or utcnow()
    if expire(wall, now) or wall.status == "finished":
        raise GameError("the wall is already over", 409, code="wall_over")
    done = db.session.execute(
        update(Wall)
        .where(Wall.id == wall.id, Wall.status == "running", Wall.deadline > now)
        .values(status="finished", deadline=now)
    )
    if done.rowcount != 1:  # type: ignore[attr-defined]
        done = db.session.execute(
            update(Wall).where(Wall.id == wall.id, Wall.status == "lobby").values(status="finished")
        )
    if done.rowcount != 1:  # type: ignore[attr-defined]
        db.session.rollback()
        raise GameError("the wall changed at this moment: try again", 409, code="wall_over")
    db.session.commit()
    db.session.refresh(wall)


def seconds_left(wall: Wall, now: datetime | None = None) -> float | None:
    """Seconds until the deadline of a running wall (None otherwise), for the pages' countdowns."""
    if wall.status != "running" or wall.deadline is None:
        return None
    return max(0.0, (_aware(wall.deadline) - (now or utcnow())).total_seconds())


# --- answers ---------------------------------------------------------------------------------------


def submit_answer(wall: Wall, player: WallPlayer, text: object, now: datetime | None = None) -> WallFind:
    """Credit ``player`` with a word of the wall, if nobody found it first; refused with a reason otherwise.

    The find is committed before this returns. Checks, in order: the wall is running, the word
    is typed, its alphagram is on the wall, it is one of that alphagram's words, nobody has it yet.
    """
    now = now or utcnow()
    if player.wall_id != wall.id:
        raise GameError("this player is not on this wall", 403, code="wrong_wall")
    word = normalise_word(text)[: 2 * MAX_LENGTH] if isinstance(text, str) else ""
    if not word:
        raise GameError("'word' is missing: type a word", 422, code="word_missing")
    if wall.status == "lobby":
        raise GameError("the wall has not started", 409, code="wall_not_started")
    expire(wall, now)
    if wall.status != "running":
        raise GameError("the wall is over", 409, code="wall_over", word=word)
    key = alphagram(word)
    if key not in wall.answers:
        raise GameError(f"{word} is not on this wall", 422, code="not_on_wall", word=word)
    if word not in wall.answers[key]:
        raise GameError(
            f"{word} is not a word of {wall.lexicon}", 422, code="not_a_word", word=word, lexicon=wall.lexicon
        )
    # Taking the wall's row orders this answer with the end of the wall and with other answers.
    taken = db.session.execute(
        update(Wall).where(Wall.id == wall.id, Wall.status == "running", Wall.deadline > now).values(status=Wall.status)
    )
    if taken.rowcount != 1:  # type: ignore[attr-defined]
        db.session.rollback()
        expire(wall, now)
        raise GameError("the wall is over", 409, code="wall_over", word=word)
    find = WallFind(wall_id=wall.id, player_id=player.id, word=word, alphagram=key, found_at=now)
    db.session.add(find)
    try:
        db.session.commit()
    except IntegrityError:  # found already (by someone else, or by this player on another phone)
        db.session.rollback()
        first = db.session.execute(
            select(WallFind, WallPlayer.name)
            .join(WallPlayer, WallFind.player_id == WallPlayer.id)
            .where(WallFind.wall_id == wall.id, WallFind.word == word)
        ).first()
        if first is not None and first[0].player_id == player.id:
            raise GameError(f"you found {word} already", 409, code="found_by_you", word=word) from None
        by = first[1] if first is not None else ""
        raise GameError(f"{word} was found already by {by}", 409, code="already_found", word=word, name=by) from None
    return find


# --- what the pages show ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    word: str
    name: str
    mine: bool = False


@dataclass(frozen=True)
class Tile:
    """One alphagram on the wall with its words found so far (and, once the wall is over, the rest)."""

    key: str
    total: int
    found: tuple[Found, ...]
    missed: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return len(self.found) == self.total


@dataclass(frozen=True)
class Score:
    rank: int
    name: str
    found: int
    player_id: int


@dataclass(frozen=True)
class WallView:
    """Everything a page of the wall shows, read once (the deadline applied first)."""

    wall: Wall
    status: str
    seconds_left: float | None
    tiles: tuple[Tile, ...]
    scores: tuple[Score, ...]  # most words first; ties by who got there first
    found: int
    total: int
    mine: tuple[str, ...] = field(default=())

    @property
    def countdown(self) -> int | None:
        """Whole seconds left, rounded up as the clock shows them."""
        if self.seconds_left is None:
            return None
        whole = int(self.seconds_left)
        return whole + 1 if self.seconds_left > whole else whole


def wall_view(wall: Wall, player: WallPlayer | None = None, now: datetime | None = None) -> WallView:
    now = now or utcnow()
    expire(wall, now)
    names = {p.id: p.name for p in wall.players}
    finds = (
        db.session.execute(select(WallFind).where(WallFind.wall_id == wall.id).order_by(WallFind.found_at, WallFind.id))
        .scalars()
        .all()
    )
    me = player.id if player is not None else None
    by_key: dict[str, list[Found]] = {}
    counts: dict[int, int] = dict.fromkeys(names, 0)
    last_find: dict[int, int] = {}
    for order, find in enumerate(finds):
        by_key.setdefault(find.alphagram, []).append(
            Found(find.word, names.get(find.player_id, ""), find.player_id == me)
        )
        counts[find.player_id] = counts.get(find.player_id, 0) + 1
        last_find[find.player_id] = order
    over = wall.status == "finished"
    tiles = []
    for key in wall.alphagrams:
        words = wall.answers.get(key, [])
        found = tuple(sorted(by_key.get(key, []), key=lambda f: f.word))
        got = {f.word for f in found}
        tiles.append(Tile(key, len(words), found, tuple(w for w in words if w not in got) if over else ()))
    ordered = sorted(counts, key=lambda pid: (-counts[pid], last_find.get(pid, len(finds)), names.get(pid, "")))
    scores: list[Score] = []
    for position, pid in enumerate(ordered, start=1):
        rank = scores[-1].rank if scores and scores[-1].found == counts[pid] else position
        scores.append(Score(rank, names.get(pid, ""), counts[pid], pid))
    mine = tuple(f.word for f in finds if f.player_id == me) if me is not None else ()
    return WallView(
        wall,
        wall.status,
        seconds_left(wall, now),
        tuple(tiles),
        tuple(scores),
        len(finds),
        sum(len(words) for words in wall.answers.values()),
        mine,
    )
