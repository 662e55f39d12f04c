"""The API against its own OpenAPI document (schemathesis): no input gives a server error.

Schemathesis generates requests from ``/api/openapi.json`` (valid ones and, with negative
testing, invalid ones), with and without tokens; every answer must be a response the document
allows, and never a 5xx.
"""

from __future__ import annotations

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, settings

from trainer.extensions import db
from trainer.games import accounts, service


@pytest.fixture
def api_schema(app: Flask) -> schemathesis.BaseSchema:
    # A game in play, so that generated ids sometimes hit real rows.
    with app.app_context():
        director = accounts.create_director("fuzz", "password1")
        game = service.create_game(director, {"seed": 1})
        service.join_game(game.join_code, "Player")
        service.start_game(game, "fuzz")
        db.session.remove()
    return schemathesis.openapi.from_wsgi("/api/openapi.json", app)


schema = schemathesis.pytest.from_fixture("api_schema")


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.filter_too_much])
def test_no_input_makes_a_server_error(case: schemathesis.Case) -> None:
    if case.path.endswith("/events"):
        case.query = {**(case.query or {}), "timeout": 0.1}  # a stream: keep each call short
    response = case.call()
    assert response.status_code < 500, (
        f"{case.method} {case.formatted_path}: {response.status_code} {response.text[:300]}")
