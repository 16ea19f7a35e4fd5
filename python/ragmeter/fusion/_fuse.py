"""`fuse`: several runs into one, in the Rust core (see `declarations` for the methods)."""

from __future__ import annotations

import math
import operator
import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .. import _core
from ..exceptions import InvalidInputError
from ..io import read_qrels, read_run
from ..io.trec import write_trec_run
from .declarations import METHODS, NORMALIZATIONS

__all__ = ["FusedRun", "PreparedRuns", "fuse", "prepare_runs", "train_fusion"]

_MISSING_POLICIES = ("raise", "empty", "intersect")
#: Every parameter the core reads (None where the method takes none).
_NATIVE_PARAMS = ("weights", "k", "gamma", "sigma", "phi", "w", "probs", "map_scores", "log_odds")


class FusedRun:
    """A fused run: ``{query_id: {doc_id: score}}`` best first per query, with its ``name``,
    the ``method``, ``norm`` and parameters that made it. ``to_dict()``,
    ``write_trec(path)`` and ``to_arrow()`` give it in ragmeter's other run forms.

    The fused documents stay in the Rust core until a form is asked for: fusing is not
    charged for building Python dicts nobody reads (``to_dict()`` builds them once)."""

    def __init__(
        self,
        name: str,
        query_ids: list[str],
        fused: _core.FusedRows,
        method: str,
        norm: str | None,
        params: dict[str, Any],
    ) -> None:
        self.name = name
        self.method = method
        self.norm = norm
        self.params = params
        self._query_ids = query_ids
        self._fused = fused
        self._dict: dict[str, dict[str, float]] | None = None

    def to_dict(self) -> dict[str, dict[str, float]]:
        """The run as ``{query_id: {doc_id: score}}``, best first per query (built once)."""
        if self._dict is None:
            self._dict = self._fused.to_dict(self._query_ids)
        return self._dict

    def __getitem__(self, query_id: str) -> dict[str, float]:
        return self.to_dict()[query_id]

    def __len__(self) -> int:
        return len(self._query_ids)

    def __iter__(self) -> Iterator[str]:
        return iter(self._query_ids)

    def __contains__(self, query_id: object) -> bool:
        return query_id in self.to_dict()

    def keys(self) -> list[str]:
        """The query ids, in the run's order."""
        return list(self._query_ids)

    def write_trec(self, path: str | os.PathLike[str]) -> None:
        """Write the run as a TREC run file tagged with its name (trec_eval reads it)."""
        write_trec_run(self.to_dict(), path, tag=self.name)

    def to_arrow(self) -> Any:
        """The run as a pyarrow table (query_id, doc_id, score, rank)."""
        from .._optional import import_optional

        pa = import_optional("pyarrow", extra="arrow", purpose="FusedRun.to_arrow")
        import numpy as np

        offsets: Any = self._fused.offsets().astype(np.int64)
        counts = np.diff(offsets)
        queries = np.repeat(np.array(self._query_ids, dtype=object), counts)
        ranks: Any = np.concatenate([np.arange(1, c + 1) for c in counts]) if len(counts) else []
        return pa.table(
            {
                "query_id": pa.array(queries, pa.string()),
                "doc_id": pa.array(self._fused.doc_ids(), pa.string()),
                "score": pa.array(self._fused.scores(), pa.float64()),
                "rank": pa.array(ranks, pa.int64()),
            }
        )

    def __repr__(self) -> str:
        return (
            f"FusedRun({self.name!r}, {len(self)} queries, method={self.method!r}, "
            f"norm={self.norm!r})"
        )


class PreparedRuns:
    """Runs read once, aligned by query, for many :func:`fuse` calls (a weight search, every
    method on the same runs): pass it to ``fuse`` or ``train_fusion`` in place of the list.
    Made by :func:`prepare_runs`; ``names`` and ``missing`` are fixed when it is made.

    >>> a = {"q1": {"d1": 3.0, "d2": 2.0}}
    >>> b = {"q1": {"d2": 9.0, "d3": 1.0}}
    >>> prepared = prepare_runs([a, b], names=["bm25", "dense"])
    >>> prepared
    PreparedRuns(['bm25', 'dense'], 1 queries, missing='raise')
    >>> list(fuse(prepared, method="rrf", norm=None, k=60)["q1"])
    ['d2', 'd1', 'd3']
    """

    def __init__(
        self,
        read: list[Mapping[Any, Any]],
        names: list[str],
        missing: str,
        queries: list[str],
        native: _core.FusionRuns,
    ) -> None:
        self.names = names
        self.missing = missing
        self.query_ids = queries
        self._read = read
        self._native = native

    def __len__(self) -> int:
        return len(self.query_ids)

    def __repr__(self) -> str:
        return f"PreparedRuns({self.names!r}, {len(self)} queries, missing={self.missing!r})"


def prepare_runs(
    runs: Sequence[Any], *, names: Sequence[str] | None = None, missing: str = "raise"
) -> PreparedRuns:
    """Read ``runs`` (as :func:`fuse` reads them) once into the core, aligned by query with the
    ``missing`` policy, so that many fusions of the same runs do not read them again."""
    read = _read_runs(runs)
    run_names = _run_names(runs, names)
    queries, aligned = _align(read, run_names, missing)
    native = _core.prepare_fusion_runs(aligned, queries, run_names)
    return PreparedRuns(read, run_names, missing, queries, native)


def _run_names(runs: Sequence[Any], names: Sequence[str] | None) -> list[str]:
    if names is not None:
        if len(names) != len(runs):
            raise InvalidInputError(f"names: {len(names)} names for {len(runs)} runs")
        return [str(n) for n in names]
    return [str(r) if isinstance(r, str | os.PathLike) else f"run {i}" for i, r in enumerate(runs)]


def _read_runs(runs: Sequence[Any]) -> list[Mapping[Any, Any]]:
    if isinstance(runs, Mapping | str | os.PathLike):
        raise InvalidInputError(
            "runs: expected a list of runs (dicts, paths or tables), got a single run"
        )
    if len(runs) < 2:
        raise InvalidInputError(f"runs: fusion needs at least 2 runs, got {len(runs)}")
    return [read_run(r) for r in runs]


def _align(
    read: list[Mapping[Any, Any]], names: list[str], missing: str
) -> tuple[list[str], list[list[Any]]]:
    if missing not in _MISSING_POLICIES:
        raise InvalidInputError(f"missing: {missing!r} is not one of {_MISSING_POLICIES}")
    for name, run in zip(names, read, strict=True):
        for q in run:
            if not isinstance(q, str):
                raise InvalidInputError(
                    f"run {name!r}: query id {q!r} is {type(q).__name__}; fusion reads str ids "
                    "(convert them with str(query_id))"
                )
    sets = [set(r) for r in read]
    union = set().union(*sets)
    lacking = {n: sorted(union - s) for n, s in zip(names, sets, strict=True) if union - s}
    if lacking and missing == "raise":
        detail = "; ".join(
            f"{n!r} lacks {len(qs)}: {', '.join(map(repr, qs[:5]))}{' ...' if len(qs) > 5 else ''}"
            for n, qs in lacking.items()
        )
        raise InvalidInputError(
            f"runs: the runs do not have the same queries ({detail}); pass missing='empty' to "
            "fuse a lacking query as if that run retrieved nothing, or missing='intersect' to "
            "fuse only the queries every run has"
        )
    queries = sorted(set.intersection(*sets)) if missing == "intersect" else sorted(union)
    return queries, [[r.get(q) for q in queries] for r in read]


#: The most ProbFuse segments: a ranking of up to this many documents has one document per
#: segment already, and the training loops over every segment of every ranking.
MAX_SEGMENTS = 1_000_000
#: The widest SlideFuse window counted: wider reaches past every ranking of up to this many
#: documents, and the same window is used.
MAX_WINDOW = 1 << 40


def _whole_number(argument: str, value: Any, low: int, high: int) -> int:
    """``value`` as an int from ``low`` to ``high``, or an InvalidInputError naming it."""
    try:
        number = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        number = None
    if number is None:
        raise InvalidInputError(
            f"{argument}: must be a whole number from {low} to {high:,}, got "
            f"{type(value).__name__} {str(value)[:40]!r}"
        )
    if not low <= number <= high:
        digits = len(str(abs(number))) if abs(number) < 10**4300 else "over 4,300"
        shown = str(number) if abs(number) < 10**30 else f"a {digits}-digit number"
        raise InvalidInputError(
            f"{argument}: must be a whole number from {low} to {high:,}, got {shown}"
        )
    return number


def _check_params(method: str, params: dict[str, Any], n_runs: int) -> dict[str, Any]:
    if method not in METHODS:
        raise InvalidInputError(
            f"method: unknown fusion method {method!r}; one of {', '.join(METHODS)}"
        )
    decl = METHODS[method]
    allowed = set(decl.parameters) | ({decl.trained_parameter} if decl.trained_parameter else set())
    allowed.discard("n_segments")
    unknown = set(params) - allowed
    if unknown:
        raise InvalidInputError(
            f"{method}: unknown parameter(s) {sorted(unknown)}; "
            f"it takes {sorted(allowed) or 'none'}"
        )
    out: dict[str, Any] = dict(decl.defaults)
    out.update({k: v for k, v in params.items() if v is not None})
    weights = out.get("weights")
    if weights is not None:
        weights = [float(w) for w in weights]
        if len(weights) != n_runs:
            raise InvalidInputError(
                f"weights: {len(weights)} weights for {n_runs} runs; give one per run, in the "
                "order of the runs"
            )
        bad = [w for w in weights if not math.isfinite(w)]
        if bad:
            raise InvalidInputError(f"weights: {bad[0]} is not a finite number")
        out["weights"] = weights
    if out.get("w") is not None:
        out["w"] = _whole_number("w", out["w"], 0, MAX_WINDOW)
    for name in ("probs", "log_odds"):
        if name in out:
            out[name] = [[float(x) for x in p] for p in out[name]]
    return out


def _relevant(qrels: Mapping[Any, Any], queries: list[str]) -> list[list[str]]:
    return [
        [str(d) for d, g in qrels.get(q, {}).items() if g is not None and float(g) >= 1]
        for q in queries
    ]


def _check_same_names(prepared: PreparedRuns, names: Sequence[str] | None) -> None:
    if names is not None and [str(n) for n in names] != prepared.names:
        raise InvalidInputError(
            f"names: {list(names)!r} differ from the names the runs were prepared with "
            f"({prepared.names!r}); give names to prepare_runs, not here"
        )


def train_fusion(
    qrels: Any,
    runs: Sequence[Any] | PreparedRuns,
    method: str,
    *,
    norm: str | None = "min-max",
    n_segments: int | None = None,
    names: Sequence[str] | None = None,
    n_threads: int | None = None,
) -> Any:
    """Learn what a trained method needs from training judgments ``qrels`` (relevant: grade
    >= 1, as ranx): PosFuse/SlideFuse ``probs`` (share of relevant documents at each position),
    ProbFuse ``probs`` (per segment, ``n_segments``), SegFuse ``probs``, BayesFuse
    ``log_odds``, MAPFuse ``map_scores``. The training queries are those of ``qrels``; every
    run must have them (an InvalidInputError names those a run lacks). ``n_segments`` is a
    whole number from 1 to 1,000,000 (a ranking of up to a million documents has one
    document per segment already)."""
    if method not in METHODS or METHODS[method].training is None:
        trained = [m for m, d in METHODS.items() if d.training]
        raise InvalidInputError(f"method: {method!r} is not a trained method; one of {trained}")
    _check_norm(norm)
    decl = METHODS[method]
    if isinstance(runs, PreparedRuns):
        _check_same_names(runs, names)
        read, run_names = runs._read, runs.names
    else:
        read = _read_runs(runs)
        run_names = _run_names(runs, names)
    judgments = read_qrels(qrels)
    queries = sorted(str(q) for q in judgments)
    judgments = {str(q): v for q, v in judgments.items()}
    for name, run in zip(run_names, read, strict=True):
        lacking = [q for q in queries if q not in run]
        if lacking:
            raise InvalidInputError(
                f"run {name!r} lacks {len(lacking)} training queries of qrels "
                f"({', '.join(map(repr, lacking[:5]))}); train on queries every run has"
            )
    if method == "probfuse" and n_segments is None:
        raise InvalidInputError("probfuse: training needs n_segments (ranx tries 1 to 100)")
    if n_segments is not None:
        n_segments = _whole_number("n_segments", n_segments, 1, MAX_SEGMENTS)
    aligned = [[r.get(q) for q in queries] for r in read]
    learnt = _core.train_fusion(
        aligned,
        _relevant(judgments, queries),
        queries,
        run_names,
        training=str(decl.training),
        norm=norm,
        n_segments=n_segments,
        n_threads=n_threads,
    )
    if decl.trained_parameter == "map_scores":
        return [v[0] for v in learnt]
    return learnt


def _check_norm(norm: str | None) -> None:
    aliases = {"min_max": "min-max", "min_max_inverted": "min-max-inverted"}
    if norm is not None and aliases.get(norm, norm) not in NORMALIZATIONS:
        raise InvalidInputError(
            f"norm: unknown normalisation {norm!r}; one of {', '.join(NORMALIZATIONS)} or None"
        )


def fuse(
    runs: Sequence[Any] | PreparedRuns,
    method: str = "rrf",
    norm: str | None = "min-max",
    *,
    params: Mapping[str, Any] | None = None,
    qrels: Any = None,
    n_segments: int | None = None,
    missing: str | None = None,
    name: str | None = None,
    names: Sequence[str] | None = None,
    n_threads: int | None = None,
    **kwargs: Any,
) -> FusedRun:
    """Fuse ``runs`` (each a ``{query_id: {doc_id: score}}`` dict, a TREC run path, also
    compressed, a table or a Parquet file) into one run with ranx 0.3's ``method`` after
    normalising each run with ``norm``. The defaults, ``rrf`` (reciprocal rank fusion, k = 60:
    no weight to choose) after ``min-max`` (which a rank-based method does not need, and a
    score-based one such as ``wsum`` does: raw scores of two retrievers are on different
    scales), are those of ``ragmeter fuse`` too. ranx's ``fuse`` defaults to ``wsum``, which
    needs weights: :mod:`ragmeter.compat.ranx` keeps ranx's signature.

    Parameters go in ``params`` or as keywords (``k=60``, ``weights=[...]``, ``phi=0.8``);
    SlideFuse's window ``w`` is a whole number, 0 or more.
    A trained method (posfuse, probfuse, segfuse, slidefuse, mapfuse, bayesfuse) takes its
    learnt parameter (``probs``, ``map_scores``, ``log_odds``) or training judgments
    ``qrels`` to learn it from (see :func:`train_fusion`); never the judgments of the queries
    being evaluated, unless the user means to overfit.

    Ties are broken as trec_eval breaks them: score descending, then doc id descending, in
    each run (positions) and in the fused run, so the result is the same on every call and
    for any ``n_threads``. ``missing`` says what to do with a query some runs lack:
    ``"raise"`` (an InvalidInputError naming the queries each run lacks; the default),
    ``"empty"`` (that run retrieved nothing for it) or ``"intersect"`` (fuse only the queries
    every run has).

    ``runs`` may be a :class:`PreparedRuns` (:func:`prepare_runs`): runs read once for many
    calls; its ``names`` and ``missing`` policy hold (passing others is an error).

    >>> a = {"q1": {"d1": 3.0, "d2": 2.0}}
    >>> b = {"q1": {"d2": 9.0, "d3": 1.0}}
    >>> fused = fuse([a, b], method="rrf", norm=None, k=60)
    >>> list(fused["q1"])
    ['d2', 'd1', 'd3']
    """
    if isinstance(runs, PreparedRuns):
        _check_same_names(runs, names)
        if missing is not None and missing != runs.missing:
            raise InvalidInputError(
                f"missing: {missing!r} differs from the policy the runs were prepared with "
                f"({runs.missing!r}); give missing= to prepare_runs, not here"
            )
        prepared = runs
    else:
        prepared = prepare_runs(runs, names=names, missing="raise" if missing is None else missing)
    _check_norm(norm)
    all_params = dict(params or {})
    all_params.update(kwargs)
    checked = _check_params(method, all_params, len(prepared.names))
    decl = METHODS[method]
    if decl.trained_parameter and decl.trained_parameter not in checked:
        if qrels is None:
            raise InvalidInputError(
                f"{method}: a trained method needs its {decl.trained_parameter} or training "
                "judgments qrels= to learn them from"
            )
        checked[decl.trained_parameter] = train_fusion(
            qrels, prepared, method, norm=norm, n_segments=n_segments, n_threads=n_threads
        )
    for required in decl.parameters:
        if required != "n_segments" and required not in checked:
            raise InvalidInputError(f"{method}: needs the parameter {required}")
    native = dict.fromkeys(_NATIVE_PARAMS)
    native.update(checked)
    fused = _core.fuse_prepared(
        prepared._native, method=method, norm=norm, params=native, n_threads=n_threads
    )
    return FusedRun(name or method, prepared.query_ids, fused, method, norm, checked)
