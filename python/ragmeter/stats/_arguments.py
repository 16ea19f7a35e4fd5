"""Argument checks shared by the statistics modules (seeds, counts, levels, alternatives)."""

from __future__ import annotations

import secrets
from typing import Any, Literal

import numpy as np

from ..exceptions import InputTypeError, InvalidInputError
from ..options import shorten

__all__ = [
    "ALTERNATIVES",
    "MAX_RESAMPLES",
    "RESAMPLE_MEMORY_VALUES",
    "SEED_LIMIT",
    "Alternative",
    "check_alternative",
    "check_level",
    "check_seed",
    "float_array",
    "positive_int",
    "resample_count",
]

#: The alternative hypotheses of a test of a mean difference, named as scipy's ``alternative=``:
#: the candidate differs from the baseline, is better, or is worse.
ALTERNATIVES = ("two-sided", "greater", "less")
Alternative = Literal["two-sided", "greater", "less"]

# Seeds stay below 2**63 so that every report format (TOML integers are signed 64-bit) keeps them.
SEED_LIMIT = 2**63
#: The most resamples (sign vectors, bootstrap draws) a test makes: 10**8 resolve a p-value to
#: 1e-8, and more would run for hours or exhaust the memory of the bootstrap's batches.
MAX_RESAMPLES = 10**8
#: The most resampled means a bootstrap interval keeps in memory at once (8 bytes each: 1 GiB).
RESAMPLE_MEMORY_VALUES = 2**27


def check_alternative(alternative: Any, argument: str = "alternative") -> str:
    """``alternative`` checked: ``"two-sided"``, ``"greater"`` (the mean difference candidate -
    baseline is greater than under the null hypothesis) or ``"less"``, as scipy names them."""
    if not isinstance(alternative, str) or alternative not in ALTERNATIVES:
        raise InvalidInputError(
            f"{argument}: must be 'two-sided', 'greater' or 'less' (as scipy's alternative=), "
            f"got {shorten(alternative, 40)}"
        )
    return str(alternative)


def check_seed(random_state: int | None) -> int:
    """The seed to use: ``random_state`` checked, or fresh entropy when it is None (recorded in
    the result, so the run can be repeated)."""
    if random_state is None:
        return secrets.randbelow(SEED_LIMIT)
    if isinstance(random_state, bool) or not isinstance(random_state, int | np.integer):
        raise InvalidInputError(
            f"random_state: must be an int in [0, 2**63) or None (fresh entropy, recorded in "
            f"the result), got {random_state!r}"
        )
    if not 0 <= int(random_state) < SEED_LIMIT:
        raise InvalidInputError(
            f"random_state: must lie in [0, 2**63), got {shorten(int(random_state), 40)}"
        )
    return int(random_state)


def positive_int(argument: str, value: object, *, allow_zero: bool = False) -> int:
    """``value`` as an int >= 1 (>= 0 with ``allow_zero``), else an error naming ``argument``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or int(value) < (0 if allow_zero else 1)
    ):
        bound = ">= 0" if allow_zero else ">= 1"
        raise InvalidInputError(f"{argument}: must be an int {bound}, got {shorten(value, 40)}")
    return int(value)


def resample_count(argument: str, value: object, *, allow_zero: bool = False) -> int:
    """A number of resamples: an int >= 1 (>= 0 with ``allow_zero``) and at most
    :data:`MAX_RESAMPLES`, else an error naming ``argument``."""
    count = positive_int(argument, value, allow_zero=allow_zero)
    if count > MAX_RESAMPLES:
        raise InvalidInputError(
            f"{argument}: at most {MAX_RESAMPLES:,} resamples, got {shorten(count, 40)}; "
            f"{MAX_RESAMPLES:,} already resolve a p-value to 1e-8 (the default 9999 to 1e-4)"
        )
    return count


def check_level(argument: str, value: Any) -> float:
    """A probability strictly between 0 and 1 (a confidence level, a significance level)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, float | int | np.floating)
        or not 0.0 < float(value) < 1.0
    ):
        raise InvalidInputError(f"{argument}: must lie strictly between 0 and 1, got {value!r}")
    return float(value)


def float_array(values: Any, argument: str, expected: str) -> np.ndarray:
    """``values`` as a float64 array, refusing what would be read as other numbers (text such as
    ``"0.5"``, complex numbers) or not read at all (``None``, a generator, a mapping, ragged
    rows), with errors naming ``argument``; ``expected`` says what to pass."""
    if isinstance(values, str | bytes):
        raise InputTypeError(
            f"{argument}: got a {type(values).__name__}; pass a sequence of numbers ({expected})"
        )
    try:
        raw = np.asarray(values)
    except ValueError as error:
        raise InvalidInputError(
            f"{argument}: the rows have different lengths ({error}); pass {expected}"
        ) from None
    if raw.dtype == object and raw.ndim == 0:
        raise InputTypeError(
            f"{argument}: expected a sequence of numbers ({expected}), got {type(values).__name__}"
        )
    if raw.dtype.kind in "USVcMm" or (
        raw.dtype == object
        and any(isinstance(x, str | bytes | complex | np.complexfloating) for x in raw.flat)
    ):
        raise InputTypeError(
            f"{argument}: holds values that are not real numbers (dtype {raw.dtype}); pass "
            f"{expected}, as numbers"
        )
    try:
        return raw.astype(np.float64)
    except (TypeError, ValueError, OverflowError) as error:
        raise InputTypeError(
            f"{argument}: holds values that are not numbers ({error}); pass {expected}, as numbers"
        ) from None
