"""optimize_fusion and the ranx drop-in's fuse/optimize_fusion/normalize against ranx (the
oracle) on runs that rank the same documents with distinct random scores (so no fused ties
leave ranx's order arbitrary)."""

from __future__ import annotations

import random

import pytest

ranx = pytest.importorskip("ranx")

from ranx.fusion import fusion_switch, probfuse_train, slidefuse_train  # noqa: E402
from ranx.normalization import norm_switch  # noqa: E402

from ragmeter import ranking_metrics  # noqa: E402
from ragmeter.compat import ranx as compat  # noqa: E402
from ragmeter.fusion import optimize_fusion  # noqa: E402


def _data(seed: int, n_runs: int = 2):
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(12)]
    runs = [
        {f"q{q}": {d: rng.uniform(0, 5) for d in docs} for q in range(8)} for _ in range(n_runs)
    ]
    qrels = {f"q{q}": {d: 1 for d in rng.sample(docs, 3)} for q in range(8)}
    return qrels, runs


@pytest.mark.parametrize(
    ("method", "bounds"),
    [
        ("wsum", {}),
        ("mixed", {"step": 0.25}),
        ("rrf", {}),
        ("rbc", {"step": 0.1}),
        ("gmnz", {"step": 0.1}),
        ("logn_isr", {"step": 0.1}),
        ("slidefuse", {"max_w": 5}),
        ("probfuse", {"max_n_segments": 5}),
    ],
)
@pytest.mark.parametrize("metric", ["ndcg@5", "map", "mrr"])
def test_optimize_fusion_table_equals_ranx_fusions(method, bounds, metric):
    """Each configuration's score equals the mean metric of ranx's own fused run for that
    configuration, ranked by trec_eval's rule (ragmeter.ranking_metrics reads the dict so): rank
    fusion of runs ranking the same documents ties often, and ranx's order of ties is
    arbitrary, so ranx's own table differs there. The grid is ranx's."""
    qrels, runs = _data(len(method) + len(metric))
    search = optimize_fusion(qrels, runs, method=method, norm="zmuv", metric=metric, **bounds)
    rq = ranx.Qrels.from_dict(qrels)
    rruns = [ranx.Run.from_dict(r) for r in runs]
    normed = [norm_switch("zmuv")(r) for r in rruns]
    _, report = ranx.optimize_fusion(
        rq,
        rruns,
        method=method,
        norm="zmuv",
        metric=metric,
        return_optimization_report=True,
        show_progress=False,
        **bounds,
    )
    assert len(search.table) == len(report.results)
    reference = []
    for trial, _ in search.table:
        if method == "probfuse":
            params = {"probs": probfuse_train(rq, normed, trial["n_segments"])}
        elif method == "slidefuse":
            params = {"probs": slidefuse_train(rq, normed), "w": trial["w"]}
        else:
            params = trial
        fused = fusion_switch(method)(normed, **params).to_dict()
        values = ranking_metrics(qrels, fused, metrics=[metric], average=None, zero_division=0.0)
        reference.append(sum(float(values[metric][q]) for q in qrels) / len(qrels))
    assert [s for _, s in search.table] == pytest.approx(reference, rel=1e-9)
    best = max(range(len(reference)), key=lambda i: (reference[i], i))  # ranx: last best
    assert search.best_score == pytest.approx(reference[best], rel=1e-9)
    if method not in ("probfuse", "slidefuse"):
        assert search.best_params == search.table[best][0]


def test_compat_fuse_normalize_and_optimize_equal_ranx():
    qrels, runs = _data(3)
    ours_runs = [compat.Run.from_dict(r) for r in runs]
    ranx_runs = [ranx.Run.from_dict(r) for r in runs]
    fused = compat.fuse(ours_runs, norm="zmuv", method="rrf", params={"k": 20})
    assert isinstance(fused, compat.Run)
    theirs = ranx.fuse(ranx_runs, norm="zmuv", method="rrf", params={"k": 20})
    for q in runs[0]:
        assert fused[q] == pytest.approx(dict(theirs[q]), rel=1e-9)
        ranked = list(fused[q].items())  # ranx orders RRF's many ties arbitrarily
        by_id = sorted(ranked, key=lambda x: x[0].encode(), reverse=True)
        assert ranked == sorted(by_id, key=lambda x: -x[1])  # stable: ties stay id-descending
    normed = compat.normalize(ours_runs[0], "sum")
    ranx_normed = ranx.normalize(ranx_runs[0], "sum")
    for q in runs[0]:
        assert normed[q] == pytest.approx(dict(ranx_normed[q]), rel=1e-9)
    best = compat.optimize_fusion(
        compat.Qrels.from_dict(qrels),
        ours_runs,
        norm="zmuv",
        method="wsum",
        metric="ndcg",
        show_progress=False,
    )
    ranx_best = ranx.optimize_fusion(
        ranx.Qrels.from_dict(qrels),
        ranx_runs,
        norm="zmuv",
        method="wsum",
        metric="ndcg",
        show_progress=False,
    )
    assert list(best["weights"]) == pytest.approx(list(ranx_best["weights"]))
