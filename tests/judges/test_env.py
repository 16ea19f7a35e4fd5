"""Configuration from the environment, and nothing on the network unless a judge is configured."""

from __future__ import annotations

import subprocess
import sys

import pytest

import ragmeter
from ragmeter import JudgeConfigurationError, MissingDependencyError
from ragmeter.judges import OpenAICompatibleJudge, Sample, evaluate, judge_from_env

SAMPLE = Sample("Where is Paris?", "Paris is in France.", ("Paris is in France.",))


def test_importing_the_judges_loads_no_http_client():
    code = (
        "import sys, ragmeter, ragmeter.judges\n"
        "assert ragmeter.judges.evaluate\n"
        "heavy = ('httpx', 'openai', 'httpcore', 'pandas', 'tqdm')\n"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_import_ragmeter_does_not_import_the_judges():
    code = "import sys, ragmeter; print('ragmeter.judges' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert ragmeter.judges.Panel is not None


def test_without_any_configuration_the_error_says_what_to_set():
    with pytest.raises(JudgeConfigurationError) as caught:
        evaluate([SAMPLE], ["groundedness"])
    message = str(caught.value)
    for name in ("judge=", "RAGMETER_JUDGE_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        assert name in message


def test_api_openai_com_needs_a_key(monkeypatch):
    monkeypatch.setenv("RAGMETER_JUDGE_MODEL", "gpt-4o-mini")
    with pytest.raises(JudgeConfigurationError, match="OPENAI_API_KEY"):
        judge_from_env()


def test_the_environment_configures_a_local_endpoint(server, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("RAGMETER_JUDGE_MODEL", "local-model")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    results = evaluate([SAMPLE], ["groundedness"])
    assert results.values("groundedness") == [1.0]
    assert results.manifest["judge"] == {
        "kind": "openai_compatible",
        "name": "local-model",
        "model": "local-model",
    }
    assert results.manifest["endpoints"] == [server.base_url]
    assert server.requests[0].body["model"] == "local-model"
    assert server.requests[0].headers.get("Authorization") is None  # recorded without it
    assert "sk-from-env" not in repr(judge_from_env())


def test_the_key_from_the_environment_is_sent(monkeypatch):
    from ragmeter.judges.testing import LoopbackOpenAIServer

    with LoopbackOpenAIServer(api_key="sk-from-env") as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
        evaluate([SAMPLE], ["groundedness"], judge=judge)
        assert all(r.authorized for r in server.requests)


def test_answer_relevancy_asks_for_an_embedder(server):
    judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
    with pytest.raises(JudgeConfigurationError, match="RAGMETER_EMBEDDING_MODEL"):
        evaluate([SAMPLE], ["answer_relevancy"], judge=judge)
    assert server.requests == []


def test_a_missing_httpx_names_the_extra(server, monkeypatch):
    monkeypatch.setitem(sys.modules, "httpx", None)
    judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
    with pytest.raises(MissingDependencyError, match=r"ragmeter\[judges\]"):
        evaluate([SAMPLE], ["groundedness"], judge=judge)


def test_base_url_must_be_http():
    with pytest.raises(ValueError, match="http"):
        OpenAICompatibleJudge(base_url="127.0.0.1:8000/v1", model="m")


def test_an_openai_client_needs_a_model_name(server):
    import openai

    from ragmeter.judges import OpenAIClientJudge

    with pytest.raises(JudgeConfigurationError, match="openai client judge: pass model="):
        OpenAIClientJudge(openai.OpenAI(base_url=server.base_url, api_key="x"))


def test_a_judge_with_a_base_url_but_no_model_says_the_model_is_missing(monkeypatch):
    with pytest.raises(JudgeConfigurationError) as caught:
        OpenAICompatibleJudge(base_url="http://127.0.0.1:8000/v1")
    message = str(caught.value)
    assert "No LLM judge is configured" not in message
    assert "model=" in message and "RAGMETER_JUDGE_MODEL" in message
    assert "http://127.0.0.1:8000/v1" in message
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    with pytest.raises(JudgeConfigurationError, match="no model") as from_env:
        evaluate([SAMPLE], ["groundedness"])
    assert "No LLM judge is configured" not in str(from_env.value)
