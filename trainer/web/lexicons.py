"""The director's lexicons (``/director/lexicons``): the server's word lists, and a club's own loaded from the browser.

Uploading stores the file; a reader process of its own reads it while the report page follows its progress, then
shows the report (words by length, the two-letter words, the lines refused and why, what it adds to and drops from
another lexicon) before anything becomes a lexicon; accepting it builds its word graphs in the background, with a
progress bar (trainer.core.lexicon_uploads, docs/rules.md §2.4).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, jsonify, redirect, render_template, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _

from ..core import lexicon_uploads
from ..core.errors import Refused
from ..core.lexicons import lexicon_store
from ..http.errors import status_of
from .auth import director_required, logged_in_director
from .common import flash_form_errors
from .forms import ActionForm, LexiconUploadForm
from .messages import game_message

bp = Blueprint("lexicons", __name__, url_prefix="/director/lexicons")


def _director_name() -> str:
    director = logged_in_director()
    assert director is not None
    return str(director.username)


def _lexicon_rows() -> list[dict[str, Any]]:
    """Every lexicon of the server, bundled first, with where an imported one's build stands."""
    store = lexicon_store()
    imported = store.imported()
    rows: list[dict[str, Any]] = []
    for name, entry in store.catalogue().items():
        if name not in imported:
            rows.append({"name": name, "bundled": True, "status": "ready", **entry})
    for name, record in sorted(imported.items()):
        rows.append({"name": name, "bundled": False, **record, "per_cent": _per_cent(record)})
    return rows


def _per_cent(record: dict[str, Any]) -> int:
    return 100 if record.get("status") == "ready" else int(float(record.get("progress", 0.0)) * 100)


def _index(form: LexiconUploadForm, status: int = 200) -> ResponseReturnValue:
    store = lexicon_store()
    lexicon_uploads.expire(store)
    uploads = lexicon_uploads.waiting_uploads(store, _director_name())
    page = render_template(
        "lexicons/index.html",
        form=form,
        lexicons=_lexicon_rows(),
        uploads=uploads,
        max_waiting=lexicon_uploads.MAX_WAITING,
    )
    return page, status


def _upload_form() -> LexiconUploadForm:
    form = LexiconUploadForm()
    form.fill_choices(lexicon_store().catalogue())
    return form


@bp.get("/")
@director_required
def index() -> ResponseReturnValue:
    return _index(_upload_form())


@bp.post("/upload")
@director_required
def upload() -> ResponseReturnValue:
    form = _upload_form()
    if not form.validate_on_submit():
        flash_form_errors(form)
        return _index(form, 400)
    upload = form.file.data
    store = lexicon_store()
    try:
        # Stored as it arrives, a chunk at a time; read by the reader process, not here.
        token = lexicon_uploads.receive(
            store,
            upload.stream,
            upload.filename or "",
            rules_code=form.rules.data,
            name=(form.name.data or "").strip(),
            edition=(form.edition.data or "").strip(),
            description=(form.description.data or "").strip(),
            compare_with=form.compare_with.data or "",
            by=_director_name(),
        )
    except Refused as refused:
        return _refused(form, refused)
    lexicon_uploads.start_reading(store)
    return redirect(url_for("lexicons.report", token=token), code=303)


def _refused(form: LexiconUploadForm, refused: Refused) -> ResponseReturnValue:
    """The lexicons page again, the refusal said at the field it is about."""
    message = game_message(refused)
    if refused.code.startswith("lexicon_"):
        form.name.errors = [message]
    else:
        form.file.errors = [message]
    return _index(form, status_of(refused))


@bp.get("/uploads/<token>")
@director_required
def report(token: str) -> ResponseReturnValue:
    """An upload's page: its reading's progress (the page follows it), then its report, or why it cannot be a list
    (the lexicons page again with the message, as the upload's answer gives any other refusal)."""
    store = lexicon_store()
    try:
        record = lexicon_uploads.pending(store, token, _director_name())
    except Refused as refused:
        flash(game_message(refused), "error")
        return redirect(url_for("lexicons.index"), code=303)
    cannot = lexicon_uploads.refusal(record)
    if cannot is not None:
        lexicon_uploads.discard(store, token)  # said once, nothing kept
        form = _upload_form()
        for field in ("rules", "name", "edition", "description", "compare_with"):  # the form as it was sent
            getattr(form, field).data = record.get(field, "")
        return _refused(form, cannot)
    if record["status"] != "read":
        if record["status"] == "queued":
            lexicon_uploads.start_reading(store)  # none running here (a server restarted since): one is started
        return render_template(
            "lexicons/reading.html",
            upload=record,
            token=token,
            per_cent=lexicon_uploads.per_cent(record),
            form=ActionForm(),
        )
    return render_template("lexicons/report.html", upload=record, token=token, form=ActionForm())


@bp.get("/uploads/<token>/status")
@director_required
def upload_status(token: str) -> ResponseReturnValue:
    """How far the reading is, in per cent (the page asks every second); ``gone`` once the upload is not pending."""
    store = lexicon_store()
    try:
        record = lexicon_uploads.pending(store, token, _director_name())
    except Refused:
        return jsonify(status="gone", progress=0)
    if record["status"] == "queued":
        lexicon_uploads.start_reading(store)  # none running here (a server restarted since): one is started
    return jsonify(status=record["status"], progress=lexicon_uploads.per_cent(record))


@bp.post("/uploads/<token>/accept")
@director_required
def accept(token: str) -> ResponseReturnValue:
    if not ActionForm().validate_on_submit():
        abort(400)
    store = lexicon_store()
    try:
        name = lexicon_uploads.accept(store, token, _director_name())
    except Refused as refused:
        flash(game_message(refused), "error")
        if refused.code == "upload_not_read":
            return redirect(url_for("lexicons.report", token=token), code=303)
        return redirect(url_for("lexicons.index"), code=303)
    lexicon_uploads.start_build(store, name)
    return redirect(url_for("lexicons.lexicon", name=name), code=303)


@bp.post("/uploads/<token>/discard")
@director_required
def discard(token: str) -> ResponseReturnValue:
    if ActionForm().validate_on_submit():
        lexicon_uploads.discard(lexicon_store(), token)
        flash(_("The upload is discarded."), "success")
    return redirect(url_for("lexicons.index"), code=303)


def _record(name: str) -> dict[str, Any]:
    record = lexicon_store().imported().get(name)
    if record is None:
        abort(404)
    return record


@bp.get("/<name>")
@director_required
def lexicon(name: str) -> ResponseReturnValue:
    """An imported lexicon: its build's progress (the page follows it), then what it is."""
    record = _record(name)
    return render_template(
        "lexicons/lexicon.html", name=name, lexicon=record, per_cent=_per_cent(record), form=ActionForm()
    )


@bp.get("/<name>/status")
@director_required
def status(name: str) -> ResponseReturnValue:
    """How far the build is, in per cent (the page asks every second)."""
    record = _record(name)
    return jsonify(status=record["status"], progress=_per_cent(record))


@bp.post("/<name>/retry")
@director_required
def retry(name: str) -> ResponseReturnValue:
    if ActionForm().validate_on_submit():
        try:
            lexicon_uploads.retry(lexicon_store(), name)
        except Refused as refused:
            flash(game_message(refused), "error")
    return redirect(url_for("lexicons.lexicon", name=name), code=303)
