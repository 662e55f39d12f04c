"""A game's settings are declared once (trainer/duplicate/settings.py, docs/rules.md §6.14): the checks, the
director's form, the OpenAPI schema and the README's table all come from that declaration and agree."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from trainer.api.openapi import document
from trainer.duplicate.draw import DrawRule
from trainer.duplicate.errors import RuleError
from trainer.duplicate.modes import MODES, mode, register
from trainer.duplicate.settings import (
    BY_NAME,
    DRAW_RULE,
    GROUPS,
    SETTINGS,
    TOP_LEVEL,
    draw_rule,
    markdown_table,
    shown,
    validate,
)

ROOT = Path(__file__).resolve().parent.parent
LEXICONS = {"en": "en", "fr": "fr", "club": "fr"}


@pytest.fixture
def database_url() -> str:
    """The form needs an application, not a database server: SQLite only."""
    return ""


def test_every_default_is_filled_in_as_docs_rules_6_14_says() -> None:
    settings = validate({}, LEXICONS, new_seed=lambda: 42)
    assert settings == {
        "rules": "en",
        "lexicon": "en",
        "notation": "english",
        "mode": "classic",
        "variant": "classic",  # docs/rules.md §6.24: "joker", every draw holds a blank
        "max_rounds": None,
        "first_play_across": True,  # the federation's first-move rules (docs/rules.md §6.7, §6.9)
        "first_play_best_placement": True,
        "preset": "classic",  # docs/rules.md §6.14: the preset the default times make
        "round_seconds": 180,
        "reveal_seconds": 30,
        "solo_bonus": 10,
        "solo_min_players": 16,
        "warning_penalty": 5,  # docs/rules.md §6.19
        "warnings_before_penalty": 3,
        "draw_rule": {
            "min_vowels": 2,
            "min_consonants": 2,
            "late_from_round": 16,
            "late_min_vowels": 1,
            "late_min_consonants": 1,
            "blanks_either": True,
        },
        "seed": 42,
        "thirty_seconds_cue": False,  # the projector's cues: off unless the director asks
        "end_beeps": False,
        "spoken_announcements": False,
    }
    assert list(settings) == list(TOP_LEVEL)
    assert draw_rule(settings["draw_rule"]) == DrawRule()  # the draw rule's own defaults, declared once
    french = validate({"rules": "fr", "lexicon": "club", "reveal_seconds": None}, LEXICONS, new_seed=lambda: 1)
    assert (french["lexicon"], french["notation"], french["reveal_seconds"]) == ("club", "french", None)


@pytest.mark.parametrize(
    ("data", "code", "setting"),
    [
        ([], "bad_setting", "settings"),
        ({"rules": "xx"}, "bad_setting", "rules"),
        ({"lexicon": "nope"}, "bad_setting", "lexicon"),
        ({"lexicon": "club"}, "lexicon_rules", None),
        ({"notation": "german"}, "bad_setting", "notation"),
        ({"mode": "joker"}, "bad_setting", "mode"),
        ({"round_seconds": 9}, "bad_setting", "round_seconds"),
        ({"round_seconds": None}, "bad_setting", "round_seconds"),  # only optional settings may be null
        ({"round_seconds": True}, "bad_setting", "round_seconds"),
        ({"max_rounds": 101}, "bad_setting", "max_rounds"),
        ({"seed": 10**40}, "bad_setting", "seed"),
        ({"seed": "12ab"}, "bad_setting", "seed"),
        ({"seed": -(10**20)}, "bad_setting", "seed"),
        ({"seed": 12345}, "short_seed", "seed"),  # found from round 1's rack in 15 s (issue 14)
        ({"seed": "9" * 19}, "short_seed", "seed"),
        ({"draw_rule": []}, "bad_setting", DRAW_RULE),
        ({"draw_rule": {"vowels": 2}}, "bad_setting", DRAW_RULE),
        ({"draw_rule": {"min_vowels": 8}}, "bad_setting", "min_vowels"),
        ({"draw_rule": {"late_from_round": 0}}, "bad_setting", "late_from_round"),
        ({"draw_rule": {"blanks_either": 1}}, "bad_setting", "blanks_either"),
        ({"draw_rule": {"min_vowels": 4, "min_consonants": 4}}, "impossible_draw_rule", None),
        ({"end_beeps": "yes"}, "bad_setting", "end_beeps"),
        ({"spoken_announcements": None}, "bad_setting", "spoken_announcements"),
        ({"thirty_seconds_cue": 1}, "bad_setting", "thirty_seconds_cue"),
        ({"first_play_across": "no"}, "bad_setting", "first_play_across"),
        ({"first_play_best_placement": 0}, "bad_setting", "first_play_best_placement"),
        ({"variant": "explosive"}, "bad_setting", "variant"),
        ({"preset": "rapid"}, "bad_setting", "preset"),
        ({"preset": ""}, "bad_setting", "preset"),
        # docs/rules.md §6.14: a time given with a preset must be the preset's
        ({"preset": "blitz", "round_seconds": 90}, "preset_conflict", "round_seconds"),
        ({"preset": "semi-rapid", "reveal_seconds": None}, "preset_conflict", "reveal_seconds"),
        ({"preset": "classic", "reveal_seconds": 10}, "preset_conflict", "reveal_seconds"),
        # docs/rules.md §6.24: with blanks counting as neither, the joker's blank takes a place the minimums need
        (
            {"variant": "joker", "draw_rule": {"min_vowels": 4, "min_consonants": 3, "blanks_either": False}},
            "impossible_draw_rule",
            None,
        ),
    ],
)
def test_a_bad_setting_is_refused_naming_it(data: Any, code: str, setting: str | None) -> None:
    with pytest.raises(RuleError) as refused:
        validate(data, LEXICONS)
    assert refused.value.code == code and refused.value.params.get("setting") == setting
    if setting is not None and setting != "settings":
        assert setting in str(refused.value)


def test_a_preset_sets_both_times_and_the_times_make_a_preset_as_docs_rules_6_14_says() -> None:
    def pace(data: dict[str, Any]) -> tuple[object, object, object]:
        settings = validate(data, LEXICONS)
        return settings["preset"], settings["round_seconds"], settings["reveal_seconds"]

    assert pace({"preset": "classic"}) == pace({}) == ("classic", 180, 30)
    assert pace({"preset": "semi-rapid"}) == ("semi-rapid", 120, 20)
    assert pace({"preset": "blitz"}) == ("blitz", 60, 15)
    assert pace({"preset": "blitz", "round_seconds": 60, "reveal_seconds": 15}) == ("blitz", 60, 15)  # agreeing
    assert pace({"preset": None, "round_seconds": 60}) == (None, 60, 30)  # null: no preset given
    assert pace({"round_seconds": 120, "reveal_seconds": 20}) == ("semi-rapid", 120, 20)
    assert pace({"round_seconds": 90}) == (None, 90, 30)
    assert pace({"reveal_seconds": None}) == (None, 180, None)
    with pytest.raises(RuleError) as refused:
        validate({"preset": "blitz", "round_seconds": 90}, LEXICONS)
    assert refused.value.params == {"setting": "round_seconds", "preset": "blitz", "value": 90, "wanted": 60}
    assert str(refused.value).startswith("'round_seconds' is 90, but the preset blitz sets it to 60")


def test_a_joker_game_is_a_setting_of_any_mode_and_the_classic_game_the_default() -> None:
    assert validate({"variant": "joker"}, LEXICONS)["variant"] == "joker"
    assert BY_NAME["variant"].choices() == ("classic", "joker") and BY_NAME["variant"].default == "classic"
    # A blank counting as neither leaves six places for the minimums: 3 + 3 fit, 4 + 3 do not (above).
    rule = {"min_vowels": 3, "min_consonants": 3, "blanks_either": False}
    assert validate({"variant": "joker", "draw_rule": rule}, LEXICONS)["draw_rule"]["min_vowels"] == 3


def test_the_seed_is_private_until_the_game_is_over() -> None:
    seed = 31415926535897932384626
    settings = validate({"seed": seed}, LEXICONS)
    assert "seed" not in shown(settings, private=False) and shown(settings, private=True)["seed"] == str(seed)
    assert list(shown(settings, private=True)) == list(TOP_LEVEL)


def test_the_readme_holds_the_table_the_declaration_makes() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    found = re.search(r"<!-- settings table: [^>]*-->\n(.*?)<!-- end of the settings table -->", readme, re.S)
    assert found is not None, "README.md has no settings table"
    assert found[1] == markdown_table(), "README.md's table is stale: python -m trainer.duplicate.settings"
    assert all(f"`{s.name}`" in found[1] or f"`{s.group}.{s.name}`" in found[1] for s in SETTINGS)


def test_the_openapi_schema_is_the_declaration() -> None:
    schemas = document()["components"]["schemas"]
    properties = schemas["GameSettings"]["properties"]
    assert list(properties) == list(TOP_LEVEL)
    for name, schema in [*properties.items(), *schemas["DrawRule"]["properties"].items()]:
        if name == DRAW_RULE:
            continue
        setting = BY_NAME[name]
        assert schema.get("minimum") == setting.low and schema.get("maximum") == setting.high, name
        assert schema.get("default", setting.default) == setting.default, name
        if setting.choices():
            assert set(schema["enum"]) - {None} == set(setting.choices()), name
    assert set(schemas["DrawRule"]["properties"]) == {s.name for s in GROUPS[DRAW_RULE]}


def test_the_directors_form_is_the_declaration(app: Flask) -> None:
    from trainer.web.forms import GameForm

    with app.test_request_context("/director/games/new"):
        form = GameForm(meta={"csrf": False})
        form.fill_choices({"en": {"rules": "en"}, "fr": {"rules": "fr"}})
        fields = [field.name for _title, section in form.sections() for field in section]
        assert fields == [s.name for s in SETTINGS]
        for setting in SETTINGS:
            field = form[setting.name]
            if setting.name == "seed":  # digits as text, checked by the settings' own rule
                assert field.type == "StringField" and field.data is None
            elif setting.kind is int:
                ranges = [v for v in field.validators if hasattr(v, "min")]
                assert (ranges[0].min, ranges[0].max) == (setting.low, setting.high), setting.name
                assert field.data == setting.default, setting.name
        # What the form posts is what the API takes: defaults in, the same settings out.
        assert validate(form.settings(), {"en": "en", "fr": "fr"}, new_seed=lambda: 5) == validate(
            {}, {"en": "en", "fr": "fr"}, new_seed=lambda: 5
        )


def test_modes_are_a_registry() -> None:
    assert set(MODES) == {"classic", "topping"} and mode("classic").name == "classic"
    assert isinstance(mode("topping"), type(mode("classic")))  # docs/rules.md §6.26: classic rounds, another ranking
    with pytest.raises(ValueError, match="unknown mode 'joker' \\(known: classic, topping\\)"):
        mode("joker")
    with pytest.raises(ValueError, match="registered already"):
        register(type(mode("classic"))())  # another object under a taken name: an error, not a swap
    assert register(mode("classic")) is mode("classic")


def test_a_random_seed_has_128_bits_and_a_chosen_one_at_least_20_digits_as_docs_rules_6_4_says() -> None:
    """docs/rules.md §6.4: a short seed is found from round 1's public rack, so none is accepted."""
    seeds = {validate({}, LEXICONS)["seed"] for _ in range(64)}
    assert len(seeds) == 64 and all(10**19 <= seed < 10**40 for seed in seeds)
    assert max(seeds).bit_length() >= 127  # 128 random bits: 64 draws all below 2**127 has odds 2**-64
    given = "3141 5926 5358 9793 2384"  # read out over the phone to another club, in groups
    assert validate({"seed": given}, LEXICONS)["seed"] == 31415926535897932384
    assert validate({"seed": 31415926535897932384}, LEXICONS)["seed"] == 31415926535897932384
