"""Every input rule of ragmeter, in one place.

Judgments (*qrels*) and rankings arrive as mappings keyed by query id, as sequences aligned by
position, or as tables in long format (one row per judged or ranked document). This module
checks the outer structure (which queries, in which order, of which container types) with one
cheap Python loop over the queries; the documents inside each query, and every row of a table,
are read by the Rust core, which checks ids, grades, scores and duplicates.

Tables are any object with the Arrow PyCapsule interface (``__arrow_c_stream__`` or
``__arrow_c_array__``: pyarrow Tables, RecordBatches and RecordBatchReaders, polars DataFrames
and LazyFrames once collected, DuckDB results) and pandas DataFrames (through pyarrow, the
``arrow`` extra). Their columns are named as in ir_measures and ranx (:class:`TableColumns`).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeGuard

from ._optional import import_optional, out_of_memory
from .exceptions import InputTypeError, InvalidInputError
from .options import check_choice

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "MISSING_CHOICES",
    "AlignedQueries",
    "TableColumns",
    "absent_queries",
    "align_queries",
    "arrow_source",
    "interpret_search_result",
    "is_series",
    "is_table",
    "trec_order",
]

MISSING_CHOICES = ("raise", "zero", "skip")
MissingPolicy = Literal["raise", "zero", "skip"]

_SERIES_ADVICE = (
    "its index or its values could be the document ids, and reading the wrong one gives "
    "plausible, wrong numbers. Pass series.to_dict() for {doc_id: grade} (or {doc_id: score}) "
    "or series.tolist() for a list of ids"
)


def _is_ndarray(obj: object) -> TypeGuard[np.ndarray]:
    """Whether ``obj`` is a numpy array, without importing numpy (an array exists only once
    numpy is imported; the command on TREC files never imports it)."""
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(obj, numpy.ndarray)


def is_series(obj: object) -> bool:
    """True for a pandas or polars Series (without importing either)."""
    cls = type(obj)
    return cls.__name__ == "Series" and cls.__module__.split(".")[0] in {"pandas", "polars"}


def _is_dataframe(obj: object) -> bool:
    cls = type(obj)
    return cls.__name__ == "DataFrame" and cls.__module__.split(".")[0] in {"pandas", "polars"}


def _is_lazy_frame(obj: object) -> bool:
    cls = type(obj)
    return cls.__name__ == "LazyFrame" and cls.__module__.split(".")[0] == "polars"


_LAZY_ADVICE = (
    "{argument} is a polars LazyFrame, a query that has not run yet: collect it first "
    "({argument}.collect()) and pass the DataFrame"
)


def _arrow_message(error: BaseException) -> str:
    """pyarrow's message, without the tuple it sometimes wraps it in."""
    args = error.args
    return "; ".join(str(a) for a in args) if args else type(error).__name__


def _is_pandas_frame(obj: object) -> bool:
    cls = type(obj)
    return cls.__name__ == "DataFrame" and cls.__module__.split(".")[0] == "pandas"


def is_table(obj: object) -> bool:
    """True for a table ragmeter reads in long format: an object with the Arrow PyCapsule
    interface, or a pandas or polars DataFrame (never a Series: a Series holds one entry per
    query).

    >>> is_table({"q1": {"d1": 1}})
    False
    """
    if is_series(obj) or isinstance(obj, type):
        return False
    return (
        _is_dataframe(obj)
        or hasattr(obj, "__arrow_c_stream__")
        or hasattr(obj, "__arrow_c_array__")
    )


@dataclass(frozen=True)
class TableColumns:
    """The column names of tables of judgments and runs (ir_measures' and ranx's by default).

    Judgments have ``query``, ``doc`` and ``relevance`` columns; runs have ``query``, ``doc``
    and ``score`` columns, or a ``rank`` column (1 is the best) when there is no score column.

    >>> TableColumns(score="sim").score
    'sim'
    """

    query: str = "query_id"
    doc: str = "doc_id"
    relevance: str = "relevance"
    score: str = "score"
    rank: str = "rank"

    def __post_init__(self) -> None:
        for name in ("query", "doc", "relevance", "score", "rank"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                argument = f"{name}_col"
                raise InputTypeError(f"{argument}: a column name is a non-empty str, got {value!r}")

    def spec(self, argument: str, source: str, kind: str) -> tuple[str, str, str, str, str, Any]:
        """The columns as the Rust core takes them, for a table of ``kind`` (``"qrels"`` or
        ``"run"``) given as ``argument``.

        >>> TableColumns().spec("y_pred", "", "run")
        ('y_pred', '', 'query_id', 'doc_id', 'score', 'rank')
        """
        if kind == "qrels":
            return (argument, source, self.query, self.doc, self.relevance, None)
        return (argument, source, self.query, self.doc, self.score, self.rank)

    def wanted(self, kind: str) -> tuple[str, ...]:
        """The columns a table of ``kind`` may need.

        >>> TableColumns(relevance="grade").wanted("qrels")
        ('query_id', 'doc_id', 'grade')
        """
        if kind == "qrels":
            return (self.query, self.doc, self.relevance)
        return (self.query, self.doc, self.score, self.rank)


def arrow_source(obj: Any, argument: str, columns: TableColumns, kind: str) -> Any:
    """``obj`` as an object the Rust core imports through the Arrow PyCapsule interface.

    A pandas DataFrame goes through pyarrow (the ``arrow`` extra); a column the table needs
    that is an index level of the DataFrame is read as a column (``reset_index``). Only the
    columns the evaluation reads are converted.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"doc_id": ["d1"], "relevance": [2]},
    ...                      index=pd.Index(["q1"], name="query_id"))
    >>> arrow_source(frame, "y_true", TableColumns(), "qrels").column_names
    ['query_id', 'doc_id', 'relevance']
    """
    if _is_pandas_frame(obj):
        pyarrow = import_optional(
            "pyarrow", extra="arrow", purpose=f"{argument}: reading a pandas DataFrame"
        )
        frame = obj
        index_names = [name for name in frame.index.names if name is not None]
        if any(name in columns.wanted(kind) for name in index_names):
            frame = frame.reset_index()
        repeated = sorted(
            {str(c) for c in frame.columns[frame.columns.duplicated()] if c in columns.wanted(kind)}
        )
        if repeated:
            raise InvalidInputError(
                f"{argument}: the DataFrame has more than one column named "
                f"{', '.join(repr(c) for c in repeated)}; rename or drop the repeated columns"
            )
        wanted = columns.wanted(kind)
        present = [c for c in wanted if c in frame.columns]
        # A run needs a score or a rank column, judgments a relevance column.
        needed = wanted[:2] + ((wanted[2],) if kind == "qrels" else ())
        if any(c not in present for c in needed) or not set(wanted[2:]) & set(present):
            # The core names the missing column and lists the table's columns: give it every
            # column (it refuses the table before reading a row).
            present = list(frame.columns)
        try:
            return pyarrow.Table.from_pandas(frame[present], preserve_index=False)
        except (pyarrow.ArrowException, ValueError, TypeError) as error:
            # An object column pyarrow cannot type ("q1" and 1 in one id column, "x" among
            # the scores): say which column, and what to do.
            raise InputTypeError(
                f"{argument}: a column of the DataFrame holds values of mixed or unreadable "
                f"types ({_arrow_message(error)}); give each id column one type (str or int) "
                f"and each value column numbers, e.g. frame[column].astype(str) or "
                f"pd.to_numeric(frame[column])"
            ) from None
    if _is_lazy_frame(obj):
        raise InputTypeError(_LAZY_ADVICE.format(argument=argument))
    if _is_pyarrow_reader(obj):
        return _unread_stream(obj, argument)
    if _is_dataframe(obj) and not hasattr(obj, "__arrow_c_stream__"):
        # polars before its PyCapsule support.
        return obj.to_arrow()
    return obj


def _is_pyarrow_reader(obj: object) -> bool:
    cls = type(obj)
    return cls.__name__ == "RecordBatchReader" and cls.__module__.split(".")[0] == "pyarrow"


def _unread_stream(reader: Any, argument: str) -> Any:
    """A pyarrow RecordBatchReader, refused when it yields nothing: a stream is read once, so
    a reader read before (by an earlier call, ``read_all()``) is empty and would be read as a
    table of no rows. One with batches is passed on as a reader of the same batches, its first
    batch read here."""
    try:
        first = reader.read_next_batch()
    except MemoryError as error:  # pyarrow's ArrowMemoryError: "malloc of size 12544 failed"
        raise MemoryError(out_of_memory(f"reading the first batch of {argument}", error)) from error
    except StopIteration:
        raise InvalidInputError(
            f"{argument}: the RecordBatchReader yields no rows: a reader is read only once, "
            "and this one was read already (by an earlier call, or read_all()) or holds none; "
            "make a new reader for each call, or pass a pyarrow Table, which can be read any "
            "number of times"
        ) from None
    pyarrow = import_optional("pyarrow", extra="arrow", purpose=f"{argument}: reading a stream")
    return pyarrow.RecordBatchReader.from_batches(reader.schema, itertools.chain((first,), reader))


@dataclass
class AlignedQueries:
    """Queries to evaluate, with their judgments and rankings in the same order."""

    query_ids: list[Any]
    judgments: list[Any]
    rankings: list[Any]
    #: True when the inputs were mappings: per-query results are keyed by query id.
    keyed: bool
    #: Judged queries absent from the run (scored as empty rankings when missing="zero").
    missing_from_run: list[Any] = field(default_factory=list)
    #: Run queries without judgments (never evaluated).
    unjudged: list[Any] = field(default_factory=list)


def absent_queries(query_ids: Sequence[Any], in_run: Sequence[bool]) -> list[Any]:
    """The ids of the judged queries the run lacks (``in_run`` false), in order. A run
    usually has every judged query: that is checked first, in one pass of ``all`` (building
    the list by a comprehension cost ~50 ns per query, twice per evaluation of a TREC file)."""
    if len(query_ids) != len(in_run):
        raise ValueError(f"{len(query_ids)} query ids for {len(in_run)} flags")
    if all(in_run):
        return []
    return [q for q, present in zip(query_ids, in_run, strict=True) if not present]


def preview_ids(ids: Sequence[Any], limit: int = 5) -> str:
    """The first ``limit`` ids, and how many there are in all, for messages."""
    shown = ", ".join(repr(q) for q in ids[:limit])
    return shown + (f", ... ({len(ids)} in all)" if len(ids) > limit else "")


def _id_types(ids: Iterable[Any]) -> set[str]:
    return {type(q).__name__ for q in ids}


def _judgments(query: object, obj: object) -> object:
    if isinstance(obj, dict | list | tuple | set | frozenset):
        return obj
    if is_series(obj):
        raise InputTypeError(
            f"query {query!r}: a pandas Series is refused as one query's judgments: "
            + _SERIES_ADVICE
        )
    if isinstance(obj, str | bytes):
        raise InputTypeError(
            f"query {query!r}: judgments are a {type(obj).__name__} ({obj!r}); a str is never read "
            f"as a collection of ids: wrap a single relevant id in a list, [{obj!r}]"
        )
    if isinstance(obj, Mapping):
        return dict(obj)
    if _is_ndarray(obj):
        return obj.tolist()
    if isinstance(obj, Iterable):
        return list(obj)
    raise InputTypeError(
        f"query {query!r}: judgments must be a dict {{doc_id: grade}} or a collection of relevant "
        f"doc ids, got {type(obj).__name__}"
    )


def _ranking(query: object, obj: object) -> object:
    if isinstance(obj, list | tuple | dict):
        return obj
    if is_series(obj):
        raise InputTypeError(
            f"query {query!r}: a pandas Series is refused as one query's ranking: {_SERIES_ADVICE}"
        )
    if isinstance(obj, str | bytes):
        raise InputTypeError(
            f"query {query!r}: the ranking is a {type(obj).__name__} ({obj!r}); a str is never "
            f"read as a collection of ids: wrap a single id in a list, [{obj!r}]"
        )
    if isinstance(obj, set | frozenset):
        raise InputTypeError(
            f"query {query!r}: a set has no order, so it cannot be a ranking: pass a list of doc "
            f"ids, best first, or a dict {{doc_id: score}}"
        )
    if isinstance(obj, Mapping):
        return dict(obj)
    if _is_ndarray(obj):
        return obj.tolist()
    if isinstance(obj, Iterable):
        return list(obj)
    raise InputTypeError(
        f"query {query!r}: a ranking must be a list of doc ids (best first) or a dict "
        f"{{doc_id: score}}, got {type(obj).__name__}"
    )


def _as_query_sequence(name: str, obj: object) -> list[Any]:
    if is_series(obj):
        return list(obj.tolist())  # type: ignore[attr-defined]
    if _is_ndarray(obj):
        if obj.ndim != 1:
            raise InvalidInputError(
                f"{name} must be one-dimensional (one entry per query), got shape {obj.shape}"
            )
        return list(obj)
    result: list[Any] = list(obj)  # type: ignore[call-overload]
    return result


def _container_kind(name: str, obj: object) -> str:
    if _is_lazy_frame(obj):
        raise InputTypeError(_LAZY_ADVICE.format(argument=name))
    if isinstance(obj, str | bytes):
        raise InputTypeError(
            f"{name} must be a mapping {{query_id: ...}} or a sequence of queries, got a str"
        )
    if is_table(obj):
        raise InputTypeError(
            f"{name} is a table ({type(obj).__name__}): a table is read in long format (columns "
            f"query_id, doc_id and relevance or score) together with a table or a mapping "
            f"{{query_id: ...}} on the other side, not with a sequence of queries"
        )
    if is_series(obj):
        return "series"
    if isinstance(obj, Mapping):
        return "mapping"
    if isinstance(obj, Sequence) or _is_ndarray(obj):
        return "sequence"
    raise InputTypeError(
        f"{name} must be a mapping {{query_id: ...}} or a sequence with one entry per query, "
        f"got {type(obj).__name__}"
    )


def align_queries(y_true: object, y_pred: object, *, missing: str = "raise") -> AlignedQueries:
    """Pair judgments and rankings by query, never silently.

    Mappings are paired by query id. A judged query absent from ``y_pred`` or a ``y_pred``
    query absent from ``y_true`` raises with ``missing="raise"`` (the default); with
    ``missing="zero"`` judged queries without a ranking are scored as empty rankings and
    counted (trec_eval ``-c``), and with ``missing="skip"`` only queries present in both are
    evaluated (trec_eval without ``-c``, pytrec_eval). Run queries without judgments are never
    evaluated. Sequences (and whole pandas Series) are paired by position and must have the
    same length; two Series must have the same index.
    """
    check_choice("missing", missing, MISSING_CHOICES)
    if is_table(y_true) != is_table(y_pred):
        # One table: the other side's type is what is wrong (a table pairs with a table or a
        # mapping, which ranking_values reads before it comes here).
        other, name = (y_pred, "y_pred") if is_table(y_true) else (y_true, "y_true")
        table_name = "y_true" if name == "y_pred" else "y_pred"
        if not isinstance(other, Mapping):
            kind = _container_kind(name, other)
            raise InputTypeError(
                f"{table_name} is a table ({type(y_true if name == 'y_pred' else y_pred).__name__})"
                f" and {name} is a {kind} ({type(other).__name__}): a table is read in long "
                f"format (columns query_id, doc_id and relevance or score) together with a "
                f"table or a mapping {{query_id: ...}}, not with a sequence of queries; pass "
                f"{name} as a table or a mapping"
            )
    kind_true = _container_kind("y_true", y_true)
    kind_pred = _container_kind("y_pred", y_pred)
    if (
        kind_true == "series" and kind_pred == "series" and not y_true.index.equals(y_pred.index)  # type: ignore[attr-defined]
    ):
        raise InvalidInputError(
            "y_true and y_pred are pandas Series with different indexes; series are paired by "
            "position, so align them first (y_pred = y_pred.reindex(y_true.index)) or pass "
            "mappings keyed by query id"
        )
    positional = {"series", "sequence"}
    if kind_true in positional and kind_pred in positional:
        judged = _as_query_sequence("y_true", y_true)
        ranked = _as_query_sequence("y_pred", y_pred)
        if len(judged) != len(ranked):
            raise InvalidInputError(
                f"y_true has {len(judged)} queries and y_pred has {len(ranked)}; sequences are "
                f"paired by position and must have the same length (use mappings keyed by query "
                f"id to pair by id)"
            )
        ids = list(range(len(judged)))
        return AlignedQueries(
            query_ids=ids,
            judgments=_normalized(ids, judged, _CORE_JUDGMENTS, _judgments),
            rankings=_normalized(ids, ranked, _CORE_RANKINGS, _ranking),
            keyed=False,
        )
    if kind_true == "mapping" and kind_pred == "mapping":
        return _align_mappings(y_true, y_pred, missing)  # type: ignore[arg-type]
    raise InputTypeError(
        f"y_true is a {kind_true} and y_pred is a {kind_pred}: pass two mappings keyed by query id "
        f"or two sequences paired by position (to evaluate one query, wrap both in a list: "
        f"[judgments], [ranking])"
    )


# Containers the Rust core reads as they are; anything else is converted (or refused) here.
_CORE_JUDGMENTS = frozenset({dict, list, tuple, set, frozenset})
_CORE_RANKINGS = frozenset({dict, list, tuple})


def _normalized(
    ids: list[Any], objs: list[Any], core_types: frozenset[type], convert: Any
) -> list[Any]:
    """`objs`, each object the core cannot read as it is converted (one type check a query)."""
    if all(map(core_types.__contains__, map(type, objs))):
        # The common case, at C speed: nothing to convert.
        return objs
    for i, obj in enumerate(objs):
        if type(obj) not in core_types:
            objs[i] = convert(ids[i], obj)
    return objs


def _align_mappings(
    y_true: Mapping[Any, Any], y_pred: Mapping[Any, Any], missing: str
) -> AlignedQueries:
    ids = list(y_true)
    if isinstance(y_true, dict) and isinstance(y_pred, dict) and ids == list(y_pred):
        # The commonest case, without a hash lookup per query: the same queries in the same
        # order on both sides (a run written query by query for the judged queries).
        return AlignedQueries(
            query_ids=ids,
            judgments=_normalized(ids, list(y_true.values()), _CORE_JUDGMENTS, _judgments),
            rankings=_normalized(ids, list(y_pred.values()), _CORE_RANKINGS, _ranking),
            keyed=True,
        )
    if y_true.keys() == y_pred.keys():
        # The same queries on both sides, at C speed.
        return AlignedQueries(
            query_ids=ids,
            judgments=_normalized(ids, list(y_true.values()), _CORE_JUDGMENTS, _judgments),
            rankings=_normalized(ids, list(map(y_pred.__getitem__, ids)), _CORE_RANKINGS, _ranking),
            keyed=True,
        )
    missing_from_run = [q for q in y_true if q not in y_pred]
    unjudged = [q for q in y_pred if q not in y_true]
    if missing == "raise" and (missing_from_run or unjudged):
        parts = []
        if missing_from_run:
            parts.append(f"judged queries missing from y_pred: {preview_ids(missing_from_run)}")
        if unjudged:
            parts.append(f"y_pred queries without judgments in y_true: {preview_ids(unjudged)}")
        hint = ""
        true_types, pred_types = _id_types(y_true), _id_types(y_pred)
        if true_types and pred_types and true_types.isdisjoint(pred_types):
            hint = (
                f" (the query ids of y_true are {'/'.join(sorted(true_types))} and those of "
                f'y_pred are {"/".join(sorted(pred_types))}: "1" and 1 never match)'
            )
        raise InvalidInputError(
            "y_true and y_pred do not hold the same queries; "
            + "; ".join(parts)
            + hint
            + '. Pass missing="zero" to score judged queries without a ranking as empty rankings '
            '(trec_eval -c), or missing="skip" to evaluate only the queries in both (trec_eval '
            "without -c); run queries without judgments are never evaluated."
        )
    ids = [q for q in y_true if missing == "zero" or q in y_pred]
    return AlignedQueries(
        query_ids=ids,
        judgments=_normalized(ids, [y_true[q] for q in ids], _CORE_JUDGMENTS, _judgments),
        rankings=_normalized(ids, [y_pred.get(q, []) for q in ids], _CORE_RANKINGS, _ranking),
        keyed=True,
        missing_from_run=missing_from_run,
        unjudged=unjudged,
    )


def trec_order(scores: Mapping[Any, Any]) -> list[Any]:
    """The ids of ``{doc_id: score}`` in trec_eval's order, the order the Rust core gives scored
    rankings: score descending, ties by the id's text compared byte-wise (UTF-8), descending
    (so int ids tie-break by their decimal text)."""
    ordered = sorted(scores, key=lambda doc: str(doc).encode(), reverse=True)
    ordered.sort(key=lambda doc: -float(scores[doc]))  # stable: ties keep the id order
    return ordered


def _doc_id_of(item: Any, query_id: Any, position: int) -> Any:
    if isinstance(item, str | int) and not isinstance(item, bool):
        return item
    doc = getattr(item, "doc", None)
    if doc is not None and hasattr(doc, "doc_id"):
        return doc.doc_id
    if hasattr(item, "doc_id"):
        return item.doc_id
    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str | int):
        return item[0]
    raise InputTypeError(
        f"the retriever's result for query {query_id!r} holds a {type(item).__name__} at "
        f"position {position}; expected hits (with .doc.doc_id), doc ids, or (doc_id, score) "
        "pairs"
    )


def interpret_search_result(result: Any, query_id: Any) -> tuple[list[Any], str, str | None]:
    """Ranked doc ids, status and error message of what a retriever's search returned.

    Accepts a response (``.hits``, with a ``.status`` and ``error_records()`` when it has
    them), a sequence of hits (``hit.doc.doc_id``), of documents with a ``doc_id``, of doc
    ids or of ``(doc_id, score)`` pairs, best first, or a ``{doc_id: score}`` mapping (in
    :func:`trec_order`). A plain result is a success, or empty without hits.
    """
    if result is None:
        raise InputTypeError(f"the retriever returned None for query {query_id!r}")
    status = "success"
    error = None
    items: Iterable[Any] = result
    if hasattr(result, "hits"):
        items = result.hits
        if hasattr(result, "status"):
            status = str(getattr(result.status, "value", result.status))
        records = result.error_records() if hasattr(result, "error_records") else []
        if records:
            error = "; ".join(f"{r.code}: {r.message}" for r in records)
    elif isinstance(result, Mapping):
        items = trec_order(result)
    elif isinstance(result, str | bytes) or not isinstance(result, Iterable):
        raise InputTypeError(
            f"the retriever returned a {type(result).__name__} for query {query_id!r}; a "
            "ranking is a sequence of hits or doc ids (wrap a single id in a list)"
        )
    ids = [_doc_id_of(item, query_id, i) for i, item in enumerate(items)]
    if status == "success" and not ids:
        status = "empty"
    return ids, status, error
