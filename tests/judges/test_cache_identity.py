"""identity= stands for the endpoint in cache keys: the same server on another port is a hit."""

from __future__ import annotations

import pytest

from ragmeter import InputTypeError, InvalidInputError, RagmeterError
from ragmeter.judges import (
    OpenAIClientEmbedder,
    OpenAIClientJudge,
    OpenAICompatibleEmbedder,
    OpenAICompatibleJudge,
    Sample,
    evaluate,
)
from ragmeter.judges.engine.cache import JudgeCache
from ragmeter.judges.testing import LoopbackOpenAIServer

SAMPLES = [
    Sample("Where is Paris?", "Paris is in France.", ("Paris is in France.",), id="a"),
    Sample("Who wrote Hamlet?", "Shakespeare.", ("Hamlet is by Shakespeare.",), id="b"),
]
METRICS = ["groundedness", "answer_relevancy"]


def run(server, cache, identity=None):
    judge = OpenAICompatibleJudge(base_url=server.base_url, model="m", identity=identity)
    embedder = OpenAICompatibleEmbedder(base_url=server.base_url, model="e", identity=identity)
    return evaluate(SAMPLES, METRICS, judge=judge, embedder=embedder, cache=cache, progress=False)


def scores(results):
    return [(r.sample_id, r.metric, r.score.value) for r in results.rows]


def test_the_same_identity_on_another_port_makes_no_call(tmp_path):
    cache = str(tmp_path / "judge.sqlite")
    with LoopbackOpenAIServer() as first, LoopbackOpenAIServer() as second:
        assert first.base_url != second.base_url  # two ports
        before = run(first, cache, identity="loopback-rule-judge")
        assert first.count("chat") > 0 and first.count("embeddings") > 0
        after = run(second, cache, identity="loopback-rule-judge")
        assert (second.count("chat"), second.count("embeddings")) == (0, 0)
    assert scores(after) == scores(before)
    usage = after.total_usage()
    assert (usage.calls, usage.embedding_calls) == (0, 0)
    assert after.cache_summary()["without_call"] == len(after.rows)


def test_without_identity_another_port_is_another_endpoint(tmp_path):
    cache = str(tmp_path / "judge.sqlite")
    with LoopbackOpenAIServer() as first, LoopbackOpenAIServer() as second:
        run(first, cache)
        again = run(second, cache)
        assert second.count("chat") > 0 and second.count("embeddings") > 0
    assert again.total_usage().calls > 0
    # Another identity is another model, wherever it is served.
    with LoopbackOpenAIServer() as third:
        run(third, cache, identity="one")
        made = third.count("chat")
        run(third, cache, identity="another")
        assert third.count("chat") == 2 * made


def test_identity_replaces_the_url_in_the_identity_and_keeps_the_endpoint_for_limits():
    judge = OpenAICompatibleJudge(
        base_url="http://127.0.0.1:8080/v1", model="m", identity="qwen2.5-7b-q4"
    )
    assert judge.identity == {
        "kind": "openai_compatible",
        "name": "m",
        "identity": "qwen2.5-7b-q4",
        "model": "m",
    }
    assert judge.base_url == "http://127.0.0.1:8080/v1"  # still where requests go
    plain = OpenAICompatibleJudge(base_url="http://127.0.0.1:8080/v1", model="m")
    assert plain.identity["base_url"] == "http://127.0.0.1:8080/v1"
    assert "identity" not in plain.identity
    embedder = OpenAICompatibleEmbedder(
        base_url="http://127.0.0.1:8081/v1", model="e", identity="bge"
    )
    assert embedder.identity == {
        "kind": "openai_compatible",
        "name": "e",
        "identity": "bge",
        "model": "e",
    }


class _Client:
    """The least of an openai client the clients read."""

    base_url = "http://127.0.0.1:9999/v1"

    class chat:
        class completions:
            @staticmethod
            def create(**body):
                raise AssertionError("not called")

    class embeddings:
        @staticmethod
        def create(**body):
            raise AssertionError("not called")


def test_the_openai_client_classes_take_an_identity():
    assert OpenAIClientJudge(_Client(), model="m", identity="x").identity["identity"] == "x"
    assert OpenAIClientEmbedder(_Client(), model="e", identity="y").identity["identity"] == "y"
    assert "base_url" in OpenAIClientJudge(_Client(), model="m").identity


@pytest.mark.parametrize(
    ("identity", "error"),
    [("", InvalidInputError), ("   ", InvalidInputError), (7, InputTypeError)],
)
def test_a_bad_identity_is_refused_naming_it(identity, error):
    with pytest.raises(error) as raised:
        OpenAICompatibleJudge(base_url="http://127.0.0.1:8080/v1", model="m", identity=identity)
    assert isinstance(raised.value, RagmeterError)
    assert "identity=" in str(raised.value) and repr(identity) in str(raised.value)
    with pytest.raises(error):
        OpenAICompatibleEmbedder(base_url="http://127.0.0.1:8080/v1", model="e", identity=identity)


def test_the_key_material_is_what_the_docs_say(tmp_path):
    """The cache key is the sha256 of the kind, the client's identity, the request's messages,
    schema, temperature, seed, max_tokens and n_index (and repeat when > 0)."""
    from ragmeter.judges.clients.protocol import JudgeRequest
    from ragmeter.judges.engine.cache import cache_key
    from ragmeter.judges.engine.runtime import Runtime

    judge = OpenAICompatibleJudge(base_url="http://127.0.0.1:8080/v1", model="m", identity="q")
    request = JudgeRequest(({"role": "user", "content": "hi"},), {"type": "object"})
    expected = cache_key(
        {
            "kind": "chat",
            "judge": {"kind": "openai_compatible", "name": "m", "identity": "q", "model": "m"},
            "messages": [{"role": "user", "content": "hi"}],
            "schema": {"type": "object"},
            "temperature": 0.0,
            "seed": 0,
            "max_tokens": None,
            "n_index": 0,
        }
    )
    assert Runtime(cache=JudgeCache(":memory:")).chat_key(judge, request) == expected
