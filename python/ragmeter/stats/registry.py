"""The table of significance tests: one declaration per test, read by everything else.

A :class:`StatisticalTest` declares a test once: its name and aliases, what it assumes,
whether it pairs the queries, the function that computes it over a campaign, the alternatives
it tests (two-sided, and one-sided ``"greater"`` and ``"less"`` for the tests of paired
differences), the fewest queries it accepts, how its p-values may have been computed, whether
it draws random numbers, how its intervals are made, whether it adjusts its own p-values, and
the papers it follows. :func:`compare`, :func:`compare_many`,
:class:`~ragmeter.stats.ComparisonOptions`, ``ragmeter compare --test`` (its choices and
help), the gate (:func:`ragmeter.gate.gate` and ``ragmeter gate --test``: every paired test
with one-sided alternatives), the saved results, the docs and the tests all read
:data:`TESTS`.

Registering a test
------------------
1. Write its function ``run(sample: CampaignInput) -> CampaignOutcome`` in its own module
   (e.g. ``ragmeter/stats/randomised.py``), which imports neither
   :mod:`~ragmeter.stats.comparison` nor :mod:`~ragmeter.stats.builtin`. It receives the
   systems x metrics x queries values, the ``(n_pairs, 2)`` tested pairs (and the baseline's
   index), the per-pair counts and mean differences and the validated options (level,
   method, randomisations, seed, threads, alternative), and returns ``(n_pairs, n_metrics)``
   arrays: p-values of the alternative (already adjusted if it adjusts its own), statistics,
   per-cell methods, the campaign's method, the randomisations made, optionally its own
   intervals and effect sizes. A test that declares one-sided ``alternatives`` tests the
   per-query differences of each pair, so that the comparison can shift them (the gate's
   margins and floors: ``H0: mean difference <= threshold``).
2. Import it in :mod:`ragmeter.stats.builtin` and add one ``register_test(StatisticalTest(
   name=..., title=..., run=..., assumes=..., description=..., citation=...,
   p_value_methods=(...), alternatives=ALTERNATIVES, min_pairs=..., resampled=True,
   exact_unit=..., sampled_unit=..., ...))`` below the built-in declarations (their order is
   the CLI's). A test that adjusts its own p-values
   sets ``own_correction`` (the name saved as ``correction``), ``own_correction_text`` and
   ``own_family``; one that needs a baseline sets ``requires_baseline=True``.
3. Add its line to the listing of tests in ``docs/guides/comparing-many-systems.md`` (a sybil
   example prints the table).

Nothing else changes: validation (:class:`~ragmeter.stats.ComparisonOptions`), the CLI's
``--test`` choices and help (``ragmeter compare`` and, for a test with one-sided
alternatives, ``ragmeter gate``), the captions, the saved results and report reading follow
the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ..exceptions import InvalidInputError
from ._arguments import ALTERNATIVES

__all__ = [
    "TESTS",
    "CampaignInput",
    "CampaignOutcome",
    "StatisticalTest",
    "find_test",
    "p_value_methods",
    "register_test",
]

Interval = Literal["test", "bootstrap"]


@dataclass(frozen=True)
class CampaignInput:
    """What a test's function receives: the aligned values of a campaign and the options
    that concern it (already validated by :class:`~ragmeter.stats.ComparisonOptions`).

    Parameters
    ----------
    values
        Systems x metrics x queries, NaN where a value is undefined.
    pairs
        ``(n_pairs, 2)`` indices into the systems: ``(candidate, baseline)`` of every tested
        pair, in the result's order.
    baseline
        The baseline's index, or None when every pair is tested.
    n_pairs
        ``(n_pairs, n_metrics)``: the queries where both systems of a pair have a value.
    delta
        ``(n_pairs, n_metrics)``: the mean difference (candidate - baseline) over them.
    confidence_level
        The intervals' level, or None (no interval asked for).
    method
        ``"auto"``, ``"exact"`` or ``"sampled"`` (how a randomisation test enumerates).
    n_resamples
        Randomisations (sign vectors, permutations, resamples) of a sampled test.
    seed
        The seed of the sampled tests.
    n_threads
        Threads of the Rust core (None: its default).
    alternative
        ``"two-sided"``, ``"greater"`` or ``"less"`` (one of the declaration's
        ``alternatives``).
    clusters
        Each query's cluster as a code ``0..G-1`` (aligned with the queries), when the
        systems' values record clusters; None otherwise (the cluster-robust test needs them).
    null_difference
        Per metric, the shift already subtracted from the candidates' values (the gate's
        margins and floors), or None (no shift); a test of bounded values reads its bounds
        from it.
    sd, scale
        ``(n_pairs, n_metrics)``: the standard deviation of the differences (``ddof=1``) and
        the largest magnitude of either value of the pair over the queries both hold, as the
        engine computed them for every test, when the values are not shifted; None
        otherwise (a test that needs them computes them).
    """

    values: np.ndarray
    pairs: np.ndarray
    baseline: int | None
    n_pairs: np.ndarray
    delta: np.ndarray
    confidence_level: float | None
    method: str
    n_resamples: int
    seed: int
    n_threads: int | None
    alternative: str = "two-sided"
    clusters: np.ndarray | None = None
    null_difference: np.ndarray | None = None
    sd: np.ndarray | None = None
    scale: np.ndarray | None = None


@dataclass(frozen=True)
class CampaignOutcome:
    """What a test's function returns; arrays are ``(n_pairs, n_metrics)``, NaN where
    undefined.

    Parameters
    ----------
    p_value
        p-values of the input's alternative (adjusted over the test's own family when the
        test declares ``own_correction``).
    statistic
        The test's statistic per pair and metric.
    methods
        How each p-value was computed (a value of the declaration's ``p_value_methods``, or
        ``""`` when undefined).
    method
        The campaign's method (one of ``methods``, or ``"mixed"``).
    n_examined
        Randomisations made (0 for a test that makes none).
    ci_low, ci_high
        The test's own intervals of the mean differences (None: it gives none; then the
        comparison adds bootstrap intervals when the declaration's ``interval`` is
        ``"bootstrap"``).
    effect_size
        The test's standardised effect per pair and metric (None: Cohen's ``d_z`` of the
        paired differences, which the comparison computes for every test).
    """

    p_value: np.ndarray
    statistic: np.ndarray
    methods: np.ndarray
    method: str
    n_examined: int = 0
    ci_low: np.ndarray | None = None
    ci_high: np.ndarray | None = None
    effect_size: np.ndarray | None = None


@dataclass(frozen=True)
class StatisticalTest:
    """One significance test of the table :data:`TESTS`.

    Parameters
    ----------
    name
        The canonical name (``test=`` and ``--test``, saved in results).
    title
        How captions name it, two-sided (``"two-sided paired t-test"``; see
        :meth:`title_for` for the one-sided forms).
    run
        The function computing it over a campaign (:class:`CampaignInput` ->
        :class:`CampaignOutcome`).
    assumes
        What it assumes of the per-query values, in one sentence (the docs and ``--help``).
    description
        What it does, for ``--help`` and the docs.
    citation
        The paper or book it follows.
    paired
        Whether it pairs the systems' values query by query.
    alternatives
        The alternatives it tests: ``("two-sided",)``, or every one of
        :data:`~ragmeter.stats._arguments.ALTERNATIVES` for a test of each pair's per-query
        differences (which the gate may then use, on shifted differences).
    min_pairs
        The fewest paired queries it accepts; below, its p-value is undefined ("not enough
        queries") and the tests on arrays refuse.
    aliases
        Other names accepted for it (ranx's ``"student"``, ``"fisher"``).
    p_value_methods
        The ``method`` values its p-values may have (``"exact"``, ``"sampled"``, ...).
    resampled
        Whether it draws random numbers (so its seed and randomisation count matter and are
        stated).
    interval
        ``"test"``: its own intervals (t, simultaneous); ``"bootstrap"``: percentile
        bootstrap intervals of the mean differences, made beside it.
    own_correction
        The name of its own adjustment of the p-values (``"tukey"``), or None when the
        campaign's correction (Holm, ...) applies.
    own_correction_text
        How a caption states that adjustment.
    own_family
        What its own adjustment covers per metric: ``"all-pairs"`` (every pair of systems,
        as Tukey's, even when only the pairs with a baseline are reported) or
        ``"compared"`` (the compared pairs, as Westfall-Young's candidates against the
        baseline).
    requires_baseline
        Whether it tests only against one baseline (Westfall-Young max-T).
    requires_clusters
        Whether it needs each query's cluster (:attr:`CampaignInput.clusters`: the values
        record clusters).
    mixed_methods
        Whether its p-values may be computed differently by pair and metric (Wilcoxon's:
        exact, permutations or the normal approximation), the comparison's ``method`` then
        being ``"mixed"``.
    exact_unit, sampled_unit
        How captions count its randomisations: ``"exact over all 65,536 sign vectors"``,
        ``"9,999 sampled sign vectors (seed 0)"``.
    interval_text
        How captions name its own intervals (``interval="test"``): ``"t"``, ``"simultaneous,
        from the studentized range"``.
    reports_anova
        Whether the tables' notes give the two-way ANOVA of each metric (the tests built on
        its residual).
    effect_size_name, effect_size_text
        The label of its standardised effect in the tables and what it is: ``"d_z"``
        (Cohen's, the mean difference over the standard deviation of the paired
        differences) unless its function returns another (``"ES_E"``: the difference over
        ``sqrt(V_E)`` of the two-way ANOVA).
    """

    name: str
    title: str
    run: Callable[[CampaignInput], CampaignOutcome] = field(repr=False, compare=False)
    assumes: str
    description: str
    citation: str
    paired: bool = True
    alternatives: tuple[str, ...] = ("two-sided",)
    min_pairs: int = 1
    aliases: tuple[str, ...] = ()
    p_value_methods: tuple[str, ...] = ()
    resampled: bool = False
    interval: Interval = "bootstrap"
    own_correction: str | None = None
    own_correction_text: str = ""
    own_family: Literal["all-pairs", "compared"] = "compared"
    requires_baseline: bool = False
    requires_clusters: bool = False
    mixed_methods: bool = False
    exact_unit: str = "randomisations"
    sampled_unit: str = "sampled randomisations"
    reports_anova: bool = False
    interval_text: str = "the test's own"
    effect_size_name: str = "d_z"
    effect_size_text: str = (
        "Cohen's d_z: the mean difference over the standard deviation of the per-query differences"
    )

    def campaign_methods(self) -> tuple[str, ...]:
        """The ``method`` values a whole comparison may record: one of
        :attr:`p_value_methods`, or ``"mixed"`` when they differ by pair and metric."""
        return (*self.p_value_methods, "mixed") if self.mixed_methods else self.p_value_methods

    def help_text(self) -> str:
        """The test in one line: ``name: description (assumes ...)``."""
        return f"{self.name}: {self.description}"

    @property
    def one_sided(self) -> bool:
        """Whether it tests one-sided alternatives (and so shifted differences: the gate)."""
        return "greater" in self.alternatives

    def title_for(self, alternative: str) -> str:
        """How captions name it under ``alternative``: its :attr:`title`, or for a one-sided
        alternative ``"one-sided paired t-test (greater: candidate better)"``."""
        if alternative == "two-sided":
            return self.title
        side = "candidate better" if alternative == "greater" else "candidate worse"
        return self.title.replace("two-sided", "one-sided", 1) + f" ({alternative}: {side})"


#: The tests, by canonical name, in the order the CLI and the docs list them.
TESTS: dict[str, StatisticalTest] = {}
_ALIASES: dict[str, str] = {}


def register_test(test: StatisticalTest) -> StatisticalTest:
    """Add ``test`` to :data:`TESTS` (its name and aliases must be new).

    Parameters
    ----------
    test
        The declaration.

    Returns
    -------
    StatisticalTest
        ``test``.

    Raises
    ------
    ValueError
        A name or alias already taken.
    """
    for name in (test.name, *test.aliases):
        if name in TESTS or name in _ALIASES:
            raise ValueError(f"the test name {name!r} is already registered")
    if "two-sided" not in test.alternatives or set(test.alternatives) - set(ALTERNATIVES):
        raise ValueError(
            f"alternatives: two-sided and some of {ALTERNATIVES}, got {test.alternatives}"
        )
    if len(test.alternatives) > 1 and not (test.paired and "two-sided" in test.title):
        raise ValueError(
            "a one-sided test tests paired differences and its title says 'two-sided' (the "
            f"one-sided titles replace it), got {test.title!r}"
        )
    TESTS[test.name] = test
    for alias in test.aliases:
        _ALIASES[alias] = test.name
    return test


def find_test(name: object, argument: str = "test") -> StatisticalTest:
    """The declaration of the test named ``name`` (or one of its aliases).

    Parameters
    ----------
    name
        A canonical name or an alias.
    argument
        The argument named in the error.

    Returns
    -------
    StatisticalTest
        The declaration.

    Raises
    ------
    InvalidInputError
        An unknown name, listing the tests.
    """
    if isinstance(name, str):
        canonical = _ALIASES.get(name, name)
        if canonical in TESTS:
            return TESTS[canonical]
    aliases = ", ".join(f"{a!r} ({t})" for a, t in _ALIASES.items())
    raise InvalidInputError(
        f"{argument}: must be one of {', '.join(map(repr, TESTS))}"
        + (f" (or the aliases {aliases})" if aliases else "")
        + f", got {name!r}"
    )


def p_value_methods() -> tuple[str, ...]:
    """Every ``p_value_method`` a registered test may record, in order of first mention."""
    seen: dict[str, None] = {}
    for test in TESTS.values():
        for method in test.p_value_methods:
            seen.setdefault(method, None)
    return tuple(seen)
