"""The examples of a documentation page, found by its headings, for the tests that check them
against independent oracles (sybil, in test_docs_examples.py, checks that they print what the
page shows; these tests check that what the page shows is right)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def section(page: Path, heading: str) -> str:
    """The text under ``heading`` (a whole Markdown heading line), up to the next heading of the
    same or a higher level."""
    text = page.read_text(encoding="utf-8")
    match = re.search(rf"^{re.escape(heading)}\n", text, re.M)
    assert match, f"{page.name} has no heading {heading!r}"
    level = len(heading) - len(heading.lstrip("#"))
    end = re.compile(rf"^#{{1,{level}}} ", re.M).search(text, match.end())
    return text[match.end() : end.start() if end else len(text)]


def python_blocks(page: Path, heading: str = "") -> list[str]:
    """The ```python blocks of a section (of the whole page without a heading); at least one."""
    text = section(page, heading) if heading else page.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, f"{page.name}: no python block under {heading!r}"
    return blocks


def run_examples(blocks: list[str], namespace: dict | None = None, name: str = "page") -> dict:
    """Run doctest blocks in one namespace (in order); every example must print what it shows.
    Returns the namespace, so that a test can check the values against an oracle."""
    namespace = {} if namespace is None else namespace
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    parser = doctest.DocTestParser()
    attempted = 0
    for number, block in enumerate(blocks):
        test = parser.get_doctest(block, namespace, f"{name}[{number}]", name, 0)
        result = runner.run(test, clear_globs=False)
        namespace.update(test.globs)  # a DocTest runs in a copy of the namespace it was given
        assert result.failed == 0, f"{name}: block {number} does not print what it shows"
        attempted += result.attempted
    assert attempted > 0, f"{name}: no example was run"
    return namespace
