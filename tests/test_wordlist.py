"""Reading a club's word list (docs/rules.md §2.4): the worked example, and each way a whole file is refused."""

from __future__ import annotations

import gzip
import io
import zipfile

import pytest

from trainer.engine.lexicon import Lexicon
from trainer.engine.rules import Ruleset
from trainer.engine.wordlist import RefusedLine, WordListError, compare, read_word_list

EXAMPLE = "# our list\nAa\nnaïve\ntwo words\nx\nr2d2\nAA\n"


def test_the_worked_example(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    words, report = read_word_list(EXAMPLE.encode("utf-8"), en_rules)
    assert words == ["AA", "NAIVE"]
    assert report.refused == [
        RefusedLine(4, "two words", "spaces", ""),
        RefusedLine(5, "x", "length", "1/15"),
        RefusedLine(6, "r2d2", "letters", "2"),
    ]
    assert (report.refused_count, report.repeated, report.twos, report.by_length) == (3, 1, ["AA"], {2: 1, 5: 1})
    diff = compare(words, en_lexicon.words(), "en")
    assert (diff.added_count, diff.removed_count, diff.added) == (0, 168_549, [])
    assert diff.removed[:3] == ["AB", "AD", "AE"]  # shortest first


def test_packed_and_old_encodings_read_the_same(fr_rules: Ruleset) -> None:
    text = "été\nœuvre\nça\n"
    plain = read_word_list(text.encode("utf-8"), fr_rules)[0]
    assert plain == ["CA", "ETE", "OEUVRE"]
    assert read_word_list(text.encode("cp1252"), fr_rules)[1].encoding == "windows-1252"
    assert read_word_list(text.encode("cp1252"), fr_rules)[0] == plain
    assert read_word_list(("\ufeff" + text).encode("utf-8"), fr_rules)[0] == plain
    assert read_word_list(gzip.compress(text.encode()), fr_rules)[1].source == "gzip"
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as archive:
        archive.writestr("ods.txt", text)
    words, report = read_word_list(packed.getvalue(), fr_rules, "ods.zip")
    assert (words, report.source) == (plain, "zip")


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "empty"),
        (b"  \n\n", "empty"),
        (b"\x00\x01\x02aa\n" * 10, "binary"),
        (b"# only comments\n", "no_words"),
        (b"train\nrains\n", "no_twos"),
        (gzip.compress(b"aa\ntrain\n" * 1000)[:-10], "cut_off"),
    ],
)
def test_files_that_cannot_be_a_list(data: bytes, code: str, en_rules: Ruleset) -> None:
    with pytest.raises(WordListError) as refused:
        read_word_list(data, en_rules)
    assert refused.value.code == code


def test_a_developer_may_import_a_list_without_twos(en_rules: Ruleset) -> None:
    """The command line's import takes a small list (tests, a theme list); the pages ask for a whole list."""
    assert read_word_list(b"train\nrains\n", en_rules, require_twos=False)[0] == ["RAINS", "TRAIN"]
