"""The club word wall's pages: the director makes a wall and runs it from a console, the room's
screen shows the alphagrams and every word found with its finder, and players type words on
their phones.

Phones and the screen poll a server-rendered fragment every two seconds (``js/wall.js``): a wall
changes only when someone finds a word, and a poll is one small query, so no event stream is
needed. The countdown is drawn from the seconds left that the server wrote, like the games'.
A player's identity is their wall token in the signed session cookie, as for games (play.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, abort, flash, make_response, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from flask_babel import ngettext
from sqlalchemy import func, select
from wtforms import IntegerField, RadioField, SelectField, StringField, TextAreaField
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional

from drills.cards import split_answers
from drills.probability import MAX_LENGTH, MIN_LENGTH

from ..core.codes import JOIN_CODE_LENGTH
from ..core.database import db
from ..core.errors import Refused
from ..core.lexicons import lexicon_store
from ..http.errors import status_of
from ..http.negotiate import wants_json
from ..http.ratelimit import limited, refused_guess
from ..http.session import WALL_TOKENS, remember_token, session_token
from ..wall import service
from ..wall.models import Wall, WallFind, WallPlayer
from .auth import director_required, logged_in_director
from .common import public_link, qr_code
from .forms import ActionForm, Form, join_code_field, player_name_field

bp = Blueprint("wall", __name__)

MAX_WORDS_AT_ONCE = 10  # words typed before one Enter (a player may type several, separated by spaces)


# ---------------------------------------------------------------- what went wrong, translated

Say = Callable[[Mapping[str, Any]], str]


def _wall_messages() -> dict[str, Say]:
    return {
        "code_missing": lambda p: _("Enter the wall's code."),
        "bad_name": lambda p: _("Your name must have 1 to 40 characters."),
        "bad_name_characters": lambda p: _(
            "Your name holds a character that cannot be shown (an invisible or direction character): type it again."
        ),
        "unknown_code": lambda p: _(
            "No word wall has the code %(code)s. Check it on the screen.", code=p.get("join_code", "")
        ),
        "name_taken": lambda p: _(
            "Someone on this wall is already called %(name)s: choose another name.", name=p.get("name", "")
        ),
        "wall_started": lambda p: _("The wall has already started."),
        "wall_not_started": lambda p: _("The wall has not started yet: wait for the director."),
        "wall_over": lambda p: _("The wall is over: no more answers."),
        "wrong_wall": lambda p: _("You joined another wall, not this one."),
        "word_missing": lambda p: _("Type a word first."),
        "not_on_wall": lambda p: _(
            "%(word)s: not on this wall (its letters are not one of the alphagrams).", word=p.get("word", "")
        ),
        "not_a_word": lambda p: _("%(word)s: not a word.", word=p.get("word", "")),
        "already_found": lambda p: _(
            "%(word)s: already found by %(name)s.", word=p.get("word", ""), name=p.get("name", "")
        ),
        "found_by_you": lambda p: _("%(word)s: you found it already.", word=p.get("word", "")),
        "wall_bad_number": lambda p: _(
            "A whole number from %(low)s to %(high)s.", low=p.get("low", ""), high=p.get("high", "")
        ),
        "wall_bad_range": lambda p: _("The last rank must not be below the first."),
        "wall_too_many": lambda p: _("A wall has at most %(limit)s alphagrams.", limit=p.get("limit", "")),
        "wall_empty_range": lambda p: ngettext(
            "The word list has only %(num)s alphagram of %(length)s letters: choose lower ranks.",
            "The word list has only %(num)s alphagrams of %(length)s letters: choose lower ranks.",
            int(p.get("count", 0) or 0),
            length=p.get("length", ""),
        ),
        "wall_unknown_words": lambda p: _(
            "Not in the word list %(lexicon)s: %(words)s.", lexicon=p.get("lexicon", ""), words=p.get("words", "")
        ),
        "wall_no_words": lambda p: _("Paste at least one word."),
        "wall_words_too_long": lambda p: _("Paste at most %(limit)s characters of words.", limit=p.get("limit", "")),
        "bad_setting": lambda p: _("The setting “%(setting)s” is not valid.", setting=p.get("setting", "")),
        "no_code": lambda p: _("The server could not make a join code: try again."),
    }


def wall_message(error: Refused) -> str:
    """A refusal of the wall service in the reader's language."""
    say = _wall_messages().get(error.code)
    return say(error.params) if say is not None else _("The server could not do this now.")


# ---------------------------------------------------------------- forms


def _number_message(low: int, high: int) -> Any:
    return _l("A whole number from %(low)s to %(high)s.", low=low, high=high)


class WallForm(Form):
    """A wall: its word list, its alphagrams (probability ranks or pasted words) and its time."""

    lexicon = SelectField(_l("Lexicon"), default="en", description=_l("The word list the answers are checked against."))
    source = RadioField(_l("Alphagrams"), default="rank")
    length = IntegerField(
        _l("Letters"),
        default=7,
        validators=[Optional(), NumberRange(MIN_LENGTH, MAX_LENGTH, _number_message(MIN_LENGTH, MAX_LENGTH))],
        description=_l("Length of the alphagrams."),
    )
    first = IntegerField(
        _l("From rank"),
        default=1,
        validators=[Optional(), NumberRange(1, 10_000_000)],
        description=_l("Rank 1 is the alphagram drawn most often."),
    )
    last = IntegerField(
        _l("To rank"),
        default=20,
        validators=[Optional(), NumberRange(1, 10_000_000)],
        description=_l("At most %(n)s alphagrams on a wall.", n=service.MAX_ALPHAGRAMS),
    )
    words = TextAreaField(
        _l("Words"),
        validators=[Optional(), Length(max=service.MAX_PASTED)],
        description=_l("Separated by spaces, commas or new lines: each word puts its alphagram on the wall."),
    )
    seconds = IntegerField(
        _l("Time (seconds)"),
        default=service.DEFAULT_SECONDS,
        validators=[
            InputRequired(_number_message(service.MIN_SECONDS, service.MAX_SECONDS)),
            NumberRange(
                service.MIN_SECONDS, service.MAX_SECONDS, _number_message(service.MIN_SECONDS, service.MAX_SECONDS)
            ),
        ],
        description=_l("The wall ends when the countdown reaches zero."),
    )

    def fill_choices(self, lexicons: dict[str, dict[str, str]]) -> None:
        self.lexicon.choices = [
            (name, f"{name} ({', '.join(part for part in (entry['rules'], entry.get('edition', '')) if part)})")
            for name, entry in sorted(lexicons.items())
        ]
        self.source.choices = [("rank", _l("By length and probability")), ("words", _l("From pasted words"))]

    def spec(self) -> dict[str, Any]:
        """The wall's settings as the service takes them (it validates them again)."""
        if self.source.data == "words":
            return {"seconds": self.seconds.data, "words": self.words.data or ""}
        return {
            "seconds": self.seconds.data,
            "length": self.length.data,
            "first": self.first.data,
            "last": self.last.data,
        }


class WallJoinForm(Form):
    code = join_code_field(_l("Wall code"), _l("Enter the wall's code."))
    name = player_name_field(_l("As it will appear on the wall next to the words you find."))


class AnswerForm(Form):
    word = StringField(_l("Your word"), validators=[DataRequired(_l("Type a word first."))])


# ---------------------------------------------------------------- finding walls and players


def _missing(wall_id: int | None = None) -> ResponseReturnValue:
    return render_template("drills/wall/missing.html", wall_id=wall_id), 404


def _wall_of_director(wall_id: int) -> Wall:
    """The logged-in director's wall: 404 when there is none, 403 when it is another director's."""
    wall = db.session.get(Wall, wall_id)
    if wall is None:
        abort(make_response(_missing(wall_id)))
    director = logged_in_director()
    if director is None or director.id != wall.director_id:
        abort(403)
    return wall


def _player(wall: Wall) -> WallPlayer | None:
    """This browser's player on ``wall``, if it joined it."""
    token = session_token(WALL_TOKENS, wall.id)
    player = service.player_for_token(token) if token is not None else None
    return player if player is not None and player.wall_id == wall.id else None


def _join_url(wall: Wall) -> str:
    return public_link("wall.join", code=wall.join_code)


# ---------------------------------------------------------------- the director


@bp.get("/director/walls/")
@director_required
def walls() -> ResponseReturnValue:
    director = logged_in_director()
    assert director is not None
    rows = (
        db.session.execute(
            select(Wall).where(Wall.director_id == director.id).order_by(Wall.created_at.desc(), Wall.id.desc())
        )
        .scalars()
        .all()
    )
    found = (
        dict(
            db.session.execute(
                select(WallFind.wall_id, func.count())
                .where(WallFind.wall_id.in_([w.id for w in rows]))
                .group_by(WallFind.wall_id)
            ).all()
        )
        if rows
        else {}
    )
    for wall in rows:
        service.expire(wall)
    return render_template("drills/wall/walls.html", walls=rows, found=found)


@bp.route("/director/walls/new", methods=["GET", "POST"])
@director_required
def new() -> ResponseReturnValue:
    director = logged_in_director()
    assert director is not None
    form = WallForm()
    form.fill_choices(lexicon_store().catalogue())
    if form.validate_on_submit():
        try:
            wall = service.create_wall(director, form.lexicon.data, form.spec())
        except Refused as error:
            _show_on_form(form, error)
        else:
            return redirect(url_for("wall.console", wall_id=wall.id), code=303)
    status = 400 if request.method == "POST" else 200
    return render_template("drills/wall/new.html", form=form), status


def _show_on_form(form: WallForm, error: Refused) -> None:
    """A refusal next to the field it is about, or at the top of the form."""
    setting = str(error.params.get("setting", ""))
    by_code = {
        "wall_bad_range": form.last,
        "wall_empty_range": form.first,
        "wall_unknown_words": form.words,
        "wall_no_words": form.words,
        "wall_words_too_long": form.words,
        "wall_too_many": form.words if form.source.data == "words" else form.last,
    }
    target = by_code.get(error.code) or getattr(form, setting, None)
    if target is not None and hasattr(target, "errors"):
        target.errors = [*target.errors, wall_message(error)]
    else:
        flash(wall_message(error), "error")


def _console_context(wall: Wall) -> dict[str, object]:
    return {"wall": wall, "view": service.wall_view(wall), "form": ActionForm(), "join_url": _join_url(wall)}


@bp.get("/director/walls/<id:wall_id>")
@director_required
def console(wall_id: int) -> ResponseReturnValue:
    return render_template("drills/wall/console.html", **_console_context(_wall_of_director(wall_id)))


@bp.get("/director/walls/<id:wall_id>/live")
@director_required
def console_live(wall_id: int) -> ResponseReturnValue:
    return render_template("drills/wall/_console_live.html", **_console_context(_wall_of_director(wall_id)))


@bp.get("/director/walls/<id:wall_id>/qr.svg")
@director_required
def join_qr(wall_id: int) -> ResponseReturnValue:
    """The join link as a QR code, for phones to scan from the screen."""
    wall = _wall_of_director(wall_id)
    return qr_code(_join_url(wall))


@bp.post("/director/walls/<id:wall_id>/<any(start, end):action>")
@director_required
def act(wall_id: int, action: str) -> ResponseReturnValue:
    wall = _wall_of_director(wall_id)
    back = url_for("wall.screen" if request.form.get("back") == "screen" else "wall.console", wall_id=wall.id)
    if not ActionForm().validate_on_submit():
        abort(400)
    try:
        (service.start_wall if action == "start" else service.end_wall)(wall)
    except Refused as error:
        if wants_json():
            return {"ok": False, "error": wall_message(error)}, status_of(error)
        flash(wall_message(error), "error")
        return redirect(back, code=303)
    if wants_json():
        return {"ok": True, "status": wall.status}
    return redirect(back, code=303)


# ---------------------------------------------------------------- the room's screen


def _screen_context(wall_id: int) -> dict[str, object]:
    wall = _wall_of_director(wall_id)
    return {"wall": wall, "view": service.wall_view(wall), "join_url": _join_url(wall)}


@bp.get("/walls/<id:wall_id>/screen")
@director_required
def screen(wall_id: int) -> ResponseReturnValue:
    return render_template("drills/wall/screen.html", **_screen_context(wall_id))


@bp.get("/walls/<id:wall_id>/screen/live")
@director_required
def screen_live(wall_id: int) -> ResponseReturnValue:
    return render_template("drills/wall/_screen_live.html", **_screen_context(wall_id))


# ---------------------------------------------------------------- the players' phones


@bp.route("/walls/join", methods=["GET", "POST"])
@limited("join")
def join() -> ResponseReturnValue:
    form = WallJoinForm()
    if request.method == "GET":
        code = request.args.get("code", "").strip().upper()[: 2 * JOIN_CODE_LENGTH]
        if code:
            form.code.data = code
            wall = service.wall_for_code(code)
            if wall is not None and _player(wall) is not None:
                return redirect(url_for("wall.play", wall_id=wall.id), code=303)
    elif form.validate_on_submit():
        try:
            player, token = service.join_wall(form.code.data, form.name.data)
        except Refused as error:
            if error.code == "unknown_code":
                refused_guess()
            target = form.name if error.code in ("name_taken", "bad_name", "bad_name_characters") else form.code
            target.errors = [wall_message(error)]
        else:
            remember_token(WALL_TOKENS, player.wall_id, token)
            return redirect(url_for("wall.play", wall_id=player.wall_id), code=303)
    status = 400 if request.method == "POST" else 200
    return render_template("drills/wall/join.html", form=form), status


def _play_context(wall: Wall, player: WallPlayer) -> dict[str, object]:
    view = service.wall_view(wall, player)
    score = next((s for s in view.scores if s.player_id == player.id), None)
    return {"wall": wall, "view": view, "me": player, "score": score, "form": AnswerForm()}


@bp.get("/walls/<id:wall_id>/play")
def play(wall_id: int) -> ResponseReturnValue:
    wall = db.session.get(Wall, wall_id)
    if wall is None:
        return _missing(wall_id)
    player = _player(wall)
    if player is None:
        return redirect(url_for("wall.join"), code=303)
    return render_template("drills/wall/play.html", **_play_context(wall, player))


@bp.get("/walls/<id:wall_id>/play/live")
def play_live(wall_id: int) -> ResponseReturnValue:
    wall = db.session.get(Wall, wall_id)
    if wall is None:
        return _missing(wall_id)
    player = _player(wall)
    if player is None:
        return _("Join the wall first."), 403
    return render_template("drills/wall/_play_parts.html", **_play_context(wall, player))


@dataclass(frozen=True)
class Verdict:
    word: str
    ok: bool
    message: str


@bp.post("/walls/<id:wall_id>/play/answer")
@limited("answer")
def answer(wall_id: int) -> ResponseReturnValue:
    """One or more words typed before Enter; each is judged (and a find committed) on its own."""
    wall = db.session.get(Wall, wall_id)
    if wall is None:
        return _missing(wall_id)
    player = _player(wall)
    if player is None:
        return redirect(url_for("wall.join"), code=303)
    form = AnswerForm()
    verdicts: list[Verdict] = []
    if not form.validate_on_submit():
        verdicts.append(Verdict("", False, _("Type a word first.")))
    else:
        for word in split_answers([form.word.data or ""])[:MAX_WORDS_AT_ONCE]:
            try:
                found = service.submit_answer(wall, player, word)
            except Refused as refused:
                verdicts.append(Verdict(word, False, wall_message(refused)))
                if refused.code in ("wall_over", "wall_not_started", "wrong_wall"):
                    break  # the same for every other word
            else:
                verdicts.append(Verdict(found.word, True, _("%(word)s: found!", word=found.word)))
    if wants_json():
        return {
            "ok": any(v.ok for v in verdicts),
            "results": [{"word": v.word, "ok": v.ok, "message": v.message} for v in verdicts],
        }
    for verdict in verdicts:
        flash(verdict.message, "success" if verdict.ok else "error")
    return redirect(url_for("wall.play", wall_id=wall.id), code=303)
