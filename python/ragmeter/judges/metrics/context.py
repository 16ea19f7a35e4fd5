"""Metrics of the retrieved contexts: relevancy of their sentences, precision and recall.

Conventions shared by the built-in metrics: items the judge labels (sentences, claims, chunks)
are sent with ids and every id must come back exactly once, so a denominator is always the
number of items *sent*, never the number of verdicts the judge chose to return; an input a metric
cannot score gives ``undefined`` with a reason code, never 0, 1 or NaN in disguise; sentences are
split by :func:`ragmeter.judges.text.split_sentences` unless a ``sentence_splitter`` is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..context import JudgeContext
from ..engine.tasks import gather_all
from ..prompts import (
    CONTEXT_PRECISION_BATCH_PROMPT,
    CONTEXT_PRECISION_PROMPT,
    CONTEXT_RECALL_PROMPT,
    CONTEXT_RELEVANCY_PROMPT,
    PromptTemplate,
)
from ..sample import Sample
from ..score import Score
from ..text import SentenceSplitter, joined_contexts, resolve_splitter, sentences_of
from .base import Metric, answer_checker, label_checker

__all__ = [
    "ContextPrecisionMetric",
    "ContextRecallMetric",
    "ContextRelevancyMetric",
    "average_precision",
]

_RELEVANCY_CHECK = label_checker(CONTEXT_RELEVANCY_PROMPT, "sentences", "relevant")
_USEFUL_CHECK = answer_checker(CONTEXT_PRECISION_PROMPT, "useful", "reason")
_USEFUL_BATCH_CHECK = label_checker(CONTEXT_PRECISION_BATCH_PROMPT, "verdicts", "useful")
_RECALL_CHECK = label_checker(CONTEXT_RECALL_PROMPT, "sentences", "attributed")


class ContextRelevancyMetric(Metric):
    """Share of context sentences the judge labels as needed to answer the question.

    ``context_relevancy = relevant sentences / context sentences`` (embedchain's formula). The
    judge labels numbered sentences ``{id, relevant, reason}`` instead of copying them out, so
    the numerator is a subset of the denominator and the value lies in [0, 1] (embedchain
    counts the sentences of whatever the model wrote, so an answer of ``""`` or a refusal
    scores above 0 and the ratio can exceed 1). Undefined (``no_contexts``) when the contexts
    hold no sentence. Sentences are split per context, in rank order.

    Parameters
    ----------
    sentence_splitter
        ``text -> sentences`` (default: a regex splitter, no downloads).
    prompt
        A replacement :class:`~ragmeter.judges.PromptTemplate` (same placeholders).
    name
        The metric's name in results (default ``context_relevancy``).

    Examples
    --------
    >>> from ragmeter.judges import ContextRelevancyMetric, RuleJudge, Sample, evaluate
    >>> sample = Sample("Where is Paris?", contexts=["Paris is in France. Cats sleep a lot."])
    >>> evaluate([sample], [ContextRelevancyMetric()], judge=RuleJudge(),
    ...          progress=False).values("context_relevancy")  # 1 of 2 sentences
    [0.5]
    """

    name = "context_relevancy"
    value_range = (0.0, 1.0)
    required_fields = ("question", "contexts")

    def __init__(
        self,
        *,
        sentence_splitter: SentenceSplitter | None = None,
        prompt: PromptTemplate = CONTEXT_RELEVANCY_PROMPT,
        name: str | None = None,
    ):
        self._split = resolve_splitter(sentence_splitter)
        self.prompt = prompt
        self.prompts = (prompt,)
        self.name = name or type(self).name

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """The share of context sentences needed to answer the question (see the class)."""
        sentences = [
            s for context in sample.contexts or () for s in sentences_of(self._split, context)
        ]
        if not sentences:
            return Score.undefined("no_contexts", "the contexts contain no sentence")
        labels = await ctx.label_items(
            self.prompt,
            {"question": sample.question},
            sentences,
            placeholder="context",
            list_key="sentences",
            validate=_RELEVANCY_CHECK,
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

    Parameters
    ----------
    batched
        All chunks in one labelling call instead of one call per chunk.
    prompt, batch_prompt
        Replacement prompts for the two forms.
    name
        The metric's name in results (default ``context_precision``).
    """

    name = "context_precision"
    value_range = (0.0, 1.0)
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
        """``batched``, for the repr and the run manifest."""
        return {"batched": self.batched}

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """The average precision of the useful chunks, in rank order (see the class)."""
        chunks = [c for c in sample.contexts or () if c.strip()]
        values = {"question": sample.question, "reference": sample.reference}
        if self.batched:
            verdicts = await ctx.label_items(
                self.batch_prompt,
                values,
                chunks,
                placeholder="contexts",
                list_key="verdicts",
                validate=_USEFUL_BATCH_CHECK,
            )
        else:
            answers = await gather_all(
                *(
                    ctx.ask(self.prompt, {**values, "context": chunk}, validate=_USEFUL_CHECK)
                    for chunk in chunks
                )
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

    Parameters
    ----------
    sentence_splitter
        ``text -> sentences`` for the reference.
    prompt
        A replacement prompt.
    name
        The metric's name in results (default ``context_recall``).
    """

    name = "context_recall"
    value_range = (0.0, 1.0)
    required_fields = ("question", "reference", "contexts")
    empty_allowed = ("contexts",)

    def __init__(
        self,
        *,
        sentence_splitter: SentenceSplitter | None = None,
        prompt: PromptTemplate = CONTEXT_RECALL_PROMPT,
        name: str | None = None,
    ):
        self._split = resolve_splitter(sentence_splitter)
        self.prompt = prompt
        self.prompts = (prompt,)
        self.name = name or type(self).name

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """The share of reference sentences the contexts support (see the class)."""
        assert sample.reference is not None
        sentences = sentences_of(self._split, sample.reference)
        if not sentences:
            return Score.undefined("no_reference", "the reference answer has no sentence")
        context = joined_contexts(sample.contexts)
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
            validate=_RECALL_CHECK,
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
