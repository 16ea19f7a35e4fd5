"""What a run would cost, estimated without a single call (``evaluate(..., dry_run=True)``).

The whole pipeline runs against deterministic stand-ins that keep each judge's identity (and so
its cache keys): a :class:`~ragmeter.judges.RuleJudge` answers for every judge (the smallest
answer its schema allows for a prompt without an offline rule, such as a rubric's), a
:class:`~ragmeter.judges.HashEmbedder` for the embedder. The user's cache is read, never
written.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..accounting import cost_of
from ..clients.offline import HashEmbedder, RuleJudge, minimal_instance
from ..clients.protocol import (
    JudgeRequest,
    JudgeResponse,
    Usage,
    embedder_identity,
    estimate_tokens,
    judge_identity,
)
from ..clients.resolve import resolve_embedder
from ..offline_rules import NoOfflineRuleError
from ..panel import Panel
from ..prompts import request_schema
from .batch_files import request_line
from .cache import JudgeCache
from .protocol import ScoringMetric
from .resolve import resolve_run_judge
from .run import run_evaluation
from .settings import RunOptions
from .tasks import run_sync

__all__ = ["DryRunEstimate", "estimate_run"]


@dataclass(frozen=True)
class DryRunEstimate:
    """What a run would cost, estimated without a single call.

    The pipeline runs against a deterministic stand-in (:class:`RuleJudge`) that keeps each
    judge's identity, so cached answers count as cache hits; tokens are ``ceil(chars / 4)`` of
    the prompts and of the stand-in's answers, so completion tokens are a rough floor. With
    ``batch=``, ``batch_requests`` and ``batch_bytes`` are the lines and bytes of the batch
    input files (OpenAI's form) the run would write, every round together (a later round's
    requests follow from the stand-in's answers to an earlier one, so they are estimates too).
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
    batch_requests: int | None = None
    batch_bytes: int | None = None

    def __str__(self) -> str:
        cost = "no price given" if self.cost is None else f"{self.cost:.4f}"
        batch = (
            ""
            if self.batch_requests is None
            else f"; batch: {self.batch_requests} request lines, "
            f"{(self.batch_bytes or 0) / 1e6:.2f} MB of JSONL in OpenAI's form"
        )
        return (
            f"dry run over {self.n_samples} samples x {len(self.metrics)} metrics: "
            f"{self.calls} judge calls ({self.cache_hits} more answered by the cache), "
            f"{self.embedding_calls} embedding calls, ~{self.prompt_tokens} prompt + "
            f"~{self.completion_tokens} completion tokens (estimated), cost {cost}{batch}"
        )


class _StandIn:
    """Answers like a RuleJudge but keeps the identity (and cache keys) of the real judge."""

    def __init__(self, real: Any, batch: bool = False):
        self.name = real.name
        self.identity = judge_identity(real)
        self._rule = RuleJudge(name=real.name)
        self._real = real
        self._batch = batch and hasattr(real, "request_body")
        self.batch_requests = 0
        self.batch_bytes = 0

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        if self._batch:
            # A line as batch mode writes it (a custom_id is a 64-character cache key).
            line = request_line("0" * 64, self._real.request_body(request))
            self.batch_requests += 1
            self.batch_bytes += len(line.encode("utf-8")) + 1
        try:
            text = self._rule.respond(request)
        except NoOfflineRuleError:
            # Only the size of the answer matters for the estimate, so a prompt without an
            # offline rule (a rubric's) gets the smallest answer its schema allows; the
            # stand-in's answers are never stored, never reported as scores.
            text = json.dumps(minimal_instance(request_schema(request) or {}))
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


async def _no_sleep(_: float) -> None:
    return None


def estimate_run(
    samples: Any, metrics: Sequence[ScoringMetric], options: RunOptions
) -> DryRunEstimate:
    """Run the pipeline against stand-ins and count the calls, tokens and cost it would take.

    ``metrics`` are metric objects, as for :func:`~ragmeter.judges.engine.run.run_evaluation`.
    """
    metric_list = list(metrics)
    the_judge = resolve_run_judge(options.judge, metric_list)
    real_embedder = (
        resolve_embedder(options.embedder) if any(m.needs_embedder for m in metric_list) else None
    )
    batched = options.batch is not None
    if isinstance(the_judge, Panel):
        stand_ins = [_StandIn(j, batched) for j in the_judge.judges]
        stand_in: Any = Panel(stand_ins, aggregate=the_judge.aggregate)
        judges = list(the_judge.judges)
    else:
        stand_in = _StandIn(the_judge, batched)
        stand_ins = [stand_in]
        judges = [the_judge]
    # The stand-in's answers must never be stored: read the user's cache file, write nothing.
    cache = options.cache
    path = cache.path if isinstance(cache, JudgeCache) else cache
    if path is not None and str(path) != ":memory:" and Path(path).exists():
        read_only = JudgeCache(path, "read_only")
    else:
        read_only = JudgeCache(mode="off")
    stand_in_options = replace(
        options,
        judge=stand_in,
        embedder=None if real_embedder is None else _StandInEmbedder(real_embedder),
        cache=read_only,
        cache_mode=None,
        on_error="record",
        progress=None,
        batch=None,
    )
    try:
        results = run_sync(
            lambda: run_evaluation(samples, metric_list, stand_in_options, sleep=_no_sleep)
        )
    finally:
        read_only.close()
    models = {j.name: str(judge_identity(j).get("model") or j.name) for j in judges}
    rows = results.usage()
    cost: float | None = None
    for row in rows:
        price = options.prices.get(models.get(row["judge"], row["judge"])) or options.prices.get(
            row["judge"]
        )
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
        batch_requests=sum(s.batch_requests for s in stand_ins) if batched else None,
        batch_bytes=sum(s.batch_bytes for s in stand_ins) if batched else None,
    )
