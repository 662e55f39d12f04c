"""The JSON face of the engine, behind ``tirage analyze`` and ``tirage score``.

Each function takes the decoded request object and returns the response object; input errors
raise ``ValueError`` with a one-line message.
"""

from __future__ import annotations

import time
from typing import Any

from .board import Board, Move
from .errors import EngineError
from .lexicon import Lexicon, LexiconStore
from .movegen import generate_moves, top_moves
from .notation import format_move
from .play import evaluate, parse_rack
from .rules import Notation, Ruleset, ruleset


def _setup(request: object, store: LexiconStore) -> tuple[dict[str, Any], Ruleset, Lexicon, Board, Notation]:
    if not isinstance(request, dict):
        raise EngineError("the input must be one JSON object")
    rules_code = request.get("rules", "en")
    if not isinstance(rules_code, str):
        raise EngineError("'rules' must be a string such as \"en\"")
    rules = ruleset(rules_code)
    lexicon_name = request.get("lexicon", rules.lexicon)
    if not isinstance(lexicon_name, str):
        raise EngineError("'lexicon' must be a string such as \"en\"")
    lexicon = store.load(lexicon_name)
    if lexicon.rules.code != rules.code:
        raise EngineError(f"lexicon {lexicon_name!r} is for rules {lexicon.rules.code!r}, not {rules.code!r}")
    if "board" not in request:
        raise EngineError(f"'board' is missing: give {rules.layout.size} strings of {rules.layout.size} characters")
    board = Board.from_rows(rules.layout, request["board"])
    notation = request.get("notation", rules.notation)
    if notation not in ("english", "french"):
        raise EngineError('\'notation\' must be "english" or "french"')
    return request, rules, lexicon, board, notation


def _rack(request: dict[str, Any], rules: Ruleset, required: bool) -> list[str] | None:
    if "rack" not in request:
        if required:
            raise EngineError("'rack' is missing: give the rack as text such as \"AEINRT?\"")
        return None
    return parse_rack(request["rack"], rules)


def _move_json(move: Move, notation: Notation) -> dict[str, Any]:
    return {
        "move": format_move(move, notation),
        "score": move.score,
        "tiles": [[t.row, t.col, t.char] for t in move.tiles],
    }


def analyze(request: object, store: LexiconStore) -> dict[str, Any]:
    """Every top play of a position (and with ``"all": true`` the number of legal plays)."""
    req, rules, lexicon, board, notation = _setup(request, store)
    rack = _rack(req, rules, required=True)
    assert rack is not None
    want_all = req.get("all", False)
    if not isinstance(want_all, bool):
        raise EngineError("'all' must be true or false")
    started = time.perf_counter()
    count: int | None = None
    if want_all:
        moves = generate_moves(board, rules, lexicon, rack)
        count = len(moves)
        top_score = max((m.score or 0 for m in moves), default=0)
        top = [m for m in moves if m.score == top_score] if moves else []
    else:
        top_score, top = top_moves(board, rules, lexicon, rack)
    elapsed = (time.perf_counter() - started) * 1000
    top_json = sorted((_move_json(m, notation) for m in top), key=lambda m: m["move"])
    return {"top_score": top_score, "top": top_json, "count": count, "ms": round(elapsed, 1)}


def score(request: object, store: LexiconStore) -> dict[str, Any]:
    """Score of one play; illegal placements raise, words missing from the lexicon do not."""
    req, rules, lexicon, board, notation = _setup(request, store)
    rack = _rack(req, rules, required=False)
    move = req.get("move")
    if not isinstance(move, str):
        raise EngineError("'move' is missing: give a play such as \"8D TRAIN\"")
    result = evaluate(board, rules, lexicon, move, rack, notation)
    out: dict[str, Any] = {
        "move": format_move(result.move, notation),
        "score": result.score,
        "words": [[w.text, w.score] for w in result.words],
        "valid": result.valid,
    }
    if result.invalid_words:
        out["invalid_words"] = list(result.invalid_words)
    return out
