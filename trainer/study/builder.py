"""Deck building off the serving path: the cards of a new deck are worked out in a process of their own.

A deck of blank anagrams of 9 letters holds the CPU for minutes and builds a table of gigabytes; in the
serving process that froze plays (p99 24 s) and the round scheduler, and the memory was never given back.
Under ``tirage serve`` (``TIRAGE_ANALYSIS_PROCESS``) builds run in a spawned worker process, one at a time,
started from a background thread (trainer.study.service: the deck's page shows the progress). The worker
stays between builds (its probability tables take seconds to make), unless a build passes
``TIRAGE_DECK_BUILD_SECONDS`` (60 s by default: the worker is killed and the deck's page says the deck is
too costly) or leaves the worker over :data:`RECYCLE_MB` (it ends, and gives its memory back). Elsewhere
(the test client, the CLI) the cards are worked out in place, as before.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import threading
import time
from pathlib import Path
from typing import Any

from flask import Flask, current_app

from ..core.errors import Refused
from ..engine.lexicon import LexiconStore

KEY = "tirage.deck_builder"
BUILD_SECONDS = 60.0
WAIT_SECONDS = 30.0  # longest wait for another learner's build to end before this one is refused
# A worker loading a lexicon and its probability tables, not counted in the build's limit: the first time after a
# start it may be building the word graphs, minutes on a busy server (a French deck failed as "too costly" when this
# was 120 s). Past it the word list is said to be unready, never the deck too costly.
WARM_UP_SECONDS = 1800.0
RECYCLE_MB = 600.0  # a worker left bigger than this after a build ends (its caches go with it)

CardRanks = list[tuple[str, int]]  # (card id, rank), in the deck's order


class DeckBuilder:
    """Builds one deck at a time in a worker process; a build past its time ends the worker."""

    def __init__(self, data_dir: Path, seconds: float, warm_up: float = WARM_UP_SECONDS) -> None:
        self.data_dir = data_dir
        self.seconds = seconds
        self.warm_up = warm_up
        self._one_at_a_time = threading.Lock()
        self._process: Any = None
        self._connection: multiprocessing.connection.Connection | None = None
        self.last_pid: int | None = None  # the worker of the last build (tests look for it)

    def build(
        self, lexicon_name: str, source: dict[str, Any], wait: float = WAIT_SECONDS
    ) -> tuple[CardRanks, list[tuple[str, str]]]:
        if not self._one_at_a_time.acquire(timeout=wait):
            raise Refused("builder_busy", "another deck is being built: try again in a minute")
        try:
            return self._run(lexicon_name, source)
        finally:
            self._one_at_a_time.release()

    def _worker(self) -> multiprocessing.connection.Connection:
        if self._process is None or not self._process.is_alive() or self._connection is None:
            context = multiprocessing.get_context("spawn")
            ours, theirs = context.Pipe()
            self._process = context.Process(target=_serve_builds, args=(str(self.data_dir), theirs), daemon=True)
            self._process.start()
            theirs.close()
            self._connection = ours
        self.last_pid = self._process.pid
        return self._connection

    def _run(self, lexicon_name: str, source: dict[str, Any]) -> tuple[CardRanks, list[tuple[str, str]]]:
        connection = self._worker()
        connection.send((lexicon_name, source))
        # The clock starts once the worker has its lexicon and probability tables (seconds, the first time):
        # the limit is on the deck's own work.
        ready = _receive(connection, self._process, time.monotonic() + self.warm_up)
        if ready is None:
            self.stop()
            raise Refused(
                "lexicon_not_ready",
                f"the word list {lexicon_name} is still being prepared: try again in a few minutes",
                lexicon=lexicon_name,
            )
        answer = (
            ready if ready[0] == "refused" else _receive(connection, self._process, time.monotonic() + self.seconds)
        )
        if answer is None:
            self.stop()
            raise Refused(
                "deck_too_costly",
                f"this deck takes more than {self.seconds:.0f} s to build: choose fewer cards, a shorter length or"
                " fewer blanks",
                seconds=round(self.seconds),
            )
        kind, payload, worker_mb = answer
        if worker_mb > RECYCLE_MB:
            self.stop()  # its tables for blank racks stay otherwise: give the memory back
        if kind == "refused":
            code, message, params = payload
            raise Refused(code, message, **params)
        cards, skipped = payload
        return cards, skipped

    def stop(self) -> None:
        """End the worker (it is started again with the next build)."""
        process, connection, self._process, self._connection = self._process, self._connection, None, None
        if process is not None and process.is_alive():
            process.kill()
            process.join(5)
        if connection is not None:
            connection.close()


def _receive(
    connection: multiprocessing.connection.Connection, process: Any, deadline: float
) -> tuple[str, Any, float] | None:
    """The worker's answer, or None when it did not come in time (or the worker died)."""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        if connection.poll(min(left, 0.5)):
            try:
                answer: tuple[str, Any, float] = connection.recv()
            except EOFError:
                return None
            return answer
        if not process.is_alive() and not connection.poll(0):
            return None


def _serve_builds(data_dir: str, connection: multiprocessing.connection.Connection) -> None:
    """The worker: build the decks asked for, one after the other, until the server goes away."""
    from drills.probability import probability_index

    from .service import cards_from_lexicon  # the worker imports what it needs, once spawned

    store = LexiconStore(Path(data_dir))
    while True:
        try:
            lexicon_name, source = connection.recv()
        except EOFError:
            return
        try:
            lexicon = store.load(lexicon_name)
            probability_index(lexicon)  # built once per worker and lexicon, before the build's clock starts
            connection.send(("ready", None, _resident_mb()))
            cards, skipped = cards_from_lexicon(lexicon, source)
            ranks = [(card.id, card.rank if card.rank is not None else n) for n, card in enumerate(cards)]
            answer: tuple[str, Any] = ("built", (ranks, skipped))
        except Refused as error:
            answer = ("refused", (error.code, str(error), dict(error.params)))
        connection.send((*answer, _resident_mb()))


def _resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def init_app(app: Flask) -> None:
    """A deck builder for ``app`` when ``TIRAGE_ANALYSIS_PROCESS`` is set (``tirage serve`` sets it)."""
    if app.config.get("TIRAGE_ANALYSIS_PROCESS"):
        seconds = float(app.config.get("TIRAGE_DECK_BUILD_SECONDS") or BUILD_SECONDS)
        app.extensions[KEY] = DeckBuilder(Path(app.instance_path), seconds)


def builder() -> DeckBuilder | None:
    found: DeckBuilder | None = current_app.extensions.get(KEY)
    return found
