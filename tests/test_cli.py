"""The real ``tirage`` commands, run as a user runs them: JSON on stdin, one JSON line on stdout.

The commands read their lexicons from ``$TIRAGE_INSTANCE``. To avoid building the word graphs a
second time, the instance folder starts with a copy of the cache the session's lexicon store has
built; ``tirage lexicon import`` then builds its own graph there.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from trainer.engine.board import Board
from trainer.engine.lexicon import Lexicon, LexiconStore
from trainer.engine.movegen import generate_moves, top_moves
from trainer.engine.notation import format_move, parse_move
from trainer.engine.rules import Ruleset

TIRAGE = shutil.which("tirage", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
EMPTY = ["." * 15] * 15
TRAIN = [*EMPTY[:7], "...TRAIN.......", *EMPTY[8:]]  # after 8D TRAIN


@pytest.fixture(scope="module")
def instance(
    tmp_path_factory: pytest.TempPathFactory, lexicon_store: LexiconStore, en_lexicon: Lexicon, fr_lexicon: Lexicon
) -> Path:
    folder = tmp_path_factory.mktemp("instance")
    shutil.copytree(lexicon_store.cache_dir, folder / "cache")
    return folder


def run(instance: Path, *args: str, stdin: str | bytes = b"") -> subprocess.CompletedProcess[str]:
    assert TIRAGE is not None, "the tirage command is not installed"
    data = stdin.encode() if isinstance(stdin, str) else stdin
    env = {**os.environ, "TIRAGE_INSTANCE": str(instance)}
    proc = subprocess.run([TIRAGE, *args], input=data, capture_output=True, env=env, timeout=120, check=False)
    out, err = proc.stdout.decode(), proc.stderr.decode()
    assert "Traceback" not in out + err, out + err
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def call(instance: Path, command: str, request: object) -> tuple[int, dict[str, Any]]:
    """Run ``tirage COMMAND`` with ``request`` as JSON; the exit code and the one line it prints."""
    stdin = request if isinstance(request, (str, bytes)) else json.dumps(request)
    proc = run(instance, command, stdin=stdin)
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, proc.stdout
    return proc.returncode, json.loads(lines[0])


def expected_top(board: Board, rules: Ruleset, lexicon: Lexicon, rack: str, notation: str) -> list[dict[str, Any]]:
    score, moves = top_moves(board, rules, lexicon, rack)
    return sorted(
        (
            {"move": format_move(m, notation), "score": score, "tiles": [[t.row, t.col, t.char] for t in m.tiles]}
            for m in moves
        ),
        key=lambda m: m["move"],
    )


# --- tirage analyze ---------------------------------------------------------------------------


def test_analyze_empty_board(instance: Path, empty_board: Board, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    code, answer = call(instance, "analyze", {"board": EMPTY, "rack": "AEINRT?"})
    assert code == 0
    assert set(answer) == {"top_score", "top", "count", "ms"}
    # Best possible: a bingo of six 1-point letters and the blank with a letter on D8 or L8 (double
    # letter) and one on H8 (double word): (6 + 1) x 2 + 50 = 64.
    assert answer["top_score"] == 64
    assert answer["count"] is None
    assert isinstance(answer["ms"], (int, float)) and answer["ms"] >= 0
    assert answer["top"] == expected_top(empty_board, en_rules, en_lexicon, "AEINRT?", "english")
    assert len(answer["top"]) > 1
    for play in answer["top"]:
        assert set(play) == {"move", "score", "tiles"}
        assert play["score"] == 64
        assert len(play["tiles"]) == 7
        assert sum(ch.islower() for _, _, ch in play["tiles"]) == 1  # the blank, in lower case
        parsed = parse_move(play["move"], empty_board, "english")
        assert [[t.row, t.col, t.char] for t in parsed.tiles] == play["tiles"]
    assert [p["move"] for p in answer["top"]] == sorted(p["move"] for p in answer["top"])


def test_analyze_all_counts_every_play(
    instance: Path, empty_board: Board, en_rules: Ruleset, en_lexicon: Lexicon
) -> None:
    code, answer = call(instance, "analyze", {"board": EMPTY, "rack": "AEINRT?", "all": True})
    assert code == 0
    assert isinstance(answer["count"], int)
    assert answer["count"] == len(generate_moves(empty_board, en_rules, en_lexicon, "AEINRT?"))
    assert answer["count"] > 1000
    assert answer["top_score"] == 64
    assert answer["top"] == expected_top(empty_board, en_rules, en_lexicon, "AEINRT?", "english")


def test_analyze_after_a_play(instance: Path, en_rules: Ruleset, en_lexicon: Lexicon) -> None:
    board = Board.from_rows(en_rules.layout, TRAIN)
    code, answer = call(instance, "analyze", {"board": TRAIN, "rack": "XIS", "all": True})
    assert code == 0
    moves = {format_move(m): m.score for m in generate_moves(board, en_rules, en_lexicon, "XIS")}
    assert answer["count"] == len(moves)
    assert moves["7G XI"] == 36  # XI 17 across, XI 17 down, IN 2 (worked out in test_play.py)
    assert answer["top_score"] == max(moves.values()) >= 36
    assert answer["top"] == expected_top(board, en_rules, en_lexicon, "XIS", "english")


def test_analyze_french(instance: Path, fr_rules: Ruleset, fr_lexicon: Lexicon) -> None:
    board = Board.empty(fr_rules)
    code, answer = call(instance, "analyze", {"rules": "fr", "board": EMPTY, "rack": "AEINRST"})
    assert code == 0
    assert answer["top"] == expected_top(board, fr_rules, fr_lexicon, "AEINRST", "french")
    assert answer["top_score"] > 50  # a bingo
    for play in answer["top"]:
        # French coordinates: across plays on row H read "H<column>", down plays in column 8 "8<row>".
        coordinate = play["move"].split()[0]
        assert coordinate.startswith("H") or coordinate.startswith("8"), coordinate
        parsed = parse_move(play["move"], board, "french")
        assert [[t.row, t.col, t.char] for t in parsed.tiles] == play["tiles"]
        assert all(t.row == 7 for t in parsed.tiles) or all(t.col == 7 for t in parsed.tiles)


def test_analyze_french_rules_in_english_notation(instance: Path, fr_rules: Ruleset, fr_lexicon: Lexicon) -> None:
    code, answer = call(instance, "analyze", {"rules": "fr", "notation": "english", "board": EMPTY, "rack": "AEINRST"})
    assert code == 0
    assert answer["top"] == expected_top(Board.empty(fr_rules), fr_rules, fr_lexicon, "AEINRST", "english")


@pytest.mark.parametrize("rack", ["", "Q", "VV"])
@pytest.mark.parametrize("all_plays", [False, True])
def test_analyze_no_legal_play(rack: str, all_plays: bool, instance: Path) -> None:
    code, answer = call(instance, "analyze", {"board": EMPTY, "rack": rack, "all": all_plays})
    assert code == 0
    assert (answer["top_score"], answer["top"]) == (0, [])
    assert answer["count"] == (0 if all_plays else None)


# --- tirage score -----------------------------------------------------------------------------


def test_score_a_valid_play(instance: Path) -> None:
    code, answer = call(instance, "score", {"board": TRAIN, "move": "7G XI", "rack": "XIEST"})
    assert code == 0
    assert answer == {"move": "7G XI", "score": 36, "words": [["XI", 17], ["XI", 17], ["IN", 2]], "valid": True}


def test_score_a_first_play(instance: Path) -> None:
    # T on D8 (double letter) 2 + R A I N 4 = 6, x2 for N on H8 = 12.
    code, answer = call(instance, "score", {"board": EMPTY, "move": "8D TRAIN"})
    assert (code, answer["score"], answer["words"], answer["valid"]) == (0, 12, [["TRAIN", 12]], True)


def test_score_in_french(instance: Path) -> None:
    code, answer = call(instance, "score", {"rules": "fr", "board": EMPTY, "move": "H4 TRAIN"})
    assert (code, answer["move"], answer["score"], answer["valid"]) == (0, "H4 TRAIN", 12, True)


def test_score_a_phony(instance: Path) -> None:
    code, answer = call(instance, "score", {"board": TRAIN, "move": "9D ZZ"})
    assert code == 0
    assert answer["valid"] is False
    assert answer["invalid_words"] == ["ZZ", "TZ", "RZ"]
    # ZZ: Z 10 + Z 10 = 20; TZ: 1 + 10 = 11; RZ: 1 + 10 = 11 (D9, E9 are plain).
    assert answer["words"] == [["ZZ", 20], ["TZ", 11], ["RZ", 11]]
    assert answer["score"] == 42


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        ({"board": EMPTY, "move": "8A TRAIN"}, "the first play must cover the centre square H8"),
        ({"board": EMPTY, "move": "8E TREE", "rack": "TRE"}, "rack has no second E"),
        ({"board": EMPTY, "move": "8D TRAI(N)"}, "no tile at H8 to play through"),
        ({"board": TRAIN, "move": "1A AT"}, "the play does not touch any tile on the board"),
        ({"board": TRAIN, "move": "8E RAINS"}, "the word continues through the tile at D8: write the whole word"),
        ({"board": EMPTY, "move": "P8 TRAIN"}, "column P is off the board"),
        ({"board": EMPTY, "move": "8L TRAIN"}, "TRAIN runs off the board (5 letters from L8)"),
        ({"board": EMPTY, "move": "TRAIN 8D"}, "'TRAIN' is not a coordinate"),
        ({"board": EMPTY}, "'move' is missing"),
        ({"rules": "fr", "board": EMPTY, "move": "G4 TR."}, "no tile at G6 to play through"),
    ],
    ids=[
        "centre",
        "rack",
        "through",
        "connect",
        "whole-word",
        "off-column",
        "off-edge",
        "coordinate",
        "no-move",
        "french-square",
    ],
)
def test_score_an_illegal_play(request_: dict[str, Any], message: str, instance: Path) -> None:
    code, answer = call(instance, "score", request_)
    assert code != 0
    assert list(answer) == ["error"]
    assert answer["error"].startswith(message)


# --- bad input: one line of JSON, a non-zero exit, never a traceback --------------------------


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("not json", "the input is not valid JSON"),
        ("", "the input is not valid JSON"),
        ('{"board": ', "the input is not valid JSON"),
        ("[" * 100_000, "the input is not valid JSON: nested too deeply"),
        ('{"rack": ' + "1" * 5000 + "}", "the input is not valid JSON"),
        (b"\xff\xfe\x00", "the input is not"),
        ("[1, 2]", "the input must be one JSON object"),
        (json.dumps({"board": EMPTY[:14], "rack": "A"}), "the board has 14 rows, expected 15"),
        (
            json.dumps({"board": [*EMPTY[:2], "..1" + "." * 12, *EMPTY[3:]], "rack": "A"}),
            "board row 3, square 3: '1' is not '.', A-Z or a-z",
        ),
        (json.dumps({"board": [*EMPTY[:2], "." * 16, *EMPTY[3:]], "rack": "A"}), "board row 3 has 16 squares"),
        (json.dumps({"board": "." * 225, "rack": "A"}), "the board must be a list of 15 strings"),
        (json.dumps({"rack": "A"}), "'board' is missing"),
        (json.dumps({"rules": "de", "board": EMPTY, "rack": "A"}), "unknown rules 'de' (known: en, fr)"),
        (json.dumps({"rules": 7, "board": EMPTY, "rack": "A"}), "'rules' must be a string"),
        (json.dumps({"lexicon": "nope", "board": EMPTY, "rack": "A"}), "unknown lexicon 'nope'"),
        (json.dumps({"lexicon": "fr", "board": EMPTY, "rack": "A"}), "lexicon 'fr' is for rules 'fr', not 'en'"),
        (json.dumps({"board": EMPTY, "rack": "AE1"}), "rack has '1', which is not a tile"),
        (json.dumps({"board": EMPTY, "rack": "AEÉ"}), "rack has 'É', which is not a tile"),
        (json.dumps({"board": EMPTY, "rack": "AEINRTSS"}), "rack has 8 tiles, at most 7"),
        (json.dumps({"board": EMPTY, "rack": ["A"]}), "the rack must be text"),
        (json.dumps({"board": EMPTY}), "'rack' is missing"),
        (json.dumps({"board": EMPTY, "rack": "A", "all": "yes"}), "'all' must be true or false"),
        (json.dumps({"board": EMPTY, "rack": "A", "notation": "german"}), "'notation' must be"),
    ],
    ids=[
        "text",
        "empty",
        "truncated",
        "deep",
        "long-number",
        "not-utf8",
        "array",
        "rows",
        "bad-char",
        "long-row",
        "board-text",
        "no-board",
        "rules",
        "rules-type",
        "lexicon",
        "lexicon-rules",
        "rack-char",
        "rack-accent",
        "rack-long",
        "rack-type",
        "no-rack",
        "all-type",
        "notation",
    ],
)
def test_analyze_bad_input(stdin: str | bytes, message: str, instance: Path) -> None:
    code, answer = call(instance, "analyze", stdin)
    assert code != 0
    assert list(answer) == ["error"]
    assert message in answer["error"]


def test_score_bad_input(instance: Path) -> None:
    code, answer = call(instance, "score", {"board": EMPTY[:14], "move": "8D TRAIN"})
    assert (code != 0, answer) == (True, {"error": "the board has 14 rows, expected 15"})


# --- tirage lexicon -----------------------------------------------------------------------------


def test_import_a_lexicon_and_analyze_with_it(instance: Path, tmp_path: Path) -> None:
    word_list = tmp_path / "club.txt"
    word_list.write_text("train\nrains\nTRAINS\nété\nbad word!\n", "utf-8")
    proc = run(instance, "lexicon", "import", "club", str(word_list), "--rules", "en", "--edition", "2026")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "lexicon club: 4 words (en), 1 lines skipped"
    assert proc.stderr.strip() == "skipped line 5: 'bad word!' holds more than one word"
    assert list((instance / "cache").glob("club-*.dawg"))  # the graph was built in the instance folder

    listing = run(instance, "lexicon", "list").stdout.splitlines()
    assert "en\ten\tENABLE 1\tbundled\t" in listing[0]
    assert "club\ten\t2026\tready\timported from club.txt" in listing
    assert LexiconStore(instance).load("club").words() == ["ETE", "RAINS", "TRAIN", "TRAINS"]

    # Only TRAIN, RAINS, TRAINS and ETE exist. Best with AINRST: TRAINS (6 x 1) over H8 and a double
    # letter (D8 or L8, or H4 or H12 down): (6 + 1) x 2 = 14, from C8, D8, G8, H8 and H3, H4, H7, H8.
    code, answer = call(instance, "analyze", {"board": EMPTY, "rack": "AINRST", "lexicon": "club"})
    assert code == 0
    assert answer["top_score"] == 14
    assert [p["move"] for p in answer["top"]] == [
        "8C TRAINS",
        "8D TRAINS",
        "8G TRAINS",
        "8H TRAINS",
        "H3 TRAINS",
        "H4 TRAINS",
        "H7 TRAINS",
        "H8 TRAINS",
    ]
    # The accented word was kept without its accents: E T E across F8-H8 = 3, x2 = 6.
    code, answer = call(instance, "analyze", {"board": EMPTY, "rack": "EET", "lexicon": "club"})
    assert (code, answer["top_score"]) == (0, 6)
    assert "8F ETE" in [p["move"] for p in answer["top"]]
    code, answer = call(instance, "score", {"board": EMPTY, "move": "8D TRAINERS", "lexicon": "club"})
    assert (code, answer["valid"], answer["invalid_words"]) == (0, False, ["TRAINERS"])


def test_import_errors(instance: Path, tmp_path: Path) -> None:
    word_list = tmp_path / "words.txt"
    word_list.write_text("train\n", "utf-8")
    proc = run(instance, "lexicon", "import", "Bad Name", str(word_list), "--rules", "en")
    assert proc.returncode != 0
    assert "lexicon name 'Bad Name'" in proc.stderr
    proc = run(instance, "lexicon", "import", "club2", str(word_list), "--rules", "de")
    assert proc.returncode != 0
    assert "'de' is not one of 'en', 'fr'" in proc.stderr
    empty = tmp_path / "empty.txt"
    empty.write_text("", "utf-8")
    proc = run(instance, "lexicon", "import", "club2", str(empty), "--rules", "en")
    assert proc.returncode != 0
    assert "the file is empty" in proc.stderr
    assert "club2" not in run(instance, "lexicon", "list").stdout


def test_a_lexicon_name_ending_in_a_newline_is_refused(instance: Path, tmp_path: Path) -> None:
    """A name's check reads the whole name: ``$`` in a pattern also matches before a final newline."""
    word_list = tmp_path / "words.txt"
    word_list.write_text("train\n", "utf-8")
    proc = run(instance, "lexicon", "import", "newline-club\n", str(word_list), "--rules", "en")
    assert proc.returncode != 0
    assert "lexicon name 'newline-club\\n'" in proc.stderr
    # (a name of its own: the module's instance may list another test's "club" lexicon, from a club.txt)
    assert "newline-club" not in run(instance, "lexicon", "list").stdout


def test_lexicon_build_reports_each_lexicon_and_refuses_unknown_ones(instance: Path) -> None:
    proc = run(instance, "lexicon", "build")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["en", "fr"]
    assert all("GADDAG nodes, ready in" in line for line in lines)
    missing = run(instance, "lexicon", "build", "nope")
    assert missing.returncode != 0
    assert "unknown lexicon 'nope' (known: " in missing.stderr


# --- tirage director ----------------------------------------------------------------------------


def _director_cli(instance: Path, *args: str, typed: str = "") -> Any:
    """``tirage ARGS`` in this process on ``instance`` (SQLite), with ``typed`` as what the user types."""
    from click.testing import CliRunner

    from trainer.cli import main

    env = {"TIRAGE_INSTANCE": str(instance), "DATABASE_URL": None, "TIRAGE_SECRET_KEY": None}
    return CliRunner().invoke(main, list(args), input=typed, env=env)


@pytest.mark.parametrize("command", [("director", "create", "alice"), ("director", "password", "alice")])
def test_a_short_password_is_refused_before_it_is_asked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...]
) -> None:
    """Issue 15: the length was checked only after the password had been typed twice."""
    if command[1] == "password":
        assert _director_cli(tmp_path, "director", "create", "alice", "--password", "first password").exit_code == 0
    result = _director_cli(tmp_path, *command, typed="short\nlong enough 1\nlong enough 1\n")
    assert result.exit_code == 0, result.output
    said = result.output
    refused = said.index("Error: the password must have at least 8 characters")
    assert said.count("Repeat for confirmation") == 1 and refused < said.index("Repeat for confirmation"), said
    assert said.count("Password") == 2  # asked again at once, then confirmed once
    from trainer.app import create_app
    from trainer.core.accounts import authenticate_director

    monkeypatch.setenv("TIRAGE_INSTANCE", str(tmp_path))
    monkeypatch.delenv("DATABASE_URL", raising=False)
    with create_app().app_context():
        assert authenticate_director("alice", "long enough 1") is not None


def test_a_short_password_on_the_command_line_is_refused(tmp_path: Path) -> None:
    result = _director_cli(tmp_path, "director", "create", "alice", "--password", "short")
    assert result.exit_code == 2
    assert "Invalid value for '--password': the password must have at least 8 characters" in result.output
