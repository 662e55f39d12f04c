"""Players' names as rooms show them (standings, the wall): one rule for games and walls.

A name is normalised (Unicode NFKC: full-width letters and ligatures become plain ones, spaces collapse)
and refused when it holds what cannot be shown or would mislead: control characters, invisible ones
(zero-width spaces and joiners) and direction overrides. Two names of a game are the same when their
:func:`name_key` is: case, accents and look-alike letters from other scripts (Cyrillic ``о`` for ``o``)
do not make a second "Zoe" (docs/rules.md §6.16).
"""

from __future__ import annotations

import functools
import unicodedata

from confusable_homoglyphs import confusables

from .errors import Refused

MAX_NAME = 40
ASCII_LOOKALIKES = str.maketrans({"0": "o", "1": "l", "|": "l"})  # read alike on a phone's screen


def player_name(name: object) -> str:
    """``name`` normalised (NFKC, spaces collapsed); refused (``bad_name``) when empty or over 40 characters,
    (``bad_name_characters``) when it holds characters that cannot be shown or mislead."""
    text = unicodedata.normalize("NFKC", name) if isinstance(name, str) else ""
    cleaned = " ".join(text.split())
    if not 1 <= len(cleaned) <= MAX_NAME:
        raise Refused("bad_name", f"'name' must be 1 to {MAX_NAME} characters")
    if not cleaned.isprintable():  # control (Cc), invisible and direction (Cf) characters, unassigned ones
        raise Refused(
            "bad_name_characters",
            "'name' holds a character that cannot be shown (a control, invisible or direction character)",
        )
    return cleaned


def name_key(name: str) -> str:
    """What makes two names the same in a room: case, accents and look-alike characters folded."""
    bare = "".join(char for char in unicodedata.normalize("NFKD", name) if not unicodedata.combining(char))
    # Look-alikes both before and after case folding: Greek "Ζ" looks like "Z", its lower case "ζ" like nothing.
    latin = "".join(_latin_lookalike(char) for char in bare).casefold()
    return "".join(_latin_lookalike(char) for char in latin).translate(ASCII_LOOKALIKES)


@functools.lru_cache(maxsize=4096)
def _latin_lookalike(char: str) -> str:
    """The Latin letter ``char`` is mistaken for (Unicode's confusables), or ``char`` itself."""
    if char.isascii():
        return char
    found = confusables.is_confusable(char, greedy=True, preferred_aliases=["latin"])
    for entry in found or []:
        for homoglyph in entry["homoglyphs"]:
            if homoglyph["c"].isascii() and homoglyph["c"].isalnum():
                return str(homoglyph["c"]).casefold()
    return char
