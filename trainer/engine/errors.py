"""Errors of the engine. All are ``ValueError`` subclasses with a message that names the problem.

Each carries a ``code`` (stable, for translations and clients) and the ``params`` that fill its
message, so that a user interface can say the same thing in another language.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base of the engine's errors."""

    code = "error"

    def __init__(self, message: str, code: str | None = None, **params: object) -> None:
        super().__init__(message)
        if code is not None:
            self.code = code
        self.params = params


class BoardError(EngineError):
    """A board description that is malformed (wrong size, unknown character)."""

    code = "bad_board"


class RackError(EngineError):
    """A rack that is malformed (unknown letter, too many tiles)."""

    code = "bad_rack"


class NotationError(EngineError):
    """Text that is not a play in the notation (syntax, or a coordinate off the board)."""

    code = "bad_notation"


class IllegalPlayError(EngineError):
    """A well-formed play that breaks a rule in this position."""

    code = "illegal"


class InvalidWordsError(IllegalPlayError):
    """A play whose placement is legal but that forms words missing from the lexicon."""

    code = "invalid_words"

    def __init__(self, words: list[str]) -> None:
        super().__init__(f"not in the lexicon: {', '.join(words)}", words=words)
        self.words = words

    def __reduce__(self) -> tuple[type[InvalidWordsError], tuple[list[str]]]:
        # Rebuild from the words, not from the message (pickle and copy call the class with ``args``).
        return type(self), (self.words,)
