"""The issue-46 statistics offered through the one table of tests (``stats/registry.py``):
``compare``/``compare_many`` and the gate use them by name (``test="mcnemar"``,
``"cluster-t"``, ``"sequential"``), each equal to its oracle or to the module it runs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as scipy_stats
from test_harness_readers import DATA

import ragmeter
from ragmeter.cli import main
from ragmeter.gate import gate
from ragmeter.stats import TESTS, sequential_test


def _systems(seed: int = 4, n: int = 60):
    rng = np.random.default_rng(seed)
    clusters = {f"q{i}": f"d{i // 5}" for i in range(n)}
    passage = rng.normal(0, 1, n // 5)
    base = (rng.random(n) < 0.55).astype(float)
    cand = np.where(rng.random(n) < 0.25, 1.0, base)
    for i in range(n):
        cand[i] = min(1.0, max(0.0, cand[i] + (passage[i // 5] > 1.2)))
    a = ragmeter.PerQueryResults({"acc": dict(zip(clusters, cand, strict=True))}, clusters=clusters)
    b = ragmeter.PerQueryResults({"acc": dict(zip(clusters, base, strict=True))}, clusters=clusters)
    return a, b, cand, base, clusters


def test_the_table_offers_the_new_tests_one_sided() -> None:
    for name in ("mcnemar", "cluster-t", "sequential"):
        assert TESTS[name].one_sided


def test_compare_with_the_exact_mcnemar_test_equals_statsmodels() -> None:
    from statsmodels.stats.contingency_tables import mcnemar

    a, b, cand, base, _ = _systems()
    row = ragmeter.compare(a, b, test="mcnemar", metrics=["acc"])["acc"]
    wins, losses = int(np.sum(cand > base)), int(np.sum(cand < base))
    table = [[0, wins], [losses, 0]]
    assert row.p_value == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-9)
    greater = ragmeter.compare(a, b, test="mcnemar", metrics=["acc"], alternative="greater")
    assert greater["acc"].p_value == pytest.approx(
        scipy_stats.binomtest(wins, wins + losses, alternative="greater").pvalue, rel=1e-9
    )


def test_compare_with_the_cluster_robust_test_equals_statsmodels() -> None:
    sm = pytest.importorskip("statsmodels.api")
    a, b, cand, base, clusters = _systems()
    row = ragmeter.compare(a, b, test="cluster-t", metrics=["acc"])["acc"]
    groups = np.array([int(c[1:]) for c in clusters.values()])
    fit = sm.OLS(cand - base, np.ones(cand.size)).fit(
        cov_type="cluster", cov_kwds={"groups": groups}, use_t=True
    )
    assert row.p_value == pytest.approx(fit.pvalues[0], rel=1e-9)
    assert (row.ci_low, row.ci_high) == pytest.approx(tuple(fit.conf_int()[0]), rel=1e-9)
    unclustered = ragmeter.PerQueryResults({"acc": dict(zip(clusters, base, strict=True))})
    with pytest.raises(ragmeter.InvalidInputError, match="needs each item's cluster"):
        ragmeter.compare(unclustered, unclustered.renamed("x"), test="cluster-t")


def test_the_gate_decides_with_the_anytime_valid_test() -> None:
    a, b, cand, base, _ = _systems()
    result = gate(a, b, metrics="acc", margin=0.05, test="sequential")
    check = result.checks[0]
    direct = sequential_test(
        cand - base + 0.05, null=0.0, alternative="greater", lower=-0.95, upper=1.05
    )
    assert check.p_value == pytest.approx(direct.p_value, rel=1e-12)
    assert result.passed == (direct.p_value <= 0.05)


def test_compare_command_reads_clusters_of_a_harness_file(capsys) -> None:
    status = main(
        [
            "compare",
            "--values",
            str(DATA / "inspect_a.eval"),
            str(DATA / "inspect_b.eval"),
            "--cluster",
            "doc",
            "--test",
            "cluster-t",
            "--format",
            "csv",
        ]
    )
    assert status == 0
    out = capsys.readouterr().out
    assert "cluster-t" in out
