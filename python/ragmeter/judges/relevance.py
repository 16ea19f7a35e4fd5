"""LLM relevance labels for the unjudged documents of a campaign (qrels holes).

The relevance judge asks the UMBRELA prompt (Upadhyay, Pradeep, Thakur, Craswell & Lin,
"UMBRELA: UMbrela is the (Open-Source Reproduction of the) Bing RELevance Assessor",
arXiv:2406.06519, 2024; after Thomas et al. 2023) for a grade 0-3 of one passage for one query,
answered as JSON (``{"value": grade, "reason": ...}``) instead of the paper's
``##final score:`` line. It is an ordinary built-in judge metric (:data:`UMBRELA_RELEVANCE`, an
:class:`~ragmeter.judges.UmbrelaRelevanceMetric`, or ``evaluate(..., ["umbrela_relevance"])``):
the same cache, dry run, costs, statuses and repeats as the others.

:func:`fill_qrels_holes` labels the documents in the top ``k`` of given runs that nobody
judged, keeps the human judgments untouched, and reports how far the LLM's labels can be
trusted: its agreement with people on a held-back sample of judged documents, the share of the
top ``k`` labelled by people and by the LLM, and Kendall's tau between the systems' order
under the human qrels alone and under the filled ones.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._files import atomic_write_text
from ..exceptions import InvalidInputError
from ..ranking.functions import ranking_metrics
from ..stats.orderings import kendall_tau
from ..stats.raters import agreement_report
from .evaluation import evaluate
from .metrics.umbrela import UMBRELA_RELEVANCE
from .results import JudgeResults
from .sample import Sample

__all__ = [
    "LLM_ITERATION",
    "UMBRELA_RELEVANCE",
    "QrelsFill",
    "fill_qrels_holes",
    "top_k_holes",
    "write_llm_qrels",
]

# The iteration column of the LLM's qrels lines: a label anyone reading the file can tell apart.
LLM_ITERATION = "llm"


def _ranking(scores: Any, argument: str) -> list[Any]:
    """Doc ids best first: a list as given, or ``{doc: score}`` by score descending, ties by
    doc id descending (trec_eval's order)."""
    if isinstance(scores, Mapping):
        return [
            d for d, _ in sorted(scores.items(), key=lambda kv: (kv[1], str(kv[0])), reverse=True)
        ]
    if isinstance(scores, Sequence) and not isinstance(scores, str | bytes):
        return list(scores)
    raise InvalidInputError(
        f"{argument} must be [doc ids, best first] or {{doc_id: score}}, got "
        f"{type(scores).__name__}"
    )


def top_k_holes(
    qrels: Mapping[Any, Mapping[Any, Any]], runs: Mapping[str, Mapping[Any, Any]], k: int
) -> list[tuple[Any, Any]]:
    """The (query, document) pairs in the top ``k`` of any run that ``qrels`` does not judge,
    in first-seen order (runs in order, queries in run order, then rank). Queries the qrels
    do not hold at all are left out: they are not part of the campaign.

    Examples
    --------
    >>> top_k_holes({"q1": {"d1": 1}}, {"bm25": {"q1": ["d1", "d2", "d3"]}}, 2)
    [('q1', 'd2')]
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInputError(f"k must be an integer >= 1, got {k!r}")
    holes: dict[tuple[Any, Any], None] = {}
    for name, run in runs.items():
        for query, scores in run.items():
            if query not in qrels:
                continue
            for doc in _ranking(scores, f"runs[{name!r}][{query!r}]")[:k]:
                if doc not in qrels[query]:
                    holes[(query, doc)] = None
    return list(holes)


@dataclass(frozen=True)
class QrelsFill:
    """What :func:`fill_qrels_holes` labelled, and how far the labels can be trusted.

    Attributes
    ----------
    llm_qrels
        ``{query: {doc: grade}}``, the LLM's labels of the holes only (the human
        qrels are not in it and were not changed).
    unlabelled
        Holes the judge gave no grade (``error`` or ``undefined`` rows).
    share
        Over the top ``k`` of every run (each (query, doc) pair once):
        ``{"human": n, "llm": n, "unlabelled": n}``.
    agreement
        :func:`~ragmeter.judges.agreement_report` (ordinal, raters
        ``["llm", "human"]``) on the held-back judged documents; ``None`` without any.
    system_tau
        Kendall's tau-b between the runs' ``measure`` under the human qrels
        (condensed lists: unjudged documents removed, Sakai 2007) and under the filled
        qrels (``None`` with fewer than two runs).
    system_scores
        ``{"human": {run: value}, "filled": {run: value}}``.
    measure
        The measure the systems are ordered by.
    results
        The :class:`JudgeResults` of every judged pair (holes and held-back).
    """

    llm_qrels: Mapping[Any, Mapping[Any, int]]
    unlabelled: Sequence[tuple[Any, Any]]
    share: Mapping[str, int]
    agreement: Mapping[str, Any] | None
    system_tau: float | None
    system_scores: Mapping[str, Mapping[str, float]]
    measure: str
    results: JudgeResults = field(repr=False)

    def filled_qrels(self, qrels: Mapping[Any, Mapping[Any, Any]]) -> dict[Any, dict[Any, Any]]:
        """A new ``{query: {doc: grade}}``: ``qrels`` plus the LLM's labels of the holes."""
        filled = {q: dict(docs) for q, docs in qrels.items()}
        for query, docs in self.llm_qrels.items():
            for doc, grade in docs.items():
                filled.setdefault(query, {}).setdefault(doc, grade)
        return filled


def write_llm_qrels(
    path: str | os.PathLike[str], llm_qrels: Mapping[Any, Mapping[Any, int]]
) -> None:
    """Write the LLM's labels as a TREC qrels file of their own, the iteration column
    :data:`LLM_ITERATION` marking every line (``q1 llm d7 2``); trec_eval ignores that column,
    so ``cat qrels.txt llm_qrels.txt`` is a filled qrels file."""
    atomic_write_text(
        path,
        "".join(
            f"{query} {LLM_ITERATION} {doc} {int(grade)}\n"
            for query, docs in llm_qrels.items()
            for doc, grade in docs.items()
        ),
    )


def _sample(
    query: Any, doc: Any, queries: Mapping[Any, str], documents: Mapping[Any, str]
) -> Sample:
    if query not in queries:
        raise InvalidInputError(f"queries has no text for query {query!r}")
    if doc not in documents:
        raise InvalidInputError(f"documents has no text for document {doc!r} (query {query!r})")
    return Sample(str(queries[query]), "", (str(documents[doc]),), id=f"{query}\t{doc}")


def fill_qrels_holes(
    qrels: Mapping[Any, Mapping[Any, Any]],
    runs: Mapping[str, Mapping[Any, Any]],
    queries: Mapping[Any, str],
    documents: Mapping[Any, str],
    *,
    judge: Any = None,
    k: int = 10,
    n_held_back: int = 50,
    measure: str | None = None,
    seed: int = 0,
    **options: Any,
) -> QrelsFill:
    """Label the unjudged documents in the top ``k`` of ``runs`` with the UMBRELA judge.

    Parameters
    ----------
    qrels
        The human judgments, ``{query: {doc: grade}}`` (never modified).
    runs
        ``{run name: {query: [doc ids, best first] or {doc: score}}}``.
    queries
        ``{query: text}``; documents: ``{doc: text}`` (the passages judged).
    judge
        Any judge ``evaluate`` takes.
    k
        The depth whose holes are filled.
    n_held_back
        Judged documents of the top ``k`` also sent to the judge (drawn with
        ``seed``), for the agreement report; 0 for none.
    measure
        The measure the systems are ordered by (default ``ndcg@k``).
    options
        Passed to :func:`~ragmeter.judges.evaluate` (``cache``, ``prices``,
        ``repeats``, ``temperature``, ``progress`` (default ``False``)...).

    Returns
    -------
    QrelsFill
        A :class:`QrelsFill`.

    Raises
    ------
    InvalidInputError
        a query or document without text, a bad ``k``.
    """
    holes = top_k_holes(qrels, runs, k)
    judged_top: dict[tuple[Any, Any], None] = {}
    for run in runs.values():
        for query, ranked in run.items():
            if query in qrels:
                for doc in _ranking(ranked, "runs")[:k]:
                    if doc in qrels[query]:
                        judged_top[(query, doc)] = None
    held_back = random.Random(seed).sample(list(judged_top), min(n_held_back, len(judged_top)))
    pairs = holes + held_back
    samples = [_sample(q, d, queries, documents) for q, d in pairs]
    # No bar unless asked for (progress=True or a callable shows how a long labelling goes).
    options.setdefault("progress", False)
    results = evaluate(samples, [UMBRELA_RELEVANCE], judge=judge, **options)
    grades = {pair: row.score.value for pair, row in zip(pairs, results.rows, strict=True)}
    llm_qrels: dict[Any, dict[Any, int]] = {}
    unlabelled = []
    for pair in holes:
        grade = grades[pair]
        if grade is None:
            unlabelled.append(pair)
        else:
            llm_qrels.setdefault(pair[0], {})[pair[1]] = round(grade)
    agreement = None
    if held_back:
        ratings = [
            [None if grades[p] is None else round(grades[p]), qrels[p[0]][p[1]]] for p in held_back
        ]
        agreement = agreement_report(ratings, level="ordinal", confidence=0.95, seed=seed)
        agreement["raters"] = ["llm", "human"]
    chosen = measure or f"ndcg@{k}"
    filled = {q: dict(docs) for q, docs in qrels.items()}
    for query, docs in llm_qrels.items():
        filled[query].update(docs)
    scores: dict[str, dict[str, float]] = {"human": {}, "filled": {}}
    for name, run in runs.items():
        kept = {q: _ranking(s, "runs") for q, s in run.items() if q in qrels}
        # Human-only: condensed lists (unjudged documents removed first, trec_eval -J; Sakai,
        # SIGIR 2007), so that holes are not read as non-relevant.
        for key, judgments, condensed in (("human", qrels, True), ("filled", filled, False)):
            value = ranking_metrics(
                judgments, kept, metrics=[chosen], missing="zero", judged_docs_only=condensed
            )[chosen]
            scores[key][name] = float(value)
    tau = None
    if len(runs) >= 2:
        names = list(runs)
        tau = kendall_tau([scores["human"][n] for n in names], [scores["filled"][n] for n in names])
    share = {
        "human": len(judged_top),
        "llm": len(holes) - len(unlabelled),
        "unlabelled": len(unlabelled),
    }
    return QrelsFill(llm_qrels, unlabelled, share, agreement, tau, scores, chosen, results)
