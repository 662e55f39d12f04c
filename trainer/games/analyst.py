"""The engine work of a round's opening, in a process of its own.

Opening a round finds every legal play of its rack (their scores rank the players' plays at the close).
On a rack with two blanks that is 20,000-40,000 plays and 0.5-1.1 s of Python; in the serving process it
holds the interpreter for that long, and no play of any other game is answered meanwhile. Under
``tirage serve`` (``TIRAGE_ANALYSIS_PROCESS``) it runs in a worker process instead, which loads the same
lexicons (memory-mapped, shared through the page cache) and hands back only what the round keeps: the
draw, the tops, the best plays and the count of plays at each score. Elsewhere (tests, the command line,
``tirage scheduler``, whose own process it is) the same function runs in place.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, current_app

from ..core.lexicons import lexicon_store
from ..duplicate import imposed, rounds
from ..duplicate import settings as declared
from ..duplicate.draw import DrawRule
from ..duplicate.imposed import ImposedDraws
from ..duplicate.modes import mode
from ..duplicate.rounds import GameEnd, OpenedRound, PlayedRound, Setup
from ..engine.lexicon import LexiconStore
from ..engine.rules import Notation, ruleset

KEY = "tirage.analyst"
# Learners' practice rounds, worked out ahead of them (trainer.games.practice), have a worker of their own (started
# with the first such round): a learner training alone never delays the opening of a club's round.
PRACTICE_KEY = "tirage.practice_analyst"
TIMEOUT_SECONDS = 120.0  # longer than any rack takes; a worker that hangs must not hold a round for ever


@dataclass(frozen=True)
class SetupSpec:
    """A game's :class:`~trainer.duplicate.rounds.Setup` by name, as it travels to the worker (a lexicon does not)."""

    rules: str
    lexicon: str
    notation: Notation
    draw_rule: dict[str, Any]
    seed: int
    max_rounds: int | None
    mode: str
    first_play_across: bool = False
    first_play_best_placement: bool = False
    imposed_draws: str | None = None  # the game's list of draws (docs/rules.md §6.18), as stored
    variant: str = "classic"  # docs/rules.md §6.24: "joker", every draw holds the blank

    def setup(self, store: LexiconStore) -> Setup:
        rules, draw_rule = ruleset(self.rules), declared.draw_rule(self.draw_rule)
        return Setup(
            rules=rules,
            lexicon=store.load(self.lexicon),
            notation=self.notation,
            draw_rule=draw_rule,
            seed=self.seed,
            max_rounds=self.max_rounds,
            mode=mode(self.mode),
            first_play_across=self.first_play_across,
            first_play_best_placement=self.first_play_best_placement,
            imposed=_imposed(self.imposed_draws, self.rules, draw_rule) if self.imposed_draws is not None else None,
            variant=self.variant,
        )


@functools.lru_cache(maxsize=32)
def _imposed(text: str, rules: str, draw_rule: DrawRule) -> ImposedDraws:
    """A game's stored list of draws, read once a process: every play handed in asks for its game's setup."""
    return imposed.parse(text, ruleset(rules), draw_rule)


class Analyst:
    """One worker process (started with its first round) that opens rounds for one application."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()  # one pool, whichever thread opens the first round
        self._stopped = False
        self.opened = 0

    def next_round(self, spec: SetupSpec, played: list[PlayedRound], board: str) -> OpenedRound | GameEnd:
        pool = self._running_pool()
        if pool is None:  # the server is stopping: a round still due opens here
            return rounds.next_round(spec.setup(lexicon_store()), played, board)
        result: OpenedRound | GameEnd = pool.submit(_next_round, spec, played, board).result(TIMEOUT_SECONDS)
        self.opened += 1
        return result

    def _running_pool(self) -> ProcessPoolExecutor | None:
        with self._lock:
            if self._pool is None and not self._stopped:
                # Spawned, not forked: the server's threads and connections stay where they are.
                context = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(1, context, _start_worker, (str(self.data_dir),))
            return self._pool

    def worker_pid(self) -> int:
        """The worker's process id (for tests and an operator's curiosity)."""
        pool = self._running_pool()
        assert pool is not None
        pid: int = pool.submit(os.getpid).result(TIMEOUT_SECONDS)
        return pid

    def stop(self) -> None:
        """End the worker process, after the opening it is working on (an orphan would outlive the server)."""
        with self._lock:
            pool, self._pool, self._stopped = self._pool, None, True
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


_store: LexiconStore | None = None  # the worker's own lexicon store


PARENT_CHECK_SECONDS = 1.0


def _start_worker(data_dir: str) -> None:
    global _store
    _store = LexiconStore(Path(data_dir))
    _exit_with_parent(os.getppid())


def _exit_with_parent(parent: int) -> None:
    """End this worker once its server is gone: a server killed outright (SIGKILL, the OOM killer) cannot stop it,
    and an orphaned worker would hold its memory for ever."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _next_round(spec: SetupSpec, played: list[PlayedRound], board: str) -> OpenedRound | GameEnd:
    assert _store is not None
    return rounds.next_round(spec.setup(_store), played, board)


def init_app(app: Flask) -> None:
    """The analysts for ``app`` (games', practice's) when ``TIRAGE_ANALYSIS_PROCESS`` is set (``tirage serve`` sets
    it); each starts its process with its first round."""
    if app.config.get("TIRAGE_ANALYSIS_PROCESS"):
        app.extensions[KEY] = Analyst(Path(app.instance_path))
        app.extensions[PRACTICE_KEY] = Analyst(Path(app.instance_path))


def next_round(spec: SetupSpec, played: list[PlayedRound], board: str, key: str = KEY) -> OpenedRound | GameEnd:
    """The round after ``played``: in the worker process of the application's analyst ``key`` if it has one (the
    games' by default), else here."""
    analyst: Analyst | None = current_app.extensions.get(key)
    if analyst is None:
        return rounds.next_round(spec.setup(lexicon_store()), played, board)
    return analyst.next_round(spec, played, board)
