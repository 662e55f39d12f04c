"""A page part rendered once for a whole room, with each reader's own parts left as slots.

The pages (:mod:`trainer.web.phone`) render a game's phone fragment this way; the event loop's fast
path (:mod:`trainer.live.pages`) keeps the renderings and fills each request's slots. This module is
what the two agree on: the fragment's shape, the slot markers, and the renderer's interface.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from markupsafe import Markup, escape

SLOT = re.compile("\x00slot:([a-z]+)\x00")
MOVE, SCORE = "\x00move\x00", "\x00score\x00"  # placeholders of the "your play" line


def slot(name: str) -> Markup:
    """The marker a template writes where a reader's own part goes (``slot("who")``)."""
    return Markup(f"\x00slot:{name}\x00")


@dataclass
class RoomFragment:
    """One version of one game's fragment in one language: the shared parts and each player's own."""

    parts: list[str]  # text, slot name, text, slot name, ..., text
    own: dict[int, dict[str, str]]  # player id -> slot -> html
    shared: dict[str, str] = field(default_factory=dict)  # slot -> html when the player has no part of their own
    submitted: str = ""  # the "your play" line, with MOVE and SCORE to fill in
    not_submitted: str = ""
    status: str = ""
    version: int = 0
    language: str = ""
    round_id: int | None = None  # the round being played
    plays: dict[int, tuple[str, int]] = field(default_factory=dict)  # its last play of each player, when rendered
    plays_mark: tuple[int, int] = (0, 0)  # the count of plays stored before that (see PhonePages.plays_mark)
    deadline: datetime | None = None  # while the clock runs

    def play_line(self, play: tuple[str, int] | None) -> str:
        """The player's "your play" line for the round being played."""
        if play is None or not play[0]:
            return self.not_submitted
        return self.submitted.replace(MOVE, str(escape(play[0]))).replace(SCORE, str(escape(play[1])))

    def assemble(self, own: dict[str, str], submitted: str) -> str:
        """The fragment for one player: their own parts (or the shared ones) and their play line in the slots."""
        return "".join(part if i % 2 == 0 else self._fill(part, own, submitted) for i, part in enumerate(self.parts))

    def _fill(self, name: str, own: dict[str, str], submitted: str) -> str:
        if name == "submitted":
            return submitted
        return own[name] if name in own else self.shared[name]


class RoomRenderer(Protocol):
    """What the fast path asks of the pages to answer a room's fragments itself."""

    def room(self, game_id: int, language: str, version: int, plays_mark: tuple[int, int]) -> RoomFragment | None:
        """The fragment of version ``version`` of the game (None: no such game), read after the version and the
        plays' mark were taken, so never older than them."""

    def who(self, name: str, language: str) -> dict[str, str]:
        """The own parts of a player who joined after the room was rendered (the lobby names its player only)."""

    def with_clock(self, html: str, deadline: datetime) -> str:
        """``html`` with its running clock showing the time left until ``deadline``, as of now."""
