"""``ragmeter nuggets create|assign|score``: nugget evaluation of RAG answers from files, one
step a call (:mod:`ragmeter.nuggets`; guide "Evaluating RAG answers with nuggets and
citations").

* ``create``: pool the relevant segments of the runs (``--qrels``, run files), make the bank
  with the judge, write it (a checksummed saved result) and its nuggets in nuggetizer's form
  (``--nuggets``, to edit by hand and pass back to ``assign``);
* ``assign``: label every nugget of the bank for every answer of TREC RAG answer files, write
  the assignments;
* ``score``: the scores of saved assignments: a table of each run's means (with the count of
  topics where a score is undefined or failed) and, with ``--output``, each run's per-topic
  values (``<run>.json``), which ``ragmeter gate`` and ``ragmeter report`` read.

The judge is the one the environment configures (``RAGMETER_JUDGE_MODEL`` with
``OPENAI_BASE_URL``), or ``--judge rule``: the lexical rule judge, offline, to try the pipeline.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, TextIO

from ..exceptions import InvalidInputError
from ..io import read_records
from ..judges import RuleJudge
from ..nuggets import (
    NUGGET_METRICS,
    NuggetAssignments,
    NuggetBank,
    assign,
    create_bank,
    pool_segments,
    read_rag_answers,
)

__all__ = ["add_parser", "run"]

_TOPIC_ID = ("id", "qid", "topic_id", "query_id", "narrative_id")
_TOPIC_TEXT = ("title", "query", "text", "narrative")
_SEGMENT_ID = ("docid", "doc_id", "segment_id", "id")
_SEGMENT_TEXT = ("segment", "text", "contents", "body")


def _judge_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--judge",
        choices=["env", "rule"],
        default="env",
        help="env (default): the judge the environment configures (RAGMETER_JUDGE_MODEL with "
        "OPENAI_BASE_URL); rule: the lexical rule judge, offline (to try the pipeline)",
    )
    parser.add_argument("--cache", help="a cache file of the judge's calls (reruns call nothing)")


def add_parser(sub: Any) -> None:
    """The ``nuggets`` subcommand and its three steps."""
    parser = sub.add_parser(
        "nuggets",
        help="nugget evaluation of RAG answers: create a bank, assign its nuggets, score",
        description="Nugget evaluation of RAG answers (TREC RAG), one step a call.",
    )
    steps = parser.add_subparsers(dest="step", required=True)
    create = steps.add_parser("create", help="make a nugget bank from the pooled segments")
    create.add_argument("runs", nargs="+", type=Path, help="the run files to pool")
    create.add_argument("--qrels", type=Path, required=True, help="the judgments")
    create.add_argument(
        "--topics", type=Path, required=True, help="topics: rows with an id and a query"
    )
    create.add_argument(
        "--corpus", type=Path, required=True, help="segments: rows with an id and a text"
    )
    create.add_argument("--threshold", type=float, default=2, help="lowest grade pooled (2)")
    create.add_argument("--depth", type=int, help="ranks of each run pooled (default: all)")
    create.add_argument("--max-nuggets", type=int, default=30, help="nuggets a topic (30)")
    create.add_argument("-o", "--output", type=Path, required=True, help="the bank (.json)")
    create.add_argument("--nuggets", type=Path, help="also the nuggets in nuggetizer's form")
    _judge_options(create)
    assign_step = steps.add_parser("assign", help="label each nugget for each answer")
    assign_step.add_argument("answers", nargs="+", type=Path, help="TREC RAG answer files")
    assign_step.add_argument(
        "--bank", type=Path, required=True, help="a saved bank (.json) or nuggets (.jsonl)"
    )
    assign_step.add_argument("--grades", type=int, choices=[2, 3], default=3)
    assign_step.add_argument(
        "--blind",
        action="store_true",
        help="record that the bank and prompts were kept from the evaluated systems",
    )
    assign_step.add_argument("-o", "--output", type=Path, required=True)
    _judge_options(assign_step)
    score = steps.add_parser("score", help="each run's nugget scores")
    score.add_argument("assignments", type=Path, help="saved assignments (from assign)")
    score.add_argument("--output", type=Path, help="a folder for each run's per-topic values")


def _field(row: Any, names: tuple[str, ...], what: str, where: str) -> str:
    for name in names:
        if name in row and row[name] is not None:
            return str(row[name])
    raise InvalidInputError(f"{where}: no {what} (a field named one of {', '.join(names)})")


def _table(path: Path, ids: tuple[str, ...], texts: tuple[str, ...], what: str) -> dict[str, str]:
    records = read_records(path, what=what)
    return {
        _field(row, ids, "id", where): _field(row, texts, "text", where)
        for row, where in zip(records.rows, records.where, strict=True)
    }


def _judge(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {"judge": RuleJudge() if args.judge == "rule" else None}
    if args.cache:
        options["cache"] = args.cache
    return options


def _create(args: argparse.Namespace, out: TextIO) -> int:
    topics = _table(args.topics, _TOPIC_ID, _TOPIC_TEXT, "the topics")
    corpus = _table(args.corpus, _SEGMENT_ID, _SEGMENT_TEXT, "the corpus")
    runs = {path.name: str(path) for path in args.runs}
    pooled = pool_segments(str(args.qrels), runs, threshold=args.threshold, depth=args.depth)
    missing = sorted({d for ids in pooled.values() for d in ids if d not in corpus})
    if missing:
        raise InvalidInputError(f"--corpus: no text for pooled segment {missing[0]!r}")
    chosen = {t: q for t, q in topics.items() if t in pooled}
    bank = create_bank(
        chosen,
        {t: [corpus[d] for d in pooled[t]] for t in chosen},
        max_nuggets=args.max_nuggets,
        pooled_runs=list(runs),
        pooling={"threshold": args.threshold, "depth": args.depth},
        progress=False,
        **_judge(args),
    )
    bank.write(args.output)
    if args.nuggets:
        bank.write_nuggets(args.nuggets)
    out.write(
        f"{bank!r}: {len(chosen)} of {len(topics)} topics have a pooled segment; wrote "
        f"{args.output}{f' and {args.nuggets}' if args.nuggets else ''}\n"
    )
    return 0


def _assign(args: argparse.Namespace, out: TextIO) -> int:
    bank = (
        NuggetBank.read_nuggets(args.bank)
        if args.bank.suffix == ".jsonl"
        else NuggetBank.read(args.bank)
    )
    answers = [a for path in args.answers for a in read_rag_answers(path)]
    assignments = assign(
        bank, answers, grades=args.grades, blind=args.blind, progress=False, **_judge(args)
    )
    assignments.write(args.output)
    out.write(
        f"assigned {len(bank)} topics' nuggets to {len(assignments)} answers of "
        f"{len(assignments.runs)} runs ({assignments.n_errors} failed judgements); wrote "
        f"{args.output}\n"
    )
    return 0


def _score(args: argparse.Namespace, out: TextIO) -> int:
    scores = NuggetAssignments.read(args.assignments).scores()
    metrics = list(NUGGET_METRICS)
    rows = [["run", *metrics]]
    for run, means in scores.means().items():
        rows.append(
            [run]
            + [
                f"{float(means[m]):.4f} (n={means[m].n_queries}, undefined {means[m].n_undefined})"
                for m in metrics
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for row in rows:
        out.write("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() + "\n")
    if args.output:
        args.output.mkdir(parents=True, exist_ok=True)
        for run, values in scores.all_per_query_results().items():
            values.write(args.output / f"{run}.json")
        out.write(f"wrote {len(scores.runs)} runs' per-topic values into {args.output}\n")
    return 0


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Run one step."""
    steps = {"create": _create, "assign": _assign, "score": _score}
    return steps[args.step](args, out)
