"""The ``ragmeter`` command: one module per subcommand, each with ``add_parser`` and ``run``.

A new subcommand is one module and one row of :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from .. import __version__
from ..exceptions import RagmeterError
from . import compare, demo, evaluate, fuse

__all__ = ["COMMANDS", "main"]

#: Subcommand name -> module (``add_parser(subparsers)``, ``run(args, out) -> exit status``),
#: with the one-line example ``ragmeter`` prints when called without arguments.
COMMANDS = {
    "evaluate": (
        evaluate,
        "evaluate run files against judgments, as trec_eval does (same flags and output)",
        "ragmeter evaluate -q -m all_trec qrels.txt run.txt",
    ),
    "compare": (
        compare,
        "test which runs differ significantly and print the paper table (text, Markdown, LaTeX)",
        "ragmeter compare -m map -m ndcg_cut.10 --test t --format latex qrels.txt run1 run2 run3",
    ),
    "fuse": (
        fuse,
        "fuse several runs into one TREC run (RRF, CombSUM, ... with ranx's semantics)",
        "ragmeter fuse --method rrf --k 60 bm25.run dense.run -o fused.run",
    ),
    "demo": (
        demo,
        "evaluate the bundled example offline (no network, no key)",
        "ragmeter demo --output demo-output",
    ),
}


def usage() -> str:
    """The short usage printed by ``ragmeter`` without arguments."""
    lines = ["usage: ragmeter <command> [options]", "", "commands:"]
    for name, (_, summary, example) in COMMANDS.items():
        lines += [f"  {name:<10} {summary}", f"  {'':<10} {example}"]
    lines += [
        "",
        "ragmeter <command> --help describes a command's options; ragmeter --version prints "
        "the version.",
    ]
    return "\n".join(lines) + "\n"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ragmeter",
        description="Measure retrieval and RAG systems.",
        usage="ragmeter <command> [options]",
    )
    parser.add_argument("--version", action="version", version=f"ragmeter {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for module, _, _ in COMMANDS.values():
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return its exit status (0 success, 2 an error, 141 a closed pipe)."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    if not arguments:
        sys.stdout.write(usage())
        return 0
    args = _parser().parse_args(arguments)
    try:
        return COMMANDS[args.command][0].run(args, sys.stdout)
    except BrokenPipeError:
        # The reader went away (`ragmeter evaluate ... | head`): stop quietly, as Unix tools
        # do, with the status of a process ended by SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except (RagmeterError, ValueError, TypeError, OSError) as exc:
        print(f"ragmeter: error: {exc}", file=sys.stderr)
        return 2
