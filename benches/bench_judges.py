"""Judge-call throughput against a loopback OpenAI-compatible server with fixed latency.

2,000 judge calls (one rubric call per sample) through ``OpenAICompatibleJudge`` with
``max_concurrency=32`` against ``python -m ragmeter.judges.testing --latency 0.05``
running in a separate process. Reports wall time against the ideal ``calls * latency / concurrency``
(target: within 1.5x), the same calls made by two bare loops behind an ``asyncio.Semaphore(32)``
(transport without parsing, validation, cache or accounting): ``httpx.AsyncClient`` posting the
request's JSON over ragmeter's own lean transport (the loop the judge wraps; target: ragmeter
within 1.1x of it) and over httpx's default transport, and the ``openai.AsyncOpenAI``
client; and a rerun answered by the sqlite cache (target: zero calls).
Every tool runs ``--repeat`` times, alternating, and is judged by its best run.

    python benches/bench_judges.py [--calls 2000] [--latency 0.05] [--concurrency 32] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ragmeter.judges import OpenAICompatibleJudge, RubricMetric, Sample, evaluate

ANSWER = json.dumps({"value": 1, "reason": "fine"})


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ragmeter.judges.testing",
            "--latency",
            str(latency),
            "--fixed-answer",
            ANSWER,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    base_url = process.stdout.readline().strip()
    if not base_url.startswith("http://127.0.0.1:"):
        process.kill()
        raise RuntimeError(f"the loopback server did not start: {base_url!r}")
    return process, base_url


async def bare_openai(base_url: str, calls: int, concurrency: int) -> float:
    import openai

    client = openai.AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with gate:
            reply = await client.chat.completions.create(
                model="bench",
                messages=[{"role": "user", "content": f"Rate sample {i}"}],
                temperature=0,
                seed=0,
            )
            json.loads(reply.choices[0].message.content or "")

    start = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(calls)))
    elapsed = time.perf_counter() - start
    await client.close()
    return elapsed


async def bare_httpx(base_url: str, calls: int, concurrency: int, *, lean: bool = False) -> float:
    """The bare loop: httpx's default transport, or (``lean``) the transport ragmeter's judge
    uses for ``http://`` (``ragmeter.judges.clients.transport``) with the judge's settings (a
    connection per request: no response left on a kept-alive connection can be paired with
    another request), so that the difference is what the judge adds over its own transport."""
    import httpx

    from ragmeter.judges.clients.transport import make_lean_transport

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    transport = make_lean_transport(httpx, max_connections=concurrency) if lean else None
    async with httpx.AsyncClient(
        base_url=base_url, limits=limits, timeout=60, transport=transport
    ) as client:
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int) -> None:
            async with gate:
                reply = await client.post(
                    "/chat/completions",
                    json={
                        "model": "bench",
                        "messages": [{"role": "user", "content": f"Rate sample {i}"}],
                        "temperature": 0,
                        "seed": 0,
                    },
                    headers={"Authorization": "Bearer bench"},
                )
                reply.raise_for_status()
                json.loads(reply.json()["choices"][0]["message"]["content"])

        await asyncio.gather(*(one(i) for i in range(min(calls, concurrency))))  # connect
        start = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(calls)))
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3, help="cold runs (best and median shown)")
    args = parser.parse_args()

    process, base_url = start_server(args.latency)
    try:
        samples = [
            Sample(question=f"Question number {i}?", answer=f"Answer {i}.")
            for i in range(args.calls)
        ]
        metric = RubricMetric(
            "bench_rubric",
            "Is the answer responsive to the question?\n\n"
            "### Question\n$question\n\n### Answer\n$answer",
            allowed_values=[0, 1],
        )
        judge = OpenAICompatibleJudge(
            base_url=base_url, model="bench", max_concurrency=args.concurrency
        )
        ideal = args.calls * args.latency / args.concurrency
        # Warm-up: the one-time costs of a process (importing httpx, the first connections)
        # are not part of the throughput being measured.
        evaluate(samples[: args.concurrency], [metric], judge=judge, progress=False)
        loads, colds, cpus, httpx_runs, httpx_cpus, openai_runs = [], [], [], [], [], []
        lean_runs, lean_cpus = [], []
        with tempfile.TemporaryDirectory() as tmp:
            for run in range(args.repeat):
                cache = str(Path(tmp) / f"judge-cache-{run}.sqlite")
                loads.append(os.getloadavg()[0])
                cpu = time.process_time()
                start = time.perf_counter()
                first = evaluate(samples, [metric], judge=judge, cache=cache, progress=False)
                colds.append(time.perf_counter() - start)
                cpus.append(time.process_time() - cpu)
                cpu = time.process_time()
                httpx_runs.append(asyncio.run(bare_httpx(base_url, args.calls, args.concurrency)))
                httpx_cpus.append(time.process_time() - cpu)
                cpu = time.process_time()
                lean_runs.append(
                    asyncio.run(bare_httpx(base_url, args.calls, args.concurrency, lean=True))
                )
                lean_cpus.append(time.process_time() - cpu)
                openai_runs.append(asyncio.run(bare_openai(base_url, args.calls, args.concurrency)))
            start = time.perf_counter()
            second = evaluate(samples, [metric], judge=judge, cache=cache, progress=False)
            warm = time.perf_counter() - start
        peer = min(openai_runs)
        bare = min(httpx_runs)
        bare_cpu = httpx_cpus[httpx_runs.index(bare)]
        lean = min(lean_runs)
        lean_cpu = lean_cpus[lean_runs.index(lean)]
    finally:
        process.terminate()
        process.wait(timeout=10)

    cold_usage = first.total_usage()
    warm_usage = second.total_usage()
    summary = first.summary("bench_rubric")
    best = min(colds)
    median = statistics.median(colds)
    cpu_best = cpus[colds.index(best)]
    print(
        f"calls={args.calls} latency={args.latency * 1000:.0f} ms concurrency={args.concurrency} "
        f"cores={os.cpu_count()} load average before the runs="
        + ", ".join(f"{load:.2f}" for load in loads)
    )
    print(f"ideal (calls x latency / concurrency)      {ideal:8.3f} s")
    print(
        f"ragmeter OpenAICompatibleJudge, cold cache {best:8.3f} s  {best / ideal:5.2f}x ideal "
        f"(best of {args.repeat}; median {median:.3f} s = {median / ideal:.2f}x; "
        f"{cold_usage.calls} calls, {summary.n_ok} ok, {summary.n_error} errors)"
    )
    print(
        f"  client CPU {cpu_best:.2f} s = {cpu_best / args.calls * 1000:.2f} ms per call "
        "(wall time cannot beat the client's CPU time)"
    )
    print(
        f"bare httpx.AsyncClient + Semaphore        {bare:8.3f} s  {bare / ideal:5.2f}x ideal "
        f"(best of {args.repeat}; client CPU {bare_cpu / args.calls * 1000:.2f} ms per call)"
    )
    print(f"ragmeter (best) / bare httpx                          {best / bare:5.2f}x")
    print(
        f"bare httpx.AsyncClient, ragmeter's transport {lean:8.3f} s  {lean / ideal:5.2f}x ideal "
        f"(best of {args.repeat}; client CPU {lean_cpu / args.calls * 1000:.2f} ms per call)"
    )
    print(f"ragmeter (best) / bare loop on its transport          {best / lean:5.2f}x")
    # CPU is the figure other processes disturb least (they add to wall time, on 2 cores a lot).
    print(
        f"client CPU per call, lowest of the runs: ragmeter {min(cpus) / args.calls * 1000:.2f} "
        f"ms, bare loop on its transport {min(lean_cpus) / args.calls * 1000:.2f} ms = "
        f"{min(cpus) / min(lean_cpus):.2f}x"
    )
    print(f"bare openai.AsyncOpenAI + Semaphore (peer) {peer:8.3f} s  {peer / ideal:5.2f}x ideal")
    print(f"ragmeter (best) / openai                               {best / peer:5.2f}x")
    print(
        f"ragmeter rerun from the sqlite cache       {warm:8.3f} s  "
        f"({warm_usage.calls} calls, {warm_usage.cache_hits} cache hits)"
    )
    # As timeit does, judge the best run: other processes on the machine only add time.
    ok = best / ideal <= 1.5 and warm_usage.calls == 0 and summary.n_ok == args.calls
    print("target (best <= 1.5x ideal, zero calls on rerun):", "met" if ok else "NOT met")
    print(
        "target (best <= 1.1x the bare httpx loop on the same transport):",
        "met" if best / lean <= 1.1 else "NOT met",
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
