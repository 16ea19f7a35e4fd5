"""Every trec_eval measure at once: ragmeter vs trec_eval and pytrec_eval, in one run.

    python benches/bench_trec_eval.py [--queries 10000] [--docs 1000] [--judged 50]

The synthetic run of bench_ranking.py (10,000 queries x 1,000 scored docs, ~50 judged docs per
query with grades 0-3) is evaluated from TREC files for trec_eval's ``-m all_trec`` (and, in
the second table, for its default ``official`` set):

* ragmeter: ``evaluate_trec(..., metrics="all_trec", per_query=True)`` (files read, parsed
  and evaluated in the Rust core; per-query values included, as ``-q`` prints them);
* trec_eval 10.0, built from third_party/trec_eval/src with ``-O2`` added to its CFLAGS into
  benches/data/trec_eval-O2 (``-q -m all_trec``, output to /dev/null); the output is compared
  with the shipped build's (no -O flag);
* pytrec_eval: files parsed with its parsers, then ``RelevanceEvaluator`` with every measure of
  ``pytrec_eval.supported_measures``.

Each tool runs in its own process, best of ``--repeat`` runs; ``--rounds N`` alternates the
tools N times in fresh processes and reports medians. Prints seconds and ratios to ragmeter,
and checks that ragmeter's ``-m all_trec -q`` output equals trec_eval's, byte for byte.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _synthetic import make_dicts, write_trec_files  # noqa: E402

# trec_eval's sources: TREC_EVAL_SRC, else the vendored copy (third_party/trec_eval/src).
SOURCES = Path(os.environ.get("TREC_EVAL_SRC", HERE.parent / "third_party" / "trec_eval" / "src"))
TOOLS = ["ragmeter", "trec_eval", "pytrec_eval"]


def trec_eval_binary(optimised: bool = True) -> Path:
    """trec_eval built from third_party/trec_eval/src: with ``-O2`` added to its Makefile's
    CFLAGS (``-O2 -g -I. -Wall ...``; timings are against this build), or as shipped (no -O
    flag; its output is the reference: m_rbp.c reads uninitialised memory, so the rbp lines
    change with the optimiser)."""
    binary = HERE / "data" / ("trec_eval-O2" if optimised else "trec_eval") / "trec_eval"
    if not binary.exists():
        build = binary.parent
        if build.exists():
            shutil.rmtree(build)
        shutil.copytree(SOURCES, build)
        if optimised:
            makefile = build / "Makefile"
            text = makefile.read_text()
            makefile.write_text(text.replace("\nCFLAGS   = -g ", "\nCFLAGS   = -O2 -g ", 1))
        subprocess.run(["make", "-s"], cwd=build, check=True, capture_output=True)
    return binary


def _paths(args: argparse.Namespace) -> tuple[Path, Path]:
    directory = HERE / "data" / f"q{args.queries}-d{args.docs}-j{args.judged}"
    qrels_path, run_path = directory / "bench.qrels", directory / "bench.run"
    if not run_path.exists():
        qrels, run = make_dicts(args.queries, args.docs, args.judged)
        write_trec_files(directory, qrels, run)
    return qrels_path, run_path


def _evaluate(tool: str, group: str, qrels: Path, run: Path) -> None:
    if tool == "ragmeter":
        import ragmeter

        ragmeter.evaluate_trec(qrels, run, metrics=group, per_query=True, zero_division="trec_eval")
    elif tool == "trec_eval":
        with open("/dev/null", "w") as sink:
            subprocess.run(
                [str(trec_eval_binary()), "-q", "-m", group, str(qrels), str(run)],
                stdout=sink,
                check=True,
            )
    elif tool == "pytrec_eval":
        import pytrec_eval

        with open(qrels) as f:
            judged = pytrec_eval.parse_qrel(f)
        with open(run) as f:
            ranked = pytrec_eval.parse_run(f)
        measures = (
            set(pytrec_eval.supported_measures)
            if group == "all_trec"
            else {"num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec"}
            | {"bpref", "recip_rank", "iprec_at_recall", "P", "runid"}
        )
        pytrec_eval.RelevanceEvaluator(judged, measures).evaluate(ranked)
    else:
        raise ValueError(tool)


def worker(tool: str, group: str, args: argparse.Namespace) -> None:
    qrels, run = _paths(args)
    if tool == "ragmeter":
        import ragmeter  # noqa: F401  (import cost is not part of the evaluation)
    elif tool == "trec_eval":
        trec_eval_binary()
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        _evaluate(tool, group, qrels, run)
        times.append(time.perf_counter() - start)
    print(json.dumps({"seconds": min(times), "all": times}))


def same_output(args: argparse.Namespace) -> bool:
    qrels, run = _paths(args)
    ours = subprocess.run(
        [
            sys.executable,
            "-m",
            "ragmeter",
            "evaluate",
            "-q",
            "-m",
            "all_trec",
            str(qrels),
            str(run),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    theirs = subprocess.run(
        [str(trec_eval_binary(optimised=False)), "-q", "-m", "all_trec", str(qrels), str(run)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    # Byte for byte against the shipped build (its rbp lines too: m_rbp.c reads uninitialised
    # variables, which the -O2 build leaves with other values).
    return ours == theirs


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--judged", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--groups", default="all_trec,official")
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--worker", nargs=2, metavar=("TOOL", "GROUP"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker, args)
        return
    qrels, run = _paths(args)
    trec_eval_binary()
    n_lines = sum(path.read_bytes().count(b"\n") for path in (qrels, run))
    base = [sys.executable, __file__, "--queries", str(args.queries), "--docs", str(args.docs)]
    base += ["--judged", str(args.judged), "--repeat", str(args.repeat)]
    print(
        f"{args.queries} queries x {args.docs} docs, ~{args.judged} judged per query "
        f"({n_lines:,} lines); best of {args.repeat}, median of {args.rounds} round(s)"
    )
    for group in args.groups.split(","):
        runs: dict[str, list[float]] = {}
        for _ in range(args.rounds):
            for tool in args.tools.split(","):
                out = subprocess.run(
                    [*base, "--worker", tool, group], capture_output=True, text=True
                )
                if out.returncode != 0:
                    print(f"  {tool} ({group}) failed:\n{out.stderr[-2000:]}")
                    continue
                runs.setdefault(tool, []).append(json.loads(out.stdout.splitlines()[-1])["seconds"])
        medians = {tool: statistics.median(times) for tool, times in runs.items()}
        ours = medians.get("ragmeter", float("nan"))
        print(f"\n-m {group} -q from TREC files")
        print(f"  {'tool':<12} {'seconds':>8} {'vs ragmeter':>12}")
        for tool, seconds in medians.items():
            print(f"  {tool:<12} {seconds:>8.3f} {seconds / ours:>11.1f}x")
    print(f"\nragmeter evaluate -q -m all_trec prints trec_eval's output: {same_output(args)}")


if __name__ == "__main__":
    main()
