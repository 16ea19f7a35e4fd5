"""The ``ragmeter`` command.

``ragmeter evaluate QRELS RUN [RUN ...]`` evaluates TREC run files the way trec_eval does
(``-c``, ``-M``, ``-l`` and ``-q`` mean what they mean there), entirely in the Rust core, and
prints trec_eval's three-column format, a table, or JSON. ``ragmeter demo`` runs the bundled
example offline.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import sys
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from . import __version__
from ._progress import progress_hook
from .exceptions import RagmeterError, UndefinedMetricWarning

__all__ = ["main"]


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragmeter", description="Measure retrieval and RAG systems."
    )
    parser.add_argument("--version", action="version", version=f"ragmeter {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="evaluate the bundled example (no network, no API key)")
    demo.add_argument(
        "--output",
        type=Path,
        default=Path("demo-output"),
        help="where the demo writes its reports and plots (default: ./demo-output)",
    )

    ev = sub.add_parser(
        "evaluate",
        help="evaluate TREC run files against a qrels file (trec_eval semantics)",
        description="Evaluate run files against a qrels file: TREC files, or JSON objects "
        "(files ending in .json, as pytrec_eval and ranx store them). Judged topics are "
        "evaluated; run topics without judgments are ignored and counted.",
    )
    ev.add_argument(
        "qrels",
        type=Path,
        help="qrels file: query_id iteration doc_id grade, or a .json {query_id: {doc_id: grade}}",
    )
    ev.add_argument(
        "runs",
        type=Path,
        nargs="+",
        help="run files: query_id Q0 doc_id rank score tag, or .json {query_id: {doc_id: score}}",
    )
    ev.add_argument(
        "-m",
        "--metric",
        action="append",
        dest="metrics",
        help="metric (repeatable): ndcg@10, map, recall@100, mrr, P_5, ... "
        "(default: trec_eval's test set)",
    )
    ev.add_argument("-q", "--per-query", action="store_true", help="also print per-topic values")
    ev.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="score judged topics missing from a run as empty rankings (trec_eval -c)",
    )
    ev.add_argument(
        "-M", "--max-docs", type=int, default=None, help="keep the first N documents (trec_eval -M)"
    )
    ev.add_argument(
        "-l",
        "--relevance-threshold",
        type=float,
        default=1,
        help="grade from which a document is relevant (trec_eval -l; default 1)",
    )
    ev.add_argument(
        "--missing",
        choices=("raise", "zero", "skip"),
        default=None,
        help="judged topics missing from a run: raise (default), zero (= -c) or skip",
    )
    ev.add_argument(
        "--format",
        choices=("trec", "table", "json"),
        default="trec",
        help="trec_eval's three columns, an aligned table, or JSON",
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
    return parser


def _evaluate_one(qrels: str, run: str, *, per_query: bool, **options: Any) -> tuple[Any, Any]:
    """``(means, per-query values or None)`` of one run (also a Dask task). Two TREC files go
    through the native path of ``evaluate_trec``; a ``.json`` file on either side through
    ``ranking_metrics``, with the same semantics."""
    from .io._json import evaluate_files, is_json_path
    from .io.trec import evaluate_trec, trec_means_and_per_query

    if is_json_path(qrels) or is_json_path(run):
        return evaluate_files(qrels, run, per_query=per_query, **options)
    if per_query:
        return trec_means_and_per_query(qrels, run, **options)
    return evaluate_trec(qrels, run, **options), None


def _run_all(
    args: argparse.Namespace, options: dict[str, Any]
) -> Iterator[tuple[str, tuple[Any, Any], list[str]]]:
    """``(run, (means, per-query values or None), warning messages)`` for every run, here or
    on the Dask cluster of ``--dask``."""
    function = functools.partial(_evaluate_one, per_query=args.per_query)
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
    from ._optional import import_optional
    from .distributed import RunFailure, map_runs

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


def _value(x: float) -> str:
    return "nan" if math.isnan(x) else f"{x:.4f}"


def _evaluate(args: argparse.Namespace, out: TextIO) -> int:
    from .io.trec import TREC_DEFAULT_METRICS

    metrics = args.metrics or list(TREC_DEFAULT_METRICS)
    options = {
        "metrics": metrics,
        "complete": args.complete,
        "max_docs": args.max_docs,
        "missing": args.missing,
        "relevance_threshold": args.relevance_threshold,
        "n_threads": args.threads,
    }
    report = {}
    for run, (means, per_query), messages in _run_all(args, options):
        for message in dict.fromkeys(messages):
            print(f"ragmeter: {run}: {message}", file=sys.stderr)
        if means.unjudged:
            print(
                f"ragmeter: {run}: {len(means.unjudged)} run topics without judgments were ignored",
                file=sys.stderr,
            )
        report[str(run)] = (means, per_query)

    if args.format == "json":
        payload = {
            run: {
                "means": {m: (None if math.isnan(v) else float(v)) for m, v in means.items()},
                "n_queries": {m: v.n_queries for m, v in means.items()},
                "missing_from_run": means.missing_from_run,
                "unjudged": means.unjudged,
                **({"per_query": per_query} if per_query is not None else {}),
            }
            for run, (means, per_query) in report.items()
        }
        json.dump(payload, out, indent=2, allow_nan=False, default=_json_default)
        out.write("\n")
    elif args.format == "table":
        width = max(len(m) for m in metrics)
        names = list(report)
        print(f"{'metric':<{width}}  " + "  ".join(f"{Path(n).name:>12}" for n in names), file=out)
        for m in metrics:
            row = "  ".join(f"{_value(report[n][0][m]):>12}" for n in names)
            print(f"{m:<{width}}  {row}", file=out)
        queries = {n: report[n][0][metrics[0]].n_queries for n in names}
        print(f"{'queries':<{width}}  " + "  ".join(f"{queries[n]:>12}" for n in names), file=out)
    else:
        for run, (means, per_query) in report.items():
            if len(report) > 1:
                print(f"# {run}", file=out)
            if per_query is not None:
                # trec_eval -q order: every measure of a topic, topic by topic, then "all".
                for qid in means.query_ids:
                    for m in metrics:
                        if qid in per_query[m]:
                            print(f"{m:<22}\t{qid}\t{_value(per_query[m][qid])}", file=out)
            for m in metrics:
                print(f"{m:<22}\tall\t{_value(means[m])}", file=out)
    return 0


def _json_default(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return None
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def main(argv: Sequence[str] | None = None) -> int:
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "demo":
            from .demo import run_demo

            return run_demo(sys.stdout, args.output)
        if args.command == "evaluate":
            return _evaluate(args, sys.stdout)
    except (RagmeterError, ValueError, TypeError, OSError) as exc:
        print(f"ragmeter: error: {exc}", file=sys.stderr)
        return 2
    return 2
