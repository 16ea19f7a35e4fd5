"""TREC run and qrels files, parsed and evaluated in the Rust core.

A qrels line is ``query_id iteration doc_id grade``; a run line is
``query_id Q0 doc_id rank score run_tag``. Files compressed with gzip, bzip2, xz or zstd
(recognised by their first bytes, whatever their name) are decompressed by the Rust core as
they are read. Fields are separated by white space, a line whose
first non-blank character is ``#`` is a comment (a ``#`` inside an id belongs to the id), and
the rank column is ignored: documents are ordered by score, ties by doc id byte-wise
descending, as trec_eval orders them. A document listed twice for one query is an error
(trec_eval's "duplicate docs"), with the file name and line.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

from .. import _core
from .._files import (
    file_errors,
    input_file_error,
    path_argument,
    read_regular_text,
    trec_fields,
)
from .._inputs import absent_queries, preview_ids
from ..exceptions import InputTypeError, InvalidInputError, TrecFormatError
from ..options import Duplicates, EvaluationOptions, Missing, ZeroDivision, check_choice, shorten
from ..ranking.columns import (
    built_columns,
    check_judgment_form,
    column_args,
    evaluated_measures,
    needs_all_judged,
    needs_ties,
)
from ..ranking.names import Measure, measures_of
from ._formats import compression_of
from ._trec_writer import write_trec_run

if TYPE_CHECKING:
    from ..ranking.evaluation import QueryValues
    from ..ranking.metric_results import MetricResults

__all__ = [
    "TREC_DEFAULT_METRICS",
    "evaluate_trec",
    "read_trec_qrels",
    "read_trec_run",
    "set_max_decompressed_bytes",
    "trec_means_and_per_query",
    "trec_values",
    "write_trec_run",
]

#: The measures trec_eval's test suite checks, in ragmeter's names.
TREC_DEFAULT_METRICS = (
    "map",
    "precision@5",
    "precision@10",
    "mrr",
    "r_precision",
    "recall@100",
    "ndcg",
    "ndcg@10",
    "hit_rate@1",
    "hit_rate@5",
    "hit_rate@10",
)

PathLike = str | os.PathLike[str]


#: The decompressed-size limit of a compressed TREC file unless raised: 16 GiB.
DEFAULT_MAX_DECOMPRESSED_BYTES = 16 << 30


def set_max_decompressed_bytes(limit: int | None) -> int:
    """Set the most bytes a compressed TREC, CSV or TSV file (``.gz``, ``.bz2``, ``.xz``,
    ``.zst``) may decompress to, for the whole process, and return the limit that applied before.

    A file that decompresses to more is refused with an
    :class:`~ragmeter.InvalidInputError` naming the file and the limit, after reading at most
    that many bytes: a guard against compression bombs (a 1 MB ``.gz`` can expand to gigabytes),
    as ``PIL.Image.MAX_IMAGE_PIXELS`` guards against image bombs. ``None`` goes back to the
    environment variable ``RAGMETER_MAX_DECOMPRESSED_BYTES``, if set, else to
    :data:`DEFAULT_MAX_DECOMPRESSED_BYTES` (16 GiB).

    >>> previous = set_max_decompressed_bytes(1 << 40)
    >>> previous == DEFAULT_MAX_DECOMPRESSED_BYTES
    True
    >>> set_max_decompressed_bytes(None)
    1099511627776
    """
    if limit is not None and (
        isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit < 1 << 64
    ):
        raise InvalidInputError(
            f"limit: must be a positive number of bytes (an int below 2**64) or None, got "
            f"{shorten(limit)}"
        )
    return _core.max_decompressed_bytes(0 if limit is None else limit)


def read_trec_qrels(
    path: PathLike, *, subtopics: bool = False, n_threads: int | None = None
) -> dict[str, dict[str, Any]]:
    """Read a qrels file into ``{query_id: {doc_id: grade}}`` (ints when written as integers).

    With ``subtopics=True`` the file holds diversity judgments, as ndeval and ir_measures read
    them: the second column (trec_eval's ignored "iteration") is the subtopic, and the result
    is ``{query_id: {doc_id: {subtopic: grade}}}``, what the diversity measures
    (``alpha_ndcg@k``, ``err_ia@k``, ...) read.

    Parameters
    ----------
    path
        A qrels file: ``query_id iteration doc_id grade`` per line (``query_id subtopic doc_id
        grade`` with ``subtopics``); plain text, or compressed (gzip, bzip2, xz, zstd) without
        ``subtopics``.
    subtopics
        Read the second column as the subtopic (diversity judgments).
    n_threads
        Threads of the Rust core (None: all).

    Returns
    -------
    dict
        ``{query_id: {doc_id: grade}}``, or ``{query_id: {doc_id: {subtopic: grade}}}``.

    Raises
    ------
    TrecFormatError
        A ``ValueError`` with ``path:line`` for a malformed line, or a document judged twice
        for one query (for one subtopic of one query, with ``subtopics``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "div.qrels"
    >>> _ = path.write_text("q1 1 d1 1\\nq1 2 d1 1\\nq1 2 d2 0\\n")
    >>> read_trec_qrels(path, subtopics=True)
    {'q1': {'d1': {'1': 1, '2': 1}, 'd2': {'2': 0}}}
    """
    name = path_argument(path, "path")
    if not isinstance(subtopics, bool):
        raise InputTypeError(f"subtopics: must be True or False, got {subtopics!r}")
    if subtopics:
        return _read_subtopic_qrels(name)
    with file_errors("path"):
        return _core.read_trec(name, "qrels", n_threads=n_threads)


def _read_subtopic_qrels(
    path: PathLike, argument: str = "path"
) -> dict[str, dict[str, dict[str, int | float]]]:
    """Diversity qrels ``query_id subtopic doc_id grade`` (ndeval's format) as nested dicts."""
    name = path_argument(path, argument)
    with file_errors(argument):
        regular = stat.S_ISREG(os.stat(name).st_mode)
        if regular:
            # Only a regular file is opened here: opening a FIFO would wait for a writer.
            with open(name, "rb") as file:
                head = file.read(8)
    compression = compression_of(head) if regular else None
    if compression is not None:
        raise TrecFormatError(
            f"{name}: a {compression}-compressed file; diversity qrels are read as plain "
            f"text: decompress it first"
        )
    text = read_regular_text(name, "a qrels file", argument)
    qrels: dict[str, dict[str, dict[str, int | float]]] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        fields = trec_fields(line)
        if not fields:
            continue
        if len(fields) != 4:
            raise TrecFormatError(
                f"{name}:{number}: expected 4 columns (query_id subtopic doc_id grade), got "
                f"{len(fields)}: {shorten(line)}"
            )
        query, subtopic, doc, text_grade = fields
        grade = _grade(text_grade)
        if grade is None:
            raise TrecFormatError(
                f"{name}:{number}: the grade {shorten(text_grade)} is not a finite number: "
                f"{shorten(line)}"
            )
        by_subtopic = qrels.setdefault(query, {}).setdefault(doc, {})
        if subtopic in by_subtopic:
            raise TrecFormatError(
                f"{name}:{number}: document {doc!r} is judged twice for subtopic "
                f"{subtopic!r} of query {query!r}: {shorten(line)}"
            )
        by_subtopic[subtopic] = grade
    return qrels


def _grade(text: str) -> int | float | None:
    """A grade as written: an int, else a finite float; None if it is neither."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def read_trec_run(path: PathLike, *, n_threads: int | None = None) -> dict[str, dict[str, float]]:
    """Read a run file into ``{query_id: {doc_id: score}}``, ready for the ranking metrics.

    The rank column is ignored (the metrics order by score, as trec_eval does). Raises
    :class:`~ragmeter.TrecFormatError` with ``path:line`` for a malformed line or a document
    listed twice for one query.
    """
    name = path_argument(path, "path")
    with file_errors("path"):
        return _core.read_trec(name, "run", n_threads=n_threads)


def evaluate_trec(
    qrels_path: PathLike,
    run_path: PathLike,
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
) -> MetricResults:
    """Evaluate a TREC run file against a qrels file, entirely in the Rust core.

    Parsing, ordering and scoring never create a Python object per line. As in trec_eval 10,
    the judged topics are evaluated (in trec_eval's order: query ids sorted byte-wise) and run
    topics without judgments are ignored (their ids are in the result's ``unjudged``
    attribute).

    Parameters
    ----------
    metrics
        Any measure names: ragmeter's (``"ndcg@10"``), trec_eval's (``"ndcg_cut_10"``,
        ``"P.5,10"``, ``"bpref"``, ``"all_trec"``, ``"official"``), ir_measures' or ranx's.
    per_query
        False: ``{metric: value over queries}``. True: ``{metric: {query_id: value}}``.
    complete
        trec_eval ``-c``: a judged topic missing from the run is scored as an empty ranking and
        counted in the mean (the same as ``missing="zero"``).
    max_docs
        trec_eval ``-M``: keep the first ``max_docs`` documents of each ranking after ordering.
    missing
        What to do with judged topics missing from the run when ``complete`` is False:
        ``"raise"`` (the default; trec_eval 10 stops too), ``"zero"`` or ``"skip"`` (average
        over the topics the run has, as trec_eval 9 did).
    judged_docs_only
        trec_eval ``-J``: documents without a judgment are removed from the rankings.
    collection_size
        trec_eval ``-N``: documents in the collection, for ``utility``.
    relevance_threshold, zero_division, duplicates, n_threads
        As in :func:`~ragmeter.ranking_metrics`.
    """
    values = trec_values(
        path_argument(qrels_path, "qrels_path"),
        path_argument(run_path, "run_path"),
        metrics=metrics,
        options=trec_options(
            complete=complete,
            missing=missing,
            max_docs=max_docs,
            relevance_threshold=relevance_threshold,
            zero_division=zero_division,
            duplicates=duplicates,
            judged_docs_only=judged_docs_only,
            collection_size=collection_size,
            n_threads=n_threads,
        ),
    )
    # Imported here: the summaries need numpy, which `trec_table` (the command) does without.
    from ..ranking.evaluation import summarize

    return summarize(
        values, average=None if per_query else "mean", producer="ragmeter.evaluate_trec"
    )


def trec_options(
    *, complete: bool = False, missing: str | None = None, **options: Any
) -> EvaluationOptions:
    """The options of a TREC evaluation: ``complete`` (trec_eval ``-c``) is
    ``missing="zero"``; without either, a judged topic missing from the run is an error."""
    if not isinstance(complete, bool):
        raise InputTypeError(f"complete: must be True or False, got {complete!r}")
    if missing is None:
        missing = "zero" if complete else "raise"
    else:
        check_choice("missing", missing, ("raise", "zero", "skip"))
        if complete and missing != "zero":
            raise InvalidInputError(
                f"complete=True (trec_eval -c) and missing={missing!r} say different things: "
                "give one of them"
            )
    return EvaluationOptions(missing=missing, **options)  # type: ignore[arg-type]


def trec_means_and_per_query(
    qrels_path: PathLike, run_path: PathLike, **options: Any
) -> tuple[MetricResults, MetricResults]:
    """Means and per-query values from one parse of the files (the command's ``-q``).

    ``options`` are those of :func:`evaluate_trec` but ``per_query``.
    """
    metrics = options.pop("metrics", TREC_DEFAULT_METRICS)
    from ..ranking.evaluation import summarize

    values = trec_values(qrels_path, run_path, metrics=metrics, options=trec_options(**options))
    means = summarize(values, average="mean", producer="ragmeter.evaluate_trec")
    per_query = summarize(values, average=None, producer="ragmeter.evaluate_trec")
    return means, per_query


class TrecJoin(NamedTuple):
    """A qrels file and a run file joined by the core: the judged topics' prepared rankings
    (rows in trec_eval's order), their ids, whether the run has each, the run's topics without
    judgments, and the run's tag."""

    prepared: _core.PreparedRankings
    query_ids: list[str]
    in_run: list[bool]
    run_only: list[str]
    tag: str | None


def trec_join(
    qrels_path: PathLike,
    run_path: PathLike,
    measures: list[Measure],
    options: EvaluationOptions,
    *,
    allow_empty: bool = False,
    arguments: tuple[str, str] = ("qrels_path", "run_path"),
) -> TrecJoin:
    """Join a qrels file and a run file for ``measures``, refusing judged topics missing from
    the run (``options.missing="raise"``) and, unless ``allow_empty``, a run without a judged
    topic to evaluate. ``arguments`` name the two paths in errors."""
    qrels_name = path_argument(qrels_path, arguments[0])
    run_name = path_argument(run_path, arguments[1])
    if any(m.family.subtopic_judgments for m in measures):
        join = TrecJoin(*_prepare_subtopic_trec(qrels_name, run_name, measures, options, arguments))
    else:
        try:
            join = TrecJoin(
                *_core.prepare_trec(
                    qrels_name,
                    run_name,
                    duplicates_first=options.duplicates == "first",
                    max_docs=options.max_docs,
                    all_judged=needs_all_judged(measures, options),
                    ties=needs_ties(measures, options),
                    n_threads=options.n_threads,
                )
            )
        except OSError as error:
            # Which file: the one the operating system names (the qrels are read first).
            argument = arguments[1] if error.filename == run_name else arguments[0]
            raise input_file_error(error, argument) from None
    missing_from_run = absent_queries(join.query_ids, join.in_run)
    if missing_from_run and options.missing == "raise":
        raise InvalidInputError(
            f"run: judged topics missing from the run {os.fspath(run_path)!r}: "
            f"{preview_ids(missing_from_run)}. "
            f"Pass complete=True to score them as empty rankings "
            f"(trec_eval -c), or missing='skip' to average over the topics the run has"
        )
    evaluated = any(join.in_run) if options.missing == "skip" else bool(join.query_ids)
    if not evaluated and not allow_empty:
        raise InvalidInputError(
            f"run: no judged topic of {os.fspath(qrels_path)!r} is in the run "
            f"{os.fspath(run_path)!r}; nothing to evaluate"
        )
    return join


def trec_values(
    qrels_path: PathLike,
    run_path: PathLike,
    *,
    metrics: Iterable[str] | str,
    options: EvaluationOptions,
    allow_empty: bool = False,
    arguments: tuple[str, str] = ("qrels_path", "run_path"),
) -> QueryValues:
    """Per-query values (NaN where undefined) of the judged topics, before ``zero_division``;
    with ``allow_empty``, no judged topic in the run gives no values rather than an error.
    ``arguments`` name the two paths in errors."""
    # Imported here: the values' matrix is numpy's, which `trec_table` does without.
    from ..ranking.evaluation import joined_values

    measures = measures_of(metrics)
    join = trec_join(
        qrels_path, run_path, measures, options, allow_empty=allow_empty, arguments=arguments
    )
    return joined_values(
        join.prepared,
        measures,
        options,
        query_ids=join.query_ids,
        in_run=join.in_run,
        run_only=join.run_only,
        run_tag=join.tag,
    )


def trec_table(
    qrels_path: PathLike,
    run_path: PathLike,
    measures: list[Measure],
    options: EvaluationOptions,
    *,
    arguments: tuple[str, str] = ("qrels", "run"),
) -> tuple[_core.ValueTable, list[Measure], TrecJoin]:
    """The per-query values of ``measures`` as a table held by the core, its measures (one per
    column: a group's ``runid`` is left out of a run without a tag) and the join; what
    :func:`trec_values` computes, without numpy (the ``ragmeter evaluate`` command prints the
    table with ``ValueTable.write_trec_report``). Every judged topic is a row: ``options.missing``
    is ``"raise"`` or ``"zero"`` (trec_eval ``-c``), and no measure reads diversity judgments."""
    if options.missing == "skip" or any(m.family.subtopic_judgments for m in measures):
        raise InvalidInputError(
            "trec_table: missing='skip' and diversity measures need trec_values"
        )
    join = trec_join(qrels_path, run_path, measures, options, arguments=arguments)
    measures = evaluated_measures(measures, join.tag)
    check_judgment_form(measures, join.prepared.has_subtopics)
    missing = [not present for present in join.in_run]
    table = join.prepared.evaluate_columns(
        built_columns(column_args(measures, options)),
        options.relevance_threshold,
        missing if options.missing == "zero" and any(missing) else None,
        options.missing == "zero",
        join.tag,
        options.n_threads,
    )
    return table, measures, join


def _prepare_subtopic_trec(
    qrels_path: PathLike,
    run_path: PathLike,
    measures: list[Measure],
    options: EvaluationOptions,
    arguments: tuple[str, str] = ("qrels_path", "run_path"),
) -> tuple[Any, list[str], list[bool], list[str], None]:
    """The prepared form of a run against diversity qrels (the second column read as the
    subtopic, as ndeval does), with trec_eval's topic order (query ids byte-wise) and rules
    (judged topics evaluated, run topics without judgments ignored)."""
    for measure in measures:
        if measure.family.name == "runid":
            raise InvalidInputError(
                "metrics: runid cannot be evaluated together with diversity measures (their "
                "qrels are read by subtopic); evaluate it in a separate call"
            )
    qrels = _read_subtopic_qrels(qrels_path, arguments[0])
    with file_errors(arguments[1]):
        run = _core.read_trec(os.fspath(run_path), "run", n_threads=options.n_threads)
    query_ids = sorted(qrels, key=lambda q: q.encode())
    in_run = [q in run for q in query_ids]
    run_only = sorted((q for q in run if q not in qrels), key=lambda q: q.encode())
    prepared = _core.prepare_rankings(
        query_ids,
        [qrels[q] for q in query_ids],
        [run.get(q, {}) for q in query_ids],
        duplicates_first=options.duplicates == "first",
        max_docs=options.max_docs,
        all_judged=needs_all_judged(measures, options),
        ties=needs_ties(measures, options),
        n_threads=options.n_threads,
    )
    return prepared, query_ids, in_run, run_only, None
