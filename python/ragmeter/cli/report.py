"""``ragmeter report``: one self-contained HTML file from saved results (nothing re-run)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from ..html_report import report

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """The ``report`` subcommand's options."""
    parser = sub.add_parser(
        "report",
        help="build one offline HTML report from saved results",
        description=(
            "Build one self-contained HTML file (no network needed to view it, opens from disk) "
            "from saved results: comparisons (`ragmeter compare --format json`), evaluations "
            "with per-query values (`ragmeter evaluate -q --format json`, MetricResults.write, "
            "RetrievalEvaluation.write), judge results (JudgeResults.write or to_jsonl), nugget "
            "banks and assignments (`ragmeter nuggets create|assign`: per topic the nuggets, "
            "their importance and each answer's labels with the judge's reasons), "
            "each read back as ragmeter reads its saved results (an edited or damaged file is "
            "refused), and files of per-item values: tables and other harnesses' result files "
            "(Inspect .eval logs, DeepEval, lm-eval, promptfoo, MLflow, TruLens, OpenAI Evals). "
            "Nothing is evaluated again; the same inputs give the same bytes."
        ),
    )
    parser.add_argument(
        "results", nargs="+", type=Path, help="saved result files, or files of per-item values"
    )
    parser.add_argument(
        "-o", "--output", type=Path, required=True, help="the HTML file to write (atomically)"
    )
    parser.add_argument(
        "--baseline",
        help="the system the per-query differences are taken from (default: the comparison's "
        "baseline, else each input's first system)",
    )
    parser.add_argument(
        "--metric",
        help="the metric the systems are sorted by and the first screen's groups and pairs "
        "matrix are of (default: a comparison's first metric)",
    )
    parser.add_argument(
        "--battles",
        action="append",
        type=Path,
        default=None,
        metavar="FILE",
        help="a file of pairwise preferences (FastChat's model_a, model_b, winner; "
        "repeatable): a section of Bradley-Terry ratings with rating and rank intervals",
    )
    parser.add_argument("--title", default="ragmeter report", help="the page's title")
    parser.add_argument(
        "--timestamp", help="a time to print in the manifest (none by default: same bytes)"
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Write the report; say where on stderr."""
    report(
        *args.results,
        output=args.output,
        baseline=args.baseline,
        title=args.title,
        timestamp=args.timestamp,
        metric=args.metric,
        battles=args.battles,
    )
    print(f"ragmeter: wrote {args.output}", file=sys.stderr)
    return 0
