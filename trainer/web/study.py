"""Word study pages (``/study``): learners' accounts, decks, the study page, progress, import and export.

The study page works as plain forms (answer, then grade) so it needs no script; ``study.js`` adds the
keyboard flow (Enter adds a word with instant feedback, Space reveals, 1–4 grade, U undoes).
"""

from __future__ import annotations

import tempfile
from datetime import datetime
from decimal import Decimal
from pathlib import Path

from flask import Blueprint, Response, abort, flash, jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import format_date
from flask_babel import gettext as _
from fsrs import Scheduler
from werkzeug.datastructures import FileStorage

from drills.cardbox import import_cardbox, read_cardbox
from drills.cards import split_answers
from drills.registry import check

from ..core import accounts
from ..core.accounts import Learner
from ..core.clock import aware, utcnow
from ..core.database import db
from ..core.errors import Refused
from ..core.lexicons import lexicon_store
from ..http.body import MAX_UPLOAD
from ..http.ids import posted_number
from ..http.negotiate import wants_json
from ..http.ratelimit import limited, refused_guess
from ..study import service
from ..study.models import Deck, DeckCard, Review
from .auth import learner_required, log_in, logged_in_learner
from .common import safe_next
from .forms import ActionForm, DeckForm, ImportForm, LearnerForm
from .messages import game_message

bp = Blueprint("study", __name__, url_prefix="/study")


def _learner_deck(deck_id: int) -> Deck:
    learner = logged_in_learner()
    assert learner is not None
    try:
        return service.deck_of(learner, deck_id)
    except Refused:
        abort(404)


@bp.route("/login", methods=["GET", "POST"])
@limited("login")
def login() -> ResponseReturnValue:
    form = LearnerForm()
    if form.validate_on_submit():
        learner = accounts.authenticate_learner(form.username.data, form.password.data)
        if learner is not None:
            log_in(learner)
            return redirect(safe_next() or url_for("study.decks"), code=303)
        refused_guess()
        form.password.errors = [_("Wrong name or password.")]
    return render_template("drills/login.html", form=form, signup=False), 200 if request.method == "GET" else 400


@bp.route("/signup", methods=["GET", "POST"])
@limited("signup")
def signup() -> ResponseReturnValue:
    form = LearnerForm()
    if form.validate_on_submit():
        try:
            learner = accounts.create_learner(form.username.data, form.password.data)
        except Refused as error:
            target = form.password if error.code == "short_password" else form.username
            target.errors = [game_message(error)]
        else:
            log_in(learner)
            return redirect(url_for("study.decks"), code=303)
    return render_template("drills/login.html", form=form, signup=True), 200 if request.method == "GET" else 400


@bp.get("/")
@learner_required
def decks() -> ResponseReturnValue:
    learner = logged_in_learner()
    assert learner is not None
    now = utcnow()
    rows = [(deck, service.deck_summary(deck, now)) for deck in service.decks_of(learner)]
    return render_template("drills/decks.html", decks=rows, form=ActionForm())


def _lexicon_choices() -> list[tuple[str, str]]:
    """Every lexicon games can use, a club's imported ones too: its name, edition and description."""
    return [
        (name, " · ".join(part for part in (name, entry.get("edition", ""), entry["description"]) if part))
        for name, entry in sorted(lexicon_store().catalogue().items())
    ]


@bp.route("/decks/new", methods=["GET", "POST"])
@learner_required
def new_deck() -> ResponseReturnValue:
    learner = logged_in_learner()
    assert learner is not None
    form = DeckForm()
    form.lexicon.choices = _lexicon_choices()
    if form.validate_on_submit():
        try:
            deck, skipped = service.create_deck(
                learner,
                form.name.data,
                form.lexicon.data,
                form.source(),
                form.new_per_day.data or 0,
                form.reviews_per_day.data or 0,
                float(form.desired_retention.data or Decimal("0.9")),
            )
        except Refused as error:
            flash(game_message(error), "error")
        else:
            _say_skipped(skipped)
            return redirect(url_for("study.study", deck_id=deck.id), code=303)
    return render_template("drills/new_deck.html", form=form), 200 if request.method == "GET" else 400


@bp.route("/decks/import", methods=["GET", "POST"])
@learner_required
def import_deck() -> ResponseReturnValue:
    learner = logged_in_learner()
    assert learner is not None
    form = ImportForm()
    form.lexicon.choices = _lexicon_choices()
    if form.validate_on_submit():
        upload: FileStorage = form.file.data
        try:
            deck, skipped = _import(learner, form.name.data or "", form.lexicon.data, upload)
        except Refused as error:
            form.file.errors = [game_message(error)]
        else:
            if deck.status == "building":  # under the server: its page follows the import
                return redirect(url_for("study.study", deck_id=deck.id), code=303)
            flash(_("%(n)s cards imported.", n=service.deck_summary(deck, utcnow())["cards"]), "success")
            _say_skipped(skipped)
            return redirect(url_for("study.decks"), code=303)
    return render_template("drills/import.html", form=form), 200 if request.method == "GET" else 400


def _say_skipped(skipped: list[tuple[str, str]] | list[list[str]]) -> None:
    if skipped:
        flash(
            _(
                "%(n)s lines were left out (no valid word): %(lines)s",
                n=len(skipped),
                lines=", ".join(line for line, _why in skipped[:10]),
            ),
            "error",
        )


def _import(learner: Learner, name: str, lexicon_name: str, upload: FileStorage) -> tuple[Deck, list[tuple[str, str]]]:
    """A Zyzzyva cardbox (an SQLite file, schedule kept) or a plain word list (new cards)."""
    data = upload.read(MAX_UPLOAD + 1)
    if len(data) > MAX_UPLOAD:
        raise Refused("file_too_big", f"the file is larger than {MAX_UPLOAD // (1024 * 1024)} MB")
    if data.startswith(b"SQLite format 3\x00"):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "cardbox.db"
            path.write_bytes(data)
            try:
                rows = read_cardbox(path)
            except Exception:  # any malformed database: say so, never a 500
                raise Refused("not_a_cardbox", "this is not a Zyzzyva cardbox") from None
        lexicon = lexicon_store().load(lexicon_name)
        imported = import_cardbox(rows, lexicon, utcnow(), Scheduler())
        return service.create_deck(
            learner, name, lexicon_name, {"kind": "cardbox", "file": upload.filename or ""}, states=imported.states
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return service.create_deck(learner, name, lexicon_name, {"kind": "words", "text": text})


@bp.get("/decks/<id:deck_id>")
@learner_required
def study(deck_id: int) -> ResponseReturnValue:
    """The next card of the deck, or the day's end; while the deck is built, its progress (or why it failed)."""
    deck = _learner_deck(deck_id)
    if deck.status != "ready":
        problem = deck.problem or {}
        refusal = Refused(
            str(problem.get("code", "build_failed")), str(problem.get("message", "")), **problem.get("params", {})
        )
        return render_template("drills/building.html", deck=deck, problem=game_message(refusal))
    if deck.skipped:  # a deck built in the background: its lines left out, said once
        _say_skipped(deck.skipped)
        deck.skipped = None
        db.session.commit()
    now = utcnow()
    picked = service.next_card(deck, now)
    summary = service.deck_summary(deck, now)
    if picked is None:
        return render_template("drills/study.html", deck=deck, card=None, summary=summary, form=ActionForm())
    row, pick = picked
    card = service.card_of(deck, row)
    return render_template(
        "drills/study.html",
        deck=deck,
        card=card,
        row=row,
        pick=pick,
        summary=summary,
        form=ActionForm(),
        shown_at=now.isoformat(),
        last=service.last_review(deck),
    )


@bp.post("/decks/<id:deck_id>/check")
@learner_required
def check_word(deck_id: int) -> ResponseReturnValue:
    """Instant feedback on one typed word (nothing is recorded)."""
    deck = _learner_deck(deck_id)
    if not ActionForm().validate_on_submit():
        return jsonify(error=_("Form expired: reload the page.")), 400
    row = _row(deck)
    card = service.card_of(deck, row)
    words = split_answers([request.form.get("word", "")])
    feedback = check(card, words)
    return jsonify(right=list(feedback.right), wrong=[w.answer for w in feedback.wrong])


def _row(deck: Deck) -> DeckCard:
    number = request.form.get("card", "")
    try:
        return service.deck_card(deck, posted_number(number))
    except Refused:
        abort(404)


@bp.post("/decks/<id:deck_id>/answer")
@learner_required
def answer(deck_id: int) -> ResponseReturnValue:
    deck = _learner_deck(deck_id)
    if not ActionForm().validate_on_submit():
        flash(_("Form expired: reload the page."), "error")
        return redirect(url_for("study.study", deck_id=deck.id), code=303)
    row = _row(deck)
    typed = split_answers([request.form.get("answers", "")])
    seconds = _seconds()
    _feedback, review = service.answer(deck, row, typed, seconds, missed=request.form.get("missed") == "1")
    if wants_json():
        return jsonify(review=review.id, rating=review.rating)
    return redirect(url_for("study.reviewed", deck_id=deck.id, review_id=review.id), code=303)


def _seconds() -> float:
    """Time spent on the card: measured by the page's script, else from when the page was served."""
    text = request.form.get("seconds", "")
    try:
        value = float(text)
        if 0 <= value < 24 * 3600:
            return value
    except ValueError:
        pass
    try:
        shown = aware(datetime.fromisoformat(request.form.get("shown_at", "")))  # a time without a zone is UTC
        return max(0.0, (utcnow() - shown).total_seconds())
    except (ValueError, OverflowError):
        return 0.0


@bp.get("/decks/<id:deck_id>/reviews/<id:review_id>")
@learner_required
def reviewed(deck_id: int, review_id: int) -> ResponseReturnValue:
    """The answer just graded: right, wrong and missed words, the whole answer set, the grade."""
    deck = _learner_deck(deck_id)
    review = db.session.get(Review, review_id)
    if review is None or review.deck_id != deck.id:
        abort(404)
    row = service.deck_card(deck, review.deck_card_id)
    card = service.card_of(deck, row)
    feedback = check(card, review.answers)
    last = service.last_review(deck)
    return render_template(
        "drills/reviewed.html",
        deck=deck,
        card=card,
        review=review,
        feedback=feedback,
        form=ActionForm(),
        can_change=last is not None and last.id == review.id,
    )


@bp.post("/decks/<id:deck_id>/grade")
@learner_required
def grade(deck_id: int) -> ResponseReturnValue:
    deck = _learner_deck(deck_id)
    if ActionForm().validate_on_submit():
        text = request.form.get("rating", "")
        try:
            service.regrade(deck, posted_number(text))
        except Refused as error:
            flash(game_message(error), "error")
    return redirect(url_for("study.study", deck_id=deck.id), code=303)


@bp.post("/decks/<id:deck_id>/undo")
@learner_required
def undo(deck_id: int) -> ResponseReturnValue:
    deck = _learner_deck(deck_id)
    if ActionForm().validate_on_submit():
        try:
            service.undo(deck)
        except Refused as error:
            flash(game_message(error), "error")
        else:
            flash(_("The last grade is undone."), "success")
    return redirect(url_for("study.study", deck_id=deck.id), code=303)


@bp.get("/decks/<id:deck_id>/status")
@learner_required
def deck_status(deck_id: int) -> ResponseReturnValue:
    """How far the deck's building is (its page asks every second)."""
    deck = _learner_deck(deck_id)
    return jsonify(status=deck.status, progress=deck.progress)


@bp.post("/decks/<id:deck_id>/delete")
@learner_required
def delete_deck(deck_id: int) -> ResponseReturnValue:
    deck = _learner_deck(deck_id)
    if ActionForm().validate_on_submit():
        name = deck.name
        service.delete_deck(deck)
        flash(_("The deck “%(name)s” is deleted.", name=name), "success")
    return redirect(url_for("study.decks"), code=303)


@bp.get("/progress")
@learner_required
def progress() -> ResponseReturnValue:
    learner = logged_in_learner()
    assert learner is not None
    figures = service.progress(learner, utcnow())
    # Day labels as the reader writes dates (day and month), for the charts' axes.
    figures["reviews_rows"] = [(format_date(day, "d MMM"), count) for day, count in figures["reviews"]]
    figures["due_rows"] = [(format_date(day, "d MMM"), count) for day, count in figures["due"]]
    names = {
        "< 1 d": _("under a day"),
        "1–7 d": _("1–7 days"),
        "1–4 wk": _("1–4 weeks"),
        "1–3 mo": _("1–3 months"),
        "3–12 mo": _("3–12 months"),
        "> 1 yr": _("over a year"),
    }
    figures["stability"] = [(names.get(label, label), count) for label, count in figures["stability"]]
    return render_template("drills/progress.html", figures=figures)


@bp.get("/decks/<id:deck_id>/export.csv")
@learner_required
def export(deck_id: int) -> ResponseReturnValue:
    deck = _learner_deck(deck_id)
    response = Response(service.export_csv(deck), content_type="text/csv; charset=utf-8")
    response.headers["Content-Disposition"] = f'attachment; filename="tirage-deck-{deck.id}.csv"'
    return response
