"""Simultaneous games and tournaments (docs/rules.md §6.22–6.23): the director's page to make them, open a room
in another club's simultaneous game, add games to a tournament; and the ranking's page at ``/events/<code>``,
printable like the sheets, open to anyone with the code (it counts only rounds every room has closed, and only
finished games of a tournament). Rooms are named there by their names (docs/rules.md §6.22), never by their join
codes. :func:`held_back_notes` says why a game is kept from outsiders (§6.4), on the console and in the archive."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _
from sqlalchemy import select

from ..core.accounts import Director
from ..core.database import db
from ..core.errors import Refused
from ..duplicate.rounds import GameStatus
from ..games import competitions, draws
from ..games.models import Game
from ..http.ids import posted_game_id
from ..http.rooms import room_label
from .auth import director_required, game_of_director, logged_in_director
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
            made = competitions.create_simultaneous(director, form.get("name"), game, form.get("room_name"))
            flash(_("The simultaneous game %(name)s is made: give its code %(code)s to the other clubs.",
                    name=made.name, code=made.code), "success")  # fmt: skip
        elif action == "tournament":
            made = competitions.create_tournament(director, form.get("name"))
            flash(_("The tournament %(name)s is made.", name=made.name), "success")
        elif action == "room":
            room = competitions.open_room(competitions.find(form.get("code")), director, form.get("room_name"))
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


@bp.post("/director/games/<game_id:game_id>/room-name")
@director_required
def name_room(game_id: int) -> ResponseReturnValue:
    """The room's name on its simultaneous game's ranking (the club's), from the console."""
    game = game_of_director(game_id)
    director = logged_in_director()
    assert director is not None
    back = redirect(url_for("director.console", game_id=game.id), code=303)
    if not ActionForm().validate_on_submit():
        flash(_("Form expired: reload the page."), "error")
        return back
    try:
        competitions.name_room(game, request.form.get("room_name"), director)
    except Refused as error:
        flash(game_message(error), "error")
    else:
        label = competitions.room_label_of(game)
        assert label is not None
        flash(_("The room is named %(name)s on the ranking.", name=room_label(label.number, label.name)), "success")
    return back


def _game_label(game: Game, director_id: int | None) -> str:
    """How a game holding another back is named: a room by its public name; the reader's own game by its code;
    another director's game by its director and day (never its code, which would let anyone in)."""
    label = competitions.room_label_of(game)
    if label is not None:
        return room_label(label.number, label.name)
    if director_id is not None and game.director_id == director_id:
        return _("game %(code)s", code=game.join_code)
    director = db.session.get(Director, game.director_id)
    return _("the game %(director)s made on %(day)s", director=director.username if director else "?",
             day=game.created_at.strftime("%Y-%m-%d"))  # fmt: skip


def held_back_notes(game: Game, director_id: int | None = None) -> list[str]:
    """Why ``game`` is kept from outsiders now, one sentence a game of its draw that holds it back (§6.4); empty
    when it is shown to everyone. ``director_id``: the reader, whose own games are named by their codes."""
    notes = []
    for holder in draws.held_back_by(game):
        notes.append(
            _(
                "Held back until %(game)s of the same draw ends or closes round %(needed)s (it has closed "
                "%(closed)s): its players must not see this game's rounds first, so only this game's director and "
                "players see them until then (My rounds links, the archive and the public pages wait).",
                game=_game_label(holder.game, director_id),
                needed=holder.needed,
                closed=holder.closed,
            )
        )
    return notes


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
        labels = competitions.room_labels(competition)
        lines = []
        for standing in event.results.standings:
            room, name = event.line(standing.player)
            lines.append(((room_label(room.number, room.name), name), standing))
        return render_template(
            "competitions/event.html",
            event=event,
            competition=competition,
            lines=lines,
            rooms=[room_label(label.number, label.name) for label in labels.values()],
            waiting=[room_label(room.number, room.name) for room in event.waiting],
        )
    return render_template(
        "competitions/tournament.html", ranking=competitions.tournament_ranking(competition), competition=competition
    )
