"""The parts of the load benchmarks (``bench/load.py``; ``bench/plays.py`` and ``bench/attack.py`` use some).

* ``stats``: percentiles, their spread, seconds written for people;
* ``host``: the client machine's open-files limit and CPU clocks, the checkout's version;
* ``server``: ``tirage serve`` as a subprocess, and its CPU and memory from ``/proc``;
* ``instance``: the server's temporary instance folder, environment and word graphs;
* ``profiler``: ``py-spy`` on the server, and its busiest functions;
* ``engine_worker``: a round's legal plays, in a worker process of the client;
* ``sse``: event streams on raw connections, and a listener that reconnects as a browser does;
* ``records``: what the run keeps (players, rounds, submissions, clock marks);
* ``state``: the run's shared state, errors, marks, tasks and API calls;
* ``monitors``: loop lag, server sampling, progress lines, the silent-stream watchdog;
* ``joining``: the join phase; ``pages``: phones on the play page (``--phones pages``);
* ``playing``: plans, plays and API reveal reads; ``rounds``: what each event sets going;
* ``audit``: every accepted play in the round's results; ``figures``: the run's figures;
* ``run``: ``LoadRun``, the run from start to end; ``report``: progress lines, the table, the JSON;
* ``attackers``, ``siege``, ``siege_table``: ``bench/attack.py``'s attack traffic (a process of its own), its
  honest players and director, and its figures.
"""
