"""Every example of embedchain's evaluation guide, run with ragmeter's names (spec:
tests/data/spec/embedchain-evaluation.mdx), against the loopback server standing in for OpenAI."""

from __future__ import annotations

import math
from typing import Optional

import pytest

from ragmeter import JudgeConfigurationError, UndefinedMetricWarning
from ragmeter.judges import (
    AnswerRelevance,
    AnswerRelevanceConfig,
    BaseConfig,
    BaseMetric,
    ContextRelevance,
    ContextRelevanceConfig,
    EvalData,
    Groundedness,
    GroundednessConfig,
    RuleJudge,
    ScriptedJudge,
    evaluate,
    evaluate_rag,
)
from ragmeter.judges.testing import LoopbackOpenAIServer

SPEC_DATA = [
    {
        "question": "What is the net worth of Elon Musk?",
        "contexts": [
            "Elon Musk PROFILEElon MuskCEO, ...",
            "a Twitter poll on whether the journalists' ...",
            "2016 and run by Jared Birchall.[335]...",
        ],
        "answer": "As of the information provided, Elon Musk's net worth is $241.6 billion.",
    },
    {
        "question": "which companies does Elon Musk own?",
        "contexts": [
            "of December 2023[update], ...",
            "ThielCofounderView ProfileTeslaHolds ...",
            "Elon Musk PROFILEElon MuskCEO, ...",
        ],
        "answer": "Elon Musk owns several companies, including Tesla, SpaceX, Neuralink, and The Boring Company.",  # noqa: E501
    },
]


@pytest.fixture
def openai_like(monkeypatch):
    """An OpenAI stand-in: the spec's key is required, endpoint and model names from the env."""
    with LoopbackOpenAIServer(api_key="sk-xxx") as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-xxx")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("RAGMETER_JUDGE_MODEL", "gpt-4")
        monkeypatch.setenv("RAGMETER_EMBEDDING_MODEL", "text-embedding-ada-002")
        yield server


def spec_dataset():
    # Step-1 of the guide, verbatim but for the import.
    data = SPEC_DATA
    dataset = []

    for d in data:
        eval_data = EvalData(question=d["question"], contexts=d["contexts"], answer=d["answer"])
        dataset.append(eval_data)
    return dataset


def reference_means(metric):
    return evaluate(spec_dataset(), [metric], judge=RuleJudge(), embedder=_hash()).means()[metric]


def _hash():
    from ragmeter.judges import HashEmbedder

    return HashEmbedder()


def test_context_relevancy_examples(openai_like):
    dataset = spec_dataset()

    metric = ContextRelevance()
    score = metric.evaluate(dataset)
    # By hand (RuleJudge: relevant = shares a content word with the question): each sample has
    # three one-sentence contexts and only "Elon Musk PROFILEElon MuskCEO, ..." shares "elon" and
    # "musk" with the question, so 1/3 and 1/3.
    assert score == pytest.approx(1 / 3)
    assert score == pytest.approx(reference_means("context_relevancy"))

    eval_config = ContextRelevanceConfig(model="gpt-4", api_key="sk-xxx", language="en")
    metric = ContextRelevance(config=eval_config)
    assert metric.evaluate(dataset) == pytest.approx(score)

    assert {r.body["model"] for r in openai_like.requests} == {"gpt-4"}
    assert all(r.authorized for r in openai_like.requests)
    assert metric.name == "context_relevancy"
    assert metric.last_results.summary("context_relevancy").n_ok == 2


def test_answer_relevancy_examples(openai_like):
    dataset = spec_dataset()

    metric = AnswerRelevance()
    score = metric.evaluate(dataset)
    assert -1.0 <= score <= 1.0

    eval_config = AnswerRelevanceConfig(
        model="gpt-4", embedder="text-embedding-ada-002", api_key="sk-xxx", num_gen_questions=2
    )
    metric = AnswerRelevance(config=eval_config)
    score = metric.evaluate(dataset)
    assert -1.0 <= score <= 1.0

    embedding_bodies = [r.body for r in openai_like.requests if r.path.endswith("/embeddings")]
    assert embedding_bodies and {b["model"] for b in embedding_bodies} == {"text-embedding-ada-002"}
    questions = [row.score.evidence["generated_questions"] for row in metric.last_results.rows]
    assert [len(q) for q in questions] == [2, 2]


def test_groundedness_examples(openai_like):
    dataset = spec_dataset()

    metric = Groundedness()
    score = metric.evaluate(dataset)
    # By hand (RuleJudge: supported = half the claim's content words occur in the context): each
    # answer is one claim sharing only "elon" and "musk" with its contexts, 2 of 10 and 2 of 11
    # content words, so both verdicts are 0.
    assert score == 0.0
    assert score == pytest.approx(reference_means("groundedness"))

    eval_config = GroundednessConfig(model="gpt-4", api_key="sk-xxx")
    metric = Groundedness(config=eval_config)
    assert metric.evaluate(dataset) == pytest.approx(score)


def test_custom_metric_example(openai_like):
    class MyCustomMetric(BaseMetric):
        def __init__(self, config: Optional[BaseConfig] = None):  # noqa: UP045 (the spec's code)
            super().__init__(name="my_custom_metric")

        def evaluate(self, dataset: list[EvalData]):
            score = 0.0
            # write your evaluation logic here
            return score

    metric = MyCustomMetric()
    assert (metric.name, metric.evaluate(spec_dataset())) == ("my_custom_metric", 0.0)


def test_quickstart_with_evaluate_rag(openai_like):
    corpus = {d["question"]: d for d in SPEC_DATA}

    def retriever(question):
        return corpus.get(question, SPEC_DATA[0])["contexts"]

    def generator(question, contexts):
        return corpus.get(question, SPEC_DATA[0])["answer"]

    class Length(BaseMetric):
        def __init__(self):
            super().__init__(name="answer_length")

        def evaluate(self, dataset):
            return sum(len(d.answer) for d in dataset) / len(dataset)

    scores = evaluate_rag(
        ["What is the net worth of Elon Musk?", "which companies does Elon Musk own?"],
        retriever,
        generator,
        metrics=["answer_relevancy", "groundedness", "context_relevancy", Length()],
    )
    assert list(scores) == [
        "answer_relevancy",
        "groundedness",
        "context_relevancy",
        "answer_length",
    ]
    assert scores["groundedness"] == pytest.approx(reference_means("groundedness"))
    assert scores["context_relevancy"] == pytest.approx(reference_means("context_relevancy"))
    assert scores["answer_length"] == pytest.approx(sum(len(d["answer"]) for d in SPEC_DATA) / 2)

    default = evaluate_rag(["What is the net worth of Elon Musk?"], retriever, generator)
    assert list(default) == ["answer_relevancy", "groundedness", "context_relevancy"]


def test_evaluate_rag_accepts_async_callables_and_returns_results():
    async def retriever(question):
        return [{"text": "Paris is in France."}]

    async def generator(question, contexts):
        return "Paris is in France."

    scores, results = evaluate_rag(
        ["Where is Paris?"],
        retriever,
        generator,
        judge=RuleJudge(),
        embedder=_hash(),
        return_results=True,
    )
    assert scores["groundedness"] == 1.0
    grounded = next(r for r in results.rows if r.metric == "groundedness")
    assert grounded.score.evidence["n_claims"] == 1


def test_a_cannot_tell_verdict_never_turns_groundedness_into_nan():
    judge = ScriptedJudge(
        {
            "claims": {"claims": ["one", "two"]},
            "groundedness_verdicts": {
                "verdicts": [
                    {"id": 1, "verdict": 1, "reason": "r"},
                    {"id": 2, "verdict": -1, "reason": "r"},
                ]
            },
        }
    )
    metric = Groundedness(GroundednessConfig(judge=judge))
    assert metric.evaluate(spec_dataset()) == pytest.approx(0.5)


def test_no_usable_sample_gives_nan_with_a_warning_not_zero():
    judge = ScriptedJudge({"claims": {"claims": []}})
    metric = Groundedness(GroundednessConfig(judge=judge))
    with pytest.warns(UndefinedMetricWarning, match="no_claims=2"):
        assert math.isnan(metric.evaluate(spec_dataset()))


def test_custom_prompts_keep_embedchain_placeholders(openai_like):
    prompt = (
        "Which sentences help with: $question\n\n"
        "### Question\n$question\n\n### Context sentences\n$context\n"
    )
    metric = ContextRelevance(ContextRelevanceConfig(prompt=prompt))
    metric.evaluate(spec_dataset()[:1])
    sent = openai_like.requests[0].body["messages"][1]["content"]
    line = "Which sentences help with: <data:question>\nWhat is the net worth of Elon Musk?\n"
    # The template's first line holds data: it comes after the stable notice and schema.
    assert line in sent and sent.index("JSON Schema:") < sent.index(line)
    versions = metric.last_results.manifest["metrics"][0]["prompts"]
    assert list(versions) == ["context_relevancy@3+custom"]


def test_gpt_4_is_the_default_only_on_api_openai_com(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-xxx")
    judge = ContextRelevance().config.make_judge()
    assert (judge.model, judge.base_url) == ("gpt-4", "https://api.openai.com/v1")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    with pytest.raises(JudgeConfigurationError, match="RAGMETER_JUDGE_MODEL"):
        ContextRelevance().config.make_judge()
    with pytest.raises(JudgeConfigurationError, match="RAGMETER_EMBEDDING_MODEL"):
        AnswerRelevanceConfig(model="m").make_embedder()


def test_configs_never_show_the_key():
    config = GroundednessConfig(model="gpt-4", api_key="sk-very-secret")
    assert "sk-very-secret" not in repr(config) and "***" in repr(config)
    assert "sk-very-secret" not in str(config.as_dict())


def test_configs_set_the_token_limit_timeout_and_concurrency():
    with LoopbackOpenAIServer() as server:
        config = GroundednessConfig(
            model="m", base_url=server.base_url, max_tokens=100, timeout_s=7.5, max_concurrency=1
        )
        judge = config.make_judge()
        assert (judge.limits.max_concurrency, judge._http.timeout_s) == (1, 7.5)
        Groundedness(config=config).evaluate(
            [EvalData(question="Where?", contexts=["Paris is in France."], answer="Paris.")]
        )
        assert server.max_in_flight == 1
        assert {r.body["max_tokens"] for r in server.requests} == {100}


def test_answer_relevance_can_embed_on_another_server():
    dataset = [EvalData(question="Where is Paris?", contexts=["c"], answer="Paris is in France.")]
    with LoopbackOpenAIServer() as chat, LoopbackOpenAIServer() as embeddings:
        config = AnswerRelevanceConfig(
            model="m", base_url=chat.base_url, embedder="e", embeddings_base_url=embeddings.base_url
        )
        value = AnswerRelevance(config=config).evaluate(dataset)
        assert not math.isnan(value)
        assert chat.count("embeddings") == 0 and embeddings.count("embeddings") >= 1


def test_a_chat_server_without_embeddings_is_named_in_the_error():
    from ragmeter.judges import JudgeTransportError
    from ragmeter.judges.testing import Fault

    dataset = [EvalData(question="Where is Paris?", contexts=["c"], answer="Paris is in France.")]
    with LoopbackOpenAIServer() as chat:
        chat.enqueue(*[Fault.http(404, message="Not Found", route="embeddings")] * 5)
        config = AnswerRelevanceConfig(model="m", base_url=chat.base_url, embedder="e")
        with pytest.raises(JudgeTransportError, match="embeddings_base_url"):
            AnswerRelevance(config=config).evaluate(dataset)
