"""A TREC-scale campaign end to end (issue 52): every run evaluated, all pairs compared with
the paired Tukey HSD and with the randomised Tukey HSD, the HTML report built; each step's
time and memory.

    python benches/bench_campaign.py [--systems 150] [--queries 105] [--docs 100]
                                     [--resamples 10000] [--steps evaluate,tukey,randomised,report]

Synthetic campaign: ``--queries`` topics with 30 judged documents each (grades 0-3), and
``--systems`` runs of ``--docs`` documents per topic (the judged documents placed by a
system-specific quality plus noise among unjudged ones). Steps, in one process, in order:

* ``evaluate``: ``ranking_metrics(qrels, run, average=None)`` of every run, 5 measures
  (nDCG@10, AP, P@10, recall@100, RR), the per-query values kept for the comparisons;
* ``tukey``: ``compare_many(test="tukey")``, all pairs (the paired Tukey HSD, Sakai 2018);
* ``randomised``: ``compare_many(test="randomised-tukey", n_resamples=--resamples)``, all pairs
  (Carterette 2012's randomised Tukey HSD, every query's row permuted);
* ``report``: ``ragmeter.report`` of the Tukey comparison written to a file (its size printed).

No peer does these steps as one (ranx's ``compare`` runs a test per pair; see
``bench_compare.py`` and ``bench_campaign_stats.py`` for the tests against peers), so the
figures are absolute: wall (perf_counter), CPU (process_time, all threads), the process's
resident memory after the step and its peak so far (``ru_maxrss``).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

import ragmeter

METRICS = ["ndcg_cut_10", "map", "P_10", "recall_100", "recip_rank"]


def campaign(n_systems: int, n_queries: int, n_docs: int, seed: int = 0) -> tuple[Any, Any]:
    """(qrels, {system: run}) as dicts."""
    rng = np.random.default_rng(seed)
    qrels = {
        f"q{q}": {f"d{q}_{i}": int(g) for i, g in enumerate(rng.integers(0, 4, size=30))}
        for q in range(n_queries)
    }
    runs = {}
    for s in range(n_systems):
        quality = rng.uniform(0.2, 1.5)
        run = {}
        for q in range(n_queries):
            judged = [f"d{q}_{i}" for i in range(30)]
            grades = np.array([qrels[f"q{q}"][d] for d in judged], dtype=float)
            scores = quality * grades + rng.normal(0.0, 1.0, size=30)
            others = rng.normal(-0.5, 1.0, size=max(n_docs - 30, 0))
            docs = judged + [f"x{q}_{s}_{i}" for i in range(len(others))]
            values = np.concatenate([scores, others])
            run[f"q{q}"] = dict(zip(docs[:n_docs], values[:n_docs].tolist(), strict=True))
        runs[f"sys{s:03d}"] = run
    return qrels, runs


def rss_mib() -> float:
    """The process's resident memory now."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def step(name: str, f: Any) -> Any:
    wall, cpu = time.perf_counter(), time.process_time()
    value = f()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"{name:<44} {wall:>8.2f} {cpu:>8.2f} {rss_mib():>9.0f} {peak_mib():>9.0f}  "
        f"load {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    return value


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", type=int, default=150)
    ap.add_argument("--queries", type=int, default=105)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--resamples", type=int, default=10000)
    ap.add_argument("--steps", default="evaluate,tukey,randomised,report")
    args = ap.parse_args()
    steps = args.steps.split(",")
    qrels, runs = campaign(args.systems, args.queries, args.docs)
    n_pairs = args.systems * (args.systems - 1) // 2
    print(
        f"{args.systems} runs x {args.queries} topics x {args.docs} docs, {len(METRICS)} "
        f"measures, {n_pairs:,} pairs; ragmeter {ragmeter.__version__}; "
        f"load average {os.getloadavg()[0]:.2f}; after building the inputs: "
        f"{rss_mib():.0f} MiB resident"
    )
    print(f"{'step':<44} {'wall s':>8} {'CPU s':>8} {'RSS MiB':>9} {'peak MiB':>9}")
    values = step(
        "evaluate (ranking_metrics, every run)",
        lambda: {
            name: ragmeter.ranking_metrics(qrels, run, metrics=METRICS, average=None)
            for name, run in runs.items()
        },
    )
    runs.clear()  # the dicts are no longer needed
    tukey = None
    if "tukey" in steps or "report" in steps:
        tukey = step(
            "compare_many(test='tukey'), all pairs",
            lambda: ragmeter.compare_many(values, test="tukey"),
        )
    if "randomised" in steps:
        step(
            f"compare_many(test='randomised-tukey', B={args.resamples})",
            lambda: ragmeter.compare_many(
                values, test="randomised-tukey", n_resamples=args.resamples
            ),
        )
    if "report" in steps:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "report.html"
            step(
                "report (HTML of the Tukey comparison)", lambda: ragmeter.report(tukey, output=path)
            )
            print(f"report file: {path.stat().st_size / 2**20:.1f} MiB")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
