"""``ragmeter gate``: run files evaluated against qrels (values from pytrec_eval, p-values from
scipy), saved results of every form, exit codes, stderr verdicts, Markdown, JSON, JUnit XML,
and bad input (exit 2 with what to do)."""

from __future__ import annotations

import contextlib
import io
import json
import math
import random
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from ragmeter.cli import main

scipy_stats = pytest.importorskip("scipy.stats")
pytrec_eval = pytest.importorskip("pytrec_eval")


@pytest.fixture
def campaign(tmp_path: Path) -> dict[str, Path]:
    rng = random.Random(7)
    qrels: dict[str, dict[str, int]] = {}
    lines = []
    for q in range(40):
        judged = {f"d{d}": rng.randint(1, 2) for d in range(15) if rng.random() < 0.3}
        judged = judged or {"d0": 1}
        qrels[f"q{q}"] = judged
        lines += [f"q{q} 0 {d} {g}" for d, g in judged.items()]
    (tmp_path / "qrels.txt").write_text("\n".join(lines) + "\n")
    runs = {}
    for name in ("base", "cand"):
        out = []
        run: dict[str, dict[str, float]] = {}
        for q in range(40):
            docs = list(range(15))
            rng.shuffle(docs)
            run[f"q{q}"] = {f"d{d}": float(15 - r) for r, d in enumerate(docs)}
            out += [f"q{q} Q0 d{d} {r + 1} {15 - r} {name}" for r, d in enumerate(docs)]
        (tmp_path / f"{name}.txt").write_text("\n".join(out) + "\n")
        runs[name] = run
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"})
    values = {n: evaluator.evaluate(r) for n, r in runs.items()}
    ids = sorted(qrels)
    for n in runs:
        (tmp_path / f"{n}.json").write_text(
            json.dumps({"ndcg@10": {q: values[n][q]["ndcg_cut_10"] for q in ids}})
        )
    return {
        "dir": tmp_path,
        "qrels": tmp_path / "qrels.txt",
        "base": tmp_path / "base.txt",
        "cand": tmp_path / "cand.txt",
        "base_values": np.array([values["base"][q]["ndcg_cut_10"] for q in ids]),  # type: ignore[dict-item]
        "cand_values": np.array([values["cand"][q]["ndcg_cut_10"] for q in ids]),  # type: ignore[dict-item]
    }


def _gate(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    status = main(["gate", *map(str, argv)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_run_files_are_evaluated_and_tested_as_scipy_does(
    campaign: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _gate(
        capsys,
        "--baseline",
        campaign["base"],
        "--candidate",
        campaign["cand"],
        "--qrels",
        campaign["qrels"],
        "-m",
        "ndcg@10",
        "--margin",
        "0.3",
        "--format",
        "json",
    )
    data = json.loads(out)
    check = data["checks"][0]
    c, b = campaign["cand_values"], campaign["base_values"]
    expected = scipy_stats.ttest_rel(c + 0.3, b, alternative="greater").pvalue
    assert check["p_value"] == pytest.approx(expected, rel=1e-9)
    assert check["mean"] == pytest.approx(float(np.mean(c - b)), abs=1e-12)
    assert status == (0 if expected <= 0.05 else 1) == (0 if data["passed"] else 1)
    assert err.count("ragmeter gate: ") == 1


def test_exit_status_is_0_on_pass_and_1_on_fail(
    campaign: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    base, cand = campaign["dir"] / "base.json", campaign["dir"] / "cand.json"
    c, b = campaign["cand_values"], campaign["base_values"]
    # A margin so wide the candidate passes, and one so narrow it cannot.
    wide = float(-np.mean(c - b) + 4 * np.std(c - b) / math.sqrt(c.size) + 0.05)
    status, _, err = _gate(
        capsys, "--baseline", base, "--candidate", cand, "-m", "ndcg@10", "--margin", round(wide, 3)
    )
    assert status == 0 and "PASS ndcg@10" in err
    status, out, err = _gate(
        capsys,
        "--baseline",
        base,
        "--candidate",
        cand,
        "-m",
        "ndcg@10",
        "--margin",
        "0",
        "--format",
        "markdown",
    )
    assert status == 1 and "FAIL ndcg@10" in err
    assert out.startswith("### ragmeter gate ❌ failed")


def test_junit_xml_has_one_testcase_per_check(
    campaign: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    junit = campaign["dir"] / "gate.xml"
    status, _, _ = _gate(
        capsys,
        "--baseline",
        campaign["dir"] / "base.json",
        "--candidate",
        campaign["dir"] / "cand.json",
        "-m",
        "ndcg@10",
        "--margin",
        "0",
        "--floor",
        "ndcg@10=0.01",
        "--junit",
        junit,
    )
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites"
    (suite,) = root
    assert suite.tag == "testsuite" and suite.get("tests") == "2"
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [
        "ndcg@10 non-inferiority (margin 0)",
        "ndcg@10 >= 0.01",
    ]
    failures = [c for c in cases if c.find("failure") is not None]
    assert suite.get("failures") == str(len(failures))
    assert status == (1 if failures else 0)


def test_judged_rows_with_repeats_and_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = []
    for s in range(30):
        for repeat in range(3):
            value = 1.0 if (s != 4 or repeat != 1) else 0.0
            rows.append(
                {"query_id": f"s{s}", "metric": "faithfulness", "repeat": repeat, "value": value}
            )
    # The judge's repeats, numbered by a repeat column (issue 44: repeated rows of one item
    # without one are refused, never averaged as repeats).
    (tmp_path / "cand.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    unnumbered = [{k: v for k, v in r.items() if k != "repeat"} for r in rows]
    (tmp_path / "rows.jsonl").write_text("\n".join(json.dumps(r) for r in unnumbered) + "\n")
    status, _, err = _gate(
        capsys,
        "--baseline",
        tmp_path / "rows.jsonl",
        "--candidate",
        tmp_path / "cand.jsonl",
        "-m",
        "faithfulness",
        "--margin",
        "0.05",
    )
    assert status == 2 and "rows.jsonl:2: a second value of 'faithfulness' for 's0'" in err
    assert "rows.jsonl:1" in err and "repeat column" in err
    (tmp_path / "base.csv").write_text(
        "query_id,faithfulness\n" + "".join(f"s{s},1.0\n" for s in range(30))
    )
    status, out, _ = _gate(
        capsys,
        "--baseline",
        tmp_path / "base.csv",
        "--candidate",
        tmp_path / "cand.jsonl",
        "-m",
        "faithfulness",
        "--margin",
        "0.05",
    )
    assert "1 flaky items" in out and "'s4'" in out
    assert status == 0
    (tmp_path / "long.csv").write_text(
        "query_id,metric,value\n" + "".join(f"s{s},faithfulness,1.0\n" for s in range(29))
    )
    status, _, err = _gate(
        capsys,
        "--baseline",
        tmp_path / "long.csv",
        "--candidate",
        tmp_path / "cand.jsonl",
        "-m",
        "faithfulness",
        "--margin",
        "0.05",
    )
    assert status == 2 and "'s29'" in err and "--missing skip" in err
    status, out, _ = _gate(
        capsys,
        "--baseline",
        tmp_path / "long.csv",
        "--candidate",
        tmp_path / "cand.jsonl",
        "-m",
        "faithfulness",
        "--margin",
        "0.05",
        "--missing",
        "skip",
    )
    assert status == 0 and "1 items only cand has were left out: 's29'" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["-m", "ndcg@10", "--margin", "-0.01"], "without a sign"),
        (["-m", "ndcg@10", "--margin", "1"], "not in percent"),
        (["-m", "ndcg@10"], "--margin: give the largest drop"),
        (["-m", "map", "--margin", "0.01"], "'map' is not in the baseline's results"),
        (["-m", "ndcg@10", "--margin-for", "ndcg@10"], "METRIC=VALUE"),
        (["-m", "ndcg@10", "--margin", "0.01", "--alpha", "0.7"], "alpha"),
    ],
)
def test_bad_input_exits_2_with_what_to_do(
    campaign: dict, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    status, _, err = _gate(
        capsys,
        "--baseline",
        campaign["dir"] / "base.json",
        "--candidate",
        campaign["dir"] / "cand.json",
        *extra,
    )
    assert status == 2
    assert message in err


def test_unreadable_or_foreign_baselines_exit_2(
    campaign: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = campaign["dir"] / "broken.json"
    broken.write_text("{not json")
    for baseline, message in (
        (broken, "not a valid JSON"),
        (campaign["dir"] / "absent.json", "No such file"),
        (campaign["base"], "--qrels"),
    ):
        status, _, err = _gate(
            capsys,
            "--baseline",
            baseline,
            "--candidate",
            campaign["dir"] / "cand.json",
            "-m",
            "ndcg@10",
            "--margin",
            "0.01",
        )
        assert status == 2 and message in err, err
    two = campaign["dir"] / "two.json"
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(["evaluate", "-q", "--format", "json", "-m", "ndcg_cut.10",
                     str(campaign["qrels"]), str(campaign["base"]),
                     str(campaign["dir"] / "cand.txt")]) == 0  # fmt: skip
    two.write_text(out.getvalue())
    status, _, err = _gate(
        capsys,
        "--baseline",
        two,
        "--candidate",
        campaign["dir"] / "cand.json",
        "-m",
        "ndcg@10",
        "--margin",
        "0.01",
    )
    assert status == 2 and "evaluate each run into its own file" in err


def test_evaluate_json_output_is_read(campaign: dict, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("base", "cand"):
        assert (
            main(
                [
                    "evaluate",
                    "-q",
                    "-m",
                    "ndcg@10",
                    "--format",
                    "json",
                    str(campaign["qrels"]),
                    str(campaign[name]),
                ]
            )
            == 0
        )
        (campaign["dir"] / f"{name}-eval.json").write_text(capsys.readouterr().out)
    _, out, _ = _gate(
        capsys,
        "--baseline",
        campaign["dir"] / "base-eval.json",
        "--candidate",
        campaign["dir"] / "cand-eval.json",
        "-m",
        "ndcg@10",
        "--margin",
        "0.3",
        "--format",
        "json",
    )
    c, b = campaign["cand_values"], campaign["base_values"]
    expected = scipy_stats.ttest_rel(c + 0.3, b, alternative="greater").pvalue
    assert json.loads(out)["checks"][0]["p_value"] == pytest.approx(expected, rel=1e-9)


def test_parquet_tables_are_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pa = pytest.importorskip("pyarrow")
    parquet = pytest.importorskip("pyarrow.parquet")
    ids = [f"q{i}" for i in range(30)]
    base = [0.5 + 0.01 * (i % 4) for i in range(30)]
    parquet.write_table(
        pa.table({"query_id": ids, "metric": ["mrr"] * 30, "value": base}), tmp_path / "b.parquet"
    )
    parquet.write_table(
        pa.table({"query_id": ids, "mrr": [v - 0.2 for v in base]}), tmp_path / "c.parquet"
    )
    status, out, _ = _gate(
        capsys,
        "--baseline",
        tmp_path / "b.parquet",
        "--candidate",
        tmp_path / "c.parquet",
        "-m",
        "mrr",
        "--margin",
        "0.05",
        "--format",
        "json",
    )
    check = json.loads(out)["checks"][0]
    assert status == 1 and check["outcome"] == "worse"
    assert check["mean"] == pytest.approx(-0.2)


def test_judges_reports_are_read_and_a_different_judge_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ragmeter.judges import RuleJudge, Sample, evaluate

    samples = [
        Sample(f"Who wrote Hamlet {i}?", "Shakespeare wrote Hamlet.", ["Hamlet is by Shakespeare."])
        for i in range(20)
    ]
    report = evaluate(samples, ["groundedness"], judge=RuleJudge(), progress=False)
    data = report.to_report_dict()
    (tmp_path / "base.json").write_text(json.dumps(data))
    (tmp_path / "cand.json").write_text(json.dumps(data))
    status, out, _ = _gate(
        capsys,
        "--baseline",
        tmp_path / "base.json",
        "--candidate",
        tmp_path / "cand.json",
        "-m",
        "groundedness",
        "--margin",
        "0.05",
    )
    assert status == 0 and "over 20 paired queries" in out
    data["manifest"]["judge"]["threshold"] = 0.9
    (tmp_path / "cand.json").write_text(json.dumps(data))
    status, _, err = _gate(
        capsys,
        "--baseline",
        tmp_path / "base.json",
        "--candidate",
        tmp_path / "cand.json",
        "-m",
        "groundedness",
        "--margin",
        "0.05",
    )
    assert status == 2 and "judged differently (judge.threshold: 0.5 vs 0.9" in err


def test_retrieval_evaluation_reports_are_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ragmeter import CorpusDocument, RetrievalConfig, RetrievalIndex, evaluate_retrieval
    from ragmeter.reports import write_report

    texts = {f"d{i}": f"document {i} about topic {i % 5} and item {i}" for i in range(20)}
    documents = [
        CorpusDocument(doc_id=k, input_path=f"memory://{k}", chunk_index=0, text=t)
        for k, t in texts.items()
    ]
    queries = {f"q{i}": f"topic {i % 5} item {i}" for i in range(20)}
    qrels = {f"q{i}": [f"d{i}"] for i in range(20)}
    index = RetrievalIndex(RetrievalConfig(match_mode="keyword", top_k=5)).build(documents)
    evaluation = evaluate_retrieval(index, queries, qrels, metrics=["mrr"])
    write_report(evaluation, tmp_path / "base.json")
    write_report(evaluation, tmp_path / "cand.json")
    status, out, _ = _gate(
        capsys,
        "--baseline",
        tmp_path / "base.json",
        "--candidate",
        tmp_path / "cand.json",
        "-m",
        "mrr",
        "--margin",
        "0.05",
        "--format",
        "json",
    )
    check = json.loads(out)["checks"][0]
    assert check["n"] == 20 and check["mean"] == 0.0
    assert check["baseline_mean"] == pytest.approx(float(evaluation.metrics["mrr"]))
    assert status == (0 if check["passed"] else 1)


def test_trec_eval_measure_names_are_the_keys_evaluate_writes(
    campaign: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _gate(
        capsys,
        "--baseline",
        campaign["base"],
        "--candidate",
        campaign["cand"],
        "--qrels",
        campaign["qrels"],
        "-m",
        "ndcg_cut.10",
        "-m",
        "P.5,10",
        "--margin",
        "0.3",
        "--margin-for",
        "P.5=0.2",
        "--format",
        "json",
    )
    checks = {c["metric"]: c for c in json.loads(out)["checks"]}
    assert set(checks) == {"ndcg_cut_10", "P_5", "P_10"}
    assert checks["P_5"]["margin"] == 0.2 and checks["P_10"]["margin"] == 0.3
    c, b = campaign["cand_values"], campaign["base_values"]
    expected = scipy_stats.ttest_rel(c + 0.3, b, alternative="greater").pvalue
    assert checks["ndcg_cut_10"]["p_value"] == pytest.approx(expected, rel=1e-9)
    assert err.count("ragmeter gate: ") == 3 and status in (0, 1)


def test_floors_alone_need_no_baseline_metric(
    campaign: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    from ragmeter.gate import gate

    values = json.loads((campaign["dir"] / "cand.json").read_text())
    result = gate(
        values, json.loads((campaign["dir"] / "base.json").read_text()), floors={"ndcg@10": 0.1}
    )
    assert [c.kind for c in result.checks] == ["floor"]
    expected = scipy_stats.ttest_1samp(campaign["cand_values"], 0.1, alternative="greater")
    assert result.checks[0].p_value == pytest.approx(expected.pvalue, rel=1e-9)
