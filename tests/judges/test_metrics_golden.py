"""Every metric formula against hand-computed values, with scripted judge answers."""

from __future__ import annotations

import json
import re

import pytest

from ragmeter.judges import (
    AnswerRelevanceMetric,
    AnswerRelevancyMetric,
    ContextPrecisionMetric,
    FaithfulnessMetric,
    JudgeCache,
    PairwisePreferenceMetric,
    RubricMetric,
    Sample,
    Score,
    ScriptedJudge,
    as_embedder,
    evaluate,
    metric,
)
from ragmeter.judges.injection import data_blocks, strip_data_blocks
from ragmeter.judges.testing import Responses, parse_sections


def only_score(results):
    assert len(results.rows) == 1
    return results.rows[0].score


def labels(key, field, values, reasons=None):
    return {
        key: [
            {"id": i, field: v, "reason": (reasons or {}).get(i, f"reason {i}")}
            for i, v in enumerate(values, start=1)
        ]
    }


def sent_items(request, section):
    return json.loads(parse_sections(request.first_user_message())[section])


# context_relevancy ---------------------------------------------------------------------------

CONTEXTS = ("A one. A two. A three.", "B one. B two.")


def test_context_relevancy_is_relevant_sentences_over_sentences():
    judge = ScriptedJudge(
        {
            "context_relevancy_labels": labels(
                "sentences", "relevant", [True, False, False, True, False]
            )
        }
    )
    score = only_score(evaluate([Sample("Q?", "A.", CONTEXTS)], ["context_relevancy"], judge=judge))
    assert score.value == pytest.approx(2 / 5)
    assert score.evidence["n_sentences"] == 5 and score.evidence["n_relevant"] == 2
    assert sent_items(judge.requests[0], "Context sentences") == [
        {"id": 1, "text": "A one."},
        {"id": 2, "text": "A two."},
        {"id": 3, "text": "A three."},
        {"id": 4, "text": "B one."},
        {"id": 5, "text": "B two."},
    ]


def test_context_relevancy_cannot_exceed_one():
    # embedchain counts the sentences the model writes, so a chatty judge scores above 1;
    # labelling the sent sentences caps the numerator at the denominator.
    judge = ScriptedJudge({"context_relevancy_labels": labels("sentences", "relevant", [True] * 5)})
    assert (
        only_score(
            evaluate([Sample("Q?", "A.", CONTEXTS)], ["context_relevancy"], judge=judge)
        ).value
        == 1.0
    )


def test_a_missing_label_is_reasked_with_the_validation_error():
    judge = ScriptedJudge(
        {
            "context_relevancy_labels": Responses(
                labels("sentences", "relevant", [True, False, False, True]),
                labels("sentences", "relevant", [True, False, False, True, True]),
            )
        }
    )
    results = evaluate([Sample("Q?", "A.", CONTEXTS)], ["context_relevancy"], judge=judge)
    assert results.rows[0].score.value == pytest.approx(3 / 5)
    assert results.rows[0].total_usage().reasks == 1
    reask = judge.requests[1].messages
    assert reask[-2]["role"] == "assistant"
    assert "missing ids [5]" in reask[-1]["content"]


def test_persistent_wrong_counts_fall_back_to_one_call_per_item(tmp_path):
    def answer(request):
        items = sent_items(request, "Context sentences")
        entries = [
            {"id": it["id"], "relevant": it["text"].startswith("B"), "reason": "r"} for it in items
        ]
        return {"sentences": entries[:-1] if len(entries) > 1 else entries}

    judge = ScriptedJudge({"context_relevancy_labels": answer})
    cache = str(tmp_path / "cache.sqlite")
    results = evaluate(
        [Sample("Q?", "A.", CONTEXTS)], ["context_relevancy"], judge=judge, cache=cache
    )
    score = results.rows[0].score
    assert score.value == pytest.approx(2 / 5)
    usage = results.rows[0].total_usage()
    # The re-ask repeats the answer word for word: no further re-ask, then one call per item.
    assert (usage.calls, usage.reasks, usage.split_fallbacks) == (2 + 5, 1, 1)
    again = evaluate(
        [Sample("Q?", "A.", CONTEXTS)], ["context_relevancy"], judge=judge, cache=cache
    )
    assert again.rows[0].score.value == pytest.approx(2 / 5)
    assert again.rows[0].total_usage().calls == 0


def test_context_relevancy_without_sentences_is_undefined():
    judge = ScriptedJudge({})
    score = only_score(evaluate([Sample("Q?", "A.", ("   ",))], ["context_relevancy"], judge=judge))
    assert (score.status, score.reason_code, score.value) == ("undefined", "no_contexts", None)
    assert judge.requests == []


# answer_relevancy ----------------------------------------------------------------------------


def fixed_embedder(vectors, calls):
    def embed(texts):
        calls.append(list(texts))
        return [vectors[t] for t in texts]

    return as_embedder(embed, name="fixed-vectors")


def questions_judge(questions, noncommittal=False):
    return ScriptedJudge(
        {"answer_relevancy_questions": {"questions": questions, "noncommittal": noncommittal}}
    )


def test_answer_relevancy_is_the_mean_cosine_to_the_question():
    # cos([1, 0], [1, 0]) = 1, cos([1, 0], [3, 4]) = 3 / 5; mean 0.8.
    calls = []
    embedder = fixed_embedder({"Q?": [1.0, 0.0], "q one": [1.0, 0.0], "q two": [3.0, 4.0]}, calls)
    results = evaluate(
        [Sample("Q?", "An answer.")],
        [AnswerRelevancyMetric(num_questions=2)],
        judge=questions_judge(["q one", "q two"]),
        embedder=embedder,
    )
    score = results.rows[0].score
    assert score.value == pytest.approx(0.8)
    assert score.evidence["cosines"] == pytest.approx([1.0, 0.6])
    assert calls == [["Q?", "q one", "q two"]]


def test_answer_relevancy_keeps_negative_cosines():
    embedder = fixed_embedder({"Q?": [1.0, 0.0], "a": [1.0, 0.0], "b": [-2.0, 0.0]}, [])
    results = evaluate(
        [Sample("Q?", "x")],
        [AnswerRelevancyMetric(num_questions=2)],
        judge=questions_judge(["a", "b"]),
        embedder=embedder,
    )
    assert results.rows[0].score.value == pytest.approx(0.0)


def test_a_noncommittal_answer_scores_zero_without_embeddings():
    calls = []
    embedder = fixed_embedder({}, calls)
    results = evaluate(
        [Sample("Q?", "I don't know.")],
        [AnswerRelevancyMetric(num_questions=1)],
        judge=questions_judge(["Q?"], noncommittal=True),
        embedder=embedder,
    )
    score = results.rows[0].score
    assert (score.value, score.status, score.reason_code) == (0.0, "ok", "noncommittal")
    assert calls == []


def test_a_zero_embedding_makes_answer_relevancy_undefined():
    embedder = fixed_embedder({"Q?": [0.0, 0.0], "q": [1.0, 0.0]}, [])
    results = evaluate(
        [Sample("Q?", "x")],
        [AnswerRelevancyMetric(num_questions=1)],
        judge=questions_judge(["q"]),
        embedder=embedder,
    )
    assert results.rows[0].score.reason_code == "zero_embedding"


def test_the_number_of_generated_questions_is_enforced():
    judge = ScriptedJudge(
        {
            "answer_relevancy_questions": Responses(
                {"questions": ["only one"], "noncommittal": False},
                {"questions": ["one", " "], "noncommittal": False},
                {"questions": ["one", "two"], "noncommittal": False},
            )
        }
    )
    embedder = fixed_embedder({"Q?": [1.0, 0.0], "one": [1.0, 0.0], "two": [0.0, 1.0]}, [])
    results = evaluate(
        [Sample("Q?", "x")],
        [AnswerRelevancyMetric(num_questions=2)],
        judge=judge,
        embedder=embedder,
    )
    assert results.rows[0].score.value == pytest.approx(0.5)
    assert "expected at least 2 items, got 1" in judge.requests[1].messages[-1]["content"]
    assert "questions [1] are empty" in judge.requests[2].messages[-1]["content"]


# groundedness and faithfulness ---------------------------------------------------------------

CLAIMS = {"claims": ["c one", "c two", "c three", "c four"]}


def test_groundedness_is_supported_claims_over_claims():
    # verdicts 1, 0, -1, 1: two supported of four; -1 stays in the denominator only.
    judge = ScriptedJudge(
        {"claims": CLAIMS, "groundedness_verdicts": labels("verdicts", "verdict", [1, 0, -1, 1])}
    )
    score = only_score(evaluate([Sample("Q?", "A.", ("ctx.",))], ["groundedness"], judge=judge))
    assert score.value == pytest.approx(0.5)
    assert (
        score.evidence["n_claims"],
        score.evidence["n_supported"],
        score.evidence["n_cannot_tell"],
    ) == (4, 2, 1)
    assert [item["text"] for item in sent_items(judge.requests[1], "Claims")] == CLAIMS["claims"]


def test_groundedness_without_claims_is_undefined():
    judge = ScriptedJudge({"claims": {"claims": ["  "]}})
    score = only_score(
        evaluate([Sample("Q?", "I cannot say.", ("ctx.",))], ["groundedness"], judge=judge)
    )
    assert (score.status, score.reason_code) == ("undefined", "no_claims")


def test_groundedness_without_context_is_zero_without_a_verdict_call():
    judge = ScriptedJudge({"claims": CLAIMS})
    score = only_score(evaluate([Sample("Q?", "A.", ())], ["groundedness"], judge=judge))
    assert (score.value, score.reason_code) == (0.0, "no_contexts")
    assert len(judge.requests) == 1


FAITHFULNESS_VERDICTS = labels(
    "verdicts", "verdict", ["supported", "unsupported", "contradicted", "supported"]
)


@pytest.mark.parametrize(("mode", "expected"), [("entailment", 2 / 4), ("contradiction", 3 / 4)])
def test_faithfulness_modes(mode, expected):
    judge = ScriptedJudge({"claims": CLAIMS, "faithfulness_verdicts": FAITHFULNESS_VERDICTS})
    score = only_score(
        evaluate([Sample("Q?", "A.", ("ctx.",))], [FaithfulnessMetric(mode=mode)], judge=judge)
    )
    assert score.value == pytest.approx(expected)
    assert (score.evidence["n_supported"], score.evidence["n_contradicted"]) == (2, 1)


def test_groundedness_and_faithfulness_share_one_claim_extraction():
    judge = ScriptedJudge(
        {
            "claims": CLAIMS,
            "groundedness_verdicts": labels("verdicts", "verdict", [1, 1, 1, 0]),
            "faithfulness_verdicts": FAITHFULNESS_VERDICTS,
        }
    )
    results = evaluate(
        [Sample("Q?", "A.", ("ctx.",))], ["groundedness", "faithfulness"], judge=judge
    )
    assert results.means() == {
        "groundedness": pytest.approx(0.75),
        "faithfulness": pytest.approx(0.5),
    }
    assert [r.task for r in judge.requests].count("claims") == 1


# answer_relevance ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("partial_credit", "expected"), [(0.5, 2.5 / 4), (0.0, 2 / 4), (1.0, 3 / 4)]
)
def test_answer_relevance_weights_partial_verdicts(partial_credit, expected):
    verdicts = ["relevant", "partially_relevant", "irrelevant", "relevant"]
    judge = ScriptedJudge({"answer_relevance_verdicts": labels("verdicts", "verdict", verdicts)})
    sample = Sample("Q?", "S one. S two. S three. S four.")
    score = only_score(
        evaluate([sample], [AnswerRelevanceMetric(partial_credit=partial_credit)], judge=judge)
    )
    assert score.value == pytest.approx(expected)
    assert [it["text"] for it in sent_items(judge.requests[0], "Statements")] == [
        "S one.",
        "S two.",
        "S three.",
        "S four.",
    ]


# context_precision and context_recall --------------------------------------------------------


def usefulness(useful_chunks):
    def answer(request):
        context = parse_sections(request.first_user_message())["Context"]
        return {"useful": context in useful_chunks, "reason": "scripted"}

    return answer


@pytest.mark.parametrize(
    ("useful", "expected"),
    [
        ({"chunk-1", "chunk-3"}, (1 / 1 + 2 / 3) / 2),
        ({"chunk-2"}, (1 / 2) / 1),
        ({"chunk-1", "chunk-2", "chunk-3"}, 1.0),
        ({"chunk-3"}, 1 / 3),
    ],
)
def test_context_precision_is_average_precision_of_useful_chunks(useful, expected):
    sample = Sample("Q?", "A.", ("chunk-1", "chunk-2", "chunk-3"), reference="Ref.")
    judge = ScriptedJudge({"context_precision_usefulness": usefulness(useful)})
    score = only_score(evaluate([sample], ["context_precision"], judge=judge))
    assert score.value == pytest.approx(expected)
    assert len(judge.requests) == 3

    flags = [f"chunk-{k}" in useful for k in (1, 2, 3)]
    batched_judge = ScriptedJudge(
        {"context_precision_verdicts": labels("verdicts", "useful", flags)}
    )
    batched = only_score(
        evaluate([sample], [ContextPrecisionMetric(batched=True)], judge=batched_judge)
    )
    assert batched.value == pytest.approx(expected)
    assert len(batched_judge.requests) == 1


def test_context_precision_without_a_useful_chunk_is_undefined():
    sample = Sample("Q?", "A.", ("chunk-1", "chunk-2"), reference="Ref.")
    judge = ScriptedJudge({"context_precision_usefulness": usefulness(set())})
    score = only_score(evaluate([sample], ["context_precision"], judge=judge))
    assert (score.status, score.reason_code) == ("undefined", "no_useful_context")


def test_reference_metrics_without_a_reference_are_undefined_and_make_no_call():
    judge = ScriptedJudge({})
    results = evaluate(
        [Sample("Q?", "A.", ("c",))], ["context_precision", "context_recall"], judge=judge
    )
    assert [(r.score.status, r.score.reason_code) for r in results.rows] == [
        ("undefined", "missing_reference"),
        ("undefined", "missing_reference"),
    ]
    assert judge.requests == []


def test_context_recall_is_attributed_reference_sentences_over_sentences():
    judge = ScriptedJudge(
        {"context_recall_attribution": labels("sentences", "attributed", [True, False, True])}
    )
    sample = Sample("Q?", "A.", ("ctx.",), reference="R one. R two. R three.")
    score = only_score(evaluate([sample], ["context_recall"], judge=judge))
    assert score.value == pytest.approx(2 / 3)
    assert [it["text"] for it in sent_items(judge.requests[0], "Reference sentences")] == [
        "R one.",
        "R two.",
        "R three.",
    ]


def test_context_recall_without_context_is_zero_without_a_call():
    judge = ScriptedJudge({})
    score = only_score(
        evaluate([Sample("Q?", "A.", (), reference="R one.")], ["context_recall"], judge=judge)
    )
    assert (score.value, score.reason_code) == (0.0, "no_contexts")


# pairwise_preference -------------------------------------------------------------------------


def prefers(text):
    """A judge that prefers the response containing ``text``, wherever it is shown."""

    def answer(request):
        sections = parse_sections(request.first_user_message())
        winner = "1" if text in sections["Response 1"] else "2"
        return {"winner": winner, "reason": f"prefers {text}"}

    return ScriptedJudge({"pairwise_preference": answer})


def test_consistent_preference_names_the_winner():
    score = only_score(
        evaluate(
            [Sample("Q?", "alpha", answer_b="beta")],
            ["pairwise_preference"],
            judge=prefers("alpha"),
        )
    )
    assert (score.value, score.evidence["winner"], score.evidence["position_inconsistent"]) == (
        1.0,
        "A",
        False,
    )
    score = only_score(
        evaluate(
            [Sample("Q?", "alpha", answer_b="beta")], ["pairwise_preference"], judge=prefers("beta")
        )
    )
    assert (score.value, score.evidence["winner"]) == (0.0, "B")


def test_both_orders_are_asked_with_neutral_labels():
    judge = prefers("alpha")
    evaluate([Sample("Q?", "alpha", answer_b="beta")], ["pairwise_preference"], judge=judge)
    shown_first = [parse_sections(r.first_user_message())["Response 1"] for r in judge.requests]
    assert sorted(shown_first) == ["alpha", "beta"]
    assert all("alpha" not in r.messages[0]["content"] for r in judge.requests)


def test_a_position_biased_judge_gives_ties_and_flips():
    # Always "Response 1": A wins as (A, B), B wins as (B, A) -> a tie and a position flip.
    consistent = Sample("Q?", "alpha", answer_b="beta", id="consistent")
    biased = Sample("Q?", "gamma", answer_b="delta", id="biased")

    def answer(request):
        sections = parse_sections(request.first_user_message())
        if "alpha" in sections["Response 1"] + sections["Response 2"]:
            return {"winner": "1" if "alpha" in sections["Response 1"] else "2", "reason": "alpha"}
        return {"winner": "1", "reason": "first"}

    judge = ScriptedJudge({"pairwise_preference": answer})
    results = evaluate([consistent, biased], [PairwisePreferenceMetric()], judge=judge)
    scores = {r.sample_id: r.score for r in results.rows}
    assert scores["biased"].value == 0.5 and scores["biased"].evidence["position_inconsistent"]
    assert scores["biased"].reason_code == "position_inconsistent"
    extra = results.summary("pairwise_preference").extra
    # Verdicts "1": consistent AB, biased AB, biased BA -> 3 of 4 won by the first position.
    assert extra == {
        "wins_a": 1,
        "wins_b": 0,
        "ties": 1,
        "position_flips": 1,
        "flip_rate": 0.5,
        "first_position_win_rate": 0.75,
    }


def test_repeats_use_distinct_sample_indices():
    judge = prefers("alpha")
    evaluate(
        [Sample("Q?", "alpha", answer_b="beta")], [PairwisePreferenceMetric(repeats=2)], judge=judge
    )
    assert sorted(r.n_index for r in judge.requests) == [0, 0, 1, 1]


# custom metrics ------------------------------------------------------------------------------


def test_rubric_metric_scores_the_allowed_value():
    judge = ScriptedJudge({"rubric_clarity": {"value": 4, "reason": "clear"}})
    rubric = RubricMetric(
        "clarity", "Rate the clarity of $answer for $question.", allowed_values=[1, 2, 3, 4, 5]
    )
    score = only_score(evaluate([Sample("Q?", "An answer.")], [rubric], judge=judge))
    assert (score.value, score.reasons) == (4.0, ("clear",))
    sent = judge.requests[0].first_user_message()
    # The values are substituted where the placeholders stand, each fenced as data.
    assert strip_data_blocks(sent, "[]").endswith("\n\nRate the clarity of [] for [].")
    assert data_blocks(sent) == [("answer", "An answer."), ("question", "Q?")]
    assert rubric.required_fields == ("question", "answer")


def test_rubric_metric_with_labels_needs_a_score_function():
    judge = ScriptedJudge({"rubric_verdict": {"value": "pass", "reason": "fine"}})
    rubric = RubricMetric(
        "verdict",
        "Judge $answer.",
        allowed_values=["pass", "fail"],
        score_fn=lambda p: p["value"] == "pass",
    )
    assert only_score(evaluate([Sample("Q?", "A.")], [rubric], judge=judge)).value == 1.0
    with pytest.raises(ValueError, match="score_fn"):
        RubricMetric("verdict", "Judge $answer.", allowed_values=["pass", "fail"])
    with pytest.raises(ValueError, match="unknown placeholders"):
        RubricMetric("x", "Judge $answr.", allowed_values=[0, 1])


def test_function_metrics_sync_and_async():
    rating_schema = {"type": "object", "properties": {"v": {"type": "number"}}, "required": ["v"]}
    judge = ScriptedJudge({re.compile("Rate:"): {"v": 0.25}})

    @metric(required_fields=("answer",))
    def mentions_paris(sample, ctx):
        return "Paris" in sample.answer

    @metric
    def judged_sync(sample, ctx):
        return ctx.judge_json(
            [{"role": "user", "content": "Rate: " + sample.answer}], rating_schema
        )["v"]

    @metric(name="judged_async")
    async def judged(sample, ctx):
        parsed = await ctx.judge_json(
            [{"role": "user", "content": "Rate: " + sample.answer}], rating_schema
        )
        return parsed["v"] * 2

    @metric
    def nothing(sample, ctx):
        return None

    results = evaluate(
        [Sample("Q?", "Paris is nice.")],
        [mentions_paris, judged_sync, judged, nothing],
        judge=judge,
    )
    assert [r.score.value for r in results.rows] == [1.0, 0.25, 0.5, None]
    assert results.rows[3].score.reason_code == "no_value"
    # The sync and async metrics sent the same request: one call, one in-run reuse.
    assert len(judge.requests) == 1


# failures never become numbers ---------------------------------------------------------------


def test_failed_samples_are_counted_beside_the_mean():
    def claims(request):
        if "BOOM" in request.first_user_message():
            raise RuntimeError("the judge crashed")
        if "GARBLED" in request.first_user_message():
            return "no json here"
        return {"claims": ["c one", "c two"]}

    judge = ScriptedJudge(
        {"claims": claims, "groundedness_verdicts": labels("verdicts", "verdict", [1, 0])}
    )
    samples = [
        Sample("Q?", "fine", ("ctx",)),
        Sample("Q?", "BOOM", ("ctx",)),
        Sample("Q?", "GARBLED", ("ctx",)),
        Sample("Q?", "", ("ctx",)),
    ]
    results = evaluate(samples, ["groundedness"], judge=judge)
    summary = results.summary("groundedness")
    assert summary.mean == pytest.approx(0.5)
    assert (summary.n, summary.n_ok, summary.n_undefined, summary.n_error) == (4, 1, 1, 2)
    assert summary.error_reasons == {"judge_exception": 1, "judge_output_invalid": 1}
    assert summary.undefined_reasons == {"no_answer": 1}
    assert results.values("groundedness") == [0.5, None, None, None]
    assert "mean over 1 of 4 samples" in str(summary)


def test_on_error_raise_stops_at_the_first_failure():
    judge = ScriptedJudge({"claims": RuntimeError("down")})
    with pytest.raises(Exception, match="down"):
        evaluate([Sample("Q?", "A.", ("c",))], ["groundedness"], judge=judge, on_error="raise")


def test_ok_scores_need_finite_values():
    with pytest.raises(ValueError, match="finite"):
        Score.ok(float("nan"))
    with pytest.raises(ValueError, match="no value"):
        Score(0.5, "undefined", "x")


def test_a_cache_object_can_be_shared(tmp_path):
    judge = ScriptedJudge(
        {"claims": CLAIMS, "groundedness_verdicts": labels("verdicts", "verdict", [1, 1, 1, 1])}
    )
    with JudgeCache(tmp_path / "c.sqlite") as cache:
        evaluate([Sample("Q?", "A.", ("c",))], ["groundedness"], judge=judge, cache=cache)
        assert len(cache) == 2


def test_long_item_lists_are_sent_in_chunks_with_running_ids():
    def answer(request):
        items = sent_items(request, "Context sentences")
        return {
            "sentences": [
                {"id": it["id"], "relevant": it["text"].startswith("A"), "reason": "r"}
                for it in items
            ]
        }

    judge = ScriptedJudge({"context_relevancy_labels": answer})
    results = evaluate(
        [Sample("Q?", "A.", CONTEXTS)], ["context_relevancy"], judge=judge, max_items_per_call=2
    )
    assert results.rows[0].score.value == pytest.approx(3 / 5)
    sent = [[it["id"] for it in sent_items(r, "Context sentences")] for r in judge.requests]
    assert sorted(sent) == [[1, 2], [3, 4], [5]]
