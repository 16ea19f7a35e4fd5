"""Runs evaluated on a Dask cluster: many runs, one task per run file
(:func:`evaluate_runs`), or one run too large for a machine, one task per partition
(:func:`evaluate_partitioned`).

A benchmark campaign compares many systems against one set of judgments. Each run is evaluated
exactly as :func:`ragmeter.io.evaluate` evaluates it (the same function runs on the worker, for
files of any format), so a result never depends on where it was computed; the cluster only
spreads the runs over more machines. Needs the ``dask`` extra: ``pip install 'ragmeter[dask]'``.

One huge run is a Parquet dataset (a directory of files, plain or hive-partitioned by query id)
or several run files of any format, partitioned by query id: each query's rows are in one
partition. Each partition's per-query values are computed on a worker; the driver checks that
no query is in two partitions (an error names it), adds the judged queries no partition has
(``complete=True``) and summarises the values exactly as on one machine: means add the
per-query values one by one in trec_eval's order (query ids sorted byte-wise).

Rules:

* The qrels and run paths are opened by the workers: they must name the same files there (a
  shared file system, or the same local paths on a single machine).
* Results come back keyed by each run path as given (``str(path)``), in the order given.
* Warnings raised while evaluating a run (e.g. :class:`~ragmeter.UndefinedMetricWarning` for a
  query without relevant documents under ``zero_division="warn"``) are raised again on the
  calling side, prefixed with the run's path, so they are not lost in a worker's log.
* ``on_error="raise"`` (the default) stops at the first run that cannot be evaluated (a parse
  error names the file and line); ``on_error="record"`` returns a :class:`RunFailure` for that
  run and evaluates the others, including a run whose task never finished because it killed its
  worker (``KilledWorker``, once the scheduler's ``allowed-failures`` retries are spent). Runs
  lost along with such a worker (they were on it when it died) are evaluated again one at a
  time, alone, so that they come back and only the run that kills its worker fails. A
  failure is never turned into scores.
* ``n_threads`` is per run: each task uses that many threads of the Rust core on its worker
  (default: ``RAGMETER_NUM_THREADS`` or all the worker machine's cores). With several worker
  processes per machine, set it (or ``RAGMETER_NUM_THREADS`` on the workers) so that they do
  not oversubscribe the cores.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ._files import path_argument
from ._inputs import AlignedQueries, TableColumns
from ._optional import import_optional
from ._progress import Progress, progress_hook
from .exceptions import InputTypeError, InvalidInputError
from .io import evaluate, evaluation_values, read_qrels
from .io.trec import TREC_DEFAULT_METRICS, trec_options
from .options import Duplicates, EvaluationOptions, Missing, ZeroDivision, check_choice
from .ranking.evaluation import QueryValues, summarize
from .ranking.metric_results import MetricResults
from .ranking.names import measures_of

__all__ = ["RunFailure", "RunOutcome", "evaluate_partitioned", "evaluate_runs", "map_runs"]

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class RunFailure:
    """A run that could not be evaluated (``on_error="record"``): no score stands in for it."""

    run_path: str
    error_type: str
    message: str

    def __str__(self) -> str:
        return f"{self.run_path}: {self.error_type}: {self.message}"


@dataclass(frozen=True)
class RunOutcome:
    """What a task sends back: the result (or failure) and the warnings raised on the worker."""

    result: Any
    warnings: tuple[tuple[type[Warning], str], ...]


def _evaluate_one(
    function: Callable[..., Any],
    qrels_path: str,
    run_path: str,
    options: dict[str, Any],
    record_errors: bool,
) -> RunOutcome:
    """Runs on a worker: ``function(qrels_path, run_path, **options)``, warnings kept."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = function(qrels_path, run_path, **options)
        except Exception as exc:
            if not record_errors:
                raise
            result = RunFailure(run_path, type(exc).__name__, str(exc))
    return RunOutcome(result, tuple((w.category, str(w.message)) for w in caught))


def _default_client() -> Any:
    """The ``Client`` Dask's ``compute`` would use by default, or None (local schedulers)."""
    try:
        from dask.distributed import default_client
    except ImportError:
        return None
    try:
        return default_client()  # type: ignore[no-untyped-call]
    except ValueError:
        return None


def map_runs(
    function: Callable[..., Any],
    qrels_path: PathLike,
    run_paths: Sequence[str],
    options: dict[str, Any],
    *,
    client: Any = None,
    record_errors: bool = False,
    progress: Progress = None,
) -> list[RunOutcome]:
    """``function(qrels_path, run, **options)`` for every run, one Dask task each, in order.

    ``function`` must be importable on the workers (a module-level function of ragmeter).
    ``progress`` ticks as runs finish, in the order they finish."""
    dask = import_optional("dask", extra="dask", purpose="evaluating runs on Dask")
    qrels = path_argument(qrels_path, "qrels_path")

    def task(path: str) -> Any:
        return dask.delayed(_evaluate_one, pure=False)(
            function, qrels, path, options, record_errors
        )

    tasks = [task(path) for path in run_paths]
    tick, close_progress = progress_hook(
        progress, len(tasks), description="evaluating runs", unit="run"
    )
    if client is None:
        client = _default_client()
    try:
        if client is None:
            # Dask's local schedulers call `posttask` after every task; each run is one task.
            keys = {task.key for task in tasks}
            from dask.callbacks import Callback

            def posttask(key: Any, *_: Any) -> None:
                if key in keys:
                    tick()

            with Callback(posttask=posttask):  # type: ignore[no-untyped-call]
                return list(dask.compute(*tasks))
        futures = client.compute(tasks)
        if progress:
            from dask.distributed import as_completed

            for _ in as_completed(futures):  # type: ignore[no-untyped-call]
                tick()
        if not record_errors:
            return list(client.gather(futures))
        # Each run on its own: a run that kills its worker (KilledWorker, once the scheduler
        # gives up on it) is that run's failure; the others come back.
        outcomes = [
            _outcome_or_failure(future, path)
            for future, path in zip(futures, run_paths, strict=True)
        ]
        lost = [i for i, outcome in enumerate(outcomes) if _lost_with_a_worker(outcome)]
        if len(lost) > 1:
            # A run that was on a worker each time another run killed it is lost with it:
            # the lost runs are evaluated again one at a time, alone, so that only a run that
            # kills its worker by itself fails again.
            for i in lost:
                outcomes[i] = _outcome_or_failure(client.compute(task(run_paths[i])), run_paths[i])
        return outcomes
    finally:
        close_progress()


def _lost_with_a_worker(outcome: RunOutcome) -> bool:
    result = outcome.result
    return isinstance(result, RunFailure) and result.error_type == "KilledWorker"


def _outcome_or_failure(future: Any, run_path: str) -> RunOutcome:
    """The outcome of a finished task; a task that failed outside the evaluation (its worker
    died, the cluster lost it) becomes a :class:`RunFailure`."""
    try:
        outcome: RunOutcome = future.result()
    except Exception as exc:
        detail = str(exc) or repr(exc)
        return RunOutcome(RunFailure(run_path, type(exc).__name__, detail), ())
    return outcome


def evaluate_runs(
    qrels_path: PathLike,
    run_paths: Iterable[PathLike],
    *,
    metrics: Iterable[str] | str = TREC_DEFAULT_METRICS,
    per_query: bool = False,
    complete: bool = False,
    max_docs: int | None = None,
    missing: Missing | None = None,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Duplicates = "raise",
    judged_docs_only: bool = False,
    collection_size: int = 0,
    n_threads: int | None = None,
    client: Any = None,
    on_error: Literal["raise", "record"] = "raise",
    progress: Progress = None,
) -> dict[str, MetricResults | RunFailure]:
    """Evaluate several TREC run files against one qrels file, one Dask task per run.

    Parameters
    ----------
    qrels_path, run_paths
        The judgments and the runs, as paths the workers can open, in any of the formats of
        :data:`ragmeter.io.FORMATS`.
    metrics, per_query, complete, max_docs, missing, relevance_threshold, zero_division, \
duplicates, judged_docs_only, collection_size, n_threads
        As in :func:`ragmeter.evaluate_trec`, applied to every run.
    client
        A ``dask.distributed.Client``; ``None`` uses Dask's current default scheduler (a
        ``Client`` created earlier in the process, else local threads).
    on_error
        ``"raise"`` or ``"record"`` (a :class:`RunFailure` in place of that run's results).
    progress
        ``True`` for a tqdm bar over the runs (``ragmeter[progress]``), or a callable
        ``(done, total)`` called as runs finish.

    Returns
    -------
    dict
        ``{str(run_path): MetricResults or RunFailure}``, in the order of ``run_paths``.

    Examples
    --------
    >>> from dask.distributed import Client  # doctest: +SKIP
    >>> with Client("tcp://scheduler:8786") as client:  # doctest: +SKIP
    ...     results = evaluate_runs("qrels.txt", ["bm25.run", "dense.run"], client=client)
    >>> results["bm25.run"]["map"]  # doctest: +SKIP
    """
    # Every argument is checked here, before anything is sent to a worker.
    check_choice("on_error", on_error, ("raise", "record"))
    measures_of(metrics)
    trec_options(
        complete=complete,
        missing=missing,
        max_docs=max_docs,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        judged_docs_only=judged_docs_only,
        collection_size=collection_size,
        n_threads=n_threads,
    )
    if isinstance(run_paths, str | bytes | os.PathLike):
        raise InputTypeError(
            f"run_paths: expected a list of paths, got one path ({run_paths!r}); wrap it in a list"
        )
    if isinstance(run_paths, Mapping) or not isinstance(run_paths, Iterable):
        raise InputTypeError(f"run_paths: expected a list of paths, got {type(run_paths).__name__}")
    path_argument(qrels_path, "qrels_path")
    paths = [path_argument(p, f"run_paths[{i}]") for i, p in enumerate(run_paths)]
    repeated = sorted({p for p in paths if paths.count(p) > 1})
    if repeated:
        raise InvalidInputError(
            f"run_paths: {repeated} given more than once; each run is one result"
        )
    if not paths:
        return {}
    options = {
        "metrics": metrics if isinstance(metrics, str) else list(metrics),
        "per_query": per_query,
        "complete": complete,
        "max_docs": max_docs,
        "missing": missing,
        "relevance_threshold": relevance_threshold,
        "zero_division": zero_division,
        "duplicates": duplicates,
        "judged_docs_only": judged_docs_only,
        "collection_size": collection_size,
        "n_threads": n_threads,
    }
    outcomes = map_runs(
        evaluate,
        qrels_path,
        paths,
        options,
        client=client,
        record_errors=on_error == "record",
        progress=progress,
    )
    results: dict[str, MetricResults | RunFailure] = {}
    for path, outcome in zip(paths, outcomes, strict=True):
        for category, message in outcome.warnings:
            warnings.warn(f"{path}: {message}", category, stacklevel=2)
        results[path] = outcome.result
    return results


@dataclass(frozen=True)
class _PartitionValues:
    """What a partition's task sends back: the per-query values of its judged queries and the
    ids of its queries without judgments."""

    name: str
    query_ids: list[Any]
    numbers: np.ndarray
    texts: dict[int, list[str]]
    complete_totals: dict[int, np.ndarray]
    unjudged: list[Any]


def _hive_reader(path: str, root: str, columns: TableColumns) -> Any:
    """The rows of one file of a hive-partitioned dataset (``root/query_id=q1/part.parquet``),
    with the partition keys as columns (ids as text)."""
    pyarrow = import_optional("pyarrow", extra="arrow", purpose=f"reading {path}")
    dataset_module = import_optional("pyarrow.dataset", extra="arrow", purpose=f"reading {path}")
    keys = [
        part.split("=", 1)[0]
        for part in os.path.relpath(os.path.dirname(path), root).split(os.sep)
        if "=" in part
    ]
    partitioning = dataset_module.partitioning(
        pyarrow.schema([(key, pyarrow.string()) for key in keys]), flavor="hive"
    )
    dataset = dataset_module.dataset(
        [path], format="parquet", partitioning=partitioning, partition_base_dir=root
    )
    return dataset.scanner().to_reader()


def _partition_values(
    qrels: str,
    partition: str,
    root: str | None,
    metrics: list[str] | str,
    options: EvaluationOptions,
    columns: TableColumns,
) -> _PartitionValues:
    """Runs on a worker: the per-query values of one partition of a run (its judged queries
    only: the driver deals with judged queries no partition has)."""
    source: Any = partition
    # The driver sets runid; an in-memory partition has no file name to take it from.
    run_tag = None
    if root is not None and any(
        "=" in part for part in os.path.relpath(partition, root).split(os.sep)
    ):
        source = _hive_reader(partition, root, columns)
        run_tag = ""
    values = evaluation_values(
        qrels,
        source,
        metrics,
        options.replace(missing="zero" if options.missing == "zero" else "skip"),
        columns=columns,
        run_tag=run_tag,
        allow_empty=True,
    )
    absent = set(values.queries.missing_from_run)
    if absent:
        # Judged queries of other partitions (scored here as empty rankings under -c).
        values = values.select(
            np.array([q not in absent for q in values.queries.query_ids], dtype=bool)
        )
    return _PartitionValues(
        name=partition,
        query_ids=list(values.queries.query_ids),
        numbers=values.numbers,
        texts=values.texts,
        complete_totals=values.complete_totals,
        unjudged=list(values.queries.unjudged),
    )


def _partitions(run: PathLike | Sequence[PathLike]) -> tuple[list[str], str | None]:
    """The partition files of a run (and the dataset directory, if it is one)."""
    if isinstance(run, str | bytes | os.PathLike):
        root = path_argument(run, "run")
        if not os.path.isdir(root):
            return [root], None
        files = sorted(
            os.path.join(folder, name)
            for folder, _, names in os.walk(root)
            for name in names
            if not name.startswith((".", "_"))
        )
        if not files:
            raise InvalidInputError(f"run: the directory {root!r} holds no partition file")
        return files, root
    if isinstance(run, Mapping) or not isinstance(run, Iterable):
        raise InputTypeError(
            f"run: expected a path or a list of partition paths, got {type(run).__name__}"
        )
    paths = [path_argument(p, f"run[{i}]") for i, p in enumerate(run)]
    if not paths:
        raise InputTypeError("run: a list of partition paths (str or os.PathLike) is expected")
    return paths, None


def evaluate_partitioned(
    qrels: PathLike,
    run: PathLike | Sequence[PathLike],
    *,
    metrics: Iterable[str] | str = TREC_DEFAULT_METRICS,
    per_query: bool = False,
    complete: bool = False,
    max_docs: int | None = None,
    missing: Missing | None = None,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Duplicates = "raise",
    judged_docs_only: bool = False,
    collection_size: int = 0,
    n_threads: int | None = None,
    client: Any = None,
    run_tag: str | None = None,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    relevance_col: str = "relevance",
    score_col: str = "score",
    rank_col: str = "rank",
) -> MetricResults:
    """Evaluate one run too large for a machine, partitioned by query id, one Dask task per
    partition; the numbers are those of :func:`ragmeter.io.evaluate` on the whole run, to the
    last digit.

    Parameters
    ----------
    qrels
        The judgments, as a path the workers and the caller can open (any format).
    run
        A directory of Parquet files (a dataset, plain or hive-partitioned by query id:
        ``run/query_id=q1/part-0.parquet``; each file is a partition) or a list of run files in
        any format (each a partition), as paths the workers can open. Every query's rows must
        be in one partition: a query found in two is an error naming it and both partitions
        (repartition the run by query id first, e.g. with Dask's ``shuffle(query_col)``).
    metrics, per_query, complete, max_docs, missing, relevance_threshold, zero_division, \
duplicates, judged_docs_only, collection_size, n_threads
        As in :func:`ragmeter.evaluate_trec`; ``n_threads`` is per task.
    client
        A ``dask.distributed.Client``; ``None`` uses Dask's current default scheduler.
    run_tag
        The value of ``runid`` (default: the name of the dataset directory; for a list of
        files, the last partition's: its last line's tag for TREC files, else its name
        without the suffix).
    query_col, doc_col, relevance_col, score_col, rank_col
        Column names of tables (as in :func:`ragmeter.io.evaluate`).

    Returns
    -------
    MetricResults
        As :func:`ragmeter.io.evaluate` returns for the whole run: means added in trec_eval's
        order, or per-query values with ``per_query=True``; ``unjudged`` lists the run's queries
        without judgments.

    Examples
    --------
    >>> from dask.distributed import Client  # doctest: +SKIP
    >>> with Client("tcp://scheduler:8786") as client:  # doctest: +SKIP
    ...     means = evaluate_partitioned("qrels.txt", "run.parquet/", client=client)
    """
    dask = import_optional("dask", extra="dask", purpose="evaluating a partitioned run on Dask")
    options = trec_options(
        complete=complete,
        missing=missing,
        max_docs=max_docs,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        judged_docs_only=judged_docs_only,
        collection_size=collection_size,
        n_threads=n_threads,
    )
    measures = measures_of(metrics)
    metric_names = metrics if isinstance(metrics, str) else list(metrics)
    columns = TableColumns(query_col, doc_col, relevance_col, score_col, rank_col)
    qrels_path = path_argument(qrels, "qrels")
    paths, root = _partitions(run)
    tasks = [
        dask.delayed(_partition_values, pure=False)(
            qrels_path, path, root, metric_names, options, columns
        )
        for path in paths
    ]
    if client is None:
        client = _default_client()
    if client is None:
        parts: list[_PartitionValues] = list(dask.compute(*tasks))
    else:
        parts = list(client.gather(client.compute(tasks)))
    # Each query in one partition.
    seen: dict[Any, str] = {}
    for part in parts:
        for query in [*part.query_ids, *part.unjudged]:
            if query in seen:
                raise InvalidInputError(
                    f"run: query {query!r} is in two partitions, {seen[query]!r} and "
                    f"{part.name!r}; each query's rows must be in one partition (repartition "
                    f"the run by query id, e.g. with Dask's shuffle({query_col!r}))"
                )
            seen[query] = part.name
    query_ids = [q for part in parts for q in part.query_ids]
    numbers = np.vstack([part.numbers for part in parts]) if parts else np.empty((0, len(measures)))
    texts = {c: [t for part in parts for t in part.texts.get(c, [])] for c in parts[0].texts}
    totals = {
        c: np.concatenate([part.complete_totals[c] for part in parts])
        for c in parts[0].complete_totals
    }
    unjudged = [q for part in parts for q in part.unjudged]
    # Judged queries in no partition.
    judgments = read_qrels(
        qrels_path,
        n_threads=n_threads,
        query_col=query_col,
        doc_col=doc_col,
        relevance_col=relevance_col,
    )
    present = set(query_ids)
    absent = [q for q in judgments if q not in present]
    if absent and options.missing == "raise":
        shown = ", ".join(repr(q) for q in absent[:5])
        more = f", ... ({len(absent)} in all)" if len(absent) > 5 else ""
        raise InvalidInputError(
            f"run: judged topics missing from the run: {shown}{more}. Pass complete=True to "
            f"score them as empty rankings (trec_eval -c), or missing='skip' to average over "
            f"the topics the run has"
        )
    if absent and options.missing == "zero":
        empty = evaluation_values(
            {q: judgments[q] for q in absent},
            {},
            metric_names,
            options,
            run_tag="",
            allow_empty=True,
        )
        query_ids += list(empty.queries.query_ids)
        numbers = np.vstack([numbers, empty.numbers])
        for c in texts:
            texts[c] += empty.texts.get(c, [])
        for c in totals:
            totals[c] = np.concatenate([totals[c], empty.complete_totals[c]])
    if not query_ids:
        raise InvalidInputError(f"run: no judged topic of {qrels_path!r} is in the run")
    tag = run_tag
    if tag is None and root is not None:
        tag = os.path.basename(os.path.normpath(root))
    if tag is None:
        tags = [
            part.texts[c][-1]
            for part in parts
            for c, m in enumerate(measures)
            if m.family.name == "runid" and part.texts.get(c)
        ]
        tag = tags[-1] if tags else None
    for c, measure in enumerate(measures):
        if measure.family.name == "runid" and tag is not None:
            texts[c] = [tag] * len(query_ids)
    values = QueryValues(
        measures=measures,
        numbers=numbers,
        queries=AlignedQueries(
            query_ids=query_ids,
            judgments=[],
            rankings=[],
            keyed=True,
            missing_from_run=absent,
            unjudged=unjudged,
        ),
        options=options,
        texts=texts,
        complete_totals=totals,
    )
    return summarize(
        values,
        average=None if per_query else "mean",
        stacklevel=2,
        producer="ragmeter.distributed",
    )
