"""``ragmeter rank FILE [FILE ...]``: how sure is "system A ranks second"?

Two inputs, one statistics room (:mod:`ragmeter.stats`):

* files of per-item values (saved results, tables, other harnesses' result files: what
  ``ragmeter compare --values`` reads, through :func:`ragmeter.io.read_systems`): each system's
  mean of each metric with its bootstrap percentile interval, its rank (1 = the highest mean)
  and its rank interval, from the items resampled jointly for every system
  (:func:`ragmeter.stats.rank_intervals`; whole clusters resampled with ``--clusters`` or the
  clusters the values record);
* ``--battles``: files of pairwise preferences (FastChat's ``model_a``, ``model_b``,
  ``winner``; :func:`ragmeter.io.read_battles`): Bradley-Terry ratings on the Elo scale with
  bootstrap intervals of the ratings and ranks (:func:`ragmeter.stats.bradley_terry`).

Output: an aligned table (default), Markdown or JSON.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any, TextIO

from ..exceptions import InvalidInputError
from ..gate.results import markdown_text, plain_text
from ..io import read_battles, read_clusters, read_systems
from ..per_query import PerQueryResults
from ..stats import bradley_terry, metric_rankings
from ._clusters import add_clusters_option

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Add the ``rank`` subcommand and its options.

    Parameters
    ----------
    sub
        The subparsers of the ``ragmeter`` command.
    """
    parser = sub.add_parser(
        "rank",
        help="rank systems with bootstrap intervals of their means (or Bradley-Terry ratings) "
        "and of their ranks",
        description="Rank the systems of files of per-item values by their means, each with "
        "its bootstrap interval and its rank interval (items resampled jointly for every "
        "system; Hall & Miller 2009), or with --battles the systems of pairwise preference "
        "files by their Bradley-Terry ratings (Elo scale, as Chatbot Arena) with bootstrap "
        "intervals of ratings and ranks.",
    )
    parser.add_argument(
        "files",
        type=Path,
        nargs="+",
        help="files of per-item values (saved results, tables, other harnesses' result files; "
        "a file of several systems gives each), or with --battles files of battles",
    )
    parser.add_argument(
        "--battles",
        action="store_true",
        help="the files hold pairwise preferences (model_a, model_b, winner as FastChat "
        "writes them: JSON lines, a JSON list, CSV, Parquet)",
    )
    parser.add_argument(
        "-m",
        "--metric",
        dest="metrics",
        action="append",
        default=[],
        help="a metric to rank by (repeatable; default: every metric all systems have)",
    )
    add_clusters_option(parser)
    parser.add_argument(
        "--confidence", type=float, default=0.95, help="the intervals' level (default 0.95)"
    )
    parser.add_argument(
        "--resamples",
        type=int,
        default=2000,
        help="bootstrap resamples (default 2000; 1000 is Chatbot Arena's)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default 0)")
    parser.add_argument(
        "--prior",
        type=float,
        default=0.0,
        help="with --battles, the strength of a Gaussian prior on the strengths (0: the "
        "maximum-likelihood estimate; > 0 when some system never won or never lost)",
    )
    parser.add_argument(
        "--format",
        choices=("table", "markdown", "json"),
        default="table",
        help="table (aligned text, the default), markdown or json",
    )


def _systems(paths: list[Path]) -> dict[str, PerQueryResults]:
    systems: dict[str, PerQueryResults] = {}
    for path in paths:
        for name, values in read_systems(path).items():
            if name in systems:
                raise InvalidInputError(
                    f"{path}: the system {name!r} is also in another file; give each system once"
                )
            systems[name] = values.renamed(name)
    if len(systems) < 2:
        raise InvalidInputError("files: ranking needs at least two systems")
    return systems


def _finite(data: Any) -> Any:
    """NaN as None (JSON's null)."""
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_finite(v) for v in data]
    return None if isinstance(data, float) and math.isnan(data) else data


def _ratings(args: argparse.Namespace) -> dict[str, Any]:
    battles = [b for path in args.files for b in read_battles(path, argument=str(path))]
    result = bradley_terry(
        battles,
        alpha=args.prior,
        n_resamples=args.resamples,
        confidence=args.confidence,
        random_state=args.seed,
    )
    return {
        "n_battles": result.n_battles,
        "systems": [
            {
                "system": name,
                "rating": result.ratings[name],
                "rating_low": result.rating_intervals.get(name, (math.nan,) * 2)[0],
                "rating_high": result.rating_intervals.get(name, (math.nan,) * 2)[1],
                "rank": result.ranks[name],
                "rank_low": result.rank_intervals.get(name, (0, 0))[0],
                "rank_high": result.rank_intervals.get(name, (0, 0))[1],
            }
            for name in result.systems
        ],
    }


def _caption(ranking: dict[str, Any], args: argparse.Namespace, battles: bool) -> str:
    level = f"{args.confidence:.0%}"
    if battles:
        return (
            "Bradley-Terry ratings (Elo scale: 1000 + 400 theta / ln 10) of "
            f"{ranking['n_battles']} battles (a tie half a win each); {level} percentile "
            f"intervals of the ratings and ranks over {args.resamples} bootstrap resamples "
            f"of the battles, seed {args.seed}."
        )
    unit = "items"
    if ranking["n_clusters"] is not None:
        unit = f"clusters of items ({ranking['n_clusters']} clusters)"
    left = (
        f", {ranking['n_left_out']} items left out (not every system has a value)"
        if ranking["n_left_out"]
        else ""
    )
    return (
        f"{ranking['metric']}: means over {ranking['n_items']} items{left}; rank 1 the highest "
        f"mean; {level} percentile intervals of the means and ranks over {args.resamples} "
        f"bootstrap resamples of the {unit}, every system resampled on the same items "
        f"(Hall & Miller 2009), seed {args.seed}."
    )


def _rows(ranking: dict[str, Any], battles: bool) -> list[list[str]]:
    key, digits = ("rating", 1) if battles else ("mean", 4)
    rows = [["rank", "system", key, "interval", "rank interval"]]
    for s in ranking["systems"]:
        low, high = s[f"{key}_low"], s[f"{key}_high"]
        rows.append(
            [
                str(s["rank"]),
                s["system"],
                f"{s[key]:.{digits}f}",
                "n/a" if math.isnan(low) else f"[{low:.{digits}f}, {high:.{digits}f}]",
                f"{s['rank_low']}-{s['rank_high']}",
            ]
        )
    return rows


def _text(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(
            c.ljust(w) if i == 1 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    )


def _markdown(rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(rows[0]) + " |", "|---:|---|---:|---|---|"]
    lines += ["| " + " | ".join(markdown_text(c) for c in r) + " |" for r in rows[1:]]
    return "\n".join(lines)


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Rank the systems of ``args``; print the tables.

    Parameters
    ----------
    args
        The parsed options.
    out
        Where the tables go.

    Returns
    -------
    int
        The exit status (0).

    Raises
    ------
    InvalidInputError
        Bad files or options (the command prints it and exits with status 2).
    """
    if args.battles:
        if args.metrics or args.clusters is not None:
            raise InvalidInputError("--battles: -m and --clusters are for files of values")
        rankings = [_ratings(args)]
    else:
        systems = _systems(list(args.files))
        first = next(iter(systems.values()))
        common = [m for m in first.metric_names if all(m in v for v in systems.values())]
        metrics = list(dict.fromkeys(args.metrics)) or common
        if not metrics:
            raise InvalidInputError("-m: the systems share no metric")
        clusters = None if args.clusters is None else read_clusters(args.clusters)
        rankings = metric_rankings(
            systems,
            metrics,
            clusters=clusters,
            confidence=args.confidence,
            n_resamples=args.resamples,
            random_state=args.seed,
        )
    if args.format == "json":
        data = {"kind": "ragmeter.rankings", "battles": args.battles, "rankings": rankings}
        out.write(json.dumps(_finite(data), indent=2, allow_nan=False) + "\n")
        return 0
    blocks = []
    for ranking in rankings:
        rows = _rows(ranking, args.battles)
        caption = _caption(ranking, args, args.battles)
        if args.format == "table":
            blocks.append(_text([[plain_text(c) for c in r] for r in rows]) + "\n" + caption)
        else:
            blocks.append(_markdown(rows) + "\n\n" + markdown_text(caption))
    out.write("\n\n".join(blocks) + "\n")
    return 0
