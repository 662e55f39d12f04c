"""Build the bundled French lexicon ``fr`` from Grammalecte's French dictionary, as Debian packages it.

Maintenance script, not used at run time. It needs Debian's ``hunspell-fr-classical`` (the dictionary:
``/usr/share/hunspell/fr.dic`` and ``fr.aff``, Grammalecte 7.0, MPL-2.0). From the repository root:

    python wordlists/sources/build_french.py [DIR_WITH_fr.dic_AND_fr.aff]

What a Scrabble list holds, from a spelling dictionary (wordlists/README.md says it in prose):

1. Entries are dropped before they are expanded when Grammalecte tags them as a proper noun, first name, title,
   symbol, punctuation, number, abbreviation-like prefix or suffix, error or locution, or flags them as a unit
   (``U.``: the SI prefixes would make KG, CM, KM) or a case-kept symbol (``||``: FT, OZ, PC); when the entry has
   a capital, a digit or anything but letters; and when it is listed in :data:`NOT_WORDS`.
2. Every form of the entries left is written out (:func:`expand`, which reads the affix rules as hunspell does);
   forms with an apostrophe or a hyphen are dropped.
3. Accents are removed (``é`` -> ``E``, ``œ`` -> ``OE``), words upper-cased, and 2 to 15 letters kept.
4. The words of ``fr-additions.txt`` are added.

The output, ``wordlists/fr.txt.gz``, is sorted and gzipped with its time stamp at 0: the same input gives the
same file, byte for byte (tests/test_wordlists.py builds it again and compares).
"""

from __future__ import annotations

import gzip
import hashlib
import re
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "fr.txt.gz"
ADDITIONS = HERE / "fr-additions.txt"
DEBIAN_DIR = Path("/usr/share/hunspell")
# hunspell-fr-classical 1:7.0-1 (Debian bookworm and trixie): the input this list is built from.
SOURCE_SHA256 = {
    "fr.dic": "4b1415593d599dbd943dde6d00515bbde3b4287ab62666242d959f74ddb16a6e",
    "fr.aff": "b0aa05cec5f2de2372c3ab6b2726288c39fcb384e602dbade97e91020edc25a7",
}
DROPPED_TAGS = {
    "po:npr",  # proper noun
    "po:patr",  # surname
    "po:titr",  # title (M., Mme)
    "po:sign",  # symbol
    "po:ponc",  # punctuation
    "po:nb",  # number
    "po:nbro",  # roman numeral
    "po:err",  # a known error
    "po:pfx",  # prefix, not a word
    "po:sfx",  # suffix, not a word
}
NEEDAFFIX, FORBIDDEN = "()", "{}"  # as fr.aff declares them
DROPPED_FLAGS = {"U.", "||"}  # units (with their SI-prefixed forms), symbols kept in their case
# Entries Grammalecte lists as words that are abbreviations or single letters in a Scrabble list's eyes.
NOT_WORDS = {
    "av",  # av. (avant, avenue)
    "vs",  # versus
    "ln",  # natural logarithm
    "éd",  # éd. (édition)
    "pt",  # pt (point)
    "æ",  # one letter (the a-e ligature), which the folding would turn into two
    "œ",  # one letter (the o-e ligature)
}
BOARD_WORD = re.compile(r"[A-Z]{2,15}")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fold(word: str) -> str:
    """Upper case without accents, ligatures spelt out (the tiles have no accents)."""
    word = word.replace("œ", "oe").replace("æ", "ae")
    return "".join(ch for ch in unicodedata.normalize("NFD", word) if not unicodedata.combining(ch)).upper()


def kept_entries(dic_text: str) -> list[str]:
    """The dictionary's entries (``word/flags``) that stand for words a Scrabble list holds."""
    kept = []
    for line in dic_text.splitlines()[1:]:  # the first line is the entry count
        fields = line.split()
        if not fields:
            continue
        word, _, flags = fields[0].partition("/")
        tags = set(fields[1:])
        if tags & DROPPED_TAGS or any(tag.startswith("po:loc") for tag in tags):
            continue
        if flag_pairs(flags) & DROPPED_FLAGS:
            continue
        if not word.isalpha() or word != word.lower() or word in NOT_WORDS:
            continue
        kept.append(fields[0])
    return kept


@dataclass(frozen=True)
class Affix:
    """One line of an affix class: remove ``strip`` and add ``add`` where ``condition`` matches the stem."""

    kind: str  # PFX or SFX
    flag: str
    cross: bool  # may combine with an affix of the other kind
    strip: str
    add: str
    continuation: frozenset[str]  # flags the affixed form carries on
    condition: re.Pattern[str]

    def applies(self, stem: str) -> bool:
        if self.kind == "SFX":
            return stem.endswith(self.strip) and self.condition.search(stem) is not None
        return stem.startswith(self.strip) and self.condition.match(stem) is not None

    def apply(self, stem: str) -> str:
        if self.kind == "SFX":
            return stem[: len(stem) - len(self.strip)] + self.add
        return self.add + stem[len(self.strip) :]


def flag_pairs(flags: str) -> frozenset[str]:
    """The flags of ``FLAG long``: two characters each."""
    return frozenset(flags[i : i + 2] for i in range(0, len(flags), 2))


def read_affixes(aff_text: str) -> dict[str, list[Affix]]:
    """The affix classes of a hunspell ``.aff`` file, by flag."""
    classes: dict[str, list[Affix]] = {}
    cross: dict[str, bool] = {}
    for line in aff_text.splitlines():
        fields = line.split()
        if len(fields) < 4 or fields[0] not in ("PFX", "SFX"):
            continue
        kind, flag = fields[0], fields[1]
        if flag not in cross:  # the class's header: flag, cross product Y/N, number of lines
            cross[flag] = fields[2] == "Y"
            classes[flag] = []
            continue
        add, _, continuation = fields[3].partition("/")
        condition = fields[4] if len(fields) > 4 else "."
        pattern = re.compile(condition + "$" if kind == "SFX" else condition)
        classes[flag].append(
            Affix(
                kind,
                flag,
                cross[flag],
                "" if fields[2] == "0" else fields[2],
                "" if add == "0" else add,
                flag_pairs(continuation),
                pattern,
            )
        )
    return classes


def expand(entry: str, classes: dict[str, list[Affix]]) -> set[str]:
    """Every form a dictionary entry stands for, as hunspell reads it (an equivalent of ``unmunch``, whose
    handling of prefixes that carry flags on, like the SI prefixes of units, gives wrong forms): a prefix and up to
    two suffixes, a suffix's flags carried on to the next, the cross-product rule, and NEEDAFFIX (an entry or an
    affix so flagged is a word only with another affix)."""
    root, _, flags_text = entry.partition("/")
    flags = flag_pairs(flags_text)
    if FORBIDDEN in flags:
        return set()

    def of(kind: str, wanted: frozenset[str], stem: str) -> list[Affix]:
        return [a for f in sorted(wanted) for a in classes.get(f, []) if a.kind == kind and a.applies(stem)]

    forms: set[str] = set()
    for prefix in [None, *of("PFX", flags, root)]:
        after_prefix = flags | prefix.continuation if prefix else flags
        for suffix in [None, *of("SFX", after_prefix, root)]:
            if prefix and suffix and suffix.flag in flags and not (prefix.cross and suffix.cross):
                continue
            stem = suffix.apply(root) if suffix else root
            outer: list[Affix | None] = [None, *(of("SFX", suffix.continuation, stem) if suffix else [])]
            for second in outer:
                word = second.apply(stem) if second else stem
                used = [a for a in (prefix, suffix, second) if a]
                if not used and NEEDAFFIX in flags:
                    continue
                if any(NEEDAFFIX in a.continuation for a in used) and len(used) < 2:
                    continue
                carried = (second or suffix).continuation if suffix else frozenset()
                if prefix is None:  # prefixes a suffix allows (elisions: l', d', qu')
                    forms.update(p.apply(word) for p in of("PFX", carried, root) if NEEDAFFIX not in p.continuation)
                forms.add(prefix.apply(word) if prefix else word)
    return forms


def additions() -> set[str]:
    lines = (line.partition("#")[0].strip() for line in ADDITIONS.read_text("utf-8").splitlines())
    return {line for line in lines if line}


def french_words(dic: Path, aff: Path) -> list[str]:
    words = set(additions())
    classes = read_affixes(aff.read_text("utf-8"))
    forms = {form for entry in kept_entries(dic.read_text("utf-8")) for form in expand(entry, classes)}
    for form in forms:
        if "'" in form or "’" in form or "-" in form:
            continue
        folded = fold(form)
        if BOARD_WORD.fullmatch(folded):
            words.add(folded)
    return sorted(words)


def build(source_dir: Path = DEBIAN_DIR) -> bytes:
    dic, aff = source_dir / "fr.dic", source_dir / "fr.aff"
    for path in (dic, aff):
        digest = sha256(path)
        if digest != SOURCE_SHA256[path.name]:
            raise SystemExit(
                f"{path}: sha256 {digest}, not the hunspell-fr-classical 1:7.0-1 file this list is built from"
            )
    words = french_words(dic, aff)
    return gzip.compress(("\n".join(words) + "\n").encode("ascii"), compresslevel=9, mtime=0)


def main(argv: list[str]) -> None:
    data = build(Path(argv[1]) if len(argv) > 1 else DEBIAN_DIR)
    OUT.write_bytes(data)
    print(f"{OUT.name}: {len(gzip.decompress(data).split())} words")


if __name__ == "__main__":
    main(sys.argv)
