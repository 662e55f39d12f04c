"""The event-loop fast paths of ``tirage serve``: what a whole room asks for at the same moment.

The ``event`` table stays the truth (its ids are the Server-Sent Events ids); the Flask application
stays the reference for every answer. This package only makes the room's simultaneous requests cheap:

* :mod:`.asgi` — the ASGI application (uvicorn runs it; :mod:`trainer.server` builds it): the
  requests below are answered here, every other one by the Flask application in a thread pool;
* :mod:`.hub` — one per web process: reads new events once and fans each frame out to every open
  stream of its game (10,000 streams cost one query, not 10,000); :mod:`trainer.games.notify` wakes
  it after a commit, through Redis from other processes;
* :mod:`.plays` — plays handed in through the API, judged in the loop and written in batches; each
  phone's reveal, built once per version of the game;
* :mod:`.pages` — the phone page's live fragment, rendered once per version of the game by the pages'
  renderer (:mod:`trainer.web.phone`) with each player's parts filled in per request;
* :mod:`.collector` — no full garbage collection in the middle of a round's rush;
* :mod:`.asgi_tools` — the ASGI plumbing these share.

Anything a fast path cannot answer exactly as the view would is handed to the Flask view.
"""
