"""Server-Sent Events as Tirage writes them, and the stream's query parameters.

An event's SSE id is its id in the game's append-only event log, so a client that reconnects with
``Last-Event-ID`` (browsers send it by themselves) gets exactly what it missed. ``?quiet=1`` leaves
out the per-player events, ``?timeout=`` bounds how long a stream stays open (clients reconnect).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..core.errors import Refused
from .ids import MAX_ID

DEFAULT_TIMEOUT = 300.0  # seconds a stream stays open; clients reconnect
MAX_TIMEOUT = 600.0
HEARTBEAT_SECONDS = 15.0  # between heartbeats (``TIRAGE_SSE_HEARTBEAT``); pages reconnect after two missed
RETRY_MS = 2000  # how long a browser waits before reconnecting
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}  # nginx must not buffer the stream
_EVENT_ID = re.compile(r"[0-9]{1,10}")
# A named event, not a comment: a browser's EventSource never shows comments to the page, and the page needs to
# see the heartbeats to notice a connection that died without closing (a phone's Wi-Fi gone). No id: it does
# not move the client's resume point.
HEARTBEAT = "event: heartbeat\ndata: {}\n\n"


def revoked(reason: str) -> str:
    """A stream's last event when the player token it was opened with stopped working (docs/rules.md §6.16): no
    id; ``reason`` is ``taken_over`` (a rejoin on another phone) or ``player_removed``. The phone page shows it."""
    return f"event: revoked\ndata: {json.dumps({'reason': reason})}\n\n"


def frame(shown: dict[str, Any]) -> str:
    """One event as an SSE frame: its id, its kind as the event name, the whole event as JSON data."""
    return f"id: {shown['id']}\nevent: {shown['kind']}\ndata: {json.dumps(shown, separators=(',', ':'))}\n\n"


def seconds_arg(name: str, text: str | None, default: float = DEFAULT_TIMEOUT, high: float = MAX_TIMEOUT) -> float:
    if text is None or text == "":
        return default
    try:
        value = float(text)
    except ValueError:
        raise Refused("bad_seconds_arg", f"'{name}' must be a number of seconds") from None
    if not 0 <= value <= high:
        raise Refused("bad_seconds_arg", f"'{name}' must be from 0 to {high:g} seconds")
    return value


def resume_from(header: str | None, arg: str | None) -> int:
    """Where to resume: the ``Last-Event-ID`` header (sent by browsers) or ``?last_event_id=``."""
    text = (header or arg or "0").strip()
    if not _EVENT_ID.fullmatch(text) or int(text) > MAX_ID:
        raise Refused("bad_event_id", "Last-Event-ID must be the id of an event, a whole number")
    return int(text)


def quiet_arg(text: str | None) -> bool:
    if text in (None, "", "0", "false"):
        return False
    if text in ("1", "true"):
        return True
    raise Refused("bad_quiet", "'quiet' must be 1 or 0")
