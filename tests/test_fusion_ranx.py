"""Fusion against ranx itself (the oracle, ranx 0.3 from the test extra): every method x every
normalisation on random runs with distinct scores, fused scores equal per query and document
(1e-9 relative) and rankings equal up to ranx's arbitrary order of tied fused scores.

Where ranx's own order is arbitrary the comparison says so:
- Condorcet sorts with a pairwise-majority comparison that can be cyclic, from Python's set
  order; it is compared on the queries whose majority relation is a total order.
- After the borda normalisation ranx ranks each run in set order; it is compared with ranx's
  normalised runs re-sorted by score, on runs that rank every candidate (no borda ties).
"""

from __future__ import annotations

import itertools
import random

import pytest

ranx = pytest.importorskip("ranx")
from ranx.fusion import (  # noqa: E402
    fusion_switch,
    probfuse_train,
    slidefuse_train,
)
from ranx.normalization import norm_switch  # noqa: E402

from ragmeter.fusion import METHODS, NORMALIZATIONS, fuse, train_fusion  # noqa: E402

NORMS: list[str | None] = [None, *NORMALIZATIONS]
UNTRAINED = [m for m, d in METHODS.items() if d.training is None]

PARAMS = {
    "gmnz": {"gamma": 0.7},
    "wsum": {"weights": [0.5, 0.3, 0.2]},
    "wmnz": {"weights": [0.5, 0.3, 0.2]},
    "mixed": {"weights": [0.5, 0.3, 0.2]},
    "rrf": {"k": 60},
    "logn_isr": {"sigma": 0.01},
    "w_bordafuse": {"weights": [0.5, 0.3, 0.2]},
    "w_condorcet": {"weights": [0.5, 0.3, 0.2]},
    "rbc": {"phi": 0.8},
}


def _runs(seed: int, *, full: bool) -> list[dict[str, dict[str, float]]]:
    rng = random.Random(seed)
    pool = [f"d{i:02d}" for i in range(30)]
    runs = []
    for _ in range(3):
        run = {}
        for q in range(6):
            docs = pool[:12] if full else rng.sample(pool, rng.randint(3, 15))
            run[f"q{q}"] = {d: rng.uniform(-3, 7) for d in docs}
        runs.append(run)
    return runs


def _ranx_runs(runs):
    return [
        ranx.Run.from_dict({q: dict(v) for q, v in r.items()}, name=f"r{i}")
        for i, r in enumerate(runs)
    ]


def _assert_same(ours, theirs, query, where):
    assert set(ours) == set(theirs), where
    for d, s in theirs.items():
        assert ours[d] == pytest.approx(s, rel=1e-9, abs=1e-12), (where, query, d)
    ranked = list(ours.items())
    # Our order: score descending, ties by doc id descending (trec_eval).
    by_id = sorted(ranked, key=lambda x: x[0].encode(), reverse=True)
    assert ranked == sorted(by_id, key=lambda x: -x[1]), (where, query)  # stable sort
    # ranx's order agrees wherever its fused scores are not tied.
    theirs_order = list(theirs)
    for a, b in itertools.pairwise(theirs_order):
        if theirs[a] - theirs[b] > 1e-9 * max(abs(theirs[a]), abs(theirs[b])) + 1e-12:
            assert ours[a] > ours[b], (where, query, a, b)


def _majority_is_total(runs_q: list[dict[str, float]], weights=None) -> bool:
    cands = sorted(set().union(*runs_q))
    pos = []
    for r in runs_q:
        order = sorted(r, key=lambda d: -r[d])
        pos.append({d: i for i, d in enumerate(order)})
    w = weights or [1.0] * len(runs_q)

    def before(x, y):
        xv = sum(w[i] for i, p in enumerate(pos) if p.get(x, 10**6) < p.get(y, 10**6))
        return xv >= sum(w) - xv

    for x, y in itertools.permutations(cands, 2):
        if before(x, y) == before(y, x):
            return False  # a tie or no winner: ranx's order between them is arbitrary
    for x, y, z in itertools.permutations(cands, 3):
        if before(x, y) and before(y, z) and not before(x, z):
            return False
    return True


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("method", UNTRAINED)
def test_untrained_methods_equal_ranx(method, norm):
    params = PARAMS.get(method, {})
    rank_based = METHODS[method].family == "rank"
    full = norm == "borda" and rank_based
    runs = _runs(hash((method, norm)) % 1000, full=full)
    ours = fuse(runs, method=method, norm=norm, **params).to_dict()
    if full:
        normed = norm_switch("borda")(_ranx_runs(runs))
        for r in normed:
            r.sort()
        theirs = fusion_switch(method)(normed, **params)
    else:
        theirs = ranx.fuse(_ranx_runs(runs), norm=norm, method=method, params=params)
    compared = 0
    for q in runs[0]:
        if method in ("condorcet", "w_condorcet"):
            runs_q = [r[q] for r in runs]
            if norm == "min-max-inverted":
                runs_q = [{d: -s for d, s in r.items()} for r in runs_q]
            if not _majority_is_total(runs_q, params.get("weights")):
                continue
        _assert_same(ours[q], dict(theirs[q]), q, (method, norm))
        compared += 1
    if method not in ("condorcet", "w_condorcet"):  # see the next test for those
        assert compared == len(runs[0])


@pytest.mark.parametrize("method", ["condorcet", "w_condorcet"])
def test_condorcet_equals_ranx_on_transitive_queries(method):
    """Runs that agree up to small noise: the majority relation is a total order on most
    queries, and there ranx's sort and ours must agree."""
    rng = random.Random(7)
    # Weights with no tie between a run and the two others (0.5 against 0.3 + 0.2 would tie).
    params = {"weights": [0.45, 0.35, 0.2]} if method == "w_condorcet" else {}
    base = {f"q{q}": {f"d{i:02d}": rng.uniform(0, 10) for i in range(10)} for q in range(30)}
    runs = [
        {
            q: {d: s + rng.gauss(0, 0.5) for d, s in docs.items() if rng.random() < 0.95}
            for q, docs in base.items()
        }
        for _ in range(3)
    ]
    ours = fuse(runs, method=method, norm=None, **params).to_dict()
    theirs = ranx.fuse(_ranx_runs(runs), norm=None, method=method, params=params)
    compared = 0
    for q in base:
        if _majority_is_total([r[q] for r in runs], params.get("weights")):
            _assert_same(ours[q], dict(theirs[q]), q, method)
            compared += 1
    assert compared >= 10


def _qrels(runs, seed):
    rng = random.Random(seed)
    qrels = {}
    for q in runs[0]:
        docs = sorted(set().union(*(r[q] for r in runs)))
        rel = {d: rng.choice([1, 2]) for d in rng.sample(docs, max(1, len(docs) // 3))}
        rel.update({d: 0 for d in rng.sample(docs, 2) if d not in rel})
        qrels[q] = rel
    return qrels


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize(
    "method", ["posfuse", "segfuse", "mapfuse", "bayesfuse", "probfuse", "slidefuse"]
)
def test_trained_methods_equal_ranx(method, norm):
    # After borda ranx ranks in set order: compared on runs ranking every candidate, with
    # ranx's normalised runs re-sorted by score.
    borda = norm == "borda"
    runs = _runs(hash((method, norm, "t")) % 1000, full=borda)
    qrels = _qrels(runs, 3)
    rq = ranx.Qrels.from_dict(qrels)
    rruns = _ranx_runs(runs)
    if borda:
        normed = norm_switch("borda")(rruns)
        for r in normed:
            r.sort()
    else:
        normed = rruns if norm is None else [norm_switch(norm)(r) for r in rruns]
    extra: dict = {}
    if method == "probfuse":
        params = {"probs": probfuse_train(rq, normed, 4)}
        extra = {"n_segments": 4}
    elif method == "slidefuse":
        params = {"probs": slidefuse_train(rq, normed), "w": 2}
        extra = {"w": 2}
    else:
        params = ranx.optimize_fusion(rq, normed, norm=None, method=method)
    theirs = fusion_switch(method)(normed, **params)
    learnt_name = METHODS[method].trained_parameter
    learnt = train_fusion(qrels, runs, method, norm=norm, n_segments=extra.get("n_segments"))
    expected = params[learnt_name]
    assert len(learnt) == len(expected)
    for ours_p, theirs_p in zip(learnt, expected, strict=True):
        if learnt_name == "map_scores":
            assert ours_p == pytest.approx(theirs_p, rel=1e-12)
        else:
            assert list(ours_p) == pytest.approx(list(theirs_p), rel=1e-12, abs=1e-15)
    ours = fuse(runs, method=method, norm=norm, qrels=qrels, **extra).to_dict()
    for q in runs[0]:
        _assert_same(ours[q], dict(theirs[q]), q, (method, norm))
