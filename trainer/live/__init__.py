"""Live delivery of game events to thousands of open connections, and the production server.

The ``event`` table stays the truth (its ids are the Server-Sent Events ids). This package only
makes delivery cheap and fast:

* :mod:`.notify` — after a commit that wrote events, wake the event hubs: the ones in this
  process directly, those of other processes (several web servers, the scheduler) through Redis
  pub/sub when ``REDIS_URL`` is set;
* :mod:`.hub` — one per web process, in its asyncio loop: reads new events once and fans each
  frame out to every open stream of its game (10,000 streams cost one query, not 10,000);
* :mod:`.asgi` — the application ``tirage serve`` runs under uvicorn: the event stream served by
  the hub, every other request by the Flask application in a thread pool.
"""
