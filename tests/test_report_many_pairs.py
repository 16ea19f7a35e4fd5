"""The HTML report of a campaign of many systems (issue 52): beyond 780 compared pairs the
differences are a systems x systems matrix drawn on a canvas when it comes into view, not a
table of every pair; smaller campaigns keep the table.

Oracles: the packed arrays decode to the comparison's own values; the first screen read from
the arrays (TableOverview) equals the one built from a Comparison per pair (Overview, the
object path); in headless Chromium a clicked cell states the values of that pair (mirrored
below the diagonal) and the cell's colour is the significance the comparison gives it, the
rows in the order of the means computed here with numpy. Screenshots: report-many-pairs.png,
report-many-pairs-effect.png.
"""

from __future__ import annotations

import base64
import json
import re
import time

import numpy as np
import pytest
from browser import browser_or_skip, console_errors, screenshot

from ragmeter import compare_many, report
from ragmeter.html_report._many_pairs import MANY_PAIRS, TableOverview, is_many
from ragmeter.html_report._overview import Overview
from ragmeter.stats.distributions import mean_t_interval

N_SYSTEMS = 45  # 990 pairs: above MANY_PAIRS
METRICS = ("map", "ndcg")


def _campaign(n_systems=N_SYSTEMS, n_queries=40, seed=5):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.1, 0.6, n_queries)
    queries = [f"q{i}" for i in range(n_queries)]
    systems = {}
    for s in range(n_systems):
        shift = rng.uniform(0.0, 0.3)
        systems[f"run <{s:02d}>"] = {
            m: dict(
                zip(queries, (base + shift + rng.normal(0, 0.08, n_queries)).tolist(), strict=True)
            )
            for m in METRICS
        }
    return compare_many(systems, test="t")


@pytest.fixture(scope="module")
def campaign():
    return _campaign()


@pytest.fixture(scope="module")
def page(campaign, tmp_path_factory):
    path = tmp_path_factory.mktemp("many") / "report.html"
    report(campaign, output=path)
    return path


def _data(text: str) -> dict:
    found = re.search(
        r'<script type="application/json" id="ragmeter-pairs-matrix-0">(.*?)</script>', text
    )
    assert found
    return json.loads(found.group(1))


def test_the_threshold():
    assert MANY_PAIRS == 780
    assert is_many(_campaign(n_systems=41, n_queries=12))  # 820 pairs
    assert not is_many(_campaign(n_systems=40, n_queries=12))  # 780 pairs


def test_many_pairs_are_packed_arrays_not_rows(campaign, page):
    text = page.read_text()
    main = json.loads(
        re.search(r'<script type="application/json" id="ragmeter-data">(.*?)</script>', text).group(
            1
        )
    )
    assert main["pairs"] == []  # no table of differences
    assert 'data-pairs="' not in text
    data = _data(text)
    assert data["systems"] == list(campaign.systems) and data["pairs"] == len(campaign.pairs)
    index = np.frombuffer(base64.b64decode(data["index"]), "<i4").reshape(-1, 2)
    names = campaign.systems
    assert [(names[a], names[b]) for a, b in index.tolist()] == list(campaign.pairs)
    for m, metric in enumerate(METRICS):
        fields = data["fields"][metric]
        delta = np.frombuffer(base64.b64decode(fields["delta"]), "<f4")
        adjusted = np.frombuffer(base64.b64decode(fields["adjusted"]), "<f4")
        wins = np.frombuffer(base64.b64decode(fields["wins"]), "<i4")
        for row, pair in enumerate(campaign.pairs[:50]):
            item = campaign[pair][metric]
            assert delta[row] == np.float32(item.delta)
            assert adjusted[row] == np.float32(item.p_value_adjusted)
            assert wins[row] == item.wins
        values = campaign.values[:, m, :]
        assert data["means"][metric] == pytest.approx(values.mean(axis=1).tolist(), abs=1e-12)
    # A small campaign keeps its table of differences.
    small = report(_campaign(n_systems=6, n_queries=12))
    assert 'data-pairs="0"' in small and "data-pairs-matrix" not in small


@pytest.mark.parametrize("metric", METRICS)
def test_the_first_screen_from_the_arrays_is_the_one_from_the_objects(metric):
    campaign = _campaign(n_systems=12, n_queries=30, seed=8)
    m = campaign.metric_names.index(metric)
    means = {
        s: mean_t_interval(campaign.values[i, m], 0.95) for i, s in enumerate(campaign.systems)
    }
    old, new = Overview(campaign, metric, means), TableOverview(campaign, metric, means)
    assert new.order == old.order and new.every_pair and old.every_pair
    assert new.letters == old.letters and len(set(new.letters.values())) > 1
    for a in campaign.systems:
        for b in campaign.systems:
            if a != b:
                assert repr(new.pair(a, b)) == repr(old.pair(a, b))


@pytest.fixture
def driver():
    browser = browser_or_skip()
    browser.set_window_size(1366, 900)
    yield browser
    browser.quit()


def _pixel(driver, x, y):
    return driver.execute_script(
        "var c = document.querySelector('canvas[data-role=matrix-canvas]');"
        "var r = window.devicePixelRatio || 1;"
        "return Array.from(c.getContext('2d').getImageData(arguments[0] * r, arguments[1] * r,"
        " 1, 1).data).slice(0, 3);",
        x,
        y,
    )


def test_the_matrix_in_chromium(campaign, page, driver):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import Select

    driver.get(page.as_uri())
    root = driver.find_element("css selector", "[data-pairs-matrix]")
    assert root.get_attribute("data-drawn") is None  # not drawn before it is in view
    driver.execute_script("arguments[0].scrollIntoView()", root)
    for _ in range(50):
        if root.get_attribute("data-drawn"):
            break
        time.sleep(0.1)
    assert root.get_attribute("data-drawn") == "map"
    assert console_errors(driver) == []
    assert driver.find_elements("css selector", 'table[data-role="pairs"]') == []
    canvas = driver.find_element("css selector", "canvas[data-role=matrix-canvas]")
    n = len(campaign.systems)
    cell = max(2, min(14, 900 // n))
    assert canvas.size["width"] == n * cell
    # Rows: the systems by their mean map, best first (numpy here).
    means = campaign.values[:, 0, :].mean(axis=1)
    order = [campaign.systems[i] for i in np.argsort(-means, kind="stable")]
    significant = [
        (a, b)
        for a, b in campaign.pairs
        if campaign[a, b]["map"].p_value_adjusted <= campaign.alpha
    ]
    plain = [(a, b) for a, b in campaign.pairs if (a, b) not in significant]
    assert significant and plain
    for a, b in (significant[0], significant[0][::-1], plain[0]):
        i, j = order.index(a), order.index(b)
        x, y = (j + 0.5) * cell, (i + 0.5) * cell
        ActionChains(driver).move_to_element_with_offset(
            canvas, int(x - canvas.size["width"] / 2), int(y - canvas.size["height"] / 2)
        ).click().perform()
        details = driver.find_element("css selector", "[data-role=matrix-details]")
        assert (details.get_attribute("data-row"), details.get_attribute("data-col")) == (a, b)
        item = campaign[a, b]["map"]
        text = details.text
        assert f"{a} − {b} on map" in text
        assert f"Δ = {item.delta:+.4f}" in text
        assert f"[{item.ci_low:.4f}, {item.ci_high:.4f}]" in text
        assert f"wins/ties/losses {item.wins}/{item.ties}/{item.losses} of {item.n_pairs}" in text
        red, green, blue = _pixel(driver, x + cell / 4, y + cell / 4)
        if item.p_value_adjusted <= campaign.alpha:
            assert (green > red) == (item.delta > 0), (a, b, red, green)
            assert "(significant)" in text
        else:
            assert red == green == blue == 224  # grey
            assert "(significant)" not in text
    screenshot(driver, "report-many-pairs")
    Select(driver.find_element("css selector", "[data-role=matrix-colour]")).select_by_value(
        "effect"
    )
    Select(driver.find_element("css selector", "[data-role=matrix-metric]")).select_by_value("ndcg")
    assert "ndcg" in driver.find_element("css selector", "[data-role=matrix-details]").text
    assert "orange" in driver.find_element("css selector", "[data-role=matrix-legend]").text
    screenshot(driver, "report-many-pairs-effect")
    width, inner = driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth]"
    )
    assert width <= inner
    assert console_errors(driver) == []
