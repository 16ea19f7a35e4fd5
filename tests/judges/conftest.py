"""Fixtures of the judge tests: a loopback OpenAI-compatible server and a hermetic environment."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ragmeter.judges.clients.chat import forget_capabilities
from ragmeter.judges.testing import LoopbackOpenAIServer

JUDGE_ENV = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "RAGMETER_JUDGE_MODEL",
    "RAGMETER_EMBEDDING_MODEL",
)


@pytest.fixture(autouse=True)
def hermetic_judge_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test may pick up a developer's real key or endpoint, or a learned capability."""
    for name in JUDGE_ENV:
        monkeypatch.delenv(name, raising=False)
    forget_capabilities()
    yield
    forget_capabilities()


@pytest.fixture
def server() -> Iterator[LoopbackOpenAIServer]:
    with LoopbackOpenAIServer() as running:
        yield running
