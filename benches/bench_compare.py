"""Paired randomisation tests: ragmeter's sign-flip test vs ranx and scipy, in one run.

Two benchmarks: two systems (the default), and with ``--campaign`` a whole campaign (issue 12:
50 runs x 10,000 topics x 5 metrics, all pairs, the sign-flip test with 10,000 resamples)
against ranx's ``compare`` on the same per-query values (see ``campaign``).

Two systems: ``--queries`` queries, ``--metrics`` metrics, ``--resamples``
random sign vectors (permutations) per test. ranx's per-query metric values of both runs give
one difference matrix (metrics x queries) that every tool tests:

* ragmeter ``sign_flip_test`` (all metrics at once, same sign vectors for every metric);
* ranx ``fisher_randomization_test`` (its numba kernel, once per metric) and ranx ``compare``
  with ``stat_test="fisher"`` end to end (it also evaluates the metrics);
* ``scipy.stats.permutation_test`` with ``permutation_type="samples"`` (sign flips for one
  sample), vectorised over the metric axis, so also all metrics at once.

Run: ``python benches/bench_compare.py`` (add ``--quick`` for a smoke run), or
``python benches/bench_compare.py --campaign``. Prints seconds per
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


CAMPAIGN_METRICS = ["ndcg@10", "map@100", "mrr@100", "precision@10", "recall@100"]


def campaign_values(n_runs: int, n_topics: int, docs: int, seed: int) -> dict:
    """Per-query values of ``n_runs`` synthetic runs (``docs`` scored documents per topic,
    about a fifth of them judged relevant, better runs boosting relevant documents more),
    evaluated by ragmeter one run at a time: ``{run: {metric: array over topics}}``."""
    rng = np.random.default_rng(seed)
    grades = rng.choice(3, size=(n_topics, docs), p=[0.8, 0.12, 0.08])
    qrels = [{f"d{i}": int(g) for i, g in enumerate(row) if g} or {"d0": 1} for row in grades]
    names = [f"d{i}" for i in range(docs)]
    values = {}
    for run in range(n_runs):
        boost = 0.4 * run / max(1, n_runs - 1)
        scores = rng.random((n_topics, docs)) + boost * grades
        rankings = [dict(zip(names, row.tolist(), strict=True)) for row in scores]
        results = ragmeter.ranking_metrics(
            qrels, rankings, metrics=CAMPAIGN_METRICS, average=None, zero_division=0.0
        )
        values[f"run{run:02d}"] = {
            m: np.asarray(results[m], dtype=np.float64) for m in CAMPAIGN_METRICS
        }
    return values


def campaign(args: argparse.Namespace) -> None:
    """ragmeter's ``compare_many`` (all pairs) against ranx's ``compare`` on the same
    per-query values.

    ranx's ``compare`` evaluates the runs, then calls
    ``ranx.statistical_tests.compute_statistical_significance`` on the per-query scores; that
    second step is the comparison, and it is what is timed here for ranx (its evaluation is
    measured in ``bench_ranking.py``), on the very arrays ragmeter compares. ranx tests every
    ordered pair (``a`` against ``b`` and ``b`` against ``a``), each with its own numba
    permutation loop: at 10,000 topics and 10,000 permutations one test takes seconds, and the
    50-run campaign (12,250 tests) would take more than a day. So ranx's Fisher test runs on
    ``--ranx-runs`` of the runs (every ordered pair of them, every metric) and its time per
    test is multiplied by the campaign's number of tests; the t-test (cheap in ranx) runs on
    the whole campaign in both tools.
    """
    import warnings

    warnings.simplefilter("ignore")
    from ranx.statistical_tests import compute_statistical_significance

    start = time.perf_counter()
    values = campaign_values(args.runs, args.topics, args.docs, seed=0)
    made = time.perf_counter() - start
    names = list(values)
    n_metrics = len(CAMPAIGN_METRICS)
    n_pairs = args.runs * (args.runs - 1) // 2
    print(
        f"campaign: {args.runs} runs x {args.topics} topics x {n_metrics} metrics, all "
        f"{n_pairs} pairs, {args.resamples} resamples; per-query values made in {made:.1f} s; "
        f"{os.cpu_count()} cores; Python {platform.python_version()}; ragmeter "
        f"{ragmeter.__version__}, ranx {version('ranx')}, numpy {np.__version__}"
    )
    systems = {
        name: ragmeter.PerQueryResults(
            {m: v for m, v in by_metric.items()}, list(range(args.topics)), name=name
        )
        for name, by_metric in values.items()
    }
    rows = []

    def ours(label: str, **options):
        seconds, result = best_of(
            args.repeat, lambda: ragmeter.compare_many(systems, random_state=0, **options)
        )
        rows.append((label, seconds, None))
        return seconds, result

    sign_flip_seconds, result = ours(
        "ragmeter compare_many, sign-flip, no interval",
        test="sign-flip",
        n_resamples=args.resamples,
        confidence_level=None,
    )
    ours(
        "ragmeter compare_many, sign-flip + bootstrap 95% CIs",
        test="sign-flip",
        n_resamples=args.resamples,
        n_bootstrap=args.resamples,
    )
    t_seconds, t_result = ours("ragmeter compare_many, t-test + t CIs", test="t")

    # ranx's Fisher test on a subset of the runs, every ordered pair and metric.
    subset = {name: values[name] for name in names[: args.ranx_runs]}
    compute_statistical_significance(
        list(subset), {n: {m: v[m][:20] for m in v} for n, v in subset.items()}, "fisher", 10
    )  # numba compilation
    start = time.perf_counter()
    fisher = compute_statistical_significance(
        list(subset), subset, stat_test="fisher", n_permutations=args.resamples, random_seed=42
    )
    fisher_seconds = time.perf_counter() - start
    subset_tests = len(subset) * (len(subset) - 1) * n_metrics
    per_test = fisher_seconds / subset_tests
    full_ordered = args.runs * (args.runs - 1) * n_metrics
    gaps = [
        abs(fisher[frozenset((a, b))][m]["p_value"] - result[b, a][m].p_value)
        for i, a in enumerate(subset)
        for b in list(subset)[i + 1 :]
        for m in CAMPAIGN_METRICS
    ]
    start = time.perf_counter()
    student = compute_statistical_significance(names, values, stat_test="student")
    student_seconds = time.perf_counter() - start
    t_gap = max(
        abs(student[frozenset((a, b))][m]["p_value"] - t_result[b, a][m].p_value)
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        for m in CAMPAIGN_METRICS
    )
    print(
        f"ranx Fisher on {len(subset)} runs: {subset_tests} tests in {fisher_seconds:.1f} s, "
        f"{per_test:.3f} s per test; largest |p - p_ragmeter| {max(gaps):.4f} (independent "
        f"random draws); ranx t-test vs ragmeter: largest |p difference| {t_gap:.1e}"
    )
    print(f"\n{'tool':62s} {'seconds':>10s} {'x ragmeter':>11s}")
    reference = sign_flip_seconds
    for label, seconds, _ in rows:
        print(f"{label:62s} {seconds:10.2f} {seconds / reference:11.1f}")
    for label, seconds in [
        (f"ranx Fisher, {full_ordered} ordered-pair tests (extrapolated)", per_test * full_ordered),
        (
            f"ranx Fisher, {n_pairs * n_metrics} unordered-pair tests (extrapolated)",
            per_test * n_pairs * n_metrics,
        ),
    ]:
        print(f"{label:62s} {seconds:10.0f} {seconds / reference:11.0f}")
    print(
        f"{'ranx t-test, whole campaign (measured)':62s} {student_seconds:10.2f} "
        f"{student_seconds / t_seconds:11.1f}  (vs ragmeter's t-test)"
    )


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
    parser.add_argument(
        "--campaign",
        action="store_true",
        help="the campaign benchmark: --runs x --topics, all pairs, vs ranx's compare",
    )
    parser.add_argument("--runs", type=int, default=50, help="campaign: runs")
    parser.add_argument("--topics", type=int, default=10_000, help="campaign: topics")
    parser.add_argument(
        "--ranx-runs", type=int, default=3, help="campaign: runs ranx's Fisher test runs on"
    )
    args = parser.parse_args()
    if args.campaign:
        if args.quick:
            args.runs, args.topics, args.resamples, args.repeat = 6, 500, 2_000, 1
        elif args.resamples == 100_000:
            args.resamples = 10_000
        campaign(args)
        return
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
