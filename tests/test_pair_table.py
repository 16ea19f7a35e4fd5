"""The compact table of pairs (``ragmeter.stats.results.pairs.PairTable``) against the object
path it replaced: for every test of the table, on random data with undefined values, every
pair's ``MetricComparison`` made from the arrays equals the one built field by field from the
engine's outcome as ``compare_many`` built them before (the code of that path is kept here as
the reference), in both orders, and so do the saved form, the significance marks and the notes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragmeter import MultipleComparison, PerQueryResults, compare_many
from ragmeter.stats import TESTS
from ragmeter.stats.engine import align, pair_indices, run_tests
from ragmeter.stats.results import MetricComparison
from ragmeter.stats.results.pairs import PairTable


def _values(n_systems=5, n_queries=24, seed=11):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.1, 0.8, size=n_queries)
    out = {}
    for i in range(n_systems):
        by_metric = {}
        for metric, noise in (("map", 0.05), ("ndcg", 0.1), ("p10", 0.0)):
            column = base + 0.03 * i + rng.normal(0, noise, n_queries)
            if metric == "p10":
                # Ties and a constant difference: zero variance for some pairs.
                column = np.round(base * 10) / 10 + (0.1 if i % 2 else 0.0)
            column = column.tolist()
            if metric == "ndcg":
                column[i] = math.nan  # undefined for one system: left out of its pairs
            by_metric[metric] = {f"q{q}": v for q, v in enumerate(column)}
        clusters = {f"q{q}": f"c{q // 4}" for q in range(n_queries)}
        out[f"s{i}"] = PerQueryResults(by_metric, clusters=clusters)
    return out


def _objects(systems, result):
    """``{(candidate, baseline): [MetricComparison]}`` as compare_many built them before the
    table: one object per pair and metric from the engine's arrays."""
    options = result.options
    names = list(systems)
    aligned = align(systems, None, options.missing)
    pairs = pair_indices(names, options.baseline)
    outcome = run_tests(
        aligned.values,
        pairs,
        options,
        baseline=None if options.baseline is None else names.index(options.baseline),
        clusters=aligned.clusters,
    )
    confidence = outcome.confidence_level
    found = {}
    for row, (a, b) in enumerate(pairs):
        items = []
        for m, metric in enumerate(aligned.metrics):
            how = str(outcome.methods[row, m])
            items.append(
                MetricComparison(
                    metric=metric,
                    delta=float(outcome.delta[row, m]),
                    wins=int(outcome.wins[row, m]),
                    ties=int(outcome.ties[row, m]),
                    losses=int(outcome.losses[row, m]),
                    p_value=float(outcome.p_value[row, m]),
                    n_pairs=int(outcome.n_pairs[row, m]),
                    candidate_mean=float(outcome.candidate_mean[row, m]),
                    baseline_mean=float(outcome.baseline_mean[row, m]),
                    ci_low=float(outcome.ci_low[row, m]) if confidence is not None else None,
                    ci_high=float(outcome.ci_high[row, m]) if confidence is not None else None,
                    p_value_adjusted=None
                    if options.correction is None
                    else float(outcome.p_value_adjusted[row, m]),
                    statistic=float(outcome.statistic[row, m]),
                    effect_size=float(outcome.effect_size[row, m]),
                    p_value_method=how if how not in ("", "none") else None,
                )
            )
        found[names[a], names[b]] = items
    return found


def _same(left, right):
    # repr: NaN equals NaN, and a float is not confused with None.
    assert [repr(x) for x in left] == [repr(x) for x in right]


CASES = [
    (name, settings)
    for name in TESTS
    for settings in ({}, {"confidence_level": None, "correction": None})
]


@pytest.mark.parametrize(("test", "settings"), CASES, ids=[f"{t}-{len(s)}" for t, s in CASES])
def test_the_table_gives_the_objects_of_the_old_path(test, settings):
    spec = TESTS[test]
    systems = _values()
    baseline = "s0" if spec.requires_baseline else None
    if spec.own_correction is not None and settings:
        settings = {"confidence_level": None}
    result = compare_many(
        systems, test=test, baseline=baseline, n_resamples=199, n_bootstrap=199, **settings
    )
    objects = _objects(systems, result)
    assert list(result.pairs) == list(objects)
    assert isinstance(result.table, PairTable) and len(result.table) == len(objects)
    for (a, b), items in objects.items():
        _same(result.metric_comparisons(a, b), items)
        _same(result[a, b].metrics, items)
        _same(result.metric_comparisons(b, a), [m.mirrored() for m in items])
        _same(result[b, a].metrics, [m.mirrored() for m in items])
    saved = result.to_dict()["comparisons"]
    assert [(e["candidate"], e["baseline"]) for e in saved] == list(objects)
    for entry, items in zip(saved, objects.values(), strict=True):
        assert repr(entry["metrics"]) == repr([m.to_dict() for m in items])
    # The significance marks of the paper table, from the objects.
    beats = [[[] for _ in result.metric_names] for _ in result.systems]
    for (a, b), items in objects.items():
        i, j = result.systems.index(a), result.systems.index(b)
        for m, item in enumerate(items):
            if item.significant(result.alpha) and not math.isnan(item.delta):
                if item.delta > 0:
                    beats[i][m].append(j)
                elif item.delta < 0:
                    beats[j][m].append(i)
    assert result.systems_table().beats == [[sorted(c) for c in row] for row in beats]
    undefined = [
        (pair, item.metric)
        for pair, items in objects.items()
        for item in items
        if math.isnan(item.p_value)
    ]
    notes = " ".join(result.notes())
    if undefined:
        (a, b), metric = undefined[0]
        assert f"{len(undefined)} p-values are undefined" in notes
        assert f"e.g. {a} vs {b} on {metric}" in notes
    else:
        assert "p-values are undefined" not in notes
    # Read back: the same table.
    again = MultipleComparison.from_dict(result.to_dict())
    assert again == result
    for name, column in result.table.columns.items():
        np.testing.assert_array_equal(again.table.columns[name], column, err_msg=name)


def test_the_matrix_of_a_field_mirrors_the_pairs():
    systems = _values()
    result = compare_many(systems, test="t")
    table = result.table
    for m, metric in enumerate(result.metric_names):
        for field in ("delta", "ci_low", "ci_high", "p_value_adjusted", "wins", "effect_size"):
            matrix = table.matrix(field, m)
            for a in result.systems:
                for b in result.systems:
                    i, j = result.systems.index(a), result.systems.index(b)
                    if a == b:
                        assert math.isnan(matrix[i, j])
                        continue
                    item = result[a, b][metric]
                    expected = getattr(item, field)
                    expected = math.nan if expected is None else expected
                    assert repr(float(matrix[i, j])) == repr(float(expected)), (a, b, field)
    with pytest.raises(ValueError, match="statistic"):
        table.matrix("statistic", 0)


def test_lookups_and_bad_tables():
    result = compare_many(_values(n_systems=4), test="t", baseline="s2")
    table = result.table
    assert table.row("s0", "s2") == 0 and table.row("s3", "s2") == 2
    assert table.row("s2", "s0") is None and table.row("nope", "s2") is None
    with pytest.raises(KeyError, match="were not compared"):
        result["s0", "s1"]
    columns = {name: column for name, column in table.columns.items()}
    methods = np.full(columns["delta"].shape, "t")
    with pytest.raises(ValueError, match="twice"):
        PairTable(table.systems, table.metrics, [(0, 2), (0, 2), (3, 2)], columns, methods)
    with pytest.raises(ValueError, match="not one of the systems"):
        PairTable(table.systems, table.metrics, [(0, 2), (1, 2), (9, 2)], columns, methods)
    with pytest.raises(ValueError, match="shape"):
        PairTable(table.systems, table.metrics, [(0, 2), (1, 2)], columns, methods)


@pytest.mark.parametrize("seed", range(30))
def test_letter_groups_are_the_maximal_sets_without_a_different_pair(seed):
    # Brute force: every subset of the systems with no significantly different pair inside,
    # kept when no larger such subset holds it (the maximal cliques of "not different").
    from itertools import combinations

    from ragmeter.stats.letters import letter_groups

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 10))
    systems = [f"s{i}" for i in range(n)]
    pairs = list(combinations(systems, 2))
    density = rng.uniform(0.0, 1.0)
    different = [p for p in pairs if rng.random() < density]
    rng.shuffle(different)
    apart = {frozenset(p) for p in different}
    cliques = [
        frozenset(c)
        for size in range(1, n + 1)
        for c in combinations(systems, size)
        if not any(frozenset(p) in apart for p in combinations(c, 2))
    ]
    maximal = {c for c in cliques if not any(c < other for other in cliques)}
    found = letter_groups(systems, different)
    assert set(found) == maximal and len(found) == len(maximal)
    keys = [[*sorted(systems.index(s) for s in g), n] for g in found]
    assert keys == sorted(keys)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("level", [0.95, None])
def test_the_campaign_t_test_from_the_engines_moments_is_the_one_from_the_differences(
    alternative, level
):
    # The t-test reads the moments the engine computed for every test; the same test made
    # from the differences themselves (the input without them) gives the same bits.
    from dataclasses import replace

    from ragmeter.stats.options import ComparisonOptions
    from ragmeter.stats.registry import CampaignInput

    systems = _values(n_systems=6, n_queries=30, seed=4)
    aligned = align(systems, None, "raise")
    pairs = np.asarray(pair_indices(list(systems), None), dtype=np.intp)
    options = ComparisonOptions(test="t", confidence_level=level, alternative=alternative)
    seen = []
    spec = TESTS["t"]
    original = spec.run

    def spy(sample: CampaignInput):
        seen.append(sample)
        return original(sample)

    object.__setattr__(spec, "run", spy)
    try:
        run_tests(aligned.values, pairs, options)
    finally:
        object.__setattr__(spec, "run", original)
    (sample,) = seen
    assert sample.sd is not None and sample.scale is not None
    fast = original(sample)
    slow = original(replace(sample, sd=None, scale=None))
    for name in ("p_value", "statistic", "ci_low", "ci_high"):
        a, b = getattr(fast, name), getattr(slow, name)
        if level is None and name.startswith("ci"):
            assert a is None and b is None
            continue
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert np.isinf(slow.statistic).any()  # differences without variance are among them
