"""What the load benchmark prints: progress lines on stderr, and on stdout the figures as a table (with
the targets met or missed) or as JSON."""

from __future__ import annotations

import math
import sys
import time
from typing import Any

from .stats import ms

TARGETS = {  # issue 6, on a 2-core machine: players -> p99 submission latency (s)
    1500: 0.300,
    10000: 1.000,
}
REVEAL_TARGET = 2.0  # seconds until every player has the reveal (1,500 players)
DISTURBED_CPU = 0.25  # other processes' share of a core above which the run was disturbed


def log(message: str) -> None:
    """Progress, on stderr (stdout carries the figures, or the JSON)."""
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def table(fig: dict[str, Any]) -> str:
    players = fig["players"]
    target = TARGETS.get(players)
    sub = fig["submissions"]
    lines: list[tuple[str, str]] = []

    def row(label: str, value: str) -> None:
        lines.append((label, value))

    def dist(d: dict[str, Any]) -> str:
        return f"p50 {ms(d['p50'])}, p99 {ms(d['p99'])}, max {ms(d['max'])} ({d['count']})"

    row(
        "players",
        f"{fig['joined']} joined of {players}, {fig['streams_open']} streams open; "
        f"{fig['rounds']} round(s) of {fig['round_seconds']} s; {fig['database']}"
        f"{' + redis' if fig['redis'] else ''}; serve args {fig['server_args'] or '-'}",
    )
    row("joins", f"{dist(fig['join_latency'])}; all in {fig['join_seconds']:.1f} s")
    row("stream opens", dist(fig["stream_open_latency"]))
    row(
        "submissions",
        f"{sub['sent']} sent: {sub['accepted']} accepted, {sub['refused_as_expected']} refused as "
        f"expected (garbage), {sub['refused_late']} refused as late "
        f"({sub['refused_late_pressed_before_deadline']} sent by the player before the deadline, "
        f"{sub['refused_late_sent_before_deadline']} of them left the client before it), "
        f"{sub['no_answer']} without an answer",
    )
    row(
        "submissions/s",
        f"last 10 s: {sub['per_second_last_10s']:.0f} answered "
        f"({sub['offered_per_second_last_10s']:.0f} offered); overall {sub['per_second_overall']:.1f}",
    )
    mark = ""
    if target is not None and not math.isnan(sub["latency"]["p99"]):
        mark = f" — target p99 ≤ {ms(target)}: {'met' if sub['latency']['p99'] <= target else 'MISSED'}"
    row("submission latency", dist(sub["latency"]) + mark)
    row(
        "client queue before sending",
        f"p99 {ms(sub['client_queue']['p99'])}, max {ms(sub['client_queue']['max'])}"
        f"; at most {sub['peak_in_flight']} in flight "
        f"({fig['api_connections']} client connections)",
    )
    if sub["client_queue"]["p99"] > 0.01:
        row("submission as the player sees it", "queue + latency: " + dist(sub["latency_with_queue"]))
    row(
        "round_started delivery",
        f"{dist(fig['round_started_delivery'])}; received by "
        f"{fig['round_started_received']}/{fig['joined']}; client loop lag meanwhile "
        f"≤ {ms(fig['round_started_client_lag'])}",
    )
    reveal = fig["reveal_delivery"]
    mark = ""
    if not math.isnan(reveal["max"]):
        met = fig["reveal_received"] == fig["joined"] and reveal["max"] <= REVEAL_TARGET
        mark = f" — all within {REVEAL_TARGET:g} s: {'met' if met else 'MISSED'}"
    row(
        "reveal delivery",
        f"{dist(reveal)}; received by {fig['reveal_received']}/{fig['joined']}; client loop lag "
        f"meanwhile ≤ {ms(fig['reveal_client_lag'])}{mark}",
    )
    unfinished = fig["reveal_reads_unfinished"]
    if fig["phones"] == "pages":
        row("round start on the phone pages", "event time to fragment in hand: " + dist(fig["page_round_started"]))
        reveal_ok = fig["page_reveal"]["count"] and fig["page_reveal"]["max"] <= REVEAL_TARGET
        row(
            "reveal on the phone pages",
            "event time to fragment in hand: "
            + dist(fig["page_reveal"])
            + (f" — all within {REVEAL_TARGET:.0f} s: {'met' if reveal_ok else 'MISSED'}" if players == 1500 else ""),
        )
    row(
        "reveal read latency",
        dist(fig["reveal_read_latency"])
        + (f"; {unfinished} not answered with 200 (errors, or still waiting at the end)" if unfinished else ""),
    )
    unchecked = f" (rounds not checked: {fig['unaudited_rounds']})" if fig["unaudited_rounds"] else ""
    row(
        "lost submissions",
        f"{fig['lost']}{unchecked}; submission events seen by the projector "
        f"{fig['submission_events_seen_by_projector']}",
    )
    row("reconnects", f"{fig['reconnects']} after a clean end, {fig['dropped_streams']} after a broken stream")
    row("errors", f"{fig['errors']}" + "".join(f"; {kind}: {n}" for kind, n in fig["error_kinds"].items()))
    server, client = fig["server"], fig["client"]
    row(
        "server memory",
        f"peak RSS {server['peak_rss_mb']:.0f} MB (sum of VmHWM of {server['processes']} "
        f"process(es)); largest sampled sum {server['peak_rss_sum_sampled_mb']:.0f} MB",
    )
    row(
        "server CPU",
        f"{server['cpu_seconds']:.1f} s; {server['cpu_share_during_rounds'] * 100:.0f}% of a core "
        f"during the rounds ({fig['rounds_wall_seconds']:.0f} s), "
        f"{server['cpu_share_last_10s'] * 100:.0f}% in their last 10 s",
    )
    costs = fig["server_cpu_per_request"]
    per_core = 1 / costs["submission"] if costs["submission"] > 0 else math.nan
    row(
        "server CPU per request",
        f"join {ms(costs['join'])} (with its stream), submission {ms(costs['submission'])}"
        f" (before the last 10 s), reveal read {ms(costs['reveal_read'])}; so one core "
        f"takes ~{'-' if math.isnan(per_core) else f'{per_core:.0f}'} submissions/s; "
        "idle with the streams open "
        f"{costs['idle_cores'] * 100:.0f}% of a core",
    )
    row(
        "machine CPU during the rounds",
        f"{fig['machine_cpu_share_during_rounds'] * 100:.0f}% of a core in all "
        f"({fig['cpus']} cores; {fig['machine_cpu_share_last_10s'] * 100:.0f}% in "
        f"the last 10 s), other processes "
        f"{fig['other_cpu_share_during_rounds'] * 100:.0f}%; load average at the end "
        + " ".join(f"{x:.1f}" for x in fig["load_average"]),
    )
    row(
        "client CPU",
        f"{client['cpu_seconds']:.1f} s (engine {client['engine_cpu_seconds']:.1f} s); "
        f"{client['cpu_share_during_rounds'] * 100:.0f}% of a core during the rounds "
        f"({client['cpu_share_last_10s'] * 100:.0f}% in the last 10 s); event-loop lag "
        f"p99 {ms(client['loop_lag']['p99'])}, max {ms(client['loop_lag']['max'])}, of which computing "
        f"p99 {ms(client['loop_lag_own']['p99'])}, max {ms(client['loop_lag_own']['max'])}"
        + (" — CLIENT SATURATED: the figures include the client's delays" if client["saturated"] else ""),
    )
    if fig["other_cpu_share_during_rounds"] > DISTURBED_CPU:
        row("NOTE", "other processes used the machine during the rounds: the figures are disturbed")
    width = max(len(label) for label, _ in lines)
    out = [f"| {'measure'.ljust(width)} | figures |", f"|{'-' * (width + 2)}|---------|"]
    out += [f"| {label.ljust(width)} | {value} |" for label, value in lines]
    profile = fig.get("profile")
    if profile:
        out.append("")
        out.append(f"server profile (py-spy --gil, {profile['samples']} samples over the rounds):")
        for title, key in (("self", "self"), ("Tirage functions, inclusive", "tirage_inclusive")):
            out.append(f"  {title}:")
            out += [f"    {share * 100:5.1f}%  {name}" for name, share in profile[key]]
    if fig["error_examples"]:
        out.append("")
        for kind, examples in fig["error_examples"].items():
            out.append(f"{kind}: " + " | ".join(examples))
    return "\n".join(out)


def plain(value: Any) -> Any:
    """JSON-ready: NaN (a figure with no values) as null, keys as text."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value
