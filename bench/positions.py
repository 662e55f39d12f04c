"""Build the fixed set of benchmark and perft positions: ``python bench/positions.py``.

Every position comes from seeded self-play on an empty board: two players draw from a shuffled
bag and play, each turn, one of the few best-scoring plays (chosen at random), for a random
number of turns. The position's rack is then drawn from the tiles not on the board, so a
position is always consistent with the tile set. Some positions reserve one or two blanks for
the rack (set aside before the game starts) so that blank racks are well represented.

Plays are ordered by (score, tiles) before the choice, so the output does not depend on the order
in which the generator finds them, and every chosen play is checked with
:func:`trainer.engine.play.validate`. The output (``bench/positions.json``) is meant to be
committed; running the script again writes the same file.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from trainer.engine.board import Board, Move  # noqa: E402
from trainer.engine.lexicon import Lexicon, LexiconStore  # noqa: E402
from trainer.engine.movegen import generate_moves  # noqa: E402
from trainer.engine.play import validate  # noqa: E402
from trainer.engine.rules import BLANK, Ruleset, ruleset  # noqa: E402

OUTPUT = Path(__file__).resolve().parent / "positions.json"
SEED = 20240611


@dataclass(frozen=True)
class Spec:
    """How to make one position: rules, lexicon, turns of self-play, blanks reserved for the rack."""

    id: str
    rules: str
    turns: int
    blanks: int | None  # blanks forced into the rack; None: whatever the draw gives
    rack_size: int = 7


def _sort_key(move: Move) -> tuple[int, tuple[tuple[int, int, str, bool], ...]]:
    return (-(move.score or 0), tuple(sorted((t.row, t.col, t.letter, t.blank) for t in move.tiles)))


def _rack_text(tiles: list[str]) -> str:
    """A rack in a canonical order: letters sorted, blanks last."""
    return "".join(sorted(ch for ch in tiles if ch != BLANK)) + BLANK * tiles.count(BLANK)


def self_play(rules: Ruleset, lexicon: Lexicon, turns: int, reserved_blanks: int, rng: random.Random) -> Board:
    """The board after ``turns`` turns of two players picking among their best few plays."""
    bag = rules.tileset.bag()
    for _ in range(reserved_blanks):
        bag.remove(BLANK)
    rng.shuffle(bag)
    board = Board.empty(rules)
    racks: list[list[str]] = [[], []]
    for turn in range(turns):
        rack = racks[turn % 2]
        while len(rack) < rules.rack_size and bag:
            rack.append(bag.pop())
        if not rack:
            break
        moves = sorted(generate_moves(board, rules, lexicon, rack), key=_sort_key)
        if not moves:  # exchange the whole rack when the bag allows it, else pass
            if len(bag) >= rules.rack_size:
                bag.extend(rack)
                rack.clear()
                rng.shuffle(bag)
            continue
        move = moves[rng.randrange(min(len(moves), rng.choice((1, 1, 2, 3, 5))))]
        validate(board, rules, lexicon, move, rack)
        board.place(move.tiles)
        for tile in move.tiles:
            rack.remove(BLANK if tile.blank else tile.letter)
    return board


def draw_rack(rules: Ruleset, board: Board, spec: Spec, rng: random.Random) -> str:
    """A rack from the tiles not on the board, with exactly ``spec.blanks`` blanks when forced."""
    unseen = Counter(rules.tileset.bag())
    unseen.subtract(board.tiles_on_board())
    assert min(unseen.values()) >= 0, "the board holds more tiles than the tile set"
    pool = sorted(unseen.elements())
    rack: list[str] = []
    if spec.blanks is not None:
        assert unseen[BLANK] >= spec.blanks, f"{spec.id}: not enough blanks left"
        pool = [ch for ch in pool if ch != BLANK]
        rack = [BLANK] * spec.blanks
    rng.shuffle(pool)
    while len(rack) < spec.rack_size and pool:
        rack.append(pool.pop())
    return _rack_text(rack)


def specs() -> list[Spec]:
    """The fixed list of positions: ids, rules, turns and forced blanks."""
    rng = random.Random(SEED)
    out: list[Spec] = []
    # English empty boards: an ordinary rack, one blank, two blanks.
    out += [
        Spec("en-empty-1", "en", 0, 0),
        Spec("en-empty-2", "en", 0, None),
        Spec("en-empty-blank", "en", 0, 1),
        Spec("en-empty-2blanks", "en", 0, 2),
    ]
    for i in range(1, 53):
        # Every 5th position keeps one blank for the rack, every 8th two; the rest draw freely.
        blanks = 2 if i % 8 == 4 else 1 if i % 5 == 2 else None
        rack_size = 7 if i % 13 else rng.choice((3, 4, 5))  # a few short (late-game) racks
        out.append(Spec(f"en-{i:02d}", "en", rng.randint(3, 14), blanks, rack_size))
    out.append(Spec("fr-empty", "fr", 0, 1))
    for i in range(1, 10):
        blanks = 2 if i == 7 else 1 if i in (2, 5) else None
        out.append(Spec(f"fr-{i:02d}", "fr", rng.randint(3, 14), blanks))
    return out


def build(store: LexiconStore) -> list[dict[str, object]]:
    """Every position of :func:`specs`, as JSON-ready dicts."""
    positions: list[dict[str, object]] = []
    for spec in specs():
        rules = ruleset(spec.rules)
        lexicon = store.load(rules.lexicon)
        rng = random.Random(f"{SEED}-{spec.id}")  # one stream per position: positions are independent
        board = self_play(rules, lexicon, spec.turns, spec.blanks or 0, rng)
        rack = draw_rack(rules, board, spec, rng)
        positions.append(
            {"id": spec.id, "rules": rules.code, "lexicon": lexicon.name, "board": board.rows(), "rack": rack}
        )
    return positions


def dump(positions: list[dict[str, object]]) -> str:
    """JSON with one position per few lines and one board row per line (readable diffs)."""
    chunks = []
    for p in positions:
        rows = ",\n".join(f'    "{row}"' for row in p["board"])  # type: ignore[attr-defined]
        chunks.append(
            f'  {{"id": "{p["id"]}", "rules": "{p["rules"]}", "lexicon": "{p["lexicon"]}", "rack": "{p["rack"]}",\n'
            f'   "board": [\n{rows}\n   ]}}'
        )
    text = "[\n" + ",\n".join(chunks) + "\n]\n"
    assert json.loads(text) == positions
    return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, help="lexicon cache folder (default: a temporary folder)")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tirage-positions-") as tmp:
        positions = build(LexiconStore(args.data_dir or Path(tmp)))
    args.output.write_text(dump(positions), "utf-8")
    racks = [str(p["rack"]) for p in positions]
    print(
        f"wrote {len(positions)} positions to {args.output}: "
        f"{sum(p['rules'] == 'fr' for p in positions)} French, "
        f"{sum(r.count(BLANK) == 1 for r in racks)} with one blank, "
        f"{sum(r.count(BLANK) == 2 for r in racks)} with two blanks, "
        f"{sum(not any(c != '.' for row in p['board'] for c in row) for p in positions)} empty boards"
    )  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
