"""The pages' forms (Flask-WTF: every POST carries a CSRF token). Labels and help are translated."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from flask_wtf.file import FileField, FileRequired
from werkzeug.datastructures import FileStorage
from wtforms import (
    BooleanField,
    DecimalField,
    Field,
    HiddenField,
    IntegerField,
    PasswordField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import DataRequired, InputRequired, Length, NumberRange, Optional

from ..core.accounts import MIN_PASSWORD
from ..core.codes import JOIN_CODE_LENGTH
from ..core.errors import Refused
from ..core.names import MAX_NAME
from ..duplicate.imposed import DRAWS, MAX_TEXT
from ..duplicate.joker import VARIANTS
from ..duplicate.modes import MODES
from ..duplicate.settings import BY_NAME, PRESET_TIMES, PRESETS, SECTIONS, SETTINGS, Setting, preset_of
from ..engine.rules import ruleset, ruleset_codes


class Form(FlaskForm):
    """Flask-WTF's form with typed calls: every form of the pages derives from it. Flask-WTF ships no type
    hints, so its own methods are reached as ``Any`` here, once, rather than untyped in every view."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        flask_form: Any = super()
        flask_form.__init__(*args, **kwargs)

    def validate_on_submit(self, extra_validators: Any = None) -> bool:
        flask_form: Any = super()
        return bool(flask_form.validate_on_submit(extra_validators))

    def _select(self, name: str) -> SelectField:
        field = self[name]
        assert isinstance(field, SelectField), name
        return field


class LoginForm(Form):
    username = StringField(
        _l("Director name"), validators=[DataRequired(_l("Enter your director name.")), Length(max=80)]
    )
    password = PasswordField(_l("Password"), validators=[DataRequired(_l("Enter your password."))])


class PasswordForm(Form):
    current = PasswordField(_l("Current password"), validators=[DataRequired(_l("Enter your password."))])
    new = PasswordField(
        _l("New password"),
        validators=[DataRequired(_l("Enter the new password."))],
        description=_l("At least %(n)s characters.", n=MIN_PASSWORD),
    )
    again = PasswordField(_l("New password again"), validators=[DataRequired(_l("Enter the new password again."))])


def join_code_field(label: Any, missing: Any) -> StringField:
    """A room's join code, as a phone types it from the screen (games and word walls)."""
    return StringField(
        label,
        validators=[DataRequired(missing), Length(max=2 * JOIN_CODE_LENGTH)],
        description=_l("Shown on the screen, %(n)s letters and digits.", n=JOIN_CODE_LENGTH),
    )


def player_name_field(description: Any) -> StringField:
    """A player's name as a room shows it (the service checks it again: trainer.core.names)."""
    return StringField(
        _l("Your name"),
        validators=[DataRequired(_l("Enter your name.")), Length(max=MAX_NAME, message=_l("At most 40 characters."))],
        description=description,
    )


class JoinForm(Form):
    code = join_code_field(_l("Game code"), _l("Enter the game's code."))
    name = player_name_field(_l("As it will appear in the standings."))
    # Shown to a learner logged in on this browser (docs/rules.md §6.25): their plays go to their account.
    link = BooleanField(_l("Keep my plays in my word-study account"), default=True)


class RejoinForm(Form):
    code = StringField(
        _l("Rejoin code"),
        validators=[DataRequired(_l("Enter the rejoin code the director gave you.")), Length(max=2 * JOIN_CODE_LENGTH)],
        description=_l("The director's console shows it next to your name, with a QR code."),
    )


class PlayForm(Form):
    round = HiddenField()
    move = StringField(_l("Your play"), validators=[DataRequired(_l("Write your play first."))])


MAX_DRAWS_FILE = 4 * MAX_TEXT  # bytes: the longest list of draws, were every character four bytes of UTF-8
NOTATION_DEFAULT = "default"  # the notation field's "the ruleset's own"
LEXICON_DEFAULT = ""  # the lexicon field's "the ruleset's own"
PRESET_NONE = ""  # the preset field's "none: the times as given"


def _int(label: Any, default: int | None, low: int, high: int, help_text: Any, required: bool = True) -> IntegerField:
    message = _l("A whole number from %(low)s to %(high)s.", low=low, high=high)
    validators = [InputRequired(message) if required else Optional(), NumberRange(low, high, message)]
    return IntegerField(label, default=default, validators=validators, description=help_text)


def _setting_field(setting: Setting) -> Field:
    """The form field of a game setting, from its declaration (trainer.duplicate.settings)."""
    label, help_text = _l(setting.label), _l(setting.help)
    if setting.kind is bool:
        return BooleanField(label, default=bool(setting.default), description=help_text)
    if setting.name == "preset":  # the preset of the times' defaults; the page's script fills the times from it
        times = {name: [preset.round_seconds, preset.reveal_seconds] for name, preset in PRESETS.items()}
        chosen = preset_of(*(BY_NAME[time].default for time in PRESET_TIMES)) or PRESET_NONE
        return SelectField(label, default=chosen, description=help_text, render_kw={"data-presets": json.dumps(times)})
    if setting.kind is str:
        unset = LEXICON_DEFAULT if setting.name == "lexicon" else NOTATION_DEFAULT
        return SelectField(
            label, default=setting.default if setting.default is not None else unset, description=help_text
        )
    if setting.name == "seed":  # digits as text: checked by the settings' own rule (trainer.duplicate.settings)
        return StringField(label, description=help_text, validators=[Optional(), Length(max=60)])
    assert setting.low is not None and setting.high is not None
    default = setting.default if isinstance(setting.default, int) else None
    return _int(label, default, setting.low, setting.high, help_text, required=not setting.optional)


class _GameSettingsForm(Form):
    """Every setting of a game, with the defaults of the French federation's practice; its fields are made from
    the settings' declaration (:data:`GameForm`). Then the imposed draws, pasted or as a file (docs/rules.md §6.18),
    which the game service checks against the settings."""

    draws = TextAreaField(
        _l("List of draws (optional)"),
        validators=[Optional(), Length(max=MAX_TEXT)],
        description=_l(
            "To play a federation simultaneous or a published game: one round a line, written RELIQUAT+NEW"
            " (ER+AEINT), a rejected rack first with a - (-EEIO+AAB AEILRRR). Leave the seed empty."
        ),
        render_kw={"rows": 8, "spellcheck": "false", "autocapitalize": "characters"},
    )
    draws_file = FileField(
        _l("Or a file of draws"),
        description=_l("A text file written the same way, such as a game's round list downloaded from Tirage."),
    )

    def fill_choices(self, lexicons: dict[str, dict[str, str]]) -> None:
        self._select("rules").choices = [(code, ruleset(code).name) for code in ruleset_codes()]
        self._select("lexicon").choices = [(LEXICON_DEFAULT, _l("Default of the rules"))] + [
            (name, f"{name} ({entry['rules']})") for name, entry in sorted(lexicons.items())
        ]
        self._select("notation").choices = [
            (NOTATION_DEFAULT, _l("Default of the rules")),
            ("english", _l("English (8D)")),
            ("french", _l("French (H4)")),
        ]
        self._select("mode").choices = [(mode.name, _l(mode.title)) for mode in MODES.values()]
        self._select("variant").choices = [(name, _l(title)) for name, title in VARIANTS.items()]
        self._select("preset").choices = [(name, _l(preset.title)) for name, preset in PRESETS.items()] + [
            (PRESET_NONE, _l("None: the times below"))
        ]

    def sections(self) -> list[tuple[Any, list[Field]]]:
        """The form's fieldsets, in the declaration's order: (translated title, fields)."""
        return [
            (_l(section.title), [self[s.name] for s in SETTINGS if s.section == section.name]) for section in SECTIONS
        ]

    def settings(self) -> dict[str, Any]:
        """The settings as the game service takes them (it checks them again).

        With a preset chosen, a time left at its default is left out, so that the preset sets it: without the page's
        script the time fields keep their defaults whatever the preset (docs/rules.md §6.14). A time changed to
        another value than the preset's is sent, and refused for disagreeing with it."""
        settings: dict[str, Any] = {}
        for setting in SETTINGS:
            value = self[setting.name].data
            if setting.kind is str and value in (LEXICON_DEFAULT, NOTATION_DEFAULT, PRESET_NONE):
                value = None  # the ruleset's own; no preset
            if setting.group is None:
                settings[setting.name] = value
            else:
                settings.setdefault(setting.group, {})[setting.name] = value
        if settings.get("preset") is not None:
            for time in PRESET_TIMES:
                if settings[time] == BY_NAME[time].default:
                    del settings[time]
        return settings

    def imposed_draws(self) -> str:
        """The draws pasted, or the file's text; empty when neither is given. A file larger than any list of draws
        is refused (``draws_file_too_big``), and so are both at once (``draws_twice``)."""
        pasted = (self.draws.data or "").strip()
        upload: FileStorage | None = self.draws_file.data or None
        if upload is None or not upload.filename:
            return pasted
        data: bytes = upload.read(MAX_DRAWS_FILE + 1)
        if len(data) > MAX_DRAWS_FILE:
            raise Refused("draws_file_too_big", f"the file is larger than {MAX_DRAWS_FILE // 1000} kB", size=MAX_TEXT)
        if pasted:
            raise Refused("draws_twice", "paste the draws or choose a file, not both")
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:  # a list saved by an old Windows editor: its letters are ASCII anyway
            return data.decode("latin-1")

    def settings_and_draws(self) -> dict[str, Any]:
        """What the game service takes to create the game: the settings, and the imposed draws under ``draws``."""
        return {**self.settings(), DRAWS: self.imposed_draws()}


GameForm = type("GameForm", (_GameSettingsForm,), {setting.name: _setting_field(setting) for setting in SETTINGS})


class ExtendForm(Form):
    seconds = _int(_l("Extra seconds"), 30, 1, 3600, "")


class TopForm(Form):
    move = HiddenField(validators=[DataRequired()])


class CorrectionForm(Form):
    player_id = HiddenField(validators=[DataRequired()])
    score = _int(_l("Corrected score"), None, 0, 10_000, "")
    reason = StringField(
        _l("Reason"), validators=[DataRequired(_l("Say why the score is corrected.")), Length(max=200)]
    )


RULING_KINDS = (
    ("warning", _l("Warning")),
    ("penalty", _l("Penalty (points)")),
    ("solo_granted", _l("Grant a solo")),
    ("solo_withdrawn", _l("Withdraw the solo")),
)


class RulingForm(Form):
    """A warning, a penalty, a solo granted or withdrawn for a player's closed round (docs/rules.md §6.19)."""

    player_id = HiddenField(validators=[DataRequired()])
    kind = SelectField(_l("Ruling"), choices=RULING_KINDS)
    points = IntegerField(
        _l("Penalty points"),
        validators=[Optional(), NumberRange(1, 1000, _l("A penalty is from 1 to 1000 points."))],
    )
    reason = StringField(_l("Reason"), validators=[DataRequired(_l("Say why.")), Length(max=200)])


class CancelRulingForm(Form):
    reason = StringField(_l("Reason"), validators=[DataRequired(_l("Say why.")), Length(max=200)])


class BulletinForm(Form):
    """A paper bulletin typed in by an arbiter: whose (table number or name), the play, and for a slip typed in
    after the close, the arbiter's word that it was handed in on time (docs/rules.md §6.21)."""

    who = StringField(_l("Table or name"), validators=[DataRequired(_l("Say whose bulletin it is.")), Length(max=40)])
    move = StringField(_l("Play"), validators=[DataRequired(_l("Write the play.")), Length(max=40)])
    declared = BooleanField(_l("Handed in before the deadline (the round is closed)"))


class PaperPlayerForm(Form):
    name = StringField(_l("Name"), validators=[DataRequired(_l("Enter the player's name.")), Length(max=40)])
    table = IntegerField(
        _l("Table"),
        validators=[Optional(), NumberRange(1, 9999, _l("A table number is from 1 to 9999."))],
        description=_l("Leave empty for the next free number."),
    )


class AssistantForm(Form):
    username = StringField(_l("Assistant's name"), validators=[DataRequired(_l("Enter a name.")), Length(max=80)])
    password = PasswordField(
        _l("Password"),
        validators=[DataRequired(_l("Enter a password."))],
        description=_l("At least %(n)s characters.", n=MIN_PASSWORD),
    )


class ActionForm(Form):
    """A button with nothing but its CSRF token (start, pause, close, next, end)."""


class LearnerForm(Form):
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
STEM_ASKS = (  # the two stem cards of docs/rules.md §7.4
    ("words", _l("The words: every word the stem makes with one more letter")),
    ("letters", _l("The letters only: which letters make a word with the stem")),
)
TWOS_PARTS = (
    ("hooks", _l("Front and back hooks of each two")),
    ("letters", _l("All twos with a given letter")),
    ("grid", _l("Valid or phony: grids of letter pairs")),
)


class DeckForm(Form):
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
    stem_ask = SelectField(_l("Each stem card asks for"), choices=STEM_ASKS, default="words")
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
        default=Decimal("0.90"),
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
            return {
                "kind": kind,
                "length": int(self.stem_length.data),
                "count": self.stem_count.data,
                "ask": self.stem_ask.data,
            }
        if kind == "twos":
            return {"kind": kind, "part": self.twos_part.data}
        return {"kind": "words", "text": self.words.data or ""}


class ImportForm(Form):
    name = StringField(_l("Deck name"), validators=[DataRequired(_l("Give the deck a name.")), Length(max=80)])
    lexicon = SelectField(_l("Lexicon"), default="en")
    file = FileField(
        _l("File"),
        validators=[FileRequired(_l("Choose a file."))],
        description=_l("A Zyzzyva cardbox (its .db file: your schedule is kept) or a plain word list (.txt)."),
    )


class LexiconUploadForm(Form):
    """A club's word list and what to call it (docs/rules.md §2.4): read and reported before it is accepted."""

    file = FileField(
        _l("Word list"),
        validators=[FileRequired(_l("Choose a file."))],
        description=_l("One word a line, any case, accents allowed: a text file, or a .gz or .zip holding one."),
    )
    rules = SelectField(_l("Rules"), default="fr")
    name = StringField(
        _l("Name"),
        validators=[DataRequired(_l("Give the lexicon a name.")), Length(max=40)],
        description=_l("What the game form shows: lower-case letters, digits, '-' or '_', like ods8."),
    )
    edition = StringField(
        _l("Edition"),
        validators=[DataRequired(_l("Say which edition this is.")), Length(max=80)],
        description=_l("Printed on every sheet of the games played with it, like “ODS 8 (2019)”."),
    )
    description = StringField(_l("Description"), validators=[Length(max=200)])
    compare_with = SelectField(_l("Compare with"), default="")

    def fill_choices(self, lexicons: dict[str, dict[str, str]]) -> None:
        self._select("rules").choices = [(code, ruleset(code).name) for code in ruleset_codes()]
        self._select("compare_with").choices = [("", _l("Nothing"))] + [
            (name, f"{name} · {entry['edition']}" if entry["edition"] else name)
            for name, entry in sorted(lexicons.items())
        ]
