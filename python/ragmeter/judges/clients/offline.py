"""A judge and an embedder that need no model: deterministic, offline, free.

- :class:`RuleJudge` answers every built-in prompt from word overlap, so whole evaluations give
  meaningful numbers offline (demos, dry runs, tests).
- :class:`HashEmbedder` embeds text as a hashed bag of words.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...exceptions import InvalidInputError
from ..prompts import parse_sections, request_schema
from ..text import content_words, split_sentences, word_tokens
from .limits import Limits, RetryPolicy
from .protocol import JudgeRequest, JudgeResponse, Usage, estimate_tokens

__all__ = ["HashEmbedder", "RuleJudge", "minimal_instance", "parse_sections"]


_REFUSAL = re.compile(
    r"\b(i don't know|i do not know|cannot answer|can't answer|no information|not sure|"
    r"unable to answer|not mentioned)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def _items(sections: Mapping[str, str], name: str) -> list[dict[str, Any]]:
    raw = sections.get(name, "[]")
    try:
        items = json.loads(raw)
    except json.JSONDecodeError:
        return []
    return [i for i in items if isinstance(i, dict) and "id" in i]


def _support(claim: str, source: str) -> float:
    words = content_words(claim)
    if not words:
        return 0.0
    return len(words & content_words(source)) / len(words)


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
    question and context (a tie when equal, in both orders). Unknown prompts get a minimal
    answer that satisfies their schema.

    Works on the request alone (task from the schema title, inputs from the ``### Name``
    sections), so it also answers through
    :class:`~ragmeter.judges.testing.LoopbackOpenAIServer`. ``evaluate(dry_run=True)`` uses it
    as the stand-in of a real judge.

    Args:
        threshold: The share of a claim's content words that must occur in the source.
        name: Its name in reports and cache keys.

    Raises:
        InvalidInputError: ``threshold`` outside (0, 1].

    Example:
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
        """The JSON answer text to ``request`` (sync; also used by the loopback server)."""
        schema = request_schema(request) or {}
        task = str(schema.get("title") or request.task)
        sections = parse_sections(request.first_user_message())
        handler: Callable[[dict[str, str], Mapping[str, Any]], Any] | None = getattr(
            self, f"_answer_{task}", None
        )
        answer = handler(sections, schema) if handler else minimal_instance(schema)
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

    def _supported(self, claim: str, source: str) -> bool:
        return _support(claim, source) >= self.threshold

    def _answer_context_relevancy_labels(self, s: dict[str, str], _: Any) -> Any:
        question = content_words(s.get("Question", ""))
        return {
            "sentences": [
                {
                    "id": item["id"],
                    "relevant": bool(content_words(item["text"]) & question),
                    "reason": "shares words with the question"
                    if content_words(item["text"]) & question
                    else "no word in common with the question",
                }
                for item in _items(s, "Context sentences")
            ]
        }

    def _answer_answer_relevancy_questions(
        self, s: dict[str, str], schema: Mapping[str, Any]
    ) -> Any:
        answer = s.get("Answer", "")
        n = int(schema.get("properties", {}).get("questions", {}).get("minItems", 1))
        sentences = split_sentences(answer) or [answer]
        questions = []
        for i in range(n):
            sentence = sentences[i % len(sentences)].rstrip(".!?").strip()
            questions.append(f"What about {sentence}?")
        return {"questions": questions, "noncommittal": bool(_REFUSAL.search(answer))}

    def _answer_claims(self, s: dict[str, str], _: Any) -> Any:
        answer = s.get("Answer", "")
        if _REFUSAL.search(answer):
            return {"claims": []}
        return {"claims": split_sentences(answer)}

    def _answer_groundedness_verdicts(self, s: dict[str, str], _: Any) -> Any:
        context = s.get("Context", "")
        verdicts = []
        for item in _items(s, "Claims"):
            if not content_words(item["text"]):
                verdict, reason = -1, "the claim has no content word"
            elif self._supported(item["text"], context):
                verdict, reason = 1, "its words occur in the context"
            else:
                verdict, reason = 0, "its words do not occur in the context"
            verdicts.append({"id": item["id"], "verdict": verdict, "reason": reason})
        return {"verdicts": verdicts}

    def _answer_faithfulness_verdicts(self, s: dict[str, str], _: Any) -> Any:
        context = s.get("Context", "")
        context_numbers = set(_NUMBER.findall(context))
        verdicts = []
        for item in _items(s, "Claims"):
            if self._supported(item["text"], context):
                numbers = set(_NUMBER.findall(item["text"]))
                if numbers - context_numbers:
                    verdict, reason = "contradicted", "the context gives other numbers"
                else:
                    verdict, reason = "supported", "its words occur in the context"
            else:
                verdict, reason = "unsupported", "its words do not occur in the context"
            verdicts.append({"id": item["id"], "verdict": verdict, "reason": reason})
        return {"verdicts": verdicts}

    def _answer_answer_relevance_verdicts(self, s: dict[str, str], _: Any) -> Any:
        question = content_words(s.get("Question", ""))
        verdicts = []
        for item in _items(s, "Statements"):
            shared = content_words(item["text"]) & question
            share = len(shared) / len(question) if question else 0.0
            verdict = (
                "relevant" if share >= 0.5 else "partially_relevant" if shared else "irrelevant"
            )
            verdicts.append(
                {"id": item["id"], "verdict": verdict, "reason": f"{len(shared)} shared words"}
            )
        return {"verdicts": verdicts}

    def _useful(self, chunk: str, reference: str) -> bool:
        return any(self._supported(sentence, chunk) for sentence in split_sentences(reference))

    def _answer_context_precision_usefulness(self, s: dict[str, str], _: Any) -> Any:
        useful = self._useful(s.get("Context", ""), s.get("Reference answer", ""))
        return {"useful": useful, "reason": "supports the reference" if useful else "does not"}

    def _answer_context_precision_verdicts(self, s: dict[str, str], _: Any) -> Any:
        reference = s.get("Reference answer", "")
        return {
            "verdicts": [
                {
                    "id": item["id"],
                    "useful": self._useful(item["text"], reference),
                    "reason": "overlap with the reference",
                }
                for item in _items(s, "Contexts")
            ]
        }

    def _answer_context_recall_attribution(self, s: dict[str, str], _: Any) -> Any:
        context = s.get("Context", "")
        return {
            "sentences": [
                {
                    "id": item["id"],
                    "attributed": self._supported(item["text"], context),
                    "reason": "word overlap with the context",
                }
                for item in _items(s, "Reference sentences")
            ]
        }

    def _answer_pairwise_preference(self, s: dict[str, str], _: Any) -> Any:
        target = content_words(s.get("Question", "") + " " + s.get("Context", ""))
        one = len(content_words(s.get("Response 1", "")) & target)
        two = len(content_words(s.get("Response 2", "")) & target)
        winner = "1" if one > two else "2" if two > one else "tie"
        return {"winner": winner, "reason": f"shared words: response 1 {one}, response 2 {two}"}


class HashEmbedder:
    """Deterministic embeddings: a hashed, signed bag of lowercased words, L2-normalised.

    Each word adds ±1 at position ``blake2b(word) mod dim``; texts sharing words have a
    positive cosine, texts without words get the zero vector.

    Args:
        dim: The vectors' length.
        name: Its name in reports and cache keys.

    Raises:
        InvalidInputError: ``dim < 2``.

    Example:
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
