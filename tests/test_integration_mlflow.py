"""ragmeter's MLflow scorers in mlflow.genai.evaluate, and compare_runs over two runs.

A local file-store tracking directory (no server; MLFLOW_ALLOW_FILE_STORE, as MLflow 3 asks for
the file store). Oracles: pytrec_eval for the ranking scorers, the official SQuAD v1.1 EM and
F1 (ported in test_answers.py) for the answer scorers, scipy's paired t-test and ragmeter's
compare on the same values (built here from the rows, not read back from MLflow) for
compare_runs.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval
from scipy import stats
from test_answers import squad_exact_match_score, squad_f1_score

import ragmeter
from ragmeter.judges.testing import RuleJudge

mlflow = pytest.importorskip("mlflow")
rm_mlflow = pytest.importorskip("ragmeter.integrations.mlflow")

ROWS = [
    {
        "inputs": {"question": f"question {i}", "question_id": f"Q{i}"},
        "expectations": {
            "expected_response": f"the answer is {i % 3}",
            "expected_document_ids": [f"d{i}", f"d{i + 1}"],
        },
    }
    for i in range(8)
]


def system_a(question, question_id):
    i = int(question_id[1:])
    return {
        "response": f"the answer is {i % 3}" if i % 2 else f"an answer {i}",
        "retrieved_document_ids": [f"d{i + 1}", f"x{i}", f"d{i}"],
        "contexts": [f"the answer is {i % 3}"],
    }


def system_b(question, question_id):
    i = int(question_id[1:])
    return {
        "response": f"the answer is {i % 3}" if i % 3 == 0 else "no idea",
        "retrieved_document_ids": [f"x{i}", f"y{i}", f"d{i}"],
        "contexts": ["unrelated"],
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("mlruns")
    patch = pytest.MonkeyPatch()
    patch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")
    mlflow.set_tracking_uri(directory.as_uri())
    mlflow.set_experiment("ragmeter")
    scorers = [
        rm_mlflow.ndcg(10),
        rm_mlflow.recall(2),
        rm_mlflow.mrr(),
        rm_mlflow.average_precision(),
        rm_mlflow.exact_match(),
        rm_mlflow.token_f1(),
        rm_mlflow.anls(),
        rm_mlflow.judge_scorer("groundedness", judge=RuleJudge()),
    ]
    results = {}
    for name, system in (("a", system_a), ("b", system_b)):
        with mlflow.start_run(run_name=name):
            results[name] = mlflow.genai.evaluate(data=ROWS, predict_fn=system, scorers=scorers)
    yield results
    mlflow.set_tracking_uri(None)
    patch.undo()


def _rows_values(system, metric):
    """The oracle's per-row values, computed here from the rows and the system's outputs."""
    values = {}
    for row in ROWS:
        out = system(**row["inputs"])
        key = row["inputs"]["question_id"]
        expected = row["expectations"]
        if metric in ("ndcg@10", "recall@2", "mrr", "map"):
            qrels = {"q": dict.fromkeys(expected["expected_document_ids"], 1)}
            ranked = out["retrieved_document_ids"]
            run = {"q": {d: float(len(ranked) - i) for i, d in enumerate(ranked)}}
            name = {
                "ndcg@10": "ndcg_cut_10",
                "recall@2": "recall_2",
                "mrr": "recip_rank",
                "map": "map",
            }[metric]
            values[key] = pytrec_eval.RelevanceEvaluator(qrels, {name}).evaluate(run)["q"][name]
        elif metric == "exact_match":
            values[key] = float(
                squad_exact_match_score(out["response"], expected["expected_response"])
            )
        elif metric == "token_f1":
            values[key] = squad_f1_score(out["response"], expected["expected_response"])
    return values


def _assessments(result, name):
    """{question_id: value} of one scorer, as MLflow stored it on each row's trace."""
    run = mlflow.get_run(result.run_id)
    traces = mlflow.search_traces(
        locations=[run.info.experiment_id], run_id=result.run_id, return_type="list"
    )
    found = {}
    for trace in traces:
        qid = __import__("json").loads(trace.data.request)["question_id"]
        for a in trace.info.assessments:
            if a.name == name:
                found[qid] = a.value
    return found


@pytest.mark.parametrize("metric", ["ndcg@10", "recall@2", "mrr", "map", "exact_match", "token_f1"])
def test_scorers_equal_the_oracles(runs, metric):
    for name, system in (("a", system_a), ("b", system_b)):
        stored = _assessments(runs[name], rm_mlflow.scorer_name(metric))
        expected = _rows_values(system, metric)
        assert stored.keys() == expected.keys()
        for key, value in expected.items():
            assert stored[key] == pytest.approx(value, abs=1e-12), (name, metric, key)


def test_judge_scorer_gives_feedback_with_reason(runs):
    stored = _assessments(runs["a"], "ragmeter/groundedness")
    assert len(stored) == len(ROWS)
    assert all(0.0 <= v <= 1.0 for v in stored.values())


def test_compare_runs_equals_compare_on_the_same_values(runs):
    comparison = rm_mlflow.compare_runs(
        runs["a"].run_id, runs["b"].run_id, key="question_id", test="t"
    )
    metrics = [m.metric for m in comparison.metrics]
    assert "ragmeter/ndcg_at_10" in metrics and "ragmeter/exact_match" in metrics
    for metric in ("ndcg@10", "exact_match", "token_f1"):
        a = _rows_values(system_a, metric)
        b = _rows_values(system_b, metric)
        keys = sorted(a)
        ours = comparison[rm_mlflow.scorer_name(metric)]
        direct = ragmeter.compare(
            ragmeter.PerQueryResults({metric: a}, name="a"),
            ragmeter.PerQueryResults({metric: b}, name="b"),
            test="t",
        )[metric]
        x, y = np.array([a[k] for k in keys]), np.array([b[k] for k in keys])
        assert ours.delta == pytest.approx(direct.delta) == pytest.approx(np.mean(x - y))
        assert ours.p_value == pytest.approx(direct.p_value, nan_ok=True)
        if np.std(x - y) > 0:
            assert ours.p_value == pytest.approx(stats.ttest_rel(x, y).pvalue)
        assert (ours.wins, ours.ties, ours.losses) == (direct.wins, direct.ties, direct.losses)
        assert ours.ci_low == pytest.approx(direct.ci_low, nan_ok=True)


def test_run_values_pairs_by_inputs_by_default(runs):
    values = rm_mlflow.run_values(runs["a"].run_id)
    assert values.n_queries == len(ROWS)
    assert values.manifest.producer == "mlflow.genai.evaluate"
    assert values.name == "a"
    by_id = rm_mlflow.run_values(runs["a"].run_id, key="question_id")
    assert sorted(by_id.query_ids) == sorted(r["inputs"]["question_id"] for r in ROWS)
    assert not math.isnan(by_id["ragmeter/ndcg_at_10"]["Q1"])


class _Trace:
    """A row's trace as compare_runs reads it (its inputs and id)."""

    def __init__(self, request: str) -> None:
        self.data = type("Data", (), {"request": request})()
        self.info = type("Info", (), {"trace_id": "tr-1"})()


def test_a_row_without_ids_is_an_error_feedback_not_a_score():
    scorer = rm_mlflow.ndcg(5)
    feedback = scorer(outputs={"response": "x"}, expectations={"expected_document_ids": ["a"]})
    assert feedback.error is not None and feedback.value is None
    with pytest.raises(ragmeter.InvalidInputError, match="no input 'question_id'"):
        rm_mlflow._key_of(_Trace('{"a": 1}'), "question_id")
