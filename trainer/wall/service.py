"""Running word walls on the database.

A wall goes lobby → running → finished. Its transitions are guarded ``UPDATE ... WHERE status =``
statements, like the duplicate games' (:mod:`trainer.games.service`), so two clicks or two
processes never start a wall twice. A wall ends at its deadline without any scheduler: whoever
reads it next (a phone, the screen) finishes it, and every answer is checked against the deadline
in the same guarded statement that takes the wall's row, so nothing late is ever credited.

Refusals are :class:`~trainer.core.errors.Refused` with a stable ``code`` and ``params``; the
pages say them in the reader's language (``trainer.web.wall``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from drills.cards import ANAGRAM, CardError, split_answers
from drills.probability import MAX_LENGTH, MIN_LENGTH, alphagram, probability_index
from trainer.engine.lexicon import Lexicon, normalise_word

from ..core.accounts import Director
from ..core.clock import aware, utcnow
from ..core.codes import hash_token, new_join_code, new_token, typed_code
from ..core.database import db
from ..core.errors import Refused
from ..core.lexicons import lexicon_store
from ..core.names import player_name
from .models import Wall, WallFind, WallPlayer

MIN_ALPHAGRAMS, MAX_ALPHAGRAMS = 1, 100
MIN_SECONDS, MAX_SECONDS = 10, 3600
DEFAULT_SECONDS = 300
MAX_PASTED = 20_000  # characters of pasted words: a hundred long words and more, never a whole list
SHOWN_BAD_WORDS = 8  # unknown pasted words named in the refusal (the rest are counted)


# --- creating a wall ------------------------------------------------------------------------------


def _int_spec(spec: Mapping[str, Any], key: str, low: int, high: int, default: int | None = None) -> int:
    value = spec.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Refused(
            "wall_bad_number", f"'{key}' must be a whole number from {low} to {high}", setting=key, low=low, high=high
        )
    return value


def _lexicon(name: object) -> Lexicon:
    catalogue = lexicon_store().catalogue()
    if not isinstance(name, str) or name not in catalogue:
        raise Refused(
            "bad_setting", f"unknown lexicon {name!r} (known: {', '.join(sorted(catalogue))})", setting="lexicon"
        )
    return lexicon_store().load(name)


def _keys_from_words(lexicon: Lexicon, text: str) -> list[str]:
    """The alphagrams of pasted words, in the order pasted (repeats and anagrams of earlier words once).

    Every word must be in the lexicon: a typing mistake would otherwise put a wrong alphagram on
    the room's screen.
    """
    if len(text) > MAX_PASTED:
        raise Refused("wall_words_too_long", f"at most {MAX_PASTED} characters of words", limit=MAX_PASTED)
    keys: dict[str, None] = {}
    unknown: list[str] = []
    for word in split_answers(text.splitlines()):
        if MIN_LENGTH <= len(word) <= MAX_LENGTH and word in lexicon:
            keys.setdefault(alphagram(word), None)
        else:
            unknown.append(word)
    if unknown:
        shown = ", ".join(unknown[:SHOWN_BAD_WORDS]) + (" …" if len(unknown) > SHOWN_BAD_WORDS else "")
        raise Refused(
            "wall_unknown_words",
            f"not words of {lexicon.name}: {shown}",
            words=shown,
            lexicon=lexicon.name,
            count=len(unknown),
        )
    if not keys:
        raise Refused("wall_no_words", "paste at least one word")
    return list(keys)


def _keys_from_range(lexicon: Lexicon, spec: Mapping[str, Any]) -> list[str]:
    """Ranks ``first``-``last`` of the alphagrams of ``length`` letters, in probability order (drills)."""
    length = _int_spec(spec, "length", MIN_LENGTH, MAX_LENGTH)
    first = _int_spec(spec, "first", 1, 10_000_000)
    last = _int_spec(spec, "last", 1, 10_000_000)
    if last < first:
        raise Refused("wall_bad_range", "'last' must not be below 'first'", first=first, last=last)
    if last - first + 1 > MAX_ALPHAGRAMS:
        raise Refused("wall_too_many", f"at most {MAX_ALPHAGRAMS} alphagrams on a wall", limit=MAX_ALPHAGRAMS)
    index = probability_index(lexicon)
    entries = index.between(length, first, last)
    if not entries:
        raise Refused(
            "wall_empty_range",
            f"{lexicon.name} has {len(index.ranked(length))} alphagrams of {length} letters",
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
            raise Refused("bad_setting", str(exc), setting="alphagrams") from None
        answers[card.key] = card.solutions()
    return answers


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
        raise Refused("wall_too_many", f"at most {MAX_ALPHAGRAMS} alphagrams on a wall", limit=MAX_ALPHAGRAMS)
    answers = _answers(lexicon, keys)
    wall = Wall(
        director_id=director.id,
        join_code=new_join_code(),
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
        raise Refused("no_code", "no free join code: try again") from None
    return wall


# --- players ---------------------------------------------------------------------------------------


def wall_for_code(code: object) -> Wall | None:
    if not isinstance(code, str) or not code.strip():
        return None
    return db.session.execute(select(Wall).where(Wall.join_code == code.strip().upper())).scalar_one_or_none()


def join_wall(code: object, name: object, now: datetime | None = None) -> tuple[WallPlayer, str]:
    """A new player of the wall with join code ``code``, and their token (shown once, kept hashed).

    Players may join while the wall runs (someone always arrives late), not once it is over.
    """
    if not isinstance(code, str) or not code.strip():
        raise Refused("code_missing", "'code' is missing: give the wall's join code")
    cleaned = player_name(name)
    wall = wall_for_code(code)
    if wall is None:
        upper = typed_code(code)
        raise Refused("unknown_code", f"no wall has the code {upper!r}", join_code=upper)
    expire(wall, now)
    if wall.status == "finished":
        raise Refused("wall_over", "this wall is over")
    taken = db.session.execute(
        select(WallPlayer.id).where(WallPlayer.wall_id == wall.id, WallPlayer.name == cleaned)
    ).first()
    if taken is not None:
        raise Refused("name_taken", f"the name {cleaned!r} is taken on this wall", name=cleaned)
    token = new_token()
    player = WallPlayer(wall_id=wall.id, name=cleaned, token_hash=hash_token(token), joined_at=now or utcnow())
    db.session.add(player)
    try:
        db.session.commit()
    except IntegrityError:  # the same name joined between the check and here
        db.session.rollback()
        raise Refused("name_taken", f"the name {cleaned!r} is taken on this wall", name=cleaned) from None
    return player, token


def player_for_token(token: str) -> WallPlayer | None:
    return db.session.execute(select(WallPlayer).where(WallPlayer.token_hash == hash_token(token))).scalar_one_or_none()


# --- the clock -------------------------------------------------------------------------------------


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
        raise Refused("wall_started", "the wall has already started")
    db.session.commit()
    db.session.refresh(wall)


def expire(wall: Wall, now: datetime | None = None) -> bool:
    """Finish a running wall whose deadline has passed (called on every read); whether this call did."""
    now = now or utcnow()
    if wall.status != "running" or wall.deadline is None or aware(wall.deadline) > now:
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
        raise Refused("wall_over", "the wall is already over")
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
        raise Refused("wall_over", "the wall changed at this moment: try again")
    db.session.commit()
    db.session.refresh(wall)


def seconds_left(wall: Wall, now: datetime | None = None) -> float | None:
    """Seconds until the deadline of a running wall (None otherwise), for the pages' countdowns."""
    if wall.status != "running" or wall.deadline is None:
        return None
    return max(0.0, (aware(wall.deadline) - (now or utcnow())).total_seconds())


# --- answers ---------------------------------------------------------------------------------------


def submit_answer(wall: Wall, player: WallPlayer, text: object, now: datetime | None = None) -> WallFind:
    """Credit ``player`` with a word of the wall, if nobody found it first; refused with a reason otherwise.

    The find is committed before this returns. Checks, in order: the wall is running, the word
    is typed, its alphagram is on the wall, it is one of that alphagram's words, nobody has it yet.
    """
    now = now or utcnow()
    if player.wall_id != wall.id:
        raise Refused("wrong_wall", "this player is not on this wall")
    word = normalise_word(text)[: 2 * MAX_LENGTH] if isinstance(text, str) else ""
    if not word:
        raise Refused("word_missing", "'word' is missing: type a word")
    if wall.status == "lobby":
        raise Refused("wall_not_started", "the wall has not started")
    expire(wall, now)
    if wall.status != "running":
        raise Refused("wall_over", "the wall is over", word=word)
    key = alphagram(word)
    if key not in wall.answers:
        raise Refused("not_on_wall", f"{word} is not on this wall", word=word)
    if word not in wall.answers[key]:
        raise Refused("not_a_word", f"{word} is not a word of {wall.lexicon}", word=word, lexicon=wall.lexicon)
    # Taking the wall's row orders this answer with the end of the wall and with other answers.
    taken = db.session.execute(
        update(Wall).where(Wall.id == wall.id, Wall.status == "running", Wall.deadline > now).values(status=Wall.status)
    )
    if taken.rowcount != 1:  # type: ignore[attr-defined]
        db.session.rollback()
        expire(wall, now)
        raise Refused("wall_over", "the wall is over", word=word)
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
            raise Refused("found_by_you", f"you found {word} already", word=word) from None
        by = first[1] if first is not None else ""
        raise Refused("already_found", f"{word} was found already by {by}", word=word, name=by) from None
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
