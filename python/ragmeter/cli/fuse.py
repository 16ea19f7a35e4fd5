"""``ragmeter fuse``: several runs into one TREC run (any method of
:data:`ragmeter.fusion.METHODS`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from ..fusion._files import trec_paths, write_fused_trec
from ..fusion.declarations import DEFAULT_METHOD, DEFAULT_NORM, METHODS, NORMALIZATIONS

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """The ``fuse`` subcommand's options (the methods and normalisations are the declared ones)."""
    parser = sub.add_parser(
        "fuse",
        help="fuse several runs into one TREC run (RRF, CombSUM, ... as ranx)",
        description="Fuse runs (TREC files, also compressed, or tables) into one TREC run.",
    )
    parser.add_argument("runs", nargs="+", type=Path, help="two or more run files")
    # The defaults of Python's fuse (ranx's): one default, whichever door is used.
    method, norm = DEFAULT_METHOD, DEFAULT_NORM
    parser.add_argument(
        "--method",
        default=method,
        choices=list(METHODS),
        help=f"default: {method} (reciprocal rank fusion, k 60), as ragmeter.fusion.fuse",
    )
    parser.add_argument(
        "--norm",
        default=norm or "none",
        choices=["none", *NORMALIZATIONS],
        help=f"normalisation of each run before fusing (default: {norm or 'none'}, as "
        "ragmeter.fusion.fuse; score-based methods such as wsum need one, rank-based ones such "
        "as rrf read only ranks)",
    )
    parser.add_argument("--k", type=float, help="RRF's k (default 60)")
    parser.add_argument("--weights", type=float, nargs="+", help="one weight per run")
    parser.add_argument("--gamma", type=float, help="CombGMNZ's gamma")
    parser.add_argument("--sigma", type=float, help="logN_ISR's sigma")
    parser.add_argument("--phi", type=float, help="RBC's phi")
    parser.add_argument("--w", type=int, help="SlideFuse's window")
    parser.add_argument("--n-segments", type=int, help="ProbFuse's number of segments")
    parser.add_argument("--qrels", type=Path, help="training judgments for trained methods")
    parser.add_argument(
        "--missing",
        default="raise",
        choices=["raise", "empty", "intersect"],
        help="a query some runs lack: an error (default), an empty ranking, or skipped",
    )
    parser.add_argument("--tag", help="run tag of the output (default: the method)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="the fused run file")


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Fuse and write; print one line saying what was written. TREC run files are read,
    fused and written by the core batch by batch (no Python object per line, memory bounded
    by a batch); other files go through :func:`~ragmeter.fusion.fuse`."""
    decl = METHODS[args.method]
    params = {
        name: getattr(args, name)
        for name in decl.parameters
        if name != "n_segments" and getattr(args, name) is not None
    }
    runs = [str(p) for p in args.runs]
    norm = None if args.norm == "none" else args.norm
    qrels = None if args.qrels is None else str(args.qrels)
    tag = args.tag or args.method
    if trec_paths(runs) is not None and len(runs) >= 2:
        n_queries = write_fused_trec(
            runs,
            args.output,
            method=args.method,
            norm=norm,
            params=params,
            tag=tag,
            qrels=qrels,
            n_segments=args.n_segments,
            missing=args.missing,
        )
    else:
        # Imported here: TREC files are fused by the core without it (and numpy).
        from ..fusion import fuse

        fused = fuse(
            runs,
            method=args.method,
            norm=norm,
            params=params,
            qrels=qrels,
            n_segments=args.n_segments,
            missing=args.missing,
            name=tag,
        )
        fused.write_trec(args.output)
        n_queries = len(fused)
    out.write(
        f"fused {len(args.runs)} runs over {n_queries} queries with {args.method} "
        f"(norm {args.norm}) into {args.output}\n"
    )
    return 0
