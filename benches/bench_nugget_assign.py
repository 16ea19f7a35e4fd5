"""Nugget assignment at TREC RAG scale against a loopback server with 50 ms latency (issue 45).

150 runs x 105 topics x 20 nuggets: 15,750 answers, each labelled for its topic's 20 nuggets by
:func:`ragmeter.nuggets.assign` through ``OpenAICompatibleJudge`` (``max_concurrency=32``)
against the loopback OpenAI-compatible server (``benches/_loopback.py``: another process, a
fixed 50 ms latency, labelling the nuggets each call lists, no judge's work). The engine sends
``per_call`` nuggets a call, nuggetizer's 10 by default: each answer's 20 nuggets are 2 calls
(the topic's query, nuggets 1-10 or 11-20, and the answer), 15,750 x 2 = 31,500 calls in all
(``--per-call 20``: one call per answer, 15,750 calls).

Reported: the wall time against the ideal ``calls x latency / concurrency``, the client's CPU
per call (this process only; the server is another), the chat requests the server counted;
then a dry run against the cache (its cache hits and calls to make) and the rerun with the
same cache: every call a cache hit (100%), zero requests counted at the server, with its wall
and client CPU time.

    python benches/bench_nugget_assign.py [--runs 150] [--topics 105] [--nuggets 20]
        [--per-call 10] [--latency 0.05] [--concurrency 32]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _loopback import LoopbackProcess

from ragmeter.judges import OpenAICompatibleJudge
from ragmeter.nuggets import Nugget, NuggetBank, RagAnswer, TopicNuggets, assign

LABELS = ("support", "partial_support", "not_support")


def campaign(runs: int, topics: int, nuggets: int) -> tuple[NuggetBank, list[RagAnswer]]:
    bank = NuggetBank(
        tuple(
            TopicNuggets(
                f"t{t:03d}",
                f"What is known about subject {t}?",
                tuple(
                    Nugget(f"subject {t} has property {n}", "vital" if n < 5 else "okay")
                    for n in range(nuggets)
                ),
            )
            for t in range(topics)
        )
    )
    answers = [
        RagAnswer.build(
            f"run{r:03d}",
            f"t{t:03d}",
            [(f"Run {r} says subject {t} has property {(r + t) % nuggets}.", [])],
        )
        for r in range(runs)
        for t in range(topics)
    ]
    return bank, answers


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=150)
    parser.add_argument("--topics", type=int, default=105)
    parser.add_argument("--nuggets", type=int, default=20)
    parser.add_argument("--per-call", type=int, default=10, help="nuggets a call (10)")
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()

    bank, answers = campaign(args.runs, args.topics, args.nuggets)
    calls = len(answers) * math.ceil(args.nuggets / args.per_call)
    ideal = calls * args.latency / args.concurrency
    with LoopbackProcess(latency=args.latency, labels=list(LABELS)) as server:
        judge = OpenAICompatibleJudge(
            base_url=server.base_url, model="bench", max_concurrency=args.concurrency
        )
        options = {"judge": judge, "per_call": args.per_call, "progress": False}
        # Warm-up (imports, first connections), not cached, not counted below.
        assign(bank, answers[: args.concurrency], **options)
        with tempfile.TemporaryDirectory() as tmp:
            cache = str(Path(tmp) / "nuggets.sqlite")
            load = os.getloadavg()
            before = server.chat_requests()
            cpu, start = time.process_time(), time.perf_counter()
            cold = assign(bank, answers, cache=cache, **options)
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            cold_requests = server.chat_requests() - before
            dry_cpu, start = time.process_time(), time.perf_counter()
            estimate = assign(bank, answers, cache=cache, dry_run=True, **options)
            dry_wall, dry_cpu = time.perf_counter() - start, time.process_time() - dry_cpu
            before = server.chat_requests()
            warm_cpu, start = time.process_time(), time.perf_counter()
            warm = assign(bank, answers, cache=cache, **options)
            warm_wall = time.perf_counter() - start
            warm_cpu = time.process_time() - warm_cpu
            warm_requests = server.chat_requests() - before
            load_after = os.getloadavg()

    same = [a.judgements for a in cold.answers] == [a.judgements for a in warm.answers]
    print(
        f"{args.runs} runs x {args.topics} topics x {args.nuggets} nuggets = {len(answers)} "
        f"answers, per_call={args.per_call}: {calls} judge calls "
        f"({calls // len(answers)} an answer); latency {args.latency * 1000:.0f} ms, "
        f"concurrency {args.concurrency}; cores {os.cpu_count()}; load average "
        f"{load[0]:.2f} before, {load_after[0]:.2f} after"
    )
    print(f"ideal (calls x latency / concurrency)   {ideal:8.2f} s")
    print(
        f"cold: wall {wall:8.2f} s = {wall / ideal:.2f}x ideal; client CPU {cpu:.1f} s = "
        f"{cpu / calls * 1000:.2f} ms per call; the server counted {cold_requests} chat "
        f"requests; {len(cold)} answers, {cold.n_errors} failed judgements"
    )
    hit_rate = estimate.cache_hits / max(1, estimate.cache_hits + estimate.calls)
    print(
        f"dry run against the cache: {estimate.cache_hits} cache hits, {estimate.calls} calls "
        f"to make: hit rate {hit_rate:.1%} (wall {dry_wall:.2f} s, client CPU {dry_cpu:.1f} s)"
    )
    print(
        f"rerun from the cache: wall {warm_wall:.2f} s, client CPU {warm_cpu:.1f} s = "
        f"{warm_cpu / calls * 1000:.2f} ms per call; the server counted {warm_requests} chat "
        f"requests; same labels as the cold run: {same}"
    )
    ok = (
        cold_requests == calls
        and cold.n_errors == 0
        and warm_requests == 0
        and estimate.cache_hits == calls
        and estimate.calls == 0
        and same
    )
    print(
        "checks (cold = one request a call, rerun 100% cache hits and 0 requests):",
        "met" if ok else "NOT met",
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
