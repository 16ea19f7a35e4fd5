"""Metrics of the answer against the question: answer relevancy (embeddings) and relevance."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ...exceptions import InvalidInputError
from ..context import JudgeContext
from ..prompts import ANSWER_RELEVANCE_PROMPT, ANSWER_RELEVANCY_PROMPT, PromptTemplate
from ..sample import Sample
from ..score import Score
from ..text import SentenceSplitter, resolve_splitter, sentences_of
from .base import Metric, answer_checker, label_checker

__all__ = ["AnswerRelevanceMetric", "AnswerRelevancyMetric", "cosine_similarity"]

_QUESTIONS_CHECK = answer_checker(ANSWER_RELEVANCY_PROMPT, "questions", "noncommittal")
_RELEVANCE_CHECK = label_checker(ANSWER_RELEVANCE_PROMPT, "verdicts", "verdict")


def cosine_similarity(a: Sequence[float], b: Sequence[float]) -> float | None:
    """``a . b / (|a| |b|)``; ``None`` when either vector has zero norm (undefined)."""
    if len(a) != len(b):
        raise InvalidInputError(
            f"cosine_similarity needs vectors of equal length, got {len(a)} and {len(b)}"
        )
    dot = math.fsum(x * y for x, y in zip(a, b, strict=True))
    norm_a = math.sqrt(math.fsum(x * x for x in a))
    norm_b = math.sqrt(math.fsum(y * y for y in b))
    if norm_a == 0.0 or norm_b == 0.0:
        return None
    return max(-1.0, min(1.0, dot / (norm_a * norm_b)))


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

    Parameters
    ----------
    num_questions
        How many questions the judge writes.
    penalize_noncommittal
        Score a noncommittal answer 0.
    language
        The language of the generated questions (default: the answer's).
    prompt
        A replacement prompt.
    name
        The metric's name in results (default ``answer_relevancy``).

    Raises
    ------
    InvalidInputError
        ``num_questions < 1``.
    """

    name = "answer_relevancy"
    value_range = (-1.0, 1.0)
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
        """``num_questions``, ``penalize_noncommittal`` and ``language``, for the manifest."""
        return {
            "num_questions": self.num_questions,
            "penalize_noncommittal": self.penalize_noncommittal,
            "language": self.language,
        }

    def prompt_values(self, answer: str, language: str | None) -> dict[str, Any]:
        """The values of the question-generation prompt for ``answer`` (``language``: the
        run's language, used when the metric sets none)."""
        language = self.language or language
        rule = f"written in {language}." if language else "in the same language as the answer."
        return {"answer": answer, "num_gen_questions": self.num_questions, "language_rule": rule}

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """The mean cosine of the generated questions to the question (see the class)."""
        assert sample.answer is not None

        def nonempty(parsed: Any) -> list[str]:
            problems = list(_QUESTIONS_CHECK(parsed))
            if problems:
                return problems
            blank = [i for i, q in enumerate(parsed["questions"]) if not q.strip()]
            return [f"questions {blank} are empty; write real questions"] if blank else []

        parsed = await ctx.ask(
            self.prompt,
            self.prompt_values(sample.answer, ctx.settings.language),
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


class AnswerRelevanceMetric(Metric):
    """Direct judgement of how much of the answer addresses the question (no embeddings).

    The answer is split into sentences (statements); the judge labels each ``relevant``,
    ``partially_relevant`` or ``irrelevant``:
    ``answer_relevance = (relevant + partial_credit * partially_relevant) / statements``
    (``partial_credit`` 0.5 by default; DeepEval's answer relevancy counts a statement as
    relevant unless it is judged irrelevant, TruLens rates the whole answer on a Likert scale).
    Undefined (``no_answer``) when the answer is empty.

    Parameters
    ----------
    partial_credit
        The weight of a partially relevant statement, in [0, 1].
    sentence_splitter
        ``text -> sentences`` for the answer.
    prompt
        A replacement prompt.
    name
        The metric's name in results (default ``answer_relevance``).

    Raises
    ------
    InvalidInputError
        ``partial_credit`` outside [0, 1].
    """

    name = "answer_relevance"
    value_range = (0.0, 1.0)
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
        self._split = resolve_splitter(sentence_splitter)
        self.prompt = prompt
        self.prompts = (prompt,)
        self.name = name or type(self).name

    def params(self) -> dict[str, Any]:
        """``partial_credit``, for the repr and the run manifest."""
        return {"partial_credit": self.partial_credit}

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """The share of the answer's statements that address the question (see the class)."""
        assert sample.answer is not None
        statements = sentences_of(self._split, sample.answer)
        if not statements:
            return Score.undefined("no_answer", "the answer has no statement")
        verdicts = await ctx.label_items(
            self.prompt,
            {"question": sample.question},
            statements,
            placeholder="statements",
            list_key="verdicts",
            validate=_RELEVANCE_CHECK,
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
