"""Topping alone, the pages (``/practice/topping``, docs/rules.md §6.28): start a session on an archived game or a
fresh draw with its costs, play a round (board, rack, the clock counting up from the server's ``shown_at``, plays,
hints, giving up), see what it cost once over, go on, and the records at the end.

Every form posts with its CSRF token and comes back to the round's page (post, redirect, get); a refusal is said in
the reader's language as a flash, never an error page. Views stay thin: :mod:`trainer.games.solo_topping` decides.
"""

from __future__ import annotations

from typing import Any, cast

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _

from ..core.accounts import Learner
from ..core.clock import iso, utcnow
from ..core.errors import Refused
from ..core.lexicons import lexicon_store
from ..duplicate.joker import VARIANTS
from ..duplicate.topping import DEFAULT_COSTS, HINT_KINDS, RANGES, RECORD_MIN_ROUNDS
from ..engine.rules import ruleset_codes
from ..games import practice, solo_topping
from ..games.display import board_view, rack_view
from ..games.models import Game, PracticeSession
from ..http.ids import posted_game_id, posted_number
from .auth import learner_required, logged_in_learner
from .forms import LEXICON_DEFAULT, ActionForm
from .messages import game_message

bp = Blueprint("topping", __name__, url_prefix="/practice/topping")

COST_FIELDS = tuple(RANGES)  # limit_seconds, penalty_seconds, wrong_play_seconds, then each hint's
DEFAULT_ROUNDS = 5
MAX_FORM_ROUNDS = 100


def _learner() -> Learner:
    learner = logged_in_learner()
    assert learner is not None  # learner_required
    return learner


def cost_labels() -> dict[str, str]:
    """Each cost's name in the reader's language."""
    return {
        "limit_seconds": _("Time limit of a round"),
        "penalty_seconds": _("Penalty of a round not found"),
        "wrong_play_seconds": _("A wrong play"),
        "length": _("Hint: the length"),
        "direction": _("Hint: the direction"),
        "square": _("Hint: the first square"),
        "letter": _("Hint: a letter"),
    }


def hint_buttons() -> dict[str, str]:
    return {
        "length": _("The length"),
        "direction": _("Direction"),
        "square": _("First square"),
        "letter": _("Next letter"),
    }


def hint_text(shown: solo_topping.HintShown) -> str:
    """What a hint taken showed, in the reader's language."""
    h = shown.hint
    if h.kind == "length":
        return _("Length: %(n)s letters", n=h.value)
    if h.kind == "direction":
        return _("Direction: across") if h.value == "across" else _("Direction: down")
    if h.kind == "square":
        return _("First square: %(square)s", square=h.value)
    return _("Letter %(position)s: %(letter)s", position=h.position, letter=h.value)


def seconds_text(value: float | None) -> str:
    """Seconds to the tenth as the pages write them: 77.3, 240 (no ".0"), a decimal comma in French."""
    text = f"{float(value or 0.0):.1f}"
    text = text[:-2] if text.endswith(".0") else text
    return text.replace(".", ",") if str(get_locale()) == "fr" else text


def _as_game(session: PracticeSession) -> Game:
    """The board and rack views read a game's ``rules`` and ``notation``, which a session has as a game has."""
    return cast(Game, session)


@bp.get("")
@learner_required
def index() -> ResponseReturnValue:
    learner = _learner()
    asked = posted_game_id(request.args.get("game"))
    return _index_page(learner, {"source": "game" if asked else "fresh", "game": asked or ""}, 200)


def _index_page(learner: Learner, values: dict[str, Any], status: int) -> ResponseReturnValue:
    listed = practice.sessions(learner, practice.TOPPING)
    costs = DEFAULT_COSTS.as_dict()
    shown = {
        "source": "fresh",
        "game": "",
        "rules": "en",
        "lexicon": LEXICON_DEFAULT,
        "variant": "classic",
        "rounds": DEFAULT_ROUNDS,
        **costs,
        **values,
    }
    return render_template(
        "topping/index.html",
        form=ActionForm(),
        values=shown,
        defaults=costs,
        ranges=RANGES,
        cost_fields=COST_FIELDS,
        cost_labels=cost_labels(),
        rules_choices=ruleset_codes(),
        lexicon_choices=[(LEXICON_DEFAULT, _("Default of the rules"))]
        + [(name, f"{name} ({entry['rules']})") for name, entry in sorted(lexicon_store().catalogue().items())],
        variants=VARIANTS,
        playing=[s for s in listed if s.status == practice.PLAYING],
        finished=[s for s in listed if s.status == practice.FINISHED],
        records=solo_topping.records(learner),
        min_rounds=RECORD_MIN_ROUNDS,
        total=solo_topping.total,
        fmt=seconds_text,
        times=solo_topping.times,
    ), status


def _number(text: str) -> object:
    """A whole number a form posted, else the text itself (for the service to refuse, naming the field)."""
    value = posted_number(text)
    return value if value is not None else text


@bp.post("")
@learner_required
def start() -> ResponseReturnValue:
    learner = _learner()
    form = ActionForm()
    values: dict[str, Any] = {name: request.form.get(name, "")[:40] for name in ("source", "game", "rules")}
    values.update({name: request.form.get(name, "")[:40] for name in ("lexicon", "variant", "rounds")})
    values.update({name: request.form.get(name, "")[:12] for name in COST_FIELDS})
    if not form.validate_on_submit():
        flash(_("Form expired: reload the page."), "error")
        return _index_page(learner, values, 400)
    costs = {name: _number(values[name].strip()) for name in COST_FIELDS if values[name].strip()}  # empty: default
    try:
        if values["source"] == "game":
            game_id = posted_game_id(values["game"])
            session = solo_topping.start(learner, game_id if game_id is not None else -1, None, costs)
        else:
            rounds = posted_number(values["rounds"])
            settings: dict[str, Any] = {"rules": values["rules"]}
            if values["lexicon"] != LEXICON_DEFAULT:  # otherwise the rules' own list, as the practice form does
                settings["lexicon"] = values["lexicon"]
            settings["variant"] = values["variant"]
            if values["rounds"].strip():  # empty: the whole bag
                settings["max_rounds"] = rounds if rounds is not None and rounds <= MAX_FORM_ROUNDS else 0
            session = solo_topping.start(learner, None, settings, costs)
    except Refused as error:
        flash(game_message(error), "error")
        return _index_page(learner, values, 422)
    return redirect(url_for("topping.session_page", session_id=session.id), code=303)


def _session(session_id: int) -> tuple[Learner, PracticeSession]:
    learner = _learner()
    try:
        return learner, solo_topping.session_of(learner, session_id)
    except Refused:
        abort(404)


@bp.get("/<game_id:session_id>")
@learner_required
def session_page(session_id: int) -> ResponseReturnValue:
    learner, session = _session(session_id)
    now = utcnow()
    round_ = solo_topping.current(session, now)
    view: dict[str, Any] = {"session": session, "form": ActionForm(), "costs": solo_topping.costs_of(session)}
    view["fmt"] = seconds_text
    view["min_rounds"] = RECORD_MIN_ROUNDS
    view["example"] = "8D TRAIN" if session.notation != "french" else "H4 TRAIN"
    view["played"] = [r for r in session.rounds if r.answered_at is not None and r.seconds is not None]
    view["total"] = solo_topping.total(session)
    view["hint_kinds"] = HINT_KINDS
    view["hint_buttons"] = hint_buttons()
    view["source"] = practice.source_game(session)
    if round_ is not None:
        st = solo_topping.state(session, round_, now)
        game = _as_game(session)
        view.update(
            round=round_,
            st=st,
            board=board_view(game, round_.board_before),
            rack=rack_view(game, round_.rack),
            hints=[(h, hint_text(h)) for h in st.hints],
            reveal=practice.reveal(round_) if st.over else None,
            shown_at=iso(round_.shown_at),
        )
    else:
        result = solo_topping.result(learner, session)
        view.update(round=None, result=result, records=solo_topping.records(learner))
    return render_template("topping/session.html", **view)


@bp.post("/<game_id:session_id>/<any(play, hint, 'give-up', next, stop):action>")
@learner_required
def act(session_id: int, action: str) -> ResponseReturnValue:
    """One of the round's forms (a play, a hint, giving up, the next round, stopping here): done, or why not said;
    back to the round's page."""
    session = _session(session_id)[1]
    form = ActionForm()
    back = redirect(url_for("topping.session_page", session_id=session.id), code=303)
    if not form.validate_on_submit():
        flash(_("Form expired: reload the page."), "error")
        return back
    number = posted_number(request.form.get("round"))
    example = "8D TRAIN" if session.notation != "french" else "H4 TRAIN"
    try:
        if action == "play":
            played = request.form.get("play", "")[: solo_topping.MAX_PLAY_LENGTH + 10]
            tried = solo_topping.play(session, number, played)
            if not tried.top:
                flash(
                    _("%(play)s: not the top (+%(seconds)s s).", play=tried.move, seconds=int(tried.cost)),
                    "error",
                )
        elif action == "hint":
            solo_topping.take_hint(session, number, request.form.get("kind", ""))
        elif action == "give-up":
            solo_topping.give_up(session, number)
        elif action == "stop":
            solo_topping.stop(session)
        else:
            solo_topping.next_round(session)
    except Refused as error:
        flash(game_message(error, example), "error")
    return back
