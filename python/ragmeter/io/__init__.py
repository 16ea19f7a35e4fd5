"""Judgments and runs in every form ragmeter reads, through one entry point.

A *source* of judgments or of a run is any of:

* a path to a file in one of the :data:`FORMATS` (TREC text, also compressed; JSON; Parquet
  files and directories; Arrow IPC/Feather; CSV and TSV with a header row), whose format is
  recognised by its name and content (:func:`detect_format`);
* a table in long format: an object with the Arrow PyCapsule interface (pyarrow, polars,
  DuckDB) or a pandas DataFrame, with columns ``query_id``, ``doc_id`` and ``relevance``
  (judgments) or ``score``/``rank`` (runs), named as in ir_measures and ranx (settable);
* a mapping ``{query_id: {doc_id: grade or score}}`` (judgments may list relevant ids).

Every other file ragmeter reads comes through here too, each format one row of
:data:`FORMATS` and one module: records (:func:`read_records`: the judges' samples, tables of
per-item values), saved results (:func:`read_saved`: every kind ragmeter writes, by its
``kind``, with its count and checksum checked) and one system's per-item values from either
(:func:`read_per_query`: what the gate and the report read; :func:`per_item_values` reads
the same long or wide rows when another tool holds them in memory, as
:mod:`ragmeter.integrations` does).

:func:`evaluate` evaluates any pair with trec_eval's semantics (the sibling of
:func:`evaluate_trec` for every form: judged topics are evaluated in trec_eval's order, run
topics without judgments are ignored and listed); :func:`read_qrels` and :func:`read_run` turn
any source into ``{query_id: {doc_id: value}}``. Two TREC files are evaluated entirely in the
Rust core, two tables from their Arrow buffers; other pairs through mappings, with the same
semantics.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import _core
from .._files import file_errors, path_argument
from .._inputs import TableColumns, arrow_source, is_table
from ..exceptions import InputTypeError
from ..options import Duplicates, EvaluationOptions, Missing, ZeroDivision
from ._formats import FORMATS, Format, detect, formats_read, read_records, trace_format
from ._records import Records
from .trec import (
    TREC_DEFAULT_METRICS,
    evaluate_trec,
    read_trec_qrels,
    read_trec_run,
    set_max_decompressed_bytes,
    trec_options,
    trec_values,
    write_trec_run,
)

if TYPE_CHECKING:
    from ..ranking.evaluation import QueryValues
    from ..ranking.metric_results import MetricResults
    from ._battles import read_battles
    from ._clusters import read_clusters
    from ._json import loads_json, parse_json_text
    from ._per_item import per_item_values, read_per_query, read_systems
    from ._saved import SavedFile, read_saved
    from ._trec_rag import dumps_trec_rag, trec_rag_form

__all__ = [
    "FORMATS",
    "Format",
    "Records",
    "SavedFile",
    "detect_format",
    "dumps_trec_rag",
    "evaluate",
    "evaluate_trec",
    "evaluation_values",
    "loads_json",
    "means_and_per_query",
    "means_and_values",
    "parse_json_text",
    "per_item_values",
    "read_battles",
    "read_clusters",
    "read_per_query",
    "read_qrels",
    "read_records",
    "read_run",
    "read_saved",
    "read_spans",
    "read_systems",
    "read_trec_qrels",
    "read_trec_run",
    "set_max_decompressed_bytes",
    "trec_rag_form",
    "write_trec_run",
]

PathLike = str | os.PathLike[str]

#: Names of modules imported on first use (PEP 562): the JSON parser costs ~1.5 ms at import,
#: which the command on TREC files does not pay; name -> its module, relative to this package.
_LAZY_NAMES: dict[str, str] = {
    "loads_json": "._json",
    "parse_json_text": "._json",
    "read_battles": "._battles",
    "read_clusters": "._clusters",
    "read_per_query": "._per_item",
    "per_item_values": "._per_item",
    "read_systems": "._per_item",
    "read_saved": "._saved",
    "SavedFile": "._saved",
    "dumps_trec_rag": "._trec_rag",
    "trec_rag_form": "._trec_rag",
}


def __getattr__(name: str) -> Any:
    module_name = _LAZY_NAMES.get(name)
    if module_name is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name, __name__), name)
    globals()[name] = value  # later look-ups do not reach __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def read_spans(path: PathLike, *, format: str | None = None) -> Records:
    """The spans of a trace export, one row each in one shape (:mod:`ragmeter.io._spans`):
    OTLP/JSON (``"otlp"``), Phoenix's spans dataframe saved as JSON lines, JSON or Parquet
    (``"phoenix"``) or Langfuse observations (``"langfuse"``); the format is recognised by the
    file's content unless named.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "spans.json"
    >>> _ = path.write_text('{"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": '
    ...     '"5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "r"}]}]}]}')
    >>> [(row["trace_id"][:6], row["span_id"], row["name"]) for row in read_spans(path).rows]
    [('5b8eff', 'eee19b7ec3c1b174', 'r')]
    """
    name = path_argument(path, "path")
    with file_errors("path"):
        chosen = format or trace_format(name)
    return read_records(name, format=chosen, what="a trace export", noun="span")


#: What a manifest of an evaluation of any sources (and of the command) calls its producer.
PRODUCER = "ragmeter.evaluate"


def detect_format(path: PathLike, **columns: str) -> Format:
    """The :class:`Format` of the file at ``path``, recognised by its name and content (see
    :mod:`ragmeter.io._formats`); ``columns`` (``query_col=``...) name the columns a CSV or TSV
    header is recognised by.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "qrels"
    >>> _ = path.write_text("q1 0 d1 1\\n")
    >>> detect_format(path).name
    'trec'
    """
    return detect(path, _columns(**columns))


@dataclass(frozen=True)
class _Source:
    """A source resolved: how it is read (``"trec"``, ``"table"``, ``"mapping"``), the object
    to read (a path for TREC, an Arrow stream for tables, a mapping) and its path, if any."""

    reads_as: str
    value: Any
    path: str = ""


def _columns(
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    relevance_col: str = "relevance",
    score_col: str = "score",
    rank_col: str = "rank",
) -> TableColumns:
    return TableColumns(query_col, doc_col, relevance_col, score_col, rank_col)


def _resolve(source: Any, argument: str, kind: str, columns: TableColumns) -> _Source:
    if isinstance(source, str | bytes | os.PathLike):
        path = path_argument(source, argument)
        with file_errors(argument):
            found = detect(path, columns)
            if found.reads_as == "trec":
                return _Source("trec", path, path)
            if found.reads_as == "mapping":
                # Imported for a JSON file only (json costs ~1.5 ms at import).
                from ._json import read_json

                return _Source("mapping", read_json(path, kind), path)
            assert found.open is not None
            return _Source("table", found.open(path, columns, kind), path)
    if is_table(source):
        return _Source("table", arrow_source(source, argument, columns, kind))
    if isinstance(source, Mapping):
        return _Source("mapping", source)
    raise InputTypeError(
        f"{argument}: expected a path, a table (pyarrow, polars, DuckDB, pandas) or a mapping "
        f"{{query_id: {{doc_id: value}}}}, got {type(source).__name__}; the formats read are: "
        f"{formats_read()}"
    )


def _as_mapping(
    source: _Source, argument: str, kind: str, columns: TableColumns, n_threads: int | None
) -> Mapping[Any, Any]:
    if source.reads_as == "mapping":
        return source.value  # type: ignore[no-any-return]
    if source.reads_as == "trec":
        with file_errors(argument):
            return _core.read_trec(source.value, kind, n_threads=n_threads)
    return _core.read_table_dict(
        source.value, columns.spec(argument, source.path, kind), kind, n_threads=n_threads
    )


def read_qrels(source: Any, *, n_threads: int | None = None, **columns: str) -> dict[Any, Any]:
    """Judgments from any source (a path in any format, a table, a mapping) as
    ``{query_id: {doc_id: grade}}`` (ints where the grades are integers).

    ``columns`` name the columns of a table (``query_col=``, ``doc_col=``, ``relevance_col=``).

    >>> import pyarrow as pa
    >>> read_qrels(pa.table({"query_id": ["q1"], "doc_id": ["d1"], "relevance": [2]}))
    {'q1': {'d1': 2}}
    """
    table_columns = _columns(**columns)
    resolved = _resolve(source, "qrels", "qrels", table_columns)
    return dict(_as_mapping(resolved, "qrels", "qrels", table_columns, n_threads))


def read_run(source: Any, *, n_threads: int | None = None, **columns: str) -> dict[Any, Any]:
    """A run from any source as ``{query_id: {doc_id: score}}`` (a table ordered by a rank
    column gives the scores ``-rank``).

    ``columns`` name the columns of a table (``query_col=``, ``doc_col=``, ``score_col=``,
    ``rank_col=``).

    >>> import pyarrow as pa
    >>> read_run(pa.table({"query_id": ["q1"], "doc_id": ["d1"], "rank": [1]}))
    {'q1': {'d1': -1.0}}
    """
    table_columns = _columns(**columns)
    resolved = _resolve(source, "run", "run", table_columns)
    return dict(_as_mapping(resolved, "run", "run", table_columns, n_threads))


def evaluation_values(
    qrels: Any,
    run: Any,
    metrics: Iterable[str] | str,
    options: EvaluationOptions,
    *,
    columns: TableColumns | None = None,
    run_tag: str | None = None,
    allow_empty: bool = False,
) -> QueryValues:
    """Per-query values (NaN where undefined, before ``zero_division``) of a run against
    judgments, both from any source, with trec_eval's semantics (see :func:`evaluate`).

    ``run_tag`` is the value of ``runid`` (default: a TREC run's tag, a run file's name without
    the suffix); with ``allow_empty``, no judged query in the run gives no values rather than
    an error.

    >>> from ragmeter.io.trec import trec_options
    >>> values = evaluation_values({"q": {"d": 1}}, {"q": {"d": 0.5}}, ["P.1"], trec_options())
    >>> values.numbers.tolist()
    [[1.0]]
    """
    # Imported here: tables and mappings are evaluated into numpy matrices; the command on TREC
    # files (`trec_table`) does without numpy.
    from ..ranking.functions import ranking_values, table_values

    columns = columns or TableColumns()
    judged = _resolve(qrels, "qrels", "qrels", columns)
    ranked = _resolve(run, "run", "run", columns)
    if judged.reads_as == ranked.reads_as == "trec":
        values = trec_values(
            judged.value,
            ranked.value,
            metrics=metrics,
            options=options,
            allow_empty=allow_empty,
            arguments=("qrels", "run"),
        )
        if run_tag is not None:
            for column, measure in enumerate(values.measures):
                if measure.family.name == "runid":
                    values.texts[column] = [run_tag] * len(values.queries.query_ids)
        return values
    if run_tag is None:
        run_tag = Path(ranked.path).stem if ranked.path else None
    if judged.reads_as == ranked.reads_as == "table":
        return table_values(
            judged.value,
            ranked.value,
            metrics,
            options,
            columns=columns,
            run_tag=run_tag,
            unjudged="ignore",
            arguments=("qrels", "run"),
            sources=(judged.path, ranked.path),
            allow_empty=allow_empty,
        )
    judgments = _as_mapping(judged, "qrels", "qrels", columns, options.n_threads)
    ranking = _as_mapping(ranked, "run", "run", columns, options.n_threads)
    # As for TREC files (and trec_eval): run topics without judgments are ignored, and listed.
    unjudged = [query for query in ranking if query not in judgments]
    if unjudged:
        ranking = {query: docs for query, docs in ranking.items() if query in judgments}
    values = ranking_values(
        judgments, ranking, metrics, options, run_tag=run_tag, allow_empty=allow_empty
    )
    values.queries.unjudged = unjudged
    return values


def evaluate(
    qrels: Any,
    run: Any,
    *,
    metrics: Iterable[str] | str = TREC_DEFAULT_METRICS,
    per_query: bool = False,
    complete: bool = False,
    max_docs: int | None = None,
    missing: Missing | None = None,
    relevance_threshold: float = 1,
    zero_division: ZeroDivision = "warn",
    duplicates: Duplicates = "raise",
    judged_docs_only: bool = False,
    collection_size: int = 0,
    n_threads: int | None = None,
    query_col: str = "query_id",
    doc_col: str = "doc_id",
    relevance_col: str = "relevance",
    score_col: str = "score",
    rank_col: str = "rank",
) -> MetricResults:
    """Evaluate a run against judgments, each from any source: a path in any of the
    :data:`FORMATS`, a table, or a mapping.

    The semantics are :func:`evaluate_trec`'s, whatever the sources: judged topics are
    evaluated in trec_eval's order (query ids sorted byte-wise), run topics without judgments
    are ignored (listed in the result's ``unjudged``), a judged topic missing from the run is
    an error unless ``complete=True`` (trec_eval ``-c``) or ``missing="skip"``, and documents are
    ordered by score, ties by document id byte-wise descending. A run file's ``runid`` is its
    tag when both files are TREC files, else the run file's name without the suffix.

    Parameters
    ----------
    qrels, run
        The judgments and the run.
    metrics, per_query, complete, max_docs, missing, relevance_threshold, zero_division, \
duplicates, judged_docs_only, collection_size, n_threads
        As in :func:`evaluate_trec`.
    query_col, doc_col, relevance_col, score_col, rank_col
        Column names of tables and of Parquet, IPC, CSV and TSV files; a run is ordered by its
        rank column (1 first) when it has no score column.

    Examples
    --------
    >>> import pyarrow as pa
    >>> qrels = pa.table({"query_id": ["q1", "q2"], "doc_id": ["d1", "d3"], "relevance": [1, 1]})
    >>> run = {"q1": {"d1": 0.9, "d2": 0.5}, "q2": {"d5": 0.7, "d3": 0.2}, "q9": {"d1": 1.0}}
    >>> results = evaluate(qrels, run, metrics=["mrr"])
    >>> results
    {'mrr': 0.75}
    >>> results.unjudged
    ['q9']
    """
    options = trec_options(
        complete=complete,
        missing=missing,
        max_docs=max_docs,
        relevance_threshold=relevance_threshold,
        zero_division=zero_division,
        duplicates=duplicates,
        judged_docs_only=judged_docs_only,
        collection_size=collection_size,
        n_threads=n_threads,
    )
    from ..ranking.evaluation import summarize

    columns = _columns(query_col, doc_col, relevance_col, score_col, rank_col)
    values = evaluation_values(qrels, run, metrics, options, columns=columns)
    return summarize(values, average=None if per_query else "mean", producer=PRODUCER)


def means_and_values(qrels: Any, run: Any, **options: Any) -> tuple[MetricResults, QueryValues]:
    """Means and the per-query values as one matrix, from one reading of the sources;
    ``options`` are those of :func:`evaluate` but ``per_query``. The matrix
    (:class:`~ragmeter.ranking.evaluation.QueryValues`, one row per query) is what the
    command's per-topic report reads, with no dict per measure;
    :func:`~ragmeter.ranking.evaluation.summarize` with ``average=None`` turns it into the
    per-query dicts of :func:`means_and_per_query`.

    >>> means, values = means_and_values({"q": {"d": 1}}, {"q": {"d": 0.5}}, metrics=["P.1"])
    >>> means, values.queries.query_ids, values.numbers.tolist()
    ({'P_1': 1.0}, ['q'], [[1.0]])
    """
    metrics = options.pop("metrics", TREC_DEFAULT_METRICS)
    columns = _columns(
        **{
            name: options.pop(name)
            for name in ("query_col", "doc_col", "relevance_col", "score_col", "rank_col")
            if name in options
        }
    )
    from ..ranking.evaluation import summarize

    values = evaluation_values(qrels, run, metrics, trec_options(**options), columns=columns)
    return summarize(values, average="mean", producer=PRODUCER), values


def means_and_per_query(
    qrels: Any, run: Any, **options: Any
) -> tuple[MetricResults, MetricResults]:
    """Means and per-query values from one reading of the sources (the command's ``-q``);
    ``options`` are those of :func:`evaluate` but ``per_query``.

    >>> means, per_query = means_and_per_query({"q": {"d": 1}}, {"q": {"d": 0.5}}, metrics=["P.1"])
    >>> means, per_query
    ({'P_1': 1.0}, {'P_1': {'q': 1.0}})
    """
    from ..ranking.evaluation import summarize

    means, values = means_and_values(qrels, run, **options)
    return means, summarize(values, average=None, producer=PRODUCER)
