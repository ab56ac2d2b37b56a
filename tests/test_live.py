"""Live views: only :mod:`harness.live` builds a rich ``Live``, and no package imports the CLI
(the command line imports the command bodies, never the other way round)."""

from __future__ import annotations

import ast
from pathlib import Path

HARNESS = Path(__file__).resolve().parents[1] / "harness"


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function (``from a import b`` gives a and a.b;
    relative imports are resolved)."""
    package = list(path.relative_to(HARNESS.parent).with_suffix("").parts[:-1])
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[: len(package) - node.level + 1] + [node.module or ""] if node.level
                            else [node.module or ""]).strip(".")
            out |= {base} | {f"{base}.{a.name}" for a in node.names}
    return out


def _modules() -> dict[str, set[str]]:
    return {str(p.relative_to(HARNESS.parent)): _imports(p) for p in sorted(HARNESS.rglob("*.py"))}


def test_only_harness_live_imports_rich_live() -> None:
    users = [m for m, imps in _modules().items() if any(i == "rich.live" or i.startswith("rich.live.") for i in imps)]
    assert users == ["harness/live.py"]


def test_nothing_in_harness_imports_the_cli() -> None:
    mods = _modules()
    assert "harness.live.live_display" in mods["harness/tournament/commands.py"]  # the check sees lazy imports
    assert "harness.league.server.serve" in mods["harness/league/commands.py"]  # and relative ones
    users = [m for m, imps in mods.items() if m != "harness/cli.py" and "harness.cli" in imps]
    assert users == []
