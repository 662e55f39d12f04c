"""Replay real game records (GCG) and check the scorer against the score of every play.

The records in ``tests/data/gcg/`` come from liwords, macondo and quackle. Each play line
carries the score the program or the players recorded, so replaying a record checks
:func:`trainer.engine.play.score_move` on positions nobody made up, without needing the
record's lexicon. Records we cannot replay on the English board and tile set are listed in
``EXCLUDED`` with the reason; nothing is skipped silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from trainer.engine.board import Board
from trainer.engine.gcg import (
    ChallengeBonus,
    EndRackPenalty,
    EndRackPoints,
    Exchange,
    GCGError,
    GCGGame,
    Pass,
    PhonyWithdrawn,
    Placement,
    TimePenalty,
    decode_gcg,
    parse_gcg,
    read_gcg,
)
from trainer.engine.notation import parse_move
from trainer.engine.play import check_placement, score_move
from trainer.engine.rules import Ruleset, ruleset

GCG_DIR = Path(__file__).parent / "data" / "gcg"
RECORDS = sorted(GCG_DIR.glob("*/*.gcg"))

# Records that are not English-board/English-tile-set games, or that cannot be read at all.
EXCLUDED: dict[str, str] = {
    "macondo/polish_endgame.gcg": (
        "Polish tile set (Ą Ć Ę Ł Ń Ó Ś Ź Ż, Polish letter values): there is no Polish ruleset"
    ),
}
# Records that must fail to read, with the line the error must name.
UNREADABLE: dict[str, tuple[int, str]] = {
    "macondo/name_weird_encoding_with_header.gcg": (
        2,
        "declares #character-encoding ISO8859-6 but is UTF-8 text (macondo's bad-encoding fixture)",
    ),
}
# Records whose racks do not hold the tiles played: the rack is not checked, the placement is.
RACKS_UNRELATED: dict[str, str] = {
    "quackle/multiplayer-crash.gcg": "quackle crash fixture: four players, racks unrelated to the plays",
}
# Records whose running totals cannot be followed per nickname.
TOTALS_UNCHECKED: dict[str, str] = {
    "quackle/consonant_heaviness_tendency.gcg": "both players have the nickname 'NoName'",
}

# Placements replayed over all records when this test was written (withdrawn phonies included).
OBSERVED_PLACEMENTS = 1684
OBSERVED_RECORDS = 79  # 43 liwords + 20 macondo + 16 quackle

# Lexicons whose games are played with the English tile set on the standard board.
ENGLISH_LEXICON = re.compile(r"^(NWL|TWL|CSW|OWL|OSPD|SOWPODS|ECWL|CD|America|NSWL)", re.IGNORECASE)
ENGLISH_TILES = re.compile(r"^[A-Za-z?.]*$")


def record_id(path: Path) -> str:
    return path.relative_to(GCG_DIR).as_posix()


@dataclass
class Replay:
    """What replaying one record checked."""

    placements: int = 0
    withdrawn: int = 0


def replay(path: Path, rules: Ruleset) -> Replay:
    """Replay every placement of the record at ``path``, asserting each recorded score."""
    name = record_id(path)
    game = read_gcg(path)
    assert game.lexicon is None or ENGLISH_LEXICON.match(game.lexicon), f"{name}: lexicon {game.lexicon}"
    check_racks = name not in RACKS_UNRELATED
    board = Board.empty(rules)
    # (board before the play, the play) for each placement still on the board.
    stack: list[tuple[Board, Placement]] = []
    result = Replay()
    for event in game.events:
        where = f"{name}, line {event.line}"
        if isinstance(event, Placement):
            assert ENGLISH_TILES.match(event.word) and ENGLISH_TILES.match(event.rack), f"{where}: not English tiles"
            move = parse_move(event.play, board, notation="english")
            check_placement(board, rules, move, list(event.rack) if check_racks else None, notation="english")
            score, words = score_move(board, rules, move)
            assert score == event.score, (
                f"{where}: {event.play} scores {score}, the record says {event.score} "
                f"(words: {', '.join(f'{w.text} {w.score}' for w in words)})"
            )
            stack.append((board.copy(), event))
            board.place(move.tiles)
            result.placements += 1
        elif isinstance(event, PhonyWithdrawn):
            assert stack, f"{where}: a play is withdrawn before any play"
            before, withdrawn = stack.pop()
            assert withdrawn.nick == event.nick, f"{where}: withdraws {withdrawn.nick}'s play"
            assert game.events.index(withdrawn) < game.events.index(event)
            assert event.score == -withdrawn.score, f"{where}: loses {event.score}, the play scored {withdrawn.score}"
            board = before
            result.withdrawn += 1
    if name not in TOTALS_UNCHECKED:
        check_totals(game, name)
    return result


def check_totals(game: GCGGame, name: str) -> None:
    """Each event's total is the player's previous total plus what the event scores."""
    totals: dict[str, int] = {}
    for event in game.events:
        if isinstance(event, Placement | PhonyWithdrawn):
            delta = event.score
        elif isinstance(event, ChallengeBonus):
            delta = event.bonus
        elif isinstance(event, TimePenalty):
            delta = event.penalty
        elif isinstance(event, EndRackPoints | EndRackPenalty):
            delta = event.points
        else:
            delta = 0
        expected = totals.get(event.nick, 0) + delta
        assert event.total == expected, f"{name}, line {event.line}: total {event.total}, expected {expected}"
        totals[event.nick] = event.total


@pytest.fixture(scope="module")
def rules() -> Ruleset:
    return ruleset("en")


REPLAYABLE = [p for p in RECORDS if record_id(p) not in EXCLUDED]


@pytest.mark.parametrize("path", REPLAYABLE, ids=record_id)
def test_replay_record(path: Path, rules: Ruleset) -> None:
    name = record_id(path)
    if name in UNREADABLE:
        line, reason = UNREADABLE[name]
        with pytest.raises(GCGError) as info:
            read_gcg(path)
        assert info.value.line == line, reason
        return
    result = replay(path, rules)
    assert result.placements > 0, f"{name}: no placement replayed"


def test_replay_count(rules: Ruleset) -> None:
    """The replays check at least as many plays as when the test was written (none skipped silently)."""
    assert len(RECORDS) >= OBSERVED_RECORDS
    names = {record_id(p) for p in RECORDS}
    for listed in (*EXCLUDED, *UNREADABLE, *RACKS_UNRELATED, *TOTALS_UNCHECKED):
        assert listed in names, f"{listed} is listed but missing"
    replayed = [p for p in RECORDS if record_id(p) not in EXCLUDED and record_id(p) not in UNREADABLE]
    assert len(replayed) == len(RECORDS) - len(EXCLUDED) - len(UNREADABLE)
    total = sum(replay(p, rules).placements for p in replayed)
    assert total >= OBSERVED_PLACEMENTS


def test_excluded_records_are_not_english() -> None:
    """An exclusion must name a record that really is another tile set."""
    for name in EXCLUDED:
        game = read_gcg(GCG_DIR / name)
        assert any(not ENGLISH_TILES.match(p.word) for p in game.placements), name


# --- the parser on small records -------------------------------------------------------------

HEADER = "#character-encoding UTF-8\n#player1 ann Ann Smith\n#player2 bob Bob\n#lexicon NWL20\n"


def parse_events(body: str) -> GCGGame:
    return parse_gcg(HEADER + body, "snippet.gcg")


def test_pragmas() -> None:
    game = parse_gcg(
        HEADER + "#title Club night\n#description A game\n#id io.example abc123\n#incomplete\n"
        "#rack1 AEINRST\n#tile-distribution english\n#note before the game\n",
        "snippet.gcg",
    )
    assert [(p.number, p.nick, p.name) for p in game.players] == [(1, "ann", "Ann Smith"), (2, "bob", "Bob")]
    assert game.lexicon == "NWL20"
    assert game.encoding == "UTF-8"
    assert (game.title, game.description, game.id) == ("Club night", "A game", "io.example abc123")
    assert game.incomplete
    assert game.last_racks == {1: "AEINRST"}
    assert game.other_pragmas == [("tile-distribution", "english")]
    assert game.notes == ["before the game"]
    assert game.events == []


def test_placement() -> None:
    (event,) = parse_events(">ann: ?AEINST 8D sATINE +72 72\n").events
    assert isinstance(event, Placement)
    assert (event.line, event.nick, event.rack, event.coordinate, event.word) == (5, "ann", "?AEINST", "8D", "sATINE")
    assert (event.score, event.total, event.play, event.tiles_played) == (72, 72, "8D sATINE", 6)


def test_placement_quackle_style() -> None:
    text = ">ann: EGNOPRS  m3  SPONGER  +92  187  ADOS, LISP\n"
    (event,) = parse_events(text).events
    assert isinstance(event, Placement)
    assert (event.coordinate, event.word, event.score, event.total) == ("m3", "SPONGER", 92, 187)
    assert event.cross_words == ("ADOS", "LISP")


def test_exchange_pass_and_count() -> None:
    events = parse_events(">ann: AEIOUUV -UUV +0 0\n>bob: ABC - +0 0\n>ann: AEIOUXY -7 +0 0\n").events
    assert isinstance(events[0], Exchange) and (events[0].tiles, events[0].count) == ("UUV", 3)
    assert isinstance(events[1], Pass) and events[1].rack == "ABC"
    assert isinstance(events[2], Exchange) and (events[2].tiles, events[2].count) == ("", 7)


def test_withdrawn_challenge_time_and_end_of_game() -> None:
    events = parse_events(
        ">ann: AEGTTV? 8B GAVETTe +76 76\n"
        ">ann: AEGTTV? --  -76 0\n"
        ">bob: DEILNOS (challenge) +5 5\n"
        ">bob:  (challenge) +5 10\n"
        ">ann: (time) -10 -10\n"
        ">bob: (AEQ) +24 34\n"
        ">ann: AEQ (AEQ) -12 -22\n"
    ).events
    kinds = [type(e) for e in events]
    assert kinds == [
        Placement,
        PhonyWithdrawn,
        ChallengeBonus,
        ChallengeBonus,
        TimePenalty,
        EndRackPoints,
        EndRackPenalty,
    ]
    withdrawn, bonus, bare_bonus, time, points, penalty = events[1:]
    assert isinstance(withdrawn, PhonyWithdrawn) and (withdrawn.score, withdrawn.total) == (-76, 0)
    assert isinstance(bonus, ChallengeBonus) and (bonus.rack, bonus.bonus) == ("DEILNOS", 5)
    assert isinstance(bare_bonus, ChallengeBonus) and (bare_bonus.rack, bare_bonus.total) == ("", 10)
    assert isinstance(time, TimePenalty) and (time.penalty, time.total) == (-10, -10)
    assert isinstance(points, EndRackPoints) and (points.tiles, points.points, points.rack) == ("AEQ", 24, "")
    assert isinstance(penalty, EndRackPenalty) and (penalty.tiles, penalty.points, penalty.total) == ("AEQ", -12, -22)


def test_notes_attach_to_the_previous_event() -> None:
    game = parse_events(">ann: AEINRST 8D NASTIER +66 66\n#note a bingo\nstill the note\n\n#note more\n")
    assert game.events[0].note == "a bingo\nstill the note\nmore"


def test_malformed_event_names_its_line() -> None:
    with pytest.raises(GCGError) as info:
        parse_events(">ann: AEINRST 8D NASTIER +66 66\n>bob: AEINRST 8D\n")
    assert info.value.line == 6
    assert "snippet.gcg, line 6" in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("body", "line", "problem"),
    [
        (">carl: AEINRST 8D NASTIER +66 66\n", 5, "not one of the players"),
        (">ann: AEINRST -- +5 5\n", 5, "loses points"),
        (">ann: AEINRST -AB +3 3\n", 5, "exchange"),
        (">ann: AEINRST - +3 3\n", 5, "pass"),
        (">ann: AE1NRST 8D NASTIER +66 66\n", 5, "not tiles"),
        ("just some text\n", 5, "unexpected text"),
        ("#character-encoding UTF-8\n", 5, "first line"),
        ("#\n", 5, "pragma"),
        (">ann AEINRST 8D NASTIER +66 66\n", 5, "event line"),
    ],
)
def test_malformed_lines(body: str, line: int, problem: str) -> None:
    with pytest.raises(GCGError, match=problem) as info:
        parse_events(body)
    assert info.value.line == line


def test_decoding() -> None:
    latin = "#player1 césar César\n#player2 bob Bob\n".encode("iso-8859-1")
    assert decode_gcg(latin).startswith("#player1 césar")  # GCG's default encoding
    utf8 = "#player1 césar César\n".encode()
    assert decode_gcg(utf8) == "#player1 césar César\n"  # UTF-8 without the pragma
    assert decode_gcg(b"#character-encoding ISO-8859-1\n#player1 c\xe9sar C\n").endswith("césar C\n")
    with pytest.raises(GCGError, match="unknown character encoding") as info:
        decode_gcg(b"#character-encoding EBCDIC-42\n")
    assert info.value.line == 1
    with pytest.raises(GCGError) as info:
        decode_gcg(b"#character-encoding UTF-8\n#player1 ann Ann\n#player2 b \xe9\n")
    assert info.value.line == 3


def test_crlf_and_real_record(rules: Ruleset) -> None:
    game = parse_gcg("#player1 a A\r\n#player2 b B\r\n>a: DINNVWY 8D WINDY +32 32\r\n", "crlf.gcg")
    (event,) = game.placements
    board = Board.empty(rules)
    move = parse_move(event.play, board, notation="english")
    assert score_move(board, rules, move)[0] == event.score == 32
