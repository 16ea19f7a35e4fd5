"""UMBRELA relevance: a grade 0-3 of one passage for one query (Upadhyay et al. 2024).

The prompt of UMBRELA (Upadhyay, Pradeep, Thakur, Craswell & Lin, "UMBRELA: UMbrela is the
(Open-Source Reproduction of the) Bing RELevance Assessor", arXiv:2406.06519, 2024; after
Thomas et al. 2023), answered as JSON (``{"value": grade, "reason": ...}``) instead of the
paper's ``##final score:`` line. Declared here, with the built-in metrics, so that
:mod:`ragmeter.judges.relevance` (which fills qrels holes with it) and ``evaluate(...,
["umbrela_relevance"])`` use the one declaration.
"""

from __future__ import annotations

from ..offline_rules import umbrela_relevance_grade
from .custom import RubricMetric

__all__ = ["UMBRELA_PROMPT", "UMBRELA_RELEVANCE", "UmbrelaRelevanceMetric"]

UMBRELA_PROMPT = """Given a query and a passage, you must provide a score on an integer scale \
of 0 to 3 with the following meanings:
0 = represent that the passage has nothing to do with the query,
1 = represents that the passage seems related to the query but does not answer it,
2 = represents that the passage has some answer for the query, but the answer may be a bit \
unclear, or hidden amongst extraneous information and
3 = represents that the passage is dedicated to the query and contains the exact answer.

Important Instruction: Assign category 1 if the passage is somewhat related to the topic but \
not completely, category 2 if passage presents something very important related to the entire \
topic but also has some extra information and category 3 if the passage only and entirely \
refers to the topic. If none of the above satisfies give it category 0.

Split this problem into steps:
Consider the underlying intent of the search.
Measure how well the content matches a likely intent of the query (M).
Measure how trustworthy the passage is (T).
Consider the aspects above and the relative importance of each, and decide on a final score \
(O). Final score must be an integer value only.

Query: $question
Passage: $contexts"""


class UmbrelaRelevanceMetric(RubricMetric):
    """How relevant the passage is to the question: the UMBRELA grade 0-3 (Upadhyay et al. 2024).

    The judge reads the question as the query and the sample's contexts as the passage (joined
    by blank lines when there are several: give one context per sample to grade passages one
    by one, as :func:`~ragmeter.judges.relevance.fill_qrels_holes` does) and answers
    ``{"value": grade, "reason": ...}``, the grade one of 0 (nothing to do with the query),
    1 (related, does not answer it), 2 (some answer, unclear or among extraneous information)
    and 3 (dedicated to the query, the exact answer). The value is the grade as a float; the
    mean over samples is a mean grade, compared between judges at the ordinal level.

    The prompt is UMBRELA's (arXiv:2406.06519, after Thomas et al. 2023: the four grades, the
    "Important Instruction" and the M/T/O steps), with the query and the passage fenced as data,
    placed after the steps (the paper puts them before: every prompt here puts its stable text
    first, so that a provider's prompt cache reuses it) and the answer asked as JSON instead of
    the paper's ``##final score:`` line; the grade is
    checked against the schema (an answer that is not one of 0-3 is re-asked, then an
    ``error`` row), never read out of free text.

    Offline, :class:`~ragmeter.judges.RuleJudge` grades by word overlap, not by meaning:
    3 when the passage holds every content word of the question, 2 when it holds at least the
    judge's ``threshold`` (0.5) of them, 1 when some, 0 when none
    (:func:`~ragmeter.judges.offline_rules.umbrela_relevance_grade`). It is there for demos,
    dry runs and tests of a pipeline; labels it gives are not relevance judgements.

    ``UMBRELA_RELEVANCE`` (in :mod:`ragmeter.judges.relevance`) is an instance of it; the name
    ``"umbrela_relevance"`` gives the same prompt, results and cache keys.

    Examples
    --------
    >>> from ragmeter.judges import Sample, ScriptedJudge, evaluate
    >>> judge = ScriptedJudge({"rubric_umbrela_relevance": {"value": 3, "reason": "exact"}})
    >>> sample = Sample("eiffel tower height", contexts=["The tower is 330 m tall."])
    >>> evaluate([sample], ["umbrela_relevance"], judge=judge, progress=False).values(
    ...     "umbrela_relevance")
    [3.0]
    """

    def __init__(self) -> None:
        super().__init__(
            "umbrela_relevance",
            UMBRELA_PROMPT,
            allowed_values=[0, 1, 2, 3],
            agreement_level="ordinal",
            version="umbrela-2024.2",
            offline_rule=umbrela_relevance_grade,
        )

    def __repr__(self) -> str:
        # The grades (params(), kept in the run manifest) are the prompt's, not an argument.
        return "UmbrelaRelevanceMetric()"


UMBRELA_RELEVANCE = UmbrelaRelevanceMetric()
