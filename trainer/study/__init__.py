"""Word study on the server: learners, their decks and cards, the review log, and the service that
keeps each learner's queue in the database.

The drill types and the scheduling rules are pure and live in :mod:`drills`; this package stores
a learner's cards with their fsrs state and asks :mod:`drills.scheduling` what comes next.
"""

from __future__ import annotations

from . import models as models  # registers the tables before the migrations run
