"""What every comparison states: p-values never 0 for sampled tests (the +1 rule, Phipson
and Smyth 2010), the same p-values on every call and for every thread count with one seed,
and the test, randomisation count, seed, correction and family size in every caption and
saved result; the margin verdict of each interval.

Oracles: the +1 rule's own formula (1 / (B + 1) when no sampled vector is as extreme: a
constant large gain over 40 queries), the exact count of the two extreme sign vectors
(2 / 2^n), hypothesis-drawn campaigns run with 1 to 4 threads, and hand-made intervals for the
margin verdicts.
"""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmeter
from ragmeter import compare_many
from ragmeter.stats import TESTS
from ragmeter.stats.tables import margin_verdict


def constant_gain(n=40, gain=0.3, seed=0):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0, 0.5, n)
    return {
        "base": {"m": {f"q{i}": float(v) for i, v in enumerate(base)}},
        "better": {
            "m": {f"q{i}": float(v) for i, v in enumerate(base + gain + rng.uniform(0, 0.01, n))}
        },
    }


@pytest.mark.parametrize("test", ["sign-flip", "bootstrap"])
def test_sampled_p_values_are_never_zero(test):
    result = compare_many(constant_gain(), test=test, n_resamples=999, correction=None)
    item = result["better", "base"]["m"]
    assert item.p_value == pytest.approx(1 / 1000, rel=1e-12)
    assert item.p_value_method == "sampled"


def test_exact_p_values_count_the_observed_vectors():
    result = compare_many(constant_gain(n=10), test="sign-flip", correction=None)
    item = result["better", "base"]["m"]
    assert result.method == "exact" and item.p_value == pytest.approx(2 / 2**10, rel=1e-12)


def campaigns():
    return st.integers(min_value=0, max_value=2**32 - 1).map(
        lambda seed: {
            f"s{k}": {
                "m": {
                    f"q{i}": float(v)
                    for i, v in enumerate(np.random.default_rng(seed + k).uniform(0, 1, 30))
                }
            }
            for k in range(3)
        }
    )


@settings(max_examples=15, deadline=None)
@given(campaigns(), st.sampled_from(["sign-flip", "bootstrap"]), st.integers(0, 2**40))
def test_one_seed_gives_the_same_p_values_for_any_thread_count(systems, test, seed):
    results = [
        compare_many(systems, test=test, n_resamples=499, random_state=seed, n_threads=threads)
        for threads in (1, 2, 3, 4, 2)
    ]
    first = results[0].to_dict()
    for other in results[1:]:
        assert other.to_dict() == first


@pytest.mark.parametrize("name", list(TESTS))
def test_every_caption_and_saved_result_states_the_test(name):
    systems = constant_gain(n=30)
    systems["third"] = constant_gain(n=30, gain=0.01, seed=3)["better"]
    spec = TESTS[name]
    if spec.requires_clusters:
        systems = {
            key: ragmeter.PerQueryResults(
                values, clusters={q: f"c{i // 3}" for i, q in enumerate(values["m"])}
            )
            for key, values in systems.items()
        }
    baseline = "base" if spec.requires_baseline else None
    result = compare_many(systems, test=name, n_resamples=499, random_state=7, baseline=baseline)
    caption = result.to_table()
    assert spec.title in caption
    if spec.resampled:
        assert "499" in caption and "(seed 7)" in caption
    if spec.interval == "bootstrap":
        assert "bootstrap percentiles of 9,999 resamples (seed 7)" in caption
    # A test that adjusts its own p-values does so per metric, over all 3 pairs of the 3
    # systems, or over the pairs it compared (Westfall-Young: the 2 candidates against the
    # baseline).
    per_metric = 3 if baseline is None or spec.own_family == "all-pairs" else len(result.pairs)
    n_tests = per_metric if spec.own_correction else 3 * len(result.metric_names)
    assert result.to_dict()["n_tests"] == n_tests
    if spec.own_correction is None:
        assert f"over all {n_tests} tests" in caption
    else:
        assert f"({per_metric} pairs per metric)" in caption
    saved = json.loads(result.to_json())
    assert saved["test"] == name and saved["options"]["random_state"] == 7
    assert saved["n_resamples"] == (499 if spec.resampled else 0)
    row = next(csv.DictReader(io.StringIO(result.to_csv())))
    assert row["test"] == name and row["n_tests"] == str(n_tests)
    assert row["random_state"] == ("7" if spec.resampled or spec.interval == "bootstrap" else "")
    pair = result["better", "base"].to_table()
    assert spec.title in pair and str(n_tests) in pair


def test_tukey_with_a_baseline_states_its_whole_family():
    systems = constant_gain(n=30)
    systems["third"] = constant_gain(n=30, gain=0.01, seed=3)["better"]
    systems["fourth"] = constant_gain(n=30, gain=0.02, seed=4)["better"]
    result = compare_many(systems, test="tukey", baseline="base")
    # Only the 3 pairs with the baseline are reported, adjusted over all 6 pairs of 4 systems.
    assert len(result.pairs) == 3 and result.to_dict()["n_tests"] == 6
    assert "(6 pairs per metric)" in result.to_table()
    assert "(6 pairs per metric)" in result["better"].to_table()
    everything = compare_many(systems, test="tukey")
    assert result["better"]["m"].p_value == everything["better", "base"]["m"].p_value


def test_margin_verdicts():
    assert margin_verdict(0.02, 0.05, 0.01) == "beyond"
    assert margin_verdict(-0.05, -0.011, 0.01) == "beyond"
    assert margin_verdict(-0.01, 0.01, 0.01) == "within"
    assert margin_verdict(0.005, 0.02, 0.01) == "unclear"
    assert margin_verdict(0.02, 0.05, 0.0) is None and margin_verdict(None, None, 0.1) is None
    result = compare_many(constant_gain(), test="t", margin=0.1)
    text = result.to_table()
    assert "vs ±0.1" in text and "beyond" in text
    row = next(csv.DictReader(io.StringIO(result.to_csv())))
    assert row["margin"] == "0.1" and row["margin_verdict"] == "beyond"
    assert "vs ±" not in compare_many(constant_gain(), test="t").to_table()
