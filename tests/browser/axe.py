"""Accessibility checks with axe-core, injected into a Playwright page.

axe-core is an npm package (pinned in package.json / package-lock.json beside this file) rather
than a copy in the repository, so its version is explicit and upgrades are one line.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

HERE = Path(__file__).resolve().parent
AXE_JS = HERE / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")

_RUN = """async ([context, options]) => {
    const results = await axe.run(context === null ? document : context,
                                  Object.assign({resultTypes: ["violations"]}, options || {}));
    return results.violations;
}"""
# axe's WCAG AAA text-contrast rule (7:1, 4.5:1 for large text): off by default, run only when asked.
ENHANCED_CONTRAST = {"runOnly": {"type": "rule", "values": ["color-contrast-enhanced"]}}
# axe's best-practice rule that a page has a level-one heading (a "moderate" violation, which serious_violations
# leaves out): run alone where a test asks for it.
HEADING_ONE = {"runOnly": {"type": "rule", "values": ["page-has-heading-one"]}}


def require_axe() -> Path:
    """The axe-core script; skip with the fix on a user's machine when it is missing, fail in CI."""
    if AXE_JS.is_file():
        return AXE_JS
    reason = f"axe-core is not installed ({AXE_JS} missing): run `npm ci --prefix tests/browser`"
    if os.environ.get("CI"):
        pytest.fail(f"accessibility tests cannot run in CI: {reason}")
    pytest.skip(reason)


def run_axe(
    page: Page, context_selector: str | None = None, options: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """Every axe violation on the page as loaded now (or within ``context_selector``), as axe reports them.

    Each is a dict with ``id``, ``impact``, ``help``, ``helpUrl`` and ``nodes`` (each node has
    ``target`` and ``failureSummary``). ``options`` go to ``axe.run`` (e.g. :data:`ENHANCED_CONTRAST`
    runs only the AAA contrast rule). Call it again after navigating: a new page loses the script.
    """
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        # Evaluated through the DevTools protocol, not added as a <script> tag: the pages' Content-Security-
        # Policy (script-src 'self') blocks inline scripts, which is the point of it.
        page.evaluate(f"() => {{ {require_axe().read_text('utf-8')}\n}}")
    violations: list[dict[str, Any]] = page.evaluate(_RUN, [context_selector, options])
    return violations


def serious_violations(violations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Only the violations whose impact is serious or critical (the ones a test should fail on)."""
    return [violation for violation in violations if violation.get("impact") in SERIOUS]


def format_violations(violations: list[dict[str, Any]]) -> str:
    """A readable list for an assertion message: rule, impact, help and each offending element."""
    lines: list[str] = []
    for violation in violations:
        lines.append(
            f"- {violation['id']} ({violation.get('impact')}): {violation.get('help')} <{violation.get('helpUrl')}>"
        )
        for node in violation.get("nodes", []):
            target = " ".join(str(part) for part in node.get("target", []))
            summary = " ".join(str(node.get("failureSummary", "")).split())
            lines.append(f"    {target}: {summary}")
    return "\n".join(lines) or "(none)"
