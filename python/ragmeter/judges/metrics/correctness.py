"""Answer correctness: the factual overlap of answer and reference, with their semantic similarity.

After ragas' ``AnswerCorrectness`` (explodinggradients/ragas,
``src/ragas/metrics/_answer_correctness.py``): statements are extracted from the answer and from
the reference; TP are answer statements the reference supports, FP answer statements it does
not support, FN reference statements the answer leaves out; the factual score is the F-score
``TP / (TP + 0.5 (FP + FN))`` (0 without a TP), and the metric is the weighted mean of it and
the cosine similarity of the answer's and the reference's embeddings, weights ``[0.75, 0.25]``
by default.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ...exceptions import InvalidInputError
from ..context import JudgeContext
from ..prompts import (
    ANSWER_CORRECTNESS_PROMPT,
    CLAIMS_PROMPT,
    REFERENCE_COVERAGE_PROMPT,
    PromptTemplate,
)
from ..sample import Sample
from ..score import Score
from .answer import cosine_similarity
from .base import Metric, answer_checker, label_checker

__all__ = ["AnswerCorrectnessMetric", "factual_f_score"]

_CLAIMS_CHECK = answer_checker(CLAIMS_PROMPT, "claims")
_VERDICT_CHECK = label_checker(ANSWER_CORRECTNESS_PROMPT, "verdicts", "verdict")
_PRESENT_CHECK = label_checker(REFERENCE_COVERAGE_PROMPT, "statements", "present")


def factual_f_score(tp: int, fp: int, fn: int) -> float:
    """``tp / (tp + 0.5 * (fp + fn))``, and 0.0 when ``tp`` is 0 (ragas' rule)."""
    return tp / (tp + 0.5 * (fp + fn)) if tp > 0 else 0.0


class AnswerCorrectnessMetric(Metric):
    """How correct the answer is against the reference: factual F-score and similarity.

    The judge extracts the claims of the answer and of the reference (the ``claims`` prompt,
    the answer's call shared with groundedness and faithfulness), labels each numbered answer
    claim ``supported`` or ``unsupported`` by the reference (TP, FP) and each numbered
    reference claim ``present`` in the answer or not (an absent one is a FN). With
    ``f = TP / (TP + 0.5 (FP + FN))`` (0 when TP is 0) and ``s`` the cosine of the embeddings
    of answer and reference:
    ``answer_correctness = (w_f * f + w_s * s) / (w_f + w_s)``, ``weights=(w_f, w_s)``.

    From ragas' ``AnswerCorrectness`` (``src/ragas/metrics/_answer_correctness.py``: the
    TP/FP/FN definitions of its ``CorrectnessClassifier`` prompt, ``_compute_statement_presence``
    and ``np.average([f1, similarity], weights)``, default weights ``[0.75, 0.25]``). It differs
    in that ragas asks one call to copy statements into TP/FP/FN lists, so a statement the
    judge drops or copies twice changes the counts; here every claim is sent with an id and
    checked back, so TP + FP is the number of answer claims and FN counts reference claims.
    ragas scores 1.0 when neither text has a statement; here that is ``undefined``
    (``no_claims``), and a reference without a claim is ``undefined`` (``no_reference_claims``).
    An answer without a claim has TP 0: factual score 0, without a labelling call.

    Parameters
    ----------
    weights
        ``(factual, similarity)``, non-negative, not both 0; with a similarity weight
        of 0 no embedder is needed.
    claims_prompt, verdicts_prompt, coverage_prompt
        Replacement prompts.
    name
        The metric's name in results (default ``answer_correctness``).

    Raises
    ------
    InvalidInputError
        ``weights`` not two finite non-negative numbers with a positive sum.

    Examples
    --------
    >>> from ragmeter.judges import AnswerCorrectnessMetric, Sample, ScriptedJudge, evaluate
    >>> judge = ScriptedJudge([
    ...     ("Reference statements", {"statements": [
    ...         {"id": 1, "present": True, "reason": "stated"},
    ...         {"id": 2, "present": False, "reason": "height left out"}]}),
    ...     ("Answer statements", {"verdicts": [
    ...         {"id": 1, "verdict": "supported", "reason": "same city"},
    ...         {"id": 2, "verdict": "unsupported", "reason": "wrong year"}]}),
    ...     (lambda r: "Paris. It opened in 1850." in r.first_user_message(),
    ...      {"claims": ["The tower is in Paris.", "It opened in 1850."]}),
    ...     ("claims", {"claims": ["The tower is in Paris.", "It is 330 m tall."]}),
    ... ])
    >>> sample = Sample("Where is the tower?", "Paris. It opened in 1850.",
    ...                 reference="It is in Paris and 330 m tall.")
    >>> metric = AnswerCorrectnessMetric(weights=(1.0, 0.0))  # factual part only
    >>> evaluate([sample], [metric], judge=judge, progress=False).values(
    ...     "answer_correctness")  # TP 1, FP 1, FN 1: 1 / (1 + 0.5 * 2)
    [0.5]
    """

    name = "answer_correctness"
    required_fields = ("question", "answer", "reference")

    def __init__(
        self,
        *,
        weights: Sequence[float] = (0.75, 0.25),
        claims_prompt: PromptTemplate = CLAIMS_PROMPT,
        verdicts_prompt: PromptTemplate = ANSWER_CORRECTNESS_PROMPT,
        coverage_prompt: PromptTemplate = REFERENCE_COVERAGE_PROMPT,
        name: str | None = None,
    ):
        values = list(weights) if isinstance(weights, list | tuple) else None
        if (
            values is None
            or len(values) != 2
            or not all(
                isinstance(w, int | float) and not isinstance(w, bool) and math.isfinite(w)
                for w in values
            )
            or min(values) < 0
            or sum(values) <= 0
        ):
            raise InvalidInputError(
                "weights must be two finite non-negative numbers (factual, similarity) that are "
                f"not both 0, such as (0.75, 0.25), got {weights!r}"
            )
        self.weights = (float(values[0]), float(values[1]))
        self.needs_embedder = self.weights[1] > 0
        # The factual score lies in [0, 1], the cosine in [-1, 1].
        self.value_range = (-self.weights[1] / sum(self.weights), 1.0)
        self.claims_prompt = claims_prompt
        self.verdicts_prompt = verdicts_prompt
        self.coverage_prompt = coverage_prompt
        self.prompts = (claims_prompt, verdicts_prompt, coverage_prompt)
        self.name = name or type(self).name

    def params(self) -> dict[str, Any]:
        """``weights``, for the repr and the run manifest."""
        return {"weights": list(self.weights)}

    async def _claims(self, ctx: JudgeContext, question: str, text: str) -> list[str]:
        parsed = await ctx.ask(
            self.claims_prompt, {"question": question, "answer": text}, validate=_CLAIMS_CHECK
        )
        return [c.strip() for c in parsed["claims"] if c.strip()]

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """The weighted mean of the factual F-score and the similarity (see the class)."""
        assert sample.answer is not None and sample.reference is not None
        answer_claims = await self._claims(ctx, sample.question, sample.answer)
        reference_claims = await self._claims(ctx, sample.question, sample.reference)
        evidence: dict[str, Any] = {
            "weights": list(self.weights),
            "answer_claims": answer_claims,
            "reference_claims": reference_claims,
        }
        if not reference_claims:
            reason = "no_claims" if not answer_claims else "no_reference_claims"
            return Score.undefined(
                reason, "the reference makes no claim to compare with", evidence=evidence
            )
        verdicts: list[dict[str, Any]] = []
        present: list[dict[str, Any]] = []
        if answer_claims:
            verdicts = await ctx.label_items(
                self.verdicts_prompt,
                {"question": sample.question, "reference": sample.reference},
                answer_claims,
                placeholder="claim_statements",
                list_key="verdicts",
                validate=_VERDICT_CHECK,
            )
            present = await ctx.label_items(
                self.coverage_prompt,
                {"question": sample.question, "answer": sample.answer},
                reference_claims,
                placeholder="claim_statements",
                list_key="statements",
                validate=_PRESENT_CHECK,
            )
        else:
            # Nothing in the answer to find a reference claim in: every one is a FN, no call.
            present = [
                {"id": i, "present": False, "reason": "the answer makes no claim"}
                for i, _ in enumerate(reference_claims, start=1)
            ]
        fn = sum(1 for p in present if p["present"] is not True)
        tp = sum(1 for v in verdicts if v["verdict"] == "supported")
        fp = len(verdicts) - tp
        factual = factual_f_score(tp, fp, fn)
        evidence.update(
            n_tp=tp,
            n_fp=fp,
            n_fn=fn,
            factual=factual,
            answer_claims=[
                {"claim": c, "verdict": v["verdict"], "reason": v["reason"]}
                for c, v in zip(answer_claims, verdicts, strict=True)
            ],
            reference_claims=[
                {"claim": c, "present": p["present"], "reason": p["reason"]}
                for c, p in zip(reference_claims, present, strict=True)
            ],
        )
        similarity = 0.0
        if self.weights[1] > 0:
            vectors = await ctx.embed([sample.answer, sample.reference])
            cosine = cosine_similarity(vectors[0], vectors[1])
            evidence["similarity"] = cosine
            if cosine is None:
                return Score.undefined(
                    "zero_embedding",
                    "an embedding has zero norm, so the similarity is undefined",
                    evidence=evidence,
                )
            similarity = cosine
        w_f, w_s = self.weights
        value = (w_f * factual + w_s * similarity) / (w_f + w_s)
        return Score.ok(
            value,
            reasons=[v["reason"] for v in verdicts] + [p["reason"] for p in present],
            evidence=evidence,
        )
