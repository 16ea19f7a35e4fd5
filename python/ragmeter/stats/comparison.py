"""Comparisons of systems on the same queries: two systems, many against a baseline, all pairs.

:func:`compare` tests a candidate against a baseline and :func:`compare_many` a whole campaign
(every system against one baseline, or every pair with ``baseline=None``), over several
metrics at once, with corrected p-values. Both read any per-query results
(:func:`~ragmeter.per_query.per_query_results`: TREC results, ``ranking_metrics(average=
None)``, a :class:`~ragmeter.RetrievalEvaluation`, the judges' results) and pair them by query
id: every system must hold the same queries (``missing="raise"``), or the comparison keeps the
queries all of them hold and says which it left out (``missing="skip"``). A query where a
metric is undefined for one of two systems (NaN) is left out of that pair and metric only.

Tests (``test=``, declared once in :data:`~ragmeter.stats.registry.TESTS`): ``"sign-flip"``
(the paired randomisation test, exact up to 16 queries; the default), ``"t"`` (the paired
t-test, ranx's default), ``"wilcoxon"``, ``"bootstrap"``, each two-sided or one-sided
(``alternative=``, as scipy's); ``"tukey"`` (Tukey's HSD on the residual of the two-way ANOVA:
paired by query, Carterette 2012, Sakai 2018), ``"tukey-oneway"`` (the one-way Tukey HSD of
independent groups, as scipy.stats.tukey_hsd and ranx's ``"tukey"``), ``"randomised-tukey"``
and ``"westfall-young"``. The options are validated once by
:class:`~ragmeter.stats.options.ComparisonOptions`, and the tests run through the engine
(:mod:`~ragmeter.stats.engine`). Corrections (``correction=``): ``"holm"``, ``"bonferroni"``,
``"bh"`` (Benjamini-Hochberg) or None, over every test of the comparison (``family="all"``) or
per metric (``family="metric"``).

Results (:mod:`~ragmeter.stats.results`): :class:`Comparison` (two systems, metric by metric:
the mean difference, its confidence interval and effect size, wins/ties/losses, the p-value
and the adjusted p-value) and :class:`MultipleComparison` (the campaign: every pair's
:class:`Comparison` and the paper table as text, Markdown, LaTeX, CSV and JSON).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields, replace
from typing import Any, Literal

import numpy as np

from .._nan_equal import canonical
from ..exceptions import InputTypeError, InvalidInputError
from ..io import read_clusters
from ..per_query import PerQueryResults, per_query_results
from .engine import UnpairedQueriesError, align, pair_indices, run_tests
from .options import ComparisonOptions
from .registry import TESTS
from .results import Comparison, MultipleComparison
from .results.pairs import PairTable

__all__ = [
    "TESTS",
    "ComparisonOptions",
    "UnpairedQueriesError",
    "compare",
    "compare_evaluations",
    "compare_many",
]

Test = Literal[
    "sign-flip",
    "t",
    "wilcoxon",
    "bootstrap",
    "tukey",
    "tukey-oneway",
    "randomised-tukey",
    "westfall-young",
]
Method = Literal["auto", "exact", "sampled"]
Missing = Literal["raise", "skip"]
Family = Literal["all", "metric"]
Alternative = Literal["two-sided", "greater", "less"]
#: The defaults of the options (the keywords of compare_many that ComparisonOptions holds).
_DEFAULTS = {f.name: f.default for f in fields(ComparisonOptions)}


# -- computing comparisons --------------------------------------------------------------------


def _named_systems(systems: Any) -> dict[str, PerQueryResults]:
    """``{name: PerQueryResults}`` from a mapping or a sequence of named results."""
    if isinstance(systems, Mapping):
        named = {}
        for name, results in systems.items():
            if not isinstance(name, str) or not name:
                raise InvalidInputError(f"systems: names must be non-empty strings, got {name!r}")
            named[name] = per_query_results(results, name)
        return named
    if isinstance(systems, str | bytes) or not isinstance(systems, Iterable):
        raise InputTypeError(
            f"systems: expected {{name: results}} or a sequence of named results, got "
            f"{type(systems).__name__}"
        )
    named = {}
    for position, results in enumerate(systems):
        converted = per_query_results(results)
        if not converted.name:
            raise InvalidInputError(
                f"systems: item {position} has no name; pass {{name: results}} (or name the "
                "results: evaluate_retrieval(..., name=...), PerQueryResults(..., name=...))"
            )
        if converted.name in named:
            raise InvalidInputError(f"systems: the name {converted.name!r} is used twice")
        named[converted.name] = converted
    return named


def _options(options: Any, keywords: Mapping[str, Any]) -> ComparisonOptions:
    """The comparison's options: ``options`` when given (then no keyword may differ from its
    default, so that nothing passed is silently ignored), else built from the keywords."""
    if options is None:
        return ComparisonOptions(**keywords)
    if not isinstance(options, ComparisonOptions):
        raise InputTypeError(f"options: expected a ComparisonOptions, got {type(options).__name__}")
    given = sorted(k for k, v in keywords.items() if canonical(v) != canonical(_DEFAULTS[k]))
    if given:
        raise InvalidInputError(
            f"options: pass the options either in options= or as keywords, not both (also "
            f"given: {', '.join(given)}); use dataclasses.replace(options, ...) to change one"
        )
    return options


def compare_many(
    systems: Mapping[str, Any] | Sequence[Any],
    *,
    baseline: str | Any | None = None,
    metrics: Iterable[str] | str | None = None,
    test: Test | str | None = None,
    correction: str | None = "auto",
    family: Family = "all",
    alpha: float = 0.05,
    method: Method = "auto",
    n_resamples: int = 9999,
    random_state: int | None = 0,
    confidence_level: float | None = 0.95,
    n_bootstrap: int = 9999,
    missing: Missing = "raise",
    margin: float = 0.0,
    n_threads: int | None = None,
    alternative: Alternative = "two-sided",
    options: ComparisonOptions | None = None,
    clusters: Mapping[Any, Any] | str | os.PathLike[str] | None = None,
) -> MultipleComparison:
    """Compare several systems on the same queries, over several metrics at once.

    Parameters
    ----------
    systems
        ``{name: results}``, or a sequence of named results (a named
        :class:`~ragmeter.RetrievalEvaluation` or :class:`~ragmeter.PerQueryResults`).
        ``results`` is anything :func:`~ragmeter.per_query_results` reads: per-query TREC
        results, ``ranking_metrics(average=None)``, an evaluation, the judges' results.
        The order of the systems is the order of the table (and of its labels).
    baseline
        The name of one system (or the results of one): every other system is compared with
        it. None (the default): every pair is compared.
    metrics
        The metrics to compare (default: those every system has, in the first one's order).
    test
        None (default): ``"cluster-t"`` when ``clusters`` is given, else ``"sign-flip"``.
        ``"sign-flip"`` (the paired randomisation test, exact up to 16 queries,
        ``n_resamples`` seeded sign vectors beyond, the same sign vectors for every pair and
        metric), ``"t"`` (paired t-test), ``"wilcoxon"`` (Wilcoxon signed-rank, as scipy),
        ``"bootstrap"`` (paired bootstrap test with ``n_resamples`` resamples, at least 20
        queries), ``"tukey"`` (aliases ``"tukey-paired"``, ``"tukey-twoway"``: Tukey's HSD over
        all pairs of each metric on the residual of the two-way ANOVA of queries x systems,
        so paired by query; Carterette 2012, Sakai 2018), ``"tukey-oneway"`` (Tukey's HSD
        over all pairs as scipy.stats.tukey_hsd and ranx's ``"tukey"`` compute it: the queries
        taken as independent samples, which is conservative for paired values),
        ``"randomised-tukey"``, ``"westfall-young"``; any test of
        :data:`~ragmeter.stats.TESTS` or its alias.
    correction
        ``"auto"`` (default: ``"holm"``, or the test's own adjustment for the Tukey tests and
        Westfall-Young's),
        ``"holm"``, ``"bonferroni"``, ``"bh"`` (Benjamini-Hochberg) or None.
    family
        What the correction adjusts over: ``"all"`` (default: every pair and metric of the
        comparison) or ``"metric"`` (the pairs of each metric separately).
    alpha
        The significance level of the marks in the tables and of
        :meth:`MetricComparison.significant`.
    method, n_resamples, random_state
        The sign-flip test's ``method`` (``"auto"``, ``"exact"``, ``"sampled"``), the sign
        vectors (or the bootstrap test's resamples) and the seed (None: fresh entropy,
        recorded in the result). The same seed gives the same p-values on any machine and
        for any ``n_threads``.
    confidence_level, n_bootstrap
        Level of the confidence intervals of the mean differences (None: none). The t-test
        gives t intervals and Tukey's test simultaneous ones; the others bootstrap
        percentile intervals from ``n_bootstrap`` resamples (0: none); the bootstrap test
        uses its own resamples.
    missing
        ``"raise"`` (default): every system must hold the same queries; ``"skip"``: compare
        on the queries every system holds, and list the others in ``excluded`` and in the
        tables' notes.
    margin
        The smallest difference that matters (:class:`ComparisonOptions`).
    n_threads
        Threads of the Rust core.
    alternative
        ``"two-sided"`` (default), ``"greater"`` (each candidate better than its baseline:
        the later system of a pair, or every system against ``baseline``) or ``"less"``, for
        the tests of paired differences (sign-flip, t, Wilcoxon, bootstrap); intervals stay
        two-sided.
    options
        All of the above but ``metrics`` and ``clusters`` in one :class:`ComparisonOptions`
        (then pass none of them as keywords).
    clusters
        Each query's cluster (several questions about one passage, document or
        conversation): a mapping ``{query_id: cluster}`` or the path of a file with
        ``query_id`` and ``cluster`` columns (:func:`ragmeter.io.read_clusters`). They are
        attached to every system's values (:meth:`PerQueryResults.with_clusters`): every
        query of every system needs one, and a system whose values record other clusters
        is refused. The test then defaults to ``"cluster-t"`` (the cluster-robust paired
        t-test), the queries must be in at least 2 clusters, and the result reports the
        design effect of every pair (:meth:`MultipleComparison.design_effects`, and the
        tables' notes). Without it, the clusters the values record (a table's ``cluster``
        column) are used the same way by ``test="cluster-t"``, and noted by the others.

    Returns
    -------
    MultipleComparison
        Every pair's comparison, the paper table in several formats, reports.

    Raises
    ------
    InvalidInputError
        Fewer than 2 systems, an unknown baseline, test or correction, systems without a
        metric or query in common, different query sets (``missing="raise"``), systems
        evaluated with different settings, bad test parameters.
    InputTypeError
        Results of a type ragmeter cannot read.
    RagmeterError
        ``clusters``: a query without a cluster, a cluster that differs from the one the
        values record, all compared queries in one cluster, a file that cannot be read.

    Examples
    --------
    >>> a = {"map": {"q1": 0.5, "q2": 0.25, "q3": 0.75}}
    >>> b = {"map": {"q1": 0.25, "q2": 0.25, "q3": 0.5}}
    >>> result = compare_many({"bm25": b, "dense": a}, test="t")
    >>> item = result["dense", "bm25"]["map"]
    >>> round(item.delta, 4), item.wins, item.ties, item.losses, round(item.p_value, 4)
    (0.1667, 2, 1, 0, 0.1835)
    """
    named = _named_systems(systems)
    if clusters is not None:
        given = read_clusters(clusters)
        named = {name: r.with_clusters(given) for name, r in named.items()}
    if test is None:
        test = "cluster-t" if clusters is not None and options is None else str(_DEFAULTS["test"])
    if len(named) < 2:
        raise InvalidInputError(f"systems: a comparison needs at least 2 systems, got {len(named)}")
    if baseline is not None and not isinstance(baseline, str):
        # The baseline's results themselves: found among the systems as given.
        originals = list(systems.values()) if isinstance(systems, Mapping) else list(systems)
        matches = [n for n, r in zip(named, originals, strict=True) if r is baseline]
        if len(matches) != 1:
            raise InvalidInputError(
                "baseline: these results are not among the systems; pass the name of one"
            )
        baseline = matches[0]
    keywords: dict[str, Any] = {
        "test": test,
        "correction": correction,
        "family": family,
        "alpha": alpha,
        "confidence_level": confidence_level,
        "method": method,
        "n_resamples": n_resamples,
        "n_bootstrap": n_bootstrap,
        "random_state": random_state,
        "baseline": baseline,
        "margin": margin,
        "missing": missing,
        "n_threads": n_threads,
        "alternative": alternative,
    }
    options = _options(options, keywords)
    baseline_name = options.baseline
    if baseline_name is not None and baseline_name not in named:
        raise InvalidInputError(
            f"baseline: {baseline_name!r} is not one of the systems {list(named)}"
        )
    spec = options.statistical_test
    names = list(named)
    aligned = align(named, metrics, options.missing)
    chosen, query_ids, values = aligned.metrics, aligned.query_ids, aligned.values
    checked = clusters is not None or spec.requires_clusters
    if checked and aligned.clusters is not None and len(set(aligned.clusters.tolist())) < 2:
        raise InvalidInputError(
            f"clusters: all {len(query_ids)} compared queries are in one cluster; "
            "cluster-robust statistics need at least 2 clusters (about 20 or more for the "
            "t approximation): give each query its passage, document or conversation"
        )
    pairs = pair_indices(names, baseline_name)
    outcome = run_tests(
        values,
        pairs,
        options,
        baseline=None if baseline_name is None else names.index(baseline_name),
        clusters=aligned.clusters,
    )
    confidence = outcome.confidence_level
    correction_name = options.correction
    # Every pair's statistics stay arrays (no Python object per pair and metric): what is
    # undefined by the settings (no interval, no correction) is NaN, read back as None.
    undefined = np.full(outcome.delta.shape, math.nan)
    table = PairTable(
        names,
        chosen,
        np.asarray(pairs, dtype=np.int64).reshape(-1, 2),
        {
            "delta": outcome.delta,
            "p_value": outcome.p_value,
            "candidate_mean": outcome.candidate_mean,
            "baseline_mean": outcome.baseline_mean,
            "ci_low": outcome.ci_low if confidence is not None else undefined,
            "ci_high": outcome.ci_high if confidence is not None else undefined,
            "p_value_adjusted": undefined if correction_name is None else outcome.p_value_adjusted,
            "statistic": outcome.statistic,
            "effect_size": outcome.effect_size,
            "wins": outcome.wins,
            "ties": outcome.ties,
            "losses": outcome.losses,
            "n_pairs": outcome.n_pairs,
        },
        outcome.methods,
    )
    failed = {
        name: {m: tuple(q for q in r.failed.get(m, ()) if q in set(query_ids)) for m in chosen}
        for name, r in named.items()
        if r.failed
    }
    failed = {n: {m: ids for m, ids in f.items() if ids} for n, f in failed.items()}
    failed = {n: f for n, f in failed.items() if f}
    campaign = MultipleComparison(
        systems=names,
        baseline=baseline_name,
        metrics=chosen,
        query_ids=query_ids,
        values=values,
        results=table,
        test=spec.name,
        method=outcome.method,
        correction=correction_name,
        family=options.family,
        alpha=options.alpha,
        confidence_level=confidence,
        n_resamples=outcome.n_examined,
        n_bootstrap=outcome.n_bootstrap,
        random_state=options.seed if spec.resampled or outcome.n_bootstrap else None,
        excluded=aligned.excluded,
        failed=failed,
        options=options,
    )
    campaign.comparability = tuple(aligned.notes)
    if aligned.clusters is not None:
        by_query = {q: c for r in named.values() for q, c in (r.clusters or {}).items()}
        campaign.clusters = tuple(by_query[q] for q in query_ids)
    campaign.manifests = {name: r.manifest for name, r in named.items()}
    return campaign


def compare(
    candidate: Any,
    baseline: Any,
    *,
    metrics: Iterable[str] | str | None = None,
    test: Test | str | None = None,
    correction: str | None = None,
    alpha: float = 0.05,
    method: Method = "auto",
    n_resamples: int = 9999,
    random_state: int | None = 0,
    confidence_level: float | None = 0.95,
    n_bootstrap: int = 9999,
    missing: Missing = "raise",
    margin: float = 0.0,
    n_threads: int | None = None,
    alternative: Alternative = "two-sided",
    options: ComparisonOptions | None = None,
    clusters: Mapping[Any, Any] | str | os.PathLike[str] | None = None,
) -> Comparison:
    """Compare a candidate with a baseline on the same queries, paired by query id.

    ``candidate`` and ``baseline`` are any per-query results
    (:func:`~ragmeter.per_query_results`). For every metric (default: those both have, in the
    candidate's order) the per-query differences ``d_q = candidate_q - baseline_q`` give
    ``delta = mean(d)``, wins (``d > 0``), ties (``d == 0``) and losses (``d < 0``), Cohen's
    ``d_z``, the p-value of ``test`` under ``alternative`` (default: the two-sided paired
    sign-flip test, exact up to 16 queries, ``n_resamples`` seeded sign vectors beyond, the
    same sign vectors for every metric) and a confidence interval of ``delta`` at
    ``confidence_level`` (None or, for the bootstrap intervals, ``n_bootstrap=0`` skips it).
    Queries where a value is undefined (NaN) are left out of that metric.

    Parameters
    ----------
    candidate, baseline
        Per-query results of the two systems (named by their own names, else
        ``"candidate"`` and ``"baseline"``).
    metrics
        The metrics to compare (default: those both have).
    test
        ``"sign-flip"`` (default), ``"t"``, ``"wilcoxon"``, ``"bootstrap"``, ``"tukey"``,
        ``"tukey-oneway"``, ... (see :func:`compare_many`).
    correction
        Adjusts the p-values over the metrics: None (default: one comparison), ``"holm"``,
        ``"bonferroni"`` or ``"bh"``.
    alpha
        The significance level of :meth:`MetricComparison.significant` and the tables.
    method, n_resamples, random_state
        The sign-flip test's method, sign vectors (or the bootstrap test's resamples) and seed.
    confidence_level, n_bootstrap
        The intervals' level (None: none) and the bootstrap resamples of the percentile
        intervals (0: none).
    missing
        ``"raise"`` (default) or ``"skip"`` (see :func:`compare_many`).
    margin
        The smallest difference that matters (:class:`ComparisonOptions`).
    n_threads
        Threads of the Rust core.
    alternative
        ``"two-sided"`` (default), ``"greater"`` (the candidate is better) or ``"less"``.
    options
        The options in one :class:`ComparisonOptions` (then pass none of the above as
        keywords; its ``baseline`` is replaced by this baseline's name).
    clusters
        Each query's cluster, ``{query_id: cluster}`` or a file (see :func:`compare_many`):
        the test defaults to ``"cluster-t"`` and the table notes the design effects
        (:meth:`Comparison.design_effects`).

    Returns
    -------
    Comparison
        One :class:`MetricComparison` per metric and the per-query differences.

    Raises
    ------
    InvalidInputError
        Different query sets (``missing="raise"``), values computed with different
        ``relevance_threshold`` or ``zero_division``, a metric one of them lacks, bad
        parameters.

    Examples
    --------
    >>> cand = {"mrr": {"a": 1.0, "b": 0.5, "c": 1.0}}
    >>> base = {"mrr": {"a": 0.5, "b": 0.5, "c": 0.75}}
    >>> result = compare(cand, base)
    >>> m = result["mrr"]
    >>> m.delta, (m.wins, m.ties, m.losses), m.p_value, result.method
    (0.25, (2, 1, 0), 0.5, 'exact')
    """
    cand = per_query_results(candidate)
    base = per_query_results(baseline)
    if test is None:
        test = "cluster-t" if clusters is not None and options is None else str(_DEFAULTS["test"])
    cand_name = cand.name or "candidate"
    base_name = base.name or "baseline"
    if cand_name == base_name:
        cand_name, base_name = f"{cand_name} (candidate)", f"{base_name} (baseline)"
    if metrics is None:
        metrics = [m for m in cand.metric_names if m in base]
        if not metrics:
            raise InvalidInputError(
                f"the results share no metric (candidate {list(cand.metric_names)}, "
                f"baseline {list(base.metric_names)})"
            )
    keywords: dict[str, Any] = {
        "test": test,
        "correction": correction,
        "family": "all",
        "alpha": alpha,
        "confidence_level": confidence_level,
        "method": method,
        "n_resamples": n_resamples,
        "n_bootstrap": n_bootstrap,
        "random_state": random_state,
        "baseline": None,
        "margin": margin,
        "missing": missing,
        "n_threads": n_threads,
        "alternative": alternative,
    }
    if options is None:
        # compare's own default: no correction over its metrics.
        keywords["baseline"] = base_name
        chosen = ComparisonOptions(**keywords)
    else:
        chosen = replace(
            _options(
                options, {**keywords, "correction": "auto" if correction is None else correction}
            ),
            baseline=base_name,
        )
    campaign = compare_many(
        {cand_name: cand, base_name: base}, metrics=metrics, options=chosen, clusters=clusters
    )
    return campaign[cand_name]


def compare_evaluations(candidate: Any, baseline: Any, **options: Any) -> Comparison:
    """Another name of :func:`compare` (kept for code written before it accepted any
    per-query results).

    Parameters
    ----------
    candidate, baseline
        Per-query results of the two systems.
    options
        The options of :func:`compare`.

    Returns
    -------
    Comparison
        What :func:`compare` returns.
    """
    return compare(candidate, baseline, **options)
