"""Lexicon figures: a club's list read and reported, and its word graphs built. Prints, never asserts.

    python bench/lexicons.py [--repeat N]

* read and report: ``trainer.engine.wordlist.read_word_list`` on each bundled list written out as a club would
  upload it (lower case, UTF-8 text, and the same gzipped), then the difference with the other edition
  (``compare``): what the upload page does in the request before it shows the report.
* build: the word graphs of each bundled list in a fresh folder, in a process of its own (as an accepted upload is
  built), with the build's resident memory at its end.
"""

from __future__ import annotations

import argparse
import gzip
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from trainer.engine.lexicon import LexiconStore  # noqa: E402
from trainer.engine.rules import ruleset  # noqa: E402
from trainer.engine.wordlist import compare, read_word_list  # noqa: E402

BUILD = """
import resource, sys, time
from pathlib import Path
from trainer.engine.lexicon import LexiconStore
store = LexiconStore(Path(sys.argv[1]))
words = store.words_of(sys.argv[2])
store.add_list("club", words, sys.argv[3], edition="bench")
started = time.perf_counter()
store.build_graphs("club")
print(time.perf_counter() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def best(runs: list[float]) -> str:
    return f"{min(runs):.2f} s (median {statistics.median(runs):.2f} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}, best of {args.repeat}")
    store = LexiconStore(Path(tempfile.mkdtemp()))
    editions = {name: store.words_of(name) for name in ("en", "fr")}
    print("| list | words | read and report (text) | read and report (.gz) | compare with the other |")
    print("|------|-------|------------------------|-----------------------|------------------------|")
    for name, words in editions.items():
        text = ("\n".join(word.lower() for word in words) + "\n").encode("utf-8")
        packed = gzip.compress(text)
        other = editions["fr" if name == "en" else "en"]
        timings: dict[str, list[float]] = {"text": [], "gz": [], "compare": []}
        for _ in range(args.repeat):
            for kind, data in (("text", text), ("gz", packed)):
                started = time.perf_counter()
                read, _report = read_word_list(data, ruleset(name), f"{name}.txt")
                timings[kind].append(time.perf_counter() - started)
                assert read == words
            started = time.perf_counter()
            compare(words, other, "other")
            timings["compare"].append(time.perf_counter() - started)
        print(
            f"| {name} | {len(words):,} | {best(timings['text'])} | {best(timings['gz'])} |"
            f" {best(timings['compare'])} |"
        )
    print()
    print("| list | graphs built in a process of its own | its peak RSS |")
    print("|------|--------------------------------------|--------------|")
    for name in editions:
        with tempfile.TemporaryDirectory() as folder:
            done = subprocess.run(
                [sys.executable, "-c", BUILD, folder, name, name], capture_output=True, text=True, check=True, cwd=ROOT
            )
            seconds, rss = (float(x) for x in done.stdout.split())
        print(f"| {name} | {seconds:.1f} s | {rss:.0f} MB |")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\nthis process's peak RSS (the reads): {peak:.0f} MB")


if __name__ == "__main__":
    main()
