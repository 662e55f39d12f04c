"""The lexicon a game is played with, as the game records it: its name, its edition and the SHA-256 of its words
(:meth:`~trainer.engine.lexicon.LexiconStore.fingerprint`), taken when the game is made and again when it starts.

A club may load a new edition of a list under the same name, or remove a list. Nothing of a game is judged again
afterwards: each round's results are judged at its close and stored, and the standings, sheets and exports are
worked out from them. So a game's pages name the edition it was played with, and say when the list under its name
has changed since (or is no longer on the server), by comparing the recorded SHA-256 with the list's.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..core.lexicons import lexicon_store
from ..engine.lexicon import LexiconError
from .models import Game

EDITION_LENGTH = 80  # Game.lexicon_edition's column


class Since(StrEnum):
    """What became of the list under a game's lexicon name since the game recorded it."""

    UNCHANGED = "unchanged"
    CHANGED = "changed"  # another list (a new edition) under the same name
    REMOVED = "removed"  # no list of that name on the server any more
    UNKNOWN = "unknown"  # a game made before games recorded their lexicon


@dataclass(frozen=True)
class PlayedLexicon:
    """The lexicon a game was played with, and what became of its list since."""

    name: str
    edition: str  # "" when the list has none, or the game was made before editions were recorded
    sha256: str | None
    since: Since

    @property
    def label(self) -> str:
        """``en (ENABLE 1)``; the name alone when there is no edition."""
        return label(self.name, self.edition)

    @property
    def changed(self) -> bool:
        """The list under the name is not the one the game was played with (or is gone)."""
        return self.since in (Since.CHANGED, Since.REMOVED)


def label(name: str, edition: str | None) -> str:
    return f"{name} ({edition})" if edition else name


def recorded(name: str) -> tuple[str, str]:
    """(edition, SHA-256 of the words) of lexicon ``name`` as the server has it now: what a game records."""
    store = lexicon_store()
    edition = store.catalogue().get(name, {}).get("edition", "")
    return edition[:EDITION_LENGTH], store.fingerprint(name)


def record(game: Game) -> None:
    """Write the edition and fingerprint of the game's lexicon on the game (the caller commits)."""
    game.lexicon_edition, game.lexicon_sha256 = recorded(game.lexicon)


def played_lexicon(game: Game) -> PlayedLexicon:
    """The lexicon ``game`` was played with, and whether the list under its name is still that one. Reads the list's
    fingerprint (kept by the store while the file is unchanged), never the list's word graph."""
    edition = game.lexicon_edition or ""
    if game.lexicon_sha256 is None:
        return PlayedLexicon(game.lexicon, edition, None, Since.UNKNOWN)
    try:
        now = lexicon_store().fingerprint(game.lexicon)
    except (LexiconError, OSError):  # removed (the file may go between the record and the read)
        return PlayedLexicon(game.lexicon, edition, game.lexicon_sha256, Since.REMOVED)
    since = Since.UNCHANGED if now == game.lexicon_sha256 else Since.CHANGED
    return PlayedLexicon(game.lexicon, edition, game.lexicon_sha256, since)
