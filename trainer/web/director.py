"""The director's console (``/director``): log in, create games, run them, correct, export.

Every action is a POST with a CSRF token that calls the game service and comes back to the
console (or answers JSON to the projector's keyboard shortcuts); refusals are shown translated.
"""

from __future__ import annotations

from collections.abc import Callable

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from sqlalchemy import select

from ..core import accounts
from ..core.database import db
from ..core.errors import Refused
from ..core.lexicons import lexicon_store
from ..duplicate.results import PlayerRound
from ..duplicate.rounds import RoundStatus
from ..games import bulletins, competitions, export, handins, service, topping
from ..games.cache import game_results
from ..games.display import game_view
from ..games.edition import played_lexicon
from ..games.models import Game, Player, Submission
from ..http.ids import posted_number
from ..http.ratelimit import limited, refused_guess
from ..http.rooms import room_label
from .auth import director_required, game_of_director, log_in, log_out, logged_in_director
from .common import (
    action_done,
    flash_form_errors,
    join_link,
    public_link,
    qr_code,
    qr_inline,
    safe_next,
    spreadsheet_style,
)
from .competitions import held_back_notes
from .forms import (
    RULING_KINDS,
    ActionForm,
    CancelRulingForm,
    CorrectionForm,
    ExtendForm,
    GameForm,
    LoginForm,
    RulingForm,
    TopForm,
)
from .messages import draws_problems, game_message

bp = Blueprint("director", __name__, url_prefix="/director")
# Said under the imposed draws' field; a joker game cannot be played from a list (docs/rules.md §6.24).
DRAWS_REFUSALS = ("seed_and_draws", "draws_twice", "draws_file_too_big", "joker_imposed")


@bp.route("/login", methods=["GET", "POST"])
@limited("login")
def login() -> ResponseReturnValue:
    form = LoginForm()
    if form.validate_on_submit():
        director = accounts.authenticate_director(form.username.data, form.password.data)
        if director is not None:
            log_in(director)
            return redirect(safe_next() or url_for("director.games"), code=303)
        refused_guess()
        form.password.errors = [_("Wrong director name or password.")]
    return render_template("director/login.html", form=form), 200 if request.method == "GET" else 400


@bp.post("/logout")
def logout() -> ResponseReturnValue:
    form = ActionForm()
    if form.validate_on_submit():
        log_out()
    return redirect(url_for("pages.index"), code=303)


@bp.get("/")
@director_required
def games() -> ResponseReturnValue:
    director = logged_in_director()
    assert director is not None
    rows = (
        db.session.execute(
            select(Game).where(Game.director_id == director.id).order_by(Game.created_at.desc(), Game.id.desc())
        )
        .scalars()
        .all()
    )
    winners = {}
    for game in rows:
        if game.status == "finished" and game.rounds:
            standings = game_results(game).standings
            winners[game.id] = standings[0] if standings else None
    return render_template("director/games.html", games=rows, winners=winners, form=ActionForm())


@bp.route("/games/new", methods=["GET", "POST"])
@director_required
def new_game() -> ResponseReturnValue:
    director = logged_in_director()
    assert director is not None
    form = GameForm()
    form.fill_choices(lexicon_store().catalogue())
    if form.validate_on_submit():
        try:
            game = service.create_game(director, form.settings_and_draws())
        except Refused as error:
            if error.code == "bad_draws":  # each line's problem under the list, where it can be fixed
                form.draws.errors = draws_problems(error.params)
            elif error.code in DRAWS_REFUSALS:
                form.draws.errors = [game_message(error)]
            elif error.code == "preset_conflict":  # under the preset, which the time disagrees with
                form["preset"].errors = [game_message(error)]
            else:
                flash(game_message(error), "error")
        else:
            return redirect(url_for("director.console", game_id=game.id), code=303)
    status = 400 if request.method == "POST" else 200
    return render_template("director/new.html", form=form), status


def _console_context(game: Game) -> dict[str, object]:
    view = game_view(game)
    return {
        "view": view,
        "game": game,
        "played": played_lexicon(game),
        "form": ActionForm(),
        "extend_form": ExtendForm(),
        "top_form": TopForm(),
        "correction_form": CorrectionForm(),
        "ruling_kinds": RULING_KINDS,
        "join_url": join_link(game.join_code),
        "round_results": _round_results(game, view.reveal.number if view.reveal else None),
        "round_bulletins": _round_bulletins(game, view.reveal.number if view.reveal else None),
        "rulings": service.rulings_record(game),  # the whole game's, cancelled ones too (docs/rules.md §6.19)
        "closed_rounds": _closed_rounds(game),
        "imposed_differs": service.imposed_reliquat_differs(game, view.round) if view.reveal and view.round else None,
        "topping": topping.screen(game) if topping.is_topping(game) else None,  # docs/rules.md §6.26
        "held_back": held_back_notes(game, game.director_id),  # why outsiders wait (docs/rules.md §6.4)
        "room": room_label(label.number, label.name) if (label := competitions.room_label_of(game)) else None,
        "hand_ins": handins.hand_ins(game),  # who is still missing in the round in progress (§6.6)
    }


def _closed_rounds(game: Game) -> list[int]:
    """The numbers of the game's closed rounds: each has a page where its scores can be corrected."""
    return [r.number for r in game.rounds if r.status == RoundStatus.CLOSED]


def _round_bulletins(game: Game, number: int | None) -> list[tuple[Player, Submission]]:
    """The paper bulletins of closed round ``number``, declared ones marked, with who typed them in (§6.21)."""
    round_ = next((r for r in game.rounds if r.number == number and r.status == RoundStatus.CLOSED), None)
    return bulletins.entered(game, round_) if round_ is not None else []


def _round_results(game: Game, number: int | None) -> list[tuple[int, PlayerRound]]:
    """The revealed round's result of every player, with their ids for the correction form."""
    if number is None:
        return []
    results = game_results(game)
    scored = next((r for r in results.rounds if r.number == number), None)
    if scored is None:
        return []
    ids = {p.name: p.id for p in game.players}
    return sorted(
        ((ids[name], p) for name, p in scored.players.items() if name in ids),
        key=lambda item: (-item[1].total, item[1].player),
    )


@bp.get("/games/<game_id:game_id>")
@director_required
def console(game_id: int) -> ResponseReturnValue:
    game = game_of_director(game_id)
    return render_template("director/console.html", **_console_context(game))


@bp.get("/games/<game_id:game_id>/live")
@director_required
def console_live(game_id: int) -> ResponseReturnValue:
    """The console's changing part, fetched by its script when the game's events say something changed."""
    game = game_of_director(game_id)
    return render_template("director/_live.html", **_console_context(game))


@bp.get("/games/<game_id:game_id>/hand-ins")
@director_required
def console_hand_ins(game_id: int) -> ResponseReturnValue:
    """Who has handed in a play in the round in progress: the console's list, fetched again by its script (at most
    every few seconds) when plays come in, instead of the whole console; empty between rounds."""
    game = game_of_director(game_id)
    return render_template("director/_handins.html", game=game, hand_ins=handins.hand_ins(game))


@bp.get("/games/<game_id:game_id>/qr.svg")
@director_required
def join_qr(game_id: int) -> ResponseReturnValue:
    """The join link as a QR code, for phones to scan from the screen."""
    game = game_of_director(game_id)
    return qr_code(join_link(game.join_code))


@bp.post("/games/<game_id:game_id>/<any(start, pause, resume, toggle, close, next, end, lock, unlock):action>")
@director_required
def act(game_id: int, action: str) -> ResponseReturnValue:
    game = game_of_director(game_id)
    from_projector = request.form.get("back") == "projector"
    back = url_for("projector.show" if from_projector else "director.console", game_id=game.id)
    if not ActionForm().validate_on_submit():
        abort(400)
    director = logged_in_director()
    assert director is not None
    author = director.username
    try:
        if action == "start":
            service.start_game(game, author)
        elif action == "pause":
            service.pause(game, author)
        elif action == "resume":
            service.resume(game, author)
        elif action == "toggle":
            (service.resume if game.status == "paused" else service.pause)(game, author)
        elif action == "close":
            service.close_now(game, author)
        elif action == "next":
            service.advance(game, author)
        elif action in ("lock", "unlock"):
            service.lock_room(game, action == "lock", author)
        else:
            service.end_game(game, author)
    except Refused as error:
        return action_done(back, error)
    return action_done(back, status=game.status)


@bp.post("/games/<game_id:game_id>/players/<id:player_id>/rename")
@director_required
def rename_player(game_id: int, player_id: int) -> ResponseReturnValue:
    name = request.form.get("name")
    return _on_player(game_id, lambda game, author: service.rename_player(game, player_id, name, author))


@bp.post("/games/<game_id:game_id>/players/<id:player_id>/remove")
@director_required
def remove_player(game_id: int, player_id: int) -> ResponseReturnValue:
    return _on_player(game_id, lambda game, author: service.remove_player(game, player_id, author))


def _on_player(game_id: int, change: Callable[[Game, str], object]) -> ResponseReturnValue:
    """A director's change to a player of their game (the console's player list), then back to the console."""
    game = game_of_director(game_id)
    if not ActionForm().validate_on_submit():
        abort(400)
    director = logged_in_director()
    assert director is not None
    back = url_for("director.console", game_id=game.id)
    try:
        change(game, director.username)
    except Refused as error:
        return action_done(back, error)
    return action_done(back)


@bp.post("/games/<game_id:game_id>/players/<id:player_id>/rejoin")
@director_required
def offer_rejoin(game_id: int, player_id: int) -> ResponseReturnValue:
    """A one-time code (and its QR code) that puts a player back on a new phone, with their plays and score."""
    game = game_of_director(game_id)
    if not ActionForm().validate_on_submit():
        abort(400)
    director = logged_in_director()
    assert director is not None
    try:
        code = service.offer_rejoin(game, player_id, director.username)
    except Refused as error:
        return action_done(url_for("director.console", game_id=game.id), error)
    player = next(p for p in game.players if p.id == player_id)
    link = public_link("play.rejoin", code=code)
    return render_template(
        "director/rejoin.html",
        game=game,
        player=player,
        code=code,
        link=link,
        qr=qr_inline(link),
        minutes=service.REJOIN_SECONDS // 60,
    )


@bp.get("/games/<game_id:game_id>/rounds/<id:number>")
@director_required
def round_page(game_id: int, number: int) -> ResponseReturnValue:
    """A closed round's results, any round of the game, each player's score correctable with a reason."""
    game = game_of_director(game_id)
    round_ = next((r for r in game.rounds if r.number == number and r.status == RoundStatus.CLOSED), None)
    if round_ is None:
        flash(_("Round %(n)s is not closed: it has no results yet.", n=number), "error")
        return redirect(url_for("director.console", game_id=game.id), code=303)
    return render_template(
        "director/round.html",
        game=game,
        round=round_,
        round_results=_round_results(game, number),
        round_bulletins=_round_bulletins(game, number),
        rulings=service.rulings_record(game, number),
        closed_rounds=_closed_rounds(game),
        ruling_kinds=RULING_KINDS,
    )


@bp.post("/games/<game_id:game_id>/extend")
@director_required
def extend(game_id: int) -> ResponseReturnValue:
    game = game_of_director(game_id)
    back = url_for("director.console", game_id=game.id)
    form = ExtendForm()
    if not form.validate_on_submit():
        flash(_("The extra time must be from 1 to 3600 seconds."), "error")
        return redirect(back, code=303)
    director = logged_in_director()
    assert director is not None
    try:
        service.extend(game, form.seconds.data, director.username)
    except Refused as error:
        return action_done(back, error)
    return action_done(back)


@bp.post("/games/<game_id:game_id>/rounds/<id:number>/top")
@director_required
def choose_top(game_id: int, number: int) -> ResponseReturnValue:
    game = game_of_director(game_id)
    back = url_for("director.console", game_id=game.id)
    form = TopForm()
    if not form.validate_on_submit():
        abort(400)
    director = logged_in_director()
    assert director is not None
    try:
        service.choose_top(game, number, form.move.data, director.username)
    except Refused as error:
        return action_done(back, error)
    return action_done(back)


@bp.post("/games/<game_id:game_id>/rounds/<id:number>/corrections")
@director_required
def correct(game_id: int, number: int) -> ResponseReturnValue:
    game = game_of_director(game_id)
    back = _back_to_results(game, number)
    form = CorrectionForm()
    if not form.validate_on_submit():
        flash_form_errors(form)
        return redirect(back, code=303)
    director = logged_in_director()
    assert director is not None
    player_id = posted_number(form.player_id.data)
    try:
        service.correct(game, number, player_id, form.score.data, form.reason.data, director.username)
    except Refused as error:
        return action_done(back, error)
    flash(_("The score is corrected."), "success")
    return action_done(back)


def _back_to_results(game: Game, number: int | None) -> str:
    if request.form.get("back") == "round" and number is not None:
        return url_for("director.round_page", game_id=game.id, number=number) + "#results"
    return url_for("director.console", game_id=game.id) + "#results"


@bp.post("/games/<game_id:game_id>/rounds/<id:number>/rulings")
@director_required
def give_ruling(game_id: int, number: int) -> ResponseReturnValue:
    game = game_of_director(game_id)
    back = _back_to_results(game, number)
    form = RulingForm()
    if not form.validate_on_submit():
        flash_form_errors(form)
        return redirect(back, code=303)
    director = logged_in_director()
    assert director is not None
    points = form.points.data if form.kind.data == "penalty" else None
    player_id = posted_number(form.player_id.data)
    try:
        service.give_ruling(game, number, player_id, form.kind.data, points, form.reason.data, director.username)
    except Refused as error:
        return action_done(back, error)
    flash(_("The ruling is recorded."), "success")
    return action_done(back)


@bp.post("/games/<game_id:game_id>/rulings/<id:ruling_id>/cancel")
@director_required
def cancel_ruling(game_id: int, ruling_id: int) -> ResponseReturnValue:
    game = game_of_director(game_id)
    back = _back_to_results(game, posted_number(request.form.get("number")))
    form = CancelRulingForm()
    if not form.validate_on_submit():
        flash_form_errors(form)
        return redirect(back, code=303)
    director = logged_in_director()
    assert director is not None
    try:
        service.cancel_ruling(game, ruling_id, form.reason.data, director.username)
    except Refused as error:
        return action_done(back, error)
    flash(_("The ruling is cancelled."), "success")
    return action_done(back)


@bp.get("/games/<game_id:game_id>/export.<any(csv, gcg):kind>")
@director_required
def download(game_id: int, kind: str) -> ResponseReturnValue:
    game = game_of_director(game_id)
    if kind == "csv":
        text = export.standings_csv(game, service.results(game), spreadsheet_style())
        content_type = "text/csv; charset=utf-8"
    else:
        text, content_type = export.game_gcg(game), "application/x-gcg; charset=utf-8"
    response = Response(text, content_type=content_type)
    response.headers["Content-Disposition"] = f'attachment; filename="tirage-game-{game.id}.{kind}"'
    return response


@bp.get("/games/<game_id:game_id>/draws.txt")
@director_required
def download_draws(game_id: int) -> ResponseReturnValue:
    """The closed rounds' draws, one a line: pasted in a new game's form, they give the same racks (§6.18)."""
    game = game_of_director(game_id)
    response = Response(export.game_draws(game), content_type="text/plain; charset=utf-8")
    response.headers["Content-Disposition"] = f'attachment; filename="tirage-game-{game.id}-draws.txt"'
    return response
