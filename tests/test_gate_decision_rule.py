"""The gate as a decision rule over the engine (issue 44, item 4): its decisions at the boundary
against scipy ``ttest_rel(..., alternative="greater")`` and an exact enumeration of sign
vectors, its type I error at the margin simulated for every test from 2 to 200 queries, and
the defects of the issue reproduced (duplicated options, forged lines, tampered baselines,
baseline names and symlinks).

Oracles: scipy.stats, a brute-force enumeration of sign vectors written here, the binomial
Monte-Carlo error of a simulated rejection rate, Python's XML parser.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import ragmeter
from ragmeter import InvalidInputError
from ragmeter.cli import main
from ragmeter.gate import BaselineStore, GateOptions, gate, gate_tests
from ragmeter.per_query import PerQueryResults
from ragmeter.reports import with_integrity
from ragmeter.stats import TESTS
from ragmeter.stats.engine import run_tests

scipy_stats = pytest.importorskip("scipy.stats")


def _values(array: np.ndarray, metric: str = "m") -> dict[str, dict[str, float]]:
    return {metric: {f"q{i}": float(v) for i, v in enumerate(array)}}


# -- decisions at the boundary ----------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_t_decisions_at_the_boundary_are_scipy_ttest_rel(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    base = rng.uniform(0.2, 0.8, n)
    cand = base + rng.normal(-0.01, 0.05, n)
    d = cand - base
    # The margin at which scipy's p-value is exactly alpha, and margins just around it.
    critical = -(d.mean() - scipy_stats.t.ppf(0.95, n - 1) * d.std(ddof=1) / math.sqrt(n))
    for margin in critical * np.array([0.98, 0.999, 0.9999, 1.0001, 1.001, 1.02]):
        if margin <= 0:
            continue
        expected = scipy_stats.ttest_rel(cand + margin, base, alternative="greater").pvalue
        check = gate(_values(cand), _values(base), margin=float(margin)).checks[0]
        assert check.p_value == pytest.approx(expected, rel=1e-9)
        assert check.passed == (expected <= 0.05)


def _exact_greater(shifted: np.ndarray) -> float:
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=shifted.size)))
    tolerance = 1e-9 * np.abs(shifted).sum()
    return float(np.mean(signs @ shifted >= shifted.sum() - tolerance))


@pytest.mark.parametrize("n", [5, 8, 12])
def test_sign_flip_decisions_at_the_boundary_are_the_exact_enumeration(n):
    rng = np.random.default_rng(n)
    base = rng.uniform(0.2, 0.8, n)
    cand = base + rng.normal(0.0, 0.05, n)
    d = cand - base
    # Every margin at which an exact p-value changes is where a shifted difference crosses 0
    # or two signed sums tie; test the margins around each |d_i| and between them.
    margins = np.unique(np.concatenate([np.abs(d), np.abs(d) * 1.0001, np.abs(d) * 0.9999]))
    decisions = set()
    for margin in margins:
        check = gate(_values(cand), _values(base), margin=float(margin), test="sign-flip").checks[0]
        exact = _exact_greater(d + margin)
        assert check.method == "exact" and check.p_value == pytest.approx(exact, abs=1e-15)
        assert check.passed == (exact <= 0.05)
        decisions.add(check.passed)
    assert True in decisions  # the largest margins pass


# -- the type I error at the margin -----------------------------------------------------------


MARGIN = 0.02


def _null_campaigns(n: int, reps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``reps`` simulated campaigns of ``n`` queries (baseline, candidate), the candidate worse
    by exactly the margin (the boundary of the null hypothesis), with noise symmetric about
    it: the t-test's normal model and the sign-flip test's symmetry both hold there."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.2, 0.8, (reps, n))
    return base, base - MARGIN + rng.normal(0.0, 0.05, (reps, n))


def _engine_passes(test: str, base: np.ndarray, cand: np.ndarray, seed: int) -> np.ndarray:
    """What the gate's decision reads, for every campaign at once: the engine's one-sided test
    (the gate's options, the threshold -margin) and ``p <= alpha`` (one check: no correction)."""
    options = GateOptions(test=test, correction=None, n_resamples=999, random_state=seed)
    values = np.stack([base, cand])  # [baseline, candidate] x campaigns x queries
    outcome = run_tests(
        values, [(1, 0)], options, null_difference=np.full(base.shape[0], -MARGIN), correct=False
    )
    return np.asarray(outcome.p_value[0] <= options.alpha)


@pytest.mark.parametrize("test", ["t", "sign-flip"])
def test_the_gate_decides_as_the_engine_simulation_reads_it(test):
    # The simulation below reads the engine; here the gate itself decides 60 of the same
    # campaigns, metric by metric (one uncorrected gate of 60 checks).
    for n in (3, 30):
        base, cand = _null_campaigns(n, 60, seed=n)
        ids = [f"q{i}" for i in range(n)]
        metrics = [f"m{r}" for r in range(60)]
        result = gate(
            PerQueryResults({m: cand[r] for r, m in enumerate(metrics)}, ids, name="cand"),
            PerQueryResults({m: base[r] for r, m in enumerate(metrics)}, ids, name="base"),
            metrics=metrics,
            margin=MARGIN,
            test=test,
            correction=None,
            n_resamples=999,
            random_state=n,
        )
        engine = _engine_passes(test, base, cand, seed=n)
        assert [c.passed for c in result.checks] == engine.tolist()


@pytest.mark.parametrize("test", ["t", "sign-flip"])
def test_type_one_error_at_the_margin_is_at_most_alpha_from_2_to_200_queries(test):
    reps = 2000
    bound = 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)  # alpha + 3 Monte-Carlo errors
    rates = {}
    for i, n in enumerate((2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 30, 50, 100, 200)):
        base, cand = _null_campaigns(n, reps, seed=100 * i + len(test))
        rates[n] = float(_engine_passes(test, base, cand, seed=i).mean())
    print(test, {n: round(r, 4) for n, r in rates.items()})
    assert all(rate <= bound for rate in rates.values()), rates
    # And not far below it once the test can reach alpha (not a gate that never passes).
    assert rates[200] >= 0.05 - 3 * math.sqrt(0.05 * 0.95 / reps)


def test_the_gate_offers_every_one_sided_test_of_the_table():
    # Read from the table of tests: a new test of paired differences is offered without an
    # edit of the gate.
    assert list(gate_tests()) == [name for name, spec in TESTS.items() if spec.one_sided]
    assert {"sign-flip", "t", "wilcoxon", "bootstrap"} <= set(gate_tests())
    rng = np.random.default_rng(2)
    base = rng.uniform(0.2, 0.8, 30)
    cand = base + rng.normal(0.0, 0.02, 30)
    for test in gate_tests():
        # the anytime-valid test pays for its validity at every look with power: it needs
        # more items than a single-look test for the same evidence
        n = 400 if test == "sequential" else 30
        base_n = np.resize(base, n)
        cand_n = np.resize(cand, n)
        a, b = _values(cand_n), _values(base_n)
        if TESTS[test].requires_clusters:
            clusters = {f"q{i}": f"c{i // 3}" for i in range(n)}
            a = ragmeter.PerQueryResults(a, clusters=clusters)
            b = ragmeter.PerQueryResults(b, clusters=clusters)
        result = gate(a, b, margin=0.05, test=test)
        assert result.passed, test
        assert "one-sided" in result.caption()


def test_gate_options_are_comparison_options():
    from ragmeter.stats import ComparisonOptions

    options = GateOptions(test="fisher", alpha=0.1)
    assert isinstance(options, ComparisonOptions)
    assert options.test == "sign-flip" and options.alternative == "greater"
    assert options.interval_level == pytest.approx(0.8)


# -- duplicated options -----------------------------------------------------------------------


@pytest.fixture
def saved(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(0)
    base = rng.uniform(0.2, 0.8, 30)
    (tmp_path / "base.json").write_text(json.dumps(_values(base, "ndcg_cut_10")))
    (tmp_path / "cand.json").write_text(json.dumps(_values(base + 0.01, "ndcg_cut_10")))
    return tmp_path / "base.json", tmp_path / "cand.json"


@pytest.mark.parametrize(
    "flags",
    [
        ["--margin-for", "ndcg_cut_10=0.01", "--margin-for", "ndcg_cut_10=0.5"],
        ["--margin-for", "ndcg_cut.10=0.01", "--margin-for", "ndcg_cut_10=0.01"],
        ["--margin", "0.01", "--floor", "ndcg_cut_10=0.1", "--floor", "ndcg_cut_10=0.2"],
        ["-m", "ndcg_cut_10", "-m", "ndcg_cut.10", "--margin", "0.01"],
    ],
)
def test_a_duplicated_option_is_refused(saved, flags, capsys):
    # Issue 44: --margin-for m=0.01 --margin-for m=0.5 kept 0.5 silently.
    base, cand = saved
    status = main(["gate", "--baseline", str(base), "--candidate", str(cand), *flags])
    err = capsys.readouterr().err
    assert status == 2 and "given twice" in err


# -- rendering: names cannot forge output -----------------------------------------------------

HOSTILE = "m\n::error::forged\nragmeter gate: PASS all\x1b[31m\x01 ![x](http://e.example/i.png) <b>"


def test_a_name_cannot_forge_lines_or_markup(saved, tmp_path, capsys):
    rng = np.random.default_rng(1)
    base = rng.uniform(0.2, 0.8, 30)
    (tmp_path / "b.json").write_text(json.dumps(_values(base, HOSTILE)))
    (tmp_path / "c.json").write_text(json.dumps(_values(base - 0.2, HOSTILE)))
    junit = tmp_path / "gate.xml"
    status = main(
        [
            "gate",
            "--baseline",
            str(tmp_path / "b.json"),
            "--candidate",
            str(tmp_path / "c.json"),
            "-m",
            HOSTILE,
            "--margin",
            "0.01",
            "--format",
            "markdown",
            "--junit",
            str(junit),
        ]
    )
    out, err = capsys.readouterr()
    assert status == 1
    for text in (out, err):
        for line in text.splitlines():
            assert not line.startswith(("::", "ragmeter gate: PASS", "PASS")), line
        assert "\x1b" not in text and "\x01" not in text
    assert err.count("\n") == 1  # one check, one verdict line
    # Every [, ], !, <, > of a name is escaped: no image, link or HTML reaches the renderer.
    assert not re.search(r"(?<!\\)!\\?\[|(?<!\\)\]\(|(?<!\\)<b>", out)
    root = ET.fromstring(junit.read_text())  # parses: no XML-invalid character
    case = root.find("testsuite/testcase")
    assert case is not None and "\\n::error::forged" in case.get("name", "")


# -- every input error exits 2 ----------------------------------------------------------------


def _stored(tmp_path: Path) -> Path:
    store = BaselineStore(tmp_path / "store")
    rng = np.random.default_rng(3)
    return store.save(
        "base", {"ndcg@10": {i: float(v) for i, v in enumerate(rng.uniform(0, 1, 20))}}
    )


def _mutations(data: dict) -> list[tuple[str, dict]]:
    """The baseline with one field replaced by a value of another type, field by field."""
    out = []
    strange = [[], ["x"], {}, {"a": []}, 3, "text", None, True, 1e308]
    for key in data:
        for value in strange:
            out.append((f"{key}={value!r}", {**data, key: value}))
    for key in data["manifest"]:
        for value in strange:
            out.append(
                (
                    f"manifest.{key}={value!r}",
                    {**data, "manifest": {**data["manifest"], key: value}},
                )
            )
    column = next(iter(data["values"]))
    for value in strange:
        out.append((f"values.{column}={value!r}", {**data, "values": {column: value}}))
        out.append(
            (
                f"values.{column}[0]={value!r}",
                {**data, "values": {column: [value, *data["values"][column][1:]]}},
            )
        )
    return out


def _resealed(data: dict) -> dict:
    """``data`` with a count and checksum that match it: an edit made by someone who knows the
    format, so that the reader must check every field, not only the checksum."""
    return with_integrity({k: v for k, v in data.items() if k not in ("n_values", "sha256")})


def test_a_tampered_baseline_exits_2_never_1_never_a_traceback(tmp_path, capsys):
    # Issue 44: id_types a list gave an AttributeError traceback and exit 1 ("the candidate
    # failed"). A baseline of the format written before (kind ragmeter.gate-baseline) is read
    # too; today's is the saved per-query values with their checksum.
    path = _stored(tmp_path)
    data = json.loads(path.read_text())
    candidate = tmp_path / "cand.json"
    candidate.write_text(json.dumps({"ndcg@10": {str(i): 0.5 for i in range(20)}}))
    tampered = tmp_path / "tampered.json"
    old = {
        "kind": "ragmeter.gate-baseline",
        "schema_version": 1,
        "manifest": {"ragmeter_version": "0.1.0", "metrics": {}, "settings": {}},
        "id_types": ["0"],
        "values": {"ndcg@10": {str(i): 0.5 for i in range(20)}},
    }
    cases = [("old format, id_types=['0']", old)]
    for what, changed in _mutations(data):
        cases += [(what, changed), (f"{what} (resealed)", _resealed(changed))]
    for what, changed in cases:
        tampered.write_text(json.dumps(changed))
        status = main(
            ["gate", "--baseline", str(tampered), "--candidate", str(candidate), "--margin", "0.5"]
        )
        _out, err = capsys.readouterr()
        if status != 2:
            # A change the reader accepts must still be a valid decision.
            assert status in (0, 1) and "Traceback" not in err, what
            continue
        assert "Traceback" not in err and err.startswith("ragmeter: error:"), what
        assert err.count("\n") == 1, what


def test_store_names_end_where_they_seem_to_and_symlinks_are_refused(tmp_path):
    store = BaselineStore(tmp_path / "store")
    with pytest.raises(InvalidInputError, match="name"):
        store.path("retrieval\n")
    path = _stored(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = path.with_name("linked.json")
    os.symlink(victim, link)
    with pytest.raises(InvalidInputError, match="symlink"):
        store.save("linked", {"m": {"q1": 0.5}})
    assert victim.read_text() == "keep me"
    with pytest.raises(InvalidInputError, match="symlink"):
        store.load("linked")
    assert list(store.load("base").values.metric_names) == ["ndcg@10"]
