"""Fusion of TREC run files in the Rust core, without a Python object per line: each file is
indexed once (every line checked, each query's lines found), then the queries are read back,
fused and written batch by batch (``rust/core/src/fusion/files.rs``). ``fuse`` and
``train_fusion`` take this path when every run is a TREC file (plain or compressed); ``ragmeter
fuse`` also writes the fused run as it is made (:func:`write_fused_trec`), so neither the runs
nor the fused run are ever whole in memory."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import _core
from .._files import atomic_write_chunks, file_errors, path_argument
from ..io._formats import detect
from ._checks import (
    aligned_queries,
    check_norm,
    check_run_list,
    complete_params,
    run_names,
    train_with,
)

__all__ = ["FileRuns", "trec_paths", "write_fused_trec"]


def trec_paths(runs: Sequence[Any]) -> list[str] | None:
    """The runs' paths when every run is a path to a TREC run file (plain or compressed),
    else None (dicts, tables and other files are read into dicts)."""
    if isinstance(runs, Mapping | str | os.PathLike):
        return None
    if not runs or not all(isinstance(r, str | os.PathLike) for r in runs):
        return None
    paths = [path_argument(r, "run") for r in runs]
    with file_errors("run"):
        if all(detect(p).reads_as == "trec" for p in paths):
            return paths
    return None


class FileRuns:
    """TREC run files indexed once in the core (``_core.FusionFiles``), with their names and
    each file's query ids."""

    def __init__(self, paths: list[str], names: list[str], n_threads: int | None) -> None:
        with file_errors("run"):
            self.native = _core.index_fusion_files(paths, n_threads=n_threads)
        self.names = names
        self.n_threads = n_threads
        self.query_ids = [set(self.native.query_ids(r)) for r in range(len(paths))]

    def __len__(self) -> int:
        return len(self.names)

    def queries(self, missing: str) -> list[str]:
        """The queries fused under the ``missing`` policy, sorted."""
        return aligned_queries(self.query_ids, self.names, missing)

    def train(self, qrels: Any, method: str, norm: str | None, n_segments: int | None) -> Any:
        """What trained ``method`` learns from ``qrels`` (see ``train_fusion``)."""

        def learn(queries: list[str], relevant: list[list[str]]) -> list[list[float]]:
            with file_errors("run"):
                return _core.train_fusion_files(
                    self.native,
                    queries,
                    relevant,
                    method=method,
                    norm=norm,
                    n_segments=n_segments,
                    n_threads=self.n_threads,
                )

        return train_with(qrels, method, n_segments, self.names, self.query_ids, learn)

    def params(
        self,
        method: str,
        norm: str | None,
        given: dict[str, Any],
        qrels: Any,
        n_segments: int | None,
    ) -> dict[str, Any]:
        """The checked parameters of ``method`` (a trained one's learnt from ``qrels``)."""
        check_norm(norm)
        return complete_params(
            method,
            given,
            len(self),
            qrels,
            lambda: self.train(qrels, method, norm, n_segments),
        )


def write_fused_trec(
    runs: Sequence[str | os.PathLike[str]],
    path: str | os.PathLike[str],
    *,
    method: str,
    norm: str | None,
    params: dict[str, Any],
    tag: str,
    qrels: Any = None,
    n_segments: int | None = None,
    missing: str = "raise",
    names: Sequence[str] | None = None,
    n_threads: int | None = None,
) -> int:
    """Fuse the TREC run files ``runs`` and write the fused run to ``path`` (atomically),
    batch by batch as it is made: the bytes ``fuse(runs, ...).write_trec(path)`` writes, in
    memory bounded by a batch. Returns the number of queries written."""
    check_run_list(runs)
    paths = trec_paths(runs)
    if paths is None:
        raise ValueError("write_fused_trec reads TREC run files only")
    files = FileRuns(paths, run_names(runs, names), n_threads)
    queries = files.queries(missing)
    checked = files.params(method, norm, params, qrels, n_segments)
    chunks = _core.fused_trec_chunks(
        files.native,
        queries,
        method=method,
        norm=norm,
        params=checked,
        tag=tag,
        n_threads=n_threads,
    )
    with file_errors("run"):
        atomic_write_chunks(Path(path), chunks)
    return len(queries)
