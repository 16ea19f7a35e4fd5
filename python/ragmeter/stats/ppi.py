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
range (``label_range``: a ``[0, 1]`` metric labelled 0/100 would give a mean of 50) are
refused.

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
    """

    method: str
    mean: float | None
    ci: tuple[float, float] | None
    confidence: float
    n_labelled: int
    n_unlabelled: int
    lam: float | None = None
    reason: str | None = None

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
        return f"{self.method}: {self.mean:.4f}{interval} ({counts}{tuned})"

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
        }


def _array(values: Sequence[float], argument: str) -> np.ndarray:
    array = np.asarray(values, dtype=float).reshape(-1)
    if not np.all(np.isfinite(array)):
        raise InvalidInputError(f"{argument} must hold finite numbers (no None, nan or inf)")
    return array


def check_label_range(
    values: np.ndarray, label_range: tuple[float, float] | None, argument: str
) -> None:
    """Refuse values outside ``label_range`` (inclusive), naming the first.

    Parameters
    ----------
    values
        The labels (or judge values).
    label_range
        ``(low, high)``: the metric's declared range, or None (no check).
    argument
        How the message names the values.

    Raises
    ------
    InvalidInputError
        A value outside the range, or a range that is not two finite numbers low <= high.
    """
    if label_range is None:
        return
    try:
        low, high = (float(v) for v in label_range)
    except (TypeError, ValueError):
        raise InvalidInputError(f"label_range: expected (low, high), got {label_range!r}") from None
    if not (math.isfinite(low) and math.isfinite(high) and low <= high):
        raise InvalidInputError(f"label_range: expected finite low <= high, got {label_range!r}")
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
    label_range: tuple[float, float] | None = None,
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
    label_range
        ``(low, high)``: the metric's range; human labels (and the judge's values) outside
        it are refused. None: not checked.

    Returns
    -------
    MeanEstimate
        A :class:`MeanEstimate` (undefined with fewer than two labelled or one unlabelled
        sample).

    Raises
    ------
    InvalidInputError
        lists of different lengths, non-finite values, a bad confidence, a label (or judge
        value) outside ``label_range``.

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
    y = _array(human, "human")
    yhat = _array(judge_labelled, "judge_labelled")
    unlabelled = _array(judge_unlabelled, "judge_unlabelled")
    if len(y) != len(yhat):
        raise InvalidInputError(
            f"human and judge_labelled must pair up sample by sample, got {len(y)} and "
            f"{len(yhat)} values"
        )
    check_label_range(y, label_range, "human")
    check_label_range(yhat, label_range, "judge_labelled")
    check_label_range(unlabelled, label_range, "judge_unlabelled")
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
        )
    lam = _tuned_lambda(y, yhat, unlabelled) if power_tuning else 1.0
    mean = float(lam * unlabelled.mean() + (y - lam * yhat).mean())
    standard_error = math.sqrt(
        float(np.var(lam * unlabelled)) / len(unlabelled) + float(np.var(y - lam * yhat)) / len(y)
    )
    z = normal_quantile(1.0 - (1.0 - chosen) / 2.0)
    return MeanEstimate(
        method,
        mean,
        (mean - z * standard_error, mean + z * standard_error),
        chosen,
        len(y),
        len(unlabelled),
        lam=lam,
    )


def classical_mean(
    values: Sequence[float],
    *,
    confidence: float = 0.95,
    label_range: tuple[float, float] | None = None,
) -> MeanEstimate:
    """The mean of human labels alone, with the normal interval ``mean +- z * sd / sqrt(n)``
    (``sd`` with divisor ``n``, as ``ppi_py.classical_mean_ci``); labels outside
    ``label_range`` are refused.

    Examples
    --------
    >>> print(classical_mean([0, 1, 1, 0]))
    human: 0.5000, 95% CI [0.0100, 0.9900] (4 labelled)
    """
    chosen = _check_confidence(confidence)
    y = _array(values, "values")
    check_label_range(y, label_range, "values")
    if len(y) < 2:
        return MeanEstimate(
            "human", None, None, chosen, len(y), 0, reason="needs at least two labelled samples"
        )
    mean = float(y.mean())
    half = normal_quantile(1.0 - (1.0 - chosen) / 2.0) * float(y.std()) / math.sqrt(len(y))
    return MeanEstimate("human", mean, (mean - half, mean + half), chosen, len(y), 0)
