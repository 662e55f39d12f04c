"""The room's screen (``/games/<id>/projector``), driven from the director's laptop.

Only the game's director opens it: in the lobby it shows the join code and QR code. It reads from
the back of a room at 1024×768, 1280×720 and 1920×1080; keyboard shortcuts run the night without
leaving it, posting to the console's actions (trainer/static/js/projector.js): Space pauses and
resumes at once, while Space in the lobby (start), → (next round) and R (reveal now) act on a second
press within 2 s. The game's cue settings (30 seconds left, last seconds' beeps, spoken draw and top)
are played by the page. At a reveal the page lays the standings out in pages sized to the screen and
paces them by the reveal's length (docs/rules.md §6.6).
"""

from __future__ import annotations

from flask import Blueprint, render_template
from flask.typing import ResponseReturnValue

from ..core.clock import seconds_until, utcnow
from ..duplicate.rounds import GameStatus
from ..games import topping
from ..games.display import game_view
from ..games.edition import played_lexicon
from .auth import director_required, game_of_director
from .common import join_link
from .forms import ActionForm

bp = Blueprint("projector", __name__)

# The projector pages through a club's whole room (up to 200 players), and through the top 200 of a room of 1,500.
STANDINGS_SHOWN = 200


def _context(game_id: int) -> dict[str, object]:
    game = game_of_director(game_id)
    view = game_view(game)
    screen = topping.screen(game) if topping.is_topping(game) else None  # docs/rules.md §6.26
    # A timed reveal: projector.js shares its length between the round's details and the standings' pages.
    timed = game.status == GameStatus.REVEALING and game.next_round_at is not None and game.reveal_seconds
    return {
        "game": game,
        "view": view,
        "played": played_lexicon(game),
        "form": ActionForm(),
        "join_url": join_link(game.join_code),
        "topping": screen,
        "standings": (screen.standings if screen else view.standings)[:STANDINGS_SHOWN],
        "reveal_seconds": game.reveal_seconds if timed else None,
        "reveal_left": seconds_until(game.next_round_at, utcnow()) if timed and game.next_round_at else None,
    }


@bp.get("/games/<game_id:game_id>/projector")
@director_required
def show(game_id: int) -> ResponseReturnValue:
    return render_template("projector/projector.html", **_context(game_id))


@bp.get("/games/<game_id:game_id>/projector/live")
@director_required
def live(game_id: int) -> ResponseReturnValue:
    return render_template("projector/_live.html", **_context(game_id))
