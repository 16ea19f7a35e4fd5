"""A judge and an embedder that need no model: deterministic, offline, free.

- :class:`RuleJudge` answers every built-in prompt from word overlap, so whole evaluations give
  meaningful numbers offline (demos, dry runs, tests); a prompt declaring no offline rule is
  refused.
- :class:`HashEmbedder` embeds text as a hashed bag of words.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ...exceptions import InvalidInputError
from ..injection import data_blocks
from ..offline_rules import NoOfflineRuleError, OfflineRequest
from ..prompts import offline_rule_for, parse_sections, request_schema
from ..text import word_tokens
from .limits import Limits, RetryPolicy
from .protocol import JudgeRequest, JudgeResponse, Usage, estimate_tokens

__all__ = ["HashEmbedder", "RuleJudge", "minimal_instance", "parse_sections"]


def minimal_instance(schema: Mapping[str, Any]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0]
    if kind == "object":
        props = schema.get("properties") or {}
        return {
            name: minimal_instance(props.get(name, {})) for name in schema.get("required") or props
        }
    if kind == "array":
        return [
            minimal_instance(schema.get("items") or {})
            for _ in range(int(schema.get("minItems", 0)))
        ]
    if kind == "string":
        return "ok"
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    return None


class RuleJudge:
    """A deterministic judge for every built-in prompt, from word overlap.

    Content words are lowercased word tokens minus English stopwords. A claim (or reference
    sentence) is supported when at least ``threshold`` of its content words occur in the
    source; it is contradicted when it is supported but holds a number that the source does
    not. A sentence is relevant to a question when they share a content word. Claims are the
    answer's sentences (none for a refusal); generated questions rewrite the answer's sentences
    as questions; a pairwise verdict prefers the response sharing more content words with the
    question and context (a tie when equal, in both orders). A passage's UMBRELA relevance grade
    is lexical too: 3 when it holds every content word of the query, 2 when it holds at least
    ``threshold`` of them, 1 when some, 0 when none.

    Each rule is named by its prompt's declaration (``PromptTemplate(offline_rule=...)``, see
    :mod:`ragmeter.judges.offline_rules`). A prompt that declares none (a new metric's, a
    ``RubricMetric``'s, raw ``judge_json`` messages) is refused with
    :class:`~ragmeter.judges.offline_rules.NoOfflineRuleError` naming the prompt (in a run: an
    ``error`` row, ``judge_exception``), never answered with filler that looks like a verdict.

    Works on the request alone (task from the schema title, inputs from the ``### Name``
    sections), so it also answers through
    :class:`~ragmeter.judges.testing.LoopbackOpenAIServer`. ``evaluate(dry_run=True)`` uses it
    as the stand-in of a real judge.

    Parameters
    ----------
    threshold
        The share of a claim's content words that must occur in the source.
    name
        Its name in reports and cache keys.

    Raises
    ------
    InvalidInputError
        ``threshold`` outside (0, 1].

    Examples
    --------
    >>> from ragmeter.judges import RuleJudge, Sample, evaluate
    >>> sample = Sample("Where is the Eiffel Tower?",
    ...                 "The Eiffel Tower is in Paris. It opened in 1850.",
    ...                 ["The Eiffel Tower, in Paris, opened in 1889."])
    >>> results = evaluate([sample], ["faithfulness"], judge=RuleJudge(), progress=False)
    >>> [c["verdict"] for c in results.rows[0].score.evidence["claims"]]
    ['supported', 'contradicted']
    """

    def __init__(self, *, threshold: float = 0.5, name: str = "rule-judge"):
        if not 0.0 < threshold <= 1.0:
            raise InvalidInputError(f"threshold must lie in (0, 1], got {threshold!r}")
        self.threshold = threshold
        self.name = name
        self.limits = Limits(max_concurrency=64)
        self.retry_policy = RetryPolicy(initial_delay_s=0.0, max_delay_s=0.0)

    @property
    def identity(self) -> dict[str, Any]:
        """The non-secret facts that identify it in cache keys and manifests."""
        return {"kind": "rule", "name": self.name, "threshold": self.threshold}

    def __repr__(self) -> str:
        return f"RuleJudge(threshold={self.threshold}, name={self.name!r})"

    def respond(self, request: JudgeRequest) -> str:
        """The JSON answer text to ``request`` (sync; also used by the loopback server).

        Raises
        ------
        NoOfflineRuleError
            the request's prompt declares no offline rule.
        """
        schema = request_schema(request) or {}
        task = str(schema.get("title") or request.task)
        rule = offline_rule_for(task)
        if rule is None:
            raise NoOfflineRuleError(
                f"RuleJudge has no offline rule for the prompt {request.task!r} (answer schema "
                f"titled {task!r}): it answers only prompts whose PromptTemplate declares "
                "offline_rule= (the built-in metrics' prompts do), never with made-up filler. "
                "Declare one with PromptTemplate(..., offline_rule=fn), where fn takes a "
                "ragmeter.judges.offline_rules.OfflineRequest and returns the answer, or judge "
                "this metric with a ScriptedJudge or a real judge"
            )
        text = request.first_user_message()
        answer = rule(
            OfflineRequest(parse_sections(text), schema, self.threshold, dict(data_blocks(text)))
        )
        return json.dumps(answer, ensure_ascii=False)

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """The answer to ``request``, with estimated token usage."""
        text = self.respond(request)
        return JudgeResponse(
            text=text,
            usage=Usage(
                estimate_tokens(request.prompt_text()), estimate_tokens(text), estimated=True
            ),
            model=self.name,
        )


class HashEmbedder:
    """Deterministic embeddings: a hashed, signed bag of lowercased words, L2-normalised.

    Each word adds ±1 at position ``blake2b(word) mod dim``; texts sharing words have a
    positive cosine, texts without words get the zero vector.

    Parameters
    ----------
    dim
        The vectors' length.
    name
        Its name in reports and cache keys.

    Raises
    ------
    InvalidInputError
        ``dim < 2``.

    Examples
    --------
    >>> from ragmeter.judges import HashEmbedder, cosine_similarity
    >>> texts = ["Paris, France", "France Paris", ""]
    >>> same, reordered, empty = HashEmbedder().embed_sync(texts)
    >>> round(cosine_similarity(same, reordered), 4)  # the same bag of words
    1.0
    >>> print(cosine_similarity(same, empty))  # no word: the zero vector, cosine undefined
    None
    """

    def __init__(self, dim: int = 256, *, name: str = "hash-embedder"):
        if not isinstance(dim, int) or dim < 2:
            raise InvalidInputError(f"dim must be an integer >= 2, got {dim!r}")
        self.dim = dim
        self.name = name
        self.limits = Limits(max_concurrency=64)
        self.calls = 0

    @property
    def identity(self) -> dict[str, Any]:
        """The non-secret facts that identify it in cache keys and manifests."""
        return {"kind": "hash", "name": self.name, "dim": self.dim}

    def __repr__(self) -> str:
        return f"HashEmbedder(dim={self.dim})"

    def embed_one(self, text: str) -> list[float]:
        """The vector of one text."""
        vector = [0.0] * self.dim
        for word in word_tokens(text):
            digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            vector[value % self.dim] += 1.0 if (value >> 63) & 1 else -1.0
        norm = math.sqrt(sum(x * x for x in vector))
        return [x / norm for x in vector] if norm else vector

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """The vectors of ``texts`` (counts a call in ``calls``)."""
        self.calls += 1
        return [self.embed_one(t) for t in texts]

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """The vectors of ``texts``."""
        await asyncio.sleep(0)
        return self.embed_sync(texts)
