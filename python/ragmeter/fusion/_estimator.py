"""A scikit-learn estimator over :func:`~ragmeter.fusion.fuse`, to tune a fusion's weights,
``k`` and other parameters with ``GridSearchCV`` or ``cross_validate`` on held-out queries.

Importing this module imports scikit-learn (the ``sklearn`` extra); ``import ragmeter`` and
``import ragmeter.fusion`` do not, and reach the estimator lazily.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._inputs import is_series
from .._optional import import_optional
from ..exceptions import InvalidInputError
from ..io import read_run
from ..scorers import measure_score
from ._fuse import fuse, train_fusion
from .declarations import METHODS

if TYPE_CHECKING:
    from sklearn.base import BaseEstimator
else:
    BaseEstimator = import_optional(
        "sklearn.base", extra="sklearn", purpose="FusionEstimator"
    ).BaseEstimator
_validation = import_optional(
    "sklearn.utils.validation", extra="sklearn", purpose="FusionEstimator"
)

__all__ = ["METHOD_PARAMETERS", "FusionEstimator"]

#: Every parameter a fusion method declares (the learnt ones excluded: they come from ``y``),
#: in declaration order; each is a parameter of the estimator.
METHOD_PARAMETERS: tuple[str, ...] = tuple(
    dict.fromkeys(p for m in METHODS.values() for p in m.parameters)
)


class FusionEstimator(BaseEstimator):  # type: ignore[misc]
    """A fusion of fixed runs as a scikit-learn estimator: ``X`` holds query ids, ``y`` their
    judgments (one ``{doc_id: grade}`` per item of ``X``), ``predict(X)`` returns one fused
    ranking (a list of ``doc_id``, best first) per query.

    The runs are given at construction, ``{name: run}`` (or a list, named ``run 0``, ...), each
    run anything :func:`~ragmeter.fusion.fuse` reads. The parameters are ``method``, ``norm``
    and the parameters the methods declare (``weights``, ``k``, ``gamma``, ``sigma``, ``phi``,
    ``n_segments``, ``w``: None means the method's default, and a parameter the chosen method
    does not take must stay None); ``get_params``, ``set_params`` and ``clone`` see them all,
    so ``GridSearchCV`` can search any of them.

    ``fit(X, y)`` stores nothing but, for a trained method (posfuse, probfuse, segfuse,
    slidefuse, mapfuse, bayesfuse), the training judgments ``{X[i]: y[i]}``: the method learns
    its probabilities from them at predict time, so in a cross-validation it learns from the
    training folds only and the held-out queries are never seen. An untrained method ignores
    ``y``. ``score(X, y)`` is the mean of ``measure`` (ndcg@10 by default) over the queries of
    ``X``, computed by :func:`~ragmeter.ranking_metrics`; :func:`~ragmeter.get_corpus_scorer`
    scorers score it the same way.

    Each query is fused on its own (the normalisations are per query), so fusing the queries of
    ``X`` alone gives what fusing every query gives for them. ``missing`` is as for
    :func:`~ragmeter.fusion.fuse`, and also covers a query of ``X`` that no run has: an
    ``InvalidInputError`` naming it with ``"raise"``, an empty ranking with ``"empty"`` or
    ``"intersect"`` (a query some run lacks is also an empty ranking with ``"intersect"``).

    Examples
    --------
    >>> bm25 = {"q1": {"d1": 3.0, "d2": 1.0}, "q2": {"d3": 2.0, "d4": 1.0}}
    >>> dense = {"q1": {"d2": 0.9, "d1": 0.1}, "q2": {"d4": 0.8, "d3": 0.7}}
    >>> qrels = [{"d2": 1}, {"d4": 1}]
    >>> estimator = FusionEstimator({"bm25": bm25, "dense": dense}, method="wsum")
    >>> estimator.set_params(weights=[0.3, 0.7]).fit(["q1", "q2"], qrels).predict(["q1", "q2"])
    array([list(['d2', 'd1']), list(['d4', 'd3'])], dtype=object)
    >>> float(estimator.score(["q1", "q2"], qrels))
    1.0
    """

    def __init__(
        self,
        runs: Mapping[str, Any] | Sequence[Any] | None = None,
        *,
        method: str = "wsum",
        norm: str | None = "min-max",
        weights: Sequence[float] | None = None,
        gamma: float | None = None,
        k: float | None = None,
        sigma: float | None = None,
        phi: float | None = None,
        n_segments: int | None = None,
        w: int | None = None,
        missing: str = "raise",
        measure: str = "ndcg@10",
        n_threads: int | None = None,
    ) -> None:
        # scikit-learn's contract: store the parameters as given, check them in fit.
        self.runs = runs
        self.method = method
        self.norm = norm
        self.weights = weights
        self.gamma = gamma
        self.k = k
        self.sigma = sigma
        self.phi = phi
        self.n_segments = n_segments
        self.w = w
        self.missing = missing
        self.measure = measure
        self.n_threads = n_threads

    # -- scikit-learn protocol ----------------------------------------------------------------

    def __repr__(self, N_CHAR_MAX: int = 700) -> str:
        # scikit-learn's repr would print the runs document by document.
        defaults = type(self)().get_params(deep=False)
        shown = []
        for name, value in self.get_params(deep=False).items():
            if name == "runs" and value is not None:
                names = list(value) if isinstance(value, Mapping) else f"{len(value)} runs"
                shown.append(f"runs=<{names}>")
            elif name != "runs" and not _same(value, defaults[name]):
                shown.append(f"{name}={value!r}")
        text = f"{type(self).__name__}({', '.join(shown)})"
        return text if len(text) <= N_CHAR_MAX else text[: N_CHAR_MAX - 3] + "..."

    def __sklearn_clone__(self) -> FusionEstimator:
        # The runs are shared, not deep-copied for every candidate and fold: the estimator never
        # changes them.
        params = self.get_params(deep=False)
        cloned = type(self)(
            **{
                name: value if name == "runs" else copy.deepcopy(value)
                for name, value in params.items()
            }
        )
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
        # The same tags for scikit-learn < 1.6.
        return {"X_types": ["string"], "requires_y": False}

    # -- fitting and predicting ---------------------------------------------------------------

    def _named_runs(self) -> tuple[list[str], list[Any]]:
        runs = self.runs
        if runs is None:
            raise InvalidInputError(
                "runs: FusionEstimator needs the runs to fuse: FusionEstimator({name: run, ...})"
            )
        if isinstance(runs, Mapping):
            if not all(isinstance(n, str) for n in runs):
                raise InvalidInputError(
                    "runs: the names of the runs (the mapping's keys) must be str"
                )
            names, values = list(runs), list(runs.values())
        elif isinstance(runs, str | bytes) or not isinstance(runs, Sequence):
            raise InvalidInputError(
                f"runs: expected {{name: run}} or a list of runs, got a {type(runs).__name__}"
            )
        else:
            names, values = [f"run {i}" for i in range(len(runs))], list(runs)
        if len(values) < 2:
            raise InvalidInputError(f"runs: fusion needs at least 2 runs, got {len(values)}")
        return names, values

    def _method_params(self) -> dict[str, Any]:
        if self.method not in METHODS:
            raise InvalidInputError(
                f"method: unknown fusion method {self.method!r}; one of {', '.join(METHODS)}"
            )
        declared = METHODS[self.method].parameters
        given = {p: getattr(self, p) for p in METHOD_PARAMETERS if getattr(self, p) is not None}
        stray = sorted(set(given) - set(declared))
        if stray:
            raise InvalidInputError(
                f"{', '.join(stray)}: the fusion method {self.method!r} takes "
                f"{', '.join(declared) or 'no parameter'}; set the others to None"
            )
        given.pop("n_segments", None)  # a training setting, not a fusion parameter
        return given

    def fit(self, X: Any, y: Any = None) -> FusionEstimator:
        """Check the parameters and, for a trained method, keep the training judgments.

        Parameters
        ----------
        X
            The training query ids (``str``; a list, a 1-D array or a pandas Series).
        y
            Their judgments, one ``{doc_id: grade}`` per item of ``X``; required by the
            trained methods, ignored by the others (may be None).

        Returns
        -------
        FusionEstimator
            The estimator itself, fitted: ``training_qrels_`` holds the training judgments
            of a trained method (None otherwise), ``run_names_`` the names of the runs.

        Raises
        ------
        InvalidInputError
            A ``ValueError``: no runs or fewer than 2, an unknown method, a parameter the
            method does not take, ``X`` that is not a list of query ids, a trained method
            without ``y`` or ``y`` not aligned with ``X``.
        """
        names, _ = self._named_runs()
        self._method_params()
        queries = _query_ids("X", X)
        training = METHODS[self.method].training is not None
        if training:
            if y is None:
                raise InvalidInputError(
                    f"y: the trained method {self.method!r} learns from the judgments of the "
                    "training queries; fit(query_ids, judgments)"
                )
            judgments = _judgments("y", y, len(queries))
            self.training_qrels_: dict[str, dict[str, Any]] | None = dict(
                zip(queries, judgments, strict=True)
            )
        else:
            self.training_qrels_ = None
        self.run_names_ = names
        return self

    def predict(self, X: Any) -> np.ndarray:
        """One fused ranking per query of ``X``: a 1-D object array of lists of ``doc_id``,
        best first (ties broken as :func:`~ragmeter.fusion.fuse` breaks them).

        Raises
        ------
        InvalidInputError
            A ``ValueError``: ``X`` is not a list of query ids; a query no run has (with
            ``missing="raise"``); and the errors of :func:`~ragmeter.fusion.fuse`.
        sklearn.exceptions.NotFittedError
            :meth:`fit` was not called.
        """
        _validation.check_is_fitted(self, "run_names_")
        queries = _query_ids("X", X)
        names, values = self._named_runs()
        read = [read_run(r) for r in values]
        wanted = set(queries)
        subsets = [{q: r[q] for q in r if q in wanted} for r in read]
        known = set().union(*map(set, subsets))
        unknown = [q for q in queries if q not in known]
        if unknown and self.missing == "raise":
            raise InvalidInputError(
                f"X: {len(unknown)} queries are in none of the runs "
                f"({', '.join(map(repr, unknown[:5]))}); pass missing='empty' to rank nothing "
                "for them"
            )
        rankings = np.empty(len(queries), dtype=object)
        fused: dict[str, list[str]] = {}
        if known:
            params = self._method_params()
            decl = METHODS[self.method]
            if decl.trained_parameter is not None:
                # Learnt from the full runs on the training queries only.
                params[decl.trained_parameter] = train_fusion(
                    self.training_qrels_,
                    read,
                    self.method,
                    norm=self.norm,
                    n_segments=self.n_segments,
                    names=names,
                    n_threads=self.n_threads,
                )
            run = fuse(
                subsets,
                method=self.method,
                norm=self.norm,
                params=params,
                missing=self.missing,
                names=names,
                n_threads=self.n_threads,
            )
            fused = {q: list(ranked) for q, ranked in run.to_dict().items()}
        for position, query in enumerate(queries):
            rankings[position] = list(fused.get(query, []))
        return rankings

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """The mean of ``measure`` (ndcg@10 by default) over the queries of ``X``, their fused
        rankings judged by ``y`` (one ``{doc_id: grade}`` per query), by
        :func:`~ragmeter.ranking_metrics`."""
        if sample_weight is not None:
            raise InvalidInputError("sample_weight: a fusion's score averages over queries")
        judgments = _judgments("y", y, len(_query_ids("X", X)))
        return float(measure_score(judgments, self.predict(X).tolist(), measure=self.measure))


def _same(value: Any, default: Any) -> bool:
    try:
        return type(value) is type(default) and bool(value == default)
    except (TypeError, ValueError):
        return False


def _query_ids(name: str, value: Any) -> list[str]:
    if type(value).__module__.startswith("scipy.sparse"):
        raise InvalidInputError(
            f"{name}: got a sparse {type(value).__name__}; sparse input is not supported: a "
            "fusion's X holds query ids, not a feature matrix"
        )
    if is_series(value):
        value = value.tolist()
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise InvalidInputError(
                f"{name}: expected one query id per item (a 1-D sequence), got an array of "
                f"shape {value.shape}"
            )
        value = value.tolist()
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise InvalidInputError(
            f"{name}: expected a sequence of query ids, got a {type(value).__name__}"
        )
    for position, item in enumerate(value):
        if not isinstance(item, str):
            raise InvalidInputError(
                f"{name}: item {position} is a {type(item).__name__}; a query id is a str "
                "(the runs' query ids)"
            )
    return list(value)


def _judgments(name: str, value: Any, n_queries: int) -> list[dict[str, Any]]:
    if is_series(value) or isinstance(value, np.ndarray):
        value = list(value)
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise InvalidInputError(
            f"{name}: expected one {{doc_id: grade}} per query id of X, got a "
            f"{type(value).__name__}"
        )
    if len(value) != n_queries:
        raise InvalidInputError(
            f"{name}: {len(value)} judgments for {n_queries} query ids; give one per query"
        )
    for position, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise InvalidInputError(
                f"{name}: item {position} is a {type(item).__name__}; expected {{doc_id: grade}}"
            )
    return [dict(item) for item in value]
