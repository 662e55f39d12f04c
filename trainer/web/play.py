"""The players' pages (phones): join a game, play each round, see the reveal and the standings.

A player's identity is their game token, kept in the signed session cookie (one per game joined),
so a reload, a lost connection or a closed tab brings the same player back with their play.
"""

from __future__ import annotations

from flask import (
    Blueprint,
    current_app,
    flash,
    get_template_attribute,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import get_locale
from flask_babel import gettext as _
from sqlalchemy import select

from ..core.database import db
from ..core.errors import Refused
from ..games import history, service, tokens, topping
from ..games.cache import cached
from ..games.display import game_view, player_view
from ..games.edition import played_lexicon
from ..games.models import Game, Player
from ..games.record import my_record, player_of_key, record_key
from ..http.ids import posted_number
from ..http.negotiate import wants_json
from ..http.ratelimit import limited, refused_guess
from ..http.session import PLAYER_TOKENS, remember_token, session_token, session_tokens
from ..http.sse import HEARTBEAT_SECONDS
from .auth import logged_in_learner
from .common import game_or_missing, missing_game_page
from .forms import ActionForm, JoinForm, PlayForm, RejoinForm
from .messages import game_message

bp = Blueprint("play", __name__)


def keyboard_case(text: str) -> str:
    """A play as a phone's keyboard wrote it, in notation: a word all in small letters is the keyboard's case and
    means capitals; small letters among capitals are blanks (docs/rules.md §5.4)."""
    square, space, word = text.strip().partition(" ")
    if not space or any(ch.isupper() for ch in word):
        return text
    return f"{square} {word.strip().upper()}"


def _player(game: Game) -> Player | None:
    """This browser's player in ``game``, if it joined it."""
    token = session_token(PLAYER_TOKENS, game.id)
    player = service.player_for_token(token) if token is not None else None
    return player if player is not None and player.game_id == game.id else None


def _retired(game: Game) -> Refused | None:
    """Why this browser's token for ``game`` stopped working (taken over by another phone, or removed), if it did."""
    return tokens.why_retired(session_token(PLAYER_TOKENS, game.id))


def _to_join(game: Game) -> ResponseReturnValue:
    """A browser that plays no more in ``game`` goes to the join page, told why when its place was taken over or
    its player removed (docs/rules.md §6.16)."""
    retired = _retired(game)
    if retired is not None:
        flash(game_message(retired), "error")
    return redirect(url_for("play.join"), code=303)


@bp.route("/join", methods=["GET", "POST"])
@limited("join")
def join() -> ResponseReturnValue:
    form = JoinForm()
    if request.method == "GET":
        code = request.args.get("code", "").strip().upper()
        if code:
            form.code.data = code
            game = db.session.execute(select(Game).where(Game.join_code == code)).scalar_one_or_none()
            if game is not None and _player(game) is not None:
                return redirect(url_for("play.play", game_id=game.id), code=303)
    elif form.validate_on_submit():
        try:
            learner = logged_in_learner()
            player, token = service.join_game(
                form.code.data,
                form.name.data,
                held_tokens=session_tokens(PLAYER_TOKENS),  # a place in another room of an event (§6.22)
                learner_id=learner.id if learner is not None else None,
            )
        except Refused as error:
            if error.code == "unknown_code":
                refused_guess()
            target = form.name if error.code in ("name_taken", "bad_name", "bad_name_characters") else form.code
            message = game_message(error)
            if error.code == "name_taken":
                message += " " + _("If it is you on a new phone, ask the director for your rejoin code.")
            target.errors = [message]
        else:
            remember_token(PLAYER_TOKENS, player.game_id, token)
            learner = logged_in_learner()
            if learner is not None and form.link.data:
                try:  # a new player: never someone else's plays (docs/rules.md §6.25)
                    history.link(player, learner)
                except Refused:  # the account has another player in this game: this one plays unlinked
                    flash(_("Your account has another player in this game: these plays are not kept in it."), "error")
            return redirect(url_for("play.play", game_id=player.game_id), code=303)
    status = 400 if request.method == "POST" else 200
    return render_template("play/join.html", form=form, learner=logged_in_learner()), status


@bp.route("/rejoin", methods=["GET", "POST"])
@limited("join")
def rejoin() -> ResponseReturnValue:
    """A player whose phone died takes their place again on another one, with the code the director gave them."""
    form = RejoinForm()
    if request.method == "GET":
        form.code.data = request.args.get("code", "").strip().upper() or form.code.data
    elif form.validate_on_submit():
        try:
            player, token = service.rejoin(form.code.data, held_tokens=session_tokens(PLAYER_TOKENS))
        except Refused as error:
            if error.code != "in_another_room":  # a valid code, refused for this browser: no guess
                refused_guess()
            form.code.errors = [game_message(error)]
        else:
            remember_token(PLAYER_TOKENS, player.game_id, token)
            return redirect(url_for("play.play", game_id=player.game_id), code=303)
    status = 400 if request.method == "POST" else 200
    return render_template("play/rejoin.html", form=form), status


def page_context(game: Game, player: Player | None) -> dict[str, object]:
    """What the play page and its live fragment are rendered with; without ``player``, the fragment's own
    parts are left as slots (the server's fast path, trainer/live/pages.py, fills them)."""
    view = game_view(game)
    tappable = view.status in ("playing", "paused")
    # The board is the same on every phone: drawn once per version of the game and language, since a
    # whole room asks for it at once after each round event.
    board_html = cached(
        game,
        ("phone-board", str(get_locale()), tappable),
        lambda: get_template_attribute("_game.html", "board")(view.board, tappable=tappable),
    )
    context: dict[str, object] = {
        "view": view,
        "game": game,
        "me": player_view(view, player) if player is not None else None,
        "form": PlayForm(),
        "board_html": board_html,
    }
    if topping.is_topping(game) and player is not None:  # docs/rules.md §6.26 (never through the fast path)
        context["topping"] = topping.phone(game, player)
    return context


@bp.get("/play/<game_id:game_id>")
def play(game_id: int) -> ResponseReturnValue:
    game = game_or_missing(game_id)
    if game is None:
        return missing_game_page(game_id)
    player = _player(game)
    if player is None:
        return _to_join(game)
    # The page's script hands plays in through the API with the player's own token: that path is taken in
    # the server's event loop, which a whole room handing in at the deadline needs (the form stays for
    # refusals, whose messages are translated, and for browsers without the script).
    return _play_page(game, player, page_context(game, player))


def _play_page(game: Game, player: Player, context: dict[str, object], status: int = 200) -> ResponseReturnValue:
    page = make_response(
        render_template(
            "play/play.html",
            token=session_token(PLAYER_TOKENS, game.id),
            rounds_url=url_for("play.my_rounds", key=record_key(player)),
            heartbeat_seconds=current_app.config.get("TIRAGE_SSE_HEARTBEAT", HEARTBEAT_SECONDS),
            **context,
        ),
        status,
    )
    page.headers["Cache-Control"] = "no-store"  # it carries the player's token
    return page


@bp.get("/play/<game_id:game_id>/live")
def live(game_id: int) -> ResponseReturnValue:
    """The changing part of the player's page, fetched by its script after each event of the game."""
    game = game_or_missing(game_id)
    if game is None:
        return missing_game_page(game_id)
    player = _player(game)
    if player is None:
        retired = _retired(game)
        if retired is not None:  # the page's script shows its notice (live.js) and stops asking
            return game_message(retired), 401, {"X-Tirage-Revoked": retired.code}
        return _("Join the game first."), 403
    return render_template("play/_live.html", **page_context(game, player))


@bp.post("/play/<game_id:game_id>/submit")
@limited("submit")
def submit(game_id: int) -> ResponseReturnValue:
    """Hand in a play. It is on disk before the answer says so; a later one replaces it until the deadline."""
    game = game_or_missing(game_id)
    if game is None:
        return missing_game_page(game_id)
    player = _player(game)
    if player is None:
        retired = _retired(game)
        if retired is not None and wants_json():  # the page's script shows its notice (play.js)
            return {"ok": False, "error": game_message(retired), "revoked": retired.code}, 401
        return _to_join(game)
    form = PlayForm()
    view = game_view(game)
    error: str | None = None
    accepted = None
    if not form.validate_on_submit():
        error = _("Write your play first, like %(example)s.", example=view.example)
    else:
        number = posted_number(form.round.data)
        number = game.round_number if number is None else number
        try:
            if topping.is_topping(game):
                accepted = _hand_in_topping(game, player, number, keyboard_case(form.move.data or ""))
                if accepted is None:
                    error = _(
                        "Not the top: try again (each wrong play costs %(seconds)s s).",
                        seconds=topping.costs_of(game).wrong_play_seconds,
                    )
            else:
                accepted = service.submit(game, player, number, keyboard_case(form.move.data or ""))
        except Refused as refused:
            error = game_message(refused, view.example)
    if wants_json():
        if accepted is None:
            return {"ok": False, "error": error}, 422
        return {"ok": True, "move": accepted.move, "score": accepted.score_as_placed}
    if accepted is None:
        form.move.errors = [error or ""]
        context = page_context(game, player)
        context["form"] = form
        return _play_page(game, player, context, 422)
    return redirect(url_for("play.play", game_id=game.id), code=303)


def _hand_in_topping(game: Game, player: Player, number: int, text: str) -> service.AcceptedPlay | None:
    """A play in a topping game: taken as the top (None when it is not: a wrong play, stored)."""
    answer = topping.hand_in(game, player, number, text)
    return service.AcceptedPlay(answer.move, 0, answer.received_at) if answer.top else None


@bp.post("/play/<game_id:game_id>/hint")
@limited("submit")
def hint(game_id: int) -> ResponseReturnValue:
    """Take a hint about the round's top in a topping game (docs/rules.md §6.26); the page shows it."""
    game = game_or_missing(game_id)
    if game is None:
        return missing_game_page(game_id)
    player = _player(game)
    if player is None:
        return _to_join(game)
    if not ActionForm().validate_on_submit():  # an expired page: nothing is taken, the page is shown again
        flash(_("Form expired: reload the page."), "error")
        return redirect(url_for("play.play", game_id=game.id), code=303)
    number = posted_number(request.form.get("round"))
    try:
        topping.take_hint(game, player, game.round_number if number is None else number, request.form.get("kind"))
    except Refused as refused:
        flash(game_message(refused), "error")
    return redirect(url_for("play.play", game_id=game.id), code=303)


@bp.get("/play/rounds/<key>")
def my_rounds(key: str) -> ResponseReturnValue:
    """A player's rounds (their "My rounds" link): during the game and after the night, on any device."""
    player = player_of_key(key)
    if player is None:
        return render_template("play/rounds_missing.html"), 404
    game = player.game
    inside = _player(game) == player  # this browser is the player's own
    page = make_response(
        render_template(
            "play/rounds.html",
            record=my_record(game, player, inside, session_tokens(PLAYER_TOKENS)),
            played=played_lexicon(game),
            inside=inside,
            link=url_for("play.my_rounds", key=key, _external=True),
            key=key,
            player=player,
            learner=logged_in_learner() if inside else None,
        )
    )
    page.headers["Cache-Control"] = "no-store"
    page.headers["Referrer-Policy"] = "no-referrer"  # the link is the player's own
    return page
