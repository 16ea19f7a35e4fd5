"""The options of an evaluation, validated once, in one object.

Every function that evaluates rankings (:func:`~ragmeter.ranking_metrics` and the metric
functions, :func:`~ragmeter.evaluate_trec`, :func:`~ragmeter.evaluate_retrieval`,
:func:`ragmeter.distributed.evaluate_runs`, the ``ragmeter`` command) builds one
:class:`EvaluationOptions` from its keyword arguments, so a mistake gives the same error
wherever it is made: an :class:`~ragmeter.InvalidInputError` (a ``ValueError``) for a wrong
value and an :class:`~ragmeter.InputTypeError` (a ``TypeError``) for a wrong type, both in the
form ``"argument: problem; what to do"``.

The validators are public to the package so that the other entry points that take one of
these arguments (``n_threads`` of the answer metrics, say) check it the same way.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from typing import Any, Literal

from . import _core
from .exceptions import InputTypeError, InvalidInputError

__all__ = [
    "MAX_INDEX",
    "MAX_THREADS",
    "Duplicates",
    "EvaluationOptions",
    "Missing",
    "ZeroDivision",
    "check_choice",
    "check_n_threads",
    "check_positive_int",
    "check_threshold",
    "check_zero_division",
    "shorten",
]

ZeroDivision = Literal["warn", "trec_eval"] | float
Duplicates = Literal["raise", "first"]
Missing = Literal["raise", "zero", "skip"]

#: The largest cutoff, document count or rank ragmeter accepts (the core's 64-bit indexes).
MAX_INDEX = 2**63 - 1
#: The most threads one call may use (``n_threads`` and ``RAGMETER_NUM_THREADS``).
MAX_THREADS: int = _core.MAX_THREADS


def shorten(value: object, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters for an error message.

    A longer text keeps its first ``limit - 5`` characters, then ``...'`` and its last
    character, so ``limit`` characters in all.

    Parameters
    ----------
    value
        Any value.
    limit
        The most characters of the result.

    Returns
    -------
    str
        The representation, whole or cut.

    Examples
    --------
    >>> shorten("short")
    "'short'"
    >>> shorten("a" * 100, limit=12)  # 7 characters of the repr, "...'", its closing quote
    "'aaaaaa...''"
    """
    try:
        text = repr(value)
    except ValueError:
        # An int of more digits than Python converts to text (sys.get_int_max_str_digits()).
        if isinstance(value, int):
            return f"an int of {value.bit_length()} bits"
        raise
    return text if len(text) <= limit else text[: limit - 5] + "...'" + text[-1:]


def check_choice(argument: str, value: object, choices: Sequence[object]) -> None:
    """Refuse ``value`` unless it is one of ``choices`` (equal and of the same type).

    The type must match too, so ``True`` is not accepted for ``1`` nor ``1`` for ``1.0``.

    Parameters
    ----------
    argument
        The argument's name, for the message.
    value
        The value given.
    choices
        The accepted values.

    Raises
    ------
    InvalidInputError
        A ``ValueError`` naming the argument, the accepted values and the value given.

    Examples
    --------
    >>> check_choice("missing", "zero", ("raise", "zero", "skip"))
    >>> try:
    ...     check_choice("missing", "ignore", ("raise", "zero", "skip"))
    ... except ValueError as error:
    ...     print(error)
    missing: must be one of 'raise', 'zero', 'skip'; got 'ignore'
    """
    if not any(value == c and type(value) is type(c) for c in choices):
        shown = ", ".join(repr(c) for c in choices)
        raise InvalidInputError(f"{argument}: must be one of {shown}; got {shorten(value)}")


def check_positive_int(
    argument: str, value: object, *, allow_none: bool = False, maximum: int = MAX_INDEX
) -> int | None:
    """A positive ``int`` (numpy integers accepted) up to ``maximum``, or None if allowed.

    Parameters
    ----------
    argument
        The argument's name, for the message.
    value
        The value given.
    allow_none
        Accept None (which then means "no limit" or "the default").
    maximum
        The largest value accepted (default :data:`MAX_INDEX`).

    Returns
    -------
    int or None
        ``value`` as a Python ``int``, or None.

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``value`` is not an integer (a ``bool`` or a ``float`` is refused).
    InvalidInputError
        A ``ValueError``: ``value`` is below 1 or above ``maximum``.

    Examples
    --------
    >>> import numpy as np
    >>> check_positive_int("k", np.int64(10))
    10
    >>> print(check_positive_int("k", None, allow_none=True))
    None
    >>> try:
    ...     check_positive_int("k", 2.0)
    ... except TypeError as error:
    ...     print(error)
    k: must be a positive integer; got 2.0 of type float
    """
    if value is None and allow_none:
        return None
    expected = "a positive integer" + (" or None" if allow_none else "")
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputTypeError(
            f"{argument}: must be {expected}; got {shorten(value)} of type {type(value).__name__}"
        )
    number = int(value)
    if not 1 <= number <= maximum:
        raise InvalidInputError(
            f"{argument}: must be a positive integer from 1 to {maximum}"
            f"{' or None' if allow_none else ''}; got {shorten(number, 40)}"
        )
    return number


def check_threshold(relevance_threshold: object, argument: str = "relevance_threshold") -> float:
    """A finite number > 0: documents with a grade at least it are relevant.

    Parameters
    ----------
    relevance_threshold
        The value given (an int, a float or a NumPy number).
    argument
        The argument's name, for the message.

    Returns
    -------
    float
        The threshold as a ``float``.

    Raises
    ------
    InputTypeError
        A ``TypeError``: not a real number (a ``bool`` is refused).
    InvalidInputError
        A ``ValueError``: zero, negative, infinite or NaN.

    Examples
    --------
    >>> check_threshold(2)
    2.0
    >>> try:
    ...     check_threshold(0)
    ... except ValueError as error:
    ...     print(error)
    relevance_threshold: must be a finite number > 0 (documents with a grade >= it are ...; got 0
    """
    if isinstance(relevance_threshold, bool) or not isinstance(relevance_threshold, numbers.Real):
        raise InputTypeError(
            f"{argument}: must be a number > 0 (documents with a grade >= it are relevant); got "
            f"{shorten(relevance_threshold)} of type {type(relevance_threshold).__name__}"
        )
    try:
        value = float(relevance_threshold)
    except OverflowError:
        value = math.inf
    if not (math.isfinite(value) and value > 0):
        raise InvalidInputError(
            f"{argument}: must be a finite number > 0 (documents with a grade >= it are "
            f"relevant); got {shorten(relevance_threshold)}"
        )
    return value


def check_n_threads(n_threads: object) -> int | None:
    """None (every core, or ``RAGMETER_NUM_THREADS``) or an int from 1 to :data:`MAX_THREADS`.

    Parameters
    ----------
    n_threads
        The value given.

    Returns
    -------
    int or None
        ``n_threads`` as a Python ``int``, or None.

    Raises
    ------
    InputTypeError
        A ``TypeError``: not an integer.
    InvalidInputError
        A ``ValueError``: below 1 or above :data:`MAX_THREADS`.

    Examples
    --------
    >>> check_n_threads(4)
    4
    >>> print(check_n_threads(None))
    None
    """
    return check_positive_int("n_threads", n_threads, allow_none=True, maximum=MAX_THREADS)


def check_zero_division(zero_division: object) -> str | float:
    """Check a ``zero_division`` option (see :class:`EvaluationOptions`).

    Parameters
    ----------
    zero_division
        The value given: ``"warn"``, ``"trec_eval"``, or a number equal to 0, 1 or NaN.

    Returns
    -------
    str or float
        ``"warn"``, ``"trec_eval"``, ``0.0``, ``1.0`` or ``nan``.

    Raises
    ------
    InvalidInputError
        A ``ValueError`` naming the accepted values, for any other value (``True`` and
        ``False`` included).

    Examples
    --------
    >>> check_zero_division(1)
    1.0
    >>> try:
    ...     check_zero_division(0.5)
    ... except ValueError as error:
    ...     print(error)
    zero_division: must be "warn", "trec_eval", 0.0, 1.0 or np.nan; got 0.5
    """
    if isinstance(zero_division, str):
        if zero_division in ("warn", "trec_eval"):
            return zero_division
    elif isinstance(zero_division, numbers.Real) and not isinstance(zero_division, bool):
        try:
            value = float(zero_division)
        except OverflowError:
            value = math.inf  # an int too large for a float is none of the accepted values
        if math.isnan(value) or value in (0.0, 1.0):
            return value
    raise InvalidInputError(
        f'zero_division: must be "warn", "trec_eval", 0.0, 1.0 or np.nan; got '
        f"{shorten(zero_division)}"
    )


@dataclass(frozen=True, slots=True)
class EvaluationOptions:
    """How rankings are evaluated; every field is checked when the object is made.

    The object is frozen: :meth:`replace` makes a changed copy. NumPy numbers are accepted and
    stored as Python numbers.

    Parameters
    ----------
    relevance_threshold
        Grade from which a judged document is relevant (trec_eval ``-l``), a finite number
        > 0, default 1; a measure can set its own (``"P(rel=2)@5"``, ``"map@100-l2"``).
    zero_division
        Value of an undefined measure: ``"warn"`` (0.0 and an
        :class:`~ragmeter.UndefinedMetricWarning`), ``0.0``, ``1.0``, ``np.nan`` (left out
        of the mean), or ``"trec_eval"`` (what trec_eval prints, silently: 0, or NaN where it
        divides 0 by 0, which then makes the mean NaN too). Default ``"warn"``.
    duplicates
        ``"raise"`` (default) refuses a ranking that repeats a document; ``"first"`` keeps its
        best position.
    missing
        Judged queries without a ranking: ``"raise"`` (default), ``"zero"`` (scored as empty
        rankings, trec_eval ``-c``) or ``"skip"``.
    max_docs
        Keep the first ``max_docs`` documents of each ranking (trec_eval ``-M``); a positive
        int, or None (default) for every document.
    judged_docs_only
        Remove documents without a judgment from the rankings before evaluating (trec_eval
        ``-J``); default False.
    collection_size
        Number of documents in the collection, for ``utility`` (trec_eval ``-N``); an int
        >= 0, default 0.
    n_threads
        Threads of the Rust core, from 1 to :data:`MAX_THREADS` (None, the default:
        ``RAGMETER_NUM_THREADS`` or every core).

    Raises
    ------
    InvalidInputError
        A ``ValueError`` for a value out of range or not among the choices, naming the field.
    InputTypeError
        A ``TypeError`` for a value of the wrong type (``judged_docs_only="yes"``,
        ``max_docs=2.5``).

    Examples
    --------
    >>> EvaluationOptions(missing="zero", max_docs=100).missing
    'zero'
    >>> try:
    ...     EvaluationOptions(max_docs=0)
    ... except ValueError as error:
    ...     print(error)
    max_docs: must be a positive integer from 1 to 9223372036854775807 or None; got 0
    """

    relevance_threshold: float = 1.0
    zero_division: ZeroDivision = "warn"
    duplicates: Duplicates = "raise"
    missing: Missing = "raise"
    max_docs: int | None = None
    judged_docs_only: bool = False
    collection_size: int = 0
    n_threads: int | None = None

    def __post_init__(self) -> None:
        set_field = object.__setattr__
        set_field(self, "relevance_threshold", check_threshold(self.relevance_threshold))
        set_field(self, "zero_division", check_zero_division(self.zero_division))
        check_choice("duplicates", self.duplicates, ("raise", "first"))
        check_choice("missing", self.missing, ("raise", "zero", "skip"))
        set_field(self, "max_docs", check_positive_int("max_docs", self.max_docs, allow_none=True))
        if not isinstance(self.judged_docs_only, bool):
            raise InputTypeError(
                f"judged_docs_only: must be True or False; got {shorten(self.judged_docs_only)}"
            )
        if isinstance(self.collection_size, bool) or not isinstance(
            self.collection_size, numbers.Integral
        ):
            raise InputTypeError(
                f"collection_size: must be an int (the number of documents in the collection, "
                f"trec_eval -N); got {shorten(self.collection_size)}"
            )
        if not 0 <= int(self.collection_size) <= MAX_INDEX:
            raise InvalidInputError(
                f"collection_size: must be from 0 to {MAX_INDEX}; got "
                f"{shorten(self.collection_size, 40)}"
            )
        set_field(self, "collection_size", int(self.collection_size))
        set_field(self, "n_threads", check_n_threads(self.n_threads))

    def replace(self, **changes: Any) -> EvaluationOptions:
        """A copy with ``changes``, checked like the original.

        Parameters
        ----------
        **changes
            New values of fields, by name.

        Returns
        -------
        EvaluationOptions
            The copy; the original is unchanged.

        Raises
        ------
        InputTypeError
            A ``TypeError``: a name that is not a field (the message lists the fields).
        InvalidInputError
            A ``ValueError``: a new value out of range.

        Examples
        --------
        >>> EvaluationOptions().replace(relevance_threshold=2).relevance_threshold
        2.0
        """
        names = {f.name for f in fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise InputTypeError(
                f"{unknown[0]}: not an evaluation option; the options are "
                f"{', '.join(sorted(names))}"
            )
        return replace(self, **changes)
