"""Ranking metrics: ragmeter vs pytrec_eval, ranx and ir_measures, in one run.

    python benches/bench_ranking.py [--queries 10000] [--docs 1000] [--judged 50]
        [--modes dicts,trec,arrow,gz]

A deterministic synthetic run (10,000 queries x 1,000 scored docs, ~50 judged docs per query
with grades 0-3) is evaluated for ndcg@10, map, recall@100, mrr and precision@10 together, from
Python dicts, from TREC files, from pyarrow tables (``arrow``: ragmeter and ranx, whose
``from_df`` reads DataFrames) and from gzipped TREC files (``gz``: ragmeter only). Each (tool,
input) pair runs in its own process so its peak memory is its own: the peak resident memory
during the evaluation, above the memory held before it (the dicts or tables, for in-memory
inputs); for tables the input's own size (``Table.nbytes``) is printed too. ranx is timed warm
(its numba JIT compiled on a toy run first). Prints wall and CPU times (user + system of all the
process's threads), ratios to ragmeter, lines per second and peak memory. With ``--rounds N``
the tools alternate N times in fresh processes and each reports its median round: on a shared
machine one process can be up to 40% slower than the next.
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

        if mode in ("dicts", "arrow"):
            res = ragmeter.ranking_metrics(
                data["qrels"], data["run"], metrics=METRICS["ragmeter"], zero_division=0.0
            )
        else:
            run = data["gz_path"] if mode == "gz" else data["run_path"]
            res = ragmeter.evaluate_trec(
                data["qrels_path"], run, metrics=METRICS["ragmeter"], zero_division=0.0
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

        if mode == "arrow":
            # ranx's from_df asserts object (str) id columns; pandas 3 reads Arrow strings as
            # its own str dtype.
            frames = {}
            for name in ("qrels", "run"):
                frame = data[name].to_pandas()
                frames[name] = frame.astype({"query_id": object, "doc_id": object})
            qrels = Qrels.from_df(
                frames["qrels"],
                q_id_col="query_id",
                doc_id_col="doc_id",
                score_col="relevance",
            )
            run = Run.from_df(frames["run"], q_id_col="query_id", doc_id_col="doc_id")
        elif mode == "dicts":
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
    input_mib = 0.0
    if mode == "dicts":
        data["qrels"], data["run"] = make_dicts(args.queries, args.docs, args.judged)
    elif mode == "arrow":
        data["qrels"], data["run"] = _tables(args)
        input_mib = (data["qrels"].nbytes + data["run"].nbytes) / 2**20
    else:
        data["qrels_path"], data["run_path"] = _paths(args)
        data["gz_path"] = _gzipped(data["run_path"])
    if tool == "ranx":
        from ranx import Qrels, Run, evaluate

        evaluate(Qrels({"q": {"a": 1}}), Run({"q": {"a": 1.0, "b": 0.5}}), METRICS["ranx"])
    if tool == "ragmeter":
        import ragmeter  # noqa: F401  (import cost is not part of the evaluation)
    gc.collect()
    held = _rss_mib("VmRSS")
    times = []
    cpu_times = []
    means: dict[str, float] = {}
    for _ in range(args.repeat):
        _reset_peak()
        start, cpu_start = time.perf_counter(), time.process_time()
        means = _evaluate(tool, mode, data)
        times.append(time.perf_counter() - start)
        # process_time is user + system CPU of every thread of this process (the pool's too).
        cpu_times.append(time.process_time() - cpu_start)
    peak = _rss_mib("VmHWM") - held
    best = min(range(len(times)), key=times.__getitem__)
    print(
        json.dumps(
            {
                "seconds": times[best],
                "cpu_seconds": cpu_times[best],
                "all": times,
                "peak_mib": peak,
                "held_mib": held,
                "input_mib": input_mib,
                "means": means,
            }
        )
    )


def _tables(args: argparse.Namespace):
    """The benchmark's judgments and run as pyarrow tables (long format, rows grouped by
    query as a retrieval system writes them), built from the TREC files by pyarrow's reader."""
    import pyarrow as pa
    import pyarrow.csv as csv

    qrels_path, run_path = _paths(args)
    options = csv.ParseOptions(delimiter=" ")

    def read(path: Path, names: list[str], keep: list[str]):
        read_options = csv.ReadOptions(column_names=names, block_size=1 << 26)
        types = {"query_id": pa.string(), "doc_id": pa.string()}
        convert = csv.ConvertOptions(column_types=types, include_columns=keep)
        return csv.read_csv(path, read_options, options, convert).combine_chunks()

    qrels = read(
        qrels_path, ["query_id", "q0", "doc_id", "relevance"], ["query_id", "doc_id", "relevance"]
    )
    run = read(
        run_path,
        ["query_id", "q0", "doc_id", "rank", "score", "tag"],
        ["query_id", "doc_id", "score"],
    )
    return qrels, run


def _gzipped(run_path: Path) -> Path:
    import gzip

    gz_path = run_path.with_suffix(".run.gz")
    if not gz_path.exists():
        gz_path.write_bytes(gzip.compress(run_path.read_bytes(), 1))
    return gz_path


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
    all_results: dict[str, dict[str, dict]] = {}
    for mode in args.modes.split(","):
        # Tools alternate over the rounds, so a slow spell of the machine hits all of them; each
        # tool's time is the median over rounds of its best-of-repeat time in a fresh process.
        runs: dict[str, list[dict]] = {}
        for _ in range(args.rounds):
            for tool in args.tools.split(","):
                if (mode == "gz" and tool != "ragmeter") or (
                    mode == "arrow" and tool not in ("ragmeter", "ranx")
                ):
                    continue
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
        lines = mode in ("trec", "gz")
        print(f"\nfrom {mode}" + (f" ({n_lines:,} lines)" if lines else ""))
        print(
            f"  {'tool':<12} {'seconds':>8} {'vs ragmeter':>12} {'CPU s':>8} {'vs (CPU)':>9}"
            f" {'peak MiB':>9}"
            + (f" {'lines/s':>12}" if lines else "")
            + (f" {'input MiB':>10} {'peak/input':>10}" if mode == "arrow" else "")
        )
        for tool, r in results.items():
            ratio = r["seconds"] / ours["seconds"] if ours else float("nan")
            cpu_ratio = r["cpu_seconds"] / ours["cpu_seconds"] if ours else float("nan")
            line = (
                f"  {tool:<12} {r['seconds']:>8.3f} {ratio:>11.1f}x {r['cpu_seconds']:>8.3f}"
                f" {cpu_ratio:>8.1f}x {r['peak_mib']:>9.0f}"
            )
            if lines:
                line += f" {n_lines / r['seconds']:>12,.0f}"
            if mode == "arrow":
                line += f" {r['input_mib']:>10.0f} {r['peak_mib'] / r['input_mib']:>9.0%}"
            print(line)
        all_results[mode] = results
    if "ragmeter" in all_results.get("arrow", {}) and "ragmeter" in all_results.get("trec", {}):
        arrow, trec = all_results["arrow"]["ragmeter"], all_results["trec"]["ragmeter"]
        print(
            f"\nragmeter from an Arrow table vs the same data as TREC files: "
            f"{trec['seconds'] / arrow['seconds']:.1f}x faster"
        )
        for tool, r in results.items():
            print(f"  means {tool}: " + ", ".join(f"{k}={v:.6f}" for k, v in r["means"].items()))


if __name__ == "__main__":
    main()
