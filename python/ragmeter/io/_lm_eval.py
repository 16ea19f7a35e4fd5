"""lm-evaluation-harness samples: the JSON lines ``--log_samples`` writes
(``samples_<task>_<date>.jsonl``, one object per document and filter, written by
``lm_eval/evaluator.py``: ``doc_id``, ``doc``, ``target``, ``arguments``, ``resps``,
``filtered_resps``, ``filter``, ``metrics`` (the names of the metrics), ``doc_hash``,
``prompt_hash``, ``target_hash``, then each metric's value under its name).

What is read: each row's ``doc_id`` is the item; each metric the row names in ``metrics`` is a
value of metric ``<name>,<filter>`` (lm-eval's own key in its results, ``acc,none``,
``exact_match,strict-match``). Rows without ``metrics`` (older versions) give every numeric
field that is not one of lm-eval's own. With ``cluster=``, the ``doc[cluster]`` field. The
samples file records no model (the results file beside it does): the system is named by the
caller or the file. Each metric's definition is its name, filter and the task's prompt and
target hashes are checked per item instead: two files whose ``doc_hash`` differ for one
``doc_id`` are not the same item, which the reader cannot see across files, so compare files of
one task and version.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..exceptions import InvalidInputError
from ._harness_rows import HarnessRows, score_number
from ._records import Records

__all__ = ["harness_records", "recognises"]

#: Fields lm-eval writes in every sample that are not metrics.
_OWN = frozenset(
    (
        "doc_id",
        "doc",
        "target",
        "arguments",
        "resps",
        "filtered_resps",
        "filter",
        "metrics",
        "doc_hash",
        "prompt_hash",
        "target_hash",
    )
)


def recognises(data: Any) -> bool:
    """Whether parsed JSON lines are lm-eval samples."""
    return (
        isinstance(data, list)
        and bool(data)
        and all(
            isinstance(row, Mapping) and "doc_id" in row and "filtered_resps" in row for row in data
        )
    )


def harness_records(data: Any, where: str, cluster: str | None = None) -> Records:
    """The long rows of lm-eval samples (see the module documentation)."""
    built = HarnessRows(where, "lm-evaluation-harness")
    for line, row in enumerate(data, start=1):
        here = f"{where}:{line}"
        names = row.get("metrics")
        if names is None:
            names = [k for k, v in row.items() if k not in _OWN and isinstance(v, int | float)]
        if not isinstance(names, list) or not names:
            raise InvalidInputError(f"{here}: names no metric (its metrics field is {names!r})")
        group = None
        if cluster is not None:
            doc = row.get("doc")
            group = doc.get(cluster) if isinstance(doc, Mapping) else None
            if group is None:
                raise InvalidInputError(f"{here}: its doc has no {cluster!r} (cluster=)")
        filter_name = row.get("filter", "none")
        for name in names:
            if name not in row:
                raise InvalidInputError(f"{here}: names metric {name!r} but holds no value of it")
            metric = f"{name},{filter_name}"
            built.define(metric, {"metric": name, "filter": filter_name})
            built.add(
                row["doc_id"], metric, score_number(row[name], here, name), here, cluster=group
            )
    return built.records()
