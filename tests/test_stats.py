"""Paired sign-flip test, bootstrap intervals, multiple-comparison correction and comparisons.

Oracles: brute-force enumeration of every sign vector in exact rational arithmetic
(fractions.Fraction), scipy.stats.permutation_test, and hand-computed values.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats as scipy_stats

from ragmeter import (
    InvalidInputError,
    QueryRecord,
    RetrievalEvaluation,
    adjust_p_values,
    bootstrap_confidence_interval,
    compare_evaluations,
    compare_many,
    sign_flip_test,
)


def brute_force_p(differences, tolerance=Fraction(1, 10**9)):
    """Share of the 2**n sign vectors whose |signed sum| reaches the observed |sum| minus the
    documented tolerance (1e-9 * sum |d|), in exact rational arithmetic."""
    exact = [Fraction(d) for d in differences]
    threshold = abs(sum(exact)) - tolerance * sum(abs(d) for d in exact)
    hits = sum(
        abs(sum(s * d for s, d in zip(signs, exact, strict=True))) >= threshold
        for signs in itertools.product((1, -1), repeat=len(exact))
    )
    return Fraction(hits, 2 ** len(exact))


# -- exact test ---------------------------------------------------------------------------------


def test_spec_example_two_queries():
    result = sign_flip_test([[-1.0, 0.0], [-1.0, -1 / 3], [-1.0, -0.5]])
    assert result.method == "exact"
    assert result.p_value.tolist() == [1.0, 0.5, 0.5]
    assert result.n_patterns == 4


@pytest.mark.parametrize("seed", range(12))
def test_exact_p_values_equal_brute_force_enumeration(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 12))
    rows = [
        rng.integers(-4, 5, size=n) / 4.0,  # many exact ties
        rng.normal(size=n),
        np.round(rng.uniform(-1, 1, size=n), 1),
    ]
    result = sign_flip_test(np.array(rows), method="exact")
    for row, p in zip(rows, result.p_value, strict=True):
        assert p == float(brute_force_p(row)), row
    # Quarters are exact in binary: ties are exact ties, no tolerance needed.
    assert result.p_value[0] == float(brute_force_p(rows[0], tolerance=0))


def test_decimal_ties_count_despite_binary_rounding():
    # Flipping 0.1, 0.2 and -0.3 leaves the sum at 0.5 in decimal arithmetic, but not in
    # binary (0.1 + 0.2 != 0.3): that sign vector must still count as a tie.
    d = [0.1, 0.2, -0.3, 0.5]
    p = sign_flip_test(d).p_value
    assert p == float(brute_force_p(d))
    assert brute_force_p(d, tolerance=0) < p  # what an exact binary comparison would say


def test_exact_p_values_equal_scipy_permutation_test():
    rng = np.random.default_rng(7)
    for n in (3, 8, 13):
        d = rng.normal(0.2, 1.0, size=n)
        expected = scipy_stats.permutation_test(
            (d,),
            lambda x, axis: np.abs(np.mean(x, axis=axis)),
            permutation_type="samples",
            alternative="greater",
            n_resamples=np.inf,
            vectorized=True,
        ).pvalue
        assert sign_flip_test(d).p_value == pytest.approx(expected, rel=1e-12)


def test_exact_edge_cases():
    assert sign_flip_test(np.zeros(5)).p_value == 1.0
    assert sign_flip_test(np.ones(10)).p_value == 2 / 2**10
    assert sign_flip_test([0.3]).p_value == 1.0
    # symmetric in the sign of the differences
    d = np.array([0.5, -0.25, 1.0, 0.75])
    assert sign_flip_test(d).p_value == sign_flip_test(-d).p_value
    with pytest.raises(InvalidInputError, match="24"):
        sign_flip_test(np.ones(25), method="exact")


def test_invalid_inputs_are_refused():
    with pytest.raises(InvalidInputError, match="undefined"):
        sign_flip_test([0.1, math.nan])
    with pytest.raises(InvalidInputError, match="at least one pair"):
        sign_flip_test([])
    with pytest.raises(InvalidInputError, match="shape"):
        sign_flip_test(np.zeros((2, 2, 2)))
    with pytest.raises(InvalidInputError, match="method"):
        sign_flip_test([1.0], method="magic")
    with pytest.raises(InvalidInputError, match="random_state"):
        sign_flip_test(np.ones(20), random_state=-1)
    with pytest.raises(InvalidInputError, match="n_resamples"):
        sign_flip_test(np.ones(20), n_resamples=0)


# -- sampled test -------------------------------------------------------------------------------


def sixteen_pairs():
    return np.array(
        [0.4, -0.1, 0.3, 0.25, -0.35, 0.1, 0.5, -0.2, 0.15, 0.05, -0.45, 0.3, 0.2, -0.05, 0.35, 0.1]
    )


def test_sampled_p_value_is_within_monte_carlo_error_of_the_exact_one_at_16_pairs():
    d = sixteen_pairs()
    exact = float(brute_force_p(d))
    assert sign_flip_test(d).p_value == exact  # auto is exact at 16 pairs
    n = 100_000
    sampled = sign_flip_test(d, method="sampled", n_resamples=n, random_state=12345)
    assert sampled.method == "sampled"
    sigma = math.sqrt(exact * (1 - exact) / n)
    assert 0.02 < exact < 0.98
    assert abs(sampled.p_value - exact) < 4.5 * sigma
    assert sampled.p_value == (sampled.count + 1) / (n + 1)


def test_sampled_p_values_are_reproducible_and_thread_independent():
    rng = np.random.default_rng(0)
    d = rng.normal(0.05, 0.3, size=(4, 200))
    runs = [
        sign_flip_test(d, n_resamples=20_000, random_state=99, n_threads=threads)
        for threads in (1, 2, 3, 1)
    ]
    for run in runs[1:]:
        assert run.p_value.tolist() == runs[0].p_value.tolist()
        assert run.count.tolist() == runs[0].count.tolist()
    other = sign_flip_test(d, n_resamples=20_000, random_state=100)
    assert other.count.tolist() != runs[0].count.tolist()
    assert runs[0].random_state == 99 and runs[0].method == "sampled"
    # Rows share the sign vectors: testing one row alone gives its count in the batch.
    alone = sign_flip_test(d[2], n_resamples=20_000, random_state=99)
    assert alone.count == runs[0].count[2]


def test_sampled_never_returns_zero_and_fresh_seed_is_recorded():
    d = np.full(40, 1.0)
    result = sign_flip_test(d, n_resamples=999)
    assert result.p_value == 1 / 1000
    fresh = sign_flip_test(d, n_resamples=99, random_state=None)
    assert isinstance(fresh.random_state, int)
    again = sign_flip_test(d, n_resamples=99, random_state=fresh.random_state)
    assert again.p_value == fresh.p_value


# -- bootstrap ----------------------------------------------------------------------------------


def test_bootstrap_interval_by_hand_and_constant():
    # Resampling [0, 1] gives means 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4.
    low, high = bootstrap_confidence_interval([0.0, 1.0], n_resamples=4000, random_state=1)
    assert (low, high) == (0.0, 1.0)
    low, high = bootstrap_confidence_interval([0.0, 1.0], confidence_level=0.4, random_state=1)
    assert (low, high) == (0.5, 0.5)
    assert bootstrap_confidence_interval(np.full(7, 0.25)) == (0.25, 0.25)


def test_bootstrap_agrees_with_scipy_and_is_thread_independent():
    rng = np.random.default_rng(5)
    d = rng.normal(0.1, 0.5, size=300)
    low, high = bootstrap_confidence_interval(d, n_resamples=20_000, random_state=3)
    expected = scipy_stats.bootstrap(
        (d,), np.mean, method="percentile", n_resamples=20_000, random_state=0
    ).confidence_interval
    assert low == pytest.approx(expected.low, abs=0.01)
    assert high == pytest.approx(expected.high, abs=0.01)
    rows = np.vstack([d, d * 2, np.where(np.arange(300) % 3 == 0, np.nan, d)])
    one = bootstrap_confidence_interval(rows, random_state=8, n_threads=1)
    two = bootstrap_confidence_interval(rows, random_state=8, n_threads=2)
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])
    assert one[0][1] == pytest.approx(2 * one[0][0])  # same resampled pairs for every row
    with pytest.raises(InvalidInputError, match="confidence_level"):
        bootstrap_confidence_interval(d, confidence_level=1.0)


def test_differences_whose_sums_overflow_float64_are_tested_correctly():
    # Sums of these differences overflow float64 (inf - inf is NaN): p was 0.0, below the
    # exact test's smallest possible 2 / 2**n, and the bootstrap interval (nan, nan).
    rng = np.random.default_rng(11)
    for n in (6, 9, 14):
        d = rng.normal(0.3, 1.0, size=n)
        d /= 2.0 ** np.floor(np.log2(np.abs(d).max()))  # 1 <= max |d| < 2, exactly
        huge = d * 2.0**1023  # a power of two: the same test, exactly
        with np.errstate(over="ignore"):
            assert not np.isfinite(np.sum(np.abs(huge)))
        expected = scipy_stats.permutation_test(
            (d,),
            lambda x, axis: np.abs(np.mean(x, axis=axis)),
            permutation_type="samples",
            alternative="greater",
            n_resamples=np.inf,
            vectorized=True,
        ).pvalue
        p = sign_flip_test(huge).p_value
        assert p >= 2 / 2**n
        assert p == pytest.approx(expected, rel=1e-12)
        assert p == sign_flip_test(d).p_value
    sampled = sign_flip_test(np.tile(huge, 3), random_state=2)
    assert sampled.p_value == sign_flip_test(np.tile(d, 3), random_state=2).p_value > 0
    low, high = bootstrap_confidence_interval(huge, random_state=4)
    small = bootstrap_confidence_interval(d, random_state=4)
    assert (low, high) == (small[0] * 2.0**1023, small[1] * 2.0**1023)
    assert np.isfinite([low, high]).all() and low < high
    # The largest finite differences: every sum overflows, the test still has its answer.
    assert sign_flip_test([1.7e308, 1.7e308, 1.7e308]).p_value == 2 / 2**3
    assert bootstrap_confidence_interval([1.7e308] * 3) == pytest.approx((1.7e308, 1.7e308))


# -- multiple comparisons -----------------------------------------------------------------------


def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted: 0.005*4 = 0.02, 0.01*3 = 0.03, 0.03*2 = 0.06, 0.04*1 -> max(0.06, 0.04)
    assert adjust_p_values(p).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert adjust_p_values(p, "bonferroni").tolist() == pytest.approx([0.04, 0.16, 0.12, 0.02])
    adjusted = adjust_p_values([0.5, math.nan, 0.2])
    assert adjusted[0] == pytest.approx(0.5) and math.isnan(adjusted[1])
    assert adjusted[2] == pytest.approx(0.4)
    # sorted: 0.8 * 2 -> 1 (capped), 0.9 * 1 -> max(1, 0.9)
    assert adjust_p_values([0.9, 0.8]).tolist() == [1.0, 1.0]
    assert adjust_p_values([0.01, 0.3]).tolist() == pytest.approx([0.02, 0.3])
    with pytest.raises(InvalidInputError):
        adjust_p_values([1.5])


# -- comparisons of evaluations -----------------------------------------------------------------


def evaluation(name, values, metrics=("m1", "m2"), zero_division="warn"):
    records = [
        QueryRecord(
            query_id=q,
            query=f"query {q}",
            status="success",
            latency=0.001,
            retrieved=(),
            values=dict(zip(metrics, row, strict=True)),
        )
        for q, row in values.items()
    ]
    parameters = {"metrics": metrics, "relevance_threshold": 1, "zero_division": zero_division}
    return RetrievalEvaluation(records=records, parameters=parameters, name=name)


def test_comparison_counts_and_exact_p_value():
    base = evaluation("base", {"a": (0.5, 1.0), "b": (0.0, 0.0), "c": (1.0, 0.5)})
    cand = evaluation("cand", {"c": (1.0, 1.0), "a": (1.0, 0.0), "b": (0.25, 0.0)})
    comparison = cand.compare(base)
    m1, m2 = comparison.metrics
    assert (m1.metric, m1.wins, m1.ties, m1.losses, m1.n_pairs) == ("m1", 2, 1, 0, 3)
    assert m1.delta == pytest.approx(0.25)
    assert m1.p_value == float(brute_force_p([0.5, 0.25, 0.0]))
    assert (m2.wins, m2.ties, m2.losses) == (1, 1, 1)
    assert m2.p_value == float(brute_force_p([-1.0, 0.0, 0.5]))
    assert comparison.per_query["m1"] == {"c": 0.0, "a": 0.5, "b": 0.25}
    assert comparison["m2"] is m2
    assert comparison.method == "exact" and comparison.n_resamples == 8
    assert m1.ci_low <= m1.delta <= m1.ci_high
    assert "cand vs base" in str(comparison)


def test_comparison_refuses_different_query_sets_and_settings():
    base = evaluation("base", {"a": (0.5, 1.0), "b": (0.0, 0.0)})
    other = evaluation("cand", {"a": (0.5, 1.0), "z": (0.0, 0.0)})
    with pytest.raises(InvalidInputError, match="same queries"):
        other.compare(base)
    nan_policy = evaluation("cand", {"a": (0.5, 1.0), "b": (0.0, 0.0)}, zero_division=math.nan)
    with pytest.raises(InvalidInputError, match="zero_division"):
        nan_policy.compare(base)
    with pytest.raises(InvalidInputError, match="not evaluated"):
        compare_evaluations(base, base, metrics=["m3"])


def test_undefined_values_are_left_out_of_their_metric():
    nan = math.nan
    base = evaluation(
        "base", {"a": (0.5, nan), "b": (0.0, 0.5), "c": (1.0, 0.5)}, zero_division=nan
    )
    cand = evaluation(
        "cand", {"a": (1.0, 1.0), "b": (nan, 1.0), "c": (1.0, 0.0)}, zero_division=nan
    )
    comparison = cand.compare(base)
    m1, m2 = comparison.metrics
    assert m1.n_pairs == 2 and m1.delta == pytest.approx(0.25)
    assert m1.p_value == float(brute_force_p([0.5, 0.0]))
    assert m2.n_pairs == 2 and m2.delta == pytest.approx(0.0)
    assert m2.p_value == float(brute_force_p([0.5, -0.5]))


def test_large_comparisons_sample_with_the_seed():
    rng = np.random.default_rng(1)
    base_values = {q: tuple(rng.uniform(size=2)) for q in range(60)}
    cand_values = {q: (v[0] + 0.1, v[1]) for q, v in base_values.items()}
    base, cand = evaluation("b", base_values), evaluation("c", cand_values)
    first = cand.compare(base, n_resamples=5000, random_state=4)
    second = cand.compare(base, n_resamples=5000, random_state=4)
    assert first == second
    assert first.method == "sampled" and first.n_resamples == 5000
    assert first["m1"].p_value == 1 / 5001  # every difference is +0.1
    assert first["m1"].ci_low == pytest.approx(0.1) and first["m1"].ci_high == pytest.approx(0.1)
    assert first["m2"].p_value == 1.0


def test_compare_many_adjusts_across_systems_and_metrics():
    rng = np.random.default_rng(2)
    base_values = {q: tuple(rng.uniform(size=2)) for q in range(10)}
    systems = {
        "base": evaluation("base", base_values),
        "better": evaluation("better", {q: (v[0] + 0.2, v[1]) for q, v in base_values.items()}),
        "noisy": evaluation(
            "noisy", {q: (v[0] + rng.normal(0, 0.1), v[1]) for q, v in base_values.items()}
        ),
    }
    result = compare_many(systems, baseline="base")
    raw = [m.p_value for name in ("better", "noisy") for m in result[name].metrics]
    adjusted = [m.p_value_adjusted for name in ("better", "noisy") for m in result[name].metrics]
    assert adjusted == pytest.approx(adjust_p_values(raw).tolist())
    assert result["better"]["m1"].p_value == 2 / 2**10
    assert set(result.comparisons) == {"better", "noisy"}
    by_sequence = compare_many(list(systems.values()), baseline=systems["base"])
    assert by_sequence == result
    with pytest.raises(InvalidInputError, match="baseline"):
        compare_many(systems, baseline="missing")
