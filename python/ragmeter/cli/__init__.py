"""The ``ragmeter`` command: one module per subcommand, each with ``add_parser`` and ``run``.

A new subcommand is one module and one row of :data:`COMMANDS`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from .._core import __version__
from ..exceptions import RagmeterError

__all__ = ["COMMANDS", "main"]

#: Subcommand name -> its module's name (``add_parser(subparsers)``, ``run(args, out) -> exit
#: status``), with the one-line example ``ragmeter`` prints when called without arguments.
#: The module is imported only when its command runs (or for ``--help``): ``ragmeter evaluate``
#: does not pay for the statistics ``compare`` imports.
COMMANDS = {
    "evaluate": (
        "ragmeter.cli.evaluate",
        "evaluate run files against judgments, as trec_eval does (same flags and output)",
        "ragmeter evaluate -q -m all_trec qrels.txt run.txt",
    ),
    "compare": (
        "ragmeter.cli.compare",
        "test which runs differ significantly and print the paper table (text, Markdown, LaTeX)",
        "ragmeter compare -m map -m ndcg_cut.10 --test t --format latex qrels.txt run1 run2 run3",
    ),
    "gate": (
        "ragmeter.cli.gate",
        "fail CI when a candidate is worse than its baseline by more than a margin (paired tests)",
        "ragmeter gate --baseline base.json --candidate cand.json -m ndcg@10 --margin 0.01",
    ),
    "rank": (
        "ragmeter.cli.rank",
        "rank systems with intervals of their means (or Bradley-Terry ratings) and ranks",
        "ragmeter rank --battles battles.jsonl",
    ),
    "report": (
        "ragmeter.cli.report",
        "build one offline HTML report (tables, plots, per-query explorer) from saved results",
        "ragmeter report comparison.json judges.jsonl -o report.html",
    ),
    "fuse": (
        "ragmeter.cli.fuse",
        "fuse several runs into one TREC run (RRF, CombSUM, ... with ranx's semantics)",
        "ragmeter fuse --method rrf --k 60 bm25.run dense.run -o fused.run",
    ),
    "nuggets": (
        "ragmeter.cli.nuggets",
        "nugget evaluation of RAG answers: create a bank, assign its nuggets, score the runs",
        "ragmeter nuggets score assignments.json --output nugget-values",
    ),
    "demo": (
        "ragmeter.cli.demo",
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


def _command_module(name: str) -> ModuleType:
    return importlib.import_module(COMMANDS[name][0])


def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command's parser, with every subcommand or ``only`` the one named (faster)."""
    parser = argparse.ArgumentParser(
        prog="ragmeter",
        description="Measure retrieval and RAG systems.",
        usage="ragmeter <command> [options]",
    )
    parser.add_argument("--version", action="version", version=f"ragmeter {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS if only is None else [only]:
        _command_module(name).add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return its exit status (0 success, 2 an error, 141 a closed pipe)."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    if "numpy" not in sys.modules:
        # The commands do no linear algebra worth threads, but numpy's OpenBLAS starts a thread
        # per core at import, which spins: ~0.05 CPU-s of a 10-line `ragmeter evaluate` (0.18
        # -> 0.14 s measured). A value the user set is kept.
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    if not arguments:
        sys.stdout.write(usage())
        return 0
    # A known command first builds only its own parser; anything else (--help, --version, a
    # mistyped command) the whole parser, for the full usage and message.
    only = arguments[0] if arguments[0] in COMMANDS else None
    args = _parser(only).parse_args(arguments)
    try:
        result: int = _command_module(args.command).run(args, sys.stdout)
        return result
    except BrokenPipeError:
        # The reader went away (`ragmeter evaluate ... | head`): stop quietly, as Unix tools
        # do, with the status of a process ended by SIGPIPE.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except (RagmeterError, ValueError, TypeError, OSError) as exc:
        # In the command's words: the flag, never the Python keyword, that does what it says.
        from .advice import cli_message

        print(f"ragmeter: error: {cli_message(str(exc), args.command)}", file=sys.stderr)
        return 2
