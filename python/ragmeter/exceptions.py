"""Exceptions and warnings raised by ragmeter.

Input errors inherit from :class:`ValueError` or :class:`TypeError`, so ``except ValueError``
keeps working; their messages name the argument, the offending value and what to do.
"""

from __future__ import annotations

__all__ = [
    "InvalidInputError",
    "MissingDependencyError",
    "RagmeterError",
    "TrecFormatError",
    "UndefinedMetricWarning",
]


class RagmeterError(Exception):
    """Base class of every ragmeter exception."""


class InvalidInputError(RagmeterError, ValueError):
    """An argument has a value ragmeter cannot evaluate (raised by the Rust core as well)."""


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
