"""Judgments by dataset id, as ir_measures' command line and ranx take them: ``irds:<id>``
names an ``ir_datasets`` dataset (``irds:msmarco-passage/trec-dl-2019/judged``), whose qrels
are read through the optional ``ir_datasets`` package (``pip install 'ragmeter[irds]'``;
ir_datasets downloads what it has not cached, ragmeter itself opens no connection).

A dataset's documented relevance level is the ``rel=`` of its official measures
(ir_datasets' documentation: TREC DL 2019 passage lists ``RR(rel=2)`` and ``AP(rel=2)``, so 2
for binary measures); :func:`dataset_qrels` returns it for the caller to apply and print.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ._optional import import_optional
from .exceptions import InputFileError, InvalidInputError

__all__ = ["DATASET_PREFIX", "DatasetQrels", "dataset_qrels", "is_dataset_id"]

#: The prefix of a dataset id.
DATASET_PREFIX = "irds:"


def is_dataset_id(source: object) -> bool:
    """Whether ``source`` is a dataset id (a str starting with ``irds:``)."""
    return isinstance(source, str) and source.startswith(DATASET_PREFIX)


@dataclass(frozen=True)
class DatasetQrels:
    """A dataset's judgments ``{query_id: {doc_id: grade}}``, and its documented relevance
    level (None: its documentation gives none) with where that level comes from."""

    dataset_id: str
    qrels: dict[str, dict[str, int]]
    relevance_level: int | None
    level_source: str | None


def dataset_qrels(source: str) -> DatasetQrels:
    """The judgments of ``irds:<id>`` and the dataset's documented relevance level.

    Examples
    --------
    >>> is_dataset_id("irds:msmarco-passage/trec-dl-2019/judged"), is_dataset_id("qrels.txt")
    (True, False)
    """
    if not is_dataset_id(source):
        raise InvalidInputError(f"qrels: {source!r} is not a dataset id ({DATASET_PREFIX}<id>)")
    dataset_id = source[len(DATASET_PREFIX) :]
    ir_datasets = import_optional("ir_datasets", extra="irds", purpose="irds: dataset ids")
    try:
        dataset: Any = ir_datasets.load(dataset_id)
    except KeyError:
        raise InvalidInputError(
            f"qrels: {source}: ir_datasets has no dataset {dataset_id!r} (see "
            f"https://ir-datasets.com for the ids)"
        ) from None
    if not dataset.has_qrels():
        raise InvalidInputError(f"qrels: {source}: the dataset has no judgments (qrels)")
    qrels: dict[str, dict[str, int]] = {}
    try:
        for row in dataset.qrels_iter():
            qrels.setdefault(str(row.query_id), {})[str(row.doc_id)] = int(row.relevance)
    except (OSError, RuntimeError) as error:
        # ir_datasets downloads what it has not cached: without a network it raises
        # RuntimeError('All download sources failed', [(source, error), ...]) or the
        # requests/OS error itself.
        raise _download_error(source, error) from error
    level, where = _documented_level(dataset)
    return DatasetQrels(dataset_id, qrels, level, where)


def _download_error(source: str, error: BaseException) -> InputFileError:
    """The error of judgments ir_datasets could not fetch or read: what failed, each source's
    reason (shortened), and what to do."""
    reasons = []
    if isinstance(error, RuntimeError) and len(error.args) == 2 and isinstance(error.args[1], list):
        for item in error.args[1][:3]:
            failed = item[1] if isinstance(item, tuple) and len(item) == 2 else item
            reasons.append(f"{type(failed).__name__}: {failed}"[:200])
    why = "; ".join(reasons) or f"{type(error).__name__}: {error}"[:300]
    message = (
        f"qrels: {source}: ir_datasets could not download or read the judgments ({why}); "
        "check the network connection, or fetch the dataset once where there is one "
        "(ir_datasets keeps it in IR_DATASETS_HOME, ~/.ir_datasets by default)"
    )
    return InputFileError(message)


def _documented_level(dataset: Any) -> tuple[int | None, str | None]:
    documentation = dataset.documentation() if hasattr(dataset, "documentation") else {}
    official = list((documentation or {}).get("official_measures") or [])
    levels = {int(m) for text in official for m in re.findall(r"rel=(\d+)", str(text))}
    if len(levels) != 1:
        return None, None
    (level,) = levels
    return level, f"its official measures {', '.join(map(str, official))}"
