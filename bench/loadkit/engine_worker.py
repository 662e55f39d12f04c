"""The engine in the client's worker process: the lexicon loaded once, then a round's legal plays."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

_ENGINE: dict[str, Any] = {}  # the worker process's loaded lexicon


def load_lexicon(instance: str, lexicon: str) -> None:
    """The worker's initializer: the lexicon's word graphs from the instance's cache."""
    from trainer.engine.lexicon import LexiconStore

    _ENGINE["lexicon"] = LexiconStore(Path(instance)).load(lexicon)


def legal_plays(
    rules_code: str, notation: str, rows: list[str], rack: str, keep: int, seed: int
) -> tuple[list[str], int, float]:
    """Up to ``keep`` random legal plays, written as the server writes them; how many there are; CPU seconds.

    Run in a worker process: a generation can take a second, and the client's event loop must not
    stop stamping the receive times meanwhile.
    """
    from trainer.engine.board import Board
    from trainer.engine.movegen import generate_moves
    from trainer.engine.notation import format_move
    from trainer.engine.rules import ruleset

    started = time.process_time()
    rules = ruleset(rules_code)
    board = Board.from_rows(rules.layout, rows)
    texts = sorted({format_move(m, notation) for m in generate_moves(board, rules, _ENGINE["lexicon"], rack)})  # type: ignore[arg-type]
    sample = random.Random(seed).sample(texts, min(keep, len(texts)))
    return sample, len(texts), time.process_time() - started


def engine_cpu() -> float:
    """The worker's CPU seconds so far (the first call also waits for the lexicon load)."""
    return time.process_time()
