"""Bradley-Terry ratings and rank intervals in the command (``ragmeter rank``) and in the HTML
report (issue 46 item 5: "Bradley-Terry (and Elo-equivalent) ratings from pairwise preferences
with bootstrap intervals of ratings and ranks; rank intervals for system means from any
campaign").

Oracles: ``choix.ilsr_pairwise`` (the maximum-likelihood Bradley-Terry strengths) for the
ratings, on FastChat-style battles written as FastChat's ``clean_battle_data.py`` writes them
(fields ``model_a``, ``model_b``, ``winner``, plus ones the reader ignores); for the rank and
mean intervals, the exact bootstrap distribution, enumerated over every multiset of items (every
resample the bootstrap can draw, with its multinomial probability), brute force: the sampled
intervals equal its quantiles where no quantile sits within Monte-Carlo error of a boundary
(checked in the test). The report is looked at in headless Chromium (tests/browser.py)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from browser import browser_or_skip, console_errors, requested_urls, screenshot

from ragmeter import compare_many, report
from ragmeter.cli import main
from ragmeter.stats import rank_intervals

STRENGTHS = {"gpt-4": 1.0, "claude-v1": 0.6, "vicuna-13b": 0.0, "llama-13b": -1.0}

#: Seven items, three systems: "a" clearly first, "b" and "c" close.
VALUES = {
    "a": [0.9, 0.8, 0.95, 0.7, 0.85, 0.9, 0.75],
    "b": [0.6, 0.4, 0.7, 0.5, 0.3, 0.65, 0.45],
    "c": [0.5, 0.55, 0.6, 0.35, 0.5, 0.4, 0.6],
}


def _battles(path: Path, n: int = 2000, seed: int = 3) -> list[dict]:
    rng = np.random.default_rng(seed)
    names = list(STRENGTHS)
    battles = []
    for i in range(n):
        a, b = rng.choice(len(names), size=2, replace=False)
        p = 1 / (1 + math.exp(STRENGTHS[names[b]] - STRENGTHS[names[a]]))
        battles.append(
            {
                "question_id": f"q{i % 80}",
                "model_a": names[a],
                "model_b": names[b],
                "winner": "model_a" if rng.random() < p else "model_b",
                "judge": "gpt-4",
                "turn": 1,
                "anony": True,
            }
        )
    path.write_text("".join(json.dumps(b) + "\n" for b in battles))
    return battles


def _choix_ratings(battles: list[dict]) -> dict[str, float]:
    choix = pytest.importorskip("choix")
    names = sorted(STRENGTHS)
    index = {n: i for i, n in enumerate(names)}
    data = [
        (index[b["model_a"]], index[b["model_b"]])
        if b["winner"] == "model_a"
        else (index[b["model_b"]], index[b["model_a"]])
        for b in battles
    ]
    theta = choix.ilsr_pairwise(len(names), data, alpha=0.0, tol=1e-14, max_iter=100_000)
    theta = theta - theta.mean()
    return {n: 1000 + 400 / math.log(10) * theta[index[n]] for n in names}


def _exact_bootstrap(values: dict[str, list[float]], level: float = 0.95):
    """Every resample of the n items (a multiset: counts summing to n) with its multinomial
    probability: the exact bootstrap distribution of each system's rank and mean."""
    names = list(values)
    matrix = np.array([values[s] for s in names]).T
    n = matrix.shape[0]
    ranks: dict[str, dict[int, float]] = {s: {} for s in names}
    means: dict[str, list[tuple[float, float]]] = {s: [] for s in names}
    for cut in itertools.combinations(range(2 * n - 1), n - 1):
        counts = np.diff((-1, *cut, 2 * n - 1)) - 1
        p = math.factorial(n) / math.prod(math.factorial(int(c)) for c in counts) / n**n
        m = counts @ matrix / n
        rank = 1 + (m[None, :] > m[:, None]).sum(axis=1)
        for k, s in enumerate(names):
            ranks[s][int(rank[k])] = ranks[s].get(int(rank[k]), 0.0) + p
            means[s].append((float(m[k]), p))
    lo, hi = (1 - level) / 2, (1 + level) / 2

    def quantile(pairs: list[tuple[float, float]], q: float) -> tuple[float, float]:
        """The q-quantile and how far the CDF is from q at the neighbouring atoms."""
        total = 0.0
        for value, prob in sorted(pairs):
            total += prob
            if total >= q:
                return value, min(abs(total - q), abs(total - prob - q))
        raise AssertionError

    exact = {}
    for s in names:
        atoms = [(float(r), p) for r, p in ranks[s].items()]
        (r_lo, gap_lo), (r_hi, gap_hi) = quantile(atoms, lo), quantile(atoms, hi)
        m_lo, _ = quantile(means[s], lo)
        m_hi, _ = quantile(means[s], hi)
        exact[s] = (int(r_lo), int(r_hi), m_lo, m_hi, min(gap_lo, gap_hi))
    return exact


def test_rank_command_gives_choix_ratings_from_a_fastchat_file(tmp_path: Path, capsys) -> None:
    battles = _battles(tmp_path / "battles.jsonl")
    expected = _choix_ratings(battles)
    status = main(["rank", "--battles", str(tmp_path / "battles.jsonl"), "--format", "json"])
    assert status == 0
    (ranking,) = json.loads(capsys.readouterr().out)["rankings"]
    assert ranking["n_battles"] == len(battles)
    got = {s["system"]: s for s in ranking["systems"]}
    for name, rating in expected.items():
        assert got[name]["rating"] == pytest.approx(rating, abs=1e-6)
        assert got[name]["rating_low"] < rating < got[name]["rating_high"]
    assert [s["system"] for s in ranking["systems"]] == list(STRENGTHS)  # best first
    assert got["gpt-4"]["rank"] == 1 and got["gpt-4"]["rank_low"] == 1


def test_rank_intervals_of_means_equal_the_exact_bootstrap() -> None:
    exact = _exact_bootstrap(VALUES)
    found = rank_intervals(VALUES, n_resamples=40_000, random_state=1)
    for system, (r_lo, r_hi, m_lo, m_hi, gap) in exact.items():
        assert gap > 0.005, "a quantile within Monte-Carlo error of a boundary: pick other data"
        assert (found[system].low, found[system].high) == (r_lo, r_hi), system
        assert found[system].mean_low == pytest.approx(m_lo, abs=0.012)
        assert found[system].mean_high == pytest.approx(m_hi, abs=0.012)
    assert exact["b"][:2] == (2, 3)  # the data do not settle b against c


def _values_files(tmp_path: Path) -> list[str]:
    paths = []
    for name, column in VALUES.items():
        path = tmp_path / f"{name}.csv"
        path.write_text("query_id,acc\n" + "".join(f"q{i},{v}\n" for i, v in enumerate(column)))
        paths.append(str(path))
    return paths


def test_rank_command_on_files_of_values(tmp_path: Path, capsys) -> None:
    exact = _exact_bootstrap(VALUES)
    status = main(["rank", *_values_files(tmp_path), "--resamples", "40000", "--seed", "1"])
    out = capsys.readouterr().out
    assert status == 0
    lines = {line.split()[1]: line for line in out.splitlines()[1:4]}
    for system, (r_lo, r_hi, *_rest) in exact.items():
        mean = np.mean(VALUES[system])
        assert f"{mean:.4f}" in lines[system] and lines[system].rstrip().endswith(f"{r_lo}-{r_hi}")
    assert "means over 7 items" in out and "Hall & Miller 2009" in out
    status = main(["rank", *_values_files(tmp_path), "--format", "markdown"])
    assert status == 0 and "| rank | system | mean |" in capsys.readouterr().out


def test_rank_command_errors_exit_2_naming_the_line(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"model_a": "x", "model_b": "y", "winner": "model_a"}\n{"model_a": "x"}\n')
    assert main(["rank", "--battles", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:2: no model_b" in err and "Traceback" not in err
    other = tmp_path / "other.jsonl"
    other.write_text('{"model_a": "x", "model_b": "y", "winner": "both"}\n')
    assert main(["rank", "--battles", str(other)]) == 2
    assert "winner is 'both'" in capsys.readouterr().err
    assert main(["rank", _values_files(tmp_path)[0]]) == 2
    assert "at least two systems" in capsys.readouterr().err


@pytest.fixture
def page(tmp_path: Path) -> tuple[Path, list[dict]]:
    systems = {n: {"acc": {f"q{i}": v for i, v in enumerate(c)}} for n, c in VALUES.items()}
    battles = _battles(tmp_path / "battles.jsonl")
    path = tmp_path / "report.html"
    report(compare_many(systems, test="t"), output=path, battles=tmp_path / "battles.jsonl")
    return path, battles


def test_the_report_shows_rank_intervals_and_ratings(page) -> None:
    path, battles = page
    text = path.read_text()
    exact = _exact_bootstrap(VALUES)
    for system, (r_lo, r_hi, *_rest) in exact.items():
        assert f"<td>{r_lo}–{r_hi}</td>" in text.split(f'data-ranked="{system}"><td>')[1][:400]
    for name, rating in _choix_ratings(battles).items():
        row = text.split(f'data-ranked="{name}"><td>')[-1][:400]
        assert f"<td>{rating:.1f}</td>" in row
    assert "Pairwise preferences" in text and "Rank intervals" in text


def test_the_rankings_in_a_browser(page) -> None:
    driver = browser_or_skip()
    try:
        driver.get(page[0].as_uri())
        tables = driver.find_elements("css selector", 'table[data-role="rankings"]')
        assert len(tables) == 2
        driver.execute_script("arguments[0].scrollIntoView()", tables[0])
        screenshot(driver, "report-rank-intervals")
        driver.execute_script("arguments[0].scrollIntoView()", tables[1])
        screenshot(driver, "report-bradley-terry")
        assert [u for u in requested_urls(driver) if not u.startswith(("file:", "data:"))] == []
        assert console_errors(driver) == []
        rows = tables[1].find_elements("css selector", "tr")[1:]
        assert [r.get_attribute("data-ranked") for r in rows] == list(STRENGTHS)
        strip = rows[0].find_element("css selector", "svg")
        assert strip.get_attribute("aria-label").startswith("ranks 1 to ")
        assert strip.size["width"] > 0
    finally:
        driver.quit()
