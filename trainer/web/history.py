"""A player's history (``/study/history``, docs/rules.md §6.25) and the "From my games" deck (§7.12).

A learner's finished games are caught up with when they open their history or their word study: the figures of a
game not seen yet are worked out (trainer.games.history) and the tops they missed, there and in their finished
practice sessions, become cards of their "From my games" deck (trainer.study.fromgames). Never on a game's serving
path: a club night's last round closes as fast as any other.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from flask import Blueprint, Flask, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from markupsafe import Markup, escape
from sqlalchemy.exc import IntegrityError
from wtforms import RadioField

from ..core.accounts import Learner
from ..core.database import db
from ..core.errors import Refused
from ..games import history
from ..games.record import player_of_key
from ..study import fromgames
from .auth import learner_required, logged_in_learner
from .forms import ActionForm, Form

bp = Blueprint("history", __name__, url_prefix="/study")

LAST_CHOICES = (3, 5, 10, 20, 50, 100)
MAX_LAST = 1000


def cause_names() -> dict[str, str]:
    """Each cause of points lost (§6.25) in the reader's language."""
    return {
        "missing": _("Late or missing play"),
        "invalid": _("Invalid word"),
        "same_word": _("Lower play of the same word"),
        "bingo": _("Missed bingo"),
        "hook": _("Hook missed"),
        "premium": _("Premium square missed"),
        "lower": _("Another lower play"),
    }


def link_message(error: Refused) -> str:
    if error.code == "player_linked":
        return _("These plays are linked to another account.")
    if error.code == "learner_in_game":
        return _("Your account has another player in this game.")
    return _("The server could not do this now.")


class FeedForm(Form):
    feed = RadioField(
        choices=[("tops", "tops"), ("bingos", "bingos"), ("off", "off")],
        default="tops",
    )


def catch_up(learner: Learner) -> int:
    """Record the learner's finished games not seen yet and put the tops they missed in their deck (as their setting
    says, §7.12); how many games are left for the next request (a first visit after very many)."""
    later = history.refresh(learner)
    missed = history.take_missed(learner)
    feed = learner.from_games if learner.from_games in history.FEEDS else "tops"
    if feed == "off" or not missed:
        db.session.commit()
        return later
    by_lexicon: dict[str, list[fromgames.FromGame]] = {}
    for top in missed:
        if feed == "bingos" and not top.bingo:
            continue
        for card_id in fromgames.card_ids(top.lexicon, top.word, top.stem):
            by_lexicon.setdefault(top.lexicon, []).append(
                fromgames.FromGame(card_id, top.round_id, top.cause, top.practice_round_id)
            )
    try:
        for lexicon, cards in by_lexicon.items():
            fromgames.add(learner, lexicon, cards, _("From my games"))
    except IntegrityError:  # the same games taken by another request of the learner's at this moment
        db.session.rollback()
    db.session.commit()
    return later


def _catch_up_before_study() -> None:
    """The decks page and the study page show the cards of games finished since the learner's last visit."""
    if request.method != "GET" or request.endpoint not in ("study.decks", "study.study"):
        return
    learner = logged_in_learner()
    if learner is not None:
        catch_up(learner)


def init_app(app: Flask) -> None:
    app.before_request(_catch_up_before_study)


def _last() -> int:
    value = request.args.get("last", "")
    if value.isascii() and value.isdigit() and 1 <= int(value) <= MAX_LAST:
        return int(value)
    return history.DEFAULT_LAST


def _shown(games: list[history.GameLine]) -> list[dict[str, Any]]:
    """Each game with its date (ISO, as the My rounds page writes it) and its percentage as the page writes it: two
    decimals, a decimal comma in French (§6.13). Written here, not by Babel in the template: 500 games are 1,000
    formats a request."""
    comma = str(get_locale()) == "fr"
    return [
        {
            "line": line,
            "date": line.played_at.strftime("%Y-%m-%d"),
            "pct": line.percentage.replace(".", ",") if comma else line.percentage,
        }
        for line in games
    ]


def _points_html(drawn: dict[str, Any]) -> Markup:
    """The plot's points, one ``<circle>`` a game with its date and percentage in its title. Written here with plain
    strings: a template loop (or ``Markup.format``) over 500 games costs more than the rest of the page. Every value
    is a number or a date this module wrote."""
    return Markup(
        "".join(
            f'<circle cx="{p["x"]}" cy="{p["y"]}" r="6" class="point"><title>{p["game"]["date"]}: '
            f"{p['game']['pct']} %</title></circle>"
            for p in drawn["points"]
        )
    )


def _rows_html(games: list[dict[str, Any]]) -> Markup:
    """The table of games, newest first: the game as the player knew it (its join code, linking to its archive page,
    over its date and lexicon), total, top total, percentage, rank. The code and the lexicon's name are escaped; the
    rest are numbers and dates."""
    archive = escape(url_for("archives.index"))
    rows = []
    for g in reversed(games):
        line = g["line"]
        rank = f"{line.rank}/{line.players}" if line.rank else "–"
        rows.append(
            f'<tr><th scope="row"><a href="{archive}/{line.game_id}">{escape(line.join_code)}</a>'
            f'<span class="game-line">{g["date"]} · {escape(line.lexicon)}</span></th>'
            f'<td class="num">{line.total}</td><td class="num">{line.top_total}</td>'
            f'<td class="num">{g["pct"]}</td><td class="num">{rank}</td></tr>'
        )
    return Markup("\n".join(rows))


def plot(games: list[dict[str, Any]], width: int = 600, height: int = 200) -> dict[str, Any]:
    """The percentage plot's points and axes (drawn on the server, no script)."""
    values = [float(Decimal(g["line"].percentage)) for g in games]
    top = max([100.0, *values])
    top = float(int(top + 24.99) // 25 * 25)  # the axis ends on a multiple of 25
    count = len(games)
    step = width / (count - 1) if count > 1 else 0
    points = []
    for n, (game, value) in enumerate(zip(games, values, strict=True)):
        x = round(n * step if count > 1 else width / 2, 1)
        y = round(height - value / top * height, 1)
        points.append({"x": x, "y": y, "game": game})
    ticks = [{"value": int(v), "y": round(height - v / top * height, 1)} for v in _range(0.0, top, 25.0)]
    labels = sorted({0, count - 1, (count - 1) // 2}) if count > 2 else list(range(count))
    return {
        "width": width,
        "height": height,
        "points": points,
        "ticks": ticks,
        "labels": [points[i] for i in labels],
        "polyline": " ".join(f"{p['x']},{p['y']}" for p in points),
    }


def _range(start: float, stop: float, step: float) -> list[float]:
    values = []
    value = start
    while value <= stop + 1e-9:
        values.append(value)
        value += step
    return values


@bp.get("/history")
@learner_required
def page() -> ResponseReturnValue:
    learner = logged_in_learner()
    assert learner is not None
    later = catch_up(learner)
    last = _last()
    seen = history.history(learner, last)
    games = _shown(seen.games)
    drawn = plot(games)
    form = FeedForm(feed=learner.from_games)
    return render_template(
        "history/history.html",
        seen=seen,
        games=games,
        later=later,
        plot=drawn,
        points_html=_points_html(drawn),
        rows_html=_rows_html(games),
        causes=cause_names(),
        last=last,
        last_choices=sorted({*LAST_CHOICES, last}),
        form=form,
    )


@bp.post("/history/feed")
@learner_required
def feed() -> ResponseReturnValue:
    learner = logged_in_learner()
    assert learner is not None
    form = FeedForm()
    if not form.validate_on_submit():
        abort(400)
    learner.from_games = str(form.feed.data)
    db.session.commit()
    flash(_("Saved."), "success")
    return redirect(url_for("history.page"), code=303)


@bp.post("/link/<key>")
@learner_required
def link(key: str) -> ResponseReturnValue:
    """Link a player's plays to the learner logged in: only from the browser that holds that player's token."""
    from .play import _player  # the browser's own player in a game (the session's room token)

    learner = logged_in_learner()
    assert learner is not None
    if not ActionForm().validate_on_submit():
        abort(400)
    player = player_of_key(key)
    if player is None or _player(player.game) != player:
        abort(403)  # only the player's own browser links their plays: nobody links someone else's
    try:
        history.link(player, learner)
    except Refused as error:
        flash(link_message(error), "error")
    else:
        flash(_("Your plays in this game are in your account now."), "success")
    return redirect(url_for("play.my_rounds", key=key), code=303)


def origins(deck_card_id: int) -> list[tuple[history.RoundContext, str]]:
    """The rounds a card of the "From my games" deck came from, club games' and practice sessions', with the cause
    of the top missed (§7.12): what the card's page shows as its context."""
    found = fromgames.rounds_of([deck_card_id]).get(deck_card_id, [])
    club = history.round_contexts([round_id for round_id, _, _ in found if round_id is not None])
    practised = history.practice_round_contexts([p for _, p, _ in found if p is not None])
    names = cause_names()
    shown: list[tuple[history.RoundContext, str]] = []
    for round_id, practice_round_id, cause in found:
        where = club.get(round_id) if round_id is not None else practised.get(practice_round_id or 0)
        if where is not None:
            shown.append((where, names.get(cause, cause)))
    return shown
