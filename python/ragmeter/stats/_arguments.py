"""Argument checks shared by the statistics modules (seeds, counts, levels)."""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from ..exceptions import InvalidInputError

__all__ = ["SEED_LIMIT", "check_level", "check_seed", "positive_int"]

# Seeds stay below 2**63 so that every report format (TOML integers are signed 64-bit) keeps them.
SEED_LIMIT = 2**63


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
        raise InvalidInputError(f"random_state: must lie in [0, 2**63), got {random_state}")
    return int(random_state)


def positive_int(argument: str, value: object, *, allow_zero: bool = False) -> int:
    """``value`` as an int >= 1 (>= 0 with ``allow_zero``), else an error naming ``argument``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | np.integer)
        or int(value) < (0 if allow_zero else 1)
    ):
        bound = ">= 0" if allow_zero else ">= 1"
        raise InvalidInputError(f"{argument}: must be an int {bound}, got {value!r}")
    return int(value)


def check_level(argument: str, value: Any) -> float:
    """A probability strictly between 0 and 1 (a confidence level, a significance level)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, float | int | np.floating)
        or not 0.0 < float(value) < 1.0
    ):
        raise InvalidInputError(f"{argument}: must lie strictly between 0 and 1, got {value!r}")
    return float(value)
