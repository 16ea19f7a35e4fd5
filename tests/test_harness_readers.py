"""Readers of other evaluation harnesses' result files (``ragmeter.io``, one module per
format): each file is read back as per-item values, with repeats, clusters and a manifest
naming the harness, equal to what the file says item by item.

Where the files come from:

* Inspect AI: ``tests/data/harnesses/inspect_{a,b}.eval``, written by inspect-ai 0.3.285 itself
  (``tests/data/harnesses/inspect_task.py``, mockllm, 2 epochs; the ``.eval`` zip's members are
  Zstandard-compressed, as Inspect writes them since 2026); the oracle
  ``inspect_oracle.json`` was written by ``inspect_oracle.py`` with Inspect's own
  ``read_eval_log`` and ``value_to_float``.
* MLflow: written in the test by mlflow-skinny itself (``mlflow.log_table`` of an evaluation
  results table; ``Trace.to_dict`` of traces with ``Feedback`` assessments).
* Built in the test from the harness's documented schema, each at the commit named:
  - DeepEval ``TestRun``: https://github.com/confident-ai/deepeval/blob/ed593129d656ca9863cc874631a4cb4f22c261a9/deepeval/test_run/test_run.py
    and ``LLMApiTestCase`` in
    https://github.com/confident-ai/deepeval/blob/08080fcf620935d0a6541a9066d188a68696781f/deepeval/test_run/api.py
  - lm-evaluation-harness ``--log_samples``: the ``example`` dict of
    https://github.com/EleutherAI/lm-evaluation-harness/blob/5b321a1ad92f126671533121783340dc59e1b173/lm_eval/evaluator.py
  - promptfoo ``EvaluateResult`` / ``EvaluateSummaryV3``:
    https://github.com/promptfoo/promptfoo/blob/03c4cf2955ae17f9321153a9aa04696055b4c968/src/types/index.ts
  - TruLens ``get_records_and_feedback``:
    https://github.com/truera/trulens/blob/1cf78cca14c7fd902b20f23ac5b4a587c4a479c6/src/core/trulens/core/database/sqlalchemy.py
  - OpenAI Evals ``LocalRecorder``:
    https://github.com/openai/evals/blob/1823db3350e728f3c8cc8d7a43a6021bac33bbea/evals/record.py
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import ragmeter
from ragmeter.cli import main
from ragmeter.io import FORMATS, read_per_query, read_systems

DATA = Path(__file__).parent / "data" / "harnesses"


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


# -- Inspect AI ----------------------------------------------------------------------------


def test_inspect_eval_log_written_by_inspect_reads_as_its_own_reader_does() -> None:
    oracle = json.loads((DATA / "inspect_oracle.json").read_text())
    for name, expected in oracle.items():
        values = read_per_query(DATA / name, cluster="doc")
        assert values.name == expected["model"]
        assert values.manifest.producer == f"inspect_ai {expected['inspect_ai']}"
        assert values.manifest.measures["match"]["params"] == {"location": "any"}
        assert values.manifest.measures["match"]["task"] == expected["task"]
        repeats = values.repeats
        for item, epoch, scorer, value, doc in expected["rows"]:
            assert repeats[scorer][item][epoch - 1] == value
            assert values.clusters[item] == doc
        # every (item, epoch) of the log, and nothing else
        assert sum(len(r) for r in repeats["match"].values()) == sum(
            1 for row in expected["rows"] if row[2] == "match"
        )


def test_inspect_json_log_reads_like_the_eval_log(tmp_path: Path) -> None:
    from ragmeter.io._inspect import load

    log = load(str(DATA / "inspect_a.eval"))
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    assert read_per_query(path) == read_per_query(DATA / "inspect_a.eval")


def test_inspect_sample_with_an_error_is_failed_not_zero(tmp_path: Path) -> None:
    from ragmeter.io._inspect import load

    log = load(str(DATA / "inspect_a.eval"))
    log["samples"][0]["error"] = {"message": "boom", "traceback": "", "traceback_ansi": ""}
    del log["samples"][0]["scores"]
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    values = read_per_query(path)
    item = log["samples"][0]["id"]
    assert item in values.failed["match"]
    counts = values.repeat_counts("match")[item]
    assert counts == (2, 1)  # two epochs asked, one usable


# -- DeepEval ------------------------------------------------------------------------------


def _deepeval_run(scores: dict[str, list[float | None]], model: str, judge: str) -> dict:
    cases = []
    n = len(next(iter(scores.values())))
    for i in range(n):
        metrics = []
        for name, column in scores.items():
            value = column[i]
            metrics.append(
                {
                    "name": name,
                    "threshold": 0.5,
                    "success": value is not None and value >= 0.5,
                    "score": value,
                    "reason": "because",
                    "strictMode": False,
                    "evaluationModel": judge,
                    "error": None if value is not None else "judge timed out",
                    "evaluationCost": 0.001,
                    "verboseLogs": None,
                }
            )
        cases.append(
            {
                "name": f"test_case_{i}",
                "input": f"question {i}",
                "actualOutput": "answer",
                "expectedOutput": "answer",
                "retrievalContext": ["passage"],
                "success": True,
                "metricsData": metrics,
                "runDuration": 0.5,
                "evaluationCost": 0.001,
                "order": i,
                "metadata": {"doc": f"d{i // 2}"},
            }
        )
    return {
        "testFile": None,
        "testCases": cases,
        "conversationalTestCases": [],
        "metricsScores": [
            {"metric": m, "scores": [v for v in c if v is not None]} for m, c in scores.items()
        ],
        "hyperparameters": {"model": model},
        "testPassed": n,
        "testFailed": 0,
        "runDuration": 3.0,
        "evaluationCost": 0.01,
    }


def test_deepeval_test_run_round_trip(tmp_path: Path) -> None:
    scores = {"Faithfulness": [1.0, 0.5, None, 0.25], "Answer Relevancy": [0.9, 0.8, 0.7, 0.6]}
    path = tmp_path / ".latest_test_run.json"
    path.write_text(json.dumps(_deepeval_run(scores, "gpt-4.1-mini", "gpt-4o")))
    values = read_per_query(path, cluster="doc")
    assert values.name == "gpt-4.1-mini"
    assert values.manifest.producer == "deepeval"
    assert values.manifest.measures["Faithfulness"]["evaluation_model"] == "gpt-4o"
    ids = [f"test_case_{i}" for i in range(4)]
    for metric, column in scores.items():
        for item, value in zip(ids, column, strict=True):
            assert _same(values[metric][item], math.nan if value is None else value)
    assert values.failed["Faithfulness"] == ("test_case_2",) or list(
        values.failed["Faithfulness"]
    ) == ["test_case_2"]
    assert values.clusters == {q: f"d{i // 2}" for i, q in enumerate(ids)}


def test_deepeval_runs_judged_by_different_models_are_refused(tmp_path: Path) -> None:
    scores = {"Faithfulness": [1.0, 0.5, 0.0, 0.25]}
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(_deepeval_run(scores, "m1", "gpt-4o")))
    b.write_text(json.dumps(_deepeval_run(scores, "m2", "claude")))
    with pytest.raises(ragmeter.InvalidInputError, match="evaluation_model"):
        ragmeter.compare(read_per_query(a), read_per_query(b))


# -- lm-evaluation-harness -----------------------------------------------------------------


def test_lm_eval_samples_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    acc = rng.integers(0, 2, 12).astype(float)
    norm = rng.integers(0, 2, 12).astype(float)
    path = tmp_path / "samples_arc_easy_2026-01-01T00-00-00.jsonl"
    with path.open("w") as handle:
        for doc_id in range(12):
            example = {
                "doc_id": doc_id,
                "doc": {"question": f"q{doc_id}", "topic": f"t{doc_id % 3}"},
                "target": 0,
                "arguments": [[f"q{doc_id}", " A"], [f"q{doc_id}", " B"]],
                "resps": [[[-1.0, False]], [[-2.0, False]]],
                "filtered_resps": [[-1.0, False], [-2.0, False]],
                "filter": "none",
                "metrics": ["acc", "acc_norm"],
                "doc_hash": "h",
                "prompt_hash": "p",
                "target_hash": "t",
            }
            example.update({"acc": acc[doc_id], "acc_norm": norm[doc_id]})
            handle.write(json.dumps(example) + "\n")
    values = read_per_query(path, cluster="topic")
    assert values.manifest.producer == "lm-evaluation-harness"
    assert list(values.query_ids) == list(range(12))
    assert np.array_equal(values.array("acc,none"), acc)
    assert np.array_equal(values.array("acc_norm,none"), norm)
    assert values.clusters == {i: f"t{i % 3}" for i in range(12)}


# -- promptfoo -----------------------------------------------------------------------------


def _promptfoo_output(scores: dict[str, list[float]], errors: set[tuple[str, int]]) -> dict:
    rows = []
    for provider, column in scores.items():
        for test, score in enumerate(column):
            failed = (provider, test) in errors
            rows.append(
                {
                    "id": f"{provider}-{test}",
                    "promptIdx": 0,
                    "testIdx": test,
                    "testCase": {"vars": {"question": f"q{test}", "doc": f"d{test // 2}"}},
                    "promptId": "p1",
                    "provider": {"id": provider, "label": provider},
                    "prompt": {"raw": "Answer {{question}}", "label": "answer"},
                    "vars": {"question": f"q{test}", "doc": f"d{test // 2}"},
                    "response": None if failed else {"output": "text"},
                    "error": "API error" if failed else None,
                    "failureReason": 2 if failed else (0 if score >= 0.5 else 1),
                    "success": (not failed) and score >= 0.5,
                    "score": 0 if failed else score,
                    "latencyMs": 10,
                    "namedScores": {} if failed else {"relevance": score / 2},
                    "gradingResult": None
                    if failed
                    else {"pass": score >= 0.5, "score": score, "reason": "ok"},
                    "cost": 0.0,
                    "metadata": {},
                }
            )
    return {
        "evalId": "eval-abc-2026-01-01T00:00:00",
        "results": {
            "version": 3,
            "timestamp": "2026-01-01T00:00:00.000Z",
            "prompts": [
                {"raw": "Answer {{question}}", "label": "answer", "provider": p} for p in scores
            ],
            "results": rows,
            "stats": {"successes": 0, "failures": 0, "errors": len(errors)},
        },
        "config": {"description": "demo"},
        "shareableUrl": None,
        "metadata": {"promptfooVersion": "0.120.0"},
    }


def test_promptfoo_output_holds_every_provider(tmp_path: Path) -> None:
    scores = {"openai:gpt-4o-mini": [1.0, 0.0, 0.75, 1.0], "ollama:llama3": [0.5, 0.25, 0.0, 1.0]}
    path = tmp_path / "output.json"
    path.write_text(json.dumps(_promptfoo_output(scores, {("ollama:llama3", 2)})))
    systems = read_systems(path, cluster="doc")
    assert list(systems) == list(scores)
    for provider, column in scores.items():
        values = systems[provider]
        assert values.manifest.producer == "promptfoo 0.120.0"
        for test, score in enumerate(column):
            failed = (provider, test) == ("ollama:llama3", 2)
            assert _same(values["score"][test], math.nan if failed else score)
            assert _same(values["pass"][test], math.nan if failed else float(score >= 0.5))
            assert _same(values["relevance"][test], math.nan if failed else score / 2)
        assert values.clusters == {t: f"d{t // 2}" for t in range(4)}
    assert list(systems["ollama:llama3"].failed["score"]) == [2]
    with pytest.raises(ragmeter.InvalidInputError, match="name one"):
        read_per_query(path)


# -- MLflow --------------------------------------------------------------------------------


def test_mlflow_results_table_written_by_mlflow(tmp_path: Path, monkeypatch) -> None:
    mlflow = pytest.importorskip("mlflow")
    pd = pytest.importorskip("pandas")
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    table = pd.DataFrame(
        {
            "inputs": ["what is a", "what is b", "what is c"],
            "outputs": ["a", "b", "x"],
            "toxicity/v1/score": [0.01, 0.2, 0.03],
            "exact_match/score": [1, 1, 0],
        }
    )
    with mlflow.start_run():
        mlflow.log_table(table, "eval_results_table.json")
    (path,) = list((tmp_path / "mlruns").rglob("eval_results_table.json"))
    values = read_per_query(path)
    assert values.manifest.producer == "mlflow"
    assert list(values.query_ids) == list(table["inputs"])
    assert np.array_equal(values.array("toxicity/v1"), table["toxicity/v1/score"].to_numpy())
    assert np.array_equal(values.array("exact_match"), [1.0, 1.0, 0.0])


def test_mlflow_traces_with_assessments_written_by_mlflow(tmp_path: Path) -> None:
    entities = pytest.importorskip("mlflow.entities")
    feedback = {
        ("run-a", "i1"): [True, False],
        ("run-a", "i2"): [True],
        ("run-b", "i1"): [False],
        ("run-b", "i2"): [False],
    }
    traces = []
    for n, ((run, item), judged) in enumerate(feedback.items()):
        for k, value in enumerate(judged):
            trace_id = f"tr-{n}-{k}"
            fb = entities.Feedback(
                name="correctness",
                value=value,
                source=entities.AssessmentSource(
                    source_type="LLM_JUDGE", source_id="openai:/gpt-4o"
                ),
                trace_id=trace_id,
            )
            info = entities.TraceInfo(
                trace_id=trace_id,
                trace_location=entities.TraceLocation.from_experiment_id("0"),
                request_time=0,
                state=entities.TraceState.OK,
                client_request_id=item,
                assessments=[fb],
                trace_metadata={"mlflow.sourceRun": run},
            )
            traces.append(entities.Trace(info=info, data=entities.TraceData(spans=[])).to_dict())
    path = tmp_path / "traces.json"
    path.write_text(json.dumps(traces))
    systems = read_systems(path)
    assert set(systems) == {"run-a", "run-b"}
    for (run, item), judged in feedback.items():
        assert systems[run].repeats["correctness"][item] == tuple(float(v) for v in judged)
    assert systems["run-a"].manifest.measures["correctness"]["source_id"] == "openai:/gpt-4o"


# -- TruLens -------------------------------------------------------------------------------


def test_trulens_records_and_feedback_round_trip(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    rows = []
    expected = {}
    for app, version, base in (("rag", "v1", 0.5), ("rag", "v2", 0.7)):
        for i in range(4):
            value = None if (version, i) == ("v2", 3) else round(base + i / 10, 2)
            expected[(f"rag {version}", f"question {i}")] = value
            rows.append(
                {
                    "app_id": f"app_hash_{version}",
                    "app_name": app,
                    "app_version": version,
                    "app_json": "{}",
                    "type": "TruCustomApp",
                    "record_id": f"record_{version}_{i}",
                    "input": f"question {i}",
                    "output": "answer",
                    "tags": "-",
                    "record_json": "{}",
                    "cost_json": "{}",
                    "perf_json": "{}",
                    "ts": "2026-01-01T00:00:00",
                    "Groundedness": value,
                    "Groundedness_calls": [],
                    "latency": 0.3,
                    "total_tokens": 100,
                    "total_cost": 0.001,
                }
            )
    path = tmp_path / "records.json"
    pd.DataFrame(rows).to_json(path, orient="records")
    systems = read_systems(path)
    assert set(systems) == {"rag v1", "rag v2"}
    for (system, item), value in expected.items():
        got = systems[system]["Groundedness"][item]
        assert _same(got, math.nan if value is None else value)
    assert systems["rag v1"].manifest.producer == "trulens"


# -- OpenAI Evals --------------------------------------------------------------------------


def test_openai_evals_record_log_round_trip(tmp_path: Path) -> None:
    correct = {
        "test.dev.0": [True, True],
        "test.dev.1": [False, True],
        "test.dev.2": [False, False],
    }
    lines = [
        {
            "spec": {
                "completion_fns": ["gpt-4o-mini"],
                "eval_name": "test-match.s1.simple-v0",
                "base_eval": "test-match",
                "split": "s1",
                "run_config": {},
                "created_by": "",
                "run_id": "run1",
                "created_at": "2026",
            }
        }
    ]
    event_id = 0
    for sample, outcomes in correct.items():
        for outcome in outcomes:
            lines.append(
                {
                    "run_id": "run1",
                    "event_id": event_id,
                    "sample_id": sample,
                    "type": "sampling",
                    "data": {"prompt": "p", "sampled": ["x"]},
                    "created_by": "",
                    "created_at": "2026",
                }
            )
            event_id += 1
            lines.append(
                {
                    "run_id": "run1",
                    "event_id": event_id,
                    "sample_id": sample,
                    "type": "match",
                    "data": {
                        "correct": outcome,
                        "expected": ["x"],
                        "picked": "x" if outcome else None,
                    },
                    "created_by": "",
                    "created_at": "2026",
                }
            )
            event_id += 1
    lines.append({"final_report": {"accuracy": 0.5}})
    path = tmp_path / "run1.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    values = read_per_query(path)
    assert values.name == "gpt-4o-mini"
    for sample, outcomes in correct.items():
        assert values.repeats["correct"][sample] == tuple(float(o) for o in outcomes)
    assert values.manifest.measures["correct"]["eval"] == "test-match.s1.simple-v0"


# -- the commands read them through the file door ------------------------------------------


def test_every_harness_has_one_row_in_the_format_table() -> None:
    harnesses = {f.name for f in FORMATS if f.harness}
    assert harnesses == {
        "inspect",
        "deepeval",
        "lm-eval",
        "promptfoo",
        "mlflow",
        "trulens",
        "openai-evals",
    }


def test_compare_command_reads_harness_files(capsys) -> None:
    status = main(
        [
            "compare",
            "--values",
            str(DATA / "inspect_a.eval"),
            str(DATA / "inspect_b.eval"),
            "--test",
            "t",
            "--format",
            "csv",
        ]
    )
    assert status == 0
    import csv
    import io

    from scipy import stats

    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["metric"] for r in rows] == ["includes", "match"]
    oracle = json.loads((DATA / "inspect_oracle.json").read_text())
    for row in rows:
        # the item means of each log, from Inspect's own reader
        means = []
        for name in ("inspect_b.eval", "inspect_a.eval"):
            per_item: dict[str, list[float]] = {}
            for item, _, scorer, value, _ in oracle[name]["rows"]:
                if scorer == row["metric"]:
                    per_item.setdefault(item, []).append(value)
            means.append([np.mean(per_item[k]) for k in sorted(per_item)])
        assert float(row["p_value"]) == pytest.approx(stats.ttest_rel(*means).pvalue, rel=1e-12)


def test_gate_reads_an_inspect_log() -> None:
    from ragmeter.gate.inputs import read_gate_file

    values = read_gate_file(DATA / "inspect_b.eval")
    assert values.values == read_per_query(DATA / "inspect_b.eval", name="inspect_b")
    assert values.repeats["match"] == read_per_query(DATA / "inspect_b.eval").repeats["match"]


def test_report_reads_harness_files(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    status = main(
        ["report", str(DATA / "inspect_a.eval"), str(DATA / "inspect_b.eval"), "-o", str(out)]
    )
    assert status == 0
    assert "inspect_a.eval" in out.read_text()


def test_report_reads_a_harness_json_file_of_several_systems(tmp_path: Path) -> None:
    scores = {"openai:gpt-4o-mini": [1.0, 0.0, 0.75], "ollama:llama3": [0.5, 0.25, 0.0]}
    path = tmp_path / "output.json"
    path.write_text(json.dumps(_promptfoo_output(scores, set())))
    out = tmp_path / "r.html"
    assert main(["report", str(path), "-o", str(out)]) == 0
    page = out.read_text()
    assert "openai:gpt-4o-mini" in page and "ollama:llama3" in page
