"""mteb's retrieval scores on ragmeter's core: the functions of
``mteb._evaluators.retrieval_metrics`` (mteb 2.x; tested against mteb 2.26.24 itself) with
their names, keys and return shapes.

:func:`retrieval_scores` gives what an mteb retrieval task reports for ``(qrels, results)``
(``ndcg_at_10``, ``map_at_10``, ``recall_at_10``, ``precision_at_10``, ``mrr_at_10``,
``hit_rate_at_10``, ``accuracy``, the ``nauc_*`` abstention scores); :class:`RetrievalEvaluator`
``.evaluate`` and :func:`calculate_retrieval_scores` the tuple behind it. Also mteb's custom
metrics per query (:func:`mrr`, :func:`recall_cap`, :func:`hole`, :func:`top_k_accuracy`),
FollowIR's p-MRR (:func:`calculate_pmrr`, :func:`evaluate_p_mrr_change`),
:func:`max_over_subqueries` and the task scores :func:`paired_accuracy` (NevIR) and
:func:`robustness_at_10` (InstructIR).

As mteb: the measures per query are trec_eval's (``ndcg_cut``, ``map_cut``, ``recall``, ``P``,
``success``, mteb runs pytrec_eval), over the queries both judged and in ``results``; ties in
scores are broken by doc id descending everywhere (trec_eval's order, which mteb's own MRR and
p-MRR follow since its PR 5136); relevant means grade > 0; means are rounded to 5 decimals
except MRR and the nAUCs. The nAUCs count each group of queries of equal confidence with the
group's mean value (mteb since 2.26.5, its PR 5613; earlier versions left tied queries out in
the order given: :func:`ragmeter.stats.normalized_abstention_auc` with ``ties="given"``).
``ignore_identical_ids`` removes a query's own id from ``results`` in place, as mteb does.

Deliberate differences from mteb: grades may be fractional (mteb casts them to int; a grade is
the gain of nDCG as given, a document relevant when its grade is > 0); scores are compared as
doubles (pytrec_eval-terrier compares floats); an input mteb would fail on raises an
:class:`~ragmeter.InvalidInputError` naming it (a query of ``results`` without judgments, a
query set the abstention scores cannot pair, ``k_values`` without 1 where ``accuracy`` reads
``recall@1``, p-MRR without a changed document); p-MRR's means are computed exactly (mteb's
go through pandas, which can differ in the last digit).
"""

from __future__ import annotations

import logging
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ..exceptions import InvalidInputError
from ..ranking.declarations import family
from ..stats.abstention import DEFAULT_ABSTENTION_RATES, normalized_abstention_auc
from . import pytrec_eval
from ._judged import ABOVE_ZERO, annotated_judgments, per_query, relevance_dicts

__all__ = [
    "RetrievalEvaluationResult",
    "RetrievalEvaluator",
    "calculate_pmrr",
    "calculate_retrieval_scores",
    "confidence_scores",
    "evaluate_abstention",
    "evaluate_p_mrr_change",
    "hole",
    "make_score_dict",
    "max_over_subqueries",
    "mrr",
    "nauc",
    "recall_cap",
    "retrieval_scores",
    "robustness_at_10",
    "top_k_accuracy",
]

logger = logging.getLogger(__name__)

#: The pytrec_eval measures behind calculate_retrieval_scores: the family, pytrec_eval's
#: measure, its per-query key prefix and mteb's internal key (``NDCG@10``).
_EVALUATED = (
    ("ndcg_cut", "ndcg_cut", "ndcg_cut_", "NDCG"),
    ("map_cut", "map_cut", "map_cut_", "MAP"),
    ("recall", "recall", "recall_", "Recall"),
    ("precision", "P", "P_", "P"),
    ("hit_rate", "success", "success_", "HitRate"),
)


class RetrievalEvaluationResult(NamedTuple):
    """mteb's ``RetrievalEvaluationResult``: every per-query value (``all_scores``, pytrec_eval's
    ``{query_id: {"ndcg_cut_10": ...}}``) and the summaries."""

    all_scores: dict[Any, dict[str, float]]
    ndcg: dict[str, float]
    map: dict[str, float]
    recall: dict[str, float]
    precision: dict[str, float]
    naucs: dict[str, float]
    mrr: dict[str, float]
    naucs_mrr: dict[str, float]
    hit_rate: dict[str, float]


class RetrievalEvaluator:
    """mteb's ``RetrievalEvaluator`` for its ``evaluate`` (the search itself is mteb's; the
    constructor's arguments are accepted and not read).

    Examples
    --------
    >>> qrels = {"0": {"0": 1, "1": 1}, "1": {"1": 1}}
    >>> results = {"0": {"0": 1.0, "1": 0.9, "2": 0.8}, "1": {"0": 0.0, "1": 1.0, "2": 0.0}}
    >>> scores = RetrievalEvaluator().evaluate(qrels, results, [1, 2, 3], ignore_identical_ids=True)
    >>> scores.ndcg
    {'NDCG@1': 0.5, 'NDCG@2': 0.30657, 'NDCG@3': 0.30657}
    """

    def __init__(self, *args: Any, **kwargs: Any):
        self.args = args
        self.kwargs = kwargs

    def evaluate(
        self,
        qrels: Mapping[Any, Mapping[Any, Any]],
        results: dict[Any, dict[Any, float]],
        k_values: Sequence[int],
        ignore_identical_ids: bool = False,
        skip_first_result: bool = False,
    ) -> RetrievalEvaluationResult:
        """:func:`calculate_retrieval_scores`, after removing each query's own id from its
        results when ``ignore_identical_ids`` (in place, as mteb)."""
        if ignore_identical_ids:
            for query, docs in results.items():
                for doc in list(docs):
                    if query == doc:
                        docs.pop(doc)
        return calculate_retrieval_scores(results, qrels, k_values, skip_first_result)


def _cutoffs(k_values: Sequence[int]) -> list[int]:
    ks = list(k_values)
    if not ks or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in ks):
        raise InvalidInputError(
            f"k_values must be a non-empty list of positive integers, got {k_values!r}"
        )
    return ks


def _keys(ks: list[int], results: Mapping[Any, Any]) -> list[int]:
    """The cutoffs mteb's per-query metrics have keys for: every one, or none without a query
    in ``results`` (mteb's lists are a defaultdict filled query by query)."""
    return ks if results else []


def _judged_queries(
    qrels: Mapping[Any, Mapping[Any, Any]], results: Mapping[Any, Any], name: str
) -> None:
    unjudged = [q for q in results if q not in qrels]
    if unjudged:
        raise InvalidInputError(
            f"results: query {unjudged[0]!r} has no judgments in qrels (mteb's {name} reads "
            f"qrels[query_id] for every query of results)"
        )


def mrr(
    qrels: Mapping[Any, Mapping[Any, Any]],
    results: Mapping[Any, Mapping[Any, float]],
    k_values: Sequence[int],
) -> dict[str, list[float]]:
    """The reciprocal rank of the first relevant document within the top k, per query of
    ``results`` (in its order): ``{"MRR@k": [value, ...]}``.

    Examples
    --------
    >>> mrr({"q1": {"d_a": 1}}, {"q1": {"d_a": 0.5, "d_x": 0.5, "d_y": 0.5}}, [10])
    {'MRR@10': [0.3333333333333333]}
    """
    qrels = relevance_dicts(qrels)
    ks = _cutoffs(k_values)
    _judged_queries(qrels, results, "mrr")
    values = per_query(qrels, results, [f"mrr@{k}" for k in ks])
    key = family("mrr").beir_name
    return {f"{key}@{k}": [values[f"mrr@{k}"][q] for q in results] for k in _keys(ks, results)}


def recall_cap(
    qrels: Mapping[Any, Mapping[Any, Any]],
    results: Mapping[Any, Mapping[Any, float]],
    k_values: Sequence[int],
) -> dict[str, list[float | None]]:
    """Capped recall, ``|relevant in top k| / min(R, k)``, per query of ``results``; None
    where the query has no relevant document: ``{"R_cap_at_k": [value, ...]}``.

    Examples
    --------
    >>> recall_cap({"q1": {"d1": 1, "d2": 1, "d3": 0}}, {"q1": {"d1": 0.9, "d2": 0.8}}, [1])
    {'R_cap_at_1': [1.0]}
    """
    qrels = relevance_dicts(qrels)
    ks = _cutoffs(k_values)
    _judged_queries(qrels, results, "recall_cap")
    values = per_query(qrels, results, [f"relative_precision@{k}" for k in ks])
    key = family("relative_precision").mteb_name
    return {
        f"{key}_at_{k}": [
            None if math.isnan(v) else v
            for v in (values[f"relative_precision@{k}"][q] for q in results)
        ]
        for k in _keys(ks, results)
    }


def hole(
    qrels: Mapping[Any, Mapping[Any, Any]],
    results: Mapping[Any, Mapping[Any, float]],
    k_values: Sequence[int],
) -> dict[str, list[float]]:
    """The share of the top k that no query's judgments name (over k), per query of
    ``results``: ``{"Hole_at_k": [value, ...]}``.

    Examples
    --------
    >>> hole({"q1": {"d1": 1}, "q2": {"d2": 0}}, {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.1}}, [3])
    {'Hole_at_3': [0.3333333333333333]}
    """
    qrels = relevance_dicts(qrels)
    ks = _cutoffs(k_values)
    judged = annotated_judgments(qrels, results)
    values = per_query(judged, results, [f"hole@{k}" for k in ks])
    key = family("hole").mteb_name
    return {f"{key}_at_{k}": [values[f"hole@{k}"][q] for q in results] for k in _keys(ks, results)}


def top_k_accuracy(
    qrels: Mapping[Any, Mapping[Any, Any]],
    results: Mapping[Any, Mapping[Any, float]],
    k_values: Sequence[int],
) -> dict[str, list[float]]:
    """mteb's top-k accuracy: 1.0 for each query of ``results`` with a relevant document in
    its top k, and, as mteb, nothing for the others (so each list holds 1.0s only; mteb's
    retrieval scores report ``hit_rate_at_k`` instead): ``{"Accuracy@k": [1.0, ...]}``.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    >>> top_k_accuracy(qrels, {"q1": {"d1": 1.0}, "q2": {"x": 1.0}}, [1])
    {'Accuracy@1': [1.0]}
    """
    qrels = relevance_dicts(qrels)
    ks = _cutoffs(k_values)
    _judged_queries(qrels, results, "top_k_accuracy")
    values = per_query(qrels, results, [f"hit_rate@{k}" for k in ks])
    key = family("hit_rate").beir_name
    out: dict[str, list[float]] = defaultdict(list)
    # Query by query, as mteb: a key appears at the first query with a hit within its k.
    for q in results:
        for k in ks:
            if values[f"hit_rate@{k}"][q] == 1.0:
                out[f"{key}@{k}"].append(1.0)
    return dict(out)


def confidence_scores(sim_scores: Sequence[float]) -> dict[str, float]:
    """mteb's confidence of one query's scores: the highest (``max``), their population
    standard deviation (``std``) and the gap between the two highest (``diff1``); all 0
    without scores.

    Examples
    --------
    >>> confidence_scores([0.2, 0.8, 0.5])["diff1"]
    0.30000000000000004
    """
    if not sim_scores:
        return {"max": 0.0, "std": 0.0, "diff1": 0.0}
    ordered = sorted(sim_scores)[::-1]
    diff1 = ordered[0] - ordered[1] if len(sim_scores) > 1 else 0.0
    return {"max": ordered[0], "std": float(np.std(sim_scores)), "diff1": diff1}


def nauc(
    conf_scores: npt.NDArray[np.floating],
    metrics: npt.NDArray[np.floating],
    abstention_rates: npt.NDArray[np.floating] = DEFAULT_ABSTENTION_RATES,
) -> float:
    """mteb's name of :func:`ragmeter.stats.normalized_abstention_auc`."""
    return normalized_abstention_auc(conf_scores, metrics, abstention_rates)


def evaluate_abstention(
    results: Mapping[Any, Mapping[Any, float]], metric_scores: Mapping[str, Sequence[float]]
) -> dict[str, float]:
    """The nAUC of each metric's per-query values (in the order of ``results``' queries) under
    each confidence of :func:`confidence_scores`: ``{"nAUC_<metric>_<max|std|diff1>": value}``.

    Raises
    ------
    InvalidInputError
        No query in ``results``, or a metric with a value count other than its query count.
    """
    if not results:
        raise InvalidInputError("results: no query, so no abstention score")
    confidences = [confidence_scores(list(docs.values())) for docs in results.values()]
    by_kind = {kind: np.array([c[kind] for c in confidences]) for kind in confidences[0]}
    out = {}
    for name, values in metric_scores.items():
        if len(values) != len(confidences):
            raise InvalidInputError(
                f"{name}: {len(values)} values for the {len(confidences)} queries of results "
                f"(a query of results without judgments is not evaluated, so its confidence "
                f"has no value to pair with)"
            )
        array = np.array(values)
        for kind, conf in by_kind.items():
            out[f"nAUC_{name}_{kind}"] = nauc(conf, array)
    return out


def _summaries(
    scores: Mapping[Any, Mapping[str, float]], ks: Sequence[int]
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, list[float]]]]:
    """mteb's parse_metrics_from_scores: each measure's mean over the queries (rounded to 5
    decimals) and its per-query values, by mteb's internal key."""
    means: dict[str, dict[str, float]] = {}
    values: dict[str, dict[str, list[float]]] = {}
    for fam, _, prefix, key in _EVALUATED:
        per = {f"{key}@{k}": [s[f"{prefix}{k}"] for s in scores.values()] for k in ks}
        values[fam] = per
        # As mteb: Python's sum, then one division.
        means[fam] = {name: round(sum(v) / len(scores), 5) for name, v in per.items()}
    return means, values


def calculate_retrieval_scores(
    results: Mapping[Any, Mapping[Any, float]],
    qrels: Mapping[Any, Mapping[Any, Any]],
    k_values: Sequence[int],
    skip_first_result: bool = False,
) -> RetrievalEvaluationResult:
    """nDCG, MAP, recall, precision and hit rate at each k (means over the queries both judged
    and in ``results``, rounded to 5 decimals), MRR (not rounded) and their nAUCs, as mteb.

    ``skip_first_result`` drops each query's best-scored document first (ties in the dict's
    order, as mteb's stable sort).

    Examples
    --------
    >>> scores = calculate_retrieval_scores({"q": {"a": 1.0, "b": 0.5}}, {"q": {"b": 1}}, [1, 2])
    >>> scores.ndcg, scores.mrr
    ({'NDCG@1': 0.0, 'NDCG@2': 0.63093}, {'MRR@1': 0.0, 'MRR@2': 0.5})
    """
    qrels = relevance_dicts(qrels)
    ks = _cutoffs(k_values)
    if skip_first_result:
        results = {
            q: dict(sorted(docs.items(), key=lambda item: item[1], reverse=True)[1:])
            for q, docs in results.items()
        }
    _judged_queries(qrels, results, "mrr")
    names = {f"{measure}.{','.join(map(str, ks))}" for _, measure, _, _ in _EVALUATED}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, names, relevance_level=ABOVE_ZERO)
    scores = evaluator.evaluate(results)
    if not scores:
        raise InvalidInputError(
            "results: no query is both judged (in qrels, with a judgment) and in results"
        )
    means, values = _summaries(scores, ks)
    mrr_scores = mrr(qrels, results, ks)
    per_measure = {
        name: v
        for fam in ("ndcg_cut", "map_cut", "recall", "precision")
        for name, v in values[fam].items()
    }
    naucs = evaluate_abstention(results, per_measure)
    naucs_mrr = evaluate_abstention(results, mrr_scores)
    avg_mrr = {name: sum(v) / len(v) for name, v in mrr_scores.items()}
    return RetrievalEvaluationResult(
        all_scores=scores,
        ndcg=means["ndcg_cut"],
        map=means["map_cut"],
        recall=means["recall"],
        precision=means["precision"],
        naucs=naucs,
        mrr=avg_mrr,
        naucs_mrr=naucs_mrr,
        hit_rate=means["hit_rate"],
    )


def make_score_dict(
    *,
    ndcg: Mapping[str, float],
    _map: Mapping[str, float],
    recall: Mapping[str, float],
    precision: Mapping[str, float],
    mrr: Mapping[str, float],
    naucs: Mapping[str, float],
    naucs_mrr: Mapping[str, float],
    hit_rate: Mapping[str, float],
    task_scores: Mapping[str, Any],
    previous_results_model_meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """mteb's score dict of a retrieval task: ``ndcg_at_10``, ``map_at_10``, ``recall_at_10``,
    ``accuracy`` (recall@1), ``precision_at_10``, ``mrr_at_10``, ``nauc_*``, ``hit_rate_at_10``
    and the task's own scores."""
    if "Recall@1" not in recall:
        raise InvalidInputError(
            "k_values: mteb's score dict reports recall@1 as 'accuracy', so k_values must include 1"
        )
    prefix = {fam: family(fam).mteb_name for fam in ("ndcg_cut", "map_cut", "recall")}

    def at(name: str, summary: Mapping[str, float]) -> dict[str, float]:
        return {f"{name}_at_{k.split('@')[1]}": v for k, v in summary.items()}

    def nauc_keys(summary: Mapping[str, float]) -> dict[str, float]:
        return {
            k.replace("@", "_at_").replace("_P", "_precision").lower(): v
            for k, v in summary.items()
        }

    return {
        **at(str(prefix["ndcg_cut"]), ndcg),
        **at(str(prefix["map_cut"]), _map),
        **at(str(prefix["recall"]), recall),
        "accuracy": recall["Recall@1"],
        **at(str(family("precision").mteb_name), precision),
        **at(str(family("mrr").mteb_name), mrr),
        **nauc_keys(naucs),
        **nauc_keys(naucs_mrr),
        **at(str(family("hit_rate").mteb_name), hit_rate),
        **task_scores,
        **(
            {"previous_results_model_meta": previous_results_model_meta}
            if previous_results_model_meta
            else {}
        ),
    }


def _score_dict(
    result: RetrievalEvaluationResult, task_scores: Mapping[str, Any]
) -> dict[str, Any]:
    return make_score_dict(
        ndcg=result.ndcg,
        _map=result.map,
        recall=result.recall,
        precision=result.precision,
        mrr=result.mrr,
        naucs=result.naucs,
        naucs_mrr=result.naucs_mrr,
        hit_rate=result.hit_rate,
        task_scores=task_scores,
    )


def retrieval_scores(
    qrels: Mapping[Any, Mapping[Any, Any]],
    results: dict[Any, dict[Any, float]],
    k_values: Sequence[int] = (1, 3, 5, 10, 20, 100, 1000),
    *,
    ignore_identical_ids: bool = False,
    skip_first_result: bool = False,
    task_scores: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The scores an mteb retrieval task reports for ``results`` (before its ``main_score``):
    :meth:`RetrievalEvaluator.evaluate` then :func:`make_score_dict`.

    Parameters
    ----------
    qrels
        ``{query_id: {doc_id: grade}}``.
    results
        ``{query_id: {doc_id: score}}`` (with ``ignore_identical_ids``, changed in place).
    k_values
        The cutoffs (mteb's retrieval tasks' default: 1, 3, 5, 10, 20, 100, 1000).
    ignore_identical_ids, skip_first_result
        As the task's attributes of those names.
    task_scores
        The task's own scores (``task_specific_scores``), added as they are.

    Returns
    -------
    dict
        ``{"ndcg_at_10": ..., "map_at_10": ..., "mrr_at_10": ..., "nauc_ndcg_at_10_max": ...}``.
    """
    result = RetrievalEvaluator().evaluate(
        qrels, results, k_values, ignore_identical_ids, skip_first_result
    )
    return _score_dict(result, task_scores or {})


def _rank_of(docs: Mapping[Any, float], doc: Any) -> tuple[int, float]:
    """mteb's get_rank_from_dict: the 1-based rank of ``doc`` by (score, id) descending (ties
    by id descending, trec_eval's order), or one past the last with score 0 when absent."""
    ordered = sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)
    for i, (other, score) in enumerate(ordered):
        if other == doc:
            return i + 1, score
    return len(ordered) + 1, 0


def _rank_score(original: int, new: int) -> float:
    """FollowIR's score of a change of rank: (1/original)/(1/new) - 1 when the document rose
    or stayed, else 1 - (1/new)/(1/original)."""
    if original >= new:
        return ((1 / original) / (1 / new)) - 1
    return 1 - ((1 / new) / (1 / original))


def calculate_pmrr(
    original_run: Mapping[str, Mapping[Any, float]],
    new_run: Mapping[str, Mapping[Any, float]],
    changed_qrels: Mapping[str, Sequence[Any]],
) -> float:
    """p-MRR (FollowIR): how the documents whose relevance an instruction changed move between
    the run with the original instruction (query ``<id>-og``) and the run with the changed one
    (``<id>-changed``), the mean over the queries of each query's mean change score.

    Weller, Chang, MacAvaney, Lo, Cohan, Van Durme, Lawrie and Soldaini, "FollowIR: Evaluating
    and Teaching Information Retrieval Models to Follow Instructions", NAACL 2025.

    Examples
    --------
    >>> original = {"a-og": {"0": 1, "1": 2, "2": 3, "3": 4}}
    >>> calculate_pmrr(original, {"a-changed": {"0": 4, "1": 1, "2": 2, "3": 3}}, {"a": ["0"]})
    -0.75
    """
    by_query: dict[str, list[float]] = {}
    for query, changed in changed_qrels.items():
        if query + "-og" not in original_run or query + "-changed" not in new_run:
            logger.warning(f"Query {query} not found in the runs for calculating p-MRR")
            continue
        before, after = original_run[query + "-og"], new_run[query + "-changed"]
        for doc in changed:
            score = _rank_score(_rank_of(before, doc)[0], _rank_of(after, doc)[0])
            by_query.setdefault(query, []).append(score)
    if not by_query:
        raise InvalidInputError(
            "changed_qrels: no changed document of a query in both runs, so no p-MRR"
        )
    means = [math.fsum(v) / len(v) for v in by_query.values()]
    return math.fsum(means) / len(means)


def evaluate_p_mrr_change(
    qrels: Mapping[str, Mapping[Any, Any]],
    results: Mapping[str, Mapping[Any, float]],
    changed_qrels: Mapping[str, Sequence[Any]],
    k_values: Sequence[int],
) -> dict[str, Any]:
    """FollowIR's scores: ``{"p-MRR": value, "og": {...}, "changed": {...}}``, the score dicts of
    the queries with the original instruction (ids ending in ``-og``) and of the others."""
    qrels = relevance_dicts(qrels)
    qrels_of = {
        "og": {q: v for q, v in qrels.items() if q.endswith("-og")},
        "changed": {q: v for q, v in qrels.items() if not q.endswith("-og")},
    }
    runs: dict[str, dict[str, Mapping[Any, float]]] = {"og": {}, "changed": {}}
    for query, docs in results.items():
        runs["og" if query.endswith("-og") else "changed"][query] = docs
    scores: dict[str, Any] = {"p-MRR": calculate_pmrr(runs["og"], runs["changed"], changed_qrels)}
    for name in ("og", "changed"):
        result = calculate_retrieval_scores(runs[name], qrels_of[name], k_values)
        scores[name] = _score_dict(result, {})
    return scores


def max_over_subqueries(
    qrels: Mapping[str, Mapping[Any, Any]],
    results: Mapping[str, Mapping[Any, float]],
    k_values: Sequence[int],
) -> dict[str, Any]:
    """The scores of the queries merged from their subqueries (ids ``<base>_<n>``): each
    document scored by its highest score over the subqueries, judged by the last subquery's
    judgments (mteb: "all the same"); the keys of :func:`make_score_dict` prefixed with
    ``max_over_subqueries_``."""
    qrels = relevance_dicts(qrels)
    groups: dict[str, list[str]] = defaultdict(list)
    for query in qrels:
        groups["_".join(query.split("_")[:-1])].append(query)
    merged: dict[str, dict[Any, float]] = {}
    merged_qrels: dict[str, Mapping[Any, Any]] = {}
    for base, queries in groups.items():
        best: dict[Any, float] = {}
        for query in queries:
            if query not in results:
                raise InvalidInputError(
                    f"results: subquery {query!r} has no results (max_over_subqueries reads "
                    f"every subquery of qrels)"
                )
            for doc, score in results[query].items():
                best[doc] = score if doc not in best else max(score, best[doc])
        merged[base] = best
        merged_qrels[base] = qrels[queries[-1]]
    result = calculate_retrieval_scores(merged, merged_qrels, k_values)
    return {"max_over_subqueries_" + k: v for k, v in _score_dict(result, {}).items()}


def _measure_of(
    scores: Mapping[Any, Mapping[str, float]], query: Any, measure: str, function: str
) -> float:
    if query not in scores or measure not in scores[query]:
        raise InvalidInputError(
            f"scores: no {measure!r} for query {query!r} (mteb's {function} reads it; scores "
            f"are calculate_retrieval_scores(...).all_scores with {measure!r} among them)"
        )
    return scores[query][measure]


def paired_accuracy(
    qrels: Mapping[str, Mapping[Any, Any]],
    results: Mapping[str, Mapping[Any, float]],
    scores: Mapping[str, Mapping[str, float]],
) -> float:
    """NevIR's paired accuracy, as mteb: the share of the instances (query ids ``<key>_q1`` and
    ``<key>_q2``, ``<key>`` the part of each id of ``qrels`` before its first ``_``) whose two
    queries both have recall@1 = 1 in ``scores`` (pytrec_eval's per-query values, ``recall_1``:
    :attr:`RetrievalEvaluationResult.all_scores`). ``results`` is not read (mteb's signature).

    Weller, Lawrie and Van Durme, "NevIR: Negation in Neural Information Retrieval", EACL 2024
    (arXiv 2305.07614).

    Examples
    --------
    >>> scores = {"a_q1": {"recall_1": 1.0}, "a_q2": {"recall_1": 1.0}, "b_q1": {"recall_1": 1.0},
    ...           "b_q2": {"recall_1": 0.0}}
    >>> paired_accuracy({q: {} for q in scores}, {}, scores)
    0.5
    """
    keys = dict.fromkeys(str(q).split("_")[0] for q in relevance_dicts(qrels))
    if not keys:
        raise InvalidInputError("qrels: no query, so no instance to score")
    both = [
        all(
            _measure_of(scores, f"{key}_{half}", "recall_1", "paired_accuracy") == 1
            for half in ("q1", "q2")
        )
        for key in keys
    ]
    return sum(both) / len(both)


def robustness_at_10(
    qrels: Mapping[str, Mapping[Any, Any]],
    results: Mapping[str, Mapping[Any, float]],
    scores: Mapping[str, Mapping[str, float]],
) -> float:
    """InstructIR's robustness@10, as mteb: the mean over the instances (the queries of
    ``qrels`` grouped by the part of their id before the first ``_``) of the lowest nDCG@10
    among each instance's queries (``ndcg_cut_10`` in ``scores``, pytrec_eval's per-query
    values: :attr:`RetrievalEvaluationResult.all_scores`). ``results`` is not read (mteb's
    signature).

    Oh, Lee, Ko, Kim, Lee, Kim and Lee, "INSTRUCTIR: A Benchmark for Instruction Following of
    Information Retrieval Models" (arXiv 2402.14334).

    Examples
    --------
    >>> scores = {"a_1": {"ndcg_cut_10": 0.5}, "a_2": {"ndcg_cut_10": 0.25},
    ...           "b_1": {"ndcg_cut_10": 1.0}}
    >>> robustness_at_10({q: {} for q in scores}, {}, scores)
    0.625
    """
    groups: dict[str, list[float]] = defaultdict(list)
    for query in relevance_dicts(qrels):
        value = _measure_of(scores, query, "ndcg_cut_10", "robustness_at_10")
        groups[str(query).split("_")[0]].append(value)
    if not groups:
        raise InvalidInputError("qrels: no query, so no instance to score")
    # As mteb: Python's sum of the minima, then one division.
    return sum(min(values) for values in groups.values()) / len(groups)
