"""Lexicons: word lists turned into cached word graphs, bundled or imported by a club.

A lexicon belongs to a ruleset (its letters are the ruleset's tile letters). Bundled lists live
in the ``wordlists`` package; imported ones, and the word-graph cache of all of them, live in a
data folder (the server's instance folder).

An imported lexicon has a name, an edition and a status in its ``<name>.json``: ``building`` while its graphs are
made (with the fraction done, ``progress``), ``ready`` once they are, ``failed`` if the build ended without them.
Only ready lexicons are in the :meth:`LexiconStore.catalogue` that games, decks and word walls choose from.
:meth:`LexiconStore.fingerprint` is the SHA-256 of a lexicon's words, which a game records.

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
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import wordlists

from .rules import Ruleset, ruleset
from .wordgraph import TICK_EVERY, WordGraph, ticking
from .wordlist import WordListError, describe, normalise_word, read_word_list

__all__ = ["Lexicon", "LexiconError", "LexiconStore", "build_imported", "normalise_word"]

GRAPH_VERSION = "2"
STALE_SECONDS = 120.0  # a build whose progress has not moved for this long died with its process
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")  # the whole name (fullmatch: "$" also matches before a final "\n")
CHECKSUM = ".sha256"
log = logging.getLogger(__name__)


class LexiconError(ValueError):
    """A lexicon that does not exist or a word list that cannot be imported; ``code`` names the reason."""

    def __init__(self, message: str, code: str = "lexicon") -> None:
        super().__init__(message)
        self.code = code


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


def _stamp(path: Path) -> tuple[int, int, int]:
    stat = path.stat()
    return stat.st_ino, stat.st_mtime_ns, stat.st_size


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


class LexiconStore:
    """Finds, imports and loads lexicons; loaded ones are kept for the life of the process."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self._loaded: dict[str, Lexicon] = {}
        self._lock = threading.Lock()  # guards _locks
        self._locks: dict[str, threading.Lock] = {}  # one per lexicon
        self._building: set[str] = set()
        self.rebuilt: dict[str, str] = {}  # lexicon -> why its cached graphs were built again
        self._fingerprints: dict[str, tuple[tuple[str, int, int], str]] = {}
        self._stamps: dict[str, tuple[int, int, int]] = {}  # lexicon -> its list's (inode, mtime, size) when loaded

    @property
    def imported_dir(self) -> Path:
        return self.data_dir / "lexicons"

    @property
    def cache_dir(self) -> Path:
        return self.data_dir / "cache"

    def _imported(self) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        if self.imported_dir.is_dir():
            for meta in sorted(self.imported_dir.glob("*.json")):
                try:
                    found[meta.stem] = json.loads(meta.read_text("utf-8"))
                except (OSError, ValueError):  # being replaced this instant: the next look finds it
                    continue
        return found

    def imported(self) -> dict[str, dict[str, Any]]:
        """Every imported lexicon, whatever its status: name -> its record (rules, edition, status, progress, ...).
        A build whose progress stopped long ago (its process was killed) reads ``failed``."""
        found = self._imported()
        now = time.time()
        for meta in found.values():
            meta.setdefault("status", "ready")  # imported before builds had a status
            if meta["status"] == "building" and now - float(meta.get("heartbeat", 0)) > STALE_SECONDS:
                meta["status"] = "failed"
                meta.setdefault("failure", "the build was interrupted")
        return found

    def catalogue(self) -> dict[str, dict[str, str]]:
        """Every lexicon games can use (bundled, and imported ones whose graphs are built): name -> {rules,
        description, edition}."""
        entries: dict[str, dict[str, str]] = {
            name: {"rules": e["rules"], "description": e["description"], "edition": e["edition"]}
            for name, e in wordlists.bundled().items()
        }
        for name, meta in self.imported().items():
            if meta["status"] == "ready":
                entries[name] = {
                    "rules": meta["rules"],
                    "description": meta.get("description", ""),
                    "edition": meta.get("edition", ""),
                }
        return entries

    def taken(self, name: str) -> bool:
        """Whether ``name`` is a bundled or imported lexicon's (building or failed ones too)."""
        return name in wordlists.bundled() or (self.imported_dir / f"{name}.json").exists()

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
        raise LexiconError(f"unknown lexicon {name!r} (known: {known})", "unknown_lexicon")

    def fingerprint(self, name: str) -> str:
        """The SHA-256 of lexicon ``name``'s words (one upper-case word a line, sorted): a game records it, so a
        later edition of the list under the same name is told apart."""
        path = self._source(name)[0]
        stat = path.stat()
        key = (str(path), stat.st_mtime_ns, stat.st_size)
        cached = self._fingerprints.get(name)
        if cached is not None and cached[0] == key:
            return cached[1]
        digest = hashlib.sha256(gzip.decompress(path.read_bytes())).hexdigest()
        self._fingerprints[name] = (key, digest)
        return digest

    def words_of(self, name: str) -> list[str]:
        """Lexicon ``name``'s words, sorted, read from its list (no graph needed)."""
        return gzip.decompress(self._source(name)[0].read_bytes()).decode("ascii").split()

    def load(self, name: str, progress: Callable[[float], None] | None = None) -> Lexicon:
        """The lexicon ``name``, from the graph cache, building the cache the first time (``progress`` is told the
        fraction done as it goes). One lexicon is loaded (or built) once at a time; building one never holds up
        loading another."""
        loaded = self._loaded.get(name)
        if loaded is not None and self._unchanged(name):
            return loaded
        with self._lock:
            lock = self._locks.setdefault(name, threading.Lock())
        with lock:
            if name in self._loaded and self._unchanged(name):
                return self._loaded[name]
            source, rules_code, description = self._source(name)
            self._stamps[name] = _stamp(source)
            rules = ruleset(rules_code)
            raw = source.read_bytes()
            digest = hashlib.sha256(raw + GRAPH_VERSION.encode() + rules.tileset.letters.encode()).hexdigest()
            stem = f"{name}-{digest[:16]}"
            dawg_path, gaddag_path = self.cache_dir / f"{stem}.dawg", self.cache_dir / f"{stem}.gaddag"
            try:
                graph, gaddag = _load_checked(dawg_path), _load_checked(gaddag_path)
            except FileNotFoundError:  # never built here
                graph, gaddag = self._build_and_cache(name, raw, rules, dawg_path, gaddag_path, progress)
            except (ValueError, OSError) as bad:
                log.warning("lexicon %s: the cached word graphs are not sound (%s): building them again", name, bad)
                self.rebuilt[name] = str(bad)
                graph, gaddag = self._build_and_cache(name, raw, rules, dawg_path, gaddag_path, progress)
            lexicon = Lexicon(name, rules, graph, gaddag, description)
            self._loaded[name] = lexicon
            return lexicon

    def _unchanged(self, name: str) -> bool:
        """Whether lexicon ``name``'s word list is the file it was loaded from: another process (the command line's
        import) may have put a new edition under the same name. A stat, not a read."""
        if name in wordlists.bundled():
            return True  # part of the installed package: changes only with a new release (and a restart)
        try:
            return _stamp(self.imported_dir / f"{name}.txt.gz") == self._stamps.get(name)
        except OSError:
            return False  # removed: load says so

    def states(self) -> dict[str, str]:
        """Each known lexicon: ``ready`` (loaded in this process), ``building``, or ``not loaded yet``."""
        return {
            name: "ready" if name in self._loaded else "building" if name in self._building else "not loaded yet"
            for name in self.catalogue()
        }

    def _build_and_cache(
        self,
        name: str,
        raw: bytes,
        rules: Ruleset,
        dawg_path: Path,
        gaddag_path: Path,
        progress: Callable[[float], None] | None = None,
    ) -> tuple[WordGraph, WordGraph]:
        log.info("lexicon %s: building its word graphs", name)
        started = time.monotonic()
        self._building.add(name)
        try:
            built = self._build(name, raw, rules, dawg_path, gaddag_path, progress)
        except BaseException:
            log.warning("lexicon %s: building its word graphs failed after %.1f s", name, time.monotonic() - started)
            raise
        finally:
            self._building.discard(name)
        log.info("lexicon %s: word graphs built in %.1f s", name, time.monotonic() - started)
        return built

    def _build(
        self,
        name: str,
        raw: bytes,
        rules: Ruleset,
        dawg_path: Path,
        gaddag_path: Path,
        progress: Callable[[float], None] | None = None,
    ) -> tuple[WordGraph, WordGraph]:
        words = sorted(set(gzip.decompress(raw).decode("ascii").split()))
        index = {ch: i for i, ch in enumerate(rules.tileset.letters)}
        encoded = [tuple(index[ch] for ch in w) for w in words]
        size = len(rules.tileset.letters)
        # The work is counted in words for the DAWG, then in GADDAG entries (one per letter of each word).
        total = len(encoded) + sum(len(w) for w in encoded)
        done = 0

        def tick() -> None:
            nonlocal done
            done += TICK_EVERY
            if progress is not None:
                progress(min(done / total, 0.99))

        graph = WordGraph.build(ticking(encoded, tick), size)
        gaddag = WordGraph.build_gaddag(encoded, size, tick)
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

    def import_list(
        self, name: str, path: Path, rules_code: str, description: str = "", edition: str = ""
    ) -> tuple[int, list[str]]:
        """Add the word list at ``path`` (one word a line; plain text, .gz or .zip) as lexicon ``name``, replacing an
        imported one of that name: the command line's import (the pages go through :meth:`add_list`).

        Returns the number of words kept and the lines skipped (with the reason). Accents are removed; words of one
        letter or longer than the board, and words with a letter outside the ruleset's tiles, are skipped.
        """
        self._check_name(name)
        rules = ruleset(rules_code)
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise LexiconError(f"cannot read {path}: {exc.strerror}", "unreadable") from None
        try:
            words, report = read_word_list(data, rules, Path(path).name, require_twos=False)
        except WordListError as bad:
            raise LexiconError(f"{path}: {bad}", bad.code) from None
        described = description or f"imported from {Path(path).name}"
        self.add_list(name, words, rules.code, edition=edition, description=described)
        self.set_status(name, "ready")
        return len(words), [describe(line) for line in report.refused]

    def _check_name(self, name: str) -> None:
        if not _NAME.fullmatch(name):
            raise LexiconError(f"lexicon name {name!r}: use 1-40 lower-case letters, digits, '-' or '_'", "bad_name")
        if name in wordlists.bundled():
            raise LexiconError(f"lexicon name {name!r} is taken by a bundled lexicon", "name_taken")

    def add_list(
        self, name: str, words: list[str], rules_code: str, edition: str = "", description: str = "", by: str = ""
    ) -> None:
        """Write ``words`` (sorted, checked) as lexicon ``name``, status ``building``: :meth:`build_graphs` makes it
        ready. The word list is whole on disk before its record says it exists."""
        self._check_name(name)
        self.imported_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.imported_dir / f"{name}.txt.gz.{os.getpid()}.tmp"
        write_words(tmp, words)
        self.adopt_list(name, tmp, len(words), rules_code, edition=edition, description=description, by=by)

    def adopt_list(
        self,
        name: str,
        path: Path,
        count: int,
        rules_code: str,
        edition: str = "",
        description: str = "",
        by: str = "",
    ) -> None:
        """Make the file at ``path`` (:func:`write_words`' ``count`` words, in this store's folder's file system)
        lexicon ``name``'s list, status ``building``: an upload read in another process is moved, not read again."""
        self._check_name(name)
        self.imported_dir.mkdir(parents=True, exist_ok=True)
        os.replace(path, self.imported_dir / f"{name}.txt.gz")
        meta = {
            "rules": rules_code,
            "edition": edition,
            "description": description,
            "words": count,
            "imported_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "by": by,
            "status": "building",
            "progress": 0.0,
            "heartbeat": time.time(),
        }
        self._write_meta(name, meta)
        with self._lock:
            self._loaded.pop(name, None)

    def _write_meta(self, name: str, meta: dict[str, Any]) -> None:
        path = self.imported_dir / f"{name}.json"
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(meta, indent=2), "utf-8")
        os.replace(tmp, path)  # a reader sees the old record or the new, never half

    def set_status(self, name: str, status: str, **fields: Any) -> None:
        """Record where lexicon ``name``'s build stands (``building`` with ``progress``, ``ready``, ``failed``)."""
        meta = self._imported().get(name)
        if meta is None:
            return
        meta.update(fields, status=status, heartbeat=time.time())
        if status == "ready":
            meta["progress"] = 1.0
        self._write_meta(name, meta)

    def build_graphs(self, name: str) -> None:
        """Build imported lexicon ``name``'s word graphs, recording the progress in its record, then mark it ready
        (or failed, with the reason)."""
        last = [0.0]

        def report(fraction: float) -> None:
            if fraction - last[0] >= 0.02:
                last[0] = fraction
                self.set_status(name, "building", progress=round(fraction, 3))

        try:
            self.load(name, report)
        except Exception as failure:
            self.set_status(name, "failed", failure=str(failure) or type(failure).__name__)
            raise
        self.set_status(name, "ready")

    def remove(self, name: str) -> None:
        """Forget imported lexicon ``name``: its record, its list and its cached graphs."""
        self._check_name(name)
        (self.imported_dir / f"{name}.json").unlink(missing_ok=True)
        (self.imported_dir / f"{name}.txt.gz").unlink(missing_ok=True)
        if self.cache_dir.is_dir():
            own = re.compile(rf"{re.escape(name)}-[0-9a-f]{{16}}\..+")
            for stale in [path for path in self.cache_dir.iterdir() if own.fullmatch(path.name)]:
                stale.unlink(missing_ok=True)
        with self._lock:
            self._loaded.pop(name, None)


def write_words(path: Path, words: list[str]) -> None:
    """An imported lexicon's list as it is kept: its sorted words, one a line, gzipped."""
    path.write_bytes(gzip.compress(("\n".join(words) + "\n").encode("ascii"), compresslevel=6, mtime=0))


def build_imported(data_dir: str, name: str) -> None:
    """A build process's work (trainer.core.lexicon_uploads): lexicon ``name``'s graphs, its record kept up to date."""
    logging.basicConfig(level=logging.INFO)
    LexiconStore(Path(data_dir)).build_graphs(name)
