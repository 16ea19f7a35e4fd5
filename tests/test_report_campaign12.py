"""The HTML report of a 12-system campaign (12 runs x 500 topics, issue 50 item 5), in headless
Chromium at 1366 x 900: the first screen shows the systems sorted by the chosen metric, the
best marked, the compact letter display of the groups and the pairs matrix; the groups are the
ones the page's own table of differences implies; the tables sort and filter; nothing widens
the page.

Oracle of the groups: the maximal sets of systems no two of which the table of differences
marks significant (every subset of the 12 systems enumerated, the maximal ones kept), against
the letters shown. Screenshots: report-12-first-screen.png, report-12-pairs.png,
report-12-per-query.png.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from browser import browser_or_skip, console_errors, screenshot
from campaign12 import write_campaign

from ragmeter import compare_many, report
from ragmeter.cli import main
from ragmeter.stats.letters import compact_letter_display


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("report12")
    runs = write_campaign(folder)
    saved = folder / "campaign.json"
    argv = ["compare", "-m", "ndcg_cut.10", "-m", "map", "--test", "t", "--output", str(saved)]
    assert main([*argv, str(folder / "qrels.txt"), *map(str, runs)]) == 0
    html = folder / "report.html"
    report(saved, output=html)
    return saved, html


@pytest.fixture
def driver():
    browser = browser_or_skip()
    browser.set_window_size(1366, 900)
    yield browser
    browser.quit()


def _maximal_groups(systems: list[str], different: set[frozenset[str]]) -> set[frozenset[str]]:
    """Brute force: every subset with no significant pair inside, kept when maximal."""
    cliques = [
        frozenset(subset)
        for size in range(1, len(systems) + 1)
        for subset in itertools.combinations(systems, size)
        if not any(frozenset(p) in different for p in itertools.combinations(subset, 2))
    ]
    return {c for c in cliques if not any(c < other for other in cliques)}


def _texts(driver, selector: str) -> list[list[str]]:
    """The cells' text of the rows ``selector`` finds (read in the page: one round trip)."""
    return driver.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0])).map(function (r) {"
        " return Array.from(r.querySelectorAll('td')).map(function (c) {"
        " return c.textContent; }); });",
        selector,
    )


def test_the_first_screen_answers_which_is_best_and_which_differ(page, driver) -> None:
    from selenium.webdriver.support.ui import Select

    saved, html = page
    driver.get(html.as_uri())
    screenshot(driver, "report-12-first-screen")
    assert console_errors(driver) == []
    # Nothing makes the page wider than the window.
    width, inner = driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]"
    )
    assert width <= inner
    # The leaderboard and the pairs matrix are whole on the first screen.
    for role in ("leaderboard", "pairs-matrix"):
        box = driver.execute_script(
            "return arguments[0].getBoundingClientRect().toJSON()",
            driver.find_element("css selector", f'table[data-role="{role}"]'),
        )
        assert box["bottom"] <= 900 and box["right"] <= 1366, (role, box)
    rows = driver.find_elements("css selector", 'table[data-role="leaderboard"] tr[data-system]')
    systems = [r.get_attribute("data-system") for r in rows]
    assert len(systems) == 12
    # Sorted by the chosen metric (the first -m: nDCG@10), the saved means, the best marked.
    data = json.loads(saved.read_text())
    metric = data["metrics"][0]
    means = {
        s: sum(v for v in data["values"][s][metric] if v is not None) / 500 for s in data["systems"]
    }
    assert systems == sorted(means, key=means.get, reverse=True)
    assert "★ best" in rows[0].text and all("★" not in r.text for r in rows[1:])
    letters = {
        r.get_attribute("data-system"): r.find_element("css selector", "td.letters").text
        for r in rows
    }
    # The groups from the page's table of differences of that metric, every row shown.
    Select(driver.find_element("css selector", '[data-role="pairs-metric"]')).select_by_value(
        metric
    )
    pairs = _texts(driver, 'table[data-role="pairs"] tr')[1:]
    assert len(pairs) == 66
    different = {frozenset(r[:2]) for r in pairs if r[-1].endswith("*")}
    expected = _maximal_groups(systems, different)
    shown = {
        frozenset(s for s in systems if letter in letters[s])
        for letter in sorted({c for text in letters.values() for c in text})
    }
    assert shown == expected
    assert 1 < len(shown) < 12  # some pairs differ, some do not: the check can fail
    # The pairs matrix colours exactly the significant pairs.
    cells = driver.find_elements("css selector", 'table[data-role="pairs-matrix"] td[data-row]')
    assert len(cells) == 12 * 11
    for cell in cells:
        pair = frozenset((cell.get_attribute("data-row"), cell.get_attribute("data-col")))
        assert (cell.get_attribute("data-significant") == "1") == (pair in different)


def test_the_tables_sort_and_filter_and_scroll_inside(page, driver) -> None:
    _, html = page
    driver.get(html.as_uri())
    table = 'table[data-role="pairs"]'
    driver.find_element("css selector", f'{table} th[data-sort="delta"]').click()
    deltas = [float(r[4]) for r in _texts(driver, f"{table} tr")[1:]]
    assert deltas == sorted(deltas, reverse=True) or deltas == sorted(deltas)
    driver.find_element("css selector", f'{table} th[data-sort="delta"]').click()
    again = [float(r[4]) for r in _texts(driver, f"{table} tr")[1:]]
    assert again == deltas[::-1]
    search = driver.find_element("css selector", 'input[data-role="pairs-filter"]')
    search.send_keys("system_03")
    rows = _texts(driver, f"{table} tr")[1:]
    assert len(rows) == 11 and all("system_03.run" in r[:2] for r in rows)
    screenshot(driver, "report-12-pairs")
    # The per-query table scrolls inside its box; its difference columns sort.
    explorer = driver.find_element("css selector", "[data-explorer]")
    driver.execute_script("arguments[0].scrollIntoView()", explorer)
    sizes = driver.execute_script(
        "var e = arguments[0]; return [e.scrollWidth, e.clientWidth, window.innerWidth]", explorer
    )
    assert sizes[1] <= sizes[2]
    header = explorer.find_element("css selector", 'th[data-sort="d:system_05.run"]')
    label = header.text
    header.click()
    heads = driver.execute_script(
        "return Array.from(arguments[0].querySelectorAll('tr th')).map(t => t.textContent)",
        explorer,
    )
    position = heads.index(label)
    column = [float(r[position]) for r in _texts(driver, 'table[data-role="per-query"] tr')[1:]]
    assert column == sorted(column)
    screenshot(driver, "report-12-per-query")


def test_a_report_of_objects_is_titled_by_what_it_holds(tmp_path) -> None:
    systems = {
        "bm25": {"map": {"q1": 0.1, "q2": 0.5, "q3": 0.3}},
        "dense": {"map": {"q1": 0.2, "q2": 0.4, "q3": 0.6}},
    }
    page = report(compare_many(systems, test="t"))
    assert "input 1" not in page and "<h2><bdi>Comparison of 2 systems on map</bdi></h2>" in page
    assert "<h2><bdi>mine</bdi></h2>" in report(("mine", compare_many(systems, test="t")))


def test_compact_letter_display_of_a_published_example() -> None:
    # Piepho (2004), section 2: four treatments, A differs from C and D, B from D.
    letters = compact_letter_display(["A", "B", "C", "D"], [("A", "C"), ("A", "D"), ("B", "D")])
    assert letters == {"A": "a", "B": "ab", "C": "bc", "D": "c"}
