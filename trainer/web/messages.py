"""What went wrong, in the reader's language.

The engine and the game service name every refusal with a stable ``code`` and its ``params``
(their English messages are for the API and the logs); the pages say the same thing through
Flask-Babel, so a French player reads "la case H8 est déjà occupée" next to the play they typed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask_babel import format_number, ngettext
from flask_babel import gettext as _

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


def _preset_conflict(params: Mapping[str, Any]) -> str:
    """A time given with a preset that sets it otherwise (docs/rules.md §6.14)."""
    preset, wanted = params.get("preset", ""), params.get("wanted", "")
    if params.get("setting") == "reveal_seconds":
        return _(
            "The preset %(preset)s sets the reveal pause to %(seconds)s seconds: choose the preset “None” to set the"
            " times yourself.",
            preset=preset,
            seconds=wanted,
        )
    return _(
        "The preset %(preset)s sets the time per round to %(seconds)s seconds: choose the preset “None” to set the"
        " times yourself.",
        preset=preset,
        seconds=wanted,
    )


def _game_messages() -> dict[str, Say]:
    return {
        "code_missing": lambda p: _("Enter the game's code."),
        "bad_name": lambda p: _("Your name must have 1 to 40 characters."),
        "bad_name_characters": lambda p: _(
            "Your name holds a character that cannot be shown (an invisible or direction character): type it again."
        ),
        "room_locked": lambda p: _("The director has closed this game to new players. Ask them to open it."),
        "in_another_room": lambda p: _(
            "You already have a place in another room of this simultaneous game: a player plays in one room only."
        ),
        "bad_room_name": lambda p: _("A room's name has 1 to 80 characters that can be shown."),
        "room_name_taken": lambda p: _("Another room of this event is named %(name)s.", name=p.get("name", "")),
        "room_name_is_code": lambda p: _("A room's name cannot be a code: it is shown to everyone."),
        "not_a_room": lambda p: _("Only a room of a simultaneous game has a room name."),
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
        "player_removed": lambda p: _("The director removed you from this game."),
        "taken_over": lambda p: _("This place was taken over by another phone."),
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
        "bad_table": lambda p: _("A table number is from 1 to %(n)s.", n=p.get("n", 9999)),
        "table_taken": lambda p: _("Table %(n)s has a player already.", n=p.get("table", "")),
        "bulletin_player_missing": lambda p: _("Say whose bulletin it is: a table number or a name."),
        "unknown_table": lambda p: _("No player is at table %(n)s.", n=p.get("table", "")),
        "unknown_bulletin_player": lambda p: _("No player of this game is called %(name)s.", name=p.get("name", "")),
        "bulletin_late": lambda p: _(
            "Round %(round)s is closed. If the slip was handed in before the deadline, tick “Handed in before the"
            " deadline” and enter it again.",
            round=p.get("round", ""),
        ),
        "no_round_for_bulletin": lambda p: _("No round is being played or has just closed."),
        "not_paper_player": lambda p: _(
            "%(name)s plays on a phone: their plays come only from their phone, never as a bulletin.",
            name=p.get("name", ""),
        ),
        "joined_after_round": lambda p: _(
            "%(name)s was added after round %(round)s closed: no slip of theirs was handed in for it.",
            name=p.get("name", ""),
            round=p.get("round", ""),
        ),
        "declaration_closed": lambda p: _(
            "Round %(round)s takes no more declared bulletins: the next round has started.", round=p.get("round", "")
        ),
        "lexicon_changed": lambda p: _(
            "The list %(lexicon)s has changed since round %(round)s was judged: this bulletin can no longer be taken.",
            lexicon=p.get("lexicon", ""),
            round=p.get("round", ""),
        ),
        "room_lexicon_changed": lambda p: _(
            "The list %(lexicon)s has changed since this simultaneous game began: a new room would be judged with "
            "another list.",
            lexicon=p.get("lexicon", ""),
        ),
        "assistant_cannot_direct": lambda p: _("An assistant arbiter only enters paper bulletins."),
        "bad_declared": lambda p: _("Say whether the slip was handed in before the deadline: true or false."),
        "no_game": lambda p: _("Choose one of your games."),
        "bad_competition_name": lambda p: _("The name must have 1 to %(n)s characters.", n=p.get("n", 80)),
        "bad_competition_kind": lambda p: _("Choose a simultaneous game or a tournament."),
        "unknown_competition": lambda p: _("No simultaneous game or tournament has this code."),
        "not_simultaneous": lambda p: _("Rooms are opened in a simultaneous game, not in a tournament."),
        "not_tournament": lambda p: _("Games are added to a tournament, not to a simultaneous game."),
        "already_in_competition": lambda p: _("This game is already part of a simultaneous game or a tournament."),
        "fixed_top": lambda p: _("In a simultaneous game every room places the same top: another cannot be placed."),
        "rooms_differ": lambda p: _("The rooms did not play the same rounds: their scores cannot be ranked together."),
        "bad_ruling": lambda p: _("Choose a warning, a penalty, or a solo to grant or withdraw."),
        "bad_penalty": lambda p: _("A penalty is from 1 to 1000 points."),
        "points_not_taken": lambda p: _("Only a penalty takes points: leave the points empty."),
        "ruling_reason_missing": lambda p: _("Say why."),
        "unknown_ruling": lambda p: _("This ruling is not in the game."),
        "ruling_cancelled": lambda p: _("This ruling is already cancelled."),
        "too_many_rulings": lambda p: _(
            "%(name)s has %(n)s rulings in round %(round)s already: the most one player can be given in a round.",
            name=p.get("name", ""),
            n=p.get("n", 20),
            round=p.get("round", ""),
        ),
        "reason_too_long": lambda p: _("The reason is at most %(n)s characters.", n=p.get("n", 200)),
        "bad_seconds": lambda p: _("The extra time must be from 1 to 3600 seconds."),
        "bad_setting": lambda p: _("The setting “%(setting)s” is not valid.", setting=p.get("setting", "")),
        "lexicon_rules": lambda p: _(
            "The lexicon %(lexicon)s is for the %(rules)s rules.",
            lexicon=p.get("lexicon", ""),
            rules=p.get("rules", ""),
        ),
        "impossible_draw_rule": lambda p: _("No rack can meet these draw minimums with this tile set."),
        "empty_deck": lambda p: _("The list has no card."),
        "letters_not_on_card": lambda p: _(
            "%(words)s: letters not on this card. Correct it (or leave it out) and reveal again.",
            words=p.get("words", ""),
        ),
        "deck_too_big": lambda p: _("A deck holds at most %(n)s cards.", n=p.get("n", 100000)),
        "deck_too_costly": lambda p: _(
            "This deck takes more than %(seconds)s seconds to build: choose fewer cards, a shorter length or fewer"
            " blanks.",
            seconds=p.get("seconds", 60),
        ),
        "build_failed": lambda p: _("This deck could not be built. Delete it and try again."),
        "builder_busy": lambda p: _("Another deck is being built. Try again in a minute."),
        "lexicon_not_ready": lambda p: _(
            "The word list %(lexicon)s is still being prepared on the server. Make the deck again in a few minutes.",
            lexicon=p.get("lexicon", ""),
        ),
        "deck_quota": lambda p: _(
            "You have %(n)s decks, the most one learner may have: delete one first.", n=p.get("n", 50)
        ),
        "card_quota": lambda p: _(
            "Your decks would hold more than %(n)s cards: delete a deck or choose fewer cards.", n=p.get("n", 300000)
        ),
        # The study pages' and the cardbox import's own refusals (trainer/study, web/study.py).
        "not_a_cardbox": lambda p: _(
            "This file is not a Zyzzyva cardbox: send the cardbox's .db file again as Zyzzyva saved it, or a word list."
        ),
        "bad_deck_name": lambda p: _("The deck's name must have 1 to %(n)s characters.", n=p.get("n", 80)),
        "bad_deck_source": lambda p: _("These settings make no deck: check them and try again."),
        "unknown_deck": lambda p: _("There is no such deck among yours."),
        "unknown_card": lambda p: _("This card is not in the deck."),
        "bad_grade": lambda p: _("Choose a grade: Again, Hard, Good or Easy."),
        "nothing_to_grade": lambda p: _("There is no answer to grade: answer the card first."),
        "nothing_to_undo": lambda p: _("There is no answer to undo."),
        "bad_postpone": lambda p: (
            _("Choose a number of days from %(low)s to 30.", low=p.get("low", 1))
            if p.get("setting") == "days"
            else _("Choose how to move the reviews.")
        ),
        "list_not_editable": lambda p: _("This deck's cards come from its settings: make a new deck instead."),
        "words_too_long": lambda p: _("Add at most %(n)s characters of words at once.", n=p.get("n", 200_000)),
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
        "bad_draws": lambda p: " ".join(draws_problems(p)),
        "seed_and_draws": lambda p: _("A game with imposed draws draws nothing from a seed: leave the seed empty."),
        "joker_imposed": lambda p: _(
            "A joker game draws its racks from its seed: leave the imposed draws empty, or play them as a classic game."
        ),
        "preset_conflict": _preset_conflict,
        "draws_twice": lambda p: _("Paste the draws or choose a file, not both."),
        "draws_file_too_big": lambda p: _(
            "This file is too large for a list of draws (at most %(size)s characters).", size=p.get("size", "")
        ),
        **_word_list_messages(),
        **_practice_messages(),
        **_topping_messages(),
    }


def _topping_messages() -> dict[str, Say]:
    """Topping, in a club game or alone (docs/rules.md §6.26): what its rules refuse."""
    return {
        "bad_hint": lambda p: _("Ask for the length, the direction, the square or a letter of the top."),
        "hint_taken": lambda p: _("You have taken this hint already this round."),
        "no_more_letters": lambda p: _("Every letter of the top's word but one is shown already."),
        "top_found_already": lambda p: _("You found this round's top already: wait for the next round."),
        "not_topping": lambda p: _("This game is not a topping game."),
        "bad_topping_cost": lambda p: _(
            "“%(field)s” must be a whole number of seconds from %(low)s to %(high)s.",
            field=p.get("field", ""),
            low=p.get("low", 0),
            high=p.get("high", 0),
        ),
    }


def _practice_messages() -> dict[str, Say]:
    """A learner's solo practice and topping (docs/rules.md §6.26, §6.27)."""
    return {
        "bad_kind": lambda p: _("A practice session is solo practice or topping."),
        "bad_settings": lambda p: _("The settings are not readable: send them as a JSON object."),
        "no_practice": lambda p: _("You have no such practice session."),
        "no_playable_draw": lambda p: _("This draw gives no round to play: start again for another draw."),
        "practice_over": lambda p: _("This practice session is over."),
        "wrong_kind": lambda p: _("This cannot be done in this kind of session."),
        "round_not_over": lambda p: _("Round %(round)s is not over: answer it first.", round=p.get("round", "")),
        "already_answered": lambda p: _(
            "You have answered round %(round)s already: its top is shown below.", round=p.get("round", "")
        ),
        "not_archived": lambda p: _("This game is not in the archive: only finished games can be replayed."),
        "draw_not_public": lambda p: _(
            "This game's draw is being played in another room now: it can be replayed once that room is over."
        ),
        # topping alone (docs/rules.md §6.28)
        "time_up": lambda p: _(
            "The time of round %(round)s is up: the round is over, not found.", round=p.get("round", "")
        ),
        "already_tried": lambda p: _("%(move)s is not the top: you tried it already.", move=p.get("move", "")),
        "bad_round": lambda p: _("This round is not the one being played: reload the page."),
    }


def _word_list_messages() -> dict[str, Say]:
    """What is wrong with an uploaded word list or the lexicon's name (docs/rules.md §2.4)."""
    return {
        "word_list_empty": lambda p: _("The file is empty."),
        "word_list_cut_off": lambda p: _(
            "The file is cut off or damaged (an upload that did not finish, or a .gz or .zip copied only in part):"
            " send it again."
        ),
        "word_list_zip_members": lambda p: _(
            "The .zip file must hold one word list; it holds: %(names)s.", names=p.get("names", "")
        ),
        "word_list_too_large": lambda p: _(
            "The list is larger than %(mb)s MB of text: is it a word list?", mb=p.get("mb", 64)
        ),
        "word_list_binary": lambda p: _("This is not a text file: save the list as plain text, one word a line."),
        "word_list_no_words": lambda p: _(
            "The file holds no word of two letters or more written with this game's letters."
        ),
        "word_list_no_twos": lambda p: _(
            "The list has no two-letter word: a whole word list has them. Is this the right file?"
        ),
        "word_list_too_many": lambda p: _(
            "The list holds more than %(limit)s words: no word game's lexicon is that large.",
            limit=format_number(p.get("limit", 2_000_000)),
        ),
        "lexicon_bad_name": lambda p: _(
            "Write the name with 1 to 40 lower-case letters, digits, “-” or “_”, starting with a letter or a digit."
        ),
        "lexicon_name_taken": lambda p: _(
            "There is a lexicon named “%(name)s” already: choose another name (or add the edition to it, like"
            " %(name)s-2).",
            name=p.get("name", ""),
        ),
        "upload_not_found": lambda p: _(
            "This upload is no longer waiting: it was accepted, discarded or left for more than a day."
        ),
        "upload_quota": lambda p: _(
            "You have %(n)s word lists waiting already, the most at once: accept or discard one first.",
            n=p.get("n", 3),
        ),
        "upload_not_read": lambda p: _("This list is still being read: wait for its report."),
        "word_list_stopped": lambda p: _(
            "The reading of the list stopped before its end (the server stopped, or ran out of memory): send it again."
        ),
        "file_too_big": lambda p: _("The file is larger than %(mb)s MB.", mb=p.get("mb", 50)),
        "unknown_lexicon": lambda p: _("There is no lexicon named “%(lexicon)s”.", lexicon=p.get("lexicon", "")),
        "lexicon_not_failed": lambda p: _("This lexicon's build has not failed: there is nothing to build again."),
        "lexicon_gone": lambda p: _(
            "This game's lexicon is no longer on this server: the game cannot start. Make a new game with another one."
        ),
    }


def _draws_messages() -> dict[str, Say]:
    """What is wrong with a line of imposed draws (trainer.duplicate.imposed, docs/rules.md §6.18)."""
    return {
        "draws_too_long": lambda p: _("The list has more than %(size)s characters.", size=p.get("size", "")),
        "draws_empty": lambda p: _("The list holds no draw: write one draw a line, like ER+AEINT."),
        "draws_round_number": lambda p: _(
            "the line says round %(given)s, but it is the draw of round %(round)s.",
            given=p.get("given", ""),
            round=p.get("round", ""),
        ),
        "draws_bad_token": lambda p: _(
            "“%(text)s” is not a draw: write the reliquat, a +, then the new tiles, like ER+AEINT.",
            text=p.get("text", ""),
        ),
        "draws_not_a_tile": lambda p: _(
            "%(tile)s is not a tile of this game (letters, and ? for a blank).", tile=p.get("tile", "")
        ),
        "draws_rack_too_big": lambda p: _(
            "%(rack)s has %(count)s tiles: a rack holds %(size)s.",
            rack=p.get("rack", ""),
            count=p.get("count", ""),
            size=p.get("size", ""),
        ),
        "draws_ends_with_rejet": lambda p: _(
            "the line ends with a rejected rack (%(rack)s): write the rack played instead after it, with a space"
            " between.",
            rack=p.get("rack", ""),
        ),
        "draws_not_rejected": lambda p: _(
            "only a line's last rack is played: write the racks before it as rejets, with a - (%(rack)s).",
            rack=p.get("rack", ""),
        ),
        "draws_reliquat_after_rejet": lambda p: _(
            "after a rejet every tile is back in the bag: the next rack has no reliquat (%(rack)s).",
            rack=p.get("rack", ""),
        ),
        "draws_first_reliquat": lambda p: _("the first round has no reliquat (%(kept)s+).", kept=p.get("kept", "")),
        "draws_reliquat_not_kept": lambda p: _(
            "the reliquat %(kept)s is not part of the last rack %(rack)s.",
            kept=p.get("kept", ""),
            rack=p.get("rack", ""),
        ),
        "draws_reliquat_too_big": lambda p: _(
            "the reliquat %(kept)s keeps too much of the last rack %(rack)s: the top placed before it uses at least"
            " %(placed)s of its tiles.",
            kept=p.get("kept", ""),
            rack=p.get("rack", ""),
            placed=p.get("placed", 1),
        ),
        "draws_too_few_tiles": lambda p: _(
            "the game is over before round %(round)s: fewer than 2 tiles are left.", round=p.get("round", "")
        ),
        "draws_unreachable": lambda p: _(
            "the game is over before round %(round)s: no rack of the tiles left meets the draw rule (vowels ≥"
            " %(vowels)s, consonants ≥ %(consonants)s).",
            round=p.get("round", ""),
            vowels=p.get("vowels", ""),
            consonants=p.get("consonants", ""),
        ),
        "draws_not_in_bag": lambda p: _(
            "%(rack)s takes tiles the bag no longer holds: %(tiles)s.", rack=p.get("rack", ""), tiles=p.get("tiles", "")
        ),
        "draws_short_rack": lambda p: _(
            "%(rack)s has %(count)s tiles: the bag still holds enough for %(size)s.",
            rack=p.get("rack", ""),
            count=p.get("count", ""),
            size=p.get("size", ""),
        ),
        "draws_needless_rejet": lambda p: _(
            "%(rack)s meets the draw rule of round %(round)s (vowels ≥ %(vowels)s, consonants ≥ %(consonants)s):"
            " it cannot be rejected.",
            rack=p.get("rack", ""),
            round=p.get("round", ""),
            vowels=p.get("vowels", ""),
            consonants=p.get("consonants", ""),
        ),
        "draws_requirement": lambda p: _(
            "%(rack)s does not meet the draw rule of round %(round)s (vowels ≥ %(vowels)s, consonants ≥"
            " %(consonants)s): write it as a rejet, -%(rack)s, then the rack drawn instead.",
            rack=p.get("rack", ""),
            round=p.get("round", ""),
            vowels=p.get("vowels", ""),
            consonants=p.get("consonants", ""),
        ),
    }


def draws_problems(params: Mapping[str, Any]) -> list[str]:
    """Each problem of a refused list of draws (a ``bad_draws`` refusal's ``problems``), in the reader's language,
    its line named first."""
    messages = _draws_messages()
    said = []
    for problem in params.get("problems") or []:
        say = messages.get(str(problem.get("code")))
        text = say(problem) if say is not None else _("This draw cannot be played.")
        line = problem.get("line")
        said.append(text if line is None else _("Line %(line)s: %(problem)s", line=line, problem=text))
    return said


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
