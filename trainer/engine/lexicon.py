"""Lexicons: word lists turned into cached word graphs, bundled or imported by a club.

A lexicon belongs to a ruleset (its letters are the ruleset's tile letters). Bundled lists live
in the ``wordlists`` package; imported ones, and the word-graph cache of all of them, live in a
data folder (the server's instance folder).

A cached graph is trusted only if it is whole and unchanged: its SHA-256 is written beside it when it
is built (``<graph>.sha256``) and checked when it is loaded; a graph that fails the check (cut short,
changed, or without its checksum) is built again from its word list. :meth:`LexiconStore.states` says
where each lexicon stands, for the server's health check.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
import re
import threading
import time
import unicodedata
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import wordlists

from .rules import Ruleset, ruleset
from .wordgraph import WordGraph

GRAPH_VERSION = "2"
MIN_LENGTH = 2
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
CHECKSUM = ".sha256"
log = logging.getLogger(__name__)


class LexiconError(ValueError):
    """A lexicon that does not exist or a word list that cannot be imported."""


@dataclass
class Lexicon:
    """A named word list over a ruleset's letters, backed by a word graph."""

    name: str
    rules: Ruleset
    graph: WordGraph  # DAWG: membership, word lists, cross-checks
    gaddag: WordGraph  # GADDAG: move generation from anchors
    description: str = ""

    def __post_init__(self) -> None:
        self.letters = self.rules.tileset.letters
        self._index = {ch: i for i, ch in enumerate(self.letters)}
        # (letters before, letters after) -> letters that make a word between them; shared by
        # every position of this lexicon, since the same perpendicular words come up again and again.
        self.cross_set_cache: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}

    def encode(self, word: str) -> list[int] | None:
        """Letter indices of ``word`` (either case, accents ignored), or None if it has a letter
        outside the set."""
        if word != word.strip():
            return None  # surrounding blanks are not part of a word
        index = self._index
        try:
            return [index[ch] for ch in normalise_word(word)]
        except KeyError:
            return None

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str):
            return False
        letters = self.encode(word)
        return letters is not None and self.graph.contains(letters)

    def words(self) -> list[str]:
        letters = self.letters
        return ["".join(letters[i] for i in w) for w in self.graph.words()]

    def __repr__(self) -> str:
        return f"<Lexicon {self.name!r} rules={self.rules.code!r} nodes={self.graph.node_count}>"


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as graph:
        for block in iter(lambda: graph.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_checksum(path: Path) -> None:
    """Write ``path``'s SHA-256 beside it, atomically (a reader sees the old checksum or the new, never half)."""
    checksum = path.with_name(path.name + CHECKSUM)
    tmp = checksum.with_name(f"{checksum.name}.{os.getpid()}.tmp")
    tmp.write_text(_digest(path) + "\n", "ascii")
    os.replace(tmp, checksum)


def _load_checked(path: Path) -> WordGraph:
    """The graph at ``path`` if its file matches the checksum written when it was built; ``FileNotFoundError``
    when it was never built, ``ValueError`` when it is not sound."""
    if not path.exists():
        raise FileNotFoundError(path)
    checksum = path.with_name(path.name + CHECKSUM)
    try:
        expected = checksum.read_text("ascii").strip()
    except FileNotFoundError:
        raise ValueError(f"{path.name} has no checksum") from None
    if _digest(path) != expected:
        raise ValueError(f"{path.name} does not match its checksum")
    return WordGraph.load(path)


def normalise_word(raw: str) -> str:
    """Upper case without accents: ``été`` -> ``ETE``, ``cœur`` -> ``COEUR``."""
    raw = raw.strip().replace("œ", "oe").replace("Œ", "OE").replace("æ", "ae").replace("Æ", "AE")
    return "".join(ch for ch in unicodedata.normalize("NFD", raw) if not unicodedata.combining(ch)).upper()


class LexiconStore:
    """Finds, imports and loads lexicons; loaded ones are kept for the life of the process."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self._loaded: dict[str, Lexicon] = {}
        self._lock = threading.Lock()  # guards _locks
        self._locks: dict[str, threading.Lock] = {}  # one per lexicon
        self._building: set[str] = set()
        self.rebuilt: dict[str, str] = {}  # lexicon -> why its cached graphs were built again

    @property
    def imported_dir(self) -> Path:
        return self.data_dir / "lexicons"

    @property
    def cache_dir(self) -> Path:
        return self.data_dir / "cache"

    def _imported(self) -> dict[str, dict[str, str]]:
        found: dict[str, dict[str, str]] = {}
        if self.imported_dir.is_dir():
            for meta in sorted(self.imported_dir.glob("*.json")):
                found[meta.stem] = json.loads(meta.read_text("utf-8"))
        return found

    def catalogue(self) -> dict[str, dict[str, str]]:
        """Every known lexicon: name -> {rules, description}."""
        entries: dict[str, dict[str, str]] = {
            name: {"rules": e["rules"], "description": e["description"]} for name, e in wordlists.bundled().items()
        }
        for name, meta in self._imported().items():
            entries[name] = {"rules": meta["rules"], "description": meta.get("description", "")}
        return entries

    def _source(self, name: str) -> tuple[Path, str, str]:
        """(word list path, rules code, description) of lexicon ``name``."""
        imported = self._imported()
        if name in imported:
            meta = imported[name]
            return self.imported_dir / f"{name}.txt.gz", meta["rules"], meta.get("description", "")
        bundled = wordlists.bundled()
        if name in bundled:
            return wordlists.bundled_path(name), bundled[name]["rules"], bundled[name]["description"]
        known = ", ".join(sorted(self.catalogue()))
        raise LexiconError(f"unknown lexicon {name!r} (known: {known})")

    def load(self, name: str) -> Lexicon:
        """The lexicon ``name``, from the graph cache, building the cache the first time. One lexicon is loaded (or
        built) once at a time; building one never holds up loading another."""
        loaded = self._loaded.get(name)
        if loaded is not None:
            return loaded
        with self._lock:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            if name in self._loaded:
                return self._loaded[name]
            source, rules_code, description = self._source(name)
            rules = ruleset(rules_code)
            raw = source.read_bytes()
            digest = hashlib.sha256(raw + GRAPH_VERSION.encode() + rules.tileset.letters.encode()).hexdigest()
            stem = f"{name}-{digest[:16]}"
            dawg_path, gaddag_path = self.cache_dir / f"{stem}.dawg", self.cache_dir / f"{stem}.gaddag"
            try:
                graph, gaddag = _load_checked(dawg_path), _load_checked(gaddag_path)
            except FileNotFoundError:  # never built here
                graph, gaddag = self._build_and_cache(name, raw, rules, dawg_path, gaddag_path)
            except (ValueError, OSError) as bad:
                log.warning("lexicon %s: the cached word graphs are not sound (%s): building them again", name, bad)
                self.rebuilt[name] = str(bad)
                graph, gaddag = self._build_and_cache(name, raw, rules, dawg_path, gaddag_path)
            lexicon = Lexicon(name, rules, graph, gaddag, description)
            self._loaded[name] = lexicon
            return lexicon

    def states(self) -> dict[str, str]:
        """Each known lexicon: ``ready`` (loaded in this process), ``building``, or ``not loaded yet``."""
        return {
            name: "ready" if name in self._loaded else "building" if name in self._building else "not loaded yet"
            for name in self.catalogue()
        }

    def _build_and_cache(
        self, name: str, raw: bytes, rules: Ruleset, dawg_path: Path, gaddag_path: Path
    ) -> tuple[WordGraph, WordGraph]:
        log.info("lexicon %s: building its word graphs", name)
        started = time.monotonic()
        self._building.add(name)
        try:
            built = self._build(name, raw, rules, dawg_path, gaddag_path)
        except BaseException:
            log.warning("lexicon %s: building its word graphs failed after %.1f s", name, time.monotonic() - started)
            raise
        finally:
            self._building.discard(name)
        log.info("lexicon %s: word graphs built in %.1f s", name, time.monotonic() - started)
        return built

    def _build(
        self, name: str, raw: bytes, rules: Ruleset, dawg_path: Path, gaddag_path: Path
    ) -> tuple[WordGraph, WordGraph]:
        words = sorted(set(gzip.decompress(raw).decode("ascii").split()))
        index = {ch: i for i, ch in enumerate(rules.tileset.letters)}
        encoded = [tuple(index[ch] for ch in w) for w in words]
        size = len(rules.tileset.letters)
        graph, gaddag = WordGraph.build(encoded, size), WordGraph.build_gaddag(encoded, size)
        try:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            own = re.compile(rf"{re.escape(name)}-[0-9a-f]{{16}}\..+")  # not another lexicon's ("en-club-...")
            for stale in [path for path in self.cache_dir.iterdir() if own.fullmatch(path.name)]:
                stale.unlink(missing_ok=True)
            for built, path in ((graph, dawg_path), (gaddag, gaddag_path)):
                built.save(path)
                _write_checksum(path)
            return _load_checked(dawg_path), _load_checked(gaddag_path)
        except OSError:
            return graph, gaddag  # a read-only data folder: keep the graphs in memory for this process

    def import_list(self, name: str, path: Path, rules_code: str, description: str = "") -> tuple[int, list[str]]:
        """Add the word list at ``path`` (one word a line) as lexicon ``name``.

        Returns the number of words kept and the lines skipped (with the reason). Accents are
        removed; words of one letter or longer than the board are dropped; a word with a letter
        outside the ruleset's tiles is skipped and reported.
        """
        if not _NAME.match(name):
            raise LexiconError(f"lexicon name {name!r}: use 1-40 lower-case letters, digits, '-' or '_'")
        if name in wordlists.bundled():
            raise LexiconError(f"lexicon name {name!r} is taken by a bundled lexicon")
        rules = ruleset(rules_code)
        try:
            text = Path(path).read_bytes().decode("utf-8-sig")
        except OSError as exc:
            raise LexiconError(f"cannot read {path}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise LexiconError(f"{path} is not UTF-8 text") from None
        allowed = set(rules.tileset.letters)
        max_length = rules.layout.size
        kept: set[str] = set()
        skipped: list[str] = []
        for number, line in enumerate(text.splitlines(), start=1):
            word = normalise_word(line)
            if not word or word.startswith("#"):
                continue
            bad = sorted(set(word) - allowed)
            if bad:
                skipped.append(f"line {number}: {line.strip()!r} has {''.join(bad)!r}, not a tile letter")
            elif not MIN_LENGTH <= len(word) <= max_length:
                skipped.append(f"line {number}: {line.strip()!r} is not {MIN_LENGTH}-{max_length} letters")
            else:
                kept.add(word)
        if not kept:
            raise LexiconError(f"{path} holds no usable word")
        self.imported_dir.mkdir(parents=True, exist_ok=True)
        target = self.imported_dir / f"{name}.txt.gz"
        with gzip.GzipFile(target, "wb", compresslevel=9, mtime=0) as out:
            out.write(("\n".join(sorted(kept)) + "\n").encode("ascii"))
        meta = {
            "rules": rules.code,
            "description": description or f"imported from {Path(path).name}",
            "words": str(len(kept)),
            "imported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        (self.imported_dir / f"{name}.json").write_text(json.dumps(meta, indent=2), "utf-8")
        with self._lock:
            self._loaded.pop(name, None)
        return len(kept), skipped
