"""The bundled word lists (wordlists/README.md): what they hold, where they come from, and that their build
scripts give the very files shipped."""

from __future__ import annotations

import gzip
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

import wordlists

SOURCES = Path(wordlists.__file__).parent / "sources"
HUNSPELL_FR = Path("/usr/share/hunspell")


def load_script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, SOURCES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def bundled_words(name: str) -> list[str]:
    return gzip.decompress(wordlists.bundled_path(name).read_bytes()).decode("ascii").split()


def test_the_registry_names_only_the_open_lists_and_their_editions() -> None:
    registry = wordlists.bundled()
    assert sorted(registry) == ["en", "fr"]
    assert registry["en"]["edition"] == "ENABLE 1"
    assert registry["fr"]["edition"] == "Grammalecte 7.0"
    shipped = {path.name for path in Path(wordlists.__file__).parent.iterdir()}
    assert {"LICENSE-en-enable.txt", "LICENSE-fr-grammalecte-MPL-2.0.txt"} <= shipped
    # The Letterpress-derived lists and their npm licences are gone.
    assert not any("word-list" in name or "french-words" in name for name in shipped)


def test_en_is_enable_cut_to_the_board() -> None:
    build_enable = load_script("build_enable")
    enable = build_enable.read_enable().decode("ascii").split()
    assert len(enable) == 172_823
    fitting = {word.upper() for word in enable if 2 <= len(word) <= 15}
    words = bundled_words("en")
    assert words == sorted(words)
    assert set(words) == fitting  # every bundled word is ENABLE's, and every ENABLE word of 2-15 letters is here
    assert len(words) == 168_551
    # ENABLE predates QI and ZA (wordlists/README.md says so).
    assert "QI" not in fitting and "ZA" not in fitting and "AA" in fitting


def test_en_builds_again_byte_for_byte() -> None:
    build_enable = load_script("build_enable")
    assert build_enable.build() == wordlists.bundled_path("en").read_bytes()


def test_fr_twos_hold_no_abbreviation_or_unit() -> None:
    words = bundled_words("fr")
    twos = {word for word in words if len(word) == 2}
    assert {"QI", "KA", "WU"} <= twos
    # Units, symbols and abbreviations Grammalecte holds, which its flags and tags (or the script's list) drop.
    assert not twos & {"CM", "KG", "KM", "MM", "FT", "OZ", "PC", "AV", "VS", "LN", "ED", "PT", "AE", "OE", "HZ"}
    assert all(any(vowel in word for vowel in "AEIOUY") for word in twos)
    assert len(twos) == 78
    assert {"MME", "DUPONT", "LYON", "MOZART", "EUROPE"}.isdisjoint(words)  # a title, proper nouns
    # The twos added by hand come with their plurals (sources/fr-additions.txt), so their hooks are there.
    assert {"AAS", "KAS", "OMS", "BAS", "BIS"} <= set(words)
    # Accents folded; every form written out, the SI prefixes of a unit too, and nothing more ("YOTTA" and
    # "KAMPERE" are what a naive reading of the units' prefix rules gives).
    assert {"ETE", "COEUR", "MANGEAIENT", "OEUVRES", "ZYTHUMS", "KILOGRAMME", "MILLIAMPERES"} <= set(words)
    assert {"YOTTA", "KAMPERE", "AAMPERE", "MAUDITTE"}.isdisjoint(words)
    assert all(2 <= len(word) <= 15 and word.isascii() and word.isalpha() and word.isupper() for word in words)


def test_fr_builds_again_byte_for_byte() -> None:
    """The build is reproducible: Debian's dictionary gives the very file shipped."""
    missing = [str(p) for p in (HUNSPELL_FR / "fr.dic", HUNSPELL_FR / "fr.aff") if not p.exists()]
    if missing:
        reason = f"{', '.join(missing)} not found (apt-get install hunspell-fr-classical)"
        if os.environ.get("CI"):
            pytest.fail(f"the French list's build cannot be checked in CI: {reason}")
        pytest.skip(reason)
    build_french = load_script("build_french")
    assert build_french.build() == wordlists.bundled_path("fr").read_bytes()
