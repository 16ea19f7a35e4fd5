"""The file formats ragmeter reads, one row each, and how a file's format is recognised.

A file's format is read from its content where the name leaves a doubt: binary formats by their
magic bytes, whatever the name (Parquet ``PAR1``, Arrow IPC ``ARROW1`` or a stream's
continuation marker, compressed text ``gzip``/``bzip2``/``xz``/``zstd``: TREC, or CSV/TSV when
the name says so), text by its first line (a JSON object, a CSV or TSV header naming the query
id column, else TREC). A file named as Parquet or Arrow IPC that does not start like one is
refused (damaged or misnamed), and so is binary data ragmeter cannot read, with a message naming
the formats it reads.

Every file ragmeter reads goes through this table: judgments and runs (``reads_as``), records
(samples for the judges, per-item values for the gate and the report: ``records`` names the
reader in the format's module) and saved results (``saved`` names the parser). A format's
readers are in its own module (``module``, imported on first use: a command that reads TREC
files imports no JSON, YAML or TOML parser). A new format is one module and one row of
:data:`FORMATS`.
"""

from __future__ import annotations

import importlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._files import path_argument, read_regular_text
from .._inputs import TableColumns
from ..exceptions import InvalidInputError
from . import _delimited, _ipc, _parquet
from ._records import Records

__all__ = [
    "COMPRESSIONS",
    "FORMATS",
    "SAVED_SUFFIXES",
    "TRACE_FORMATS",
    "Format",
    "compression_of",
    "detect",
    "format_named",
    "formats_read",
    "harness_format",
    "harness_records",
    "parse_saved",
    "parse_saved_text",
    "read_records",
    "read_saved_data",
    "record_format",
    "saved_format",
    "trace_format",
]


@dataclass(frozen=True)
class Format:
    """One file format.

    ``reads_as`` says how an evaluation reads its judgments and runs: ``"trec"`` (parsed by the
    Rust core), ``"mapping"`` (read into ``{query_id: {doc_id: value}}``) or ``"table"``
    (imported as Arrow batches by the Rust core; ``open(path, columns, kind)`` gives the
    batches); None for a format that holds no judgments or runs. ``module`` is the module of
    its readers (``ragmeter.io.<module>``); ``records`` names its reader of records (samples,
    per-item values: a function returning :class:`~ragmeter.io._records.Records`) and
    ``saved`` its parser of saved results, each None where the format holds none.
    ``harness`` names the evaluation harness whose result files the format is (its module then
    has ``recognises(data)``, whether parsed JSON or JSON lines are such a file, and
    ``harness_records(data, where, cluster)``, their long rows with a manifest naming the
    harness; a format whose files are not JSON also has ``load(path)``).
    """

    name: str
    description: str
    suffixes: tuple[str, ...]
    reads_as: str | None
    open: Callable[[str, TableColumns, str], Any] | None = None
    module: str = ""
    records: str | None = None
    saved: str | None = None
    harness: str | None = None


def _csv(path: str, columns: TableColumns, kind: str) -> Any:
    return _delimited.open_table(
        path, columns, kind, ",", compression=compression_of(_head(path, 16))
    )


def _tsv(path: str, columns: TableColumns, kind: str) -> Any:
    return _delimited.open_table(
        path, columns, kind, "\t", compression=compression_of(_head(path, 16))
    )


#: Every format ragmeter reads (the formats of judgments and runs first).
FORMATS: tuple[Format, ...] = (
    Format(
        "trec",
        "TREC text (qrels: query_id iteration doc_id grade, runs: query_id Q0 doc_id rank "
        "score tag), also compressed (.gz, .bz2, .xz, .zst)",
        (".txt", ".trec", ".qrels", ".run"),
        "trec",
        module="trec",
    ),
    Format(
        "json",
        "JSON {query_id: {doc_id: value}}",
        (".json",),
        "mapping",
        module="_json",
        records="read_records",
        saved="parse_saved",
    ),
    Format(
        "parquet",
        "Parquet (a file or a directory of files)",
        (".parquet", ".pq"),
        "table",
        _parquet.open_table,
        module="_parquet",
        records="read_records",
    ),
    Format(
        "ipc",
        "Arrow IPC / Feather",
        (".arrow", ".feather", ".ipc", ".arrows"),
        "table",
        _ipc.open_table,
        module="_ipc",
    ),
    Format(
        "csv",
        "CSV with a header row",
        (".csv",),
        "table",
        _csv,
        module="_delimited",
        records="read_records",
    ),
    Format(
        "tsv",
        "TSV with a header row",
        (".tsv",),
        "table",
        _tsv,
        module="_delimited",
        records="read_tsv_records",
    ),
    Format(
        "jsonl",
        "JSON lines, one object a line",
        (".jsonl", ".ndjson"),
        None,
        module="_jsonl",
        records="read_records",
        saved="parse_saved",
    ),
    Format(
        "trec_rag",
        "TREC RAG answers (JSON lines, the 2024 and 2025 forms: references, answer sentences "
        "with citations)",
        (),
        None,
        module="_trec_rag",
        records="read_records",
    ),
    Format(
        "nuggetizer",
        "nugget banks and assignments in nuggetizer's form (JSON lines: qid, query, nuggets)",
        (),
        None,
        module="_nuggetizer",
        records="read_records",
    ),
    Format("yaml", "YAML", (".yaml", ".yml"), None, module="_yaml", saved="parse_saved"),
    Format("toml", "TOML", (".toml",), None, module="_toml", saved="parse_saved"),
    # Trace exports: records of spans (ragmeter.io._spans), read when named (format=...) or
    # recognised by their content (trace_format); their suffixes are JSON's and Parquet's.
    Format(
        "otlp",
        "OpenTelemetry OTLP/JSON trace export (one ExportTraceServiceRequest, or one a line)",
        (),
        None,
        module="_otlp",
        records="read_records",
    ),
    Format(
        "phoenix",
        "Phoenix spans dataframe saved as JSON lines, JSON or Parquet (OpenInference columns)",
        (),
        None,
        module="_phoenix",
        records="read_records",
    ),
    Format(
        "langfuse",
        "Langfuse observations export (the API's pages, traces with observations, JSON lines)",
        (),
        None,
        module="_langfuse",
        records="read_records",
    ),
    # Other evaluation harnesses' result files (recognised by their content when JSON).
    Format(
        "inspect",
        "Inspect AI evaluation log (.eval, or its .json log): epochs as repeats",
        (".eval",),
        None,
        module="_inspect",
        records="read_records",
        harness="inspect_ai",
    ),
    Format(
        "deepeval",
        "DeepEval test run (.deepeval/.latest_test_run.json)",
        (),
        None,
        module="_deepeval",
        harness="deepeval",
    ),
    Format(
        "lm-eval",
        "lm-evaluation-harness samples (--log_samples samples_<task>_<date>.jsonl)",
        (),
        None,
        module="_lm_eval",
        harness="lm-evaluation-harness",
    ),
    Format(
        "promptfoo",
        "promptfoo results (promptfoo eval -o output.json)",
        (),
        None,
        module="_promptfoo",
        harness="promptfoo",
    ),
    Format(
        "mlflow",
        "MLflow evaluation results table (eval_results_table.json) or traces with assessments",
        (),
        None,
        module="_mlflow",
        harness="mlflow",
    ),
    Format(
        "trulens",
        "TruLens records and feedback (get_records_and_feedback() as JSON records)",
        (),
        None,
        module="_trulens",
        harness="trulens",
    ),
    Format(
        "openai-evals",
        "OpenAI Evals record log (oaieval --record_path, JSON lines)",
        (),
        None,
        module="_openai_evals",
        harness="openai-evals",
    ),
)

#: The formats of trace exports (records of spans).
TRACE_FORMATS = ("otlp", "phoenix", "langfuse")

_BY_NAME = {f.name: f for f in FORMATS}
#: The formats of judgments and runs.
_RANKINGS = tuple(f for f in FORMATS if f.reads_as is not None)
#: Saved results' formats by suffix (``ragmeter.reports.REPORT_FORMATS``).
SAVED_SUFFIXES: dict[str, str] = {s: f.name for f in FORMATS if f.saved for s in f.suffixes}

#: Compressed files: magic bytes and suffix of each compression the readers decompress.
COMPRESSIONS: dict[str, tuple[bytes, str]] = {
    "gzip": (b"\x1f\x8b", ".gz"),
    "bzip2": (b"BZh", ".bz2"),
    "xz": (b"\xfd7zXZ\x00", ".xz"),
    "zstd": (b"\x28\xb5\x2f\xfd", ".zst"),
}


def compression_of(head: bytes) -> str | None:
    """The compression of a file that starts with ``head`` (a key of :data:`COMPRESSIONS`), or
    ``None``. A zstd file may also start with a skippable frame (magic ``0x184D2A50`` to
    ``0x184D2A5F``, as ``pzstd`` writes), as the Rust core recognises it.

    >>> compression_of(bytes([0x50, 0x2A, 0x4D, 0x18, 4, 0, 0, 0]))
    'zstd'
    """
    for compression, (magic, _) in COMPRESSIONS.items():
        if head.startswith(magic):
            return compression
    if len(head) >= 4 and head[0] & 0xF0 == 0x50 and head[1:4] == b"\x2a\x4d\x18":
        return "zstd"
    return None


def formats_read() -> str:
    """The formats ragmeter reads, for messages.

    >>> formats_read().split("; ")[1]
    'JSON {query_id: {doc_id: value}}'
    """
    return "; ".join(f.description for f in _RANKINGS)


def _by_suffix(name: str) -> Format | None:
    suffix = Path(name).suffix.lower()
    return next((f for f in _RANKINGS if suffix in f.suffixes), None)


def _head(path: str, size: int = 4096) -> bytes:
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        kind = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "not a regular file"
        raise InvalidInputError(
            f"{path}: is {kind}; judgments and runs are read from regular files only (save the "
            "output of a pipe or a program to a file first)"
        )
    with open(path, "rb") as handle:
        return handle.read(size)


def _is_text(head: bytes) -> bool:
    if b"\x00" in head:
        return False
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        # A character cut by the end of the sample is still text.
        return error.start >= len(head) - 3 and error.reason == "unexpected end of data"
    return True


def detect(path: str | os.PathLike[str], columns: TableColumns | None = None) -> Format:
    """The format of the file (or Parquet directory) at ``path``.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "run.txt").write_text("q1 Q0 d1 1 0.5 tag\\n")
    >>> detect(folder / "run.txt").name
    'trec'
    >>> _ = (folder / "run.csv").write_text("query_id,doc_id,score\\nq1,d1,0.5\\n")
    >>> detect(folder / "run.csv").name
    'csv'
    """
    columns = columns or TableColumns()
    name = os.fspath(path)
    if os.path.isdir(name):
        return _BY_NAME["parquet"]
    head = _head(name)
    by_suffix = _by_suffix(name)
    if _parquet.sniff(head) or _ipc.sniff(head):
        # The content decides, whatever the name says.
        return _BY_NAME["parquet" if _parquet.sniff(head) else "ipc"]
    compression = compression_of(head)
    if compression is not None:
        suffix = COMPRESSIONS[compression][1]
        inner = name[: -len(suffix)] if name.lower().endswith(suffix) else name
        inner_format = _by_suffix(inner)
        if inner_format is not None and inner_format.name in ("csv", "tsv"):
            return inner_format
        if inner_format is not None and inner_format.reads_as != "trec":
            raise InvalidInputError(
                f"{name}: {inner_format.description} compressed with {compression} is not "
                f"read; decompress it first (compressed TREC, CSV and TSV files are read)"
            )
        return _BY_NAME["trec"]
    if (
        by_suffix is not None
        and by_suffix.reads_as == "table"
        and by_suffix.name
        not in (
            "csv",
            "tsv",
        )
    ):
        raise InvalidInputError(
            f"{name}: is named like a {by_suffix.description} file but does not start like one "
            f"(it starts with {head[:8]!r}); is it damaged or misnamed?"
        )
    if not _is_text(head):
        raise InvalidInputError(
            f"{name}: is binary data in no format ragmeter reads (it starts with {head[:8]!r}); "
            f"the formats read are: {formats_read()}"
        )
    text = head.decode("utf-8", "replace").lstrip("\ufeff")
    if by_suffix is not None and by_suffix.name == "json":
        return by_suffix
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return _BY_NAME["json"]
    first_line = stripped.splitlines()[0] if stripped else ""
    for delimiter, format_name in ((",", "csv"), ("\t", "tsv")):
        if columns.query in _delimited.header(first_line, delimiter):
            return _BY_NAME[format_name]
    if by_suffix is not None and by_suffix.name == "csv":
        return by_suffix  # the CSV reader names the missing header column
    return _BY_NAME["trec"]


# -- records and saved results ----------------------------------------------------------------


def format_named(name: str) -> Format:
    """The row of :data:`FORMATS` named ``name`` (``KeyError`` for another name)."""
    return _BY_NAME[name]


def _reader(fmt: Format, function: str | None) -> Callable[..., Any]:
    """A reader of ``fmt``'s module (imported on first use)."""
    assert function is not None
    module = importlib.import_module(f"{__package__}.{fmt.module}")
    reader: Callable[..., Any] = getattr(module, function)
    return reader


def record_format(name: str, given: str | None = None, argument: str = "path") -> Format:
    """The format of the records file ``name``: ``given`` (a format's name), else the one its
    suffix says; an error naming the formats of records otherwise."""
    formats = [f for f in FORMATS if f.records]
    names = ", ".join(repr(f.name) for f in formats)
    if given is not None:
        if given not in [f.name for f in formats]:
            raise InvalidInputError(
                f"format must be {names} or None (from the file's suffix), got {given!r}"
            )
        return _BY_NAME[given]
    suffix = Path(name).suffix.lower()
    found = next((f for f in formats if suffix in f.suffixes), None)
    if found is None:
        suffixes = ", ".join(s for f in formats for s in f.suffixes)
        raise InvalidInputError(
            f"{argument}: cannot tell the format of {name!r} from its suffix {suffix!r}; name "
            f"the file {suffixes} or pass format={' or '.join(repr(f.name) for f in formats)}"
        )
    return found


def read_records(
    path: Any,
    *,
    format: str | None = None,
    what: str = "a file of records",
    argument: str = "path",
    noun: str = "row",
    caller: str = "",
) -> Records:
    """The records of the file at ``path`` (see :class:`~ragmeter.io._records.Records`), in
    ``format`` or the one its suffix says; ``what``, ``argument`` and ``noun`` name the file,
    the argument and one record in errors, ``caller`` the function that needs an extra."""
    name = path_argument(path, argument)
    fmt = record_format(name, format, argument)
    reader = _reader(fmt, fmt.records)
    records: Records = reader(name, what=what, argument=argument, noun=noun, caller=caller)
    return records


def saved_format(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The format of the saved result at ``path`` (from its suffix), or ``format`` when
    given."""
    formats = sorted({f.name for f in FORMATS if f.saved})
    if format is not None:
        if format not in formats:
            raise InvalidInputError(
                f"format: must be one of {', '.join(map(repr, formats))}, got {format!r}"
            )
        return format
    suffix = Path(path).suffix.lower()
    if suffix not in SAVED_SUFFIXES:
        raise InvalidInputError(
            f"path: cannot tell the report format of {os.fspath(path)!r} from its suffix "
            f"{suffix!r}; use one of {', '.join(SAVED_SUFFIXES)} or pass format="
        )
    return SAVED_SUFFIXES[suffix]


def harness_format(data: Any) -> Format | None:
    """The harness whose result file ``data`` (parsed JSON or JSON lines) is, or None."""
    for fmt in FORMATS:
        if fmt.harness is not None and _reader(fmt, "recognises")(data):
            return fmt
    return None


def harness_records(
    fmt: Format, where: str, data: Any = None, cluster: str | None = None
) -> Records:
    """The long rows of the harness result file ``where`` in ``fmt`` (``data``: its parsed
    JSON, when it is JSON; else the format's ``load`` reads the file)."""
    if data is None:
        data = _reader(fmt, "load")(where)
    elif not _reader(fmt, "recognises")(data):
        raise InvalidInputError(f"{where}: is not a {fmt.description} file")
    records: Records = _reader(fmt, "harness_records")(data, where, cluster)
    return records


def parse_saved(text: str, format: str) -> Any:
    """The data of a saved result's text in ``format`` (errors are the parser's own)."""
    return _reader(_BY_NAME[format], _BY_NAME[format].saved)(text)


def _parse_errors() -> tuple[type[BaseException], ...]:
    errors: tuple[type[BaseException], ...] = (ValueError, RecursionError, MemoryError)
    yaml_errors: tuple[type[BaseException], ...] = _reader(_BY_NAME["yaml"], "parse_errors")()
    return errors + yaml_errors


def _shorten(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def parse_saved_text(text: str, format: str, name: str) -> Any:
    """The data of a saved result's text in ``format`` read from the file ``name``: a dict
    (JSON, YAML, TOML) or a list of rows (JSONL).

    A text that cannot be parsed (malformed, nested too deeply, a YAML tag the safe loader
    refuses) or holds no report is an :class:`~ragmeter.InvalidInputError` naming the file.
    """
    try:
        data = parse_saved(text, format)
    except RecursionError:
        raise InvalidInputError(f"{name}: nested too deeply to be a ragmeter report") from None
    except _parse_errors() as exc:
        raise InvalidInputError(
            f"{name}: not a valid {format.upper()} report ({type(exc).__name__}: "
            f"{_shorten(str(exc))})"
        ) from None
    if not isinstance(data, dict | list) or (
        isinstance(data, list) and not all(isinstance(row, dict) for row in data)
    ):
        raise InvalidInputError(f"{name}: does not hold a ragmeter report")
    return data


def read_saved_data(
    path: str | os.PathLike[str], format: str | None = None
) -> dict[str, Any] | list[dict[str, Any]]:
    """The data of a saved result's file (:func:`parse_saved_text`), in ``format`` or the one
    its suffix says; not a regular file, not UTF-8: an :class:`~ragmeter.InvalidInputError`."""
    fmt = saved_format(path, format)
    data: dict[str, Any] | list[dict[str, Any]] = parse_saved_text(
        read_regular_text(path, "a report"), fmt, os.fspath(path)
    )
    return data


def trace_format(path: str | os.PathLike[str]) -> str:
    """The trace format of the export at ``path``, recognised by its content: OTLP/JSON
    (``resourceSpans``), a Phoenix spans table (``context.span_id``: JSON, JSON lines or
    Parquet) or a Langfuse export (``traceId``); an error naming the three otherwise."""
    name = os.fspath(path)
    head = _head(name, 65536)
    if _parquet.sniff(head):
        return "phoenix"
    text = head.decode("utf-8", "replace")
    if '"resourceSpans"' in text:
        return "otlp"
    if '"context.span_id"' in text:
        return "phoenix"
    if '"traceId"' in text:
        return "langfuse"
    raise InvalidInputError(
        f"{name}: is no trace export ragmeter reads: an OTLP/JSON export (resourceSpans), "
        "Phoenix's spans dataframe (context.span_id) or Langfuse observations (traceId); "
        "name the format with format='otlp', 'phoenix' or 'langfuse'"
    )
