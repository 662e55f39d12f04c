"""The figures of ``bench/attack.py``'s scenarios, and their table with the issue's targets met or missed."""

from __future__ import annotations

import math
from typing import Any

from .siege import Scenario
from .stats import ms, spread

PLAY_P99 = 0.300  # the targets
PAGE_P99 = 0.500
OPENING_P99 = 0.100
OPENING_WINDOW = 2.0  # seconds after B's start in which the main game's plays are measured
RSS_LIMIT_MB = 600.0
DISTURBED_CORES = 0.25  # other processes' cores above which a round was disturbed


def _count(values: list[int]) -> dict[str, int]:
    counted: dict[str, int] = {}
    for value in values:
        counted[str(value)] = counted.get(str(value), 0) + 1
    return dict(sorted(counted.items()))


def scenario_figures(s: Scenario) -> dict[str, Any]:
    plays = s.plays
    answered = [p for p in plays if p.status]
    fig: dict[str, Any] = {
        "kind": s.name,
        "round": s.number,
        "rack": s.rack,
        "legal_plays": s.legal,
        "round_opened_seconds": s.opened,
        "closed_after_deadline": s.closed_after,
        "plays": {
            "sent": len(plays),
            "accepted": sum(1 for p in plays if p.status == 200),
            "refused_late": sum(1 for p in plays if p.status == 409),
            "refused_late_sent_before_deadline": sum(1 for p in plays if p.status == 409 and p.margin > 0),
            "statuses": _count([p.status for p in plays]),
            "codes": _count([p.code for p in plays if p.code]),  # type: ignore[misc]
            "latency": spread([p.latency for p in answered]),
            "stamp_lag": spread([p.stamp_lag for p in plays if not math.isnan(p.stamp_lag)]),
            "late_margins": sorted(p.margin for p in plays if p.status == 409 and p.margin > 0),
            "new_connections": s.connections,
            "latency_new_connection": spread([p.latency for p in answered if p.new_connection]),
            "latency_kept_alive": spread([p.latency for p in answered if not p.new_connection]),
            "refused_late_on_new_connection": sum(1 for p in plays if p.status == 409 and p.new_connection),
        },
        "audit": s.audit,
        "server_cpu_share": s.server_cpu,
        "client_cpu_share": s.client_cpu,
        "client_loop_lag_max": s.lag_max,
        "machine_cores_busy": s.machine_cpu,
        "attacker_cpu_share": s.attacker_cpu,
        "other_cores_busy": max(0.0, s.machine_cpu - s.server_cpu - s.client_cpu - s.attacker_cpu),
        "server_rss_sampled_mb": s.rss_mb,
        "seconds": s.seconds,
    }
    attack = s.attack
    if attack.get("catch_ups") is not None:
        rows = attack["catch_ups"]
        whole = [r for r in rows if r[4] == 200]
        span = (max(r[0] + r[1] for r in rows) - min(r[0] for r in rows)) if rows else math.nan
        fig["catch_ups"] = {
            "served": len(whole),
            "per_second": len(whole) / span if span and not math.isnan(span) else math.nan,
            "events_each": spread([float(r[2]) for r in whole]),
            "min_events": min((r[2] for r in whole), default=0),
            "latency": spread([r[1] for r in whole]),
            "megabytes": sum(r[3] for r in whole) / 1e6,
            "statuses": _count([r[4] for r in rows]),
            "errors": attack.get("catch_up_errors", {}),
            "attacker_cpu_seconds": attack.get("cpu_seconds", math.nan),
            "attack_seconds": span,
        }
    if s.probes:
        kinds = sorted({kind for kind, *_ in s.probes})
        fig["pages"] = {
            "all": spread([seconds for _, _, seconds, status in s.probes if status]),
            "not_200": sum(1 for *_, status in s.probes if status != 200),
            **{kind: spread([sec for k, _, sec, status in s.probes if k == kind and status]) for kind in kinds},
        }
    if attack.get("idle_opened"):
        held = [n for _, n in attack["held_samples"]]
        round_held = [n for wall, n in attack["held_samples"] if s.opened_wall <= wall <= s.deadline]
        fig["idle"] = {
            "held_at_start": s.ready.get("held", 0),
            "opening_seconds": s.ready.get("seconds", math.nan),
            "held_during_round_min": min(round_held, default=0),
            "held_max": max(held, default=0),
            "opened": attack["idle_opened"],
            "closed_by_server": len(attack["idle_lifetimes"]),
            "closed_at_once": attack["idle_at_once"],
            "lifetime": spread(attack["idle_lifetimes"]),
            "connect_errors": attack["idle_connect_errors"],
            "cuts": _bursts([wall - s.deadline for wall in attack["idle_closes"] if wall >= s.opened_wall]),
        }
    if attack.get("slow_answers") is not None and (attack["slow_answers"] or attack.get("slow_errors")):
        answers = attack["slow_answers"]
        fig["slow_bodies"] = {
            "answers": len(answers),
            "statuses": _count([a[1] for a in answers]),
            "seconds": spread([a[2] for a in answers]),
            "bytes_sent": spread([float(a[3]) for a in answers]),
            "connect_errors": attack.get("slow_errors", 0),
        }
    if "removed" in s.extra:
        answers = s.extra["removed_answers"]
        fig["poisoned"] = {
            "removed": s.extra["removed"],
            "first_plays": _count(s.extra["removed_first"]),
            "plays": len(answers),
            "statuses": _count([status for status, _ in answers]),
            "codes": _count([code for _, code in answers if code]),
            "honest_refused": sum(1 for p in plays if p.status != 200),
        }
    for key in ("large_body_status", "large_body_seconds", "cap", "cap_kept", "cap_closed", "cap_open_seconds"):
        if key in s.extra:
            fig.setdefault("defences", {})[key] = s.extra[key]
    if "b_game" in s.extra:
        sent = s.extra.get("b_sent", math.nan)
        inside = [p.latency for p in answered if sent <= p.wall <= sent + OPENING_WINDOW]
        outside = [p.latency for p in answered if not sent <= p.wall <= sent + OPENING_WINDOW]
        fig["opening"] = {
            "b_seed": s.extra["b_seed"],
            "b_rack_expected": s.extra["b_rack_expected"],
            "b_rack": s.extra.get("b_rack"),
            "b_status": s.extra.get("b_status"),
            "b_answer_seconds": s.extra.get("b_answer_seconds", math.nan),
            "b_playing_seen_seconds": s.extra.get("b_playing_seen", math.nan),
            "b_sent_before_deadline": s.deadline - sent,
            "plays_in_window": spread(inside),
            "plays_outside_window": spread(outside),
        }
    return fig


def _summaries(fig: dict[str, Any]) -> list[tuple[str, str, str]]:
    """One row for each scenario played several rounds (``--repeat``): in how many rounds every play was taken and
    the play latency's p99 met, and the spread of those p99s."""
    players, rows = fig["players"], []
    kinds: dict[str, list[dict[str, Any]]] = {}
    for s in fig["scenarios"].values():
        kinds.setdefault(s["kind"], []).append(s)
    for kind, rounds in kinds.items():
        if len(rounds) < 2:
            continue
        all_taken = sum(1 for s in rounds if s["plays"]["accepted"] == players)
        p99s = sorted(s["plays"]["latency"]["p99"] for s in rounds)
        fast = sum(1 for p99 in p99s if p99 <= PLAY_P99)
        late = sum(s["plays"]["refused_late_sent_before_deadline"] for s in rounds)
        rows.append(
            (
                f"{kind}, {len(rounds)} rounds",
                f"every play accepted in {all_taken} of {len(rounds)} rounds ({late} sent in time refused as late in "
                f"all); play p99 {ms(p99s[0])} to {ms(p99s[-1])} (median {ms(p99s[len(p99s) // 2])}), "
                f"≤ {ms(PLAY_P99)} in {fast} of {len(rounds)}",
                f"{len(rounds)} of {len(rounds)}: {_met(all_taken == fast == len(rounds))}",
            )
        )
    return rows


def _bursts(moments: list[float], gap: float = 2.0) -> list[tuple[float, float, int]]:
    """``moments`` grouped where they are less than ``gap`` apart: (first, last, how many) of each group."""
    groups: list[tuple[float, float, int]] = []
    for moment in sorted(moments):
        if groups and moment - groups[-1][1] < gap:
            first, _, count = groups[-1]
            groups[-1] = (first, moment, count + 1)
        else:
            groups.append((moment, moment, 1))
    return groups


def _by_connection(plays: dict[str, Any]) -> str:
    new, kept = plays["latency_new_connection"], plays["latency_kept_alive"]
    return (
        f"; on a new connection p99 {ms(new['p99'])} ({new['count']}), on a kept-alive one p99 {ms(kept['p99'])} "
        f"({kept['count']})"
    )


def _met(ok: bool) -> str:
    return "met" if ok else "MISSED"


def _dist(d: dict[str, Any]) -> str:
    return f"p50 {ms(d['p50'])}, p99 {ms(d['p99'])}, max {ms(d['max'])} ({d['count']})"


def table(fig: dict[str, Any]) -> str:
    rows: list[tuple[str, str, str]] = []
    flood, joins = fig["flood"], fig["joins"]
    if flood:
        rows.append(
            (
                "join flood (before the rounds)",
                f"{flood['joined']} of {flood['asked']} joined in {flood['seconds']:.1f} s "
                f"({flood['per_second']:.0f}/s)"
                f"{'; ' + str(flood['not_sent']) + ' not sent (time cap)' if flood['not_sent'] else ''}; "
                f"statuses {flood['statuses']}",
                "",
            )
        )
    rows.append(("honest players", f"{joins['joined']} joined; join {_dist(joins)}", ""))
    players = fig["players"]
    for label, s in fig["scenarios"].items():
        name, p = s["kind"], s["plays"]
        tag = f"{label}:"
        rows.append(
            (
                f"{tag} round",
                f"round {s['round']} opened in {ms(s['round_opened_seconds'])} (rack {s['rack']}, "
                f"{s['legal_plays']} legal plays); closed {s['closed_after_deadline']:.2f} s after its deadline",
                "",
            )
        )
        if "catch_ups" in s:
            c = s["catch_ups"]
            rows.append(
                (
                    f"{tag} catch-ups",
                    f"{c['served']} served ({c['per_second']:.0f}/s over {c['attack_seconds']:.0f} s), "
                    f"events each {c['min_events']}-{c['events_each']['max']:.0f} "
                    f"(median {c['events_each']['p50']:.0f}); "
                    f"{_dist(c['latency'])}; {c['megabytes']:.0f} MB; statuses {c['statuses']}"
                    f"{'; errors ' + str(c['errors']) if c['errors'] else ''}",
                    "",
                )
            )
        if "idle" in s:
            i = s["idle"]
            rows.append(
                (
                    f"{tag} idle connections",
                    f"{i['held_at_start']} held before the round (opened in {i['opening_seconds']:.1f} s), "
                    f"at least {i['held_during_round_min']} during it; {i['closed_by_server']} closed by the server "
                    f"(after p50 {ms(i['lifetime']['p50'])}, max {ms(i['lifetime']['max'])}), {i['closed_at_once']} "
                    f"of them at once; {i['opened']} opened in all, {i['connect_errors']} connect errors; cut "
                    + ", ".join(f"{n} from {a:+.1f} s to {b:+.1f} s" for a, b, n in i["cuts"])
                    + " of the deadline",
                    "",
                )
            )
        if "slow_bodies" in s:
            b = s["slow_bodies"]
            rows.append(
                (
                    f"{tag} slow bodies",
                    f"{b['answers']} answered: statuses {b['statuses']}, after p50 {ms(b['seconds']['p50'])}, "
                    f"max {ms(b['seconds']['max'])} ({b['bytes_sent']['max']:.0f} bytes sent at most); "
                    f"{b['connect_errors']} connect errors",
                    "",
                )
            )
        accepted_all = p["accepted"] == players
        rows.append(
            (
                f"{tag} plays",
                f"{p['accepted']} accepted of {p['sent']} sent; {p['refused_late']} refused as late "
                f"({p['refused_late_sent_before_deadline']} of them sent before the deadline, "
                f"{p['refused_late_on_new_connection']} on a new connection"
                + (f", {p['late_margins'][0]:.2f}-{p['late_margins'][-1]:.2f} s before it" if p["late_margins"] else "")
                + f"); statuses {p['statuses']}"
                f"{'; ' + str(p['codes']) if p['codes'] else ''}",
                f"{players} of {players}: {_met(accepted_all)}",
            )
        )
        if "poisoned" in s:
            q = s["poisoned"]
            rows.append(
                (
                    f"{tag} removed players",
                    f"{q['removed']} removed after a first play each (statuses {q['first_plays']}); their "
                    f"{q['plays']} plays in the honest window answered {q['statuses']}"
                    f"{'; ' + str(q['codes']) if q['codes'] else ''}",
                    "",
                )
            )
            rows.append(
                (f"{tag} honest plays refused", str(q["honest_refused"]), f"0: {_met(q['honest_refused'] == 0)}")
            )
        if name == "opening":
            o = s["opening"]
            inside = o["plays_in_window"]
            rows.append(("opening: play latency, all", _dist(p["latency"]) + _by_connection(p), ""))
            rows.append(
                (
                    f"opening: play latency, {OPENING_WINDOW:g} s after B's start",
                    _dist(inside) + f"; outside that window {_dist(o['plays_outside_window'])}",
                    f"p99 ≤ {ms(OPENING_P99)}: {_met(inside['count'] > 0 and inside['p99'] <= OPENING_P99)}",
                )
            )
            rows.append(
                (
                    "opening: game B's start",
                    f"sent {o['b_sent_before_deadline']:.1f} s before the deadline; answered (HTTP {o['b_status']}) in "
                    f"{ms(o['b_answer_seconds'])}; status 'playing' seen after {ms(o['b_playing_seen_seconds'])}; "
                    f"rack {o['b_rack']} (seed {o['b_seed']}, expected {o['b_rack_expected']})",
                    "",
                )
            )
        else:
            lat = p["latency"]
            rows.append(
                (
                    f"{tag} play latency",
                    _dist(lat) + _by_connection(p),
                    f"p99 ≤ {ms(PLAY_P99)}: {_met(lat['count'] > 0 and lat['p99'] <= PLAY_P99)}",
                )
            )
        rows.append((f"{tag} arrival stamp minus sending", _dist(p["stamp_lag"]) + " (accepted plays)", ""))
        if "pages" in s:
            pg = s["pages"]
            kinds = ", ".join(f"{k} p99 {ms(v['p99'])}" for k, v in pg.items() if k not in ("all", "not_200"))
            rows.append(
                (
                    f"{tag} pages and director",
                    f"{_dist(pg['all'])}; {kinds}; {pg['not_200']} not 200",
                    f"p99 ≤ {ms(PAGE_P99)}: {_met(pg['all']['count'] > 0 and pg['all']['p99'] <= PAGE_P99)}"
                    if name == "slow"
                    else "",
                )
            )
        if "defences" in s:
            d = s["defences"]
            rows.append(
                (
                    f"{tag} defences after the round",
                    f"body announced over its limit: HTTP {d['large_body_status']} in {ms(d['large_body_seconds'])}; "
                    f"{d['cap'] + 100} connections from one address: {d['cap_kept']} kept, {d['cap_closed']} closed "
                    f"(opened in {d['cap_open_seconds']:.1f} s)",
                    "",
                )
            )
        a = s["audit"]
        rows.append(
            (
                f"{tag} lost plays",
                f"{a.get('lost', '?')} ({a.get('missing', '?')} missing, {a.get('different', '?')} different) of "
                f"{a.get('accepted', '?')} accepted; {a.get('phantom', '?')} never accepted but in the results",
                f"0: {_met(a.get('lost') == 0 and a.get('phantom') == 0)}",
            )
        )
        rows.append(
            (
                f"{tag} CPU (opening to close)",
                f"server {s['server_cpu_share'] * 100:.0f}% of a core, attacker process "
                f"{s['attacker_cpu_share'] * 100:.0f}%, client {s['client_cpu_share'] * 100:.0f}% "
                f"(loop lag max {ms(s['client_loop_lag_max'])}); machine {s['machine_cores_busy']:.1f} cores busy, "
                f"other processes {s['other_cores_busy']:.1f}",
                "",
            )
        )
        if s["other_cores_busy"] > DISTURBED_CORES:
            rows.append((f"{tag} NOTE", "other processes used the machine during the round: figures disturbed", ""))
    rows += _summaries(fig)
    server = fig["server"]
    rows.append(
        (
            "server memory",
            f"peak RSS {server['peak_rss_mb']:.0f} MB (sum of VmHWM of {server['processes']} process(es)); "
            f"largest sampled sum {server['peak_rss_sampled_mb']:.0f} MB",
            f"< {RSS_LIMIT_MB:.0f} MB: {_met(server['peak_rss_mb'] < RSS_LIMIT_MB)}",
        )
    )
    width = [max(len(r[i]) for r in rows) for i in range(3)]
    width = [max(width[0], 7), max(width[1], 7), max(width[2], 6)]
    out = [f"| {'measure'.ljust(width[0])} | {'figures'.ljust(width[1])} | {'target'.ljust(width[2])} |"]
    out.append(f"|{'-' * (width[0] + 2)}|{'-' * (width[1] + 2)}|{'-' * (width[2] + 2)}|")
    out += [f"| {a.ljust(width[0])} | {b.ljust(width[1])} | {c.ljust(width[2])} |" for a, b, c in rows]
    return "\n".join(out)
