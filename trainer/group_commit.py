"""Durable SQLite commits that share their fsync: group commit.

With ``synchronous=FULL`` every SQLite commit waits for its own fsync of the write-ahead log
(about 6 ms on the disk this was measured on), and commits are serialised, so a room of players
handing in plays in the last seconds of a round queues behind the disk: at most ~170 commits a
second. Here connections commit with ``synchronous=NORMAL`` (the log is written, not yet synced)
and each session that wrote then waits in :meth:`GroupFsync.wait_durable` until an fsync of the
log file *that started after its commit* has finished. One fsync covers every commit before it,
so concurrent players share it. Nobody is told "taken" before their play is on disk, exactly as
with ``FULL``. (fsync flushes the file's data whoever wrote it; SQLite itself syncs the log before
a checkpoint copies it into the database file.) PostgreSQL does the same by itself.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from flask import Flask, current_app, has_app_context
from sqlalchemy import event
from sqlalchemy.orm import Session

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


def _note_write(session: Session, _context: Any) -> None:
    session.info[_WROTE] = True


def _forget_write(session: Session, _previous: Any) -> None:
    session.info.pop(_WROTE, None)


def _after_commit(session: Session) -> None:
    if session.info.pop(_WROTE, False) and has_app_context():
        group: GroupFsync | None = current_app.extensions.get(KEY)
        if group is not None:
            group.wait_durable()


def install(app: Flask, session_class: type[Session], database: str) -> GroupFsync:
    """Make every commit of ``app``'s sessions on SQLite file ``database`` durable before it returns.
    Connections must use ``synchronous=NORMAL`` (see :func:`trainer.extensions._set_sqlite_pragmas`)."""
    if not event.contains(session_class, "after_commit", _after_commit):
        event.listen(session_class, "after_flush", _note_write)
        event.listen(session_class, "after_soft_rollback", _forget_write)
        event.listen(session_class, "after_commit", _after_commit)
    group = app.extensions[KEY] = GroupFsync(database)
    return group
