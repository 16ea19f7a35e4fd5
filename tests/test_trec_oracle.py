"""evaluate_trec against trec_eval's own expected outputs (../shared/trec_eval_oracle).

Every per-topic and mean value of the measures below, printed by trec_eval with %.4f, must be
reproduced to 4 decimals.
"""

import warnings
from pathlib import Path

import pytest

import ragmeter

ORACLE = Path(__file__).resolve().parents[1].parent / "shared" / "trec_eval_oracle"
MEASURES = [
    "map",
    "P_5",
    "P_10",
    "recip_rank",
    "Rprec",
    "recall_100",
    "ndcg",
    "ndcg_cut_10",
    "success_1",
    "success_5",
    "success_10",
]

CASES = [
    ("out.test.aq", "qrels.test", "results.test", {}),
    ("out.test.aqc", "qrels.test", "results.trunc", {"complete": True}),
    ("out.test.aqcM", "qrels.test", "results.trunc", {"complete": True, "max_docs": 100}),
    ("out.comment.test", "qrels.comment.test", "results.comment.test", {}),
    ("out.test", "qrels.test", "results.test", {}),
    ("out.test", "qrels.test.with-comments", "results.test", {}),
]


def expected_values(name):
    values = {}
    for line in (ORACLE / name).read_text().splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0] in MEASURES:
            values[(fields[0], fields[1])] = float(fields[2])
    return values


def test_oracle_is_present():
    # The oracle comes with the project's shared data; without it these tests prove nothing.
    assert (ORACLE / "out.test.aq").is_file(), f"trec_eval oracle not found at {ORACLE}"


@pytest.mark.parametrize(("expected", "qrels", "run", "options"), CASES)
def test_reproduces_trec_eval(expected, qrels, run, options):
    want = expected_values(expected)
    assert want, f"no values read from {expected}"
    with warnings.catch_warnings():
        # Topics without relevant documents score 0 with a warning, as trec_eval scores them 0.
        warnings.simplefilter("ignore", ragmeter.UndefinedMetricWarning)
        per_topic = ragmeter.evaluate_trec(
            ORACLE / qrels, ORACLE / run, metrics=MEASURES, per_query=True, **options
        )
        means = ragmeter.evaluate_trec(ORACLE / qrels, ORACLE / run, metrics=MEASURES, **options)
    checked = 0
    for (measure, topic), value in want.items():
        got = means[measure] if topic == "all" else per_topic[measure][topic]
        assert f"{got:.4f}" == f"{value:.4f}", (measure, topic, got, value)
        checked += 1
    assert checked == len(want)


def test_per_topic_rows_cover_every_judged_topic():
    per_topic = ragmeter.evaluate_trec(
        ORACLE / "qrels.test",
        ORACLE / "results.trunc",
        metrics=["map"],
        per_query=True,
        complete=True,
    )
    assert sorted(per_topic["map"]) == ["301", "302", "303"]
    assert per_topic.missing_from_run == ["302"]


def test_missing_topic_raises_without_complete():
    with pytest.raises(
        ValueError, match=r"judged topics missing from the run .*'302'.*complete=True"
    ):
        ragmeter.evaluate_trec(ORACLE / "qrels.test", ORACLE / "results.trunc", metrics=["map"])
    skipped = ragmeter.evaluate_trec(
        ORACLE / "qrels.test", ORACLE / "results.trunc", metrics=["map"], missing="skip"
    )
    assert skipped["map"].n_queries == 2


def test_unjudged_run_topics_are_ignored_and_reported():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ragmeter.UndefinedMetricWarning)
        means = ragmeter.evaluate_trec(
            ORACLE / "qrels.comment.test", ORACLE / "results.comment.test", metrics=["map"]
        )
    judged = {
        line.split()[0]
        for line in (ORACLE / "qrels.comment.test").read_text().splitlines()
        if line.strip()
    }
    ranked = {
        line.split()[0]
        for line in (ORACLE / "results.comment.test").read_text().splitlines()
        if line.strip()
    }
    assert means["map"].n_queries == len(judged)
    assert sorted(means.unjudged) == sorted(ranked - judged)
