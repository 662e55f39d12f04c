"""A club's word list, read and judged line by line before it becomes a lexicon (docs/rules.md §2.4).

A list arrives as bytes: plain text, ``.gz`` or a ``.zip`` holding one text file; UTF-8 (with or without a byte
order mark) or, failing that, Windows-1252, which is what old French editors save. Each line is one word in any
case; accents are folded to the tile letters (``été`` -> ``ETE``). A line is refused, with its reason, when it is
not a word of 2 letters up to the board's width over the ruleset's tiles. :func:`read_word_list` returns the
words and a :class:`ListReport`; anything that makes the whole file unusable raises :class:`WordListError`.
"""

from __future__ import annotations

import codecs
import contextlib
import gzip
import io
import unicodedata
import zipfile
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, Protocol

from .rules import Ruleset

MIN_LENGTH = 2
MAX_WORDS = 2_000_000  # the largest lists clubs use (Collins, ODS) hold under 700,000 words
MAX_TEXT_BYTES = 64 * 1024 * 1024  # a list's text, once decompressed
REFUSED_SHOWN = 200  # refused lines a report keeps (their count is always whole)
SAMPLE_BYTES = 65536  # the text's beginning, looked at for control bytes
CP1252_UNDEFINED = b"\x81\x8d\x8f\x90\x9d"  # the bytes Windows-1252 gives no character


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


Progress = Callable[[float], None]
CHUNK = 1024 * 1024  # a file is read this much at a time: its text is never whole in memory


def read_word_list(
    data: bytes, rules: Ruleset, filename: str = "", require_twos: bool = True
) -> tuple[list[str], ListReport]:
    """The sorted words of an uploaded list and its report; :class:`WordListError` when no lexicon can come of it
    (a list without two-letter words is refused unless ``require_twos`` is off: a small list a developer imports)."""
    return read_word_file(io.BytesIO(data), rules, filename, require_twos)


def read_word_file(
    file: BinaryIO,
    rules: Ruleset,
    filename: str = "",
    require_twos: bool = True,
    progress: Progress | None = None,
) -> tuple[list[str], ListReport]:
    """:func:`read_word_list` of a seekable file, read a chunk at a time, twice: once to unpack it and check it is
    text within :data:`MAX_TEXT_BYTES` (a few seconds at most, so a .gz or .zip that unpacks to more, a "bomb", is
    refused at the limit before a line of it is read), then line by line. ``progress`` is told the fraction done."""
    size = max(file.seek(0, io.SEEK_END), 1)
    file.seek(0)

    def told(start: float, share: float) -> Callable[[], None]:
        def tell() -> None:
            if progress is not None:
                progress(start + share * min(file.tell() / size, 1.0))

        return tell

    source, encoding = _survey(file, filename, told(0.0, 0.1))
    file.seek(0)
    return _read_lines(file, source, encoding, rules, require_twos, told(0.1, 0.9))


def _kind(file: BinaryIO, filename: str) -> str:
    """What an upload came in: ``gzip``, ``zip`` or ``text``."""
    head = file.read(4)
    file.seek(0)
    if not head:
        raise WordListError("empty", "the file is empty")
    if head[:2] == b"\x1f\x8b":
        return "gzip"
    if head == b"PK\x03\x04" or filename.lower().endswith(".zip"):
        return "zip"
    return "text"


class _Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


@contextlib.contextmanager
def _unpacked(file: BinaryIO, source: str) -> Iterator[Iterator[bytes]]:
    """The text of the upload, a chunk at a time, refused once past :data:`MAX_TEXT_BYTES` (decompression stops
    there); a damaged archive is refused as cut off."""
    try:
        with contextlib.ExitStack() as stack:
            if source == "gzip":
                stream: _Readable = stack.enter_context(gzip.GzipFile(fileobj=file))
            elif source == "zip":
                archive = stack.enter_context(zipfile.ZipFile(file))
                members = [m for m in archive.infolist() if not m.is_dir() and not m.filename.startswith("__MACOSX/")]
                if len(members) != 1:
                    names = ", ".join(m.filename for m in members) or "nothing"
                    raise WordListError(
                        "zip_members", f"the .zip file must hold one word list; it holds {names}", names=names
                    )
                stream = stack.enter_context(archive.open(members[0]))
            else:
                stream = file
            yield _bounded(stream)
    except (zipfile.BadZipFile, EOFError, OSError, zlib.error):
        raise WordListError(
            "cut_off", f"the .{'gz' if source == 'gzip' else source} file is cut off or damaged"
        ) from None


def _bounded(stream: _Readable) -> Iterator[bytes]:
    total = 0
    while chunk := stream.read(CHUNK):
        total += len(chunk)
        if total > MAX_TEXT_BYTES:
            mb = MAX_TEXT_BYTES // (1024 * 1024)
            raise WordListError("too_large", f"the list is larger than {mb} MB of text", mb=mb)
        yield chunk


def _survey(file: BinaryIO, filename: str, tell: Callable[[], None]) -> tuple[str, str]:
    """The first reading: what the upload came in and its text's encoding, or why it cannot be a list."""
    source = _kind(file, filename)
    sample = b""
    blank = True
    utf8: codecs.IncrementalDecoder | None = codecs.getincrementaldecoder("utf-8-sig")()
    cp1252 = True
    with _unpacked(file, source) as chunks:
        for chunk in chunks:
            if len(sample) < SAMPLE_BYTES:
                sample += chunk[: SAMPLE_BYTES - len(sample)]
            blank = blank and not chunk.strip()
            if utf8 is not None:
                try:
                    utf8.decode(chunk)
                except UnicodeDecodeError:
                    utf8 = None
            cp1252 = cp1252 and not any(byte in chunk for byte in CP1252_UNDEFINED)
            tell()
    if blank:
        raise WordListError("empty", "the file is empty")
    if b"\x00" in sample or sum(byte < 9 or 13 < byte < 32 for byte in sample) > len(sample) // 100:
        raise WordListError("binary", "this is not a text file (it holds binary data)")
    if utf8 is not None:
        try:
            utf8.decode(b"", final=True)
            return source, "utf-8"
        except UnicodeDecodeError:
            pass
    if not cp1252:
        raise WordListError("binary", "this is not a text file (it is neither UTF-8 nor Windows-1252)")
    return source, "windows-1252"


def _lines(chunks: Iterator[bytes], encoding: str) -> Iterator[str]:
    """The text's lines as :meth:`str.splitlines` cuts them, a chunk at a time (a line end split between two
    chunks, ``\\r`` then ``\\n``, is one line end)."""
    decoder = codecs.getincrementaldecoder("utf-8-sig" if encoding == "utf-8" else "cp1252")()
    rest = ""
    for chunk in chunks:
        lines = (rest + decoder.decode(chunk)).splitlines(keepends=True)
        rest = lines.pop() if lines else ""
        yield from lines
    rest += decoder.decode(b"", final=True)
    yield from rest.splitlines()


def _read_lines(
    file: BinaryIO, source: str, encoding: str, rules: Ruleset, require_twos: bool, tell: Callable[[], None]
) -> tuple[list[str], ListReport]:
    """The second reading: each line judged (docs/rules.md §2.4), the words kept and the report made."""
    allowed = set(rules.tileset.letters)
    longest = rules.layout.size
    words: set[str] = set()
    refused: list[RefusedLine] = []
    refused_count = repeated = 0
    with _unpacked(file, source) as chunks:
        for number, line in enumerate(_lines(chunks, encoding), start=1):
            if number % 65536 == 0:
                tell()
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            # Plain ASCII, as most lists are, needs no folding of accents (a list of millions of lines).
            word = stripped.upper() if stripped.isascii() else normalise_word(stripped)
            if word in words:  # a word already kept is a word (no space, tile letters, a good length)
                repeated += 1
                continue
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
            words.add(word)
            if len(words) > MAX_WORDS:
                raise WordListError("too_many", f"the list holds more than {MAX_WORDS:,} words", limit=MAX_WORDS)
    tell()
    if not words:
        raise WordListError("no_words", "the file holds no word of 2 letters or more over this game's letters")
    twos = sorted(word for word in words if len(word) == 2)
    if not twos and require_twos:
        raise WordListError("no_twos", "the list has no two-letter word: is it a whole word list?")
    ordered = sorted(words)
    del words
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
