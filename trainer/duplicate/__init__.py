"""Pure duplicate logic (GAME-RULES.md section 6): draws, tie-break among tops, round results, standings.

Nothing here knows about Flask, the database or the clock: the server stores what these functions
return and calls them again to rebuild a game (same seed, same settings, same plays = same game).
"""
