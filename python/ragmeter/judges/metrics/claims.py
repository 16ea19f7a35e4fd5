"""Metrics of the answer's claims against the contexts: groundedness and faithfulness.

Both extract the answer's claims with the same prompt (one call, shared within a run and through
the cache), then ask for one verdict per numbered claim.
"""

from __future__ import annotations

from typing import Any, Literal

from ...exceptions import InvalidInputError
from ..context import JudgeContext
from ..prompts import CLAIMS_PROMPT, FAITHFULNESS_PROMPT, GROUNDEDNESS_PROMPT, PromptTemplate
from ..sample import Sample
from ..score import Score
from ..text import joined_contexts
from .base import Metric, answer_checker, label_checker

__all__ = ["FaithfulnessMetric", "GroundednessMetric"]


_CLAIMS_CHECK = answer_checker(CLAIMS_PROMPT, "claims")
_GROUNDEDNESS_CHECK = label_checker(GROUNDEDNESS_PROMPT, "verdicts", "verdict")
_FAITHFULNESS_CHECK = label_checker(FAITHFULNESS_PROMPT, "verdicts", "verdict")


async def _claims(ctx: JudgeContext, sample: Sample, prompt: PromptTemplate) -> list[str]:
    parsed = await ctx.ask(
        prompt,
        {"question": sample.question, "answer": sample.answer},
        validate=_CLAIMS_CHECK,
    )
    return [c.strip() for c in parsed["claims"] if c.strip()]


class GroundednessMetric(Metric):
    """Share of the answer's claims that the judge can infer from the contexts (embedchain).

    The judge extracts claims from the answer, then gives each numbered claim a verdict 1 (can
    be inferred from the contexts), 0 (cannot) or -1 (cannot tell):
    ``groundedness = (number of verdicts equal to 1) / number of claims``. A -1 counts in the
    denominator and not in the numerator and is reported as ``n_cannot_tell`` (in embedchain a
    -1 becomes NaN and turns the whole mean NaN). Undefined (``no_claims``) when the answer
    makes no claim. With no context every claim is ungrounded (0.0, no verdict call).

    Parameters
    ----------
    claims_prompt, verdicts_prompt
        Replacement prompts (embedchain's placeholders).
    name
        The metric's name in results (default ``groundedness``).
    """

    name = "groundedness"
    value_range = (0.0, 1.0)
    required_fields = ("question", "answer", "contexts")
    empty_allowed = ("contexts",)

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
        """The share of claims that can be inferred from the contexts (see the class)."""
        claims = await _claims(ctx, sample, self.claims_prompt)
        if not claims:
            return Score.undefined(
                "no_claims", "the answer makes no claim", evidence={"claims": []}
            )
        context = joined_contexts(sample.contexts)
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
            validate=_GROUNDEDNESS_CHECK,
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

    Parameters
    ----------
    mode
        ``"entailment"`` or ``"contradiction"``.
    claims_prompt, verdicts_prompt
        Replacement prompts.
    name
        The metric's name in results (default ``faithfulness``).

    Raises
    ------
    InvalidInputError
        an unknown mode.
    """

    name = "faithfulness"
    value_range = (0.0, 1.0)
    required_fields = ("question", "answer", "contexts")
    empty_allowed = ("contexts",)

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
        """``mode``, for the repr and the run manifest."""
        return {"mode": self.mode}

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """The share of claims the contexts support (or do not contradict; see the class)."""
        claims = await _claims(ctx, sample, self.claims_prompt)
        if not claims:
            return Score.undefined(
                "no_claims", "the answer makes no claim", evidence={"claims": []}
            )
        context = joined_contexts(sample.contexts)
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
            validate=_FAITHFULNESS_CHECK,
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
