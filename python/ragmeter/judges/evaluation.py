"""Run metrics over samples with one judge or a panel: :func:`evaluate` and :func:`aevaluate`.

The sync :func:`evaluate` runs its own event loop, in a worker thread when the caller already
runs one (Jupyter, an async web app), so it never patches the caller's loop (no
``nest_asyncio``). Every (sample, metric, judge) is independent: a failure becomes an ``error``
score with a reason code, except a fatal endpoint error (wrong key, URL or model, exhausted
quota) which stops the run, since every further call would fail the same way. Finished calls
are in the cache (when one is given), so a rerun resumes where an interrupted run stopped.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime as _dt
import math
import platform
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from .._progress import Progress, progress_hook
from ..exceptions import (
    InvalidInputError,
    JudgeConfigurationError,
    JudgeOutputError,
    JudgeTransportError,
    MissingDependencyError,
)
from .accounting import CallStats, cost_of, normalize_prices
from .cache import CacheMode, JudgeCache, open_cache
from .embeddings import resolve_embedder
from .metrics import Metric
from .panel import Panel
from .protocol import (
    Embedder,
    JudgeRequest,
    JudgeResponse,
    Usage,
    embedder_identity,
    estimate_tokens,
    judge_identity,
)
from .resolve import resolve_judge, resolve_metrics
from .results import JudgeResults, SampleResult, Score
from .runtime import JudgeCallError, JudgeContext, RunSettings, Runtime
from .samples import Sample, coerce_samples
from .testing import HashEmbedder, RuleJudge

__all__ = [
    "DryRunEstimate",
    "aevaluate",
    "evaluate",
    "judge_json",
    "pairwise_preference",
    "run_sync",
]

T = TypeVar("T")
OnError = Literal["record", "raise"]


def run_sync(coroutine_factory: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to completion from sync code, even inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine_factory())  # type: ignore[arg-type]
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(coroutine_factory())).result()  # type: ignore[arg-type]


def _error_score(exc: BaseException) -> Score:
    if isinstance(exc, JudgeOutputError):
        return Score.error("judge_output_invalid", str(exc))
    if isinstance(exc, JudgeTransportError):
        code = "judge_unavailable" if exc.retryable else "judge_request_rejected"
        return Score.error(code, str(exc))
    if isinstance(exc, JudgeCallError):
        return Score.error("judge_exception", str(exc))
    return Score.error("metric_exception", f"{type(exc).__name__}: {exc}")


async def _score_one(
    runtime: Runtime,
    metric: Metric,
    sample: Sample,
    judge: Any,
    embedder: Embedder | None,
    on_error: OnError,
) -> tuple[Score, CallStats]:
    stats = CallStats()
    missing = metric.missing_field(sample)
    if missing is not None:
        return Score.undefined(f"no_{missing}", f"the sample has no {missing}"), stats
    ctx = JudgeContext(runtime, judge, stats, embedder=embedder, metric=metric.name)
    try:
        score = await metric.score(sample, ctx)
    except JudgeTransportError as exc:
        if exc.fatal or on_error == "raise":
            raise
        score = _error_score(exc)
    except (JudgeConfigurationError, MissingDependencyError, asyncio.CancelledError):
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
    return score, stats


def _manifest(
    judge: Any,
    embedder: Embedder | None,
    metrics: Sequence[Metric],
    settings: RunSettings,
    cache: JudgeCache,
    n_samples: int,
) -> dict[str, Any]:
    from .. import __version__

    judges = list(judge.judges) if isinstance(judge, Panel) else [judge]
    return {
        "library": "ragmeter",
        "version": __version__,
        "python": platform.python_version(),
        "created_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "n_samples": n_samples,
        "judge": judge_identity(judge),
        "judges": [judge_identity(j) for j in judges],
        "embedder": None if embedder is None else embedder_identity(embedder),
        "metrics": [m.describe() for m in metrics],
        "settings": settings.to_dict(),
        "cache": cache.describe(),
    }


async def aevaluate(
    samples: Any,
    metrics: Any,
    *,
    judge: Any = None,
    embedder: Any = None,
    cache: JudgeCache | str | None = None,
    cache_mode: CacheMode | None = None,
    temperature: float | None = 0.0,
    seed: int | None = 0,
    max_tokens: int | None = None,
    max_parse_retries: int = 2,
    max_items_per_call: int = 40,
    language: str | None = None,
    on_error: OnError = "record",
    prices: Mapping[str, Any] | None = None,
    progress: Progress = None,
    max_pending: int = 256,
) -> JudgeResults:
    """Async form of :func:`evaluate` (same arguments and result, no ``dry_run``).

    Connections opened for the run stay open for reuse on this event loop; close them with
    ``await judge.aclose()`` when done.
    """
    return await _evaluate_async(
        samples,
        metrics,
        judge=judge,
        embedder=embedder,
        cache=cache,
        cache_mode=cache_mode,
        temperature=temperature,
        seed=seed,
        max_tokens=max_tokens,
        max_parse_retries=max_parse_retries,
        max_items_per_call=max_items_per_call,
        language=language,
        on_error=on_error,
        prices=prices,
        progress=progress,
        max_pending=max_pending,
    )


async def _evaluate_async(
    samples: Any,
    metrics: Any,
    *,
    judge: Any = None,
    embedder: Any = None,
    cache: JudgeCache | str | None = None,
    cache_mode: CacheMode | None = None,
    temperature: float | None = 0.0,
    seed: int | None = 0,
    max_tokens: int | None = None,
    max_parse_retries: int = 2,
    max_items_per_call: int = 40,
    language: str | None = None,
    on_error: OnError = "record",
    prices: Mapping[str, Any] | None = None,
    progress: Progress = None,
    max_pending: int = 256,
    close_clients: bool = False,
    _runtime_sleep: Callable[[float], Awaitable[None]] | None = None,
) -> JudgeResults:
    if on_error not in ("record", "raise"):
        raise InvalidInputError(f"on_error must be 'record' or 'raise', got {on_error!r}")
    if max_pending < 1:
        raise InvalidInputError(f"max_pending must be >= 1, got {max_pending!r}")
    sample_list = coerce_samples(samples)
    metric_list = resolve_metrics(metrics)
    the_judge = resolve_judge(judge)
    the_embedder = (
        resolve_embedder(
            embedder, required_by=", ".join(m.name for m in metric_list if m.needs_embedder)
        )
        if any(m.needs_embedder for m in metric_list)
        else (None if embedder is None else resolve_embedder(embedder))
    )
    price_table = normalize_prices(prices)
    settings = RunSettings(
        temperature=temperature,
        seed=seed,
        max_tokens=max_tokens,
        max_parse_retries=max_parse_retries,
        max_items_per_call=max_items_per_call,
        language=language,
    )
    the_cache = open_cache(cache, cache_mode)
    owns_cache = not isinstance(cache, JudgeCache)
    runtime = Runtime(cache=the_cache, settings=settings, sleep=_runtime_sleep)
    judges = list(the_judge.judges) if isinstance(the_judge, Panel) else [the_judge]
    units = [(s, m) for s in sample_list for m in metric_list]
    tick, close_progress = progress_hook(progress, len(units), description="judging", unit="score")
    gate = asyncio.Semaphore(max_pending)

    async def unit(sample: Sample, metric: Metric) -> SampleResult:
        async with gate:
            if len(judges) == 1:
                outcomes = [
                    await _score_one(runtime, metric, sample, judges[0], the_embedder, on_error)
                ]
            else:
                outcomes = await asyncio.gather(
                    *(
                        _score_one(runtime, metric, sample, j, the_embedder, on_error)
                        for j in judges
                    )
                )
        tick()
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

    tasks = [asyncio.ensure_future(unit(s, m)) for s, m in units]
    try:
        try:
            rows = await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        finally:
            close_progress()
            if close_clients:
                await _close_clients(runtime.used_clients())
            # Finished calls must be on disk before returning or raising, so a rerun resumes.
            await asyncio.to_thread(the_cache.flush)
        manifest = _manifest(
            the_judge, the_embedder, metric_list, settings, the_cache, len(sample_list)
        )
    finally:
        if owns_cache:
            await asyncio.to_thread(the_cache.close)
    models = {j.name: str(judge_identity(j).get("model") or j.name) for j in judges}
    if the_embedder is not None and judge_identity(the_embedder).get("model"):
        models["__embedder__"] = str(judge_identity(the_embedder)["model"])
    return JudgeResults(
        rows, metrics=metric_list, manifest=manifest, prices=price_table, judge_models=models
    )


async def _close_clients(clients: Sequence[Any]) -> None:
    for client in clients:
        close = getattr(client, "aclose", None)
        if close is not None:
            await close()


def evaluate(
    samples: Any,
    metrics: Any,
    *,
    judge: Any = None,
    embedder: Any = None,
    cache: JudgeCache | str | None = None,
    cache_mode: CacheMode | None = None,
    temperature: float | None = 0.0,
    seed: int | None = 0,
    max_tokens: int | None = None,
    max_parse_retries: int = 2,
    max_items_per_call: int = 40,
    language: str | None = None,
    on_error: OnError = "record",
    prices: Mapping[str, Any] | None = None,
    progress: Progress = None,
    max_pending: int = 256,
    dry_run: bool = False,
) -> Any:
    """Judge every sample with every metric; returns :class:`JudgeResults`.

    ``samples``: :class:`Sample` objects, embedchain ``EvalData`` objects, dicts (keys
    ``question``, ``answer``, ``contexts``, ``reference`` or ``ground_truth``, ``answer_b``,
    ``id``) or a DataFrame. ``metrics``: names (``"groundedness"``, ``"faithfulness"``,
    ``"context_relevancy"``, ``"answer_relevancy"``, ``"answer_relevance"``,
    ``"context_precision"``, ``"context_recall"``, ``"pairwise_preference"``) or Metric
    objects. ``judge``: a judge, a :class:`Panel`, an ``openai`` client, any callable, or
    ``None`` for the environment (``RAGMETER_JUDGE_MODEL``, ``OPENAI_BASE_URL``,
    ``OPENAI_API_KEY``). ``embedder`` is needed by ``answer_relevancy`` (``None`` reads
    ``RAGMETER_EMBEDDING_MODEL``). ``cache``: a sqlite path or :class:`JudgeCache` (modes
    ``read_write``, ``read_only``, ``refresh``, ``off``). ``prices``: ``{model: (input per 1k
    tokens, output per 1k tokens)}``. ``on_error="raise"`` stops at the first failure.
    ``progress``: ``True`` for a tqdm bar (``ragmeter[progress]``) or a callable ``(done,
    total)``. ``dry_run=True`` makes no call and returns a :class:`DryRunEstimate`.
    """
    if dry_run:
        return estimate_run(
            samples,
            metrics,
            judge=judge,
            embedder=embedder,
            cache=cache,
            prices=prices,
            max_items_per_call=max_items_per_call,
            language=language,
        )

    async def run() -> JudgeResults:
        return await _evaluate_async(
            samples,
            metrics,
            judge=judge,
            embedder=embedder,
            cache=cache,
            cache_mode=cache_mode,
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
            max_parse_retries=max_parse_retries,
            max_items_per_call=max_items_per_call,
            language=language,
            on_error=on_error,
            prices=prices,
            progress=progress,
            max_pending=max_pending,
            close_clients=True,
        )

    return run_sync(run)


@dataclass(frozen=True)
class DryRunEstimate:
    """What a run would cost, estimated without a single call.

    The pipeline runs against a deterministic stand-in (:class:`RuleJudge`) that keeps each
    judge's identity, so cached answers count as cache hits; tokens are ``ceil(chars / 4)`` of
    the prompts and of the stand-in's answers, so completion tokens are a rough floor.
    """

    n_samples: int
    metrics: tuple[str, ...]
    calls: int
    cache_hits: int
    embedding_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    by_judge_metric: tuple[Mapping[str, Any], ...] = field(default_factory=tuple)

    def __str__(self) -> str:
        cost = "no price given" if self.cost is None else f"{self.cost:.4f}"
        return (
            f"dry run over {self.n_samples} samples x {len(self.metrics)} metrics: "
            f"{self.calls} judge calls ({self.cache_hits} more answered by the cache), "
            f"{self.embedding_calls} embedding calls, ~{self.prompt_tokens} prompt + "
            f"~{self.completion_tokens} completion tokens (estimated), cost {cost}"
        )


class _StandIn:
    """Answers like a RuleJudge but keeps the identity (and cache keys) of the real judge."""

    def __init__(self, real: Any):
        self.name = real.name
        self.identity = judge_identity(real)
        self._rule = RuleJudge(name=real.name)

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        text = self._rule.respond(request)
        return JudgeResponse(
            text=text,
            usage=Usage(
                estimate_tokens(request.prompt_text()), estimate_tokens(text), estimated=True
            ),
        )


class _StandInEmbedder:
    def __init__(self, real: Any):
        self.name = real.name
        self.identity = embedder_identity(real)
        self._hash = HashEmbedder()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return self._hash.embed_sync(texts)


def estimate_run(
    samples: Any,
    metrics: Any,
    *,
    judge: Any = None,
    embedder: Any = None,
    cache: JudgeCache | str | None = None,
    prices: Mapping[str, Any] | None = None,
    max_items_per_call: int = 40,
    language: str | None = None,
) -> DryRunEstimate:
    the_judge = resolve_judge(judge)
    metric_list = resolve_metrics(metrics)
    real_embedder = (
        resolve_embedder(embedder) if any(m.needs_embedder for m in metric_list) else None
    )
    if isinstance(the_judge, Panel):
        stand_in: Any = Panel(
            [_StandIn(j) for j in the_judge.judges], aggregate=the_judge.aggregate
        )
        judges = list(the_judge.judges)
    else:
        stand_in = _StandIn(the_judge)
        judges = [the_judge]
    # The stand-in's answers must never be stored: read the user's cache file, write nothing.
    path = cache.path if isinstance(cache, JudgeCache) else cache
    if path is not None and str(path) != ":memory:" and Path(path).exists():
        read_only = JudgeCache(path, "read_only")
    else:
        read_only = JudgeCache(mode="off")

    async def run() -> JudgeResults:
        return await _evaluate_async(
            samples,
            metric_list,
            judge=stand_in,
            embedder=None if real_embedder is None else _StandInEmbedder(real_embedder),
            cache=read_only,
            max_items_per_call=max_items_per_call,
            language=language,
            _runtime_sleep=_no_sleep,
        )

    try:
        results = run_sync(run)
    finally:
        read_only.close()
    table = normalize_prices(prices)
    models = {j.name: str(judge_identity(j).get("model") or j.name) for j in judges}
    rows = results.usage()
    cost: float | None = None
    for row in rows:
        price = table.get(models.get(row["judge"], row["judge"])) or table.get(row["judge"])
        row_cost = cost_of(row["prompt_tokens"], row["completion_tokens"], price)
        row["cost"] = row_cost
        if row_cost is not None:
            cost = (cost or 0.0) + row_cost
    total = results.total_usage()
    return DryRunEstimate(
        n_samples=len({r.sample_id for r in results.rows}),
        metrics=tuple(results.metric_names),
        calls=total.calls,
        cache_hits=total.cache_hits,
        embedding_calls=total.embedding_calls,
        prompt_tokens=total.prompt_tokens,
        completion_tokens=total.completion_tokens,
        cost=None if cost is None or math.isnan(cost) else cost,
        by_judge_metric=tuple(rows),
    )


async def _no_sleep(_: float) -> None:
    return None


def judge_json(
    judge: Any,
    messages: Sequence[Mapping[str, str]],
    schema: Mapping[str, Any] | None = None,
    *,
    validate: Callable[[Any], Sequence[str]] | None = None,
    cache: JudgeCache | str | None = None,
    temperature: float | None = 0.0,
    seed: int | None = 0,
    max_tokens: int | None = None,
    max_parse_retries: int = 2,
) -> Any:
    """Ask ``judge`` once and return its validated JSON answer (sync helper for custom code).

    The same parsing, schema validation, re-asks, retries and cache as the built-in metrics;
    raises :class:`~ragmeter.JudgeOutputError` when no usable answer comes back.
    """
    the_judge = resolve_judge(judge)
    if isinstance(the_judge, Panel):
        raise InvalidInputError("judge_json asks one judge; pass one of the panel's judges")
    settings = RunSettings(
        temperature=temperature,
        seed=seed,
        max_tokens=max_tokens,
        max_parse_retries=max_parse_retries,
    )

    async def run() -> Any:
        runtime = Runtime(cache=open_cache(cache), settings=settings)
        ctx = JudgeContext(runtime, the_judge, CallStats())
        try:
            return await ctx.judge_json(messages, schema, validate=validate)
        finally:
            await _close_clients(runtime.used_clients())

    return run_sync(run)


def pairwise_preference(
    question: str,
    answer_a: str,
    answer_b: str,
    *,
    judge: Any = None,
    contexts: Sequence[str] = (),
    criteria: str | None = None,
    repeats: int = 1,
    cache: JudgeCache | str | None = None,
) -> Score:
    """Which of two answers is better, judged in both orders (see PairwisePreferenceMetric)."""
    from .preference import DEFAULT_CRITERIA, PairwisePreferenceMetric

    metric = PairwisePreferenceMetric(criteria=criteria or DEFAULT_CRITERIA, repeats=repeats)
    sample = Sample(question=question, answer=answer_a, answer_b=answer_b, contexts=tuple(contexts))
    results = evaluate([sample], [metric], judge=judge, cache=cache, on_error="raise")
    return results.rows[0].score
