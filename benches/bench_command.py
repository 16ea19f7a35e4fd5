"""The drop-in command, whole process: ``ragmeter evaluate -q -m all_trec`` vs trec_eval -O2.

    python benches/bench_command.py [--queries 10000] [--docs 1000] [--judged 50] [--rounds 3]

The synthetic TREC files of bench_ranking.py are evaluated by the command and by trec_eval
built with -O2 (bench_trec_eval.trec_eval_binary), alternating in ``--rounds`` rounds, output
to /dev/null. Wall time (perf_counter around the child) and CPU time (user + system of the
child, resource.getrusage(RUSAGE_CHILDREN)) are printed per round with their medians and the
ratios trec_eval / ragmeter; CPU is the figure to read on a shared machine. The command's
output is checked against the shipped trec_eval build's, byte for byte. A 10-line input is
timed the same way (start-up: ``import`` and argument parsing dominate), beside
``python -c "import numpy"``, the floor it had while every TREC evaluation imported numpy (the
command on TREC files no longer does: the core evaluates, sums and prints the values).
The command timed is the installed ``ragmeter`` script beside the interpreter (what a user
runs; ``python -m ragmeter`` where there is none, ~7 ms more for runpy). The children run
with bytecode caches (PYTHONDONTWRITEBYTECODE removed from their environment), as an
installed package does.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_trec_eval import _paths, trec_eval_binary  # noqa: E402

#: The children's environment: with the bytecode caches an installed package has (a shell
#: that sets PYTHONDONTWRITEBYTECODE would make every start-up compile ragmeter's sources,
#: ~0.09 s that no installed wheel pays).
CHILD_ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    # What `ragmeter` sets for itself unless the user chose (ragmeter.cli.main): here for the
    # numpy floor, whose process is not ragmeter's.
    "OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "1"),
}


def ragmeter_command() -> list[str]:
    """The installed ``ragmeter`` script beside this interpreter, else ``python -m ragmeter``."""
    script = Path(sys.executable).with_name("ragmeter")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "ragmeter"]


def timed(command: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, check=True, env=CHILD_ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def compare(label: str, commands: dict[str, list[str]], rounds: int) -> None:
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            results[name].append(timed(command))
    base_wall = statistics.median(w for w, _ in results["ragmeter"])
    base_cpu = statistics.median(c for _, c in results["ragmeter"])
    for name, values in results.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        rounds_text = ", ".join(f"{w:.3f}/{c:.3f}" for w, c in values)
        print(
            f"{label:>14} {name:>13}  wall {wall:8.3f} s ({wall / base_wall:5.2f}x)  "
            f"CPU {cpu:8.3f} s ({cpu / base_cpu:5.2f}x)  rounds wall/CPU: {rounds_text}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    qrels, run = _paths(args)
    optimised, shipped = trec_eval_binary(), trec_eval_binary(optimised=False)
    ragmeter = [*ragmeter_command(), "evaluate", "-q", "-m", "all_trec"]
    print(f"command timed: {' '.join(ragmeter)}")
    # This first run also writes the bytecode caches the timed runs read.
    ours = subprocess.run(
        [*ragmeter, str(qrels), str(run)], capture_output=True, check=True, env=CHILD_ENV
    )
    theirs = subprocess.run(
        [str(shipped), "-q", "-m", "all_trec", str(qrels), str(run)],
        capture_output=True,
        check=True,
    )
    print(f"output equals the shipped trec_eval's, byte for byte: {ours.stdout == theirs.stdout}")
    print(f"load average {os.getloadavg()[0]:.2f}")
    lines = sum(1 for _ in run.open("rb"))
    compare(
        f"{lines:,} lines",
        {
            "ragmeter": [*ragmeter, str(qrels), str(run)],
            "trec_eval -O2": [str(optimised), "-q", "-m", "all_trec", str(qrels), str(run)],
        },
        args.rounds,
    )
    small = HERE / "data" / "ten-lines"
    small.mkdir(parents=True, exist_ok=True)
    (small / "qrels").write_text("".join(f"q1 0 d{i} {i % 3}\n" for i in range(10)))
    (small / "run").write_text("".join(f"q1 Q0 d{i} {i + 1} {10 - i} tag\n" for i in range(10)))
    small_files = [str(small / "qrels"), str(small / "run")]
    compare(
        "10 lines",
        {
            "ragmeter": [*ragmeter, *small_files],
            "trec_eval -O2": [str(optimised), "-q", "-m", "all_trec", *small_files],
            # The start-up's old floor (numpy's import), with the thread setting the command uses.
            "import numpy": [sys.executable, "-c", "import numpy"],
        },
        max(args.rounds, 5),
    )
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
