"""Run metrics over samples with one judge or a panel: :func:`evaluate` and :func:`aevaluate`.

The sync :func:`evaluate` runs its own event loop, in a worker thread when the caller already
runs one (Jupyter, an async web app), so it never patches the caller's loop (no
``nest_asyncio``). Both build the run's settings once (:class:`RunOptions`) and hand them on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, overload

from ..exceptions import InvalidInputError
from .accounting import CallStats
from .clients.resolve import resolve_judge
from .context import JudgeContext
from .engine.batch import BatchMode
from .engine.cache import CacheMode, JudgeCache, open_cache
from .engine.dry_run import DryRunEstimate, estimate_run
from .engine.run import close_clients, run_evaluation
from .engine.runtime import Runtime
from .engine.settings import MaxTokens, OnError, ProgressOption, RunOptions, RunSettings
from .engine.tasks import run_sync
from .metrics.preference import DEFAULT_CRITERIA, PairwisePreferenceMetric
from .panel import Panel
from .registry import resolve_metrics
from .results import JudgeResults
from .sample import Sample
from .score import Score

__all__ = [
    "BatchMode",
    "DryRunEstimate",
    "aevaluate",
    "evaluate",
    "judge_json",
    "pairwise_preference",
]


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
    progress: ProgressOption = "auto",
    max_pending: int = 256,
    repeats: int = 1,
    flaky_threshold: float = 0.5,
    batch: BatchMode | None = None,
) -> JudgeResults:
    """Async form of :func:`evaluate`: the same arguments (but ``dry_run``) and result.

    Connections opened for the run stay open for reuse on this event loop; close them with
    ``await judge.aclose()`` when done.

    Examples
    --------
    >>> import asyncio
    >>> from ragmeter.judges import RuleJudge, Sample, aevaluate
    >>> sample = Sample("Who wrote Hamlet?", "Shakespeare wrote Hamlet.",
    ...                 ["Hamlet is a tragedy by William Shakespeare."])
    >>> results = asyncio.run(aevaluate([sample], ["groundedness"], judge=RuleJudge(),
    ...                                 progress=False))
    >>> results.means()
    {'groundedness': 1.0}
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
        repeats=repeats,
        flaky_threshold=flaky_threshold,
        batch=batch,
    )
    return await run_evaluation(samples, resolve_metrics(metrics), options)


@overload
def evaluate(
    samples: Any,
    metrics: Any,
    *,
    judge: Any = ...,
    embedder: Any = ...,
    cache: JudgeCache | str | None = ...,
    cache_mode: CacheMode | None = ...,
    temperature: float | None = ...,
    seed: int | None = ...,
    max_tokens: MaxTokens = ...,
    max_parse_retries: int = ...,
    max_items_per_call: int = ...,
    language: str | None = ...,
    retry_errors: bool = ...,
    on_error: OnError = ...,
    prices: Mapping[str, Any] | None = ...,
    progress: ProgressOption = ...,
    max_pending: int = ...,
    repeats: int = ...,
    flaky_threshold: float = ...,
    batch: BatchMode | None = ...,
    dry_run: Literal[False] = ...,
) -> JudgeResults: ...


@overload
def evaluate(
    samples: Any,
    metrics: Any,
    *,
    judge: Any = ...,
    embedder: Any = ...,
    cache: JudgeCache | str | None = ...,
    cache_mode: CacheMode | None = ...,
    temperature: float | None = ...,
    seed: int | None = ...,
    max_tokens: MaxTokens = ...,
    max_parse_retries: int = ...,
    max_items_per_call: int = ...,
    language: str | None = ...,
    retry_errors: bool = ...,
    on_error: OnError = ...,
    prices: Mapping[str, Any] | None = ...,
    progress: ProgressOption = ...,
    max_pending: int = ...,
    repeats: int = ...,
    flaky_threshold: float = ...,
    batch: BatchMode | None = ...,
    dry_run: Literal[True],
) -> DryRunEstimate: ...


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
    progress: ProgressOption = "auto",
    max_pending: int = 256,
    repeats: int = 1,
    flaky_threshold: float = 0.5,
    batch: BatchMode | None = None,
    dry_run: bool = False,
) -> JudgeResults | DryRunEstimate:
    """Judge every sample with every metric.

    Parameters
    ----------
    samples
        :class:`Sample` objects, dicts, a DataFrame (one row per sample) or objects
        with fields (embedchain's ``EvalData``, ragas' and DeepEval's samples); field names
        and their aliases are listed in :mod:`ragmeter.judges.sample`. An unknown field is
        an error, never ignored.
    metrics
        Names (``"groundedness"``, ``"faithfulness"``, ``"context_relevancy"``,
        ``"answer_relevancy"``, ``"answer_relevance"``, ``"context_precision"``,
        ``"context_recall"``, ``"pairwise_preference"``) or :class:`Metric` objects.
    judge
        A judge (:class:`OpenAICompatibleJudge`, ...), a :class:`Panel`, an
        ``openai.OpenAI`` client, any callable, or ``None`` for the environment
        (``RAGMETER_JUDGE_MODEL`` with ``OPENAI_BASE_URL`` or ``OPENAI_API_KEY``).
    embedder
        Needed by ``answer_relevancy``; ``None`` reads ``RAGMETER_EMBEDDING_MODEL``.
    cache
        A sqlite path or a :class:`JudgeCache`; ``None`` caches nothing.
    cache_mode
        ``"read_write"`` (default for a path), ``"read_only"``, ``"refresh"``,
        ``"off"``.
    temperature, seed, max_tokens, max_parse_retries, max_items_per_call, language, retry_errors
        The run's request settings, see :class:`RunSettings`
        (``max_tokens="auto"`` or ``None`` keeps answers finite, ``NO_MAX_TOKENS``
        sends no limit; ``retry_errors=False`` replays
        failures recorded in the cache instead of calling again).
    on_error
        ``"record"`` (a failure becomes an ``error`` row) or ``"raise"``.
    prices
        ``{model: (input per 1k tokens, output per 1k tokens)}``, for costs.
    progress
        ``"auto"`` (a tqdm bar when tqdm is installed and stderr is a terminal),
        ``True`` (a bar; needs ``ragmeter[progress]``), ``False``/``None``, or a callable
        ``(done, total)``.
    max_pending
        How many (sample, metric) units are in progress at once.
    repeats
        Judge each (sample, metric) this many times, as independent calls (the
        cache keys repeat ``r`` apart, repeat 0 under the key of a run without repeats;
        the seed sent is ``seed + r``). A row's value is then the mean of its ok repeats,
        with each repeat's score in ``row.repeats`` and the spread and a flakiness flag in
        the evidence; :meth:`JudgeResults.repeat_summary` splits the variance into
        between-item and judge components. At temperature 0 a deterministic endpoint
        gives the same answer every time: repeats then measure only what the endpoint
        does not pin down (batching, GPU nondeterminism, a changed model behind a name).
    flaky_threshold
        A row is flaky when its repeats' values fall on both sides of this
        value (or their verdicts or statuses differ).
    batch
        A :class:`BatchMode`: the judge calls go as OpenAI Batch API files (and vLLM's
        offline-batch input), submitted where the endpoint takes batches, their answers
        read back into the cache under the keys of online calls (needs ``cache=``); see
        :mod:`ragmeter.judges.engine.batch`. Raises :class:`~ragmeter.exceptions.JudgeBatchPending`
        while answers are not in (files to run offline, ``wait=False``).
    dry_run
        Make no call; return a :class:`DryRunEstimate` of calls, tokens and cost (with
        ``batch=``, also the batch's requests and bytes).

    Returns
    -------
    JudgeResults | DryRunEstimate
        :class:`JudgeResults` (a :class:`DryRunEstimate` with ``dry_run=True``).

    Raises
    ------
    InvalidInputError
        a bad argument or sample (before any call).
    JudgeConfigurationError
        no judge, model or embedder is configured.
    JudgeTransportError
        a fatal endpoint error (wrong key, URL or model, unreachable
        server, exhausted quota): every further call would fail the same way.

    Examples
    --------
    >>> from ragmeter.judges import HashEmbedder, RuleJudge, Sample, evaluate
    >>> samples = [Sample("Where is the Eiffel Tower?", "The Eiffel Tower is in Paris.",
    ...                   ["The Eiffel Tower is a wrought-iron tower in Paris, France."])]
    >>> results = evaluate(samples, ["groundedness", "context_relevancy"], judge=RuleJudge(),
    ...                    progress=False)
    >>> results.means()
    {'groundedness': 1.0, 'context_relevancy': 1.0}
    >>> evaluate(samples, ["groundedness"], judge=RuleJudge(), dry_run=True).calls
    2
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
        repeats=repeats,
        flaky_threshold=flaky_threshold,
        batch=batch,
    )
    if not isinstance(dry_run, bool):
        raise InvalidInputError(f"dry_run must be True or False, got {dry_run!r}")
    if dry_run:
        return estimate_run(samples, resolve_metrics(metrics), options)
    metric_list = resolve_metrics(metrics)
    return run_sync(lambda: run_evaluation(samples, metric_list, options, close_clients_after=True))


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
    """Ask ``judge`` once and return its validated JSON answer (a sync helper for custom code).

    The same parsing, schema validation, re-asks, retries and cache as the built-in metrics.

    Parameters
    ----------
    judge
        One judge (not a panel), resolved like ``evaluate``'s ``judge=``.
    messages
        Chat messages, ``{"role", "content"}`` dicts.
    schema
        The JSON Schema the answer must satisfy (``None``: any JSON).
    validate
        ``validate(parsed) -> list of problems`` (empty when usable); a problem is
        sent back to the judge in a re-ask.
    cache, temperature, seed, max_tokens, max_parse_retries
        As for ``evaluate``.

    Returns
    -------
    Any
        The parsed answer.

    Raises
    ------
    JudgeOutputError
        no usable answer came back after the re-asks.
    JudgeTransportError
        the endpoint failed.

    Examples
    --------
    >>> from ragmeter.judges import ScriptedJudge, judge_json
    >>> judge = ScriptedJudge({"Is the sky blue?": {"answer": "yes"}})
    >>> judge_json(judge, [{"role": "user", "content": "Is the sky blue?"}],
    ...            {"type": "object", "required": ["answer"]})
    {'answer': 'yes'}
    """
    if isinstance(judge, Panel):
        raise InvalidInputError("judge_json asks one judge; pass one of the panel's judges")
    if isinstance(messages, str | bytes | Mapping) or not isinstance(messages, Sequence):
        raise InvalidInputError(
            "messages must be a list of chat messages, {'role': ..., 'content': ...} dicts, got "
            f"{type(messages).__name__}"
        )
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            raise InvalidInputError(
                f"messages[{i}] must be a {{'role': ..., 'content': ...}} dict, got "
                f"{type(message).__name__}"
            )
    the_judge = resolve_judge(judge)
    settings = RunSettings(
        temperature=temperature,
        seed=seed,
        max_tokens=max_tokens,
        max_parse_retries=max_parse_retries,
    )

    async def run() -> Any:
        the_cache = open_cache(cache)
        runtime = Runtime(cache=the_cache, settings=settings)
        ctx = JudgeContext(runtime, the_judge, CallStats())
        try:
            return await ctx.judge_json(messages, schema, validate=validate)
        finally:
            runtime.log_summary()
            await close_clients(runtime.used_clients())
            if isinstance(cache, JudgeCache):
                the_cache.flush()
            else:
                the_cache.close()

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
    """Which of two answers is better, judged in both orders (see
    :class:`PairwisePreferenceMetric`).

    Returns
    -------
    Score
        A :class:`Score`: 1.0 when A wins, 0.0 when B wins, 0.5 for a tie; its evidence holds
        the winner and whether the two orders disagreed.

    Raises
    ------
    JudgeError
        the judge failed (a failure is raised here, not recorded).

    Examples
    --------
    >>> from ragmeter.judges import RuleJudge, pairwise_preference
    >>> score = pairwise_preference("Who wrote Hamlet?", "Shakespeare wrote Hamlet.",
    ...                             "I am not sure.", judge=RuleJudge())
    >>> score.value, score.evidence["winner"]
    (1.0, 'A')
    """
    metric = PairwisePreferenceMetric(criteria=criteria or DEFAULT_CRITERIA, repeats=repeats)
    sample = Sample(question=question, answer=answer_a, answer_b=answer_b, contexts=tuple(contexts))
    results = evaluate(
        [sample], [metric], judge=judge, cache=cache, on_error="raise", progress=False
    )
    return results.rows[0].score
