"""What went wrong, in the reader's language.

The engine and the game service name every refusal with a stable ``code`` and its ``params``
(their English messages are for the API and the logs); the pages say the same thing through
Flask-Babel, so a French player reads "la case H8 est déjà occupée" next to the play they typed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask_babel import gettext as _
from flask_babel import ngettext

from ..core.errors import Refused
from ..engine.errors import EngineError

Say = Callable[[Mapping[str, Any]], str]


def _engine_messages() -> dict[str, Say]:
    return {
        "bad_coordinate": lambda p: _(
            "“%(text)s” is not a square: write a letter and a number, like %(example)s.",
            text=p.get("text", ""),
            example=p.get("example", "8D"),
        ),
        "off_board_coordinate": lambda p: _("%(name)s is off the board.", name=p.get("name", "")),
        "bad_word": lambda p: _(
            "“%(word)s” is not a word that can be played: use letters only.", word=p.get("word", "")
        ),
        "bad_notation": lambda p: _("Write a square and a word, like %(example)s.", example=p.get("example", "8D")),
        "unknown_notation": lambda p: _("Write a square and a word, like %(example)s.", example=p.get("example", "8D")),
        "off_board": lambda p: _("The word runs off the board."),
        "nothing_to_play_through": lambda p: _(
            "There is no tile at %(square)s to play through.", square=p.get("square", "")
        ),
        "tile_mismatch": lambda p: _(
            "%(square)s holds %(board)s, not %(written)s.",
            square=p.get("square", ""),
            board=p.get("board", ""),
            written=p.get("written", ""),
        ),
        "no_tiles": lambda p: _("The play places no tile of your rack."),
        "same_square": lambda p: _("Two tiles are on the same square."),
        "square_taken": lambda p: _("%(square)s is already taken.", square=p.get("square", "")),
        "not_in_line": lambda p: _("The tiles are not all in one row or one column."),
        "gap": lambda p: _("There is a gap at %(square)s.", square=p.get("square", "")),
        "partial_word": lambda p: _(
            "The word goes on through the tile at %(square)s: write the whole word.", square=p.get("square", "")
        ),
        "first_not_on_start": lambda p: _(
            "The first play must cover the centre square %(square)s.", square=p.get("square", "")
        ),
        "first_too_short": lambda p: _("The first play must have at least two letters."),
        "not_connected": lambda p: _("The play must touch a tile already on the board."),
        "no_word": lambda p: _("The play forms no word of two letters or more."),
        "not_in_rack": _not_in_rack,
        "bad_rack_tile": lambda p: _("%(tile)s is not a tile of this game.", tile=p.get("tile", "")),
    }


def _not_in_rack(params: Mapping[str, Any]) -> str:
    tile, count = str(params.get("tile", "")), int(params.get("count", 1) or 1)
    if tile == "blank":
        # On the pages a blank is asked for by a small letter among capitals (docs/rules.md §5.4): say so.
        if count == 1:
            return _(
                "A small letter among capitals stands for a blank, and your rack has no blank: write that letter"
                " as a capital."
            )
        return ngettext(
            "Small letters among capitals stand for blanks, and your rack has only %(num)s blank.",
            "Small letters among capitals stand for blanks, and your rack has only %(num)s blanks.",
            count - 1,
        )
    if count == 1:
        return _("Your rack has no %(letter)s.", letter=tile)
    return _("Your rack has only %(n)s × %(letter)s.", n=count - 1, letter=tile)


def _game_messages() -> dict[str, Say]:
    return {
        "code_missing": lambda p: _("Enter the game's code."),
        "bad_name": lambda p: _("Your name must have 1 to 40 characters."),
        "bad_name_characters": lambda p: _(
            "Your name holds a character that cannot be shown (an invisible or direction character): type it again."
        ),
        "room_locked": lambda p: _("The director has closed this game to new players. Ask them to open it."),
        "no_player": lambda p: _("This player is no longer in the game."),
        "unknown_code": lambda p: _(
            "No game has the code %(code)s. Check it on the screen.", code=p.get("join_code", "")
        ),
        "game_finished": lambda p: _("This game is over."),
        "name_taken": lambda p: _(
            "Someone in this game is already called %(name)s: choose another name.", name=p.get("name", "")
        ),
        "unknown_rejoin_code": lambda p: _(
            "This rejoin code is not valid: it works once, for ten minutes. Ask the director for a new one."
        ),
        "already_started": lambda p: _("The game has already started."),
        "wrong_game": lambda p: _("You joined another game, not this one."),
        "move_missing": lambda p: _("Write your play first, like %(example)s.", example=p.get("example", "8D")),
        "round_not_started": lambda p: _("Round %(round)s has not started yet.", round=p.get("round", "")),
        "round_closed": lambda p: _("Round %(round)s is closed: your play came too late.", round=p.get("round", "")),
        "not_running": lambda p: _("No round is running."),
        "not_paused": lambda p: _("The game is not paused."),
        "just_closed": lambda p: _("The round has just closed."),
        "not_revealing": lambda p: _("This can only be done during a round's reveal."),
        "not_a_top": lambda p: _("%(move)s is not one of the round's top plays.", move=p.get("move", "")),
        "round_not_closed": lambda p: _("Round %(round)s is not closed yet.", round=p.get("round", "")),
        "unknown_player": lambda p: _("This player is not in the game."),
        "bad_score": lambda p: _("The score must be a whole number from 0 to 10000."),
        "reason_missing": lambda p: _("Say why the score is corrected."),
        "bad_seconds": lambda p: _("The extra time must be from 1 to 3600 seconds."),
        "bad_setting": lambda p: _("The setting “%(setting)s” is not valid.", setting=p.get("setting", "")),
        "lexicon_rules": lambda p: _(
            "The lexicon %(lexicon)s is for the %(rules)s rules.",
            lexicon=p.get("lexicon", ""),
            rules=p.get("rules", ""),
        ),
        "impossible_draw_rule": lambda p: _("No rack can meet these draw minimums with this tile set."),
        "empty_deck": lambda p: _("The list has no card."),
        "deck_too_big": lambda p: _("A deck holds at most %(n)s cards.", n=p.get("n", 100000)),
        "deck_too_costly": lambda p: _(
            "This deck takes more than %(seconds)s seconds to build: choose fewer cards, a shorter length or fewer"
            " blanks.",
            seconds=p.get("seconds", 60),
        ),
        "build_failed": lambda p: _("This deck could not be built. Delete it and try again."),
        "builder_busy": lambda p: _("Another deck is being built. Try again in a minute."),
        "deck_quota": lambda p: _(
            "You have %(n)s decks, the most one learner may have: delete one first.", n=p.get("n", 50)
        ),
        "card_quota": lambda p: _(
            "Your decks would hold more than %(n)s cards: delete a deck or choose fewer cards.", n=p.get("n", 300000)
        ),
        "short_password": lambda p: _("The password must have at least %(n)s characters.", n=p.get("n", 8)),
        "learner_taken": lambda p: _("The name %(name)s is taken: choose another one.", name=p.get("name", "")),
        "director_taken": lambda p: _("A director named %(name)s exists already.", name=p.get("name", "")),
        "bad_learner_name": lambda p: _("Your name must have 1 to %(n)s characters.", n=p.get("n", 80)),
        "bad_director_name": lambda p: _("The name must have 1 to %(n)s characters.", n=p.get("n", 80)),
        "short_seed": lambda p: _(
            "A seed you choose must have at least %(digits)s digits, or anyone could work it out from the first"
            " rack. Leave it empty for a random one.",
            digits=p.get("digits", 20),
        ),
    }


def engine_message(error: EngineError, example: str = "8D TRAIN") -> str:
    """An engine refusal in the reader's language."""
    say = _engine_messages().get(error.code)
    if say is None:
        return _("This play cannot be placed.")
    return say({"example": example, **error.params})


def game_message(error: Refused, example: str = "8D TRAIN") -> str:
    """A refusal of the game service in the reader's language."""
    if isinstance(error.cause, EngineError):
        return engine_message(error.cause, example)
    say = _game_messages().get(error.code)
    if say is None:
        return _("The server could not do this now.")
    return say({"example": example, **error.params})
