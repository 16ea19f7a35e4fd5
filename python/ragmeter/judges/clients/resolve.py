"""Normalise the ``judge=`` and ``embedder=`` arguments into judge and embedder objects."""

from __future__ import annotations

import inspect
from typing import Any

from ...exceptions import InvalidInputError, JudgeConfigurationError
from .chat import OpenAIClientJudge, judge_from_env
from .embeddings import OpenAIClientEmbedder, OpenAICompatibleEmbedder
from .environment import ENV_EMBEDDING_MODEL, env_value
from .protocol import Embedder, Judge, as_embedder, as_judge
from .sdk import is_openai_client

__all__ = ["embedder_from_env", "resolve_embedder", "resolve_judge"]


def resolve_judge(judge: Any) -> Judge:
    """A judge from ``judge=``.

    ``None`` reads the environment (see :func:`~ragmeter.judges.judge_from_env`); an
    ``openai.OpenAI`` or ``AsyncOpenAI`` client becomes an :class:`OpenAIClientJudge` (model from
    ``$RAGMETER_JUDGE_MODEL``); an object with an async ``complete`` and a str ``name`` is used as
    is; any other callable is wrapped by :func:`~ragmeter.judges.as_judge`.
    """
    if judge is None:
        return judge_from_env()
    if is_openai_client(judge):
        return OpenAIClientJudge(judge)
    complete = getattr(judge, "complete", None)
    if complete is not None and inspect.iscoroutinefunction(complete):
        if not isinstance(getattr(judge, "name", None), str):
            raise InvalidInputError(
                f"judge {type(judge).__name__} has no str attribute 'name' (it identifies the "
                "judge in cache keys and reports)"
            )
        return judge  # type: ignore[no-any-return]
    if callable(judge):
        return as_judge(judge)
    raise InvalidInputError(
        "judge must be a Judge, a Panel, an openai client or a callable, got "
        f"{type(judge).__name__}"
    )


def embedder_from_env(*, required_by: str = "answer_relevancy") -> OpenAICompatibleEmbedder:
    """The embedder the environment describes; the error names what to set."""
    if not env_value(ENV_EMBEDDING_MODEL):
        raise JudgeConfigurationError(
            f"{required_by} needs an embedder: pass embedder= (an OpenAICompatibleEmbedder, an "
            f"openai.OpenAI client, any callable texts -> vectors, or an embedding model name) or "
            f"set {ENV_EMBEDDING_MODEL}=<embedding model name> (the endpoint comes from "
            "OPENAI_BASE_URL / OPENAI_API_KEY like the judge's)"
        )
    return OpenAICompatibleEmbedder()


def resolve_embedder(embedder: Any, *, required_by: str = "answer_relevancy") -> Embedder:
    """Normalise ``embedder=``: None (environment), a model name, an openai client, a callable."""
    if embedder is None:
        return embedder_from_env(required_by=required_by)
    if isinstance(embedder, str):
        return OpenAICompatibleEmbedder(model=embedder)
    if is_openai_client(embedder):
        return OpenAIClientEmbedder(embedder)
    if hasattr(embedder, "embed") and inspect.iscoroutinefunction(embedder.embed):
        return embedder  # type: ignore[no-any-return]
    if callable(embedder):
        return as_embedder(embedder)
    raise InvalidInputError(
        f"embedder must be an Embedder, an openai client, a model name or a callable, got "
        f"{type(embedder).__name__}"
    )
