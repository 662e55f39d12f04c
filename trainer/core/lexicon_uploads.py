"""A club's word list from the browser: stored, read and reported in a process of its own, then accepted and built
in the background (docs/rules.md §2.4).

1. :func:`receive` checks what the form says (the name, the rules, the lexicon to compare with, the director's
   uploads waiting: at most :data:`MAX_WAITING`) and copies the file, a chunk at a time and at most
   :data:`MAX_FILE_BYTES`, into the instance folder (``lexicons/pending/<token>.upload``): a *pending upload*,
   queued. The request answers at once; nothing of the list is read in the serving process.
2. :func:`start_reading` makes sure a reader process goes through the queue: one upload at a time per server (a
   file lock in the pending folder, whichever of the server's processes started it), at a lower priority than the
   serving processes. It reads the list (trainer.engine.wordlist: unpacked at most to its limit, then line by line),
   compares it with the other lexicon, and writes the words and the report; or records why the file cannot be a list
   and deletes it. The record says how far it is; the report page follows it.
3. The director reads the report; :func:`accept` moves the words into place as an imported lexicon (status
   ``building``) and :func:`start_build` builds its word graphs in a process of its own (a large list holds a CPU
   for a quarter of a minute, which the serving process must not give). Once ready, the game form, the deck form and
   the word wall offer it.

An upload nobody accepts is forgotten, its files deleted, :data:`PENDING_HOURS` after it arrived (:func:`expire`).
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import re
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Protocol

from ..engine.lexicon import STALE_SECONDS, LexiconError, LexiconStore, build_imported, write_words
from ..engine.rules import ruleset, ruleset_codes
from ..engine.wordlist import WordListError, compare, read_word_file
from .errors import Refused

PENDING_HOURS = 24  # an upload nobody accepted is forgotten after this
MAX_WAITING = 3  # a director's uploads stored, being read or waiting for an answer at once
MAX_FILE_BYTES = 50 * 1024 * 1024  # an upload's file as it arrives (a .gz or .zip unpacks to at most 64 MB)
RECEIVING_SECONDS = 600.0  # an upload still arriving after this was cut off with its server
READER_NICENESS = 10  # the reader yields the CPU to the serving processes (plays first)
OTHER_READER = 3  # a reader's exit code when another process of the server holds the queue
CHUNK = 1024 * 1024
WAITING = ("receiving", "queued", "reading", "read")  # the statuses that count towards MAX_WAITING
_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
_FILES = (".json", ".upload", ".txt.gz")


class Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


def _pending_dir(store: LexiconStore) -> Path:
    return store.imported_dir / "pending"


def check_name(store: LexiconStore, name: str) -> None:
    """A free, well-formed lexicon name, or a refusal that says what is wrong."""
    if not _NAME.fullmatch(name):
        raise Refused("lexicon_bad_name", f"lexicon name {name!r}: use 1-40 lower-case letters, digits, '-' or '_'")
    if store.taken(name):
        raise Refused("lexicon_name_taken", f"there is a lexicon named {name!r} already", name=name)


def receive(
    store: LexiconStore,
    stream: Readable,
    filename: str,
    *,
    rules_code: str,
    name: str,
    edition: str,
    description: str,
    compare_with: str,
    by: str,
    now: float | None = None,
) -> str:
    """Store an uploaded list, queued for the reader, without reading it; the token names the pending upload."""
    now = time.time() if now is None else now
    check_name(store, name)
    if rules_code not in ruleset_codes():
        raise Refused("unknown_rules", f"unknown rules {rules_code!r}", rules=rules_code)
    if compare_with and compare_with not in store.catalogue():
        raise Refused("unknown_lexicon", f"unknown lexicon {compare_with!r}", lexicon=compare_with)
    expire(store, now)
    folder = _pending_dir(store)
    folder.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(18)
    record = {
        "name": name,
        "edition": edition,
        "description": description,
        "rules": rules_code,
        "compare_with": compare_with,
        "file": filename,
        "by": by,
        "at": now,
        "status": "receiving",
        "progress": 0.0,
    }
    with _records_lock(store):  # two uploads at once by one director take one slot each
        waiting = len(waiting_uploads(store, by, now))
        if waiting >= MAX_WAITING:
            raise Refused(
                "upload_quota", f"{waiting} of your uploads are waiting already: accept or discard one first", n=waiting
            )
        _write_json(folder / f"{token}.json", record)
    try:
        size = _copy(stream, folder / f"{token}.upload")
        if size == 0:
            raise Refused("word_list_empty", "the file is empty")
    except BaseException:
        discard(store, token)
        raise
    _update(store, token, status="queued", size=size)
    return token


def _copy(stream: Readable, path: Path) -> int:
    """Copy ``stream`` to ``path`` a chunk at a time, refused past :data:`MAX_FILE_BYTES`; the bytes copied."""
    size = 0
    with path.open("wb") as out:
        while chunk := stream.read(CHUNK):
            size += len(chunk)
            if size > MAX_FILE_BYTES:
                mb = MAX_FILE_BYTES // (1024 * 1024)
                raise Refused("file_too_big", f"the file is larger than {mb} MB", mb=mb)
            out.write(chunk)
    return size


def waiting_uploads(store: LexiconStore, by: str, now: float | None = None) -> list[dict[str, Any]]:
    """``by``'s pending uploads that count towards :data:`MAX_WAITING` (each record with its ``token``), oldest
    first."""
    now = time.time() if now is None else now
    mine = [{**record, "token": token} for token, record in _records(store) if record.get("by") == by]
    return sorted((record for record in mine if _waits(record, now)), key=lambda record: float(record["at"]))


def _waits(record: dict[str, Any], now: float) -> bool:
    if record.get("status") not in WAITING or _expired(record, now):
        return False
    return record["status"] != "receiving" or now - float(record.get("at", 0)) < RECEIVING_SECONDS


def _expired(record: dict[str, Any], now: float) -> bool:
    return now - float(record.get("at", 0)) > PENDING_HOURS * 3600


def pending(store: LexiconStore, token: str, by: str, now: float | None = None) -> dict[str, Any]:
    """The pending upload ``token`` of ``by`` (its record: its status, progress, then report or refusal); another
    director's is not found, nor one past its time. A reading whose process died reads as refused."""
    now = time.time() if now is None else now
    record = _read_pending(store, token)
    if record is None or record.get("by") != by or _expired(record, now):
        raise Refused("upload_not_found", "this upload is not pending (accepted, discarded or expired)")
    if record["status"] == "reading" and now - float(record.get("heartbeat", now)) > STALE_SECONDS:
        record.update(status="refused", refusal=_stopped())
    return record


def refusal(record: dict[str, Any]) -> Refused | None:
    """Why a pending upload cannot be a lexicon, once its reading said so."""
    if record.get("status") != "refused":
        return None
    said = record["refusal"]
    return Refused(said["code"], said["message"], **said.get("params", {}))


def per_cent(record: dict[str, Any]) -> int:
    return 100 if record.get("status") in ("read", "refused") else int(float(record.get("progress", 0.0)) * 100)


def accept(store: LexiconStore, token: str, by: str) -> str:
    """Make the pending upload a lexicon (status ``building``) and forget the upload; the lexicon's name."""
    record = pending(store, token, by)
    if record["status"] != "read":
        raise Refused("upload_not_read", "this upload has not been read yet: wait for its report")
    check_name(store, record["name"])  # taken since the upload?
    store.adopt_list(
        record["name"],
        _pending_dir(store) / f"{token}.txt.gz",
        int(record["words"]),
        record["rules"],
        edition=record["edition"],
        description=record["description"],
        by=by,
    )
    discard(store, token)
    return str(record["name"])


def discard(store: LexiconStore, token: str) -> None:
    if _TOKEN.fullmatch(token):
        with _records_lock(store):  # never between a reader's look at the record and its writing it again
            for suffix in _FILES:
                (_pending_dir(store) / f"{token}{suffix}").unlink(missing_ok=True)


def expire(store: LexiconStore, now: float | None = None) -> list[str]:
    """Forget the uploads that arrived more than :data:`PENDING_HOURS` ago, and any file of the pending folder left
    that long (a server stopped in the middle of an upload); the tokens forgotten."""
    now = time.time() if now is None else now
    folder = _pending_dir(store)
    if not folder.is_dir():
        return []
    gone = [token for token, record in _records(store) if _expired(record, now)]
    for token in gone:
        discard(store, token)
    cutoff = now - PENDING_HOURS * 3600
    for path in folder.iterdir():
        with contextlib.suppress(OSError):
            if path.stat().st_mtime < cutoff:
                path.unlink(missing_ok=True)
    return gone


# ------------------------------------------------------------ the reader, a process of its own

_readers: dict[Path, BaseProcess] = {}  # this serving process's reader, per instance folder
_readers_guard = threading.Lock()


def start_reading(store: LexiconStore) -> None:
    """Make sure a reader process goes through the queued uploads; a thread waits for it, records an upload it was
    reading when it ended as refused (killed, out of memory), and starts another if uploads are left."""
    key = store.data_dir.resolve()
    with _readers_guard:
        running = _readers.get(key)
        if running is not None and running.is_alive():
            return  # it reads what is queued; if it was ending, its waiting thread starts another
        with _reader_lock(store, wait=False) as free:
            if not free:
                return  # another process's reader reads; it looks at the queue again after letting go of the lock
        context = multiprocessing.get_context("spawn")
        process = context.Process(target=read_queued, args=(str(store.data_dir),), name="lexicon-reader", daemon=True)
        process.start()
        _readers[key] = process

    def wait() -> None:
        process.join()
        with _readers_guard:
            if _readers.get(key) is process:
                del _readers[key]
        for token, record in _records(store):
            if record.get("status") == "reading" and record.get("reader") == process.pid:
                _update(store, token, status="refused", refusal=_stopped(process.exitcode))
                (_pending_dir(store) / f"{token}.upload").unlink(missing_ok=True)
        if process.exitcode != OTHER_READER and queued(store):
            start_reading(store)

    threading.Thread(target=wait, name="lexicon-reader-wait", daemon=True).start()


def queued(store: LexiconStore) -> list[str]:
    """The uploads waiting for the reader, oldest first."""
    waiting = [(float(record.get("at", 0)), token) for token, record in _records(store) if record["status"] == "queued"]
    return [token for _, token in sorted(waiting)]


def read_queued(data_dir: str) -> None:
    """A reader process's work: every queued upload, one at a time, while it holds the server's reading lock (another
    process holding it reads them; this one ends with :data:`OTHER_READER`)."""
    with contextlib.suppress(OSError):
        os.nice(READER_NICENESS)
    store = LexiconStore(Path(data_dir))
    # Ends only with the lock free and nothing queued, or with the lock held by another reader: an upload queued
    # while a reader was ending is seen by that reader's last look, after it let go of the lock.
    while queued(store):
        with _reader_lock(store, wait=False) as held:
            if not held:
                raise SystemExit(OTHER_READER)
            while tokens := queued(store):
                read_one(store, tokens[0])


def read_one(store: LexiconStore, token: str) -> None:
    """Read pending upload ``token``: its words and report kept, or the reason it cannot be a list (its file gone)."""
    record = _read_pending(store, token)
    if record is None or record["status"] != "queued":
        return
    folder = _pending_dir(store)
    upload = folder / f"{token}.upload"
    _update(store, token, status="reading", reader=os.getpid(), progress=0.0)
    last = [0.0]

    def progress(fraction: float) -> None:
        if fraction - last[0] >= 0.02:
            last[0] = fraction
            _update(store, token, progress=round(0.9 * fraction, 3))  # the comparison is the last tenth

    try:
        with upload.open("rb") as file:
            words, report = read_word_file(file, ruleset(record["rules"]), record["file"], progress=progress)
        diff = None
        if against := record.get("compare_with"):
            try:
                diff = asdict(compare(words, store.words_of(against), against))
            except LexiconError:
                raise Refused("unknown_lexicon", f"unknown lexicon {against!r}", lexicon=against) from None
        kept = folder / f"{token}.txt.gz"
        write_words(kept, words)
        if not _update(store, token, status="read", progress=1.0, words=len(words), report=asdict(report), diff=diff):
            kept.unlink(missing_ok=True)  # discarded while it was read
    except (WordListError, Refused) as bad:
        refused = Refused.because(bad, "word_list_" + bad.code) if isinstance(bad, WordListError) else bad
        said = {"code": refused.code, "message": str(refused), "params": refused.params}
        _update(store, token, status="refused", refusal=said)
    finally:
        upload.unlink(missing_ok=True)


def _stopped(exitcode: int | None = None) -> dict[str, Any]:
    return {
        "code": "word_list_stopped",
        "message": f"the reading of the list stopped (its process ended, exit code {exitcode}): send it again",
        "params": {},
    }


# ------------------------------------------------------------ the build


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


# ------------------------------------------------------------ records


def _read_pending(store: LexiconStore, token: str) -> dict[str, Any] | None:
    if not _TOKEN.fullmatch(token):
        return None
    try:
        record: dict[str, Any] = json.loads((_pending_dir(store) / f"{token}.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return record


def _records(store: LexiconStore) -> Iterator[tuple[str, dict[str, Any]]]:
    folder = _pending_dir(store)
    if not folder.is_dir():
        return
    for path in folder.glob("*.json"):
        token = path.name.removesuffix(".json")
        record = _read_pending(store, token)
        if record is not None:
            yield token, record


def _reader_lock(store: LexiconStore, wait: bool) -> contextlib.AbstractContextManager[bool]:
    """The lock a reader process holds while it reads (one at a time for the server)."""
    return _file_lock(store.imported_dir / ".pending-reader.lock", wait)


def _records_lock(store: LexiconStore) -> contextlib.AbstractContextManager[bool]:
    """The lock every process of the server takes to change a pending upload's record."""
    return _file_lock(store.imported_dir / ".pending-records.lock")


def _update(store: LexiconStore, token: str, **fields: Any) -> bool:
    """Change pending upload ``token``'s record (its heartbeat too); False when it is gone (discarded, expired)."""
    with _records_lock(store):
        record = _read_pending(store, token)
        if record is None:
            return False
        record.update(fields, heartbeat=time.time())
        _write_json(_pending_dir(store) / f"{token}.json", record)
        return True


def _write_json(path: Path, record: dict[str, Any]) -> None:
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(json.dumps(record), "utf-8")
    os.replace(tmp, path)


@contextlib.contextmanager
def _file_lock(path: Path, wait: bool = True) -> Iterator[bool]:
    """Hold the lock file ``path`` (every process of the server takes the same); yields False when ``wait`` is off
    and another holds it. Where there are no file locks (Windows), one process serves: a thread lock does."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on the server's systems
        acquired = _local_lock.acquire(blocking=wait)
        try:
            yield acquired
        finally:
            if acquired:
                _local_lock.release()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


_local_lock = threading.Lock()
