"""``ragmeter gate --baseline BASE --candidate CAND -m METRIC --margin X``: a quality gate for CI.

BASE and CAND are run files (with ``--qrels``: both are evaluated as ``ragmeter evaluate``
evaluates them, per query) or saved per-query results (the JSON of ``ragmeter evaluate -q
--format json``, a ``RetrievalEvaluation`` or judges' report, the judges' JSONL rows, a gate
baseline, checked field by field, CSV/TSV/Parquet tables;
:func:`ragmeter.gate.read_gate_input`). The decision is :func:`ragmeter.gate.gate`'s. Exit
status: 0 when every check passes, 1 when one fails, 2 for a usage or input error (never a
pass, never a traceback): a file that cannot be read as per-query results, an option given
twice for one metric (``--margin-for m=0.01 --margin-for m=0.5``). One verdict line per
check goes to stderr; the report (text, Markdown for a CI step summary, or JSON) to stdout,
and JUnit XML to ``--junit FILE``; names from the input are escaped in each (they cannot
forge a line).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from ..exceptions import InvalidInputError, RagmeterError
from ..gate import GateOptions, GateValues, gate, gate_tests, gate_values, read_gate_input
from ..gate.results import plain_text
from ..reports import atomic_write_text
from ..stats.multiple import CORRECTIONS
from ._clusters import add_clusters_option, resolved_choice

__all__ = ["FORMATS", "add_parser", "run"]

FORMATS = ("text", "markdown", "json")


def add_parser(sub: Any) -> None:
    """Add the ``gate`` subcommand and its options.

    Parameters
    ----------
    sub
        The subparsers of the ``ragmeter`` command.
    """
    parser = sub.add_parser(
        "gate",
        help="fail CI when a candidate is worse than the baseline by more than a margin "
        "(paired one-sided tests on the same queries), or below a floor",
        description="Test a candidate against a baseline on the same queries: the check of a "
        "metric passes when a one-sided paired test shows the candidate is not worse by the "
        "margin or more (non-inferiority), or better by more than it (--superiority); "
        "--floor checks a mean against a value. Exit status 0: every check passed; 1: a check "
        "failed (the candidate is worse, or there is not enough evidence); 2: usage or input "
        "error.",
    )
    parser.add_argument(
        "--baseline", type=Path, required=True, help="the baseline: a run file or saved results"
    )
    parser.add_argument(
        "--candidate", type=Path, required=True, help="the candidate: a run file or saved results"
    )
    parser.add_argument(
        "--qrels",
        type=Path,
        default=None,
        help="judgments: BASE and CAND are then run files, evaluated per query",
    )
    parser.add_argument(
        "-m",
        "--metric",
        dest="metrics",
        action="append",
        default=None,
        help="metric to compare (repeatable), as the results name it (ndcg@10, ndcg_cut_10, "
        "a judge metric); with --qrels, any measure name `ragmeter evaluate` reads",
    )
    parser.add_argument(
        "--margin",
        type=float,
        default=None,
        help="the largest drop accepted, in the metric's unit (0.01); with --superiority the "
        "gain to exceed (default 0)",
    )
    parser.add_argument(
        "--margin-for",
        action="append",
        default=[],
        metavar="METRIC=VALUE",
        help="the margin of one metric (repeatable), overriding --margin",
    )
    parser.add_argument(
        "--floor",
        action="append",
        default=[],
        metavar="METRIC=VALUE",
        help="also check that the candidate's mean is shown above VALUE (repeatable)",
    )
    parser.add_argument(
        "--superiority",
        action="store_true",
        help="pass only when the candidate is shown better than the baseline by more than the "
        "margin",
    )
    parser.add_argument(
        "--test",
        choices=tuple(gate_tests()),
        default=None,
        help="the one-sided paired test: t (the default; cluster-t with --clusters), sign-flip "
        "(randomisation, exact up to 16 queries), wilcoxon or bootstrap (at least 20 queries)",
    )
    add_clusters_option(parser)
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="level of every check (default 0.05)"
    )
    parser.add_argument(
        "--correction",
        choices=(*CORRECTIONS, "none"),
        default="holm",
        help="correction over the checks: holm (the default), bonferroni, bh or none",
    )
    parser.add_argument(
        "--missing",
        choices=("raise", "skip"),
        default="raise",
        help="queries only one side has: raise (refuse, the default) or skip (test on the "
        "shared queries and list the others)",
    )
    parser.add_argument(
        "--power",
        type=float,
        default=0.8,
        help="the power of the 'queries needed' figure (default 0.8)",
    )
    parser.add_argument(
        "--resamples", type=int, default=9999, help="sign vectors of the sampled sign-flip test"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the sampled test (0)")
    parser.add_argument(
        "--duplicates",
        choices=("raise", "first"),
        default="raise",
        help="with --qrels: a document a run lists twice for one query: an error (raise, the "
        "default, as trec_eval) or keep its best-scored line (first)",
    )
    parser.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="with --qrels: score judged queries a run lacks as empty rankings (trec_eval -c)",
    )
    parser.add_argument(
        "-l",
        "--relevance-threshold",
        type=int,
        default=None,
        help="with --qrels: grade from which a document is relevant (trec_eval -l)",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text (the default), markdown (for $GITHUB_STEP_SUMMARY) or json",
    )
    parser.add_argument(
        "--junit", type=Path, default=None, help="also write JUnit XML to this file"
    )


def _assignments(texts: list[str], flag: str) -> dict[str, float]:
    """``METRIC=VALUE`` options by the measure names the results use; a metric given twice
    (under any of its names: ``ndcg_cut.10`` is ``ndcg_cut_10``) is refused, whatever its
    values (the later one would silently win)."""
    values: dict[str, float] = {}
    given: dict[str, str] = {}
    for text in texts:
        metric, sep, number = text.rpartition("=")
        if not sep or not metric:
            raise InvalidInputError(f"{flag}: expected METRIC=VALUE, got {text!r}")
        try:
            value = float(number)
        except ValueError:
            raise InvalidInputError(
                f"{flag} {text!r}: {number!r} is not a number (METRIC=VALUE, as {metric!r}=0.01)"
            ) from None
        for name in _measure_names(metric):
            if name in values:
                raise InvalidInputError(
                    f"{flag}: {name!r} is given twice ({given[name]!r} and {text!r}); give "
                    "each metric once"
                )
            values[name] = value
            given[name] = text
    return values


def _metric_names(texts: list[str]) -> list[str]:
    """The metrics of ``-m`` by the names the results use; one given twice is refused."""
    names: list[str] = []
    for text in texts:
        for name in _measure_names(text):
            if name in names:
                raise InvalidInputError(f"-m: {name!r} is given twice; give each metric once")
            names.append(name)
    return names


def _read(path: Path, name: str) -> GateValues:
    """One side's values from a file. A parser's unexpected exception on a hostile file (a
    field of a type no writer produces) is an input error too: the command exits 2 with it,
    never with a traceback, and never 1 (which says the candidate failed)."""
    try:
        return read_gate_input(path, name)
    except (RagmeterError, OSError):
        raise
    except (AttributeError, KeyError, IndexError, TypeError, ValueError, RecursionError) as exc:
        raise InvalidInputError(
            f"{plain_text(str(path))}: cannot be read as per-query results: "
            f"{type(exc).__name__}: {plain_text(str(exc))}"
        ) from None


def _measure_names(text: str) -> list[str]:
    """The keys the results of ``-m TEXT`` have: trec_eval's ``ndcg_cut.10`` is
    ``ndcg_cut_10`` and ``P.5,10`` is ``P_5`` and ``P_10``, as ``ragmeter evaluate`` names
    them; a name that is no ranking measure (a judge metric) is kept as given."""
    from ..ranking.names import parse_measures

    try:
        return [m.name for m in parse_measures(text)]
    except (ValueError, TypeError):
        return [text]


def _evaluated(args: argparse.Namespace, path: Path, metrics: list[str], name: str) -> GateValues:
    from ..io import means_and_per_query

    options: dict[str, Any] = {
        "metrics": metrics,
        "complete": args.complete,
        "zero_division": "trec_eval",
        "duplicates": args.duplicates,
    }
    if args.missing == "skip" and not args.complete:
        # A judged query the run lacks is then a query only one side has: left out and listed.
        options["missing"] = "skip"
    if args.relevance_threshold is not None:
        options["relevance_threshold"] = args.relevance_threshold
    _, per_query = means_and_per_query(str(args.qrels), str(path), **options)
    return gate_values(per_query, name, where=str(path))


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run the gate of ``args``; print the report and the verdicts.

    Parameters
    ----------
    args
        The parsed options.
    out
        Where the report goes (the verdict lines go to stderr).

    Returns
    -------
    int
        0 when the gate passed, 1 when it failed.

    Raises
    ------
    InvalidInputError
        Bad options or input (the command prints it and exits with status 2).
    """
    margins = _assignments(args.margin_for, "--margin-for")
    floors = _assignments(args.floor, "--floor")
    named = _metric_names(args.metrics or [])
    metrics = list(dict.fromkeys([*named, *margins]))
    if not metrics and not floors:
        raise InvalidInputError(
            "-m: name the metrics to gate (-m ndcg@10 --margin 0.01), or give --floor METRIC=VALUE"
        )
    if metrics and args.margin is None and not args.superiority:
        lacking = [m for m in metrics if m not in margins]
        if lacking:
            raise InvalidInputError(
                f"--margin: give the largest drop you accept for {', '.join(lacking)}, in the "
                "metric's unit (--margin 0.01, or --margin-for METRIC=VALUE)"
            )
    options = GateOptions(
        test=resolved_choice(args, "t"),
        alpha=args.alpha,
        correction=None if args.correction == "none" else args.correction,
        power=args.power,
        missing=args.missing,
        n_resamples=args.resamples,
        random_state=args.seed,
    )
    names = {"baseline": args.baseline.stem, "candidate": args.candidate.stem}
    if names["baseline"] == names["candidate"]:
        names = {"baseline": str(args.baseline), "candidate": str(args.candidate)}
    if args.qrels is not None:
        wanted = list(dict.fromkeys([*metrics, *floors]))
        baseline = _evaluated(args, args.baseline, wanted, names["baseline"])
        candidate = _evaluated(args, args.candidate, wanted, names["candidate"])
    else:
        baseline = _read(args.baseline, names["baseline"])
        candidate = _read(args.candidate, names["candidate"])
    result = gate(
        candidate,
        baseline if metrics else None,
        metrics=metrics or None,
        margin=args.margin,
        margins=margins or None,
        superiority=args.superiority,
        floors=floors or None,
        options=options,
        clusters=args.clusters,
    )
    for line in result.verdict_lines():
        print(line, file=sys.stderr)
    if args.junit is not None:
        atomic_write_text(args.junit, result.to_junit())
    if args.format == "markdown":
        out.write(result.to_markdown())
    elif args.format == "json":
        out.write(result.to_json() + "\n")
    else:
        out.write(result.to_text())
    return 0 if result.passed else 1
