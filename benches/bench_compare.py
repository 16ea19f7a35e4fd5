"""Paired randomisation tests: ragmeter's sign-flip test vs ranx and scipy, in one run.

The workload: two systems on ``--queries`` queries, ``--metrics`` metrics, ``--resamples``
random sign vectors (permutations) per test. ranx's per-query metric values of both runs give
one difference matrix (metrics x queries) that every tool tests:

* ragmeter ``sign_flip_test`` (all metrics at once, same sign vectors for every metric);
* ranx ``fisher_randomization_test`` (its numba kernel, once per metric) and ranx ``compare``
  with ``stat_test="fisher"`` end to end (it also evaluates the metrics);
* ``scipy.stats.permutation_test`` with ``permutation_type="samples"`` (sign flips for one
  sample), vectorised over the metric axis, so also all metrics at once.

Run: ``python benches/bench_compare.py`` (add ``--quick`` for a smoke run). Prints seconds per
tool (ragmeter: best of ``--repeat``; the much slower peers run once), the ratio to
ragmeter, and the largest p-value difference from ragmeter (Monte-Carlo noise, about
1/sqrt(resamples)).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings
from importlib.metadata import version

import numpy as np

import ragmeter

METRICS = [
    "ndcg@5",
    "ndcg@10",
    "ndcg@100",
    "map@100",
    "mrr@100",
    "precision@5",
    "precision@10",
    "recall@10",
    "recall@100",
    "hit_rate@10",
]


def synthetic_runs(n_queries: int, docs_per_query: int, seed: int):
    """qrels with ~20 judged documents per query; a baseline run and a candidate run whose
    scores are the baseline's plus noise and a small boost for relevant documents."""
    rng = np.random.default_rng(seed)
    qrels, base, cand = {}, {}, {}
    for q in range(n_queries):
        docs = [f"d{q}_{i}" for i in range(docs_per_query)]
        judged = rng.choice(docs_per_query, size=20, replace=False)
        grades = rng.integers(1, 4, size=20)
        qrels[f"q{q}"] = {docs[i]: int(g) for i, g in zip(judged, grades, strict=True)}
        scores = rng.random(docs_per_query)
        boost = np.zeros(docs_per_query)
        boost[judged] = 0.02
        noisy = scores + rng.normal(0, 0.3, docs_per_query) + boost
        base[f"q{q}"] = dict(zip(docs, scores.tolist(), strict=True))
        cand[f"q{q}"] = dict(zip(docs, noisy.tolist(), strict=True))
    return qrels, base, cand


def best_of(repeat: int, fn):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--metrics", type=int, default=10, choices=range(1, len(METRICS) + 1))
    parser.add_argument("--resamples", type=int, default=100_000)
    parser.add_argument("--docs", type=int, default=100, help="ranked documents per query")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs of ragmeter (best taken); peers run once"
    )
    parser.add_argument("--scipy-batch", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    args = parser.parse_args()
    if args.quick:
        args.queries, args.resamples, args.repeat = 200, 5_000, 1

    warnings.simplefilter("ignore")  # ranx's numba type-safety chatter
    import ranx
    from ranx.statistical_tests import fisher_randomization_test
    from scipy import stats

    metrics = METRICS[: args.metrics]
    qrels_dict, base_dict, cand_dict = synthetic_runs(args.queries, args.docs, seed=0)
    qrels = ranx.Qrels.from_dict(qrels_dict)
    base_run = ranx.Run.from_dict(base_dict, name="base")
    cand_run = ranx.Run.from_dict(cand_dict, name="cand")
    per_query = {}
    for name, run in (("base", base_run), ("cand", cand_run)):
        values = ranx.evaluate(qrels, run, metrics, return_mean=False)
        per_query[name] = np.vstack([np.asarray(values[m], dtype=np.float64) for m in metrics])
    base, cand = per_query["base"], per_query["cand"]
    differences = np.ascontiguousarray(cand - base)
    n_threads = os.cpu_count()
    print(
        f"{args.queries} queries x {len(metrics)} metrics x {args.resamples} resamples; "
        f"{n_threads} cores; Python {platform.python_version()}; ragmeter "
        f"{ragmeter.__version__}, ranx {version('ranx')}, scipy {version('scipy')}, "
        f"numpy {np.__version__}"
    )

    results: dict[str, tuple[float, np.ndarray | None]] = {}

    def ragmeter_test(threads: int | None):
        return lambda: (
            ragmeter.sign_flip_test(
                differences, n_resamples=args.resamples, random_state=0, n_threads=threads
            ).p_value
        )

    results["ragmeter sign_flip_test (all cores)"] = best_of(args.repeat, ragmeter_test(None))
    results["ragmeter sign_flip_test (1 thread)"] = best_of(args.repeat, ragmeter_test(1))

    # Compile ranx's numba kernels before timing them.
    fisher_randomization_test(base[0][:10], cand[0][:10], 10, 0.01, 42)

    def ranx_kernel():
        return np.array(
            [
                fisher_randomization_test(base[i], cand[i], args.resamples, 0.01, 42)[0]
                for i in range(len(metrics))
            ]
        )

    results["ranx fisher_randomization_test"] = best_of(1, ranx_kernel)

    def ranx_compare():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = ranx.compare(
                qrels,
                [cand_run, base_run],
                metrics,
                stat_test="fisher",
                n_permutations=args.resamples,
                random_seed=42,
            )
        return np.array([report.comparisons["cand", "base"][m]["p_value"] for m in metrics])

    ranx_compare()  # warm-up (numba compilation of the metrics)
    results["ranx compare (fisher)"] = best_of(1, ranx_compare)

    def scipy_test():
        return stats.permutation_test(
            (differences,),
            lambda x, axis: np.abs(np.mean(x, axis=axis)),
            permutation_type="samples",
            vectorized=True,
            n_resamples=args.resamples,
            alternative="greater",
            axis=-1,
            batch=args.scipy_batch,
            random_state=0,
        ).pvalue

    results["scipy permutation_test"] = best_of(1, scipy_test)

    reference_time, reference = results["ragmeter sign_flip_test (all cores)"]
    print(
        "ragmeter p-values:",
        " ".join(f"{m}={p:.4f}" for m, p in zip(metrics, reference, strict=True)),
    )
    print(f"\n{'tool':40s} {'seconds':>9s} {'x ragmeter':>11s} {'max |p - p_ragmeter|':>21s}")
    for name, (seconds, p) in results.items():
        gap = "" if p is None else f"{np.max(np.abs(np.asarray(p) - reference)):.4f}"
        print(f"{name:40s} {seconds:9.3f} {seconds / reference_time:11.1f} {gap:>21s}")


if __name__ == "__main__":
    main()
