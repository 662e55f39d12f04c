"""Word study pages (``/study``): learners' accounts, decks, the study page, progress, import and export; a deck's
page (its backlog, its list, its exports) and its card browser (each card's fsrs state and history).

The study page works as plain forms (answer, then grade) so it needs no script; ``study.js`` adds the
keyboard flow (Enter adds a word with instant feedback, Space reveals, 1–4 grade, U undoes).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from functools import wraps
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, flash, jsonify, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import format_date, format_decimal, ngettext
from flask_babel import gettext as _
from fsrs import Scheduler
from werkzeug.datastructures import FileStorage

from drills.backlog import mean_recall
from drills.cardbox import LETTERS, NO_WORD, CardboxImport, CardboxLine, import_cardbox, read_cardbox
from drills.cards import grouped_answers, split_answers
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
from ..study import browser, lists, postpone, service
from ..study.models import Deck, DeckCard, Review
from .auth import learner_required, log_in, logged_in_learner
from .common import safe_next
from .forms import ActionForm, DeckForm, ImportForm, LearnerForm
from .history import origins
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
            imported = service.deck_summary(deck, utcnow())["cards"]
            flash(ngettext("%(num)s card imported.", "%(num)s cards imported.", imported), "success")
            _say_skipped(skipped)
            return redirect(url_for("study.decks"), code=303)
    return render_template("drills/import.html", form=form), 200 if request.method == "GET" else 400


def _say_skipped(skipped: list[tuple[str, str]] | list[list[str]]) -> None:
    if skipped:
        flash(
            ngettext(
                "%(num)s line was left out (no valid word): %(lines)s",
                "%(num)s lines were left out (no valid word): %(lines)s",
                len(skipped),
                lines=", ".join(line for line, _why in skipped[:10]),
            ),
            "error",
        )


REPORTED_LINES = 10  # the report names the first rows of each kind, then counts the rest


def _cardbox_line(line: CardboxLine, lexicon: str) -> str:
    if line.reason == LETTERS:
        why = _("“%(letters)s” is not a letter of the tiles", letters=line.detail)
    elif line.reason == NO_WORD:
        why = _("no word of %(lexicon)s", lexicon=lexicon)
    else:
        return _("line %(n)s: no question", n=line.number)
    return _("line %(n)s, %(question)s: %(why)s", n=line.number, question=line.question, why=why)


def _say_cardbox_report(imported: CardboxImport) -> None:
    """The rows of a cardbox that made no card, with why, and those merged into an earlier row's card, as the word
    list's report says them (docs/rules.md §7.10); the first :data:`REPORTED_LINES` of each named."""

    def named(lines: list[str], total: int) -> str:
        more = total - len(lines)
        return "; ".join(lines) + (_(" … and %(n)s more", n=more) if more > 0 else "")

    if imported.left_out:
        lines = [_cardbox_line(line, imported.lexicon) for line in imported.left_out[:REPORTED_LINES]]
        count = len(imported.left_out)
        said = ngettext(
            "%(num)s line of the cardbox was left out: %(lines)s",
            "%(num)s lines of the cardbox were left out: %(lines)s",
            count,
            lines=named(lines, count),
        )
        flash(said, "error")
    if imported.merged:
        lines = [
            _(
                "line %(n)s, %(question)s: as line %(kept)s, %(first)s",
                n=m.number,
                question=m.question,
                kept=m.kept,
                first=m.detail,
            )
            for m in imported.merged[:REPORTED_LINES]
        ]
        count = len(imported.merged)
        said = ngettext(
            "%(num)s line of the cardbox was the card of an earlier line, whose schedule is kept: %(lines)s",
            "%(num)s lines of the cardbox were the card of an earlier line, whose schedule is kept: %(lines)s",
            count,
            lines=named(lines, count),
        )
        flash(said, "error")


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
        _say_cardbox_report(imported)  # before the deck is made: said with a refusal too (no card at all)
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
    ahead = _ahead()
    picked = service.next_card(deck, now, ahead)
    summary = service.deck_summary(deck, now)
    if picked is None:  # the day's end: what the next day holds, and studying ahead only when asked (§7.8)
        coming = service.coming(deck, now)
        next_due = coming["next_due"]
        return render_template(
            "drills/study.html",
            deck=deck,
            card=None,
            summary=summary,
            coming=coming,
            next_day=format_date(service.boundary_of(deck).day(next_due), "d MMMM") if next_due else "",
            ahead=ahead,
            form=ActionForm(),
            last=service.last_review(deck),
        )
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
        ahead=ahead,
    )


def _card_page(deck: Deck, row: DeckCard, typed: list[str], spent: float, problem: str) -> ResponseReturnValue:
    """The card asked again, the words typed kept and what is wrong with them said (a typo, §7.6)."""
    flash(problem, "error")
    return render_template(
        "drills/study.html",
        deck=deck,
        card=service.card_of(deck, row),
        row=row,
        pick=None,
        summary=service.deck_summary(deck, utcnow()),
        form=ActionForm(),
        shown_at=utcnow().isoformat(),
        last=service.last_review(deck),
        ahead=_ahead(),
        typed=" ".join(typed),
        spent=f"{spent:.1f}",
    ), 422


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
    try:
        _feedback, review = service.answer(deck, row, typed, seconds, missed=request.form.get("missed") == "1")
    except Refused as error:
        if error.code != "letters_not_on_card":
            raise
        problem = game_message(error)
        if wants_json():
            return jsonify(error=problem, code=error.code), 422
        return _card_page(deck, row, typed, seconds, problem)
    if wants_json():
        return jsonify(review=review.id, rating=review.rating)
    return redirect(url_for("study.reviewed", deck_id=deck.id, review_id=review.id, **_ahead_args()), code=303)


def _ahead() -> bool:
    """Did the learner ask to study ahead (the day's end's button; kept by the answer and grade forms)?"""
    return (request.values.get("ahead") or "") == "1"


def _ahead_args() -> dict[str, Any]:
    return {"ahead": "1"} if _ahead() else {}


def _seconds() -> float:
    """Time spent on the card: measured by the page's script, else from when the page was served; plus the time
    spent before the card was asked again (``spent``, a typo)."""
    return _seconds_field("seconds", _since_shown()) + _seconds_field("spent", 0.0)


def _seconds_field(name: str, otherwise: float) -> float:
    try:
        value = float(request.form.get(name, ""))
        if 0 <= value < 24 * 3600:
            return value
    except ValueError:
        pass
    return otherwise


def _since_shown() -> float:
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
        groups=grouped_answers(card, feedback),
        form=ActionForm(),
        can_change=last is not None and last.id == review.id,
        ahead=_ahead(),
        intervals={rating: _short_interval(wait) for rating, wait in service.next_intervals(deck, review).items()},
        hooks=service.answer_hooks(deck, card),
    )


def _short_interval(wait: timedelta) -> str:
    """A wait as a grade button says it, like Anki: "10 min", "5 h", "8 d", "3.5 mo", "1.2 y"."""
    minutes = wait.total_seconds() / 60
    if minutes < 59.5:
        return _("%(n)s min", n=max(1, round(minutes)))
    if minutes < 23.5 * 60:
        return _("%(n)s h", n=round(minutes / 60))
    days = minutes / 1440
    if days < 99.5:
        return _("%(n)s d", n=round(days))
    if days < 365:
        return _("%(n)s mo", n=format_decimal(days / 30.44, "0.#"))
    return _("%(n)s y", n=format_decimal(days / 365.25, "0.#"))


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
    return redirect(url_for("study.study", deck_id=deck.id, **_ahead_args()), code=303)


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
            card = posted_number(request.form.get("card_page", ""))
            if card is not None:  # the undo button of a card's page goes back there
                return redirect(url_for("study.card", deck_id=deck.id, card_id=card), code=303)
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
    for name in ("reviews_rows", "due_rows", "stability"):
        figures[name + "_axis"] = service.axis_ticks(max((count for _label, count in figures[name]), default=0))
    figures["retention_rows"] = [
        (format_date(start, "d MMM"), round(share * 100) if share is not None else None, count)
        for start, share, count in figures["retention_weeks"]
    ]
    return render_template("drills/progress.html", figures=figures, percent_axis=[0, 25, 50, 75, 100])


@bp.get("/decks/<id:deck_id>/export.csv")
@learner_required
def export(deck_id: int) -> ResponseReturnValue:
    deck = _learner_deck(deck_id)
    response = Response(service.export_csv(deck), content_type="text/csv; charset=utf-8")
    response.headers["Content-Disposition"] = f'attachment; filename="tirage-deck-{deck.id}.csv"'
    return response


@bp.get("/decks/<id:deck_id>/cardbox.db")
@learner_required
def export_cardbox(deck_id: int) -> ResponseReturnValue:
    """The deck's anagram cards already studied, as a Zyzzyva cardbox file (docs/rules.md §7.10)."""
    deck = _learner_deck(deck_id)
    response = Response(service.export_cardbox_file(deck), content_type="application/vnd.sqlite3")
    response.headers["Content-Disposition"] = f'attachment; filename="tirage-deck-{deck.id}-Anagrams.db"'
    return response


# --- a deck's page, its backlog, its list, its cards -------------------------------------------------


def _ready_deck(view: Callable[..., ResponseReturnValue]) -> Callable[..., ResponseReturnValue]:
    """A view of the learner's built deck, given the deck; while it is built, its study page (the build's progress)."""

    @wraps(view)
    def wrapper(deck_id: int, **kwargs: Any) -> ResponseReturnValue:
        deck = _learner_deck(deck_id)
        if deck.status != "ready":
            return redirect(url_for("study.study", deck_id=deck_id), code=303)
        return view(deck, **kwargs)

    return wrapper


def _form_expired(back: str, deck: Deck) -> ResponseReturnValue:
    """A deck page's form without its CSRF token (an old tab): said, and back to ``back``."""
    flash(_("Form expired: reload the page."), "error")
    return redirect(url_for(back, deck_id=deck.id), code=303)


def _one_decimal(value: float | None) -> str:
    return str(format_decimal(value, "0.0")) if value is not None else "–"


def _per_cent(value: float | None) -> str:
    return str(format_decimal(value * 100, "0")) if value is not None else "–"


def _days(value: float) -> timedelta:
    """A number of days (an fsrs stability) as a wait, for the ``duration`` macro: 0.064 days (92 minutes) reads
    "2 hours"."""
    return timedelta(days=value)


bp.add_app_template_filter(_one_decimal, "one_decimal")
bp.add_app_template_filter(_days, "days")
bp.add_app_template_filter(_per_cent, "per_cent")


@bp.get("/decks/<id:deck_id>/overview")
@learner_required
@_ready_deck
def deck_page(deck: Deck) -> ResponseReturnValue:
    """A deck at a glance: its figures, its backlog (and moving it), what its list is, its exports."""
    now = utcnow()
    return render_template(
        "drills/deck.html",
        deck=deck,
        summary=service.deck_summary(deck, now),
        backlog=postpone.backlog(deck, now),
        editable=lists.editable(deck),
        form=ActionForm(),
        anagrams=deck.source.get("kind") in ("anagram", "words", "cardbox", "games"),  # what a cardbox can hold
    )


@bp.post("/decks/<id:deck_id>/postpone")
@learner_required
@_ready_deck
def postpone_backlog(deck: Deck) -> ResponseReturnValue:
    if not ActionForm().validate_on_submit():
        return _form_expired("study.deck_page", deck)
    how = request.form.get("how", "")
    days = posted_number(request.form.get("spread_days" if how == "spread" else "postpone_days", ""))
    try:
        moved = postpone.move_backlog(deck, how, days)
    except Refused as error:
        flash(game_message(error), "error")
        return redirect(url_for("study.deck_page", deck_id=deck.id), code=303)
    recall = mean_recall(moved)
    if recall is None:
        flash(_("No review was due: nothing moved."), "success")
    else:
        flash(
            ngettext(
                "%(num)s review moved. When it comes back you should recall it %(then)s %% of the time"
                " (%(now)s %% now).",
                "%(num)s reviews moved. When they come back you should recall them %(then)s %% of the time on"
                " average (%(now)s %% now).",
                len(moved),
                then=_per_cent(recall[1]),
                now=_per_cent(recall[0]),
            ),
            "success",
        )
    return redirect(url_for("study.deck_page", deck_id=deck.id), code=303)


@bp.get("/decks/<id:deck_id>/cards")
@learner_required
@_ready_deck
def cards(deck: Deck) -> ResponseReturnValue:
    """Every card of the deck, searched (a question or an answer), filtered (state, due), 50 a page."""
    query = browser.read_query(request.args)
    page = browser.browse(deck, query)
    args: dict[str, Any] = {"deck_id": deck.id, **page.query.as_args()}
    links = {}
    if page.query.page > 1:
        links["previous"] = url_for("study.cards", **args, page=page.query.page - 1)
    if page.query.page < page.pages:
        links["next"] = url_for("study.cards", **args, page=page.query.page + 1)
    return render_template(
        "drills/cards.html",
        deck=deck,
        page=page,
        links=links,
        prompts={listed.row.id: _prompt(deck, listed.row) for listed in page.cards},
        end_of_day=service.boundary_of(deck).end(utcnow()),
    )


def _prompt(deck: Deck, row: DeckCard) -> str:
    """A card's question as the study page shows it (its id's key, when the card is no longer in the lexicon)."""
    try:
        return service.card_of(deck, row).prompt
    except ValueError:
        return row.card_id.split(":", 2)[-1]


def _deck_card(deck: Deck, card_id: int) -> DeckCard:
    try:
        return service.deck_card(deck, card_id)
    except Refused:
        abort(404)


@bp.get("/decks/<id:deck_id>/cards/<id:card_id>")
@learner_required
def card(deck_id: int, card_id: int) -> ResponseReturnValue:
    """One card: its question and answers (a stem's by added letter), what fsrs knows of it, its history."""
    deck = _learner_deck(deck_id)
    row = _deck_card(deck, card_id)
    drill = service.card_of(deck, row)
    last = service.last_review(deck)
    return render_template(
        "drills/card.html",
        deck=deck,
        row=row,
        card=drill,
        groups=grouped_answers(drill),
        facts=browser.facts(deck, row),
        history=browser.history(row),
        form=ActionForm(),
        can_undo=last is not None and last.deck_card_id == row.id,
        editable=lists.editable(deck),
        back=safe_next(),
        origins=origins(row.id),  # a card of the From my games deck: the rounds it came from (docs/rules.md §7.12)
    )


@bp.post("/decks/<id:deck_id>/cards/<id:card_id>/missed")
@learner_required
def mark_missed(deck_id: int, card_id: int) -> ResponseReturnValue:
    """ "I got this wrong": the card is graded Again now, as if answered (docs/rules.md §7.12)."""
    deck = _learner_deck(deck_id)
    row = _deck_card(deck, card_id)
    if ActionForm().validate_on_submit():
        browser.mark_missed(deck, row)
        flash(_("Marked missed: the card is graded Again and comes back soon."), "success")
    else:
        flash(_("Form expired: reload the page."), "error")
    return redirect(url_for("study.card", deck_id=deck.id, card_id=row.id), code=303)


@bp.get("/decks/<id:deck_id>/list")
@learner_required
@_ready_deck
def edit_list(deck: Deck) -> ResponseReturnValue:
    """Add words to a deck made from words, or choose words to remove; a generated deck says what it is."""
    return render_template("drills/list.html", deck=deck, editable=lists.editable(deck), form=ActionForm())


@bp.post("/decks/<id:deck_id>/list/add")
@learner_required
@_ready_deck
def add_words(deck: Deck) -> ResponseReturnValue:
    if not ActionForm().validate_on_submit():
        return _form_expired("study.edit_list", deck)
    try:
        added = lists.add_words(deck, request.form.get("words", ""))
    except Refused as error:
        flash(game_message(error), "error")
        return redirect(url_for("study.edit_list", deck_id=deck.id), code=303)
    flash(ngettext("%(num)s card added.", "%(num)s cards added.", len(added.card_ids)), "success")
    if added.present:
        flash(
            ngettext("%(num)s word was in the deck already.", "%(num)s words were in the deck already.", added.present),
            "success",
        )
    _say_skipped(added.skipped)
    return redirect(url_for("study.edit_list", deck_id=deck.id), code=303)


@bp.post("/decks/<id:deck_id>/list/remove")
@learner_required
@_ready_deck
def remove_words(deck: Deck) -> ResponseReturnValue:
    """Removing is two steps: the words (or a card's button) show the cards and the reviews that would go; the
    confirmation (``confirm=1`` with the cards' ids) deletes them."""
    if not ActionForm().validate_on_submit():
        return _form_expired("study.edit_list", deck)
    try:
        if request.form.get("confirm") == "1":
            ids = [n for n in (posted_number(v) for v in request.form.getlist("card")) if n is not None]
            removed, reviews = lists.remove_cards(deck, ids)
            said = _("Cards removed: %(cards)s; reviews deleted with them: %(n)s.", cards=removed, n=reviews)
            flash(said, "success")
            return redirect(url_for("study.edit_list", deck_id=deck.id), code=303)
        words = request.form.get("words", "")
        ids = [n for n in (posted_number(v) for v in request.form.getlist("card")) if n is not None]
        if ids:  # a card's page: that card
            rows = [service.deck_card(deck, n) for n in ids]
            words = "\n".join(row.card_id.rpartition(":")[2] for row in rows)
        named = lists.cards_named(deck, words)
    except Refused as error:
        flash(game_message(error), "error")
        return redirect(url_for("study.edit_list", deck_id=deck.id), code=303)
    return render_template(
        "drills/remove.html",
        deck=deck,
        named=named,
        prompts={row.id: _prompt(deck, row) for row, _reviews in named.cards},
        reviews=sum(count for _row, count in named.cards),
        form=ActionForm(),
    )
