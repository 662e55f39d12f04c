"""The ``tirage`` command: serve, analyze, score and lexicon management."""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .core.paths import instance_path, locate_instance
from .engine.lexicon import LexiconStore
from .engine.rules import ruleset_codes

if TYPE_CHECKING:
    from flask import Flask


def _store() -> LexiconStore:
    return LexiconStore(instance_path())


@click.group()
def main() -> None:
    """Tirage: a training server for Scrabble players."""


@main.command()
@click.option("--host", default=None, help="Address to listen on  [default: 127.0.0.1; with --lan, every address]")
@click.option("--port", default=5000, show_default=True, help="Port to listen on.")
@click.option(
    "--lan",
    is_flag=True,
    help="Listen on this machine's network addresses and print the address (and a QR code) phones open.",
)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Web processes sharing the port (several need PostgreSQL, or SQLite on one machine).",
)
@click.option(
    "--threads",
    default=16,
    show_default=True,
    type=click.IntRange(1, 512),
    help="Threads per process for pages and API calls (live event streams need none).",
)
@click.option("--no-scheduler", is_flag=True, help="Do not close rounds here: another process runs `tirage scheduler`.")
@click.option("--access-log", is_flag=True, help="Log every request (off: a room of phones makes a lot).")
def serve(
    host: str | None, port: int, lan: bool, workers: int, threads: int, no_scheduler: bool, access_log: bool
) -> None:
    """Start the production web server (uvicorn) on the instance folder's database."""
    import os

    import uvicorn

    from .http.addresses import trusted_proxies
    from .http.lan import is_wildcard, origin
    from .live.connections import GuardedConnections
    from .server import serving_app

    try:
        proxies = trusted_proxies(os.environ.get("TIRAGE_TRUSTED_PROXIES"))
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    _raise_open_files_limit()  # each live stream is an open connection
    # "" is every address: one socket for IPv4 and one for IPv6 (asyncio's; several workers share IPv4's only).
    listen = host if host is not None else "" if lan else "127.0.0.1"
    on_network = is_wildcard(listen)  # a page opened at localhost then gives phones the LAN address
    options: dict[str, Any] = {
        "host": listen,
        "port": port,
        "access_log": access_log,
        "log_level": "info",
        "log_config": _log_config(),
        "backlog": 4096,
        "timeout_keep_alive": 30,
        "timeout_graceful_shutdown": 5,
        "lifespan": "on",
        "http": GuardedConnections,  # request heads in time, connections per address capped
        # X-Forwarded-For and -Proto only from the proxies the operator names (uvicorn would trust any from 127.0.0.1)
        "proxy_headers": bool(proxies),
        "forwarded_allow_ips": proxies,
    }
    if proxies:
        click.echo(f"X-Forwarded-For trusted from {', '.join(proxies)} (TIRAGE_TRUSTED_PROXIES)")
    where = f"every address of this machine, port {port}" if on_network else f"{origin('http', listen, port)}/"
    if workers == 1:
        app = _create_app(
            {"TIRAGE_SCHEDULER": not no_scheduler, "TIRAGE_ANALYSIS_PROCESS": True, "TIRAGE_LAN": on_network}
        )
        click.echo(f"Tirage on {where} ({_instance_folder()})")
        if lan:
            _print_lan_banner(listen, port, app.config["TIRAGE_PUBLIC_URL"])
        uvicorn.run(serving_app(app, threads), **options)
        return
    # Several workers: each is a fresh process building its own application; the round clock runs
    # once, here in the supervising process, unless another process runs it.
    app = _create_app({"TIRAGE_SCHEDULER": not no_scheduler})
    os.environ["TIRAGE_SERVE_THREADS"] = str(threads)
    os.environ["TIRAGE_SERVE_SCHEDULER"] = "0"
    os.environ["TIRAGE_SERVE_LAN"] = "1" if on_network else "0"
    click.echo(f"Tirage on {where} with {workers} workers ({_instance_folder()})")
    if lan:
        _print_lan_banner(listen, port, app.config["TIRAGE_PUBLIC_URL"], ipv6=False)
    uvicorn.run("trainer.server:from_environment", factory=True, workers=workers, **options)


def _instance_folder() -> str:
    """Which instance folder this process uses and why (an operator running two clones sees which is which)."""
    folder = locate_instance()
    return f"instance folder {folder.path}, {folder.describe()}"


def _create_app(config: dict[str, Any] | None = None) -> Flask:
    """The application, or a clear one-line error for a configuration it cannot start with."""
    from .app import create_app
    from .http.lan import BadPublicUrl

    try:
        return create_app(config)
    except BadPublicUrl as exc:
        raise click.ClickException(str(exc)) from None


def _log_config() -> dict[str, Any]:
    """uvicorn's logging, plus this server's own lines (word graphs being built, warnings) in its output."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["trainer"] = {"handlers": ["default"], "level": "INFO", "propagate": False}
    return config


def lan_banner(addresses: list[str], port: int, public: str | None) -> str:
    """What ``tirage serve --lan`` prints: the address phones open and its QR code, or why there is none."""
    import io

    import segno

    from .http.lan import origin, preferred

    lines = []
    first = preferred(addresses)
    if public:
        url = f"{public}/"
        lines.append(f"Phones open {url} (TIRAGE_PUBLIC_URL); join links and QR codes use it.")
    elif first is None:
        return (
            "No network address found: this machine is on no network that phones could reach.\n"
            "Connect it to the club's Wi-Fi or to a phone's hotspot (no internet needed) and start again;\n"
            f"until then Tirage answers on this machine only, at http://127.0.0.1:{port}/\n"
        )
    else:
        url = f"{origin('http', first, port)}/"
        lines.append(f"Phones in the room open {url} (on the same Wi-Fi as this machine)")
        others = [f"{origin('http', a, port)}/" for a in addresses if a != first]
        if others:
            lines.append(f"This machine's other addresses: {', '.join(others)}")
        lines.append(f"If phones cannot connect, allow TCP port {port} in this machine's firewall.")
    code = io.StringIO()
    segno.make(url, error="m").terminal(out=code, compact=True)
    return "\n".join(lines) + "\n" + code.getvalue()


def _print_lan_banner(listen: str, port: int, public: str | None, ipv6: bool = True) -> None:
    from .http.lan import is_wildcard, lan_addresses, usable

    if is_wildcard(listen) or listen == "::":
        addresses = [a for a in lan_addresses() if listen != "::" or ":" in a]  # "::" takes IPv6 only
    else:
        addresses = [listen] if usable(listen) else []
    if not ipv6:  # several workers share one IPv4 socket (uvicorn's): no IPv6 address answers
        addresses = [address for address in addresses if ":" not in address]
    click.echo(lan_banner(addresses, port, public), nl=False)


def _raise_open_files_limit() -> None:
    """Allow as many open connections as the system lets this process have (the soft limit is often 1,024)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else 1_048_576
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


@main.command()
def scheduler() -> None:
    """Close rounds and start the next ones on time, for web processes started with --no-scheduler."""
    import signal

    _create_app({"TIRAGE_SCHEDULER": True})
    click.echo("Tirage round scheduler running (Ctrl-C to stop)")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with contextlib.suppress(KeyboardInterrupt):
        stop.wait()


@main.group()
def director() -> None:
    """Manage the directors who create and run games."""


def _checked_password(_ctx: click.Context, _param: click.Parameter, value: str) -> str:
    """The password rules (core.accounts), checked as soon as it is typed: before asking for it a second time."""
    from .core.accounts import check_password
    from .core.errors import Refused

    try:
        return check_password(value)
    except Refused as exc:
        raise click.BadParameter(str(exc)) from None


@director.command("create")
@click.argument("name")
@click.password_option(
    "--password", callback=_checked_password, help="The director's password (asked for when left out)."
)
def director_create(name: str, password: str) -> None:
    """Create the director NAME (passwords are stored hashed)."""
    from .core.accounts import create_director
    from .core.errors import Refused

    app = _create_app()
    with app.app_context():
        try:
            create_director(name, password)
        except Refused as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(f"director {name} created")


@director.command("password")
@click.argument("name")
@click.password_option("--password", callback=_checked_password, help="The new password (asked for when left out).")
def director_password(name: str, password: str) -> None:
    """Give the director NAME a new password: every login and API token of theirs ends (a lost or shared laptop)."""
    from sqlalchemy import select

    from .core.accounts import Director, change_password
    from .core.database import db
    from .core.errors import Refused

    app = _create_app()
    with app.app_context():
        account = db.session.execute(select(Director).where(Director.username == name)).scalar_one_or_none()
        if account is None:
            raise click.ClickException(f"there is no director named {name!r}")
        try:
            change_password(account, password)
        except Refused as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(f"director {name}: new password; every login of theirs has ended")


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
    """The lexicons this server knows: name, rules, edition, status (an imported one may be building), description."""
    store = _store()
    imported = store.imported()
    for name, entry in store.catalogue().items():
        if name not in imported:
            click.echo(f"{name}\t{entry['rules']}\t{entry['edition']}\tbundled\t{entry['description']}")
    for name, record in sorted(imported.items()):
        fields = (record["rules"], record.get("edition", ""), record["status"], record.get("description", ""))
        click.echo("\t".join((name, *fields)))


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
        click.echo(
            f"{name}: {lexicon.graph.node_count} DAWG nodes, {lexicon.gaddag.node_count} GADDAG nodes, "
            f"ready in {time.perf_counter() - started:.1f} s"
        )


@lexicon.command("import")
@click.argument("name")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--rules", "rules_code", required=True, type=click.Choice(ruleset_codes()), help="Ruleset of the list.")
@click.option("--description", default="", help="A line saying what the list is.")
@click.option("--edition", default="", help="Which edition of the list this is (printed on the games' sheets).")
def lexicon_import(name: str, file: Path, rules_code: str, description: str, edition: str) -> None:
    """Add the word list FILE (one word a line; text, .gz or .zip) as lexicon NAME, replacing an imported one."""
    store = _store()
    try:
        kept, skipped = store.import_list(name, file, rules_code, description, edition)
        store.load(name)  # build the word graph now rather than at the first game
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    for line in skipped[:20]:
        click.echo(f"skipped {line}", err=True)
    if len(skipped) > 20:
        click.echo(f"... and {len(skipped) - 20} more lines skipped", err=True)
    click.echo(f"lexicon {name}: {kept} words ({rules_code}), {len(skipped)} lines skipped")


@main.command("backup")
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
def backup_command(file: Path | None) -> None:
    """Copy the whole database to FILE, a SQLite file (default: backups/ in the instance folder).

    Safe while `tirage serve` runs a game: the copy is one consistent moment of the database,
    and FILE is only replaced once the new copy is complete. See docs/backup.md.
    """
    from . import backup as backups

    try:
        summary = backups.backup(file or backups.default_path())
    except backups.BackupError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(
        f"backup written to {summary.path} ({summary.size / 1024:.0f} KB, schema {summary.revision}): "
        f"{summary.describe()}"
    )


@main.command("restore")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True, help="Delete the data the database holds and put the backup's in its place.")
@click.option("--yes", is_flag=True, help="Do not ask before replacing (for scripts).")
def restore_command(file: Path, replace: bool, yes: bool) -> None:
    """Put the backup FILE into the configured database (stop the server first).

    The database must be empty (a new SQLite instance folder, or a new PostgreSQL database) unless
    --replace is given. The restore is one transaction: if it fails, nothing changes. Start the
    server again afterwards. See docs/backup.md.
    """
    from . import backup as backups

    url = backups.configured_url()
    if replace and not yes:
        click.confirm(
            f"Delete everything in {backups.shown_url(url)} and put {file} in its place? (The server must be stopped.)",
            abort=True,
        )
    try:
        summary = backups.restore(file, url, replace=replace)
    except backups.BackupError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"restored {file} (schema {summary.revision}) into {backups.shown_url(url)}: {summary.describe()}")
    click.echo("start the server again: tirage serve")


if __name__ == "__main__":
    main()
