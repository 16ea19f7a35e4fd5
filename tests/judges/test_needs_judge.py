"""A run whose metrics never ask a judge needs no ``judge=`` (issue 49 item 5: a metric that
only embeds still required one)."""

from __future__ import annotations

import math

import pytest

from ragmeter import JudgeConfigurationError
from ragmeter.judges import HashEmbedder, Sample, evaluate, metric


@metric(required_fields=("question", "answer"), needs_embedder=True, needs_judge=False)
async def echo_similarity(sample, ctx):
    question, answer = await ctx.embed([sample.question, sample.answer])
    dot = sum(a * b for a, b in zip(question, answer, strict=True))
    norms = math.sqrt(sum(a * a for a in question)) * math.sqrt(sum(b * b for b in answer))
    return dot / norms if norms else None


@metric(needs_judge=False)
async def asks_anyway(sample, ctx):
    return (await ctx.judge_json([{"role": "user", "content": "hi"}]))["value"]


def test_a_metric_that_only_embeds_runs_without_a_judge(monkeypatch):
    for name in ("RAGMETER_JUDGE_MODEL", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    samples = [Sample("Where is Paris?", "Paris is in France."), Sample("Q?", "Q?")]
    embedder = HashEmbedder()
    results = evaluate(samples, [echo_similarity], embedder=embedder, progress=False)
    vectors = embedder.embed_sync(["Where is Paris?", "Paris is in France."])
    dot = sum(a * b for a, b in zip(*vectors, strict=True))
    expected = dot / (
        math.dist(vectors[0], [0] * len(vectors[0])) * math.dist(vectors[1], [0] * len(vectors[1]))
    )
    assert results.values("echo_similarity") == pytest.approx([expected, 1.0])
    assert results.total_usage().calls == 0
    # A metric that asks anyway is refused with what to do, never scored.
    with pytest.raises(JudgeConfigurationError, match="needs_judge=False"):
        evaluate(samples, [asks_anyway], progress=False)
    # A metric that asks the judge still needs one.
    with pytest.raises(JudgeConfigurationError):
        evaluate(samples, ["groundedness", echo_similarity], embedder=embedder, progress=False)
