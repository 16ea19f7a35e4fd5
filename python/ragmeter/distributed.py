"""Many TREC runs evaluated on a Dask cluster: one task per run file.

A benchmark campaign compares many systems against one set of judgments. Each run is evaluated
exactly as :func:`ragmeter.evaluate_trec` evaluates it (the same function runs on the worker), so
a result never depends on where it was computed; the cluster only spreads the runs over more
machines. Needs the ``dask`` extra: ``pip install 'ragmeter[dask]'``.

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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ._optional import import_optional
from ._progress import Progress, progress_hook
from .exceptions import InputTypeError, InvalidInputError
from .io.trec import TREC_DEFAULT_METRICS, evaluate_trec, trec_options
from .options import Duplicates, Missing, ZeroDivision, check_choice
from .ranking.names import measures_of
from .ranking.results import MetricResults

__all__ = ["RunFailure", "RunOutcome", "evaluate_runs", "map_runs"]

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
        return default_client()
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
    qrels = os.fspath(qrels_path)

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

            with Callback(posttask=posttask):
                return list(dask.compute(*tasks))
        futures = client.compute(tasks)
        if progress:
            from dask.distributed import as_completed

            for _ in as_completed(futures):
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
    judged_only: bool = False,
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
        The judgments and the runs, as paths the workers can open.
    metrics, per_query, complete, max_docs, missing, relevance_threshold, zero_division, \
duplicates, judged_only, collection_size, n_threads
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
        judged_only=judged_only,
        collection_size=collection_size,
        n_threads=n_threads,
    )
    if isinstance(run_paths, str | bytes | os.PathLike):
        raise InputTypeError(
            f"run_paths: expected a list of paths, got one path ({run_paths!r}); wrap it in a list"
        )
    paths = [os.fspath(p) for p in run_paths]
    if any(not isinstance(p, str) for p in paths):
        raise InputTypeError("run_paths: every path must be a str or os.PathLike of str")
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
        "judged_only": judged_only,
        "collection_size": collection_size,
        "n_threads": n_threads,
    }
    outcomes = map_runs(
        evaluate_trec,
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
