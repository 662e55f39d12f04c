"""Imposed draws, the pure rules (docs/rules.md §6.18): reading a list, checking it before the game starts by
drawing it from a full bag, and playing it.

Lists are written here by hand, or dealt from the tile set's data (not from the code under test); a seed game
played by the engine gives a real list with rejets for the round trip.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from trainer.duplicate.draw import DrawRule, EndReason, reliquat_after
from trainer.duplicate.errors import RuleError
from trainer.duplicate.imposed import MAX_TEXT, ImposedDraws, ImposedDrawsError, parse, requested, round_list
from trainer.duplicate.mode import Analysis
from trainer.duplicate.rounds import Setup, simulate
from trainer.duplicate.tiebreak import order_tops
from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon
from trainer.engine.movegen import top_moves
from trainer.engine.notation import format_move, parse_move
from trainer.engine.rules import Ruleset, ruleset

EN = ruleset("en")
FR = ruleset("fr")
RULE = DrawRule()
# Four rounds: a reliquat kept (ER of EIMORSU), a rejet (AEINOUU has one consonant) and a fresh rack after it.
LIST = """\
EIMORSU
ER+AEINT
-EN+AIOUU ABDLOST
LST+EEGR
"""
RACKS = ["EIMORSU", "ERAEINT", "ABDLOST", "LSTEEGR"]  # the reliquat first (docs/rules.md §6.3)


def refusal(text: str, rules: Ruleset = EN, rule: DrawRule = RULE) -> ImposedDrawsError:
    with pytest.raises(ImposedDrawsError) as refused:
        parse(text, rules, rule)
    return refused.value


def deal(racks: list[str]) -> str:
    """Racks played whole, one a line (no reliquat): a list that empties the bag as fast as the rule allows."""
    return "".join(f"{rack}\n" for rack in racks)


def full_bag(rules: Ruleset) -> list[str]:
    return sorted(rules.tileset.bag())


# ------------------------------------------------------------------------------------- reading good lists


def test_a_list_with_a_reliquat_and_a_rejet_gives_each_rounds_rack() -> None:
    imposed = parse(LIST, EN, RULE)
    assert [d.rack for d in imposed.draws] == RACKS
    third = imposed.draws[2]
    assert (third.reliquat, third.record, [t.rack for t in third.rejets]) == ("EN", "-EN+AIOUU ABDLOST", ["ENAIOUU"])
    assert imposed.draws[1].reliquat == "ER" and imposed.draws[1].written == "ER+AEINT"
    assert imposed.text == LIST  # kept as the rules document writes each draw
    assert len(imposed) == 4 and imposed.end_reason("", 4) is None and imposed.end_reason("", 5) is EndReason.LAST_DRAW


def test_the_list_is_read_the_way_people_write_it() -> None:
    """Any case, blank lines, comments, round numbers, a word processor's dash, a GCG record's notes."""
    written = """
    # Simultaneous of the club, 12 March
    1. eimorsu
    2) er+aeint     # round 2

    3 –EN+AIOUU abdlost
    4: LST+EEGR
    """
    assert parse(written, EN, RULE).text == LIST
    gcg = """#character-encoding UTF-8
#player1 Top Tirage duplicate game 1
>Top: EIMORSU 8D MOUSIER +74 74
#note round 1, draw EIMORSU
>Top: AEEINRT ... +10 84
#note round 2, draw ER+AEINT
#note round 3, draw -EN+AIOUU ABDLOST
#note round 4, draw LST+EEGR
"""
    assert parse(gcg, EN, RULE).text == LIST
    blanks = parse("?AEINRS\nS+?ABCDE", EN, RULE)
    assert [d.rack for d in blanks.draws] == ["?AEINRS", "S?ABCDE"]  # the reliquat first, each part sorted


def test_what_round_list_writes_reads_back_as_the_same_draws() -> None:
    imposed = parse(LIST, EN, RULE)
    written = round_list((d.record for d in imposed.draws), ["Tirage duplicate game 7", "4 rounds"])
    assert written.startswith("# Tirage duplicate game 7\n# 4 rounds\nEIMORSU\n")
    assert parse(written, EN, RULE) == imposed


def test_a_seed_games_draws_replay_as_an_imposed_game(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    """docs/rules.md §6.3's seed 4 (round 2 is a rejet): its round list is a list of imposed draws; played, it gives
    the same racks, the same tops and the same end as the seed game, and its seed draws nothing."""
    seeded = simulate(Setup(en_rules, en_lexicon, "english", RULE, 4))
    records = [r.draw.record for r in seeded.rounds]
    assert records[1] == "-EEIO+AAB AEILRRR"
    imposed = parse(round_list(records), en_rules, RULE)
    assert imposed.draws == tuple(r.draw for r in seeded.rounds)
    replayed = simulate(Setup(en_rules, en_lexicon, "english", RULE, seed=1, imposed=imposed))
    assert [r.draw.rack for r in replayed.rounds] == [r.draw.rack for r in seeded.rounds]
    assert [r.placed for r in replayed.rounds] == [r.placed for r in seeded.rounds]
    assert replayed.end is EndReason.LAST_DRAW and len(replayed.rounds) == len(seeded.rounds)


def test_the_tile_set_decides_what_a_rack_holds() -> None:
    """In French, Y counts as a vowel if the rack needs one (docs/rules.md §1.4): ABCDFGY has two vowels there, one
    in English."""
    assert parse("ABCDFGY\n", FR, RULE).draws[0].rack == "ABCDFGY"
    assert refusal("ABCDFGY\n", EN).problems[0].code == "draws_requirement"


# ------------------------------------------------------------------------------------- each refusal


@pytest.mark.parametrize(
    ("text", "code", "line", "message"),
    [
        ("# nothing yet\n\n", "draws_empty", None, "the list holds no draw"),
        ("1 EIMORSU\n3 ER+AEINT\n", "draws_round_number", 2, "the line says round 3, but it is the draw of round 2"),
        ("EIM+OR+SU", "draws_bad_token", 1, "'EIM+OR+SU' is not a draw: write RELIQUAT+NEW"),
        ("-", "draws_bad_token", 1, "'-' is not a draw: write RELIQUAT+NEW"),
        ("EIMORSU\n+", "draws_bad_token", 2, "'+' is not a draw: write RELIQUAT+NEW"),
        ("EIMORSÉ", "draws_not_a_tile", 1, "'É' is not a tile of this game (letters, and ? for a blank)"),
        ("AEIMORSU", "draws_rack_too_big", 1, "AEIMORSU has 8 tiles: a rack holds 7"),
        (
            "EIMORSU\nER+AEINT\n-AEIOU+EEIKLRT",
            "draws_rack_too_big",
            3,
            "-AEIOU+EEIKLRT has 12 tiles: a rack holds 7",
        ),
        (
            "-AEIOUUS",
            "draws_ends_with_rejet",
            1,
            "the line ends with a rejected rack (-AEIOUUS): write the rack played instead after it, with a space"
            " between",
        ),
        (
            "AEIOUUS EIMORSU",
            "draws_not_rejected",
            1,
            "only a line's last rack is played: write the racks before it as rejets, with a - (AEIOUUS)",
        ),
        (
            "-AEIOUUS ER+AEINT",
            "draws_reliquat_after_rejet",
            1,
            "after a rejet every tile is back in the bag: the next rack has no reliquat (ER+AEINT)",
        ),
        ("ER+AEINT", "draws_first_reliquat", 1, "the first round has no reliquat (ER+)"),
        (
            "EIMORSU\nEZ+AEINT",
            "draws_reliquat_not_kept",
            2,
            "the reliquat EZ is not part of the last rack EIMORSU",
        ),
        (
            "EIMORSU\nEIMORS+T",
            "draws_reliquat_too_big",
            2,
            "the reliquat EIMORS keeps too much of the last rack EIMORSU: the top placed before it uses at least 2 of"
            " its tiles",
        ),
        (
            "EIMORSU\nER+AEINT\nAEEINRT+",
            "draws_reliquat_too_big",
            3,
            "the reliquat AEEINRT keeps too much of the last rack AEEINRT: the top placed before it uses at least 1"
            " of its tiles",
        ),
        ("AEIRSZZ", "draws_not_in_bag", 1, "AEIRSZZ takes tiles the bag no longer holds: Z"),
        ("EIMORS", "draws_short_rack", 1, "EIMORS has 6 tiles: the bag still holds enough for 7"),
        (
            "-EIMORSU EIMORSU",
            "draws_needless_rejet",
            1,
            "EIMORSU meets the draw rule of round 1 (vowels ≥ 2, consonants ≥ 2): it cannot be rejected",
        ),
        (
            "AEIOUUS",
            "draws_requirement",
            1,
            "AEIOSUU does not meet the draw rule of round 1 (vowels ≥ 2, consonants ≥ 2): write it as a rejet,"
            " -AEIOSUU, then the rack drawn instead",
        ),
    ],
)
def test_each_refusal_names_its_line_and_what_is_wrong(text: str, code: str, line: int | None, message: str) -> None:
    refused = refusal(text)
    assert [(p.code, p.line, p.message) for p in refused.problems] == [(code, line, message)]
    assert refused.code == "bad_draws"
    assert refused.params["problems"] == [{"code": code, "line": line, **refused.problems[0].params}]
    assert str(refused) == "the imposed draws are refused: " + (message if line is None else f"line {line}: {message}")


def test_every_line_that_cannot_be_read_is_named_at_once() -> None:
    refused = refusal("EIMORSU\nEIM+OR+SU\n\n# a comment\nAEIMORSU\nÉTÉ\n")
    assert [(p.line, p.code) for p in refused.problems] == [
        (2, "draws_bad_token"),
        (5, "draws_rack_too_big"),
        (6, "draws_not_a_tile"),
    ]


def test_a_line_that_cannot_be_drawn_stops_the_check_there() -> None:
    """The lines after it would be drawn from a bag it got wrong: they are checked once it is fixed."""
    refused = refusal("AEIOUUS\nAEIOUUS\n")
    assert [(p.line, p.code) for p in refused.problems] == [(1, "draws_requirement")]


def test_a_long_text_is_refused_before_it_is_read() -> None:
    assert refusal("EIMORSU\n" * (MAX_TEXT // 8 + 1)).problems[0].code == "draws_too_long"


def test_a_rack_short_of_seven_is_right_when_the_bag_is_short_and_the_game_ends_with_the_bag() -> None:
    """Draw rule 0 + 0, so that racks are just tiles: 14 racks of 7 empty the English bag but for 2 tiles."""
    tiles = full_bag(EN)
    racks = ["".join(tiles[i : i + 7]) for i in range(0, 98, 7)]
    anything = DrawRule(0, 0, 0, 0)
    last_two = "".join(tiles[98:])
    assert len(parse(deal([*racks, last_two]), EN, anything)) == 15
    over = refusal(deal([*racks, last_two, "E"]), rule=anything).problems[0]
    assert (over.code, over.line, over.params["round"]) == ("draws_too_few_tiles", 16, 16)
    # Round 15 keeps five tiles of round 14 and takes the last two; round 16 keeps four, completed from an empty
    # bag: written with a + and nothing after it (§6.3), a rack of 4.
    fifteenth = f"{racks[13][:5]}+{last_two}"
    sixteenth = f"{''.join(sorted(racks[13][:5] + last_two))[:4]}+"
    played = parse(deal([*racks, fifteenth, sixteenth]), EN, anything)
    assert [len(d.rack) for d in played.draws[-3:]] == [7, 7, 4]
    assert played.draws[-1].written == sixteenth


def test_a_game_whose_tiles_left_cannot_meet_the_rule_is_over_before_the_next_line() -> None:
    """Deal every consonant and blank in 12 racks that pass 2 + 2: only vowels are left for round 13."""
    tiles = full_bag(EN)
    vowels = [t for t in tiles if t in "AEIOU"]
    consonants = [t for t in tiles if t not in "AEIOU?"]
    assert (len(vowels), len(consonants)) == (42, 56)  # docs/rules.md §1.4
    racks = ["".join(vowels[2 * i : 2 * i + 2] + consonants[5 * i : 5 * i + 5]) for i in range(11)]
    racks.append("".join(vowels[22:26] + consonants[55:] + ["?", "?"]))
    assert len(parse(deal(racks), EN, RULE)) == 12
    over = refusal(deal([*racks, "".join(vowels[26:33])])).problems[0]
    assert (over.code, over.line, over.params) == ("draws_unreachable", 13, {"round": 13, "vowels": 2, "consonants": 2})


def test_the_late_rule_and_blanks_are_those_of_the_game() -> None:
    """AEIOUUS fails 2 + 2 but meets 1 + 1; AEIOUS? passes 2 + 2 only while a blank counts as either (§6.2)."""
    assert parse("AEIOUUS", EN, DrawRule(late_from_round=1)).draws[0].rack == "AEIOSUU"
    assert parse("?AEIOSU", EN, RULE).draws[0].rack == "?AEIOSU"
    assert refusal("?AEIOSU", rule=DrawRule(blanks_either=False)).problems[0].code == "draws_requirement"


# ------------------------------------------------------------------------------------- a request's field


def test_a_new_games_request_gives_the_list_in_its_draws_field() -> None:
    assert requested({}, EN, RULE) is None
    assert requested({"draws": None}, EN, RULE) is None
    assert requested({"draws": "  \n "}, EN, RULE) is None
    listed = requested({"draws": LIST, "seed": ""}, EN, RULE)
    assert isinstance(listed, ImposedDraws) and listed.text == LIST
    for junk in (7, ["EIMORSU"], {"1": "EIMORSU"}, True):
        with pytest.raises(RuleError) as refused:
            requested({"draws": junk}, EN, RULE)
        assert (refused.value.code, refused.value.params) == ("bad_setting", {"setting": "draws"})
    with pytest.raises(RuleError) as both:
        requested({"draws": LIST, "seed": 10**19}, EN, RULE)
    assert both.value.code == "seed_and_draws"
    with pytest.raises(ImposedDrawsError):
        requested({"draws": "AEIOUUS"}, EN, RULE)


# ------------------------------------------------------------------------------------- during play


def test_the_rack_is_the_lines_whatever_the_top_left(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    """Round 2 keeps ER of EIMORSU; the engine's top (a bingo, every tile) leaves nothing: round 2 plays the
    list's rack all the same, and the game ends after the last line."""
    game = simulate(Setup(en_rules, en_lexicon, "english", RULE, seed=1, imposed=parse(LIST, en_rules, RULE)))
    assert [r.draw.rack for r in game.rounds] == RACKS
    assert game.rounds[0].reliquat != "ER"  # what the top left: not the list's reliquat
    assert game.end is EndReason.LAST_DRAW
    short = simulate(
        Setup(en_rules, en_lexicon, "english", RULE, seed=1, max_rounds=2, imposed=parse(LIST, en_rules, RULE))
    )
    assert len(short.rounds) == 2 and short.end is EndReason.ROUND_LIMIT


def test_the_top_that_leaves_the_lists_reliquat_is_placed_first(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    """docs/rules.md §6.7's EINNNPY on TRAIN: PENNY (leaves IN) comes first, then PINNY (EN), PINEY (NN). With
    a list that keeps EN for the next round, PINNY comes first; the other two keep their order."""
    board = Board.empty(en_rules)
    board.place(parse_move("8D TRAIN", board).tiles)
    rack = "EINNNPY"
    score, tops = top_moves(board, en_rules, en_lexicon, rack)
    ordered = tuple(order_tops(tops, rack))
    assert [format_move(m) for m in ordered] == ["7G PENNY", "7G PINNY", "7G PINEY"]
    analysis = Analysis(score, ordered, ((score, 3),), (*ordered, *ordered[:1]))
    imposed = parse("EINNNPY\nEN+ABCDE\n", en_rules, RULE)
    chosen = imposed.published_top_first(analysis, 1, rack)
    assert [format_move(m) for m in chosen.tops] == ["7G PINNY", "7G PENNY", "7G PINEY"]
    assert chosen.best[:3] == chosen.tops and chosen.best[3:] == analysis.best[3:]
    assert reliquat_after(rack, chosen.tops[0]) == "EN"
    # The last line has no next reliquat, and a list that keeps what no top leaves changes nothing.
    assert imposed.published_top_first(analysis, 2, rack) is analysis
    assert parse("EINNNPY\nEI+ABCDE\n", en_rules, RULE).published_top_first(analysis, 1, rack) is analysis


def test_the_game_places_the_top_that_keeps_to_the_published_game(en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    """ADEEFGW on the empty board has three across tops of 28, in this order: FADGE (leaves EW), WAGED (EF),
    WEDGE (AF). The list keeps AF for round 2: WEDGE is placed, and the board is the published game's."""
    rack = "ADEEFGW"
    _score, tops = top_moves(Board.empty(en_rules), en_rules, en_lexicon, rack)
    across = [m for m in order_tops(tops, rack, across_first=True) if m.horizontal]
    assert [(format_move(m), reliquat_after(rack, m)) for m in across[:3]] == [
        ("8D FADGE", "EW"),
        ("8D WAGED", "EF"),
        ("8D WEDGE", "AF"),
    ]
    setup = Setup(en_rules, en_lexicon, "english", RULE, seed=1, first_play_across=True)
    game = simulate(replace(setup, imposed=parse("ADEEFGW\nAF+BDEIO\n", en_rules, RULE)))
    assert (format_move(game.rounds[0].placed), game.rounds[0].reliquat) == ("8D WEDGE", "AF")
    assert [r.draw.rack for r in game.rounds] == ["ADEEFGW", "AFBDEIO"]
    alone = simulate(replace(setup, imposed=parse("ADEEFGW\n", en_rules, RULE)))  # no next line: the tie-break's own
    assert format_move(alone.rounds[0].placed) == "8D FADGE"
