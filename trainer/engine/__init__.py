"""The rules engine: tiles, layouts, lexicons, notation, scoring and move generation.

Pure Python with no web or database import, so tools, tests and the server share it::

    from trainer.engine import Board, LexiconStore, ruleset, top_moves, evaluate
    rules = ruleset("en")
    lexicon = LexiconStore(data_dir).load(rules.lexicon)
    board = Board.empty(rules)
    top_score, plays = top_moves(board, rules, lexicon, "AEINRT?")
"""

from .board import Board, Move, Tile
from .errors import BoardError, EngineError, IllegalPlayError, InvalidWordsError, NotationError, RackError
from .lexicon import Lexicon, LexiconError, LexiconStore
from .movegen import count_moves, generate_moves, top_moves
from .notation import format_coordinate, format_move, parse_coordinate, parse_move, square_name
from .play import Evaluation, evaluate, parse_rack, score_move, validate
from .rules import Layout, Ruleset, TileSet, ruleset, ruleset_codes

__all__ = [
    "Board",
    "BoardError",
    "EngineError",
    "Evaluation",
    "IllegalPlayError",
    "InvalidWordsError",
    "Layout",
    "Lexicon",
    "LexiconError",
    "LexiconStore",
    "Move",
    "NotationError",
    "RackError",
    "Ruleset",
    "Tile",
    "TileSet",
    "count_moves",
    "evaluate",
    "format_coordinate",
    "format_move",
    "generate_moves",
    "parse_coordinate",
    "parse_move",
    "parse_rack",
    "ruleset",
    "ruleset_codes",
    "score_move",
    "square_name",
    "top_moves",
    "validate",
]
