"""``ragmeter demo``: the bundled example, evaluated offline (no network, no key)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from ..demo import run_demo
from ..nuggets.demo import run_nugget_demo

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """The ``demo`` subcommand's options."""
    demo = sub.add_parser("demo", help="evaluate the bundled example (no network, no API key)")
    demo.add_argument(
        "--output",
        type=Path,
        default=Path("demo-output"),
        help="where the demo writes its reports and plots (default: ./demo-output)",
    )
    demo.add_argument(
        "--nuggets",
        action="store_true",
        help="the nugget and citation evaluation of RAG answers instead, with the rule judge "
        "(offline)",
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run the demo, printing to ``out``."""
    if args.nuggets:
        return run_nugget_demo(out, args.output)
    return run_demo(out, args.output)
