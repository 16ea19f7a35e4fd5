"""The nuggets guide's llama.cpp variant (docs/guides/nuggets.md, "With a local llama.cpp
server") runs as it is written against a protocol fake of llama.cpp's server, so that the
snippet cannot rot: the Python block verbatim (its server's address from ``LLAMA_SERVER``, as
the block reads it), and the command lines with the environment they export pointed at the
fake.

The fake speaks what llama.cpp's ``llama-server`` does (tools/server/README.md of
ggml-org/llama.cpp; a reply seen from build b6210, ggml-org/llama.cpp issue 15443):
``GET /health`` ``{"status": "ok"}``, ``GET /v1/models`` (``owned_by: "llamacpp"``),
``POST /v1/chat/completions`` with its reply's fields (``choices``, ``created``, ``model``,
``system_fingerprint``, ``object``, ``usage``, ``id``, ``timings``) and its errors'
``{"error": {"code", "message", "type"}}``. The labels are the rule judge's (the loopback
server's answer), since a fake checks the protocol, not a model.
"""

from __future__ import annotations

import http.server
import json
import re
import shlex
import threading
import time
import uuid
from typing import Any

import pytest
from doc_pages import DOCS, python_blocks, run_examples, section
from nuggets.test_cli import _files

from ragmeter.cli import main
from ragmeter.judges.testing import LoopbackOpenAIServer
from ragmeter.nuggets import NuggetAssignments, NuggetBank

PAGE = DOCS / "guides" / "nuggets.md"
HEADING = "## With a local llama.cpp server"
MODEL = "SmolLM2-135M-Instruct"


class FakeLlamaServer:
    """llama-server's HTTP protocol on 127.0.0.1 (see the module documentation), answering
    chats as the loopback OpenAI server does; every request recorded."""

    def __init__(self) -> None:
        self.answers = LoopbackOpenAIServer(model=MODEL)
        self.requests: list[tuple[str, str, Any]] = []
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _send(self, status: int, payload: Any) -> None:
                raw = json.dumps(payload).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _not_found(self) -> None:
                error = {"code": 404, "message": "File Not Found", "type": "not_found_error"}
                self._send(404, {"error": error})

            def do_GET(self) -> None:
                fake.requests.append(("GET", self.path, None))
                if self.path == "/health":
                    self._send(200, {"status": "ok"})
                elif self.path == "/v1/models":
                    model = {"id": MODEL, "object": "model", "created": 0, "owned_by": "llamacpp"}
                    self._send(200, {"object": "list", "data": [model]})
                else:
                    self._not_found()

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"null")
                fake.requests.append(("POST", self.path, body))
                if self.path != "/v1/chat/completions":
                    return self._not_found()
                status, payload = fake.answers.chat_answer(body)
                if status != 200:
                    message = payload["error"]["message"]
                    error = {"code": status, "message": message, "type": "invalid_request_error"}
                    return self._send(status, {"error": error})
                usage = payload["usage"]
                self._send(200, fake.reply(body, payload["choices"][0]["message"], usage))

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @staticmethod
    def reply(body: Any, message: Any, usage: Any) -> dict[str, Any]:
        """A chat completion as llama-server writes it (its fields, in its order)."""
        prompt, completion = usage["prompt_tokens"], usage["completion_tokens"]
        return {
            "choices": [
                {
                    "finish_reason": "stop",
                    "index": 0,
                    "message": {"role": "assistant", "content": message["content"]},
                }
            ],
            "created": int(time.time()),
            "model": body.get("model") or MODEL,
            "system_fingerprint": "b6210-a094f381",
            "object": "chat.completion",
            "usage": {
                "completion_tokens": completion,
                "prompt_tokens": prompt,
                "total_tokens": prompt + completion,
            },
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "timings": {
                "prompt_n": prompt,
                "prompt_ms": 40.0,
                "prompt_per_token_ms": 40.0 / max(prompt, 1),
                "prompt_per_second": 1000.0 * prompt / 40.0,
                "predicted_n": completion,
                "predicted_ms": 90.0,
                "predicted_per_token_ms": 90.0 / max(completion, 1),
                "predicted_per_second": 1000.0 * completion / 90.0,
            },
        }

    def chats(self) -> int:
        return sum(1 for method, path, _ in self.requests if path == "/v1/chat/completions")

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.answers.stop()
        self.answers._server.server_close()


@pytest.fixture
def fake():
    server = FakeLlamaServer()
    yield server
    server.close()


def test_the_python_block_runs_as_written_against_llama_servers_protocol(
    fake, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LLAMA_SERVER", fake.url)
    # the worked example's inputs (sections 1 and 2), then the llama.cpp block as it is
    namespace = run_examples(
        python_blocks(PAGE, "## 1. A bank of nuggets from the pooled relevant segments")
        + python_blocks(PAGE, "## 2. The answers: TREC RAG answer files"),
        name="nuggets guide",
    )
    (block,) = python_blocks(PAGE, HEADING)
    assert "127.0.0.1:8080" in block  # the address it shows, read from LLAMA_SERVER here
    page = run_examples([block], namespace, name="llama.cpp block")
    assert fake.requests[0][:2] == ("GET", "/health")
    chats = [body for _, path, body in fake.requests if path == "/v1/chat/completions"]
    assert chats and all(body["model"] == MODEL for body in chats)
    # what the block made is what the server answered: a bank with the model's identity,
    # every kept answer assigned with a label per nugget, saved for the report
    local = NuggetAssignments.read(tmp_path / "llama-assignments.json")
    assert local.bank == page["local_bank"] and local.n_errors == 0
    assert {(a.run_id, a.topic_id) for a in local} == {(a.run_id, a.topic_id) for a in page["kept"]}
    assert local.judge is not None and local.judge["judge"]["model"] == MODEL
    # the cache: the block run again asks the server nothing
    before = fake.chats()
    run_examples([block], page, name="llama.cpp block, again")
    assert fake.chats() == before


def _commands(text: str) -> tuple[dict[str, str], list[list[str]]]:
    """The ```text block after "From the command line, ..." in the llama.cpp section: its
    exported variables and its ragmeter command lines (continuations joined)."""
    blocks = re.findall(r"```text\n(.*?)```", text, re.S)
    (block,) = [b for b in blocks if "RAGMETER_JUDGE_MODEL" in b]
    joined = block.replace("\\\n", " ")
    exported: dict[str, str] = {}
    commands = []
    for line in joined.splitlines():
        words = shlex.split(line)
        if words and words[0] == "export":
            exported.update(w.split("=", 1) for w in words[1:])
        elif words:
            assert words[0] == "ragmeter", line
            commands.append(words[1:])
    return exported, commands


def test_the_command_lines_run_against_llama_servers_protocol(fake, tmp_path, monkeypatch):
    exported, commands = _commands(section(PAGE, HEADING))
    assert exported == {
        "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1",
        "RAGMETER_JUDGE_MODEL": MODEL,
    }
    _files(tmp_path)
    (tmp_path / "corpus.jsonl").rename(tmp_path / "segments.jsonl")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{fake.url}/v1")  # the fake, not port 8080
    monkeypatch.setenv("RAGMETER_JUDGE_MODEL", exported["RAGMETER_JUDGE_MODEL"])
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    for command in commands:
        assert main(command) == 0, command
    bank = NuggetBank.read(tmp_path / "bank.json")
    assert bank.provenance["judge"]["judge"]["model"] == MODEL
    assigned = NuggetAssignments.read(tmp_path / "assignments.json")
    assert assigned.bank == bank and len(assigned) == 4 and fake.chats() > 0
    before = fake.chats()
    for command in commands:  # from the cache
        assert main(command) == 0, command
    assert fake.chats() == before
