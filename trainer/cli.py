"""The ``tirage`` command: serve, analyze, score and lexicon management."""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from .engine.lexicon import LexiconStore
from .engine.rules import ruleset_codes
from .paths import instance_path


def _store() -> LexiconStore:
    return LexiconStore(instance_path())


@click.group()
def main() -> None:
    """Tirage: a training server for Scrabble players."""


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=5000, show_default=True, help="Port to listen on.")
@click.option("--threads", default=64, show_default=True,
              help="Worker threads (each open live-event stream holds one).")
@click.option("--no-scheduler", is_flag=True, help="Do not close rounds in this process (run `tirage scheduler`).")
def serve(host: str, port: int, threads: int, no_scheduler: bool) -> None:
    """Start the web server (waitress) on the instance folder's database."""
    import waitress

    from .app import create_app
    from .extensions import lexicon_store

    app = create_app({"TIRAGE_SCHEDULER": not no_scheduler})
    # Load (and on a fresh install, build) every lexicon now, in the background, so the first
    # game does not wait for its word graphs; a request for one being built waits for that build.
    threading.Thread(target=_warm_lexicons, args=(lexicon_store(app),), daemon=True).start()
    click.echo(f"Tirage on http://{host}:{port}/ (instance folder {app.instance_path})")
    waitress.serve(app, host=host, port=port, threads=threads)


def _warm_lexicons(store: LexiconStore) -> None:
    for name in store.catalogue():
        with contextlib.suppress(ValueError, OSError):  # a broken imported list shows up when used
            store.load(name)


@main.command()
def scheduler() -> None:
    """Close rounds and start the next ones on time, for web processes started with --no-scheduler."""
    import signal

    from .app import create_app

    create_app({"TIRAGE_SCHEDULER": True})
    click.echo("Tirage round scheduler running (Ctrl-C to stop)")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait()


@main.group()
def director() -> None:
    """Manage the directors who create and run games."""


@director.command("create")
@click.argument("name")
@click.password_option("--password", help="The director's password (asked for when left out).")
def director_create(name: str, password: str) -> None:
    """Create the director NAME (passwords are stored hashed)."""
    from .app import create_app
    from .games.accounts import AccountError, create_director

    app = create_app()
    with app.app_context():
        try:
            create_director(name, password)
        except AccountError as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(f"director {name} created")


def _json_command(handler: Callable[[object, LexiconStore], dict[str, Any]]) -> None:
    """Read one JSON object from stdin, print one JSON line; errors are one line and exit 1."""
    try:
        request = json.loads(sys.stdin.read())
    except json.JSONDecodeError as exc:
        click.echo(json.dumps({"error": f"the input is not valid JSON: {exc.msg} at line {exc.lineno}"}))
        sys.exit(1)
    except UnicodeDecodeError:
        click.echo(json.dumps({"error": "the input is not UTF-8 text"}))
        sys.exit(1)
    except (ValueError, RecursionError) as exc:  # a number too long to convert, arrays nested too deep
        reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc).split(":")[0]
        click.echo(json.dumps({"error": f"the input is not valid JSON: {reason}"}))
        sys.exit(1)
    try:
        result = handler(request, _store())
    except ValueError as exc:
        click.echo(json.dumps({"error": str(exc)}, ensure_ascii=False))
        sys.exit(1)
    click.echo(json.dumps(result, ensure_ascii=False))


@main.command()
def analyze() -> None:
    """Every top play of a position: JSON in on stdin, JSON out (see README)."""
    from .engine.analysis import analyze as handler

    _json_command(handler)


@main.command()
def score() -> None:
    """Check and score one play: JSON in on stdin, JSON out (see README)."""
    from .engine.analysis import score as handler

    _json_command(handler)


@main.group()
def lexicon() -> None:
    """List and import lexicons."""


@lexicon.command("list")
def lexicon_list() -> None:
    """The lexicons this server knows."""
    for name, entry in _store().catalogue().items():
        click.echo(f"{name}\t{entry['rules']}\t{entry['description']}")


@lexicon.command("build")
@click.argument("names", nargs=-1)
def lexicon_build(names: tuple[str, ...]) -> None:
    """Build the word-graph caches now (all lexicons, or NAMES), so no game waits for them."""
    store = _store()
    for name in names or tuple(store.catalogue()):
        started = time.perf_counter()
        try:
            lexicon = store.load(name)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"{name}: {lexicon.graph.node_count} DAWG nodes, {lexicon.gaddag.node_count} GADDAG nodes, "
                   f"ready in {time.perf_counter() - started:.1f} s")


@lexicon.command("import")
@click.argument("name")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--rules", "rules_code", required=True, type=click.Choice(ruleset_codes()), help="Ruleset of the list.")
@click.option("--description", default="", help="A line saying what the list is.")
def lexicon_import(name: str, file: Path, rules_code: str, description: str) -> None:
    """Add the word list FILE (one word a line) as lexicon NAME."""
    store = _store()
    try:
        kept, skipped = store.import_list(name, file, rules_code, description)
        store.load(name)  # build the word graph now rather than at the first game
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    for line in skipped[:20]:
        click.echo(f"skipped {line}", err=True)
    if len(skipped) > 20:
        click.echo(f"... and {len(skipped) - 20} more lines skipped", err=True)
    click.echo(f"lexicon {name}: {kept} words ({rules_code}), {len(skipped)} lines skipped")


if __name__ == "__main__":
    main()
