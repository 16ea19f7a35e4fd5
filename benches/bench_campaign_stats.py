"""Campaign statistics (issue 23): the randomised Tukey HSD test and rank-biased overlap, with
their peers in the same run.

* ``tukey``: ``--systems`` systems x ``--queries`` queries x ``--permutations`` permutations
  (default 10 x 1,000 x 10,000): ragmeter's ``randomised_tukey_hsd`` (Rust core, all threads)
  against a vectorised numpy implementation of the same test (``rng.permuted`` of every
  query's row in chunks of permutations, the range of system means, the +1 rule). Different
  random streams, so the p-values agree up to Monte-Carlo noise (about 1/sqrt(permutations)).
* ``rbo``: ``--runs`` runs x ``--rbo-queries`` queries x ``--depth`` ranked documents (default
  50 x 10,000 x 100), every run against the first, from Python dicts ``{query: [doc, ...]}``
  (ragmeter's time includes reading the dicts and encoding them for the core); the ``rbo``
  package (pure Python, ``RankingSimilarity(...).rbo_ext(p)``) runs on ``--peer-queries``
  queries of every pair and its time is extrapolated to all queries (said in the output).
  The runs are generated one at a time, outside the timings, to keep memory low.
* ``pairs`` (only with ``--only pairs``; issue 52): ``compare_many`` of all pairs of
  ``--pair-systems`` systems x ``--pair-queries`` queries x 5 metrics (default 300 x 1,000:
  44,850 pairs), once per test of ``--pair-tests`` (default ``t``, ``tukey``,
  ``randomised-tukey`` with ``--permutations``), each in its own process: wall, CPU (every
  thread) and the process's peak resident memory, before and during the comparison. No peer
  runs all pairs of a campaign as one call (ranx tests pair by pair), so the figures are
  absolute.

Run: ``python benches/bench_campaign_stats.py`` (``--quick`` for a smoke run). Prints wall
seconds, CPU seconds, the ratio to ragmeter and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import time

import numpy as np

import ragmeter
from ragmeter.agreement import rank_biased_overlap
from ragmeter.stats.randomised import randomised_tukey_hsd


def timed(f):
    wall, cpu = time.perf_counter(), time.process_time()
    value = f()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def numpy_randomised_tukey(scores: np.ndarray, n_permutations: int, seed: int) -> np.ndarray:
    """The randomised Tukey HSD p-values of all pairs (m x m), numpy only."""
    rng = np.random.default_rng(seed)
    n, m = scores.shape
    observed = scores.mean(axis=0)
    differences = np.abs(observed[:, None] - observed[None, :])
    chunk = max(1, 2_000_000 // (n * m))
    ranges = []
    done = 0
    while done < n_permutations:
        size = min(chunk, n_permutations - done)
        block = np.broadcast_to(scores, (size, n, m))
        permuted = rng.permuted(block, axis=2)
        means = permuted.mean(axis=1)
        ranges.append(means.max(axis=1) - means.min(axis=1))
        done += size
    all_ranges = np.sort(np.concatenate(ranges))
    reached = n_permutations - np.searchsorted(all_ranges, differences - 1e-12, side="left")
    return (reached + 1) / (n_permutations + 1)


def bench_tukey(args) -> None:
    rng = np.random.default_rng(0)
    topic = rng.random((args.queries, 1))
    scores = np.clip(topic + rng.normal(0, 0.1, (args.queries, args.systems)), 0, 1)
    scores[:, 1] += 0.01  # one small true difference
    ours, ours_wall, ours_cpu = min(
        (
            timed(
                lambda: randomised_tukey_hsd(
                    scores, method="sampled", n_resamples=args.permutations, random_state=1
                )
            )
            for _ in range(args.repeat)
        ),
        key=lambda t: t[1],
    )
    peer, peer_wall, peer_cpu = timed(
        lambda: numpy_randomised_tukey(scores, args.permutations, seed=1)
    )
    print(
        f"\nrandomised Tukey HSD: {args.systems} systems x {args.queries} queries x "
        f"{args.permutations} permutations"
    )
    print("| tool | wall s | CPU s | vs ragmeter (wall) |")
    print("|---|---:|---:|---:|")
    print(f"| ragmeter `randomised_tukey_hsd` | {ours_wall:.3f} | {ours_cpu:.3f} | 1.0x |")
    print(
        f"| numpy (`rng.permuted`, chunks) | {peer_wall:.3f} | {peer_cpu:.3f} | "
        f"{peer_wall / ours_wall:.1f}x |"
    )
    gap = np.abs(ours.p_values - peer).max()
    print(f"largest p-value difference (Monte-Carlo noise): {gap:.4f}")


def make_run(rng: random.Random, n_queries: int, depth: int, pool: list[list[str]], base=None):
    """A run: a perturbation of ``base`` (or a fresh ranking) per query."""
    run = {}
    for q in range(n_queries):
        if base is None:
            run[f"q{q}"] = rng.sample(pool[q], depth)
        else:
            ranking = list(base[f"q{q}"])
            for _ in range(depth // 4):  # local swaps and a few replaced documents
                i = rng.randrange(depth - 1)
                ranking[i], ranking[i + 1] = ranking[i + 1], ranking[i]
            for _ in range(depth // 10):
                candidate = rng.choice(pool[q])
                if candidate not in ranking:
                    ranking[rng.randrange(depth)] = candidate
            run[f"q{q}"] = ranking
    return run


def bench_rbo(args) -> None:
    import rbo  # the peer: pip install rbo (--no-deps: it pins numpy < 2)

    rng = random.Random(0)
    pool = [[f"d{q}_{i}" for i in range(3 * args.depth)] for q in range(args.rbo_queries)]
    reference = make_run(rng, args.rbo_queries, args.depth, pool)
    ours_wall = ours_cpu = peer_wall = peer_cpu = 0.0
    gap = 0.0
    peer_queries = [f"q{q}" for q in range(min(args.peer_queries, args.rbo_queries))]
    for _ in range(args.runs - 1):
        run = make_run(rng, args.rbo_queries, args.depth, pool, base=reference)
        result, wall, cpu = timed(lambda run=run: rank_biased_overlap(reference, run, p=args.p))
        ours_wall += wall
        ours_cpu += cpu
        values, wall, cpu = timed(
            lambda run=run: [
                rbo.RankingSimilarity(reference[q], run[q]).rbo_ext(args.p) for q in peer_queries
            ]
        )
        peer_wall += wall
        peer_cpu += cpu
        ours = result.per_query()
        gap = max(gap, max(abs(ours[q] - v) for q, v in zip(peer_queries, values, strict=True)))
    scale = args.rbo_queries / len(peer_queries)
    print(
        f"\nrank-biased overlap (p={args.p}): {args.runs - 1} runs against a reference, "
        f"{args.rbo_queries} queries x {args.depth} documents, from Python dicts"
    )
    print("| tool | wall s | CPU s | vs ragmeter (wall) |")
    print("|---|---:|---:|---:|")
    print(f"| ragmeter `rank_biased_overlap` | {ours_wall:.3f} | {ours_cpu:.3f} | 1.0x |")
    print(
        f"| rbo package `rbo_ext` (measured on {len(peer_queries)} queries per run, x{scale:.0f}) "
        f"| {peer_wall * scale:.3f} | {peer_cpu * scale:.3f} | "
        f"{peer_wall * scale / ours_wall:.1f}x |"
    )
    print(f"largest RBO_ext difference on the measured queries: {gap:.2e}")


def pairs_child(args) -> None:
    """One all-pairs comparison in this process; prints its figures as JSON."""
    rng = np.random.default_rng(0)
    queries = [f"q{i}" for i in range(args.pair_queries)]
    systems = {
        f"s{s:03d}": ragmeter.PerQueryResults(
            {
                m: rng.random(args.pair_queries) * 0.5 + s / (4 * args.pair_systems)
                for m in ("ndcg_cut_10", "map", "P_10", "recall_100", "recip_rank")
            },
            queries,
        )
        for s in range(args.pair_systems)
    }
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result, wall, cpu = timed(
        lambda: ragmeter.compare_many(systems, test=args.pairs_child, n_resamples=args.permutations)
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        json.dumps(
            {"pairs": len(result.pairs), "wall": wall, "cpu": cpu, "before": before, "peak": peak}
        )
    )


def bench_pairs(args) -> None:
    print(
        f"\nall pairs: {args.pair_systems} systems x {args.pair_queries} queries x 5 metrics "
        f"(randomised Tukey: {args.permutations:,} permutations)"
    )
    print(
        f"{'test':<18} {'pairs':>7} {'wall s':>8} {'CPU s':>8} {'MiB before':>11} {'peak MiB':>9}"
    )
    for test in args.pair_tests.split(","):
        command = [sys.executable, __file__, "--pairs-child", test]
        command += ["--pair-systems", str(args.pair_systems), "--pair-queries"]
        command += [str(args.pair_queries), "--permutations", str(args.permutations)]
        out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        found = json.loads(out.strip().splitlines()[-1])
        print(
            f"{test:<18} {found['pairs']:>7} {found['wall']:>8.2f} {found['cpu']:>8.2f} "
            f"{found['before']:>11.0f} {found['peak']:>9.0f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--systems", type=int, default=10)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--permutations", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--rbo-queries", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--peer-queries", type=int, default=500)
    parser.add_argument("--p", type=float, default=0.9)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", choices=["tukey", "rbo", "pairs"])
    parser.add_argument("--pair-systems", type=int, default=300)
    parser.add_argument("--pair-queries", type=int, default=1000)
    parser.add_argument("--pair-tests", default="t,tukey,randomised-tukey")
    parser.add_argument("--pairs-child", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if args.pairs_child:
        pairs_child(args)
        return
    if args.quick:
        args.queries, args.permutations, args.runs, args.rbo_queries = 100, 1000, 4, 300
        args.peer_queries, args.repeat = 50, 1
    print(
        f"ragmeter {ragmeter.__version__}, numpy {np.__version__}, Python "
        f"{platform.python_version()}, {os.cpu_count()} CPUs, load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    if args.only in (None, "tukey"):
        bench_tukey(args)
    if args.only in (None, "rbo"):
        bench_rbo(args)
    if args.only == "pairs":
        bench_pairs(args)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
