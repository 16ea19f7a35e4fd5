"""Cached prompt tokens (issue 49 item 2): read from the provider's usage, recorded, priced apart.

Oracles: the usage objects the providers document (OpenAI's prompt caching guide,
``prompt_tokens_details.cached_tokens``; Anthropic's, ``cache_read_input_tokens`` and
``cache_creation_input_tokens`` beside ``input_tokens``), and the usage the loopback server
reported, summed by hand.
"""

from __future__ import annotations

import pytest

from ragmeter.judges import (
    CallStats,
    OpenAICompatibleJudge,
    Price,
    Sample,
    evaluate,
)
from ragmeter.judges.accounting import cost_of
from ragmeter.judges.clients.chat import usage_of
from ragmeter.judges.testing import LoopbackOpenAIServer

# OpenAI's documented example (platform docs, "Prompt caching": the usage of a completion whose
# prompt prefix was cached).
OPENAI_USAGE = {
    "prompt_tokens": 2006,
    "completion_tokens": 300,
    "total_tokens": 2306,
    "prompt_tokens_details": {"cached_tokens": 1920},
    "completion_tokens_details": {"reasoning_tokens": 0},
}
# Anthropic's documented example (messages API, "Prompt caching": the second request reads
# the prefix the first wrote).
ANTHROPIC_USAGE = {
    "input_tokens": 21,
    "cache_creation_input_tokens": 0,
    "cache_read_input_tokens": 188086,
    "output_tokens": 393,
}


def test_usage_reads_openai_and_anthropic_cached_tokens():
    openai = usage_of(OPENAI_USAGE)
    assert (openai.prompt_tokens, openai.completion_tokens, openai.cached_tokens) == (
        2006,
        300,
        1920,
    )
    anthropic = usage_of(ANTHROPIC_USAGE)
    # Anthropic's input_tokens leave the cache out: the prompt is their sum.
    assert (anthropic.prompt_tokens, anthropic.completion_tokens, anthropic.cached_tokens) == (
        21 + 188086,
        393,
        188086,
    )
    written = usage_of({**ANTHROPIC_USAGE, "cache_creation_input_tokens": 1000})
    assert written.prompt_tokens == 21 + 188086 + 1000 and written.cached_tokens == 188086
    gateway = usage_of(
        {"prompt_tokens": 100, "completion_tokens": 5, "cache_read_input_tokens": 64}
    )
    assert (gateway.prompt_tokens, gateway.cached_tokens) == (100, 64)
    assert usage_of({"prompt_tokens": 10, "completion_tokens": 2}).cached_tokens == 0
    assert usage_of({"total_tokens": 3}) is None and usage_of(None) is None


def test_cached_tokens_are_priced_at_their_own_rate():
    price = Price(0.0025, 0.01, cached_input_per_1k=0.00125)
    # By hand: 86 uncached + 1920 cached input tokens, 300 output tokens.
    expected = 86 / 1000 * 0.0025 + 1920 / 1000 * 0.00125 + 300 / 1000 * 0.01
    assert cost_of(2006, 300, price, cached_prompt_tokens=1920) == pytest.approx(expected)
    # Without a cached price, cached tokens cost what other input tokens cost.
    assert cost_of(2006, 300, Price(0.0025, 0.01), cached_prompt_tokens=1920) == pytest.approx(
        2006 / 1000 * 0.0025 + 300 / 1000 * 0.01
    )


def test_a_run_records_the_cached_tokens_the_server_reported_and_prices_them():
    samples = [
        Sample(
            f"Where is monument {i}?",
            f"Monument {i} is in Paris.",
            [f"Monument {i} stands in Paris, France."],
            id=str(i),
        )
        for i in range(5)
    ]
    with LoopbackOpenAIServer(prompt_cache=True) as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m", max_concurrency=1)
        prices = {"m": (0.002, 0.008, 0.0005)}
        results = evaluate(samples, ["groundedness"], judge=judge, prices=prices)
        sent = [r for r in server.requests if r.path.endswith("/chat/completions")]
    # What the server reported, summed by hand.
    reported = [r.usage for r in sent]
    prompt = sum(u["prompt_tokens"] for u in reported)
    cached = sum(u["prompt_tokens_details"]["cached_tokens"] for u in reported)
    completion = sum(u["completion_tokens"] for u in reported)
    total = results.total_usage()
    assert len(sent) == total.calls == len(reported)
    assert (total.prompt_tokens, total.cached_prompt_tokens, total.completion_tokens) == (
        prompt,
        cached,
        completion,
    )
    # The prompts of a run share their stable prefix, so most prompt tokens were cached.
    assert cached > prompt / 3
    expected = (prompt - cached) / 1000 * 0.002 + cached / 1000 * 0.0005 + completion / 1000 * 0.008
    assert results.total_cost() == pytest.approx(expected)
    assert "from the provider's prompt cache" in repr(results)
    # Saved and read back, the counts and the cached price survive.
    again = type(results).from_dict(results.to_dict())
    assert again.total_usage().cached_prompt_tokens == cached
    assert again.total_cost() == pytest.approx(expected)


def test_call_stats_of_a_file_without_cached_tokens_still_read():
    counts = CallStats(calls=2, prompt_tokens=10).to_dict()
    del counts["cached_prompt_tokens"]
    assert CallStats.from_dict(counts, "usage").cached_prompt_tokens == 0
