"""The options of a comparison, validated once: :class:`ComparisonOptions`.

:func:`~ragmeter.compare`, :func:`~ragmeter.compare_many` and ``ragmeter compare`` build one
:class:`ComparisonOptions` from their arguments (or take one, ``options=``), so every option
is checked in one place, with one error message, and the saved result records exactly the
options it was computed with (:meth:`ComparisonOptions.to_dict`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any, ClassVar

import numpy as np

from ..exceptions import InvalidInputError
from ..options import check_n_threads, shorten
from . import builtin as _builtin  # noqa: F401  (registers the built-in tests)
from ._arguments import check_alternative, check_level, check_seed, resample_count
from .multiple import CORRECTIONS
from .registry import TESTS, StatisticalTest, find_test

__all__ = ["CORRECTION_ALIASES", "FAMILIES", "METHODS", "MISSING", "ComparisonOptions"]

#: Other names of the corrections (statsmodels' ``fdr_bh``).
CORRECTION_ALIASES = {"fdr_bh": "bh", "benjamini-hochberg": "bh"}
#: What a correction adjusts over: every test of the comparison, or the pairs of each metric.
FAMILIES = ("all", "metric")
#: How a randomisation test enumerates: exact when small enough, always exact, always sampled.
METHODS = ("auto", "exact", "sampled")
#: What to do with queries not every system has.
MISSING = ("raise", "skip")


def _resolve_correction(correction: Any, test: StatisticalTest) -> str | None:
    """The correction to apply: ``"auto"`` is Holm's, or the test's own adjustment."""
    if test.own_correction is not None:
        if correction not in ("auto", None, "none", test.own_correction):
            raise InvalidInputError(
                f"correction: the {test.name} test already adjusts its p-values "
                f"({test.own_correction_text}); pass correction='auto' (or None) with "
                f"test={test.name!r}, got {correction!r}"
            )
        return test.own_correction
    if correction == "auto":
        return "holm"
    if correction in (None, "none"):
        return None
    name = CORRECTION_ALIASES.get(correction, correction) if isinstance(correction, str) else None
    if name not in CORRECTIONS:
        raise InvalidInputError(
            f"correction: must be one of {', '.join(map(repr, CORRECTIONS))}, 'auto' or None, "
            f"got {correction!r}"
        )
    return str(name)


@dataclass(frozen=True)
class ComparisonOptions:
    """How systems are compared: the test, the correction, the levels, the randomisation.

    Built and validated once (every field is checked and normalised on construction: an
    alias becomes the test's name, ``correction="auto"`` the correction applied,
    ``random_state=None`` a fresh seed that is then recorded), then read by
    :func:`~ragmeter.compare_many`, the tables' captions and the saved results.

    Parameters
    ----------
    test
        A test of :data:`~ragmeter.stats.TESTS` (or an alias): ``"sign-flip"`` (default),
        ``"t"``, ``"wilcoxon"``, ``"bootstrap"``, ``"tukey"`` (paired, on the two-way ANOVA's
        residual), ``"tukey-oneway"``, ...
    correction
        ``"auto"`` (default: Holm's, or the test's own adjustment), ``"holm"``,
        ``"bonferroni"``, ``"bh"`` or None.
    family
        What the correction adjusts over: ``"all"`` (every pair and metric) or ``"metric"``.
    alpha
        The significance level of the marks and of ``significant()``.
    confidence_level
        The level of the intervals of the mean differences (None: none).
    method
        ``"auto"``, ``"exact"`` or ``"sampled"``: how a randomisation test enumerates.
    n_resamples
        Randomisations of a sampled test (sign vectors, resamples, permutations).
    n_bootstrap
        Bootstrap resamples of the percentile intervals of the tests without their own
        intervals (0: no interval).
    random_state
        The seed (None: fresh entropy, recorded here).
    baseline
        The baseline's name (None: every pair is compared).
    margin
        The smallest difference that matters (>= 0, in the metric's units): the tables say
        whether each interval lies beyond it, and it is the default difference of the
        topic-set-size analysis.
    missing
        ``"raise"`` (every system must hold the same queries) or ``"skip"``.
    n_threads
        Threads of the Rust core (no number depends on it).
    alternative
        ``"two-sided"`` (default), ``"greater"`` (the candidate is better: the mean difference
        candidate - baseline is above 0) or ``"less"``, as scipy's ``alternative=``; the
        one-sided ones for the tests that declare them (the tests of paired differences:
        sign-flip, t, Wilcoxon, bootstrap). Intervals stay two-sided.

    Raises
    ------
    InvalidInputError
        Any option out of its range, naming it.

    Examples
    --------
    >>> options = ComparisonOptions(test="student", correction=None)
    >>> options.test, options.correction, options.random_state
    ('t', None, 0)
    >>> ComparisonOptions(test="tukey").correction
    'tukey'
    """

    test: str = "sign-flip"
    correction: str | None = "auto"
    family: str = "all"
    alpha: float = 0.05
    confidence_level: float | None = 0.95
    method: str = "auto"
    n_resamples: int = 9999
    n_bootstrap: int = 9999
    random_state: int | None = 0
    baseline: str | None = None
    margin: float = 0.0
    missing: str = "raise"
    n_threads: int | None = None
    alternative: str = "two-sided"

    #: The options saved in results (all but ``n_threads``, which changes no number).
    SAVED: ClassVar[tuple[str, ...]] = (
        "test",
        "alternative",
        "correction",
        "family",
        "alpha",
        "confidence_level",
        "method",
        "n_resamples",
        "n_bootstrap",
        "random_state",
        "baseline",
        "margin",
        "missing",
    )

    def __post_init__(self) -> None:
        test = find_test(self.test)
        normalised: dict[str, Any] = {
            "test": test.name,
            "correction": _resolve_correction(self.correction, test),
            "alpha": check_level("alpha", self.alpha),
            "confidence_level": None
            if self.confidence_level is None
            else check_level("confidence_level", self.confidence_level),
            "n_resamples": resample_count("n_resamples", self.n_resamples),
            "n_bootstrap": resample_count("n_bootstrap", self.n_bootstrap, allow_zero=True),
            "random_state": check_seed(self.random_state),
            "n_threads": check_n_threads(self.n_threads),
            # Results saved before the option existed were two-sided.
            "alternative": "two-sided"
            if self.alternative is None
            else check_alternative(self.alternative),
        }
        if normalised["alternative"] not in test.alternatives:
            raise InvalidInputError(
                f"alternative: the {test.name} test is two-sided only (one-sided tests: "
                + ", ".join(t.name for t in TESTS.values() if t.one_sided)
                + f"), got {self.alternative!r}"
            )
        if self.family not in FAMILIES:
            raise InvalidInputError(f"family: must be 'all' or 'metric', got {self.family!r}")
        if self.method not in METHODS:
            raise InvalidInputError(
                f"method: must be 'auto', 'exact' or 'sampled', got {self.method!r}"
            )
        if self.missing not in MISSING:
            if self.missing == "zero":
                raise InvalidInputError(
                    "missing: 'zero' scores a query a run did not rank as an empty ranking, "
                    "which needs the judgments: evaluate the runs with missing='zero' "
                    "(evaluate_trec(complete=True), `ragmeter compare -c`) so that every run "
                    "has every judged query, then compare them"
                )
            raise InvalidInputError(f"missing: must be 'raise' or 'skip', got {self.missing!r}")
        if self.baseline is not None and (not isinstance(self.baseline, str) or not self.baseline):
            raise InvalidInputError(
                f"baseline: the name of one system, or None, got {shorten(self.baseline, 40)}"
            )
        if test.requires_baseline and self.baseline is None:
            raise InvalidInputError(
                f"baseline: the {test.name} test compares candidates with one baseline; "
                "name it (baseline=..., `ragmeter compare --baseline RUN`)"
            )
        margin = self.margin
        if (
            isinstance(margin, bool)
            or not isinstance(margin, int | float | np.integer | np.floating)
            or not math.isfinite(float(margin))
            or float(margin) < 0
        ):
            raise InvalidInputError(
                f"margin: the smallest difference that matters, a finite number >= 0, got "
                f"{shorten(margin, 40)}"
            )
        normalised["margin"] = float(margin)
        for name, value in normalised.items():
            object.__setattr__(self, name, value)

    @property
    def statistical_test(self) -> StatisticalTest:
        """The test's declaration in :data:`~ragmeter.stats.TESTS`."""
        return TESTS[self.test]

    @property
    def seed(self) -> int:
        """The seed of the randomised tests and intervals (``random_state``)."""
        assert self.random_state is not None  # resolved on construction
        return self.random_state

    def to_dict(self) -> dict[str, Any]:
        """The options as saved in a result (all but ``n_threads``, which changes no number).

        Returns
        -------
        dict
            JSON-ready.
        """
        values = asdict(self)
        return {name: values[name] for name in self.SAVED}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ComparisonOptions:
        """Options from :meth:`to_dict` output (or any mapping of their names), validated.

        Parameters
        ----------
        data
            ``{option: value}``.

        Returns
        -------
        ComparisonOptions
            The options.

        Raises
        ------
        InvalidInputError
            An unknown option or a value out of range.
        """
        if not isinstance(data, Mapping):
            raise InvalidInputError(f"options: expected a mapping, got {type(data).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in data if k not in known)
        if unknown:
            raise InvalidInputError(
                f"options: unknown option(s) {unknown}; the options are {sorted(known)}"
            )
        return cls(**dict(data))
