"""Perft-style checks of the move generator against ``tests/data/perft.json``.

Each entry holds a position (from ``bench/positions.json``) with the number of legal plays and
the top score computed by the brute force of :mod:`tests.brute_force` (regenerate with
``python tests/data/make_perft.py``). A few cheap positions are also recomputed here with the
brute force and compared play by play, so the data file's provenance is checked on every run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import wordlists
from tests.brute_force import all_plays
from trainer.engine.board import Board, Tile
from trainer.engine.lexicon import LexiconStore
from trainer.engine.movegen import count_moves, generate_moves, top_moves
from trainer.engine.rules import Ruleset, ruleset

PERFT: list[dict[str, Any]] = json.loads((Path(__file__).parent / "data" / "perft.json").read_text("utf-8"))
BY_ID = {entry["id"]: entry for entry in PERFT}

# Cheap for the brute force (about a second each): ordinary rack, one blank on a busy board,
# one blank on the empty board, a short rack, French.
RECOMPUTED = ["en-05", "en-22", "en-empty-blank", "en-39", "fr-06"]


def _position(entry: dict[str, Any]) -> tuple[Ruleset, Board]:
    rules = ruleset(entry["rules"])
    return rules, Board.from_rows(rules.layout, entry["board"])


def _describe(key: frozenset[Tile]) -> str:
    """A play as its tiles, e.g. ``r8c8 C, r8c9 a`` (1-based row and column, a blank in lower case)."""
    return ", ".join(f"r{t.row + 1}c{t.col + 1} {t.char}" for t in sorted(key, key=lambda t: (t.row, t.col)))


def test_perft_file_is_sound() -> None:
    """The data set covers what it claims: blanks, French, several dozen positions, unique ids."""
    assert len(PERFT) >= 25
    assert len(BY_ID) == len(PERFT)
    assert sum(e["rack"].count("?") == 1 for e in PERFT) >= 5
    assert sum(e["rack"].count("?") == 2 for e in PERFT) >= 3
    assert sum(e["rules"] == "fr" for e in PERFT) >= 3
    assert set(RECOMPUTED) <= set(BY_ID)


@pytest.mark.parametrize("entry", PERFT, ids=[e["id"] for e in PERFT])
def test_perft(entry: dict[str, Any], lexicon_store: LexiconStore) -> None:
    rules, board = _position(entry)
    lexicon = lexicon_store.load(entry["lexicon"])
    rack = entry["rack"]
    where = f"{entry['id']} rack {rack}"

    assert count_moves(board, rules, lexicon, rack) == entry["count"], where
    top_score, tops = top_moves(board, rules, lexicon, rack)
    assert top_score == entry["top_score"], where

    moves = generate_moves(board, rules, lexicon, rack)
    scores = {move.key: move.score for move in moves}
    assert len(scores) == len(moves), f"{where}: duplicate plays"
    assert len(moves) == entry["count"], where
    assert max(scores.values(), default=0) == top_score, where
    for move in tops:
        assert move.score == top_score, f"{where}: {move!r}"
        assert scores.get(move.key) == top_score, f"{where}: top play {_describe(move.key)} not generated alike"
    best = {key for key, score in scores.items() if score == top_score} if moves else set()
    assert {move.key for move in tops} == best, f"{where}: top_moves does not return every top play"


@pytest.mark.parametrize("position_id", RECOMPUTED)
def test_brute_force_agrees_play_by_play(position_id: str, lexicon_store: LexiconStore) -> None:
    """The brute force gives the data file's figures and exactly the generator's plays and scores."""
    entry = BY_ID[position_id]
    rules, board = _position(entry)
    rack = entry["rack"]
    expected = all_plays(board, rules, wordlists.bundled_path(entry["lexicon"]), rack)
    assert len(expected) == entry["count"]
    assert max(expected.values(), default=0) == entry["top_score"]

    found = {move.key: move.score for move in generate_moves(board, rules, lexicon_store.load(entry["lexicon"]), rack)}
    missing = sorted(_describe(k) + f" = {s}" for k, s in expected.items() if k not in found)
    extra = sorted(_describe(k) + f" = {s}" for k, s in found.items() if k not in expected)
    wrong = sorted(
        f"{_describe(k)} = {found[k]}, expected {s}" for k, s in expected.items() if k in found and found[k] != s
    )
    assert not (missing or extra or wrong), (
        f"{position_id} rack {rack}: missing {missing[:10]}, extra {extra[:10]}, wrong scores {wrong[:10]}"
    )
