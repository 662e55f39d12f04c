"""What every service shares: the one error type, the clock, join codes and tokens, player names,
accounts (directors and learners), the database and the lexicon store.

Nothing here knows a transport (no request, no HTTP status): :mod:`trainer.http` maps errors to
statuses, and the services (:mod:`trainer.games`, :mod:`trainer.study`, :mod:`trainer.wall`) stand
on this package, never on each other.
"""
