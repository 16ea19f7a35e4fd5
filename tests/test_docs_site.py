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


_PAGES = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md", ROOT / "CHANGELOG.md"]
#: Paths that exist only on the machine the project was built on: its shared material
#: (``../shared``, ``shared/...``) and absolute paths of a home, a work or a temporary directory.
_OUTSIDE = re.compile(
    r"\.\./shared\b|(?<![\w/])shared/[\w./-]+|(?<![\w.])/(?:work|home|tmp|root|Users)/[\w./-]*"
    r"|file://"
)
#: The target of a Markdown link or image: ``[text](target)``, ``![alt](target "title")``.
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)")


def test_the_checks_below_see_every_page():
    names = {page.relative_to(ROOT).as_posix() for page in _PAGES}
    assert {"README.md", "CHANGELOG.md", "docs/index.md", "docs/architecture.md"} <= names


def test_no_page_refers_to_files_outside_the_repository():
    offending = [
        f"{page.relative_to(ROOT)}: {match.group(0)}"
        for page in _PAGES
        for match in _OUTSIDE.finditer(page.read_text(encoding="utf-8"))
    ]
    assert offending == []


def test_the_check_for_outside_files_finds_them():
    found = _OUTSIDE.findall(
        "see ../shared/reference/x.md, shared/notes.txt, /work/main/a.py, /tmp/site and"
        " file:///home/u/x.html; not benches/README.md or https://example.org/work/"
    )
    assert found == [
        "../shared",
        "shared/notes.txt",
        "/work/main/a.py",
        "/tmp/site",
        "file://",
        "/home/u/x.html",
    ]


def test_every_link_of_the_front_page_and_the_docs_is_a_file_of_the_repository():
    """README.md's links are relative to the root, a docs page's to its folder; none leaves the
    repository (the site's own links are also checked by mkdocs build --strict)."""
    checked, outside, missing = 0, [], []
    for page in _PAGES:
        for target in _LINK.findall(page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith(("#", "mailto:")):
                continue
            path = (page.parent / target.split("#", 1)[0]).resolve()
            checked += 1
            if ROOT.resolve() not in path.parents:
                outside.append(f"{page.relative_to(ROOT)}: {target}")
            elif not path.exists() and not _generated_page(path):
                missing.append(f"{page.relative_to(ROOT)}: {target}")
    assert checked > 50
    assert outside == [] and missing == []


def _generated_page(path: Path) -> bool:
    """A page docs/_gen/pages.py writes when the site is built (a measure family's page)."""
    docs = (ROOT / "docs").resolve()
    relative = path.relative_to(docs).as_posix() if docs in path.parents else ""
    names = {f"measures/{family.name}.md" for family in FAMILIES} | {"changelog.md"}
    return relative in names
