"""The API against its own OpenAPI document (schemathesis): no input gives a server error.

Schemathesis builds requests from ``/api/openapi.json``, valid ones and invalid ones, for every
operation; every answer must be below 500. Its strategies are driven with plain hypothesis
(``@given`` per operation) rather than its pytest plugin, which depends on pytest internals.
"""

from __future__ import annotations

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from trainer.core import accounts
from trainer.core.database import db
from trainer.games import service

EXAMPLES_PER_OPERATION = 15


def _fuzz(operation: schemathesis.APIOperation, mode: GenerationMode) -> None:
    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    def run(case: schemathesis.Case) -> None:
        if case.path.endswith("/events"):
            case.query = {**(case.query or {}), "timeout": 0.1}  # a stream: keep each call short
        response = case.call()
        assert response.status_code < 500, (
            f"{case.method} {case.formatted_path}: {response.status_code} {response.text[:300]}"
        )

    run()


def test_no_input_makes_a_server_error(app: Flask) -> None:
    # Generated requests are mostly refused joins and logins from one address: with the production
    # limits every example after the first twenty would only meet a 429 (tests/test_security.py
    # checks the limits themselves).
    app.config.update(
        TIRAGE_RATELIMIT_JOIN="100000/minute",
        TIRAGE_RATELIMIT_JOIN_ALL="100000/minute",
        TIRAGE_RATELIMIT_LOGIN="100000/minute",
        TIRAGE_RATELIMIT_SUBMIT="100000/minute",
    )
    with app.app_context():  # a game in play, so that generated ids sometimes hit real rows
        director = accounts.create_director("fuzz", "password1")
        game = service.create_game(director, {"seed": 10**19 + 1})
        service.join_game(game.join_code, "Player")
        service.start_game(game, "fuzz")
        db.session.remove()
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 18, "the document lost operations"
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            try:
                _fuzz(operation, mode)
            except Exception as exc:  # name the operation, then fail with hypothesis' example
                raise AssertionError(f"{operation.method.upper()} {operation.path} ({mode.value}): {exc}") from exc


def test_the_fuzzer_sees_a_server_error(app: Flask) -> None:
    """The check above can fail: a route answering 500 is caught. (Under TESTING Flask re-raises an
    exception instead of answering 500, which fails the fuzz test just the same.)"""
    document = {
        "openapi": "3.1.0",
        "info": {"title": "crash", "version": "1"},
        "paths": {"/api/crash": {"get": {"responses": {"200": {"description": "ok"}}}}},
    }

    @app.get("/api/crash")
    def crash() -> tuple[str, int]:
        return "boom", 500

    @app.get("/api/crash-openapi.json")
    def crash_document() -> dict[str, object]:
        return document

    operation = next(
        r.ok() for r in schemathesis.openapi.from_wsgi("/api/crash-openapi.json", app).get_all_operations()
    )
    with pytest.raises(AssertionError, match="500"):
        _fuzz(operation, GenerationMode.POSITIVE)
