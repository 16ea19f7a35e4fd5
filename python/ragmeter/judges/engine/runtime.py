"""The call engine: cache, per-endpoint limits, retries, parsing, re-asks, accounting.

One :class:`Runtime` lives for one evaluation run (asyncio primitives belong to one event
loop). Metrics talk to it through a :class:`~ragmeter.judges.context.JudgeContext`, which also
records what every call cost for the (sample, metric, judge) it serves. Identical requests
within a run are made once (``groundedness`` and ``faithfulness`` share the claim extraction),
across runs the cache answers them.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from ...exceptions import (
    JudgeError,
    JudgeOutputError,
    JudgeOutputTruncatedError,
    JudgeTransportError,
    MissingDependencyError,
)
from ..accounting import CallStats
from ..clients.limits import Limits, RateLimiter, RetryPolicy
from ..clients.protocol import (
    Embedder,
    Judge,
    JudgeRequest,
    JudgeResponse,
    Usage,
    embedder_identity,
    estimate_tokens,
    judge_identity,
)
from ..clients.secrets import redact
from ..parsing import OutputParseError, extract_json, validate_schema
from .batch import BatchRun
from .cache import JudgeCache, cache_key
from .settings import RunSettings

__all__ = ["JudgeCallError", "Runtime", "Validator"]

log = logging.getLogger("ragmeter.judges")

T = TypeVar("T")
Validator = Callable[[Any], Sequence[str]]

DEFAULT_RETRY_POLICY = RetryPolicy()
DEFAULT_LIMITS = Limits(max_concurrency=8)
REASK_OUTPUT_CHARS = 4000


class JudgeCallError(JudgeError):
    """A judge raised something other than a transport error (a bug in a judge callable)."""


class _Endpoint:
    """One endpoint's limits, and its health as the run saw it (for the log).

    The log says what changes, once: the endpoint starts failing (the first retry, at WARNING;
    INFO when rate limited), a call gives up on it, it answers again (at the level its failing
    was logged at, so that a log that showed the failing spell shows its end); every further
    retry and give-up of a failing endpoint is at DEBUG, and the run ends with one summary line per
    endpoint that needed retries. A dead server thus takes a few lines, not one per attempt.
    """

    def __init__(self, key: str, limits: Limits, sleep: Callable[[float], Awaitable[None]]):
        self.key = key
        self.semaphore = asyncio.Semaphore(limits.max_concurrency)
        self.limiter = RateLimiter(limits.rpm, sleep=sleep) if limits.rpm else None
        self.failing = False
        self.gave_up_while_failing = False
        self.retries = 0
        self.retried_calls = 0
        self.gave_up = 0
        self.recoveries = 0
        self.last_error = ""
        self.failing_level = logging.WARNING

    def retrying(self, line: str, error: JudgeTransportError, first_retry_of_call: bool) -> None:
        """Log one retry: the state change at WARNING (INFO for 429), the rest at DEBUG."""
        self.retries += 1
        self.retried_calls += int(first_retry_of_call)
        self.last_error = str(error)
        if self.failing:
            log.debug("%s", line)
            return
        self.failing = True
        self.gave_up_while_failing = False
        self.failing_level = logging.INFO if error.status == 429 else logging.WARNING
        log.log(
            self.failing_level,
            "%s; %s is failing: its further retries are logged at DEBUG until it answers again",
            line,
            self.key,
        )

    def giving_up(self, error: JudgeTransportError, attempts: int) -> None:
        """Log a call that stopped retrying: once per failing spell, the rest at DEBUG."""
        self.gave_up += 1
        self.last_error = str(error)
        line = f"{self.key}: gave up a call after {attempts} attempt(s): {error}"
        if self.gave_up_while_failing:
            log.debug("%s", line)
            return
        self.failing = True
        self.gave_up_while_failing = True
        self.failing_level = logging.WARNING
        log.warning(
            "%s%s",
            line,
            " (the run stops: every call would fail alike)"
            if error.fatal
            else "; its row is an error, and further calls that give up are logged at DEBUG",
        )

    def answered(self) -> None:
        """A call succeeded: a failing endpoint has recovered (said once)."""
        if not self.failing:
            return
        self.failing = False
        self.gave_up_while_failing = False
        self.recoveries += 1
        # At the level its failing was logged at (WARNING unless only rate limited): a log
        # that showed the failing spell shows its end.
        log.log(
            self.failing_level,
            "%s answers again (%d retries so far in this run, %d calls gave up)",
            self.key,
            self.retries,
            self.gave_up,
        )

    def summary(self) -> None:
        """One line for the run, if this endpoint needed retries or calls gave up."""
        if not (self.retries or self.gave_up):
            return
        log.log(
            logging.WARNING if self.gave_up or self.failing else logging.INFO,
            "%s over this run: %d retries in %d calls, %d calls gave up, %s; last error: %s",
            self.key,
            self.retries,
            self.retried_calls,
            self.gave_up,
            "still failing at the end" if self.failing else "answering at the end",
            self.last_error,
        )


def _stored_vector(value: Any) -> list[float] | None:
    """A cached embedding, or ``None`` when the stored value is not a vector (a miss)."""
    if not isinstance(value, list) or not value:
        return None
    if not all(
        isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) for x in value
    ):
        return None
    return [float(x) for x in value]


def _output_error(
    judge: Judge,
    request: JudgeRequest,
    errors: list[str],
    answers: list[str],
    last: JudgeResponse | None,
) -> JudgeOutputError:
    """The error of a request whose every answer was unusable, saying why it stopped."""
    attempts = len(errors)
    message = (
        f"judge {judge.name!r} gave no usable answer to {request.task!r} in {attempts} "
        f"attempt(s); last problem: {errors[-1]}"
    )
    if attempts >= 2 and answers[-1] in answers[:-1]:
        message += " (the judge gave the same answer again, so it was not asked any further)"
    if last is not None and last.finish_reason == "length":
        limit = (
            "no max_tokens" if request.max_tokens is None else f"max_tokens={request.max_tokens}"
        )
        # Fewer items per call shortens only an answer that labels items.
        advice = (
            "raise max_tokens or lower max_items_per_call"
            if request.n_items
            else ("raise max_tokens")
        )
        return JudgeOutputTruncatedError(
            f"{message}; the answer was cut off at the token limit ({limit}): {advice}",
            task=request.task,
            attempts=attempts,
            errors=tuple(errors),
        )
    return JudgeOutputError(message, task=request.task, attempts=attempts, errors=tuple(errors))


def _replayed(failure: Mapping[str, Any]) -> JudgeError:
    """The error a recorded failure stands for, marked as replayed."""
    message = (
        f"{failure.get('message', 'failed')} (replayed from the cache: this call failed in an "
        "earlier run; retry_errors=True makes it again)"
    )
    if failure.get("type") == "transport":
        return JudgeTransportError(
            message,
            status=failure.get("status"),
            kind=str(failure.get("kind", "http")),
            retryable=bool(failure.get("retryable", False)),
        )
    kind = JudgeOutputTruncatedError if failure.get("truncated") else JudgeOutputError
    error = kind(
        message,
        task=str(failure.get("task", "")),
        attempts=int(failure.get("attempts", 0)),
        errors=tuple(str(e) for e in failure.get("errors", ())),
    )
    # The failure of a whole split fallback: replaying it must not split (and call) again.
    error.split_failed = bool(failure.get("split_failed", False))  # type: ignore[attr-defined]
    return error


def _final(error: JudgeTransportError) -> JudgeTransportError:
    """The error to raise once retrying is over: a connection failure is then fatal."""
    if error.kind != "connect" or error.fatal:
        return error
    return JudgeTransportError(
        f"{error} (after the retries; every call to this endpoint would fail the same way: is "
        "the server running, and are base_url and its port right?)",
        status=error.status,
        kind=error.kind,
        retryable=False,
        fatal=True,
        body=error.body,
    )


def _endpoint_key(obj: Any) -> str:
    """The endpoint a client talks to (its limits and log lines): the URL, else its name."""
    base_url = getattr(obj, "base_url", None)
    if isinstance(base_url, str) and base_url:
        return base_url
    identity = judge_identity(obj)
    return str(identity.get("base_url") or identity.get("name"))


class Runtime:
    """Per-run state shared by every metric: cache, endpoint limits, in-run memo, settings."""

    def __init__(
        self,
        *,
        cache: JudgeCache,
        settings: RunSettings | None = None,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        seed: int = 0,
        batch: BatchRun | None = None,
    ):
        self.cache = cache
        self.batch = batch
        self.settings = settings or RunSettings()
        self._sleep = sleep or asyncio.sleep
        self._rng = random.Random(seed)
        self._endpoints: dict[str, _Endpoint] = {}
        self._memo: dict[str, asyncio.Future[Any]] = {}
        self._vectors: dict[str, list[float]] = {}
        self._used: dict[int, Any] = {}

    def _endpoint(self, obj: Any) -> _Endpoint:
        key = _endpoint_key(obj)
        endpoint = self._endpoints.get(key)
        if endpoint is None:
            limits = getattr(obj, "limits", None)
            endpoint = _Endpoint(
                key, limits if isinstance(limits, Limits) else DEFAULT_LIMITS, self._sleep
            )
            self._endpoints[key] = endpoint
            if (
                isinstance(limits, Limits)
                and limits.max_concurrency > 1
                and isinstance(getattr(obj, "base_url", None), str)
            ):
                # Said once per endpoint and run: a server that answers one request at a time
                # queues the others while their timeouts run.
                log.info(
                    "%s: up to %d requests in flight at once; pass max_concurrency=1 to the "
                    "judge or embedder for a server that answers one at a time, or a larger "
                    "max_concurrency= for one that serves more",
                    key,
                    limits.max_concurrency,
                )
        self._used[id(obj)] = obj
        return endpoint

    def log_summary(self) -> None:
        """Log one line per endpoint that needed retries this run (the end of the run)."""
        for endpoint in self._endpoints.values():
            endpoint.summary()

    def used_clients(self) -> list[Any]:
        """Every judge and embedder this run called (to close their connections)."""
        return list(self._used.values())

    async def _with_retries(
        self,
        obj: Any,
        call: Callable[[], Awaitable[T]],
        stats: CallStats,
        *,
        count: Callable[[CallStats, int], None],
        deterministic: bool = True,
    ) -> T:
        """``call()`` under the endpoint's limits, retried by its :class:`RetryPolicy`.

        ``deadline_s`` runs from the first attempt's start (waiting for a free slot of
        ``max_concurrency`` does not count) and cuts an attempt in flight. An endpoint that
        cannot be reached once the retries are spent is fatal: every call would fail alike. A
        ``deterministic`` call (temperature 0, embeddings) that timed out is retried once only:
        the same input makes the server work as long again, and it may still be working on the
        abandoned attempt.
        """
        endpoint = self._endpoint(obj)
        policy = getattr(obj, "retry_policy", None)
        if not isinstance(policy, RetryPolicy):
            policy = DEFAULT_RETRY_POLICY
        loop = asyncio.get_running_loop()
        deadline: float | None = None
        attempt = 0
        timeouts = 0
        while True:
            async with endpoint.semaphore:
                if endpoint.limiter is not None:
                    await endpoint.limiter.acquire()
                if deadline is None and policy.deadline_s is not None:
                    deadline = loop.time() + policy.deadline_s
                count(stats, 1)
                limit = asyncio.timeout_at(deadline)
                try:
                    async with limit:
                        result = await call()
                    endpoint.answered()
                    return result
                except JudgeTransportError as exc:
                    error = exc
                    if exc.kind == "connect":
                        # Refused (or no TLS handshake): no request reached the endpoint, so
                        # this attempt is no call (a retry still counts in ``retries``).
                        count(stats, -1)
                except TimeoutError:
                    if not limit.expired():
                        raise
                    error = self._past_deadline(obj, policy, attempt, None)
                except (asyncio.CancelledError, JudgeError, MissingDependencyError):
                    raise
                except Exception as exc:
                    raise JudgeCallError(
                        redact(
                            f"{getattr(obj, 'name', type(obj).__name__)!s} raised "
                            f"{type(exc).__name__}: {exc}"
                        )
                    ) from exc
            timeouts = timeouts + 1 if error.kind == "timeout" else timeouts
            if (
                error.kind == "deadline"
                or not error.retryable
                or attempt >= policy.max_retries
                or (deterministic and timeouts > 1)
            ):
                final = _final(error)
                if attempt or error.retryable or final.fatal:
                    # A request rejected at once (a 400) says nothing about the endpoint.
                    endpoint.giving_up(final, attempt + 1)
                raise final
            delay = policy.delay_s(attempt, error.retry_after, self._rng)
            if deadline is not None and loop.time() + delay > deadline:
                final = _final(self._past_deadline(obj, policy, attempt, error))
                endpoint.giving_up(final, attempt + 1)
                raise final
            # The budget of this kind of failure: a deterministic call's timeout is retried
            # once only, so this retry is its last; anything else has the policy's.
            if deterministic and error.kind == "timeout":
                allowed, why = attempt + 1, "; a timed-out call is retried once only"
            else:
                allowed, why = policy.max_retries, ""
            # The first retry of a healthy endpoint is worth seeing (or minutes of timeouts look
            # like a hang); a failing endpoint's further retries are details (DEBUG).
            endpoint.retrying(
                f"retrying {_endpoint_key(obj)} in {delay:.1f} s (retry {attempt + 1} of at "
                f"most {allowed}{why}) after: {error}",
                error,
                first_retry_of_call=attempt == 0,
            )
            stats.retries += 1
            attempt += 1
            await self._sleep(delay)

    @staticmethod
    def _past_deadline(
        obj: Any, policy: RetryPolicy, attempt: int, last: JudgeTransportError | None
    ) -> JudgeTransportError:
        cause = f"; last error: {last}" if last is not None else ""
        return JudgeTransportError(
            f"{_endpoint_key(obj)}: the call's deadline_s={policy.deadline_s:g} passed after "
            f"{attempt + 1} attempt(s){cause}",
            kind="deadline" if last is None else last.kind,
            status=None if last is None else last.status,
            retryable=True,
        )

    def chat_key(self, judge: Judge, request: JudgeRequest) -> str:
        fields: dict[str, Any] = {
            "kind": "chat",
            "judge": judge_identity(judge),
            "messages": request.message_dicts(),
            "schema": request.response_schema,
            "temperature": request.temperature,
            "seed": request.seed,
            "max_tokens": request.max_tokens,
            "n_index": request.n_index,
        }
        if request.repeat:
            # Repeat 0 keeps the key of a run without repeats, so earlier caches still answer.
            fields["repeat"] = request.repeat
        return cache_key(fields)

    @staticmethod
    def _problems(
        parsed: Any, schema: Mapping[str, Any] | None, validate: Validator | None
    ) -> list[str]:
        problems = validate_schema(parsed, schema) if schema is not None else []
        if not problems and validate is not None:
            problems = list(validate(parsed))
        return problems

    async def chat(
        self,
        judge: Judge,
        request: JudgeRequest,
        stats: CallStats,
        *,
        validate: Validator | None = None,
    ) -> Any:
        """The validated JSON answer to ``request``: from the run memo, the cache or the judge."""
        key = self.chat_key(judge, request)
        pending = self._memo.get(key)
        if pending is not None:
            stats.cache_hits += 1
            return await asyncio.shield(pending)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._memo[key] = future
        try:
            result = await self._chat_uncached(judge, request, key, stats, validate)
        except asyncio.CancelledError:
            self._memo.pop(key, None)
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: only waiters re-raise it
            raise
        future.set_result(result)
        return result

    def remember(self, judge: Judge, request: JudgeRequest, parsed: Any, *, note: str) -> None:
        """Store an answer assembled from several calls under the key of the original request."""
        key = self.chat_key(judge, request)
        self.cache.put(key, "chat", {"text": None, "parsed": parsed, "note": note})
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        future.set_result(parsed)
        self._memo[key] = future

    async def _chat_uncached(
        self,
        judge: Judge,
        request: JudgeRequest,
        key: str,
        stats: CallStats,
        validate: Validator | None,
    ) -> Any:
        cached = self.cache.get(key)
        failure = cached.get("failure") if cached is not None else None
        retrying = isinstance(failure, Mapping)
        if isinstance(failure, Mapping):
            if not self.settings.retry_errors:
                stats.replayed_failures += 1
                raise _replayed(failure)
            stats.retried_failures += 1
        elif cached is not None and not self._problems(
            cached.get("parsed"), request.response_schema, validate
        ):
            stats.cache_hits += 1
            return cached["parsed"]
        try:
            return await self._ask_judge(judge, request, key, stats, validate, retrying)
        except JudgeTransportError as exc:
            if not exc.fatal:
                self._record_failure(key, exc)
            raise

    def remember_failure(
        self, judge: Judge, request: JudgeRequest, error: JudgeOutputError | JudgeTransportError
    ) -> None:
        """Store the failure of an answer assembled from several calls (a split fallback)
        under the key of the original request, so that a replay (``retry_errors=False``)
        replays it at once instead of splitting, and calling, again."""
        if isinstance(error, JudgeTransportError) and error.fatal:
            return
        self._record_failure(self.chat_key(judge, request), error, split_failed=True)

    def _record_failure(
        self,
        key: str,
        error: JudgeError,
        answers: Sequence[str] = (),
        *,
        split_failed: bool = False,
    ) -> None:
        """Keep a failed call in the cache, with the raw answers, so a rerun can replay it."""
        record: dict[str, Any] = {"message": str(error)}
        if split_failed:
            record["split_failed"] = True
        if isinstance(error, JudgeOutputError):
            record.update(
                type="output",
                truncated=isinstance(error, JudgeOutputTruncatedError),
                task=error.task,
                attempts=error.attempts,
                errors=list(error.errors),
                answers=list(answers),
            )
        elif isinstance(error, JudgeTransportError):
            record.update(
                type="transport", status=error.status, kind=error.kind, retryable=error.retryable
            )
        self.cache.put(key, "chat_failure", {"failure": record})

    async def _ask_judge(
        self,
        judge: Judge,
        request: JudgeRequest,
        key: str,
        stats: CallStats,
        validate: Validator | None,
        retrying: bool = False,
    ) -> Any:
        messages = list(request.messages)
        errors: list[str] = []
        answers: list[str] = []
        attempts = self.settings.max_parse_retries + 1
        deterministic = request.temperature == 0
        response: JudgeResponse | None = None
        for attempt in range(attempts):
            # The first attempt asks the request itself; a re-ask, with the exchange so far.
            current = request if attempt == 0 else replace(request, messages=tuple(messages))

            def call(current: JudgeRequest = current) -> Awaitable[JudgeResponse]:
                return judge.complete(current)

            def count(s: CallStats, n: int) -> None:
                s.calls += n

            if self.batch is not None:
                # The answer comes from a batch line (this run's, or one an earlier run of the
                # same batch folder downloaded: then it costs nothing more, like a cache hit).
                current_key = key if attempt == 0 else self.chat_key(judge, current)
                response, fresh = await self.batch.answer(
                    judge, current, current_key, retrying=retrying
                )
                if fresh:
                    stats.calls += 1
                    self._account(current, response, stats)
                else:
                    stats.cache_hits += 1
            else:
                response = await self._with_retries(
                    judge, call, stats, count=count, deterministic=deterministic
                )
                self._account(current, response, stats)
            try:
                parsed = extract_json(response.text)
                problems = self._problems(parsed, request.response_schema, validate)
            except OutputParseError as exc:
                parsed, problems = None, [str(exc)]
            if not problems:
                self.cache.put(
                    key,
                    "chat",
                    {
                        "text": response.text,
                        "parsed": parsed,
                        "model": response.model,
                        "usage": None
                        if response.usage is None
                        else {
                            "prompt_tokens": response.usage.prompt_tokens,
                            "completion_tokens": response.usage.completion_tokens,
                            **(
                                {"cached_tokens": response.usage.cached_tokens}
                                if response.usage.cached_tokens
                                else {}
                            ),
                        },
                        "reasks": attempt,
                    },
                )
                return parsed
            summary = "; ".join(problems[:8])
            repeated = response.text in answers
            errors.append(summary)
            answers.append(response.text)
            log.debug("unusable answer to %s (attempt %d): %s", request.task, attempt + 1, summary)
            if repeated:
                # A model that repeats itself word for word will do so again: stop asking.
                break
            if attempt + 1 < attempts:
                stats.reasks += 1
                truncated = (
                    " Your answer was cut off by the token limit: keep reasons short."
                    if response.finish_reason == "length"
                    else ""
                )
                messages.append(
                    {"role": "assistant", "content": response.text[:REASK_OUTPUT_CHARS]}
                )
                messages.append(
                    {
                        "role": "user",
                        "content": f"Your answer could not be used: {summary}.{truncated} Answer "
                        "again with one JSON object that matches the schema given above, and "
                        "nothing else.",
                    }
                )
        error = _output_error(judge, request, errors, answers, response)
        self._record_failure(key, error, answers)
        raise error

    @staticmethod
    def _account(request: JudgeRequest, response: JudgeResponse, stats: CallStats) -> None:
        usage = response.usage
        if usage is None:
            usage = Usage(
                estimate_tokens(request.prompt_text()),
                estimate_tokens(response.text),
                estimated=True,
            )
        stats.prompt_tokens += usage.prompt_tokens
        stats.completion_tokens += usage.completion_tokens
        stats.cached_prompt_tokens += usage.cached_tokens
        stats.tokens_estimated = stats.tokens_estimated or usage.estimated
        stats.latency_s += response.latency_s
        stats.capability_fallbacks += int(response.extra.get("capability_fallbacks", 0) or 0)

    async def embed(
        self, embedder: Embedder, texts: Sequence[str], stats: CallStats
    ) -> list[list[float]]:
        """One vector per text; cached per (embedder, text); missing texts go in one batch."""
        identity = embedder_identity(embedder)
        keys = [cache_key({"kind": "embedding", "embedder": identity, "text": t}) for t in texts]
        vectors: dict[str, list[float]] = {}
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts, strict=True):
            if key in vectors or key in missing:
                continue
            found = self._vectors.get(key)
            if found is None:
                cached = self.cache.get(key)
                found = None if cached is None else _stored_vector(cached.get("vector"))
            if found is not None:
                vectors[key] = found
                stats.embedding_cache_hits += 1
            else:
                missing[key] = text
        if missing:
            batch = list(missing.values())
            with_usage = getattr(embedder, "embed_with_usage", None)

            async def call() -> tuple[list[list[float]], int]:
                if callable(with_usage):
                    result: tuple[list[list[float]], int] = await with_usage(batch)
                    return result
                return await embedder.embed(batch), 0

            def count(s: CallStats, n: int) -> None:
                s.embedding_calls += n

            got, tokens = await self._with_retries(embedder, call, stats, count=count)
            if len(got) != len(batch):
                raise JudgeTransportError(
                    f"embedder {embedder.name!r} returned {len(got)} vectors for "
                    f"{len(batch)} texts",
                    kind="protocol",
                )
            stats.embedding_tokens += tokens
            for key, vector in zip(missing, got, strict=True):
                vector = [float(x) for x in vector]
                vectors[key] = vector
                self._vectors[key] = vector
                self.cache.put(key, "embedding", {"vector": vector})
        return [vectors[key] for key in keys]
