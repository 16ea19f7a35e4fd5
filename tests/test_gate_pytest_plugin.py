"""The pytest plugin and assertions of ragmeter.testing, run in pytester sessions: failing and
passing tests, their messages, stored baselines and their manifest, refusals, JUnit XML."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from _saved import unstamped

from ragmeter.exceptions import InvalidInputError
from ragmeter.testing import BaselineStore, assert_at_least, assert_not_worse

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]

RESULTS = """
import numpy as np

def results(shift, seed=0, n=40):
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.3, 0.7, n)
    values = np.clip(base + shift + rng.normal(0, 0.02, n), 0, 1)
    return {"ndcg@10": {f"q{i}": float(v) for i, v in enumerate(values)}}
"""


@pytest.fixture
def gate_session(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    # Only the plugin under test, loaded by name (not every installed entry point).
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(helpers=RESULTS)
    return pytester


def test_assert_not_worse_fails_with_difference_interval_p_and_worst_queries(
    gate_session: pytest.Pytester,
) -> None:
    gate_session.makepyfile(
        test_quality="""
        from helpers import results
        from ragmeter.testing import assert_not_worse

        def test_same_system_passes():
            assert_not_worse(results(0.0, 1), results(0.0, 1), metric="ndcg@10", margin=0.01)

        def test_regression_fails():
            assert_not_worse(results(-0.05, 1), results(0.0, 1), metric="ndcg@10", margin=0.01)
        """
    )
    junit = gate_session.path / "junit.xml"
    run = gate_session.runpytest("-p", "ragmeter.testing.plugin", f"--junitxml={junit}")
    run.assert_outcomes(passed=1, failed=1)
    output = run.stdout.str()
    assert "FAIL ndcg@10 non-inferiority (margin 0.01)" in output
    assert "the candidate is worse than the baseline by more than the margin" in output
    assert "90% CI" in output and "p = " in output
    assert "worst queries (candidate - baseline): 'q" in output
    # pytest's own JUnit XML carries the gate's message in the failure element.
    root = ET.parse(junit).getroot()
    failures = root.findall(".//testcase/failure")
    assert len(failures) == 1
    assert "non-inferiority (margin 0.01)" in (failures[0].get("message") or "")


def test_assert_at_least_reports_the_floor_and_lowest_items(gate_session: pytest.Pytester) -> None:
    gate_session.makepyfile(
        test_floor="""
        from helpers import results
        from ragmeter.testing import assert_at_least

        def test_high_floor():
            assert_at_least(results(0.0), metric="ndcg@10", value=0.9)

        def test_low_floor():
            assert_at_least(results(0.0), metric="ndcg@10", value=0.1)
        """
    )
    run = gate_session.runpytest("-p", "ragmeter.testing.plugin")
    run.assert_outcomes(passed=1, failed=1)
    assert "FAIL ndcg@10 >= 0.9: the mean is below the floor" in run.stdout.str()
    assert "lowest items:" in run.stdout.str()


BASELINE_TEST = """
from helpers import results

def test_retrieval(ragmeter_baseline):
    ragmeter_baseline.assert_not_worse(
        results(SHIFT, 1), name="retrieval", metric="ndcg@10", margin=0.01
    )
"""


def test_baselines_are_stored_then_compared(gate_session: pytest.Pytester) -> None:
    store = gate_session.path / "baselines"
    gate_session.makepyfile(test_base=BASELINE_TEST.replace("SHIFT", "0.0"))
    plugin = ("-p", "ragmeter.testing.plugin", f"--ragmeter-baseline={store}")
    # No baseline yet: a failure that says how to store one, never a pass.
    run = gate_session.runpytest(*plugin)
    run.assert_outcomes(failed=1)
    assert "--ragmeter-update-baselines" in run.stdout.str()
    gate_session.runpytest(*plugin, "--ragmeter-update-baselines").assert_outcomes(passed=1)
    stored = json.loads((store / "retrieval.json").read_text())
    assert stored["kind"] == "ragmeter.per_query"  # the saved per-query values, checksummed
    assert stored["n_values"] and len(stored["sha256"]) == 64
    manifest = stored["manifest"]
    assert manifest["measures"]["ndcg@10"]["family"] == "ndcg"
    assert manifest["measures"]["ndcg@10"]["cutoff"] == 10
    assert manifest["ragmeter_version"]
    gate_session.runpytest(*plugin).assert_outcomes(passed=1)
    gate_session.makepyfile(test_base=BASELINE_TEST.replace("SHIFT", "-0.05"))
    run = gate_session.runpytest(*plugin)
    run.assert_outcomes(failed=1)
    assert "baseline 'retrieval (stored)'" in run.stdout.str()


def test_no_baseline_directory_fails_saying_what_to_pass(gate_session: pytest.Pytester) -> None:
    gate_session.makepyfile(test_base=BASELINE_TEST.replace("SHIFT", "0.0"))
    run = gate_session.runpytest("-p", "ragmeter.testing.plugin")
    run.assert_outcomes(failed=1)
    assert "pass --ragmeter-baseline DIR" in run.stdout.str()


def test_a_baseline_of_another_definition_or_judge_is_refused(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    values = {"ndcg@10": {f"q{i}": 0.5 + 0.01 * (i % 3) for i in range(20)}}
    path = store.save("run", values)
    data = json.loads(path.read_text())
    data["manifest"]["measures"]["ndcg@10"]["gains"] = [[1, 1], [2, 3]]
    path.write_text(json.dumps(data))
    # An edited baseline does not match its checksum: refused as tampered.
    with pytest.raises(
        InvalidInputError, match=r"run.json: holds 55 values where it was written with 51"
    ):
        store.load("run")
    # Without its checksum (a baseline of an older ragmeter), the definition is checked.
    path.write_text(json.dumps(unstamped(data)))
    with pytest.raises(InvalidInputError, match=r"not defined the same way .*\(gains"):
        assert_not_worse(values, store.load("run"), metric="ndcg@10", margin=0.01)
    del data["manifest"]["measures"]["ndcg@10"]["gains"]
    data["manifest"]["judge"] = {"judge": {"name": "a", "model": "m1"}}
    path.write_text(json.dumps(unstamped(data)))
    judged = store.load("run")
    from ragmeter.gate import GateValues

    candidate = GateValues(judged.values, judges={"judge": {"name": "a", "model": "m2"}})
    with pytest.raises(InvalidInputError, match=r"judge\.model: 'm1' vs 'm2'"):
        assert_not_worse(candidate, judged, metric="ndcg@10", margin=0.01)


def test_unreadable_baselines_are_refused_with_what_to_do(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(InvalidInputError, match="not a valid JSON"):
        store.load("broken")
    with pytest.raises(InvalidInputError, match="store one first"):
        store.load("absent")
    (tmp_path / "plain.json").write_text(json.dumps({"m": {"q": 0.5}}))
    with pytest.raises(InvalidInputError, match="not a gate baseline"):
        store.load("plain")
    with pytest.raises(InvalidInputError, match="letters, digits"):
        store.path("../x")


def test_baselines_round_trip_ids_repeats_and_failures(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    values = {"faith": {1: [1.0, 0.0], 2: 1.0, 3: None}}
    store.save("judged", values)
    loaded = store.load("judged")
    assert loaded.values.query_ids == (1, 2, 3)
    assert loaded.repeats["faith"] == {1: (1.0, 0.0)}
    assert loaded.values["faith"][1] == 0.5


def test_the_assertions_return_the_passed_result() -> None:
    values = {"mrr": {f"q{i}": 0.8 + 0.01 * (i % 4) for i in range(30)}}
    assert assert_at_least(values, metric="mrr", value=0.5).passed
    assert assert_not_worse(values, values, metric="mrr", margin=0.01).passed


def test_the_plugin_is_declared_and_imports_no_statistics() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["entry-points"]["pytest11"] == {"ragmeter": "ragmeter.testing.plugin"}
    assert project["project"]["optional-dependencies"]["gate"] == ["pytest>=8"]
    code = (
        "import sys, ragmeter.testing.plugin; "
        "print(sorted(m for m in sys.modules if m.startswith('ragmeter')), 'numpy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert (
        done.stdout.strip() == "['ragmeter', 'ragmeter.testing', 'ragmeter.testing.plugin'] False"
    )


def test_gate_junit_has_the_structure_pytest_writes(pytester: pytest.Pytester) -> None:
    """The command's JUnit XML uses the elements and attributes of pytest's own report."""
    from ragmeter.gate import gate

    pytester.makepyfile("def test_a():\n    assert False\n\ndef test_b():\n    pass\n")
    junit = pytester.path / "pytest.xml"
    pytester.runpytest(f"--junitxml={junit}", "-p", "no:ragmeter")
    reference = ET.parse(junit).getroot()
    values = {"m": {f"q{i}": 0.5 + 0.01 * (i % 3) for i in range(20)}}
    worse = {"m": {q: v - 0.1 for q, v in values["m"].items()}}
    ours = ET.fromstring(gate(worse, values, margin=0.01).to_junit())

    def shape(element: ET.Element) -> set[tuple[str, ...]]:
        found = set()
        for parent in element.iter():
            for child in parent:
                found.add((parent.tag, child.tag))
        return found

    assert shape(ours) <= shape(reference) | {("testcase", "system-out")}
    reference_suite = reference.find("testsuite")
    our_suite = ours.find("testsuite")
    assert reference_suite is not None and our_suite is not None
    for attribute in ("name", "errors", "failures", "skipped", "tests", "time"):
        assert attribute in reference_suite.attrib and attribute in our_suite.attrib
    reference_failure = reference.find(".//failure")
    our_failure = ours.find(".//failure")
    assert reference_failure is not None and our_failure is not None
    assert set(our_failure.attrib) <= set(reference_failure.attrib) | {"type"}
    assert {"classname", "name", "time"} <= set(ours.find(".//testcase").attrib)  # type: ignore[union-attr]
