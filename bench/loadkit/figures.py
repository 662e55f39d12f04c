"""The run's figures, from what it kept: latencies, delivery delays, rates, errors, and the CPU of the
server, the client and the machine over phases of the run (server CPU per request kind among them)."""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

from .host import client_cpu
from .playing import LATE_WINDOW
from .records import Mark
from .state import RunState
from .stats import percentile, spread

SATURATED_CPU = 0.85  # share of one core above which the client is the bottleneck
SATURATED_LAG = 0.100  # seconds of event-loop lag (p99) above which receive times are the client's


class Figures(RunState):
    """The figures of a run, done or stopped early."""

    def request_costs(self) -> dict[str, float]:
        """Server CPU seconds per request, from phases where one kind of request dominates: the joins
        (with each player's stream opening), a round before its last 10 s (submissions, at a calm rate),
        and the reveal (reads, and the last submissions' late answers). The server's idle cost with every
        stream open (measured for a few seconds before the game starts) is taken off first."""
        marks = self.marks

        idle_start, idle_end = marks.get("idle"), marks.get("idle end")
        idle = (
            (idle_end.server - idle_start.server) / (idle_end.wall - idle_start.wall)
            if idle_start and idle_end
            else 0.0
        )

        def per(begin: str, end: str, count: Callable[[Mark], int]) -> tuple[float, int]:
            first, last = marks.get(begin), marks.get(end)
            if first is None or last is None:
                return 0.0, 0
            busy = last.server - first.server - idle * (last.wall - first.wall)
            return max(0.0, busy), count(last) - count(first)

        joins = per("joins", "joined", lambda m: len(self.joins))
        calm = [per("start" if n == 1 else f"read {n - 1}", f"late {n}", lambda m: m.answered) for n in self.rounds]
        reveal = [per(f"closed {n}", f"read {n}", lambda m: m.reads) for n in self.rounds]
        joined_mark = marks.get("joined")
        return {
            "idle_cores": idle,
            "join": joins[0] / len(self.joins) if self.joins and joined_mark else math.nan,
            "submission": sum(c for c, _ in calm) / sum(n for _, n in calm) if sum(n for _, n in calm) else math.nan,
            "reveal_read": sum(c for c, _ in reveal) / sum(n for _, n in reveal)
            if sum(n for _, n in reveal)
            else math.nan,
        }

    def figures(self) -> dict[str, Any]:
        args = self.args
        rounds = [self.rounds[n] for n in sorted(self.rounds)]
        subs = self.submissions
        answered = [s for s in subs if s.status]
        deadlines = {r.number: r.deadline for r in rounds}
        late = [s for s in subs if 0 <= deadlines[s.round] - s.pressed <= LATE_WINDOW]
        late_span = sum(
            max(s.sent + s.latency for s in late if s.round == r.number) - (r.deadline - LATE_WINDOW)
            for r in rounds
            if any(s.round == r.number for s in late)
        )
        late_rate = len(late) / late_span if late_span > 0 else math.nan
        offered_late = (
            sum(1 for r in rounds for t in r.planned if r.deadline - t <= LATE_WINDOW) / (LATE_WINDOW * len(rounds))
            if rounds
            else math.nan
        )
        span = (max(s.sent + s.latency for s in subs) - min(s.sent for s in subs)) if subs else math.nan
        started_at, ended_at = self.marks.get("start"), self.marks.get("end") or self.marks.get("joined")
        joined_mark, joins_mark = self.marks.get("joined"), self.marks.get("joins")

        round_phase = Mark.share(started_at, ended_at)
        costs = self.request_costs()
        lags = [lag for moment, _, lag in self.lags if started_at and moment >= started_at.wall]

        def lag_while(kind: str) -> float:
            """The client's worst event-loop lag while an event was being delivered (its stamps are that late)."""
            worst = 0.0
            for r in rounds:
                at, delays = (r.at, r.started_delays) if kind == "started" else (r.closed_at, r.closed_delays)
                if delays:
                    worst = max([worst, *(lag for _, wall, lag in self.lags if at <= wall <= at + max(delays) + 0.1)])
            return worst

        audit_lost = sum(r.audit.get("lost", 0) for r in rounds)
        unaudited = [r.number for r in rounds if not r.audit]
        joined = sum(1 for p in self.players if p.token)
        own_lags = self.own_lags[len(self.own_lags) - len(lags) :] if lags else []
        saturated = round_phase["client_cpu"] > SATURATED_CPU or percentile(own_lags, 0.99) > SATURATED_LAG
        crunch = [Mark.share(self.marks.get(f"late {r.number}"), self.marks.get(f"closed {r.number}")) for r in rounds]
        return {
            "players": args.players,
            "joined": joined,
            "streams_open": len(self.stream_opens),
            "rounds": len(rounds),
            "round_seconds": args.round_seconds,
            "server_args": args.server_args,
            "api_connections": args.api_connections,
            "database": "postgresql" if args.database_url else "sqlite",
            "redis": bool(args.redis_url),
            "join_latency": spread(self.joins),
            "join_seconds": joined_mark.wall - joins_mark.wall if joined_mark and joins_mark else math.nan,
            "stream_open_latency": spread(self.stream_opens),
            "submissions": {
                "sent": len(subs),
                "accepted": sum(1 for s in subs if s.status == 200),
                "refused_as_expected": sum(1 for s in subs if s.garbage and s.status == 422),
                "refused_late": sum(1 for s in subs if s.status == 409),
                "refused_late_sent_before_deadline": sum(1 for s in subs if s.status == 409 and s.before_deadline > 0),
                "no_answer": len(subs) - len(answered),
                "per_second_overall": len(subs) / span if subs and span > 0 else math.nan,
                "per_second_last_10s": late_rate,
                "offered_per_second_last_10s": offered_late,
                "latency": spread([s.latency for s in answered]),
                "client_queue": spread([s.queued for s in subs]),
                "latency_with_queue": spread([s.queued + s.latency for s in answered]),
                "refused_late_pressed_before_deadline": sum(
                    1 for s in subs if s.status == 409 and s.pressed < deadlines[s.round]
                ),
                "peak_in_flight": self.peak_in_flight,
            },
            "round_started_delivery": spread([d for r in rounds for d in r.started_delays]),
            "round_started_received": min((len(r.started_delays) for r in rounds), default=0),
            "round_started_client_lag": lag_while("started"),
            "reveal_delivery": spread([d for r in rounds for d in r.closed_delays]),
            "reveal_received": min((len(r.closed_delays) for r in rounds), default=0),
            "reveal_client_lag": lag_while("closed"),
            "reveal_read_latency": spread([d for r in rounds for d in r.reads]),
            "phones": args.phones,
            "page_round_started": spread([d for r in rounds for d in r.page_started]),
            "page_reveal": spread([d for r in rounds for d in r.page_reveal]),
            "reveal_reads_unfinished": sum(r.reads_started - len(r.reads) for r in rounds),
            "legal_plays": [r.legal_count for r in rounds],
            "lost": audit_lost,
            "audits": {r.number: r.audit for r in rounds},
            "unaudited_rounds": unaudited,
            "submission_events_seen_by_projector": self.submission_events,
            "reconnects": self.reconnects,
            "dropped_streams": self.drops,
            "errors": sum(self.errors.values()),
            "error_kinds": dict(self.errors),
            "error_examples": self.error_examples,
            "server": {
                "peak_rss_mb": sum(self.server.hwm.values()) / 1024,
                "peak_rss_sum_sampled_mb": self.server.rss_peak_kb / 1024,
                "processes": len(self.server.hwm),
                "cpu_seconds": sum(self.server.cpu.values()),
                "cpu_share_during_rounds": round_phase["server_cpu"],
                "cpu_share_last_10s": max((c["server_cpu"] for c in crunch), default=math.nan),
            },
            "client": {
                "cpu_seconds": client_cpu() + self.engine_cpu,
                "engine_cpu_seconds": self.engine_cpu,
                "cpu_share_during_rounds": round_phase["client_cpu"],
                "loop_lag": spread(lags),
                "loop_lag_own": spread(own_lags),
                "cpu_share_last_10s": max((c["client_cpu"] for c in crunch), default=math.nan),
                "saturated": saturated,
            },
            "rounds_wall_seconds": round_phase["seconds"],
            "server_cpu_per_request": costs,
            "machine_cpu_share_during_rounds": round_phase["machine_cpu"],
            "machine_cpu_share_last_10s": max((c["machine_cpu"] for c in crunch), default=math.nan),
            "other_cpu_share_during_rounds": round_phase["machine_cpu"]
            - round_phase["server_cpu"]
            - round_phase["client_cpu"],
            "load_average": os.getloadavg(),
        }
