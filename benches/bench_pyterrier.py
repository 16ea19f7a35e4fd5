"""PyTerrier's pt.Experiment end to end, with and without ragmeter's ir_measures provider.

    python benches/bench_pyterrier.py [--queries 10000] [--docs 1000] [--judged 50] [--rounds 1]

Two systems' result frames (``qid``, ``docno``, ``score``, ``rank``: the deterministic
synthetic data of ``bench_ranking.py``, 10,000 queries x 1,000 scored docs, ~50 judged docs
per query with grades 0-3; the second system's scores perturbed) given to
``pt.Experiment([a, b], topics, qrels, [AP, nDCG@10, P@10, R@100, RR], baseline=0)``: what a
PyTerrier user runs, PyTerrier's own work (frames, the table, the t-test) included. Each
setting runs in its own process, which builds the frames before the clock starts; ``with
provider`` calls ``ragmeter.integrations.ir_measures.install()`` first (the measures go to
ragmeter's core through Arrow), ``without`` is ir_measures' default pipeline (pytrec_eval).
The clock starts after a first pt.Experiment on three queries (a process's first
imports every provider of ir_measures, whichever computes). Prints wall and CPU seconds, the
ratio and both settings' means (which must agree).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _synthetic import make_dicts  # noqa: E402

SETTINGS = ["without", "with provider"]


def _frames(n_queries: int, n_docs: int, n_judged: int):
    import numpy as np
    import pandas as pd

    qrels, run = make_dicts(n_queries, n_docs, n_judged)
    judged = pd.DataFrame(
        [(q, d, g) for q, docs in qrels.items() for d, g in docs.items()],
        columns=["qid", "docno", "label"],
    )
    qids = [q for q, docs in run.items() for _ in docs]
    docnos = [d for docs in run.values() for d in docs]
    scores = np.array([s for docs in run.values() for s in docs.values()])
    rng = np.random.default_rng(7)
    frames = []
    for noise in (0.0, 0.3):
        perturbed = scores + noise * rng.random(scores.size)
        frame = pd.DataFrame({"qid": qids, "docno": docnos, "score": perturbed})
        frame["rank"] = frame.groupby("qid")["score"].rank(ascending=False, method="first")
        frames.append(frame)
    topics = pd.DataFrame({"qid": list(run), "query": ["q"] * len(run)})
    return topics, judged, frames


def _child(args: argparse.Namespace) -> None:
    import pyterrier as pt
    from ir_measures import AP, RR, P, R, nDCG

    topics, qrels, frames = _frames(args.queries, args.docs, args.judged)
    if args.child == "with provider":
        from ragmeter.integrations import ir_measures as provider

        provider.install()
    measures = [AP, nDCG @ 10, P @ 10, R @ 100, RR]
    # Warm up on three queries: the first pt.Experiment of a process imports every provider of
    # ir_measures (ranx, scipy.stats: ~5 s here), whichever computes the measures.
    few = topics.head(3)
    small = [f[f.qid.isin(few.qid)] for f in frames]
    pt.Experiment(small, few, qrels, measures, names=["a", "b"], baseline=0, verbose=False)
    wall, cpu = time.perf_counter(), time.process_time()
    table = pt.Experiment(
        frames, topics, qrels, measures, names=["a", "b"], baseline=0, verbose=False
    )
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    means = {str(m): float(table.loc[1, str(m)]) for m in measures}
    print(json.dumps({"wall": wall, "cpu": cpu, "means": means}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--judged", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=1, help="rounds, settings alternating")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args)
        return
    print(
        f"pt.Experiment, 2 systems, {args.queries:,} queries x {args.docs:,} docs, "
        f"{args.judged} judged per query; load average {os.getloadavg()[0]:.1f}; "
        f"median of {args.rounds} round(s)"
    )
    results: dict[str, list[dict]] = {s: [] for s in SETTINGS}
    for _ in range(args.rounds):
        for setting in SETTINGS:
            command = [sys.executable, __file__, "--child", setting]
            command += ["--queries", str(args.queries), "--docs", str(args.docs)]
            command += ["--judged", str(args.judged)]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            results[setting].append(json.loads(done.stdout.strip().splitlines()[-1]))

    def median(setting: str, key: str) -> float:
        values = sorted(r[key] for r in results[setting])
        return values[len(values) // 2]

    base_wall, base_cpu = median("with provider", "wall"), median("with provider", "cpu")
    means = list(results["without"][0]["means"])
    print("| setting | wall s | CPU s | wall vs with provider | " + " | ".join(means) + " |")
    print("|---|---:|---:|---:|" + "---:|" * len(means))
    for setting in SETTINGS:
        wall, cpu = median(setting, "wall"), median(setting, "cpu")
        row = " | ".join(f"{results[setting][0]['means'][m]:.6f}" for m in means)
        print(f"| {setting} | {wall:.2f} | {cpu:.2f} | {wall / base_wall:.1f}x | {row} |")
    print(f"CPU ratio: {median('without', 'cpu') / base_cpu:.1f}x")


if __name__ == "__main__":
    main()
