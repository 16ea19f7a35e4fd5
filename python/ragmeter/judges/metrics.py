"""The built-in judge metrics. Each returns a :class:`Score` per sample with its evidence.

Conventions shared by every metric:

- Items the judge labels (sentences, claims, chunks) are sent with ids and every id must come
  back exactly once, so the denominator is always the number of items *we* sent, never the
  number of verdicts the judge chose to return.
- An input the metric cannot score gives ``undefined`` with a reason code (``no_answer``,
  ``no_contexts``, ``no_reference``, ``no_claims``, ``no_useful_context`` ...), never 0, 1 or
  NaN in disguise.
- Sentences are split by :func:`ragmeter.judges.text.split_sentences` unless a
  ``sentence_splitter`` is given.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import Any, Literal

from ..exceptions import InvalidInputError
from .embeddings import cosine_similarity
from .prompts import (
    ANSWER_RELEVANCE_PROMPT,
    ANSWER_RELEVANCY_PROMPT,
    CLAIMS_PROMPT,
    CONTEXT_PRECISION_BATCH_PROMPT,
    CONTEXT_PRECISION_PROMPT,
    CONTEXT_RECALL_PROMPT,
    CONTEXT_RELEVANCY_PROMPT,
    FAITHFULNESS_PROMPT,
    GROUNDEDNESS_PROMPT,
    PromptTemplate,
)
from .results import Score
from .runtime import JudgeContext
from .samples import Sample
from .text import SentenceSplitter, split_sentences

__all__ = [
    "AnswerRelevanceMetric",
    "AnswerRelevancyMetric",
    "ContextPrecisionMetric",
    "ContextRecallMetric",
    "ContextRelevancyMetric",
    "FaithfulnessMetric",
    "GroundednessMetric",
    "Metric",
    "average_precision",
]


class Metric:
    """Base class of judge metrics.

    Subclasses set ``name``, ``required_fields`` (sample fields that must be non-empty, else
    the score is ``undefined`` with ``no_<field>``), ``needs_embedder``, ``agreement_level``
    (how panels compare their judges' values) and ``prompts``, and implement
    ``async score(sample, ctx)``.
    """

    name: str = "metric"
    required_fields: tuple[str, ...] = ()
    needs_embedder: bool = False
    agreement_level: Literal["nominal", "ordinal", "interval", "ratio"] = "interval"
    prompts: tuple[PromptTemplate, ...] = ()

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        raise NotImplementedError

    def missing_field(self, sample: Sample) -> str | None:
        for field in self.required_fields:
            value = getattr(sample, field)
            if value is None or (isinstance(value, str) and not value.strip()):
                return field
            if isinstance(value, tuple) and not any(c.strip() for c in value):
                return field
        return None

    def params(self) -> dict[str, Any]:
        return {}

    def describe(self) -> dict[str, Any]:
        """Name, parameters and prompt hashes, for the run manifest."""
        return {
            "name": self.name,
            "class": type(self).__name__,
            "params": self.params(),
            "prompts": {f"{p.name}@{p.version}": p.digest for p in self.prompts},
        }

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.params().items())
        return f"{type(self).__name__}({params})"


def _splitter(sentence_splitter: SentenceSplitter | None) -> SentenceSplitter:
    if sentence_splitter is not None and not callable(sentence_splitter):
        raise InvalidInputError("sentence_splitter must be a callable text -> list of sentences")
    return sentence_splitter or split_sentences


def _sentences(splitter: SentenceSplitter, text: str) -> list[str]:
    return [s.strip() for s in splitter(text) if s and s.strip()]


def _joined(contexts: Sequence[str]) -> str:
    return "\n\n".join(c.strip() for c in contexts if c.strip())


class ContextRelevancyMetric(Metric):
    """Share of context sentences the judge labels as needed to answer the question.

    ``context_relevancy = relevant sentences / context sentences`` (embedchain's formula). The
    judge labels numbered sentences ``{id, relevant, reason}`` instead of copying them out, so
    the numerator is a subset of the denominator and the value lies in [0, 1] (embedchain
    counts the sentences of whatever the model wrote, so an answer of ``""`` or a refusal
    scores above 0 and the ratio can exceed 1). Undefined (``no_contexts``) when the contexts
    hold no sentence. Sentences are split per context, in rank order.
    """

    name = "context_relevancy"
    required_fields = ("question", "contexts")

    def __init__(
        self,
        *,
        sentence_splitter: SentenceSplitter | None = None,
        prompt: PromptTemplate = CONTEXT_RELEVANCY_PROMPT,
        name: str | None = None,
    ):
        self._split = _splitter(sentence_splitter)
        self.prompt = prompt
        self.prompts = (prompt,)
        self.name = name or type(self).name

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        sentences = [s for context in sample.contexts for s in _sentences(self._split, context)]
        if not sentences:
            return Score.undefined("no_contexts", "the contexts contain no sentence")
        labels = await ctx.label_items(
            self.prompt,
            {"question": sample.question},
            sentences,
            placeholder="context",
            list_key="sentences",
        )
        relevant = sum(1 for label in labels if label["relevant"])
        return Score.ok(
            relevant / len(sentences),
            reasons=[label["reason"] for label in labels if label["relevant"]],
            evidence={
                "n_sentences": len(sentences),
                "n_relevant": relevant,
                "sentences": [
                    {"text": s, "relevant": label["relevant"], "reason": label["reason"]}
                    for s, label in zip(sentences, labels, strict=True)
                ],
            },
        )


class AnswerRelevancyMetric(Metric):
    """Mean cosine similarity between the question and questions generated from the answer.

    The judge writes ``num_questions`` questions that the answer answers (in ``language``, or
    the answer's language) and flags a noncommittal answer; both the question and the
    generated questions are embedded in one batch:
    ``answer_relevancy = mean_i cos(embed(q_i), embed(question))``, and 0 when the judge
    flags the answer noncommittal and ``penalize_noncommittal`` (ragas' rule; embedchain has
    none, so an evasive answer that restates the question scores high there). Cosines lie in
    [-1, 1]. Undefined (``zero_embedding``) when a vector has zero norm. Formula from
    embedchain and ragas (Es et al. 2024, "RAGAS", EACL demos).
    """

    name = "answer_relevancy"
    required_fields = ("question", "answer")
    needs_embedder = True

    def __init__(
        self,
        *,
        num_questions: int = 3,
        penalize_noncommittal: bool = True,
        language: str | None = None,
        prompt: PromptTemplate = ANSWER_RELEVANCY_PROMPT,
        name: str | None = None,
    ):
        if not isinstance(num_questions, int) or num_questions < 1:
            raise InvalidInputError(f"num_questions must be an integer >= 1, got {num_questions!r}")
        self.num_questions = num_questions
        self.penalize_noncommittal = penalize_noncommittal
        self.language = language
        schema = dict(prompt.schema)
        properties = dict(schema["properties"])
        properties["questions"] = {
            **properties["questions"],
            "minItems": num_questions,
            "maxItems": num_questions,
        }
        schema["properties"] = properties
        self.prompt = prompt.with_schema(schema)
        self.prompts = (self.prompt,)
        self.name = name or type(self).name

    def params(self) -> dict[str, Any]:
        return {
            "num_questions": self.num_questions,
            "penalize_noncommittal": self.penalize_noncommittal,
            "language": self.language,
        }

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        assert sample.answer is not None
        language = self.language or ctx.settings.language
        rule = f"written in {language}." if language else "in the same language as the answer."

        def nonempty(parsed: Any) -> list[str]:
            blank = [i for i, q in enumerate(parsed["questions"]) if not q.strip()]
            return [f"questions {blank} are empty; write real questions"] if blank else []

        parsed = await ctx.ask(
            self.prompt,
            {
                "answer": sample.answer,
                "num_gen_questions": self.num_questions,
                "language_rule": rule,
            },
            validate=nonempty,
        )
        questions = [q.strip() for q in parsed["questions"]]
        noncommittal = bool(parsed["noncommittal"])
        evidence: dict[str, Any] = {"generated_questions": questions, "noncommittal": noncommittal}
        if noncommittal and self.penalize_noncommittal:
            return Score.ok(
                0.0,
                reason_code="noncommittal",
                message="the judge flagged the answer as noncommittal",
                evidence=evidence,
            )
        vectors = await ctx.embed([sample.question, *questions])
        cosines = [cosine_similarity(vectors[0], v) for v in vectors[1:]]
        evidence["cosines"] = cosines
        if any(c is None for c in cosines):
            return Score.undefined(
                "zero_embedding",
                "an embedding has zero norm, so its cosine is undefined",
                evidence=evidence,
            )
        values = [c for c in cosines if c is not None]
        return Score.ok(math.fsum(values) / len(values), evidence=evidence)


async def _claims(ctx: JudgeContext, sample: Sample, prompt: PromptTemplate) -> list[str]:
    parsed = await ctx.ask(prompt, {"question": sample.question, "answer": sample.answer})
    return [c.strip() for c in parsed["claims"] if c.strip()]


class GroundednessMetric(Metric):
    """Share of the answer's claims that the judge can infer from the contexts (embedchain).

    The judge extracts claims from the answer, then gives each numbered claim a verdict 1 (can
    be inferred from the contexts), 0 (cannot) or -1 (cannot tell):
    ``groundedness = (number of verdicts equal to 1) / number of claims``. A -1 counts in the
    denominator and not in the numerator and is reported as ``n_cannot_tell`` (in embedchain a
    -1 becomes NaN and turns the whole mean NaN). Undefined (``no_claims``) when the answer
    makes no claim. With no context every claim is ungrounded (0.0, no verdict call).
    """

    name = "groundedness"
    required_fields = ("question", "answer")

    def __init__(
        self,
        *,
        claims_prompt: PromptTemplate = CLAIMS_PROMPT,
        verdicts_prompt: PromptTemplate = GROUNDEDNESS_PROMPT,
        name: str | None = None,
    ):
        self.claims_prompt = claims_prompt
        self.verdicts_prompt = verdicts_prompt
        self.prompts = (claims_prompt, verdicts_prompt)
        self.name = name or type(self).name

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        claims = await _claims(ctx, sample, self.claims_prompt)
        if not claims:
            return Score.undefined(
                "no_claims", "the answer makes no claim", evidence={"claims": []}
            )
        context = _joined(sample.contexts)
        if not context:
            return Score.ok(
                0.0,
                reason_code="no_contexts",
                message="no context, so no claim can be inferred from it",
                evidence={"claims": claims, "n_claims": len(claims), "n_supported": 0},
            )
        verdicts = await ctx.label_items(
            self.verdicts_prompt,
            {"context": context},
            claims,
            placeholder="claim_statements",
            list_key="verdicts",
        )
        supported = sum(1 for v in verdicts if v["verdict"] == 1)
        cannot_tell = sum(1 for v in verdicts if v["verdict"] == -1)
        return Score.ok(
            supported / len(claims),
            reasons=[v["reason"] for v in verdicts],
            evidence={
                "n_claims": len(claims),
                "n_supported": supported,
                "n_cannot_tell": cannot_tell,
                "claims": [
                    {"claim": c, "verdict": v["verdict"], "reason": v["reason"]}
                    for c, v in zip(claims, verdicts, strict=True)
                ],
            },
        )


class FaithfulnessMetric(Metric):
    """Share of the answer's claims that the contexts support (or, optionally, do not contradict).

    Claims are extracted as for :class:`GroundednessMetric` (the same call, shared within a run
    and through the cache), then each gets a verdict ``supported``, ``unsupported`` or
    ``contradicted``. ``mode="entailment"`` (ragas' semantics, the default):
    ``supported / claims``. ``mode="contradiction"`` (DeepEval's semantics):
    ``(claims - contradicted) / claims``, so an unsupported claim passes. Undefined
    (``no_claims``) when the answer makes no claim. With no context: 0.0 in entailment mode
    and 1.0 in contradiction mode, without a verdict call.
    """

    name = "faithfulness"
    required_fields = ("question", "answer")

    def __init__(
        self,
        *,
        mode: Literal["entailment", "contradiction"] = "entailment",
        claims_prompt: PromptTemplate = CLAIMS_PROMPT,
        verdicts_prompt: PromptTemplate = FAITHFULNESS_PROMPT,
        name: str | None = None,
    ):
        if mode not in ("entailment", "contradiction"):
            raise InvalidInputError(f"mode must be 'entailment' or 'contradiction', got {mode!r}")
        self.mode = mode
        self.claims_prompt = claims_prompt
        self.verdicts_prompt = verdicts_prompt
        self.prompts = (claims_prompt, verdicts_prompt)
        self.name = name or type(self).name

    def params(self) -> dict[str, Any]:
        return {"mode": self.mode}

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        claims = await _claims(ctx, sample, self.claims_prompt)
        if not claims:
            return Score.undefined(
                "no_claims", "the answer makes no claim", evidence={"claims": []}
            )
        context = _joined(sample.contexts)
        if not context:
            value = 0.0 if self.mode == "entailment" else 1.0
            return Score.ok(
                value,
                reason_code="no_contexts",
                message="no context: nothing supports or contradicts the claims",
                evidence={"claims": claims, "n_claims": len(claims)},
            )
        verdicts = await ctx.label_items(
            self.verdicts_prompt,
            {"context": context},
            claims,
            placeholder="claim_statements",
            list_key="verdicts",
        )
        counts = {
            label: sum(1 for v in verdicts if v["verdict"] == label)
            for label in ("supported", "unsupported", "contradicted")
        }
        if self.mode == "entailment":
            value = counts["supported"] / len(claims)
        else:
            value = (len(claims) - counts["contradicted"]) / len(claims)
        return Score.ok(
            value,
            reasons=[v["reason"] for v in verdicts],
            evidence={
                "mode": self.mode,
                "n_claims": len(claims),
                **{f"n_{k}": v for k, v in counts.items()},
                "claims": [
                    {"claim": c, "verdict": v["verdict"], "reason": v["reason"]}
                    for c, v in zip(claims, verdicts, strict=True)
                ],
            },
        )


class AnswerRelevanceMetric(Metric):
    """Direct judgement of how much of the answer addresses the question (no embeddings).

    The answer is split into sentences (statements); the judge labels each ``relevant``,
    ``partially_relevant`` or ``irrelevant``:
    ``answer_relevance = (relevant + partial_credit * partially_relevant) / statements``
    (``partial_credit`` 0.5 by default; DeepEval's answer relevancy counts a statement as
    relevant unless it is judged irrelevant, TruLens rates the whole answer on a Likert scale).
    Undefined (``no_answer``) when the answer is empty.
    """

    name = "answer_relevance"
    required_fields = ("question", "answer")

    def __init__(
        self,
        *,
        partial_credit: float = 0.5,
        sentence_splitter: SentenceSplitter | None = None,
        prompt: PromptTemplate = ANSWER_RELEVANCE_PROMPT,
        name: str | None = None,
    ):
        if not 0.0 <= partial_credit <= 1.0:
            raise InvalidInputError(f"partial_credit must lie in [0, 1], got {partial_credit!r}")
        self.partial_credit = float(partial_credit)
        self._split = _splitter(sentence_splitter)
        self.prompt = prompt
        self.prompts = (prompt,)
        self.name = name or type(self).name

    def params(self) -> dict[str, Any]:
        return {"partial_credit": self.partial_credit}

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        assert sample.answer is not None
        statements = _sentences(self._split, sample.answer)
        if not statements:
            return Score.undefined("no_answer", "the answer has no statement")
        verdicts = await ctx.label_items(
            self.prompt,
            {"question": sample.question},
            statements,
            placeholder="statements",
            list_key="verdicts",
        )
        weights = {"relevant": 1.0, "partially_relevant": self.partial_credit, "irrelevant": 0.0}
        total = math.fsum(weights[v["verdict"]] for v in verdicts)
        return Score.ok(
            total / len(statements),
            reasons=[v["reason"] for v in verdicts],
            evidence={
                "n_statements": len(statements),
                "statements": [
                    {"statement": s, "verdict": v["verdict"], "reason": v["reason"]}
                    for s, v in zip(statements, verdicts, strict=True)
                ],
            },
        )


def average_precision(useful: Sequence[bool]) -> float | None:
    """``sum_k precision@k * v_k / sum_k v_k`` over ranks k; ``None`` when no ``v_k`` is true."""
    hits = 0
    total = 0.0
    for k, v in enumerate(useful, start=1):
        if v:
            hits += 1
            total += hits / k
    return total / hits if hits else None


class ContextPrecisionMetric(Metric):
    """Are the contexts that help reach the reference answer ranked first? (needs a reference)

    The judge decides for each context chunk whether it was useful to arrive at the reference
    answer (one call per chunk, or all chunks in one call with ``batched=True``); with
    ``v_k`` = 1 for a useful chunk at rank ``k``:
    ``context_precision = sum_k precision@k * v_k / sum_k v_k`` (average precision, as in
    ragas' LLMContextPrecisionWithReference and DeepEval). Undefined (``no_useful_context``)
    when no chunk is useful (ragas returns 0 there through a 1e-10 guard).
    """

    name = "context_precision"
    required_fields = ("question", "contexts", "reference")

    def __init__(
        self,
        *,
        batched: bool = False,
        prompt: PromptTemplate = CONTEXT_PRECISION_PROMPT,
        batch_prompt: PromptTemplate = CONTEXT_PRECISION_BATCH_PROMPT,
        name: str | None = None,
    ):
        self.batched = batched
        self.prompt = prompt
        self.batch_prompt = batch_prompt
        self.prompts = (batch_prompt,) if batched else (prompt,)
        self.name = name or type(self).name

    def params(self) -> dict[str, Any]:
        return {"batched": self.batched}

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        chunks = [c for c in sample.contexts if c.strip()]
        values = {"question": sample.question, "reference": sample.reference}
        if self.batched:
            verdicts = await ctx.label_items(
                self.batch_prompt, values, chunks, placeholder="contexts", list_key="verdicts"
            )
        else:
            answers = await asyncio.gather(
                *(ctx.ask(self.prompt, {**values, "context": chunk}) for chunk in chunks)
            )
            verdicts = [{"useful": a["useful"], "reason": a["reason"]} for a in answers]
        useful = [bool(v["useful"]) for v in verdicts]
        evidence = {
            "chunks": [
                {"rank": k, "useful": v["useful"], "reason": v["reason"]}
                for k, v in enumerate(verdicts, start=1)
            ]
        }
        value = average_precision(useful)
        if value is None:
            return Score.undefined(
                "no_useful_context",
                "no context chunk is useful for the reference answer",
                evidence=evidence,
            )
        return Score.ok(value, reasons=[v["reason"] for v in verdicts], evidence=evidence)


class ContextRecallMetric(Metric):
    """Share of the reference answer's sentences that the contexts support (needs a reference).

    ``context_recall = attributed reference sentences / reference sentences`` (ragas'
    LLMContextRecall, DeepEval's contextual recall). Undefined (``no_reference``) when the
    reference has no sentence; 0.0 without any context (no call).
    """

    name = "context_recall"
    required_fields = ("question", "reference")

    def __init__(
        self,
        *,
        sentence_splitter: SentenceSplitter | None = None,
        prompt: PromptTemplate = CONTEXT_RECALL_PROMPT,
        name: str | None = None,
    ):
        self._split = _splitter(sentence_splitter)
        self.prompt = prompt
        self.prompts = (prompt,)
        self.name = name or type(self).name

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        assert sample.reference is not None
        sentences = _sentences(self._split, sample.reference)
        if not sentences:
            return Score.undefined("no_reference", "the reference answer has no sentence")
        context = _joined(sample.contexts)
        if not context:
            return Score.ok(
                0.0,
                reason_code="no_contexts",
                message="no context, so no reference sentence is attributed",
                evidence={"n_sentences": len(sentences), "n_attributed": 0},
            )
        labels = await ctx.label_items(
            self.prompt,
            {"question": sample.question, "context": context},
            sentences,
            placeholder="reference_sentences",
            list_key="sentences",
        )
        attributed = sum(1 for label in labels if label["attributed"])
        return Score.ok(
            attributed / len(sentences),
            reasons=[label["reason"] for label in labels],
            evidence={
                "n_sentences": len(sentences),
                "n_attributed": attributed,
                "sentences": [
                    {"text": s, "attributed": label["attributed"], "reason": label["reason"]}
                    for s, label in zip(sentences, labels, strict=True)
                ],
            },
        )


BUILTIN_METRICS: dict[str, type[Metric]] = {
    "context_relevancy": ContextRelevancyMetric,
    "answer_relevancy": AnswerRelevancyMetric,
    "answer_relevance": AnswerRelevanceMetric,
    "groundedness": GroundednessMetric,
    "faithfulness": FaithfulnessMetric,
    "context_precision": ContextPrecisionMetric,
    "context_recall": ContextRecallMetric,
}
