"""Batch mode (issue 49 item 1): the calls of a run as OpenAI Batch API files, read back into
the cache with the keys of online calls.

Oracle: the online path. The same scripted judge answers online calls and batch lines (the
loopback server runs a batch line through the very code that answers ``/chat/completions``),
so a batch run must give the online run's rows exactly, send each call once, and leave a cache
that answers a rerun without a line or a call. Failed lines, an expired batch and a client
killed while its batch runs must give error rows (never a score) and resume without sending a
line twice.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragmeter.exceptions import InvalidInputError, JudgeBatchPending, JudgeConfigurationError
from ragmeter.judges import (
    BatchMode,
    OpenAICompatibleJudge,
    RuleJudge,
    Sample,
    ScriptedJudge,
    evaluate,
)
from ragmeter.judges.testing import LoopbackOpenAIServer

METRICS = ["groundedness", "faithfulness", "context_relevancy"]


def _samples(n: int = 6) -> list[Sample]:
    return [
        Sample(
            f"Where is monument {i}?",
            f"Monument {i} is in Paris. It was built in {1800 + i}.",
            [f"Monument {i} stands in Paris, France. It is old."],
            id=f"s{i}",
        )
        for i in range(n)
    ]


def scripted() -> ScriptedJudge:
    """Verdicts that depend on the sample, so that a mix-up of lines would show."""

    def claims(request):
        text = request.first_user_message()
        number = int(text.split("Monument ")[1].split(" ")[0])
        return {"claims": [f"Monument {number} is in Paris.", f"It was built in {1800 + number}."]}

    def verdicts(kind):
        def answer(request):
            text = request.first_user_message()
            items = json.loads(text.rsplit("<data:claim_statements>\n", 1)[1].split("\n</data")[0])
            number = int(text.split("Monument ")[1].split(" ")[0])
            labels = {1: 1, 0: 0} if kind == "groundedness" else {1: "supported", 0: "unsupported"}
            return {
                "verdicts": [
                    {
                        "id": item["id"],
                        "verdict": labels[int(item["id"] == 1 or number % 2 == 0)],
                        "reason": "scripted",
                    }
                    for item in items
                ]
            }

        return answer

    def sentences(request):
        items = json.loads(
            request.first_user_message().rsplit("<data:context>\n", 1)[1].split("\n</data")[0]
        )
        return {
            "sentences": [
                {"id": item["id"], "relevant": "Paris" in item["text"], "reason": "scripted"}
                for item in items
            ]
        }

    return ScriptedJudge(
        {
            "claims": claims,
            "groundedness_verdicts": verdicts("groundedness"),
            "faithfulness_verdicts": verdicts("faithfulness"),
            "context_relevancy_labels": sentences,
        },
        name="scripted",
    )


def _rows(results):
    return [(r.sample_id, r.metric, r.status, r.value, r.score.reason_code) for r in results.rows]


@pytest.fixture
def server():
    with LoopbackOpenAIServer(judge=scripted()) as running:
        yield running


def _judge(server) -> OpenAICompatibleJudge:
    return OpenAICompatibleJudge(base_url=server.base_url, model="m", identity="scripted-m")


def _mode(folder, **options) -> BatchMode:
    return BatchMode(folder, poll_s=0.02, settle_s=0.05, **options)


def test_a_batch_run_gives_the_online_rows_and_its_cache_answers_a_rerun(server, tmp_path):
    online = evaluate(_samples(), METRICS, judge=_judge(server), progress=False)
    calls = online.total_usage().calls
    assert server.count("chat") == calls and server.batches.lines_run == 0
    cache = str(tmp_path / "judge.sqlite")
    batched = evaluate(
        _samples(), METRICS, judge=_judge(server), cache=cache, batch=_mode(tmp_path / "b")
    )
    assert _rows(batched) == _rows(online)
    assert [r.score.evidence for r in batched.rows] == [r.score.evidence for r in online.rows]
    # Every call went once, as a batch line; none online.
    assert server.count("chat") == calls and server.batches.lines_run == calls
    assert batched.total_usage().calls == calls
    assert batched.manifest["batch"]["lines_submitted"] == calls
    # Claims first, then the verdicts that need them: two rounds.
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["round-0001", "round-0002"]
    # The answers are under the keys of online calls: an online rerun is all cache hits...
    rerun = evaluate(_samples(), METRICS, judge=_judge(server), cache=cache, progress=False)
    assert rerun.cache_summary()["without_call"] == len(rerun.rows) and _rows(rerun) == _rows(
        online
    )
    # ...and so is a batch rerun: no line, no batch, no call.
    batches = len(server.batches.batches)
    again = evaluate(
        _samples(), METRICS, judge=_judge(server), cache=cache, batch=_mode(tmp_path / "b")
    )
    assert _rows(again) == _rows(online) and again.total_usage().calls == 0
    assert len(server.batches.batches) == batches and server.count("chat") == calls


def test_the_batch_files_hold_the_online_request_bodies(server, tmp_path):
    evaluate(
        _samples(2),
        ["groundedness"],
        judge=_judge(server),
        cache=str(tmp_path / "c.sqlite"),
        batch=_mode(tmp_path / "b", vllm_model="Qwen/Qwen2.5-7B-Instruct"),
    )
    folder = next((tmp_path / "b" / "round-0001").iterdir())
    lines = [json.loads(x) for x in (folder / "requests.jsonl").read_text().splitlines()]
    vllm = [json.loads(x) for x in (folder / "requests.vllm.jsonl").read_text().splitlines()]
    assert {line["method"] for line in lines} == {"POST"}
    assert {line["url"] for line in lines} == {"/v1/chat/completions"}
    assert len({line["custom_id"] for line in lines}) == len(lines) == 2
    # The bodies the judge posts online (model, messages, schema, seed, temperature, limit).
    server.reset()
    evaluate(_samples(2)[:1], ["groundedness"], judge=_judge(server), progress=False)
    online_body = server.requests[0].body
    assert lines[0]["body"] == online_body or lines[1]["body"] == online_body
    # vLLM's file: the same lines, its model named as vLLM serves it.
    assert [v["custom_id"] for v in vllm] == [line["custom_id"] for line in lines]
    assert all(v["body"]["model"] == "Qwen/Qwen2.5-7B-Instruct" for v in vllm)
    assert [{**v["body"], "model": "m"} for v in vllm] == [line["body"] for line in lines]
    state = json.loads((folder / "state.json").read_text())
    assert state["status"] == "completed" and state["batch_id"].startswith("batch_")


def test_failed_lines_are_error_rows_and_a_rerun_sends_only_them(server, tmp_path):
    online = evaluate(_samples(), METRICS, judge=_judge(server), progress=False)

    def fail_sample_3(custom_id, body):
        text = body["messages"][-1]["content"]
        return (400, "scripted rejection") if "Monument 3 " in text else None

    server.batches.line_fault = fail_sample_3
    cache = str(tmp_path / "judge.sqlite")
    batched = evaluate(
        _samples(), METRICS, judge=_judge(server), cache=cache, batch=_mode(tmp_path / "b")
    )
    for got, want in zip(batched.rows, online.rows, strict=True):
        if got.sample_id == "s3":
            assert got.status == "error" and got.value is None
            assert got.score.reason_code == "judge_request_rejected"
            assert "scripted rejection" in got.score.message
        else:
            assert (got.status, got.value) == (want.status, want.value)
    # Replaying the recorded failures (retry_errors=False) sends nothing: the same rows.
    server.batches.line_fault = None
    before = server.batches.lines_run
    replay = evaluate(
        _samples(),
        METRICS,
        judge=_judge(server),
        cache=cache,
        batch=_mode(tmp_path / "b"),
        retry_errors=False,
    )
    assert _rows(replay) == _rows(batched) and server.batches.lines_run == before
    assert replay.total_usage().calls == 0
    # A rerun (retry_errors=True, the default) sends the failed lines again, and only them.
    rerun = evaluate(
        _samples(), METRICS, judge=_judge(server), cache=cache, batch=_mode(tmp_path / "b")
    )
    assert _rows(rerun) == _rows(online)
    s3_calls = sum(r.total_usage().calls for r in online.rows if r.sample_id == "s3")
    assert server.batches.lines_run - before == s3_calls


def test_an_expired_batch_gives_error_rows_for_the_lines_it_did_not_run(server, tmp_path):
    online = evaluate(_samples(), ["context_relevancy"], judge=_judge(server), progress=False)
    server.batches.expire_after = 4
    cache = str(tmp_path / "judge.sqlite")
    batched = evaluate(
        _samples(),
        ["context_relevancy"],
        judge=_judge(server),
        cache=cache,
        batch=_mode(tmp_path / "b"),
    )
    statuses = [r.status for r in batched.rows]
    assert statuses.count("ok") == 4 and statuses.count("error") == 2
    for got, want in zip(batched.rows, online.rows, strict=True):
        if got.status == "ok":
            assert got.value == want.value
        else:
            assert got.value is None and got.score.reason_code == "judge_unavailable"
            assert "batch_expired" in got.score.message
    server.batches.expire_after = None
    rerun = evaluate(
        _samples(),
        ["context_relevancy"],
        judge=_judge(server),
        cache=cache,
        batch=_mode(tmp_path / "b"),
    )
    assert _rows(rerun) == _rows(online)
    assert server.batches.lines_run == len(online.rows) + 0  # 4 + the 2 expired, once each


_CHILD = """
import sys
from ragmeter.judges import BatchMode, OpenAICompatibleJudge, evaluate
sys.path.insert(0, {tests!r})
from judges.test_batch import METRICS, _samples
judge = OpenAICompatibleJudge(base_url={url!r}, model="m", identity="scripted-m")
evaluate(_samples(), METRICS, judge=judge, cache={cache!r},
         batch=BatchMode({folder!r}, poll_s=0.02, settle_s=0.05))
"""


def test_a_client_killed_while_its_batch_runs_resumes_without_sending_a_line_twice(
    server, tmp_path
):
    online = evaluate(_samples(), METRICS, judge=_judge(server), progress=False)
    calls = online.total_usage().calls
    cache, folder = str(tmp_path / "judge.sqlite"), str(tmp_path / "b")
    server.batches.hold(from_batch=2)  # the verdicts' round waits
    tests = str(Path(__file__).resolve().parents[1])
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _CHILD.format(tests=tests, url=server.base_url, cache=cache, folder=folder),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60

    # Killed once its second round is submitted and recorded (state.json), while it polls.
    def submitted() -> bool:
        for state in Path(folder).glob("round-0002/*/state.json"):
            try:
                if json.loads(state.read_text())["status"] == "submitted":
                    return True
            except (ValueError, KeyError):
                pass
        return False

    while not submitted():
        assert child.poll() is None, child.stderr.read().decode()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    child.stderr.close()
    first_round = server.batches.lines_run
    server.batches.release()
    resumed = evaluate(_samples(), METRICS, judge=_judge(server), cache=cache, batch=_mode(folder))
    assert _rows(resumed) == _rows(online)
    # The submitted batch was polled, not submitted again: two batches in all, each line once.
    assert len(server.batches.batches) == 2
    server.batches.wait()
    assert server.batches.lines_run == calls and first_round < calls


def test_files_for_an_offline_run_and_the_output_vllm_writes(tmp_path):
    """submit=False: the run stops with the files to run; vLLM's output (played here by the
    server's chat answer, in run-batch's output form) is read back on the next run."""
    with LoopbackOpenAIServer(judge=scripted()) as server:
        online = evaluate(_samples(3), METRICS, judge=_judge(server), progress=False)
        cache, folder = str(tmp_path / "judge.sqlite"), tmp_path / "b"
        rounds = 0
        while True:
            try:
                results = evaluate(
                    _samples(3),
                    METRICS,
                    judge=_judge(server),
                    cache=cache,
                    batch=_mode(folder, submit=False),
                )
                break
            except JudgeBatchPending as pending:
                rounds += 1
                assert "vllm run-batch -i" in str(pending) and pending.pending > 0
                vllm_inputs = [Path(p) for p in pending.paths if p.endswith(".vllm.jsonl")]
                assert vllm_inputs
                for path in vllm_inputs:
                    out = []
                    for line in path.read_text().splitlines():
                        request = json.loads(line)
                        status, body = server.chat_answer(request["body"])
                        out.append(
                            {
                                "id": "vllm-1",
                                "custom_id": request["custom_id"],
                                "response": {"status_code": status, "body": body},
                                "error": None,
                            }
                        )
                    (path.parent / "output.jsonl").write_text(
                        "".join(json.dumps(o) + "\n" for o in out)
                    )
            assert rounds < 5
        assert rounds == 2 and _rows(results) == _rows(online)
        assert server.batches.lines_run == 0 and len(server.batches.batches) == 0


def test_an_endpoint_without_the_batch_api_leaves_the_files_to_run_offline(tmp_path):
    """submit='auto' against a server with no /files route (vLLM's): the files are kept."""
    import httpx

    def no_batch_api(request):
        return httpx.Response(404, json={"error": {"message": "Not Found"}})

    judge = OpenAICompatibleJudge(
        base_url="http://127.0.0.1:9/v1", model="m", transport=httpx.MockTransport(no_batch_api)
    )
    with pytest.raises(JudgeBatchPending) as raised:
        evaluate(
            _samples(2),
            ["groundedness"],
            judge=judge,
            cache=str(tmp_path / "c.sqlite"),
            batch=_mode(tmp_path / "b"),
        )
    assert raised.value.pending == 2 and all(Path(p).exists() for p in raised.value.paths)
    state = json.loads(
        next((tmp_path / "b" / "round-0001").iterdir()).joinpath("state.json").read_text()
    )
    assert state["status"] == "written" and "404" in state["submit"]


def test_batch_mode_needs_a_cache_and_an_openai_compatible_judge(tmp_path):
    with pytest.raises(InvalidInputError, match="cache="):
        evaluate(_samples(1), ["groundedness"], judge=RuleJudge(), batch=_mode(tmp_path))
    with pytest.raises(JudgeConfigurationError, match="batch mode"):
        evaluate(
            _samples(1),
            ["groundedness"],
            judge=RuleJudge(),
            cache=str(tmp_path / "c.sqlite"),
            batch=_mode(tmp_path / "b"),
        )
    with pytest.raises(InvalidInputError, match="poll_s"):
        BatchMode(tmp_path, poll_s=0)


def test_a_dry_run_reports_the_batch_size_before_anything_is_sent(tmp_path):
    """The dry run's stand-in answers like the RuleJudge the server runs, so the lines and
    bytes it counts are those the real run then writes."""
    with LoopbackOpenAIServer() as server:
        judge = OpenAICompatibleJudge(base_url=server.base_url, model="m")
        options = {
            "judge": judge,
            "cache": str(tmp_path / "c.sqlite"),
            "batch": _mode(tmp_path / "b"),
            "prices": {"m": (0.001, 0.002)},
        }
        dry = evaluate(_samples(), METRICS, dry_run=True, **options)
        assert server.count("any") == 0 and not (tmp_path / "b").exists()
        results = evaluate(_samples(), METRICS, **options)
    written = list((tmp_path / "b").glob("round-*/*/requests.jsonl"))
    lines = sum(len(p.read_text().splitlines()) for p in written)
    assert dry.batch_requests == lines == results.total_usage().calls == dry.calls
    assert dry.batch_bytes == sum(p.stat().st_size for p in written)
    assert "request lines" in str(dry) and dry.cost is not None
