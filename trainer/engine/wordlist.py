"""A club's word list, read and judged line by line before it becomes a lexicon (docs/rules.md §2.4).

A list arrives as bytes: plain text, ``.gz`` or a ``.zip`` holding one text file; UTF-8 (with or without a byte
order mark) or, failing that, Windows-1252, which is what old French editors save. Each line is one word in any
case; accents are folded to the tile letters (``été`` -> ``ETE``). A line is refused, with its reason, when it is
not a word of 2 letters up to the board's width over the ruleset's tiles. :func:`read_word_list` returns the
words and a :class:`ListReport`; anything that makes the whole file unusable raises :class:`WordListError`.
"""

from __future__ import annotations

import gzip
import io
import unicodedata
import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass, field

from .rules import Ruleset

MIN_LENGTH = 2
MAX_WORDS = 2_000_000  # the largest lists clubs use (Collins, ODS) hold under 700,000 words
MAX_TEXT_BYTES = 64 * 1024 * 1024  # a list's text, once decompressed
REFUSED_SHOWN = 200  # refused lines a report keeps (their count is always whole)


class WordListError(ValueError):
    """A file that cannot be a word list: ``code`` names the reason, ``params`` any figure the message needs."""

    def __init__(self, code: str, message: str, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class RefusedLine:
    number: int
    text: str
    reason: str  # "letters", "length", "spaces"
    detail: str  # the letters that are not tiles, or "length/longest"


@dataclass
class ListReport:
    """What a word list holds, for the director to read before accepting it."""

    words: int
    by_length: dict[int, int]
    twos: list[str]
    refused_count: int
    refused: list[RefusedLine] = field(default_factory=list)  # the first REFUSED_SHOWN
    repeated: int = 0  # lines that gave a word already read (ETE and été)
    encoding: str = "utf-8"
    source: str = "text"  # text, gzip, zip


def normalise_word(raw: str) -> str:
    """Upper case without accents: ``été`` -> ``ETE``, ``cœur`` -> ``COEUR``."""
    raw = raw.strip().replace("œ", "oe").replace("Œ", "OE").replace("æ", "ae").replace("Æ", "AE")
    return "".join(ch for ch in unicodedata.normalize("NFD", raw) if not unicodedata.combining(ch)).upper()


def describe(line: RefusedLine) -> str:
    """A refused line in a sentence (the command line's report; the pages translate the reason)."""
    if line.reason == "spaces":
        return f"line {line.number}: {line.text!r} holds more than one word"
    if line.reason == "letters":
        return f"line {line.number}: {line.text!r} has {line.detail!r}, not a tile letter"
    return f"line {line.number}: {line.text!r} is not {MIN_LENGTH}-{line.detail.partition('/')[2]} letters"


def unpack(data: bytes, filename: str = "") -> tuple[bytes, str]:
    """The text bytes of an upload and what it came in: ``gzip``, ``zip`` or ``text``."""
    if not data:
        raise WordListError("empty", "the file is empty")
    if data[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as packed:
                text = packed.read(MAX_TEXT_BYTES + 1)
        except (EOFError, OSError, zlib.error):
            raise WordListError("cut_off", "the .gz file is cut off or damaged") from None
        return _within_limit(text), "gzip"
    if data[:4] == b"PK\x03\x04" or filename.lower().endswith(".zip"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                members = [m for m in archive.infolist() if not m.is_dir() and not m.filename.startswith("__MACOSX/")]
                if len(members) != 1:
                    names = ", ".join(m.filename for m in members) or "nothing"
                    raise WordListError(
                        "zip_members", f"the .zip file must hold one word list; it holds {names}", names=names
                    )
                with archive.open(members[0]) as member:
                    text = member.read(MAX_TEXT_BYTES + 1)
        except (zipfile.BadZipFile, EOFError, OSError, zlib.error):
            raise WordListError("cut_off", "the .zip file is cut off or damaged") from None
        return _within_limit(text), "zip"
    return _within_limit(data), "text"


def _within_limit(text: bytes) -> bytes:
    if len(text) > MAX_TEXT_BYTES:
        mb = MAX_TEXT_BYTES // (1024 * 1024)
        raise WordListError("too_large", f"the list is larger than {mb} MB of text", mb=mb)
    if not text.strip():
        raise WordListError("empty", "the file is empty")
    return text


def decode(text: bytes) -> tuple[str, str]:
    """The text and its encoding; a file with control bytes other than line ends and tabs is not text."""
    sample = text[:65536]
    if b"\x00" in sample or sum(byte < 9 or 13 < byte < 32 for byte in sample) > len(sample) // 100:
        raise WordListError("binary", "this is not a text file (it holds binary data)")
    try:
        return text.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return text.decode("cp1252"), "windows-1252"
    except UnicodeDecodeError:
        raise WordListError("binary", "this is not a text file (it is neither UTF-8 nor Windows-1252)") from None


def read_word_list(
    data: bytes, rules: Ruleset, filename: str = "", require_twos: bool = True
) -> tuple[list[str], ListReport]:
    """The sorted words of an uploaded list and its report; :class:`WordListError` when no lexicon can come of it
    (a list without two-letter words is refused unless ``require_twos`` is off: a small list a developer imports)."""
    raw, source = unpack(data, filename)
    text, encoding = decode(raw)
    allowed = set(rules.tileset.letters)
    longest = rules.layout.size
    words: set[str] = set()
    refused: list[RefusedLine] = []
    refused_count = repeated = 0
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        word = normalise_word(stripped)
        why: tuple[str, str] | None = None
        if any(ch.isspace() for ch in stripped):
            why = ("spaces", "")
        elif bad := sorted(set(word) - allowed):
            why = ("letters", "".join(bad))
        elif not MIN_LENGTH <= len(word) <= longest:
            why = ("length", f"{len(word)}/{longest}")
        if why is not None:
            refused_count += 1
            if len(refused) < REFUSED_SHOWN:
                refused.append(RefusedLine(number, stripped[:60], *why))
            continue
        if word in words:
            repeated += 1
            continue
        words.add(word)
        if len(words) > MAX_WORDS:
            raise WordListError("too_many", f"the list holds more than {MAX_WORDS:,} words", limit=MAX_WORDS)
    if not words:
        raise WordListError("no_words", "the file holds no word of 2 letters or more over this game's letters")
    twos = sorted(word for word in words if len(word) == 2)
    if not twos and require_twos:
        raise WordListError("no_twos", "the list has no two-letter word: is it a whole word list?")
    ordered = sorted(words)
    lengths = Counter(len(word) for word in ordered)
    report = ListReport(
        words=len(ordered),
        by_length=dict(sorted(lengths.items())),
        twos=twos,
        refused_count=refused_count,
        refused=refused,
        repeated=repeated,
        encoding=encoding,
        source=source,
    )
    return ordered, report


@dataclass(frozen=True)
class ListDiff:
    """How a list differs from another lexicon: the words it adds and the words it drops."""

    against: str
    added_count: int
    removed_count: int
    added: list[str]  # the first ``shown`` of each, shortest first then alphabetically
    removed: list[str]


def compare(words: list[str], other: list[str], against: str, shown: int = 200) -> ListDiff:
    """What ``words`` adds to and drops from ``other`` (both sorted)."""
    mine, theirs = set(words), set(other)
    added = sorted(mine - theirs, key=lambda w: (len(w), w))
    removed = sorted(theirs - mine, key=lambda w: (len(w), w))
    return ListDiff(against, len(added), len(removed), added[:shown], removed[:shown])
