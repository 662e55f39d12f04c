"""Paper bulletins (docs/rules.md §6.21): the arbiter's keyboard page to type in the slips of players without a
phone, the paper players of a room with their table numbers, and the assistant arbiters' accounts.

The entry page is made for the keyboard alone: table number (or name), Tab (or Enter), the play, Enter; the
page comes back with the player field focused for the next slip and says what was taken.
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from sqlalchemy import select

from ..core import accounts
from ..core.database import db
from ..core.errors import Refused
from ..duplicate.rounds import GameStatus, RoundStatus
from ..games import bulletins, history, service
from ..games.models import Game
from .auth import arbiter_required, director_required, game_of_arbiter, logged_in_director
from .common import flash_form_errors
from .forms import AssistantForm, BulletinForm, PaperPlayerForm
from .messages import game_message

bp = Blueprint("bulletins", __name__, url_prefix="/director")


@bp.get("/arbiter")
@arbiter_required
def home() -> ResponseReturnValue:
    """The games whose bulletins this account may enter: the director's own, or their lead director's."""
    director = logged_in_director()
    assert director is not None
    owner = director.lead_id if director.lead_id is not None else director.id
    games = (
        db.session.execute(
            select(Game)
            .where(Game.director_id == owner, Game.status != GameStatus.FINISHED)
            .order_by(Game.created_at.desc(), Game.id.desc())
        )
        .scalars()
        .all()
    )
    return render_template("bulletins/home.html", games=games, assistant=director.is_assistant)


def _entry_page(game: Game, form: BulletinForm, status: int = 200) -> ResponseReturnValue:
    round_ = service.current_round(game)
    return (
        render_template(
            "bulletins/entry.html",
            game=game,
            round=round_,
            round_open=round_ is not None and round_.status != RoundStatus.CLOSED,
            seconds_left=service.seconds_left(round_) if round_ is not None else None,
            entered=bulletins.entered(game, round_) if round_ is not None else [],
            paper_players=bulletins.paper_players(game),
            form=form,
            paper_form=PaperPlayerForm(formdata=None),
            next_table=bulletins.next_free_table(game),
            known_players=history.known_players(game.director_id),  # the club's known players (§6.25)
        ),
        status,
    )


@bp.get("/games/<game_id:game_id>/bulletins")
@arbiter_required
def entry(game_id: int) -> ResponseReturnValue:
    return _entry_page(game_of_arbiter(game_id), BulletinForm(formdata=None))


@bp.post("/games/<game_id:game_id>/bulletins")
@arbiter_required
def enter(game_id: int) -> ResponseReturnValue:
    game = game_of_arbiter(game_id)
    form = BulletinForm()
    if not form.validate_on_submit():
        flash_form_errors(form)
        return _entry_page(game, form, 400)
    director = logged_in_director()
    assert director is not None
    try:
        taken = bulletins.enter(game, form.who.data, form.move.data, director.username, bool(form.declared.data))
    except Refused as error:
        flash(game_message(error), "error")
        return _entry_page(game, form, 422)
    where = _("table %(n)s", n=taken.player.table_number) if taken.player.table_number else ""
    flash(
        _(
            "Round %(round)s, %(who)s%(where)s: %(move)s taken.",
            round=taken.round_number,
            who=taken.player.name,
            where=f" ({where})" if where else "",
            move=taken.move,
        ),
        "success",
    )
    return redirect(url_for("bulletins.entry", game_id=game.id), code=303)


@bp.post("/games/<game_id:game_id>/paper-players")
@arbiter_required
def add_paper_player(game_id: int) -> ResponseReturnValue:
    game = game_of_arbiter(game_id)
    form = PaperPlayerForm()
    back = request.form.get("back") == "console"
    target = url_for("director.console", game_id=game.id) if back else url_for("bulletins.entry", game_id=game.id)
    if not form.validate_on_submit():
        flash_form_errors(form)
        return redirect(target, code=303)
    director = logged_in_director()
    assert director is not None
    try:
        player = bulletins.add_paper_player(game, form.name.data, form.table.data, director.username)
    except Refused as error:
        flash(game_message(error), "error")
    else:
        flash(_("%(name)s plays on paper at table %(n)s.", name=player.name, n=player.table_number), "success")
    return redirect(target, code=303)


@bp.route("/assistants", methods=["GET", "POST"])
@director_required
def assistants() -> ResponseReturnValue:
    """The director's assistant arbiters: accounts that log in like a director and only enter bulletins."""
    director = logged_in_director()
    assert director is not None
    form = AssistantForm()
    status = 200
    if request.method == "POST":
        if form.validate_on_submit():
            try:
                made = accounts.create_assistant(director, form.username.data, form.password.data)
            except Refused as error:
                flash(game_message(error), "error")
                status = 422
            else:
                flash(_("%(name)s can now log in and enter bulletins in your games.", name=made.username), "success")
                return redirect(url_for("bulletins.assistants"), code=303)
        else:
            status = 400
    return render_template("bulletins/assistants.html", form=form, assistants=accounts.assistants_of(director)), status
