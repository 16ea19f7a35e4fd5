"""``--clusters FILE`` of ``ragmeter compare`` and ``ragmeter gate``: each query's cluster
(several questions about one passage, document or conversation), read through the file door
(:func:`ragmeter.io.read_clusters`) and attached to every system's values; the test then
defaults to the cluster-robust paired t-test (``cluster-t``) and the output reports the design
effects."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

__all__ = ["add_clusters_option", "resolved_choice"]


def add_clusters_option(parser: Any) -> None:
    """Add ``--clusters FILE`` to a command's parser.

    Parameters
    ----------
    parser
        The command's parser.
    """
    parser.add_argument(
        "--clusters",
        type=Path,
        default=None,
        metavar="FILE",
        help="each query's cluster (its passage, document or conversation): a CSV, TSV, "
        "Parquet or JSON lines file with query_id and cluster columns (a table of per-item "
        "values with a cluster column is one); the test then defaults to cluster-t (the "
        "cluster-robust paired t-test) and the output gives the design effects",
    )


def resolved_choice(args: argparse.Namespace, default: str) -> str:
    """``--test`` as given, else ``cluster-t`` with ``--clusters``, else ``default``.

    Parameters
    ----------
    args
        The parsed options (``test`` None when not given).
    default
        The command's test without clusters.

    Returns
    -------
    str
        The test.
    """
    if args.test is not None:
        return str(args.test)
    return "cluster-t" if args.clusters is not None else default
