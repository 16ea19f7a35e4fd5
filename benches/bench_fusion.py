"""Fusion: ragmeter against ranx (warm: numba compiled first) on the same runs, every method,
ratios printed in one run; peak memory of each side measured in its own subprocess.

    python benches/bench_fusion.py --queries 1000 --docs 1000 --runs 5 [--threads N]

Runs are random `{query: {doc: score}}` dicts with distinct scores, documents drawn from a
pool of 2 x docs per query; the trained methods use parameters learnt on the same runs from
random judgments (training is not timed)."""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time

PARAMS = {
    "gmnz": {"gamma": 0.5},
    "wsum": None,
    "wmnz": None,
    "mixed": None,
    "rrf": {"k": 60},
    "logn_isr": {"sigma": 0.01},
    "w_bordafuse": None,
    "w_condorcet": None,
    "rbc": {"phi": 0.8},
    "slidefuse": {"w": 2},
}
TRAINED = {
    "posfuse": "probs",
    "probfuse": "probs",
    "segfuse": "probs",
    "slidefuse": "probs",
    "mapfuse": "map_scores",
    "bayesfuse": "log_odds",
}


def make(n_runs: int, n_queries: int, n_docs: int, seed: int = 0):
    rng = random.Random(seed)
    pool = [f"doc{i}" for i in range(2 * n_docs)]
    runs = [
        {f"q{q}": {d: rng.random() for d in rng.sample(pool, n_docs)} for q in range(n_queries)}
        for _ in range(n_runs)
    ]
    qrels = {f"q{q}": {d: 1 for d in rng.sample(pool, 20)} for q in range(n_queries)}
    return runs, qrels


def params_for(method: str, n_runs: int, learnt: dict) -> dict:
    p = PARAMS.get(method, {})
    p = {"weights": [1.0 / n_runs] * n_runs} if p is None else dict(p)
    if method in TRAINED:
        p[TRAINED[method]] = learnt[method]
    return p


def side(tool: str, n_runs: int, n_queries: int, n_docs: int, threads: int | None, methods):
    runs, qrels = make(n_runs, n_queries, n_docs)
    from ragmeter.fusion import train_fusion

    learnt = {
        m: train_fusion(qrels, runs, m, norm="min-max", n_segments=10 if m == "probfuse" else None)
        for m in TRAINED
    }
    learnt = {
        m: [list(map(float, v)) for v in x] if isinstance(x[0], list) else x
        for m, x in learnt.items()
    }
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    times = {}
    cpu = {}
    end_to_end = {}
    if tool == "ragmeter":
        from ragmeter.fusion import fuse, prepare_runs

        # As ranx's Run objects, the runs are read once (not timed) and the fused run stays
        # in the core (ranx's stays in numba); the end-to-end figure reads the dicts and builds
        # the output dict as well.
        prepared = prepare_runs(runs)
        # Untimed, as ranx's compile call: the pool's threads start and the allocator's arenas
        # grow here, not inside the first method's figure.
        fuse(prepared, method="sum", norm="min-max", n_threads=threads)
        for m in methods:
            p = params_for(m, n_runs, learnt)
            t, c = time.perf_counter(), time.process_time()
            fuse(prepared, method=m, norm="min-max", n_threads=threads, **p)
            times[m], cpu[m] = time.perf_counter() - t, time.process_time() - c
            t = time.perf_counter()
            fuse(runs, method=m, norm="min-max", n_threads=threads, **p).to_dict()
            end_to_end[m] = time.perf_counter() - t
    else:
        import numpy as np
        import ranx

        rruns = [ranx.Run.from_dict(r) for r in runs]
        small = [ranx.Run.from_dict({"q0": dict(list(r["q0"].items())[:5])}) for r in runs]
        for m in methods:
            p = params_for(m, n_runs, learnt)
            p = {
                k: ([np.array(v) for v in x] if k in ("probs", "log_odds") else x)
                for k, x in p.items()
            }
            ranx.fuse(small, norm="min-max", method=m, params=p)  # numba compiles here
            t, c = time.perf_counter(), time.process_time()
            ranx.fuse(rruns, norm="min-max", method=m, params=p)
            times[m], cpu[m] = time.perf_counter() - t, time.process_time() - c
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {"times": times, "cpu": cpu, "end_to_end": end_to_end, "peak_mib": (peak - base) / 1024}
        )
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--threads", type=int)
    ap.add_argument("--methods", nargs="+")
    ap.add_argument("--side")
    a = ap.parse_args()
    from ragmeter.fusion import METHODS

    methods = a.methods or list(METHODS)
    if a.side:
        side(a.side, a.runs, a.queries, a.docs, a.threads, methods)
        return
    results = {}
    for tool in ("ragmeter", "ranx"):
        cmd = [
            sys.executable,
            __file__,
            "--side",
            tool,
            "--runs",
            str(a.runs),
            "--queries",
            str(a.queries),
            "--docs",
            str(a.docs),
            "--methods",
            *methods,
        ]
        if a.threads:
            cmd += ["--threads", str(a.threads)]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        results[tool] = json.loads(out.strip().splitlines()[-1])
    print(f"{a.runs} runs x {a.queries} queries x {a.docs} docs, norm min-max, inputs dicts")
    print("fuse of prepared runs (ragmeter) against fuse of Run objects (ranx), wall and CPU;")
    print("ragmeter end to end: from the dicts to the output dict")
    print(
        f"{'method':<12} {'ours wall':>9} {'ranx wall':>9} {'ratio':>6} "
        f"{'ours CPU':>8} {'ranx CPU':>8} {'ratio':>6} {'ours e2e':>8} {'ratio':>6}"
    )
    ours, theirs = results["ragmeter"], results["ranx"]
    for m in [*methods, "all"]:
        if m == "all":
            w_o, w_r = sum(ours["times"].values()), sum(theirs["times"].values())
            c_o, c_r = sum(ours["cpu"].values()), sum(theirs["cpu"].values())
            e_o = sum(ours["end_to_end"].values())
        else:
            w_o, w_r = ours["times"][m], theirs["times"][m]
            c_o, c_r = ours["cpu"][m], theirs["cpu"][m]
            e_o = ours["end_to_end"][m]
        print(
            f"{m:<12} {w_o:>9.3f} {w_r:>9.3f} {w_r / w_o:>5.1f}x "
            f"{c_o:>8.3f} {c_r:>8.3f} {c_r / c_o:>5.1f}x {e_o:>8.3f} {w_r / e_o:>5.1f}x"
        )
    print(
        f"peak memory over the inputs: ragmeter {results['ragmeter']['peak_mib']:.0f} MiB, "
        f"ranx {results['ranx']['peak_mib']:.0f} MiB"
    )


if __name__ == "__main__":
    main()
