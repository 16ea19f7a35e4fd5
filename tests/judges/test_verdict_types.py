"""JSON true/false (or a string) is never a numeric verdict (issue 27 §2).

In Python ``True == 1`` and ``bool`` is an ``int``, so a verdict compared with ``==`` or a
schema that bounds a number without naming its type let ``{"verdict": true}`` through as the
verdict 1. Each path is driven through a scripted judge and must end as an ``error`` row
(``judge_output_invalid``), never an ``ok`` score.
"""

import pytest

from ragmeter.judges import (
    ContextRecallMetric,
    ContextRelevancyMetric,
    FaithfulnessMetric,
    GroundednessMetric,
    RubricMetric,
    Sample,
    ScriptedJudge,
    evaluate,
)
from ragmeter.judges.parsing import validate_schema
from ragmeter.judges.prompts import (
    CONTEXT_RECALL_PROMPT,
    CONTEXT_RELEVANCY_PROMPT,
    FAITHFULNESS_PROMPT,
    GROUNDEDNESS_PROMPT,
    labelled_items_schema,
)

SAMPLE = Sample(
    "Where is Paris?",
    "Paris is in France.",
    ["Paris is in France."],
    reference="Paris is in France.",
)
CLAIMS = {"claims": {"claims": ["Paris is in France."]}}


def _row(metric, script):
    return evaluate([SAMPLE], [metric], judge=ScriptedJudge(script), progress=False).rows[0]


def _untyped(prompt, title, list_key, field):
    """The prompt with a schema that leaves the label's type open (as a custom prompt for a
    small model may): only the metric itself can then refuse a value of the wrong kind."""
    return prompt.with_schema(labelled_items_schema(title, list_key, field, {}))


@pytest.mark.parametrize("verdict", [True, False])
def test_the_default_groundedness_schema_refuses_a_json_boolean_verdict(verdict):
    row = _row(
        "groundedness",
        {
            **CLAIMS,
            "groundedness_verdicts": {"verdicts": [{"id": 1, "verdict": verdict, "reason": "x"}]},
        },
    )
    assert (row.status, row.score.reason_code, row.value) == ("error", "judge_output_invalid", None)


@pytest.mark.parametrize("verdict", [True, False, "1", 1.5])
def test_groundedness_refuses_a_non_numeric_verdict_whatever_the_prompt_schema(verdict):
    metric = GroundednessMetric(
        verdicts_prompt=_untyped(GROUNDEDNESS_PROMPT, "gv", "verdicts", "verdict")
    )
    row = _row(
        metric, {**CLAIMS, "gv": {"verdicts": [{"id": 1, "verdict": verdict, "reason": "x"}]}}
    )
    # Before: True == 1 counted the claim as grounded (ok, 1.0); "1" and 1.5 counted 0.0.
    assert (row.status, row.score.reason_code, row.value) == ("error", "judge_output_invalid", None)
    assert "verdict" in row.score.message


def test_groundedness_still_scores_integer_verdicts_under_an_open_schema():
    metric = GroundednessMetric(
        verdicts_prompt=_untyped(GROUNDEDNESS_PROMPT, "gv", "verdicts", "verdict")
    )
    row = _row(metric, {**CLAIMS, "gv": {"verdicts": [{"id": 1, "verdict": 1, "reason": "x"}]}})
    assert (row.status, row.value) == ("ok", 1.0)


@pytest.mark.parametrize(
    ("metric", "script"),
    [
        (
            FaithfulnessMetric(
                verdicts_prompt=_untyped(FAITHFULNESS_PROMPT, "fv", "verdicts", "verdict")
            ),
            {**CLAIMS, "fv": {"verdicts": [{"id": 1, "verdict": True, "reason": "x"}]}},
        ),
        (
            ContextRelevancyMetric(
                prompt=_untyped(CONTEXT_RELEVANCY_PROMPT, "cr", "sentences", "relevant")
            ),
            # "false" is a non-empty string: truthy, so it was counted relevant (1.0).
            {"cr": {"sentences": [{"id": 1, "relevant": "false", "reason": "x"}]}},
        ),
        (
            ContextRecallMetric(
                prompt=_untyped(CONTEXT_RECALL_PROMPT, "rc", "sentences", "attributed")
            ),
            {"rc": {"sentences": [{"id": 1, "attributed": 1, "reason": "x"}]}},
        ),
    ],
)
def test_built_in_metrics_refuse_labels_of_the_wrong_kind(metric, script):
    row = _row(metric, script)
    assert (row.status, row.score.reason_code, row.value) == ("error", "judge_output_invalid", None)


def test_a_rubric_with_numeric_bounds_refuses_a_boolean_verdict():
    # The schema bounds the verdict to [0, 1] without naming a type: JSON true passed the
    # bounds (they only apply to numbers) and score_fn returned it, scored 1.0.
    schema = {
        "title": "bounded",
        "type": "object",
        "properties": {"verdict": {"minimum": 0, "maximum": 1}, "reason": {"type": "string"}},
        "required": ["verdict", "reason"],
    }
    metric = RubricMetric(
        "bounded", "Is it right? $answer", schema=schema, score_fn=lambda p: p["verdict"]
    )
    for verdict in (True, False, "1"):
        row = _row(metric, {"bounded": {"verdict": verdict, "reason": "x"}})
        assert (row.status, row.score.reason_code) == ("error", "judge_output_invalid"), verdict
    assert _row(metric, {"bounded": {"verdict": 1, "reason": "x"}}).value == 1.0


def test_numeric_keywords_imply_a_number():
    assert validate_schema(True, {"minimum": 0}) != []
    assert validate_schema(False, {"maximum": 1}) != []
    assert validate_schema("0", {"minimum": 0}) != []
    assert validate_schema(0, {"minimum": 0, "maximum": 1}) == []
    assert validate_schema(0.5, {"maximum": 1}) == []
    # Without numeric keywords an untyped schema accepts anything, as JSON Schema does.
    assert validate_schema(True, {}) == []
