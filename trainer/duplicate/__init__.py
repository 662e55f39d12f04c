"""The rules of duplicate play, pure (docs/rules.md §6): draws, the round lifecycle, the tie-break among
tops, results and standings, game modes, and the settings a game is made with.

Nothing here knows about Flask, the database or the clock: the server (:mod:`trainer.games`) stores what
these functions return and asks them again to carry a game on (same seed, same settings, same plays:
same game). Modules: :mod:`.draw` (the bag and the draw rule), :mod:`.tiebreak`, :mod:`.rounds` (the
lifecycle as a state machine, and :class:`~.rounds.DuplicateGame` to play one in memory), :mod:`.results`,
:mod:`.mode` and :mod:`.modes` (what a game mode says, and the modes by name), :mod:`.classic`,
:mod:`.settings` (each setting declared once), :mod:`.joker` (joker games, a variant any mode can be played in),
:mod:`.errors`.
"""
