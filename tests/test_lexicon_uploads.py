"""A club's word list loaded from the browser (docs/rules.md §2.4): the upload stored as it arrives and read in a
process of its own, the report before anything is kept, the build in a process of its own with its progress, the
lexicon offered once built, and every bad file refused with a message that says what is wrong, leaving nothing
half-built."""

from __future__ import annotations

import gzip
import io
import itertools
import json
import os
import time
import tracemalloc
import zipfile
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from trainer.core import accounts, lexicon_uploads
from trainer.core.lexicons import lexicon_store
from trainer.engine.lexicon import STALE_SECONDS, LexiconStore
from trainer.engine.rules import ruleset
from trainer.engine.wordlist import MAX_TEXT_BYTES, MAX_WORDS, WordListError, read_word_list

from .test_pages import GAME_FORM, act, csrf_token, log_in, new_game, text_of

UPLOAD = "/director/lexicons/upload"


@pytest.fixture
def database_url() -> str:
    return ""  # the uploads live in the instance folder; the database only holds the director


@pytest.fixture
def director(app: Flask) -> str:
    with app.app_context():
        accounts.create_director("alice", "password123")
        accounts.create_director("bruno", "password123")
    return "alice"


def club_list(en_words: list[str]) -> tuple[bytes, list[str]]:
    """A thousand words (ENABLE's, in mixed case, one with an accent, and one ENABLE lacks), with lines a list should
    not hold; and the words the list should give."""
    twos = [w for w in en_words if len(w) == 2][:12]
    candidates = [w for w in en_words if 5 <= len(w) <= 8]
    longer = candidates[:: len(candidates) // 990][:986]
    lines = [w.lower() for w in twos] + [w.capitalize() for w in longer]
    lines += ["# a comment", "", "naïve", "two words", "x", "ABCDEFGHIJKLMNOP", "r2d2", "QIZAXYZ", "Aa"]
    words = sorted({*twos, *longer, "NAIVE", "QIZAXYZ"})
    return ("\n".join(lines) + "\n").encode("utf-8"), words


def upload(client: FlaskClient, data: bytes, filename: str = "club.txt", **fields: str) -> Any:
    form = {
        "csrf_token": csrf_token(client, "/director/lexicons/"),
        "rules": "en",
        "name": "club",
        "edition": "Club list 2026",
        "description": "",
        "compare_with": "en",
        **fields,
        "file": (io.BytesIO(data), filename),
    }
    return client.post(UPLOAD, data=form, content_type="multipart/form-data")


def wait_for_report(client: FlaskClient, report_path: str, seconds: float = 90.0) -> Any:
    """The upload's page once the reader process is done with it: its report, or the lexicons page with the reason
    the file cannot be a list."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status = client.get(report_path + "/status").get_json()["status"]
        if status not in ("receiving", "queued", "reading"):
            return client.get(report_path)
        time.sleep(0.1)
    raise AssertionError(f"{report_path} still {status} after {seconds} s")


def upload_and_read(client: FlaskClient, data: bytes, filename: str = "club.txt", **fields: str) -> Any:
    """The upload's answer when it is refused at once (the form), else its page once read."""
    answer = upload(client, data, filename, **fields)
    if answer.status_code != 303:
        return answer
    return wait_for_report(client, answer.headers["Location"])


def pending_files(app: Flask) -> list[Path]:
    folder = Path(app.instance_path) / "lexicons" / "pending"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def wait_until_built(client: FlaskClient, name: str, seconds: float = 90.0) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    seen = []
    while time.monotonic() < deadline:
        status: dict[str, Any] = client.get(f"/director/lexicons/{name}/status").get_json()
        seen.append(status["progress"])
        if status["status"] != "building":
            status["seen"] = seen
            return status
        time.sleep(0.2)
    raise AssertionError(f"lexicon {name} still building after {seconds} s (progress {seen[-5:]})")


def test_a_list_is_reported_accepted_built_and_offered(app: Flask, client: FlaskClient, director: str) -> None:
    log_in(client)
    with app.app_context():
        en_words = lexicon_store().words_of("en")
    data, expected_words = club_list(en_words)
    assert len(expected_words) == 1000
    answer = upload(client, data)
    assert answer.status_code == 303, text_of(answer.get_data(as_text=True))
    report_path = answer.headers["Location"]
    # Nothing is a lexicon yet: the game form does not offer it.
    with app.app_context():
        assert "club" not in lexicon_store().catalogue()

    page = text_of(wait_for_report(client, report_path).get_data(as_text=True))
    assert "1,000 words · 4 lines left out · 1 word repeated (counted once)" in page
    twos = sorted(w for w in expected_words if len(w) == 2)
    assert f"The {len(twos)} two-letter words {' '.join(twos)}" in page
    assert "two words more than one word on the line" in page
    assert "x one letter: a word has two or more" in page
    assert "ABCDEFGHIJKLMNOP 16 letters: longer than the board (15)" in page
    assert "r2d2 “2” is not a letter of the tiles" in page
    # Against en: every word is ENABLE's but QIZAXYZ; nearly all of ENABLE is "not in this edition".
    assert "Compared with en" in page
    assert "New in this edition: 1 word QIZAXYZ" in page
    assert f"Not in this edition: {len(en_words) - 999:,} words" in page

    accepted = client.post(report_path + "/accept", data={"csrf_token": csrf_token(client, report_path)})
    assert accepted.status_code == 303
    assert accepted.headers["Location"].endswith("/director/lexicons/club")
    assert pending_files(app) == []  # the upload became the lexicon
    built = wait_until_built(client, "club")
    assert built["status"] == "ready" and built["progress"] == 100
    page = text_of(client.get("/director/lexicons/club").get_data(as_text=True))
    assert "Ready: choose it in the game form" in page and "Club list 2026" in page

    with app.app_context():
        store = lexicon_store()
        assert store.catalogue()["club"] == {"rules": "en", "description": "", "edition": "Club list 2026"}
        lexicon = store.load("club")
        assert lexicon.words() == expected_words
    assert 'value="club"' in client.get("/director/games/new").get_data(as_text=True)
    game_id = new_game(client, lexicon="club")
    assert "club" in text_of(client.get(f"/director/games/{game_id}").get_data(as_text=True))


def test_the_build_runs_in_its_own_process_and_reports_progress(tmp_path: Path, en_lexicon: Any) -> None:
    """The progress moves through the build (a list of 168,551 words: dozens of steps) and ends at ready."""
    from trainer.core.lexicon_uploads import start_build

    store = LexiconStore(tmp_path)
    words = LexiconStore(tmp_path).words_of("en")
    store.add_list("big", words, "en", edition="ENABLE again")
    start_build(store, "big")
    seen = []
    deadline = time.monotonic() + 120
    while (record := store.imported()["big"])["status"] == "building" and time.monotonic() < deadline:
        seen.append(record["progress"])
        time.sleep(0.1)
    assert store.imported()["big"]["status"] == "ready"
    assert len(set(seen)) >= 5 and seen == sorted(seen)  # a bar that moves forward
    assert store.load("big").graph.node_count == en_lexicon.graph.node_count


def test_an_interrupted_build_reads_failed_and_builds_again(tmp_path: Path) -> None:
    from trainer.core.lexicon_uploads import retry

    store = LexiconStore(tmp_path)
    store.add_list("club", ["AA", "TRAIN"], "en", edition="1")
    record = store.imported()["club"]
    assert record["status"] == "building"
    # The process building it was killed: its heartbeat stops.
    store._write_meta("club", {**record, "heartbeat": time.time() - STALE_SECONDS - 1})
    assert store.imported()["club"]["status"] == "failed"
    assert "club" not in store.catalogue()
    retry(store, "club")
    deadline = time.monotonic() + 60
    while store.imported()["club"]["status"] != "ready" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert store.catalogue()["club"]["edition"] == "1"


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def zipped(*members: tuple[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return out.getvalue()


TWOS_AND_MORE = b"aa\nqi\ntrain\nsalut\n"


def many_words(count: int) -> bytes:
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    words = ("".join(t) for t in itertools.product(letters, repeat=5))
    return gz(("\n".join(itertools.islice(words, count)) + "\nAA\n").encode("ascii"))


@pytest.mark.parametrize(
    ("data", "filename", "fields", "status", "message"),
    [
        (b"", "club.txt", {}, 422, "The file is empty."),
        (b"\n \n", "club.txt", {}, 422, "The file is empty."),
        (bytes(range(256)) * 40, "club.txt", {}, 422, "This is not a text file"),
        (gz(bytes(range(256)) * 40), "club.txt.gz", {}, 422, "This is not a text file"),
        (b"train\nsalut\nzebra\n", "club.txt", {}, 422, "The list has no two-letter word"),
        (b"1234\n!!\n", "club.txt", {}, 422, "holds no word of two letters or more"),
        (gz(TWOS_AND_MORE * 500)[:-20], "club.txt.gz", {}, 422, "The file is cut off or damaged"),
        (zipped(("club.txt", TWOS_AND_MORE * 500))[:-30], "club.zip", {}, 422, "The file is cut off or damaged"),
        (zipped(("a.txt", TWOS_AND_MORE), ("b.txt", TWOS_AND_MORE)), "club.zip", {}, 422, "it holds: a.txt, b.txt"),
        (TWOS_AND_MORE, "club.txt", {"name": "en"}, 409, "There is a lexicon named “en” already"),
        (TWOS_AND_MORE, "club.txt", {"name": "Club List"}, 422, "lower-case letters, digits"),
        (many_words(MAX_WORDS), "huge.txt.gz", {}, 413, "The list holds more than 2,000,000 words"),
    ],
    ids=[
        "empty",
        "blank",
        "binary",
        "binary-gz",
        "no-twos",
        "no-words",
        "cut-gz",
        "cut-zip",
        "two-files-in-zip",
        "name-taken",
        "bad-name",
        "too-many-words",
    ],
)
def test_bad_uploads_are_refused_with_a_message_and_leave_nothing(
    app: Flask,
    client: FlaskClient,
    director: str,
    data: bytes,
    filename: str,
    fields: dict[str, str],
    status: int,
    message: str,
) -> None:
    log_in(client)
    answer = upload_and_read(client, data, filename, **fields)
    assert answer.status_code == status
    assert message in text_of(answer.get_data(as_text=True))
    assert pending_files(app) == []
    with app.app_context():
        assert "club" not in lexicon_store().imported()


def test_a_name_taken_by_an_imported_lexicon_is_refused(app: Flask, client: FlaskClient, director: str) -> None:
    with app.app_context():
        lexicon_store().add_list("club", ["AA", "TRAIN"], "en", edition="old")
    log_in(client)
    answer = upload(client, TWOS_AND_MORE)
    assert answer.status_code == 409
    assert "There is a lexicon named “club” already" in text_of(answer.get_data(as_text=True))


def test_an_upload_cut_off_leaves_nothing(app: Flask, client: FlaskClient, director: str) -> None:
    """The body ends before its Content-Length: the page says so and nothing is kept."""
    log_in(client)
    token = csrf_token(client, "/director/lexicons/")
    boundary = "tirageboundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="csrf_token"\r\n\r\n{token}\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="club.txt"\r\n'
        "Content-Type: text/plain\r\n\r\n"
    ).encode()
    sent = head + TWOS_AND_MORE * 100
    answer = client.post(
        UPLOAD,
        input_stream=io.BytesIO(sent),
        content_type=f"multipart/form-data; boundary={boundary}",
        content_length=len(sent) + 5000,
    )
    assert answer.status_code == 400
    assert "The upload was cut off before the whole file arrived" in text_of(answer.get_data(as_text=True))
    assert pending_files(app) == []


def test_another_director_cannot_read_or_accept_an_upload(app: Flask, client: FlaskClient, director: str) -> None:
    log_in(client)
    report_path = upload(client, TWOS_AND_MORE).headers["Location"]
    wait_for_report(client, report_path)
    other = app.test_client()
    log_in(other, "bruno")
    page = other.get(report_path, follow_redirects=True)
    assert "This upload is no longer waiting" in text_of(page.get_data(as_text=True))
    token = csrf_token(other, "/director/lexicons/")
    other.post(report_path + "/accept", data={"csrf_token": token})
    with app.app_context():
        assert "club" not in lexicon_store().imported()
    # Its owner discards it: nothing is left.
    client.post(report_path + "/discard", data={"csrf_token": csrf_token(client, report_path)})
    assert pending_files(app) == []


def test_the_report_and_refusals_speak_french(app: Flask, client: FlaskClient, director: str) -> None:
    log_in(client)
    client.get("/director/lexicons/?lang=fr")  # the language chosen on a page is kept
    answer = upload_and_read(client, b"train\nsalut\n")
    assert "La liste n’a aucun mot de deux lettres" in text_of(answer.get_data(as_text=True))
    page = text_of(upload_and_read(client, b"aa\nqi\nr2d2\n").get_data(as_text=True))
    assert "Les 2 mots de deux lettres AA QI" in page
    assert "« 2 » n’est pas une lettre des jetons" in page


def test_assistant_arbiters_do_not_load_lexicons(app: Flask, client: FlaskClient, director: str) -> None:
    with app.app_context():
        lead = accounts.authenticate_director("alice", "password123")
        assert lead is not None
        accounts.create_assistant(lead, "carla", "password123")
    log_in(client, "carla")
    answer = client.get("/director/lexicons/")
    assert answer.status_code == 303 and answer.headers["Location"].endswith("/director/arbiter")


def test_game_form_defaults_stay_the_rules_lexicon(app: Flask, client: FlaskClient, director: str) -> None:
    """A club lexicon in the catalogue changes nothing for a game that asks for the rules' default."""
    with app.app_context():
        store = lexicon_store()
        store.add_list("club", ["AA", "TRAIN"], "en", edition="1")
        store.build_graphs("club")
    log_in(client)
    game_id = new_game(client, **{**GAME_FORM, "lexicon": ""})
    assert "ENABLE 1" in text_of(client.get(f"/director/games/{game_id}").get_data(as_text=True))


def test_a_game_whose_lexicon_is_gone_cannot_start(app: Flask, client: FlaskClient, director: str) -> None:
    """A lexicon removed while a game waits in its lobby (docs/rules.md §2.4): the start is refused, clearly."""
    with app.app_context():
        store = lexicon_store()
        store.add_list("club", ["AA", "TRAIN"], "en", edition="1")
        store.build_graphs("club")
    log_in(client)
    game_id = new_game(client, lexicon="club")
    with app.app_context():
        lexicon_store().remove("club")
    answer = act(client, game_id, "start")
    assert answer.status_code == 409
    assert (
        answer.get_json()["error"] == "This game's lexicon is no longer on this server: the game cannot start. "
        "Make a new game with another one."
    )
    assert "lobby" in text_of(client.get(f"/director/games/{game_id}").get_data(as_text=True)).lower()


def test_the_upload_is_stored_and_read_in_a_process_of_its_own(app: Flask, client: FlaskClient, director: str) -> None:
    """The request stores the file a chunk at a time and answers: a list of 300,000 words costs the serving process
    a few megabytes, not the hundreds its reading takes; the reader process reads it and the report page follows."""
    log_in(client)
    data = many_words(300_000)
    client.get("/director/lexicons/")  # the form's token, taken before the memory is watched
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        answer = upload(client, data, "big.txt.gz")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert answer.status_code == 303
    # The test client holds the request's body (about 3 times the file) while it is sent; the reading would hold
    # the 300,000 words several times over.
    assert peak < 6 * len(data) + 8 * 1024 * 1024, f"{peak / 1e6:.1f} MB"
    page = text_of(wait_for_report(client, answer.headers["Location"]).get_data(as_text=True))
    assert "300,001 words · 0 lines left out" in page
    token = answer.headers["Location"].rsplit("/", 1)[1]
    with app.app_context():
        record = lexicon_uploads.pending(lexicon_store(), token, "alice")
    assert record["reader"] != os.getpid()  # read by the reader process


def test_a_director_has_at_most_three_lists_waiting(app: Flask, client: FlaskClient, director: str) -> None:
    """An upload stored, being read or waiting for its answer counts (docs/rules.md §2.4); a fourth is refused with a
    message, another director's count is their own, and a list discarded frees its place."""
    log_in(client)
    reports = [upload(client, TWOS_AND_MORE, name=f"club{n}").headers["Location"] for n in range(3)]
    answer = upload(client, TWOS_AND_MORE, name="club3")
    assert answer.status_code == 409
    page = text_of(answer.get_data(as_text=True))
    assert "You have 3 word lists waiting already, the most at once: accept or discard one first." in page
    assert "Your lists waiting" in page and "club0 (club.txt):" in page  # the page lists them, to answer one
    other = app.test_client()
    log_in(other, "bruno")
    assert upload(other, TWOS_AND_MORE, name="bruno0").status_code == 303
    wait_for_report(client, reports[0])
    client.post(reports[0] + "/discard", data={"csrf_token": csrf_token(client, reports[0])})
    assert upload(client, TWOS_AND_MORE, name="club3").status_code == 303
    client.get("/director/lexicons/?lang=fr")
    french = upload(client, TWOS_AND_MORE, name="club4")
    assert french.status_code == 409
    assert "Vous avez déjà 3 listes de mots en attente, le maximum à la fois" in text_of(french.get_data(as_text=True))


def test_an_upload_left_for_a_day_is_forgotten_and_its_files_deleted(
    app: Flask, client: FlaskClient, director: str
) -> None:
    log_in(client)
    report_path = upload(client, TWOS_AND_MORE).headers["Location"]
    wait_for_report(client, report_path)
    token = report_path.rsplit("/", 1)[1]
    assert [path.name for path in pending_files(app)] == [f"{token}.json", f"{token}.txt.gz"]
    with app.app_context():
        store = lexicon_store()
        arrived = lexicon_uploads.pending(store, token, "alice")["at"]
        assert lexicon_uploads.expire(store, now=arrived + 23 * 3600) == []
        assert len(lexicon_uploads.waiting_uploads(store, "alice", now=arrived + 23 * 3600)) == 1
        assert lexicon_uploads.expire(store, now=arrived + 24 * 3600 + 1) == [token]
    assert pending_files(app) == []
    page = client.get(report_path, follow_redirects=True)
    assert "This upload is no longer waiting" in text_of(page.get_data(as_text=True))


def test_an_upload_past_its_day_is_cleaned_up_by_the_lexicons_page(
    app: Flask, client: FlaskClient, director: str
) -> None:
    """The lexicons page forgets what is past its day (the record's arrival, whatever the files' dates), and a stray
    file of the pending folder left that long (a server stopped in the middle of an upload)."""
    log_in(client)
    report_path = upload(client, TWOS_AND_MORE).headers["Location"]
    wait_for_report(client, report_path)
    folder = Path(app.instance_path) / "lexicons" / "pending"
    record_path = folder / (report_path.rsplit("/", 1)[1] + ".json")
    record = json.loads(record_path.read_text("utf-8"))
    record_path.write_text(json.dumps({**record, "at": record["at"] - 24 * 3600 - 60}), "utf-8")
    stray = folder / "stray.upload"
    stray.write_bytes(b"aa\n")
    day_ago = time.time() - 24 * 3600 - 60
    os.utime(stray, (day_ago, day_ago))
    client.get("/director/lexicons/")
    assert pending_files(app) == []


def bomb(kind: str) -> bytes:
    """65 KB that unpack to more than the 64 MB of text a list may hold: "AA" over and over."""
    text = b"AA\n" * (MAX_TEXT_BYTES // 3 + 1000)
    if kind == "gz":
        return gzip.compress(text, compresslevel=9)
    return zipped(("club.txt", text))


@pytest.mark.parametrize("kind", ["gz", "zip"])
def test_a_compressed_bomb_stops_at_the_limit(app: Flask, client: FlaskClient, director: str, kind: str) -> None:
    """Unpacking stops at the limit, a chunk at a time (it never holds the 64 MB), with a message."""
    data = bomb(kind)
    assert len(data) < 100_000
    tracemalloc.start()
    try:
        with pytest.raises(WordListError) as refused:
            read_word_list(data, ruleset("en"), f"club.{kind}")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert refused.value.code == "too_large"
    assert peak < 16 * 1024 * 1024, f"{peak / 1e6:.1f} MB"
    log_in(client)
    answer = upload_and_read(client, data, f"club.{kind}")
    assert answer.status_code == 413
    assert "The list is larger than 64 MB of text: is it a word list?" in text_of(answer.get_data(as_text=True))
    assert pending_files(app) == []
