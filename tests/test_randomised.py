"""Randomised Tukey HSD and Westfall-Young max-T step-down (ragmeter.stats.randomised).

Oracles: brute force over every permutation of every query's row ((m!)^n, the first query
included) and over every sign vector (2^n) with a direct numpy step-down; the sign-flip test
(the raw p-values of Westfall-Young are its p-values on the same sign vectors); an OLS fit of
the two-way model ``score ~ system + query`` by numpy least squares for the residual variance.
"""

from __future__ import annotations

import argparse
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragmeter import InvalidInputError, compare_many
from ragmeter.cli import _parser
from ragmeter.stats import sign_flip_test
from ragmeter.stats.randomised import randomised_tukey_hsd, westfall_young


def grid_matrix(rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Scores on a grid of 1/16, so that every sum is exact and ties are exact."""
    return rng.integers(0, 17, size=shape) / 16.0


def brute_force_tukey(scores: np.ndarray) -> np.ndarray:
    """p of every pair over all (m!)^n permutations (every query's row permuted)."""
    n, m = scores.shape
    observed = scores.sum(axis=0)
    rows = [[scores[q, list(p)] for p in itertools.permutations(range(m))] for q in range(n)]
    ranges = np.array([np.ptp(np.sum(choice, axis=0)) for choice in itertools.product(*rows)])
    p = np.ones((m, m))
    for i, j in itertools.combinations(range(m), 2):
        p[i, j] = p[j, i] = np.mean(ranges >= abs(observed[i] - observed[j]))
    return p


@pytest.mark.parametrize(
    ("n", "m", "seed"), [(1, 3, 0), (3, 3, 1), (5, 2, 2), (2, 4, 3), (4, 3, 4)]
)
def test_exact_randomised_tukey_equals_brute_force(n, m, seed):
    scores = grid_matrix(np.random.default_rng(seed), (n, m))
    result = randomised_tukey_hsd(scores, method="exact")
    assert result.method == "exact"
    assert result.n_permutations == math.factorial(m) ** n
    np.testing.assert_array_equal(result.p_values, brute_force_tukey(scores))
    np.testing.assert_array_equal(result.mean_differences, scores.mean(0)[:, None] - scores.mean(0))


def test_sampled_randomised_tukey_approaches_the_exact_p_value():
    scores = grid_matrix(np.random.default_rng(7), (6, 3))
    exact = randomised_tukey_hsd(scores, method="exact").p_values
    sampled = randomised_tukey_hsd(scores, method="sampled", n_resamples=40_000, random_state=3)
    assert sampled.method == "sampled" and sampled.random_state == 3
    # binomial standard error <= 0.0025; 5 of them
    np.testing.assert_allclose(sampled.p_values, exact, atol=0.0125)
    counts = sampled.counts[np.triu_indices(3, 1)]
    np.testing.assert_array_equal(
        sampled.p_values[np.triu_indices(3, 1)], (counts + 1) / (40_000 + 1)
    )


def test_randomised_tukey_keeps_the_pairing_that_the_one_way_test_loses():
    # A constant +0.03 gain over 100 queries with a large query effect: the one-way test
    # cannot see it (issue 23: p = 0.77), the randomised Tukey test finds p at its floor.
    rng = np.random.default_rng(0)
    base = rng.random(100)
    scores = np.column_stack([base, base + 0.03, base + rng.normal(0, 0.001, 100)])
    result = randomised_tukey_hsd(scores, n_resamples=999, random_state=1)
    assert result.p_values[0, 1] == 1 / 1000


def test_residual_variance_and_effect_sizes_match_the_two_way_ols_fit():
    rng = np.random.default_rng(5)
    n, m = 12, 4
    scores = rng.random((n, m))
    # OLS of score ~ C(system) + C(query), residual mean square with (n-1)(m-1) df.
    y = scores.ravel()
    design = np.zeros((n * m, 1 + (m - 1) + (n - 1)))
    design[:, 0] = 1
    for q in range(n):
        for s in range(m):
            row = q * m + s
            if s:
                design[row, s] = 1
            if q:
                design[row, m - 1 + q] = 1
    _, residual, *_ = np.linalg.lstsq(design, y, rcond=None)
    v_e = residual[0] / ((n - 1) * (m - 1))
    result = randomised_tukey_hsd(scores, n_resamples=99)
    assert result.residual_variance == pytest.approx(v_e, rel=1e-12)
    expected = (scores.mean(0)[:, None] - scores.mean(0)) / math.sqrt(v_e)
    np.testing.assert_allclose(result.effect_sizes, expected, rtol=1e-12)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    n=st.integers(2, 80),
    m=st.integers(2, 6),
    threads=st.integers(1, 4),
)
def test_sampled_tests_are_the_same_for_every_call_and_thread_count(seed, n, m, threads):
    scores = np.random.default_rng(seed % 1000).random((n, m))
    one = randomised_tukey_hsd(scores, method="sampled", n_resamples=2100, random_state=seed)
    other = randomised_tukey_hsd(
        scores, method="sampled", n_resamples=2100, random_state=seed, n_threads=threads
    )
    np.testing.assert_array_equal(one.p_values, other.p_values)
    assert (one.p_values > 0).all()
    differences = scores[:, 1:].T - scores[:, 0]
    wy = westfall_young(differences, method="sampled", n_resamples=2100, random_state=seed)
    wy_threads = westfall_young(
        differences, method="sampled", n_resamples=2100, random_state=seed, n_threads=threads
    )
    np.testing.assert_array_equal(wy.adjusted_p_values, wy_threads.adjusted_p_values)
    np.testing.assert_array_equal(wy.raw_p_values, wy_threads.raw_p_values)


def t_statistic(flipped: np.ndarray) -> np.ndarray:
    """|t| of every row of flipped differences (rows: sign vectors x candidates x queries)."""
    n = flipped.shape[-1]
    total = flipped.sum(-1)
    denominator = (n * (flipped**2).sum(-1) - total**2) / (n - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.abs(total) / np.sqrt(denominator)
    t[n * (flipped**2).sum(-1) - total**2 <= 1e-10 * n * (flipped**2).sum(-1)] = np.inf
    t[total == 0] = 0.0
    return t


def numpy_westfall_young(d: np.ndarray, statistic: str) -> tuple[np.ndarray, np.ndarray]:
    """Westfall and Young's algorithm 2.8 over all 2^n sign vectors, straight from the book."""
    k, n = d.shape
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=n)))  # 2^n x n
    flipped = signs[:, None, :] * d[None, :, :]
    if statistic == "t":
        stats = t_statistic(flipped)
        observed = t_statistic(d[None])[0]
        threshold = observed - 1e-9 * observed
    else:
        stats = np.abs(flipped.sum(-1)) / n
        observed = np.abs(d.sum(-1)) / n
        threshold = (np.abs(d.sum(-1)) - 1e-9 * np.abs(d).sum(-1)) / n
    raw = (stats >= threshold).mean(axis=0)
    order = sorted(range(k), key=lambda c: (-observed[c], c))
    successive = np.maximum.accumulate(stats[:, order[::-1]], axis=1)[:, ::-1]
    step = (successive >= threshold[order]).mean(axis=0)
    adjusted = np.empty(k)
    adjusted[order] = np.maximum.accumulate(step)
    return adjusted, raw


@pytest.mark.parametrize("statistic", ["t", "mean"])
@pytest.mark.parametrize(("k", "n", "seed"), [(1, 6, 0), (3, 8, 1), (5, 10, 2), (4, 12, 3)])
def test_exact_westfall_young_equals_the_numpy_step_down(statistic, k, n, seed):
    rng = np.random.default_rng(seed)
    d = (rng.integers(-8, 9, size=(k, n)) + rng.integers(0, 3, size=(k, 1))) / 16.0
    result = westfall_young(d, statistic=statistic, method="exact")
    adjusted, raw = numpy_westfall_young(d, statistic)
    np.testing.assert_array_equal(result.adjusted_p_values, adjusted)
    np.testing.assert_array_equal(result.raw_p_values, raw)
    assert result.n_patterns == 2**n
    assert (result.adjusted_p_values >= result.raw_p_values).all()


def test_sampled_westfall_young_raw_p_values_are_the_sign_flip_test_and_bounded():
    rng = np.random.default_rng(11)
    d = rng.normal(0.01, 0.1, size=(8, 300))
    result = westfall_young(d, n_resamples=3000, random_state=4)
    flips = sign_flip_test(d, method="sampled", n_resamples=3000, random_state=4)
    np.testing.assert_array_equal(result.raw_p_values, flips.p_value)
    assert (result.adjusted_p_values >= result.raw_p_values).all()
    # The union bound on the same sign vectors: before the monotonicity step the j-th adjusted
    # p-value is at most the sum of the raw p-values at or below it in the order.
    order = np.argsort(-result.statistics, kind="stable")
    union = np.minimum.accumulate(np.cumsum(result.raw_p_values[order][::-1])[::-1])
    assert (result.adjusted_p_values[order] <= np.maximum.accumulate(union) + 1e-12).all()
    # The adjusted p-values are monotone in the statistic.
    assert (np.diff(result.adjusted_p_values[order]) >= 0).all()


def test_westfall_young_names_and_identical_systems():
    result = westfall_young({"same": [0.0] * 20, "better": [0.1] * 20}, n_resamples=99)
    assert result.candidates == ("same", "better")
    assert result.adjusted_p_values[0] == 1.0
    assert result.statistics[1] == math.inf
    assert result.adjusted_p_values[1] == 1 / 100


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: randomised_tukey_hsd([[0.5], [0.25]]), "at least two systems"),
        (lambda: randomised_tukey_hsd(np.zeros((0, 3))), "at least one query"),
        (lambda: randomised_tukey_hsd([[0.5, math.nan]]), "query #0 of '1' is nan"),
        (lambda: randomised_tukey_hsd({"a": [1, 2], "b": [1]}), "same queries"),
        (lambda: randomised_tukey_hsd(np.zeros((30, 4)), method="exact"), "too many"),
        (lambda: randomised_tukey_hsd(np.zeros((3, 2)), method="nope"), "method"),
        (lambda: randomised_tukey_hsd(np.zeros((3, 2)), systems=["a"]), "expected 2 names"),
        (lambda: westfall_young([[0.5]]), "at least two queries"),
        (lambda: westfall_young(np.zeros((2, 30)), method="exact"), "limited to 24"),
        (lambda: westfall_young(np.zeros((2, 3)), statistic="z"), "statistic"),
        (lambda: westfall_young({"a": [0.1, math.inf]}), "query #1 of 'a' is inf"),
        (lambda: westfall_young(np.zeros((2, 3)), n_resamples=0), "n_resamples"),
    ],
)
def test_bad_input_is_refused_with_the_argument_named(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


# -- in the table of tests: compare_many(test="randomised-tukey" / "westfall-young") -----------


def campaign(scores: np.ndarray) -> dict:
    """{system: {"map": {query: value}}} from a queries x systems matrix."""
    return {
        f"s{s}": {"map": {f"q{q}": float(scores[q, s]) for q in range(scores.shape[0])}}
        for s in range(scores.shape[1])
    }


def test_compare_many_randomised_tukey_is_exact_brute_force_on_a_small_campaign():
    scores = grid_matrix(np.random.default_rng(21), (4, 3))
    result = compare_many(campaign(scores), test="randomised-tukey")
    assert result.method == "exact" and result.n_resamples == 6**4
    expected = brute_force_tukey(scores)
    assert len(result.pairs) == 3
    for a, b in result.pairs:
        item = result.metric_comparisons(a, b)[0]
        i, j = int(a[1:]), int(b[1:])
        assert item.p_value == expected[i, j]
        assert item.p_value_adjusted == expected[i, j]
    assert "randomised Tukey HSD" in str(result)
    assert "exact over all 1,296 permutations" in str(result)


def test_compare_many_randomised_tukey_uses_the_queries_every_system_has():
    rng = np.random.default_rng(4)
    scores = rng.random((40, 4))
    values = campaign(scores)
    values["s2"]["map"]["q7"] = math.nan  # undefined for one system
    result = compare_many(values, test="randomised-tukey", n_resamples=999, random_state=5)
    complete = np.delete(scores, 7, axis=0)
    direct = randomised_tukey_hsd(complete, method="sampled", n_resamples=999, random_state=5)
    assert result.method == "sampled" and result.random_state == 5
    for a, b in result.pairs:
        item = result.metric_comparisons(a, b)[0]
        assert item.p_value == direct.p_values[int(a[1:]), int(b[1:])]
    with pytest.raises(InvalidInputError, match="already adjusts"):
        compare_many(values, test="randomised-tukey", correction="holm")


def test_compare_many_westfall_young_is_the_numpy_step_down_on_a_small_campaign():
    rng = np.random.default_rng(8)
    scores = grid_matrix(rng, (9, 4))
    scores[:, 2] += 0.25
    result = compare_many(campaign(scores), test="westfall-young", baseline="s0")
    assert result.method == "exact" and result.n_resamples == 2**9
    d = (scores[:, 1:] - scores[:, :1]).T
    adjusted, _raw = numpy_westfall_young(d, "t")
    for c in range(1, 4):
        item = result.metric_comparisons(f"s{c}", "s0")[0]
        assert item.p_value == adjusted[c - 1]
    with pytest.raises(InvalidInputError, match="baseline"):
        compare_many(campaign(scores), test="westfall-young")


def test_the_cli_offers_the_randomised_tests():
    parser = _parser()
    compare_parser = next(
        a for a in parser._actions if isinstance(a, argparse._SubParsersAction)
    ).choices["compare"]
    action = next(a for a in compare_parser._actions if a.dest == "test")
    assert {"randomised-tukey", "westfall-young"} <= set(action.choices)
