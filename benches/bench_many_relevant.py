"""One query with many relevant documents retrieved: ragmeter vs trec_eval and pytrec_eval.

    python benches/bench_many_relevant.py [--relevant 80000] [--repeat 3]

Issue 10 found ranks counted over every score (O(N^2)): one query with 80,000 relevant
documents retrieved took 8.6-53 s where trec_eval takes 0.08 s. This writes one query whose
run retrieves ``--relevant`` relevant documents among twice as many (scores distinct, every
other document relevant), evaluates map, ndcg and recip_rank from the TREC files with each tool
(best of ``--repeat``, in this process), prints seconds and ratios, and checks that the three
tools give the same values.
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

from bench_trec_eval import trec_eval_binary

MEASURES = ["map", "ndcg", "recip_rank"]


def write_files(directory: Path, n_relevant: int) -> tuple[Path, Path]:
    qrels, run = directory / "many.qrels", directory / "many.run"
    n_docs = 2 * n_relevant
    qrels.write_text("".join(f"q 0 d{i} 1\n" for i in range(0, n_docs, 2)))
    run.write_text("".join(f"q Q0 d{i} {i + 1} {n_docs - i} tag\n" for i in range(n_docs)))
    return qrels, run


def best(function, repeat: int) -> tuple[float, dict[str, float]]:
    times, values = [], {}
    for _ in range(repeat):
        start = time.perf_counter()
        values = function()
        times.append(time.perf_counter() - start)
    return min(times), values


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--relevant", type=int, default=80_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = write_files(Path(tmp), args.relevant)

        def ours() -> dict[str, float]:
            import ragmeter

            result = ragmeter.evaluate_trec(qrels, run, metrics=MEASURES)
            return {k: float(v) for k, v in result.items()}

        def theirs() -> dict[str, float]:
            command = [str(trec_eval_binary()), *[f"-m{m}" for m in MEASURES], str(qrels), str(run)]
            out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
            return {line.split()[0]: float(line.split()[2]) for line in out.splitlines()}

        def pytrec() -> dict[str, float]:
            import pytrec_eval

            with open(qrels) as q, open(run) as r:
                judged, ranked = pytrec_eval.parse_qrel(q), pytrec_eval.parse_run(r)
            evaluator = pytrec_eval.RelevanceEvaluator(judged, set(MEASURES))
            per_query = evaluator.evaluate(ranked)["q"]
            return {m: per_query[m] for m in MEASURES}

        trec_eval_binary()  # built before timing
        results = {
            "ragmeter": best(ours, args.repeat),
            "trec_eval": best(theirs, args.repeat),
            "pytrec_eval": best(pytrec, args.repeat),
        }
    print(f"one query, {args.relevant:,} relevant documents among {2 * args.relevant:,} retrieved")
    base = results["ragmeter"][0]
    print(f"  {'tool':<12} {'seconds':>8} {'vs ragmeter':>12}")
    for tool, (seconds, _) in results.items():
        print(f"  {tool:<12} {seconds:>8.3f} {seconds / base:>11.1f}x")
    reference = results["trec_eval"][1]
    for tool, (_, values) in results.items():
        same = all(abs(values[m] - reference[m]) < 5e-5 for m in MEASURES)
        print(
            f"  {tool}: "
            + ", ".join(f"{m}={values[m]:.4f}" for m in MEASURES)
            + f" (same as trec_eval: {same})"
        )


if __name__ == "__main__":
    main()
