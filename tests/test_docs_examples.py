"""Every code example of the documentation runs, and prints what the page says it prints.

Each page of ``docs/`` and README.md (the front page) is parsed by sybil: a ```python
block made of ``>>>`` examples is run as a doctest (its output is compared), any other
```python block is executed; the examples of one page share one namespace, in page order, in a
fresh temporary directory. ``<!-- skip: next -->`` before a block skips it (a block that needs a
server or a cluster says so in the text).
"""

from __future__ import annotations

import doctest
import json
import re
import shlex
from pathlib import Path

import pytest
from sybil import Sybil
from sybil.parsers.markdown import PythonCodeBlockParser, SkipParser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"

_SYBIL = Sybil(
    parsers=[
        PythonCodeBlockParser(doctest_optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE),
        SkipParser(),
    ],
    path=str(ROOT),
)


def _pages() -> list[Path]:
    return [*sorted(path for path in DOCS.rglob("*.md") if "_gen" not in path.parts), README]


PAGES = _pages()


def test_the_pages_are_found():
    names = {path.relative_to(ROOT).as_posix() for path in PAGES}
    assert {"README.md", "docs/getting-started.md", "docs/judges/groundedness.md"} <= names


def test_every_python_block_of_the_front_page_is_a_checked_example():
    """README.md's examples are doctests (their output is compared), and there are some."""
    examples = [example.parsed for example in _SYBIL.parse(README)]
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 5 and len(examples) >= len(blocks)
    assert all(block.startswith(">>> ") for block in blocks)


@pytest.mark.parametrize("page", PAGES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_page_examples_run(page, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    document = _SYBIL.parse(page)
    for example in document:
        example.evaluate()


def _as_run(call: str) -> str:
    """A command line is run on the page as ``main([...])`` with its arguments."""
    if call.startswith("ragmeter "):
        return json.dumps(shlex.split(call)[1:])
    return call


@pytest.mark.parametrize(
    "page", sorted((DOCS / "migration").glob("*.md")), ids=lambda path: path.name
)
def test_every_ragmeter_call_of_a_migration_table_runs_on_the_page(page):
    """The ragmeter column of each migration table is code that a runnable block executes."""
    text = page.read_text(encoding="utf-8")
    blocks = "\n".join(re.findall(r"```python\n(.*?)```", text, re.S))
    calls = []
    header: list[str] = []
    for line in text.splitlines():
        if not line.startswith("|"):
            header = []
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not header:
            header = cells
            continue
        # Only the tables of calls: "their call | ragmeter's call".
        if len(header) != 2 or header[-1] != "ragmeter" or set(line) <= set("|- "):
            continue
        calls += re.findall(r"`([^`]+)`", cells[-1])
    assert calls, f"{page.name} has no table of calls"
    not_run = [call for call in calls if _as_run(call) not in blocks]
    assert not_run == [], f"{page.name}: calls of the table that no example runs: {not_run}"
