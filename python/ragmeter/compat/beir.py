"""BEIR's evaluation API on ragmeter's core: change
``from beir.retrieval.evaluation import EvaluateRetrieval`` to
``from ragmeter.compat.beir import EvaluateRetrieval``.

``EvaluateRetrieval.evaluate(qrels, results, k_values)`` gives BEIR's four dicts (``NDCG@k``,
``MAP@k``, ``Recall@k``, ``P@k``), each value the mean over the queries pytrec_eval evaluates
(those both judged and in ``results``) rounded to 5 decimals, as BEIR computes them:
trec_eval's ``ndcg_cut``, ``map_cut``, ``recall`` and ``P`` per query (BEIR runs pytrec_eval),
ties in scores broken as trec_eval breaks them (doc id descending). With
``ignore_identical_ids=True`` (BEIR's default) a document whose id is the query's id is
removed from ``results`` first, **in place**, as BEIR removes it (so that a following
``evaluate_custom`` on the same ``results`` sees the same rankings).

``evaluate_custom(qrels, results, k_values, metric)`` gives BEIR's custom metrics: ``MRR@k``
(``"mrr"``), ``R_cap@k`` (``"r_cap"``, capped recall: ragmeter's ``relative_precision``),
``Hole@k`` (``"hole"``) and ``Accuracy@k`` (``"acc"``, top-k accuracy: ragmeter's
``hit_rate``). As BEIR: each ranking is ordered by score with ties in the order of the
``results`` dict (BEIR's stable sort), relevant means grade > 0, a document judged for any
query counts as judged for Hole@k, and each sum is divided by the number of judged queries
(``len(qrels)``), queries absent from ``results`` adding 0.

Deliberate differences from BEIR (beir 2.x, ``beir/retrieval/evaluation.py`` and
``custom_metrics.py``):

* grades may be fractional (pytrec_eval refuses them): a grade is the gain of nDCG as given and
  a document is relevant when its grade is > 0 (BEIR's custom metrics' rule; for integer grades
  pytrec_eval's ``relevance_level=1``);
* scores are compared as doubles (trec_eval 10); pytrec_eval-terrier 0.5 compares them as
  floats, so scores closer than float32's resolution tie there;
* an input BEIR would fail on raises an :class:`~ragmeter.InvalidInputError` naming it: a query
  of ``results`` without judgments for MRR, R_cap and Accuracy (BEIR: ``KeyError``), a query
  without a relevant document for R_cap (BEIR: ``ZeroDivisionError``), no query to evaluate,
  an unknown ``metric`` (BEIR returns None).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..exceptions import InvalidInputError
from ..ranking.declarations import family
from . import pytrec_eval
from ._judged import ABOVE_ZERO, annotated_judgments, per_query, relevance_dicts

__all__ = ["EvaluateRetrieval"]

logger = logging.getLogger(__name__)

#: BEIR's names of each custom metric (``metric.lower()`` is matched), and the family it is.
_CUSTOM: dict[str, tuple[str, ...]] = {
    "mrr": ("mrr", "mrr@k", "mrr_cut"),
    "relative_precision": ("recall_cap", "r_cap", "r_cap@k"),
    "hole": ("hole", "hole@k"),
    "hit_rate": ("acc", "top_k_acc", "accuracy", "accuracy@k", "top_k_accuracy"),
}

#: evaluate()'s dicts: the family, then pytrec_eval's measure and per-query key prefix.
_EVALUATED = (
    ("ndcg_cut", "ndcg_cut", "ndcg_cut_"),
    ("map_cut", "map_cut", "map_cut_"),
    ("recall", "recall", "recall_"),
    ("precision", "P", "P_"),
)


class EvaluateRetrieval:
    """BEIR's ``EvaluateRetrieval``: a retriever's search, and the evaluation of its results.

    Parameters
    ----------
    retriever
        BEIR's search object (``DenseRetrievalExactSearch``, ``BM25Search``...), used by
        :meth:`retrieve` only; None to evaluate results only.
    k_values
        The cutoffs (``top_k`` is the largest).
    score_function
        Passed to the retriever's ``search`` (``"cos_sim"`` or ``"dot"``).

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 2}}
    >>> results = {"q1": {"d1": 0.9, "d3": 0.8, "d2": 0.1}}
    >>> ndcg, _map, recall, precision = EvaluateRetrieval.evaluate(qrels, results, [1, 3])
    >>> ndcg, precision
    ({'NDCG@1': 0.5, 'NDCG@3': 0.76019}, {'P@1': 1.0, 'P@3': 0.66667})
    >>> EvaluateRetrieval.evaluate_custom(qrels, results, [1, 3], "mrr")
    {'MRR@1': 1.0, 'MRR@3': 1.0}
    """

    def __init__(
        self,
        retriever: Any = None,
        k_values: Sequence[int] = (1, 3, 5, 10, 100, 1000),
        score_function: str | None = "cos_sim",
    ):
        self.k_values = list(k_values)
        self.top_k = max(self.k_values)
        self.retriever = retriever
        self.score_function = score_function

    def retrieve(
        self, corpus: dict[str, dict[str, str]], queries: dict[str, str], **kwargs: Any
    ) -> dict[str, dict[str, float]]:
        """The retriever's results for ``queries`` (its ``search`` with ``top_k`` and the
        score function), as BEIR's ``retrieve``."""
        if not self.retriever:
            raise InvalidInputError(
                "retriever: none was given to EvaluateRetrieval; pass one to retrieve"
            )
        results: dict[str, dict[str, float]] = self.retriever.search(
            corpus, queries, self.top_k, self.score_function, **kwargs
        )
        return results

    @staticmethod
    def evaluate(
        qrels: Mapping[Any, Mapping[Any, Any]],
        results: dict[Any, dict[Any, float]],
        k_values: Sequence[int],
        ignore_identical_ids: bool = True,
    ) -> tuple[dict[str, float], dict[str, float], dict[str, float], dict[str, float]]:
        """nDCG@k, MAP@k, Recall@k and P@k as BEIR's ``evaluate`` gives them.

        Parameters
        ----------
        qrels
            ``{query_id: {doc_id: grade}}``.
        results
            ``{query_id: {doc_id: score}}``; with ``ignore_identical_ids``, a document whose
            id is its query's id is removed from it in place.
        k_values
            The cutoffs.
        ignore_identical_ids
            Remove each query's own id from its results first (BEIR's default).

        Returns
        -------
        tuple of dict
            ``({"NDCG@k": ...}, {"MAP@k": ...}, {"Recall@k": ...}, {"P@k": ...})``, each value
            the mean over the queries both judged and in ``results``, rounded to 5 decimals.

        Raises
        ------
        InvalidInputError
            No query is both judged (with at least one judgment) and in ``results``.
        """
        qrels = relevance_dicts(qrels)
        if ignore_identical_ids:
            _pop_identical_ids(results)
        ks = _cutoffs(k_values)
        names = {f"{measure}.{','.join(map(str, ks))}" for _, measure, _ in _EVALUATED}
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, names, relevance_level=ABOVE_ZERO)
        scores = evaluator.evaluate(results)
        if not scores:
            raise InvalidInputError(
                "results: no query is both judged (in qrels, with a judgment) and in results; "
                "BEIR divides by the number of such queries"
            )
        dicts = []
        for fam, _, prefix in _EVALUATED:
            key = family(fam).beir_name
            sums = dict.fromkeys((f"{key}@{k}" for k in ks), 0.0)
            # As BEIR: added query by query, in the order pytrec_eval returns them.
            for values in scores.values():
                for k in ks:
                    sums[f"{key}@{k}"] += values[f"{prefix}{k}"]
            dicts.append({name: round(total / len(scores), 5) for name, total in sums.items()})
        return dicts[0], dicts[1], dicts[2], dicts[3]

    @staticmethod
    def evaluate_custom(
        qrels: Mapping[Any, Mapping[Any, Any]],
        results: Mapping[Any, Mapping[Any, float]],
        k_values: Sequence[int],
        metric: str,
    ) -> dict[str, float]:
        """One of BEIR's custom metrics at each cutoff: ``MRR@k``, ``R_cap@k``, ``Hole@k`` or
        ``Accuracy@k``.

        Parameters
        ----------
        qrels
            ``{query_id: {doc_id: grade}}``.
        results
            ``{query_id: {doc_id: score}}``.
        k_values
            The cutoffs.
        metric
            ``"mrr"`` (also ``"mrr@k"``, ``"mrr_cut"``), ``"r_cap"`` (``"recall_cap"``,
            ``"r_cap@k"``), ``"hole"`` (``"hole@k"``) or ``"acc"`` (``"accuracy"``,
            ``"top_k_acc"``, ``"top_k_accuracy"``, ``"accuracy@k"``), in any case.

        Returns
        -------
        dict
            ``{"MRR@k": value, ...}``: the sum over the queries of ``results`` divided by the
            number of judged queries, rounded to 5 decimals.

        Raises
        ------
        InvalidInputError
            An unknown ``metric``; a query of ``results`` without judgments (except for
            Hole); for R_cap, a query without a relevant document; no judged query.
        """
        qrels = relevance_dicts(qrels)
        if not isinstance(metric, str):
            raise InvalidInputError(f"metric must be a str, got {type(metric).__name__}")
        chosen = next((f for f, names in _CUSTOM.items() if metric.lower() in names), None)
        if chosen is None:
            known = ", ".join(repr(n) for names in _CUSTOM.values() for n in names)
            raise InvalidInputError(f"metric: unknown custom metric {metric!r}; BEIR's are {known}")
        ks = _cutoffs(k_values)
        if not qrels:
            raise InvalidInputError("qrels: no judged query; BEIR divides by len(qrels)")
        rankings = {q: _beir_order(docs, max(ks)) for q, docs in results.items()}
        judged: Mapping[Any, Mapping[Any, Any]]
        if chosen == "hole":
            judged = annotated_judgments(qrels, rankings)
        else:
            unjudged = [q for q in rankings if q not in qrels]
            if unjudged:
                raise InvalidInputError(
                    f"results: query {unjudged[0]!r} has no judgments in qrels (BEIR's "
                    f"{metric} reads qrels[query_id] for every query of results)"
                )
            judged = {q: qrels[q] for q in rankings}
        names = [f"{chosen}@{k}" for k in ks]
        values = per_query(judged, rankings, names)
        key = family(chosen).beir_name
        out = {}
        for k, name in zip(ks, names, strict=True):
            total = 0.0
            for query in rankings:
                value = values[name][query]
                if math.isnan(value):
                    raise InvalidInputError(
                        f"results: query {query!r} has no relevant document; BEIR's {key}@{k} "
                        f"divides by min(R, k) = 0 there"
                    )
                total += value
            out[f"{key}@{k}"] = round(total / len(qrels), 5)
        return out


def _cutoffs(k_values: Sequence[int]) -> list[int]:
    ks = list(k_values)
    if not ks or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in ks):
        raise InvalidInputError(
            f"k_values must be a non-empty list of positive integers, got {k_values!r}"
        )
    return ks


def _pop_identical_ids(results: dict[Any, dict[Any, float]]) -> None:
    """Remove from each query's results the document whose id is the query's, in place (BEIR
    mutates the caller's dict too)."""
    logger.info(
        "For evaluation, we ignore identical query and document ids (default), please "
        "explicitly set ``ignore_identical_ids=False`` to ignore this."
    )
    for query, docs in results.items():
        for doc in list(docs):
            if query == doc:
                docs.pop(doc)


def _beir_order(docs: Mapping[Any, float], depth: int) -> list[Any]:
    """The first ``depth`` doc ids by score, ties in the dict's order (BEIR sorts with
    Python's stable ``sorted(..., reverse=True)``)."""
    return [d for d, _ in sorted(docs.items(), key=lambda item: item[1], reverse=True)[:depth]]
