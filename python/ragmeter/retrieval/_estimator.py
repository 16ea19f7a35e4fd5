"""A scikit-learn estimator over :class:`RetrievalIndex`, to tune BM25 and the other search
settings with ``GridSearchCV``, ``RandomizedSearchCV``, ``cross_validate`` or a ``Pipeline``.

Importing this module imports scikit-learn (the ``sklearn`` extra); ``import ragmeter`` does
not, and reaches the estimator lazily.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._inputs import is_series
from .._optional import import_optional
from ..exceptions import InvalidInputError, RetrievalError
from ..options import check_n_threads
from ._cache import index_cache
from ._config import Bm25Variant, MatchMode, RetrievalConfig
from ._documents import CorpusDocument
from ._index import RetrievalIndex
from ._response import RetrievalResponse

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator
else:
    BaseEstimator = import_optional(
        "sklearn.base", extra="sklearn", purpose="RetrievalEstimator"
    ).BaseEstimator
_validation = import_optional(
    "sklearn.utils.validation", extra="sklearn", purpose="RetrievalEstimator"
)

__all__ = ["RetrievalEstimator"]

_CONFIG_FIELDS = tuple(field.name for field in dataclasses.fields(RetrievalConfig))

Query = tuple[str, Any]


class RetrievalEstimator(BaseEstimator):  # type: ignore[misc]
    """A retriever as a scikit-learn estimator: ``fit`` indexes a corpus, ``predict(queries)``
    returns one ranking (a list of ``doc_id``, best first) per query.

    Its parameters are the fields of :class:`RetrievalConfig` (``top_k``, ``match_mode``,
    ``bm25_k1``, ``bm25_b``, ``bm25_variant``, ``bm25_delta``, the thresholds, the hybrid
    weights, ...), plus ``documents`` and ``n_threads``; ``get_params``, ``set_params`` and
    ``clone`` see them all, so every one can be searched over.

    Two ways to fit:

    * ``RetrievalEstimator().fit(documents)``: ``X`` is the corpus (:class:`CorpusDocument`
      objects), ``y`` must be None.
    * ``RetrievalEstimator(documents=corpus).fit(queries, qrels)``: the corpus is a parameter
      and ``X``, ``y`` are the training queries and their judgments, which is what model
      selection splits (``KFold``, ``GroupKFold`` over queries). Nothing is learned from them:
      BM25, substring matching and cosine have no trained weights; the search picks the
      parameters from the held-out queries' scores. ``X`` is checked to be queries.

    ``predict(X)`` takes one query per item: a ``str``, or a ``(text, embedding)`` pair for
    the semantic and hybrid modes. It returns a one-dimensional object array (one list of
    ``doc_id`` per query), what :func:`~ragmeter.get_corpus_scorer` scorers read. A search
    that does not run completely (a hybrid query without an embedding, a semantic search
    without document embeddings) raises :class:`~ragmeter.RetrievalError` naming the query:
    it would otherwise be scored as if it had. Queries are scored together: BM25 in one call
    to the Rust core on ``n_threads`` threads (None: ``RAGMETER_NUM_THREADS`` or every core).

    The index is built once per corpus and kept in a cache shared by all estimators
    (:func:`~ragmeter.retrieval.index_cache_info`; at most 4 corpora by default,
    :func:`~ragmeter.retrieval.set_index_cache_size`): every parameter above is applied at
    search time, so the fits of a grid or of a cross-validation after the first cost a
    lookup. ``clone`` shares ``documents`` instead of deep-copying the corpus (the estimator
    never changes it).

    Parameters
    ----------
    documents
        The corpus (a list of :class:`CorpusDocument`), or None to index ``X`` in
        :meth:`fit`.
    top_k, match_mode, keyword_threshold, semantic_threshold, hybrid_alpha, rrf_k
        The search settings, with the defaults and ranges of :class:`RetrievalConfig`.
    use_normalized_text, case_sensitive
        As in :class:`RetrievalConfig`.
    bm25_k1, bm25_b, bm25_variant, bm25_delta
        BM25's parameters and variant, as in :class:`RetrievalConfig`.
    n_threads
        Threads of the Rust core for BM25 (None: ``RAGMETER_NUM_THREADS`` or every core).

    Attributes
    ----------
    index_
        The shared :class:`RetrievalIndex` of the corpus, whose own ``config`` is the default:
        search it with ``config=config_``.
    config_
        The :class:`RetrievalConfig` of the parameters.
    n_documents_
        The number of indexed documents.

    Examples
    --------
    >>> from ragmeter import CorpusDocument, get_corpus_scorer
    >>> corpus = [
    ...     CorpusDocument(doc_id="d1", input_path="pets.txt", text="the cat sat"),
    ...     CorpusDocument(doc_id="d2", input_path="pets.txt", text="the dog barked"),
    ... ]
    >>> estimator = RetrievalEstimator(documents=corpus, top_k=1).fit()
    >>> estimator.predict(["cat", "dog barked", "bird"]).tolist()
    [['d1'], ['d2'], []]

    Tune the mode by cross-validation over queries. "sat the" is not a substring of either
    document, so strict matching misses it (MRR 0.5 on that fold, 0.75 on average) while
    BM25 ranks ``d1`` first for every query (MRR 1.0):

    >>> from sklearn.model_selection import GridSearchCV
    >>> queries = ["cat", "dog", "the cat", "sat the"]
    >>> qrels = [{"d1": 1}, {"d2": 1}, {"d1": 1}, {"d1": 1}]
    >>> search = GridSearchCV(
    ...     RetrievalEstimator(documents=corpus),
    ...     {"match_mode": ["keyword", "strict"]},
    ...     scoring=get_corpus_scorer("mrr"),
    ...     cv=2,
    ... ).fit(queries, qrels)
    >>> search.best_params_, float(search.best_score_)
    ({'match_mode': 'keyword'}, 1.0)
    >>> search.cv_results_["mean_test_score"].tolist()
    [1.0, 0.75]
    """

    def __init__(
        self,
        documents: Sequence[CorpusDocument] | None = None,
        *,
        top_k: int = RetrievalConfig.top_k,
        match_mode: MatchMode = RetrievalConfig.match_mode,
        keyword_threshold: float = RetrievalConfig.keyword_threshold,
        semantic_threshold: float = RetrievalConfig.semantic_threshold,
        hybrid_alpha: float = RetrievalConfig.hybrid_alpha,
        rrf_k: int = RetrievalConfig.rrf_k,
        use_normalized_text: bool = RetrievalConfig.use_normalized_text,
        case_sensitive: bool = RetrievalConfig.case_sensitive,
        bm25_k1: float = RetrievalConfig.bm25_k1,
        bm25_b: float = RetrievalConfig.bm25_b,
        bm25_variant: Bm25Variant = RetrievalConfig.bm25_variant,
        bm25_delta: float | None = RetrievalConfig.bm25_delta,
        n_threads: int | None = None,
    ) -> None:
        # scikit-learn's contract: store the parameters as given, check them in fit.
        self.documents = documents
        self.top_k = top_k
        self.match_mode = match_mode
        self.keyword_threshold = keyword_threshold
        self.semantic_threshold = semantic_threshold
        self.hybrid_alpha = hybrid_alpha
        self.rrf_k = rrf_k
        self.use_normalized_text = use_normalized_text
        self.case_sensitive = case_sensitive
        self.bm25_k1 = bm25_k1
        self.bm25_b = bm25_b
        self.bm25_variant = bm25_variant
        self.bm25_delta = bm25_delta
        self.n_threads = n_threads

    # -- scikit-learn protocol ----------------------------------------------------------------

    def __repr__(self, N_CHAR_MAX: int = 700) -> str:
        # scikit-learn's repr would print the corpus document by document; the parameters
        # that differ from their defaults are what tells estimators apart.
        defaults = type(self)().get_params(deep=False)
        shown = []
        for name, value in self.get_params(deep=False).items():
            if name == "documents" and value is not None:
                size = len(value) if hasattr(value, "__len__") else "?"
                shown.append(f"documents=<{size} documents>")
            elif not _same(value, defaults[name]):
                shown.append(f"{name}={value!r}")
        text = f"{type(self).__name__}({', '.join(shown)})"
        return text if len(text) <= N_CHAR_MAX else text[: N_CHAR_MAX - 3] + "..."

    def __sklearn_clone__(self) -> RetrievalEstimator:
        params = self.get_params(deep=False)
        cloned = type(self)(
            **{
                name: value if name == "documents" else copy.deepcopy(value)
                for name, value in params.items()
            }
        )
        # What scikit-learn's own clone carries over besides the parameters.
        for attribute in ("_metadata_request", "_sklearn_output_config"):
            if hasattr(self, attribute):
                setattr(cloned, attribute, copy.deepcopy(getattr(self, attribute)))
        return cloned

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = False
        tags.input_tags.one_d_array = True
        tags.input_tags.string = True
        tags.target_tags.required = False
        tags.requires_fit = True
        tags.non_deterministic = False
        return tags

    def _more_tags(self) -> dict[str, Any]:
        # The same tags for scikit-learn < 1.6, which reads this method instead.
        return {"X_types": ["string"], "requires_y": False}

    # -- fitting and predicting ---------------------------------------------------------------

    def _config(self) -> RetrievalConfig:
        return RetrievalConfig(**{name: getattr(self, name) for name in _CONFIG_FIELDS})

    def fit(self, X: Any = None, y: Any = None) -> RetrievalEstimator:
        """Index the corpus (``documents``, or ``X`` when ``documents`` is None) and check the
        parameters. See the class documentation for what ``X`` and ``y`` are.

        The index comes from the shared cache when this corpus was indexed before.

        Parameters
        ----------
        X
            Without ``documents``: the corpus (a list of :class:`CorpusDocument`). With
            ``documents``: the training queries (``str`` or ``(text, embedding)`` pairs),
            only checked, or None.
        y
            With ``documents``: the queries' judgments, unused (nothing is learned). Without
            ``documents``: must be None.

        Returns
        -------
        RetrievalEstimator
            The estimator itself, fitted.

        Raises
        ------
        InvalidInputError
            A ``ValueError``: a parameter out of its range (as :class:`RetrievalConfig`
            checks it; ``n_threads`` from 1 to ``MAX_THREADS``), no corpus, an item of the
            corpus that is not a :class:`CorpusDocument`, judgments ``y`` without
            ``documents=``, ``X`` that is not a list of queries when ``documents`` is given,
            and the errors of :meth:`RetrievalIndex.build`.
        InputTypeError
            A ``TypeError``: ``n_threads`` is not an integer.
        """
        config = self._config()
        check_n_threads(self.n_threads)
        if self.documents is None:
            if y is not None:
                raise InvalidInputError(
                    "y: judgments were given but the estimator has no documents=; in model "
                    "selection X holds the queries and y their judgments, so pass the corpus "
                    "as RetrievalEstimator(documents=...)"
                )
            name, corpus = "X", _sequence("X", X)
        else:
            name, corpus = "documents", _sequence("documents", self.documents)
            if X is not None:
                _queries("X", X)
        self.index_ = index_cache.get(
            corpus, lambda docs: _check_documents(name, docs, fitting_on_x=name == "X")
        )
        self.config_ = config
        self.n_documents_ = self.index_.n_documents
        return self

    def predict(self, X: Any) -> np.ndarray:
        """One ranking per query: a 1-D object array of lists of ``doc_id``, best first.

        Parameters
        ----------
        X
            The queries: ``str``, or ``(text, embedding)`` pairs for the semantic and hybrid
            modes (a list, a 1-D array or a pandas Series).

        Returns
        -------
        numpy.ndarray
            A 1-D object array of one list of at most ``top_k`` ``doc_id`` per query.

        Raises
        ------
        RetrievalError
            A ``RuntimeError``: a search did not run completely (a hybrid query without an
            embedding, a semantic search without document embeddings); the message names the
            query.
        InvalidInputError
            A ``ValueError``: ``X`` is not a sequence of queries (a single ``str``, a
            mapping, a 2-D array, a sparse matrix, documents), a semantic query without an
            embedding (when the documents have some), or a query embedding of the wrong
            dimension, zero or not finite.
        sklearn.exceptions.NotFittedError
            :meth:`fit` was not called.
        """
        _validation.check_is_fitted(self)
        queries = _queries("X", X)
        texts = [text for text, _ in queries]
        embeddings = [embedding for _, embedding in queries]
        index: RetrievalIndex = self.index_
        config: RetrievalConfig = self.config_
        n_threads = check_n_threads(self.n_threads)
        rankings = np.empty(len(texts), dtype=object)
        if config.match_mode == "keyword":
            # Keyword searches always run completely: the rankings straight from the core.
            offsets, positions, _ = index._bm25_batch(texts, config, config.top_k, n_threads)
            ids = index.doc_ids[positions].tolist()
            bounds = offsets.tolist()
            for position in range(len(texts)):
                rankings[position] = ids[bounds[position] : bounds[position + 1]]
            return rankings
        doc_ids = index.doc_ids
        if config.match_mode == "hybrid":
            # Both legs fused in the core; a query whose semantic leg cannot run is refused.
            batch = index._hybrid_ranked(texts, embeddings, config, n_threads)
            failed = next((p for p, ran in enumerate(batch.dense) if not ran), None)
            if failed is not None:
                error = index._dense_failure(embeddings[failed]).error
                assert error is not None
                raise RetrievalError(
                    f"query {failed} ({_shorten(texts[failed])}): the hybrid search did not run "
                    f"completely ({error.code}: {error.message}); predict refuses to return a "
                    "partial ranking that would be scored as complete. Give (text, embedding) "
                    "pairs for the semantic leg, or search with match_mode='keyword'"
                )
            offsets, positions = batch.fused[0], batch.fused[1]
            ids = doc_ids[positions].tolist()
            bounds = offsets.tolist()
            for position in range(len(texts)):
                rankings[position] = ids[bounds[position] : bounds[position + 1]]
            return rankings
        searches = index._search_batch(
            texts, config, None if all(e is None for e in embeddings) else embeddings, n_threads
        )
        for position, search in enumerate(searches):
            if not search.complete:
                raise RetrievalError(
                    f"query {position} ({_shorten(texts[position])}): the "
                    f"{config.match_mode} search did not run completely "
                    f"({search.error()}); predict refuses to return a partial ranking that "
                    "would be scored as complete. Give (text, embedding) pairs for the "
                    "semantic leg, or search with match_mode='keyword'"
                )
            rankings[position] = [doc_ids[doc] for doc, _ in search.ranked]
        return rankings

    def search(self, query: str, *, query_embedding: Any = None) -> RetrievalResponse:
        """The fitted index's :meth:`RetrievalIndex.search` with this estimator's settings, so
        a tuned estimator can be passed to :func:`~ragmeter.evaluate_retrieval`.

        Parameters
        ----------
        query
            The query text.
        query_embedding
            The query's vector, for the semantic and hybrid modes.

        Returns
        -------
        RetrievalResponse
            The hits and the status of each leg (a partial search is returned with its
            status, not refused as by :meth:`predict`).

        Raises
        ------
        InvalidInputError
            A ``ValueError``: as for :meth:`RetrievalIndex.search`.
        sklearn.exceptions.NotFittedError
            :meth:`fit` was not called.
        """
        _validation.check_is_fitted(self)
        index: RetrievalIndex = self.index_
        return index.search(query, config=self.config_, query_embedding=query_embedding)


def _same(value: Any, default: Any) -> bool:
    try:
        return type(value) is type(default) and bool(value == default)
    except (TypeError, ValueError):
        return False


def _shorten(text: str, limit: int = 60) -> str:
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _sequence(name: str, value: Any) -> tuple[Any, ...]:
    if value is None:
        raise InvalidInputError(
            f"{name}: fit needs the documents to index: fit(documents), or "
            "RetrievalEstimator(documents=...).fit(queries, qrels)"
        )
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence | np.ndarray):
        raise InvalidInputError(
            f"{name}: expected a list of CorpusDocument, got a {type(value).__name__}"
        )
    return tuple(value)


def _check_documents(name: str, docs: Sequence[Any], *, fitting_on_x: bool) -> None:
    for position, doc in enumerate(docs):
        if not isinstance(doc, CorpusDocument):
            hint = (
                "; fit(X) without documents= indexes X, but in model selection (GridSearchCV, "
                "cross_validate) X holds the queries: pass the corpus as "
                "RetrievalEstimator(documents=...)"
                if fitting_on_x and isinstance(doc, str | tuple)
                else ""
            )
            raise InvalidInputError(
                f"{name}: item {position} is a {type(doc).__name__}, expected a "
                f"CorpusDocument{hint}"
            )


def _queries(name: str, value: Any) -> list[Query]:
    """``(text, embedding or None)`` of every query of ``X``."""
    if type(value).__module__.startswith("scipy.sparse"):
        raise InvalidInputError(
            f"{name}: got a sparse {type(value).__name__}; sparse input is not supported: a "
            "retriever's X holds queries (str or (text, embedding) pairs), not a feature matrix"
        )
    if is_series(value):
        value = value.tolist()
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise InvalidInputError(
                f"{name}: expected one query per item (a 1-D sequence), got an array of "
                f"shape {value.shape}"
            )
        value = value.tolist()
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        kind = type(value).__name__
        hint = (
            " (pass list(queries.values()), aligned with y)" if isinstance(value, Mapping) else ""
        )
        raise InvalidInputError(f"{name}: expected a sequence of queries, got a {kind}{hint}")
    queries: list[Query] = []
    for position, item in enumerate(value):
        if isinstance(item, str):
            queries.append((str(item), None))
        elif isinstance(item, tuple | list) and len(item) == 2 and isinstance(item[0], str):
            queries.append((str(item[0]), item[1]))
        elif isinstance(item, CorpusDocument):
            raise InvalidInputError(
                f"{name}: item {position} is a CorpusDocument; this estimator was given "
                "documents=, so X holds the queries (fit(queries, qrels), predict(queries))"
            )
        else:
            raise InvalidInputError(
                f"{name}: item {position} is a {type(item).__name__}; a query is a str or a "
                "(text, embedding) pair"
            )
    return queries
