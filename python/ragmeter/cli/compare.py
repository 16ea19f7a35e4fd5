"""``ragmeter compare QRELS RUN RUN [RUN ...]``: which runs differ significantly, as a table.

Every run is evaluated as ``ragmeter evaluate`` evaluates it (the same files, TREC or JSON, the
same measures and flags: ``-m``, ``-c``, ``-M``, ``-l``, ``-J``, ``-N``, ``--missing``; these
options are ``evaluate``'s own definitions), per query, with trec_eval's values for undefined
measures; then the runs are compared pairwise on the same queries by
:func:`ragmeter.compare_many` (every pair, or every run against ``--baseline``), and the paper
table is printed as text, Markdown, LaTeX, CSV or JSON.

A run is named by its file name (``runs/bm25.txt`` is ``bm25.txt``), as ``ragmeter evaluate
--format table`` names it; two runs with the same file name in different directories are
named by their paths as given. The run tag (the sixth column of a TREC run) is the ``runid``
measure, not a name. ``--baseline`` takes the name, the path or the run tag.

With ``--values``, the files are not runs but per-item values, read through the file door
(:func:`ragmeter.io.read_systems`): saved results, tables of per-item values, and other
harnesses' result files (Inspect ``.eval`` logs, DeepEval test runs, lm-eval samples, promptfoo
output, MLflow results and traces, TruLens records, OpenAI Evals logs); no qrels is given, and
a file of several systems (promptfoo's providers) gives each of them.
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import sys
from pathlib import Path
from typing import Any, TextIO

from ..exceptions import InvalidInputError
from ..io import read_systems
from ..per_query import PerQueryResults, per_query_results
from ..plots import plot_metrics, plot_per_query
from ..ranking.evaluation import summarize
from ..ranking.names import Measure, parse_measures
from ..reports import render_report
from ..stats.comparison import UnpairedQueriesError, compare_many
from ..stats.multiple import CORRECTIONS
from ..stats.power import campaign_designs
from ..stats.registry import TESTS
from ._clusters import add_clusters_option, resolved_choice
from .evaluate import _run_all, _undefined_notes, command_measures, evaluation_options
from .evaluate import add_parser as add_evaluate_parser

__all__ = ["DEFAULT_MEASURES", "add_parser", "run"]

#: The measures compared when no ``-m`` is given (trec_eval's names).
DEFAULT_MEASURES = ("map", "P.10", "ndcg_cut.10")
#: ``evaluate``'s options that ``compare`` shares (by their destinations).
SHARED_OPTIONS = (
    "metrics",
    "complete",
    "max_docs",
    "relevance_threshold",
    "judged_docs_only",
    "collection_size",
    "missing",
    "duplicates",
    "threads",
    "progress",
    "dask",
)
FORMATS = ("table", "markdown", "latex", "csv", "json")


def _evaluate_options() -> list[argparse.Action]:
    """The actions of ``ragmeter evaluate`` that ``compare`` shares: one definition of each
    flag (its names, type, default and help). argparse can share options between parsers only
    by copying actions (``parents=`` copies every one, and evaluate's parser has options that
    make no sense here), so they are taken from evaluate's parser one by one."""
    holder = argparse.ArgumentParser(add_help=False)
    sub = holder.add_subparsers()
    add_evaluate_parser(sub)
    evaluate_parser = sub.choices["evaluate"]
    by_dest = {action.dest: action for action in evaluate_parser._actions}
    return [by_dest[dest] for dest in SHARED_OPTIONS]


def _test_choices() -> tuple[str, ...]:
    """``--test``'s choices: every test of the table and its aliases."""
    return tuple(name for spec in TESTS.values() for name in (spec.name, *spec.aliases))


def add_parser(sub: Any) -> None:
    """Add the ``compare`` subcommand and its options.

    Parameters
    ----------
    sub
        The subparsers of the ``ragmeter`` command.
    """
    parser = sub.add_parser(
        "compare",
        help="test which runs differ significantly (all pairs or against a baseline) and "
        "print the table: text, Markdown, LaTeX, CSV or JSON",
        description="Evaluate runs per query (as `ragmeter evaluate` does, with the same "
        "files and flags) and compare them pairwise on the same queries: every pair, or every "
        "run against --baseline, over several measures, with corrected p-values. Default "
        f"measures: {', '.join(DEFAULT_MEASURES)}.",
    )
    parser.add_argument(
        "qrels",
        type=Path,
        help="qrels file, in any format `ragmeter evaluate` reads (its --help lists them); "
        "with --values, the first file of values",
    )
    parser.add_argument(
        "runs",
        type=Path,
        nargs="+",
        help="two or more run files, in any format `ragmeter evaluate` reads",
    )
    for action in _evaluate_options():
        if action.dest == "metrics":
            # The same option with compare's default in its help.
            action = copy.copy(action)
            action.help = (
                "measure (repeatable), named as for `ragmeter evaluate` (trec_eval's, "
                "ragmeter's, ir_measures' or ranx's names; trec_eval's merge rule); default: "
                + ", ".join(DEFAULT_MEASURES)
            )
        parser._add_action(action)
    parser.add_argument(
        "--values",
        action="store_true",
        help="the files hold per-item values, not runs (no qrels): saved results, tables of "
        "per-item values, or other harnesses' result files (Inspect .eval logs, DeepEval test "
        "runs, lm-eval --log_samples JSONL, promptfoo output.json, MLflow results or traces, "
        "TruLens records, OpenAI Evals logs); a file of several systems gives each; -m names "
        "the metrics (default: every metric all systems have)",
    )
    parser.add_argument(
        "--cluster",
        default=None,
        metavar="FIELD",
        help="with --values, the field of a harness's item that names its cluster (Inspect "
        "sample metadata, promptfoo vars, lm-eval doc, ...); a table has a cluster column",
    )
    add_clusters_option(parser)
    parser.add_argument(
        "--baseline",
        default=None,
        help="compare every run with this one (its file, file name or run tag); default: "
        "every pair",
    )
    parser.add_argument(
        "--name",
        action="append",
        default=[],
        metavar="RUN=NAME",
        help="the name a run goes by in the tables, figures and saved report (repeatable): "
        "RUN is its file, file name or run tag, as for --baseline (--name bm25.run=BM25); "
        "default: the file name",
    )
    parser.add_argument(
        "--test",
        choices=_test_choices(),
        default=None,
        metavar="TEST",
        help="the significance test (default sign-flip; cluster-t with --clusters): "
        + "; ".join(spec.help_text() for spec in TESTS.values())
        + ". Aliases: "
        + ", ".join(f"{a} = {spec.name}" for spec in TESTS.values() for a in spec.aliases),
    )
    parser.add_argument(
        "--alternative",
        choices=("two-sided", "greater", "less"),
        default="two-sided",
        help="two-sided (the default), greater (each later run, or each run against "
        "--baseline, is better) or less, as scipy's alternative=; one-sided for the tests of "
        "paired differences (sign-flip, t, wilcoxon, bootstrap)",
    )
    parser.add_argument(
        "--correction",
        choices=(*CORRECTIONS, "none", "auto"),
        default="auto",
        help="p-value correction: holm (the default), bonferroni, bh (Benjamini-Hochberg) or "
        "none; tukey adjusts its own",
    )
    parser.add_argument(
        "--family",
        choices=("all", "metric"),
        default="all",
        help="what the correction adjusts over: every test (all, the default) or the pairs "
        "of each measure (metric)",
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=0.05,
        help="significance level of the marks (default 0.05); intervals are at 1 - alpha",
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=9999,
        help="sign vectors of the sign-flip test, resamples of the bootstrap (default 9999)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the sampled tests (default 0)")
    parser.add_argument(
        "--margin",
        type=float,
        default=0.0,
        help="the smallest difference that matters (default 0): with --power, the queries "
        "needed to detect it",
    )
    parser.add_argument(
        "--power",
        action="store_true",
        help="also print the topic-set-size design of these runs (Sakai 2016): per measure, "
        "the variance, the difference their queries detect with --target-power (paired t-test "
        "and one-way ANOVA), and with --margin the queries needed",
    )
    parser.add_argument(
        "--target-power",
        type=float,
        default=0.8,
        help="the power of --power (default 0.8, i.e. beta = 0.2)",
    )
    parser.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (aligned text, the default), markdown, latex (booktabs), csv (one row per "
        "pair and measure) or json (the full report)",
    )
    parser.add_argument(
        "--details",
        action="store_true",
        help="with --format table, also print every pair's comparison (differences, "
        "intervals, effect sizes, W/T/L, p-values)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="also write the full report to this file (.json, .jsonl, .yaml or .toml)",
    )
    parser.add_argument(
        "--plot",
        type=Path,
        default=None,
        metavar="DIR",
        help="also write figures to DIR (needs ragmeter[plot]): means.png (each run's means with "
        "95%% t intervals) and METRIC-per-query.png per measure (two runs: their per-query "
        "values; more: each run's sorted per-query differences from the baseline)",
    )


def _write_figures(result: Any, folder: Path) -> None:
    """``--plot DIR``: the means with their intervals, and each measure's per-query figure."""
    folder.mkdir(parents=True, exist_ok=True)
    systems = result.per_system()
    plot_metrics(systems, path=folder / "means.png")
    baseline = result.baseline or next(iter(systems))
    for metric in result.metric_names:
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", metric)
        plot_per_query(systems, metric, sort_by=baseline, path=folder / f"{name}-per-query.png")
    print(f"ragmeter: wrote {1 + len(result.metric_names)} figures to {folder}", file=sys.stderr)


def _in_given_order(measures: list[Measure], texts: list[str]) -> list[Measure]:
    """The measures in the order of the ``-m`` options that name them (the tables keep the
    user's order; ``evaluate`` prints trec_eval's, as trec_eval does), a family's measures in
    their own order."""
    first: dict[str, int] = {}
    for i, text in enumerate(texts):
        for measure in parse_measures(text):
            first.setdefault(measure.family.name if measure.trec_syntax else measure.name, i)
    position = {m.name: i for i, m in enumerate(measures)}
    return sorted(
        measures,
        key=lambda m: (
            first.get(m.family.name if m.trec_syntax else m.name, len(texts)),
            position[m.name],
        ),
    )


def _comparable(measures: list[Measure]) -> list[Measure]:
    """The measures with a numeric value per query (not runid, relstring, num_q or the gm_*
    summaries, which trec_eval only prints over all topics)."""
    return [
        m
        for m in measures
        if m.family.per_query and m.family.value_type != "str" and m.family.summary != "count"
    ]


def _run_matches(given: str, name: str, path: Any, tag: Any) -> bool:
    """Whether ``given`` (a --baseline or --name argument) names this run: its name, its path
    as given, its file name or its run tag."""
    return given in (name, os.fspath(path), Path(path).name, str(Path(path)), tag)


def display_names(
    given: list[str], names: list[str], runs: list[Any], tags: list[Any]
) -> list[str]:
    """The runs' names with ``--name RUN=NAME`` applied (each RUN must name exactly one run,
    once; the names must stay distinct).

    Parameters
    ----------
    given
        The ``--name`` arguments.
    names, runs, tags
        Each run's default name, path and run tag.

    Returns
    -------
    list[str]
        The names, in the runs' order.

    Raises
    ------
    InvalidInputError
        a malformed argument, a RUN that names no run or several, a run named twice, two
        runs with one name.
    """
    shown = list(names)
    renamed: set[int] = set()
    for text in given:
        run, sep, name = text.partition("=")
        if not sep or not run or not name.strip():
            raise InvalidInputError(
                f"--name: expected RUN=NAME (such as bm25.run=BM25), got {text!r}"
            )
        matches = [
            i
            for i, (default, path, tag) in enumerate(zip(names, runs, tags, strict=True))
            if _run_matches(run, default, path, tag)
        ]
        if len(matches) != 1:
            raise InvalidInputError(
                f"--name {text}: {run!r} is "
                + ("none" if not matches else "more than one")
                + f" of the runs (their names: {names}; a run tag names a run only when no "
                "other run has it)"
            )
        if matches[0] in renamed:
            raise InvalidInputError(f"--name {text}: {names[matches[0]]!r} is named twice")
        renamed.add(matches[0])
        shown[matches[0]] = name.strip()
    repeated = sorted({n for n in shown if shown.count(n) > 1})
    if repeated:
        raise InvalidInputError(
            f"--name: {repeated[0]!r} names more than one run; give each run its own name"
        )
    return shown


def system_names(runs: list[Any]) -> list[str]:
    """The runs' names: their file names, or their paths as given when two runs share a file
    name (the rule of ``ragmeter evaluate --format table`` too)."""
    names = [Path(run).name for run in runs]
    if len(set(names)) == len(names):
        return names
    return [os.fspath(run) for run in runs]


def evaluation_note(args: argparse.Namespace) -> str | None:
    """The evaluation flags that change the values, in words for the tables' captions (so
    that ``-c`` and the others are visible in the table itself)."""
    parts = []
    if args.complete or args.missing == "zero":
        parts.append("-c (a judged query a run did not rank scores 0, as trec_eval -c)")
    if args.missing == "skip":
        parts.append("--missing skip (judged queries a run did not rank are left out)")
    if args.max_docs is not None:
        parts.append(f"-M {args.max_docs} (the first {args.max_docs} documents of each ranking)")
    # None: the default (1; -l is optional so that `evaluate irds:...` can take a dataset's level).
    if args.relevance_threshold not in (None, 1):
        parts.append(
            f"-l {args.relevance_threshold:g} (relevant from grade {args.relevance_threshold:g})"
        )
    if args.judged_docs_only:
        parts.append("-J (unjudged documents removed from the rankings)")
    if args.collection_size:
        parts.append(f"-N {args.collection_size} (documents in the collection)")
    return "evaluated with " + ", ".join(parts) if parts else None


def _compare(
    args: argparse.Namespace,
    systems: dict[str, PerQueryResults],
    baseline: str | None,
    metrics: list[str],
) -> Any:
    return compare_many(
        systems,
        baseline=baseline,
        metrics=metrics,
        test=resolved_choice(args, "sign-flip"),
        correction=None if args.correction == "none" else args.correction,
        family=args.family,
        alpha=args.alpha,
        n_resamples=args.resamples,
        random_state=args.seed,
        confidence_level=1.0 - args.alpha if 0 < args.alpha < 1 else 0.95,
        missing="skip" if args.missing == "skip" else "raise",
        margin=args.margin,
        n_threads=args.threads,
        alternative=args.alternative,
        clusters=args.clusters,
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Evaluate and compare the runs of ``args``; print the table.

    Parameters
    ----------
    args
        The parsed options.
    out
        Where the table goes (messages about the runs go to stderr).

    Returns
    -------
    int
        The exit status (0).

    Raises
    ------
    InvalidInputError
        Fewer than two runs, no comparable measure, an unknown baseline, and every error of the
        evaluation or the comparison (the command prints it and exits with status 2).
    """
    if args.values:
        systems, baseline, metrics = _values_systems(args)
    else:
        systems, baseline, metrics = _evaluated_systems(args)
    try:
        result = _compare(args, systems, baseline, metrics)
    except UnpairedQueriesError as error:
        raise InvalidInputError(
            f"the runs do not hold the same judged queries: {error.detail}. Pass -c to score "
            "a judged query a run did not rank as 0 (as trec_eval -c), or --missing skip to "
            "compare on the queries every run has (the table lists the others)."
        ) from None
    return _write(args, result, out)


def _values_systems(
    args: argparse.Namespace,
) -> tuple[dict[str, PerQueryResults], str | None, list[str]]:
    """The systems of ``--values`` files (read through :func:`ragmeter.io.read_systems`), the
    baseline and the metrics compared.

    A system is named by the name its file gives; when two files give one name (two logs of
    one model), each is named by its file name instead (``file: system`` for a file of
    several). ``--name FILE=NAME`` renames a file's only system."""
    paths = [args.qrels, *args.runs]
    read = [(Path(p), read_systems(p, cluster=args.cluster)) for p in paths]
    given = dict(item.split("=", 1) for item in args.name if "=" in item)
    names: list[tuple[str, Path, PerQueryResults]] = []
    all_names = [n for _, found in read for n in found]
    for path, found in read:
        for name, values in found.items():
            shown = name
            if all_names.count(name) > 1:
                shown = path.name if len(found) == 1 else f"{path.name}: {name}"
            for key in (str(path), path.name):
                if key in given and len(found) == 1:
                    shown = given[key]
            names.append((shown, path, values))
    if len({n for n, _, _ in names}) != len(names):
        raise InvalidInputError("runs: two systems have one name; name them with --name FILE=NAME")
    if len(names) < 2:
        raise InvalidInputError("runs: a comparison needs at least two systems")
    systems = {name: values.renamed(name) for name, _, values in names}
    common = [
        m
        for m in next(iter(systems.values())).metric_names
        if all(m in v.metric_names for v in systems.values())
    ]
    metrics = list(args.metrics) if args.metrics else common
    missing = [m for m in metrics if m not in common]
    if missing or not metrics:
        raise InvalidInputError(
            f"-m: {missing or 'no metric'} is not a metric every system has; they share {common}"
        )
    baseline = None
    if args.baseline is not None:
        candidates = [
            name for name, path, _ in names if args.baseline in (name, str(path), path.name)
        ]
        if len(candidates) != 1:
            raise InvalidInputError(
                f"--baseline: {args.baseline!r} is "
                + ("none" if not candidates else "more than one")
                + f" of the systems (their names: {list(systems)})"
            )
        baseline = candidates[0]
    return systems, baseline, metrics


def _evaluated_systems(
    args: argparse.Namespace,
) -> tuple[dict[str, PerQueryResults], str | None, list[str]]:
    """The runs of the command line, evaluated against the qrels; the baseline and the
    measures compared."""
    if len(args.runs) < 2:
        raise InvalidInputError("runs: a comparison needs at least two run files")
    seen: set[str] = set()
    for path in args.runs:
        if os.path.abspath(path) in seen:
            # Two names for one system: the comparison would silently have one fewer.
            raise InvalidInputError(
                f"runs: {os.fspath(path)!r} is given twice; give each run file once"
            )
        seen.add(os.path.abspath(path))
    given = args.metrics or list(DEFAULT_MEASURES)
    measures = _in_given_order(_comparable(command_measures(given)), given)
    if not measures:
        raise InvalidInputError(
            "-m: none of these measures has a value per query to compare (runid, relstring, "
            "num_q and the gm_* means have none); name measures such as map or ndcg_cut.10"
        )
    runid = parse_measures("runid")[0]
    options = evaluation_options(args, [*measures, runid])
    # Without -c or --missing, a judged query a run did not rank is an error: this command
    # evaluates every run first and then names them all, in its own flags' words.
    must_pair = not args.complete and args.missing in (None, "raise")
    if must_pair:
        options["missing"] = "skip"
    args.per_query = True
    runs, tags, per_query = [], [], []
    unranked: dict[str, list[Any]] = {}
    for run_path, (means, values), _messages in _run_all(args, options):
        if must_pair and means.missing_from_run:
            unranked[run_path] = list(means.missing_from_run)
        for note in _undefined_notes(means, measures):
            print(f"ragmeter: {run_path}: {note}", file=sys.stderr)
        if means.unjudged:
            print(
                f"ragmeter: {run_path}: {len(means.unjudged)} run topics without judgments "
                "were ignored",
                file=sys.stderr,
            )
        runs.append(run_path)
        tags.append(means.get("runid"))
        per_query.append(summarize(values, average=None, producer="ragmeter.evaluate"))
    if unranked:
        listed = "; ".join(
            f"{run}: {len(ids)} ("
            + ", ".join(repr(q) for q in ids[:5])
            + (", ..." if len(ids) > 5 else "")
            + ")"
            for run, ids in unranked.items()
        )
        raise InvalidInputError(
            f"judged queries some runs did not rank: {listed}. Pass -c to score them as 0 "
            "(as trec_eval -c), or --missing skip to compare on the queries every run ranked "
            "(the table lists the others)."
        )
    names = display_names(args.name, system_names(runs), runs, tags)
    systems: dict[str, PerQueryResults] = {
        name: per_query_results(values, name) for name, values in zip(names, per_query, strict=True)
    }
    baseline = None
    if args.baseline is not None:
        candidates = [
            name
            for name, path, tag in zip(names, runs, tags, strict=True)
            if _run_matches(args.baseline, name, path, tag)
        ]
        if len(candidates) != 1:
            raise InvalidInputError(
                f"--baseline: {args.baseline!r} is "
                + ("none" if not candidates else "more than one")
                + f" of the runs (their names: {names}; a run tag names a run only when no "
                "other run has it)"
            )
        baseline = candidates[0]
    return systems, baseline, [m.name for m in measures]


def _write(args: argparse.Namespace, result: Any, out: TextIO) -> int:
    """Print (and save, plot) the comparison as the options say; the exit status."""
    result.evaluation = None if args.values else evaluation_note(args)
    if args.output is not None:
        path = result.write(args.output)
        print(f"ragmeter: wrote {path}", file=sys.stderr)
    if args.plot is not None:
        _write_figures(result, args.plot)
    if args.format == "table":
        out.write(result.to_table() + "\n")
        if args.details:
            for candidate, against in result.pairs:
                out.write("\n" + result[candidate, against].to_table() + "\n")
    elif args.format == "markdown":
        out.write(result.to_markdown())
    elif args.format == "latex":
        out.write(result.to_latex())
    elif args.format == "csv":
        out.write(result.to_csv())
    else:
        # The saved form, with its count and checksum: what --output writes and --read reads.
        out.write(render_report(result, "json") + "\n")
    if args.power:
        # Beside the table; with a machine-readable format, on stderr so stdout stays parseable.
        target = out if args.format == "table" else sys.stderr
        target.write("\n" + power_table(result, args.target_power, args.margin or None) + "\n")
    return 0


def power_table(result: Any, target_power: float, margin: float | None) -> str:
    """The topic-set-size design of a campaign as aligned text (``--power``).

    Parameters
    ----------
    result
        The campaign (:class:`~ragmeter.MultipleComparison`).
    target_power
        The power.
    margin
        The smallest difference that matters, or None.

    Returns
    -------
    str
        The table and what it shows.
    """
    rows = campaign_designs(result, power=target_power, min_difference=margin)
    header = ["metric", "design", "variance", "queries", "detectable"]
    if margin is not None:
        header.append(f"queries for {margin:g}")
    lines = [header]
    for row in rows:
        design = "paired t" if row["design"] == "paired-t" else f"ANOVA, {row['n_systems']} runs"
        cells = [
            row["metric"],
            design,
            f"{row['variance']:.4g}",
            str(row["n_queries"]),
            "n/a" if row["detectable"] != row["detectable"] else f"{row['detectable']:.4f}",
        ]
        if margin is not None:
            cells.append("n/a" if row["needed"] is None else str(row["needed"]))
        lines.append(cells)
    widths = [max(len(r[i]) for r in lines) for i in range(len(header))]
    text = [
        "  ".join(
            c.ljust(w) if i < 2 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in lines
    ]
    return (
        "\n".join(text)
        + f"\nTopic-set-size design (Sakai, IRJ 2016) from these runs: the smallest difference "
        f"their queries detect with power {target_power:g} at alpha = {result.alpha:g}"
        + ("" if margin is None else f", and the queries needed to detect {margin:g}")
        + "; paired t: two runs, the variance of the per-query differences pooled over the "
        "compared pairs; ANOVA: every run, a range of the means, the within-run variance."
    )
