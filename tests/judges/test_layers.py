"""The judges package is layered, and no import cycle runs through its modules.

Every module of ``python/ragmeter/judges`` is parsed with ``ast``: every import counts, at the
top of the module, inside a function, under ``if TYPE_CHECKING:`` or in a ``try``. Layers,
lowest first; a module imports modules of its own layer and of the layers it is allowed:

- ``core``: the top-level modules every layer uses (samples, scores, prompts, parsing, text,
  results, ...);
- ``clients``: ``clients/`` and ``panel.py`` (judges, embedders and panels of judges);
- ``testing``: ``testing/``, beside the engine: test doubles and the loopback server use the
  clients and the core, and only the top (``ragmeter.judges`` itself) imports them;
- ``engine``: ``engine/`` and ``context.py`` (the ``JudgeContext`` the engine hands a metric);
- ``metrics``: ``metrics/``, written against the engine;
- ``top``: what puts the layers together (``evaluation``, ``registry``, ``relevance``,
  ``compat/`` and the package itself).

Importing ``a.b.c`` also runs the packages ``a.b`` and ``a``: an import counts as an import of
each package it enters (but of none that holds the importing module, already running).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ragmeter.judges as judges

PACKAGE = "ragmeter.judges"
ROOT = Path(judges.__file__).parent

ALLOWED: dict[str, frozenset[str]] = {
    "core": frozenset({"core"}),
    "clients": frozenset({"core", "clients"}),
    "testing": frozenset({"core", "clients", "testing"}),
    "engine": frozenset({"core", "clients", "engine"}),
    "metrics": frozenset({"core", "clients", "engine", "metrics"}),
    "top": frozenset({"core", "clients", "testing", "engine", "metrics", "top"}),
}
#: Subpackages by layer.
SUBPACKAGES = {
    "clients": "clients",
    "testing": "testing",
    "engine": "engine",
    "metrics": "metrics",
    "compat": "top",
}
#: The top-level modules that are not ``core``.
TOP_LEVEL = {
    "budget": "top",
    "integrity": "top",
    "panel": "clients",
    "context": "engine",
    "evaluation": "top",
    "registry": "top",
    "relevance": "top",
}


def layer_of(module: str) -> str:
    parts = module.split(".")[2:]
    if not parts:
        return "top"
    if parts[0] in SUBPACKAGES:
        return SUBPACKAGES[parts[0]]
    assert len(parts) == 1, f"{module}: a subpackage with no layer; add it to SUBPACKAGES"
    return TOP_LEVEL.get(parts[0], "core")


def package_modules() -> dict[str, tuple[Path, bool]]:
    """``{module name: (path, is a package)}`` for every module of ragmeter.judges."""
    modules = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        modules[".".join([PACKAGE, *parts])] = (path, is_package)
    return modules


MODULES = package_modules()


def _dynamic_import(node: ast.AST) -> str | None:
    """The module named by ``importlib.import_module("...")`` or ``__import__("...")``."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name not in ("import_module", "__import__"):
        return None
    first = node.args[0]
    return first.value if isinstance(first, ast.Constant) else "<computed>"


def imports_of(source: str, module: str, is_package: bool, known: set[str]) -> dict[str, int]:
    """The ragmeter.judges modules ``module`` imports: ``{name: line of the first import}``.

    Relative imports are resolved; ``from X import y`` names the module ``X.y`` when there is
    one, else ``X``; the packages an import enters are imported too (but not those that hold
    ``module``).
    """
    anchor = module.split(".") if is_package else module.split(".")[:-1]
    found: dict[str, int] = {}

    def add(name: str, line: int) -> None:
        if name != PACKAGE and not name.startswith(PACKAGE + "."):
            return
        while name not in known and "." in name:
            name = name.rsplit(".", 1)[0]  # an attribute of a module, not a module
        parts = name.split(".")
        for depth in range(len(PACKAGE.split(".")) + 1, len(parts)):
            package = ".".join(parts[:depth])
            if not (module == package or module.startswith(package + ".")):
                found.setdefault(package, line)
        found.setdefault(name, line)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                assert node.level <= len(anchor), f"{module}:{node.lineno}: beyond the top"
                base = ".".join(anchor[: len(anchor) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            for alias in node.names:
                child = f"{target}.{alias.name}"
                add(child if child in known else target, node.lineno)
        elif (name := _dynamic_import(node)) is not None:
            assert not name.startswith(("ragmeter", ".", "<")), (
                f"{module}:{node.lineno}: a dynamic import of {name!r} hides an edge of the "
                "import graph"
            )
    found.pop(module, None)
    return found


def import_graph() -> dict[str, dict[str, int]]:
    known = set(MODULES)
    return {
        name: imports_of(path.read_text(encoding="utf-8"), name, is_package, known)
        for name, (path, is_package) in MODULES.items()
    }


def layer_violations(graph: dict[str, dict[str, int]]) -> list[str]:
    problems = []
    for module, imported in sorted(graph.items()):
        layer = layer_of(module)
        for target, line in sorted(imported.items()):
            if layer_of(target) not in ALLOWED[layer]:
                problems.append(f"{module}:{line} ({layer}) imports {target} ({layer_of(target)})")
    return problems


def find_cycle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """One import cycle of ``graph`` (a path that ends where it starts), else ``None``."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(node: str) -> list[str] | None:
        path.append(node)
        on_path.add(node)
        for child in sorted(graph.get(node, {})):
            if child in on_path:
                return [*path[path.index(child) :], child]
            if child not in done and (cycle := visit(child)) is not None:
                return cycle
        path.pop()
        on_path.discard(node)
        done.add(node)
        return None

    for node in sorted(graph):
        if node not in done and (cycle := visit(node)) is not None:
            return cycle
    return None


GRAPH = import_graph()


def test_every_import_goes_down_the_layers():
    assert layer_violations(GRAPH) == []


def test_there_is_no_import_cycle_among_the_judges_modules():
    cycle = find_cycle(GRAPH)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_engine_runs_metric_objects_it_does_not_import():
    engine = {m: imported for m, imported in GRAPH.items() if layer_of(m) == "engine"}
    assert engine and not any(
        layer_of(target) in ("metrics", "testing", "top")
        for imported in engine.values()
        for target in imported
    )
    # Names become metric objects above both (the registry), and the metrics use the engine.
    assert f"{PACKAGE}.metrics" in GRAPH[f"{PACKAGE}.registry"]
    assert f"{PACKAGE}.registry" in GRAPH[f"{PACKAGE}.evaluation"]
    assert f"{PACKAGE}.engine.tasks" in GRAPH[f"{PACKAGE}.metrics.preference"]


def test_the_metrics_package_imports_neither_evaluation_nor_relevance():
    # The declaration of umbrela_relevance lives in metrics/ (see test_umbrela_relevance).
    for module, imported in GRAPH.items():
        if module.startswith(f"{PACKAGE}.metrics"):
            assert not {f"{PACKAGE}.evaluation", f"{PACKAGE}.relevance"} & set(imported), module
    umbrela = GRAPH[f"{PACKAGE}.metrics.umbrela"]
    assert f"{PACKAGE}.metrics.custom" in umbrela and f"{PACKAGE}.offline_rules" in umbrela


def test_testing_and_clients_stay_below_the_engine():
    for module, imported in GRAPH.items():
        if layer_of(module) in ("clients", "testing"):
            assert {layer_of(t) for t in imported} <= {"core", "clients", "testing"}, module
    assert f"{PACKAGE}.clients.protocol" in GRAPH[f"{PACKAGE}.testing.scripted"]


# -- the check sees what it should ----------------------------------------------------------

HIDDEN = """
from __future__ import annotations
from typing import TYPE_CHECKING
from ..sample import Sample
if TYPE_CHECKING:
    from ..metrics.base import Metric
def run():
    from .. import evaluation
    import ragmeter.judges.testing.server
try:
    from ..clients import chat
except ImportError:
    pass
"""


def test_imports_in_functions_type_checking_blocks_and_try_count():
    found = imports_of(HIDDEN, f"{PACKAGE}.engine.run", False, set(MODULES))
    assert set(found) == {
        f"{PACKAGE}.sample",
        f"{PACKAGE}.metrics",  # the package an import enters runs too
        f"{PACKAGE}.metrics.base",
        f"{PACKAGE}.evaluation",
        f"{PACKAGE}.testing",
        f"{PACKAGE}.testing.server",
        f"{PACKAGE}.clients",
        f"{PACKAGE}.clients.chat",
    }
    assert found[f"{PACKAGE}.metrics.base"] == 6 and found[f"{PACKAGE}.evaluation"] == 8
    problems = layer_violations({f"{PACKAGE}.engine.run": found})
    assert len(problems) == 5 and all("(metrics)" in p or "(t" in p for p in problems), problems


def test_a_package_does_not_import_itself_through_its_own_modules():
    # metrics/custom.py importing .base runs no further package: metrics/ is already running.
    found = imports_of(
        "from .base import Metric\n", f"{PACKAGE}.metrics.custom", False, set(MODULES)
    )
    assert set(found) == {f"{PACKAGE}.metrics.base"}
    found = imports_of("from . import base\n", f"{PACKAGE}.metrics", True, set(MODULES))
    assert set(found) == {f"{PACKAGE}.metrics.base"}


def test_a_dynamic_import_of_a_ragmeter_module_is_refused():
    with pytest.raises(AssertionError, match="dynamic import"):
        imports_of(
            "import importlib\nimportlib.import_module('ragmeter.judges.metrics')\n",
            f"{PACKAGE}.engine.run",
            False,
            set(MODULES),
        )


def test_cycles_and_violations_are_found():
    a, b, c = (f"{PACKAGE}.engine.{n}" for n in "abc")
    assert find_cycle({a: {b: 1}, b: {c: 1}, c: {a: 1}}) == [a, b, c, a]
    assert find_cycle({a: {b: 1}, b: {c: 1}, c: {}}) is None
    metric = f"{PACKAGE}.metrics.base"
    assert layer_violations({a: {metric: 3}, metric: {a: 1}}) == [
        f"{a}:3 (engine) imports {metric} (metrics)"
    ]
    assert layer_violations({f"{PACKAGE}.clients.chat": {f"{PACKAGE}.testing": 2}}) == [
        f"{PACKAGE}.clients.chat:2 (clients) imports {PACKAGE}.testing (testing)"
    ]
    assert layer_of(f"{PACKAGE}.prompts") == "core" and layer_of(PACKAGE) == "top"
