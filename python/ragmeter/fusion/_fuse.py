"""`fuse`: several runs into one, in the Rust core (see `declarations` for the methods)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .. import _core
from .._files import atomic_write_chunks, file_errors
from .._notebook import NotebookDisplay
from ..exceptions import InvalidInputError
from ..io import read_run
from ._checks import (
    aligned_queries,
    check_norm,
    check_run_list,
    check_trained,
    complete_params,
    run_names,
    train_with,
)
from ._files import FileRuns, trec_paths
from .declarations import DEFAULT_METHOD, DEFAULT_NORM

__all__ = ["FusedRun", "PreparedRuns", "fuse", "prepare_runs", "train_fusion"]


class FusedRun(NotebookDisplay):
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
        """Write the run as a TREC run file tagged with its name (trec_eval reads it): the
        bytes :func:`~ragmeter.io.trec.write_trec_run` writes for ``to_dict()``, written by the
        core from the fused rows, in pieces (no dict is built)."""
        atomic_write_chunks(
            path, _core.fused_rows_trec_chunks(self._fused, self._query_ids, tag=self.name)
        )

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
    names_ = run_names(runs, names)
    queries = aligned_queries(read, names_, missing)
    aligned = [[r.get(q) for q in queries] for r in read]
    native = _core.prepare_fusion_runs(aligned, queries, names_)
    return PreparedRuns(read, names_, missing, queries, native)


def _read_runs(runs: Sequence[Any]) -> list[Mapping[Any, Any]]:
    check_run_list(runs)
    return [read_run(r) for r in runs]


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
    norm: str | None = DEFAULT_NORM,
    n_segments: int | None = None,
    names: Sequence[str] | None = None,
    n_threads: int | None = None,
) -> Any:
    """Learn what a trained method needs from training judgments ``qrels`` (relevant: grade
    >= 1, as ranx): PosFuse/SlideFuse ``probs`` (share of relevant documents at each position),
    ProbFuse ``probs`` (per segment, ``n_segments``), SegFuse ``probs``, BayesFuse
    ``log_odds``, MAPFuse ``map_scores``. The training queries are those of ``qrels``; every
    run must have them (an InvalidInputError names those a run lacks). TREC run files are read
    by the core, without dicts."""
    check_trained(method, norm)
    if isinstance(runs, PreparedRuns):
        _check_same_names(runs, names)
        read, names_ = runs._read, runs.names
    else:
        check_run_list(runs)
        paths = trec_paths(runs)
        if paths is not None:
            files = FileRuns(paths, run_names(runs, names), n_threads)
            return files.train(qrels, method, norm, n_segments)
        read = _read_runs(runs)
        names_ = run_names(runs, names)

    def learn(queries: list[str], relevant: list[list[str]]) -> list[list[float]]:
        return _core.train_fusion(
            [[r.get(q) for q in queries] for r in read],
            relevant,
            queries,
            names_,
            method=method,
            norm=norm,
            n_segments=n_segments,
            n_threads=n_threads,
        )

    return train_with(qrels, method, n_segments, names_, read, learn)


def fuse(
    runs: Sequence[Any] | PreparedRuns,
    method: str = DEFAULT_METHOD,
    norm: str | None = DEFAULT_NORM,
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

    Parameters go in ``params`` or as keywords (``k=60``, ``weights=[...]``, ``phi=0.8``).
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

    When every run is a TREC file the core reads the files itself, batch by batch, and no
    Python object is made per line (the fused run stays in the core until a form is asked
    for); with ``missing="intersect"`` the queries left out are checked line by line but not
    for a document listed twice.

    ``runs`` may be a :class:`PreparedRuns` (:func:`prepare_runs`): runs read once for many
    calls; its ``names`` and ``missing`` policy hold (passing others is an error).

    >>> a = {"q1": {"d1": 3.0, "d2": 2.0}}
    >>> b = {"q1": {"d2": 9.0, "d3": 1.0}}
    >>> fused = fuse([a, b], method="rrf", norm=None, k=60)
    >>> list(fused["q1"])
    ['d2', 'd1', 'd3']
    """
    given = dict(params or {})
    given.update(kwargs)
    if isinstance(runs, PreparedRuns):
        _check_same_names(runs, names)
        if missing is not None and missing != runs.missing:
            raise InvalidInputError(
                f"missing: {missing!r} differs from the policy the runs were prepared with "
                f"({runs.missing!r}); give missing= to prepare_runs, not here"
            )
        prepared = runs
    else:
        check_run_list(runs)
        paths = trec_paths(runs)
        if paths is not None:
            files = FileRuns(paths, run_names(runs, names), n_threads)
            queries = files.queries("raise" if missing is None else missing)
            checked = files.params(method, norm, given, qrels, n_segments)
            with file_errors("run"):
                rows = _core.fuse_files(
                    files.native,
                    queries,
                    method=method,
                    norm=norm,
                    params=checked,
                    n_threads=n_threads,
                )
            return FusedRun(name or method, queries, rows, method, norm, checked)
        prepared = prepare_runs(runs, names=names, missing="raise" if missing is None else missing)
    check_norm(norm)
    checked = complete_params(
        method,
        given,
        len(prepared.names),
        qrels,
        lambda: train_fusion(
            qrels, prepared, method, norm=norm, n_segments=n_segments, n_threads=n_threads
        ),
    )
    fused = _core.fuse_prepared(
        prepared._native, method=method, norm=norm, params=checked, n_threads=n_threads
    )
    return FusedRun(name or method, prepared.query_ids, fused, method, norm, checked)
