"""Tie-aware nDCG: ragmeter's closed form against scikit-learn's ndcg_score(ignore_ties=False),
and ragmeter's tie-aware measures against its plain ones, in one run.

    python benches/bench_tie_aware.py [--queries 2000] [--docs 1000] [--judged 50] [--levels 20]

The synthetic run of bench_ranking.py (``_synthetic.py``) with its scores rounded to
``--levels`` values, so that about docs / levels documents share each score. scikit-learn
reads a dense matrix of grades and scores over the ranked documents (built outside the timing;
its ideal DCG is over the ranked documents only, so the judged documents that were not
retrieved are left out of both tools' judgments). Prints wall and CPU time (best of
``--repeat``) and the ratios; the means agree to 1e-12.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _synthetic import make_dicts


def _best(repeat: int, call):
    best = (float("inf"), float("inf"), None)
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        value = call()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        best = min(best, (wall, cpu, value), key=lambda b: b[0])
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=50)
    parser.add_argument("--levels", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from sklearn.metrics import ndcg_score

    import ragmeter

    qrels, run = make_dicts(args.queries, args.docs, args.judged)
    run = {
        q: {d: round(s * args.levels) / args.levels for d, s in r.items()} for q, r in run.items()
    }
    qrels = {q: {d: g for d, g in judged.items() if d in run[q]} for q, judged in qrels.items()}
    ids = {q: list(r) for q, r in run.items()}
    y_true = np.array([[qrels[q].get(d, 0) for d in ids[q]] for q in run], dtype=float)
    y_score = np.array([[run[q][d] for d in ids[q]] for q in run])
    keep = y_true.sum(axis=1) > 0
    qrels = {q: j for q, j, k in zip(qrels, qrels.values(), keep, strict=True) if k}
    run = {q: run[q] for q in qrels}
    y_true, y_score = y_true[keep], y_score[keep]

    def ragmeter_call(metrics):
        return lambda: ragmeter.ranking_metrics(qrels, run, metrics=metrics, zero_division=0.0)

    rows = [
        ("ragmeter ndcg_ta@10", ragmeter_call(["ndcg_ta@10"]), "ndcg_ta@10"),
        ("ragmeter ndcg@10 (trec_eval's ties)", ragmeter_call(["ndcg@10"]), "ndcg@10"),
        (
            "scikit-learn ndcg_score(k=10, ignore_ties=False)",
            lambda: {"ndcg": ndcg_score(y_true, y_score, k=10, ignore_ties=False)},
            "ndcg",
        ),
    ]
    five_ta = ["ndcg_ta@10", "map_ta", "recall_ta@100", "mrr_ta", "precision_ta@10"]
    five = ["ndcg@10", "map", "recall@100", "mrr", "precision@10"]
    rows += [
        ("ragmeter, 5 tie-aware measures", ragmeter_call(five_ta), five_ta[0]),
        ("ragmeter, their 5 measures", ragmeter_call(five), five[0]),
    ]
    # Warm up (the core's thread pool, scikit-learn's imports) outside the timings.
    ragmeter_call(five_ta)()
    ndcg_score(y_true[:2], y_score[:2], k=10, ignore_ties=False)
    print(f"{len(qrels)} queries x {args.docs} docs, scores on {args.levels} levels")
    print(f"{'':52} {'wall s':>8} {'CPU s':>8} {'vs first':>9}  nDCG@10 mean")
    first = None
    for name, call, key in rows:
        wall, cpu, value = _best(args.repeat, call)
        first = first or wall
        print(f"{name:52} {wall:8.3f} {cpu:8.3f} {wall / first:8.1f}x  {float(value[key]):.12f}")


if __name__ == "__main__":
    main()
