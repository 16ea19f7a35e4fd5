"""Issue 27 section 1 (a small local model with every default): each item a test that failed."""

from __future__ import annotations

import logging

import pytest
from raw_http import RawServer, completion, http_response

from ragmeter.judges import (
    JudgeTransportError,
    OpenAICompatibleEmbedder,
    OpenAICompatibleJudge,
    RetryPolicy,
    RubricMetric,
    Sample,
    evaluate,
)
from ragmeter.judges.testing import ScriptedJudge

QUESTIONS = ScriptedJudge(
    {"answer_relevancy_questions": {"questions": ["a?", "b?", "c?"], "noncommittal": False}}
)
LLAMA_CPP_PYTHON_NO_EMBEDDINGS = {
    "error": {
        "message": "Llama model must be created with embedding=True to call this method",
        "type": "internal_server_error",
    }
}


def test_llama_cpp_python_without_embeddings_is_not_retried_and_says_what_to_do():
    # llama-cpp-python's chat server answers /embeddings with HTTP 500, not 404/405/501.
    def answer(request, index):
        return [(http_response(LLAMA_CPP_PYTHON_NO_EMBEDDINGS, status=500), 0.0)]

    with RawServer(answer) as server:
        embedder = OpenAICompatibleEmbedder(
            base_url=server.url(), model="e", retry_policy=RetryPolicy(initial_delay_s=0)
        )
        with pytest.raises(JudgeTransportError) as caught:
            evaluate(
                [Sample("Q?", "An answer.")],
                ["answer_relevancy"],
                judge=QUESTIONS,
                embedder=embedder,
            )
        requests = len(server.requests)
    message = str(caught.value)
    assert requests == 1, f"retried {requests - 1} times an error no retry can fix"
    assert caught.value.fatal
    assert "--embedding true" in message
    assert "embeddings_base_url=" in message


def test_the_per_token_embeddings_message_names_the_llama_cpp_python_flag():
    from ragmeter.judges.clients.embeddings import _vector

    with pytest.raises(JudgeTransportError) as caught:
        _vector([[0.1, 0.2], [0.3, 0.4]], 0, "http://127.0.0.1:1/v1/embeddings")
    assert "--kv_overrides llama.pooling_type=int:1" in str(caught.value)
    assert "--pooling mean" in str(caught.value)  # llama.cpp's own server


RATING = RubricMetric("rating", "Rate $question.", allowed_values=[0, 1])
VERDICT = completion('{"value": 1, "reason": "fine"}')


def _retry_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith("retrying")]


def test_a_timeout_retried_once_says_once_not_the_budget_of_other_failures(caplog):
    def answer(request, index):
        return [(http_response(VERDICT), 5.0)]  # always later than timeout_s

    caplog.set_level(logging.INFO, logger="ragmeter.judges")
    policy = RetryPolicy(max_retries=4, initial_delay_s=0)
    with RawServer(answer) as server:
        judge = OpenAICompatibleJudge(
            base_url=server.url(), model="m", timeout_s=0.3, retry_policy=policy
        )
        (row,) = evaluate([Sample("Q?", "A.")], [RATING], judge=judge).rows
        requests = len(server.requests)
    assert row.score.status == "error"
    lines = _retry_lines(caplog)
    # The rule of RetryPolicy: a timed-out call at temperature 0 is retried once only.
    assert requests == 2 and len(lines) == 1
    assert f"of at most {policy.max_retries}" not in lines[0]
    assert "retry 1 of at most 1" in lines[0] and "timed-out" in lines[0]


def test_a_server_error_retry_states_the_policy_budget(caplog):
    def answer(request, index):
        if index == 0:
            return [(http_response({"error": {"message": "busy"}}, status=503), 0.0)]
        return [(http_response(VERDICT), 0.0)]

    caplog.set_level(logging.INFO, logger="ragmeter.judges")
    policy = RetryPolicy(max_retries=3, initial_delay_s=0)
    with RawServer(answer) as server:
        judge = OpenAICompatibleJudge(base_url=server.url(), model="m", retry_policy=policy)
        (row,) = evaluate([Sample("Q?", "A.")], [RATING], judge=judge).rows
    assert row.score.status == "ok"
    (line,) = _retry_lines(caplog)
    assert f"retry 1 of at most {policy.max_retries}" in line


def test_the_judges_extra_installs_tqdm_and_tqdm_stays_lazy():
    import subprocess
    import sys
    import tomllib
    from pathlib import Path

    from packaging.requirements import Requirement

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    extras = tomllib.loads(pyproject.read_text())["project"]["optional-dependencies"]
    assert "tqdm" in {Requirement(r).name for r in extras["judges"]}
    # Importing the judges (and running one evaluation) must not import tqdm by itself.
    code = (
        "import sys, ragmeter.judges as j;"
        "from ragmeter.judges.testing import ScriptedJudge;"
        "m = j.RubricMetric('r', 'Rate $question.', allowed_values=[0, 1]);"
        "j.evaluate([j.Sample('q', 'a')], [m], progress=False,"
        " judge=ScriptedJudge({'rubric.r': {'value': 1, 'reason': 'r'}}));"
        "print('tqdm' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("given", [None, 1, 3])
def test_more_than_one_request_in_flight_is_said_once_with_how_to_change_it(caplog, given):
    from ragmeter.judges.testing import LoopbackOpenAIServer

    caplog.set_level(logging.INFO, logger="ragmeter.judges")
    with LoopbackOpenAIServer() as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m", max_concurrency=given)
        in_flight = judge.limits.max_concurrency
        samples = [Sample(f"q{i}", "A.", ("c.",)) for i in range(4)]
        evaluate(samples, ["context_relevancy"], judge=judge, progress=False)
    lines = [r.getMessage() for r in caplog.records if "in flight at once" in r.getMessage()]
    if in_flight == 1:
        assert lines == []
    else:
        assert given != 1 and len(lines) == 1
        assert f"up to {in_flight} requests" in lines[0] and "max_concurrency=" in lines[0]
        assert lines[0].startswith(server.base_url)


def _sent_max_tokens(**options):
    from ragmeter.judges.testing import LoopbackOpenAIServer

    with LoopbackOpenAIServer() as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m", max_concurrency=1)
        samples = [Sample("Where is Paris?", "Paris is in France.", ("Paris is in France.",))]
        evaluate(samples, ["groundedness", RATING], judge=judge, progress=False, **options)
        return [r.body.get("max_tokens", "absent") for r in server.requests]


def test_max_tokens_none_is_the_default_cap_not_no_limit():
    default = _sent_max_tokens()
    assert default and all(isinstance(limit, int) for limit in default)
    assert _sent_max_tokens(max_tokens=None) == default


def test_no_limit_is_the_named_constant():
    from ragmeter.judges import NO_MAX_TOKENS

    assert set(_sent_max_tokens(max_tokens=NO_MAX_TOKENS)) == {"absent"}


@pytest.mark.parametrize("value", [0, -1, True, "none", 2.5])
def test_a_bad_max_tokens_names_the_argument_and_the_constant(value):
    from ragmeter import RagmeterError
    from ragmeter.judges import RunSettings

    with pytest.raises(ValueError) as caught:
        RunSettings(max_tokens=value)
    assert isinstance(caught.value, RagmeterError)
    message = str(caught.value)
    assert "max_tokens" in message and repr(value) in message and "NO_MAX_TOKENS" in message


def test_the_default_caps_fit_a_verdict():
    from ragmeter.judges import RunSettings

    settings = RunSettings()
    # What a verdict needs (issue 27: the longest answer that ended by itself took 137
    # tokens; runaways to a 1,024 cap took 37-97 s on a local server).
    assert 137 < settings.token_limit(0) <= 512  # a verdict, or a short list of claims
    assert 137 < settings.token_limit(1) <= 512  # one labelled item (the split fallback)
    assert settings.token_limit(1) < settings.token_limit(5) < settings.token_limit(40)


@pytest.mark.parametrize(
    ("base_url", "expected"),
    [
        ("http://127.0.0.1:8080/v1", 300.0),
        ("http://localhost:11434/v1", 300.0),
        ("http://[::1]:8080/v1", 300.0),
        ("https://api.example.com/v1", 60.0),
        ("http://10.0.0.5:8080/v1", 60.0),
    ],
)
def test_the_default_timeout_fits_a_server_on_this_machine(base_url, expected):
    # 60 s cut off 13 of 166 requests of a run with every default against a small local model
    # (generations of 40-100 s, and time queued behind them): 300 s for this machine.
    from ragmeter.judges import OpenAICompatibleEmbedder

    judge = OpenAICompatibleJudge(base_url=base_url, model="m", api_key="k")
    embedder = OpenAICompatibleEmbedder(base_url=base_url, model="e", api_key="k")
    assert judge._http.timeout_s == expected
    assert embedder._http.timeout_s == expected
    given = OpenAICompatibleJudge(base_url=base_url, model="m", api_key="k", timeout_s=12.5)
    assert given._http.timeout_s == 12.5
