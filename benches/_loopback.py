"""The benchmarks' loopback OpenAI-compatible server, in a process of its own.

:class:`~ragmeter.judges.testing.LoopbackOpenAIServer` (the tests' server: real HTTP on
127.0.0.1, a fixed latency) served by another Python process, so that the benchmark's own CPU
time (``time.process_time``) is the client's alone. The server answers every chat with one fixed
text, or (``labels=``) labels every item a labelling call lists (``"id": n`` in its prompt,
as :func:`ragmeter.judges.prompts.format_items` writes them) with the labels given in turn: no
judge's work in the server. It counts the chat requests it received: the benchmark asks it
(:meth:`LoopbackProcess.chat_requests`), so a cache's "zero calls" is checked where the calls
would arrive, not where they are made.

    with LoopbackProcess(latency=0.05, answer='{"value": 1}') as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="bench")
        ...
        server.chat_requests()

``python benches/_loopback.py --latency 0.05 --fixed-answer TEXT`` (or ``--labels
support,not_support``) serves one: it prints its base URL, then answers each line ``count`` on
its standard input with the number of chat requests received so far, and stops at the end of
its input.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from typing import Any

__all__ = ["LoopbackProcess"]


class _Fixed:
    """Answers every chat with one text (a benchmark measures the client, not a judge)."""

    name = "fixed"

    def __init__(self, text: str):
        self.text = text

    def respond(self, request: Any) -> str:
        return self.text


class _Labeller:
    """Labels every item of a labelling call, the labels given in turn (``{"labels": [{"id",
    "label", "reason"}]}``)."""

    name = "labeller"
    _ID = re.compile(r'"id": (\d+)')

    def __init__(self, labels: list[str]):
        self.labels = labels

    def respond(self, request: Any) -> str:
        ids = [int(i) for i in self._ID.findall(request.messages[-1]["content"])]
        return json.dumps(
            {
                "labels": [
                    {"id": i, "label": self.labels[i % len(self.labels)], "reason": f"item {i}"}
                    for i in ids
                ]
            }
        )


class LoopbackProcess:
    """The loopback server in a child process (see the module documentation): ``answer``, the
    one text of every reply, or ``labels``, the labels of every labelling call's items."""

    def __init__(
        self, *, latency: float, answer: str | None = None, labels: list[str] | None = None
    ):
        if (answer is None) == (labels is None):
            raise ValueError("give answer or labels")
        reply = ["--fixed-answer", answer] if answer is not None else ["--labels", ",".join(labels)]
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--latency", str(latency), *reply],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        self.base_url = self.process.stdout.readline().strip()
        if not self.base_url.startswith("http://127.0.0.1:"):
            self.process.kill()
            raise RuntimeError(f"the loopback server did not start: {self.base_url!r}")

    def chat_requests(self) -> int:
        """How many ``/chat/completions`` requests the server has received."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write("count\n")
        self.process.stdin.flush()
        return int(self.process.stdout.readline())

    def close(self) -> None:
        """Stop the server (end of its input) and wait for it."""
        if self.process.stdin is not None and not self.process.stdin.closed:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> LoopbackProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _serve(argv: list[str]) -> int:
    from ragmeter.judges.testing import LoopbackOpenAIServer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0)
    replies = parser.add_mutually_exclusive_group(required=True)
    replies.add_argument("--fixed-answer")
    replies.add_argument("--labels", help="labels of every item, in turn, comma-separated")
    args = parser.parse_args(argv)
    judge = _Fixed(args.fixed_answer) if args.labels is None else _Labeller(args.labels.split(","))
    server = LoopbackOpenAIServer(judge, latency_s=args.latency).start()
    print(server.base_url, flush=True)
    try:
        for line in sys.stdin:
            if line.strip() == "count":
                print(server.count("chat"), flush=True)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(_serve(sys.argv[1:]))
