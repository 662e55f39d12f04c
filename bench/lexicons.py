"""Lexicon figures: a club's list read and reported, and its word graphs built; uploads to a real server. Prints,
never asserts.

    python bench/lexicons.py [--repeat N] [--uploads N] [--upload-words N] [--only-uploads]

* read and report: ``trainer.engine.wordlist.read_word_list`` on each bundled list written out as a club would
  upload it (lower case, UTF-8 text, and the same gzipped), then the difference with the other edition
  (``compare``): what the upload page does in the request before it shows the report.
* build: the word graphs of each bundled list in a fresh folder, in a process of its own (as an accepted upload is
  built), with the build's resident memory at its end.
* uploads: ``tirage serve`` on a temporary instance (loopback, SQLite; the word graphs copied from
  ``instance/cache`` as bench/attack.py does), and ``--uploads`` directors each uploading, at once, a plain-text list
  of ``--upload-words`` words compared with ``en``: each upload request's answer time, the time until its report is
  read, the serving process's peak memory (VmHWM), the reader processes' peak, and the answer times of the home page
  asked every 50 ms meanwhile (the serving process's other requests).
"""

from __future__ import annotations

import argparse
import gzip
import http.cookiejar
import itertools
import platform
import re
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from loadkit.instance import prepare_instance
from loadkit.server import ServerProcess

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


class Browser:
    """A director's browser: cookies, the form's CSRF token, redirects not followed."""

    def __init__(self, base: str) -> None:
        self.base = base
        jar = http.cookiejar.CookieJar()

        class Stay(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: object, **kwargs: object) -> None:
                return None

        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), Stay)

    def call(self, path: str, body: bytes | None = None, content_type: str = "") -> tuple[int, str, str]:
        """(status, body, Location)."""
        request = urllib.request.Request(self.base + path, data=body)
        if content_type:
            request.add_header("Content-Type", content_type)
        try:
            with self.opener.open(request, timeout=600) as answer:
                return answer.status, answer.read().decode(), answer.headers.get("Location", "")
        except urllib.error.HTTPError as answer:
            return answer.code, answer.read().decode(), answer.headers.get("Location", "")

    def csrf(self, path: str) -> str:
        found = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', self.call(path)[1])
        assert found is not None, path
        return found[1]

    def log_in(self, username: str, password: str) -> None:
        form = {"csrf_token": self.csrf("/director/login"), "username": username, "password": password}
        status = self.call("/director/login", urllib.parse.urlencode(form).encode())[0]
        assert status == 303, status

    def upload(self, data: bytes, name: str) -> tuple[int, str]:
        """The upload request's status and its report page's path."""
        fields = {"csrf_token": self.csrf("/director/lexicons/"), "rules": "en", "name": name, "edition": "bench"}
        fields |= {"description": "", "compare_with": "en"}
        boundary = secrets.token_hex(16)
        parts = [
            f'--{boundary}\r\nContent-Disposition: form-data; name="{key}"\r\n\r\n{value}\r\n'.encode()
            for key, value in fields.items()
        ]
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}.txt"\r\n'
        parts.append(head.encode() + b"Content-Type: text/plain\r\n\r\n" + data + b"\r\n")
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        status, _page, location = self.call(
            "/director/lexicons/upload", body, f"multipart/form-data; boundary={boundary}"
        )
        return status, urllib.parse.urlparse(location).path

    def wait_for_report(self, report: str) -> str:
        """The report page once read (an older server answers the report at once: no status to ask)."""
        while True:
            status, body, _ = self.call(report + "/status")
            if status == 404 or '"status":"read"' in body.replace(" ", "") or '"refused"' in body:
                return self.call(report)[1]
            time.sleep(0.2)


def club_words(count: int) -> bytes:
    """``count`` different words, one a line: two two-letter words (a list must have some), the rest of 5 to 7
    letters."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    words = itertools.chain.from_iterable(itertools.product(letters, repeat=n) for n in (5, 6, 7))
    return ("AA\nQI\n" + "\n".join("".join(w) for w in itertools.islice(words, count - 2)) + "\n").encode("ascii")


def uploads(count: int, words: int, cache: Path) -> None:
    data = club_words(words)
    print(f"\n{count} uploads at once of a {len(data) / 1e6:.0f} MB text list of {words:,} words, compared with en")
    with tempfile.TemporaryDirectory() as folder:
        _instance, env, _seconds, _built = prepare_instance(Path(folder), cache, True, None, None)
        server = ServerProcess(Path(folder), env, [])
        server.start()
        try:
            browsers = []
            for n in range(count):
                server.cli("director", "create", f"club{n}", "--password", "password123")
                browser = Browser(server.base)
                browser.log_in(f"club{n}", "password123")
                browsers.append(browser)
            done = threading.Event()
            probes: list[float] = []
            serving = server.process.pid if server.process is not None else 0

            def watch() -> None:
                while not done.is_set():
                    server.sample()
                    started = time.perf_counter()
                    Browser(server.base).call("/")
                    probes.append(time.perf_counter() - started)
                    time.sleep(0.05)

            answers: list[tuple[float, float, int]] = []  # (answer s, report s, status)

            def one(n: int) -> None:
                started = time.perf_counter()
                status, report = browsers[n].upload(data, f"club{n}")
                answered = time.perf_counter() - started
                page = browsers[n].wait_for_report(report) if status == 303 else ""
                assert f"{words:,} words" in page, page[:500]
                answers.append((answered, time.perf_counter() - started, status))

            watcher = threading.Thread(target=watch)
            watcher.start()
            threads = [threading.Thread(target=one, args=(n,)) for n in range(count)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            done.set()
            watcher.join()
            server.sample()
        finally:
            server.stop()
    answered = sorted(a for a, _, _ in answers)
    reported = sorted(r for _, r, _ in answers)
    others = {pid: kb for pid, kb in server.hwm.items() if pid != serving}
    probes.sort()
    print("| upload request answered | report read | serving process peak RSS | reader process peak RSS |")
    print("|---|---|---|---|")
    print(
        f"| {answered[0]:.2f}–{answered[-1]:.2f} s | {reported[0]:.1f}–{reported[-1]:.1f} s"
        f" | {server.hwm.get(serving, 0) / 1024:.0f} MB | {max(others.values(), default=0) / 1024:.0f} MB |"
    )
    p99 = probes[min(len(probes) - 1, int(len(probes) * 0.99))]
    print(
        f"home page meanwhile ({len(probes)} asked): median {statistics.median(probes) * 1000:.0f} ms,"
        f" p99 {p99 * 1000:.0f} ms, max {probes[-1] * 1000:.0f} ms"
    )


def best(runs: list[float]) -> str:
    return f"{min(runs):.2f} s (median {statistics.median(runs):.2f} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--uploads", type=int, default=4, help="directors uploading at once (0: none)")
    parser.add_argument("--upload-words", type=int, default=2_000_000)
    parser.add_argument("--only-uploads", action="store_true", help="the uploads' figures alone")
    parser.add_argument("--lexicon-cache", type=Path, default=ROOT / "instance" / "cache")
    args = parser.parse_args()
    print(f"Python {platform.python_version()} on {platform.machine()}, best of {args.repeat}")
    if args.uploads:
        uploads(args.uploads, args.upload_words, args.lexicon_cache)
    if args.only_uploads:
        return
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
