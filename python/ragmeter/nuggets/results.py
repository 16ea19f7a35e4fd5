"""Nugget scores of every answer, as the values every consumer reads.

:class:`NuggetScores` holds each answer's scores (one :class:`~ragmeter.judges.Score` per
metric and repeat: ok, ``undefined`` with its reason, or ``error``) and gives each run's values
as :class:`~ragmeter.PerQueryResults` (:meth:`NuggetScores.per_query_results`): the items are
the topics, an undefined or failed score is NaN (the failures listed), the repeats are kept,
and the manifest names the producer (``ragmeter.nuggets``), each score's formula and the bank
(its hash) it was scored against, the judge and the settings (``blind`` among them). So
``compare``, ``compare_many``, the gate and the report read nugget scores as any per-query
values, and refuse two runs scored against different banks or by different judges.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._core import __version__
from ..exceptions import InvalidInputError
from ..judges.score import Score
from ..manifest import Manifest
from ..per_query import PerQueryResults
from ..stats.repeated import variance_components
from ..summaries import MeanScore
from .scores import NUGGET_METRICS, answer_scores, metric_definitions

__all__ = ["PRODUCER", "NuggetScores"]

#: The producer a manifest of nugget scores names.
PRODUCER = "ragmeter.nuggets"


@dataclass(frozen=True)
class _Answer:
    run_id: str
    topic_id: str
    scores: Mapping[str, tuple[Score, ...]]


class NuggetScores:
    """Every answer's nugget scores (see the module documentation); built by
    :meth:`NuggetAssignments.scores <ragmeter.nuggets.NuggetAssignments.scores>`."""

    def __init__(
        self, answers: Sequence[_Answer], manifest: Manifest, topics: Sequence[str]
    ) -> None:
        self._answers = tuple(answers)
        self.manifest = manifest
        self._topics = tuple(topics)

    @classmethod
    def of(cls, assignments: Any) -> NuggetScores:
        """The scores of :class:`~ragmeter.nuggets.NuggetAssignments`."""
        bank = assignments.bank
        answers = []
        repeats = 1
        for answer in assignments.answers:
            importances = [n.importance for n in bank[answer.topic_id].nuggets]
            per_repeat = []
            for judgement in answer.judgements:
                if judgement.status == "undefined":
                    code = judgement.reason_code or "no_nuggets"
                    per_repeat.append(
                        {m: Score.undefined(code, judgement.message or "") for m in NUGGET_METRICS}
                    )
                else:
                    failure = (
                        (judgement.reason_code or "judge_error", judgement.message or "")
                        if judgement.status == "error"
                        else None
                    )
                    per_repeat.append(answer_scores(judgement.labels, importances, failure=failure))
            repeats = max(repeats, len(per_repeat))
            answers.append(
                _Answer(
                    answer.run_id,
                    answer.topic_id,
                    {m: tuple(r[m] for r in per_repeat) for m in NUGGET_METRICS},
                )
            )
        settings: dict[str, Any] = {"blind": assignments.blind}
        unknown: list[str] = []
        if assignments.source == "judge":
            settings["judge_value"] = (
                "one judgement" if repeats <= 1 else f"mean of {repeats} repeats"
            )
            for key in ("temperature", "language"):
                settings[key] = assignments.settings.get(key)
        if assignments.judge is None:
            unknown.append("judge")
        manifest = Manifest(
            PRODUCER,
            __version__,
            metric_definitions(bank.describe(), assignments.grades),
            settings,
            assignments.judge,
            tuple(unknown),
        )
        return cls(answers, manifest, bank.topic_ids)

    # -- views --------------------------------------------------------------------------------

    @property
    def runs(self) -> tuple[str, ...]:
        """The runs, in order."""
        return tuple(dict.fromkeys(a.run_id for a in self._answers))

    @property
    def metric_names(self) -> tuple[str, ...]:
        """The scores' names."""
        return tuple(NUGGET_METRICS)

    def score(self, run_id: str, topic_id: str, metric: str) -> tuple[Score, ...]:
        """The scores (one per repeat) of one run's answer to one topic."""
        for answer in self._answers:
            if answer.run_id == run_id and answer.topic_id == topic_id:
                return answer.scores[metric]
        raise KeyError(f"run {run_id!r} has no answer to topic {topic_id!r}")

    def per_query_results(self, run_id: str | None = None) -> PerQueryResults:
        """One run's values (see the module documentation); ``run_id`` may be omitted when
        there is one run."""
        runs = self.runs
        if run_id is None:
            if len(runs) != 1:
                raise InvalidInputError(
                    f"run_id: these scores hold {len(runs)} runs ({', '.join(runs[:5])}); name one"
                )
            run_id = runs[0]
        mine = [a for a in self._answers if a.run_id == run_id]
        if not mine:
            raise InvalidInputError(f"run_id: no answer of run {run_id!r}; runs: {list(runs)}")
        values: dict[str, dict[str, Any]] = {}
        failed: dict[str, list[str]] = {}
        for metric in NUGGET_METRICS:
            column: dict[str, Any] = {}
            for answer in mine:
                numbers = [
                    math.nan if s.value is None else float(s.value) for s in answer.scores[metric]
                ]
                column[answer.topic_id] = numbers[0] if len(numbers) == 1 else numbers
                if any(s.status == "error" for s in answer.scores[metric]):
                    failed.setdefault(metric, []).append(answer.topic_id)
            values[metric] = column
        answered = {a.topic_id for a in mine}
        return PerQueryResults(
            values,
            name=run_id,
            manifest=self.manifest,
            failed=failed,
            missing_from_run=tuple(t for t in self._topics if t not in answered),
        )

    def all_per_query_results(self) -> dict[str, PerQueryResults]:
        """``{run: PerQueryResults}`` of every run."""
        return {run: self.per_query_results(run) for run in self.runs}

    def means(self) -> dict[str, dict[str, MeanScore]]:
        """``{run: {metric: MeanScore}}``: each mean over the topics where the score is
        defined, with the count of those where it is not."""
        return {run: values.means() for run, values in self.all_per_query_results().items()}

    def ordering(self, metric: str) -> dict[str, float]:
        """``{run: mean}`` of one score (the run ordering agreement statistics compare)."""
        if metric not in NUGGET_METRICS:
            raise InvalidInputError(f"metric: {metric!r} is not one of {list(NUGGET_METRICS)}")
        return {run: float(means[metric]) for run, means in self.means().items()}

    def interval(self, run_id: str, metric: str, *, confidence: float = 0.95) -> Any:
        """The mean of one run's score over topics with an interval that counts the judge's
        noise over repeats (:func:`ragmeter.stats.variance_components`: between-topic and
        within-topic components)."""
        values = self.per_query_results(run_id)
        repeats = values.repeats.get(metric, {})
        items = []
        for topic in values.query_ids:
            scores = repeats.get(topic, (values[metric][topic],))
            items.append([float(v) for v in scores if not math.isnan(v)])
        n_repeats = max((len(r) for r in repeats.values()), default=1)
        return variance_components(items, confidence=confidence, repeats=n_repeats)

    def rows(self) -> list[dict[str, Any]]:
        """One row per (run, topic, metric): the value (of the mean of repeats), the status and
        the reason of a score that has no value."""
        rows = []
        for answer in self._answers:
            for metric, scores in answer.scores.items():
                ok = [s.value for s in scores if s.value is not None]
                first_bad = next((s for s in scores if s.status != "ok"), None)
                rows.append(
                    {
                        "run_id": answer.run_id,
                        "topic_id": answer.topic_id,
                        "metric": metric,
                        "value": sum(ok) / len(ok) if ok else None,
                        "status": "ok" if first_bad is None else first_bad.status,
                        "reason_code": None if first_bad is None else first_bad.reason_code,
                        "n_repeats": len(scores),
                    }
                )
        return rows

    def __repr__(self) -> str:
        return f"NuggetScores({len(self.runs)} runs, {len(self._answers)} answers)"
