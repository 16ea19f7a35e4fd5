"""Exceptions and warnings raised by ragmeter.

Input errors inherit from :class:`ValueError` or :class:`TypeError`, so ``except ValueError``
keeps working; their messages name the argument, the offending value and what to do.
"""

from __future__ import annotations

__all__ = [
    "InputFileError",
    "InputFileNotFoundError",
    "InputFilePermissionError",
    "InputTypeError",
    "InvalidInputError",
    "JudgeBatchPending",
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
    """Base class of every ragmeter exception: ``except RagmeterError`` catches them all.

    It is never raised itself. Each subclass is also the built-in exception that fits it
    (``ValueError``, ``TypeError``, ``ImportError``, ``RuntimeError``), so code that catches
    built-in exceptions keeps working.

    Examples
    --------
    >>> from ragmeter import precision_at_k
    >>> try:
    ...     precision_at_k({"q1": ["d1"]}, {"q1": ["d1"]}, k=0)
    ... except RagmeterError as error:
    ...     print(type(error).__name__, isinstance(error, ValueError))
    InvalidInputError True
    """


class InvalidInputError(RagmeterError, ValueError):
    """An argument has a value ragmeter cannot evaluate; also a :class:`ValueError`.

    Raised by the Python layer and by the Rust core alike when a value is out of range or
    inconsistent: an unknown measure name, ``k=0``, judgments and rankings of different
    queries (``missing="raise"``), a ranking that repeats a document (``duplicates="raise"``),
    lists of different lengths. The message has the form ``"argument: problem; what to do"``
    and names the query or ``file:line`` where there is one.

    Examples
    --------
    >>> from ragmeter import parse_metric
    >>> try:
    ...     parse_metric("P.5,10")
    ... except ValueError as error:
    ...     print(error)
    metrics: 'P.5,10' stands for 2 measures (P_5, P_10); name one of them
    """


class InputTypeError(RagmeterError, TypeError):
    """An argument has a type ragmeter cannot evaluate; also a :class:`TypeError`.

    Raised when an input is not of a kind ragmeter reads: a single ``str`` where a list of
    answers is expected, ``None`` or a set in place of a list, judgments or rankings of a type
    ragmeter cannot read, an option of the wrong type. The message names the argument, the
    type received and the types accepted.

    Examples
    --------
    >>> from ragmeter import exact_match_score
    >>> try:
    ...     exact_match_score(["Paris"], "Paris")
    ... except TypeError as error:
    ...     print(error)
    answers is a single str; pass a list of answers (one str each) (for one item, wrap it: ...)
    """


class TrecFormatError(InvalidInputError):
    """A TREC run or qrels file has a malformed line; also a :class:`ValueError`.

    Raised by the TREC readers (:mod:`ragmeter.io`, the ``ragmeter`` command) for a line with
    the wrong number of columns, a grade or score that is not a number, or a document listed
    twice for one query; the message gives ``path:line`` and the offending line. A
    subclass of :class:`InvalidInputError`.
    """


class InputFileError(OSError, InvalidInputError):
    """A file given to read cannot be opened or read (a name too long, a loop of symbolic
    links, an I/O error); an :class:`OSError` with the operating system's ``errno``,
    ``strerror`` and ``filename``, and also an :class:`InvalidInputError` (a ``ValueError``).

    Its message names the argument that gave the path (``run``, ``qrels_path``...), so
    ``except OSError`` and ``except ValueError`` both catch it. A missing file is an
    :class:`InputFileNotFoundError` (also a :class:`FileNotFoundError`), a file that may not
    be read an :class:`InputFilePermissionError` (also a :class:`PermissionError`).

    Examples
    --------
    >>> from ragmeter import read_trec_run
    >>> try:
    ...     read_trec_run("no-such-run.txt")
    ... except FileNotFoundError as error:
    ...     print(isinstance(error, ValueError), error.filename)
    True no-such-run.txt
    """


class InputFileNotFoundError(FileNotFoundError, InputFileError):
    """A file given to read does not exist; a :class:`FileNotFoundError` and an
    :class:`InputFileError` (so also a ``ValueError``)."""


class InputFilePermissionError(PermissionError, InputFileError):
    """A file given to read may not be read; a :class:`PermissionError` and an
    :class:`InputFileError` (so also a ``ValueError``)."""


class MissingDependencyError(RagmeterError, ImportError):
    """An optional dependency is not installed; also an :class:`ImportError`.

    Raised on first use of a feature that needs an extra (scikit-learn for
    :class:`~ragmeter.retrieval.RetrievalEstimator`, httpx for the LLM judges, matplotlib for
    the plots, ...), never at ``import ragmeter``. The message names the package and the
    command that installs it, such as ``pip install 'ragmeter[sklearn]'``.
    """


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined for some queries and was scored by ``zero_division``; a
    :class:`UserWarning`.

    Issued, as in scikit-learn, when ``zero_division="warn"`` (the default) replaces an
    undefined value (recall, MAP or R-precision without relevant documents, nDCG without a
    positive grade) by 0.0; the message names the measure, how many queries and why. The
    judges' agreement statistics issue it too when they return ``nan``. Pass
    ``zero_division=np.nan``, ``0.0`` or ``1.0`` to choose the value silently.

    Examples
    --------
    >>> import warnings
    >>> from ragmeter import recall_at_k
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = recall_at_k({"q1": {"d1": 0}}, {"q1": ["d1"]}, k=1)  # no relevant document
    >>> value, caught[0].category.__name__
    (0.0, 'UndefinedMetricWarning')
    """


class JudgeError(RagmeterError):
    """Base class of the errors raised by LLM judges (:mod:`ragmeter.judges`).

    Not raised itself: :class:`JudgeConfigurationError`, :class:`JudgeCacheError`,
    :class:`JudgeOutputError` and :class:`JudgeTransportError` are. With
    ``on_error="record"`` (the default) an evaluation records a sample's output or transport
    error as its status instead of raising it.
    """


class JudgeConfigurationError(JudgeError, InvalidInputError):
    """No judge, model, embedder or API key is configured; also a :class:`ValueError`.

    Raised before any call is made, when a metric needs a judge, a model, an embedder or an
    API key that was given neither as an argument nor through the environment; the message
    says exactly what to set.
    """


class JudgeOutputError(JudgeError):
    """A judge's answer could not be parsed or validated, even after the bounded re-asks.

    Raised (or recorded as the sample's error) when every answer of a judge to one prompt was
    unusable: not the requested JSON, a verdict outside the allowed values, missing items. Not
    a ``ValueError``: the input was fine, the judge's answer was not.

    Parameters
    ----------
    message
        What went wrong, with the last problem.
    task
        The name of the prompt that was asked.
    attempts
        How many answers were received.
    errors
        The validation message of each answer, in order.
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

    Raised (or recorded as the sample's error) once the retries are exhausted. Not a
    ``ValueError``: the input was fine, the endpoint failed.

    Parameters
    ----------
    message
        What failed: the endpoint and the cause (secrets redacted).
    status
        The HTTP status, or None when there was no response.
    kind
        What failed: ``"http"`` (an error status), ``"timeout"``, ``"deadline"`` (the call's
        overall deadline passed), ``"connect"`` or ``"connection"`` (no connection, or one that
        broke off), ``"protocol"`` (a response that is not the API's) or ``"client"`` (an
        error of the provider's client library).
    retryable
        True for 408/409/429/5xx, timeouts and broken connections.
    fatal
        True when every further call would fail the same way (401, 403, 404, exhausted quota,
        a server that is not running), which stops a whole evaluation instead of recording one
        error per sample.
    retry_after
        The server's ``Retry-After`` in seconds, when it sent one.
    body
        The beginning of the response body, for the diagnosis.
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


class JudgeBatchPending(JudgeError):
    """A batch run's requests are written (and submitted, where the endpoint takes batches),
    but their answers are not in yet: run the same evaluation again, with the same cache and
    batch folder, once they are (see ``ragmeter.judges.BatchMode``).

    Not a failure of the input or of the judge: what was answered so far is in the cache.

    Parameters
    ----------
    message
        What was written or submitted, where, and what to do next.
    pending
        The number of requests without an answer.
    paths
        The batch input files waiting to be run (vLLM's and OpenAI's forms).
    """

    def __init__(self, message: str, *, pending: int = 0, paths: tuple[str, ...] = ()):
        super().__init__(message)
        self.pending = pending
        self.paths = paths


class RetrievalError(RagmeterError, RuntimeError):
    """A search failed, was cancelled or returned a partial (degraded) ranking while being
    evaluated; also a :class:`RuntimeError`.

    Raised by :func:`~ragmeter.evaluate_retrieval` (unless ``on_degraded="warn"``) and by
    ``RetrievalEstimator.predict``, so that an incomplete ranking is never scored as if it were
    complete. The message names the query
    and the status; the retriever's own exception, if any, is chained.
    """


class RetrievalWarning(UserWarning):
    """Some searches of an evaluation failed or were degraded and were scored as returned; a
    :class:`UserWarning`.

    Issued by :func:`~ragmeter.evaluate_retrieval` with ``on_degraded="warn"``, once per
    evaluation; the report keeps each query's status.
    """


class JudgeCacheError(JudgeError, InvalidInputError):
    """A judge cache file cannot be used (not a database, another application's, damaged);
    also a :class:`ValueError`.

    Raised when the cache is opened (before any judge is called) or read; the message names
    the file and what to do.
    """


class JudgeOutputTruncatedError(JudgeOutputError):
    """A judge's last answer was cut off at the token limit (``finish_reason="length"``).

    A :class:`JudgeOutputError` (same attributes) whose message names ``max_tokens``: raise it,
    or ask for fewer items per call.
    """
