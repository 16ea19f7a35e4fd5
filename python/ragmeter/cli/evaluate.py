"""``ragmeter evaluate QRELS RUN [RUN ...]``: run files evaluated the way trec_eval does.

Entirely in the Rust core: the same flags (``-q``, ``-m``, ``-c``, ``-M``, ``-l``, ``-J``,
``-N``, ``-n``), the same measures and groups (``-m official``, the default, and ``-m
all_trec``), and for one run the same output, line for line, so ``ragmeter evaluate`` can
replace ``trec_eval`` in a script. It also prints a table or JSON, and writes CSV, JSON lines
or Parquet (``--format``, ``--output``).

The files may be in any format of :data:`ragmeter.io.FORMATS` (TREC text, also compressed;
JSON; Parquet; Arrow IPC/Feather; CSV and TSV), recognised by name and content, with the same
semantics; binary data in no such format is refused with a message naming the formats read.
"""

from __future__ import annotations

import argparse
import functools
import io
import math
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .. import _core
from .._files import atomic_write_bytes, atomic_write_text, read_regular_text, trec_fields
from .._inputs import TableColumns
from .._progress import progress_hook
from ..datasets import dataset_qrels, is_dataset_id
from ..exceptions import InvalidInputError, RagmeterError, UndefinedMetricWarning
from ..io import PRODUCER, evaluate, means_and_values
from ..io._formats import detect, formats_read
from ..io.trec import read_trec_run, trec_options, trec_table
from ..ranking.columns import report_columns
from ..ranking.declarations import FAMILIES
from ..ranking.names import Measure, parse_measures
from ..reports import render_report
from ._zscores import per_topic_value, read_zscores, zscore, zscored_summary

if TYPE_CHECKING:
    from ..ranking.evaluation import QueryValues

__all__ = ["OUTPUT_FORMATS", "add_parser", "command_measures", "evaluation_options", "run"]

#: trec_eval's judgment formats (``-R``).
REL_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")

#: The command's ``--format`` choices.
OUTPUT_FORMATS = ("trec", "table", "json", "csv", "jsonl", "parquet")


def add_parser(sub: Any) -> None:
    """The ``evaluate`` subcommand's options."""
    ev = sub.add_parser(
        "evaluate",
        help="evaluate TREC run files against a qrels file (trec_eval semantics)",
        # The formats come from the table of formats (ragmeter.io), not from a list here.
        description=f"Evaluate run files against a qrels file, in any format ragmeter reads: "
        f"{formats_read()}. Tables are in long format: columns query_id, doc_id and relevance "
        "or score/rank. The format is recognised by name and content. Judged topics are "
        "evaluated; run topics without judgments are ignored and counted.",
    )
    ev.add_argument(
        "qrels",
        type=_qrels_source,
        help="qrels file: query_id iteration doc_id grade, a .json {query_id: {doc_id: "
        "grade}}, a table with query_id, doc_id and relevance columns, or an ir_datasets id "
        "irds:<id> (needs ragmeter[irds]; the dataset's documented relevance level applies "
        "unless -l is given)",
    )
    ev.add_argument(
        "runs",
        type=Path,
        nargs="+",
        help="run files: query_id Q0 doc_id rank score tag, a .json {query_id: {doc_id: "
        "score}}, or tables with query_id, doc_id and score (or rank) columns",
    )
    ev.add_argument(
        "-m",
        "--metric",
        "--measure",
        action="append",
        dest="metrics",
        help="measure (repeatable): trec_eval's (map, P.5,10, ndcg_cut.10, bpref, official, "
        "all_trec...), ragmeter's (ndcg@10, recall@100, mrr) or ir_measures'/ranx's "
        "(nDCG@10, map@100-l2); default: official, as trec_eval",
    )
    ev.add_argument(
        "-q",
        "--per-query",
        "--query_eval_wanted",
        action="store_true",
        help="also print per-topic values",
    )
    ev.add_argument(
        "-c",
        "--complete",
        "--complete_rel_info_wanted",
        action="store_true",
        help="score judged topics missing from a run as empty rankings (trec_eval -c)",
    )
    ev.add_argument(
        "-M",
        "--max-docs",
        "--Max_retrieved_per_topic",
        type=int,
        default=None,
        help="keep the first N documents of each ranking (trec_eval -M)",
    )
    ev.add_argument(
        "-l",
        "--relevance-threshold",
        "--level_for_rel",
        type=float,
        default=None,
        help="grade from which a document is relevant (trec_eval -l; default 1, or an "
        "irds: dataset's documented level)",
    )
    ev.add_argument(
        "-J",
        "--judged-docs-only",
        "--judged-only",
        "--Judged_docs_only",
        dest="judged_docs_only",
        action="store_true",
        help="remove documents without a judgment from the rankings (trec_eval -J)",
    )
    ev.add_argument(
        "-N",
        "--collection-size",
        "--Number_docs_in_coll",
        type=int,
        default=0,
        help="number of documents in the collection, for utility (trec_eval -N)",
    )
    ev.add_argument(
        "-n",
        "--no-summary",
        "--nosummary",
        action="store_true",
        help="do not print the values over all topics (trec_eval -n)",
    )
    ev.add_argument(
        "-R",
        "--rel-format",
        "--Rel_info_format",
        choices=REL_FORMATS,
        default="qrels",
        help="format of the judgments file, as trec_eval -R: qrels (default), prefs, "
        "qrels_prefs or qrels_jg",
    )
    ev.add_argument(
        "-Z",
        "--zscores",
        "--Zscore",
        type=Path,
        default=None,
        metavar="ZMEAN_FILE",
        help="print z-scores against the mean and standard deviation of each topic and "
        "measure in this file (lines: topic measure mean stddev), as trec_eval -Z; --format "
        "trec only",
    )
    ev.add_argument(
        "--missing",
        choices=("raise", "zero", "skip"),
        default=None,
        help="judged topics missing from a run: raise (default), zero (= -c) or skip",
    )
    ev.add_argument(
        "--duplicates",
        choices=("raise", "first"),
        default="raise",
        help="a document a run lists twice for one topic: an error (raise, the default, as "
        "trec_eval) or keep its best-scored line (first)",
    )
    ev.add_argument(
        "--format",
        choices=OUTPUT_FORMATS,
        default="trec",
        help="trec_eval's three columns, an aligned table, JSON, or one row per value (run, "
        "query_id, measure, value, ...) as CSV, JSON lines or Parquet",
    )
    ev.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        help="write the output to this file (replaced atomically) instead of stdout",
    )
    for option, default, what in (
        ("--query-col", "query_id", "query ids"),
        ("--doc-col", "doc_id", "document ids"),
        ("--relevance-col", "relevance", "grades of judgments"),
        ("--score-col", "score", "scores of runs"),
        ("--rank-col", "rank", "ranks of runs without a score column (1 first)"),
    ):
        ev.add_argument(
            option,
            default=default,
            help=f"column of the {what} in tables (Parquet, IPC, CSV, TSV); default {default}",
        )
    ev.add_argument("--threads", type=int, default=None, help="threads of the Rust core")
    ev.add_argument(
        "--progress",
        action="store_true",
        help="show a progress bar over the runs on stderr (needs ragmeter[progress])",
    )
    ev.add_argument(
        "--dask",
        metavar="SCHEDULER",
        default=None,
        help="evaluate the runs on a Dask cluster, one task per run (e.g. tcp://host:8786; "
        "needs ragmeter[dask]; the files must open on the workers)",
    )


def _qrels_source(text: str) -> Path | str:
    """The qrels argument: a path, or an ``irds:`` dataset id kept as text."""
    return text if is_dataset_id(text) else Path(text)


def _with_dataset_qrels(args: argparse.Namespace, folder: str) -> None:
    """An ``irds:`` qrels argument written to a TREC file in ``folder`` (the runs are then
    read as with any qrels file), its documented relevance level applied unless ``-l`` was
    given, and both said on stderr."""
    loaded = dataset_qrels(args.qrels)
    path = Path(folder) / "qrels.txt"
    atomic_write_text(
        path,
        "".join(f"{q} 0 {d} {g}\n" for q, docs in loaded.qrels.items() for d, g in docs.items()),
    )
    note = f"ragmeter: {args.qrels}: {sum(map(len, loaded.qrels.values()))} judgments"
    if args.relevance_threshold is None and loaded.relevance_level is not None:
        args.relevance_threshold = loaded.relevance_level
        note += (
            f"; relevance level {loaded.relevance_level} for binary measures (the dataset's "
            f"documented level: {loaded.level_source}; -l overrides it)"
        )
    print(note, file=sys.stderr)
    args.qrels = path


def _evaluate_one(qrels: str, run: str, *, per_query: bool, **options: Any) -> tuple[Any, Any]:
    """``(means, per-query values as one QueryValues matrix, or None)`` of one run (also a Dask
    task), in whatever formats the files are (:func:`ragmeter.io.evaluate`)."""
    if per_query:
        return means_and_values(qrels, run, **options)
    return evaluate(qrels, run, **options), None


def _per_query(values: QueryValues | None) -> Any:
    """The per-query values of one run as ``{measure: {query: value}}`` (None without -q)."""
    if values is None:
        return None
    # Imported here: the command on TREC files (`_run_in_core`) never needs numpy.
    from ..ranking.evaluation import summarize

    return summarize(values, average=None, producer=PRODUCER)


def _with_per_query(report: dict[str, tuple[Any, Any]]) -> dict[str, tuple[Any, Any]]:
    """``report`` (run: (means, QueryValues or None)) with the per-query values as dicts."""
    return {run: (means, _per_query(values)) for run, (means, values) in report.items()}


def _run_all(
    args: argparse.Namespace, options: dict[str, Any]
) -> Iterator[tuple[str, tuple[Any, Any], list[str]]]:
    """``(run, (means, per-query values or None), warning messages)`` for every run, here or
    on the Dask cluster of ``--dask``."""
    # trec_eval -Z converts the per-topic values, then summarises them.
    # trec_eval's report is printed from the values' table, with or without -q.
    function = functools.partial(
        _evaluate_one,
        per_query=args.per_query or args.zscores is not None or args.format == "trec",
    )
    qrels = str(args.qrels)
    runs = [str(run) for run in args.runs]
    if args.dask is None:
        tick, close_progress = progress_hook(
            args.progress, len(runs), description="evaluating runs", unit="run"
        )
        try:
            for run in runs:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", UndefinedMetricWarning)
                    result = function(qrels, run, **options)
                tick()
                yield run, result, [str(w.message) for w in caught]
        finally:
            close_progress()
        return
    from .._optional import import_optional
    from ..distributed import RunFailure, map_runs

    distributed = import_optional("dask.distributed", extra="dask", purpose="--dask")
    with distributed.Client(args.dask) as client:
        outcomes = map_runs(
            function,
            qrels,
            runs,
            options,
            client=client,
            record_errors=True,
            progress=args.progress,
        )
    for run, outcome in zip(runs, outcomes, strict=True):
        if isinstance(outcome.result, RunFailure):
            # Stop at the first failed run, after the runs before it, as the local loop does.
            raise RagmeterError(outcome.result.message)
        messages = [m for category, m in outcome.warnings if category is UndefinedMetricWarning]
        yield run, outcome.result, messages


def command_measures(texts: Sequence[str]) -> list[Measure]:
    """The measures of the command's ``-m`` options, in trec_eval's order.

    As trec_eval does: a measure named several times is evaluated once; a trec_eval family
    named several times (``-m all_trec -m P.7``) is evaluated with the parameters of the first
    ``-m`` that gives it parameters (``P_7`` only), else with its defaults; and measures are
    printed in the order of trec_eval's measure table, whatever the order of ``-m``. Measures
    in ragmeter's, ir_measures' or ranx's syntax keep their own names.
    """
    chosen: dict[str, list[Measure]] = {}
    explicit: set[str] = set()
    others: list[Measure] = []
    for text in texts:
        measures = parse_measures(text)
        with_params = "." in text.strip() and measures[0].trec_syntax
        for family_name in dict.fromkeys(m.family.name for m in measures if m.trec_syntax):
            family_measures = [
                m for m in measures if m.trec_syntax and m.family.name == family_name
            ]
            if family_name not in chosen or (with_params and family_name not in explicit):
                chosen[family_name] = family_measures
                if with_params:
                    explicit.add(family_name)
        others.extend(m for m in measures if not m.trec_syntax)
    position = {f.name: i for i, f in enumerate(FAMILIES)}
    merged = [m for measures in chosen.values() for m in measures] + others
    unique = list({m.name: m for m in reversed(merged)}.values())[::-1]
    by_name = {m.name: i for i, m in enumerate(merged)}
    return sorted(unique, key=lambda m: (position[m.family.name], by_name[m.name]))


def _format_value(measure: Measure, value: Any) -> str:
    """A value as trec_eval prints it: ``%6.4f``, ``%ld``, or text."""
    if isinstance(value, str):
        return f"'{value}'" if measure.family.name == "relstring" else value
    if measure.family.value_type == "int":
        return str(int(value))
    if math.isnan(value):
        return "  -nan"  # C's printf("%6.4f") of 0.0/0.0, which trec_eval prints
    return f"{float(value):6.4f}"


def _zscore_lines(
    measures: list[Measure], means: Any, per_query: Any, args: argparse.Namespace
) -> Iterator[str]:
    """trec_eval -Z's output: numeric values as z-scores (``Z`` before the name, ``%6.4f``),
    text values (runid, relstring) as they are."""
    table = read_zscores(args.zscores)
    query_ids = sorted(means.query_ids, key=lambda q: str(q).encode("utf-8", "surrogatepass"))
    converted: dict[str, list[float]] = {}
    for measure in measures:
        if measure.family.value_type == "str":
            continue
        values = per_query[measure.name]
        converted[measure.name] = [
            zscore(per_topic_value(measure, float(values[q])), table.get((str(q), measure.name)))
            for q in query_ids
        ]
    if args.per_query:
        for position, query_id in enumerate(query_ids):
            for measure in measures:
                if not measure.family.per_query:
                    continue
                if measure.name in converted:
                    value = converted[measure.name][position]
                    yield f"Z{measure.name:<22}\t{query_id}\t{value:6.4f}"
                else:
                    text = _format_value(measure, per_query[measure.name][query_id])
                    yield f"{measure.name:<22}\t{query_id}\t{text}"
    if not args.no_summary:
        for measure in measures:
            if measure.family.summary == "none":
                continue
            complete = args.complete or args.missing == "zero"
            if measure.family.complete_summary_kernel is not None and complete:
                # trec_eval -c totals num_rel from the judgments, not the converted values.
                yield f"Z{measure.name:<22}\tall\t{float(means[measure.name]):6.4f}"
            elif measure.name in converted:
                value = zscored_summary(measure, converted[measure.name])
                yield f"Z{measure.name:<22}\tall\t{value:6.4f}"
            else:
                text = _format_value(measure, means[measure.name])
                yield f"{measure.name:<22}\tall\t{text}"


def _trec_lines(
    measures: list[Measure], means: Any, per_query: Any, summary: bool
) -> Iterator[str]:
    if per_query is not None:
        # trec_eval -q: every measure of a topic, topic by topic in trec_eval's order (ids
        # sorted byte-wise), then the summary.
        query_ids = sorted(means.query_ids, key=lambda q: str(q).encode("utf-8", "surrogatepass"))
        for query_id in query_ids:
            for measure in measures:
                if measure.family.per_query:
                    value = per_query[measure.name][query_id]
                    yield f"{measure.name:<22}\t{query_id}\t{_format_value(measure, value)}"
    if summary:
        for measure in measures:
            if measure.family.summary != "none":
                yield f"{measure.name:<22}\tall\t{_format_value(measure, means[measure.name])}"


def _write_trec_report(
    out: TextIO,
    measures: list[Measure],
    means: Any,
    values: QueryValues,
    *,
    per_topic: bool,
    summary: bool,
) -> None:
    """trec_eval's report of one run, printed by the core from the values' matrix, as it
    prints the table of TREC files (:func:`_write_table_report`)."""
    try:
        table = _core.ValueTable.from_arrays(values.numbers, values.texts, values.complete_totals)
        _write_table_report(
            out,
            table,
            [str(q) for q in values.queries.query_ids],
            values.measures,
            per_topic=per_topic,
            summary=summary,
        )
    except UnicodeEncodeError:
        # An id with a lone surrogate is no UTF-8 text for the core (refused before any
        # piece is written): printed line by line.
        per_query = _per_query(values) if per_topic else None
        for line in _trec_lines(measures, means, per_query, summary):
            out.write(line + "\n")


def _write_table_report(
    out: TextIO,
    table: _core.ValueTable,
    topics: list[str],
    measures: list[Measure],
    *,
    per_topic: bool,
    summary: bool,
) -> None:
    """trec_eval's report of a table of values (one column per measure of ``measures``, one
    row per topic of ``topics``), formatted by the core and written in pieces of about a
    megabyte (millions of lines for a big run: no Python object per value, no copy of the
    whole report)."""
    buffer = getattr(out, "buffer", None)
    if buffer is not None:
        out.flush()
        write = buffer.write
    else:

        def write(piece: bytes) -> None:
            out.write(piece.decode("utf-8"))

    table.write_trec_report(topics, report_columns(measures), per_topic, summary, write)


def _undefined_notes(means: Any, measures: list[Measure]) -> Iterator[str]:
    """One line per reason: which measures were undefined for how many topics (printed as
    trec_eval prints them: 0, or -nan where it divides 0 by 0)."""
    counts = {m.name: getattr(means.get(m.name), "n_undefined", 0) for m in measures}
    return _notes_of_counts(counts, len(means.query_ids), measures)


def _notes_of_counts(counts: dict[str, int], n: int, measures: list[Measure]) -> Iterator[str]:
    """:func:`_undefined_notes` from each measure's count of undefined values over ``n``
    topics."""
    by_reason: dict[tuple[str, int], list[str]] = {}
    for measure in measures:
        n_undefined = counts.get(measure.name, 0)
        if n_undefined:
            reason = measure.family.undefined or "no value"
            by_reason.setdefault((reason, n_undefined), []).append(measure.name)
    for (reason, count), names in by_reason.items():
        shown = ", ".join(names[:6]) + (f", ... ({len(names)} measures)" if len(names) > 6 else "")
        yield (
            f"{count} of {n} topics: {reason}; {shown} are undefined there and printed as "
            f"trec_eval prints them"
        )


def evaluation_options(args: argparse.Namespace, metrics: list[Any]) -> dict[str, Any]:
    """The options of every run's evaluation, from the trec_eval-style flags that ``evaluate``
    and ``compare`` share (values printed as trec_eval prints them: ``zero_division``
    ``"trec_eval"``)."""
    return {
        "metrics": metrics,
        "complete": args.complete,
        "max_docs": args.max_docs,
        "missing": args.missing,
        "duplicates": args.duplicates,
        "relevance_threshold": 1 if args.relevance_threshold is None else args.relevance_threshold,
        "judged_docs_only": args.judged_docs_only,
        "collection_size": args.collection_size,
        "zero_division": "trec_eval",
        "n_threads": args.threads,
    }


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Evaluate the runs of ``args`` and print the results to ``out``."""
    if not is_dataset_id(args.qrels):
        return _run(args, out)
    if args.rel_format != "qrels":
        raise InvalidInputError(
            f"-R {args.rel_format}: an irds: dataset's judgments are qrels; drop -R"
        )
    # Imported here: only an irds: qrels argument needs a folder (tempfile costs ~1.5 ms).
    import tempfile

    with tempfile.TemporaryDirectory(prefix="ragmeter-irds-") as folder:
        _with_dataset_qrels(args, folder)
        return _run(args, out)


def _run(args: argparse.Namespace, out: TextIO) -> int:
    if args.relevance_threshold is None:
        args.relevance_threshold = 1
    if args.rel_format != "qrels":
        return _run_preferences_or_groups(args, out)
    measures = command_measures(args.metrics or ["official"])
    options = {
        **evaluation_options(args, measures),
        "query_col": args.query_col,
        "doc_col": args.doc_col,
        "relevance_col": args.relevance_col,
        "score_col": args.score_col,
        "rank_col": args.rank_col,
    }
    if args.zscores is not None and args.format != "trec":
        raise InvalidInputError(
            f"-Z: z-scores are printed in trec_eval's format only; drop --format "
            f"{args.format} or -Z"
        )
    if args.format == "parquet" and args.output is None and out.isatty():
        raise InvalidInputError(
            "--format parquet: Parquet is binary; write it to a file with --output FILE (or "
            "redirect stdout to a file)"
        )
    if _evaluated_in_core(args, measures):
        return _run_in_core(args, measures, out)
    report = {}
    for run, (means, values), _messages in _run_all(args, options):
        for note in _undefined_notes(means, measures):
            print(f"ragmeter: {run}: {note}", file=sys.stderr)
        if means.unjudged:
            print(
                f"ragmeter: {run}: {len(means.unjudged)} run topics without judgments were ignored",
                file=sys.stderr,
            )
        report[str(run)] = (means, values)

    if args.format == "parquet":
        # Imported for the row formats (parquet, csv, jsonl) only: with json, ~2 ms at import.
        from ..io._results import result_rows, write_parquet

        rows = list(result_rows(_with_per_query(report), measures, summary=not args.no_summary))
        data = write_parquet(rows)
        if args.output is not None:
            atomic_write_bytes(args.output, data)
        else:
            out.flush()
            out.buffer.write(data)
            out.buffer.flush()
        return 0
    text = io.StringIO() if args.output is not None else out
    _write_text(args, report, measures, text)
    if args.output is not None:
        assert isinstance(text, io.StringIO)
        atomic_write_text(args.output, text.getvalue())
    return 0


def _evaluated_in_core(args: argparse.Namespace, measures: list[Measure]) -> bool:
    """Whether the runs are evaluated and printed entirely by the core (:func:`_run_in_core`):
    TREC files (qrels and every run), trec_eval's report, every judged topic a row (no
    ``--missing skip``), no diversity measure, no ``-Z`` and no ``--dask``. Anything else
    takes the general path, which has the same semantics (and reports the files' errors)."""
    if (
        args.format != "trec"
        or args.zscores is not None
        or args.dask is not None
        or args.missing == "skip"
        or any(m.family.subtopic_judgments for m in measures)
    ):
        return False
    columns = TableColumns(
        args.query_col, args.doc_col, args.relevance_col, args.score_col, args.rank_col
    )
    try:
        return all(detect(path, columns).reads_as == "trec" for path in [args.qrels, *args.runs])
    except (RagmeterError, OSError):
        return False


def _run_in_core(args: argparse.Namespace, measures: list[Measure], out: TextIO) -> int:
    """trec_eval's report of TREC files, computed and printed by the core
    (``ragmeter.io.trec.trec_table``): the same output as the general path, without
    numpy (~0.1 s of a small command's start-up) and without a Python object per value."""
    options = trec_options(
        **{k: v for k, v in evaluation_options(args, measures).items() if k != "metrics"}
    )
    runs = [str(run) for run in args.runs]
    tick, close_progress = progress_hook(
        args.progress, len(runs), description="evaluating runs", unit="run"
    )
    tables = []
    try:
        for run in runs:
            table, evaluated, join = trec_table(args.qrels, run, measures, options)
            counts = dict(zip((m.name for m in evaluated), table.undefined_counts(), strict=True))
            for note in _notes_of_counts(counts, table.n_queries, evaluated):
                print(f"ragmeter: {run}: {note}", file=sys.stderr)
            if join.run_only:
                print(
                    f"ragmeter: {run}: {len(join.run_only)} run topics without judgments were "
                    "ignored",
                    file=sys.stderr,
                )
            tables.append((run, table, evaluated, join.query_ids))
            tick()
    finally:
        close_progress()
    text = io.StringIO() if args.output is not None else out
    for run, table, evaluated, topics in tables:
        if len(tables) > 1:
            print(f"# {run}", file=text)
        _write_table_report(
            text,
            table,
            topics,
            evaluated,
            per_topic=args.per_query,
            summary=not args.no_summary,
        )
    if args.output is not None:
        assert isinstance(text, io.StringIO)
        atomic_write_text(args.output, text.getvalue())
    return 0


def _run_preferences_or_groups(args: argparse.Namespace, out: TextIO) -> int:
    """``-R prefs`` / ``-R qrels_prefs``: trec_eval's preference measures
    (:mod:`ragmeter.ranking.prefs`); ``-R qrels_jg``: its judgment-group measures
    (:mod:`ragmeter.ranking.judgment_groups`); printed as trec_eval prints them."""
    # Imported here, for these judgments only: ~5 ms at import (numpy code, 8 dataclasses).
    from ..ranking.judgment_groups import (
        evaluate_judgment_groups,
        jg_lines,
        jg_measures,
        read_qrels_jg,
    )
    from ..ranking.prefs import evaluate_prefs, prefs_lines, prefs_measure_names, read_prefs

    groups = args.rel_format == "qrels_jg"
    # -J, -l and -N are read and, with preferences, change nothing: trec_eval's preference
    # measures (form_prefs_counts.c, m_prefs_*.c) read none of them, so its output is the same
    # with or without them; the judgment-group measures read -J and -l.
    unsupported = [
        flag
        for flag, given in (
            ("-Z", args.zscores is not None),
            (f"--format {args.format}", args.format != "trec"),
            ("--dask", args.dask is not None),
            ("--missing skip", args.missing == "skip"),
        )
        if given
    ]
    if unsupported:
        raise InvalidInputError(
            f"-R {args.rel_format}: {', '.join(unsupported)} not supported with these "
            "judgments (trec_eval's -q, -n, -c, -M, -m, -l, -N and -J are)"
        )
    complete = args.complete or args.missing == "zero"
    text = io.StringIO() if args.output is not None else out
    if groups:
        jg_chosen = jg_measures(args.metrics or ["qrels_jg"])
        jg_judgments = read_qrels_jg(args.qrels)
    else:
        chosen = prefs_measure_names(args.metrics or ["prefs"])
        judgments = read_prefs(args.qrels, args.rel_format)
    for run_path in args.runs:
        run = read_trec_run(run_path, n_threads=args.threads)
        tag = _run_tag(run_path)
        if groups:
            lines = jg_lines(
                evaluate_judgment_groups(
                    jg_judgments,
                    run,
                    jg_chosen,
                    run_tag=tag,
                    relevance_level=int(args.relevance_threshold),
                    max_docs=args.max_docs,
                    judged_only=args.judged_docs_only,
                    complete=complete,
                ),
                per_topic=args.per_query,
                summary=not args.no_summary,
            )
        else:
            lines = prefs_lines(
                evaluate_prefs(
                    judgments, run, chosen, run_tag=tag, max_docs=args.max_docs, complete=complete
                ),
                per_topic=args.per_query,
                summary=not args.no_summary,
            )
        if len(args.runs) > 1:
            print(f"# {run_path}", file=text)
        for line in lines:
            print(line, file=text)
    if args.output is not None:
        assert isinstance(text, io.StringIO)
        atomic_write_text(args.output, text.getvalue())
    return 0


def _run_tag(path: Path) -> str:
    """The tag of a TREC run's last line (trec_eval's runid)."""
    lines = read_regular_text(path, "run", "runs").split("\n")
    for line in reversed(lines):
        fields = trec_fields(line)
        if len(fields) == 6:
            return fields[5]
    return ""


def _write_text(
    args: argparse.Namespace,
    report: dict[str, tuple[Any, QueryValues | None]],
    measures: list[Measure],
    out: TextIO,
) -> None:
    if args.format == "trec":
        for run, (means, values) in report.items():
            if len(report) > 1:
                print(f"# {run}", file=out)
            if args.zscores is not None:
                for line in _zscore_lines(measures, means, _per_query(values), args):
                    print(line, file=out)
            else:
                assert values is not None
                _write_trec_report(
                    out,
                    measures,
                    means,
                    values,
                    per_topic=args.per_query,
                    summary=not args.no_summary,
                )
        return
    by_query = _with_per_query(report)
    if args.format == "json":
        from ..ranking.metric_results import RunEvaluations

        # The saved form of ranking evaluations (MetricResults.read reads a run back).
        saved = RunEvaluations(
            {run: means for run, (means, _) in by_query.items()},
            {run: per_query for run, (_, per_query) in by_query.items() if per_query is not None},
        )
        out.write(render_report(saved, "json"))
        out.write("\n")
    elif args.format in ("csv", "jsonl"):
        from ..io._results import result_rows, write_csv, write_jsonl

        rows = result_rows(by_query, measures, summary=not args.no_summary)
        (write_csv if args.format == "csv" else write_jsonl)(rows, out)
    else:
        _print_tables(by_query, measures, out, summary=not args.no_summary)


def _print_tables(
    report: dict[str, tuple[Any, Any]], measures: list[Measure], out: TextIO, *, summary: bool
) -> None:
    summarised = [m for m in measures if m.family.summary != "none"]
    runs = list(report)
    if summary:
        width = max([len("queries"), *(len(m.name) for m in summarised)])
        print(f"{'metric':<{width}}  " + "  ".join(f"{Path(r).name:>12}" for r in runs), file=out)
        for m in summarised:
            row = "  ".join(f"{_table_value(m, report[r][0][m.name]):>12}" for r in runs)
            print(f"{m.name:<{width}}  {row}", file=out)
        counts = "  ".join(f"{len(report[r][0].query_ids):>12}" for r in runs)
        print(f"{'queries':<{width}}  {counts}", file=out)
    for run, (means, per_query) in report.items():
        if per_query is None:
            continue
        columns = [m for m in measures if m.family.per_query]
        ids = sorted(means.query_ids, key=lambda q: str(q).encode("utf-8", "surrogatepass"))
        width = max([len("query"), *(len(str(q)) for q in ids)])
        print(f"\n# {run}" if summary or len(report) > 1 else f"# {run}", file=out)
        widths = [max(len(m.name), 8) for m in columns]
        header = "  ".join(f"{m.name:>{w}}" for m, w in zip(columns, widths, strict=True))
        print(f"{'query':<{width}}  {header}", file=out)
        for q in ids:
            cells = "  ".join(
                f"{_table_value(m, per_query[m.name][q]):>{w}}"
                for m, w in zip(columns, widths, strict=True)
            )
            print(f"{q!s:<{width}}  {cells}", file=out)


def _table_value(measure: Measure, value: Any) -> str:
    if isinstance(value, str):
        return value
    if measure.family.value_type == "int":
        return str(int(value))
    return "nan" if math.isnan(value) else f"{float(value):.4f}"
