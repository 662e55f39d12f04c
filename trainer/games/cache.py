"""Results and rendered answers of a game, kept until something that changes them is logged.

At a reveal every phone asks at once, and the results of a room of 1,500 cost far more than any
page: they are computed once per version of the game. The version is the id of the game's last
event other than a submission (a close, a correction, another top, a player joining...), so a
cached value can never outlive the change that makes it wrong, in this process or another.
One cache per application (so per database), bounded.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from flask import Flask, current_app
from sqlalchemy import func, select

from ..core.database import db
from ..duplicate.results import GameResults
from . import service
from .models import Event, Game

T = TypeVar("T")


UNVERSIONED_KINDS = frozenset({"submission"})  # events that change no result, board or player list


def game_version(game: Game) -> int:
    return version_of(game.id)


def version_of(game_id: int) -> int:
    """The game's version: the id of its last event that may change what is cached (0 before any)."""
    return int(
        db.session.execute(
            select(func.max(Event.id)).where(Event.game_id == game_id, Event.kind.not_in(UNVERSIONED_KINDS))
        ).scalar()
        or 0
    )


class GameCache:
    KEPT = 256
    KEY = "tirage.game_cache"

    def __init__(self) -> None:
        self._entries: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._lock = threading.Lock()
        self._computing: dict[tuple[Any, ...], threading.Lock] = {}

    @classmethod
    def of(cls, app: Flask) -> GameCache:
        cache: GameCache = app.extensions.setdefault(cls.KEY, cls())
        return cache

    def get(self, game: Game, what: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``'s value for ``what`` of this version of ``game``; computed by one thread at a time
        (the others wait for it rather than all computing the same thing at a reveal)."""
        key = (game.id, game_version(game), what)
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]  # type: ignore[no-any-return]
            computing = self._computing.setdefault(key, threading.Lock())
        with computing:
            with self._lock:
                if key in self._entries:
                    return self._entries[key]  # type: ignore[no-any-return]
            value = compute()
            with self._lock:
                self._entries[key] = value
                self._computing.pop(key, None)
                while len(self._entries) > self.KEPT:
                    self._entries.popitem(last=False)
            return value


def game_results(game: Game) -> GameResults:
    """The game's results (every closed round, the standings), from the cache."""
    return GameCache.of(current_app).get(game, "results", lambda: service.results(game))


def cached(game: Game, what: Hashable, compute: Callable[[], T]) -> T:
    return GameCache.of(current_app).get(game, what, compute)
