"""The settings of a duplicate game, each declared once: name, type, bounds, default and help text.

From this one declaration come the checks of a new game's settings (:func:`validate`, for the API and
the pages alike), the director's form (:mod:`trainer.web.forms`), the OpenAPI schema
(:mod:`trainer.api.openapi`) and the table in the README (``python -m trainer.duplicate.settings``
prints it; a test checks the README holds it). A new setting is one more :class:`Setting` here, plus
its column on the game.

Labels and help texts are English, marked with :func:`~.text.N_` so that ``pybabel extract`` finds
them; the pages show them translated. Defaults are those of docs/rules.md §6.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from trainer.engine.rules import ruleset, ruleset_codes

from .draw import Bag, DrawRule
from .errors import RuleError
from .joker import JOKER, VARIANTS, JokerBag
from .modes import MODES
from .text import N_

SEED_DIGITS = 20  # a chosen seed has at least this many digits: too many seeds to try one by one from a rack
MIN_SEED: int = 10 ** (SEED_DIGITS - 1)
MAX_SEED = 10**40 - 1  # what the game's seed column holds
DRAW_RULE = "draw_rule"  # the group of the draw settings: one object in the API, a fieldset on the form
NOTATIONS = ("english", "french")


@dataclass(frozen=True)
class Section:
    name: str
    title: str


SECTIONS = (
    Section("game", N_("Game")),
    Section("clock", N_("Clock")),
    Section("solos", N_("Solos")),
    Section("arbitration", N_("Warnings")),
    Section("draw", N_("Draw")),
    Section("projector", N_("Projector")),
)


@dataclass(frozen=True)
class Preset:
    """A pace of game (docs/rules.md §6.14): the time per round and the reveal pause it sets."""

    name: str
    title: str  # for the game form (English; the pages translate it)
    round_seconds: int
    reveal_seconds: int


PRESETS: dict[str, Preset] = {
    preset.name: preset
    for preset in (
        Preset("classic", N_("Classic: 3 minutes a round, 30 s reveal"), 180, 30),
        Preset("semi-rapid", N_("Semi-rapid: 2 minutes a round, 20 s reveal"), 120, 20),
        Preset("blitz", N_("Blitz: 1 minute a round, 15 s reveal"), 60, 15),
    )
}
PRESET_TIMES = ("round_seconds", "reveal_seconds")  # the settings a preset sets


def preset_of(round_seconds: object, reveal_seconds: object) -> str | None:
    """The preset whose times these are, or None."""
    for preset in PRESETS.values():
        if (preset.round_seconds, preset.reveal_seconds) == (round_seconds, reveal_seconds):
            return preset.name
    return None


@dataclass(frozen=True)
class Setting:
    """One setting of a game.

    ``kind`` is ``int``, ``bool`` or ``str``; a ``str`` setting takes one of its ``choices``. ``optional``
    settings may be null (empty on the form): for those, None has a meaning of its own, which ``help``
    says. A ``default`` of None on a ``str`` setting means the ruleset's own (its lexicon, its notation).
    """

    name: str
    section: str
    label: str
    help: str
    kind: type
    default: int | bool | str | None
    low: int | None = None
    high: int | None = None
    optional: bool = False
    group: str | None = None  # settings of a group travel together, as one object (the draw rule)
    private: bool = False  # shown only to the game's director until the game is over (the seed)

    def choices(self) -> tuple[str, ...]:
        """What a ``str`` setting may be (the rulesets, the modes, the variants, the notations, the presets; lexicons
        are the server's)."""
        if self.name == "rules":
            return tuple(ruleset_codes())
        if self.name == "mode":
            return tuple(MODES)
        if self.name == "variant":
            return tuple(VARIANTS)
        if self.name == "preset":
            return tuple(PRESETS)
        if self.name == "notation":
            return NOTATIONS
        return ()

    def bounds(self) -> str:
        if self.kind is bool:
            return "true or false"
        if self.name == "seed":
            return f"{SEED_DIGITS} to 40 digits (a number or its digits as text), or null"
        if self.kind is int:
            return f"from {self.low} to {self.high}" + (", or null" if self.optional else "")
        return "text"


_RULE = DrawRule()

SETTINGS: tuple[Setting, ...] = (
    Setting("rules", "game", N_("Rules"), N_("Board, tiles and tile values."), str, "en"),
    Setting(
        "lexicon",
        "game",
        N_("Lexicon"),
        N_("The word list plays are judged by; leave it on the default of the rules."),
        str,
        None,
    ),
    Setting(
        "notation",
        "game",
        N_("Notation"),
        N_("How plays are written: English 8D (row first for across) or French H4 (row letter first)."),
        str,
        None,
    ),
    Setting(
        "mode",
        "game",
        N_("Mode"),
        # docs/rules.md §6.26: topping, everyone looks for each round's top; the ranking is by time.
        N_("How the game is played: classic duplicate, or topping (find each top fast: the ranking is by time)."),
        str,
        "classic",
    ),
    # docs/rules.md §6.24: any mode may be played as a joker game (trainer.duplicate.joker).
    Setting(
        "variant",
        "game",
        N_("Variant"),
        N_(
            "Classic, or a joker game: every draw holds a blank, and when the top places it, the blank is swapped"
            " for its letter from the bag."
        ),
        str,
        "classic",
    ),
    Setting(
        "max_rounds",
        "game",
        N_("Number of rounds"),
        N_("Leave empty to play until the bag is empty."),
        int,
        None,
        1,
        100,
        optional=True,
    ),
    # The federation's first-move rules (docs/rules.md §6.7 and §6.9), on as French clubs play.
    Setting(
        "first_play_across",
        "game",
        N_("First top across"),
        N_("On the first move, the top placed on the board is an across play."),
        bool,
        True,
    ),
    Setting(
        "first_play_best_placement",
        "game",
        N_("First play at its best placement"),
        N_("A first-move play scores its word's best placement through the centre, wherever it was put."),
        bool,
        True,
    ),
    # docs/rules.md §6.14: a preset sets the two times below; left out, it is the one the times match, if any.
    Setting(
        "preset",
        "clock",
        N_("Preset"),
        N_(
            "Classic (3 minutes a round), semi-rapid (2 minutes) or blitz (1 minute): it sets the time per round and"
            " the reveal pause. Choose none to set them yourself."
        ),
        str,
        None,
        optional=True,
    ),
    Setting(
        "round_seconds",
        "clock",
        N_("Time per round (seconds)"),
        N_("Three minutes is the usual; the server's clock closes the round."),
        int,
        180,
        10,
        3600,
    ),
    Setting(
        "reveal_seconds",
        "clock",
        N_("Reveal pause (seconds)"),
        N_("How long the top is shown before the next round starts; leave empty to start each round yourself."),
        int,
        30,
        0,
        3600,
        optional=True,
    ),
    Setting(
        "solo_bonus", "solos", N_("Solo bonus"), N_("Points for the only player who finds the top."), int, 10, 0, 100
    ),
    Setting(
        "solo_min_players",
        "solos",
        N_("Players needed for solos"),
        N_("Solos count only when at least this many players play."),
        int,
        16,
        1,
        100_000,
    ),
    Setting(
        "warning_penalty",
        "arbitration",
        N_("Points per warning"),
        N_("What each warning costs once a player has had the free ones."),
        int,
        5,
        0,
        100,
    ),
    Setting(
        "warnings_before_penalty",
        "arbitration",
        N_("Free warnings"),
        N_("Warnings a player may have before they cost points (3: the fourth is the first to cost)."),
        int,
        3,
        0,
        100,
    ),
    Setting(
        "min_vowels",
        "draw",
        N_("Minimum vowels"),
        N_("Each rack must have at least this many vowels…"),
        int,
        _RULE.min_vowels,
        0,
        7,
        group=DRAW_RULE,
    ),
    Setting(
        "min_consonants",
        "draw",
        N_("Minimum consonants"),
        N_("…and this many consonants, or it is thrown back."),
        int,
        _RULE.min_consonants,
        0,
        7,
        group=DRAW_RULE,
    ),
    Setting(
        "late_from_round",
        "draw",
        N_("From round"),
        N_("From this round on, the later minimums apply instead."),
        int,
        _RULE.late_from_round,
        1,
        30,
        group=DRAW_RULE,
    ),
    Setting(
        "late_min_vowels",
        "draw",
        N_("Later minimum vowels"),
        N_("Vowels each rack needs from that round on."),
        int,
        _RULE.late_min_vowels,
        0,
        7,
        group=DRAW_RULE,
    ),
    Setting(
        "late_min_consonants",
        "draw",
        N_("Later minimum consonants"),
        N_("Consonants each rack needs from that round on."),
        int,
        _RULE.late_min_consonants,
        0,
        7,
        group=DRAW_RULE,
    ),
    Setting(
        "blanks_either",
        "draw",
        N_("A blank counts as a vowel or a consonant"),
        N_("Whichever the rack lacks."),
        bool,
        _RULE.blanks_either,
        group=DRAW_RULE,
    ),
    Setting(
        "seed",
        "draw",
        N_("Seed (optional)"),
        N_(
            "The same seed gives the same racks: replay a game with another club. A seed you choose has at least"
            " 20 digits; leave it empty for a random one."
        ),
        int,
        None,
        MIN_SEED,
        MAX_SEED,
        optional=True,
        private=True,
    ),
    # The projector's cues: off unless the director asks (a room may have no speakers, or its own arbiter).
    Setting(
        "thirty_seconds_cue",
        "projector",
        N_("“30 seconds left” cue"),
        N_("The projector shows a large “30 seconds left” banner and plays a short sound."),
        bool,
        False,
    ),
    Setting(
        "end_beeps",
        "projector",
        N_("End-of-round beeps"),
        N_("The projector beeps each of the last 5 seconds, and longer when the round closes."),
        bool,
        False,
    ),
    Setting(
        "spoken_announcements",
        "projector",
        N_("Spoken announcements"),
        N_(
            "The projector reads the draw aloud, letter by letter, when each round starts, and the top with its"
            " square at the reveal, in the game's language."
        ),
        bool,
        False,
    ),
)

BY_NAME: dict[str, Setting] = {setting.name: setting for setting in SETTINGS}
GROUPS: dict[str, tuple[Setting, ...]] = {
    DRAW_RULE: tuple(setting for setting in SETTINGS if setting.group == DRAW_RULE)
}
TOP_LEVEL: tuple[str, ...] = tuple(dict.fromkeys(setting.group or setting.name for setting in SETTINGS))
"""The keys of a game's settings as the API writes them (the draw settings as one ``draw_rule`` object)."""

assert set(GROUPS[DRAW_RULE]) == {BY_NAME[name] for name in asdict(_RULE)}, "every DrawRule field is a setting"


def _bad(setting: str, message: str) -> RuleError:
    return RuleError("bad_setting", message, setting=setting)


def _whole_number(setting: Setting, value: object, shown: str) -> int | None:
    if value is None and setting.optional:
        return None
    assert setting.low is not None and setting.high is not None
    if isinstance(value, bool) or not isinstance(value, int) or not setting.low <= value <= setting.high:
        raise _bad(setting.name, f"{shown} must be a whole number {setting.bounds()}")
    return value


def _choice(setting: Setting, value: object, known: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in known:
        raise _bad(setting.name, f"'{setting.name}' must be one of {', '.join(known)}, not {value!r}")
    return value


def _draw_rule(data: object) -> dict[str, int | bool]:
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise _bad(DRAW_RULE, "'draw_rule' must be an object")
    known = [setting.name for setting in GROUPS[DRAW_RULE]]
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise _bad(DRAW_RULE, f"unknown draw_rule setting {unknown[0]!r} (known: {', '.join(known)})")
    rule: dict[str, int | bool] = {}
    for setting in GROUPS[DRAW_RULE]:
        value = data.get(setting.name, setting.default)
        if setting.kind is bool:
            if not isinstance(value, bool):
                raise _bad(setting.name, f"draw_rule '{setting.name}' must be true or false")
            rule[setting.name] = value
        else:
            number = _whole_number(setting, value, f"draw_rule '{setting.name}'")
            assert number is not None
            rule[setting.name] = number
    return rule


def _pace(data: Mapping[str, object], settings: dict[str, Any]) -> None:
    """The preset's times in ``settings`` (docs/rules.md §6.14): a preset given sets the time per round and the
    reveal pause, and either of them given too must be the preset's (``preset_conflict`` otherwise: which one is
    meant cannot be guessed). Without a preset, the times stay as given and the preset is the one they match."""
    name = data.get("preset")
    if name is None:
        settings["preset"] = preset_of(settings["round_seconds"], settings["reveal_seconds"])
        return
    preset = PRESETS[_choice(BY_NAME["preset"], name, BY_NAME["preset"].choices())]
    for time in PRESET_TIMES:
        wanted = getattr(preset, time)
        if time in data and settings[time] != wanted:
            raise RuleError(
                "preset_conflict",
                f"'{time}' is {settings[time]}, but the preset {preset.name} sets it to {wanted}: leave '{time}' out, "
                "or leave 'preset' out to give your own times",
                setting=time,
                preset=preset.name,
                value=settings[time],
                wanted=wanted,
            )
        settings[time] = wanted
    settings["preset"] = preset.name


def random_seed() -> int:
    """A seed of 128 random bits (and at least :data:`SEED_DIGITS` digits, like a chosen one)."""
    return MIN_SEED + secrets.randbits(128)


def seed_of(value: object) -> int | None:
    """A seed a director gives: a whole number, or its digits as text (spaces allowed, for reading it out).

    Refused unless it has :data:`SEED_DIGITS` digits or more: a short seed is found by trying every seed
    against round 1's public rack (12345 took 15 s), and every later rack follows (docs/rules.md §6.4).
    """
    if value is None or value == "":
        return None
    text = value.replace(" ", "") if isinstance(value, str) else value
    if isinstance(text, str) and text.isascii() and text.isdigit():
        text = int(text)
    if isinstance(text, bool) or not isinstance(text, int) or text < 0 or text > MAX_SEED:
        raise _bad("seed", "'seed' must be a whole number (its digits), or empty for a random one")
    if text < MIN_SEED:
        raise RuleError(
            "short_seed",
            f"a seed you choose must have at least {SEED_DIGITS} digits, or anyone could find it from the first"
            " rack: leave it empty for a random one",
            setting="seed",
            digits=SEED_DIGITS,
        )
    return text


def validate(data: object, lexicons: Mapping[str, str], new_seed: Callable[[], int] = random_seed) -> dict[str, Any]:
    """A new game's settings from a request, checked, with every default filled in.

    ``lexicons`` maps each lexicon the server knows to its ruleset's code. A setting left out (or null,
    where a default exists) takes its default; the seed, left out, is drawn by ``new_seed``. Refused
    with :class:`RuleError`: ``bad_setting`` (naming the setting), ``lexicon_rules`` (a lexicon of other
    rules), ``impossible_draw_rule`` (no rack can meet the minimums with these tiles).
    """
    if not isinstance(data, dict):
        raise _bad("settings", "the settings must be a JSON object")

    def given(name: str) -> object:
        return data[name] if name in data else BY_NAME[name].default

    def or_rules(name: str, default: str) -> object:
        """A setting whose default is the ruleset's: left out, null or empty takes it; any other value is checked
        as it is (``{}`` or ``[]`` is refused, not read as "left out")."""
        value = given(name)
        return default if value is None or value == "" else value

    rules = ruleset(_choice(BY_NAME["rules"], given("rules"), BY_NAME["rules"].choices()))
    lexicon = or_rules("lexicon", rules.lexicon)
    if not isinstance(lexicon, str) or lexicon not in lexicons:
        raise _bad("lexicon", f"unknown lexicon {lexicon!r} (known: {', '.join(sorted(lexicons))})")
    if lexicons[lexicon] != rules.code:
        raise RuleError(
            "lexicon_rules",
            f"lexicon {lexicon!r} is for rules {lexicons[lexicon]!r}",
            lexicon=lexicon,
            rules=lexicons[lexicon],
        )
    settings: dict[str, Any] = {
        "rules": rules.code,
        "lexicon": lexicon,
        "notation": _choice(BY_NAME["notation"], or_rules("notation", rules.notation), NOTATIONS),
        "mode": _choice(BY_NAME["mode"], given("mode"), BY_NAME["mode"].choices()),
        "variant": _choice(BY_NAME["variant"], given("variant"), BY_NAME["variant"].choices()),
    }
    for setting in SETTINGS:
        if setting.kind is int and setting.group is None and setting.name != "seed":
            settings[setting.name] = _whole_number(setting, given(setting.name), f"'{setting.name}'")
        elif setting.kind is bool and setting.group is None:
            value = given(setting.name)
            if not isinstance(value, bool):
                raise _bad(setting.name, f"'{setting.name}' must be true or false")
            settings[setting.name] = value
    _pace(data, settings)
    settings["seed"] = seed_of(given("seed"))
    rule = _draw_rule(data.get(DRAW_RULE))
    try:
        (JokerBag if settings["variant"] == JOKER else Bag)(rules, draw_rule(rule), seed=0)
    except ValueError as exc:
        raise RuleError("impossible_draw_rule", str(exc)) from None
    settings[DRAW_RULE] = rule
    if settings["seed"] is None:
        settings["seed"] = new_seed()
    return {key: settings[key] for key in TOP_LEVEL}


def draw_rule(stored: Mapping[str, Any]) -> DrawRule:
    """The draw rule of a game's ``draw_rule`` settings (as :func:`validate` checked and the game stores them)."""
    return DrawRule(
        min_vowels=int(stored["min_vowels"]),
        min_consonants=int(stored["min_consonants"]),
        late_min_vowels=int(stored["late_min_vowels"]),
        late_min_consonants=int(stored["late_min_consonants"]),
        late_from_round=int(stored["late_from_round"]),
        blanks_either=bool(stored["blanks_either"]),
    )


def shown(settings: Mapping[str, Any], private: bool) -> dict[str, Any]:
    """A game's settings as a client sees them, in declaration order; with ``private``, the seed too."""
    hidden = {setting.name for setting in SETTINGS if setting.private}
    answer = {key: settings[key] for key in TOP_LEVEL if key in settings and (private or key not in hidden)}
    if answer.get("seed") is not None:
        answer["seed"] = str(answer["seed"])  # its 39 digits as text: a JavaScript number keeps 16
    return answer


def markdown_table() -> str:
    """The settings as the README lists them (``python -m trainer.duplicate.settings`` prints this)."""
    lines = ["| setting | default | allowed | what it does |", "| --- | --- | --- | --- |"]
    for setting in SETTINGS:
        name = f"`{setting.group}.{setting.name}`" if setting.group else f"`{setting.name}`"
        if setting.name == "preset":
            default = "the one the times match, if any"
        elif setting.default is None:
            default = "random" if setting.name == "seed" else ("the ruleset's" if setting.kind is str else "none")
        else:
            default = str(setting.default).lower() if setting.kind is bool else str(setting.default)
        if setting.kind is str:
            allowed = ", ".join(setting.choices()) or "a lexicon of the server (`tirage lexicon list`)"
            allowed += ", or null" if setting.optional else ""
        else:
            allowed = setting.bounds()
        lines.append(f"| {name} | {default} | {allowed} | {setting.label}: {setting.help} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown_table())
