"""Write ``tests/data/perft.json``: play counts and top scores computed by the brute force.

Run ``python tests/data/make_perft.py`` from the project root after changing
``bench/positions.json`` or the brute force. The figures come from :mod:`tests.brute_force`
(word list file, every span of every line), never from the fast generator, so that
``tests/test_perft.py`` checks the generator against an independent count.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import wordlists  # noqa: E402
from tests.brute_force import all_plays  # noqa: E402
from trainer.engine.board import Board  # noqa: E402
from trainer.engine.rules import ruleset  # noqa: E402

POSITIONS = ROOT / "bench" / "positions.json"
OUTPUT = Path(__file__).resolve().parent / "perft.json"


def perft(position: dict[str, object]) -> tuple[dict[str, object], float]:
    """The position with its brute-force ``count`` and ``top_score``, and the seconds it took."""
    rules = ruleset(str(position["rules"]))
    board = Board.from_rows(rules.layout, position["board"])  # type: ignore[arg-type]
    started = time.perf_counter()
    plays = all_plays(board, rules, wordlists.bundled_path(str(position["lexicon"])), str(position["rack"]))
    seconds = time.perf_counter() - started
    entry = {key: position[key] for key in ("id", "rules", "lexicon", "board", "rack")}
    entry["count"] = len(plays)
    entry["top_score"] = max(plays.values(), default=0)
    return entry, seconds


def dump(entries: list[dict[str, object]]) -> str:
    """JSON with one board row per line, like ``bench/positions.json``."""
    chunks = []
    for e in entries:
        rows = ",\n".join(f'    "{row}"' for row in e["board"])  # type: ignore[attr-defined]
        chunks.append(
            f'  {{"id": "{e["id"]}", "rules": "{e["rules"]}", "lexicon": "{e["lexicon"]}", "rack": "{e["rack"]}",\n'
            f'   "count": {e["count"]}, "top_score": {e["top_score"]},\n'
            f'   "board": [\n{rows}\n   ]}}'
        )
    text = "[\n" + ",\n".join(chunks) + "\n]\n"
    assert json.loads(text) == entries
    return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=Path, default=POSITIONS)
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--ids", nargs="*", help="only these position ids (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args(argv)
    positions = json.loads(args.positions.read_text("utf-8"))
    if args.ids:
        wanted = set(args.ids)
        positions = [p for p in positions if p["id"] in wanted]
    started = time.perf_counter()
    entries = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for entry, seconds in pool.map(perft, positions):
            entries.append(entry)
            print(
                f"{entry['id']:18} {entry['rack']:8} {entry['count']:7} plays  top {entry['top_score']:4}"
                f"  {seconds:6.1f} s",
                flush=True,
            )
    args.output.write_text(dump(entries), "utf-8")
    print(
        f"wrote {len(entries)} positions to {args.output} in {time.perf_counter() - started:.0f} s "
        f"({args.jobs} processes)"
    )


if __name__ == "__main__":
    main()
