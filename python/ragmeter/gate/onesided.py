"""Deprecated: the gate's one-sided tests are the engine's (issue 44).

The one-sided paired t-test and sign-flip test, their power and the normal quantile were
copies beside :mod:`ragmeter.stats`; the gate now runs every test of the table one-sidedly
through :func:`ragmeter.stats.engine.run_tests` (``alternative="greater"`` on shifted
differences), plans with :func:`ragmeter.stats.power.topic_set_size` (``alternative=``) and
reads the normal quantile from :mod:`ragmeter.stats.distributions`. The old names still work
here, with a :class:`DeprecationWarning`, as thin calls of those:

* ``GATE_TESTS`` -> :func:`ragmeter.gate.gate_tests`;
* ``one_sided_test(values, theta, test=..., alpha=...)`` -> :func:`ragmeter.gate.gate`
  (a floor of ``theta``), or :func:`ragmeter.stats.engine.run_tests`;
* ``queries_needed`` -> :func:`ragmeter.gate.queries_needed`;
* ``one_sided_t_power(n, d, alpha)`` -> ``ragmeter.stats.power.power(n, 1.0, d,
  alpha=alpha, alternative="greater")``;
* ``normal_quantile`` -> :func:`ragmeter.stats.distributions.normal_quantile`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..stats.distributions import normal_quantile
from ..stats.power import power
from .decision import gate, gate_tests, queries_needed

__all__: list[str] = []


@dataclass(frozen=True)
class OneSidedResult:
    """Deprecated: what ``one_sided_test`` returned (see :class:`ragmeter.gate.GateCheck`)."""

    n: int
    mean: float
    sd: float
    statistic: float
    p_value: float
    ci_low: float
    ci_high: float
    method: str


def _one_sided_test(
    values: np.ndarray,
    theta: float,
    *,
    test: str,
    alpha: float,
    n_resamples: int = 9999,
    random_state: int = 0,
) -> OneSidedResult:
    """``H0: mean(values) <= theta``, one-sidedly: the floor check of :func:`gate`."""
    items = {i: float(v) for i, v in enumerate(np.asarray(values, dtype=np.float64).ravel())}
    check = gate(
        {"values": items},
        floors={"values": theta},
        test=test,
        alpha=alpha,
        n_resamples=n_resamples,
        random_state=random_state,
    ).checks[0]
    return OneSidedResult(
        check.n,
        check.mean,
        check.sd,
        math.nan,
        check.p_value,
        check.ci_low,
        check.ci_high,
        check.method,
    )


def _one_sided_t_power(n: int, d: float, alpha: float) -> float:
    return power(n, 1.0, d, alpha=alpha, alternative="greater")


_MOVED: dict[str, tuple[Any, str]] = {
    "GATE_TESTS": (None, "ragmeter.gate.gate_tests()"),
    "OneSidedResult": (OneSidedResult, "ragmeter.gate.GateCheck"),
    "one_sided_test": (_one_sided_test, "ragmeter.gate.gate or ragmeter.stats.engine.run_tests"),
    "queries_needed": (queries_needed, "ragmeter.gate.queries_needed"),
    "one_sided_t_power": (
        _one_sided_t_power,
        "ragmeter.stats.power.power(..., alternative='greater')",
    ),
    "normal_quantile": (normal_quantile, "ragmeter.stats.distributions.normal_quantile"),
}


def __getattr__(name: str) -> Any:
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value, instead = _MOVED[name]
    warnings.warn(
        f"ragmeter.gate.onesided.{name} is deprecated: use {instead} (the gate's tests are the "
        "engine's one-sided tests)",
        DeprecationWarning,
        stacklevel=2,
    )
    return gate_tests() if name == "GATE_TESTS" else value
