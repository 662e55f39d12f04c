"""A club's word list from the browser: read, reported, then accepted and built in the background (docs/rules.md §2.4).

1. :func:`stage` reads the upload (trainer.engine.wordlist), compares it with another lexicon and keeps it,
   with its report, as a *pending upload* in the instance folder (``lexicons/pending/<token>``): nothing is a
   lexicon yet, and a file that cannot be one leaves nothing behind.
2. The director reads the report; :func:`accept` writes the list as an imported lexicon (status ``building``) and
   :func:`start_build` builds its word graphs in a process of its own (a large list holds a CPU for a quarter of a
   minute, which the serving process must not give). The lexicon's record says how far the build is; once ready,
   the game form, the deck form and the word wall offer it.
"""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os
import re
import secrets
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..engine.lexicon import LexiconError, LexiconStore, build_imported
from ..engine.rules import ruleset, ruleset_codes
from ..engine.wordlist import WordListError, compare, read_word_list
from .errors import Refused

PENDING_HOURS = 24  # an upload nobody accepted is forgotten after this
_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")


def _pending_dir(store: LexiconStore) -> Path:
    return store.imported_dir / "pending"


def check_name(store: LexiconStore, name: str) -> None:
    """A free, well-formed lexicon name, or a refusal that says what is wrong."""
    if not _NAME.fullmatch(name):
        raise Refused("lexicon_bad_name", f"lexicon name {name!r}: use 1-40 lower-case letters, digits, '-' or '_'")
    if store.taken(name):
        raise Refused("lexicon_name_taken", f"there is a lexicon named {name!r} already", name=name)


def stage(
    store: LexiconStore,
    data: bytes,
    filename: str,
    *,
    rules_code: str,
    name: str,
    edition: str,
    description: str,
    compare_with: str,
    by: str,
) -> str:
    """Read an uploaded list and keep it with its report; the token names the pending upload."""
    check_name(store, name)
    if rules_code not in ruleset_codes():
        raise Refused("unknown_rules", f"unknown rules {rules_code!r}", rules=rules_code)
    try:
        words, report = read_word_list(data, ruleset(rules_code), filename)
    except WordListError as bad:
        raise Refused.because(bad, "word_list_" + bad.code) from None
    diff = None
    if compare_with:
        try:
            diff = asdict(compare(words, store.words_of(compare_with), compare_with))
        except LexiconError:
            raise Refused("unknown_lexicon", f"unknown lexicon {compare_with!r}", lexicon=compare_with) from None
    _forget_old(store)
    token = secrets.token_urlsafe(18)
    folder = _pending_dir(store)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{token}.txt.gz").write_bytes(gzip.compress(("\n".join(words) + "\n").encode("ascii"), mtime=0))
    record = {
        "name": name,
        "edition": edition,
        "description": description,
        "rules": rules_code,
        "file": filename,
        "by": by,
        "at": time.time(),
        "report": asdict(report),
        "diff": diff,
    }
    _write_json(folder / f"{token}.json", record)  # written last: a pending upload exists once its record does
    return token


def pending(store: LexiconStore, token: str, by: str) -> dict[str, Any]:
    """The pending upload ``token`` of ``by`` (its record and report); another director's is not found."""
    record = _read_pending(store, token)
    if record is None or record.get("by") != by:
        raise Refused("upload_not_found", "this upload is not pending (accepted, discarded or expired)")
    return record


def accept(store: LexiconStore, token: str, by: str) -> str:
    """Make the pending upload a lexicon (status ``building``) and forget the upload; the lexicon's name."""
    record = pending(store, token, by)
    check_name(store, record["name"])  # taken since the upload?
    path = _pending_dir(store) / f"{token}.txt.gz"
    words = gzip.decompress(path.read_bytes()).decode("ascii").split()
    store.add_list(
        record["name"],
        words,
        record["rules"],
        edition=record["edition"],
        description=record["description"],
        by=by,
    )
    discard(store, token)
    return str(record["name"])


def discard(store: LexiconStore, token: str) -> None:
    if _TOKEN.fullmatch(token):
        for suffix in (".json", ".txt.gz"):
            (_pending_dir(store) / f"{token}{suffix}").unlink(missing_ok=True)


def start_build(store: LexiconStore, name: str) -> None:
    """Build lexicon ``name``'s graphs in a process of its own; a thread waits for it and records a process that
    ended without finishing (killed, out of memory) as a failed build."""
    context = multiprocessing.get_context("spawn")
    process = context.Process(target=build_imported, args=(str(store.data_dir), name), daemon=True)
    store.set_status(name, "building", progress=0.0)
    process.start()

    def wait() -> None:
        process.join()
        record = store.imported().get(name)
        if record is not None and record["status"] == "building":
            store.set_status(name, "failed", failure=f"the build process ended (exit code {process.exitcode})")

    threading.Thread(target=wait, name=f"lexicon-build-{name}", daemon=True).start()


def retry(store: LexiconStore, name: str) -> None:
    """Build a lexicon whose build failed again."""
    record = store.imported().get(name)
    if record is None or record["status"] != "failed":
        raise Refused("lexicon_not_failed", f"lexicon {name!r} is not a failed build", name=name)
    start_build(store, name)


def _read_pending(store: LexiconStore, token: str) -> dict[str, Any] | None:
    if not _TOKEN.fullmatch(token):
        return None
    try:
        record: dict[str, Any] = json.loads((_pending_dir(store) / f"{token}.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return record


def _forget_old(store: LexiconStore) -> None:
    folder = _pending_dir(store)
    if not folder.is_dir():
        return
    cutoff = time.time() - PENDING_HOURS * 3600
    for path in folder.iterdir():
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink(missing_ok=True)
        except OSError:
            continue


def _write_json(path: Path, record: dict[str, Any]) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record), "utf-8")
    os.replace(tmp, path)
