"""Clusters given to a comparison and to the gate (issue 46 item 2: "``cluster=`` column or
mapping ... used by ``compare``, the gate and the judge summaries whenever clusters are
given"): ``compare(..., clusters=)``, ``compare_many(..., clusters=)``, ``gate(...,
clusters=)`` and ``ragmeter compare|gate --clusters FILE``.

Oracles: statsmodels' OLS of the per-query differences on a constant with cluster-robust
covariance (``cov_type="cluster"``, ``use_t=True``: CR1, t on G - 1 degrees of freedom) for
the p-values and intervals; the design effect computed here from statsmodels' cluster-robust
variance over the independent variance ``s^2 / n`` (Kish 1965); scipy's ``ttest_rel`` for the
test that ignores the clusters."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

import ragmeter
from ragmeter import InvalidInputError, PerQueryResults, compare, compare_many
from ragmeter.cli import main
from ragmeter.gate import gate
from ragmeter.io import read_clusters

sm = pytest.importorskip("statsmodels.api")

N_DOCS, PER_DOC = 15, 4


def _campaign(seed: int = 11) -> tuple[dict[str, dict[str, dict[str, float]]], dict[str, str]]:
    """Three systems over 15 documents x 4 questions; a document's questions share an effect
    of the document on each system's gain (so the differences are clustered)."""
    rng = np.random.default_rng(seed)
    ids = [f"q{d}-{k}" for d in range(N_DOCS) for k in range(PER_DOC)]
    clusters = {q: f"doc{i // PER_DOC}" for i, q in enumerate(ids)}
    level = rng.normal(0.5, 0.15, N_DOCS)
    systems = {}
    for name, gain in (("bm25", 0.0), ("dense", 0.04), ("hybrid", 0.06)):
        shift = rng.normal(gain, 0.08, N_DOCS)
        values = [
            float(level[i // PER_DOC] + shift[i // PER_DOC] + rng.normal(0, 0.03))
            for i in range(len(ids))
        ]
        systems[name] = {"ndcg": dict(zip(ids, values, strict=True))}
    return systems, clusters


def _oracle(d: np.ndarray, clusters: dict[str, str], alpha: float = 0.05):
    groups = np.array([int(c[3:]) for c in clusters.values()])
    fit = sm.OLS(d, np.ones(d.size)).fit(
        cov_type="cluster", cov_kwds={"groups": groups}, use_t=True
    )
    naive = float(np.var(d, ddof=1)) / d.size
    return fit, float(fit.bse[0]) ** 2 / naive


def _differences(systems, a: str, b: str) -> np.ndarray:
    return np.array([systems[a]["ndcg"][q] - systems[b]["ndcg"][q] for q in systems[a]["ndcg"]])


def test_compare_with_clusters_is_cluster_robust_and_reports_the_design_effect() -> None:
    systems, clusters = _campaign()
    result = compare(systems["dense"], systems["bm25"], clusters=clusters)
    assert result.test == "cluster-t"  # the default once clusters are given
    fit, deff = _oracle(_differences(systems, "dense", "bm25"), clusters)
    row = result["ndcg"]
    assert row.p_value == pytest.approx(float(fit.pvalues[0]), rel=1e-9)
    assert (row.ci_low, row.ci_high) == pytest.approx(tuple(fit.conf_int()[0]), rel=1e-9)
    assert result.n_clusters == N_DOCS
    assert result.design_effects()["ndcg"] == pytest.approx(deff, rel=1e-9)
    table = result.to_table()
    assert f"{N_DOCS * PER_DOC} queries are in {N_DOCS} clusters" in table
    assert f"ndcg {deff:.2f}" in table


def test_compare_many_with_clusters_every_pair_equals_statsmodels() -> None:
    systems, clusters = _campaign()
    result = compare_many(systems, clusters=clusters, correction=None)
    assert result.test == "cluster-t" and result.n_clusters == N_DOCS
    effects = result.design_effects()
    for a, b in result.pairs:
        fit, deff = _oracle(_differences(systems, a, b), clusters)
        assert result[a, b]["ndcg"].p_value == pytest.approx(float(fit.pvalues[0]), rel=1e-9)
        assert effects[a, b]["ndcg"] == pytest.approx(deff, rel=1e-9)
    (note,) = [n for n in result.notes() if "clusters" in n]
    shown = sorted(effects[p]["ndcg"] for p in result.pairs)
    assert f"ndcg {shown[0]:.2f} to {shown[-1]:.2f} over 3 pairs" in note
    assert "test accounts for them" in note


def test_a_test_that_ignores_the_given_clusters_says_so_with_the_design_effect() -> None:
    systems, clusters = _campaign()
    result = compare(systems["dense"], systems["bm25"], clusters=clusters, test="t")
    d = _differences(systems, "dense", "bm25")
    assert result["ndcg"].p_value == pytest.approx(
        scipy_stats.ttest_rel(d, np.zeros_like(d)).pvalue, rel=1e-9
    )
    _fit, deff = _oracle(d, clusters)
    (note,) = result.notes()
    assert "which the t test ignores" in note and f"ndcg {deff:.2f}" in note


def test_clusters_from_a_file_equal_clusters_from_a_mapping(tmp_path: Path) -> None:
    systems, clusters = _campaign()
    path = tmp_path / "clusters.csv"
    path.write_text("query_id,cluster\n" + "".join(f"{q},{c}\n" for q, c in clusters.items()))
    assert read_clusters(path) == clusters
    by_file = compare(systems["dense"], systems["bm25"], clusters=path)
    by_mapping = compare(systems["dense"], systems["bm25"], clusters=clusters)
    assert by_file == by_mapping and by_file.clusters == by_mapping.clusters
    # A table of per-item values (long form, several rows per item) is a file of clusters too.
    long = tmp_path / "values.csv"
    long.write_text(
        "query_id,metric,value,cluster\n"
        + "".join(f"{q},m,1,{c}\n{q},n,0,{c}\n" for q, c in clusters.items())
    )
    assert read_clusters(long) == clusters


def test_clusters_agree_with_those_the_values_record() -> None:
    systems, clusters = _campaign()
    recorded = PerQueryResults(systems["dense"], name="dense", clusters=clusters)
    same = compare(recorded, systems["bm25"], clusters=clusters)
    assert (
        same["ndcg"].p_value == compare(recorded, systems["bm25"], test="cluster-t")["ndcg"].p_value
    )
    other = {**clusters, "q0-0": "doc9"}
    with pytest.raises(
        InvalidInputError,
        match=r"clusters: puts item 'q0-0' in cluster 'doc9', but dense record it in 'doc0'",
    ):
        compare(recorded, systems["bm25"], clusters=other)


def test_errors_name_the_argument_the_query_and_what_to_do(tmp_path: Path) -> None:
    systems, clusters = _campaign()
    partial = {q: c for q, c in clusters.items() if q != "q3-2"}
    with pytest.raises(
        InvalidInputError, match=r"clusters: no cluster for item 'q3-2' of bm25; give every"
    ):
        compare_many(systems, clusters=partial)
    with pytest.raises(InvalidInputError, match=r"all 60 compared queries are in one cluster"):
        compare(systems["dense"], systems["bm25"], clusters=dict.fromkeys(clusters, "all"))
    with pytest.raises(ragmeter.InputTypeError, match=r"clusters: expected \{query_id"):
        compare(systems["dense"], systems["bm25"], clusters=[1, 2])  # type: ignore[arg-type]
    twice = tmp_path / "twice.csv"
    twice.write_text("query_id,cluster\nq1,a\nq2,a\nq1,b\n")
    with pytest.raises(InvalidInputError, match=r"twice.csv.*puts 'q1' in cluster 'b'"):
        read_clusters(twice)
    no_column = tmp_path / "none.csv"
    no_column.write_text("query_id,doc\nq1,a\n")
    with pytest.raises(InvalidInputError, match=r"no cluster \(a file of clusters has"):
        read_clusters(no_column)


def _gate_systems():
    systems, clusters = _campaign(seed=5)
    return systems["dense"], systems["bm25"], clusters


def test_the_gate_with_clusters_decides_and_bounds_with_the_cluster_robust_test() -> None:
    cand, base, clusters = _gate_systems()
    result = gate(cand, base, margin=0.02, clusters=clusters)
    assert result.test == "cluster-t"
    (check,) = result.checks
    d = np.array([cand["ndcg"][q] - base["ndcg"][q] for q in cand["ndcg"]])
    fit, _deff = _oracle(d + 0.02, clusters)  # H0: mean(d) <= -0.02
    t = float(fit.tvalues[0])
    p_greater = fit.pvalues[0] / 2 if t > 0 else 1 - fit.pvalues[0] / 2
    assert check.p_value == pytest.approx(float(p_greater), rel=1e-9)
    # The check's interval at 1 - 2 alpha is the cluster-robust one (it was the t interval).
    low, high = (
        sm.OLS(d, np.ones(d.size))
        .fit(
            cov_type="cluster",
            cov_kwds={"groups": np.array([int(c[3:]) for c in clusters.values()])},
            use_t=True,
        )
        .conf_int(alpha=0.10)[0]
    )
    assert (check.ci_low, check.ci_high) == pytest.approx((low, high), rel=1e-9)
    _fit, deff_d = _oracle(d, clusters)
    for text in (result.to_text(), result.to_markdown(), json.dumps(result.to_dict())):
        assert "60 queries are in 15 clusters" in text
        assert f"ndcg {deff_d:.2f}" in text


def test_the_gate_says_when_its_test_ignores_the_recorded_clusters() -> None:
    cand, base, clusters = _gate_systems()
    recorded = [
        PerQueryResults(v, name=n, clusters=clusters) for n, v in (("c", cand), ("b", base))
    ]
    result = gate(*recorded, margin=0.02)  # the gate's default test: t
    assert result.test == "t"
    d = np.array([cand["ndcg"][q] - base["ndcg"][q] for q in cand["ndcg"]])
    _fit, deff = _oracle(d, clusters)
    for text in (result.to_text(), result.to_markdown(), result.to_json()):
        assert "which the t test ignores" in text.replace("\\", "")
        assert f"ndcg {deff:.2f}" in text
    floors = gate(recorded[0], floors={"ndcg": 0.3}, test="sign-flip")
    values = np.array(list(cand["ndcg"].values()))
    _fit, deff_mean = _oracle(values, clusters)
    (note,) = floors.notes
    assert "sign-flip test ignores" in note
    assert "design effect of the mean (Kish" in note and f"ndcg {deff_mean:.2f}" in note


def _write_values(path: Path, values: dict[str, dict[str, float]]) -> Path:
    path.write_text("query_id,ndcg\n" + "".join(f"{q},{v!r}\n" for q, v in values["ndcg"].items()))
    return path


def test_the_commands_read_a_file_of_clusters(tmp_path: Path, capsys) -> None:
    cand, base, clusters = _gate_systems()
    a = _write_values(tmp_path / "dense.csv", cand)
    b = _write_values(tmp_path / "bm25.csv", base)
    groups = tmp_path / "clusters.csv"
    groups.write_text("query_id,cluster\n" + "".join(f"{q},{c}\n" for q, c in clusters.items()))
    d = np.array([cand["ndcg"][q] - base["ndcg"][q] for q in cand["ndcg"]])
    _fit, deff = _oracle(d, clusters)

    status = main(
        ["compare", "--values", str(a), str(b), "--clusters", str(groups), "--format", "json"]
    )
    assert status == 0
    saved = json.loads(capsys.readouterr().out)
    assert saved["test"] == "cluster-t"
    status = main(["compare", "--values", str(a), str(b), "--clusters", str(groups)])
    out = capsys.readouterr().out
    assert status == 0 and f"ndcg {deff:.2f}" in out and "cluster-robust" in out

    status = main(
        [
            "gate",
            "--baseline",
            str(b),
            "--candidate",
            str(a),
            "-m",
            "ndcg",
            "--margin",
            "0.02",
            "--clusters",
            str(groups),
            "--format",
            "markdown",
        ]
    )
    captured = capsys.readouterr()
    assert status in (0, 1)
    assert "60 queries are in 15 clusters" in captured.out and f"ndcg {deff:.2f}" in captured.out

    partial = tmp_path / "partial.csv"
    partial.write_text(
        "query_id,cluster\n" + "".join(f"{q},{c}\n" for q, c in list(clusters.items())[1:])
    )
    status = main(["compare", "--values", str(a), str(b), "--clusters", str(partial)])
    err = capsys.readouterr().err
    assert status == 2 and "no cluster for item 'q0-0'" in err and "Traceback" not in err
