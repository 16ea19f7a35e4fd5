"""answer_correctness: ragas' AnswerCorrectness (factual F-score of TP/FP/FN claims, weighted
with the answer-reference similarity), computed by hand on scripted verdicts."""

from __future__ import annotations

import math

import pytest

from ragmeter import InvalidInputError
from ragmeter.judges import (
    AnswerCorrectnessMetric,
    HashEmbedder,
    RuleJudge,
    Sample,
    ScriptedJudge,
    evaluate,
)
from ragmeter.judges.metrics import factual_f_score

QUESTION = "Where is the tower and how tall is it?"
ANSWER = "The tower is in Paris. It opened in 1850. It is made of iron."
REFERENCE = "The tower is in Paris. It is 330 m tall. It is made of iron. It opened in 1889."
ANSWER_CLAIMS = ["The tower is in Paris.", "It opened in 1850.", "It is made of iron."]
REFERENCE_CLAIMS = [
    "The tower is in Paris.",
    "It is 330 m tall.",
    "It is made of iron.",
    "It opened in 1889.",
]


class FixedEmbedder:
    """The answer along x, the reference at 53.13 degrees: cosine 0.6 exactly."""

    def __init__(self):
        self.name = "fixed"
        self.identity = {"kind": "fixed"}

    async def embed(self, texts):
        table = {ANSWER: [1.0, 0.0], REFERENCE: [0.6, 0.8]}
        return [table[t] for t in texts]


def _judge(answer_claims, reference_claims, verdicts, present):
    def claims(request):
        text = request.first_user_message()
        return {"claims": answer_claims if f"\n{ANSWER}\n" in text else reference_claims}

    return ScriptedJudge(
        [
            (
                "reference_coverage_labels",
                {
                    "statements": [
                        {"id": i, "present": p, "reason": "r"} for i, p in enumerate(present, 1)
                    ]
                },
            ),
            (
                "answer_correctness_verdicts",
                {
                    "verdicts": [
                        {"id": i, "verdict": v, "reason": "r"} for i, v in enumerate(verdicts, 1)
                    ]
                },
            ),
            ("claims", claims),
        ]
    )


def _row(judge, metric=None, embedder=None):
    sample = Sample(QUESTION, ANSWER, reference=REFERENCE, id="s")
    metric = metric or AnswerCorrectnessMetric()
    embedder = embedder if embedder is not None else FixedEmbedder()
    return evaluate([sample], [metric], judge=judge, embedder=embedder, progress=False).rows[0]


@pytest.mark.parametrize(
    ("tp", "fp", "fn", "expected"),
    [(1, 1, 1, 0.5), (2, 0, 0, 1.0), (3, 1, 0, 3 / 3.5), (0, 2, 3, 0.0), (0, 0, 0, 0.0)],
)
def test_factual_f_score(tp, fp, fn, expected):
    assert factual_f_score(tp, fp, fn) == pytest.approx(expected)


def test_the_score_combines_the_f_score_and_the_similarity_by_weight():
    # Paris and iron are supported (TP 2), 1850 is not (FP 1); the height and 1889 are absent
    # from the answer (FN 2): f = 2 / (2 + 0.5 * 3) = 4/7; similarity 0.6.
    judge = _judge(
        ANSWER_CLAIMS,
        REFERENCE_CLAIMS,
        ["supported", "unsupported", "supported"],
        [True, False, True, False],
    )
    row = _row(judge)
    f = 2 / 3.5
    assert row.status == "ok"
    assert row.value == pytest.approx(0.75 * f + 0.25 * 0.6)
    evidence = row.score.evidence
    assert (evidence["n_tp"], evidence["n_fp"], evidence["n_fn"]) == (2, 1, 2)
    assert evidence["factual"] == pytest.approx(f)
    assert evidence["similarity"] == pytest.approx(0.6)
    weighted = _row(judge, AnswerCorrectnessMetric(weights=(1, 3)))
    assert weighted.value == pytest.approx((f + 3 * 0.6) / 4)


def test_the_factual_part_alone_needs_no_embedder():
    judge = _judge(ANSWER_CLAIMS, REFERENCE_CLAIMS, ["supported"] * 3, [True] * 4)
    sample = Sample(QUESTION, ANSWER, reference=REFERENCE)
    metric = AnswerCorrectnessMetric(weights=(1.0, 0.0))
    assert not metric.needs_embedder
    assert evaluate([sample], [metric], judge=judge, progress=False).values(
        "answer_correctness"
    ) == [1.0]


def test_an_answer_without_claims_has_no_true_positive_and_makes_no_labelling_call():
    judge = _judge([], REFERENCE_CLAIMS, [], [])
    row = _row(judge)
    assert row.value == pytest.approx(0.25 * 0.6)  # f = 0
    assert row.score.evidence["n_fn"] == 4
    assert [r.task for r in judge.requests] == ["claims", "claims"]


@pytest.mark.parametrize(
    ("answer_claims", "code"), [([], "no_claims"), (ANSWER_CLAIMS, "no_reference_claims")]
)
def test_a_reference_without_claims_is_undefined(answer_claims, code):
    row = _row(_judge(answer_claims, [], [], []))
    assert (row.status, row.score.reason_code, row.value) == ("undefined", code, None)


def test_a_label_of_the_wrong_kind_is_an_error_not_a_score():
    judge = _judge(ANSWER_CLAIMS, REFERENCE_CLAIMS, ["supported"] * 3, ["yes"] * 4)
    row = _row(judge)
    assert (row.status, row.score.reason_code) == ("error", "judge_output_invalid")


@pytest.mark.parametrize(
    "weights", [(1.0,), (1, 2, 3), (-1, 1), (0, 0), (True, 1), (math.nan, 1), "ab", None]
)
def test_weights_are_checked(weights):
    with pytest.raises(InvalidInputError, match="weights must be two"):
        AnswerCorrectnessMetric(weights=weights)


def test_the_rule_judge_answers_it_offline():
    sample = Sample(QUESTION, ANSWER, reference=REFERENCE)
    results = evaluate(
        [sample], [AnswerCorrectnessMetric()], judge=RuleJudge(), embedder=HashEmbedder()
    )
    assert results.rows[0].status == "ok"
    evidence = results.rows[0].score.evidence
    # Word overlap: the 1850 claim shares "opened" with "It opened in 1889." (half its content
    # words), the others are in the reference.
    assert evidence["n_tp"] + evidence["n_fp"] == 3
    assert evidence["n_fn"] + sum(1 for c in evidence["reference_claims"] if c["present"]) == 4
