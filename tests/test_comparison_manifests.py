"""What a comparison keeps of the values' manifests (issue 44, after the values type landed):
the notes of the one check of comparable values are shown with the comparison (they were
discarded), each system's values come back with their manifest (they came back without one),
and ``ragmeter compare --format json`` writes the saved form with its count and checksum (it
wrote ``to_json()``, which the file door cannot verify)."""

from __future__ import annotations

import json

import pytest
from vendored import TREC_EVAL_TESTS

from ragmeter import Manifest, PerQueryResults, compare_many
from ragmeter.cli import main
from ragmeter.io import read_saved
from ragmeter.stats.results import MultipleComparison


def _systems() -> dict[str, PerQueryResults]:
    evaluated = Manifest("evaluate", settings={"relevance_threshold": 1})
    return {
        "a": PerQueryResults({"m": {i: i / 10 for i in range(8)}}, name="a", manifest=evaluated),
        "b": PerQueryResults({"m": {i: i / 9 for i in range(8)}}, name="b"),
    }


def test_what_could_not_be_checked_is_said_with_the_comparison():
    campaign = compare_many(_systems())
    # The oracle: the one rule of comparability, called on the same values.
    from ragmeter import check_comparable

    expected = check_comparable(_systems()["a"], _systems()["b"], names=("a", "b"))
    assert expected and "relevance_threshold" in expected[0]
    assert campaign.comparability == tuple(expected)
    assert any(expected[0].rstrip(".") in note for note in campaign.notes())
    assert "relevance_threshold=1" in campaign.to_table()


def test_each_systems_values_come_back_with_their_manifest():
    systems = _systems()
    back = compare_many(systems).per_system()
    assert back["a"].manifest == systems["a"].manifest
    assert back["a"].manifest.settings == {"relevance_threshold": 1}
    assert back["b"].manifest == systems["b"].manifest


def test_compare_json_is_the_saved_form_with_its_checksum(tmp_path, capsys):
    qrels = TREC_EVAL_TESTS / "qrels.test"
    runs = [str(TREC_EVAL_TESTS / r) for r in ("results.test", "results.trunc")]
    assert main(["compare", str(qrels), *runs, "-c", "-m", "map", "--format", "json"]) == 0
    text = capsys.readouterr().out
    data = json.loads(text)
    assert isinstance(data["sha256"], str) and data["n_values"] > 0
    path = tmp_path / "campaign.json"
    path.write_text(text)
    saved = read_saved(path)
    assert isinstance(saved.result, MultipleComparison) and saved.verified is True
    data["alpha"] = 0.5
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"checksum|sha256"):
        read_saved(path)
