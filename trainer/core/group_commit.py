"""SQLite under a room of players: writers queued in Python, durable commits sharing their fsync.

SQLite has one writer at a time. A writer that finds the database locked sleeps in SQLite's busy
handler (1, 2, 5 … up to 100 ms at a time), so with a burst of plays in a round's last seconds
most of the time went to sleeping: writers here queue on a lock in Python instead, taken at a
transaction's first write and released when it ends.

With ``synchronous=FULL`` every commit also waits for its own fsync of the write-ahead log (about
6 ms on the disk this was measured on): at most ~170 commits a second. Here connections commit
with ``synchronous=NORMAL`` (the log is written, not yet synced); each session that wrote then
releases the lock and waits in :meth:`GroupFsync.wait_durable` until an fsync of the log file *that
started after its commit* has finished. One fsync covers every commit before it, so players
handing in at the same moment share it, and nobody is told "taken" before their play is on disk,
exactly as with ``FULL``. (fsync flushes the file's data whoever wrote it; SQLite itself syncs the
log before a checkpoint copies it into the database file.) PostgreSQL does all this by itself.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from flask import Flask, current_app, has_app_context
from sqlalchemy import event
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import ORMExecuteState, Session, SessionTransaction

_WROTE = "tirage.wrote"  # key in Session.info: this transaction flushed changes


class GroupFsync:
    """fsync of one SQLite database's log, shared by every commit waiting at the time."""

    def __init__(self, database: str) -> None:
        self.database = database
        self._condition = threading.Condition()
        self._requested = 0  # tickets handed out: one per commit that waits
        self._synced = 0  # every ticket up to this one is durable
        self._syncing = False
        self.fsyncs = 0
        self.waits = 0
        self.write_lock = threading.RLock()

    def wait_durable(self) -> None:
        """Return once everything committed before this call is on disk."""
        with self._condition:
            self._requested += 1
            ticket = self._requested
            self.waits += 1
            while self._synced < ticket:
                if self._syncing:
                    self._condition.wait()
                    continue
                self._syncing = True  # this thread leads one fsync for every ticket so far
                covered = self._requested
                self._condition.release()
                try:
                    self._fsync()
                finally:
                    self._condition.acquire()
                    self._syncing = False
                self._synced = max(self._synced, covered)
                self.fsyncs += 1
                self._condition.notify_all()

    def _fsync(self) -> None:
        for path in (self.database + "-wal", self.database):
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:
                continue  # no log: it was checkpointed into the database file, which SQLite synced
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            return


KEY = "tirage.group_fsync"
_HOLDS = "tirage.holds_write_lock"  # key in Session.info: this session's transaction holds the write lock
WRITE_LOCK_TIMEOUT = 30.0


def _group() -> GroupFsync | None:
    return current_app.extensions.get(KEY) if has_app_context() else None


def _take_write_lock(session: Session) -> None:
    """Queue for SQLite's single writer here, in Python, rather than in SQLite: a writer that finds the
    database locked sleeps in SQLite's busy handler for up to 100 ms at a time, so a burst of plays would
    wait far longer than the writes take. Taken at the transaction's first write, held until it ends."""
    session.info[_WROTE] = True
    if session.info.get(_HOLDS):
        return
    group = _group()
    if group is None:
        return
    if not group.write_lock.acquire(timeout=WRITE_LOCK_TIMEOUT):
        raise OperationalError("waiting for the database", None, TimeoutError("the write lock was not released"))
    session.info[_HOLDS] = group


def _release_write_lock(session: Session) -> None:
    group: GroupFsync | None = session.info.pop(_HOLDS, None)
    if group is not None:
        group.write_lock.release()


def _before_flush(session: Session, _context: Any, _instances: Any) -> None:
    _take_write_lock(session)


def _on_execute(state: ORMExecuteState) -> None:
    if state.is_insert or state.is_update or state.is_delete:
        _take_write_lock(state.session)


def _after_commit(session: Session) -> None:
    _release_write_lock(session)  # first, so the next writer commits while this one waits for the disk
    if session.info.pop(_WROTE, False):
        group = _group()
        if group is not None:
            group.wait_durable()


def _after_transaction_end(session: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # the outermost transaction: rolled back, closed or committed
        _release_write_lock(session)
        session.info.pop(_WROTE, None)


def install(app: Flask, session_class: type[Session], database: str) -> GroupFsync:
    """Queue ``app``'s writers to SQLite file ``database`` in this process, and make every commit durable
    before it returns. Connections must use ``synchronous=NORMAL`` (see
    :func:`trainer.core.database._set_sqlite_pragmas`)."""
    if not event.contains(session_class, "after_commit", _after_commit):
        event.listen(session_class, "before_flush", _before_flush)
        event.listen(session_class, "do_orm_execute", _on_execute)
        event.listen(session_class, "after_commit", _after_commit)
        event.listen(session_class, "after_transaction_end", _after_transaction_end)
    group = app.extensions[KEY] = GroupFsync(database)
    return group
