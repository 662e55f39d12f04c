"""Lexicons: the bundled word lists, the word-graph cache, and importing a club's list."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainer.engine.lexicon import Lexicon, LexiconError, LexiconStore, normalise_word
from trainer.engine.wordgraph import WordGraph


def cache_files(store: LexiconStore, name: str) -> dict[Path, int]:
    return {path: path.stat().st_mtime_ns for path in store.cache_dir.glob(f"{name}-*")}


# --- the graph cache --------------------------------------------------------------------------


def test_a_loaded_lexicon_is_kept(lexicon_store: LexiconStore, en_lexicon: Lexicon) -> None:
    assert lexicon_store.load("en") is en_lexicon


def test_second_store_loads_from_the_cache_without_rebuilding(
    lexicon_store: LexiconStore, en_lexicon: Lexicon, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = cache_files(lexicon_store, "en")
    assert any(path.suffix == ".dawg" for path in before)

    def no_build(*args: object, **kwargs: object) -> WordGraph:
        raise AssertionError("the word graph was rebuilt instead of read from the cache")

    monkeypatch.setattr(WordGraph, "build", classmethod(no_build))
    again = LexiconStore(lexicon_store.data_dir).load("en")
    assert again is not en_lexicon
    assert cache_files(lexicon_store, "en") == before  # same files, untouched
    for word in ("QAT", "ZAX", "TRAINER"):
        assert word in again
    assert "TRAINERZ" not in again
    assert again.graph.node_count == en_lexicon.graph.node_count


def test_first_load_writes_the_cache(tmp_path: Path) -> None:
    store = LexiconStore(tmp_path)
    word_list = tmp_path / "words.txt"
    word_list.write_text("train\nrain\n", "utf-8")
    store.import_list("mini", word_list, "en")
    assert cache_files(store, "mini") == {}
    store.load("mini")
    assert any(path.suffix == ".dawg" for path in cache_files(store, "mini"))


# --- words ------------------------------------------------------------------------------------


@pytest.mark.parametrize("word", ["QAT", "ZAX", "TRAINER", "TRAINERS", "AA", "xu", "Trainer"])
def test_english_words_present(word: str, en_lexicon: Lexicon) -> None:
    assert word in en_lexicon


# ENABLE predates QI and ZA (wordlists/README.md).
@pytest.mark.parametrize("word", ["XX", "QI", "ZA", "TRAINERZ", "Q", "", "QAT ", "Q-AT", "ÉTÉ", "ZZZZZZZZZZZZZZZZ"])
def test_english_words_absent(word: str, en_lexicon: Lexicon) -> None:
    assert word not in en_lexicon


def test_only_text_is_a_word(en_lexicon: Lexicon) -> None:
    assert 42 not in en_lexicon
    assert None not in en_lexicon


@pytest.mark.parametrize("word", ["ETE", "ETRE", "ARBRE", "COEUR", "TRAIN", "QI", "KA", "WU"])
def test_french_words_without_accents(word: str, fr_lexicon: Lexicon) -> None:
    assert word in fr_lexicon


@pytest.mark.parametrize("word", ["PEUT-ETRE", "AUJOURD'HUI", "QI ", "ZZ", "KG", "CM"])
def test_french_words_absent(word: str, fr_lexicon: Lexicon) -> None:
    assert word not in fr_lexicon


def test_french_list_is_plain_letters(fr_lexicon: Lexicon) -> None:
    words = fr_lexicon.words()
    assert len(words) > 100_000
    letters = set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    bad = [w for w in words if not set(w) <= letters or not 2 <= len(w) <= 15]
    assert bad == []


def test_lexicons_belong_to_their_rules(en_lexicon: Lexicon, fr_lexicon: Lexicon) -> None:
    assert (en_lexicon.rules.code, fr_lexicon.rules.code) == ("en", "fr")


def test_unknown_lexicon(tmp_path: Path) -> None:
    with pytest.raises(LexiconError, match=r"^unknown lexicon 'nope' \(known: en, fr\)$"):
        LexiconStore(tmp_path).load("nope")


# --- importing --------------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "word"), [("été", "ETE"), (" Cœur\n", "COEUR"), ("naïve", "NAIVE"), ("ÆON", "AEON")])
def test_normalise_word(raw: str, word: str) -> None:
    assert normalise_word(raw) == word


def test_import_a_word_list(tmp_path: Path) -> None:
    store = LexiconStore(tmp_path / "data")
    word_list = tmp_path / "club.txt"
    word_list.write_text(
        "# our club's list\ntrain\nTRAINS\n\nété\nÉTÉ\ncœur\nbad word!\nx\npeut-être\nabcdefghijklmnop\n", "utf-8"
    )
    kept, skipped = store.import_list("club", word_list, "fr", "Club list")
    assert kept == 4  # TRAIN, TRAINS, ETE, COEUR (ÉTÉ and été are the same word)
    assert skipped == [
        "line 8: 'bad word!' holds more than one word",
        "line 9: 'x' is not 2-15 letters",
        "line 10: 'peut-être' has '-', not a tile letter",
        "line 11: 'abcdefghijklmnop' is not 2-15 letters",
    ]
    lexicon = store.load("club")
    assert lexicon.words() == ["COEUR", "ETE", "TRAIN", "TRAINS"]
    assert lexicon.rules.code == "fr"
    assert store.catalogue()["club"] == {"rules": "fr", "description": "Club list", "edition": ""}
    # Another store on the same folder finds it.
    assert LexiconStore(tmp_path / "data").load("club").words() == ["COEUR", "ETE", "TRAIN", "TRAINS"]


def test_reimport_replaces_the_words_and_the_cache(tmp_path: Path) -> None:
    store = LexiconStore(tmp_path / "data")
    word_list = tmp_path / "words.txt"
    word_list.write_text("train\n", "utf-8")
    store.import_list("mini", word_list, "en")
    assert store.load("mini").words() == ["TRAIN"]
    old_cache = set(cache_files(store, "mini"))
    word_list.write_text("rain\nrains\n", "utf-8")
    store.import_list("mini", word_list, "en")
    assert store.load("mini").words() == ["RAIN", "RAINS"]
    assert LexiconStore(tmp_path / "data").load("mini").words() == ["RAIN", "RAINS"]
    new_cache = set(cache_files(store, "mini"))
    assert new_cache and not new_cache & old_cache  # the stale graph is gone


def test_import_description_defaults_to_the_file_name(tmp_path: Path) -> None:
    store = LexiconStore(tmp_path / "data")
    word_list = tmp_path / "words.txt"
    word_list.write_text("train\n", "utf-8")
    store.import_list("mini", word_list, "en")
    assert store.catalogue()["mini"] == {"rules": "en", "description": "imported from words.txt", "edition": ""}


@pytest.mark.parametrize("name", ["Club", "bad name", "", "-club", "../club", "club.txt", "x" * 41])
def test_import_bad_name(name: str, tmp_path: Path) -> None:
    word_list = tmp_path / "words.txt"
    word_list.write_text("train\n", "utf-8")
    with pytest.raises(LexiconError, match="use 1-40 lower-case letters, digits"):
        LexiconStore(tmp_path / "data").import_list(name, word_list, "en")
    assert not (tmp_path / "data" / "lexicons").exists()


def test_import_over_a_bundled_name(tmp_path: Path) -> None:
    word_list = tmp_path / "words.txt"
    word_list.write_text("train\n", "utf-8")
    with pytest.raises(LexiconError, match="'en' is taken by a bundled lexicon"):
        LexiconStore(tmp_path / "data").import_list("en", word_list, "en")


def test_import_unknown_rules(tmp_path: Path) -> None:
    word_list = tmp_path / "words.txt"
    word_list.write_text("train\n", "utf-8")
    with pytest.raises(ValueError, match=r"unknown rules 'de' \(known: en, fr\)"):
        LexiconStore(tmp_path / "data").import_list("mini", word_list, "de")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "the file is empty"),
        ("\n\n", "the file is empty"),
        ("# only a comment\n", "holds no word of 2 letters or more"),
        ("x\ny\n", "holds no word of 2 letters or more"),
        ("peut-être\n", "holds no word of 2 letters or more"),
    ],
    ids=["empty", "blank-lines", "comment", "one-letter", "hyphen"],
)
def test_import_no_usable_word(content: str, message: str, tmp_path: Path) -> None:
    word_list = tmp_path / "words.txt"
    word_list.write_text(content, "utf-8")
    with pytest.raises(LexiconError, match=message):
        LexiconStore(tmp_path / "data").import_list("mini", word_list, "en")
    assert "mini" not in LexiconStore(tmp_path / "data").catalogue()


def test_import_unreadable_files(tmp_path: Path) -> None:
    store = LexiconStore(tmp_path / "data")
    with pytest.raises(LexiconError, match="cannot read"):
        store.import_list("mini", tmp_path / "missing.txt", "en")
    binary = tmp_path / "words.bin"
    binary.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(LexiconError, match="not a text file"):
        store.import_list("mini", binary, "en")
    assert "mini" not in store.catalogue()


def test_import_a_windows_1252_list(tmp_path: Path) -> None:
    """Old French editors save Windows-1252: its accents are read and folded."""
    store = LexiconStore(tmp_path / "data")
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes("été\nœuvre\n".encode("cp1252"))
    store.import_list("mini", latin1, "fr")
    assert store.load("mini").words() == ["ETE", "OEUVRE"]


def test_a_new_edition_imported_by_another_process_is_loaded(tmp_path: Path) -> None:
    """A server's store keeps a loaded lexicon, but sees a new list put under its name (by the command line, in
    another process) and loads that one: new games are never judged by the old words in one worker only."""
    serving = LexiconStore(tmp_path / "data")
    word_list = tmp_path / "words.txt"
    word_list.write_text("aa\ntrain\n", "utf-8")
    serving.import_list("club", word_list, "en", edition="1")
    first = serving.load("club")
    assert serving.load("club") is first  # kept while the list is the same
    word_list.write_text("aa\nrains\n", "utf-8")
    LexiconStore(tmp_path / "data").import_list("club", word_list, "en", edition="2")
    assert serving.load("club").words() == ["AA", "RAINS"]
