"""Simultaneous games and tournaments (docs/rules.md §6.22, §6.23): the merged ranking where a solo is a top found
once in the whole event, the rounds counted only once every room has closed them, and a tournament's ranking
with its tie-break. A two-room evening in Chromium is tests/browser/test_simultaneous.py."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.processes import best_play
from tests.test_api import Api
from tests.test_api import api as api  # the fixture
from trainer.duplicate.competition import Room, event_results, player_key, tournament_results
from trainer.duplicate.results import RoundRecord, SoloRule, Submission, score_game
from trainer.engine.lexicon import Lexicon
from trainer.engine.rules import Ruleset

SCORES = [40, 30, 20]


def _round(number: int, plays: dict[str, int]) -> RoundRecord:
    return RoundRecord(number, 40, SCORES, [Submission(name, name, score, True) for name, score in plays.items()])


def test_a_top_found_in_two_rooms_is_no_solo_and_only_rounds_closed_everywhere_count() -> None:
    """docs/rules.md §6.22's example: Ann (room A) and Bob (room B) both find round 1's top of 40; in its own
    room each would have a solo."""
    room_a = Room("AAAA", [_round(1, {"Ann": 40, "Cy": 30}), _round(2, {"Ann": 20, "Cy": 40})], ["Ann", "Cy"])
    room_b = Room("BBBB", [_round(1, {"Bob": 40, "Dee": 20})], ["Bob", "Dee"])
    alone = score_game(room_a.rounds[:1], room_a.players, solo_rule=SoloRule(10, 2))
    assert alone.rounds[0].solo == "Ann"  # in room A alone, a solo with its bonus
    merged = event_results([room_a, room_b], SoloRule(10, 2))
    assert [r.number for r in merged.rounds] == [1]  # room B has not closed round 2: it is not counted
    assert merged.rounds[0].solo is None
    lines = {s.player: s for s in merged.standings}
    assert (lines[player_key("AAAA", "Ann")].total, lines[player_key("AAAA", "Ann")].solos) == (40, 0)
    assert lines[player_key("BBBB", "Bob")].rank == lines[player_key("AAAA", "Ann")].rank == 1
    assert lines[player_key("BBBB", "Dee")].percentage == Decimal("50.00")
    with_round_2 = event_results([room_a, Room("BBBB", [*room_b.rounds, _round(2, {"Bob": 30})], ["Bob", "Dee"])])
    assert with_round_2.rounds[1].solo == player_key("AAAA", "Cy")  # alone in the whole event: a solo


def test_a_room_that_ended_early_holds_nobody_back() -> None:
    """docs/rules.md §6.22: room B's director ended its game after round 1; room A plays on."""
    room_a = Room("AAAA", [_round(1, {"Ann": 40}), _round(2, {"Ann": 30})], ["Ann"])
    room_b = Room("BBBB", [_round(1, {"Bob": 40})], ["Bob"], finished=True)
    merged = event_results([room_a, room_b])
    assert [r.number for r in merged.rounds] == [1, 2]
    lines = {s.player: s for s in merged.standings}
    assert lines[player_key("AAAA", "Ann")].total == 70 and lines[player_key("BBBB", "Bob")].total == 40
    assert lines[player_key("BBBB", "Bob")].round_totals == (40, 0)  # nothing for the round room B did not play
    still_playing = Room("BBBB", [_round(1, {"Bob": 40})], ["Bob"])
    assert [r.number for r in event_results([room_a, still_playing]).rounds] == [1]


def test_two_rooms_that_did_not_play_the_same_round_are_not_ranked_together() -> None:
    other = RoundRecord(1, 35, [35, 20], [])
    with pytest.raises(ValueError, match="round 1 differs"):
        event_results([Room("A", [_round(1, {})], []), Room("B", [other], [])])


def test_a_tournament_adds_the_games_and_breaks_ties_by_the_last_game_then_its_last_rounds() -> None:
    """docs/rules.md §6.23's example."""
    first = score_game([_round(1, {"Ann": 40, "Bob": 40, "Cy": 40, "Dee": 30})], ["Ann", "Bob", "Cy", "Dee"])
    second = score_game(
        [
            _round(1, {"Ann": 30, "Bob": 40, "Cy": 20, "Dee": 40}),
            _round(2, {"Ann": 40, "Bob": 30, "Cy": 40, "Dee": 30}),
        ],
        ["Ann", "Bob", "Cy", "Dee"],
    )
    ranking = tournament_results([first, second])
    assert ranking.top_total == 120
    lines = [(line.player, line.rank, line.total, line.game_totals) for line in ranking.lines]
    # Ann and Bob: 110 each, 70 each in the last game; Ann's last round (40) beats Bob's (30). Cy and Dee: 100
    # each, but Dee's last game (70) beats Cy's (60).
    assert lines == [
        ("Ann", 1, 110, (40, 70)),
        ("Bob", 2, 110, (40, 70)),
        ("Dee", 3, 100, (30, 70)),
        ("Cy", 4, 100, (40, 60)),
    ]
    assert ranking.lines[0].negatif == -10 and ranking.lines[0].percentage == Decimal("91.67")
    twin = tournament_results([first, first])
    assert [line.rank for line in twin.lines] == [1, 1, 1, 4]  # equal on everything: a shared rank


def test_a_simultaneous_game_through_the_api(api: Api, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    alice, bruno = api.token("alice"), api.token("bruno")
    first = api.new_game(alice, rules="en", max_rounds=2, reveal_seconds=None, solo_min_players=2, seed=10**19 + 11)
    event = api.ok(
        "POST", "/api/competitions", {"kind": "simultaneous", "name": "Téléthon", "game_id": first["id"]}, alice, 201
    )
    code = event["code"]
    second = api.ok("POST", f"/api/competitions/{code}/rooms", None, bruno, 201)
    assert second["seed"] == first["seed"] and second["join_code"] != first["join_code"]
    rooms = {"A": first, "B": second}
    tokens = {"A": alice, "B": bruno}
    people = {"Ann": "A", "Cy": "A", "Bob": "B"}
    joined = {name: api.join(rooms[room]["join_code"], name) for name, room in people.items()}
    for room in rooms.values():
        api.ok("POST", f"/api/games/{room['id']}/start", token=tokens["A" if room is first else "B"])
    states = {k: api.get(f"/api/games/{r['id']}", tokens[k]) for k, r in rooms.items()}
    assert states["A"]["rack"] == states["B"]["rack"] and states["A"]["board"] == states["B"]["board"]
    top, _score, lesser = best_play(states["A"], en_rules, en_lexicon)
    for name, play in (("Ann", top), ("Bob", top), ("Cy", lesser)):
        room = rooms[people[name]]
        api.ok("POST", f"/api/games/{room['id']}/rounds/1/plays", {"move": play}, joined[name]["token"])

    api.ok("POST", f"/api/games/{first['id']}/close", token=alice)
    waiting = api.get(f"/api/competitions/{code}/ranking")
    assert waiting["rounds_counted"] == 0 and waiting["waiting_for"] == ["Room 2"]  # by name, never a code (§6.22)
    # Room B's players may not see room A's round 1 before their own room closes it (docs/rules.md §6.4).
    refused, _answer = api.call("GET", f"/api/games/{first['id']}/rounds/1", token=joined["Bob"]["token"])
    assert refused == 403
    code_, answer = api.call("POST", f"/api/games/{first['id']}/rounds/1/top", {"move": top}, alice)
    assert code_ == 409 and "same top" in answer["error"]

    api.ok("POST", f"/api/games/{second['id']}/close", token=bruno)
    ranking = api.get(f"/api/competitions/{code}/ranking")
    assert ranking["rounds_counted"] == 1 and ranking["waiting_for"] == []
    lines = {(s["room"], s["name"]): s for s in ranking["standings"]}
    ann, bob = lines[("Room 1", "Ann")], lines[("Room 2", "Bob")]
    assert (ann["rank"], ann["solos"], bob["rank"], bob["solos"]) == (1, 0, 1, 0)  # found in both rooms: no solo
    room_a = {s["name"]: s for s in api.get(f"/api/games/{first['id']}/standings")["standings"]}
    assert room_a["Ann"]["solos"] == 1  # the room's own standings: Ann alone found it there
    assert ranking["top_total"] == ann["total"]


def test_a_tournament_through_the_api(api: Api, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    alice = api.token("alice")
    tournament = api.ok("POST", "/api/competitions", {"kind": "tournament", "name": "Open"}, alice, 201)
    code = tournament["code"]
    totals: dict[str, list[int]] = {"Ann": [], "Bob": []}
    for seed in (10**19 + 7, 10**19 + 8):
        game = api.new_game(alice, rules="en", max_rounds=1, reveal_seconds=None, seed=seed)
        api.ok("POST", f"/api/competitions/{code}/games", {"game_id": game["id"]}, alice, 201)
        # "bob" in the second game reads as "Bob" of the first: one person (names, docs/rules.md §6.16)
        ann, bob = api.join(game["join_code"], "Ann"), api.join(game["join_code"], "Bob" if seed % 2 else "bob")
        api.ok("POST", f"/api/games/{game['id']}/start", token=alice)
        top, _score, lesser = best_play(api.get(f"/api/games/{game['id']}", alice), en_rules, en_lexicon)
        api.ok("POST", f"/api/games/{game['id']}/rounds/1/plays", {"move": top}, ann["token"])
        api.ok("POST", f"/api/games/{game['id']}/rounds/1/plays", {"move": lesser}, bob["token"])
        if seed == 10**19 + 7:
            provisional = api.get(f"/api/competitions/{code}/ranking")
            assert provisional["games_counted"] == [] and provisional["standings"] == []
        api.ok("POST", f"/api/games/{game['id']}/close", token=alice)
        if api.get(f"/api/games/{game['id']}", alice)["status"] != "finished":
            api.ok("POST", f"/api/games/{game['id']}/end", token=alice)
        for s in api.get(f"/api/games/{game['id']}/standings")["standings"]:
            totals["Ann" if s["name"] == "Ann" else "Bob"].append(s["total"])
    ranking = api.get(f"/api/competitions/{code}/ranking")
    assert len(ranking["games_counted"]) == 2
    assert [(s["name"], s["total"], s["game_totals"]) for s in ranking["standings"]] == [
        ("Ann", sum(totals["Ann"]), totals["Ann"]),
        ("Bob", sum(totals["Bob"]), totals["Bob"]),  # one person under the name of their first game
    ]
