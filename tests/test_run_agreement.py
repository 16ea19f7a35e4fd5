"""Agreement without judgments: rank-biased overlap, Overlap@k, Jaccard@k (ragmeter.agreement)
and Kendall's tau-b / tau_ap between system orderings (ragmeter.stats.orderings).

Oracles: the ``rbo`` package (RankingSimilarity.rbo_ext, eq. 32 of Webber et al.); the
definition of RBO (eq. 7) summed to a large depth over the extreme continuations of the
rankings for RBO_min and RBO_min + RBO_res; set arithmetic for Overlap@k and Jaccard@k;
scipy.stats.kendalltau; a direct pure-Python tau_ap (Yilmaz et al. 2008, eq. 2, as a double
loop over pairs).
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import rbo
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as scipy_stats

from ragmeter import InputTypeError, InvalidInputError
from ragmeter.agreement import rank_biased_overlap, top_k_overlap
from ragmeter.stats import kendall_tau, tau_ap


def random_run(rng: random.Random, n_queries: int, pool: int, max_len: int, scored: bool):
    run = {}
    for q in range(n_queries):
        docs = rng.sample([f"d{i}" for i in range(pool)], rng.randint(1, max_len))
        # Distinct scores: the rbo package knows no ties.
        run[f"q{q}"] = {d: rng.random() for d in docs} if scored else docs
    return run


def ranked(ranking):
    if isinstance(ranking, dict):
        return sorted(ranking, key=lambda d: -ranking[d])
    return list(ranking)


def definition(a, b, p, depth=2000):
    """eq. 7 truncated at ``depth`` (the tail weighs at most p**depth)."""
    total, seen_a, seen_b, overlap = 0.0, set(), set(), 0
    for d in range(1, depth + 1):
        if d <= len(a):
            overlap += a[d - 1] in seen_b
            seen_a.add(a[d - 1])
        if d <= len(b):
            overlap += b[d - 1] in seen_a
            seen_b.add(b[d - 1])
        total += overlap / d * p**d
    return (1 - p) / p * total


def extreme_continuations(a, b, n=600):
    """(disjoint continuation, best continuation) of both rankings, ``n`` new ranks each."""
    fresh = iter(range(10**9))
    low_a = a + [f"new-a{next(fresh)}" for _ in range(n)]
    low_b = b + [f"new-b{next(fresh)}" for _ in range(n)]
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    shared = [f"shared{i}" for i in range(n)]
    high_s = short + [d for d in long if d not in short] + shared
    high_l = long + [d for d in short if d not in long] + shared
    return (low_a, low_b), (high_s, high_l)


@pytest.mark.parametrize("scored", [True, False])
@pytest.mark.parametrize("p", [0.5, 0.8, 0.9, 0.98])
def test_rbo_ext_equals_the_rbo_package_on_random_runs(scored, p):
    rng = random.Random(int(p * 100) + scored)
    a = random_run(rng, 40, 30, 20, scored)
    b = random_run(rng, 40, 30, 20, scored)
    result = rank_biased_overlap(a, b, p=p)
    expected = [
        rbo.RankingSimilarity(ranked(a[q]), ranked(b[q])).rbo_ext(p) for q in result.query_ids
    ]
    np.testing.assert_allclose(result.ext, expected, rtol=1e-12, atol=1e-14)
    assert result.mean_ext == pytest.approx(np.mean(expected), rel=1e-12)
    assert result.n_queries == 40


@pytest.mark.parametrize("p", [0.6, 0.9])
def test_rbo_bounds_are_the_definition_over_the_extreme_continuations(p):
    rng = random.Random(3)
    a = random_run(rng, 25, 25, 12, False)
    b = random_run(rng, 25, 25, 12, False)
    b["q0"] = []  # one empty ranking
    result = rank_biased_overlap(a, b, p=p)
    for q, low, res, ext in zip(result.query_ids, result.min, result.res, result.ext, strict=True):
        (la, lb), (hs, hl) = extreme_continuations(a[q], b[q])
        assert low == pytest.approx(definition(la, lb, p), abs=1e-12)
        assert low + res == pytest.approx(definition(hs, hl, p), abs=1e-12)
        assert low - 1e-12 <= ext <= low + res + 1e-12
    assert result.ext[0] == 0.0 and result.res[0] == pytest.approx(1.0)


def test_identical_rankings_and_the_paper_top_weight():
    run = {"q": [f"d{i}" for i in range(10)]}
    result = rank_biased_overlap(run, run, p=0.9)
    assert result.ext[0] == pytest.approx(1.0, abs=1e-15)
    # RBO_min of two identical top-10 lists is the weight of the first 10 ranks: 0.8556
    # for p = 0.9 (eq. 21 and the text of section 4.2: "86%").
    assert result.min[0] == pytest.approx(0.8556, abs=5e-5)
    assert result.min[0] == pytest.approx(
        rbo.RankingSimilarity(run["q"], run["q"]).top_weightness(p=0.9, d=10), rel=1e-12
    )


def test_scored_runs_are_ordered_by_trec_eval_rule_and_depth_cuts_both():
    # Tied scores: trec_eval orders them by doc id descending, so d2 comes before d1.
    a = {"q": {"d1": 1.0, "d2": 1.0, "d3": 0.5}}
    b = {"q": ["d2", "d1", "d3"]}
    assert rank_biased_overlap(a, b).ext[0] == pytest.approx(1.0)
    cut = rank_biased_overlap({"q": ["x", "y", "z"]}, {"q": ["x", "z", "y"]}, p=0.5, depth=1)
    assert cut.ext[0] == pytest.approx(1.0)
    assert cut.depth == 1


def test_runs_from_trec_files_equal_the_same_runs_as_dicts(tmp_path):
    rng = random.Random(9)
    runs = [random_run(rng, 12, 20, 15, True) for _ in range(2)]
    paths = []
    for i, run in enumerate(runs):
        path = tmp_path / f"run{i}.txt"
        with path.open("w") as out:
            for q, docs in run.items():
                for rank, d in enumerate(ranked(docs), 1):
                    out.write(f"{q} Q0 {d} {rank} {docs[d]!r} tag\n")
        paths.append(str(path))
    from_files = rank_biased_overlap(paths[0], paths[1], p=0.8)
    from_dicts = rank_biased_overlap(runs[0], runs[1], p=0.8)
    assert set(from_files.query_ids) == set(from_dicts.query_ids)
    assert from_files.per_query() == pytest.approx(from_dicts.per_query(), rel=1e-12)


def test_missing_queries_raise_or_are_compared_as_empty_or_skipped():
    a = {"q1": ["d1"], "q2": ["d2"]}
    b = {"q1": ["d1"], "q3": ["d3"]}
    with pytest.raises(InvalidInputError, match=r"only in run_a: 'q2'.*only in run_b: 'q3'"):
        rank_biased_overlap(a, b)
    empty = rank_biased_overlap(a, b, missing="empty")
    assert empty.query_ids == ("q1", "q2", "q3")
    assert empty.ext.tolist() == [1.0, 0.0, 0.0]
    skipped = rank_biased_overlap(a, b, missing="skip")
    assert skipped.query_ids == ("q1",)
    both_empty = rank_biased_overlap({"q": []}, {"q": []})
    assert math.isnan(both_empty.ext[0]) and both_empty.n_queries == 0
    assert math.isnan(both_empty.mean_ext)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: rank_biased_overlap({"q": ["a"]}, {"q": ["a"]}, p=1.0), "persistence"),
        (lambda: rank_biased_overlap({"q": ["a"]}, {"q": ["a"]}, depth=0), "depth"),
        (
            lambda: rank_biased_overlap({"q": ["a", "a"]}, {"q": ["a"]}),
            "run_a: query 'q' ranks document 'a' twice",
        ),
        (
            lambda: rank_biased_overlap({"q": ["a"]}, {"q": ["b", "b"]}),
            "run_b: query 'q' ranks document 'b' twice",
        ),
        (lambda: rank_biased_overlap({"q": ["a"]}, {"q": ["a"]}, missing="x"), "missing"),
        (lambda: top_k_overlap({"q": ["a"]}, {"q": ["a"]}, k=0), "k: must be"),
    ],
)
def test_bad_input_is_refused(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


def test_document_ids_of_different_types_are_refused_not_compared_as_disjoint():
    with pytest.raises(InputTypeError, match="run_a's document ids are str, run_b's are int"):
        rank_biased_overlap({"q": ["1", "2"]}, {"q": [1, 2]})
    with pytest.raises(InputTypeError, match="mix str and int"):
        rank_biased_overlap({"q": ["1", 2]}, {"q": ["1"]})
    with pytest.raises(InputTypeError, match="must be str or int"):
        rank_biased_overlap({"q": [1.5]}, {"q": ["1"]})
    ints = rank_biased_overlap({"q": [1, 2, 3]}, {"q": (2, 1, 3)})
    strs = rank_biased_overlap({"q": ["1", "2", "3"]}, {"q": ["2", "1", "3"]})
    assert ints.ext.tolist() == strs.ext.tolist()


@settings(max_examples=40, deadline=None)
@given(
    a=st.lists(st.integers(0, 15), unique=True, max_size=12),
    b=st.lists(st.integers(0, 15), unique=True, max_size=12),
    ks=st.lists(st.integers(1, 15), min_size=1, max_size=4),
)
def test_top_k_overlap_and_jaccard_are_the_set_arithmetic(a, b, ks):
    result = top_k_overlap({"q": a}, {"q": b}, k=ks)
    for column, k in enumerate(ks):
        top_a, top_b = set(a[:k]), set(b[:k])
        assert result.intersection[0, column] == len(top_a & top_b)
        assert result.overlap[0, column] == len(top_a & top_b) / k
        union = top_a | top_b
        if union:
            assert result.jaccard[0, column] == len(top_a & top_b) / len(union)
        else:
            assert math.isnan(result.jaccard[0, column])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), threads=st.integers(1, 4))
def test_rbo_is_the_same_for_every_thread_count(seed, threads):
    rng = random.Random(seed)
    a = random_run(rng, 30, 40, 25, True)
    b = random_run(rng, 30, 40, 25, True)
    one = rank_biased_overlap(a, b, n_threads=1)
    many = rank_biased_overlap(a, b, n_threads=threads)
    np.testing.assert_array_equal(one.ext, many.ext)
    np.testing.assert_array_equal(one.min, many.min)


# -- orderings of systems ---------------------------------------------------------------------


def direct_tau_ap(truth, estimate):
    """eq. 2 of Yilmaz et al.: for each system (by estimate), the share of the systems above
    it that the truth also puts above it."""
    systems = sorted(estimate, key=lambda s: -estimate[s])
    n = len(systems)
    total = 0.0
    for i in range(1, n):
        correct = sum(truth[systems[j]] > truth[systems[i]] for j in range(i))
        total += correct / i
    return 2 / (n - 1) * total - 1


@settings(max_examples=60, deadline=None)
@given(
    x=st.lists(st.integers(0, 6), min_size=2, max_size=12),
    seed=st.integers(0, 1000),
)
def test_kendall_tau_b_equals_scipy_with_ties(x, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 5, size=len(x)).tolist()
    expected = scipy_stats.kendalltau(x, y).statistic
    got = kendall_tau(x, y)
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 15), seed=st.integers(0, 10**6))
def test_tau_ap_equals_the_direct_definition(n, seed):
    rng = random.Random(seed)
    names = [f"s{i}" for i in range(n)]
    truth = {s: rng.random() for s in names}
    estimate = {s: rng.random() for s in names}
    assert tau_ap(truth, estimate) == pytest.approx(direct_tau_ap(truth, estimate), abs=1e-12)


def test_tau_ap_extremes_and_ties():
    truth = {"a": 3, "b": 2, "c": 1, "d": 0}
    assert tau_ap(truth, truth) == 1.0
    assert tau_ap(truth, {k: -v for k, v in truth.items()}) == -1.0
    # A swap at the top costs more than the same swap at the bottom (tau would be equal).
    top = tau_ap(truth, {"a": 2, "b": 3, "c": 1, "d": 0})
    bottom = tau_ap(truth, {"a": 3, "b": 2, "c": 0, "d": 1})
    assert top < bottom
    assert kendall_tau(truth, {"a": 2, "b": 3, "c": 1, "d": 0}) == pytest.approx(
        kendall_tau(truth, {"a": 3, "b": 2, "c": 0, "d": 1})
    )
    with pytest.raises(InvalidInputError, match="tie at"):
        tau_ap(truth, {"a": 1, "b": 1, "c": 0, "d": 2})
    with pytest.raises(InvalidInputError, match="same systems"):
        kendall_tau({"a": 1, "b": 2}, {"a": 1, "c": 2})
    assert math.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))


# -- tie groups (ties="tied") -------------------------------------------------------------------


def groups_of(scores: dict) -> list[list]:
    """The tie groups of a scored ranking, best first."""
    order = sorted(set(scores.values()), reverse=True)
    return [[d for d in scores if scores[d] == v] for v in order]


def definition_tied(a_groups, b_groups, p, depth=1500):
    """eq. 7 with Webber's agreement for ties (eq. 28): a tie group enters the prefix at the
    depth where it starts, A_d = 2 X_d / (|A_:d| + |B_:d|); truncated at ``depth``."""

    def starts(groups):
        out, position = [], 0
        for group in groups:
            out.append((position, group))
            position += len(group)
        return out

    sa, sb = starts(a_groups), starts(b_groups)
    total, ia, ib = 0.0, 0, 0
    seen_a, seen_b = set(), set()
    for d in range(1, depth + 1):
        while ia < len(sa) and sa[ia][0] < d:
            seen_a.update(sa[ia][1])
            ia += 1
        while ib < len(sb) and sb[ib][0] < d:
            seen_b.update(sb[ib][1])
            ib += 1
        if seen_a or seen_b:
            total += 2 * len(seen_a & seen_b) / (len(seen_a) + len(seen_b)) * p**d
    return (1 - p) / p * total


def tied_continuations(a_groups, b_groups, n=500):
    """(disjoint, best) continuations of tied rankings, one new document per rank."""
    a_items = [d for g in a_groups for d in g]
    b_items = [d for g in b_groups for d in g]
    low = (
        a_groups + [[f"new-a{i}"] for i in range(n)],
        b_groups + [[f"new-b{i}"] for i in range(n)],
    )
    if len(a_items) <= len(b_items):
        short, long, s_items, l_items = a_groups, b_groups, a_items, b_items
    else:
        short, long, s_items, l_items = b_groups, a_groups, b_items, a_items
    shared = [[f"shared{i}"] for i in range(n)]
    high_s = short + [[d] for d in l_items if d not in s_items] + shared
    high_l = long + [[d] for d in s_items if d not in l_items] + shared
    return low, (high_s, high_l)


@pytest.mark.parametrize("p", [0.6, 0.9])
def test_tied_rbo_bounds_are_the_definition_over_the_extreme_continuations(p):
    rng = random.Random(int(p * 10))
    a, b = {}, {}
    for q in range(40):
        # Scores on a coarse grid: many ties.
        a[f"q{q}"] = {f"d{i}": rng.randint(0, 3) for i in rng.sample(range(25), rng.randint(1, 10))}
        b[f"q{q}"] = {f"d{i}": rng.randint(0, 3) for i in rng.sample(range(25), rng.randint(1, 10))}
    result = rank_biased_overlap(a, b, p=p, ties="tied")
    assert result.ties == "tied"
    for q, low, res, ext in zip(result.query_ids, result.min, result.res, result.ext, strict=True):
        ga, gb = groups_of(a[q]), groups_of(b[q])
        (la, lb), (hs, hl) = tied_continuations(ga, gb)
        assert low == pytest.approx(definition_tied(la, lb, p), abs=1e-12), q
        assert low + res == pytest.approx(definition_tied(hs, hl, p), abs=1e-12), q
        assert low - 1e-12 <= ext <= low + res + 1e-12


def test_tied_rbo_by_hand_and_without_ties():
    # {x, y} tied against [y, x]: A_1 = 2 * 1 / (2 + 1), A_2 = 1, so with p = 0.9
    # RBO_ext = (1 - p) / p * (2/3 p + p^2) + p^2 = 0.1 * (2/3 + 0.9) + 0.81.
    tied = rank_biased_overlap({"q": {"x": 1.0, "y": 1.0}}, {"q": ["y", "x"]}, ties="tied")
    assert tied.ext[0] == pytest.approx(0.1 * (2 / 3 + 0.9) + 0.81, rel=1e-14)
    # trec_eval's order puts y (the larger id) first: the same ranking.
    strict = rank_biased_overlap({"q": {"x": 1.0, "y": 1.0}}, {"q": ["y", "x"]})
    assert strict.ext[0] == pytest.approx(1.0)
    rng = random.Random(5)
    a = random_run(rng, 30, 30, 15, True)
    b = random_run(rng, 30, 30, 15, True)
    untied = rank_biased_overlap(a, b, ties="tied")
    plain = rank_biased_overlap(a, b)
    np.testing.assert_allclose(untied.ext, plain.ext, rtol=1e-13)
    np.testing.assert_allclose(untied.min, plain.min, rtol=1e-13)
    np.testing.assert_allclose(untied.res, plain.res, rtol=1e-13, atol=1e-15)
    with pytest.raises(InvalidInputError, match="ties"):
        rank_biased_overlap(a, b, ties="average")
