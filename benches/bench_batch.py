"""Batch mode at campaign scale: 31,500 judge calls as one OpenAI batch (issue 49).

31,500 is nugget assignment for 150 runs x 105 topics (TREC RAG): one call per (run, topic).
Each call here is one rubric call per sample (the nugget metrics come later; their calls go
through the same batch mode), against the loopback OpenAI-compatible server in a separate
process (``python -m ragmeter.judges.testing --fixed-answer ...``), which serves ``/v1/files``
and ``/v1/batches`` and runs the batch's lines itself. Reported: the wall time and the
client's CPU time (this process only: the server's work is in the other) of

- the batch run: requests written (OpenAI's and vLLM's files), uploaded, the batch created and
  polled every ``--poll`` s, its output downloaded, every answer checked and stored in the cache;
- its rerun, answered by the cache (zero lines, zero calls);
- the same calls made online (``max_concurrency=32``, no latency) as a reference, unless
  ``--no-online``.

    python benches/bench_batch.py [--calls 31500] [--poll 0.1] [--repeat 1] [--no-online]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from ragmeter.judges import (
    BatchMode,
    OpenAICompatibleJudge,
    RubricMetric,
    Sample,
    evaluate,
)

ANSWER = json.dumps({"value": 1, "reason": "supported"})
ASSIGNMENT = RubricMetric(
    "assignment",
    "Does the answer support the nugget? Answer 1 or 0.\n\n### Nugget\n$reference\n\n"
    "### Answer\n$answer",
    allowed_values=[0, 1],
)


def start_server() -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "ragmeter.judges.testing", "--fixed-answer", ANSWER],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    base_url = process.stdout.readline().strip()
    if not base_url.startswith("http://127.0.0.1:"):
        process.kill()
        raise RuntimeError(f"the loopback server did not start: {base_url!r}")
    return process, base_url


def samples(n: int) -> list[Sample]:
    return [
        Sample(
            f"Topic {i % 105}: what happened?",
            f"Run {i // 105} answers topic {i % 105} in a few sentences of its own.",
            reference=f"Nugget {i % 7} of topic {i % 105}",
            id=f"r{i // 105}-t{i % 105}",
        )
        for i in range(n)
    ]


def timed(label: str, run) -> tuple[float, float, object]:
    cpu, wall = time.process_time(), time.perf_counter()
    result = run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"{label:<34} wall {wall:8.2f} s   client CPU {cpu:8.2f} s", flush=True)
    return wall, cpu, result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=31_500)
    parser.add_argument("--poll", type=float, default=0.1)
    parser.add_argument("--no-online", action="store_true")
    args = parser.parse_args()
    items = samples(args.calls)
    process, base_url = start_server()
    try:
        judge = OpenAICompatibleJudge(base_url=base_url, model="judge", max_concurrency=32)
        with tempfile.TemporaryDirectory() as folder:
            cache = os.path.join(folder, "judge.sqlite")
            mode = BatchMode(os.path.join(folder, "batches"), poll_s=args.poll)
            wall, cpu, results = timed(
                f"batch, {args.calls:,} calls",
                lambda: evaluate(
                    items, [ASSIGNMENT], judge=judge, cache=cache, batch=mode, progress=False
                ),
            )
            usage = results.total_usage()
            assert usage.calls == args.calls, usage
            assert all(row.status == "ok" for row in results.rows)
            sizes = sum(
                os.path.getsize(os.path.join(root, name))
                for root, _, names in os.walk(mode.directory)
                for name in names
            )
            print(
                f"  {usage.calls:,} lines in {results.manifest['batch']['batches_submitted']} "
                f"batch(es); {1000 * wall / args.calls:.3f} ms wall and "
                f"{1000 * cpu / args.calls:.3f} ms client CPU per call; batch folder "
                f"{sizes / 1e6:.1f} MB",
                flush=True,
            )
            _, rerun_cpu, rerun = timed(
                "batch rerun from the cache",
                lambda: evaluate(
                    items, [ASSIGNMENT], judge=judge, cache=cache, batch=mode, progress=False
                ),
            )
            assert rerun.total_usage().calls == 0
            print(f"  0 calls; {1000 * rerun_cpu / args.calls:.3f} ms client CPU per row")
        if not args.no_online:
            wall, cpu, online = timed(
                f"online, {args.calls:,} calls",
                lambda: evaluate(items, [ASSIGNMENT], judge=judge, progress=False),
            )
            assert online.total_usage().calls == args.calls
            print(
                f"  {1000 * wall / args.calls:.3f} ms wall and {1000 * cpu / args.calls:.3f} ms "
                "client CPU per call",
                flush=True,
            )
    finally:
        process.terminate()
        process.wait(timeout=30)
    print(f"load average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
