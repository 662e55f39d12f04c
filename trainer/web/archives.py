"""The archive's pages (issue 18): ``/archives``, the finished games with a filter form (GET parameters, so a
filtered list is a link to share), and ``/archives/<id>``, one game's rounds, standings and downloads.

Open to everyone, as the API's archive is: :mod:`trainer.games.archives` says why, and which games are held back
while another game of their draw is being played (docs/rules.md §6.4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Response, abort, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext as _

from ..core.database import db
from ..core.errors import Refused
from ..engine.rules import ruleset_codes
from ..games import archives, export
from ..games.models import Game
from ..http.errors import status_of
from .auth import directs, logged_in_director, logged_in_learner
from .common import spreadsheet_style
from .competitions import held_back_notes

bp = Blueprint("archives", __name__)


def filter_message(params: Mapping[str, Any]) -> str:
    """A ``bad_filter`` refusal in the reader's language, naming the field as the form labels it."""
    labels = {
        "kind": _("Kind of game"),
        "rules": _("Rules"),
        "lexicon": _("Lexicon"),
        "director": _("Director"),
        "date_from": _("From"),
        "date_to": _("To"),
        "min_players": _("At least (players)"),
        "max_players": _("At most (players)"),
        "page": _("Page"),
        "per_page": _("Games a page"),
    }
    name = labels.get(str(params.get("field")), str(params.get("field", "")))
    reason = params.get("reason")
    if reason == "unknown_rules":
        return _("%(field)s: there are no such rules. Choose one of %(known)s.", field=name,
                 known=", ".join(ruleset_codes()))  # fmt: skip
    if reason == "unknown_kind":
        return _("%(field)s: choose a club game, a simultaneous game or a tournament.", field=name)
    if reason == "not_a_date":
        return _("%(field)s: “%(value)s” is not a date. Write it as year-month-day, like 2026-03-12.", field=name,
                 value=params.get("value", ""))  # fmt: skip
    if reason == "not_a_number":
        return _("%(field)s: write a whole number from %(low)s to %(high)s.", field=name, low=params.get("low", 0),
                 high=params.get("high", 0))  # fmt: skip
    if reason == "reversed" and params.get("field") == "date_to":
        return _("The date “To” is before the date “From”.")
    if reason == "reversed":
        return _("“At most” is fewer players than “At least”.")
    return _("%(field)s: this is longer than any name.", field=name)


def kind_labels() -> list[tuple[str, str]]:
    """The kinds of game the list can be narrowed to, as the form names them."""
    labels = {"club": _("Club game"), "simultaneous": _("Simultaneous game"), "tournament": _("Tournament")}
    return [(kind, labels[kind]) for kind in archives.KINDS]


@bp.get("/archives")
def index() -> ResponseReturnValue:
    """The finished games, newest first, a page at a time, with the filters asked."""
    try:
        query = archives.read_query(request.args)
    except Refused as error:
        return _page(None, filter_message(error.params), error.params.get("field")), status_of(error)
    return _page(archives.list_games(query), None, None)


def _reader() -> int | None:
    director = logged_in_director()
    return director.id if director is not None else None


def _held_back() -> tuple[int, list[tuple[Game, list[str]]]]:
    """How many finished games are held back (docs/rules.md §6.4), and the reader's own among them (a director's,
    logged in) with why: a director whose game is missing from the archive is told which game it waits for."""
    games = archives.held_back_games()
    reader = _reader()
    own = [(game, held_back_notes(game, reader)) for game in games if reader is not None and game.director_id == reader]
    return len(games), own


def _page(page: archives.ArchivePage | None, error: str | None, field: object) -> str:
    links: dict[str, str] = {}
    if page is not None:
        args: dict[str, Any] = {**page.query.filters.as_args()}
        if page.query.per_page != archives.PAGE_SIZE:
            args["per_page"] = str(page.query.per_page)
        if page.query.page > 1:
            links["previous"] = url_for("archives.index", **args, page=min(page.query.page - 1, page.pages))
        if page.query.page < page.pages:
            links["next"] = url_for("archives.index", **args, page=page.query.page + 1)
    return render_template(
        "archives/index.html",
        page=page,
        error=error,
        error_field=field,
        choices=archives.choices(),
        held_back=_held_back(),
        rulesets=ruleset_codes(),
        kinds=kind_labels(),
        asked=request.args,
        links=links,
    )


@bp.get("/archives/<game_id:game_id>")
def game(game_id: int) -> ResponseReturnValue:
    """One archived game: each round's draw, top, next best and finders; the standings; the downloads."""
    try:
        record = archives.archived_game(game_id)
    except Refused as error:
        message = (
            _("This game shares its draw with a game still being played: it joins the archive once that game has "
              "caught up with it.")
            if error.code == "draw_not_public"
            else _("There is no such game in the archive: it keeps the games that are over.")
        )  # fmt: skip
        held = db.session.get(Game, game_id) if error.code == "draw_not_public" else None
        notes = held_back_notes(held, _reader()) if held is not None else []
        return render_template("archives/missing.html", message=message, notes=notes), status_of(error)
    return render_template(
        "archives/game.html",
        record=record,
        game=record.game,
        own=directs(record.game),
        learner=logged_in_learner() is not None,
    )


@bp.get("/archives/<game_id:game_id>/standings.csv")
def standings_csv(game_id: int) -> ResponseReturnValue:
    """The archived game's standings as CSV in the reader's spreadsheet convention (the API's file is the plain one)."""
    try:
        record = archives.archived_game(game_id)
    except Refused:
        abort(404)
    response = Response(
        export.standings_csv(record.game, record.results, spreadsheet_style()), content_type="text/csv; charset=utf-8"
    )
    response.headers["Content-Disposition"] = f'attachment; filename="tirage-game-{game_id}.csv"'
    return response
