"""Judged samples that come in clusters (several questions about one document): the values
record each sample's cluster, the clustered mean's interval is the cluster-robust one, the
comparison engine's cluster-t test reads them, and a comparison with a test that ignores them
says so (issue 46 item 2: "used by compare, the gate and the judge summaries whenever clusters
are given"). Oracle: statsmodels' OLS of the values on a constant with cluster-robust
covariance (``cov_type="cluster"``)."""

from __future__ import annotations

import random

import numpy as np
import pytest
import statsmodels.api as sm

from ragmeter import InvalidInputError, compare_many
from ragmeter.judges import RubricMetric, Sample, ScriptedJudge, evaluate

METRIC = RubricMetric("grade", "Grade $answer.", allowed_values=[0, 1, 2, 3, 4])


def _judged(shift: int, name: str):
    """12 documents x 4 questions each; a document's questions share its difficulty."""
    draw = random.Random(7)
    difficulty = {d: draw.choice([0, 1, 2, 3]) for d in range(12)}
    samples = [
        Sample(f"Q{d}.{k}?", f"answer {d * 4 + k}.", id=f"d{d}q{k}", metadata={"doc": f"doc{d}"})
        for d in range(12)
        for k in range(4)
    ]

    def grade(request):
        i = int(request.first_user_message().split("answer ")[1].split(".")[0])
        noise = random.Random(f"{name}/{i}").choice([-1, 0, 0, 1])
        return {"value": min(4, max(0, difficulty[i // 4] + shift + noise)), "reason": "r"}

    judge = ScriptedJudge({"rubric_grade": grade}, name="judge")  # one judge for both systems
    return evaluate(samples, [METRIC], judge=judge, progress=False), samples


def test_the_clustered_mean_is_statsmodels_cluster_robust_ols():
    results, samples = _judged(0, "a")
    found = results.clustered_mean("grade", "doc")
    y = np.array([row.score.value for row in results.rows], dtype=float)
    groups = np.array([int(s.metadata["doc"][3:]) for s in samples])
    fit = sm.OLS(y, np.ones_like(y)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    assert found.mean == pytest.approx(float(fit.params[0]), rel=1e-12)
    assert found.se == pytest.approx(float(fit.bse[0]), rel=1e-9)
    by_id = results.clustered_mean("grade", {s.id: s.metadata["doc"] for s in samples})
    assert by_id.se == found.se
    values = results.per_query_results(cluster="doc")
    assert values.clusters == {s.id: s.metadata["doc"] for s in samples}


def test_compare_reads_the_clusters_and_says_when_a_test_ignores_them():
    a, _ = _judged(0, "a")
    b, _ = _judged(1, "b")
    systems = [a.per_query_results("a", cluster="doc"), b.per_query_results("b", cluster="doc")]
    naive = compare_many(systems, test="t")
    assert any("48 queries in 12 clusters" in note for note in naive.notes())
    clustered = compare_many(systems, test="cluster-t")
    assert not any("clusters, which" in note for note in clustered.notes())
    # The cluster-t interval is wider than the t interval here: questions of a document alike.
    width = {
        name: result["b", "a"]["grade"].ci_high - result["b", "a"]["grade"].ci_low
        for name, result in (("t", naive), ("cluster-t", clustered))
    }
    assert width["cluster-t"] > width["t"]


def test_a_sample_without_a_cluster_is_refused_naming_it():
    results, samples = _judged(0, "a")
    with pytest.raises(InvalidInputError, match=r"no cluster for 1 of 48 samples \['d0q0'\]"):
        results.per_query_results(cluster={s.id: "x" for s in samples[1:]})
    with pytest.raises(InvalidInputError, match="metadata\\['nope'\\]"):
        results.clustered_mean("grade", "nope")
