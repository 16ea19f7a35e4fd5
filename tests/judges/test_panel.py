"""Panels of judges: aggregation, failed judges, agreement between judges and with humans."""

from __future__ import annotations

import json

import pytest

from ragmeter import InvalidInputError
from ragmeter.judges import (
    Panel,
    RubricMetric,
    RuleJudge,
    Sample,
    ScriptedJudge,
    cohen_kappa,
    evaluate,
)
from ragmeter.judges.testing import parse_sections

RUBRIC = RubricMetric("quality", "Rate $answer.", allowed_values=[1, 2, 3, 4, 5])


def rater(name, value):
    if isinstance(value, Exception):
        return ScriptedJudge({"rubric_quality": value}, name=name)
    return ScriptedJudge(
        {"rubric_quality": {"value": value, "reason": f"{name} says {value}"}}, name=name
    )


def panel_score(values, **options):
    judges = [rater(f"j{i}", v) for i, v in enumerate(values, start=1)]
    results = evaluate([Sample("Q?", "A.")], [RUBRIC], judge=Panel(judges, **options))
    return results.rows[0]


@pytest.mark.parametrize(
    ("values", "options", "expected"),
    [
        ([1, 2, 4], {}, 7 / 3),
        ([1, 2, 4], {"aggregate": "median"}, 2.0),
        ([1, 2, 4], {"aggregate": "trimmed_mean"}, 2.0),
        ([2, 2, 4], {"aggregate": "majority"}, 2.0),
        ([1, 2, 4], {"weights": [1, 1, 2]}, (1 + 2 + 8) / 4),
        ([1, 2, 4], {"aggregate": lambda values, weights: max(values)}, 4.0),
    ],
)
def test_panel_aggregates(values, options, expected):
    row = panel_score(values, **options)
    assert row.score.value == pytest.approx(expected)
    assert {name: s.value for name, s in row.judge_scores.items()} == {
        f"j{i}": float(v) for i, v in enumerate(values, start=1)
    }


def test_a_split_majority_is_undefined():
    row = panel_score([1, 2, 4], aggregate="majority")
    assert (row.score.status, row.score.reason_code) == ("undefined", "no_majority")


def test_failed_judges_are_dropped_and_weights_renormalised():
    row = panel_score([1, RuntimeError("down"), 4], weights={"j1": 1, "j2": 1, "j3": 2})
    assert row.score.value == pytest.approx((1 * 1 + 4 * 2) / 3)
    assert row.score.evidence["per_judge"]["j2"]["status"] == "error"
    assert row.score.evidence["n_judges_ok"] == 2


def test_too_few_ok_judges_is_an_error():
    row = panel_score([1, RuntimeError("down"), 4], min_ok=3)
    assert (row.score.status, row.score.reason_code) == ("error", "too_few_judges")


def test_panel_usage_is_kept_per_judge():
    row = panel_score([1, 2, 4])
    assert sorted(row.usage) == ["j1", "j2", "j3"]
    assert all(stats.calls == 1 for stats in row.usage.values())


def test_panel_judges_need_distinct_names():
    with pytest.raises(InvalidInputError, match="distinct names"):
        Panel([RuleJudge(), RuleJudge()])
    with pytest.raises(InvalidInputError, match="aggregate"):
        Panel([RuleJudge()], aggregate="mode")
    with pytest.raises(InvalidInputError, match="min_ok"):
        Panel([RuleJudge()], min_ok=2)


PASS_FAIL = RubricMetric(
    "verdict",
    "Judge $answer.",
    allowed_values=["pass", "fail"],
    score_fn=lambda p: p["value"] == "pass",
)


def scripted_verdicts(name, verdicts):
    def answer(request):
        for sample_id, verdict in verdicts.items():
            if f"answer {sample_id}." in request.first_user_message():
                return {"value": verdict, "reason": name}
        raise AssertionError("unknown sample")

    return ScriptedJudge({"rubric_verdict": answer}, name=name)


def test_agreement_between_two_judges_by_hand():
    # Judge A: pass pass fail fail; judge B: pass fail fail fail.
    # Cohen: p_o = 3/4, p_e = 1/2 * 1/4 + 1/2 * 3/4 = 1/2 -> kappa = 1/2.
    # Krippendorff (nominal): o_11 = 2, o_10 = o_01 = 1, o_00 = 4; n_1 = 3, n_0 = 5, n = 8;
    # alpha = 1 - (n - 1) * 2 / (2 * 3 * 5) = 1 - 14 / 30.
    a = scripted_verdicts("A", {1: "pass", 2: "pass", 3: "fail", 4: "fail"})
    b = scripted_verdicts("B", {1: "pass", 2: "fail", 3: "fail", 4: "fail"})
    samples = [Sample("Q?", f"answer {i}.") for i in range(1, 5)]
    results = evaluate(samples, [PASS_FAIL], judge=Panel([a, b]))
    agreement = results.agreement("verdict")
    assert agreement["level"] == "nominal" and agreement["raters"] == ["A", "B"]
    assert agreement["cohen_kappa"] == pytest.approx(0.5)
    assert agreement["cohen_kappa"] == pytest.approx(cohen_kappa([1, 1, 0, 0], [1, 0, 0, 0]))
    assert agreement["krippendorff_alpha"] == pytest.approx(1 - 14 / 30)
    assert agreement["percent_agreement"] == pytest.approx(0.75)
    report = results.to_report_dict()
    assert report["agreement"]["verdict"]["cohen_kappa"] == pytest.approx(0.5)
    json.dumps(report)


def test_agreement_of_preference_verdicts_uses_the_winners():
    def prefers(name, text):
        def answer(request):
            first = parse_sections(request.first_user_message())["Response 1"]
            return {"winner": "1" if first.startswith(text) else "2", "reason": name}

        return ScriptedJudge({"pairwise_preference": answer}, name=name)

    samples = [Sample("Q?", "alpha", answer_b="beta"), Sample("Q?", "beta", answer_b="alpha")]
    results = evaluate(
        samples,
        ["pairwise_preference"],
        judge=Panel([prefers("x", "alpha"), prefers("y", "alpha")]),
    )
    agreement = results.agreement("pairwise_preference")
    assert agreement["percent_agreement"] == 1.0
    assert [r.score.evidence["winner"] for r in results.rows] == ["A", "B"]
    assert results.summary("pairwise_preference").extra["position_flips"] == 0


def test_agreement_with_human_labels():
    results = evaluate(
        [Sample("Q?", f"answer {i}.") for i in range(1, 5)],
        [PASS_FAIL],
        judge=scripted_verdicts("A", {1: "pass", 2: "pass", 3: "fail", 4: "fail"}),
    )
    humans = {"0": 1.0, "1": 0.0, "2": 0.0, "3": 0.0}
    report = results.agreement_with(humans, "verdict")
    assert report["raters"] == ["judge", "human"]
    assert report["cohen_kappa"] == pytest.approx(0.5)
    with pytest.raises(InvalidInputError, match="Panel"):
        results.agreement("verdict")


def test_agreement_with_human_labels_has_intervals_and_a_confusion_table():
    from sklearn.metrics import cohen_kappa_score

    verdicts = {i: ("pass" if i % 3 else "fail") for i in range(1, 31)}
    results = evaluate(
        [Sample("Q?", f"answer {i}.") for i in range(1, 31)],
        [PASS_FAIL],
        judge=scripted_verdicts("A", verdicts),
    )
    judge = results.values("verdict")
    humans = {str(i): (1.0 if i % 4 else 0.0) for i in range(30)}
    report = results.agreement_with(humans, "verdict", n_resamples=200, seed=1)
    assert report["cohen_kappa"] == pytest.approx(cohen_kappa_score(judge, list(humans.values())))
    low, high = report["ci"]["cohen_kappa"]
    assert low <= report["cohen_kappa"] <= high
    assert report["confusion"]["n"] == 30
    with pytest.raises(InvalidInputError, match="ids"):
        results.agreement_with({"nope": 1.0}, "verdict")
