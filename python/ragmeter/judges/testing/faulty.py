"""A judge wrapper that injects seeded faults (for tests of the engine's recovery)."""

from __future__ import annotations

import json
import random
from typing import Any

from ...exceptions import JudgeTransportError
from ..clients.limits import Limits, RetryPolicy
from ..clients.protocol import JudgeRequest, JudgeResponse

__all__ = ["FaultyJudge"]


class FaultyJudge:
    """Wraps a judge and injects seeded faults, each with its own probability per call.

    ``p_malformed`` (text that is not JSON), ``p_truncated`` (the JSON cut in half),
    ``p_wrong_count`` (the first list of labelled items loses its last item), ``p_timeout`` (a
    retryable timeout) and ``p_429`` (a retryable 429 with ``Retry-After: 0``). ``injected``
    counts the faults injected so far; ``seed`` makes the draws reproducible.

    Examples
    --------
    >>> from ragmeter.judges import FaultyJudge, RuleJudge, Sample, evaluate
    >>> judge = FaultyJudge(RuleJudge(), p_429=1.0)  # every call: a 429, then retried
    >>> results = evaluate([Sample("Q?", "An answer.", ["A context."])], ["groundedness"],
    ...                    judge=judge, progress=False)
    >>> results.rows[0].score.reason_code, judge.injected["429"]
    ('judge_unavailable', 5)
    """

    def __init__(
        self,
        inner: Any,
        *,
        seed: int = 0,
        p_malformed: float = 0.0,
        p_truncated: float = 0.0,
        p_wrong_count: float = 0.0,
        p_timeout: float = 0.0,
        p_429: float = 0.0,
        name: str | None = None,
    ):
        self.inner = inner
        self.name = name or f"faulty({inner.name})"
        self.limits = getattr(inner, "limits", Limits())
        self.retry_policy = RetryPolicy(initial_delay_s=0.0, max_delay_s=0.0)
        self._rng = random.Random(seed)
        self.p = {
            "malformed": p_malformed,
            "truncated": p_truncated,
            "wrong_count": p_wrong_count,
            "timeout": p_timeout,
            "429": p_429,
        }
        self.injected: dict[str, int] = dict.fromkeys(self.p, 0)

    @property
    def identity(self) -> dict[str, Any]:
        """The wrapped judge's identity under this judge's name."""
        return {"kind": "faulty", "name": self.name, "inner": getattr(self.inner, "identity", None)}

    def _draw(self, fault: str) -> bool:
        hit = self._rng.random() < self.p[fault]
        if hit:
            self.injected[fault] += 1
        return hit

    async def complete(self, request: JudgeRequest) -> JudgeResponse:
        """The wrapped judge's answer, or an injected fault (counted in ``injected``)."""
        if self._draw("timeout"):
            raise JudgeTransportError("injected timeout", kind="timeout", retryable=True)
        if self._draw("429"):
            raise JudgeTransportError("injected 429", status=429, retryable=True, retry_after=0.0)
        response = await self.inner.complete(request)
        text = response.text
        if self._draw("malformed"):
            text = "Sure! Here is my verdict: the answer is fine."
        elif self._draw("truncated"):
            text = text[: max(1, len(text) // 2)]
        elif self._draw("wrong_count"):
            try:
                parsed = json.loads(text)
            except json.JSONDecodeError:
                parsed = None
            if isinstance(parsed, dict):
                for key, value in parsed.items():
                    if isinstance(value, list) and len(value) > 1 and isinstance(value[0], dict):
                        parsed[key] = value[:-1]
                        break
                text = json.dumps(parsed)
        return JudgeResponse(text=text, usage=response.usage, model=response.model)
