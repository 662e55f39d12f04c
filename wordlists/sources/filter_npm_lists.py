"""Rebuild the bundled default lexicons from their npm packages.

Maintenance script, not used at run time. Usage (from the repository root):

    cd "$(mktemp -d)" && npm pack word-list@4.1.0 an-array-of-french-words@2.0.0
    python wordlists/sources/filter_npm_lists.py DIR_WITH_THE_TGZ_FILES

It writes wordlists/en.txt.gz and wordlists/fr.txt.gz (one upper-case word a line, sorted).
The filters are described in wordlists/README.md.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
import tarfile
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent
ONLY_AZ = re.compile(r"^[A-Z]{2,15}$")
VOWELS = set("AEIOUY")


def read_member(tgz: Path, name: str) -> str:
    with tarfile.open(tgz) as tar:
        member = tar.extractfile(name)
        assert member is not None, f"{name} missing from {tgz}"
        return member.read().decode("utf-8")


def strip_accents(word: str) -> str:
    word = word.replace("œ", "oe").replace("Œ", "OE").replace("æ", "ae").replace("Æ", "AE")
    decomposed = unicodedata.normalize("NFD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def english(text: str) -> list[str]:
    return sorted({w.upper() for w in text.split("\n") if ONLY_AZ.match(w.upper())})


def french(words: list[str]) -> list[str]:
    kept = set()
    for raw in words:
        if "-" in raw or "'" in raw or "’" in raw:
            continue
        word = strip_accents(raw).upper()
        if ONLY_AZ.match(word) and VOWELS & set(word):
            kept.add(word)
    return sorted(kept)


def write(name: str, words: list[str]) -> None:
    path = OUT / f"{name}.txt.gz"
    # mtime=0 keeps the archive byte-identical between rebuilds.
    with gzip.GzipFile(path, "wb", compresslevel=9, mtime=0) as out:
        out.write(("\n".join(words) + "\n").encode("ascii"))
    print(f"{path.name}: {len(words)} words")


def main(folder: str) -> None:
    src = Path(folder)
    write("en", english(read_member(src / "word-list-4.1.0.tgz", "package/words.txt")))
    fr_words = json.loads(read_member(src / "an-array-of-french-words-2.0.0.tgz", "package/index.json"))
    write("fr", french(fr_words))


if __name__ == "__main__":
    main(sys.argv[1])
