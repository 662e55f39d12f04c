"""The OpenAPI 3.1 description of the JSON API, served at ``/api/openapi.json``.

Written by hand next to the views, and checked by the tests against the blueprint's routes (every
route documented, every documented path served) and against the answers of a full game.
"""

from __future__ import annotations

from typing import Any

from flask import jsonify
from flask.typing import ResponseReturnValue

from ..duplicate.imposed import DRAWS, MAX_TEXT
from ..duplicate.settings import BY_NAME, DRAW_RULE, GROUPS, TOP_LEVEL, Setting
from ..http.ids import MAX_GAME_ID
from .common import bp

JSON = "application/json"


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _body(schema: str) -> dict[str, Any]:
    return {"required": True, "content": {JSON: {"schema": _ref(schema)}}}


def _ok(schema: str, description: str, status: str = "200") -> dict[str, Any]:
    return {status: {"description": description, "content": {JSON: {"schema": _ref(schema)}}}}


def _errors(*statuses: int) -> dict[str, Any]:
    return {str(status): {"$ref": f"#/components/responses/E{status}"} for status in statuses}


GAME_ID = {
    "name": "game_id",
    "in": "path",
    "required": True,
    "description": "A game's id: a random number below 2**53 (an id cannot be guessed by counting).",
    "schema": {"type": "integer", "minimum": 1, "maximum": MAX_GAME_ID},
}
COMPETITION_CODE = {"name": "code", "in": "path", "required": True, "schema": {"type": "string", "maxLength": 12}}
ROUND = {
    "name": "number",
    "in": "path",
    "required": True,
    "description": "Round number, from 1.",
    "schema": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
}
PLAYER_ID = {
    "name": "player_id",
    "in": "path",
    "required": True,
    "schema": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
}
DIRECTOR: list[dict[str, list[str]]] = [{"directorToken": []}]
PLAYER: list[dict[str, list[str]]] = [{"playerToken": []}]


def _director_action(summary: str, description: str, body: str | None = None) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "tags": ["director"],
        "summary": summary,
        "description": description,
        "security": DIRECTOR,
        "parameters": [GAME_ID],
        "responses": {
            **_ok("GameState", "The game after the change (with its join code)."),
            **_errors(400, 401, 403, 404, 409, 422),
        },
    }
    if body is not None:
        operation["requestBody"] = _body(body)
        operation["responses"].update(_errors(413))
    return {"post": operation}


_INT = {"type": "integer"}
_NEGATIF = {
    "type": "integer",
    "description": "Total − top total, solo bonuses included: ≤ 0 unless bonuses lift it (docs/rules.md §6.13).",
}
_PERCENTAGE = {
    "type": "number",
    "description": "100 × total ÷ top total with two decimals, the exact fraction rounded half up: 395 of 400 is "
    "98.75, 789 of 800 is 98.63, 500 of 800 is 62.5 (62.50); 0.0 while the top total is 0 (docs/rules.md §6.13).",
}
_STR = {"type": "string"}
# An arbiter's reason (a correction, a ruling, a cancellation): the forms' 200 characters (docs/rules.md §6.19).
_REASON = {"type": "string", "minLength": 1, "maxLength": 200}
_TIME = {"type": ["string", "null"], "format": "date-time", "description": "ISO 8601, UTC (Z)."}
_ROOM_NAME = {
    "type": ["string", "null"],
    "maxLength": 80,
    "description": "A room's name on its simultaneous game's public ranking: your club's (docs/rules.md §6.22). "
    "Left out, null or empty: Room n, by the room's place in the event. Never a join code.",
}


def _setting_schema(setting: Setting) -> dict[str, Any]:
    """A game setting's JSON schema, from its declaration (trainer.duplicate.settings)."""
    schema: dict[str, Any]
    if setting.kind is bool:
        schema = {"type": "boolean"}
    elif setting.name == "seed":  # up to 40 digits: answered as text, which a JavaScript number cannot hold
        schema = {"type": ["string", "integer", "null"], "pattern": "^[0-9 ]+$", "minimum": setting.low,
                  "maximum": setting.high}  # fmt: skip
    elif setting.kind is int:
        schema = {"type": ["integer", "null"] if setting.optional else "integer", "minimum": setting.low,
                  "maximum": setting.high}  # fmt: skip
    else:
        schema = {"type": "string" if setting.default is not None else ["string", "null"]}
        if setting.choices():
            schema["enum"] = list(setting.choices()) + ([None] if setting.default is None else [])
    if setting.default is not None or setting.optional:
        schema["default"] = setting.default
    text = f"{setting.label}: {setting.help}"
    if setting.default is None and setting.kind is str and not setting.optional:
        text += " Default: the ruleset's own."
    if setting.private:
        text += " Shown only to the game's director until the game is over."
    schema["description"] = text
    return schema


SETTINGS_PROPERTIES: dict[str, Any] = {
    key: _ref("DrawRule") if key == DRAW_RULE else _setting_schema(BY_NAME[key]) for key in TOP_LEVEL
}

DRAWS_PROPERTY: dict[str, Any] = {
    DRAWS: {
        "type": ["string", "null"],
        "maxLength": MAX_TEXT,
        "default": None,
        "description": "Imposed draws (docs/rules.md §6.18): the game plays these racks instead of drawing from a "
        "seed. One round a line, as §6.3 writes a draw: `RELIQUAT+NEW`, a rejected rack first with a `-` "
        "(`-EEIO+AAB AEILRRR`); blank lines and `#` comments are left out, and a round list from "
        "`draws.txt` or a GCG record from `export.gcg` reads as it is. Checked before the game is created: the "
        "tiles are in the bag, each reliquat is part of the last rack, every rack meets the draw rule or is "
        "rejected; a refusal (422) names each line. Leave `seed` out. Null or blank: the seed draws the racks.",
    }
}

RECORDED_LEXICON: dict[str, Any] = {
    "lexicon": {"type": "string", "description": "The name of the lexicon (word list) the game is played with."},
    "lexicon_edition": {
        "type": ["string", "null"],
        "description": "The lexicon's edition when the game was made, and again when it started (`ENABLE 1`); "
        "empty when the list has none, null for a game made before editions were recorded.",
    },
    "lexicon_sha256": {
        "type": ["string", "null"],
        "pattern": "^[0-9a-f]{64}$",
        "description": "The SHA-256 of the lexicon's words (one upper-case word a line, sorted) when the game was "
        "made, and again when it started: a new edition loaded under the same name is told apart by it. Null for a "
        "game made before.",
    },
}
PLAYED_LEXICON: dict[str, Any] = {
    **RECORDED_LEXICON,
    "lexicon_since": {
        "enum": ["unchanged", "changed", "removed", "unknown"],
        "description": "What became of the list under the lexicon's name since the game recorded it: `changed` "
        "(another edition loaded under the name) or `removed` (no longer on this server); the game's results "
        "stand as its rounds were judged, with its own list. `unknown`: a game made before lexicons were recorded.",
    },
}

SCHEMAS: dict[str, Any] = {
    "Error": {"type": "object", "required": ["error"], "properties": {"error": _STR}},
    "Credentials": {
        "type": "object",
        "required": ["username", "password"],
        "properties": {"username": _STR, "password": _STR},
    },
    "Token": {
        "type": "object",
        "required": ["token", "token_type", "expires_in"],
        "properties": {
            "token": _STR,
            "token_type": {"const": "Bearer"},
            "expires_in": {"type": "integer", "description": "Seconds."},
        },
    },
    "DrawRule": {
        "type": "object",
        "additionalProperties": False,
        "properties": {setting.name: _setting_schema(setting) for setting in GROUPS[DRAW_RULE]},
    },
    "GameSettings": {
        "type": "object",
        "properties": SETTINGS_PROPERTIES,
        "description": "Every field is optional; the defaults are those of docs/rules.md §6.14.",
    },
    "NewGame": {
        "type": "object",
        "properties": {**SETTINGS_PROPERTIES, **DRAWS_PROPERTY},
        "description": "The game's settings (GameSettings: every field optional, the defaults of docs/rules.md "
        "§6.14) and, optionally, its imposed draws (§6.18).",
    },
    "GameCreated": {
        "type": "object",
        "required": ["id", "join_code", "status", "seed", *PLAYED_LEXICON],
        "properties": {
            "id": _INT,
            "join_code": _STR,
            "status": _STR,
            **PLAYED_LEXICON,
            **SETTINGS_PROPERTIES,  # its "lexicon" is the same name
            **DRAWS_PROPERTY,
        },
    },
    "GameState": {
        "type": "object",
        "required": [
            "id",
            "status",
            "round",
            "board",
            "rack",
            "deadline",
            "seconds_left",
            "submissions",
            "players",
            "notation",
            "settings",
            *PLAYED_LEXICON,
        ],
        "properties": {
            "id": _INT,
            "status": {"enum": ["lobby", "playing", "paused", "revealing", "finished"]},
            "round": {"type": "integer", "description": "Current round number; 0 in the lobby."},
            "max_rounds": {"type": ["integer", "null"]},
            "board": {
                "type": "array",
                "items": _STR,
                "minItems": 15,
                "maxItems": 15,
                "description": "Rows as in `tirage analyze`: '.' empty, upper case tiles, lower case blanks.",
            },
            "rack": {"type": ["string", "null"], "description": "'?' for a blank."},
            "draw": {"type": ["string", "null"], "description": "RELIQUAT+NEW; rejected draws prefixed with '-'."},
            "round_status": {"type": ["string", "null"], "enum": ["open", "paused", "closed", None]},
            "deadline": _TIME,
            "seconds_left": {"type": ["number", "null"]},
            "submissions": {"type": "integer", "description": "Players who have handed in a play this round."},
            "players": {"type": "integer"},
            "locked": {"type": "boolean", "description": "The director has closed the room to new players."},
            "imposed_draws": {
                "type": "boolean",
                "description": "The game plays a list of imposed draws, not racks drawn from a seed (§6.18).",
            },
            "notation": {"enum": ["english", "french"]},
            "next_round_at": _TIME,
            "end_reason": {"type": ["string", "null"]},
            "settings": {"type": "object", "properties": SETTINGS_PROPERTIES},
            **PLAYED_LEXICON,
            "join_code": {"type": "string", "description": "Only to the game's director."},
        },
    },
    "JoinRequest": {
        "type": "object",
        "required": ["code", "name"],
        "properties": {"code": _STR, "name": {"type": "string", "minLength": 1, "maxLength": 40}},
    },
    "Joined": {
        "type": "object",
        "required": ["game_id", "player_id", "token"],
        "properties": {
            "game_id": _INT,
            "player_id": _INT,
            "name": _STR,
            "token": {"type": "string", "description": "The player's bearer token, shown once."},
        },
    },
    "PlayRequest": {
        "type": "object",
        "required": ["move"],
        "properties": {
            "move": {
                "type": "string",
                "examples": ["8D TRAIN", "H4 TRAIN"],
                "description": "Coordinate and word in the game's notation; lower case for blanks.",
            }
        },
    },
    "PlayAccepted": {
        "type": "object",
        "required": ["round", "move", "score"],
        "properties": {
            "round": _INT,
            "move": _STR,
            "received_at": _TIME,
            "score": {"type": "integer", "description": "The play's value as placed; word validity is not told."},
        },
    },
    "ClubToppingPlay": {
        "type": "object",
        "description": "A play handed in to a topping game (docs/rules.md §6.26): a top or not, never its score.",
        "required": ["round", "move", "top"],
        "properties": {
            "round": _INT,
            "move": _STR,
            "top": {"type": "boolean", "description": "A top ends the player's round; any other play is a wrong play."},
            "elapsed": {
                "type": ["number", "null"],
                "description": "Seconds from the round's start to this top (server's clock), before wrong plays and "
                "hints; null for a wrong play.",
            },
            "received_at": _TIME,
        },
    },
    "PlayAnswer": {"oneOf": [_ref("PlayAccepted"), _ref("ClubToppingPlay")]},
    "ClubHintRequest": {
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"type": "string", "enum": ["length", "direction", "square", "letter"]}},
    },
    "ClubHint": {
        "type": "object",
        "required": ["round", "kind", "value", "seconds"],
        "properties": {
            "round": _INT,
            "kind": {"type": "string", "enum": ["length", "direction", "square", "letter"]},
            "value": {
                "type": ["integer", "string"],
                "description": "length: letters of the top's word; direction: across or down; square: where the word "
                "starts, in the game's notation; letter: the letter (lower case for a blank).",
            },
            "position": {"type": ["integer", "null"], "description": "A letter's place in the word, from 1."},
            "seconds": {"type": "integer", "description": "What the hint costs."},
        },
    },
    "ClubToppingStandings": {
        "type": "object",
        "required": ["game_id", "mode", "costs", "standings", "rounds"],
        "properties": {
            "game_id": _INT,
            "status": _STR,
            "mode": {"type": "string", "enum": ["topping"]},
            "costs": {
                "type": "object",
                "description": "Seconds: limit_seconds (the game's round_seconds), penalty_seconds, wrong_play_seconds,"
                " and each hint's (length, direction, square, letter).",
                "additionalProperties": {"type": "integer"},
            },
            "standings": {
                "type": "array",
                "description": "Fewest seconds first; equal totals: more rounds found first; ties share a rank.",
                "items": {
                    "type": "object",
                    "properties": {
                        "rank": _INT,
                        "player_id": {"type": ["integer", "null"]},
                        "name": _STR,
                        "seconds": {"type": "number"},
                        "found": _INT,
                        "rounds": _INT,
                        "average": {"type": "number"},
                    },
                },
            },
            "rounds": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "number": _INT,
                        "placed": {"type": ["string", "null"]},
                        "top_score": {"type": ["integer", "null"]},
                        "players": {
                            "type": "array",
                            "description": "Fastest first.",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "player_id": _INT,
                                    "name": _STR,
                                    "found": {"type": "boolean"},
                                    "elapsed": {"type": ["number", "null"]},
                                    "wrong_plays": _INT,
                                    "hints": {"type": "array", "items": _STR},
                                    "seconds": {"type": "number"},
                                },
                            },
                        },
                    },
                },
            },
        },
    },
    "ExtendRequest": {
        "type": "object",
        "required": ["seconds"],
        "properties": {"seconds": {"type": "integer", "minimum": 1, "maximum": 3600}},
    },
    "RenameRequest": {
        "type": "object",
        "required": ["name"],
        "properties": {"name": {"type": "string", "description": "1 to 40 characters that can be shown."}},
    },
    "PlayerEntry": {
        "type": "object",
        "required": ["player_id", "name", "joined_at"],
        "properties": {"player_id": _INT, "name": _STR, "joined_at": _TIME},
    },
    "PlayerList": {
        "type": "object",
        "required": ["players"],
        "properties": {"players": {"type": "array", "items": _ref("PlayerEntry")}},
    },
    "TopRequest": {
        "type": "object",
        "required": ["move"],
        "properties": {"move": {"type": "string", "description": "One of the round's `tops`."}},
    },
    "CorrectionRequest": {
        "type": "object",
        "required": ["player_id", "score", "reason"],
        "properties": {
            "player_id": _INT,
            "score": {"type": "integer", "minimum": 0, "maximum": 10000},
            "reason": _REASON,
        },
    },
    "Correction": {"type": "object", "properties": {"score": _INT, "reason": _STR, "author": _STR}},
    "RulingRequest": {
        "type": "object",
        "required": ["player_id", "kind", "reason"],
        "properties": {
            "player_id": _INT,
            "kind": {"enum": ["warning", "penalty", "solo_granted", "solo_withdrawn"]},
            "points": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "A penalty's points only."},
            "reason": _REASON,
        },
    },
    "BulletinRequest": {
        "type": "object",
        "required": ["player", "move"],
        "properties": {
            "player": {"type": ["string", "integer"], "description": "A table number or a player's name."},
            "move": _STR,
            "declared_on_time": {"type": "boolean", "default": False},
        },
    },
    "Bulletin": {
        "type": "object",
        "required": ["round", "player_id", "name", "move", "score", "declared_on_time"],
        "properties": {
            "round": _INT,
            "player_id": _INT,
            "name": _STR,
            "table": {"type": ["integer", "null"]},
            "move": _STR,
            "score": {"type": "integer", "description": "As placed; word validity is judged at the close."},
            "declared_on_time": {"type": "boolean"},
        },
    },
    "PaperPlayerRequest": {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": _STR,
            "table": {"type": ["integer", "null"], "minimum": 1, "maximum": 9999},
        },
    },
    "PaperPlayer": {
        "type": "object",
        "required": ["player_id", "name", "table"],
        "properties": {"player_id": _INT, "name": _STR, "table": _INT},
    },
    "CompetitionRequest": {
        "type": "object",
        "required": ["kind", "name"],
        "properties": {
            "kind": {"enum": ["simultaneous", "tournament"]},
            "name": {"type": "string", "minLength": 1, "maxLength": 80},
            "game_id": {"type": "integer", "description": "A simultaneous game's first room: your game in its lobby."},
            "room_name": _ROOM_NAME,
        },
    },
    "RoomRequest": {"type": "object", "properties": {"room_name": _ROOM_NAME}},
    "RoomName": {
        "type": "object",
        "required": ["room_name", "room"],
        "properties": {
            "room_name": {"type": ["string", "null"], "description": "The name you set; null: the default."},
            "room": {"type": "string", "description": "The room as the ranking names it (Room n by default)."},
        },
    },
    "CompetitionGameRequest": {"type": "object", "required": ["game_id"], "properties": {"game_id": _INT}},
    "Competition": {
        "type": "object",
        "required": ["code", "kind", "name", "games"],
        "properties": {
            "code": {"type": "string", "description": "Other directors open a room with it."},
            "kind": {"enum": ["simultaneous", "tournament"]},
            "name": _STR,
            "games": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"id": _INT, "join_code": _STR, "status": _STR},
                },
            },
        },
    },
    "CompetitionRanking": {
        "type": "object",
        "description": "Public: rooms by their names and a tournament's games by their places, never a join code "
        "or a game id (docs/rules.md §6.22).",
        "required": ["code", "kind", "name", "top_total", "standings"],
        "properties": {
            "code": {"type": "string", "description": "The event's code (other directors open a room with it)."},
            "kind": {"enum": ["simultaneous", "tournament"]},
            "name": _STR,
            "rooms": {
                "type": "array",
                "description": "Simultaneous: its rooms, by their names (the club's, or Room n), in opening order.",
                "items": {
                    "type": "object",
                    "required": ["name", "status"],
                    "properties": {"name": _STR, "status": _STR},
                },
            },
            "games": {
                "type": "array",
                "description": "Tournament: its games by their places in it, from 1.",
                "items": {
                    "type": "object",
                    "required": ["number", "status"],
                    "properties": {"number": _INT, "status": _STR},
                },
            },
            "rounds_counted": {"type": "integer", "description": "Simultaneous: the rounds every room has closed."},
            "waiting_for": {"type": "array", "items": _STR, "description": "Rooms behind the others, by their names."},
            "games_counted": {
                "type": "array",
                "items": _INT,
                "description": "Tournament: the finished games, by their places in it.",
            },
            "top_total": _INT,
            "standings": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["rank", "name", "total", "negatif", "percentage"],
                    "properties": {
                        "rank": _INT,
                        "name": _STR,
                        "room": {"type": "string", "description": "Simultaneous: the player's room, by its name."},
                        "total": _INT,
                        "negatif": _NEGATIF,
                        "percentage": _PERCENTAGE,
                        "tops": _INT,
                        "solos": _INT,
                        "warnings": _INT,
                        "penalty": _INT,
                        "game_totals": {"type": "array", "items": _INT},
                    },
                },
            },
        },
    },
    "CancelRequest": {"type": "object", "required": ["reason"], "properties": {"reason": _REASON}},
    "Ruling": {
        "type": "object",
        "properties": {
            "id": _INT,
            "kind": {"enum": ["warning", "penalty", "solo_granted", "solo_withdrawn"]},
            "points": {"type": "integer", "description": "A penalty's points; what a warning cost (0 if free)."},
            "reason": _STR,
            "author": _STR,
        },
    },
    "PlayerRound": {
        "type": "object",
        "required": ["player_id", "name", "move", "score", "valid", "difference", "solo", "rank", "of"],
        "properties": {
            "player_id": {"type": ["integer", "null"]},
            "name": _STR,
            "move": {"type": ["string", "null"], "description": "The play that counted (the last one handed in)."},
            "score": {"type": "integer", "description": "What the round scores for the player, corrections applied."},
            "original": {"type": "integer", "description": "The score before corrections."},
            "valid": {"type": "boolean"},
            "invalid_words": {"type": "array", "items": _STR},
            "late": {"type": "boolean"},
            "difference": {"type": "integer", "description": "score - top score (≤ 0)."},
            "top": {"type": "boolean"},
            "solo": {"type": "boolean"},
            "bonus": _INT,
            "rank": {"type": ["integer", "null"], "description": "1 + legal plays scoring more (3rd of 412)."},
            "of": {"type": "integer", "description": "The round's number of legal plays."},
            "corrections": {"type": "array", "items": _ref("Correction")},
            "rulings": {"type": "array", "items": _ref("Ruling")},
            "warnings": {"type": "integer", "description": "Warnings given in this round."},
            "penalty": {"type": "integer", "description": "Points taken in this round by penalties and warnings."},
            "total": {"type": "integer", "description": "What the round adds: score + bonus - penalty."},
        },
    },
    "RoundDetails": {
        "type": "object",
        "required": ["number", "rack", "draw", "tops", "placed", "top_score", "plays", "closed_at"],
        "properties": {
            "game_id": _INT,
            "number": _INT,
            "status": {"const": "closed"},
            "rack": _STR,
            "reliquat": _STR,
            "draw": _STR,
            "board_before": {"type": "array", "items": _STR},
            "started_at": _TIME,
            "deadline": _TIME,
            "closed_at": _TIME,
            "top_score": _INT,
            "tops": {"type": "array", "items": _STR, "description": "Tie-break order."},
            "placed": _STR,
            "plays": {"type": "integer", "description": "Number of legal plays."},
            "solo": {"type": ["string", "null"]},
            "blank": {
                "type": ["object", "null"],
                "required": ["letter", "square", "swapped"],
                "properties": {
                    "letter": {"type": "string", "description": "The letter the blank stood for."},
                    "square": {"type": "string", "description": "Its square, in the game's notation."},
                    "swapped": {
                        "type": "boolean",
                        "description": "True: that letter, taken from the bag, is on the board in the blank's place, "
                        "and the blank is back in the bag. False: no such letter was left, and the blank stays on "
                        "the board.",
                    },
                },
                "description": "A joker game's blank when the round's top placed it (docs/rules.md §6.24); null "
                "otherwise.",
            },
            "results": {
                "type": "array",
                "items": _ref("PlayerRound"),
                "description": "Each player's play and figures: only to the game's director and its players.",
            },
        },
    },
    "MyRound": {
        "type": "object",
        "required": ["number", "rack", "tops", "placed", "top_score", "result", "standing"],
        "properties": {
            "game_id": _INT,
            "number": _INT,
            "rack": _STR,
            "top_score": _INT,
            "tops": {"type": "array", "items": _STR},
            "placed": _STR,
            "plays": _INT,
            "result": {"anyOf": [_ref("PlayerRound"), {"type": "null"}]},
            "standing": {
                "anyOf": [
                    {
                        "type": "object",
                        "required": ["rank", "of", "total", "negatif", "percentage"],
                        "properties": {
                            "rank": _INT,
                            "of": _INT,
                            "total": _INT,
                            "negatif": _NEGATIF,
                            "percentage": _PERCENTAGE,
                        },
                    },
                    {"type": "null"},
                ]
            },
        },
    },
    "Standing": {
        "type": "object",
        "required": ["rank", "name", "total", "negatif", "percentage", "tops", "solos"],
        "properties": {
            "rank": _INT,
            "player_id": {"type": ["integer", "null"]},
            "name": _STR,
            "total": _INT,
            "negatif": _NEGATIF,
            "percentage": _PERCENTAGE,
            "tops": _INT,
            "solos": _INT,
            "warnings": _INT,
            "penalty": {"type": "integer", "description": "Points taken by penalties and warnings."},
            "bonus": {"type": "integer", "description": "Solo bonuses given, in all (not part of any round's score)."},
            "rounds": {
                "type": "array",
                "items": _INT,
                "description": "What each round added (score + bonus - penalty).",
            },
            "round_scores": {
                "type": "array",
                "items": _INT,
                "description": "Each round's score, its bonus and penalties apart (docs/rules.md §6.13).",
            },
        },
    },
    "Standings": {
        "type": "object",
        "required": ["standings", "top_total", *RECORDED_LEXICON],
        "properties": {
            "game_id": _INT,
            "status": _STR,
            **RECORDED_LEXICON,
            "rounds": {"type": "array", "items": _INT},
            "top_scores": {"type": "array", "items": _INT},
            "top_total": _INT,
            "standings": {"type": "array", "items": _ref("Standing")},
        },
    },
}

ARCHIVE_FILTERS: list[dict[str, Any]] = [
    {"name": "kind", "in": "query", "required": False,
     "description": "Only club games (`club`: no simultaneous game or tournament), rooms of simultaneous games"
                    " (`simultaneous`) or games of tournaments (`tournament`).",
     "schema": {"type": "string", "enum": ["club", "simultaneous", "tournament"]}},
    {"name": "rules", "in": "query", "required": False, "description": "Only games of these rules (`en`, `fr`).",
     "schema": {"type": "string"}},
    {"name": "lexicon", "in": "query", "required": False, "description": "Only games of this lexicon (its name).",
     "schema": {"type": "string", "maxLength": 80}},
    {"name": "director", "in": "query", "required": False, "description": "Only the games of this director.",
     "schema": {"type": "string", "maxLength": 80}},
    {"name": "date_from", "in": "query", "required": False, "description": "Games made on this day (UTC) or later.",
     "schema": {"type": "string", "format": "date"}},
    {"name": "date_to", "in": "query", "required": False, "description": "Games made on this day (UTC) or earlier.",
     "schema": {"type": "string", "format": "date"}},
    {"name": "min_players", "in": "query", "required": False, "description": "At least this many players.",
     "schema": {"type": "integer", "minimum": 0, "maximum": 100_000}},
    {"name": "max_players", "in": "query", "required": False, "description": "At most this many players.",
     "schema": {"type": "integer", "minimum": 0, "maximum": 100_000}},
    {"name": "page", "in": "query", "required": False,
     "schema": {"type": "integer", "minimum": 1, "maximum": 1_000_000, "default": 1}},
    {"name": "per_page", "in": "query", "required": False,
     "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 50}},
]  # fmt: skip
_ARCHIVED: dict[str, Any] = {
    "id": _INT,
    "code": {"type": "string", "description": "The game's join code, as its sheets name it."},
    "created_at": _TIME,
    "director": _STR,
    "rules": _STR,
    "lexicon": _STR,
    "lexicon_edition": {"type": ["string", "null"], "description": "The lexicon's edition, when the game recorded it."},
    "notation": {"enum": ["english", "french"]},
    "imposed_draws": {"type": "boolean"},
    "players": _INT,
    "top_total": _INT,
    "winners": {
        "type": "array",
        "description": "Everyone ranked first (several when tied).",
        "items": {
            "type": "object",
            "required": ["name", "total", "percentage"],
            "properties": {"name": _STR, "total": _INT, "percentage": _PERCENTAGE},
        },
    },
    "end_reason": {"type": ["string", "null"]},
}
SCHEMAS.update(
    {
        "ArchiveList": {
            "type": "object",
            "required": ["games", "total", "page", "per_page", "pages"],
            "properties": {
                "games": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": [*_ARCHIVED, "rounds", "url"],
                        "properties": {
                            **_ARCHIVED,
                            "rounds": {"type": "integer", "description": "Rounds played."},
                            "url": {"type": "string", "description": "The game's record (its rounds and standings)."},
                        },
                    },
                },
                "total": {"type": "integer", "description": "Games matching the filters, on every page."},
                "page": _INT,
                "per_page": _INT,
                "pages": _INT,
            },
        },
        "ArchivedGame": {
            "type": "object",
            "required": [*_ARCHIVED, "rounds", "standings", "exports"],
            "properties": {
                **_ARCHIVED,
                "rounds": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["number", "draw", "top", "top_score", "tops", "next_best", "found_by", "of"],
                        "properties": {
                            "number": _INT,
                            "draw": {"type": "string", "description": "RELIQUAT+NEW, rejected draws first with '-'."},
                            "top": {"type": "string", "description": "The top placed, in the game's notation."},
                            "top_score": _INT,
                            "tops": {"type": "array", "items": _STR, "description": "Every top, tie-break order."},
                            "next_best": {
                                "description": "The best play of a word other than the tops', and its score.",
                                "anyOf": [
                                    {
                                        "type": "object",
                                        "required": ["move", "score"],
                                        "properties": {"move": _STR, "score": _INT},
                                    },
                                    {"type": "null"},
                                ],
                            },
                            "found_by": {"type": "integer", "description": "Players who found the top (§6.11)."},
                            "of": {"type": "integer", "description": "The game's players in that round."},
                            "top_total": {"type": "integer", "description": "The running total of the tops."},
                        },
                    },
                },
                "standings": {"type": "array", "items": _ref("Standing")},
                "exports": {
                    "type": "object",
                    "description": "The game's downloads: standings as CSV, the GCG record, the round list.",
                    "required": ["csv", "gcg", "draws"],
                    "properties": {"csv": _STR, "gcg": _STR, "draws": _STR},
                },
            },
        },
    }
)

ERRORS = {
    400: "Malformed request (not a JSON object, bad query parameter).",
    401: "No token, or a token that is not valid.",
    403: "Not allowed with this token, or not yet.",
    404: "No such game or round.",
    409: "Not possible in the game's current state.",
    413: "The request body is too large.",
    429: "Too many refused attempts (join codes, logins) or plays: wait for the Retry-After seconds.",
    422: "A field is missing or has a wrong type or value; or the play breaks a placement rule.",
}

PATHS: dict[str, Any] = {
    "/api/auth/token": {
        "post": {
            "tags": ["auth"],
            "summary": "A director's bearer token",
            "security": [],
            "requestBody": _body("Credentials"),
            "responses": {**_ok("Token", "The token."), **_errors(400, 401, 413, 429)},
        }
    },
    "/api/games": {
        "post": {
            "tags": ["director"],
            "summary": "Create a game",
            "security": DIRECTOR,
            "requestBody": _body("NewGame"),
            "responses": {
                **_ok("GameCreated", "The game, with its join code and its seed.", "201"),
                **_errors(400, 401, 403, 413, 422),
            },
        }
    },
    "/api/join": {
        "post": {
            "tags": ["player"],
            "summary": "Join a game with its code",
            "security": [],
            "requestBody": _body("JoinRequest"),
            "responses": {
                **_ok("Joined", "The player and their token.", "201"),
                **_errors(400, 404, 409, 413, 422, 429),
            },
        }
    },
    "/api/games/{game_id}": {
        "get": {
            "tags": ["display"],
            "summary": "The game now",
            "security": [{}, {"directorToken": []}],
            "description": "No names or plays; the join code and seed only with the game's director token.",
            "parameters": [GAME_ID],
            "responses": {**_ok("GameState", "The game."), **_errors(404)},
        }
    },
    "/api/games/{game_id}/start": _director_action("Start the game", "Draws and opens round 1."),
    "/api/games/{game_id}/pause": _director_action("Pause the round", "The time left is kept."),
    "/api/games/{game_id}/resume": _director_action("Resume the round", "The deadline is now + the time left."),
    "/api/games/{game_id}/close": _director_action("Close the round now", "Scores it and places the top."),
    "/api/games/{game_id}/next": _director_action(
        "Start the next round", "After a reveal; finishes the game when section 6 says so."
    ),
    "/api/games/{game_id}/end": _director_action(
        "End the game now", "A round in play is closed and scored first; end_reason is director."
    ),
    "/api/games/{game_id}/extend": _director_action("Give the round more time", "Also while paused.", "ExtendRequest"),
    "/api/games/{game_id}/lock": _director_action(
        "Close the room to new players", "Joins are refused (403) until it is opened again; players stay."
    ),
    "/api/games/{game_id}/unlock": _director_action("Open the room to new players again", "Joins are taken again."),
    "/api/games/{game_id}/players": {
        "get": {
            "tags": ["director"],
            "summary": "The game's players",
            "security": DIRECTOR,
            "parameters": [GAME_ID],
            "responses": {**_ok("PlayerList", "Every player, by joining order."), **_errors(401, 403, 404)},
        }
    },
    "/api/games/{game_id}/players/{player_id}/name": {
        "post": {
            "tags": ["director"],
            "summary": "Rename a player",
            "description": "The rules of a join apply: no name that reads like another player's (case, accents,"
            " look-alike letters). The player's plays stay theirs.",
            "security": DIRECTOR,
            "parameters": [GAME_ID, PLAYER_ID],
            "requestBody": _body("RenameRequest"),
            "responses": {**_ok("PlayerEntry", "The player renamed."), **_errors(400, 401, 403, 404, 409, 413, 422)},
        }
    },
    "/api/games/{game_id}/players/{player_id}": {
        "delete": {
            "tags": ["director"],
            "summary": "Remove a player",
            "description": "Their token stops working; their plays, results and corrections are removed.",
            "security": DIRECTOR,
            "parameters": [GAME_ID, PLAYER_ID],
            "responses": {"204": {"description": "Removed."}, **_errors(401, 403, 404)},
        }
    },
    "/api/games/{game_id}/rounds/{number}/top": {
        "post": {
            **_director_action("Place another top", "During the round's reveal, before the next round.", "TopRequest")[
                "post"
            ],
            "parameters": [GAME_ID, ROUND],
        }
    },
    "/api/games/{game_id}/rounds/{number}/corrections": {
        "post": {
            "tags": ["director"],
            "summary": "Correct a player's round score",
            "description": "Kept with its reason and author; never overwrites the submission.",
            "security": DIRECTOR,
            "parameters": [GAME_ID, ROUND],
            "requestBody": _body("CorrectionRequest"),
            "responses": {
                **_ok("RoundDetails", "The round with the correction applied.", "201"),
                **_errors(400, 401, 403, 404, 409, 413, 422, 429),
            },
        }
    },
    "/api/games/{game_id}/rounds/{number}/rulings": {
        "post": {
            "tags": ["director"],
            "summary": "Warn, penalise, grant or withdraw a solo",
            "description": "On a closed round, with its reason (at most 200 characters); logged (`ruled`) and kept. "
            "From the free warnings on, each warning costs the game's `warning_penalty` (docs/rules.md §6.19). A "
            "player is given at most 20 rulings in a round, cancelled ones included (409 `too_many_rulings`).",
            "security": DIRECTOR,
            "parameters": [GAME_ID, ROUND],
            "requestBody": _body("RulingRequest"),
            "responses": {
                **_ok("RoundDetails", "The round with the ruling applied.", "201"),
                **_errors(400, 401, 403, 404, 409, 413, 422, 429),
            },
        }
    },
    "/api/games/{game_id}/rulings/{ruling_id}/cancel": {
        "post": {
            "tags": ["director"],
            "summary": "Cancel a ruling given by mistake",
            "description": "The ruling stays in the record, marked cancelled (`ruling_cancelled`); it counts no more.",
            "security": DIRECTOR,
            "parameters": [
                GAME_ID,
                {"name": "ruling_id", "in": "path", "required": True, "schema": {"type": "integer"}},
            ],
            "requestBody": _body("CancelRequest"),
            "responses": {
                "204": {"description": "Cancelled."},
                **_errors(400, 401, 403, 404, 409, 413, 422, 429),
            },
        }
    },
    "/api/competitions": {
        "post": {
            "tags": ["director"],
            "summary": "Make a simultaneous game (from your game in its lobby) or a tournament",
            "description": "docs/rules.md §6.22–6.23.",
            "security": DIRECTOR,
            "requestBody": _body("CompetitionRequest"),
            "responses": {
                **_ok("Competition", "Made; its code opens rooms.", "201"),
                **_errors(400, 401, 403, 404, 409, 413, 422, 429),
            },
        }
    },
    "/api/competitions/{code}/rooms": {
        "post": {
            "tags": ["director"],
            "summary": "Open your room in a simultaneous game",
            "description": "A game of yours with the event's settings and draw (its own code, projector, clock). "
            "The body is optional: `room_name`, the room's name on the ranking.",
            "security": DIRECTOR,
            "parameters": [COMPETITION_CODE],
            "requestBody": {**_body("RoomRequest"), "required": False},
            "responses": {
                **_ok("GameCreated", "The room.", "201"),
                **_errors(400, 401, 403, 404, 409, 413, 422, 429),
            },
        }
    },
    "/api/games/{game_id}/room-name": {
        "post": {
            "tags": ["director"],
            "summary": "Name your room of a simultaneous game on its ranking",
            "description": "Your club's name, shown on the event's public ranking instead of a code "
            "(docs/rules.md §6.22); null or empty gives back the default, Room n. Two rooms of an event cannot "
            "have names that read the same, and a name cannot be a join code.",
            "security": DIRECTOR,
            "parameters": [GAME_ID],
            "requestBody": _body("RoomRequest"),
            "responses": {
                **_ok("RoomName", "Named."),
                **_errors(400, 401, 403, 404, 409, 413, 422, 429),
            },
        }
    },
    "/api/competitions/{code}/games": {
        "post": {
            "tags": ["director"],
            "summary": "Add one of your games to your tournament (the next game of it)",
            "security": DIRECTOR,
            "parameters": [COMPETITION_CODE],
            "requestBody": _body("CompetitionGameRequest"),
            "responses": {
                **_ok("Competition", "Added.", "201"),
                **_errors(400, 401, 403, 404, 409, 413, 422, 429),
            },
        }
    },
    "/api/competitions/{code}/ranking": {
        "get": {
            "tags": ["display"],
            "summary": "The ranking of a simultaneous game or a tournament",
            "description": "A simultaneous game counts the rounds every room has closed; a tournament its finished "
            "games. A solo counts only when one player of the whole event found the top.",
            "parameters": [COMPETITION_CODE],
            "responses": {**_ok("CompetitionRanking", "Best first."), **_errors(404, 409)},
        }
    },
    "/api/games/{game_id}/bulletins": {
        "post": {
            "tags": ["director"],
            "summary": "Enter a paper bulletin",
            "description": "For a player without a phone (docs/rules.md §6.21): `player` is a table number or a name; "
            "a phone player's plays come only from their phone (403 `not_paper_player`). "
            "Taken in the round being played, with the time it is entered; after the close, only for the round just "
            "closed, until the next round opens, for a player who was in it, and with `declared_on_time` (the "
            "arbiter's word that the slip was handed in before the deadline). The game's director or one of their "
            "assistant arbiters.",
            "security": DIRECTOR,
            "parameters": [GAME_ID],
            "requestBody": _body("BulletinRequest"),
            "responses": {
                "201": {
                    "description": "Taken.",
                    "content": {"application/json": {"schema": _ref("Bulletin")}},
                },
                **_errors(400, 401, 403, 404, 409, 413, 422, 429),
            },
        }
    },
    "/api/games/{game_id}/paper-players": {
        "post": {
            "tags": ["director"],
            "summary": "Add a player without a phone, at a numbered table",
            "security": DIRECTOR,
            "parameters": [GAME_ID],
            "requestBody": _body("PaperPlayerRequest"),
            "responses": {
                "201": {
                    "description": "Added.",
                    "content": {"application/json": {"schema": _ref("PaperPlayer")}},
                },
                **_errors(400, 401, 403, 404, 409, 413, 422, 429),
            },
        }
    },
    "/api/games/{game_id}/rounds/{number}/plays": {
        "post": {
            "tags": ["player"],
            "summary": "Hand in a play (the last one counts)",
            "security": PLAYER,
            "parameters": [GAME_ID, ROUND],
            "description": "In a topping game (docs/rules.md §6.26) plays may be handed in until one is a top: the "
            "answer says whether it is (ClubToppingPlay), without its score.",
            "requestBody": _body("PlayRequest"),
            "responses": {
                **_ok("PlayAnswer", "Recorded (committed) with its score as placed; in a topping game, a top or not."),
                **_errors(400, 401, 403, 404, 409, 413, 422, 429),
            },
        }
    },
    "/api/games/{game_id}/rounds/{number}/hints": {
        "post": {
            "tags": ["player"],
            "summary": "Take a hint about the round's top (topping games)",
            "description": "Each hint costs its seconds (docs/rules.md §6.26); length, direction and square once a "
            "round, a letter again and again (the next one from the left) until all but one are shown. Refused once "
            "the player has found the top (409).",
            "security": PLAYER,
            "parameters": [GAME_ID, ROUND],
            "requestBody": _body("ClubHintRequest"),
            "responses": {
                **_ok("ClubHint", "What the hint reveals, and its cost."),
                **_errors(400, 401, 403, 404, 409, 413, 422, 429),
            },
        }
    },
    "/api/games/{game_id}/topping": {
        "get": {
            "tags": ["display"],
            "summary": "A topping game's ranking by time",
            "description": "Total seconds per player and each closed round's figures: found, seconds to the top, "
            "wrong plays, hints, what the round cost (docs/rules.md §6.26). 409 for a game of another mode.",
            "security": [],
            "parameters": [GAME_ID],
            "responses": {**_ok("ClubToppingStandings", "Fewest seconds first."), **_errors(403, 404, 409)},
        }
    },
    "/api/games/{game_id}/rounds/{number}": {
        "get": {
            "tags": ["display"],
            "summary": "A closed round's results",
            "security": [],
            "parameters": [GAME_ID, ROUND],
            "responses": {**_ok("RoundDetails", "The round."), **_errors(403, 404)},
        }
    },
    "/api/games/{game_id}/rounds/{number}/me": {
        "get": {
            "tags": ["player"],
            "summary": "A closed round as the player sees it (small: what a phone reads at the reveal)",
            "security": PLAYER,
            "parameters": [GAME_ID, ROUND],
            "responses": {**_ok("MyRound", "The tops, the player's own result and place."), **_errors(401, 403, 404)},
        }
    },
    "/api/games/{game_id}/standings": {
        "get": {
            "tags": ["display"],
            "summary": "The standings",
            "security": [],
            "parameters": [GAME_ID],
            "responses": {**_ok("Standings", "Best first; ties share a rank."), **_errors(404)},
        }
    },
    "/api/games/{game_id}/events": {
        "get": {
            "tags": ["display"],
            "summary": "Server-Sent Events of the game",
            "security": [],
            "description": (
                "Named events (`event:` is the kind: created, joined, round_started, submission, paused, "
                "resumed, extended, round_closed, placed, corrected, ruled, ruling_cancelled, finished), each with "
                "its `id:`; the "
                "data is a JSON object with `id`, `kind`, `at` and the event's fields (a ruling's own kind is "
                "`ruling_kind`: the data never overwrites `id`, `kind`, `at` or `by`). Submissions carry "
                "only counts; `quiet=1` leaves out the per-player events (joined, submission). Every 15 s a "
                "`heartbeat` event without id (data `{}`) says the connection is alive; the stream ends after "
                "`timeout` seconds "
                "and clients reconnect with Last-Event-ID."
            ),
            "parameters": [
                GAME_ID,
                {"name": "Last-Event-ID", "in": "header", "required": False, "schema": {"type": "string"}},
                {
                    "name": "last_event_id",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "integer", "minimum": 0},
                },
                {
                    "name": "timeout",
                    "in": "query",
                    "required": False,
                    "schema": {"type": "number", "minimum": 0, "maximum": 600, "default": 300},
                },
                {"name": "quiet", "in": "query", "required": False, "schema": {"type": "integer", "enum": [0, 1]}},
            ],
            "responses": {
                "200": {
                    "description": "The event stream.",
                    "content": {"text/event-stream": {"schema": {"type": "string"}}},
                },
                **_errors(400, 404),
            },
        }
    },
    "/api/games/{game_id}/export.csv": {
        "get": {
            "tags": ["display"],
            "summary": "Standings and per-round scores as CSV",
            "description": "A header row, a `(top)` row, then one row per player, best first: rank, name, total, "
            "négatif, percentage, tops, solos, bonus, warnings, penalty, one column per round (its score), and the "
            "game's `lexicon` and its `edition` (the same on every row).",
            "security": [],
            "parameters": [GAME_ID],
            "responses": {
                "200": {"description": "CSV.", "content": {"text/csv": {"schema": {"type": "string"}}}},
                **_errors(404),
            },
        }
    },
    "/api/games/{game_id}/export.gcg": {
        "get": {
            "tags": ["display"],
            "summary": "The placed plays as a GCG record",
            "description": "One player, `Top`: each closed round's rack and placed play, with a `#note` giving its "
            "draw. `#lexicon` names the game's lexicon; its edition is in `#description`.",
            "security": [],
            "parameters": [GAME_ID],
            "responses": {
                "200": {"description": "GCG.", "content": {"application/x-gcg": {"schema": {"type": "string"}}}},
                **_errors(404),
            },
        }
    },
    "/api/games/{game_id}/draws.txt": {
        "get": {
            "tags": ["display"],
            "summary": "The closed rounds' draws, one a line",
            "description": "Each closed round's draw as docs/rules.md §6.3 writes it (`RELIQUAT+NEW`, a rejected rack "
            "first with a `-`), after `#` comments naming the game: given as a new game's `draws`, it plays the "
            "same racks (§6.18).",
            "security": [],
            "parameters": [GAME_ID],
            "responses": {
                "200": {"description": "Text.", "content": {"text/plain": {"schema": {"type": "string"}}}},
                **_errors(403, 404),
            },
        }
    },
    "/api/archives": {
        "get": {
            "tags": ["archives"],
            "summary": "The finished games, newest first, a page at a time",
            "description": "Every finished game that played a round, with the filters given (an empty value is no "
            "filter). A game whose draw another game still being played has not caught up with (a replay, another room "
            "of its simultaneous game) is left out until it has (docs/rules.md §6.4). A filter that cannot be read is "
            "a 400 naming it.",
            "security": [],
            "parameters": ARCHIVE_FILTERS,
            "responses": {**_ok("ArchiveList", "A page of the archive."), **_errors(400)},
        }
    },
    "/api/archives/{game_id}": {
        "get": {
            "tags": ["archives"],
            "summary": "An archived game: its rounds and its standings",
            "description": "Each round's draw, top, next best play and how many found the top; the standings; the "
            "downloads. 404 for a game that is not over; 403 while another game of its draw is behind it (§6.4).",
            "security": [],
            "parameters": [GAME_ID],
            "responses": {**_ok("ArchivedGame", "The game."), **_errors(403, 404)},
        }
    },
    "/api/openapi.json": {
        "get": {
            "tags": ["meta"],
            "summary": "This document",
            "security": [],
            "responses": {"200": {"description": "OpenAPI 3.1.", "content": {JSON: {"schema": {"type": "object"}}}}},
        }
    },
}

# A learner's own history (docs/rules.md §6.25): a token of their word-study account, GET /api/me/history.
LEARNER: list[dict[str, list[str]]] = [{"learnerToken": []}]
SCHEMAS.update(
    {
        "HistoryGame": {
            "type": "object",
            "required": ["id", "played_at", "lexicon", "total", "top_total", "percentage", "rank", "players", "rounds"],
            "properties": {
                "id": {"type": "integer"},
                "played_at": {"type": "string", "format": "date-time", "description": "Its last round's close."},
                "lexicon": _STR,
                "total": {"type": "integer"},
                "top_total": {"type": "integer"},
                "percentage": {"type": "number", "description": "Of the top total, two decimals (§6.13)."},
                "rank": {"type": ["integer", "null"]},
                "players": {"type": "integer"},
                "rounds": {"type": "integer"},
                "url": {"type": "string", "description": "The game in the archive."},
            },
        },
        "History": {
            "type": "object",
            "required": ["games", "last", "lost", "losses"],
            "properties": {
                "games": {"type": "array", "items": _ref("HistoryGame"), "description": "Oldest first."},
                "last": {"type": "integer", "description": "The games the breakdown looks back on."},
                "lost": {"type": "integer", "description": "Points lost in those games."},
                "losses": {
                    "type": "array",
                    "description": "Points lost by cause, in the order the causes are tried (§6.25).",
                    "items": {
                        "type": "object",
                        "required": ["cause", "points", "rounds"],
                        "properties": {
                            "cause": {"enum": ["missing", "invalid", "same_word", "bingo", "hook", "premium", "lower"]},
                            "points": {"type": "integer"},
                            "rounds": {"type": "integer"},
                        },
                    },
                },
            },
        },
    }
)
PATHS.update(
    {
        "/api/auth/learner-token": {
            "post": {
                "tags": ["auth"],
                "summary": "A learner's bearer token (their word-study account)",
                "description": "Valid 30 days, or until the password changes. It reads the learner's own history.",
                "security": [],
                "requestBody": _body("Credentials"),
                "responses": {**_ok("Token", "The token."), **_errors(400, 401, 413, 429)},
            }
        },
        "/api/me/history": {
            "get": {
                "tags": ["history"],
                "summary": "The learner's history: every finished game and the points lost by cause",
                "description": "The games of the players linked to the learner's account (docs/rules.md §6.25), with "
                "total, top total, percentage and rank; the points lost over the last `last` games (default 10).",
                "security": LEARNER,
                "parameters": [
                    {
                        "name": "last",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 10},
                    }
                ],
                "responses": {**_ok("History", "The history."), **_errors(401)},
            }
        },
    }
)

# Topping alone (docs/rules.md §6.28): a learner's sessions, with a learner token.
_SECONDS = {"type": "number", "description": "Seconds, to the tenth."}
_NULL_SECONDS = {"type": ["number", "null"], "description": "Seconds, to the tenth."}
_COST = {"type": "integer", "minimum": 0, "maximum": 3600}
_ROUND_NUMBER = {"type": "integer", "minimum": 1, "description": "The round, from 1: the one being played."}
TOPPING_SESSION_ID = {
    "name": "session_id",
    "in": "path",
    "required": True,
    "description": "A topping session's id: a random number below 2**53.",
    "schema": {"type": "integer", "minimum": 1, "maximum": MAX_GAME_ID},
}
SCHEMAS.update(
    {
        "ToppingCosts": {
            "type": "object",
            "additionalProperties": False,
            "description": "Whole seconds (docs/rules.md §6.26); each field optional, defaults: limit_seconds 180, "
            "penalty_seconds 60, wrong_play_seconds 10, length 10, direction 10, square 20, letter 15.",
            "properties": {
                "limit_seconds": {**_COST, "minimum": 10},
                "penalty_seconds": _COST,
                "wrong_play_seconds": {**_COST, "maximum": 600},
                "length": {**_COST, "maximum": 600},
                "direction": {**_COST, "maximum": 600},
                "square": {**_COST, "maximum": 600},
                "letter": {**_COST, "maximum": 600},
            },
        },
        "ToppingStart": {
            "type": "object",
            "description": "`game`: an archived game's id, its rounds replayed; or `settings` for a fresh draw "
            "(GameSettings: rules, lexicon, variant, max_rounds...; a new seed is always drawn). `costs`: optional.",
            "properties": {
                "game": {"type": "integer"},
                "settings": _ref("GameSettings"),
                "costs": _ref("ToppingCosts"),
            },
        },
        "ToppingRoundRequest": {
            "type": "object",
            "required": ["round"],
            "properties": {"round": _ROUND_NUMBER},
        },
        "ToppingPlayRequest": {
            "type": "object",
            "required": ["round", "play"],
            "properties": {
                "round": _ROUND_NUMBER,
                "play": {"type": "string", "maxLength": 40, "examples": ["8D WORD"]},
            },
        },
        "ToppingHintRequest": {
            "type": "object",
            "required": ["round", "kind"],
            "properties": {"round": _ROUND_NUMBER, "kind": {"enum": ["length", "direction", "square", "letter"]}},
        },
        "ToppingHint": {
            "type": "object",
            "required": ["kind", "value", "seconds"],
            "properties": {
                "kind": {"enum": ["length", "direction", "square", "letter"]},
                "value": {"type": ["integer", "string"], "description": "A length, across/down, a square, a letter."},
                "position": {"type": ["integer", "null"], "description": "A letter's place in the word, from 1."},
                "seconds": _SECONDS,
                "text": _STR,
            },
        },
        "ToppingRound": {
            "type": "object",
            "description": "While `over` is false: no top, no score and no seconds (only what the hints showed).",
            "required": ["number", "rack", "board", "shown_at", "elapsed", "limit_seconds", "over", "hints"],
            "properties": {
                "number": _INT,
                "rack": _STR,
                "board": {"type": "array", "items": _STR},
                "shown_at": _TIME,
                "deadline": _TIME,
                "elapsed": {**_SECONDS, "description": "Seconds on the server's clock since the round was shown."},
                "limit_seconds": _INT,
                "over": {"type": "boolean"},
                "hints": {"type": "array", "items": _ref("ToppingHint")},
                "wrong_plays": {
                    "type": "array",
                    "description": "Plays that were not the top, with what each cost.",
                    "items": {"type": "object", "properties": {"move": _STR, "seconds": _SECONDS}},
                },
                "more_letters": {
                    "type": "boolean",
                    "description": "Whether a letter hint may still be taken (never how many: that tells the length).",
                },
                "found": {"type": ["boolean", "null"]},
                "move": {"type": ["string", "null"], "description": "The top handed in, once found."},
                "seconds": _NULL_SECONDS,
                "breakdown": {
                    "type": ["object", "null"],
                    "properties": {
                        "clock": _SECONDS,
                        "penalty": _INT,
                        "wrong_plays": _INT,
                        "wrong_seconds": _INT,
                        "hints_seconds": _INT,
                    },
                },
                "reveal": {
                    "type": ["object", "null"],
                    "properties": {
                        "top_score": _INT,
                        "tops": {"type": "array", "items": _STR},
                        "placed": _STR,
                        "next_best": {
                            "type": "array",
                            "items": {"type": "object", "properties": {"word": _STR, "score": _INT}},
                        },
                    },
                },
            },
        },
        "ToppingSummary": {
            "type": "object",
            "required": ["id", "status", "round", "rounds_played", "seconds"],
            "properties": {
                "id": _INT,
                "status": {"enum": ["playing", "finished"]},
                "source_game": {"type": ["integer", "null"]},
                "rules": _STR,
                "lexicon": _STR,
                "variant": {"enum": ["classic", "joker"]},
                "round": _INT,
                "rounds_total": {"type": ["integer", "null"]},
                "rounds_played": _INT,
                "seconds": _SECONDS,
                "created_at": _TIME,
                "finished_at": _TIME,
            },
        },
        "ToppingSession": {
            "allOf": [_ref("ToppingSummary")],
            "type": "object",
            "required": ["costs", "current", "rounds", "average", "result"],
            "properties": {
                "notation": _STR,
                "costs": _ref("ToppingCosts"),
                "current": {"oneOf": [_ref("ToppingRound"), {"type": "null"}]},
                "rounds": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"number": _INT, "seconds": _SECONDS, "found": {"type": "boolean"}},
                    },
                },
                "average": _SECONDS,
                "result": {
                    "type": ["object", "null"],
                    "description": "Once finished: the figures, and the records they set (docs/rules.md §6.28).",
                    "properties": {
                        "total": _SECONDS,
                        "average": _SECONDS,
                        "rounds": _INT,
                        "found": _INT,
                        "game_record_before": _NULL_SECONDS,
                        "overall_record_before": _NULL_SECONDS,
                        "new_game_record": {"type": "boolean"},
                        "new_overall_record": {"type": "boolean"},
                        "new_record": {"type": "boolean"},
                    },
                },
                "play": {
                    "type": "object",
                    "description": "After a play: whether it was the top, and what a wrong one cost.",
                    "properties": {"move": _STR, "top": {"type": "boolean"}, "seconds": _SECONDS},
                },
                "hint": _ref("ToppingHint"),
            },
        },
        "ToppingRecords": {
            "type": "object",
            "required": ["overall", "games"],
            "properties": {
                "overall": {**_NULL_SECONDS, "description": "Best average per round, sessions of min_rounds or more."},
                "overall_session": {"type": ["integer", "null"]},
                "min_rounds": _INT,
                "games": {
                    "type": "array",
                    "description": "Each game's best total, the game played last first.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "source_game": {"type": ["integer", "null"]},
                            "rounds": _INT,
                            "seconds": _SECONDS,
                            "sessions": _INT,
                            "session": _INT,
                        },
                    },
                },
            },
        },
        "ToppingList": {
            "type": "object",
            "required": ["sessions", "records"],
            "properties": {
                "sessions": {"type": "array", "items": _ref("ToppingSummary")},
                "records": _ref("ToppingRecords"),
            },
        },
    }
)


def _topping_action(summary: str, description: str, body: str | None) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "tags": ["topping"],
        "summary": summary,
        "description": description,
        "security": LEARNER,
        "parameters": [TOPPING_SESSION_ID],
        "responses": {**_ok("ToppingSession", "The session after it."), **_errors(400, 401, 404, 409, 413, 422)},
    }
    if body is not None:
        operation["requestBody"] = _body(body)
    return {"post": operation}


PATHS.update(
    {
        "/api/topping": {
            "post": {
                "tags": ["topping"],
                "summary": "Start a topping session alone, on an archived game or a fresh draw",
                "description": "docs/rules.md §6.28. Each round's limit is `costs.limit_seconds`; the first round's "
                "clock starts when the session is first read.",
                "security": LEARNER,
                "requestBody": _body("ToppingStart"),
                "responses": {
                    **_ok("ToppingSession", "The session, its first round shown.", "201"),
                    **_errors(400, 401, 403, 404, 409, 413, 422),
                },
            },
            "get": {
                "tags": ["topping"],
                "summary": "The learner's topping sessions (in play first) and records",
                "description": "docs/rules.md §6.28: the best total per game, the best average over finished "
                "sessions of at least five rounds.",
                "security": LEARNER,
                "responses": {**_ok("ToppingList", "The sessions and the records."), **_errors(401)},
            },
        },
        "/api/topping/{session_id}": {
            "get": {
                "tags": ["topping"],
                "summary": "A topping session: its current round, its rounds over, and at the end the records set",
                "description": "Reading it shows the first round (its clock starts) and ends a round whose limit "
                "has passed. A round in play shows no top: only the hints taken.",
                "security": LEARNER,
                "parameters": [TOPPING_SESSION_ID],
                "responses": {**_ok("ToppingSession", "The session."), **_errors(401, 404)},
            }
        },
        "/api/topping/{session_id}/play": _topping_action(
            "Hand in a play for the round",
            "A top ends the round, found, on the server's clock; another legal play is a wrong play "
            "(`play.top` false), costing `wrong_play_seconds`; the same wrong play again is refused (409). An "
            "illegal placement is refused (422) and costs nothing.",
            "ToppingPlayRequest",
        ),
        "/api/topping/{session_id}/hint": _topping_action(
            "Take a hint on the round's top",
            "length, direction, square (once each a round) or letter (the next letter of the word, all but one); "
            "refused when taken (409) or when no more letter can be shown (409).",
            "ToppingHintRequest",
        ),
        "/api/topping/{session_id}/give-up": _topping_action(
            "Give up the round",
            "The round ends, not found: it costs the limit and the penalty, its wrong plays and hints.",
            "ToppingRoundRequest",
        ),
        "/api/topping/{session_id}/next": _topping_action(
            "Go on to the next round",
            "Once the round is over (409 before); at the last round the session finishes and `result` says "
            "whether it set a record.",
            None,
        ),
        "/api/topping/{session_id}/stop": _topping_action(
            "Stop the session here",
            "Once the round shown is over (409 before): the session finishes with the rounds played. A stopped "
            "session counts for the overall record with five rounds or more, never for its game's record "
            "(docs/rules.md §6.28).",
            None,
        ),
    }
)
# A learner's solo duplicate practice (docs/rules.md §6.27), with the learner's token.
PRACTICE_ID = {
    "name": "session_id",
    "in": "path",
    "required": True,
    "description": "A practice session's id: a random number below 2**53, as a game's.",
    "schema": {"type": "integer", "minimum": 1, "maximum": MAX_GAME_ID},
}
_NULL_INT = {"type": ["integer", "null"]}
SCHEMAS.update(
    {
        "NewPractice": {
            "type": "object",
            "properties": {
                "kind": {"enum": ["solo"], "default": "solo"},
                "game": {"type": "integer", "description": "An archived game to replay (its id in the archive)."},
                "settings": {
                    **_ref("GameSettings"),
                    "description": "Without `game`: a fresh draw's settings, checked as a game's (§6.14); its seed "
                    "is always new (a `seed` or imposed draws are ignored).",
                },
                "timed": {
                    "type": "boolean",
                    "default": True,
                    "description": "Play on the game's clock (a replay: the archived game's round time); false: "
                    "untimed.",
                },
            },
        },
        "PracticeSummary": {
            "type": "object",
            "required": [
                "id",
                "kind",
                "source_game",
                "status",
                "round",
                "rounds_total",
                "rounds_played",
                "total",
                "top_total",
                "timed",
                "round_seconds",
            ],
            "properties": {
                "id": _INT,
                "kind": {"enum": ["solo", "topping"]},
                "source_game": {**_NULL_INT, "description": "The archived game replayed; null for a fresh draw."},
                "rules": _STR,
                "lexicon": _STR,
                "variant": {"enum": ["classic", "joker"]},
                "timed": {"type": "boolean"},
                "round_seconds": _NULL_INT,
                "status": {"enum": ["playing", "finished"]},
                "round": {"type": "integer", "description": "The round shown last (0: none yet)."},
                "rounds_total": {**_NULL_INT, "description": "Known for a replay; a fresh draw's once it ends."},
                "rounds_played": _INT,
                "total": _INT,
                "top_total": {"type": "integer", "description": "The tops' total over the rounds played."},
                "seconds": {"type": "number"},
                "created_at": _STR,
                "finished_at": {"type": ["string", "null"]},
            },
        },
        "PracticeList": {
            "type": "object",
            "required": ["sessions"],
            "properties": {"sessions": {"type": "array", "items": _ref("PracticeSummary")}},
        },
        "PracticeRound": {
            "type": "object",
            "description": "The round being played: never its tops.",
            "required": ["number", "rack", "board", "deadline", "seconds_left"],
            "properties": {
                "number": _INT,
                "rack": {"type": "string", "description": "? is a blank."},
                "board": {"type": "array", "items": _STR, "description": "The board's rows, `.` an empty square."},
                "shown_at": _TIME,
                "deadline": {**_TIME, "description": "A timed round's end (ISO 8601, UTC); null: untimed."},
                "seconds_left": {"type": ["number", "null"]},
            },
        },
        "PracticeReveal": {
            "type": "object",
            "description": "The round once the learner has answered it (or its clock ran out).",
            "required": ["number", "top_score", "tops", "placed", "next_best", "play", "score", "late"],
            "properties": {
                "number": _INT,
                "rack": _STR,
                "top_score": _INT,
                "tops": {"type": "array", "items": _STR},
                "placed": {"type": "string", "description": "The top placed on the board."},
                "next_best": {
                    "type": "array",
                    "description": "The best distinct words after the tops, each at its best placement (§6.1).",
                    "items": {
                        "type": "object",
                        "required": ["play", "score"],
                        "properties": {"play": _STR, "score": _INT},
                    },
                },
                "play": {"type": ["string", "null"], "description": "The learner's play; null: none (or too late)."},
                "score": {"type": "integer", "description": "What it counts: 0 when invalid, late or missing."},
                "valid": {"type": ["boolean", "null"]},
                "invalid_words": {"type": "array", "items": _STR},
                "rank": {**_NULL_INT, "description": "Among the round's legal plays (§6.10)."},
                "late": {"type": "boolean", "description": "Handed in after the deadline and its grace: 0 (§6.6)."},
            },
        },
        "PracticePlacement": {
            "type": "object",
            "description": "A replay: the original room's standings after the rounds the learner played, the learner "
            "placed in them.",
            "required": ["rounds", "total", "top_total", "rank", "of", "standings"],
            "properties": {
                "rounds": _INT,
                "total": _INT,
                "top_total": _INT,
                "rank": {"type": "integer", "description": "1 + the room's players with more points."},
                "of": {"type": "integer", "description": "The room's players and the learner."},
                "standings": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["name", "total", "rank", "you"],
                        "properties": {
                            "name": {"type": ["string", "null"]},
                            "total": _INT,
                            "rank": _INT,
                            "you": {"type": "boolean"},
                        },
                    },
                },
            },
        },
        "PracticeState": {
            "type": "object",
            "required": ["session", "round", "reveal", "rounds", "placement"],
            "properties": {
                "session": _ref("PracticeSummary"),
                "round": {"oneOf": [_ref("PracticeRound"), {"type": "null"}]},
                "reveal": {"oneOf": [_ref("PracticeReveal"), {"type": "null"}]},
                "rounds": {
                    "type": "array",
                    "description": "The rounds answered, in order.",
                    "items": {
                        "type": "object",
                        "required": ["number", "play", "score", "top", "top_score"],
                        "properties": {
                            "number": _INT,
                            "play": {"type": ["string", "null"]},
                            "score": _INT,
                            "top": _STR,
                            "top_score": _INT,
                        },
                    },
                },
                "placement": {"oneOf": [_ref("PracticePlacement"), {"type": "null"}]},
            },
        },
        "PracticeAnswer": {
            "type": "object",
            "required": ["round"],
            "properties": {
                "round": {"type": "integer", "minimum": 1},
                "play": {
                    "type": ["string", "null"],
                    "maxLength": 40,
                    "description": "Like 8D WORD; empty or null: pass.",
                },
            },
        },
    }
)
PATHS.update(
    {
        "/api/practice": {
            "post": {
                "tags": ["practice"],
                "summary": "Start solo practice: an archived game replayed, or a fresh draw",
                "description": "docs/rules.md §6.27. A replay copies the archived game's rounds (refused while its "
                "draw is being played elsewhere, §6.4); a fresh draw works each round out ahead of the learner. The "
                "first round is shown (its clock starts) when the state is first read.",
                "security": LEARNER,
                "requestBody": _body("NewPractice"),
                "responses": {
                    **_ok("PracticeState", "The new session.", "201"),
                    **_errors(400, 401, 403, 404, 409, 413, 422),
                },
            },
            "get": {
                "tags": ["practice"],
                "summary": "The learner's solo practice sessions",
                "security": LEARNER,
                "responses": {**_ok("PracticeList", "In play first, then finished; newest first."), **_errors(401)},
            },
        },
        "/api/practice/{session_id}": {
            "get": {
                "tags": ["practice"],
                "summary": "A session: the round being played (without its tops), or the last round's reveal",
                "description": "Reading it resumes the session where it was: a timed round whose clock ran out "
                "meanwhile is over (no play, 0). Another learner's session is 404.",
                "security": LEARNER,
                "parameters": [PRACTICE_ID],
                "responses": {**_ok("PracticeState", "The session."), **_errors(401, 404, 409)},
            }
        },
        "/api/practice/{session_id}/answer": {
            "post": {
                "tags": ["practice"],
                "summary": "Answer the round being played (one play a round)",
                "description": "Judged as in a club (§6.27): a placement the rules refuse is refused (422, nothing "
                "counted); a word not in the lexicon counts 0; a play after the deadline and its grace counts 0.",
                "security": LEARNER,
                "parameters": [PRACTICE_ID],
                "requestBody": _body("PracticeAnswer"),
                "responses": {
                    **_ok("PracticeState", "The session with the round's reveal."),
                    **_errors(400, 401, 404, 409, 413, 422),
                },
            }
        },
        "/api/practice/{session_id}/next": {
            "post": {
                "tags": ["practice"],
                "summary": "Move on to the next round (its clock starts), or end the session after the last",
                "security": LEARNER,
                "parameters": [PRACTICE_ID],
                "responses": {**_ok("PracticeState", "The session."), **_errors(401, 404, 409)},
            }
        },
        "/api/practice/{session_id}/stop": {
            "post": {
                "tags": ["practice"],
                "summary": "Stop the session here, once the round shown is over (409 before): the result counts the "
                "rounds played (docs/rules.md §6.27)",
                "security": LEARNER,
                "parameters": [PRACTICE_ID],
                "responses": {**_ok("PracticeState", "The session, finished."), **_errors(401, 404, 409)},
            }
        },
    }
)


def document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Tirage duplicate games API",
            "version": "1.0.0",
            "description": "Duplicate Scrabble games run by the server (docs/rules.md §6). "
            'Errors are JSON objects {"error": "..."}.',
        },
        "paths": PATHS,
        "components": {
            "schemas": SCHEMAS,
            "responses": {
                f"E{status}": {"description": text, "content": {JSON: {"schema": _ref("Error")}}}
                for status, text in ERRORS.items()
            },
            "securitySchemes": {
                "directorToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "From POST /api/auth/token; valid 24 hours.",
                },
                "playerToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "From POST /api/join; lets the player submit in that game only.",
                },
                "learnerToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": (
                        "From POST /api/auth/learner-token; the learner's own history, solo practice and topping"
                        " sessions."
                    ),
                },
            },
        },
    }


@bp.get("/openapi.json")
def openapi_json() -> ResponseReturnValue:
    return jsonify(document())
