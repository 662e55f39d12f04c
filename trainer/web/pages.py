"""Pages that belong to no room: the home page and the health check. (The site's error pages are
:mod:`trainer.http.errors`'.)"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, render_template

from ..core.lexicons import lexicon_store
from ..engine.rules import ruleset, ruleset_codes

bp = Blueprint("pages", __name__)

# The engine's commands; shown as code, so never translated.
CLI_COMMANDS: tuple[str, ...] = ("tirage analyze", "tirage score", "tirage lexicon list")


@bp.get("/")
def index() -> str:
    """What Tirage is, what works today, and the rules and word lists this server knows."""
    return render_template(
        "index.html",
        rulesets=[ruleset(code) for code in ruleset_codes()],
        lexicons=lexicon_store().catalogue(),
        commands=CLI_COMMANDS,
    )


@bp.get("/healthz")
def healthz() -> Response:
    """Liveness for a process manager or a load balancer: answers as soon as the application is up."""
    return jsonify(status="ok")
