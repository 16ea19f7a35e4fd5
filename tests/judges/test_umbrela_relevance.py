"""umbrela_relevance is a built-in metric: asked by name it gives the grades the judge gave, the
same results and cache keys as UMBRELA_RELEVANCE; RuleJudge grades it by a documented word
overlap; its declaration lives in judges/metrics, which imports no evaluation or relevance
(tests/judges/test_layers.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ragmeter.judges import (
    OpenAICompatibleJudge,
    RuleJudge,
    Sample,
    ScriptedJudge,
    UmbrelaRelevanceMetric,
    evaluate,
)
from ragmeter.judges.injection import data_blocks
from ragmeter.judges.metrics import BUILTIN_METRICS, METRIC_NAMES
from ragmeter.judges.metrics import umbrela as declaration
from ragmeter.judges.relevance import UMBRELA_RELEVANCE
from ragmeter.judges.testing import LoopbackOpenAIServer

# The grade the scripted judge is told to give each passage (the independent source of truth).
GRADES = {
    "The Eiffel Tower is 330 metres tall.": 3,
    "Gustave Eiffel's company built the tower.": 1,
    "Its height, antennas included, is in a table near the end of a long history.": 2,
    "Paris has many museums.": 0,
}
SAMPLES = [
    Sample("How tall is the Eiffel Tower?", contexts=[passage], id=f"p{i}")
    for i, passage in enumerate(GRADES)
]


def answer_by_passage(request):
    """The grade of the passage sent, read from its data block."""
    passage = dict(data_blocks(request.first_user_message()))["contexts"]
    return {"value": GRADES[passage], "reason": "scripted"}


def scripted() -> ScriptedJudge:
    return ScriptedJudge({"rubric_umbrela_relevance": answer_by_passage}, name="grades")


def cache_keys(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {key for (key,) in conn.execute("SELECT key FROM calls")}


def test_it_is_a_built_in_metric_and_the_relevance_module_uses_the_same_object():
    assert "umbrela_relevance" in METRIC_NAMES
    assert BUILTIN_METRICS["umbrela_relevance"] is UmbrelaRelevanceMetric
    assert UMBRELA_RELEVANCE is declaration.UMBRELA_RELEVANCE
    assert isinstance(UMBRELA_RELEVANCE, UmbrelaRelevanceMetric)
    assert UMBRELA_RELEVANCE.name == "umbrela_relevance"
    assert UMBRELA_RELEVANCE.agreement_level == "ordinal"
    assert UMBRELA_RELEVANCE.required_fields == ("question", "contexts")


def test_by_name_the_values_are_the_grades_the_judge_gave():
    results = evaluate(SAMPLES, ["umbrela_relevance"], judge=scripted(), progress=False)
    assert results.values("umbrela_relevance") == [float(g) for g in GRADES.values()]
    assert [row.score.reasons for row in results.rows] == [("scripted",)] * len(GRADES)
    assert results.means() == {"umbrela_relevance": sum(GRADES.values()) / len(GRADES)}


def test_by_name_and_by_object_give_the_same_results_and_cache_keys(tmp_path):
    by_name = evaluate(
        SAMPLES,
        ["umbrela_relevance"],
        judge=scripted(),
        cache=str(tmp_path / "name.sqlite"),
        progress=False,
    )
    by_object = evaluate(
        SAMPLES,
        [UMBRELA_RELEVANCE],
        judge=scripted(),
        cache=str(tmp_path / "object.sqlite"),
        progress=False,
    )
    assert [(r.sample_id, r.status, r.value) for r in by_name.rows] == [
        (r.sample_id, r.status, r.value) for r in by_object.rows
    ]
    name_keys = cache_keys(tmp_path / "name.sqlite")
    assert len(name_keys) == len(SAMPLES)
    assert name_keys == cache_keys(tmp_path / "object.sqlite")
    # A cache written by name answers the object: no call.
    replay = evaluate(
        SAMPLES,
        [UMBRELA_RELEVANCE],
        judge=scripted(),
        cache=str(tmp_path / "name.sqlite"),
        progress=False,
    )
    assert replay.total_usage().calls == 0
    assert replay.values("umbrela_relevance") == [float(g) for g in GRADES.values()]


def test_through_a_real_http_endpoint_the_values_are_the_grades():
    with LoopbackOpenAIServer(scripted()) as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="loopback")
        results = evaluate(SAMPLES, ["umbrela_relevance"], judge=judge, progress=False)
        assert len(server.requests) == len(SAMPLES)
    assert results.values("umbrela_relevance") == [float(g) for g in GRADES.values()]


@pytest.mark.parametrize(
    ("answer", "status", "reason_code"),
    [
        ({"value": 5, "reason": "very relevant"}, "error", "judge_output_invalid"),
        ({"value": "high", "reason": "relevant"}, "error", "judge_output_invalid"),
        ({"value": True, "reason": "relevant"}, "error", "judge_output_invalid"),
    ],
)
def test_a_grade_outside_0_to_3_is_an_error_never_a_value(answer, status, reason_code):
    judge = ScriptedJudge({"rubric_umbrela_relevance": answer})
    row = evaluate(SAMPLES[:1], ["umbrela_relevance"], judge=judge, progress=False).rows[0]
    assert (row.status, row.value, row.score.reason_code) == (status, None, reason_code)


def test_a_sample_without_a_passage_is_undefined_without_a_call():
    judge = scripted()
    rows = evaluate(
        [Sample("How tall?", id="none"), Sample("How tall?", contexts=["  "], id="blank")],
        ["umbrela_relevance"],
        judge=judge,
        progress=False,
    ).rows
    assert [(r.status, r.score.reason_code) for r in rows] == [
        ("undefined", "missing_contexts"),
        ("undefined", "no_contexts"),
    ]
    assert judge.requests == []


# Query "eiffel tower height": content words eiffel, tower, height. The grades below are counted
# by hand from the documented rule: all three -> 3, at least half -> 2, some -> 1, none -> 0.
OVERLAP = [
    ("The height of the Eiffel Tower is 330 m.", 3),  # 3 of 3
    ("The Eiffel Tower opened in 1889.", 2),  # 2 of 3
    ("The tower is 330 m tall.", 1),  # 1 of 3
    ("Paris has many museums.", 0),  # 0 of 3
]


def test_offline_the_rule_judge_grades_by_the_documented_word_overlap():
    samples = [
        Sample("eiffel tower height", contexts=[p], id=str(i)) for i, (p, _) in enumerate(OVERLAP)
    ]
    results = evaluate(samples, ["umbrela_relevance"], judge=RuleJudge(), progress=False)
    assert results.values("umbrela_relevance") == [float(g) for _, g in OVERLAP]
    assert results.rows[1].score.reasons == (
        "2 of the query's 3 content words occur in the passage",
    )
    # threshold=1.0: 2 of 3 is no longer "at least the threshold", only "some".
    strict = evaluate(samples, ["umbrela_relevance"], judge=RuleJudge(threshold=1.0))
    assert strict.values("umbrela_relevance") == [3.0, 1.0, 1.0, 0.0]
    # The loopback server answers with the same rule over HTTP.
    with LoopbackOpenAIServer() as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="loopback")
        remote = evaluate(samples, ["umbrela_relevance"], judge=judge, progress=False)
    assert remote.values("umbrela_relevance") == [float(g) for _, g in OVERLAP]


def test_a_query_without_a_content_word_grades_0_offline():
    sample = Sample("what is it?", contexts=["It is what it is."])
    row = evaluate([sample], ["umbrela_relevance"], judge=RuleJudge(), progress=False).rows[0]
    assert (row.status, row.value) == ("ok", 0.0)
