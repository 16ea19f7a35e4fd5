"""The install docs say what pyproject.toml says (issue 50 item 9): the extras table of
docs/getting-started.md lists every extra of pyproject.toml, with the packages it brings, and
README.md keeps exactly two set-up commands."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _extras_table() -> dict[str, str]:
    """``{extra: what it brings}`` from the getting-started table (``| `a`, `b` | brings |``)."""
    text = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    rows: dict[str, str] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            for name in re.findall(r"`([^`]+)`", cells[0]):
                rows[name] = cells[1]
    return rows


def _package(requirement: str) -> str:
    return re.split(r"[<>=!\[ ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_the_extras_table_lists_every_extra_of_pyproject() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    table = _extras_table()
    assert sorted(table) == sorted(extras)
    for extra, requirements in extras.items():
        if extra in ("all", "test", "docs"):
            continue
        brought = table[extra].lower().replace("_", "-")
        for requirement in requirements:
            package = _package(requirement)
            # dask[distributed] is shown as dask.distributed, scikit-learn as is.
            assert package.split("[")[0] in brought.replace(".distributed", ""), (extra, package)


def test_all_brings_every_runtime_extra_but_the_gate_plugin() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    runtime = {
        _package(r)
        for name, requirements in extras.items()
        if name not in ("all", "test", "docs", "gate")
        for r in requirements
    }
    assert {_package(r) for r in extras["all"]} == runtime


def test_the_readme_has_exactly_two_set_up_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    assert len(blocks) == 2
    assert [len(b.strip().splitlines()) for b in blocks] == [1, 1]
    assert "ragmeter demo" in blocks[0] and blocks[1].strip() == ".ci/run"
