"""The one error type of the services: a request refused, named by a stable code.

A refusal carries a ``code`` (``round_closed``, ``name_taken``...) that the transports map to an
HTTP status (:mod:`trainer.http.errors`) and the pages to a message in the reader's language
(:mod:`trainer.web.messages`), the ``params`` those messages need, and an English message for the
API and the logs. The pure packages raise their own coded errors (the engine's ``EngineError``, the
duplicate rules' ``RuleError``); a service passes them on as a refusal with :meth:`Refused.because`.
"""

from __future__ import annotations

from typing import Protocol


class CodedError(Protocol):
    """What :meth:`Refused.because` takes: an error of the pure packages, with its code and parameters."""

    code: str
    params: dict[str, object]


class Refused(Exception):
    """A request the server cannot take now: ``code`` says why, ``params`` fill the message.

    ``cause`` is the pure packages' own error when one was passed on (the engine's reason a play
    cannot be placed, say), for the pages to explain it in detail.
    """

    def __init__(self, code: str, message: str, *, cause: Exception | None = None, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.params = params
        self.cause = cause

    @classmethod
    def because(cls, error: Exception, code: str | None = None) -> Refused:
        """``error`` (a coded error of the pure packages) as a refusal, under ``code`` or its own code."""
        own: str = getattr(error, "code", "refused")
        params: dict[str, object] = dict(getattr(error, "params", {}) or {})
        return cls(code or own, str(error), cause=error, **params)

    def __repr__(self) -> str:
        return f"Refused({self.code!r}, {str(self)!r})"
