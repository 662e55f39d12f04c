"""Club word walls: the director puts a set of alphagrams on the room's screen, players type the
words on their phones, and each word found goes up on the wall with the name of whoever found it.

The words come from :mod:`drills` (anagram cards); this package stores walls, players and finds
and runs a wall on the server's clock (:mod:`trainer.wall.service`).
"""

from __future__ import annotations

from . import models as models  # registers the tables before the first query
