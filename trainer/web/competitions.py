"""Simultaneous games and tournaments (docs/rules.md §6.22–6.23): the director's page to make them, open a room
in another club's simultaneous game, add games to a tournament; and the ranking's page at ``/events/<code>``,
printable like the sheets, open to anyone with the code (it counts only rounds every room has closed, and only
finished games of a tournament)."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from sqlalchemy import select

from ..core.database import db
from ..core.errors import Refused
from ..duplicate.competition import split_key
from ..duplicate.rounds import GameStatus
from ..games import competitions
from ..games.models import Game
from ..http.ids import posted_game_id
from .auth import director_required, logged_in_director
from .forms import ActionForm
from .messages import game_message

bp = Blueprint("competitions", __name__)


def _own_games(director_id: int) -> list[Game]:
    return list(
        db.session.execute(
            select(Game)
            .where(Game.director_id == director_id, Game.competition_id.is_(None))
            .order_by(Game.created_at.desc(), Game.id.desc())
        ).scalars()
    )


@bp.get("/director/competitions")
@director_required
def index() -> ResponseReturnValue:
    director = logged_in_director()
    assert director is not None
    games = _own_games(director.id)
    return render_template(
        "competitions/index.html",
        competitions=competitions.directors_competitions(director),
        lobby_games=[g for g in games if g.status == GameStatus.LOBBY],
        games=games,
        form=ActionForm(),
    )


def _posted(action: str) -> ResponseReturnValue:
    """Run ``action`` on the posted form; come back to the page with what happened."""
    director = logged_in_director()
    assert director is not None
    if not ActionForm().validate_on_submit():
        flash(_("Form expired: reload the page."), "error")
        return redirect(url_for("competitions.index"), code=303)
    form = request.form
    try:
        if action == "simultaneous":
            game = db.session.get(Game, posted_game_id(form.get("game_id")) or 0)
            if game is None:
                raise Refused("no_game", "choose one of your games in its lobby")
            made = competitions.create_simultaneous(director, form.get("name"), game)
            flash(_("The simultaneous game %(name)s is made: give its code %(code)s to the other clubs.",
                    name=made.name, code=made.code), "success")  # fmt: skip
        elif action == "tournament":
            made = competitions.create_tournament(director, form.get("name"))
            flash(_("The tournament %(name)s is made.", name=made.name), "success")
        elif action == "room":
            room = competitions.open_room(competitions.find(form.get("code")), director)
            return redirect(url_for("director.console", game_id=room.id), code=303)
        else:
            competition = competitions.find(form.get("code"))
            game = db.session.get(Game, posted_game_id(form.get("game_id")) or 0)
            if game is None:
                raise Refused("no_game", "choose one of your games")
            competitions.add_to_tournament(competition, game, director)
            flash(_("The game is added to %(name)s.", name=competition.name), "success")
    except Refused as error:
        flash(game_message(error), "error")
    return redirect(url_for("competitions.index"), code=303)


@bp.post("/director/competitions/<any(simultaneous, tournament, room, add):action>")
@director_required
def act(action: str) -> ResponseReturnValue:
    return _posted(action)


@bp.get("/events/<code>")
def ranking(code: str) -> ResponseReturnValue:
    try:
        competition = competitions.find(code)
    except Refused as error:
        return render_template("competitions/missing.html", message=game_message(error)), 404
    if competition.kind == competitions.SIMULTANEOUS:
        try:
            event = competitions.event_ranking(competition)
        except Refused as error:
            return render_template("competitions/missing.html", message=game_message(error)), 409
        lines = [(split_key(s.player), s) for s in event.results.standings]
        return render_template("competitions/event.html", event=event, competition=competition, lines=lines)
    return render_template(
        "competitions/tournament.html", ranking=competitions.tournament_ranking(competition), competition=competition
    )
