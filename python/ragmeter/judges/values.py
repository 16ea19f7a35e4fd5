"""Judged rows as per-item values: the one adapter from :class:`~ragmeter.judges.JudgeResults`
to :class:`~ragmeter.PerQueryResults` (:meth:`JudgeResults.per_query_results
<ragmeter.judges.JudgeResults.per_query_results>` calls it).

An item is a sample, paired by its id. Each judgement of a (sample, metric) is a value: an
``ok`` score its value, an ``undefined`` or ``error`` score a repeat without a usable value
(a failure is never a number). A row of ``evaluate(repeats=N)`` holds its N repeats; several
rows of one (sample, metric) are repeats too. The item's value is the mean of its usable
repeats (NaN when none is usable), its repeats are kept when there are several, and an item
with at least one ``error`` is listed in ``failed``.

The manifest says ``producer="ragmeter.judges"``, the ragmeter version of the run, each
metric's definition (its name, class, parameters and prompts' digests, as the run manifest
records them), the judge's identity (:func:`~ragmeter.manifest.judge_identity_of`: never a
URL's host or port) and the settings that change the scores (``judge_value``, the judge's
``temperature`` and ``language``). Results read from JSON lines hold no run manifest: their
judge, measures and settings are unknown (the number of repeats excepted).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..exceptions import InvalidInputError
from ..manifest import Manifest, judge_identity_of
from ..per_query import PerQueryResults

__all__ = ["judged_manifest", "judged_values"]


def _judge_value(repeats: int) -> str:
    return "one judgement" if repeats <= 1 else f"mean of {repeats} repeats"


def judged_manifest(run_manifest: Mapping[str, Any], metrics: Sequence[str]) -> Manifest:
    """The :class:`~ragmeter.manifest.Manifest` of judged values from the judges' run manifest.

    Parameters
    ----------
    run_manifest
        :attr:`JudgeResults.manifest <ragmeter.judges.JudgeResults.manifest>`.
    metrics
        The metrics judged.

    Returns
    -------
    Manifest
        The manifest (what the run manifest does not say is listed in ``unknown``).
    """
    repeats = int(run_manifest.get("repeats") or 1)
    settings: dict[str, Any] = {"judge_value": _judge_value(repeats)}
    unknown: list[str] = []
    run_settings = run_manifest.get("settings")
    if isinstance(run_settings, Mapping):
        settings["temperature"] = run_settings.get("temperature")
        settings["language"] = run_settings.get("language")
    else:
        unknown += ["temperature", "language"]
    described = run_manifest.get("metrics")
    measures = {}
    if isinstance(described, list):
        for definition in described:
            if isinstance(definition, Mapping) and definition.get("name") in metrics:
                measures[str(definition["name"])] = definition
    if set(measures) != set(metrics):
        unknown.append("measures")
    judge = judge_identity_of(run_manifest)
    if judge is None:
        unknown.append("judge")
    version = run_manifest.get("version")
    return Manifest(
        "ragmeter.judges",
        version if isinstance(version, str) else None,
        measures,
        settings,
        judge,
        tuple(unknown),
    )


def judged_values(results: Any, name: str | None = None) -> PerQueryResults:
    """The per-item values of judged results (see the module documentation).

    Parameters
    ----------
    results
        :class:`~ragmeter.judges.JudgeResults`.
    name
        The system's name.

    Returns
    -------
    PerQueryResults
        The values, their repeats, failures and manifest.

    Raises
    ------
    InvalidInputError
        A sample without a row of every metric.
    """
    metrics = list(results.metric_names)
    order: dict[Any, None] = {}
    judged: dict[str, dict[Any, list[float]]] = {m: {} for m in metrics}
    failed: dict[str, list[Any]] = {m: [] for m in metrics}
    for row in results.rows:
        order.setdefault(row.sample_id)
        scores = row.repeats if row.repeats is not None else (row.score,)
        column = judged.setdefault(row.metric, {})
        column.setdefault(row.sample_id, []).extend(
            float(s.value) if s.status == "ok" and s.value is not None else math.nan for s in scores
        )
        if any(s.status == "error" for s in scores) or row.score.status == "error":
            failed.setdefault(row.metric, []).append(row.sample_id)
    samples = list(order)
    for metric in metrics:
        absent = [s for s in samples if s not in judged[metric]]
        if absent:
            shown = ", ".join(map(repr, absent[:5])) + (", ..." if len(absent) > 5 else "")
            raise InvalidInputError(
                f"results: the judges have no row of {metric!r} for samples [{shown}]"
            )
    values = {
        metric: [
            judged[metric][s] if len(judged[metric][s]) > 1 else judged[metric][s][0]
            for s in samples
        ]
        for metric in metrics
    }
    return PerQueryResults(
        values,
        samples,
        name=name,
        manifest=judged_manifest(results.manifest, metrics),
        failed=failed,
    )
