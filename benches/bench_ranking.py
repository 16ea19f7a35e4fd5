"""Ranking metrics: ragmeter vs pytrec_eval, ranx and ir_measures, in one run.

    python benches/bench_ranking.py [--queries 10000] [--docs 1000] [--judged 50]

A deterministic synthetic run (10,000 queries x 1,000 scored docs, ~50 judged docs per query
with grades 0-3) is evaluated for ndcg@10, map, recall@100, mrr and precision@10 together,
from Python dicts and from TREC files. Each (tool, input) pair runs in its own process so its
peak memory is its own: the peak resident memory during the evaluation, above the memory held
before it (the dicts, for the dict input). ranx is timed warm (its numba JIT compiled on a toy
run first). Prints times, ratios to ragmeter, lines per second and peak memory. With
``--rounds N`` the tools alternate N times in fresh processes and each reports its median
round: on a shared machine one process can be up to 40% slower than the next.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _synthetic import make_dicts, write_trec_files  # noqa: E402

METRICS = {
    "ragmeter": ["ndcg@10", "map", "recall@100", "mrr", "precision@10"],
    "pytrec_eval": {
        "ndcg_cut.10": "ndcg_cut_10",
        "map": "map",
        "recall.100": "recall_100",
        "recip_rank": "recip_rank",
        "P.10": "P_10",
    },
    "ranx": ["ndcg@10", "map", "recall@100", "mrr", "precision@10"],
}
TOOLS = ["ragmeter", "pytrec_eval", "ranx", "ir_measures"]


def _rss_mib(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(field)


def _reset_peak() -> None:
    # Linux >= 4.0: writing 5 resets VmHWM, so the peak measured is the evaluation's own.
    Path("/proc/self/clear_refs").write_text("5")


def _evaluate(tool: str, mode: str, data: dict) -> dict[str, float]:
    if tool == "ragmeter":
        import ragmeter

        if mode == "dicts":
            res = ragmeter.ranking_metrics(
                data["qrels"], data["run"], metrics=METRICS["ragmeter"], zero_division=0.0
            )
        else:
            res = ragmeter.evaluate_trec(
                data["qrels_path"], data["run_path"], metrics=METRICS["ragmeter"], zero_division=0.0
            )
        return {k: float(v) for k, v in res.items()}
    if tool == "pytrec_eval":
        import pytrec_eval

        if mode == "dicts":
            qrels, run = data["qrels"], data["run"]
        else:
            with open(data["qrels_path"]) as f:
                qrels = pytrec_eval.parse_qrel(f)
            with open(data["run_path"]) as f:
                run = pytrec_eval.parse_run(f)
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(METRICS["pytrec_eval"]))
        per_query = evaluator.evaluate(run)
        keys = METRICS["pytrec_eval"].values()
        return {k: statistics.fmean(v[k] for v in per_query.values()) for k in keys}
    if tool == "ranx":
        from ranx import Qrels, Run, evaluate

        if mode == "dicts":
            qrels, run = Qrels(data["qrels"]), Run(data["run"])
        else:
            qrels = Qrels.from_file(str(data["qrels_path"]), kind="trec")
            run = Run.from_file(str(data["run_path"]), kind="trec")
        return {k: float(v) for k, v in evaluate(qrels, run, METRICS["ranx"]).items()}
    if tool == "ir_measures":
        import ir_measures
        from ir_measures import AP, RR, P, R, nDCG

        measures = [nDCG @ 10, AP, R @ 100, RR, P @ 10]
        if mode == "dicts":
            qrels, run = data["qrels"], data["run"]
        else:
            qrels = ir_measures.read_trec_qrels(str(data["qrels_path"]))
            run = ir_measures.read_trec_run(str(data["run_path"]))
        return {
            str(k): float(v) for k, v in ir_measures.calc_aggregate(measures, qrels, run).items()
        }
    raise ValueError(tool)


def worker(tool: str, mode: str, args: argparse.Namespace) -> None:
    data: dict = {}
    if mode == "dicts":
        data["qrels"], data["run"] = make_dicts(args.queries, args.docs, args.judged)
    else:
        data["qrels_path"], data["run_path"] = _paths(args)
    if tool == "ranx":
        from ranx import Qrels, Run, evaluate

        evaluate(Qrels({"q": {"a": 1}}), Run({"q": {"a": 1.0, "b": 0.5}}), METRICS["ranx"])
    if tool == "ragmeter":
        import ragmeter  # noqa: F401  (import cost is not part of the evaluation)
    gc.collect()
    held = _rss_mib("VmRSS")
    times = []
    means: dict[str, float] = {}
    for _ in range(args.repeat):
        _reset_peak()
        start = time.perf_counter()
        means = _evaluate(tool, mode, data)
        times.append(time.perf_counter() - start)
    peak = _rss_mib("VmHWM") - held
    print(
        json.dumps(
            {
                "seconds": min(times),
                "all": times,
                "peak_mib": peak,
                "held_mib": held,
                "means": means,
            }
        )
    )


def _paths(args: argparse.Namespace) -> tuple[Path, Path]:
    directory = HERE / "data" / f"q{args.queries}-d{args.docs}-j{args.judged}"
    qrels_path, run_path = directory / "bench.qrels", directory / "bench.run"
    if not run_path.exists():
        qrels, run = make_dicts(args.queries, args.docs, args.judged)
        write_trec_files(directory, qrels, run)
    return qrels_path, run_path


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000)
    parser.add_argument("--judged", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--rounds", type=int, default=1, help="fresh processes per tool; the median is reported"
    )
    parser.add_argument("--tools", default=",".join(TOOLS))
    parser.add_argument("--modes", default="dicts,trec")
    parser.add_argument("--worker", nargs=2, metavar=("TOOL", "MODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker, args)
        return
    qrels_path, run_path = _paths(args)
    n_lines = sum(path.read_bytes().count(b"\n") for path in (qrels_path, run_path))
    base = [
        sys.executable,
        __file__,
        "--queries",
        str(args.queries),
        "--docs",
        str(args.docs),
        "--judged",
        str(args.judged),
        "--repeat",
        str(args.repeat),
    ]
    print(
        f"{args.queries} queries x {args.docs} docs, ~{args.judged} judged per query; "
        f"metrics {', '.join(METRICS['ragmeter'])}; best of {args.repeat}"
    )
    for mode in args.modes.split(","):
        # Tools alternate over the rounds, so a slow spell of the machine hits all of them; each
        # tool's time is the median over rounds of its best-of-repeat time in a fresh process.
        runs: dict[str, list[dict]] = {}
        for _ in range(args.rounds):
            for tool in args.tools.split(","):
                out = subprocess.run(
                    [*base, "--worker", tool, mode], capture_output=True, text=True
                )
                if out.returncode != 0:
                    print(f"  {tool} ({mode}) failed:\n{out.stderr[-2000:]}")
                    continue
                runs.setdefault(tool, []).append(json.loads(out.stdout.strip().splitlines()[-1]))
        results = {}
        for tool, tool_runs in runs.items():
            ordered = sorted(tool_runs, key=lambda r: r["seconds"])
            results[tool] = ordered[len(ordered) // 2]
            if len(ordered) > 1:
                spread = ", ".join(f"{r['seconds']:.3f}" for r in tool_runs)
                print(f"  {tool} ({mode}) seconds per round: {spread}")
        ours = results.get("ragmeter")
        print(f"\nfrom {mode}" + (f" ({n_lines:,} lines)" if mode == "trec" else ""))
        print(
            f"  {'tool':<12} {'seconds':>8} {'vs ragmeter':>12} {'peak MiB':>9}"
            + (f" {'lines/s':>12}" if mode == "trec" else "")
        )
        for tool, r in results.items():
            ratio = r["seconds"] / ours["seconds"] if ours else float("nan")
            line = f"  {tool:<12} {r['seconds']:>8.3f} {ratio:>11.1f}x {r['peak_mib']:>9.0f}"
            if mode == "trec":
                line += f" {n_lines / r['seconds']:>12,.0f}"
            print(line)
        for tool, r in results.items():
            print(f"  means {tool}: " + ", ".join(f"{k}={v:.6f}" for k, v in r["means"].items()))


if __name__ == "__main__":
    main()
