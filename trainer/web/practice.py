"""Solo duplicate practice's pages (``/practice``, docs/rules.md §6.27): a learner replays an archived game, or a
fresh draw, alone, round by round; after each round their play against the top and the next best; at the end, for
a replay, the original room's standings with the learner placed in them.

The session is kept on the server (:mod:`trainer.games.practice`): reopening ``/practice/<id>`` after closing the
browser goes on where it was, with a timed round's clock still running meanwhile, as a club night's does."""

from __future__ import annotations

import threading
from collections import OrderedDict
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from math import ceil
from typing import Any

from flask import Blueprint, abort, get_template_attribute, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from markupsafe import Markup
from sqlalchemy import select
from werkzeug.routing import BuildError
from wtforms import BooleanField, HiddenField, IntegerField, SelectField, StringField
from wtforms.validators import NumberRange, Optional

from ..core.accounts import Learner
from ..core.clock import seconds_until, utcnow
from ..core.database import db
from ..core.errors import Refused
from ..core.lexicons import lexicon_store
from ..duplicate import rounds
from ..duplicate.joker import VARIANTS
from ..duplicate.results import percentage
from ..duplicate.settings import BY_NAME, PRESETS
from ..engine.rules import ruleset, ruleset_codes
from ..games import practice, solo
from ..games.display import board_view, notation_of, play_squares, rack_view
from ..games.models import Game, PracticeRound, PracticeSession
from ..http.errors import status_of
from ..http.negotiate import wants_json
from .auth import learner_required, logged_in_learner
from .forms import ActionForm, Form
from .messages import game_message
from .play import keyboard_case

bp = Blueprint("practice", __name__, url_prefix="/practice")

PRESET_NONE = ""
LEXICON_DEFAULT = ""


class ReplayForm(Form):
    game = StringField(_l("Game number"), description=_l("The number in the archive's address: /archives/…"))
    timed = BooleanField(_l("Timed, on the game's clock"), default=True)


class FreshForm(Form):
    rules = SelectField(_l("Rules"), default="en")
    lexicon = SelectField(_l("Lexicon"), default=LEXICON_DEFAULT)
    variant = SelectField(_l("Variant"), default="classic")
    preset = SelectField(_l("Preset"), default="classic")
    round_seconds = IntegerField(
        _l("Seconds a round"),
        validators=[Optional(), NumberRange(BY_NAME["round_seconds"].low, BY_NAME["round_seconds"].high)],
        description=_l("Leave empty to take the preset's."),
    )
    max_rounds = IntegerField(
        _l("Rounds"),
        validators=[Optional(), NumberRange(BY_NAME["max_rounds"].low, BY_NAME["max_rounds"].high)],
        description=_l("Leave empty to play until the bag is empty."),
    )
    timed = BooleanField(_l("Timed"), default=True)

    def fill_choices(self) -> None:
        self.rules.choices = [(code, ruleset(code).name) for code in ruleset_codes()]
        lexicons = lexicon_store().catalogue()
        self.lexicon.choices = [(LEXICON_DEFAULT, _l("Default of the rules"))] + [
            (name, f"{name} ({entry['rules']})") for name, entry in sorted(lexicons.items())
        ]
        self.variant.choices = [(name, _l(title)) for name, title in VARIANTS.items()]
        self.preset.choices = [(name, _l(preset.title)) for name, preset in PRESETS.items()] + [
            (PRESET_NONE, _l("None: the time below"))
        ]

    def settings(self) -> dict[str, Any]:
        """The settings as the practice service takes them (it checks them as a game's, §6.14)."""
        settings: dict[str, Any] = {"rules": self.rules.data, "variant": self.variant.data}
        if self.lexicon.data != LEXICON_DEFAULT:
            settings["lexicon"] = self.lexicon.data
        if self.preset.data != PRESET_NONE:
            settings["preset"] = self.preset.data
        if self.round_seconds.data is not None:
            settings["round_seconds"] = self.round_seconds.data
        if self.max_rounds.data is not None:
            settings["max_rounds"] = self.max_rounds.data
        return settings


class AnswerForm(Form):
    round = HiddenField()
    move = StringField(_l("Your play"))


@dataclass(frozen=True)
class Clock:
    """A timed round's clock as ``_game.html``'s ``clock`` macro draws it (the phone page's)."""

    seconds_left: float
    status: str = "playing"

    @property
    def countdown(self) -> int:
        return ceil(self.seconds_left)


def _learner() -> Learner:
    learner = logged_in_learner()
    assert learner is not None
    return learner


def ordinal(rank: int) -> str:
    """A rank as the reader's language writes it: 1st, 2nd, 3rd, 4th; 1er, 2e."""
    if str(get_locale()) == "fr":
        return "1er" if rank == 1 else f"{rank}e"
    if 10 <= rank % 100 <= 20:
        return f"{rank}th"
    return f"{rank}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(rank % 10, 'th') }"


def placed_text(rank: int, of: int, over: bool) -> str:
    """ "You would have been 4th of 23" (the end), "So far you would be 3rd of 23" (after a round)."""
    if over:
        return _("You would have been %(rank)s of %(of)s.", rank=ordinal(rank), of=of)
    return _("So far you would be %(rank)s of %(of)s.", rank=ordinal(rank), of=of)


def topping_link() -> str | None:
    """The topping page, once it exists (another page of practice, §6.26)."""
    try:
        return url_for("topping.index")
    except BuildError:
        return None


# --- the hub -------------------------------------------------------------------------------------------------


def _hub(replay: ReplayForm | None = None, fresh: FreshForm | None = None, error: str | None = None) -> str:
    learner = _learner()
    replay = replay or ReplayForm(formdata=None, prefix="replay")
    if fresh is None:
        fresh = FreshForm(formdata=None, prefix="fresh")
    fresh.fill_choices()
    listed = [practice.summary(s) for s in practice.sessions(learner, practice.SOLO)]
    games = {line["source_game"] for line in listed if line["source_game"] is not None}
    codes = dict(db.session.execute(select(Game.id, Game.join_code).where(Game.id.in_(games))).all())
    for line in listed:
        line["percentage"] = percentage(line["total"], line["top_total"])
        line["code"] = codes.get(line["source_game"], str(line["source_game"]))
    return render_template(
        "practice/index.html",
        replay=replay,
        fresh=fresh,
        error=error,
        playing=[s for s in listed if s["status"] == practice.PLAYING],
        finished=[s for s in listed if s["status"] == practice.FINISHED],
        topping=topping_link(),
    )


@bp.get("")
@learner_required
def index() -> ResponseReturnValue:
    replay = ReplayForm(formdata=None, prefix="replay")
    asked = request.args.get("game", "")
    if asked.isascii() and asked.isdigit():
        replay.game.data = asked
    return _hub(replay)


@bp.post("/replay")
@learner_required
def replay() -> ResponseReturnValue:
    form = ReplayForm(prefix="replay")
    if not form.validate_on_submit():
        abort(400)
    text = (form.game.data or "").strip()
    game_id = int(text) if text.isascii() and text.isdigit() and len(text) <= 16 else None
    if game_id is None:
        form.game.errors = [_("Write the game's number, as its archive page's address shows it.")]
        return _hub(replay=form), 422
    try:
        session = practice.from_archive(_learner(), game_id, practice.SOLO, bool(form.timed.data))
    except Refused as error:
        return _hub(replay=form, error=game_message(error)), status_of(error)
    return redirect(url_for("practice.session", session_id=session.id), code=303)


@bp.post("/fresh")
@learner_required
def fresh() -> ResponseReturnValue:
    form = FreshForm(prefix="fresh")
    form.fill_choices()
    if not form.validate_on_submit():
        if "csrf_token" in form.errors:
            abort(400)
        return _hub(fresh=form), 422
    try:
        session = practice.fresh(_learner(), form.settings(), practice.SOLO, bool(form.timed.data))
    except Refused as error:
        return _hub(fresh=form, error=game_message(error)), status_of(error)
    return redirect(url_for("practice.session", session_id=session.id), code=303)


# --- a session -----------------------------------------------------------------------------------------------


def _session_or_404(session_id: int) -> PracticeSession:
    try:
        session = practice.session_of(_learner(), session_id)
    except Refused:
        abort(404)
    if session.kind != practice.SOLO:
        abort(404)
    return session


def example_of(session: PracticeSession) -> str:
    return "8D TRAIN" if notation_of(session) == "english" else "H4 TRAIN"


BOARDS_KEPT = 512  # boards drawn (HTML) kept in this process: a few hundred rounds of the learners playing now
_boards: OrderedDict[tuple[object, ...], Markup] = OrderedDict()
_boards_lock = threading.Lock()


def board_html(
    session: PracticeSession, cells: str, tappable: bool = False, highlight: frozenset[tuple[int, int]] = frozenset()
) -> Markup:
    """A board drawn as the phone page draws it (``_game.html``), kept for the next request that shows it: 225
    squares are most of a round page's time, and the next round's board is drawn while its reveal is read."""
    key = (session.rules, session.notation, cells, str(get_locale()), tappable, highlight)
    with _boards_lock:
        kept = _boards.get(key)
        if kept is not None:
            _boards.move_to_end(key)
            return kept
    caption = "" if tappable else _("The board with the top placed")
    drawn = Markup(
        get_template_attribute("_game.html", "board")(
            board_view(session, cells, highlight=set(highlight)), tappable=tappable, caption=caption
        )
    )
    with _boards_lock:
        _boards[key] = drawn
        while len(_boards) > BOARDS_KEPT:
            _boards.popitem(last=False)
    return drawn


def _draw_ahead(session: PracticeSession, number: int) -> None:
    """Draw the next round's board while the learner reads the reveal, when the round is stored already (a replay's
    always; a fresh draw's once the engine has worked it out): the next round's page then only lays it out."""
    try:
        coming = practice.round_of(session, number)
    except Refused:  # not worked out yet, or the session ends before it
        return
    board_html(session, coming.board_before, tappable=True)


def _board_after(session: PracticeSession, round_: PracticeRound) -> str:
    """The board once the round's top is placed (what the reveal shows)."""
    board, _reliquat = rounds.place(practice.setup_of(session), round_.board_before, round_.placed_move, round_.rack)
    return board


def _played(session: PracticeSession) -> tuple[list[PracticeRound], int, int]:
    played = [r for r in session.rounds if r.answered_at is not None]
    return played, sum(r.score for r in played), sum(r.top_score for r in played)


def _page(
    session: PracticeSession, now: datetime, form: AnswerForm | None = None, status: int = 200
) -> tuple[str, int]:
    round_ = practice.current(session, now)
    played, total, top_total = _played(session)
    context: dict[str, Any] = {
        "session": session,
        "source": practice.source_game(session),
        "played": played,
        "total": total,
        "top_total": top_total,
        "pct": percentage(total, top_total),
        "example": example_of(session),
        "notation": notation_of(session),
        "action": ActionForm(),
    }
    if round_ is None:  # the session is over: the summary
        where = solo.placement(session)
        context.update(where=where, placed=placed_text(where.rank, where.of, True) if where else None)
        return render_template("practice/summary.html", **context), status
    context["round"] = round_
    if round_.answered_at is None:
        left = seconds_until(round_.deadline, now) if round_.deadline is not None else None
        form = form or AnswerForm(formdata=None)
        form.round.data = str(round_.number)
        context.update(
            board_html=board_html(session, round_.board_before, tappable=True),
            rack=rack_view(session, round_.rack),
            clock=Clock(max(0.0, left)) if left is not None else None,
            form=form,
            alphabet=ruleset(session.rules).tileset.letters,
        )
        return render_template("practice/round.html", **context), status
    revealed = practice.reveal(round_)
    _draw_ahead(session, round_.number + 1)
    where = solo.placement(session)
    after = _board_after(session, round_)
    context.update(
        reveal=revealed,
        board_html=board_html(
            session, after, highlight=frozenset(play_squares(session, round_.board_before, round_.placed_move))
        ),
        where=where,
        placed=placed_text(where.rank, where.of, False) if where else None,
        legal=sum(count for _score, count in round_.legal_scores or []),
        last=session.rounds_total is not None and round_.number >= session.rounds_total,
    )
    return render_template("practice/reveal.html", **context), status


@bp.get("/<game_id:session_id>")
@learner_required
def session(session_id: int) -> ResponseReturnValue:
    return _page(_session_or_404(session_id), utcnow())


@bp.post("/<game_id:session_id>/answer")
@learner_required
def answer(session_id: int) -> ResponseReturnValue:
    session = _session_or_404(session_id)
    form = AnswerForm()
    if not form.validate_on_submit():
        abort(400)
    posted = form.round.data or ""
    number = int(posted) if posted.isascii() and posted.isdigit() and len(posted) < 10 else session.round_number
    text = "" if "pass" in request.form else keyboard_case(form.move.data or "").strip()
    here = url_for("practice.session", session_id=session.id)
    if not text and "pass" not in request.form:  # Hand in with nothing written: not a pass by mistake
        message = _("Write your play first, like %(example)s.", example=example_of(session))
        if wants_json():
            return {"ok": False, "error": message}, 422
        form.move.errors = [message]
        return _page(session, utcnow(), form, 422)
    try:
        solo.answer(session, number, text)
    except Refused as error:
        if error.code in ("already_answered", "practice_over", "round_not_started"):
            # answered already (a second tap, another tab) or the clock ran out: the page shows where it is
            if wants_json():
                return {"ok": True, "location": here}
            return redirect(here, code=303)
        message = game_message(error, example_of(session))
        if wants_json():
            return {"ok": False, "error": message}, status_of(error)
        form.move.errors = [message]
        return _page(session, utcnow(), form, status_of(error))
    if wants_json():
        return {"ok": True, "location": here}
    return redirect(here, code=303)


@bp.post("/<game_id:session_id>/next")
@learner_required
def next_round(session_id: int) -> ResponseReturnValue:
    session = _session_or_404(session_id)
    if not ActionForm().validate_on_submit():
        abort(400)
    with suppress(Refused):  # already moved on (a second tap, another tab): the page shows where the session is
        practice.advance(session)
    return redirect(url_for("practice.session", session_id=session.id), code=303)


@bp.post("/<game_id:session_id>/stop")
@learner_required
def stop(session_id: int) -> ResponseReturnValue:
    """End the session after the round just revealed: the summary counts the rounds played (docs/rules.md §6.27)."""
    session = _session_or_404(session_id)
    if not ActionForm().validate_on_submit():
        abort(400)
    with suppress(Refused):  # over already (another tab), or a round in play: the page shows where the session is
        practice.stop(session)
    return redirect(url_for("practice.session", session_id=session.id), code=303)
