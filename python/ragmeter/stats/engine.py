"""The comparison engine: systems' values paired by query, and every paired test of the table
run over them at once.

Everything that decides between systems goes through here: :func:`compare_many` (and so
:func:`compare`, ``ragmeter compare``) and the gate (:func:`ragmeter.gate.gate`).

* :func:`check_comparable`: values that do not mean the same thing (computed with different
  settings, metric definitions or judges) are refused, naming the difference, through the one
  rule :func:`ragmeter.check_comparable`;
* :func:`align`: the systems' values paired by query id (systems x metrics x queries), with
  the queries left out (``missing="skip"``) or an :class:`UnpairedQueriesError`;
* :func:`run_tests`: the test of :class:`~ragmeter.stats.ComparisonOptions` over every pair
  and metric, through the table of tests (:data:`~ragmeter.stats.TESTS`), with the summary
  every test shares (mean difference, means, wins/ties/losses, ``d_z``), the intervals, the
  small-sample rules (a p-value is undefined below the test's ``min_pairs``; p-values below
  ``1e-16`` are reported as that bound) and the correction. A ``null_difference`` per metric
  tests ``H0: mean(candidate - baseline) = delta_0`` (one-sided: ``<=`` or ``>=``) on the
  shifted differences, which is how the gate tests its margins and floors.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _core
from ..exceptions import InputTypeError, InvalidInputError
from ..manifest import Manifest
from ..manifest import check_comparable as manifest_check
from ..per_query import PerQueryResults
from .builtin import pair_blocks
from .multiple import adjust_p_values
from .options import ComparisonOptions
from .paired import BOOTSTRAP_STREAM, effect_sizes, row_moments
from .pvalues import bound_p_values
from .registry import TESTS, CampaignInput

__all__ = [
    "Alignment",
    "TestOutcome",
    "UnpairedQueriesError",
    "align",
    "check_comparable",
    "pair_indices",
    "run_tests",
]


class UnpairedQueriesError(InvalidInputError):
    """The systems do not hold the same queries (``missing="raise"``).

    Parameters
    ----------
    detail
        Which queries which systems lack.
    remedy
        What to do, in the caller's terms (Python arguments here; ``ragmeter compare`` and
        ``ragmeter gate`` word it with their flags).
    """

    def __init__(self, detail: str, remedy: str) -> None:
        self.detail = detail
        self.remedy = remedy
        super().__init__(
            f"a paired comparison needs every system evaluated on the same queries: {detail}. "
            f"{remedy}"
        )


def check_comparable(systems: Mapping[str, Any]) -> list[str]:
    """Refuse values that do not mean the same thing; return what could not be checked.

    Every system is checked against the first with the one rule of comparability,
    :func:`ragmeter.check_comparable` (settings recorded on both sides with values that give
    other numbers, metric definitions and judges that differ are refused; a setting recorded on
    one side only, other ragmeter versions, files without a checksum are notes). Here so that
    every decision (``compare_many``, the gate) goes through one call.

    Parameters
    ----------
    systems
        ``{system: values}``, the first system the reference; each value a
        :class:`~ragmeter.PerQueryResults`, a :class:`~ragmeter.manifest.Manifest`, or a mapping
        of the settings its values were computed with (only those are then checked).

    Returns
    -------
    list of str
        The notes, each once, in order.

    Raises
    ------
    InvalidInputError
        Two systems whose values do not mean the same thing, naming what differs.
    """
    names = list(systems)
    found: list[str] = []
    if not names:
        return found
    manifests = {
        name: Manifest("settings", settings=dict(value)) if isinstance(value, Mapping) else value
        for name, value in systems.items()
    }
    first = manifests[names[0]]
    for name in names[1:]:
        found += manifest_check(first, manifests[name], names=(names[0], name))
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class Alignment:
    """Systems' values paired by query.

    Parameters
    ----------
    metrics
        The compared metrics.
    query_ids
        The queries every system holds, in the first system's order.
    values
        Systems x metrics x queries (NaN where a value is undefined).
    excluded
        ``{system: queries}`` each system had that were left out (``missing="skip"``).
    notes
        What :func:`check_comparable` could not check (a setting recorded for one system
        only...), one sentence each.
    clusters
        Each query's cluster as a code ``0..G-1``, when the systems record clusters
        (:func:`aligned_clusters`); None otherwise.
    """

    metrics: list[str]
    query_ids: list[Any]
    values: np.ndarray
    excluded: dict[str, tuple[Any, ...]]
    notes: list[str]
    clusters: np.ndarray | None = None


def _chosen_metrics(
    named: Mapping[str, PerQueryResults], metrics: Iterable[str] | str | None
) -> list[str]:
    systems = list(named.values())
    if metrics is None:
        chosen = [m for m in systems[0].metric_names if all(m in s for s in systems)]
        if not chosen:
            raise InvalidInputError(
                "metrics: the systems share no metric ("
                + "; ".join(f"{n}: {list(s.metric_names)}" for n, s in named.items())
                + ")"
            )
        return chosen
    if isinstance(metrics, bytes) or not isinstance(metrics, str | Iterable):
        raise InputTypeError(
            f"metrics: expected a metric name or a list of names, got {type(metrics).__name__}"
        )
    chosen = [metrics] if isinstance(metrics, str) else list(metrics)
    for metric in chosen:
        if not isinstance(metric, str):
            raise InputTypeError(
                f"metrics: a metric name is a str, got {metric!r} ({type(metric).__name__})"
            )
    if not chosen:
        raise InvalidInputError("metrics: name at least one metric")
    for metric in chosen:
        for name, results in named.items():
            if metric not in results:
                raise InvalidInputError(
                    f"metrics: {metric!r} was not evaluated for {name} (it has "
                    f"{list(results.metric_names)})"
                )
    if len(set(chosen)) != len(chosen):
        raise InvalidInputError(f"metrics: {chosen} names a metric more than once")
    return chosen


def align(
    named: Mapping[str, PerQueryResults],
    metrics: Iterable[str] | str | None,
    missing: str,
    *,
    settings: Mapping[str, Mapping[str, Any]] | None = None,
) -> Alignment:
    """Pair the systems' values by query id.

    Parameters
    ----------
    named
        ``{system: per-query results}``; the first system's query order is kept.
    metrics
        The metrics (default: those every system has, in the first one's order).
    missing
        ``"raise"``: every system must hold the same queries (else
        :class:`UnpairedQueriesError`); ``"skip"``: keep the queries all of them hold.
    settings
        ``{system: settings}`` to check with :func:`check_comparable` (default: each
        result's manifest: its settings, metric definitions and judges).

    Returns
    -------
    Alignment
        The metrics, the paired queries, the values and what was left out.

    Raises
    ------
    InvalidInputError
        Values computed with different settings, a metric a system lacks, no shared query.
    UnpairedQueriesError
        Different query sets with ``missing="raise"``.
    """
    notes = check_comparable(settings if settings is not None else named)
    systems = list(named.values())
    chosen = _chosen_metrics(named, metrics)
    shared = set(systems[0].query_ids)
    for results in systems[1:]:
        shared &= set(results.query_ids)
    query_ids = [q for q in systems[0].query_ids if q in shared]
    excluded = {
        name: tuple(q for q in results.query_ids if q not in shared)
        for name, results in named.items()
    }
    excluded = {name: ids for name, ids in excluded.items() if ids}
    if excluded and missing == "raise":
        parts = []
        for name, ids in excluded.items():
            results = named[name]
            why = (
                f" (judged queries missing from its run: {len(results.missing_from_run)})"
                if results.missing_from_run
                else ""
            )
            shown = ", ".join(repr(q) for q in ids[:5]) + (", ..." if len(ids) > 5 else "")
            if len(named) == 2:
                parts.append(f"{len(ids)} queries only in {name}{why}: {shown}")
            else:
                parts.append(f"{len(ids)} queries only some systems have in {name}{why}: {shown}")
        typed = {str(q) for ids in excluded.values() for q in ids}
        hint = ""
        if len(typed) < sum(len(ids) for ids in excluded.values()):
            hint = " (the same ids as str in one system and int in another never pair)"
        raise UnpairedQueriesError(
            "; ".join(parts) + hint,
            "Evaluate every system on one query set (evaluate_trec(complete=True) scores "
            "judged queries a run missed), or pass missing='skip' to compare on the queries "
            "all of them have (the table says which were left out).",
        )
    if not query_ids:
        raise InvalidInputError("the systems share no query: there is nothing to pair")
    values = np.empty((len(systems), len(chosen), len(query_ids)))
    for s, results in enumerate(systems):
        # Paired by query id: each system's values in the first system's query order.
        in_order = list(results.query_ids) == query_ids
        selected = results if in_order else results.select(query_ids, chosen)
        for m, metric in enumerate(chosen):
            values[s, m] = selected.array(metric)
    return Alignment(chosen, query_ids, values, excluded, notes, aligned_clusters(named, query_ids))


def aligned_clusters(
    named: Mapping[str, PerQueryResults], query_ids: Sequence[Any]
) -> np.ndarray | None:
    """Each query's cluster as a code ``0..G-1`` (in order of first appearance), from the
    clusters the systems record; None when none records any.

    Raises
    ------
    InvalidInputError
        Two systems that put one query in different clusters, a query without a cluster
        where the systems record clusters.
    """
    merged: dict[Any, tuple[Any, str]] = {}
    for name, results in named.items():
        for query, cluster in (results.clusters or {}).items():
            first = merged.setdefault(query, (cluster, name))
            if first[0] != cluster:
                raise InvalidInputError(
                    f"clusters: {name} puts {query!r} in cluster {cluster!r}, {first[1]} in "
                    f"{first[0]!r}; give every system the same clusters"
                )
    if not merged:
        return None
    missing = [q for q in query_ids if q not in merged]
    if missing:
        shown = ", ".join(map(repr, missing[:5])) + (", ..." if len(missing) > 5 else "")
        raise InvalidInputError(
            f"clusters: the systems record clusters but not for {shown}; give every item its "
            "cluster"
        )
    codes: dict[Any, int] = {}
    return np.array([codes.setdefault(merged[q][0], len(codes)) for q in query_ids], np.intp)


def pair_indices(names: Sequence[str], baseline: str | None) -> list[tuple[int, int]]:
    """``(candidate, baseline)`` indices: every other system against the baseline, or every
    pair with the later system (in the order given) as the candidate."""
    if baseline is None:
        return [(b, a) for b in range(1, len(names)) for a in range(b)]
    base = names.index(baseline)
    return [(c, base) for c in range(len(names)) if c != base]


@dataclass(frozen=True)
class TestOutcome:
    """Every pair and metric of a campaign, tested: ``(n_pairs, n_metrics)`` arrays.

    Parameters
    ----------
    delta, candidate_mean, baseline_mean
        The mean difference and each system's mean over the queries both hold.
    sd
        The standard deviation of the differences (``ddof=1``).
    effect_size
        The test's standardised effect (Cohen's ``d_z`` unless the test gives its own).
    wins, ties, losses, n_pairs
        Counts of the differences.
    p_value
        The p-value of the options' alternative (NaN when undefined: below the test's
        ``min_pairs``, no variance for the t-test), below ``1e-16`` the bound ``1e-16``.
    p_value_adjusted
        The corrected p-values (NaN everywhere without a correction).
    statistic
        The test's statistic.
    ci_low, ci_high
        Two-sided intervals of the mean difference (NaN without).
    methods, method
        How each p-value was computed, and the campaign's method.
    n_examined
        Randomisations made.
    confidence_level
        The intervals' level (None: no interval).
    n_bootstrap
        Bootstrap resamples of the intervals (0: none bootstrapped).
    """

    __test__ = False  # not a pytest class

    delta: np.ndarray
    candidate_mean: np.ndarray
    baseline_mean: np.ndarray
    sd: np.ndarray
    effect_size: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    losses: np.ndarray
    n_pairs: np.ndarray
    p_value: np.ndarray
    p_value_adjusted: np.ndarray
    statistic: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    methods: np.ndarray
    method: str
    n_examined: int
    confidence_level: float | None
    n_bootstrap: int


def _summaries(
    values: np.ndarray, index: np.ndarray, n_queries: int
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Per pair and metric, whatever the test: counts, means, the mean difference, d_z."""
    n_pairs, n_metrics = index.shape[0], values.shape[1]
    shape = (n_pairs, n_metrics)
    keys = ("delta", "cand", "base", "size", "sd", "scale")
    stats = {key: np.full(shape, math.nan) for key in keys}
    counts = {key: np.zeros(shape, dtype=np.int64) for key in ("wins", "ties", "losses", "n")}
    for block in pair_blocks(n_pairs, n_metrics, n_queries):
        a = values[index[block, 0]]
        b = values[index[block, 1]]
        with np.errstate(invalid="ignore"):
            d = a - b
        both = ~np.isnan(d)
        counts["wins"][block] = (d > 0).sum(axis=2)
        counts["ties"][block] = (d == 0).sum(axis=2)
        counts["losses"][block] = (d < 0).sum(axis=2)
        counts["n"][block] = both.sum(axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            stats["cand"][block] = np.where(both, a, 0.0).sum(axis=2) / counts["n"][block]
            stats["base"][block] = np.where(both, b, 0.0).sum(axis=2) / counts["n"][block]
        scale = np.where(both, np.maximum(np.abs(a), np.abs(b)), 0.0)
        scale = scale.max(axis=2) if n_queries else scale.sum(axis=2)
        _n, mean, sd = row_moments(d.reshape(-1, n_queries))
        stats["delta"][block] = mean.reshape(-1, n_metrics)
        stats["sd"][block] = sd.reshape(-1, n_metrics)
        stats["size"][block] = effect_sizes(mean, sd, scale.ravel()).reshape(-1, n_metrics)
        stats["scale"][block] = scale
    return stats, counts


def run_tests(
    values: np.ndarray,
    pairs: Sequence[tuple[int, int]] | np.ndarray,
    options: ComparisonOptions,
    *,
    baseline: int | None = None,
    null_difference: Sequence[float] | np.ndarray | None = None,
    correct: bool = True,
    clusters: np.ndarray | None = None,
) -> TestOutcome:
    """Test every pair and metric of ``values`` with the options' test.

    Parameters
    ----------
    values
        Systems x metrics x queries, NaN where undefined (:func:`align`).
    pairs
        ``(candidate, baseline)`` system indices.
    options
        The test, alternative, levels, randomisations and correction.
    baseline
        The baseline's index when every pair tests against it (the Westfall-Young test needs
        it).
    null_difference
        Per metric, the mean difference under the null hypothesis (default 0): the
        candidates' values are shifted by it before testing (so the differences tested are
        ``candidate - baseline - delta_0``); the test must test paired differences (its
        declaration has one-sided alternatives) and no candidate may be a baseline too.
    correct
        Apply the options' correction (the gate corrects over its own checks instead).
    clusters
        Each query's cluster code (:attr:`Alignment.clusters`), for the tests that use them.

    Returns
    -------
    TestOutcome
        Every pair's and metric's summary, p-values, intervals.

    Raises
    ------
    InvalidInputError
        A shift with a test or pairs that cannot take one; what the test refuses.
    """
    spec = options.statistical_test
    index = np.asarray(pairs, dtype=np.intp).reshape(-1, 2)
    n_pairs, n_metrics, n_queries = index.shape[0], values.shape[1], values.shape[2]
    shape = (n_pairs, n_metrics)
    stats, counts = _summaries(values, index, n_queries)
    tested = values
    shift = None
    if null_difference is not None:
        shift = np.asarray(null_difference, dtype=np.float64).reshape(n_metrics)
        if not np.isfinite(shift).all():
            raise InvalidInputError("null_difference: every shift must be a finite number")
        if shift.any():
            if not spec.one_sided:
                raise InvalidInputError(
                    f"the {spec.name} test does not test shifted differences (a margin); use "
                    "a test of paired differences: "
                    + ", ".join(t.name for t in TESTS.values() if t.one_sided)
                )
            if set(index[:, 0]) & set(index[:, 1]):
                raise InvalidInputError(
                    "null_difference: a system is a candidate and a baseline; a shift needs "
                    "every pair against one baseline"
                )
            tested = values.copy()
            for candidate in set(index[:, 0].tolist()):
                tested[candidate] -= shift[:, None]
    level = options.confidence_level
    outcome = spec.run(
        CampaignInput(
            values=tested,
            pairs=index,
            baseline=baseline,
            n_pairs=counts["n"],
            delta=stats["delta"] - (0.0 if shift is None else shift[None, :]),
            confidence_level=level,
            method=options.method,
            n_resamples=options.n_resamples,
            seed=options.seed,
            n_threads=options.n_threads,
            alternative=options.alternative,
            clusters=clusters,
            null_difference=shift,
            sd=stats["sd"] if shift is None else None,
            scale=stats["scale"] if shift is None else None,
        )
    )
    enough = counts["n"] >= spec.min_pairs
    p = bound_p_values(np.where(enough, outcome.p_value, math.nan))
    methods = np.where(enough, outcome.methods, "")
    size = stats["size"] if outcome.effect_size is None else outcome.effect_size
    back = 0.0 if shift is None else shift[None, :]
    low = np.full(shape, math.nan) if outcome.ci_low is None else outcome.ci_low + back
    high = np.full(shape, math.nan) if outcome.ci_high is None else outcome.ci_high + back
    bootstrap_ci = (
        level is not None
        and options.n_bootstrap > 0
        and spec.interval == "bootstrap"
        and outcome.ci_low is None
    )
    if bootstrap_ci and level is not None:
        low, high, _, _ = _core.bootstrap_pairs(
            values,
            np.ascontiguousarray(index.astype(np.uint64)),
            n_resamples=options.n_bootstrap,
            seed=options.seed ^ BOOTSTRAP_STREAM,
            confidence_level=level,
            n_threads=options.n_threads,
        )
    confidence = level if outcome.ci_low is not None or bootstrap_ci else None
    adjusted = np.full(shape, math.nan)
    if spec.own_correction is not None:
        adjusted = p.copy()
    elif correct and options.correction is not None:
        if options.family == "all":
            adjusted = adjust_p_values(p, options.correction)  # type: ignore[arg-type]
        else:
            for m in range(n_metrics):
                adjusted[:, m] = adjust_p_values(p[:, m], options.correction)  # type: ignore[arg-type]
        adjusted = bound_p_values(adjusted)
    return TestOutcome(
        delta=stats["delta"],
        candidate_mean=stats["cand"],
        baseline_mean=stats["base"],
        sd=stats["sd"],
        effect_size=size,
        wins=counts["wins"],
        ties=counts["ties"],
        losses=counts["losses"],
        n_pairs=counts["n"],
        p_value=p,
        p_value_adjusted=adjusted,
        statistic=outcome.statistic,
        ci_low=low,
        ci_high=high,
        methods=methods,
        method=outcome.method,
        n_examined=int(outcome.n_examined),
        confidence_level=confidence,
        n_bootstrap=options.n_bootstrap if bootstrap_ci else 0,
    )
