"""Pairwise preference between two answers, always judged in both orders.

Judges favour the answer shown first (in MT-Bench's GPT-4 judgements 12.9% of verdicts flip
when the order is swapped; lm-sys/FastChat#3911), so every pair is judged as (A, B) and as
(B, A) under the neutral labels "Response 1" and "Response 2". Consistent verdicts give the
winner; inconsistent ones give a tie, counted as a position flip.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ...exceptions import InvalidInputError
from ..context import JudgeContext
from ..engine.tasks import gather_all
from ..prompts import PAIRWISE_PREFERENCE_PROMPT, PromptTemplate
from ..sample import Sample
from ..score import Score
from ..text import joined_contexts
from .base import Metric, answer_checker

__all__ = ["DEFAULT_CRITERIA", "PairwisePreferenceMetric", "reconcile_orders"]

DEFAULT_CRITERIA = (
    "Which response answers the question more correctly, completely and helpfully, using only "
    "information supported by the context when a context is given?"
)
WINNER_VALUE = {"A": 1.0, "B": 0.0, "tie": 0.5}
_WINNER_CHECK = answer_checker(PAIRWISE_PREFERENCE_PROMPT, "winner", "reason")


def _majority(labels: Sequence[str]) -> str:
    counts = Counter(labels).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return "tie"
    return counts[0][0]


def reconcile_orders(first: str, second: str) -> tuple[str, bool]:
    """Winner (``"A"``, ``"B"`` or ``"tie"``) and whether the two orders disagreed.

    ``first`` is the verdict with A shown as Response 1, ``second`` with B shown as Response 1;
    each is ``"1"``, ``"2"`` or ``"tie"``.
    """
    a_first = {"1": "A", "2": "B", "tie": "tie"}[first]
    b_first = {"1": "B", "2": "A", "tie": "tie"}[second]
    if a_first == b_first:
        return a_first, False
    return "tie", True


class PairwisePreferenceMetric(Metric):
    """Which of ``answer`` (A) and ``answer_b`` (B) is better, judged in both orders.

    Each order is asked ``repeats`` times (``n_index`` 0..repeats-1; a majority, tie on a
    split); the two orders are reconciled by :func:`reconcile_orders`. Value: 1.0 when A wins,
    0.0 when B wins, 0.5 for a tie, so the mean is A's win rate with ties counted half. The
    summary adds wins, ties, the position-flip rate and the rate at which the first-shown
    response won. Practice from Zheng et al. (2023), "Judging LLM-as-a-Judge", NeurIPS.

    Parameters
    ----------
    criteria
        What "better" means, shown to the judge.
    repeats
        Verdicts per order (a majority decides).
    prompt
        A replacement prompt.
    name
        The metric's name in results (default ``pairwise_preference``).

    Raises
    ------
    InvalidInputError
        ``repeats < 1``.
    """

    name = "pairwise_preference"
    value_range = (0.0, 1.0)
    required_fields = ("question", "answer", "answer_b")
    agreement_level = "nominal"

    def __init__(
        self,
        *,
        criteria: str = DEFAULT_CRITERIA,
        repeats: int = 1,
        prompt: PromptTemplate = PAIRWISE_PREFERENCE_PROMPT,
        name: str | None = None,
    ):
        if not isinstance(repeats, int) or repeats < 1:
            raise InvalidInputError(f"repeats must be an integer >= 1, got {repeats!r}")
        self.criteria = criteria
        self.repeats = repeats
        self.prompt = prompt
        self.prompts = (prompt,)
        self.name = name or type(self).name

    def params(self) -> dict[str, Any]:
        """``criteria`` and ``repeats``, for the repr and the run manifest."""
        return {"criteria": self.criteria, "repeats": self.repeats}

    async def score(self, sample: Sample, ctx: JudgeContext) -> Score:
        """1.0 when A wins, 0.0 when B wins, 0.5 for a tie, judged in both orders."""
        context = joined_contexts(sample.contexts) or "(no context given)"
        base = {"criteria": self.criteria, "question": sample.question, "context": context}
        orders = {"AB": (sample.answer, sample.answer_b), "BA": (sample.answer_b, sample.answer)}
        calls = [
            ctx.ask(
                self.prompt,
                {**base, "response_1": r1, "response_2": r2},
                n_index=i,
                validate=_WINNER_CHECK,
            )
            for order, (r1, r2) in orders.items()
            for i in range(self.repeats)
        ]
        answers = await gather_all(*calls)
        ab = answers[: self.repeats]
        ba = answers[self.repeats :]
        first = _majority([a["winner"] for a in ab])
        second = _majority([a["winner"] for a in ba])
        winner, flipped = reconcile_orders(first, second)
        verdicts = [{"order": "AB", "winner": a["winner"], "reason": a["reason"]} for a in ab] + [
            {"order": "BA", "winner": a["winner"], "reason": a["reason"]} for a in ba
        ]
        return Score.ok(
            WINNER_VALUE[winner],
            reasons=[v["reason"] for v in verdicts],
            reason_code="position_inconsistent" if flipped else None,
            evidence={
                "winner": winner,
                "position_inconsistent": flipped,
                "verdict_ab": first,
                "verdict_ba": second,
                "first_position_wins": sum(1 for v in verdicts if v["winner"] == "1"),
                "n_verdicts": len(verdicts),
                "verdicts": verdicts,
            },
        )

    @staticmethod
    def summarize_extra(scores: Sequence[Score]) -> Mapping[str, Any]:
        """Wins, ties, position flips and the first-position win rate over the ok scores."""
        ok = [s for s in scores if s.status == "ok"]
        winners = Counter(s.evidence.get("winner") for s in ok)
        judgements = sum(int(s.evidence.get("n_judgements", 1)) for s in ok)
        flips = sum(
            int(
                s.evidence.get("position_flips", int(bool(s.evidence.get("position_inconsistent"))))
            )
            for s in ok
        )
        verdicts = sum(int(s.evidence.get("n_verdicts", 0)) for s in ok)
        first_wins = sum(int(s.evidence.get("first_position_wins", 0)) for s in ok)
        return {
            "wins_a": winners.get("A", 0),
            "wins_b": winners.get("B", 0),
            "ties": winners.get("tie", 0),
            "position_flips": flips,
            "flip_rate": flips / judgements if judgements else None,
            "first_position_win_rate": first_wins / verdicts if verdicts else None,
        }
