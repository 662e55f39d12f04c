"""How the pages and the API name a room of a simultaneous game in public (docs/rules.md §6.22): the name its
director gave it (their club's), else "Room n" in the reader's language, by its place in the event. Never its join
code: a code on a public page lets anyone into the room."""

from __future__ import annotations

from flask_babel import gettext as _


def room_label(number: int, name: str | None) -> str:
    return name or _("Room %(num)s", num=number)
