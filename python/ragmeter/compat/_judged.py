"""What BEIR's and mteb's drop-ins share: relevance as they read it (grade > 0), their rankings
evaluated by ragmeter's core, and the judgments BEIR's Hole@k reads (every query's)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..exceptions import InvalidInputError
from ..ranking.functions import ranking_metrics

__all__ = ["ABOVE_ZERO", "annotated_judgments", "per_query", "relevance_dicts"]

#: The relevance threshold of "grade > 0" (BEIR's and mteb's relevant documents): the smallest
#: positive double, so that a grade >= it is exactly a grade > 0, fractional grades included
#: (for integer grades, pytrec_eval's relevance_level=1).
ABOVE_ZERO = math.ulp(0.0)


def relevance_dicts(qrels: Any, argument: str = "qrels") -> Mapping[Any, Mapping[Any, Any]]:
    """``qrels`` checked to be ``{query_id: {doc_id: grade}}`` at the top level (the core checks
    the rest)."""
    if not isinstance(qrels, Mapping):
        raise InvalidInputError(
            f"{argument} must be a dict {{query_id: {{doc_id: grade}}}}, got {type(qrels).__name__}"
        )
    return qrels


def per_query(
    qrels: Mapping[Any, Mapping[Any, Any]],
    rankings: Mapping[Any, Sequence[Any] | Mapping[Any, float]],
    metrics: Sequence[str],
) -> dict[str, dict[Any, float]]:
    """Each of ``metrics`` per query of ``rankings`` (each judged in ``qrels``), relevant
    meaning grade > 0, undefined values NaN: ``{metric: {query_id: value}}``. Rankings are
    ordered lists (BEIR's order of ties) or ``{doc_id: score}`` (trec_eval's order)."""
    if not rankings:
        return {m: {} for m in metrics}
    values = ranking_metrics(
        {q: qrels[q] for q in rankings},
        rankings,
        metrics=list(metrics),
        relevance_threshold=ABOVE_ZERO,
        zero_division=math.nan,
        average=None,
    )
    return {m: dict(values[m]) for m in metrics}


def annotated_judgments(
    qrels: Mapping[Any, Mapping[Any, Any]], rankings: Mapping[Any, Iterable[Any]]
) -> dict[Any, dict[Any, Any]]:
    """Each ranked query's judgments as BEIR's Hole@k reads them: a document judged for any
    query (BEIR's "annotated corpus") is judged for every query; those the query's own
    judgments lack are added with grade 0 (they change no measure of relevance, only whether a
    document is judged). Only the ranked documents are added."""
    annotated = {doc for docs in qrels.values() for doc in docs}
    judged: dict[Any, dict[Any, Any]] = {}
    for query, ranking in rankings.items():
        own = qrels.get(query, {})
        extra = {doc: 0 for doc in ranking if doc in annotated and doc not in own}
        judged[query] = {**own, **extra}
    return judged
