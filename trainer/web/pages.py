"""Pages that belong to no room: the home page, the help page and the health check. (The site's error pages
are :mod:`trainer.http.errors`'.)"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, render_template

from ..core.database import writable
from ..core.lexicons import lexicon_store
from ..engine.rules import ruleset, ruleset_codes
from .guide import guide

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


@bp.get("/help", endpoint="help")
def help_page() -> str:
    """How a round works, how plays are written and how scores and standings are worked out, for players;
    every figure on it computed by the rules (:mod:`.guide`)."""
    return render_template("help.html", guide=guide())


@bp.get("/healthz")
def healthz() -> tuple[Response, int]:
    """For a process manager or a load balancer: 200 when the database takes a write now, else 503 saying why
    (read-only, full, unreachable); with where each lexicon stands, and any whose cached graphs were unsound
    and built again."""
    problem = writable()
    store = lexicon_store()
    answer = jsonify(
        status="ok" if problem is None else "failing",
        database="writable" if problem is None else problem,
        lexicons=store.states(),
        rebuilt_lexicons=dict(store.rebuilt),
    )
    return answer, 200 if problem is None else 503
