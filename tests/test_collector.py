"""The garbage collector policy of a serving process (issue 6): full collections wait for a quiet moment.

The real collector runs; only the clock is the test's, so that "three quiet seconds" does not take three
seconds. Automatic collection is off during each test, so that the collections seen are the policy's.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator, MutableMapping
from typing import Any

import pytest
from flask import Flask

from tests.test_live import run_async
from trainer.live.collector import MIDDLE_THRESHOLD, NEVER, YOUNG_THRESHOLD, Collector
from trainer.server import serving_app


@pytest.fixture
def full_collections() -> Iterator[list[int]]:
    """The generation of every collection from now on, with automatic collection off."""
    seen: list[int] = []

    def note(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    was_enabled = gc.isenabled()
    gc.disable()
    gc.callbacks.append(note)
    try:
        yield seen
    finally:
        gc.callbacks.remove(note)
        if was_enabled:
            gc.enable()


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _old_objects_grew() -> None:
    """What a busy process does between two full collections: middle collections promote survivors."""
    gc.collect(1)


def test_a_full_collection_waits_until_no_request_has_come_for_a_while(full_collections: list[int]) -> None:
    clock, requests = Clock(), [0]
    collector = Collector(lambda: requests[0], quiet=3, least=60, most=600, clock=clock)
    _old_objects_grew()
    full_collections.clear()

    for second in range(100, 110):  # a round's rush: requests every second, well past `least`
        clock.now = second
        requests[0] += 5
        assert collector.tick() is False
    assert 2 not in full_collections

    clock.now = 111  # the rush is over, but only for a second
    assert collector.tick() is False
    clock.now = 112.5  # three seconds without a request
    assert collector.tick() is True
    assert full_collections.count(2) == 1
    assert collector.full_collections == 1

    clock.now = 150  # still quiet, but the last one is recent
    _old_objects_grew()
    assert collector.tick() is False
    assert full_collections.count(2) == 1


def test_an_overdue_full_collection_runs_even_in_a_rush(full_collections: list[int]) -> None:
    clock, requests = Clock(), [0]
    collector = Collector(lambda: requests[0], quiet=3, least=60, most=600, clock=clock)
    _old_objects_grew()
    for second in range(0, 600, 10):  # never three quiet seconds for ten minutes
        clock.now = second
        requests[0] += 1
        assert collector.tick() is False
    clock.now = 600
    requests[0] += 1
    assert collector.tick() is True
    assert full_collections.count(2) == 1


def test_nothing_new_in_the_old_generation_means_no_full_collection(full_collections: list[int]) -> None:
    clock = Clock()
    collector = Collector(lambda: 0, quiet=3, least=60, most=600, clock=clock)
    gc.collect()  # the old generation has had nothing promoted into it since
    full_collections.clear()
    clock.now = 3600  # idle for an hour
    assert collector.tick() is False
    assert full_collections == []
    _old_objects_grew()
    clock.now = 3700
    assert collector.tick() is True
    assert full_collections.count(2) == 1


def test_serving_takes_the_collector_over_and_gives_it_back(app: Flask) -> None:
    before = gc.get_threshold()
    asgi = serving_app(app, threads=2)
    states: list[tuple[tuple[int, int, int], int]] = []

    async def lifespan() -> None:
        messages = asyncio.Queue[MutableMapping[str, Any]]()
        answers = asyncio.Queue[MutableMapping[str, Any]]()
        await messages.put({"type": "lifespan.startup"})

        async def send(message: MutableMapping[str, Any]) -> None:
            await answers.put(message)

        running = asyncio.create_task(asgi({"type": "lifespan"}, messages.get, send))
        assert (await asyncio.wait_for(answers.get(), 30))["type"] == "lifespan.startup.complete"
        states.append((gc.get_threshold(), gc.get_freeze_count()))
        await messages.put({"type": "lifespan.shutdown"})
        assert (await asyncio.wait_for(answers.get(), 30))["type"] == "lifespan.shutdown.complete"
        await running
        states.append((gc.get_threshold(), gc.get_freeze_count()))

    run_async(lifespan())
    serving, after = states
    assert serving[0] == (YOUNG_THRESHOLD, MIDDLE_THRESHOLD, NEVER)
    assert serving[1] > 10_000  # the application and its modules are out of the collector's sight
    assert after == (before, 0)
