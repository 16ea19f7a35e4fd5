"""The documentation site builds strictly, documents every public name, and needs no network.

The site is built once per session with ``mkdocs build --strict`` (no broken link, no missing
reference, no griffe warning), unless ``RAGMETER_DOCS_SITE`` names a site that scripts/check has
just built the same way. It needs the docs extra (``pip install -e '.[test,docs]'``).
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from ragmeter.judges.metrics import BUILTIN_METRICS
from ragmeter.ranking import FAMILIES

ROOT = Path(__file__).resolve().parents[1]

#: The public modules: every name of their ``__all__`` has an entry in the API reference.
PUBLIC_MODULES = (
    "ragmeter",
    "ragmeter.answers",
    "ragmeter.demo",
    "ragmeter.distributed",
    "ragmeter.exceptions",
    "ragmeter.harness",
    "ragmeter.io",
    "ragmeter.io.trec",
    "ragmeter.judges",
    "ragmeter.judges.testing",
    "ragmeter.levenshtein",
    "ragmeter.options",
    "ragmeter.plots",
    "ragmeter.ranking",
    "ragmeter.reports",
    "ragmeter.retrieval",
    "ragmeter.scorers",
    "ragmeter.stats",
)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    built = os.environ.get("RAGMETER_DOCS_SITE")
    if built:
        return Path(built)
    directory = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    completed = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(directory)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return directory


def _inventory(site: Path) -> set[str]:
    """The object names of mkdocstrings' inventory (Sphinx's objects.inv, version 2)."""
    raw = (site / "objects.inv").read_bytes()
    body = zlib.decompress(raw.split(b"\n", 4)[4]).decode("utf-8")
    return {line.split(" ", 1)[0] for line in body.splitlines() if line.strip()}


def test_every_public_name_is_in_the_api_reference(site):
    documented = _inventory(site)
    short_names = {name.rsplit(".", 1)[-1] for name in documented if name.startswith("ragmeter")}
    missing = []
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            if inspect.ismodule(getattr(module, name)):
                if f"{module_name}.{name}" not in documented:
                    missing.append(f"{module_name}.{name}")
            elif name not in short_names:
                missing.append(f"{module_name}.{name}")
    assert missing == [], f"public names without an API reference entry: {missing}"


def test_a_page_per_measure_family_and_per_judge_metric(site):
    for family in FAMILIES:
        page = (site / "measures" / f"{family.name}.html").read_text(encoding="utf-8")
        assert family.title.split(" (")[0].replace("'", "&#39;") in page, family.name
    for name, metric_class in BUILTIN_METRICS.items():
        page = (site / "judges" / f"{name}.html").read_text(encoding="utf-8")
        for prompt in metric_class().prompts:
            first_words = " ".join(prompt.template.split()[:6])
            assert first_words in page.replace("&quot;", '"'), (name, prompt.name)


_EXTERNAL_LOADS = (
    re.compile(r"<script[^>]+src=\"(https?:)?//", re.I),
    re.compile(r"<link[^>]+href=\"(https?:)?//[^\"]+\"[^>]*>", re.I),
    re.compile(r"<(img|iframe)[^>]+src=\"(https?:)?//", re.I),
    re.compile(r"url\(\s*['\"]?(https?:)?//", re.I),
    re.compile(r"@import\s+['\"]?(url\()?['\"]?(https?:)?//", re.I),
    re.compile(r"importScripts\(\s*['\"](https?:)?//", re.I),
)


def test_the_site_loads_nothing_from_the_network(site):
    offending = []
    for path in site.rglob("*"):
        if path.suffix not in {".html", ".css", ".js"}:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for pattern in _EXTERNAL_LOADS:
            for match in pattern.finditer(text):
                offending.append(f"{path.relative_to(site)}: {match.group(0)[:120]}")
    assert offending == []


def test_pages_link_to_html_files_so_they_open_from_disk(site):
    index = (site / "index.html").read_text(encoding="utf-8")
    assert 'href="getting-started.html"' in index


def test_no_page_refers_to_files_outside_the_repository():
    pages = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md", ROOT / "CHANGELOG.md"]
    offending = [
        f"{page.relative_to(ROOT)}: {match.group(0)}"
        for page in pages
        for match in re.finditer(r"\.\./shared\b|(?<![\w/])shared/[\w./-]+", page.read_text())
    ]
    assert offending == []


def test_the_proposed_front_page_links_to_files_of_the_repository():
    """docs/_readme_front_page.md becomes README.md: its links are relative to the root."""
    text = (ROOT / "docs" / "_readme_front_page.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    assert targets
    missing = [t for t in targets if "://" not in t and not (ROOT / t).is_file()]
    assert missing == []
