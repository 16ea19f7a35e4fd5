"""evaluate_trec against trec_eval's own expected outputs (third_party/trec_eval/test).

Every line of trec_eval's outputs (all of ``-m all_trec``, or its default ``official`` set),
per topic and over all topics, must be reproduced as trec_eval prints it: ``%.4f``, integers
for counts, the run tag and the relevance strings. No measure list here: the outputs name the
measures, and every family they hold is declared.
"""

import warnings

import pytest
from vendored import TREC_EVAL_TESTS

import ragmeter
from ragmeter.ranking import FAMILIES

ORACLE = TREC_EVAL_TESTS

CASES = [
    ("out.test.aq", "qrels.test", "results.test", "all_trec", {}),
    ("out.test.aqc", "qrels.test", "results.trunc", "all_trec", {"complete": True}),
    (
        "out.test.aqcM",
        "qrels.test",
        "results.trunc",
        "all_trec",
        {"complete": True, "max_docs": 100},
    ),
    ("out.test.a", "qrels.test", "results.test", "all_trec", {}),
    ("out.comment.test", "qrels.comment.test", "results.comment.test", "official", {}),
    ("out.test", "qrels.test", "results.test", "official", {}),
    ("out.test", "qrels.test.with-comments", "results.test", "official", {}),
]


def expected_lines(name):
    values = {}
    for line in (ORACLE / name).read_text().splitlines():
        measure, topic, value = line.split("\t")
        values[(measure.strip(), topic)] = value
    return values


def printed(measure, value):
    """A value as trec_eval prints it."""
    if measure == "relstring":
        return f"'{value}'"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return f"{value:.4f}"


def test_oracle_is_present():
    # The oracle is vendored in third_party/trec_eval; without it these tests prove nothing.
    assert (ORACLE / "out.test.aq").is_file(), f"trec_eval oracle not found at {ORACLE}"


@pytest.mark.parametrize(("expected", "qrels", "run", "measures", "options"), CASES)
def test_reproduces_trec_eval(expected, qrels, run, measures, options):
    want = expected_lines(expected)
    assert want, f"no values read from {expected}"
    per_topic = ragmeter.evaluate_trec(
        ORACLE / qrels,
        ORACLE / run,
        metrics=measures,
        per_query=True,
        zero_division="trec_eval",
        **options,
    )
    means = ragmeter.evaluate_trec(
        ORACLE / qrels, ORACLE / run, metrics=measures, zero_division="trec_eval", **options
    )
    for (measure, topic), value in want.items():
        got = means[measure] if topic == "all" else per_topic[measure][topic]
        assert printed(measure, got) == value, (measure, topic, got, value)
    # Every measure ragmeter computed for these files is one trec_eval printed.
    assert {m for m, _ in want} == {m for m in per_topic if m != "relstring" or "aq" in expected}


def test_the_outputs_cover_every_all_trec_family():
    names = {m for m, _ in expected_lines("out.test.aq")}
    families = {f.trec_name for f in FAMILIES if f.trec_name is not None}
    covered = {f for f in families if any(n == f or n.startswith(f + "_") for n in names)}
    assert covered == set(ragmeter.ranking.NICKNAMES["all_trec"])


def test_undefined_values_warn_by_default():
    with pytest.warns(ragmeter.UndefinedMetricWarning, match="no relevant judged document"):
        ragmeter.evaluate_trec(
            ORACLE / "qrels.comment.test", ORACLE / "results.comment.test", metrics=["map"]
        )


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
