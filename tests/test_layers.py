"""Dependencies point down (docs/architecture.md): every import of the code base, checked against the layers.

The imports are read from the source (every ``import`` and ``from ... import``, inside functions too,
relative ones resolved), so a lazy import cannot hide a dependency. The rules:

1. the pure packages import no web or database library, and of the project only the engine (the
   duplicate rules and the drills stand on ``trainer.engine``, which stands alone) and the bundled
   ``wordlists``;
2. ``trainer.core`` imports the pure packages and itself;
3. a service (``trainer.games``, ``trainer.study``, ``trainer.wall``) imports ``core``, the pure packages
   and itself: never another service, ``http`` or a transport;
4. ``trainer.http`` imports ``core``, the pure packages and itself;
5. a transport (``trainer.api``, ``trainer.web``, ``trainer.live``) imports ``http``, the services,
   ``core`` and the pure packages: never another transport;
6. nothing imports the composition modules (``trainer.app``, ``trainer.server``, ``trainer.cli``,
   ``trainer.backup``) but those modules themselves.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

DATA = ("wordlists",)
PURE: dict[str, tuple[str, ...]] = {  # each pure package, and the pure packages it may import
    "trainer.engine": (),
    "trainer.duplicate": ("trainer.engine",),
    "drills": ("trainer.engine",),
}
CORE = "trainer.core"
SERVICES = ("trainer.games", "trainer.study", "trainer.wall")
HTTP = "trainer.http"
TRANSPORTS = ("trainer.api", "trainer.web", "trainer.live")
COMPOSITION = ("trainer.app", "trainer.server", "trainer.cli", "trainer.backup")
PACKAGES = (*DATA, *PURE, CORE, *SERVICES, HTTP, *TRANSPORTS)
# What a pure package may not use: the web, the database, and what the server runs on.
SERVER_LIBRARIES = frozenset({
    "flask", "flask_babel", "flask_limiter", "flask_login", "flask_migrate", "flask_sqlalchemy", "flask_wtf",
    "werkzeug", "itsdangerous", "jinja2", "markupsafe", "sqlalchemy", "alembic", "apscheduler", "redis", "uvicorn",
    "a2wsgi", "segno", "wtforms", "psycopg",
})  # fmt: skip


def _unit(module: str) -> str | None:
    """The package (or composition module) ``module`` belongs to, if it is the project's."""
    for name in (*PACKAGES, *COMPOSITION):
        if module == name or module.startswith(name + "."):
            return name
    return "trainer" if module == "trainer" else None


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, root: Path) -> Iterator[tuple[int, str]]:
    """Every module ``path`` imports, with its line: absolute names, relative ones resolved."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            yield node.lineno, target
            for alias in node.names:  # ``from trainer.duplicate import rounds`` imports a module too
                yield node.lineno, f"{target}.{alias.name}"


def allowed(importer: str, imported: str) -> bool:
    """Whether code of unit ``importer`` may import unit ``imported`` (both as :func:`_unit` names them)."""
    if importer == imported or importer in COMPOSITION:
        return True
    if imported in COMPOSITION:
        return False
    if imported in DATA:
        return True
    if importer in DATA:
        return False
    if importer in PURE:
        return imported in PURE[importer]
    if importer == CORE:
        return imported in PURE
    if importer in SERVICES or importer == HTTP:
        return imported in PURE or imported == CORE
    if importer in TRANSPORTS:
        return imported in PURE or imported in (CORE, HTTP) or imported in SERVICES
    return False


def violations(root: Path) -> list[str]:
    """Every import under ``root`` (a checkout) that breaks the layering, as ``file:line: a imports b``."""
    found = []
    for path in sorted([*root.glob("trainer/**/*.py"), *root.glob("drills/**/*.py"), *root.glob("wordlists/**/*.py")]):
        if "migrations" in path.parts:
            continue  # Alembic's scripts run inside the application, not as a layer of it
        importer = _unit(_module_name(path, root))
        if importer is None or importer == "trainer":
            continue
        for line, module in imports(path, root):
            top = module.split(".")[0]
            where = f"{path.relative_to(root)}:{line}"
            if importer in PURE and top in SERVER_LIBRARIES:
                found.append(f"{where}: {importer} (pure) imports {top}")
                continue
            imported = _unit(module)
            if imported not in (None, "trainer") and not allowed(importer, imported):
                found.append(f"{where}: {importer} imports {imported}")
    return sorted(set(found))


def test_the_code_base_keeps_its_layers() -> None:
    assert violations(ROOT) == []


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, source in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
        for parent in path.relative_to(tmp_path).parents:
            if parent != Path(".") and not (tmp_path / parent / "__init__.py").exists():
                (tmp_path / parent / "__init__.py").write_text("")
    return tmp_path


@pytest.mark.parametrize(
    ("files", "reported"),
    [
        # A service leaning sideways on another (study and wall on games, as before the renovation).
        (
            {"trainer/study/service.py": "from ..games.service import GameError\n"},
            "trainer.study imports trainer.games",
        ),
        (
            {"trainer/wall/service.py": "from trainer.games.models import Director\n"},
            "trainer.wall imports trainer.games",
        ),
        # A transport importing another (the API the pages' rate limits, the pages the API's helpers).
        ({"trainer/api/games.py": "from ..web.security import limited\n"}, "trainer.api imports trainer.web"),
        ({"trainer/web/pages.py": "from ..api.common import MAX_ID\n"}, "trainer.web imports trainer.api"),
        ({"trainer/live/plays.py": "from ..api import present\n"}, "trainer.live imports trainer.api"),
        # The fast path importing the application factory back (a cycle through the composition).
        ({"trainer/live/asgi.py": "def f():\n    from ..app import create_app\n"}, "trainer.live imports trainer.app"),
        # A service importing a transport, the pure rules importing the database or a service.
        ({"trainer/games/service.py": "from ..http.errors import status_of\n"}, "trainer.games imports trainer.http"),
        ({"trainer/duplicate/rounds.py": "import sqlalchemy\n"}, "trainer.duplicate (pure) imports sqlalchemy"),
        (
            {"trainer/duplicate/rounds.py": "from trainer.core.errors import Refused\n"},
            "trainer.duplicate imports trainer.core",
        ),
        (
            {"trainer/engine/board.py": "from trainer.duplicate import draw\n"},
            "trainer.engine imports trainer.duplicate",
        ),
        ({"drills/cards.py": "from trainer.duplicate.draw import Bag\n"}, "drills imports trainer.duplicate"),
        ({"trainer/core/accounts.py": "from trainer.games import models\n"}, "trainer.core imports trainer.games"),
        ({"trainer/http/errors.py": "from trainer.web import messages\n"}, "trainer.http imports trainer.web"),
    ],
)
def test_a_broken_rule_is_reported(tmp_path: Path, files: dict[str, str], reported: str) -> None:
    found = violations(_tree(tmp_path, files))
    assert len(found) == 1 and found[0].endswith(reported), found


def test_what_the_layers_allow_is_not_reported(tmp_path: Path) -> None:
    tree = _tree(
        tmp_path,
        {
            "trainer/duplicate/rounds.py": "from trainer.engine.board import Board\nfrom . import draw\n",
            "drills/cards.py": "from trainer.engine.lexicon import Lexicon\n",
            "trainer/games/service.py": "from ..core.errors import Refused\nfrom ..duplicate import rounds\n",
            "trainer/http/errors.py": "from ..core.errors import Refused\n",
            "trainer/live/pages.py": "from ..http.fragments import RoomFragment\nfrom ..games import service\n",
            "trainer/server.py": "from .web.phone import PhoneFragments\nfrom .live.asgi import TirageASGI\n",
        },
    )
    assert violations(tree) == []
