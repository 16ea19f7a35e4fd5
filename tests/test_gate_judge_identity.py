"""Issue 50 item 3: a stored gate baseline of a judged evaluation compares with the next run of
the same model and prompts served on another port (the docs' LoopbackOpenAIServer, a CI service
container, picks a free port each run); another model is refused, and the error names
``identity=``."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragmeter.exceptions import InvalidInputError
from ragmeter.judges import OpenAICompatibleJudge, Sample, evaluate
from ragmeter.judges.testing import LoopbackOpenAIServer
from ragmeter.testing import BaselineStore, assert_not_worse

SAMPLES = [
    Sample(f"Where is sight {i}?", "It is in Paris.", [f"Sight {i} is in Paris."])
    for i in range(12)
]


def _judged(model: str, identity: str | None = None):  # type: ignore[no-untyped-def]
    # A new server for every run: a new port, as in CI.
    with LoopbackOpenAIServer() as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model=model, identity=identity)
        results = evaluate(SAMPLES, ["groundedness"], judge=judge, progress=False)
        return results, server.base_url


def test_a_baseline_compares_with_the_same_model_on_another_port(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    first, first_url = _judged("qwen2.5-1.5b")
    store.save("judged", first)
    second, second_url = _judged("qwen2.5-1.5b")
    assert first_url != second_url  # the premise: another port
    assert first.manifest["judge"] == {
        "kind": "openai_compatible",
        "name": "qwen2.5-1.5b",
        "model": "qwen2.5-1.5b",
    }
    assert second.manifest["endpoints"] == [second_url]  # recorded, not compared
    result = assert_not_worse(second, store.load("judged"), metric="groundedness", margin=0.05)
    assert result.passed


def test_another_model_is_refused_naming_identity(tmp_path: Path) -> None:
    store = BaselineStore(tmp_path)
    store.save("judged", _judged("qwen2.5-1.5b")[0])
    other, _ = _judged("llama-3.2-3b")
    with pytest.raises(InvalidInputError, match=r"judge\.name: .*identity=") as raised:
        assert_not_worse(other, store.load("judged"), metric="groundedness", margin=0.05)
    assert "'qwen2.5-1.5b' vs 'llama-3.2-3b'" in str(raised.value)
    # identity= given on one run only (it names the model behind the endpoint): refused too.
    named, _ = _judged("qwen2.5-1.5b", identity="qwen2.5-1.5b-instruct-q4_k_m")
    with pytest.raises(
        InvalidInputError, match=r"judge\.identity \(only one has it\).*identity= given"
    ):
        assert_not_worse(named, store.load("judged"), metric="groundedness", margin=0.05)
