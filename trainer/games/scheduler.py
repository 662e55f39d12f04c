"""Round deadlines on the server's clock (APScheduler 3).

The database is the truth: deadlines and reveal pauses live in rows, and every transition is
idempotent (:mod:`trainer.games.service`). The scheduler only decides *when* to try them:

* a job at each round's close (its deadline, settled: :func:`trainer.duplicate.rounds.closes_at`) and each
  end of a reveal, planned when a transition sets one (same process), and
* a sweep every second that runs whatever is due, so that a restart, a round whose job was
  lost, or a deadline set by another process (several web workers) is never missed.

A database outage (a restart, a dropped connection) stops nothing for good: a sweep that cannot
reach the database logs it once and the next sweep, a second later, tries again; the deadlines
are in the database, so a round that fell due meanwhile closes as soon as it is back.

Run it in exactly one process: ``tirage serve`` starts it in-process by default; with several
web processes, start them with ``--no-scheduler`` and run ``tirage scheduler`` once.
"""

from __future__ import annotations

import logging
import threading
from datetime import datetime

from apscheduler.schedulers.background import BackgroundScheduler
from flask import Flask
from sqlalchemy import select

from ..core.clock import aware, utcnow
from ..core.database import DATABASE_DOWN, database_error_summary, db, recover_from
from ..duplicate.rounds import closes_at
from . import service
from .models import Game, Round

SWEEP_SECONDS = 1.0
SCHEDULER_KEY = "tirage.scheduler"
log = logging.getLogger(__name__)

_apps: dict[int, Flask] = {}  # jobs carry plain ids; the app is looked up here
_lock = threading.Lock()
_unreachable: set[int] = set()  # apps whose last sweep could not reach the database (logged once per outage)
_waiting: set[tuple[str, int, int]] = set()  # transitions the database refused to write (logged once)


def _run(app_key: int, kind: str, game_id: int, number: int) -> bool:
    """Try one transition; returns whether it happened (False: already done, or not yet due)."""
    app = _apps.get(app_key)
    if app is None:
        return False
    with app.app_context():
        try:
            if kind == "close":
                done = service.close_round(game_id, number, author="scheduler")
            else:
                done = service.next_round(game_id, number, author="scheduler")
            if (kind, game_id, number) in _waiting:
                _waiting.discard((kind, game_id, number))
                log.warning("round transition %s for game %s round %s done: the database takes writes", kind,
                            game_id, number)  # fmt: skip
            return done
        except DATABASE_DOWN as error:  # the sweep tries again once the database is back
            db.session.rollback()
            recover_from(error)  # a read-only file made writable again: fresh connections see it
            if (kind, game_id, number) not in _waiting:  # said once, not every second of an outage
                _waiting.add((kind, game_id, number))
                log.warning(
                    "round transition %s for game %s round %s waits for the database: %s",
                    kind,
                    game_id,
                    number,
                    database_error_summary(error),
                )
            return False
        except Exception:  # one broken game must not stop the others' rounds
            db.session.rollback()
            log.exception("round transition %s failed for game %s round %s", kind, game_id, number)
            return False
        finally:
            db.session.remove()


def sweep(app_key: int) -> int:
    """Run every transition that is due now; returns how many happened."""
    app = _apps.get(app_key)
    if app is None:
        return 0
    with _lock:  # one sweep at a time in this process; other processes are fenced by the database
        try:
            with app.app_context():
                due = service.due_work(utcnow())
                db.session.remove()
        except DATABASE_DOWN as error:
            if app_key not in _unreachable:
                _unreachable.add(app_key)
                log.warning(
                    "round scheduler cannot reach the database, trying again every %g s: %s",
                    SWEEP_SECONDS,
                    database_error_summary(error),
                )
            return 0
        if app_key in _unreachable:
            _unreachable.discard(app_key)
            log.warning("round scheduler reaches the database again: due rounds close now")
        return sum(_run(app_key, kind, game_id, number) for kind, game_id, number in due)


class RoundScheduler:
    """The scheduler of one application."""

    def __init__(self, app: Flask) -> None:
        self.app_key = id(app)
        _apps[self.app_key] = app
        self.scheduler = BackgroundScheduler(
            timezone="UTC", job_defaults={"misfire_grace_time": 3600, "coalesce": True, "max_instances": 1}
        )

    def start(self) -> None:
        """Start, first running whatever fell due while the server was down, then planning the future
        deadlines again: the sweep alone would close a restarted server's rounds up to a second late."""
        sweep(self.app_key)
        self.scheduler.add_job(
            sweep, "interval", seconds=SWEEP_SECONDS, args=[self.app_key], id="sweep", replace_existing=True
        )
        self.scheduler.start()
        self.replan()

    def replan(self) -> None:
        """A job at every round's close and end of reveal the database holds (the jobs of a dead process are lost)."""
        app = _apps.get(self.app_key)
        if app is None:
            return
        try:
            with app.app_context():
                closes = db.session.execute(
                    select(Round.game_id, Round.number, Round.deadline).where(
                        Round.status == "open", Round.deadline.is_not(None)
                    )
                ).all()
                nexts = db.session.execute(
                    select(Game.id, Game.round_number, Game.next_round_at).where(
                        Game.status == "revealing", Game.next_round_at.is_not(None)
                    )
                ).all()
                db.session.remove()
        except DATABASE_DOWN as error:  # the sweeps run them, a second late at most
            log.warning("round scheduler could not plan the deadlines: %s", database_error_summary(error))
            return
        for game_id, number, deadline in closes:
            if deadline is not None:  # the query asks for set times only
                self.plan("close", game_id, number, closes_at(aware(deadline)))
        for game_id, number, when in nexts:
            if when is not None:
                self.plan("next", game_id, number, when)

    def plan(self, kind: str, game_id: int, number: int, when: datetime) -> None:
        if not self.scheduler.running:
            return
        self.scheduler.add_job(
            _run,
            "date",
            run_date=when,
            args=[self.app_key, kind, game_id, number],
            id=f"{kind}-{game_id}-{number}",
            replace_existing=True,
        )

    def shutdown(self) -> None:
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
        _apps.pop(self.app_key, None)


def init_app(app: Flask, start: bool) -> RoundScheduler | None:
    """Run the round scheduler of ``app`` in this process when ``start`` (one process only)."""
    if not start:
        return None
    scheduler = RoundScheduler(app)
    app.extensions[SCHEDULER_KEY] = scheduler
    app.extensions[service.PLANNER_KEY] = scheduler.plan
    scheduler.start()
    return scheduler
