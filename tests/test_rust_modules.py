"""No file cycle between the modules of the Rust core (issue 44).

Every `.rs` file of ``rust/core/src`` belongs to a top-level module (``prepare.rs`` to
``prepare``, ``ranking/query.rs`` to ``ranking``); a path ``crate::name`` in it (a ``use``, or
a path written inline, in tests too) is an edge to the module ``name``. The graph of those edges
must have no cycle: a module that needs another's type takes it from where it is declared,
and the lower module never reaches back up.
"""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "rust" / "core" / "src"


def module_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sorted(SRC.rglob("*.rs")):
        relative = path.relative_to(SRC)
        module = relative.parts[0].removesuffix(".rs")
        if module == "lib":
            continue
        text = re.sub(r"//[^\n]*", "", path.read_text(encoding="utf-8"))
        used = set(re.findall(r"\bcrate::([a-z_][a-z0-9_]*)", text))
        # `use crate::{a, b::C}` names several modules at once.
        for group in re.findall(r"\bcrate::\{([^}]*)\}", text):
            used |= set(re.findall(r"(?:^|,)\s*([a-z_][a-z0-9_]*)", group))
        graph.setdefault(module, set()).update(used - {module})
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every elementary cycle's smallest rotation, found by depth-first search from each node."""
    found: set[tuple[str, ...]] = set()

    def walk(start: str, node: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                i = path.index(min(path))
                found.add(tuple(path[i:] + path[:i]))
            elif nxt not in path and nxt > start:
                walk(start, nxt, [*path, nxt])

    for start in sorted(graph):
        walk(start, start, [start])
    return [list(c) for c in sorted(found)]


def test_the_graph_is_read() -> None:
    graph = module_graph()
    # Edges that exist, so that a parser that reads nothing cannot pass.
    assert "csr" in graph["prepare"]
    assert "prepare" in graph["ranking"]
    assert "compressed" in graph["trec"]


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_file_cycle_in_the_core() -> None:
    left = cycles(module_graph())
    assert left == [], f"module cycles in rust/core/src: {left}"
