"""Lexicons: word lists turned into cached word graphs, bundled or imported by a club.

A lexicon belongs to a ruleset (its letters are the ruleset's tile letters). Bundled lists live
in the ``wordlists`` package; imported ones, and the word-graph cache of all of them, live in a
data folder (the server's instance folder).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import threading
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


def normalise_word(raw: str) -> str:
    """Upper case without accents: ``été`` -> ``ETE``, ``cœur`` -> ``COEUR``."""
    raw = raw.strip().replace("œ", "oe").replace("Œ", "OE").replace("æ", "ae").replace("Æ", "AE")
    return "".join(ch for ch in unicodedata.normalize("NFD", raw) if not unicodedata.combining(ch)).upper()


class LexiconStore:
    """Finds, imports and loads lexicons; loaded ones are kept for the life of the process."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = Path(data_dir)
        self._loaded: dict[str, Lexicon] = {}
        self._lock = threading.Lock()

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
        """The lexicon ``name``, from the graph cache, building the cache the first time."""
        with self._lock:
            if name in self._loaded:
                return self._loaded[name]
            source, rules_code, description = self._source(name)
            rules = ruleset(rules_code)
            raw = source.read_bytes()
            digest = hashlib.sha256(raw + GRAPH_VERSION.encode() + rules.tileset.letters.encode()).hexdigest()
            stem = f"{name}-{digest[:16]}"
            dawg_path, gaddag_path = self.cache_dir / f"{stem}.dawg", self.cache_dir / f"{stem}.gaddag"
            if dawg_path.exists() and gaddag_path.exists():
                graph, gaddag = WordGraph.load(dawg_path), WordGraph.load(gaddag_path)
            else:
                graph, gaddag = self._build_and_cache(name, raw, rules, dawg_path, gaddag_path)
            lexicon = Lexicon(name, rules, graph, gaddag, description)
            self._loaded[name] = lexicon
            return lexicon

    def _build_and_cache(
        self, name: str, raw: bytes, rules: Ruleset, dawg_path: Path, gaddag_path: Path
    ) -> tuple[WordGraph, WordGraph]:
        words = sorted(set(gzip.decompress(raw).decode("ascii").split()))
        index = {ch: i for i, ch in enumerate(rules.tileset.letters)}
        encoded = [tuple(index[ch] for ch in w) for w in words]
        size = len(rules.tileset.letters)
        graph, gaddag = WordGraph.build(encoded, size), WordGraph.build_gaddag(encoded, size)
        try:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            for stale in [*self.cache_dir.glob(f"{name}-*.dawg"), *self.cache_dir.glob(f"{name}-*.gaddag")]:
                stale.unlink(missing_ok=True)
            graph.save(dawg_path)
            gaddag.save(gaddag_path)
            return WordGraph.load(dawg_path), WordGraph.load(gaddag_path)
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
