"""Build the bundled English lexicon ``en`` from ENABLE (the Enhanced North American Benchmark Lexicon).

Maintenance script, not used at run time. From the repository root:

    python wordlists/sources/build_enable.py [PATH/TO/enable1.txt or .txt.gz]

The input defaults to ``wordlists/sources/enable1.txt.gz``, the copy this project was built from (its SHA-256,
uncompressed, is checked). The words of 2 to 15 letters (the board's width) are kept, upper-cased, sorted and
written to ``wordlists/en.txt.gz`` with gzip's time stamp at 0: the same input gives the same file, byte for byte
(tests/test_wordlists.py builds it again and compares).
"""

from __future__ import annotations

import gzip
import hashlib
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "enable1.txt.gz"
OUT = HERE.parent / "en.txt.gz"
ENABLE_SHA256 = "3f16130220645692ed49c7134e24a18504c2ca55b3c012f7290e3e77c63b1a89"
BOARD_WORD = re.compile(r"[A-Z]{2,15}")


def read_enable(path: Path = SOURCE) -> bytes:
    """ENABLE's text, checked against the copy this list is built from."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    digest = hashlib.sha256(data).hexdigest()
    if digest != ENABLE_SHA256:
        raise SystemExit(f"{path}: sha256 {digest}, not the ENABLE copy this list is built from ({ENABLE_SHA256})")
    return data


def english_words(text: str) -> list[str]:
    """ENABLE's words that fit the board, upper-cased and sorted."""
    return sorted({word.upper() for word in text.split() if BOARD_WORD.fullmatch(word.upper())})


def gzipped(words: list[str]) -> bytes:
    """A word list as the bundle stores it: one word a line, reproducible gzip (no time stamp, no file name)."""
    return gzip.compress(("\n".join(words) + "\n").encode("ascii"), compresslevel=9, mtime=0)


def build(source: Path = SOURCE) -> bytes:
    return gzipped(english_words(read_enable(source).decode("ascii")))


def main(argv: list[str]) -> None:
    data = build(Path(argv[1]) if len(argv) > 1 else SOURCE)
    OUT.write_bytes(data)
    print(f"{OUT.name}: {len(gzip.decompress(data).split())} words")


if __name__ == "__main__":
    main(sys.argv)
