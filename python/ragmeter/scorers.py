"""scikit-learn scorers for ragmeter's metrics, with or without scikit-learn installed.

:func:`make_corpus_scorer` mirrors :func:`sklearn.metrics.make_scorer` and
:func:`get_corpus_scorer` mirrors :func:`sklearn.metrics.get_scorer`; both add a way to get
predictions from a retriever:

* ``response_method="predict"``: ``estimator.predict(X)`` returns one ranking (or answer) per
  query. With scikit-learn >= 1.4, a scikit-learn estimator shares one ``predict`` call among
  several scorers of a multi-metric search.
* ``response_method="search"``: ``estimator.search(query)`` for each query in ``X``, so a
  :class:`~ragmeter.RetrievalIndex` (or anything with ``search``) is scored directly; the
  hits' ``doc.doc_id`` (or the ids themselves) form the ranking.

The scorer subclasses scikit-learn's ``_BaseScorer`` when scikit-learn is installed, so
``cross_validate`` and ``GridSearchCV`` treat it as their own, and a vendored copy of the same
contract otherwise. :func:`scorer_backend_info` says which one is in use.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from . import ranking
from ._inputs import interpret_search_result
from .exceptions import InputTypeError, InvalidInputError, RetrievalError
from .options import check_choice

__all__ = [
    "ScorerBackendInfo",
    "get_corpus_scorer",
    "make_corpus_scorer",
    "measure_score",
    "scorer_backend_info",
]

RESPONSE_METHODS = ("predict", "search")


class _VendoredBaseScorer:
    """The part of scikit-learn's ``_BaseScorer`` contract that model selection relies on."""

    # Provided by _CorpusScorerMixin, which every concrete scorer puts first in its bases.
    _score: Callable[..., float]

    def __init__(
        self,
        score_func: Callable[..., Any],
        sign: int,
        kwargs: dict[str, Any],
        response_method: str,
    ) -> None:
        self._score_func = score_func
        self._sign = sign
        self._kwargs = kwargs
        self._response_method = response_method

    def __call__(
        self, estimator: Any, X: Any, y_true: Any, sample_weight: Any = None, **kwargs: Any
    ) -> float:
        if sample_weight is not None:
            kwargs["sample_weight"] = sample_weight
        return self._score(_call_method, estimator, X, y_true, **kwargs)

    def _accept_sample_weight(self) -> bool:
        return False

    def set_score_request(self, **kwargs: Any) -> Any:
        raise RuntimeError(
            "metadata routing (set_score_request) needs scikit-learn: "
            "pip install 'ragmeter[sklearn]'"
        )


def _call_method(estimator: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    return getattr(estimator, method)(*args, **kwargs)


class _CorpusScorerMixin:
    """Scoring of rankings (or answers) from ``predict`` or ``search``."""

    _score_func: Callable[..., Any]
    _sign: int
    _kwargs: dict[str, Any]
    _response_method: str

    def _predictions(self, method_caller: Callable[..., Any], estimator: Any, X: Any) -> Any:
        if self._response_method == "search":
            search = getattr(estimator, "search", None)
            if not callable(search):
                raise InputTypeError(
                    f"response_method='search' needs an estimator with a search(query) method; "
                    f"{type(estimator).__name__} has none (use response_method='predict')"
                )
            return [_complete_ranking(search(query), query) for query in X]
        predict = getattr(estimator, "predict", None)
        if not callable(predict):
            raise InputTypeError(
                f"response_method='predict' needs an estimator with predict(X); "
                f"{type(estimator).__name__} has none (for a retriever, use "
                f"response_method='search')"
            )
        if hasattr(estimator, "__sklearn_tags__"):
            # scikit-learn's cached call: one predict shared by the scorers of a search.
            return method_caller(estimator, "predict", X)
        return predict(X)

    def _score(
        self, method_caller: Callable[..., Any], estimator: Any, X: Any, y_true: Any, **kwargs: Any
    ) -> float:
        if kwargs.get("sample_weight") is not None:
            raise InputTypeError(
                "ragmeter's corpus scorers average over queries and take no sample_weight"
            )
        kwargs.pop("sample_weight", None)
        y_pred = self._predictions(method_caller, estimator, X)
        value = self._score_func(y_true, y_pred, **{**self._kwargs, **kwargs})
        return self._sign * float(value)

    def __repr__(self) -> str:
        name = getattr(self._score_func, "__name__", repr(self._score_func))
        sign = "" if self._sign > 0 else ", greater_is_better=False"
        kwargs = "".join(f", {k}={v!r}" for k, v in self._kwargs.items())
        return (
            f"make_corpus_scorer({name}{sign}, response_method={self._response_method!r}{kwargs})"
        )


def _complete_ranking(result: Any, query: Any) -> list[Any]:
    """The ranked ids of a search, refused when the search failed or was cut short: a scorer
    never scores an incomplete search as if it were complete."""
    ids, status, error = interpret_search_result(result, query)
    if status not in ("success", "empty"):
        raise RetrievalError(
            f"query {query!r}: the search {status}" + (f" ({error})" if error else "") + "; a "
            "scorer cannot score an incomplete search as complete (evaluate_retrieval with "
            "on_degraded='warn' scores such searches as returned and keeps their statuses)"
        )
    return ids


@dataclass(frozen=True)
class ScorerBackendInfo:
    """Which base class the corpus scorers use, as :func:`scorer_backend_info` reports it.

    Parameters
    ----------
    backend
        ``"sklearn"`` (scikit-learn's ``_BaseScorer``) or ``"vendored"`` (ragmeter's copy of
        its contract, used without scikit-learn).
    base_class
        The qualified name of the base class.
    sklearn_version
        The installed scikit-learn version, or None.
    metadata_routing
        Whether ``set_score_request`` (scikit-learn's metadata routing) is available.
    """

    backend: str
    base_class: str
    sklearn_version: str | None
    metadata_routing: bool


@lru_cache(maxsize=1)
def _base() -> tuple[type, str | None]:
    if importlib.util.find_spec("sklearn") is None:
        return _VendoredBaseScorer, None
    try:
        sklearn = importlib.import_module("sklearn")
        scorer_module = importlib.import_module("sklearn.metrics._scorer")
        return scorer_module._BaseScorer, sklearn.__version__
    except (ImportError, AttributeError):
        return _VendoredBaseScorer, None


@lru_cache(maxsize=1)
def _scorer_class() -> type:
    base, _ = _base()
    cls = type(
        "CorpusScorer",
        (_CorpusScorerMixin, base),
        {
            "__module__": __name__,
            "__qualname__": "CorpusScorer",
            "__doc__": "A scorer of rankings or answers; build it with make_corpus_scorer.",
        },
    )
    return cls


def __getattr__(name: str) -> Any:
    # The class is built on first use so that importing ragmeter never imports scikit-learn;
    # pickle (joblib workers of GridSearchCV) finds it here by name.
    if name == "CorpusScorer":
        return _scorer_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def scorer_backend_info() -> ScorerBackendInfo:
    """Report the base class of the corpus scorers: scikit-learn's or the vendored copy.

    scikit-learn's is used whenever it can be imported; the answer is computed once per
    process.

    Returns
    -------
    ScorerBackendInfo
        The backend, its base class, the scikit-learn version and whether metadata routing
        is available.

    Examples
    --------
    >>> info = scorer_backend_info()
    >>> info.backend in ("sklearn", "vendored")
    True
    >>> info.metadata_routing == (info.backend == "sklearn")
    True
    """
    base, version = _base()
    return ScorerBackendInfo(
        backend="vendored" if base is _VendoredBaseScorer else "sklearn",
        base_class=f"{base.__module__}.{base.__qualname__}",
        sklearn_version=version,
        metadata_routing=base is not _VendoredBaseScorer,
    )


def make_corpus_scorer(
    score_func: Callable[..., Any],
    *,
    greater_is_better: bool = True,
    response_method: str = "predict",
    **kwargs: Any,
) -> Any:
    """Make a scorer ``scorer(estimator, X, y)`` from ``score_func(y_true, y_pred, **kwargs)``.

    ``X`` holds the queries and ``y`` their judgments (or reference answers), aligned by
    position. Predictions come from ``estimator.predict(X)`` (``response_method="predict"``)
    or from ``estimator.search(query)`` for each query (``"search"``). The score is
    ``score_func(y, predictions, **kwargs)``, negated when ``greater_is_better`` is False.
    The scorer averages over queries and takes no ``sample_weight``.

    Parameters
    ----------
    score_func
        A metric ``score_func(y_true, y_pred, **kwargs)``: a ranking metric such as
        :func:`~ragmeter.recall_at_k`, an answer metric such as
        :func:`~ragmeter.token_f1_score`, or any function of that form.
    greater_is_better
        False for a loss: the scorer then returns the negated value, as scikit-learn's
        model selection maximises scores.
    response_method
        ``"predict"`` (one ranking or answer per query from ``estimator.predict(X)``) or
        ``"search"`` (``estimator.search(query)`` for each query; the hits' ``doc.doc_id``,
        or the ids themselves, form the ranking).
    **kwargs
        Passed to ``score_func`` at every call (``k=10``, ``relevance_threshold=2``...).

    Returns
    -------
    CorpusScorer
        A callable ``scorer(estimator, X, y) -> float`` that scikit-learn's
        ``cross_validate``, ``GridSearchCV`` and ``RandomizedSearchCV`` accept as ``scoring``.
        Calling it raises :class:`~ragmeter.InputTypeError` when the estimator has no
        ``predict`` (or ``search``) method or a ``sample_weight`` is given.

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``score_func`` is not callable.
    InvalidInputError
        A ``ValueError``: ``response_method`` is neither ``"predict"`` nor ``"search"``.

    Examples
    --------
    BM25 ranks only the documents that hold a query word, so ``"cat"`` finds ``d1`` (relevant)
    and ``"dog"`` finds ``d2`` (not relevant): recall@1 is 1 and 0, 0.5 on average.

    >>> from ragmeter import CorpusDocument, RetrievalIndex, recall_at_k
    >>> index = RetrievalIndex().build([
    ...     CorpusDocument(doc_id="d1", input_path="pets.txt", text="the cat sat"),
    ...     CorpusDocument(doc_id="d2", input_path="pets.txt", text="the dog barked"),
    ... ])
    >>> scorer = make_corpus_scorer(recall_at_k, response_method="search", k=1)
    >>> scorer(index, ["cat", "dog"], [{"d1": 1}, {"d1": 1}])
    0.5
    """
    if not callable(score_func):
        raise InputTypeError(f"score_func must be callable, got {score_func!r}")
    check_choice("response_method", response_method, RESPONSE_METHODS)
    return _scorer_class()(score_func, 1 if greater_is_better else -1, kwargs, response_method)


def measure_score(y_true: Any, y_pred: Any, *, measure: str, **kwargs: Any) -> Any:
    """The value of one ranking measure over the queries: the score function of
    :func:`get_corpus_scorer`'s ranking scorers.

    Parameters
    ----------
    y_true
        Judgments, as for :func:`~ragmeter.ranking_metrics`: a sequence of
        ``{doc_id: grade}`` (or lists of relevant ids) aligned with ``y_pred``, or a mapping
        by query id.
    y_pred
        Rankings (lists of doc ids, best first, or ``{doc_id: score}``), aligned with
        ``y_true``.
    measure
        One measure name that :func:`ragmeter.parse_metric` reads (``"ndcg@10"``, ``"P_5"``,
        ``"nDCG@10"``...).
    **kwargs
        Options of :func:`~ragmeter.ranking_metrics` (``relevance_threshold``,
        ``zero_division``, ``missing``...).

    Returns
    -------
    MeanScore
        The mean over queries (a ``float``), or a :class:`~ragmeter.CountScore` for a count.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: an unknown measure or option, judgments and rankings that do not
        align.
    InputTypeError
        A ``TypeError``: judgments or rankings of a type ragmeter cannot read.

    Examples
    --------
    The one relevant document is ranked second: nDCG = (1 / log2(3)) / 1.

    >>> round(measure_score([{"d1": 1}], [["d2", "d1"]], measure="ndcg@10"), 4)
    0.6309
    """
    return ranking.ranking_metrics(y_true, y_pred, metrics=[measure], **kwargs)[measure]


#: Answer metrics by scorer name: module attribute in ragmeter.answers.
_ANSWER_SCORERS = {
    "exact_match": "exact_match_score",
    "token_f1": "token_f1_score",
    "anls": "anls_score",
    "edit_similarity": "edit_similarity_score",
}


def get_corpus_scorer(name: str, *, response_method: str = "predict", **kwargs: Any) -> Any:
    """A scorer by name, as :func:`sklearn.metrics.get_scorer`.

    Ranking metrics by their names (``"ndcg@10"``, ``"recall@2"``, ``"mrr"``, ``"map"``,
    ``"precision@5"``, ``"hit_rate@1"``, ``"r_precision"``, ...; see
    :func:`ragmeter.parse_metric`) and answer metrics (``"exact_match"``, ``"token_f1"``,
    ``"anls"``, ``"edit_similarity"``). Extra ``kwargs`` go to the metric.

    Parameters
    ----------
    name
        A ranking measure name (scored by :func:`measure_score`) or an answer metric name.
    response_method
        ``"predict"`` or ``"search"``, as for :func:`make_corpus_scorer`.
    **kwargs
        Options of the metric (``relevance_threshold=2``, ``normalize="basic"``...).

    Returns
    -------
    CorpusScorer
        A scorer ``scorer(estimator, X, y) -> float`` (see :func:`make_corpus_scorer`); every
        one of these is greater-is-better.

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``name`` is not a ``str``.
    InvalidInputError
        A ``ValueError``: an unknown name (the message lists the answer metrics too), a bad
        ``response_method``.

    Examples
    --------
    An estimator with ``predict`` that returns one ranking per query; the relevant document
    is first for the first query and absent for the second:

    >>> class FixedRanker:
    ...     def predict(self, queries):
    ...         return [["d1", "d2"], ["d3"]]
    >>> scorer = get_corpus_scorer("mrr")
    >>> scorer(FixedRanker(), ["q1", "q2"], [{"d1": 1}, {"d2": 1}])  # (1 + 0) / 2
    0.5

    An answer metric reads one answer per query (after SQuAD's normalisation, "The Eiffel
    Tower" matches "eiffel tower"; "Paris" does not match "Lyon"):

    >>> class FixedAnswerer:
    ...     def predict(self, questions):
    ...         return ["The Eiffel Tower", "Paris"]
    >>> get_corpus_scorer("exact_match")(FixedAnswerer(), ["q1", "q2"], ["eiffel tower", "Lyon"])
    0.5
    """
    if not isinstance(name, str):
        raise InputTypeError(f"name must be a metric name such as 'ndcg@10', got {name!r}")
    if name in _ANSWER_SCORERS:
        answers = importlib.import_module(".answers", __package__)
        return make_corpus_scorer(
            getattr(answers, _ANSWER_SCORERS[name]), response_method=response_method, **kwargs
        )
    try:
        ranking.parse_metric(name)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{exc}; answer metrics: {', '.join(_ANSWER_SCORERS)}") from None
    return make_corpus_scorer(
        measure_score, response_method=response_method, measure=name, **kwargs
    )
