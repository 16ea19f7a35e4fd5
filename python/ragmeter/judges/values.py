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

Clusters (several questions about one document, several turns of one conversation) are given
by ``cluster``: the key of each sample's ``metadata`` that names its cluster, or a mapping
``{sample_id: cluster}``; every sample needs one. The values then record them, and the
comparison engine's ``cluster-t`` test and :mod:`ragmeter.stats.clustered` read them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..exceptions import InvalidInputError
from ..manifest import Manifest, judge_identity_of
from ..per_query import PerQueryResults

__all__ = ["judged_clusters", "judged_manifest", "judged_values"]


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


def judged_clusters(results: Any, cluster: str | Mapping[Any, Any]) -> dict[Any, Any]:
    """Each sample's cluster: ``cluster`` names a key of the samples' ``metadata``, or maps
    sample ids to clusters (see the module documentation).

    Raises
    ------
    InvalidInputError
        A sample without a cluster, or ``cluster`` neither a str nor a mapping.
    """
    ids = [sample.id for sample in results.samples] or list(
        dict.fromkeys(row.sample_id for row in results.rows)
    )
    if isinstance(cluster, str):
        by_id = {sample.id: sample for sample in results.samples}
        found = {
            i: by_id[i].metadata.get(cluster) if i in by_id and by_id[i].metadata else None
            for i in ids
        }
        where = f"the samples' metadata[{cluster!r}]"
    elif isinstance(cluster, Mapping):
        found = {i: cluster.get(i) for i in ids}
        where = "cluster"
    else:
        raise InvalidInputError(
            f"cluster: a key of the samples' metadata (str) or {{sample_id: cluster}}, got "
            f"{type(cluster).__name__}"
        )
    lacking = [i for i, c in found.items() if c is None]
    if lacking:
        shown = ", ".join(map(repr, lacking[:5])) + (", ..." if len(lacking) > 5 else "")
        raise InvalidInputError(
            f"cluster: {where} gives no cluster for {len(lacking)} of {len(ids)} samples "
            f"[{shown}]; every sample needs one (a sample alone is a cluster of its own: give "
            "it its own id)"
        )
    return found


def judged_values(
    results: Any, name: str | None = None, *, cluster: str | Mapping[Any, Any] | None = None
) -> PerQueryResults:
    """The per-item values of judged results (see the module documentation).

    Parameters
    ----------
    results
        :class:`~ragmeter.judges.JudgeResults`.
    name
        The system's name.
    cluster
        The samples' clusters (:func:`judged_clusters`), or None.

    Returns
    -------
    PerQueryResults
        The values, their repeats, clusters, failures and manifest.

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
        clusters=None if cluster is None else judged_clusters(results, cluster),
    )
