"""Evaluation results written one row per value, for the command's ``--format csv``,
``jsonl`` and ``parquet``.

Each row is one measure's value for one topic of one run, in trec_eval's ``-q`` order (topics
sorted byte-wise, measures in the command's order), followed by the run's summary rows (topic
``"all"``, as trec_eval prints them). Columns: ``run`` (the run file), ``query_id`` (text),
``measure``, ``value`` (a number; empty/null where undefined, which trec_eval prints as
``-nan``, and for the text measures), ``text`` (the value of ``runid`` and ``relstring``),
and for summary rows ``n_queries`` (topics in the summary) and ``n_undefined`` (topics where
the measure was undefined).
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from .._optional import import_optional
from ..ranking.names import Measure

__all__ = ["COLUMNS", "result_rows", "write_csv", "write_jsonl", "write_parquet"]

#: The columns of every row, in order.
COLUMNS = ("run", "query_id", "measure", "value", "text", "n_queries", "n_undefined")


def _row(run: str, query: str, measure: Measure, value: Any) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update(run=run, query_id=query, measure=measure.name)
    if isinstance(value, str) or value is None:
        row["text"] = value
        return row
    number = float(value)
    if measure.family.value_type == "int":
        row["value"] = int(number)
    elif not math.isnan(number):
        row["value"] = number
    n_queries = getattr(value, "n_queries", None)
    if n_queries is not None:
        row["n_queries"] = int(n_queries)
        row["n_undefined"] = int(getattr(value, "n_undefined", 0))
    return row


def result_rows(
    report: dict[str, tuple[Any, Any]], measures: list[Measure], *, summary: bool
) -> Iterator[dict[str, Any]]:
    """The rows of ``{run: (means, per-query values or None)}``.

    >>> from ragmeter.io import means_and_per_query
    >>> from ragmeter.ranking import parse_measures
    >>> report = {"run.txt": means_and_per_query({"q": {"d": 1}}, {"q": {"d": 0.5}},
    ...                                          metrics=["P.1"])}
    >>> for row in result_rows(report, parse_measures("P.1"), summary=True):
    ...     print(row["query_id"], row["measure"], row["value"], row["n_queries"])
    q P_1 1.0 None
    all P_1 1.0 1
    """
    for run, (means, per_query) in report.items():
        if per_query is not None:
            ids = sorted(means.query_ids, key=lambda q: str(q).encode("utf-8", "surrogatepass"))
            for query_id in ids:
                for measure in measures:
                    if measure.family.per_query:
                        value = per_query[measure.name][query_id]
                        yield _row(run, str(query_id), measure, value)
        if summary:
            for measure in measures:
                if measure.family.summary != "none":
                    yield _row(run, "all", measure, means[measure.name])


def write_csv(rows: Iterable[dict[str, Any]], out: TextIO) -> None:
    """Rows as CSV with a header (undefined values are empty cells).

    >>> import sys
    >>> write_csv([dict.fromkeys(COLUMNS, None) | {"run": "r", "measure": "map"}], sys.stdout)
    run,query_id,measure,value,text,n_queries,n_undefined
    r,,map,,,,
    """
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if v is None else v) for k, v in row.items()})


def write_jsonl(rows: Iterable[dict[str, Any]], out: TextIO) -> None:
    """Rows as JSON lines (undefined values are null).

    >>> import sys
    >>> write_jsonl([{"run": "r", "query_id": "all", "measure": "map", "value": None}], sys.stdout)
    {"run": "r", "query_id": "all", "measure": "map", "value": null}
    """
    for row in rows:
        out.write(json.dumps(row, allow_nan=False, ensure_ascii=False))
        out.write("\n")


def write_parquet(rows: list[dict[str, Any]]) -> bytes:
    """Rows as the bytes of a Parquet file (needs the ``arrow`` extra).

    >>> write_parquet([dict.fromkeys(COLUMNS, None) | {"run": "r", "value": 0.5}])[:4]
    b'PAR1'
    """
    pyarrow = import_optional("pyarrow", extra="arrow", purpose="--format parquet")
    parquet = import_optional("pyarrow.parquet", extra="arrow", purpose="--format parquet")
    schema = pyarrow.schema(
        [
            ("run", pyarrow.string()),
            ("query_id", pyarrow.string()),
            ("measure", pyarrow.string()),
            ("value", pyarrow.float64()),
            ("text", pyarrow.string()),
            ("n_queries", pyarrow.int64()),
            ("n_undefined", pyarrow.int64()),
        ]
    )
    table = pyarrow.Table.from_pylist(rows, schema=schema)
    sink = pyarrow.BufferOutputStream()
    parquet.write_table(table, sink)
    return bytes(sink.getvalue().to_pybytes())
