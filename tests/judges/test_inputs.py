"""The input contract: every field is read or refused; a missing field is a status, not a value."""

from __future__ import annotations

import dataclasses
import math

import pandas as pd
import pytest

from ragmeter import InvalidInputError
from ragmeter.judges import EvalData, RuleJudge, Sample, ScriptedJudge, evaluate
from ragmeter.judges.sample import FIELD_ALIASES, coerce_samples

CLAIMS_ANSWER = "The Eiffel Tower is in Paris."
CONTEXT = "The Eiffel Tower is a wrought-iron tower in Paris."


def test_a_misnamed_field_is_an_error_naming_it_and_the_closest_known_name():
    rows = [{"question": "Where?", "answer": CLAIMS_ANSWER, "passages": [CONTEXT]}]
    with pytest.raises(InvalidInputError) as caught:
        evaluate(rows, ["faithfulness"], judge=RuleJudge())
    message = str(caught.value)
    assert "'passages'" in message and "did you mean 'contexts'" in message
    assert "question" in message and "retrieved_contexts" in message  # the known names
    with pytest.raises(InvalidInputError, match="did you mean 'reference'"):
        coerce_samples([{"question": "Q?", "refrence": "R."}])


def test_a_misnamed_dataframe_column_is_an_error_too():
    frame = pd.DataFrame([{"question": "Q?", "answer": "A.", "documents": ["c"]}])
    with pytest.raises(InvalidInputError, match=r"column 'documents'.*did you mean 'contexts'"):
        coerce_samples(frame)


@pytest.mark.parametrize(
    "record",
    [
        # ragas (EvaluationDataset / SingleTurnSample)
        {
            "user_input": "Q?",
            "response": "A.",
            "retrieved_contexts": ["c"],
            "reference": "R.",
        },
        # DeepEval (LLMTestCase)
        {
            "input": "Q?",
            "actual_output": "A.",
            "retrieval_context": ["c"],
            "expected_output": "R.",
        },
        {"input": "Q?", "actual_output": "A.", "context": ["c"], "expected_output": "R."},
        # embedchain (EvalData) and ragas 0.1
        {"question": "Q?", "answer": "A.", "contexts": ["c"], "ground_truth": "R."},
    ],
)
def test_the_field_names_of_ragas_deepeval_and_embedchain_are_read(record):
    (sample,) = coerce_samples([record])
    assert (sample.question, sample.answer, sample.contexts, sample.reference) == (
        "Q?",
        "A.",
        ("c",),
        "R.",
    )


def test_the_alias_table_covers_the_documented_names():
    assert {
        "user_input": "question",
        "response": "answer",
        "retrieved_contexts": "contexts",
        "input": "question",
        "actual_output": "answer",
        "expected_output": "reference",
        "retrieval_context": "contexts",
        "context": "contexts",
        "ground_truth": "reference",
    }.items() <= FIELD_ALIASES.items()


def test_one_field_given_under_two_names_is_refused():
    with pytest.raises(InvalidInputError, match="twice"):
        coerce_samples([{"input": "Q?", "question": "Q?"}])


def test_objects_are_read_by_their_field_names():
    @dataclasses.dataclass
    class RagasLike:
        user_input: str
        response: str | None = None
        retrieved_contexts: list[str] | None = None
        reference: str | None = None
        rubrics: dict[str, str] | None = None  # unset: ignored

    (sample,) = coerce_samples([RagasLike("Q?", "A.", ["c"])])
    assert (sample.question, sample.answer, sample.contexts) == ("Q?", "A.", ("c",))
    with pytest.raises(InvalidInputError, match="'rubrics'"):
        coerce_samples([RagasLike("Q?", rubrics={"1": "bad"})])
    data = EvalData(question="Q?", contexts=["c"], answer="A.", ground_truth="R.")
    assert coerce_samples([data])[0].reference == "R."


def test_empty_dataframe_cells_are_missing_fields_not_values():
    frame = pd.DataFrame([{"question": "Q?", "answer": "A.", "reference": math.nan}])
    (sample,) = coerce_samples(frame)
    assert sample.reference is None and sample.contexts is None


def test_a_missing_field_makes_the_row_undefined_never_a_score():
    judge = RuleJudge()
    no_contexts_field = [{"question": "Where?", "answer": CLAIMS_ANSWER}]
    results = evaluate(
        no_contexts_field, ["faithfulness", "groundedness", "context_recall"], judge=judge
    )
    assert [(r.score.status, r.score.reason_code) for r in results.rows] == [
        ("undefined", "missing_contexts"),
        ("undefined", "missing_contexts"),
        ("undefined", "missing_reference"),
    ]
    assert all(r.score.value is None for r in results.rows)


def test_contexts_given_but_empty_are_scored_by_the_metric_rule():
    # The retriever found nothing: an answer with claims is not grounded in anything.
    empty = [{"question": "Where?", "answer": CLAIMS_ANSWER, "contexts": []}]
    results = evaluate(empty, ["faithfulness", "context_relevancy"], judge=RuleJudge())
    assert [(r.score.status, r.score.value, r.score.reason_code) for r in results.rows] == [
        ("ok", 0.0, "no_contexts"),
        ("undefined", None, "no_contexts"),
    ]


def test_an_empty_reference_is_no_reference_and_makes_no_call():
    judge = ScriptedJudge({})
    results = evaluate([Sample("Q?", "A.", ("c",), reference=" ")], ["context_recall"], judge=judge)
    assert (results.rows[0].score.status, results.rows[0].score.reason_code) == (
        "undefined",
        "no_reference",
    )
    assert judge.requests == []
