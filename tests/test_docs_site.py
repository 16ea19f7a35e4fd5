"""The documentation site builds strictly, documents every public name, and needs no network.

The site is built once per session with ``mkdocs build --strict`` (no broken link, no missing
reference, no griffe warning), unless ``RAGMETER_DOCS_SITE`` names a site that scripts/check has
just built the same way. It needs the docs extra (``pip install -e '.[test,docs]'``).
"""

from __future__ import annotations

import html
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
    "ragmeter.fusion",
    "ragmeter.harness",
    "ragmeter.html_report",
    "ragmeter.io",
    "ragmeter.io.trec",
    "ragmeter.schemas",
    "ragmeter.judges",
    "ragmeter.judges.loading",
    "ragmeter.judges.testing",
    "ragmeter.levenshtein",
    "ragmeter.model_selection",
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
    """A page docs/_gen/pages.py writes when the site is built (a measure family's page, the
    fusion methods)."""
    docs = (ROOT / "docs").resolve()
    relative = path.relative_to(docs).as_posix() if docs in path.parents else ""
    names = {f"measures/{family.name}.md" for family in FAMILIES} | {"changelog.md"}
    names.add("fusion-methods.md")  # every fusion method, from their declarations
    names.add("migration/differences.md")  # every family's differences, from the declarations
    return relative in names


_ROLE_TEXT = re.compile(r":(?:py:)?(?:func|class|meth|mod|data|attr|exc|obj):`")


def test_no_sphinx_role_is_shown_as_text(site):
    shown = []
    for path in site.rglob("*.html"):
        text = re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8"))
        shown += [f"{path.relative_to(site)}: {m.group(0)}" for m in _ROLE_TEXT.finditer(text)]
    assert shown == [], f"{len(shown)} raw roles, first: {shown[:5]}"


def test_the_roles_of_the_docstrings_become_links_to_their_entries(site):
    # ragmeter.stats' module docstring names :func:`~ragmeter.per_query.per_query_results`.
    page = (site / "reference" / "evaluation.html").read_text(encoding="utf-8")
    assert re.search(r'<a class="autorefs[^>]*href="[^"]*#ragmeter\.per_query', page)


def test_the_role_rewriting_resolves_names_in_the_docstrings_scope():
    sys.path.insert(0, str(ROOT / "docs" / "_gen"))
    try:
        from griffe_doctests import rendered_docstring
    finally:
        sys.path.pop(0)
    text = rendered_docstring("See :func:`~ragmeter.io.evaluate` and :class:`ValueError`.")
    assert '<autoref identifier="ragmeter.io.evaluate" optional><code>evaluate</code>' in text
    assert '<autoref identifier="ValueError" optional><code>ValueError</code>' in text


def test_an_entry_of_several_parameters_becomes_one_entry_per_parameter():
    # griffe would give every name of a shared numpy entry the first name's type.
    sys.path.insert(0, str(ROOT / "docs" / "_gen"))
    try:
        from griffe_doctests import rendered_docstring
    finally:
        sys.path.pop(0)
    numpy = "Do.\n\nParameters\n----------\na, b\n    The two.\n\n    More.\nc\n    The c.\n"
    assert rendered_docstring(numpy) == (
        "Do.\n\nParameters\n----------\na\n    The two.\n\n    More.\nb\n    The two.\n\n"
        "    More.\nc\n    The c.\n"
    )
    returns = "Do.\n\nReturns\n-------\ndict[str, int]\n    x.\n\nRaises\n------\nA, B\n    y.\n"
    assert rendered_docstring(returns) == returns
    google = "Do.\n\nArgs:\n    a, b: The two.\n"
    assert rendered_docstring(google) == "Do.\n\nArgs:\n    a: The two.\n    b: The two.\n"


def test_formulas_written_as_rst_literals_render_without_their_backticks():
    sys.path.insert(0, str(ROOT / "docs" / "_gen"))
    try:
        from griffe_doctests import rendered_docstring
    finally:
        sys.path.pop(0)
    # A display under its paragraph (a Markdown code block): the backticks go.
    assert rendered_docstring("Then\n\n    ``t = 2 / N``\n\nIt.") == "Then\n\n    t = 2 / N\n\nIt."
    # A literal wrapped over two lines is joined (Markdown reads no code span over lines).
    wrapped = "* ``RBO`` is\n  ``(1-p)/p (x\n  + y)``; and ``a`` or\n  ``b``."
    assert (
        rendered_docstring(wrapped) == "* ``RBO`` is\n  ``(1-p)/p (x + y)``; and ``a`` or\n  ``b``."
    )
    # A literal at its paragraph's level stays a code span.
    assert rendered_docstring("Then\n\n``t``\n\nIt.") == "Then\n\n``t``\n\nIt."


def test_no_page_shows_an_rst_literal_as_text(site):
    # ``x`` in a docstring is a code span in Markdown only on one line and outside a code block.
    shown = []
    for path in site.rglob("*.html"):
        text = html.unescape(re.sub(r"<[^>]+>", "", path.read_text(encoding="utf-8")))
        shown += [
            f"{path.relative_to(site)}: {m.group(0)}" for m in re.finditer(r".{0,40}``", text)
        ]
    assert shown == [], f"{len(shown)} raw literals, first: {shown[:5]}"


# -- in a real browser (tests/browser.py) ---------------------------------------------------------


def test_a_page_opens_from_disk_with_no_request_outside_and_no_error(site):
    from browser import browser_or_skip, console_errors, requested_urls, screenshot

    driver = browser_or_skip()
    try:
        driver.get((site / "guides" / "comparisons.html").as_uri())
        screenshot(driver, "docs-comparisons")
        outside = [u for u in requested_urls(driver) if not u.startswith(("file:", "data:"))]
        assert outside == []
        # The search index is the one thing that needs the site served (getting-started.md
        # says so): from disk its worker cannot start.
        errors = [e for e in console_errors(driver) if "/search/" not in e]
        assert errors == []
    finally:
        driver.quit()


def test_the_copy_button_copies_code_without_prompts_or_output(site):
    from browser import browser_or_skip

    driver = browser_or_skip()
    try:
        driver.get((site / "index.html").as_uri())
        block = driver.find_element("css selector", "pre > code[data-copy]")
        expected = "\n".join(
            line[4:]
            for line in block.get_attribute("textContent").splitlines()
            if line.startswith((">>> ", "... "))
        )
        assert "from ragmeter import ranking_metrics" in expected
        # What the button puts on the clipboard: clipboard.js selects it in a textarea and
        # calls document.execCommand("copy").
        driver.execute_script(
            "document.addEventListener('copy', function () {"
            "  var e = document.activeElement;"
            "  window.__copied = e && e.value !== undefined ? e.value"
            "    : String(window.getSelection());"
            "}, true);"
        )
        button = block.find_element("xpath", "./ancestor::pre//button[@data-clipboard-target]")
        button.click()
        copied = driver.execute_script("return window.__copied;")
        assert copied == expected
        assert ">>>" not in copied and "{'mrr'" not in copied
    finally:
        driver.quit()


def test_search_finds_pages_when_the_site_is_served(site):
    from browser import browser_or_skip, screenshot, served
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browser_or_skip()
    try:
        with served(site) as base:
            driver.get(base + "index.html")
            driver.find_element("css selector", "label.md-search__icon, .md-search__input")
            driver.execute_script(
                "var i = document.querySelector('.md-search__input');"
                "i.focus(); i.value = 'bpref'; i.dispatchEvent(new Event('input'));"
                "i.dispatchEvent(new KeyboardEvent('keyup', {key: 'f'}));"
            )
            WebDriverWait(driver, 20).until(
                lambda d: d.find_elements("css selector", ".md-search-result__item")
            )
            screenshot(driver, "docs-search")
            meta = driver.find_element("css selector", ".md-search-result__meta").text
            assert "matching" in meta.lower() and "initializing" not in meta.lower()
    finally:
        driver.quit()


def test_the_differences_page_lists_every_family_with_its_declared_differences(site):
    page = site / "migration" / "differences" / "index.html"
    if not page.exists():
        page = site / "migration" / "differences.html"
    text = re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8"))
    text = html.unescape(text)
    for family in FAMILIES:
        assert family.name in text, family.name
        if family.differences:
            assert " ".join(family.differences.split())[:60] in " ".join(text.split()), family.name
