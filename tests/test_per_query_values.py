"""The one values type (issue 44 item 2): PerQueryResults with repeats, clusters and the
producer's Manifest, its saved forms and tables, and the one comparability rule.

Oracles: the item means are numpy's ``nanmean`` of the repeats; the comparability rule is
checked against the settings each side was evaluated with (the refusal must name the setting
and both values); round trips are checked field by field against the object written.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from ragmeter import InvalidInputError, Manifest, PerQueryResults, check_comparable
from ragmeter.manifest import judge_identity_of, measure_definition
from ragmeter.ranking.results import PerQueryResults as FromRankingResults

REPEATS = {
    "faithfulness": {"s1": [1.0, 0.0, 1.0], "s2": [1.0, math.nan, 1.0], "s3": [math.nan]},
}


def judged() -> PerQueryResults:
    return PerQueryResults(
        {"faithfulness": {"s1": [1.0, 0.0, 1.0], "s2": [1.0, None, 1.0], "s3": [None], "s4": 0.5}},
        name="rag",
        clusters={"s1": "doc-a", "s2": "doc-a", "s3": 7, "s4": "doc-b"},
        failed={"faithfulness": ["s3"]},
        manifest=Manifest(
            "ragmeter.judges",
            "0.1.0",
            {"faithfulness": {"name": "faithfulness", "prompts": {"f@1": "abc"}}},
            {"judge_value": "mean of 3 repeats", "temperature": 0.0},
            {"judge": {"model": "m"}},
            ("language",),
        ),
    )


def test_the_old_import_path_is_the_same_class():
    assert FromRankingResults is PerQueryResults


def test_an_item_value_is_the_mean_of_its_usable_repeats_and_counts_are_kept():
    values = judged()
    by_item = values["faithfulness"]
    for item, repeats in REPEATS["faithfulness"].items():
        expected = np.nanmean(repeats) if not all(map(math.isnan, repeats)) else math.nan
        assert by_item[item] == pytest.approx(expected, nan_ok=True)
    assert by_item["s4"] == 0.5
    assert values.repeat_counts("faithfulness") == {"s1": (3, 3), "s2": (3, 2), "s3": (1, 0)}
    assert values.means()["faithfulness"].n_queries == 3  # s3 has no usable value


def test_given_repeats_must_average_to_the_value():
    PerQueryResults({"m": {"a": 0.5}}, repeats={"m": {"a": [0.0, 1.0]}})
    with pytest.raises(InvalidInputError, match=r"'a' of 'm' is 0.25 but the mean .* is 0.5"):
        PerQueryResults({"m": {"a": 0.25}}, repeats={"m": {"a": [0.0, 1.0]}})


def test_clusters_cover_every_item_and_are_carried_through_select_and_rename():
    values = judged()
    with pytest.raises(InvalidInputError, match="1 items without one"):
        PerQueryResults({"m": {"a": 1.0, "b": 0.0}}, clusters={"a": 1})
    picked = values.select(["s4", "s1"]).renamed("other")
    assert picked.clusters == {"s4": "doc-b", "s1": "doc-a"}
    assert picked.repeats == {"faithfulness": {"s1": (1.0, 0.0, 1.0)}}
    assert picked.failed == {}
    assert picked.manifest == values.manifest


@pytest.mark.parametrize("suffix", ["json", "jsonl", "yaml", "toml"])
def test_values_round_trip_through_every_saved_form(tmp_path, suffix):
    values = judged()
    path = values.write(tmp_path / f"values.{suffix}")
    back = PerQueryResults.read(path)
    assert back == values
    assert back.clusters == values.clusters
    assert back.repeat_counts("faithfulness") == values.repeat_counts("faithfulness")
    assert back.manifest.settings == values.manifest.settings
    assert back.manifest.unknown == ("language",)
    int_ids = PerQueryResults({"m": {1: 0.5, "1": 0.25}}, manifest=Manifest("x"))
    assert PerQueryResults.read(int_ids.write(tmp_path / f"ids.{suffix}")) == int_ids


def test_a_manifest_is_immutable_and_drops_what_toml_cannot_hold():
    manifest = Manifest("x", measures={"m": {"cutoff": None, "family": "P"}}, settings={"a": None})
    assert dict(manifest.measures["m"]) == {"family": "P"}
    assert manifest.settings["a"] == "none"
    with pytest.raises(TypeError):
        manifest.measures["m"]["family"] = "Q"  # type: ignore[index]
    with pytest.raises(AttributeError):
        manifest.producer = "y"  # type: ignore[misc]


def test_the_judge_identity_never_holds_a_host_or_port():
    a = judge_identity_of({"judge": {"model": "m", "base_url": "http://127.0.0.1:41234/v1"}})
    b = judge_identity_of({"judge": {"model": "m", "base_url": "http://ci-service:8000/v1"}})
    assert a == b == {"judge": {"model": "m"}}


def settings_of(threshold: float) -> PerQueryResults:
    return PerQueryResults(
        {"ndcg@10": [0.5, 0.25]},
        ["q1", "q2"],
        name=f"l{threshold:g}",
        manifest=Manifest("ragmeter.evaluate", settings={"relevance_threshold": threshold}),
    )


def test_different_settings_are_refused_naming_the_setting_and_both_values():
    with pytest.raises(
        InvalidInputError, match=r"different relevance_threshold \(2 for l2, 1 for l1\)"
    ):
        check_comparable(settings_of(2), settings_of(1))
    assert check_comparable(settings_of(2), settings_of(2.0)) == []


def test_settings_that_give_the_same_numbers_are_not_refused():
    warn = Manifest("x", settings={"zero_division": "warn", "missing": "skip"})
    zero = Manifest("x", settings={"zero_division": 0.0, "missing": "raise"})
    assert check_comparable(warn, zero) == []
    with pytest.raises(InvalidInputError, match="different missing"):
        check_comparable(warn, zero.replace(settings={"zero_division": 0.0, "missing": "zero"}))


def test_a_setting_known_on_one_side_only_is_a_note_not_a_refusal():
    old = Manifest("ragmeter.evaluate", unknown=("relevance_threshold",))
    notes = check_comparable(settings_of(2), old, names=("new", "old"))
    assert len(notes) == 1
    assert "relevance_threshold=2" in notes[0] and "written before" in notes[0]


def test_different_definitions_and_judges_are_refused():
    base = Manifest("x", measures={"ndcg@10": measure_definition("ndcg@10")})
    other = Manifest("x", measures={"ndcg@10": {**measure_definition("ndcg@10"), "cutoff": 20}})
    with pytest.raises(
        InvalidInputError, match=r"'ndcg@10' is not defined the same way \(cutoff: 10 vs 20"
    ):
        check_comparable(base, other)
    with pytest.raises(InvalidInputError, match=r"judged differently \(judge.model: 'a' vs 'b'"):
        check_comparable(
            Manifest("x", judge={"judge": {"model": "a"}}),
            Manifest("x", judge={"judge": {"model": "b"}}),
        )


def test_parameters_still_read_with_a_deprecation_warning():
    with pytest.warns(DeprecationWarning, match="manifest=Manifest"):
        values = PerQueryResults({"m": [0.5]}, ["q"], parameters={"relevance_threshold": 2})
    assert values.manifest.settings["relevance_threshold"] == 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert values.parameters == {"relevance_threshold": 2}
    assert caught and issubclass(caught[0].category, DeprecationWarning)


# -- issue 44: every producer records the settings that change its numbers -------------------


def _graded_files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text(
        "".join(f"q{q} 0 d{d} {(q + d) % 3}\n" for q in range(8) for d in range(6)),
        encoding="utf-8",
    )
    run.write_text(
        "".join(f"q{q} Q0 d{d} {d + 1} {10 - d} tag\n" for q in range(8) for d in range(6)),
        encoding="utf-8",
    )
    return qrels, run


def _evaluated(tmp_path, qrels, run, level: int):
    import contextlib
    import io

    from ragmeter.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["evaluate", "-q", "--format", "json", "-l", str(level), "-m", "P.5",
                     str(qrels), str(run)])  # fmt: skip
    assert code == 0
    path = tmp_path / f"l{level}.json"
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def test_the_same_run_at_l2_and_l1_is_refused_by_compare_and_the_gate(tmp_path):
    from ragmeter import MetricResults, compare
    from ragmeter.gate import gate, read_gate_file

    qrels, run = _graded_files(tmp_path)
    strict, lenient = (_evaluated(tmp_path, qrels, run, level) for level in (2, 1))
    baseline = MetricResults.read(strict, per_query=True).per_query_results("l2")
    candidate = MetricResults.read(lenient, per_query=True).per_query_results("l1")
    # The same run at -l 1 scores higher: without the setting, it would "improve".
    assert candidate.means()["P_5"] > baseline.means()["P_5"]
    assert baseline.manifest.settings["relevance_threshold"] == 2
    with pytest.raises(
        InvalidInputError, match=r"different relevance_threshold \(1 for l1, 2 for l2\)"
    ):
        compare(candidate, baseline)
    gate_base, gate_cand = read_gate_file(strict), read_gate_file(lenient)
    assert gate_base.settings["relevance_threshold"] == 2
    assert gate_cand.settings["relevance_threshold"] == 1
    with pytest.raises(InvalidInputError, match="relevance_threshold"):
        gate(gate_cand, gate_base, margin=0.01)


def test_ranking_metrics_per_query_records_its_settings():
    from ragmeter import ranking_metrics

    qrels = {"q1": {"d1": 2, "d2": 1}, "q2": {"d3": 1}}
    run = {"q1": ["d2", "d1"], "q2": ["d3"]}
    values = ranking_metrics(qrels, run, metrics=["P@1"], average=None, relevance_threshold=2)
    manifest = values.per_query_results().manifest
    assert manifest.producer == "ragmeter.ranking_metrics"
    assert manifest.settings["relevance_threshold"] == 2
    assert manifest.settings["missing"] == "raise" and manifest.settings["max_docs"] == "none"
    assert manifest.to_dict()["measures"]["P@1"] == measure_definition("P@1")
    assert manifest.unknown == ()


def test_an_evaluation_of_format_2_reads_with_its_settings_unknown(tmp_path):
    from ragmeter import MetricResults, ranking_metrics

    values = ranking_metrics({"q": {"d": 1}}, {"q": ["d"]}, metrics=["P@1"], average=None)
    path = values.write(tmp_path / "new.json")
    import json

    data = json.loads(path.read_text())
    data["format_version"] = 2
    del data["runs"]["run"]["manifest"]
    for key in ("n_values", "sha256"):
        data.pop(key, None)
    (tmp_path / "old.json").write_text(json.dumps(data))
    old = MetricResults.read(tmp_path / "old.json").per_query_results("old")
    assert set(old.manifest.unknown) == {
        "relevance_threshold", "zero_division", "missing", "max_docs", "judged_docs_only",
        "collection_size",
    }  # fmt: skip
    notes = check_comparable(values.per_query_results("new"), old)
    assert len(notes) == 1 and "not recorded for old" in notes[0]


def test_judged_values_carry_the_judge_and_their_definitions():
    from ragmeter.judges import RuleJudge, Sample, evaluate

    samples = [
        Sample("Who wrote Hamlet?", "Shakespeare wrote Hamlet.", ["Hamlet is by Shakespeare."])
    ]
    results = evaluate(samples, ["groundedness"], judge=RuleJudge(), progress=False)
    values = results.per_query_results("rules")
    manifest = values.manifest
    assert manifest.producer == "ragmeter.judges"
    assert manifest.judge["judge"]["name"] == "rule-judge"
    assert manifest.measures["groundedness"]["name"] == "groundedness"
    assert manifest.settings["judge_value"] == "one judgement"
