"""A reader for GCG game records (docs/rules.md §5.5).

A GCG file is a list of pragmas (``#player1 nick Full Name``, ``#lexicon NWL18``, ``#note ...``)
and event lines, one per turn or score change::

    >nick: RACK 8D WORD +score total      a play (English coordinate, ``.`` played through)
    >nick: RACK -XYZ +0 total             an exchange (``-7``: seven tiles, letters unknown)
    >nick: RACK - +0 total                a pass
    >nick: RACK -- -score total           the previous play withdrawn (a challenged phony)
    >nick: RACK (challenge) +5 total      a bonus for a play challenged but valid
    >nick: RACK (time) -10 total          a time penalty
    >nick: (RACK) +N total                the opponent's last rack, counted to the player out
    >nick: RACK (RACK) -N total           the player's own last rack, counted against them

The reader checks syntax only; replaying the plays on a board is the caller's business
(:func:`trainer.engine.notation.parse_move` reads ``event.play``). Quackle writes lower-case
coordinates, plain letters for played-through tiles and the cross words after the total: all
are accepted. Encoding: the ``#character-encoding`` pragma when present (it must be the first
line); otherwise UTF-8 when the bytes are valid UTF-8, else ISO 8859-1 (the GCG default).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

__all__ = [
    "ChallengeBonus",
    "EndRackPenalty",
    "EndRackPoints",
    "Event",
    "Exchange",
    "GCGError",
    "GCGGame",
    "Pass",
    "PhonyWithdrawn",
    "Placement",
    "Player",
    "TimePenalty",
    "decode_gcg",
    "parse_gcg",
    "read_gcg",
]


class GCGError(ValueError):
    """A GCG record that cannot be read; the message names the source and line."""

    def __init__(self, problem: str, line: int, source: str = "<gcg>") -> None:
        super().__init__(f"{source}, line {line}: {problem}")
        self.problem = problem
        self.line = line
        self.source = source


@dataclass(frozen=True)
class Player:
    """A ``#playerN nick Full Name`` pragma."""

    number: int
    nick: str
    name: str


@dataclass(frozen=True)
class Event:
    """Fields shared by every event line: where it is, who, the rack shown and the new total."""

    line: int
    nick: str
    rack: str
    total: int
    note: str = field(default="", kw_only=True)


@dataclass(frozen=True)
class Placement(Event):
    """Tiles put on the board: ``coordinate`` (English, ``8D`` across, ``D8`` down) and ``word``."""

    coordinate: str
    word: str
    score: int
    cross_words: tuple[str, ...] = ()  # Quackle lists them after the total

    @property
    def play(self) -> str:
        """``8D WORD``, ready for :func:`trainer.engine.notation.parse_move` (English notation)."""
        return f"{self.coordinate} {self.word}"

    @property
    def tiles_played(self) -> int:
        """How many rack tiles the play uses when played-through tiles are written as ``.``."""
        return sum(ch != "." for ch in self.word)


@dataclass(frozen=True)
class Exchange(Event):
    """Tiles swapped with the bag: ``tiles`` when named, else only ``count``."""

    tiles: str
    count: int


@dataclass(frozen=True)
class Pass(Event):
    """A turn passed (``-``)."""


@dataclass(frozen=True)
class PhonyWithdrawn(Event):
    """``--``: the player's previous play comes off the board and its ``score`` (negative) is lost."""

    score: int


@dataclass(frozen=True)
class ChallengeBonus(Event):
    """Points for a play challenged but valid (``(challenge)``)."""

    bonus: int


@dataclass(frozen=True)
class TimePenalty(Event):
    """Points lost on time (``(time)``); ``penalty`` is negative."""

    penalty: int


@dataclass(frozen=True)
class EndRackPoints(Event):
    """``(RACK) +N``: points the player earns from the tiles left on another player's rack."""

    tiles: str
    points: int


@dataclass(frozen=True)
class EndRackPenalty(Event):
    """``RACK (RACK) -N``: points the player loses for the tiles left on their own rack."""

    tiles: str
    points: int  # negative


@dataclass
class GCGGame:
    """A parsed record: its pragmas and its events in file order."""

    source: str = "<gcg>"
    players: list[Player] = field(default_factory=list)
    lexicon: str | None = None
    encoding: str | None = None
    title: str | None = None
    description: str | None = None
    id: str | None = None
    incomplete: bool = False
    last_racks: dict[int, str] = field(default_factory=dict)  # ``#rack1``/``#rack2``
    notes: list[str] = field(default_factory=list)  # notes before the first event
    other_pragmas: list[tuple[str, str]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    def player(self, nick: str) -> Player | None:
        """The first player with this nickname (Quackle may give both players the same one)."""
        return next((p for p in self.players if p.nick == nick), None)

    @property
    def placements(self) -> list[Placement]:
        return [e for e in self.events if isinstance(e, Placement)]


_PRAGMA = re.compile(r"^#(?P<name>[A-Za-z][\w-]*)(?:\s+(?P<value>.*?))?\s*$")
_PLAYER = re.compile(r"^(?P<nick>\S+)(?:\s+(?P<name>.+))?$")
_EVENT = re.compile(r"^>(?P<nick>\S+):(?:\s+(?P<rest>.*?))?\s*$")

_SCORE = r"(?P<score>[+-]\d+)"
_TOTAL = r"(?P<total>-?\d+)"
_RACK = r"(?P<rack>[^\s()]+)"
# Tiles are letters of any alphabet, ``?`` for a blank (never digits, never ``.``).
_TILES = r"[^\W\d_]|\?"
_COORD = r"(?P<coord>\d{1,2}[A-Za-z]|[A-Za-z]\d{1,2})"
_WORD = r"(?P<word>(?:[^\W\d_]|\.)+)"

_EVENT_FORMS: list[tuple[str, re.Pattern[str]]] = [
    ("challenge", re.compile(rf"^(?:{_RACK}\s+)?\(challenge\)\s+{_SCORE}\s+{_TOTAL}$")),
    ("time", re.compile(rf"^(?:{_RACK}\s+)?\(time\)\s+{_SCORE}\s+{_TOTAL}$")),
    ("end_rack", re.compile(rf"^(?:{_RACK}\s+)?\((?P<tiles>(?:{_TILES})+)\)\s+{_SCORE}\s+{_TOTAL}$")),
    ("withdrawn", re.compile(rf"^{_RACK}\s+--\s+{_SCORE}\s+{_TOTAL}$")),
    ("pass", re.compile(rf"^{_RACK}\s+-\s+{_SCORE}\s+{_TOTAL}$")),
    ("exchange", re.compile(rf"^{_RACK}\s+-(?P<tiles>(?:{_TILES})+|\d+)\s+{_SCORE}\s+{_TOTAL}$")),
    ("placement", re.compile(rf"^{_RACK}\s+{_COORD}\s+{_WORD}\s+{_SCORE}\s+{_TOTAL}(?:\s+(?P<cross>.*))?$")),
]
_RACK_CHARS = re.compile(rf"^(?:{_TILES})*$")


def decode_gcg(data: bytes, source: str = "<gcg>") -> str:
    """The text of a GCG file, decoded per its ``#character-encoding`` pragma or the default."""
    first = data.split(b"\n", 1)[0].strip().removeprefix(codecs.BOM_UTF8)
    declared = re.match(rb"^#character-encoding\s+(\S+)$", first)
    if declared:
        name = declared.group(1).decode("ascii", "replace")
        try:
            codec = codecs.lookup(name)
        except LookupError:
            raise GCGError(f"unknown character encoding {name!r}", 1, source) from None
        try:
            return data.decode(codec.name)
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise GCGError(f"the text is not valid {name} (byte {data[exc.start]:#04x})", line, source) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("iso-8859-1")


def read_gcg(path: str | Path) -> GCGGame:
    """Read and parse the GCG file at ``path``."""
    path = Path(path)
    return parse_gcg(decode_gcg(path.read_bytes(), path.name), path.name)


def _parse_event(number: int, nick: str, rest: str, source: str) -> Event:
    """One event line after ``>nick:``."""
    for kind, pattern in _EVENT_FORMS:
        match = pattern.match(rest)
        if not match:
            continue
        groups = match.groupdict()
        rack = groups.get("rack") or ""
        if not _RACK_CHARS.match(rack):
            raise GCGError(f"rack {rack!r} has characters that are not tiles", number, source)
        score = int(groups["score"])
        total = int(groups["total"])
        if kind == "placement":
            if score < 0:
                raise GCGError(f"a play cannot score {score}", number, source)
            cross = tuple(w for w in re.split(r"[\s,]+", groups.get("cross") or "") if w)
            return Placement(number, nick, rack, total, groups["coord"], groups["word"], score, cross)
        if kind == "exchange":
            if score != 0:
                raise GCGError(f"an exchange scores +0, not {groups['score']}", number, source)
            tiles = groups["tiles"]
            if tiles.isdigit():
                return Exchange(number, nick, rack, total, "", int(tiles))
            return Exchange(number, nick, rack, total, tiles, len(tiles))
        if kind == "pass":
            if score != 0:
                raise GCGError(f"a pass scores +0, not {groups['score']}", number, source)
            return Pass(number, nick, rack, total)
        if kind == "withdrawn":
            if score > 0:
                raise GCGError(f"a withdrawn play loses points, not {groups['score']}", number, source)
            return PhonyWithdrawn(number, nick, rack, total, score)
        if kind == "challenge":
            return ChallengeBonus(number, nick, rack, total, score)
        if kind == "time":
            if score > 0:
                raise GCGError(f"a time penalty loses points, not {groups['score']}", number, source)
            return TimePenalty(number, nick, rack, total, score)
        # end_rack: positive points come from another rack, negative from one's own
        if score < 0:
            return EndRackPenalty(number, nick, rack, total, groups["tiles"], score)
        return EndRackPoints(number, nick, rack, total, groups["tiles"], score)
    raise GCGError(f"cannot read the event {rest!r} (expected e.g. 'RACK 8D WORD +10 10')", number, source)


def _add_pragma(game: GCGGame, number: int, name: str, value: str, source: str) -> None:
    key = name.lower()
    player = re.fullmatch(r"player(\d+)", key)
    if player:
        match = _PLAYER.match(value)
        if not match:
            raise GCGError(f"#{name} needs a nickname", number, source)
        nick = match.group("nick")
        game.players.append(Player(int(player.group(1)), nick, match.group("name") or nick))
    elif key == "lexicon":
        game.lexicon = value or None
    elif key == "title":
        game.title = value
    elif key == "description":
        game.description = value
    elif key == "id":
        game.id = value
    elif key == "incomplete":
        game.incomplete = True
    elif re.fullmatch(r"rack\d+", key):
        game.last_racks[int(key[4:])] = value
    elif key == "character-encoding":
        if number != 1:
            raise GCGError("#character-encoding must be the first line", number, source)
        game.encoding = value
    else:
        game.other_pragmas.append((name, value))


def parse_gcg(text: str, source: str = "<gcg>") -> GCGGame:
    """Parse the text of a GCG record; :class:`GCGError` names the first line it cannot read."""
    game = GCGGame(source=source)
    in_note = False
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip().lstrip("\ufeff")
        if line.startswith("#"):
            match = _PRAGMA.match(line)
            if not match:
                raise GCGError(f"cannot read the pragma {line!r}", number, source)
            name, value = match.group("name"), match.group("value") or ""
            in_note = name.lower() == "note"
            if in_note:
                _add_note(game, value)
            else:
                _add_pragma(game, number, name, value, source)
        elif line.startswith(">"):
            in_note = False
            match = _EVENT.match(line)
            if not match:
                raise GCGError(f"cannot read the event line {line!r} (expected '>nick: ...')", number, source)
            nick = match.group("nick")
            if game.players and game.player(nick) is None:
                raise GCGError(f"{nick!r} is not one of the players", number, source)
            game.events.append(_parse_event(number, nick, match.group("rest") or "", source))
        elif not line.strip():
            continue
        elif in_note:
            _add_note(game, line, continued=True)
        else:
            raise GCGError(f"unexpected text {line.strip()!r} (not a pragma, an event or a note)", number, source)
    return game


def _add_note(game: GCGGame, text: str, continued: bool = False) -> None:
    """Attach a note (or a note's continuation line) to the last event, or to the game."""
    if game.events:
        last = game.events[-1]
        joined = f"{last.note}\n{text}" if last.note else text
        game.events[-1] = replace(last, note=joined)
    elif continued and game.notes:
        game.notes[-1] += "\n" + text
    else:
        game.notes.append(text)
