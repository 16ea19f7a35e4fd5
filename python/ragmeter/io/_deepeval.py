"""DeepEval test runs: the JSON DeepEval saves of a run (``.deepeval/.latest_test_run.json``,
the ``TestRun`` model of ``deepeval/test_run/test_run.py``, fields by their aliases).

What is read: each of ``testCases`` and ``conversationalTestCases`` is an item, named by its
``name`` (DeepEval names the cases of ``evaluate()`` ``test_case_0``, ``test_case_1``, ... in the
dataset's order); each entry of its ``metricsData`` (``name``, ``score``, ``threshold``,
``strictMode``, ``evaluationModel``, ``error``) a value of metric ``name``, failed when
``error`` is set or ``score`` is null. With ``cluster=``, the case's ``metadata[cluster]``.
The system is ``hyperparameters["model"]`` when recorded; each metric's definition is its
threshold, strict mode and evaluation model (the judge), so runs judged by different models
are refused as incomparable.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..exceptions import InvalidInputError
from ._harness_rows import HarnessRows, score_number
from ._records import Records

__all__ = ["harness_records", "recognises"]


def recognises(data: Any) -> bool:
    """Whether parsed JSON is a DeepEval test run."""
    return (
        isinstance(data, Mapping)
        and isinstance(data.get("testCases", data.get("conversationalTestCases")), list)
        and any(
            key in data for key in ("metricsScores", "testPassed", "testFile", "hyperparameters")
        )
    )


def harness_records(data: Any, where: str, cluster: str | None = None) -> Records:
    """The long rows of a DeepEval test run (see the module documentation)."""
    hyper = data.get("hyperparameters") or {}
    system = hyper.get("model") if isinstance(hyper, Mapping) else None
    built = HarnessRows(where, "deepeval", data.get("deepevalVersion"))
    cases = [*(data.get("testCases") or []), *(data.get("conversationalTestCases") or [])]
    for position, case in enumerate(cases):
        if not isinstance(case, Mapping):
            raise InvalidInputError(f"{where}: test case {position} is not an object")
        item = case.get("name", position)
        here = f"{where}: test case {item!r}"
        group = None
        if cluster is not None:
            group = (case.get("metadata") or {}).get(cluster)
            if group is None:
                raise InvalidInputError(f"{here}: its metadata has no {cluster!r} (cluster=)")
        for entry in case.get("metricsData") or []:
            if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
                raise InvalidInputError(f"{here}: a metricsData entry without a name")
            metric = entry["name"]
            built.define(
                metric,
                {
                    "threshold": entry.get("threshold"),
                    "strict_mode": entry.get("strictMode", False),
                    "evaluation_model": entry.get("evaluationModel"),
                },
            )
            failed = entry.get("error") is not None or entry.get("score") is None
            value = math.nan if failed else score_number(entry["score"], here, metric)
            built.add(item, metric, value, here, system=system, cluster=group, failed=failed)
    return built.records()
