"""Small samples and what the statistics say of them (issue 44, item 1): each defect of the issue
reproduced, then its rule.

Oracles: a brute-force enumeration of sign vectors, scipy.stats (``tukey_hsd``), the worked
example of Sakai (2015), table 5.1 (ES_E printed as 0.507 and 0.676), and the bootstrap's
own resampled means.
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from test_anova import SAKAI_A, SAKAI_B, SAKAI_C

from ragmeter import InvalidInputError, compare, compare_many
from ragmeter.html_report import build_report
from ragmeter.stats import (
    paired_bootstrap_test,
    paired_tukey_hsd,
    randomised_tukey_hsd,
    sign_flip_test,
    westfall_young,
)
from ragmeter.stats.comparison import compare_many as compare_many_function
from ragmeter.stats.ppi import classical_mean, ppi_mean
from ragmeter.stats.pvalues import P_VALUE_FLOOR, format_p_value

scipy_stats = pytest.importorskip("scipy.stats")


def _named(columns: dict[str, list[float]]) -> dict[str, dict[str, dict[str, float]]]:
    return {
        name: {"m": {f"t{j}": float(v) for j, v in enumerate(values)}}
        for name, values in columns.items()
    }


# -- not enough queries -----------------------------------------------------------------------


def test_the_bootstrap_refuses_fewer_queries_than_it_needs():
    # Issue 44: p = 0.0001 from one query, and from 2 to 5 differences of one sign, where the
    # exact sign-flip test (every sign vector) gives 1.0, 0.5, 0.25, 0.125, 0.0625.
    for n, exact in zip(range(1, 6), (1.0, 0.5, 0.25, 0.125, 0.0625), strict=True):
        d = np.linspace(0.1, 0.3, n)
        assert sign_flip_test(d).p_value == exact
        with pytest.raises(InvalidInputError, match=r"not enough queries.*at least 20"):
            paired_bootstrap_test(d)
    in_compare = compare(
        {"m": {"q1": 0.9, "q2": 0.8}}, {"m": {"q1": 0.1, "q2": 0.2}}, test="bootstrap"
    )
    assert math.isnan(in_compare["m"].p_value) and in_compare["m"].p_value_method is None
    assert not in_compare["m"].significant(0.05)
    assert paired_bootstrap_test(np.linspace(-0.1, 0.3, 20)).n_pairs == 20


def test_an_undefined_p_value_says_why_in_the_tables():
    campaign = compare_many(
        _named({"a": [0.1, 0.2, 0.3], "b": [0.5, 0.6, 0.9]}), test="bootstrap", n_bootstrap=0
    )
    assert any("not enough queries" in note for note in campaign.notes())


# -- an exact test's p-value never goes below its smallest attainable value -------------------


@pytest.mark.parametrize("n", [2, 3])
def test_exact_westfall_young_never_goes_below_two_over_two_to_the_n(n):
    # Issue 44: equal (or near-equal) differences gave an infinite t and p = 0.0.
    differences = {"a": [0.3] * n, "b": [0.1 + 1e-17 * i for i in range(n)]}
    result = westfall_young(differences)
    assert result.method == "exact"
    smallest = 2 / 2**n
    assert min(result.adjusted_p_values) >= smallest and min(result.raw_p_values) >= smallest
    assert result.raw_p_values[0] == smallest


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_every_exact_test_stays_at_or_above_its_floor(n):
    rng = np.random.default_rng(n)
    for alternative, floor in (("two-sided", 2 / 2**n), ("greater", 1 / 2**n)):
        for d in (np.full(n, 0.25), rng.normal(0, 0.1, n)):
            assert sign_flip_test(d, alternative=alternative).p_value >= floor
    scores = rng.uniform(0, 1, (n, 3))
    result = randomised_tukey_hsd(scores, method="exact")
    # (m!)^n permutations, the identity and its relabellings (m! of them) among them.
    assert result.p_values.min() >= math.factorial(3) / math.factorial(3) ** n


# -- equal differences and the t-test ---------------------------------------------------------


def test_the_t_test_of_equal_differences_is_the_exact_tests_never_zero():
    # Issue 44: candidate 0.005 worse on both queries, margin 0.01: the t form gave p = 0
    # (PASS); the sign-flip form 0.25. Both give 0.25 now.
    candidate = {"m": {"q1": 0.202, "q2": 0.417}}
    baseline = {"m": {"q1": 0.207, "q2": 0.422}}
    shifted = np.array([0.202 + 0.01 - 0.207, 0.417 + 0.01 - 0.422])
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=2)))
    exact = float(np.mean(signs @ shifted >= shifted.sum() - 1e-9 * np.abs(shifted).sum()))
    assert exact == 0.25
    assert (
        scipy_stats.ttest_rel([0.212, 0.427], [0.207, 0.422], alternative="greater").pvalue < 1e-14
    )
    for test in ("t", "sign-flip"):
        result = compare(
            {"m": {q: v + 0.01 for q, v in candidate["m"].items()}},
            baseline,
            test=test,
            alternative="greater",
        )
        assert result["m"].p_value == 0.25


# -- p-values below the double floor are a bound ----------------------------------------------


def test_paired_tukey_below_the_floor_reads_as_a_bound_in_every_format():
    # Issue 44: paired Tukey printed p = 0.0 (and 2.2e-16) with no "<".
    rng = np.random.default_rng(4)
    base = rng.uniform(0, 1, 300)
    columns = {"base": base.tolist(), "better": (base + 0.2 + rng.normal(0, 0.001, 300)).tolist()}
    campaign = compare_many(_named(columns), test="tukey")
    item = campaign["better", "base"]["m"]
    # With 2 systems the paired Tukey test is the paired t-test (q = sqrt(2) |t|): scipy's t
    # tail says how far below the floor the p-value lies.
    assert scipy_stats.ttest_rel(columns["better"], columns["base"]).pvalue < 1e-100
    assert item.p_value == P_VALUE_FLOOR
    assert "< 1e-16" in campaign.to_table()
    assert "< 1e-16" in campaign.to_markdown()
    assert "$<$ 1e-16" in campaign.to_latex()
    assert "0.0000" not in campaign.to_table().split("p-value")[-1]
    page = build_report(campaign)
    # The table of differences is drawn by the page's script from its data; the matrix's
    # titles are HTML.
    assert '"p_text":"\\u003c 1e-16"' in page
    assert "p = &lt; 1e-16" in page
    saved = json.loads(campaign.to_json())
    assert min(m["p_value"] for pair in saved["comparisons"] for m in pair["metrics"]) == 1e-16
    assert format_p_value(0.0) == "< 1e-16" and format_p_value(2.2e-16) == "2.2e-16"


def test_the_t_test_underflow_is_a_bound():
    rng = np.random.default_rng(1)
    base = rng.uniform(0, 1, 500)
    result = compare({"m": dict(enumerate(base + 0.3))}, {"m": dict(enumerate(base))}, test="t")
    assert result["m"].p_value == 1e-16  # the tail underflows far below it
    assert "< 1e-16" in result.to_table()


# -- the bootstrap does not depend on how the same values are written -------------------------


def test_the_bootstrap_p_value_is_the_same_for_d_ten_d_and_rounded_d():
    # Issue 44: Sakai's A - B differences, one seed: 0.0307 for d, 0.0354 for 10 d, 0.0341
    # for round(10 d) / 10. Resampled means tied with the bound count in every form.
    d = np.array(SAKAI_A) - np.array(SAKAI_B)
    forms = [d, 10 * d, np.round(10 * d) / 10]
    results = [paired_bootstrap_test(x, random_state=7).p_value for x in forms]
    assert results[0] == results[1] == results[2]


# -- Tukey: what runs is what the docs say, one effect size per kind --------------------------


def test_tukey_is_the_paired_test_and_tukey_oneway_the_one_way_test():
    columns = {"A": SAKAI_A, "B": SAKAI_B, "C": SAKAI_C}
    paired = compare_many(_named(columns), test="tukey")
    one_way = compare_many(_named(columns), test="tukey-oneway")
    reference = paired_tukey_hsd(np.column_stack([SAKAI_A, SAKAI_B, SAKAI_C]))
    scipy_one_way = scipy_stats.tukey_hsd(SAKAI_A, SAKAI_B, SAKAI_C)
    assert paired["B", "A"]["m"].p_value == pytest.approx(reference.p_value[1, 0], abs=1e-12)
    assert one_way["B", "A"]["m"].p_value == pytest.approx(scipy_one_way.pvalue[1, 0], abs=1e-9)
    assert paired["B", "A"]["m"].p_value != pytest.approx(one_way["B", "A"]["m"].p_value)
    doc = compare_many_function.__doc__ or ""
    tukey = doc[doc.index('``"tukey"``') :]
    assert "two-way ANOVA" in tukey[:200] and "paired by query" in tukey[:300]
    oneway = doc[doc.index('``"tukey-oneway"``') :]
    assert "scipy.stats.tukey_hsd" in oneway[:200] and "independent samples" in oneway[:300]


@pytest.mark.parametrize("test", ["tukey", "randomised-tukey"])
def test_the_tukey_tests_report_sakais_es_e(test):
    # Sakai (2015), table 5.1: ES_E of A against B and C is 0.507 and 0.676 (printed).
    campaign = compare_many(_named({"A": SAKAI_A, "B": SAKAI_B, "C": SAKAI_C}), test=test)
    assert campaign["A", "B"]["m"].effect_size == pytest.approx(0.507, abs=5e-4)
    assert campaign["A", "C"]["m"].effect_size == pytest.approx(0.676, abs=5e-4)
    assert "ES_E" in campaign.to_table()


# -- PPI: labels on the metric's scale --------------------------------------------------------


def test_ppi_refuses_labels_outside_the_metric_range():
    # Issue 44: 0/100 labels on a [0, 1] metric gave a mean of 50.0.
    with pytest.raises(InvalidInputError, match=r"outside the metric's range \[0, 1\]"):
        ppi_mean([0, 100, 100, 0], [0.5, 1.0, 1.0, 0.5], [1, 1, 0], bounds=(0.0, 1.0))
    with pytest.raises(InvalidInputError, match="outside"):
        classical_mean([0, 100], bounds=(0, 1))
    assert ppi_mean(
        [0, 1, 1, 0], [0.5, 1.0, 1.0, 0.5], [1, 1, 1, 0, 1], bounds=(0, 1)
    ).mean == pytest.approx(0.55)


def test_judge_results_take_the_range_the_metric_declares():
    from ragmeter.judges import RuleJudge, Sample, evaluate

    samples = [
        Sample(f"Who wrote Hamlet {i}?", "Shakespeare wrote Hamlet.", ["Hamlet is by Shakespeare."])
        for i in range(6)
    ]
    results = evaluate(samples, ["groundedness"], judge=RuleJudge(), progress=False)
    labels = {row.sample_id: 100.0 for row in results.rows[:3]}
    with pytest.raises(InvalidInputError, match=r"\[0, 1\]"):
        results.prediction_powered_mean(labels, "groundedness")
    fine = {row.sample_id: 1.0 for row in results.rows[:3]}
    assert results.prediction_powered_mean(fine, "groundedness")["ppi"].mean == pytest.approx(1.0)
