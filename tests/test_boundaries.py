"""Module boundaries (issue 10): only a game's own package, its wire codec, its built-in players, its
views and its SDK helpers import a game's internals; everything else sees games through
:mod:`harness.games.base` and :mod:`harness.games.registry`. No module imports the CLI, the harness has no
import cycle (deferred imports included), and no module uses another's private names.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "harness"

# The Sixty-Six family (sixtysix, schnapsen): who may import its internals, besides its packages.
FAMILY_PACKAGES = ("harness.games.sixtysix", "harness.games.schnapsen")
FAMILY_FRIENDS = {
    "harness.wire.convert", "harness.wire.codecs",  # its wire codec
    "harness.strategies", "harness.strategies_search", "harness.players",  # its built-in players
    "harness.render",  # its views
    "harness.sdk.client", "harness.sdk.helpers",  # its SDK observation type and helpers
}
# Three-handed Sixty-Six (issue 12): its friends; its package shares the family's cards and trick rule only.
THREE_HANDED = "harness.games.three_handed"
THREE_HANDED_FRIENDS = {"harness.wire.three_handed", "harness.wire.codecs", "harness.strategies_three_handed",
                        "harness.players", "harness.views.three_handed"}
SHARED_CARDS = "harness.games.sixtysix.cards"


def modules() -> dict[str, ast.Module]:
    out = {}
    for path in ROOT.rglob("*.py"):
        if path.name.endswith(("_pb2.py", "_pb2_grpc.py")):
            continue
        rel = path.relative_to(ROOT.parent).with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        out[name] = ast.parse(path.read_text(encoding="utf-8"))
    return out


def is_package(name: str) -> bool:
    return (ROOT.parent / name.replace(".", "/") / "__init__.py").is_file()


def from_module(node: ast.ImportFrom, name: str) -> str:
    """The module a ``from ... import`` in module ``name`` reads, relative imports resolved."""
    if not node.level:
        return node.module or ""
    base = (name if is_package(name) else name.rsplit(".", 1)[0]).split(".")
    return ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))


def imported(tree: ast.Module, name: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            mod = from_module(node, name)
            found.add(mod)
            found.update(f"{mod}.{a.name}" for a in node.names)
    return found


def test_only_a_games_friends_import_its_internals() -> None:
    offenders = []
    for name, tree in modules().items():
        if name.startswith(FAMILY_PACKAGES) or name in FAMILY_FRIENDS:
            continue
        for mod in imported(tree, name):
            if mod.startswith(FAMILY_PACKAGES) and not (name.startswith(THREE_HANDED) and mod.startswith(SHARED_CARDS)):
                offenders.append(f"{name} imports {mod}")
    assert not offenders, "\n".join(sorted(offenders))


def test_only_three_handeds_friends_import_its_internals() -> None:
    offenders = [f"{name} imports {mod}" for name, tree in modules().items()
                 if not name.startswith(THREE_HANDED) and name not in THREE_HANDED_FRIENDS
                 for mod in imported(tree, name) if mod.startswith(THREE_HANDED)]
    assert not offenders, "\n".join(sorted(offenders))


def test_games_import_no_io_and_nothing_of_the_harness_outside_games() -> None:
    banned = ("grpc", "asyncio", "threading", "time", "socket", "subprocess", "rich", "harness.arena",
              "harness.wire", "harness.tournament", "harness.league", "harness.sdk", "sqlite3")
    offenders = []
    for name, tree in modules().items():
        if not name.startswith("harness.games"):
            continue
        for mod in imported(tree, name):
            if mod.split(".")[0] in banned or mod.startswith(banned):
                offenders.append(f"{name} imports {mod}")
    assert not offenders, "\n".join(offenders)


def test_nothing_imports_the_cli() -> None:
    offenders = [name for name, tree in modules().items()
                 if name != "harness.cli" and any(m == "harness.cli" or m.startswith("harness.cli.")
                                                  for m in imported(tree, name))]
    assert not offenders


def test_the_check_sees_a_violation() -> None:
    """A control: the scanner does find an import of the family's internals."""
    tree = ast.parse("from harness.games.sixtysix.engine import apply\nfrom ..games.schnapsen import GAME\n")
    found = imported(tree, "harness.arena.match")
    assert "harness.games.sixtysix.engine" in found and "harness.games.schnapsen" in found


# What every game's package may use besides its own: the interface and the shared rule-option and rules-tool helpers.
SHARED = ("harness.games.base", "harness.games.options", "harness.games.tools", "harness.games.points")

# Four-handed Sixty-Six (issue 12): its own package (its own cards); only these friends import it.
FOUR_HANDED = "harness.games.four_handed"
FOUR_HANDED_FRIENDS = {"harness.wire.four_handed", "harness.wire.codecs", "harness.strategies_four_handed",
                       "harness.players", "harness.views.four_handed"}


def test_only_four_handeds_friends_import_its_internals() -> None:
    offenders = [f"{name} imports {mod}" for name, tree in modules().items()
                 if not name.startswith(FOUR_HANDED) and name not in FOUR_HANDED_FRIENDS
                 for mod in imported(tree, name) if mod.startswith(FOUR_HANDED)]
    assert not offenders, "\n".join(sorted(offenders))
    # Its package shares nothing with the Sixty-Six family but the game interface.
    own = [f"{name} imports {mod}" for name, tree in modules().items() if name.startswith(FOUR_HANDED)
           for mod in imported(tree, name) if mod.startswith("harness.") and not mod.startswith(
               (FOUR_HANDED, *SHARED))]
    assert not own, "\n".join(sorted(own))


# Twenty-Two (issue 13): its own package; only its codec and built-in players import it.
TWENTY_TWO = "harness.games.twenty_two"
TWENTY_TWO_FRIENDS = {"harness.wire.twenty_two", "harness.strategies_twenty_two", "harness.players",
                      "harness.views.twenty_two"}


def test_only_twenty_twos_friends_import_its_internals() -> None:
    offenders = [f"{name} imports {mod}" for name, tree in modules().items()
                 if not name.startswith(TWENTY_TWO) and name not in TWENTY_TWO_FRIENDS
                 for mod in imported(tree, name) if mod.startswith(TWENTY_TWO)]
    assert not offenders, "\n".join(sorted(offenders))
    own = [f"{name} imports {mod}" for name, tree in modules().items() if name.startswith(TWENTY_TWO)
           for mod in imported(tree, name) if mod.startswith("harness.") and not mod.startswith(
               (TWENTY_TWO, *SHARED))]
    assert not own, "\n".join(sorted(own))


# -- no import cycles, no private names of another module ---------------------------------------------


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node that runs: the bodies of ``if TYPE_CHECKING:`` (annotations only) are left out."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            yield from (n for child in node.orelse for n in [child, *_runtime_nodes(child)])
            continue
        yield node
        yield from _runtime_nodes(node)


def _targets(node: ast.Import | ast.ImportFrom, name: str, known: set[str]) -> list[tuple[str, str | None]]:
    """(module, imported name or None) for each name an import statement binds, resolved to modules of
    ``known`` where it names one (``from harness.arena import match`` is the module harness.arena.match)."""
    if isinstance(node, ast.Import):
        return [(a.name, None) for a in node.names]
    mod = from_module(node, name)
    return [(f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod, a.name) for a in node.names]


def import_graph(trees: dict[str, ast.Module]) -> dict[str, set[str]]:
    """Which harness modules each one imports when it runs, deferred (in-function) imports included."""
    known = set(trees)
    return {name: {mod for node in _runtime_nodes(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                   for mod, _ in _targets(node, name, known) if mod in known and mod != name}
            for name, tree in trees.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            if component:
                found.append(sorted([v, *component]))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_harness_has_no_import_cycle() -> None:
    """Deferred imports count: an import inside a function that closes a cycle only hides it."""
    assert cycles(import_graph(modules())) == []


def test_the_cycle_check_sees_a_cycle_and_skips_type_checking_imports() -> None:
    """A control: a cycle through a deferred import is found; one through ``if TYPE_CHECKING:`` is not."""
    trees = {"harness.a": ast.parse("import harness.b\n"),
             "harness.b": ast.parse("def f():\n    from harness import c\n"),
             "harness.c": ast.parse("from harness.a import x\n"),
             "harness.d": ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import harness.e\n"),
             "harness.e": ast.parse("import harness.d\n")}
    assert cycles(import_graph(trees)) == [["harness.a", "harness.b", "harness.c"]]


def private_uses(trees: dict[str, ast.Module]) -> list[str]:
    """``from M import _x`` and ``m._x`` (``m`` an imported harness module) in a module other than M."""
    known = set(trees)
    found = []
    for name, tree in trees.items():
        aliases: dict[str, str] = {}
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for (mod, what), a in zip(_targets(node, name, known), node.names):
                if what is not None and what.startswith("_") and not what.startswith("__") and mod != name:
                    found.append(f"{name} imports {mod}.{what}")
                if mod in known and mod != name and (a.asname or what is not None or "." not in a.name):
                    aliases[a.asname or a.name] = mod  # `import harness.x` binds harness, not harness.x
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases
                    and node.attr.startswith("_") and not node.attr.startswith("__")):
                found.append(f"{name} uses {aliases[node.value.id]}.{node.attr}")
    return sorted(set(found))


def test_no_module_uses_another_modules_private_names() -> None:
    assert private_uses(modules()) == []


def test_the_private_check_sees_both_kinds() -> None:
    trees = {"harness.a": ast.parse("_x = 1\ndef _f(): pass\n"),
             "harness.b": ast.parse("from harness.a import _x\nfrom harness import a\na._f()\n")}
    assert private_uses(trees) == ["harness.b imports harness.a._x", "harness.b uses harness.a._f"]


SPAWNERS = {"create_subprocess_exec", "create_subprocess_shell", "subprocess_exec", "subprocess_shell"}


def direct_spawns(trees: dict[str, ast.Module]) -> list[str]:
    """Modules that start a process on the event loop themselves instead of through harness.eventloop.spawn,
    which keeps the garbage collector out of uvloop's fork (see there)."""
    return sorted(f"{name} calls {node.func.attr}" for name, tree in trees.items() if name != "harness.eventloop"
                  for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in SPAWNERS)


def test_processes_start_on_the_loop_only_through_eventloop_spawn() -> None:
    assert direct_spawns(modules()) == []
    planted = {"harness.x": ast.parse("import asyncio\nasync def f():\n    await asyncio.create_subprocess_exec('true')\n")}
    assert direct_spawns(planted) == ["harness.x calls create_subprocess_exec"]
