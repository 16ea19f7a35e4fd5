"""Exceptions and warnings raised by ragmeter.

Input errors inherit from :class:`ValueError` or :class:`TypeError`, so ``except ValueError``
keeps working; their messages name the argument, the offending value and what to do.
"""

from __future__ import annotations

__all__ = [
    "InputTypeError",
    "InvalidInputError",
    "JudgeCacheError",
    "JudgeConfigurationError",
    "JudgeError",
    "JudgeOutputError",
    "JudgeOutputTruncatedError",
    "JudgeTransportError",
    "MissingDependencyError",
    "RagmeterError",
    "RetrievalError",
    "RetrievalWarning",
    "TrecFormatError",
    "UndefinedMetricWarning",
]


class RagmeterError(Exception):
    """Base class of every ragmeter exception."""


class InvalidInputError(RagmeterError, ValueError):
    """An argument has a value ragmeter cannot evaluate (raised by the Rust core as well)."""


class InputTypeError(RagmeterError, TypeError):
    """An argument has a type ragmeter cannot evaluate; the message names the argument, the type
    received and the types accepted."""


class TrecFormatError(InvalidInputError):
    """A TREC run or qrels file has a malformed line; the message gives ``path:line``."""


class MissingDependencyError(RagmeterError, ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined for some queries and was scored by ``zero_division``.

    Raised, as in scikit-learn, when ``zero_division="warn"`` (the default) replaces an
    undefined value (recall, MAP or R-precision without relevant documents, nDCG without a
    positive grade) by 0.0.
    """


class JudgeError(RagmeterError):
    """Base class of the errors raised by LLM judges (:mod:`ragmeter.judges`)."""


class JudgeConfigurationError(JudgeError, InvalidInputError):
    """No judge, model or embedder is configured; the message says exactly what to set."""


class JudgeOutputError(JudgeError):
    """A judge's answer could not be parsed or validated, even after the bounded re-asks.

    ``task`` names the prompt, ``attempts`` counts the answers received and ``errors`` holds the
    validation message of each answer, in order.
    """

    def __init__(
        self, message: str, *, task: str = "", attempts: int = 0, errors: tuple[str, ...] = ()
    ):
        super().__init__(message)
        self.task = task
        self.attempts = attempts
        self.errors = errors


class JudgeTransportError(JudgeError):
    """A judge or embedding endpoint failed to answer (HTTP status, timeout, broken connection).

    ``retryable`` is true for 408/409/429/5xx, timeouts and broken connections; ``fatal`` is
    true when every further call would fail the same way (401, 403, 404, exhausted quota), which
    stops a whole evaluation instead of recording one error per sample. ``retry_after`` holds the
    server's ``Retry-After`` in seconds when it sent one.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        kind: str = "http",
        retryable: bool = False,
        fatal: bool = False,
        retry_after: float | None = None,
        body: str = "",
    ):
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.retryable = retryable
        self.fatal = fatal
        self.retry_after = retry_after
        self.body = body


class RetrievalError(RagmeterError, RuntimeError):
    """A search failed, was cancelled or returned a partial (degraded) ranking while being
    evaluated; the message names the query and the status."""


class RetrievalWarning(UserWarning):
    """Some searches of an evaluation failed or were degraded and were scored as returned
    (``on_degraded="warn"``); the report keeps their statuses."""


class JudgeCacheError(JudgeError, InvalidInputError):
    """A judge cache file cannot be used (not a database, another application's, damaged);
    the message names the file and what to do."""


class JudgeOutputTruncatedError(JudgeOutputError):
    """A judge's last answer was cut off at the token limit (``finish_reason="length"``); the
    message names ``max_tokens``."""
