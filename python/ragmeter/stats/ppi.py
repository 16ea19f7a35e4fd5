"""Prediction-powered inference: a judge's mean over every sample, corrected by human labels.

A judge scores every sample; people label a few. The judge's raw mean is biased by however far
the judge is off; the humans-only mean is unbiased but wide (few labels). Prediction-powered
inference (PPI; Angelopoulos, Bates, Fannjiang, Jordan & Zrnic, "Prediction-powered inference",
*Science* 382, 2023) estimates the mean as the judge's mean over the unlabelled samples plus
the judge's mean error measured on the labelled ones,

    theta = lam * mean(f(X_unlabelled)) + mean(Y_labelled - lam * f(X_labelled)),

with the normal interval ``theta +- z * sqrt(var(lam * f(X_unl)) / N + var(Y - lam * f(X)) / n)``
(variances with divisor ``N`` and ``n``, as the authors' ``ppi_py``). ``lam = 1`` is the
classical PPI estimator (ARES, Saad-Falcon et al., NAACL 2024, uses it); PPI++ (Angelopoulos,
Duchi & Zrnic 2023, arXiv:2311.01453) picks ``lam`` in [0, 1] from the data to minimise the
variance, so the interval is never wider than the humans-only one by more than the noise of
estimating ``lam``. Assumes the labelled samples are a uniform random subset of all samples,
and human labels on the scale of the judge's values: labels outside the metric's declared
range (``bounds``: a ``[0, 1]`` metric labelled 0/100 would give a mean of 50) are
refused, and the normal interval is cut at that range (the true mean lies in it, so the cut
interval covers it whenever the whole one does; the result says when it was cut).

(Moved here from ``ragmeter.judges.ppi``, which re-exports these names with a deprecation
warning.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..exceptions import InvalidInputError
from .distributions import normal_quantile

__all__ = ["MeanEstimate", "check_label_range", "classical_mean", "ppi_mean"]


@dataclass(frozen=True)
class MeanEstimate:
    """A mean with its normal confidence interval and what it was computed from.

    Attributes
    ----------
    method
        ``"ppi"``, ``"ppi++"``, ``"judge"`` (the judge's raw mean, no interval: it
        is biased by however far the judge is off) or ``"human"`` (labelled samples only).
    mean
        The estimate (``None`` when undefined, with ``reason``).
    ci
        ``(low, high)`` at ``confidence`` (``None`` without one).
    confidence
        The interval's nominal coverage.
    n_labelled
        Human-labelled samples used.
    n_unlabelled
        Samples with only the judge's value used.
    lam
        PPI's power-tuning weight on the judge (1 for classical PPI).
    reason
        Why ``mean`` is undefined.
    bounds
        The range of values the metric can take, when the interval was bounded by it
        (``None``: not bounded). The true mean lies in that range, so cutting the normal
        interval there keeps its coverage; ``clipped`` says whether it had to be cut.
    clipped
        Whether the normal interval ran past ``bounds`` and was cut there.
    """

    method: str
    mean: float | None
    ci: tuple[float, float] | None
    confidence: float
    n_labelled: int
    n_unlabelled: int
    lam: float | None = None
    reason: str | None = None
    bounds: tuple[float, float] | None = None
    clipped: bool = False

    def __str__(self) -> str:
        if self.mean is None:
            return f"{self.method}: undefined ({self.reason})"
        counts = f"{self.n_labelled} labelled"
        if self.method != "human":
            counts += f" + {self.n_unlabelled} judge-only samples"
        interval = (
            ""
            if self.ci is None
            else f", {self.confidence:.0%} CI [{self.ci[0]:.4f}, {self.ci[1]:.4f}]"
        )
        tuned = f", lambda={self.lam:.3f}" if self.method == "ppi++" and self.lam else ""
        bounded = (
            f", interval cut at the metric's range [{self.bounds[0]:g}, {self.bounds[1]:g}]"
            if self.clipped and self.bounds is not None
            else ""
        )
        return f"{self.method}: {self.mean:.4f}{interval} ({counts}{tuned}{bounded})"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every field."""
        return {
            "method": self.method,
            "mean": self.mean,
            "ci": None if self.ci is None else list(self.ci),
            "confidence": self.confidence,
            "n_labelled": self.n_labelled,
            "n_unlabelled": self.n_unlabelled,
            "lam": self.lam,
            "reason": self.reason,
            "bounds": None if self.bounds is None else list(self.bounds),
            "clipped": self.clipped,
        }


def _array(values: Sequence[float], argument: str) -> np.ndarray:
    array = np.asarray(values, dtype=float).reshape(-1)
    if not np.all(np.isfinite(array)):
        raise InvalidInputError(f"{argument} must hold finite numbers (no None, nan or inf)")
    return array


def check_label_range(
    values: np.ndarray, bounds: tuple[float, float] | None, argument: str
) -> None:
    """Refuse values outside ``bounds`` (inclusive), naming the first.

    Parameters
    ----------
    values
        The labels (or judge values).
    bounds
        ``(lowest, highest)``: the metric's declared range, or None (no check).
    argument
        How the message names the values.

    Raises
    ------
    InvalidInputError
        A value outside the range, or a range that is not two finite numbers, lowest first.
    """
    limits = _check_bounds(bounds)
    if limits is None:
        return
    low, high = limits
    outside = np.flatnonzero((values < low) | (values > high))
    if outside.size:
        i = int(outside[0])
        raise InvalidInputError(
            f"{argument}[{i}] is {values[i]:g}, outside the metric's range [{low:g}, {high:g}]: "
            f"{outside.size} of {values.size} labels are; put the labels on the metric's scale "
            "(a [0, 1] metric takes labels in [0, 1], not percentages)"
        )


def _check_confidence(confidence: float) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise InvalidInputError(f"confidence must lie in (0, 1), e.g. 0.95, got {confidence!r}")
    if not 0.0 < confidence < 1.0:
        raise InvalidInputError(f"confidence must lie in (0, 1), e.g. 0.95, got {confidence!r}")
    return float(confidence)


def _check_bounds(bounds: tuple[float, float] | None) -> tuple[float, float] | None:
    if bounds is None:
        return None
    try:
        low, high = (float(b) for b in bounds)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"bounds must be None or (lowest, highest) value of the metric, got {bounds!r}"
        ) from None
    if not (math.isfinite(low) and math.isfinite(high) and low <= high):
        raise InvalidInputError(f"bounds must be two finite numbers, lowest first, got {bounds!r}")
    return low, high


def _interval(
    mean: float, half: float, bounds: tuple[float, float] | None
) -> tuple[tuple[float, float], bool]:
    """``mean +- half``, cut at ``bounds`` (the parameter lies there, so the cut interval covers
    it whenever the whole one does), and whether it was cut."""
    low, high = mean - half, mean + half
    if bounds is None:
        return (low, high), False
    cut = (max(low, bounds[0]), min(high, bounds[1]))
    return cut, cut != (low, high)


def _tuned_lambda(y: np.ndarray, yhat: np.ndarray, yhat_unlabelled: np.ndarray) -> float:
    """PPI++'s variance-minimising weight for a mean, clipped to [0, 1], as ``ppi_py`` computes
    it: ``cov(Y, f(X)) / ((1 + n / N) var(f(X) over every sample))``."""
    n, big_n = len(y), len(yhat_unlabelled)
    covariance = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    variance = float(np.var(np.concatenate([yhat, yhat_unlabelled]), ddof=1))
    if variance == 0.0:
        # A constant judge: every lam gives the same estimate (the humans' mean).
        return 1.0
    return min(1.0, max(0.0, covariance / ((1.0 + n / big_n) * variance)))


def ppi_mean(
    human: Sequence[float],
    judge_labelled: Sequence[float],
    judge_unlabelled: Sequence[float],
    *,
    confidence: float = 0.95,
    power_tuning: bool = False,
    bounds: tuple[float, float] | None = None,
) -> MeanEstimate:
    """The prediction-powered mean and its normal interval (see the module's docstring).

    Parameters
    ----------
    human
        The human labels of the labelled samples.
    judge_labelled
        The judge's values on the same samples, in the same order.
    judge_unlabelled
        The judge's values on the samples nobody labelled.
    confidence
        The interval's nominal coverage.
    power_tuning
        ``False``: classical PPI (``lam = 1``); ``True``: PPI++'s tuned ``lam``.
    bounds
        ``(lowest, highest)`` value of the metric (``(0, 1)`` for a fraction): human labels
        (and the judge's values) outside it are refused, and the interval is cut there (the
        estimate itself is not), and the result says so. None: neither.

    Returns
    -------
    MeanEstimate
        A :class:`MeanEstimate` (undefined with fewer than two labelled or one unlabelled
        sample).

    Raises
    ------
    InvalidInputError
        lists of different lengths, non-finite values, a bad confidence, a label (or judge
        value) outside ``bounds``, bounds that are not two finite numbers, lowest first.

    Examples
    --------
    >>> # the judge says 0.8 on average; on the labelled pairs it is 0.25 too high
    >>> estimate = ppi_mean([0, 1, 1, 0], [0.5, 1.0, 1.0, 0.5], [1, 1, 1, 0, 1])
    >>> round(estimate.mean, 4)
    0.55
    >>> print(estimate)
    ppi: 0.5500, 95% CI [0.1223, 0.9777] (4 labelled + 5 judge-only samples)
    """
    chosen = _check_confidence(confidence)
    limits = _check_bounds(bounds)
    y = _array(human, "human")
    yhat = _array(judge_labelled, "judge_labelled")
    unlabelled = _array(judge_unlabelled, "judge_unlabelled")
    if len(y) != len(yhat):
        raise InvalidInputError(
            f"human and judge_labelled must pair up sample by sample, got {len(y)} and "
            f"{len(yhat)} values"
        )
    check_label_range(y, limits, "human")
    check_label_range(yhat, limits, "judge_labelled")
    check_label_range(unlabelled, limits, "judge_unlabelled")
    method = "ppi++" if power_tuning else "ppi"
    if len(y) < 2 or len(unlabelled) < 1:
        return MeanEstimate(
            method,
            None,
            None,
            chosen,
            len(y),
            len(unlabelled),
            reason="needs at least two labelled samples and one judge-only sample",
            bounds=limits,
        )
    lam = _tuned_lambda(y, yhat, unlabelled) if power_tuning else 1.0
    mean = float(lam * unlabelled.mean() + (y - lam * yhat).mean())
    standard_error = math.sqrt(
        float(np.var(lam * unlabelled)) / len(unlabelled) + float(np.var(y - lam * yhat)) / len(y)
    )
    z = normal_quantile(1.0 - (1.0 - chosen) / 2.0)
    ci, clipped = _interval(mean, z * standard_error, limits)
    return MeanEstimate(
        method,
        mean,
        ci,
        chosen,
        len(y),
        len(unlabelled),
        lam=lam,
        bounds=limits,
        clipped=clipped,
    )


def classical_mean(
    values: Sequence[float],
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> MeanEstimate:
    """The mean of human labels alone, with the normal interval ``mean +- z * sd / sqrt(n)``
    (``sd`` with divisor ``n``, as ``ppi_py.classical_mean_ci``); labels outside ``bounds``
    are refused and the interval is cut there.

    Examples
    --------
    >>> print(classical_mean([0, 1, 1, 0]))
    human: 0.5000, 95% CI [0.0100, 0.9900] (4 labelled)
    """
    chosen = _check_confidence(confidence)
    limits = _check_bounds(bounds)
    y = _array(values, "values")
    check_label_range(y, limits, "values")
    if len(y) < 2:
        return MeanEstimate(
            "human",
            None,
            None,
            chosen,
            len(y),
            0,
            reason="needs at least two labelled samples",
            bounds=limits,
        )
    mean = float(y.mean())
    half = normal_quantile(1.0 - (1.0 - chosen) / 2.0) * float(y.std()) / math.sqrt(len(y))
    ci, clipped = _interval(mean, half, limits)
    return MeanEstimate("human", mean, ci, chosen, len(y), 0, bounds=limits, clipped=clipped)
