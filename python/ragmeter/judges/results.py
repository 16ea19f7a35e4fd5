"""Per-sample rows, per-metric summaries, their exports (records, JSONL, pandas) and their
saved form (``write``/``read``, :mod:`ragmeter.judges.saved`).

Means are taken over ``ok`` rows only and are
always reported with the counts of each status, so one failed sample never turns a mean into
NaN and a failure never hides inside a number.
"""

from __future__ import annotations

import io
import math
import os
import statistics
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, ClassVar, Literal

from .._files import atomic_write_text
from .._notebook import NotebookDisplay
from .._optional import import_optional
from ..exceptions import InvalidInputError
from ..per_query import PerQueryResults
from ..reports import check_saved_head, load_report, render_report, saved_head, write_report
from ..stats.clustered import ClusteredMean, cluster_mean
from ..stats.ppi import MeanEstimate, classical_mean, ppi_mean
from ..stats.raters import Level, agreement_report
from ..stats.repeated import RepeatSummary, variance_components
from .accounting import CallStats, Price, cost_of
from .sample import Sample, sample_from_dict
from .saved import (
    AGREEMENT_LEVELS,
    FORMAT_VERSION,
    JUDGES_KIND,
    READABLE_VERSIONS,
    RowFields,
    SavedMetric,
    prices_from_dict,
    prices_to_dict,
    row_fields,
    string_mapping,
)
from .score import Score, Status, jsonable
from .values import judged_values

__all__ = ["JudgeResults", "MetricSummary", "SampleResult"]

#: The top-level fields of a saved result of format 3, in order.
_SAVED_FIELDS = (
    "kind",
    "format_version",
    "ragmeter_version",
    "manifest",
    "metrics",
    "agreement_levels",
    "usage",
    "agreement",
    "repeats",
    "prices",
    "judge_models",
    "samples",
    "rows",
)


@dataclass(frozen=True)
class SampleResult:
    """One (sample, metric) row: the score, who judged it and what it cost.

    A judge's answer that echoes instruction-like text found in the data it was sent puts
    ``injection_suspected`` (a list of ``{"field", "task", "instruction", "echo"}``) in that
    score's evidence; :attr:`injection_suspected` says whether any score of the row (the
    score, a panel judge's, a repeat's) has it. The value and status are the judge's.

    Attributes
    ----------
    sample_id
        The sample's id.
    metric
        The metric's name.
    score
        The :class:`Score` (for a panel: the aggregate).
    judge
        The judge's (or panel's) name.
    judge_scores
        For a panel, each judge's own score; else ``None``.
    usage
        What the row cost, per judge (:class:`CallStats`), summed over repeats.
    repeats
        With ``evaluate(repeats=N)``, each repeat's score (its reasons and verdicts
        in the evidence); ``score`` is then their mean with the spread and the flakiness
        flag in its evidence. ``None`` without repeats.
    """

    sample_id: str
    metric: str
    score: Score
    judge: str
    judge_scores: Mapping[str, Score] | None = None
    usage: Mapping[str, CallStats] = field(default_factory=dict)
    repeats: tuple[Score, ...] | None = None

    @property
    def flaky(self) -> bool:
        """Whether the row's repeats disagree (``False`` without repeats)."""
        return bool(self.repeats is not None and self.score.evidence.get("flaky"))

    @property
    def injection_suspected(self) -> bool:
        """Whether a judge of this row echoed an instruction found in the data it was sent
        (see :mod:`ragmeter.judges.injection`; the findings are in the scores' evidence)."""
        scores = [self.score, *(self.judge_scores or {}).values(), *(self.repeats or ())]
        return any(s.evidence.get("injection_suspected") for s in scores)

    @property
    def value(self) -> float | None:
        """The score's value (``None`` unless ok)."""
        return self.score.value

    @property
    def status(self) -> Status:
        """The score's status: ``ok``, ``undefined`` or ``error``."""
        return self.score.status

    def total_usage(self) -> CallStats:
        """The row's usage summed over its judges."""
        total = CallStats()
        for stats in self.usage.values():
            total.add(stats)
        return total

    def to_record(
        self, prices: Mapping[str, Price] | None = None, models: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        """The row as a flat JSON-ready dict: score fields, judge, usage counts and cost.

        ``prices`` maps model names (``models`` maps judge names to models) to
        :class:`Price`; ``cost`` is ``None`` without a price.
        """
        total = self.total_usage()
        record: dict[str, Any] = {
            "sample_id": self.sample_id,
            "metric": self.metric,
            "value": self.score.value,
            "status": self.score.status,
            "reason_code": self.score.reason_code,
            "message": self.score.message,
            "reasons": list(self.score.reasons),
            "evidence": jsonable(self.score.evidence),
            "judge": self.judge,
            "judge_scores": None
            if self.judge_scores is None
            else {name: s.to_dict() for name, s in self.judge_scores.items()},
            **{k: v for k, v in total.to_dict().items()},
            "cost": _row_cost(self.usage, prices or {}, models or {}),
        }
        if self.repeats is not None:
            record["repeats"] = [s.to_dict() for s in self.repeats]
        return record


def _row_cost(
    usage: Mapping[str, CallStats], prices: Mapping[str, Price], models: Mapping[str, str]
) -> float | None:
    if not prices:
        return None
    total = 0.0
    priced = False
    for judge, stats in usage.items():
        price = prices.get(models.get(judge, judge)) or prices.get(judge)
        cost = cost_of(
            stats.prompt_tokens,
            stats.completion_tokens,
            price,
            cached_prompt_tokens=stats.cached_prompt_tokens,
        )
        if cost is not None:
            total += cost
            priced = True
    embedder_model = models.get("__embedder__")
    if embedder_model is not None:
        tokens = sum(s.embedding_tokens for s in usage.values())
        cost = cost_of(tokens, 0, prices.get(embedder_model))
        if cost is not None:
            total += cost
            priced = True
    return total if priced else None


@dataclass(frozen=True)
class MetricSummary:
    """A metric's mean over its ok rows, with the counts of every status beside it.

    ``mean``, ``std`` (population), ``minimum`` and ``maximum`` are over the ``n_ok`` ok rows
    (``None`` without any); ``undefined_reasons`` and ``error_reasons`` count the reason codes
    of the other rows; ``extra`` holds metric-specific figures (pairwise preference: wins,
    ties, position flips).
    """

    metric: str
    mean: float | None
    n: int
    n_ok: int
    n_undefined: int
    n_error: int
    std: float | None = None
    minimum: float | None = None
    maximum: float | None = None
    undefined_reasons: Mapping[str, int] = field(default_factory=dict)
    error_reasons: Mapping[str, int] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        if self.mean is None:
            head = f"{self.metric}: undefined (no ok value among {self.n} samples)"
        else:
            head = f"{self.metric}: {self.mean:.4f} (mean over {self.n_ok} of {self.n} samples)"
        notes = []
        if self.n_undefined:
            codes = ", ".join(f"{k}={v}" for k, v in sorted(self.undefined_reasons.items()))
            notes.append(f"{self.n_undefined} undefined: {codes}")
        if self.n_error:
            codes = ", ".join(f"{k}={v}" for k, v in sorted(self.error_reasons.items()))
            notes.append(f"{self.n_error} error: {codes}")
        return head + (f"; {'; '.join(notes)}" if notes else "")

    def to_dict(self) -> dict[str, Any]:
        """The summary as a JSON-ready dict."""
        return {
            "metric": self.metric,
            "mean": self.mean,
            "n": self.n,
            "n_ok": self.n_ok,
            "n_undefined": self.n_undefined,
            "n_error": self.n_error,
            "std": self.std,
            "min": self.minimum,
            "max": self.maximum,
            "undefined_reasons": dict(self.undefined_reasons),
            "error_reasons": dict(self.error_reasons),
            **({"extra": jsonable(self.extra)} if self.extra else {}),
        }


def summarize(
    metric: str,
    rows: Sequence[SampleResult],
    extra: Callable[[Sequence[Score]], Mapping[str, Any]] | None = None,
) -> MetricSummary:
    values = [r.score.value for r in rows if r.score.status == "ok" and r.score.value is not None]
    undefined = Counter(r.score.reason_code or "unknown" for r in rows if r.status == "undefined")
    errors = Counter(r.score.reason_code or "unknown" for r in rows if r.status == "error")
    return MetricSummary(
        metric=metric,
        mean=math.fsum(values) / len(values) if values else None,
        n=len(rows),
        n_ok=len(values),
        n_undefined=sum(undefined.values()),
        n_error=sum(errors.values()),
        std=statistics.pstdev(values) if len(values) >= 2 else None,
        minimum=min(values) if values else None,
        maximum=max(values) if values else None,
        undefined_reasons=dict(undefined),
        error_reasons=dict(errors),
        extra=dict(extra([r.score for r in rows])) if extra else {},
    )


class JudgeResults(NotebookDisplay):
    """Every row of a judged evaluation, with summaries, usage, agreement and the run manifest.

    Rows (:class:`SampleResult`) are in sample order, then metric order; iterating over the
    results gives them. ``print(results)`` shows each metric's mean with its status counts, what
    the run cost and what the cache served.

    They are a saved result (:class:`~ragmeter.reports.SavedResult`, kind
    ``"ragmeter.judges"``): :meth:`write` saves the whole results (JSON, YAML or TOML: every
    row with its status, reason, evidence, judge scores, repeats, usage and cost, the samples,
    the prices, the manifest, and the summaries derived from them; JSONL: the rows of
    :meth:`to_records`), and :meth:`read` rebuilds them, refusing a file that is not exactly
    what ragmeter writes (see :mod:`ragmeter.judges.saved` for the formats read).

    Examples
    --------
    >>> from ragmeter.judges import RuleJudge, Sample, evaluate
    >>> samples = [Sample("Who wrote Hamlet?", "Shakespeare wrote Hamlet.",
    ...                   ["Hamlet is a tragedy by William Shakespeare."]),
    ...            Sample("Who wrote Hamlet?", "I don't know.", ["Hamlet is a tragedy."])]
    >>> results = evaluate(samples, ["groundedness"], judge=RuleJudge(), progress=False)
    >>> print(results.summary("groundedness"))
    groundedness: 1.0000 (mean over 1 of 2 samples); 1 undefined: no_claims=1
    >>> results.values("groundedness")
    [1.0, None]
    """

    #: What a saved result's ``kind`` field says (its schema: ``ragmeter.schemas``).
    KIND: ClassVar[str] = JUDGES_KIND
    #: The format :meth:`write` writes.
    FORMAT_VERSION: ClassVar[int] = FORMAT_VERSION
    #: The formats :meth:`read` reads.
    READABLE_VERSIONS: ClassVar[tuple[int, ...]] = READABLE_VERSIONS

    def __init__(
        self,
        rows: Sequence[SampleResult],
        *,
        metrics: Sequence[Any],
        manifest: Mapping[str, Any],
        prices: Mapping[str, Price] | None = None,
        judge_models: Mapping[str, str] | None = None,
        samples: Sequence[Sample] = (),
    ):
        self.rows: tuple[SampleResult, ...] = tuple(rows)
        self.samples: tuple[Sample, ...] = tuple(samples)
        self._metrics = list(metrics)
        self.manifest: dict[str, Any] = dict(manifest)
        self.prices: dict[str, Price] = dict(prices or {})
        self._models: dict[str, str] = dict(judge_models or {})
        # The rows' costs as a file recorded them, for results read without their prices
        # (files of formats 1 and 2, JSON lines); None: computed from the prices.
        self._recorded_costs: tuple[float | None, ...] | None = None

    @property
    def metrics(self) -> list[Any]:
        """The metrics as the run had them (read back from a file: their names, agreement
        levels and summary figures only, since a metric's code is not saved)."""
        return list(self._metrics)

    @property
    def metric_names(self) -> list[str]:
        """The metrics' names, in the order they were given."""
        return [m.name for m in self._metrics]

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[SampleResult]:
        return iter(self.rows)

    def _rows_of(self, metric: str) -> list[SampleResult]:
        if metric not in self.metric_names:
            raise InvalidInputError(
                f"no metric named {metric!r} in these results; they hold {self.metric_names}"
            )
        return [r for r in self.rows if r.metric == metric]

    def summary(self, metric: str) -> MetricSummary:
        """Mean and status counts of one metric.

        Raises
        ------
        InvalidInputError
            no metric of that name in these results.
        """
        spec = (
            next(m for m in self._metrics if m.name == metric)
            if metric in self.metric_names
            else None
        )
        rows = self._rows_of(metric)
        extra = getattr(spec, "summarize_extra", None)
        return summarize(metric, rows, extra)

    def summaries(self) -> dict[str, MetricSummary]:
        """``{metric: MetricSummary}`` for every metric."""
        return {name: self.summary(name) for name in self.metric_names}

    def means(self) -> dict[str, float | None]:
        """``{metric: mean over ok rows}`` (``None`` when no row is ok)."""
        return {name: s.mean for name, s in self.summaries().items()}

    def values(self, metric: str) -> list[float | None]:
        """One value per sample (``None`` for undefined and error rows), in sample order."""
        return [r.score.value for r in self._rows_of(metric)]

    def scores(self, metric: str) -> list[Score]:
        """One :class:`Score` per sample, in sample order."""
        return [r.score for r in self._rows_of(metric)]

    def usage(self) -> list[dict[str, Any]]:
        """Calls, cache hits, tokens and cost per (judge, metric); cost ``None`` without a price."""
        table: dict[tuple[str, str], CallStats] = {}
        for row in self.rows:
            for judge, stats in row.usage.items():
                table.setdefault((judge, row.metric), CallStats()).add(stats)
        out = []
        for (judge, metric), stats in table.items():
            out.append(
                {
                    "judge": judge,
                    "metric": metric,
                    **stats.to_dict(),
                    "cost": self._usage_cost(judge, metric, stats),
                }
            )
        return out

    def _usage_cost(self, judge: str, metric: str, stats: CallStats) -> float | None:
        if self._recorded_costs is None:
            return _row_cost({judge: stats}, self.prices, self._models)
        costs = [
            cost
            for row, cost in zip(self.rows, self._recorded_costs, strict=True)
            if cost is not None and row.metric == metric and judge in row.usage
        ]
        return math.fsum(costs) if costs else None

    def total_usage(self) -> CallStats:
        """Calls, cache hits, tokens and retries of the whole run."""
        total = CallStats()
        for row in self.rows:
            total.add(row.total_usage())
        return total

    def total_cost(self) -> float | None:
        """The run's cost from the ``prices`` given to ``evaluate``; ``None`` without a price."""
        costs = [c for c in (record["cost"] for record in self.to_records()) if c is not None]
        return math.fsum(costs) if costs else None

    def agreement(
        self,
        metric: str,
        *,
        level: Level | None = None,
        confidence: float | None = 0.95,
        n_resamples: int = 1000,
        seed: int = 0,
    ) -> dict[str, Any]:
        """Agreement between the judges of a panel on ``metric`` (one unit per sample).

        ``level`` defaults to the metric's ``agreement_level`` (``interval`` for fractions,
        ``nominal`` for preference verdicts). The statistics, and their bootstrap intervals at
        ``confidence`` (``None``: none) from ``n_resamples`` resamples drawn with ``seed``, are
        those of :func:`~ragmeter.judges.agreement_report`.
        """
        rows = self._rows_of(metric)
        judges: list[str] = []
        for row in rows:
            for name in row.judge_scores or {}:
                if name not in judges:
                    judges.append(name)
        if len(judges) < 2:
            raise InvalidInputError(
                f"agreement needs a Panel of at least two judges; {metric!r} was judged by "
                f"{judges or [rows[0].judge if rows else 'nobody']}"
            )
        spec = next(m for m in self._metrics if m.name == metric)
        chosen = _level(spec, level)
        ratings = [
            [
                _rating(row.judge_scores.get(name) if row.judge_scores else None, chosen)
                for name in judges
            ]
            for row in rows
        ]
        report = agreement_report(
            ratings, level=chosen, confidence=confidence, n_resamples=n_resamples, seed=seed
        )
        report["raters"] = judges
        return report

    def human_labels(self, labels: Mapping[str, Any] | Sequence[Any], metric: str) -> list[Any]:
        """``labels`` as one entry per row of ``metric`` (``None`` where a sample has none).

        ``labels`` is ``{sample_id: label}`` or one label per sample in order.

        Raises
        ------
        InvalidInputError
            a list of the wrong length, or ids no sample has.
        """
        rows = self._rows_of(metric)
        if isinstance(labels, Mapping):
            ids = {row.sample_id for row in rows}
            unknown = [k for k in labels if k not in ids]
            if unknown:
                raise InvalidInputError(
                    f"labels name {len(unknown)} sample ids these results do not hold, e.g. "
                    f"{unknown[:3]}; the ids are the samples' id fields"
                )
            return [labels.get(row.sample_id) for row in rows]
        human = list(labels)
        if len(human) != len(rows):
            raise InvalidInputError(
                f"labels has {len(human)} entries but {metric!r} has {len(rows)} samples"
            )
        return human

    def agreement_with(
        self,
        labels: Mapping[str, Any] | Sequence[Any],
        metric: str,
        *,
        level: Level | None = None,
        confidence: float | None = 0.95,
        n_resamples: int = 1000,
        seed: int = 0,
    ) -> dict[str, Any]:
        """Agreement between this run's values of ``metric`` and human ``labels``.

        ``labels`` is ``{sample_id: label}`` or one label per sample in order (``None`` when
        missing). The same statistics and intervals as :meth:`agreement`, with raters
        ``["judge", "human"]`` (the confusion table's rows are the judge's values).
        """
        rows = self._rows_of(metric)
        human = self.human_labels(labels, metric)
        spec = next(m for m in self._metrics if m.name == metric)
        chosen = _level(spec, level)
        ratings = [[_rating(row.score, chosen), h] for row, h in zip(rows, human, strict=True)]
        report = agreement_report(
            ratings, level=chosen, confidence=confidence, n_resamples=n_resamples, seed=seed
        )
        report["raters"] = ["judge", "human"]
        return report

    def prediction_powered_mean(
        self,
        labels: Mapping[str, Any] | Sequence[Any],
        metric: str,
        *,
        confidence: float = 0.95,
        power_tuning: bool = False,
        bounds: tuple[float, float] | None = None,
    ) -> dict[str, MeanEstimate]:
        """The mean of ``metric`` over every sample, corrected by human ``labels`` (PPI).

        ``labels`` (``{sample_id: number}`` or one per sample, ``None`` when unlabelled) must
        be on the metric's scale: labels outside its range (``bounds``, default the
        metric's declared :attr:`~ragmeter.judges.Metric.value_range`, ``[0, 1]`` for the
        built-in fractions) are refused. Labelled samples with an ok judge value are the labelled
        set; unlabelled samples with an ok value the unlabelled one (samples whose judge row is
        not ok are left out of both, and their counts say so). The humans-only mean is over
        the same labelled set as PPI's, so the two lines compare like with like. See
        :func:`~ragmeter.stats.ppi.ppi_mean` for the estimator (Angelopoulos et al., *Science*
        2023; ``power_tuning=True`` for PPI++). The intervals are cut at ``bounds`` too.

        Returns
        -------
        dict[str, MeanEstimate]
            ``{"ppi": ..., "judge": ..., "human": ...}``, each a
            :class:`~ragmeter.stats.ppi.MeanEstimate`: the corrected mean with its interval,
            the judge's raw mean over its ok rows (no interval: its bias is unknown without
            labels) and the humans-only mean with its interval.

        Raises
        ------
        InvalidInputError
            labels that are not numbers, outside the metric's range, or that do not fit the
            samples.
        """
        rows = self._rows_of(metric)
        human = self.human_labels(labels, metric)
        if bounds is None:
            spec = next(m for m in self._metrics if m.name == metric)
            bounds = getattr(spec, "value_range", None)
        for row, label in zip(rows, human, strict=True):
            if label is not None and (
                isinstance(label, bool) or not isinstance(label, int | float) or math.isnan(label)
            ):
                raise InvalidInputError(
                    f"labels[{row.sample_id!r}] is {label!r}: PPI needs numbers on the scale of "
                    f"{metric!r} (None when unlabelled)"
                )
        labelled = [
            (float(h), float(r.score.value))
            for r, h in zip(rows, human, strict=True)
            if h is not None and r.score.status == "ok" and r.score.value is not None
        ]
        unlabelled = [
            float(r.score.value)
            for r, h in zip(rows, human, strict=True)
            if h is None and r.score.status == "ok" and r.score.value is not None
        ]
        ok_values = [v for _, v in labelled] + unlabelled
        judge = MeanEstimate(
            "judge",
            math.fsum(ok_values) / len(ok_values) if ok_values else None,
            None,
            float(confidence),
            len(labelled),
            len(unlabelled),
            reason=None if ok_values else "no ok judge value",
        )
        return {
            "ppi": ppi_mean(
                [h for h, _ in labelled],
                [v for _, v in labelled],
                unlabelled,
                confidence=confidence,
                power_tuning=power_tuning,
                bounds=bounds,
            ),
            "judge": judge,
            # Over PPI's labelled samples (a labelled sample whose judge row is not ok is in
            # neither), so the two lines printed side by side are over the same samples.
            "human": classical_mean([h for h, _ in labelled], confidence=confidence, bounds=bounds),
        }

    @property
    def repeats(self) -> int:
        """How many times each (sample, metric) was judged (``evaluate(repeats=N)``)."""
        return int(self.manifest.get("repeats") or 1)

    def flaky(self, metric: str) -> list[str]:
        """The ids of the samples whose repeats of ``metric`` disagree (see
        :func:`~ragmeter.judges.repeats.flaky_reason`); empty without repeats."""
        return [r.sample_id for r in self._rows_of(metric) if r.flaky]

    def injection_suspected(self, metric: str | None = None) -> list[str]:
        """The ids of the samples whose rows (of ``metric``, or of any metric) are flagged
        :attr:`SampleResult.injection_suspected`, in row order, each once."""
        rows = self.rows if metric is None else self._rows_of(metric)
        return list(dict.fromkeys(r.sample_id for r in rows if r.injection_suspected))

    def repeat_summary(self, metric: str, *, confidence: float = 0.95) -> RepeatSummary:
        """The judge's noise on ``metric``: variance between items and within them (between
        repeats), and an interval for the mean that includes the judge's noise (see
        :mod:`ragmeter.stats.repeated`). Without repeats every item has one value,
        the within component is ``None`` and the interval is the usual t interval.
        """
        rows = self._rows_of(metric)
        values = [
            [
                float(s.value)
                for s in (r.repeats if r.repeats is not None else (r.score,))
                if s.status == "ok" and s.value is not None
            ]
            for r in rows
        ]
        return variance_components(
            values,
            confidence=confidence,
            repeats=self.repeats,
            n_flaky=sum(1 for r in rows if r.flaky),
        )

    def per_query_results(
        self, name: str | None = None, *, cluster: str | Mapping[Any, Any] | None = None
    ) -> PerQueryResults:
        """The per-sample values as :class:`~ragmeter.PerQueryResults` (what ``compare``, the
        gate and the report read; see :mod:`ragmeter.judges.values`): an ok score is its value,
        an undefined or failed one NaN (the failures listed), the repeats of a sample kept and
        averaged, and the manifest says who judged, with which prompts and settings.

        ``cluster`` (a key of the samples' ``metadata``, or ``{sample_id: cluster}``) records
        each sample's cluster: ``compare(..., test="cluster-t")`` and the gate then account for
        samples of one cluster being alike, and a comparison with another test says it ignores
        them."""
        return judged_values(self, name, cluster=cluster)

    def clustered_mean(
        self, metric: str, cluster: str | Mapping[Any, Any], *, confidence: float = 0.95
    ) -> ClusteredMean:
        """The mean of ``metric`` over the samples with a value (a sample's repeats averaged),
        with its cluster-robust standard error and t interval
        (:func:`ragmeter.stats.cluster_mean`, with G - 1 degrees of freedom): the interval
        of a mean of samples that come in clusters. ``cluster`` as in
        :meth:`per_query_results`; samples without a usable value are left out (see
        :meth:`summary` for why)."""
        if metric not in self.metric_names:
            raise InvalidInputError(
                f"metric: {metric!r} is not one of the metrics judged {list(self.metric_names)}"
            )
        values = self.per_query_results(cluster=cluster)
        column = values[metric]
        clusters = values.clusters or {}
        usable = [i for i, v in column.items() if math.isfinite(v)]
        return cluster_mean(
            {i: column[i] for i in usable}, {i: clusters[i] for i in usable}, confidence=confidence
        )

    def to_records(self) -> list[dict[str, Any]]:
        """One JSON-ready dict per (sample, metric) row."""
        records = [row.to_record(self.prices, self._models) for row in self.rows]
        if self._recorded_costs is not None:
            for record, cost in zip(records, self._recorded_costs, strict=True):
                record["cost"] = cost
        return records

    def to_jsonl(self, path_or_file: str | os.PathLike[str] | IO[str] | None = None) -> str | None:
        """Write one JSON object per row; returns the text when no destination is given."""
        if path_or_file is None:
            buffer = io.StringIO()
            self._write_jsonl(buffer)
            return buffer.getvalue()
        if isinstance(path_or_file, str | os.PathLike):
            # Atomically: on a full disk the previous results stay whole.
            buffer = io.StringIO()
            self._write_jsonl(buffer)
            atomic_write_text(path_or_file, buffer.getvalue())
        else:
            self._write_jsonl(path_or_file)
        return None

    def _write_jsonl(self, handle: IO[str]) -> None:
        handle.write(render_report(self, "jsonl"))

    def to_pandas(self, form: Literal["long", "wide"] = "long") -> Any:
        """A pandas DataFrame of the results (needs ``ragmeter[pandas]``).

        ``form="long"``: one row per (sample, metric), the columns of :meth:`to_records`.
        ``form="wide"``: one row per sample, as ragas' ``to_pandas()`` gives: ``sample_id``, the
        input fields (``question``, ``answer``, ``contexts``, ``reference``, and ``answer_b``
        when a sample has one), then per metric its value (NaN when not ``ok``) and a
        ``<metric>_status`` column, so a failure never passes for a missing number.

        Raises
        ------
        InvalidInputError
            an unknown ``form``.
        MissingDependencyError
            pandas is not installed.
        """
        if form not in ("long", "wide"):
            raise InvalidInputError(f"form must be 'long' or 'wide', got {form!r}")
        pd = import_optional("pandas", extra="pandas", purpose="JudgeResults.to_pandas()")
        if form == "long":
            return pd.DataFrame.from_records(self.to_records())
        return pd.DataFrame.from_records(self._wide_records())

    def _wide_records(self) -> list[dict[str, Any]]:
        fields = ["question", "answer", "contexts", "reference"]
        if any(s.answer_b is not None for s in self.samples):
            fields.append("answer_b")
        records: dict[str, dict[str, Any]] = {}
        for sample in self.samples:
            record: dict[str, Any] = {"sample_id": sample.id}
            for name in fields:
                value = getattr(sample, name)
                record[name] = list(value) if isinstance(value, tuple) else value
            records[str(sample.id)] = record
        for row in self.rows:
            record = records.setdefault(row.sample_id, {"sample_id": row.sample_id})
            record[row.metric] = math.nan if row.score.value is None else row.score.value
            record[f"{row.metric}_status"] = row.score.status
        return list(records.values())

    # -- saved form -------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The saved results, JSON-ready (NaN in the evidence is None).

        Keys: the head (``kind`` ``"ragmeter.judges"``, ``format_version``,
        ``ragmeter_version``), ``manifest`` (library version, judges, prompts and their hashes,
        settings, cache), ``metrics`` (``{name: MetricSummary.to_dict()}``),
        ``agreement_levels`` (per metric, how a panel's judges are compared), ``usage`` (per
        judge and metric, plus ``total``), ``agreement`` (per metric, only for panels),
        ``repeats`` (per metric :meth:`repeat_summary`, only with repeats), ``prices`` and
        ``judge_models`` (what the costs come from), ``samples`` (each :class:`Sample`'s
        fields) and ``rows`` (:meth:`to_records`, each with its ``usage`` per judge). The
        summaries, usage, agreement and repeats are derived from the rows, and checked against
        them when a file is read.
        """
        total = self.total_usage().to_dict()
        total["cost"] = self.total_cost()
        rows = [
            {
                **record,
                # As measured (not rounded): read back, they add up to the same totals.
                "usage": {judge: stats.to_dict(exact=True) for judge, stats in row.usage.items()},
            }
            for row, record in zip(self.rows, self.to_records(), strict=True)
        ]
        return {
            **saved_head(self),
            "manifest": jsonable(self.manifest),
            "metrics": {name: s.to_dict() for name, s in self.summaries().items()},
            "agreement_levels": {m.name: _level(m, None) for m in self._metrics},
            "usage": {"by_judge_metric": self.usage(), "total": total},
            "agreement": jsonable(self.panel_agreements()),
            **({"repeats": self.repeat_summaries()} if self.repeats > 1 else {}),
            "prices": prices_to_dict(self.prices),
            "judge_models": dict(self._models),
            "samples": [sample.to_dict() for sample in self.samples],
            "rows": rows,
        }

    def panel_agreements(self) -> dict[str, dict[str, Any]]:
        """``{metric: agreement}`` of every metric a panel of two or more judges judged
        (:meth:`agreement` without intervals: a saved result and a report are written often;
        :meth:`agreement` gives the intervals); empty without a panel."""
        agreement: dict[str, dict[str, Any]] = {}
        for name in self.metric_names:
            panel_rows = [r for r in self.rows if r.metric == name and r.judge_scores]
            if panel_rows and len(next(iter(panel_rows)).judge_scores or {}) >= 2:
                agreement[name] = self.agreement(name, confidence=None)
        return agreement

    def repeat_summaries(self) -> dict[str, dict[str, Any]]:
        """``{metric: repeat_summary(metric).to_dict()}`` of a run judged several times per
        sample (:meth:`repeat_summary`); empty without repeats."""
        if self.repeats <= 1:
            return {}
        return {name: self.repeat_summary(name).to_dict() for name in self.metric_names}

    def to_report_dict(self) -> dict[str, Any]:
        """The saved results (:meth:`to_dict`), the form the report writers consume."""
        return self.to_dict()

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JudgeResults:
        """Rebuild results from :meth:`to_dict` output (or a report of format 1 or 2), checking
        every field.

        The metrics are rebuilt from what the file holds (their names, agreement levels and
        summary figures: a metric's code is not saved).

        Raises
        ------
        InvalidInputError
            another kind, a format this version does not read, a missing,
            unknown or wrongly typed field.
        """
        version = cls.format_version_of(data)
        if version in (1, 2):
            return cls._from_report(data)
        check_saved_head(data, cls, "judge results")
        for key in data:
            if key not in _SAVED_FIELDS:
                raise InvalidInputError(f"{key}: a field ragmeter does not write")
        for key in _SAVED_FIELDS:
            if key not in data and key != "repeats":
                raise InvalidInputError(f"{key}: missing")
        manifest = data["manifest"]
        if not isinstance(manifest, Mapping):
            raise InvalidInputError("manifest: expected a mapping")
        summaries = _summaries(data["metrics"])
        levels = data["agreement_levels"]
        if not isinstance(levels, Mapping) or list(levels) != list(summaries):
            raise InvalidInputError(
                f"agreement_levels: expected the level of each metric, {list(summaries)}"
            )
        metrics = []
        for name, summary in summaries.items():
            if levels[name] not in AGREEMENT_LEVELS:
                raise InvalidInputError(
                    f"agreement_levels.{name}: {levels[name]!r} is not one of {AGREEMENT_LEVELS}"
                )
            metrics.append(SavedMetric(name, levels[name], summary.get("extra")))
        samples = data["samples"]
        if not isinstance(samples, list | tuple):
            raise InvalidInputError("samples: expected a list of samples")
        prices = prices_from_dict(data["prices"], "prices")
        fields = _rows(data["rows"], set(summaries), per_judge_usage=True)
        return cls._built(
            fields,
            metrics=metrics,
            manifest=manifest,
            prices=prices,
            judge_models=string_mapping(data["judge_models"], "judge_models"),
            samples=[sample_from_dict(s, f"samples[{i}]") for i, s in enumerate(samples)],
        )

    @classmethod
    def _from_report(cls, data: Mapping[str, Any]) -> JudgeResults:
        """Results from a report of format 1 or 2 (``to_report_dict`` before format 3): what it
        holds (see :mod:`ragmeter.judges.saved`)."""
        if data.get("kind") != cls.KIND:
            raise InvalidInputError(
                f"kind: {data.get('kind')!r}; judge results have kind {cls.KIND!r}"
            )
        known = (
            "kind",
            "schema_version",
            "manifest",
            "metrics",
            "usage",
            "agreement",
            "repeats",
            "rows",
        )
        for key in data:
            if key not in known:
                raise InvalidInputError(f"{key}: a field ragmeter does not write")
        manifest = data.get("manifest")
        if not isinstance(manifest, Mapping):
            raise InvalidInputError("manifest: expected a mapping")
        summaries = _summaries(data.get("metrics"))
        agreement = data.get("agreement") or {}
        if not isinstance(agreement, Mapping):
            raise InvalidInputError("agreement: expected {metric: agreement}")
        metrics = []
        for name, summary in summaries.items():
            saved = agreement.get(name)
            level = saved.get("level") if isinstance(saved, Mapping) else None
            metrics.append(
                SavedMetric(
                    name, level if level in AGREEMENT_LEVELS else "interval", summary.get("extra")
                )
            )
        fields = _rows(data.get("rows"), set(summaries), per_judge_usage=False)
        return cls._built(
            fields, metrics=metrics, manifest=manifest, prices={}, judge_models={}, samples=()
        )

    @classmethod
    def _built(
        cls,
        fields: Sequence[RowFields],
        *,
        metrics: Sequence[SavedMetric],
        manifest: Mapping[str, Any],
        prices: Mapping[str, Price],
        judge_models: Mapping[str, str],
        samples: Sequence[Sample],
    ) -> JudgeResults:
        rows = [
            SampleResult(
                f.sample_id, f.metric, f.score, f.judge, f.judge_scores, f.usage, f.repeats
            )
            for f in fields
        ]
        results = cls(
            rows,
            metrics=metrics,
            manifest=manifest,
            prices=prices,
            judge_models=judge_models,
            samples=samples,
        )
        if not prices and any(f.cost is not None for f in fields):
            # No prices to compute them from: the costs stay as the rows recorded them.
            results._recorded_costs = tuple(f.cost for f in fields)
        return results

    def to_rows(self) -> list[dict[str, Any]]:
        """The rows of :meth:`to_records`, their keys sorted (what :meth:`to_jsonl` and
        ``write("x.jsonl")`` write, one line per row)."""
        return [dict(sorted(record.items())) for record in self.to_records()]

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]]) -> JudgeResults:
        """Rebuild results from :meth:`to_rows` (or ``to_jsonl``) output: what rows hold.

        Rows hold no manifest (but the number of repeats), no samples and no prices (the
        costs are kept as the rows recorded them), a row's usage as its total (a panel's
        usage is the panel's) and the metrics by name only (their agreement level
        ``"interval"``); read the JSON form for the whole results.

        Raises
        ------
        InvalidInputError
            no row, a missing, unknown or wrongly typed field.
        """
        if not isinstance(rows, list | tuple) or not rows:
            raise InvalidInputError("rows: judge results have one row per sample and metric")
        fields = _rows(rows, None, per_judge_usage=False)
        names = list(dict.fromkeys(f.metric for f in fields))
        counts = {len(f.repeats) for f in fields if f.repeats is not None}
        if len(counts) > 1:
            raise InvalidInputError(f"rows: repeats: rows of {sorted(counts)} repeats in one run")
        manifest = {"repeats": counts.pop()} if counts else {}
        metrics = [SavedMetric(name) for name in names]
        return cls._built(
            fields, metrics=metrics, manifest=manifest, prices={}, judge_models={}, samples=()
        )

    @classmethod
    def format_version_of(cls, data: Any) -> Any:
        """The format of saved data: its ``format_version`` (``schema_version`` before
        format 3); None for rows, which carry none."""
        if not isinstance(data, Mapping):
            return None
        return data.get("format_version", data.get("schema_version"))

    def write(self, path: str | os.PathLike[str], *, format: str | None = None) -> Path:
        """Write the results to ``path`` atomically, in the format of its suffix (``.json``,
        ``.yaml``/``.yml``, ``.toml``: :meth:`to_dict`; ``.jsonl``: :meth:`to_rows`), and
        return the path."""
        return write_report(self, path, format=format)

    @classmethod
    def read(cls, path: str | os.PathLike[str], *, format: str | None = None) -> JudgeResults:
        """Read results written by :meth:`write`, :meth:`to_jsonl` or saved from
        :meth:`to_report_dict` (formats 1 to 3).

        Raises
        ------
        InvalidInputError
            a file that is not exactly such results (edited by hand,
            damaged, another kind, a newer format), naming the file and the field.
        """
        return load_report(cls, path, format=format)

    def cache_summary(self) -> dict[str, Any]:
        """How many rows were served from the cache, and why the others called an endpoint.

        ``without_call``: rows that made no call (every answer came from the cache or from an
        identical call of the run, or the row needed none); ``called``: rows that made at least
        one call, split into ``called_after_recorded_failure`` (a call failed in an earlier run
        and was made again: ``retry_errors=True``) and ``called_not_in_cache`` (new, or
        ``cache_mode="refresh"``); ``replayed_failures``: rows holding a failure replayed from
        the cache (``retry_errors=False``).
        """
        totals = [row.total_usage() for row in self.rows]
        called = [t for t in totals if t.calls or t.embedding_calls]
        after_failure = sum(1 for t in called if t.retried_failures)
        cache = self.manifest.get("cache")
        return {
            "mode": cache.get("mode") if isinstance(cache, Mapping) else None,
            "rows": len(totals),
            "without_call": len(totals) - len(called),
            "called": len(called),
            "called_after_recorded_failure": after_failure,
            "called_not_in_cache": len(called) - after_failure,
            "replayed_failures": sum(1 for t in totals if t.replayed_failures),
        }

    def _cache_line(self) -> str | None:
        summary = self.cache_summary()
        if summary["mode"] in (None, "off"):
            return None
        line = (
            f"cache ({summary['mode']}): {summary['without_call']} of {summary['rows']} rows "
            "needed no call"
        )
        reasons = []
        if summary["called_after_recorded_failure"]:
            reasons.append(
                f"{summary['called_after_recorded_failure']} had failed in an earlier run and "
                "were judged again (retry_errors=False replays recorded failures)"
            )
        if summary["called_not_in_cache"]:
            why = "refresh mode" if summary["mode"] == "refresh" else "not in the cache"
            reasons.append(f"{summary['called_not_in_cache']} {why}")
        if reasons:
            line += f"; {summary['called']} called the judge: " + ", ".join(reasons)
        if summary["replayed_failures"]:
            line += (
                f"; {summary['replayed_failures']} rows replay a failure recorded in an earlier "
                "run (retry_errors=False)"
            )
        return line

    def _usage_line(self) -> str | None:
        total = self.total_usage()
        if not (total.calls or total.cache_hits or total.embedding_calls):
            return None
        estimated = " (estimated)" if total.tokens_estimated else ""
        cached = (
            f" ({total.cached_prompt_tokens:,} of them from the provider's prompt cache)"
            if total.cached_prompt_tokens
            else ""
        )
        line = (
            f"usage: {_count(total.calls, 'call')}, {total.prompt_tokens:,} prompt{cached} + "
            f"{total.completion_tokens:,} completion tokens{estimated}"
        )
        if total.embedding_calls:
            line += f", {_count(total.embedding_calls, 'embedding call')}"
        cost = self.total_cost()
        return line if cost is None else f"{line}, cost {cost:.4f}"

    def __repr__(self) -> str:
        lines = [f"JudgeResults({len(self.rows)} rows, metrics={self.metric_names})"]
        lines.extend(f"  {summary}" for summary in self.summaries().values())
        if self.repeats > 1:
            for name in self.metric_names:
                lines.append(f"  {name} over {self.repeats} repeats: {self.repeat_summary(name)}")
        flagged = [r for r in self.rows if r.injection_suspected]
        if flagged:
            lines.append(
                f"  warning: {_count(len(flagged), 'row')} flagged injection_suspected (the judge "
                "echoed an instruction found in the data; see results.injection_suspected())"
            )
        for extra in (self._usage_line(), self._cache_line()):
            if extra is not None:
                lines.append(f"  {extra}")
        return "\n".join(lines)


def _summaries(data: Any) -> dict[str, Mapping[str, Any]]:
    """The metrics' summaries of a file: ``{name: summary}`` (their names give the metrics
    and their order; the rest is derived from the rows and checked against them)."""
    if not isinstance(data, Mapping) or not all(
        isinstance(name, str) and isinstance(summary, Mapping) for name, summary in data.items()
    ):
        raise InvalidInputError("metrics: expected {metric: summary}")
    for name, summary in data.items():
        extra = summary.get("extra")
        if extra is not None and not isinstance(extra, Mapping):
            raise InvalidInputError(f"metrics.{name}.extra: expected a mapping")
    return dict(data)


def _rows(data: Any, metrics: set[str] | None, *, per_judge_usage: bool) -> list[RowFields]:
    """The rows of a file, each checked, and of the results' ``metrics`` (None: any)."""
    if not isinstance(data, list | tuple):
        raise InvalidInputError("rows: expected a list of rows")
    fields = [
        row_fields(record, f"rows[{i}]", per_judge_usage=per_judge_usage)
        for i, record in enumerate(data)
    ]
    for i, f in enumerate(fields):
        if metrics is not None and f.metric not in metrics:
            raise InvalidInputError(
                f"rows[{i}].metric: {f.metric!r} is not a metric of the results"
            )
    return fields


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def _level(spec: Any, level: Level | None) -> Level:
    if level is not None:
        return level
    chosen: Level = getattr(spec, "agreement_level", "interval")
    return chosen


def _rating(score: Score | None, level: str) -> Any:
    if score is None or score.status != "ok":
        return None
    if level == "nominal" and "winner" in score.evidence:
        return score.evidence["winner"]
    return score.value
