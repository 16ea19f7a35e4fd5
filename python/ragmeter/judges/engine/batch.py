"""Batch mode: the calls of a run sent as OpenAI Batch API files instead of one by one.

``evaluate(..., batch=BatchMode("batches/"), cache="judge.sqlite")`` runs the metrics as
usual, but a call that misses the cache does not go to the endpoint: its request line waits in
the current round. When every unit of the run waits on the batch (nothing new was asked for
``settle_s``), the round's lines are written (OpenAI's form and vLLM's), submitted where the
endpoint serves ``/files`` and ``/batches`` and polled until the batch ends; the answers are
read back, each checked and stored in the cache under the key the same call has online, and
the metrics go on: a second stage (the verdicts of the claims a first stage extracted) and
re-asks after an unusable answer are the next round. Any metric's calls go through it
(built-in, custom, the relevance judge's): batch mode sits under :class:`JudgeContext`, where
every call passes.

Where the endpoint takes no batches (``submit=False``, or a server without the routes, such as
vLLM's), the run stops with :class:`~ragmeter.exceptions.JudgeBatchPending` naming the files to run
(``vllm run-batch -i .../requests.vllm.jsonl -o .../output.jsonl``); run the evaluation again
once the output is there. A rerun (after a kill, or ``wait=False``) reads the folder: it polls
the batches already submitted instead of submitting again, reads the outputs already
downloaded, and sends only what no round holds (a process killed in the instant between the
endpoint creating a batch and the round's ``state.json`` recording it submits that round again:
its lines are then answered twice, the answers are still read once). A line that failed (an
error line, an expired or failed batch, a line missing from the output) is the row's
``error``, never a score; with ``retry_errors=True`` (the default) a rerun sends it again in a
new round. Embeddings are not batched.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..._files import atomic_write_bytes, atomic_write_text
from ...exceptions import (
    InvalidInputError,
    JudgeBatchPending,
    JudgeConfigurationError,
    JudgeTransportError,
)
from ...io import read_records
from ..clients.batches import TERMINAL_STATES
from ..clients.protocol import Judge, JudgeRequest, JudgeResponse, judge_identity
from .batch_files import CHAT_URL, LineAnswer, Round, read_answers, read_rounds, slug
from .cache import canonical_json

__all__ = ["BatchMode", "BatchRun"]

log = logging.getLogger("ragmeter.judges")


@dataclass(frozen=True)
class BatchMode:
    """How ``evaluate(batch=...)`` sends its calls as batches (see the module's docstring).

    Parameters
    ----------
    directory
        The batch folder: one sub-folder per round and judge (created).
    submit
        ``"auto"`` (default): submit to the judge's endpoint when it serves ``/files`` and
        ``/batches`` (a 404 or 405 there means it does not: the files are left to run
        offline); ``True``: submit, and fail if the endpoint cannot; ``False``: only write
        the files (run them with ``vllm run-batch``, then evaluate again).
    wait
        Poll a submitted batch until it ends (``True``); ``False`` raises
        :class:`~ragmeter.exceptions.JudgeBatchPending` once it is submitted (evaluate again later).
    poll_s
        Seconds between two polls of a batch.
    timeout_s
        Stop waiting after this many seconds of a round (``JudgeBatchPending``; the
        batch goes on, a rerun picks it up); ``None``: no limit.
    completion_window
        The Batch API's ``completion_window``.
    settle_s
        A round is sent once nothing new was asked for this long.
    vllm_model
        The ``model`` written in ``requests.vllm.jsonl`` (default: the judge's).
    max_lines
        Lines per batch file at most (OpenAI takes 50,000).

    Raises
    ------
    InvalidInputError
        a bad option.
    """

    directory: str | os.PathLike[str]
    submit: bool | Literal["auto"] = "auto"
    wait: bool = True
    poll_s: float = 30.0
    timeout_s: float | None = None
    completion_window: str = "24h"
    settle_s: float = 0.2
    vllm_model: str | None = None
    max_lines: int = 50_000

    def __post_init__(self) -> None:
        if not isinstance(self.directory, str | os.PathLike) or not str(self.directory):
            raise InvalidInputError(
                f"BatchMode(directory=...) must be a folder path, got {self.directory!r}"
            )
        if self.submit not in (True, False, "auto"):
            raise InvalidInputError(
                f"BatchMode(submit=...) must be 'auto', True or False, got {self.submit!r}"
            )
        for name in ("poll_s", "settle_s"):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not math.isfinite(value)
                or value <= 0
            ):
                raise InvalidInputError(f"BatchMode({name}=...) must be > 0 seconds, got {value!r}")
        if self.timeout_s is not None and (
            isinstance(self.timeout_s, bool)
            or not isinstance(self.timeout_s, int | float)
            or not self.timeout_s > 0
        ):
            raise InvalidInputError(
                f"BatchMode(timeout_s=...) must be None or > 0 seconds, got {self.timeout_s!r}"
            )
        if (
            isinstance(self.max_lines, bool)
            or not isinstance(self.max_lines, int)
            or (self.max_lines < 1)
        ):
            raise InvalidInputError(
                f"BatchMode(max_lines=...) must be an integer >= 1, got {self.max_lines!r}"
            )


def _batch_judge(judge: Judge) -> Any:
    """The judge, if it can write batch lines (an OpenAI-compatible chat-completions judge)."""
    if not (hasattr(judge, "request_body") and hasattr(judge, "parse_completion")):
        raise JudgeConfigurationError(
            f"batch mode writes OpenAI-compatible requests, which judge {judge.name!r} "
            f"({type(judge).__name__}) cannot: use OpenAICompatibleJudge or OpenAIClientJudge, "
            "or run without batch="
        )
    return judge


@dataclass
class _Waiting:
    judge: Any
    body: Mapping[str, Any]
    future: asyncio.Future[LineAnswer] = field(repr=False)


class BatchRun:
    """The batch side of one run: requests wait here, rounds are written, sent, read back.

    The engine's :class:`~ragmeter.judges.engine.runtime.Runtime` asks :meth:`answer` for
    every call that missed the cache.
    """

    def __init__(self, mode: BatchMode):
        self.mode = mode
        self.root = Path(mode.directory)
        self.rounds: list[Round] | None = None
        self._answers: dict[str, LineAnswer] = {}
        self._fresh: set[str] = set()
        self._where: dict[str, Round] = {}
        self._waiting: dict[str, _Waiting] = {}
        self._asked = 0
        self._flusher: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None
        self.lines_sent = 0
        self.rounds_sent = 0

    def _index(self) -> None:
        """Read the folder once: earlier rounds, and the answers already downloaded."""
        if self.rounds is not None:
            return
        self.rounds = read_rounds(self.root)
        for round_ in self.rounds:
            for custom_id in round_.custom_ids:
                self._where[custom_id] = round_
            self._answers.update(read_answers(round_.output_paths))

    async def answer(
        self, judge: Judge, request: JudgeRequest, key: str, *, retrying: bool = False
    ) -> tuple[JudgeResponse, bool]:
        """The answer to ``request`` from a batch, and whether it came in this run.

        ``key`` is the call's cache key (its ``custom_id``). ``retrying``: the call failed in
        an earlier run (recorded in the cache) and is asked again, so an error line an earlier
        round holds for it is not reused.

        Raises
        ------
        JudgeTransportError
            the batch answered the line with an error (or lost it).
        JudgeBatchPending
            the run cannot get the answer now (files written for an offline run, a batch not
            finished when ``wait=False`` or past ``timeout_s``).
        """
        client = _batch_judge(judge)
        self._index()
        found = self._answers.get(key)
        if found is not None and (found.ok or not retrying):
            return self._response(client, key, found), key in self._fresh
        body = client.request_body(request)
        waiting = self._waiting.get(key)
        if waiting is None:
            loop = asyncio.get_running_loop()
            waiting = _Waiting(client, body, loop.create_future())
            self._waiting[key] = waiting
            self._asked += 1
            if self._flusher is None or self._flusher.done():
                self._flusher = loop.create_task(self._flush())
        line = await asyncio.shield(waiting.future)
        return self._response(client, key, line), True

    @staticmethod
    def _response(client: Any, key: str, line: LineAnswer) -> JudgeResponse:
        if line.completion is not None:
            response: JudgeResponse = client.parse_completion(line.completion)
            return response
        what = f"HTTP {line.status}" if line.status is not None else (line.code or "error")
        raise JudgeTransportError(
            f"the batch answered request {key[:12]} with {what}: {line.message}"[:600],
            status=line.status,
            kind="batch",
            # Expired or lost lines can succeed in a new batch; a rejected request cannot.
            retryable=line.status is None or line.status >= 500 or line.status == 429,
        )

    async def _flush(self) -> None:
        """Send rounds while requests wait: each once nothing new was asked for settle_s."""
        try:
            while self._waiting:
                seen = -1
                while seen != self._asked:
                    seen = self._asked
                    await asyncio.sleep(self.mode.settle_s)
                await self._round(dict(self._waiting))
        except asyncio.CancelledError:
            for waiting in self._waiting.values():
                waiting.future.cancel()
            self._waiting.clear()
            raise
        except Exception as exc:
            # Every waiter gets the round's failure (a JudgeBatchPending stops the run).
            for waiting in self._waiting.values():
                if not waiting.future.done():
                    waiting.future.set_exception(exc)
                    waiting.future.exception()  # retrieved: only the waiters re-raise it
            self._waiting.clear()

    async def _round(self, waiting: dict[str, _Waiting]) -> None:
        """Write, submit and read back one round of the waiting requests."""
        assert self.rounds is not None
        # Lines of a round not finished (a rerun after a kill, or of files left to run
        # offline) wait for that round: submitted, it is polled; written, it is submitted
        # (or its output looked for) instead of being written again.
        resumed: dict[str, list[str]] = {}
        new: dict[str, list[str]] = {}
        for key, item in waiting.items():
            earlier = self._where.get(key)
            if earlier is not None and earlier.status in ("submitted", "written"):
                resumed.setdefault(str(earlier.folder), []).append(key)
            else:
                identity = canonical_json(judge_identity(item.judge))
                new.setdefault(identity, []).append(key)
        jobs = []
        for folder, keys in resumed.items():
            earlier = next(r for r in self.rounds if str(r.folder) == folder)
            jobs.append((earlier, waiting[keys[0]].judge, keys))
        number = max((r.number for r in self.rounds), default=0) + 1
        for identity, keys in new.items():
            judge = waiting[keys[0]].judge
            name = f"{slug(judge.name)}-{hashlib.sha256(identity.encode()).hexdigest()[:8]}"
            for start in range(0, len(keys), self.mode.max_lines):
                chunk = keys[start : start + self.mode.max_lines]
                part = f"-{start // self.mode.max_lines + 1}" if len(keys) > len(chunk) else ""
                round_ = Round(self.root / f"round-{number:04d}" / f"{name}{part}", judge.name)
                round_.write([(k, waiting[k].body) for k in chunk], self.mode.vllm_model)
                self.rounds.append(round_)
                for key in chunk:
                    self._where[key] = round_
                jobs.append((round_, judge, chunk))
        outcomes = await asyncio.gather(
            *(self._run_job(round_, judge) for round_, judge, _ in jobs), return_exceptions=True
        )
        pending: list[Round] = []
        for (round_, _, keys), outcome in zip(jobs, outcomes, strict=True):
            if isinstance(outcome, JudgeBatchPending):
                pending.append(round_)
                continue
            if isinstance(outcome, BaseException):
                raise outcome
            for key in keys:
                line = self._answers.get(key) or LineAnswer(
                    None,
                    None,
                    "missing",
                    f"the batch's output has no line for this request (batch {round_.status})",
                )
                self._answers[key] = line
                self._fresh.add(key)
                entry = self._waiting.pop(key, None)
                if entry is not None and not entry.future.done():
                    entry.future.set_result(line)
        if pending:
            raise _pending(pending, sum(len(k) for r, _, k in jobs if r in pending))

    async def _run_job(self, round_: Round, judge: Any) -> None:
        """Get one round's answers: downloaded, submitted and polled, or already there."""
        if round_.has_output():
            self._answers.update(read_answers(round_.output_paths))
            return
        if round_.status == "written":
            await self._submit(round_, judge)
        await self._wait(round_, judge)

    async def _submit(self, round_: Round, judge: Any) -> None:
        endpoint = judge.batch_endpoint() if self.mode.submit is not False else None
        if endpoint is None:
            if self.mode.submit is True:
                raise JudgeConfigurationError(
                    f"BatchMode(submit=True), but judge {judge.name!r} has no Batch API client "
                    "(use OpenAICompatibleJudge, or submit='auto' to write the files only)"
                )
            raise JudgeBatchPending("offline", pending=len(round_.custom_ids))
        content = round_.requests_path.read_bytes()
        try:
            file_id = await endpoint.upload(content, f"ragmeter-{round_.folder.parent.name}.jsonl")
        except JudgeTransportError as exc:
            if self.mode.submit == "auto" and exc.status in (404, 405, 501):
                log.warning(
                    "%s serves no Batch API (HTTP %s on /files): the batch files of %s are "
                    "left to run offline",
                    judge.base_url,
                    exc.status,
                    round_.folder,
                )
                round_.state["submit"] = f"not served (HTTP {exc.status})"
                round_.save_state()
                raise JudgeBatchPending("offline", pending=len(round_.custom_ids)) from None
            raise
        batch = await endpoint.create(
            file_id,
            endpoint=CHAT_URL,
            completion_window=self.mode.completion_window,
            metadata={"ragmeter_round": round_.folder.parent.name},
        )
        round_.state.update(
            status="submitted", input_file_id=file_id, batch_id=batch.get("id"), batch=batch
        )
        round_.save_state()
        self.lines_sent += len(round_.custom_ids)
        self.rounds_sent += 1
        log.info(
            "batch %s submitted to %s: %d requests (%s)",
            batch.get("id"),
            judge.base_url,
            len(round_.custom_ids),
            round_.folder,
        )

    async def _wait(self, round_: Round, judge: Any) -> None:
        endpoint = judge.batch_endpoint()
        batch_id = round_.state.get("batch_id")
        if endpoint is None or not isinstance(batch_id, str):
            raise JudgeBatchPending("offline", pending=len(round_.custom_ids))
        loop = asyncio.get_running_loop()
        started = loop.time()
        while True:
            batch = await endpoint.retrieve(batch_id)
            status = str(batch.get("status"))
            if status in TERMINAL_STATES:
                break
            if not self.mode.wait or (
                self.mode.timeout_s is not None and loop.time() - started > self.mode.timeout_s
            ):
                round_.state["batch"] = batch
                round_.save_state()
                raise JudgeBatchPending("waiting", pending=len(round_.custom_ids))
            await asyncio.sleep(self.mode.poll_s)
        output, errors = round_.output_paths
        for file_key, path in (("output_file_id", output), ("error_file_id", errors)):
            file_id = batch.get(file_key)
            if isinstance(file_id, str):
                atomic_write_bytes(path, await endpoint.content(file_id))
        if status == "failed" and not round_.has_output():
            problems = json.dumps(batch.get("errors"))[:400]
            atomic_write_text(
                errors,
                "".join(
                    json.dumps(
                        {
                            "custom_id": key,
                            "response": None,
                            "error": {"code": "batch_failed", "message": problems},
                        }
                    )
                    + "\n"
                    for key in round_.custom_ids
                ),
            )
        round_.state.update(status=status, batch=batch)
        round_.save_state()
        self._answers.update(read_answers(round_.output_paths))

    async def close(self) -> None:
        """Stop the round in progress (the run ends or failed)."""
        if self._flusher is not None and not self._flusher.done():
            self._flusher.cancel()
            await asyncio.gather(self._flusher, return_exceptions=True)


def _pending(rounds: list[Round], n: int) -> JudgeBatchPending:
    """The error that stops a run whose batch answers are not in yet, saying what to do."""
    offline = [r for r in rounds if r.status == "written"]
    waiting = [r for r in rounds if r.status != "written"]
    parts = []
    if offline:
        runs = "; ".join(
            f"vllm run-batch -i {r.vllm_path} -o {r.output_paths[0]} --model {_model(r)}"
            for r in offline
        )
        parts.append(
            f"{sum(len(r.custom_ids) for r in offline)} requests written for an offline run "
            f"(OpenAI's form: requests.jsonl; vLLM's: requests.vllm.jsonl): {runs}"
        )
    if waiting:
        ids = ", ".join(str(r.state.get("batch_id")) for r in waiting)
        parts.append(
            f"{sum(len(r.custom_ids) for r in waiting)} requests in submitted batches not "
            f"finished yet ({ids})"
        )
    return JudgeBatchPending(
        f"{n} judge requests wait on a batch: " + "; ".join(parts) + ". Run the same "
        "evaluation again (same cache= and batch folder) to read their answers; what was "
        "answered so far is in the cache.",
        pending=n,
        paths=tuple(str(p) for r in offline for p in (r.vllm_path, r.requests_path)),
    )


def _model(round_: Round) -> str:
    try:
        rows = read_records(round_.vllm_path, format="jsonl", what="a vLLM batch input file").rows
        return str(rows[0]["body"]["model"])
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return "MODEL"
