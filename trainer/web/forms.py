"""The pages' forms (Flask-WTF: every POST carries a CSRF token). Labels and help are translated."""

from __future__ import annotations

from typing import Any

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from wtforms import (
    BooleanField,
    DecimalField,
    HiddenField,
    IntegerField,
    PasswordField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional

from ..duplicate.draw import DrawRule
from ..engine.rules import ruleset, ruleset_codes
from ..games.service import JOIN_CODE_LENGTH

_DEFAULT_RULE = DrawRule()


class LoginForm(FlaskForm):
    username = StringField(
        _l("Director name"), validators=[DataRequired(_l("Enter your director name.")), Length(max=80)]
    )
    password = PasswordField(_l("Password"), validators=[DataRequired(_l("Enter your password."))])


class JoinForm(FlaskForm):
    code = StringField(
        _l("Game code"),
        validators=[DataRequired(_l("Enter the game's code.")), Length(max=2 * JOIN_CODE_LENGTH)],
        description=_l("Shown on the screen, %(n)s letters and digits.", n=JOIN_CODE_LENGTH),
    )
    name = StringField(
        _l("Your name"),
        validators=[DataRequired(_l("Enter your name.")), Length(max=40, message=_l("At most 40 characters."))],
        description=_l("As it will appear in the standings."),
    )


class PlayForm(FlaskForm):
    round = HiddenField()
    move = StringField(_l("Your play"), validators=[DataRequired(_l("Write your play first."))])


NOTATION_DEFAULT = "default"


def _int(label: Any, default: int | None, low: int, high: int, help_text: Any, required: bool = True) -> IntegerField:
    message = _l("A whole number from %(low)s to %(high)s.", low=low, high=high)
    validators = [InputRequired(message) if required else Optional(), NumberRange(low, high, message)]
    return IntegerField(label, default=default, validators=validators, description=help_text)


class GameForm(FlaskForm):
    """Every setting of a game, with the defaults of the French federation's practice."""

    rules = SelectField(_l("Rules"), default="en", description=_l("Board, tiles and tile values."))
    lexicon = SelectField(
        _l("Lexicon"),
        default="",
        description=_l("The word list plays are judged by; leave it on the default of the rules."),
    )
    notation = SelectField(
        _l("Notation"),
        default=NOTATION_DEFAULT,
        description=_l("How plays are written: English 8D (row first for across) or French H4 (row letter first)."),
    )
    round_seconds = _int(
        _l("Time per round (seconds)"),
        180,
        10,
        3600,
        _l("Three minutes is the usual; the server's clock closes the round."),
    )
    reveal_seconds = _int(
        _l("Reveal pause (seconds)"),
        30,
        0,
        3600,
        _l("How long the top is shown before the next round starts; leave empty to start each round yourself."),
        required=False,
    )
    max_rounds = _int(
        _l("Number of rounds"), None, 1, 100, _l("Leave empty to play until the bag is empty."), required=False
    )
    solo_bonus = _int(_l("Solo bonus"), 10, 0, 100, _l("Points for the only player who finds the top."))
    solo_min_players = _int(
        _l("Players needed for solos"), 16, 1, 100_000, _l("Solos count only when at least this many players play.")
    )
    min_vowels = _int(
        _l("Minimum vowels"), _DEFAULT_RULE.min_vowels, 0, 7, _l("Each rack must have at least this many vowels…")
    )
    min_consonants = _int(
        _l("Minimum consonants"),
        _DEFAULT_RULE.min_consonants,
        0,
        7,
        _l("…and this many consonants, or it is thrown back."),
    )
    late_from_round = _int(
        _l("From round"),
        _DEFAULT_RULE.late_from_round,
        1,
        30,
        _l("From this round on, the later minimums apply instead."),
    )
    late_min_vowels = _int(_l("Later minimum vowels"), _DEFAULT_RULE.late_min_vowels, 0, 7, "")
    late_min_consonants = _int(_l("Later minimum consonants"), _DEFAULT_RULE.late_min_consonants, 0, 7, "")
    blanks_either = BooleanField(_l("A blank counts as a vowel or a consonant"), default=_DEFAULT_RULE.blanks_either)
    seed = IntegerField(
        _l("Seed (optional)"),
        validators=[Optional(), NumberRange(0, 2**63 - 1)],
        description=_l(
            "The same seed gives the same racks: replay a game with another club. Leave empty for a random one."
        ),
    )

    def fill_choices(self, lexicons: dict[str, dict[str, str]]) -> None:
        self.rules.choices = [(code, ruleset(code).name) for code in ruleset_codes()]
        self.lexicon.choices = [("", _l("Default of the rules"))] + [
            (name, f"{name} ({entry['rules']})") for name, entry in sorted(lexicons.items())
        ]
        self.notation.choices = [
            (NOTATION_DEFAULT, _l("Default of the rules")),
            ("english", _l("English (8D)")),
            ("french", _l("French (H4)")),
        ]

    def settings(self) -> dict[str, Any]:
        """The settings as the game service takes them (it validates them again)."""
        rules = ruleset(self.rules.data)
        settings: dict[str, Any] = {
            "rules": rules.code,
            "lexicon": self.lexicon.data or rules.lexicon,
            "notation": rules.notation if self.notation.data == NOTATION_DEFAULT else self.notation.data,
            "round_seconds": self.round_seconds.data,
            "reveal_seconds": self.reveal_seconds.data,
            "max_rounds": self.max_rounds.data,
            "solo_bonus": self.solo_bonus.data,
            "solo_min_players": self.solo_min_players.data,
            "draw_rule": {
                "min_vowels": self.min_vowels.data,
                "min_consonants": self.min_consonants.data,
                "late_min_vowels": self.late_min_vowels.data,
                "late_min_consonants": self.late_min_consonants.data,
                "late_from_round": self.late_from_round.data,
                "blanks_either": self.blanks_either.data,
            },
        }
        if self.seed.data is not None:
            settings["seed"] = self.seed.data
        return settings


class ExtendForm(FlaskForm):
    seconds = _int(_l("Extra seconds"), 30, 1, 3600, "")


class TopForm(FlaskForm):
    move = HiddenField(validators=[DataRequired()])


class CorrectionForm(FlaskForm):
    player_id = HiddenField(validators=[DataRequired()])
    score = _int(_l("Corrected score"), None, 0, 10_000, "")
    reason = StringField(
        _l("Reason"), validators=[DataRequired(_l("Say why the score is corrected.")), Length(max=200)]
    )


class ActionForm(FlaskForm):
    """A button with nothing but its CSRF token (start, pause, close, next, end)."""


class LearnerForm(FlaskForm):
    username = StringField(_l("Your name"), validators=[DataRequired(_l("Enter your name.")), Length(max=80)])
    password = PasswordField(
        _l("Password"), validators=[DataRequired(_l("Enter your password."))], description=_l("At least 8 characters.")
    )


DECK_KINDS = (
    ("anagram", _l("Anagrams (alphagrams by probability)")),
    ("stem", _l("Bingo stems")),
    ("twos", _l("Two-letter words")),
    ("words", _l("My own list of words")),
)
TWOS_PARTS = (
    ("hooks", _l("Front and back hooks of each two")),
    ("letters", _l("All twos with a given letter")),
    ("grid", _l("Valid or phony: grids of letter pairs")),
)


class DeckForm(FlaskForm):
    """A new deck: its list (one of the drill types, with its range), its lexicon and its limits."""

    name = StringField(
        _l("Deck name"),
        validators=[DataRequired(_l("Give the deck a name.")), Length(max=80)],
        description=_l("For example “7s 1–1000” or “top 100 stems”."),
    )
    lexicon = SelectField(_l("Lexicon"), default="en")
    kind = SelectField(_l("Cards"), choices=DECK_KINDS, default="anagram")
    length = _int(_l("Word length"), 7, 2, 15, _l("Anagrams: letters in each alphagram."))
    first = _int(_l("From rank"), 1, 1, 1_000_000, _l("Probability rank of the first alphagram (1: the likeliest)."))
    last = _int(_l("To rank"), 1000, 1, 1_000_000, _l("Probability rank of the last alphagram."))
    blanks = _int(_l("Blanks"), 0, 0, 2, _l("Anagrams with one or two blanks (?) in the rack."))
    stem_length = SelectField(
        _l("Stem"), choices=(("6", _l("6 letters (+1 makes a 7)")), ("7", _l("7 letters (+1 makes an 8)"))), default="6"
    )
    stem_count = _int(_l("Number of stems"), 100, 1, 500, _l("The stems that make the most bingos come first."))
    twos_part = SelectField(_l("Two-letter drill"), choices=TWOS_PARTS, default="hooks")
    words = TextAreaField(
        _l("Words"),
        validators=[Optional(), Length(max=2_000_000)],
        description=_l("One or more words a line; each becomes the anagram card of its letters."),
    )
    new_per_day = _int(_l("New cards a day"), 20, 0, 10_000, "")
    reviews_per_day = _int(_l("Reviews a day"), 200, 0, 100_000, "")
    desired_retention = DecimalField(
        _l("Desired retention"),
        default=0.9,
        places=2,
        validators=[InputRequired(), NumberRange(0.7, 0.99)],
        description=_l(
            "How sure you want to be to know a card when it comes back "
            "(0.90: nine times in ten). Higher means more reviews."
        ),
    )

    def source(self) -> dict[str, Any]:
        kind = self.kind.data
        if kind == "anagram":
            return {
                "kind": kind,
                "length": self.length.data,
                "first": self.first.data,
                "last": self.last.data,
                "blanks": self.blanks.data,
            }
        if kind == "stem":
            return {"kind": kind, "length": int(self.stem_length.data), "count": self.stem_count.data}
        if kind == "twos":
            return {"kind": kind, "part": self.twos_part.data}
        return {"kind": "words", "text": self.words.data or ""}


class ImportForm(FlaskForm):
    name = StringField(_l("Deck name"), validators=[DataRequired(_l("Give the deck a name.")), Length(max=80)])
    lexicon = SelectField(_l("Lexicon"), default="en")
    file = FileField(
        _l("File"),
        validators=[FileRequired(_l("Choose a file."))],
        description=_l("A Zyzzyva cardbox (its .db file: your schedule is kept) or a plain word list (.txt)."),
    )
