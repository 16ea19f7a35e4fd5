"""The HTML report (ragmeter.report, `ragmeter report`): its numbers are the saved results',
it rebuilds byte for byte, it escapes the data, and it works in a real browser from disk with no
network (tests/browser.py)."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _saved import unstamped
from browser import browser_or_skip, console_errors, requested_urls, screenshot

from ragmeter import InvalidInputError, compare_many, report
from ragmeter.html_report._sources import SAVED_TYPES

QUERIES = [f"q{i}" for i in range(40)]


def _runs(tmp_path: Path) -> tuple[Path, list[Path]]:
    rng = random.Random(7)
    qrels = tmp_path / "qrels.txt"
    with qrels.open("w") as f:
        for q in QUERIES:
            for d in range(15):
                f.write(f"{q} 0 d{d} {rng.choice([0, 0, 1, 2])}\n")
    runs = []
    for name in ("bm25", "dense", "hybrid"):
        path = tmp_path / f"{name}.run"
        with path.open("w") as f:
            for q in QUERIES:
                for rank, d in enumerate(rng.sample(range(15), 10)):
                    f.write(f"{q} Q0 d{d} {rank + 1} {50 - rank} {name}\n")
        runs.append(path)
    return qrels, runs


def _cli(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ragmeter", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> tuple[Path, Path]:
    """A comparison saved by `ragmeter compare` and its report built by `ragmeter report`."""
    tmp = tmp_path_factory.mktemp("report")
    qrels, runs = _runs(tmp)
    _cli(
        "compare",
        qrels,
        *runs,
        "--baseline",
        "bm25.run",
        "--test",
        "t",
        "--format",
        "json",
        "--output",
        tmp / "cmp.json",
        cwd=tmp,
    )
    _cli("report", tmp / "cmp.json", "-o", tmp / "report.html", cwd=tmp)
    return tmp / "cmp.json", tmp / "report.html"


def test_the_summary_and_the_pairs_are_the_saved_numbers(campaign):
    saved = json.loads(campaign[0].read_text())
    page = campaign[1].read_text()
    for system, by_metric in saved["values"].items():
        for metric, values in by_metric.items():
            mean = float(np.mean([v for v in values if v is not None]))
            cell = f'data-system="{system}" data-metric="{metric}" data-mean="{mean!r}"'
            assert cell in page, (system, metric)
    # The table of differences is drawn by the page's script from its data block.
    data = json.loads(page.split('id="ragmeter-data">', 1)[1].split("</script>", 1)[0])
    rows = {(r["candidate"], r["metric"]): r for r in data["pairs"][0]["rows"]}
    for pair in saved["comparisons"]:
        for m in pair["metrics"]:
            row = rows[pair["candidate"], m["metric"]]
            assert row["baseline"] == pair["baseline"]
            assert (row["delta"], row["p"]) == (m["delta"], m["p_value"])
    assert "paired Student t-test" in page or "t-test" in page


def test_the_same_results_give_the_same_bytes(campaign, tmp_path):
    again = tmp_path / "again.html"
    _cli("report", campaign[0], "-o", again, cwd=tmp_path)
    assert again.read_bytes() == campaign[1].read_bytes()


def test_a_comparison_object_and_evaluations_are_read(tmp_path):
    systems = {
        "a": {"map": {"q1": 0.1, "q2": 0.5, "q3": 0.3}},
        "b": {"map": {"q1": 0.2, "q2": 0.4, "q3": 0.6}},
    }
    page = report(compare_many(systems, baseline="a", test="t"), output=tmp_path / "r.html")
    assert (tmp_path / "r.html").read_text() == page
    assert 'data-mean="0.3"' in page
    qrels, runs = _runs(tmp_path)
    evaluation = tmp_path / "ev.json"
    evaluation.write_text(
        _cli("evaluate", "-q", "--format", "json", qrels, *runs, cwd=tmp_path).stdout
    )
    page = report(evaluation)
    assert "No significance test" in page and "hybrid.run" in page


def test_inputs_it_cannot_read_are_refused(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"something": 1}')
    with pytest.raises(InvalidInputError, match="not a result ragmeter writes"):
        report(bad)
    with pytest.raises(InvalidInputError, match="at least one"):
        report()
    systems = {"a": {"m": {"q1": 0.1, "q2": 0.2}}, "b": {"m": {"q1": 0.3, "q2": 0.1}}}
    with pytest.raises(InvalidInputError, match="baseline: 'c' is not a system"):
        report(compare_many(systems, test="t"), baseline="c")
    evaluation = tmp_path / "means.json"
    evaluation.write_text('{"run.txt": {"means": {"map": 0.1}, "n_queries": 1}}')
    with pytest.raises(InvalidInputError, match="evaluate -q"):
        report(evaluation)


HOSTILE = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def _hostile_inputs(tmp_path: Path) -> list[Path]:
    values = {
        "sys<b>a</b>": {"map": {HOSTILE: 0.2, "q2": 0.4}},
        "b": {"map": {HOSTILE: 0.1, "q2": 0.6}},
    }
    path = tmp_path / "hostile.json"
    compare_many(values, baseline="b", test="t").write(path)
    from ragmeter.judges import JudgeResults, SampleResult, Score

    class Faithfulness:
        name = "faithfulness"

    rows = [
        SampleResult(
            HOSTILE,
            "faithfulness",
            Score.ok(
                0.5, reasons=[HOSTILE], evidence={"claims": [HOSTILE], "verdicts": ["supported"]}
            ),
            "judge",
        ),
        SampleResult("s2", "faithfulness", Score.error("transport", "HTTP 500 </script>"), "judge"),
    ]
    judges = JudgeResults(rows, metrics=[Faithfulness()], manifest={}).write(
        tmp_path / "judges.jsonl"
    )
    return [path, judges]


def test_data_is_escaped_in_the_file(tmp_path):
    page = report(*_hostile_inputs(tmp_path))
    assert "<script>window.__pwned" not in page
    assert "<img" not in page  # escaped as text in the tables, as \u003c in the data block
    assert page.count("<script") == 2  # the data block and the report's own script


# -- in a real browser ----------------------------------------------------------------------------


@pytest.fixture
def driver():
    browser = browser_or_skip()
    yield browser
    browser.quit()


def test_the_report_opens_from_disk_with_no_request_and_no_error(campaign, driver):
    driver.get(campaign[1].as_uri())
    screenshot(driver, "report-campaign")
    assert [u for u in requested_urls(driver) if not u.startswith(("file:", "data:"))] == []
    assert console_errors(driver) == []
    summary = driver.find_elements("css selector", 'table[data-role="summary"] tr')
    assert len(summary) == 1 + 3
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("css selector", '[data-role="pairs-metric"]')).select_by_index(0)
    pairs = driver.find_elements("css selector", 'table[data-role="pairs"] tr')
    saved = json.loads(campaign[0].read_text())
    assert len(pairs) == 1 + sum(len(c["metrics"]) for c in saved["comparisons"])


def _rows(driver) -> list[list[str]]:
    table = driver.find_element("css selector", 'table[data-role="per-query"]')
    return [
        [cell.text for cell in tr.find_elements("css selector", "td")]
        for tr in table.find_elements("css selector", "tr")[1:]
    ]


def test_the_explorer_puts_the_worst_regressions_first_and_sorts_and_filters(campaign, driver):
    saved = json.loads(campaign[0].read_text())
    driver.get(campaign[1].as_uri())
    metric = saved["metrics"][0]
    values = {s: saved["values"][s][metric] for s in saved["systems"]}
    base = saved["baseline"]
    worst = {
        q: min(values[s][i] - values[base][i] for s in saved["systems"] if s != base)
        for i, q in enumerate(saved["query_ids"])
    }
    expected = sorted(worst, key=lambda q: (worst[q], q))
    rows = _rows(driver)
    assert [r[0] for r in rows] == expected
    assert float(rows[0][-1]) == pytest.approx(worst[expected[0]], abs=5e-5)
    # the per-query values shown are the saved ones
    first = saved["query_ids"].index(expected[0])
    for column, system in enumerate(saved["systems"], start=1):
        assert float(rows[0][column]) == pytest.approx(values[system][first], abs=5e-5)
    driver.find_element("css selector", 'th[data-sort="query"]').click()
    assert [r[0] for r in _rows(driver)] == sorted(saved["query_ids"])
    search = driver.find_element("css selector", 'input[data-role="filter"]')
    search.send_keys("q1")
    shown = [r[0] for r in _rows(driver)]
    assert shown == sorted(q for q in saved["query_ids"] if "q1" in q)
    counts = driver.find_element("css selector", '[data-role="counts"]').text
    for system in saved["systems"]:
        if system == base:
            continue
        d = np.array(values[system]) - np.array(values[base])
        wins, ties, losses = int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())
        assert f"{system} {wins} wins / {ties} ties / {losses} losses" in counts


def test_markup_in_the_data_is_shown_never_run(tmp_path, driver):
    path = tmp_path / "hostile.html"
    report(*_hostile_inputs(tmp_path), output=path)
    driver.get(path.as_uri())
    screenshot(driver, "report-hostile")
    assert driver.execute_script("return window.__pwned === undefined")
    assert console_errors(driver) == []
    cells = [r[0] for r in _rows(driver)]
    assert HOSTILE in cells
    judge_text = driver.find_element("css selector", 'table[data-role="judge-rows"]').text
    assert HOSTILE in judge_text and "HTTP 500 </script>" in judge_text
    assert "error" in judge_text


def test_the_explorer_renders_a_large_campaign_lazily(tmp_path, driver):
    rng = np.random.default_rng(3)
    queries = [f"q{i:05d}" for i in range(3000)]
    systems = {
        f"s{k}": {"map": dict(zip(queries, rng.random(len(queries)).tolist(), strict=True))}
        for k in range(5)
    }
    path = tmp_path / "large.html"
    report(compare_many(systems, baseline="s0", test="t"), output=path)
    driver.get(path.as_uri())
    assert len(_rows(driver)) == 200
    driver.find_element("css selector", 'button[data-role="more"]').click()
    assert len(_rows(driver)) == 400
    assert not math.isnan(float(_rows(driver)[0][1]))


def test_saved_ranking_evaluations_are_read_whoever_wrote_them(tmp_path):
    from ragmeter import ranking_metrics

    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d9": 1}}
    run = {"q1": ["d1", "d2"], "q2": ["d1", "d2"], "q3": ["d1"]}
    per_query = ranking_metrics(qrels, run, metrics=["mrr"], average=None)
    per_query.name = "bm25"
    page = report(per_query.write(tmp_path / "bm25.yaml"))
    # Reciprocal ranks 1, 1/2 and 0, by hand: their mean is 0.5.
    assert 'data-system="bm25" data-metric="mrr" data-mean="0.5"' in page
    assert "ragmeter.evaluation" in page
    means = ranking_metrics(qrels, run, metrics=["mrr"])
    with pytest.raises(InvalidInputError, match="holds no per-query values"):
        report(means.write(tmp_path / "means.json"))


def test_a_saved_retrieval_evaluation_is_read(tmp_path):
    from ragmeter import evaluate_retrieval

    def retriever(text):
        return ["d1", "d2"]

    queries = {"q1": "first", "q2": "second", "q3": "third"}
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d9": 1}}
    evaluation = evaluate_retrieval(retriever, queries, qrels, metrics=["mrr"], name="bm25")
    path = tmp_path / "bm25.json"
    evaluation.write(path)
    page = report(path)
    # Reciprocal ranks 1, 1/2 and 0, by hand: their mean is 0.5.
    assert 'data-system="bm25" data-metric="mrr" data-mean="0.5"' in page
    assert "ragmeter.retrieval_evaluation" in page  # the manifest names what was read
    path.write_text(path.read_text().replace('"status": "success"', '"status": "fine"', 1))
    with pytest.raises(InvalidInputError, match=r"bm25\.json: its content does not match"):
        report(path)


def test_a_saved_judges_report_is_read_as_its_rows(tmp_path):
    from ragmeter.judges import RubricMetric, Sample, ScriptedJudge
    from ragmeter.judges import evaluate as judge

    metric = RubricMetric("grade", "Grade $answer.", allowed_values=[0, 1, 2])
    samples = [Sample("Q?", f"answer {i}.", id=f"s{i}") for i in range(3)]
    scripted = ScriptedJudge(
        {"rubric_grade": lambda request: {"value": 2, "reason": "a fine answer"}}
    )
    results = judge(samples, [metric], judge=scripted, progress=False)
    saved = tmp_path / "judges.json"
    results.write(saved)
    assert results.to_report_dict()["kind"] in SAVED_TYPES  # the kind the report knows
    from_file, from_rows = tmp_path / "file.html", tmp_path / "rows.html"
    report(saved, output=from_file)
    rows = tmp_path / "judges.jsonl"
    results.to_jsonl(rows)
    report(rows, output=from_rows)

    import hashlib

    def without_manifest(page: str, path: Path, kind: str) -> str:
        data = path.read_bytes()
        for specific in (path.name, hashlib.sha256(data).hexdigest(), f">{len(data)}<", kind):
            assert specific in page
            page = page.replace(specific, "")
        return page

    def without_integrity(page: str) -> tuple[str, str]:
        start = page.index("<h3>Judge integrity</h3>")
        end = page.index("</table>", start) + len("</table>")
        return page[:start] + page[end:], page[start:end]

    # The same page, whichever file held the rows, but for the manifest of the file read and
    # the judge integrity section: rows hold no manifest (the judge, its prompts) nor samples.
    def without_samples(page: str) -> tuple[str, dict]:
        start = page.index('"samples":') + len('"samples":')
        held, end = json.JSONDecoder().raw_decode(page, start)
        return page[:start] + "{}" + page[end:], held

    # The saved file holds the samples, shown beside their rows; rows alone do not.
    with_samples, held = without_samples(from_file.read_text())
    assert held == {s.id: s.to_dict() for s in samples}
    page, integrity = without_integrity(without_manifest(with_samples, saved, "ragmeter.judges"))
    other, rows_integrity = without_integrity(
        without_manifest(from_rows.read_text(), rows, "ragmeter.judges")
    )
    assert page == other
    assert "prompt of grade" in integrity and "rubric.grade@1: sha256" in integrity
    assert "prompt of grade" not in rows_integrity and "no samples" in rows_integrity
    # Read back as every saved result is: an edited file is refused by its checksum, and one
    # without a checksum (written before saved results had one) by the field that changed.
    edited = json.loads(saved.read_text())
    edited["rows"][0]["value"] = 1.0
    saved.write_text(json.dumps(edited))
    with pytest.raises(InvalidInputError, match=r"judges\.json: its content does not match"):
        report(saved)
    saved.write_text(json.dumps(unstamped(edited)))
    with pytest.raises(InvalidInputError, match=r"judges\.json: .*metrics\.grade\.mean"):
        report(saved)
    assert all(f"s{i}" in page for i in range(3)) and 'data-mean="2.0"' in page


def test_every_saved_kind_with_a_schema_is_read_by_the_report():
    from ragmeter.schemas import RESULT_SCHEMAS

    # The gate's result is a decision, not values to show. Every other kind is read back by
    # its saved result type (SavedResult: KIND, read).
    assert set(SAVED_TYPES) == set(RESULT_SCHEMAS) - {"ragmeter.gate"}
    for kind, cls in SAVED_TYPES.items():
        assert kind == cls.KIND and callable(cls.read) and cls.FORMAT_VERSION


def test_the_judge_integrity_section_shows_a_planted_length_bias(tmp_path, driver):
    """Issue 49 item 4: the report shows a judge's identity, prompt digests and biases, the
    flags first; here a scripted pairwise judge that prefers the longer answer 80% of the
    time, judging answers of a declared generator of its own family."""
    from ragmeter.judges import PairwisePreferenceMetric, Sample, ScriptedJudge
    from ragmeter.judges import evaluate as judge

    rng = random.Random(5)
    words = ["the", "tower", "is", "in", "paris", "and", "tall"]
    samples = [
        Sample(
            f"Question {i}?",
            " ".join(rng.choice(words) for _ in range(rng.randint(5, 90))),
            answer_b=" ".join(rng.choice(words) for _ in range(rng.randint(5, 90))),
            id=f"p{i}",
            metadata={"generator": "gpt-4o-mini"},
        )
        for i in range(120)
    ]

    def longer(request):
        text = request.first_user_message()
        one = text.split("<data:response_1>\n")[1].split("\n</data:response_1>")[0]
        two = text.split("<data:response_2>\n")[1].split("\n</data:response_2>")[0]
        draw = random.Random(text)
        if draw.random() < 0.8:
            return {"winner": "1" if len(one.split()) > len(two.split()) else "2", "reason": "r"}
        return {"winner": draw.choice(["1", "2"]), "reason": "r"}

    scripted = ScriptedJudge({"pairwise_preference": longer}, name="gpt-4o")
    results = judge(samples, [PairwisePreferenceMetric()], judge=scripted, progress=False)
    saved = results.write(tmp_path / "pairwise.json")
    path = tmp_path / "integrity.html"
    report(saved, output=path)
    driver.get(path.as_uri())
    section = driver.find_element("css selector", 'table[data-role="judge-integrity"]')
    driver.execute_script("arguments[0].scrollIntoView()", section)
    screenshot(driver, "report-judge-integrity")
    assert console_errors(driver) == []
    flags = [tr.text for tr in section.find_elements("css selector", "tr.flag")]
    assert any("longer answer wins" in f for f in flags), flags
    assert any("self-judging" in f for f in flags), flags
    text = section.text
    assert "pairwise_preference@3: sha256" in text and "position flips" in text


def test_judge_results_show_their_samples_repeats_noise_and_panel_agreement(tmp_path, driver):
    """Issue 50 item 5: a judge result's rows show the question (the answer and contexts a
    click away), a result judged several times its judge's noise, a panel its agreement."""
    from ragmeter.judges import Panel, RubricMetric, Sample, ScriptedJudge
    from ragmeter.judges import evaluate as judge

    def noisy(name):
        def answer(request):
            i = int(request.first_user_message().split("answer ")[1].split(".")[0])
            draw = random.Random(f"{name}/{i}/{request.seed}")
            return {"value": min(4, max(0, i % 5 + draw.choice([-1, 0, 0, 1]))), "reason": "r"}

        return ScriptedJudge({"rubric_grade": answer}, name=name)

    metric = RubricMetric("grade", "Grade $answer.", allowed_values=[0, 1, 2, 3, 4])
    samples = [
        Sample(
            f"Question <{i}>?", f"answer {i}.", contexts=[f"first {i}", f"second {i}"], id=f"s{i}"
        )
        for i in range(10)
    ]
    results = judge(
        samples, [metric], judge=Panel([noisy("a"), noisy("b")]), repeats=3, progress=False
    )
    path = tmp_path / "judged.html"
    report(results.write(tmp_path / "judged.json"), output=path)

    # The variance components by hand (one-way ANOVA of a balanced design: each sample's three
    # repeats of the panel's value): within = MSW, between = (MSB - MSW) / r.
    values = np.array(
        [[v for v in row["evidence"]["values"]] for row in results.to_records()], dtype=float
    )
    a, r = values.shape
    msw = float(((values - values.mean(axis=1, keepdims=True)) ** 2).sum() / (a * (r - 1)))
    msb = float(r * ((values.mean(axis=1) - values.mean()) ** 2).sum() / (a - 1))
    # Krippendorff's alpha of the two judges' values (the krippendorff package, ordinal).
    import krippendorff

    by_judge = [[row["judge_scores"][j]["value"] for row in results.to_records()] for j in "ab"]
    alpha = krippendorff.alpha(
        reliability_data=by_judge, level_of_measurement="ordinal", value_domain=[0, 1, 2, 3, 4]
    )

    driver.get(path.as_uri())
    assert console_errors(driver) == []
    repeats = driver.find_element("css selector", 'table[data-role="judge-repeats"]')
    driver.execute_script("arguments[0].scrollIntoView()", repeats)
    screenshot(driver, "report-judge-repeats")
    cells = repeats.find_elements("css selector", "tr")[1].find_elements("css selector", "td")
    assert cells[0].text == "grade" and cells[5].text == "3"
    assert cells[6].text == f"{(msb - msw) / r:.4f}" and cells[7].text == f"{msw:.4f}"
    agreement = driver.find_element("css selector", 'table[data-role="judge-agreement"]')
    row = agreement.find_elements("css selector", "tr")[1].find_elements("css selector", "td")
    assert row[1].text == "a, b" and row[4].text == f"{alpha:.3f}"
    rows = driver.find_element("css selector", 'table[data-role="judge-rows"]')
    first = rows.find_elements("css selector", "tr")[1]
    assert "Question <0>?" in first.text  # shown as text, never as markup
    first.find_element("css selector", "summary").click()
    opened = first.find_element("css selector", "details").text
    assert all(t in opened for t in ("answer 0.", "context 1", "first 0", "context 2", "second 0"))
    driver.execute_script("arguments[0].scrollIntoView()", first)
    screenshot(driver, "report-judge-sample")
