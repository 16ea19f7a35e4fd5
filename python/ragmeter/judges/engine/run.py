"""One evaluation run: every (sample, metric, judge) scored, concurrently, with its costs.

Every (sample, metric, judge) is independent: a failure becomes an ``error`` score with a reason
code, except a fatal endpoint error (wrong key, URL or model, exhausted quota) which stops the
run, since every further call would fail the same way. Finished calls are in the cache (when
one is given), so a rerun resumes where an interrupted run stopped.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import platform
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from typing import Any

from ... import __version__
from ..._progress import progress_hook
from ...exceptions import (
    InvalidInputError,
    JudgeBatchPending,
    JudgeConfigurationError,
    JudgeOutputError,
    JudgeOutputTruncatedError,
    JudgeTransportError,
    MissingDependencyError,
)
from ..accounting import CallStats
from ..clients.protocol import (
    Embedder,
    Judge,
    embedder_identity,
    endpoints,
    judge_identity,
    manifest_identity,
)
from ..clients.resolve import resolve_embedder
from ..clients.secrets import redact
from ..context import JudgeContext
from ..panel import Panel
from ..repeats import combine_repeats
from ..results import JudgeResults, SampleResult
from ..sample import Sample, coerce_samples
from ..score import Score
from .batch import BatchRun
from .cache import JudgeCache, open_cache
from .protocol import ScoringMetric
from .resolve import resolve_run_judge
from .runtime import JudgeCallError, Runtime
from .settings import OnError, RunOptions, RunSettings, resolve_progress
from .tasks import gather_all

__all__ = ["close_clients", "run_evaluation"]


def _error_score(exc: BaseException) -> Score:
    # Messages may quote what a server or a judge callable said: no credential goes past here.
    if isinstance(exc, JudgeOutputTruncatedError):
        return Score.error("judge_output_truncated", redact(str(exc)))
    if isinstance(exc, JudgeOutputError):
        return Score.error("judge_output_invalid", redact(str(exc)))
    if isinstance(exc, JudgeTransportError):
        code = "judge_unavailable" if exc.retryable else "judge_request_rejected"
        return Score.error(code, redact(str(exc)))
    if isinstance(exc, JudgeCallError):
        return Score.error("judge_exception", redact(str(exc)))
    return Score.error("metric_exception", redact(f"{type(exc).__name__}: {exc}"))


async def _score_one(
    runtime: Runtime,
    metric: ScoringMetric,
    sample: Sample,
    judge: Judge,
    embedder: Embedder | None,
    on_error: OnError,
    repeat: int = 0,
) -> tuple[Score, CallStats]:
    stats = CallStats()
    unscorable = metric.check_fields(sample)
    if unscorable is not None:
        return unscorable, stats
    ctx = JudgeContext(runtime, judge, stats, embedder=embedder, metric=metric.name, repeat=repeat)
    try:
        score = await metric.score(sample, ctx)
    except JudgeTransportError as exc:
        if exc.fatal or on_error == "raise":
            raise
        score = _error_score(exc)
    except (
        JudgeConfigurationError,
        MissingDependencyError,
        JudgeBatchPending,
        asyncio.CancelledError,
    ):
        # Every other sample would fail the same way: stop instead of recording each.
        raise
    except Exception as exc:
        if on_error == "raise":
            raise
        score = _error_score(exc)
    if not isinstance(score, Score):
        raise InvalidInputError(
            f"metric {metric.name!r} returned {type(score).__name__}, expected a Score"
        )
    if ctx.injection_findings:
        # A flag beside the judge's verdict, never a change to it (value and status stay).
        evidence = {**score.evidence, "injection_suspected": list(ctx.injection_findings)}
        score = replace(score, evidence=evidence)
    return score, stats


def _manifest(
    judge: Judge | Panel,
    embedder: Embedder | None,
    metrics: Sequence[ScoringMetric],
    settings: RunSettings,
    cache: JudgeCache,
    n_samples: int,
    repeats: int = 1,
    flaky_threshold: float = 0.5,
    batch: dict[str, Any] | None = None,
) -> dict[str, Any]:
    judges = list(judge.judges) if isinstance(judge, Panel) else [judge]
    # Who judged, without where it was served: the same model on another host or port is the
    # same judge (a stored gate baseline compares with the next run); the URLs are recorded
    # apart, for the record only.
    identities = [judge_identity(judge), None if embedder is None else embedder_identity(embedder)]
    return {
        "library": "ragmeter",
        "version": __version__,
        "python": platform.python_version(),
        "created_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "n_samples": n_samples,
        "judge": manifest_identity(identities[0]),
        "judges": [manifest_identity(judge_identity(j)) for j in judges],
        "embedder": manifest_identity(identities[1]),
        "endpoints": endpoints(identities),
        "metrics": [m.describe() for m in metrics],
        "settings": settings.to_dict(),
        "repeats": repeats,
        "flaky_threshold": flaky_threshold,
        **({"batch": batch} if batch is not None else {}),
        "cache": cache.describe(),
    }


async def close_clients(clients: Sequence[Any]) -> None:
    """Close the connections of every judge and embedder that has an ``aclose``."""
    for client in clients:
        close = getattr(client, "aclose", None)
        if close is not None:
            await close()


async def run_evaluation(
    samples: Any,
    metrics: Sequence[ScoringMetric],
    options: RunOptions,
    *,
    close_clients_after: bool = False,
    sleep: Callable[[float], Awaitable[None]] | None = None,
) -> JudgeResults:
    """Judge every sample with every metric as ``options`` say (see ``evaluate``).

    ``metrics`` are metric objects (``evaluate`` resolves names with
    :func:`ragmeter.judges.registry.resolve_metrics`).
    """
    sample_list = coerce_samples(samples)
    metric_list = list(metrics)
    the_judge = resolve_run_judge(options.judge, metric_list)
    needs_embedder = [m.name for m in metric_list if m.needs_embedder]
    the_embedder = (
        resolve_embedder(options.embedder, required_by=", ".join(needs_embedder))
        if needs_embedder or options.embedder is not None
        else None
    )
    the_cache = open_cache(options.cache, options.cache_mode)
    owns_cache = not isinstance(options.cache, JudgeCache)
    batch = None if options.batch is None else BatchRun(options.batch)
    runtime = Runtime(cache=the_cache, settings=options.settings, sleep=sleep, batch=batch)
    judges = list(the_judge.judges) if isinstance(the_judge, Panel) else [the_judge]
    units = [(s, m) for s in sample_list for m in metric_list]
    tick, close_progress = progress_hook(
        resolve_progress(options.progress), len(units), description="judging", unit="score"
    )
    # In batch mode every unit must be able to put its calls in the round at once.
    gate = asyncio.Semaphore(len(units) + 1 if batch is not None else options.max_pending)

    async def one_repeat(sample: Sample, metric: ScoringMetric, repeat: int) -> SampleResult:
        outcomes = await gather_all(
            *(
                _score_one(runtime, metric, sample, j, the_embedder, options.on_error, repeat)
                for j in judges
            )
        )
        usage = {j.name: stats for j, (_, stats) in zip(judges, outcomes, strict=True)}
        if isinstance(the_judge, Panel):
            per_judge = {j.name: score for j, (score, _) in zip(judges, outcomes, strict=True)}
            score = the_judge.combine(per_judge)
            return SampleResult(
                sample.id or "", metric.name, score, the_judge.name, per_judge, usage
            )
        return SampleResult(
            sample.id or "", metric.name, outcomes[0][0], the_judge.name, None, usage
        )

    async def unit(sample: Sample, metric: ScoringMetric) -> SampleResult:
        async with gate:
            tries = await gather_all(
                *(one_repeat(sample, metric, r) for r in range(options.repeats))
            )
        tick()
        if options.repeats == 1:
            return tries[0]
        usage: dict[str, CallStats] = {}
        for attempt in tries:
            for name, stats in attempt.usage.items():
                usage.setdefault(name, CallStats()).add(stats)
        return SampleResult(
            sample.id or "",
            metric.name,
            combine_repeats([t.score for t in tries], options.flaky_threshold),
            the_judge.name,
            # A panel's per-judge scores are those of the first repeat (every repeat's
            # aggregate is in ``repeats``).
            tries[0].judge_scores,
            usage,
            repeats=tuple(t.score for t in tries),
        )

    try:
        try:
            rows = await gather_all(*(unit(s, m) for s, m in units))
        finally:
            if batch is not None:
                await batch.close()
            close_progress()
            runtime.log_summary()
            if close_clients_after:
                await close_clients(runtime.used_clients())
            # Finished calls must be on disk before returning or raising, so a rerun resumes.
            await asyncio.to_thread(the_cache.flush)
        manifest = _manifest(
            the_judge,
            the_embedder,
            metric_list,
            options.settings,
            the_cache,
            len(sample_list),
            options.repeats,
            options.flaky_threshold,
            None
            if batch is None
            else {
                "directory": str(options.batch.directory if options.batch else ""),
                "lines_submitted": batch.lines_sent,
                "batches_submitted": batch.rounds_sent,
            },
        )
    finally:
        if owns_cache:
            await asyncio.to_thread(the_cache.close)
    models = {j.name: str(judge_identity(j).get("model") or j.name) for j in judges}
    if the_embedder is not None and judge_identity(the_embedder).get("model"):
        models["__embedder__"] = str(judge_identity(the_embedder)["model"])
    return JudgeResults(
        rows,
        metrics=metric_list,
        manifest=manifest,
        prices=options.prices,
        judge_models=models,
        samples=sample_list,
    )
