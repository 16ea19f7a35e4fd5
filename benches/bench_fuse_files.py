"""``ragmeter fuse`` on TREC run files (issue 52), whole processes, against the path it took
before (each file read into ``{query: {doc: score}}`` dicts, fused from the dicts, written by
the Python writer) and against ranx 0.3 (``Run.from_file``, ``fuse``, ``Run.save``, warm).

    python benches/bench_fuse_files.py [--queries 5000] [--docs 1000] [--methods rrf wsum]
                                       [--tools ragmeter,dicts,ranx] [--rounds 1]

Two synthetic runs (``--queries`` x ``--docs`` lines each, documents drawn from a pool of
2 x docs per query, so about half of each ranking is shared; 9-digit scores; the second run's
queries in another order than the first's) are written once to ``benches/data/``. Every tool
runs in its own process, alternating in rounds:

* ``ragmeter``: the ``ragmeter fuse`` command, timed as a whole process (start-up included);
* ``dicts``: the path before (same library: ``read_run`` of each file, ``fuse`` of the
  dicts, ``write_trec_run`` of ``to_dict()``), timed inside its process from the first read
  to the written file;
* ``ranx``: ``Run.from_file(kind="trec")``, ``ranx.fuse``, ``Run.save(kind="trec")``, timed
  inside its process after its numba functions were compiled on a tiny run (warm).

Wall = perf_counter; CPU = user + system (of the whole child for the command, of the timed
section, ``time.process_time``, for the others); peak = the child's max RSS (``os.wait4``).
The command's output is compared byte for byte with the dict path's. ranx breaks ties in its
own order and writes its own score text, so its file is not compared.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

PARAMS = {"rrf": {"k": 60}, "wsum": {"weights": [0.5, 0.5]}}
NORMS = {"rrf": None, "wsum": "min-max"}


def make(queries: int, docs: int) -> list[Path]:
    folder = DATA / f"fuse-q{queries}-d{docs}"
    paths = [folder / "a.run", folder / "b.run"]
    if all(p.exists() for p in paths):
        return paths
    folder.mkdir(parents=True, exist_ok=True)
    for r, path in enumerate(paths):
        rng = random.Random(r)
        order = list(range(queries))
        if r == 1:
            rng.shuffle(order)
        with open(path, "w") as out:
            for q in order:
                chosen = rng.sample(range(2 * docs), docs)
                scores = sorted((rng.random() for _ in chosen), reverse=True)
                out.writelines(
                    f"{q} Q0 D{d} {i + 1} {s:.9f} sys{r}\n"
                    for i, (d, s) in enumerate(zip(chosen, scores, strict=True))
                )
    return paths


CHILD = r"""
import json, sys, time
tool, method, norm, params, a, b, out = json.loads(sys.argv[1])
if tool == "dicts":
    from ragmeter.fusion import fuse
    from ragmeter.io import read_run, write_trec_run
    start, cpu = time.perf_counter(), time.process_time()
    fused = fuse([read_run(a), read_run(b)], method, norm, names=[a, b], **params)
    write_trec_run(fused.to_dict(), out, tag=method)
else:
    from ranx import Run, fuse
    tiny = [Run({"q": {"d1": 1.0, "d2": 0.5}}, name="x"), Run({"q": {"d1": 0.2}}, name="y")]
    fuse(tiny, norm=norm or "min-max", method=method, params=params)
    start, cpu = time.perf_counter(), time.process_time()
    runs = [Run.from_file(a, kind="trec"), Run.from_file(b, kind="trec")]
    fused = fuse(runs, norm=norm or "min-max", method=method, params=params)
    fused.save(out, kind="trec")
print(json.dumps([time.perf_counter() - start, time.process_time() - cpu]))
"""


def child(command: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """(wall, CPU, peak MiB, stdout) of one child process."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, env=env)
    assert process.stdout is not None
    text = process.stdout.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{command[:3]} failed ({status})")
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, text


def run_tool(tool: str, method: str, paths: list[Path], out: Path) -> tuple[float, float, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    norm, params = NORMS.get(method), PARAMS.get(method, {})
    if tool == "ragmeter":
        script = Path(sys.executable).with_name("ragmeter")
        command = [str(script)] if script.is_file() else [sys.executable, "-m", "ragmeter"]
        command += ["fuse", str(paths[0]), str(paths[1]), "--method", method, "-o", str(out)]
        command += ["--norm", norm or "none", "--tag", method]
        for name, value in params.items():
            command += [f"--{name}", *map(str, value if isinstance(value, list) else [value])]
        wall, cpu, peak, _ = child(command, env)
        return wall, cpu, peak
    arguments = json.dumps([tool, method, norm, params, str(paths[0]), str(paths[1]), str(out)])
    _, _, peak, text = child([sys.executable, "-c", CHILD, arguments], env)
    wall, cpu = json.loads(text.strip().splitlines()[-1])
    return wall, cpu, peak


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=5000)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--methods", nargs="+", default=["rrf", "wsum"])
    ap.add_argument("--tools", default="ragmeter,dicts,ranx")
    ap.add_argument("--rounds", type=int, default=1)
    args = ap.parse_args()
    tools = args.tools.split(",")
    paths = make(args.queries, args.docs)
    size = sum(p.stat().st_size for p in paths) / 2**20
    lines = 2 * args.queries * args.docs
    print(f"2 runs, {lines:,} lines, {size:.0f} MiB; load average {os.getloadavg()[0]:.2f}")
    out = DATA / "fuse-out"
    out.mkdir(exist_ok=True)
    for method in args.methods:
        results: dict[str, list[tuple[float, float, float]]] = {t: [] for t in tools}
        for _ in range(args.rounds):
            for tool in tools:
                results[tool].append(run_tool(tool, method, paths, out / f"{tool}.run"))
        if "ragmeter" in tools and "dicts" in tools:
            same = (out / "ragmeter.run").read_bytes() == (out / "dicts.run").read_bytes()
            print(f"{method}: the command's file equals the dict path's, byte for byte: {same}")
        base = statistics.median(r[0] for r in results.get("ragmeter", [(1, 1, 1)]))
        base_cpu = statistics.median(r[1] for r in results.get("ragmeter", [(1, 1, 1)]))
        print(
            f"{'method':<6} {'tool':<9} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9} "
            f"{'wall / ragmeter':>16} {'CPU / ragmeter':>15}  rounds (wall)"
        )
        for tool in tools:
            wall = statistics.median(r[0] for r in results[tool])
            cpu = statistics.median(r[1] for r in results[tool])
            peak = max(r[2] for r in results[tool])
            rounds = ", ".join(f"{r[0]:.2f}" for r in results[tool])
            print(
                f"{method:<6} {tool:<9} {wall:>8.3f} {cpu:>8.3f} {peak:>9.0f} "
                f"{wall / base:>15.1f}x {cpu / base_cpu:>14.1f}x  {rounds}"
            )
    print(f"peak memory of the runs' files: {size:.0f} MiB; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
