"""One small call: ragmeter.ranking_metrics vs pytrec_eval (build + evaluate) and ir_measures.

    python benches/bench_small_calls.py [--sizes 1x10,10x100,100x100] [--repeat 2000]

What a scorer called per fold, per query or per sample pays on every call: 5 measures
(ndcg@10, map, recall@100, mrr, precision@10) over tiny inputs made fresh dicts of
``Q`` queries x ``D`` ranked documents (half of them judged, grades 0-2). Each tool is timed
over ``--repeat`` calls, alternating the tools in ``--rounds`` rounds in one process, and the
median round is printed per call, in wall (perf_counter) and CPU (process_time) microseconds,
with the ratio peer / ragmeter. pytrec_eval's figure includes building its RelevanceEvaluator
(a scorer meets new judgments each call) and the means in Python; ir_measures' is
``calc_aggregate``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

RAGMETER = ["ndcg@10", "map", "recall@100", "mrr", "precision@10"]
PYTREC = {"ndcg_cut.10", "map", "recall.100", "recip_rank", "P.10"}
PYTREC_KEYS = ["ndcg_cut_10", "map", "recall_100", "recip_rank", "P_10"]


def make_inputs(n_queries: int, n_docs: int, seed: int = 7) -> tuple[dict, dict]:
    rng = random.Random(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(n_queries):
        docs = [f"d{i}" for i in range(n_docs)]
        qrels[f"q{q}"] = {d: rng.randint(0, 2) for d in docs if rng.random() < 0.5} or {docs[0]: 1}
        run[f"q{q}"] = {d: rng.random() for d in docs}
    return qrels, run


def tools(qrels: dict, run: dict) -> dict[str, Callable[[], Any]]:
    import ir_measures
    import pytrec_eval

    import ragmeter

    def ragmeter_call() -> Any:
        return ragmeter.ranking_metrics(qrels, run, metrics=RAGMETER)

    def pytrec_call() -> Any:
        per_query = pytrec_eval.RelevanceEvaluator(qrels, PYTREC).evaluate(run)
        n = len(per_query)
        return {k: sum(v[k] for v in per_query.values()) / n for k in PYTREC_KEYS}

    measures = [
        ir_measures.nDCG @ 10,
        ir_measures.AP,
        ir_measures.R @ 100,
        ir_measures.RR,
        ir_measures.P @ 10,
    ]

    def ir_measures_call() -> Any:
        return ir_measures.calc_aggregate(measures, qrels, run)

    return {"ragmeter": ragmeter_call, "pytrec_eval": pytrec_call, "ir_measures": ir_measures_call}


def time_calls(call: Callable[[], Any], repeat: int) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        call()
    return (
        (time.perf_counter() - wall) / repeat * 1e6,
        (time.process_time() - cpu) / repeat * 1e6,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1x10,10x100,100x100,1000x100")
    parser.add_argument("--repeat", type=int, default=2000, help="calls per round (1x10)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")
    print(f"{'size':>9} {'tool':>12} {'wall us':>10} {'CPU us':>10} {'CPU ratio':>10}")
    for size in args.sizes.split(","):
        n_queries, n_docs = (int(x) for x in size.split("x"))
        qrels, run = make_inputs(n_queries, n_docs)
        calls = tools(qrels, run)
        # The same call budget in documents for each size, at least 20 calls.
        repeat = max(20, args.repeat * 10 // (n_queries * n_docs))
        for call in calls.values():
            call()  # warm: imports, caches, thread pool
        rounds: dict[str, list[tuple[float, float]]] = {name: [] for name in calls}
        for _ in range(args.rounds):
            for name, call in calls.items():
                rounds[name].append(time_calls(call, repeat))
        medians = {
            name: (
                statistics.median(w for w, _ in values),
                statistics.median(c for _, c in values),
            )
            for name, values in rounds.items()
        }
        base = medians["ragmeter"][1]
        for name, (wall, cpu) in medians.items():
            print(f"{size:>9} {name:>12} {wall:>10.1f} {cpu:>10.1f} {cpu / base:>9.2f}x")
    print(f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f}")


if __name__ == "__main__":
    main()
