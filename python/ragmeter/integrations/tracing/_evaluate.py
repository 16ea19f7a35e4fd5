"""Evaluating the run the traces record, and Phoenix's retrieved-list nDCG (see
:mod:`ragmeter.integrations.tracing`)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from ...exceptions import InvalidInputError
from ...io import evaluate as evaluate_sources
from ...io import read_qrels
from ...manifest import measure_definition
from ...per_query import PerQueryResults, per_query_results
from ...ranking.functions import ranking_metrics
from ._read import PRODUCER, Order, QueryKey, run_from_traces

__all__ = ["evaluate_traces", "retrieved_list_ndcg"]


def retrieved_list_ndcg(
    qrels: Mapping[str, Mapping[str, float]], run: Any, k: int = 10
) -> dict[str, float]:
    """Phoenix's nDCG@k of each query: the retrieved list's relevance against the best
    reordering of the retrieved documents (not of every judged one, as trec_eval's).

    Computed by ragmeter's ``ndcg@k`` (linear gains, log2 discount, as sklearn's
    ``ndcg_score`` that Phoenix calls) with the judgments restricted to the documents the run
    retrieved: undefined (NaN) when a retrieved document has no judgment (Phoenix's NaN for an
    unevaluated document), 0 when none retrieved is relevant (sklearn's 0).

    Parameters
    ----------
    qrels
        ``{query_id: {doc_id: relevance}}`` (Phoenix's document evaluation scores).
    run
        ``{query_id: {doc_id: score}}``.
    k
        The cutoff.

    Returns
    -------
    dict
        ``{query_id: value}`` for every query of the run.

    Examples
    --------
    >>> retrieved_list_ndcg({"q": {"a": 0, "b": 1, "z": 1}}, {"q": {"a": 2.0, "b": 1.0}}, k=2)
    {'q': 0.6309297535714575}
    """
    ranked = {str(q): dict(docs) for q, docs in (run.items() if isinstance(run, Mapping) else run)}
    restricted: dict[str, dict[str, float]] = {}
    unjudged: set[str] = set()
    for query, docs in ranked.items():
        judged = qrels.get(query, {})
        restricted[query] = {d: judged[d] for d in docs if d in judged}
        if len(restricted[query]) < len(docs):
            unjudged.add(query)
    values = ranking_metrics(
        restricted,
        ranked,
        metrics=[f"ndcg@{k}"],
        average=None,
        zero_division=0.0,
        missing="zero",
    )[f"ndcg@{k}"]
    return {q: (math.nan if q in unjudged else float(values[q])) for q in ranked}


def evaluate_traces(
    traces: Any,
    qrels: Any,
    *,
    metrics: Iterable[str] = ("ndcg@10", "recall@10", "mrr"),
    query_id: QueryKey = "trace",
    order: Order = "rank",
    document_id: str | None = None,
    phoenix_ndcg: int | None = None,
    name: str | None = None,
) -> PerQueryResults:
    """Evaluate the run the traces record against judgments, with trec_eval's semantics.

    Parameters
    ----------
    traces
        A trace export's path or its span rows.
    qrels
        Judgments in any form :func:`ragmeter.io.evaluate` reads.
    metrics
        The measures (default ``ndcg@10``, ``recall@10``, ``mrr``).
    query_id, order, document_id
        As in :func:`run_from_traces`.
    phoenix_ndcg
        A cutoff k: add Phoenix's retrieved-list nDCG@k (:func:`retrieved_list_ndcg`) as the
        metric ``"ndcg@k (Phoenix: retrieved list)"``, and name trec_eval's ``ndcg@k`` (which
        must be among ``metrics``) ``"ndcg@k (trec_eval)"``, so that tables and the report
        show both, each labelled.
    name
        The system's name.

    Returns
    -------
    PerQueryResults
        One value per judged query the traces hold (the judged queries they lack are listed in
        ``missing_from_run``), with a manifest of producer ``"ragmeter.integrations.tracing"``.
    """
    run = run_from_traces(traces, query_id=query_id, order=order, document_id=document_id)
    chosen = list(metrics)
    evaluated = evaluate_sources(
        qrels, run, metrics=chosen, per_query=True, missing="skip", zero_division="trec_eval"
    )
    values = per_query_results(evaluated, name)
    manifest = values.manifest.replace(producer=PRODUCER)
    if phoenix_ndcg is None:
        return values.with_manifest(manifest)
    ours = f"ndcg@{phoenix_ndcg}"
    if ours not in values:
        raise InvalidInputError(
            f"phoenix_ndcg={phoenix_ndcg}: put {ours!r} among the metrics to show both nDCGs"
        )
    judged = {str(q): dict(d) for q, d in read_qrels(qrels).items()}
    theirs = retrieved_list_ndcg(judged, {q: run[str(q)] for q in values.query_ids}, phoenix_ndcg)
    trec_label = f"{ours} (trec_eval)"
    phoenix_label = f"{ours} (Phoenix: retrieved list)"
    columns = {(trec_label if m == ours else m): values[m] for m in values.metric_names}
    columns[phoenix_label] = {q: theirs[str(q)] for q in values.query_ids}
    measures = {(trec_label if m == ours else m): d for m, d in manifest.measures.items()}
    measures[phoenix_label] = {
        **(measure_definition(ours) or {}),
        "judgments": "restricted to the retrieved documents (Phoenix's retrieved-list nDCG: "
        "its ideal is the best reordering of what was retrieved)",
        "undefined": "NaN when a retrieved document has no judgment; 0 when none is relevant",
    }
    return PerQueryResults(
        columns,
        list(values.query_ids),
        name=values.name,
        manifest=manifest.replace(measures=measures),
        missing_from_run=values.missing_from_run,
        unjudged=values.unjudged,
    )
