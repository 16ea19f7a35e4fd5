"""Run metrics over samples with one judge or a panel: :func:`evaluate` and :func:`aevaluate`.

The sync :func:`evaluate` runs its own event loop, in a worker thread when the caller already
runs one (Jupyter, an async web app), so it never patches the caller's loop (no
``nest_asyncio``). Both build the run's settings once (:class:`RunOptions`) and hand them on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._progress import Progress
from ..exceptions import InvalidInputError
from .accounting import CallStats
from .clients.resolve import resolve_judge
from .context import JudgeContext
from .engine.cache import CacheMode, JudgeCache, open_cache
from .engine.dry_run import DryRunEstimate, estimate_run
from .engine.run import close_clients, run_evaluation
from .engine.runtime import Runtime
from .engine.settings import MaxTokens, OnError, RunOptions, RunSettings
from .engine.tasks import run_sync
from .metrics.preference import DEFAULT_CRITERIA, PairwisePreferenceMetric
from .panel import Panel
from .results import JudgeResults
from .sample import Sample
from .score import Score

__all__ = ["DryRunEstimate", "aevaluate", "evaluate", "judge_json", "pairwise_preference"]


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
    max_tokens: MaxTokens = "auto",
    max_parse_retries: int = 2,
    max_items_per_call: int = 40,
    language: str | None = None,
    retry_errors: bool = True,
    on_error: OnError = "record",
    prices: Mapping[str, Any] | None = None,
    progress: Progress = None,
    max_pending: int = 256,
) -> JudgeResults:
    """Async form of :func:`evaluate` (same arguments and result, no ``dry_run``).

    Connections opened for the run stay open for reuse on this event loop; close them with
    ``await judge.aclose()`` when done.
    """
    options = RunOptions(
        judge=judge,
        embedder=embedder,
        cache=cache,
        cache_mode=cache_mode,
        settings=RunSettings(
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
            max_parse_retries=max_parse_retries,
            max_items_per_call=max_items_per_call,
            language=language,
            retry_errors=retry_errors,
        ),
        on_error=on_error,
        prices=prices or {},
        progress=progress,
        max_pending=max_pending,
    )
    return await run_evaluation(samples, metrics, options)


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
    max_tokens: MaxTokens = "auto",
    max_parse_retries: int = 2,
    max_items_per_call: int = 40,
    language: str | None = None,
    retry_errors: bool = True,
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
    options = RunOptions(
        judge=judge,
        embedder=embedder,
        cache=cache,
        cache_mode=cache_mode,
        settings=RunSettings(
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens,
            max_parse_retries=max_parse_retries,
            max_items_per_call=max_items_per_call,
            language=language,
            retry_errors=retry_errors,
        ),
        on_error=on_error,
        prices=prices or {},
        progress=progress,
        max_pending=max_pending,
    )
    if dry_run:
        return estimate_run(samples, metrics, options)
    return run_sync(lambda: run_evaluation(samples, metrics, options, close_clients_after=True))


def judge_json(
    judge: Any,
    messages: Sequence[Mapping[str, str]],
    schema: Mapping[str, Any] | None = None,
    *,
    validate: Callable[[Any], Sequence[str]] | None = None,
    cache: JudgeCache | str | None = None,
    temperature: float | None = 0.0,
    seed: int | None = 0,
    max_tokens: MaxTokens = "auto",
    max_parse_retries: int = 2,
) -> Any:
    """Ask ``judge`` once and return its validated JSON answer (sync helper for custom code).

    The same parsing, schema validation, re-asks, retries and cache as the built-in metrics;
    raises :class:`~ragmeter.JudgeOutputError` when no usable answer comes back.
    """
    if isinstance(judge, Panel):
        raise InvalidInputError("judge_json asks one judge; pass one of the panel's judges")
    the_judge = resolve_judge(judge)
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
            await close_clients(runtime.used_clients())

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
    metric = PairwisePreferenceMetric(criteria=criteria or DEFAULT_CRITERIA, repeats=repeats)
    sample = Sample(question=question, answer=answer_a, answer_b=answer_b, contexts=tuple(contexts))
    results = evaluate([sample], [metric], judge=judge, cache=cache, on_error="raise")
    return results.rows[0].score
