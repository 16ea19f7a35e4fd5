"""Concurrency limits, request pacing and the retry policy of judge calls.

Retries follow one rule: retry what a later attempt can fix (408, 409, 429, 5xx, timeouts,
broken connections), never what it cannot (400, 401, 403, 404, 422, an exhausted quota).
Back-off is exponential with jitter and a server's ``Retry-After`` always wins.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from ...exceptions import InvalidInputError

__all__ = [
    "Limits",
    "RateLimiter",
    "RetryPolicy",
    "classify_status",
    "parse_retry_after",
]

RETRYABLE_STATUSES = frozenset({408, 409, 429})
FATAL_STATUSES = frozenset({401, 403, 404})


@dataclass(frozen=True)
class Limits:
    """How hard one endpoint may be driven.

    Parameters
    ----------
    max_concurrency
        Requests in flight at once (one limit per endpoint and run).
    rpm
        When set, at most ``rpm`` requests started per minute (evenly paced).

    Raises
    ------
    InvalidInputError
        ``max_concurrency < 1`` or ``rpm <= 0``.

    Examples
    --------
    >>> Limits(max_concurrency=2, rpm=60)
    Limits(max_concurrency=2, rpm=60)
    """

    max_concurrency: int = 16
    rpm: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.max_concurrency, int) or self.max_concurrency < 1:
            raise InvalidInputError(
                f"max_concurrency must be an integer >= 1, got {self.max_concurrency!r}"
            )
        if self.rpm is not None and not self.rpm > 0:
            raise InvalidInputError(f"rpm must be > 0 or None, got {self.rpm!r}")


class RateLimiter:
    """Paces request starts to at most ``rpm`` per minute (one every ``60 / rpm`` seconds)."""

    def __init__(
        self,
        rpm: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ):
        if not rpm > 0:
            raise InvalidInputError(f"rpm must be > 0, got {rpm!r}")
        self.interval_s = 60.0 / float(rpm)
        self._clock = clock
        self._sleep = sleep
        self._next_start: float | None = None

    async def acquire(self) -> float:
        """Wait for the next free start slot; returns the seconds waited."""
        now = self._clock()
        slot = now if self._next_start is None else max(now, self._next_start)
        self._next_start = slot + self.interval_s
        wait = slot - now
        if wait > 0:
            await self._sleep(wait)
        return wait


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (seconds or an HTTP date)."""
    lowered = {k.lower(): v for k, v in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def classify_status(status: int, body: str = "") -> tuple[bool, bool]:
    """``(retryable, fatal)`` for an HTTP error status and its body.

    429 with ``insufficient_quota`` is fatal (no retry can refill a quota); 401, 403 and 404
    are fatal (wrong key or URL or model); 408, 409, 429 and 5xx are retryable; any other 4xx is
    neither (this sample's request is wrong).
    """
    lowered = body.lower()
    if status == 429 and "insufficient_quota" in lowered:
        return False, True
    if status in FATAL_STATUSES:
        return False, True
    if status in RETRYABLE_STATUSES or 500 <= status <= 599:
        return True, False
    return False, False


@dataclass(frozen=True)
class RetryPolicy:
    """Transport retries of one call (parse re-asks are a separate budget).

    Retried: 408, 409, 429, 5xx, timeouts, broken and refused connections. Not retried: other
    4xx; 401, 403, 404 and an exhausted quota stop the run, and so does a connection still
    refused once the retries are spent. A timed-out call at temperature 0 is retried once only.

    The delay before retry ``attempt`` (0-based) is ``Retry-After`` when the server sent it
    (capped at ``max_retry_after_s``), else ``min(max_delay_s, initial_delay_s * multiplier **
    attempt)`` scaled by a random factor in ``[1 - jitter, 1]``. ``deadline_s`` caps the total
    time of one call including its retries, from its first attempt (waiting for a free slot
    of ``max_concurrency`` does not count); an attempt in flight at the deadline is cut.

    Raises
    ------
    InvalidInputError
        a negative count or delay, or ``jitter`` outside [0, 1].

    Examples
    --------
    >>> import random
    >>> policy = RetryPolicy(initial_delay_s=1.0, jitter=0.0)
    >>> [policy.delay_s(attempt, None, random.Random(0)) for attempt in range(3)]
    [1.0, 2.0, 4.0]
    >>> policy.delay_s(0, retry_after=7.0, rng=random.Random(0))  # the server's word wins
    7.0
    """

    max_retries: int = 4
    initial_delay_s: float = 0.5
    max_delay_s: float = 30.0
    multiplier: float = 2.0
    jitter: float = 0.5
    max_retry_after_s: float = 120.0
    deadline_s: float | None = None

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise InvalidInputError(f"max_retries must be >= 0, got {self.max_retries!r}")
        if not 0.0 <= self.jitter <= 1.0:
            raise InvalidInputError(f"jitter must lie in [0, 1], got {self.jitter!r}")
        if self.initial_delay_s < 0 or self.max_delay_s < 0:
            raise InvalidInputError("retry delays must be >= 0")

    def delay_s(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry ``attempt`` (0-based), given a ``Retry-After``."""
        if retry_after is not None:
            return min(retry_after, self.max_retry_after_s)
        base = min(self.max_delay_s, self.initial_delay_s * self.multiplier**attempt)
        return base * (1.0 - self.jitter * rng.random())
