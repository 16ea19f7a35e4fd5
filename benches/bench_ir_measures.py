"""ir_measures' measures beyond trec_eval: ragmeter vs ir_measures, in one run.

    python benches/bench_ir_measures.py [--queries 10000] [--docs 1000] [--judged 50]

ERR@20 (gdeval), RBP(p=0.8) (trectools), Judged@10 (judged) and nDCG@10 (pytrec_eval) together,
from Python dicts: the deterministic synthetic data of ``bench_ranking.py`` (10,000 queries x
1,000 scored docs, ~50 judged docs per query with grades 0-3), with query ids that are
numbers (gdeval refuses others). ir_measures runs with its providers in front of its default
pipeline, trectools included (the default pipeline has no provider for RBP without rel=).
Each tool runs in its own process; prints seconds, the ratio to ragmeter and both tools'
means (gdeval prints 5 decimals per query, so ERR's means agree to about 6).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _synthetic import make_dicts  # noqa: E402

MEASURES = ["ERR@20", "RBP(p=0.8)", "Judged@10", "nDCG@10"]
TOOLS = ["ragmeter", "ir_measures"]


def _data(n_queries: int, n_docs: int, n_judged: int):
    qrels, run = make_dicts(n_queries, n_docs, n_judged)
    # gdeval reads numeric topic ids only.
    return (
        {q[1:]: judged for q, judged in qrels.items()},
        {q[1:]: ranking for q, ranking in run.items()},
    )


def _evaluate(tool: str, qrels, run) -> dict[str, float]:
    if tool == "ragmeter":
        import ragmeter

        results = ragmeter.ranking_metrics(qrels, run, metrics=MEASURES, zero_division=0.0)
        return {m: float(results[m]) for m in MEASURES}
    import ir_measures
    from ir_measures import providers

    pipeline = providers.FallbackProvider(
        [ir_measures.pytrec_eval, ir_measures.gdeval, ir_measures.judged, ir_measures.trectools]
    )
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    values = pipeline.calc_aggregate(measures, qrels, run)
    return {m: float(values[parsed]) for m, parsed in zip(MEASURES, measures, strict=True)}


def _child(args: argparse.Namespace) -> None:
    qrels, run = _data(args.queries, args.docs, args.judged)
    times, means = [], {}
    for _ in range(args.repeat):
        start = time.perf_counter()
        means = _evaluate(args.child, qrels, run)
        times.append(time.perf_counter() - start)
    print(json.dumps({"seconds": min(times), "means": means}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--judged", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=1, help="best of N (per tool)")
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    print(
        f"{args.queries:,} queries x {args.docs:,} docs, {args.judged} judged per query; "
        f"measures: {', '.join(MEASURES)} (best of {args.repeat})"
    )
    results = {}
    for tool in args.tools.split(","):
        command = [sys.executable, __file__, "--child", tool]
        command += ["--queries", str(args.queries), "--docs", str(args.docs)]
        command += ["--judged", str(args.judged), "--repeat", str(args.repeat)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        results[tool] = json.loads(done.stdout.strip().splitlines()[-1])
    base = results.get("ragmeter", {}).get("seconds")
    print("| tool | seconds | vs ragmeter | " + " | ".join(MEASURES) + " |")
    print("|---|---:|---:|" + "---:|" * len(MEASURES))
    for tool, result in results.items():
        ratio = f"{result['seconds'] / base:.1f}x" if base else ""
        means = " | ".join(f"{result['means'][m]:.6f}" for m in MEASURES)
        print(f"| {tool} | {result['seconds']:.3f} | {ratio} | {means} |")


if __name__ == "__main__":
    main()
