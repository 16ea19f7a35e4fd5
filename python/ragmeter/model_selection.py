"""Choosing among a grid search's candidates with the per-query values, paired by query.

A grid search (:class:`sklearn.model_selection.GridSearchCV`) keeps one mean per candidate and
split: it cannot say whether the best candidate is better than a simpler one or only luckier on
these queries. :func:`per_query_scores` gives every candidate's value of every query, scored
out of fold (each query by the candidate fitted on the folds without it, the search's own
splits), and :func:`simplest_not_worse` makes the choice in one call: the simplest candidate
that the paired test (:func:`ragmeter.compare_many`, every candidate against the best, corrected
over the candidates) does not find significantly worse than the best. It is the rule "prefer the
simpler model unless the data show it worse" (the "one standard error" rule of Breiman et al.,
*Classification and Regression Trees*, 1984, with a paired test in place of the standard error).

Needs scikit-learn (the ``sklearn`` extra).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ._optional import import_optional
from .exceptions import InputTypeError, InvalidInputError

__all__ = ["ModelChoice", "per_query_scores", "simplest_not_worse"]


def _search_parts(search: Any) -> tuple[Any, list[dict[str, Any]], Any]:
    results = getattr(search, "cv_results_", None)
    if results is None or "params" not in results:
        raise InvalidInputError(
            "search: a fitted GridSearchCV (or RandomizedSearchCV) is needed: call "
            "search.fit(X, y) first"
        )
    return search.estimator, list(results["params"]), search.cv


def per_query_scores(
    search: Any,
    X: Sequence[Any],
    y: Sequence[Any],
    *,
    measure: str,
    query_ids: Sequence[Any] | None = None,
    **options: Any,
) -> dict[int, dict[Any, float]]:
    """Every candidate's value of ``measure`` on every query, out of fold.

    For each candidate of the fitted ``search`` and each split of its ``cv`` (the same splits
    the search used when ``cv`` is an int or a splitter without shuffling, or one with a
    ``random_state``), a clone of the estimator with the candidate's parameters is fitted on
    the training queries and ranks the held-out ones, scored per query by
    :func:`ragmeter.ranking_metrics` (``average=None``). That is one fit per candidate and
    split, as the search made.

    Parameters
    ----------
    search
        A fitted ``GridSearchCV`` or ``RandomizedSearchCV`` over an estimator whose
        ``predict(queries)`` returns one ranking per query (``RetrievalEstimator``).
    X, y
        The queries and their judgments, as given to ``search.fit``.
    measure
        A ranking measure (``"ndcg@10"``), as for :func:`~ragmeter.get_corpus_scorer`.
    query_ids
        The queries' ids (default: their positions in ``X``).
    **options
        Options of :func:`~ragmeter.ranking_metrics` (``relevance_threshold=2``...).

    Returns
    -------
    dict
        ``{candidate index: {query id: value}}``, the index of ``cv_results_["params"]``.

    Raises
    ------
    InvalidInputError
        A search that was not fitted, ``X``, ``y`` and ``query_ids`` of different lengths,
        repeated query ids, a query held out by no split.
    MissingDependencyError
        scikit-learn is not installed (``pip install 'ragmeter[sklearn]'``).
    """
    model_selection = import_optional(
        "sklearn.model_selection", extra="sklearn", purpose="Model selection"
    )
    base = import_optional("sklearn.base", extra="sklearn", purpose="Model selection")
    from .ranking import ranking_metrics

    estimator, candidates, cv = _search_parts(search)
    queries, judgments = list(X), list(y)
    ids = list(range(len(queries))) if query_ids is None else list(query_ids)
    if not len(queries) == len(judgments) == len(ids):
        raise InvalidInputError(
            f"X, y and query_ids: {len(queries)}, {len(judgments)} and {len(ids)} items; give "
            "one judgment and one id per query"
        )
    if len(set(ids)) != len(ids):
        raise InvalidInputError("query_ids: each query once")
    splits = list(model_selection.check_cv(cv).split(queries, judgments))
    held_out = {int(i) for _, test in splits for i in test}
    if len(held_out) != len(ids):
        raise InvalidInputError(
            f"search.cv: {len(ids) - len(held_out)} queries are held out by no split (each "
            "query needs an out-of-fold value: use KFold-like splits)"
        )
    scores: dict[int, dict[Any, float]] = {}
    for index, params in enumerate(candidates):
        values: dict[Any, float] = {}
        for train, test in splits:
            model = base.clone(estimator).set_params(**params)
            model.fit([queries[i] for i in train], [judgments[i] for i in train])
            rankings = model.predict([queries[i] for i in test])
            qrels = {ids[i]: judgments[i] for i in test}
            run = {ids[i]: ranking for i, ranking in zip(test, rankings, strict=True)}
            per_query = ranking_metrics(qrels, run, metrics=[measure], average=None, **options)
            values.update({q: float(v) for q, v in per_query[measure].items()})
        scores[index] = {q: values[q] for q in ids if q in values}
    return scores


@dataclass(frozen=True)
class ModelChoice:
    """The choice of :func:`simplest_not_worse`.

    Parameters
    ----------
    index, params
        The chosen candidate (its index in ``cv_results_["params"]``) and its parameters.
    best_index
        The candidate with the highest mean of the per-query values (the first on a tie).
    comparison
        Every other candidate against the best, paired by query
        (:class:`~ragmeter.MultipleComparison`; systems are named ``"candidate <index>"``).
    per_query
        ``{candidate index: {query id: value}}`` (:func:`per_query_scores`).
    order
        The candidates from the simplest, as ``simpler`` ordered them.
    """

    index: int
    params: Mapping[str, Any]
    best_index: int
    comparison: Any
    per_query: Mapping[int, Mapping[Any, float]]
    order: tuple[int, ...]


def _name(index: int) -> str:
    return f"candidate {index}"


def simplest_not_worse(
    search: Any,
    X: Sequence[Any],
    y: Sequence[Any],
    *,
    measure: str,
    simpler: Callable[[Mapping[str, Any]], Any] | str,
    test: str = "sign-flip",
    correction: str | None = "holm",
    alpha: float = 0.05,
    query_ids: Sequence[Any] | None = None,
    random_state: int | None = 0,
    **options: Any,
) -> ModelChoice:
    """The simplest candidate of a grid search not significantly worse than the best, paired
    by query.

    Every candidate's out-of-fold per-query values (:func:`per_query_scores`) are compared with
    the best candidate's (the highest mean) by :func:`ragmeter.compare_many` with the best as
    the baseline: a paired ``test`` on the same queries, p-values corrected over the candidates
    (``correction``). A candidate is significantly worse when its difference from the best is
    negative and its corrected p-value is at most ``alpha``; the choice is the first candidate
    in the order of ``simpler`` that is not (the best itself, at the latest).

    Parameters
    ----------
    search
        A fitted ``GridSearchCV`` or ``RandomizedSearchCV``.
    X, y
        The queries and judgments given to ``search.fit``.
    measure
        The ranking measure compared (``"ndcg@10"``).
    simpler
        What "simpler" means: a parameter's name (its smaller value is simpler: ``"top_k"``)
        or a key function of a candidate's parameters (smaller is simpler), for
        ``sorted``; candidates it ranks equal keep the grid's order.
    test, correction, alpha
        As for :func:`ragmeter.compare_many`.
    query_ids
        The queries' ids (default: their positions).
    random_state
        The seed of a sampled test.
    **options
        Options of :func:`~ragmeter.ranking_metrics`.

    Returns
    -------
    ModelChoice
        The choice, the comparison behind it and the per-query values.

    Raises
    ------
    InvalidInputError
        As :func:`per_query_scores`; ``simpler`` names a parameter some candidate lacks.
    InputTypeError
        ``simpler`` neither a str nor a callable.

    Examples
    --------
    >>> from sklearn.model_selection import GridSearchCV, KFold
    >>> from ragmeter import RetrievalEstimator, get_corpus_scorer
    >>> from ragmeter.demo import load_demo_corpus
    >>> corpus, queries, judgments = load_demo_corpus()
    >>> X, y = list(queries.values()), [judgments[q] for q in queries]
    >>> grid = {"top_k": [1, 2, 3, 5, 10]}
    >>> search = GridSearchCV(RetrievalEstimator(documents=corpus), grid,
    ...                       scoring=get_corpus_scorer("ndcg@10"), cv=KFold(4)).fit(X, y)
    >>> choice = simplest_not_worse(search, X, y, measure="ndcg@10", simpler="top_k",
    ...                             query_ids=list(queries))
    >>> search.best_params_, dict(choice.params)
    ({'top_k': 2}, {'top_k': 1})
    >>> item = choice.comparison["candidate 0"]["ndcg@10"]  # top_k=1 against the best
    >>> round(item.delta, 4), item.n_pairs, item.significant(0.05)
    (-0.0363, 24, False)

    The search's best (``top_k=2``) is 0.036 better on average over the 24 queries, but the
    paired test does not show that it is better than returning one document: the simpler one
    is chosen.
    """
    from .stats.comparison import compare_many

    _, candidates, _ = _search_parts(search)
    key: Callable[[Mapping[str, Any]], Any]
    if isinstance(simpler, str):
        missing = [i for i, p in enumerate(candidates) if simpler not in p]
        if missing:
            raise InvalidInputError(
                f"simpler: {simpler!r} is not a parameter of candidate {missing[0]} "
                f"({candidates[missing[0]]}); name a parameter every candidate has, or give a "
                "key function"
            )
        name = simpler

        def by_name(params: Mapping[str, Any]) -> Any:
            return params[name]

        key = by_name

    elif callable(simpler):
        key = simpler
    else:
        raise InputTypeError(
            f"simpler: a parameter's name or a key function of the parameters, got "
            f"{type(simpler).__name__}"
        )
    per_query = per_query_scores(search, X, y, measure=measure, query_ids=query_ids, **options)

    def mean(index: int) -> float:
        values = [v for v in per_query[index].values() if not math.isnan(v)]
        return sum(values) / len(values) if values else -math.inf

    best = max(range(len(candidates)), key=lambda i: (mean(i), -i))
    order = tuple(sorted(range(len(candidates)), key=lambda i: key(candidates[i])))
    comparison = None
    chosen = best
    if len(candidates) > 1:
        systems = {_name(i): {measure: dict(per_query[i])} for i in range(len(candidates))}
        comparison = compare_many(
            systems,
            baseline=_name(best),
            test=test,
            correction=correction,
            alpha=alpha,
            random_state=random_state,
        )
        for index in order:
            if index == best:
                break
            item = comparison[_name(index)][measure]
            worse = item.delta < 0 and item.significant(alpha)
            if not worse:
                chosen = index
                break
    return ModelChoice(
        index=chosen,
        params=dict(candidates[chosen]),
        best_index=best,
        comparison=comparison,
        per_query=per_query,
        order=order,
    )
