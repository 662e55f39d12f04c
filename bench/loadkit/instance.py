"""The server's temporary instance folder: its environment, and every lexicon's word graphs ready in its
cache, so the server never builds a graph while it is measured."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import time
from pathlib import Path

from .server import tirage_command


def server_env(
    instance: Path, database_url: str | None = None, redis_url: str | None = None, one_address: bool = True
) -> dict[str, str]:
    """This process's environment for a server on ``instance``: SQLite there and no Redis unless given."""
    env = {**os.environ, "TIRAGE_INSTANCE": str(instance), "TIRAGE_SECRET_KEY": secrets.token_hex(32)}
    if one_address:  # thousands of phones from one address: a room's joins per address are capped at 600 a minute
        env.setdefault("TIRAGE_RATELIMIT_JOINED", "100000/minute")
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    if database_url:
        env["DATABASE_URL"] = database_url
    if redis_url:
        env["REDIS_URL"] = redis_url
    return env


def prepare_instance(
    folder: Path,
    lexicon_cache: Path,
    copy_back: bool,
    database_url: str | None,
    redis_url: str | None,
    one_address: bool = True,
) -> tuple[Path, dict[str, str], float, bool]:
    """The instance folder with every lexicon's graphs cached; its environment; build seconds; whether built.

    The graphs are copied from ``lexicon_cache``; those built because it had none are copied back to it
    when ``copy_back``.
    """
    instance = folder / "instance"
    cache = instance / "cache"
    cache.mkdir(parents=True)
    if lexicon_cache.is_dir():
        for graph in [*lexicon_cache.glob("*.dawg*"), *lexicon_cache.glob("*.gaddag*")]:  # with their checksums
            shutil.copy2(graph, cache / graph.name)
    env = server_env(instance, database_url, redis_url, one_address)
    before = {p.name for p in cache.iterdir()}
    started = time.perf_counter()
    # `tirage lexicon build` loads each cached graph, or builds the ones missing or stale.
    subprocess.run(
        [*tirage_command(), "lexicon", "build"],
        cwd=folder,
        env=env,
        check=True,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    new = {p.name for p in cache.iterdir()} - before
    if new and copy_back:
        lexicon_cache.mkdir(parents=True, exist_ok=True)
        for name in new:
            shutil.copy2(cache / name, lexicon_cache / name)
    return instance, env, seconds, bool(new)
