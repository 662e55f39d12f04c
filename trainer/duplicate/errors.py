"""The duplicate rules' own refusal: a transition or a setting the rules do not allow, named by a code.

The service passes it on as the server's refusal (:meth:`trainer.core.errors.Refused.because`), keeping
its code and parameters, so the pages can say it in the reader's language.
"""

from __future__ import annotations


class RuleError(ValueError):
    """What the rules refuse: ``code`` names it (``not_running``, ``bad_setting``...), ``params`` say more."""

    def __init__(self, code: str, message: str, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.params: dict[str, object] = params
