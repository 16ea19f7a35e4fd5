"""promptfoo results: the JSON ``promptfoo eval -o output.json`` writes (``evalId``,
``results``: ``{version, timestamp, prompts, results, stats}``, ``config``; the result rows are
``EvaluateResult`` of promptfoo's ``src/types/index.ts``).

What is read: each result row is one test (``testIdx``: the item) of one provider and prompt
(``provider.label`` or ``provider.id``: the system; with several prompts in the file, the
prompt's ``label`` is added: ``provider | prompt``); its metrics are ``score`` (the grading
score), ``pass`` (``success`` as 1 or 0) and every ``namedScores`` entry. A row that failed
with an error (``failureReason`` 2, promptfoo's ``ResultFailureReason.ERROR``) is failed,
not a score of 0. With ``cluster=``, the test's ``vars[cluster]``. The file holds every
provider: read one with ``system=`` (:func:`ragmeter.io.read_systems` reads them all).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..exceptions import InvalidInputError
from ._harness_rows import HarnessRows, score_number
from ._records import Records

__all__ = ["harness_records", "recognises"]

#: promptfoo's ``ResultFailureReason.ERROR``.
_ERROR = 2


def recognises(data: Any) -> bool:
    """Whether parsed JSON is promptfoo's output."""
    results = data.get("results") if isinstance(data, Mapping) else None
    return (
        isinstance(results, Mapping)
        and isinstance(results.get("results"), list)
        and ("evalId" in data or "prompts" in results or "stats" in results)
    )


def _provider(row: Mapping[str, Any]) -> str:
    provider = row.get("provider")
    if isinstance(provider, Mapping):
        return str(provider.get("label") or provider.get("id"))
    return str(provider)


def harness_records(data: Any, where: str, cluster: str | None = None) -> Records:
    """The long rows of a promptfoo output (see the module documentation)."""
    results = data["results"]
    version = (data.get("metadata") or {}).get("promptfooVersion")
    built = HarnessRows(where, "promptfoo", version)
    rows = results["results"]
    prompts = {(row.get("prompt") or {}).get("label") for row in rows if isinstance(row, Mapping)}
    named = sorted(
        {k for row in rows if isinstance(row, Mapping) for k in row.get("namedScores") or {}}
    )
    for position, row in enumerate(rows):
        if not isinstance(row, Mapping) or "testIdx" not in row:
            raise InvalidInputError(f"{where}: result {position} has no testIdx")
        system = _provider(row)
        if len(prompts) > 1:
            system = f"{system} | {(row.get('prompt') or {}).get('label')}"
        here = f"{where}: result {position} (test {row['testIdx']}, {system})"
        group = None
        if cluster is not None:
            group = (row.get("vars") or {}).get(cluster)
            if group is None:
                raise InvalidInputError(f"{here}: its vars have no {cluster!r} (cluster=)")
        failed = row.get("failureReason") == _ERROR
        scores = row.get("namedScores") or {}
        values = {
            "score": row.get("score"),
            "pass": row.get("success"),
            **{name: scores.get(name) for name in named},
        }
        for metric, value in values.items():
            built.define(metric, {"metric": metric})
            number = math.nan if failed else score_number(value, here, metric)
            built.add(
                row["testIdx"], metric, number, here, system=system, cluster=group, failed=failed
            )
    return built.records()
