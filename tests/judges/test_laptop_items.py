"""Issue 27's small items: each a behaviour a user tripped over, checked end to end."""

import pytest

from ragmeter.judges import RubricMetric, evaluate
from ragmeter.judges.testing import ScriptedJudge

UNTYPED_VALUE = {
    "type": "object",
    "properties": {"value": {"minimum": 0, "maximum": 1}, "reason": {"type": "string"}},
    "required": ["value", "reason"],
}


@pytest.mark.parametrize("answer", [True, False, "1"])
def test_a_non_numeric_rubric_value_is_an_error_not_a_score(answer):
    # The schema has no "type", so only the rubric itself can refuse JSON true as the grade 1.
    rating = RubricMetric("rating", "Rate $question.", allowed_values=[0, 1], schema=UNTYPED_VALUE)
    judge = ScriptedJudge({"rubric.rating": {"value": answer, "reason": "r"}})
    (row,) = evaluate([{"question": "q", "answer": "a"}], [rating], judge=judge).rows
    assert row.score.status == "error"
    assert row.score.value is None
    assert row.score.reason_code == "judge_output_invalid"
    assert "a number" in row.score.message


def test_a_numeric_rubric_value_still_scores():
    rating = RubricMetric("rating", "Rate $question.", allowed_values=[0, 1], schema=UNTYPED_VALUE)
    judge = ScriptedJudge({"rubric.rating": {"value": 1, "reason": "r"}})
    (row,) = evaluate([{"question": "q", "answer": "a"}], [rating], judge=judge).rows
    assert (row.score.status, row.score.value) == ("ok", 1.0)
