"""The server's clock: every moment the services store or compare is timezone-aware UTC."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC)


def aware(moment: datetime) -> datetime:
    """``moment`` with its zone: SQLite hands back naive datetimes, which are UTC here."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def seconds_until(deadline: datetime, now: datetime) -> float:
    """Seconds from ``now`` to ``deadline``, never below zero."""
    return max(0.0, (aware(deadline) - now).total_seconds())


def iso(moment: datetime | None) -> str | None:
    """ISO 8601 in UTC with a ``Z``, milliseconds kept (deadlines are to the second, closes to the ms)."""
    if moment is None:
        return None
    return aware(moment).astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
