"""Comparisons of systems on the same queries: two systems, many against a baseline, all pairs.

:func:`compare` tests a candidate against a baseline and :func:`compare_many` a whole campaign
(every system against one baseline, or every pair with ``baseline=None``), over several
metrics at once, with corrected p-values. Both read any per-query results
(:func:`~ragmeter.per_query.per_query_results`: TREC results, ``ranking_metrics(average=
None)``, a :class:`~ragmeter.RetrievalEvaluation`, the judges' results) and pair them by query
id: every system must hold the same queries (``missing="raise"``), or the comparison keeps the
queries all of them hold and says which it left out (``missing="skip"``). A query where a
metric is undefined for one of two systems (NaN) is left out of that pair and metric only.

Tests (``test=``): ``"sign-flip"`` (the paired randomisation test, exact up to 16 queries;
the default), ``"t"`` (the paired t-test, ranx's default), ``"wilcoxon"``, ``"bootstrap"``, and
``"tukey"`` (Tukey's HSD over all pairs, as ranx). Corrections (``correction=``): ``"holm"``,
``"bonferroni"``, ``"bh"`` (Benjamini-Hochberg) or None, over every test of the comparison
(``family="all"``) or per metric (``family="metric"``).

Results (:mod:`~ragmeter.stats.results`): :class:`Comparison` (two systems, metric by metric:
the mean difference, its confidence interval and effect size, wins/ties/losses, the p-value
and the adjusted p-value) and :class:`MultipleComparison` (the campaign: every pair's
:class:`Comparison` and the paper table as text, Markdown, LaTeX, CSV and JSON).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from .. import _core
from .._nan_equal import canonical
from ..exceptions import InputTypeError, InvalidInputError
from ..options import check_n_threads
from ..per_query import VALUE_SETTINGS, PerQueryResults, per_query_results
from ._arguments import check_level, check_seed, resample_count
from .multiple import CORRECTIONS, adjust_p_values, tukey_hsd
from .paired import (
    BOOTSTRAP_STREAM,
    EXACT_LIMIT,
    EXACT_MAX_PAIRS,
    t_rows,
    wilcoxon_one,
)
from .results import TESTS, Comparison, MetricComparison, MultipleComparison

__all__ = ["TESTS", "compare", "compare_evaluations", "compare_many"]

Test = Literal["sign-flip", "t", "wilcoxon", "bootstrap", "tukey"]
# ranx's names of the same tests.
_TEST_ALIASES = {"fisher": "sign-flip", "student": "t", "signflip": "sign-flip"}
Method = Literal["auto", "exact", "sampled"]
Missing = Literal["raise", "skip"]
Family = Literal["all", "metric"]


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


def _align(
    named: Mapping[str, PerQueryResults], metrics: Iterable[str] | str | None, missing: str
) -> tuple[list[str], list[Any], np.ndarray, dict[str, tuple[Any, ...]]]:
    """The metrics, the paired queries, the values (systems x metrics x queries) and the
    queries each system had that were left out."""
    if missing not in ("raise", "skip"):
        if missing == "zero":
            raise InvalidInputError(
                "missing: 'zero' scores a query a run did not rank as an empty ranking, which "
                "needs the judgments: evaluate the runs with missing='zero' (evaluate_trec("
                "complete=True), `ragmeter compare -c`) so that every run has every judged "
                "query, then compare them"
            )
        raise InvalidInputError(f"missing: must be 'raise' or 'skip', got {missing!r}")
    systems = list(named.values())
    names = list(named)
    first = systems[0]
    for name, results in named.items():
        for key in VALUE_SETTINGS:
            a, b = first.parameters.get(key), results.parameters.get(key)
            if a is not None and b is not None and canonical(a) != canonical(b):
                raise InvalidInputError(
                    f"the systems were evaluated with different {key} ({a!r} for {names[0]}, "
                    f"{b!r} for {name}), so their values do not mean the same thing; evaluate "
                    "them with the same setting"
                )
    if metrics is None:
        chosen = [m for m in first.metric_names if all(m in s for s in systems)]
        if not chosen:
            raise InvalidInputError(
                "metrics: the systems share no metric ("
                + "; ".join(f"{n}: {list(s.metric_names)}" for n, s in named.items())
                + ")"
            )
    else:
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
    shared = set(first.query_ids)
    for results in systems[1:]:
        shared &= set(results.query_ids)
    query_ids = [q for q in first.query_ids if q in shared]
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
            parts.append(f"{len(ids)} queries only some systems have in {name}{why}: {shown}")
        typed = {str(q) for ids in excluded.values() for q in ids}
        hint = ""
        if len(typed) < sum(len(ids) for ids in excluded.values()):
            hint = " (the same ids as str in one system and int in another never pair)"
        raise InvalidInputError(
            "a paired comparison needs every system evaluated on the same queries: "
            + "; ".join(parts)
            + hint
            + ". Evaluate every system on one query set (evaluate_trec(complete=True) scores "
            "judged queries a run missed), or pass missing='skip' to compare on the queries "
            "all of them have (the table says which were left out)."
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
    return chosen, query_ids, values, excluded


def _pairs(names: Sequence[str], baseline: str | None) -> list[tuple[int, int]]:
    """``(candidate, baseline)`` indices: every other system against the baseline, or every
    pair with the later system (in the order given) as the candidate."""
    if baseline is None:
        return [(b, a) for b in range(1, len(names)) for a in range(b)]
    base = names.index(baseline)
    return [(c, base) for c in range(len(names)) if c != base]


def _check_test(test: str) -> str:
    name = _TEST_ALIASES.get(test, test) if isinstance(test, str) else test
    if name not in TESTS:
        raise InvalidInputError(
            f"test: must be one of {', '.join(map(repr, TESTS))} (or ranx's 'student', "
            f"'fisher'), got {test!r}"
        )
    return str(name)


def _check_correction(correction: Any, test: str) -> str | None:
    if correction == "auto":
        return "tukey" if test == "tukey" else "holm"
    if test == "tukey":
        if correction not in (None, "none", "tukey"):
            raise InvalidInputError(
                f"correction: Tukey's HSD already adjusts its p-values over all pairs of each "
                f"metric; pass correction='auto' (or None) with test='tukey', got {correction!r}"
            )
        return "tukey"
    if correction in (None, "none"):
        return None
    aliases = {"fdr_bh": "bh", "benjamini-hochberg": "bh"}
    correction = aliases.get(correction, correction)
    if correction not in CORRECTIONS:
        raise InvalidInputError(
            f"correction: must be one of {', '.join(map(repr, CORRECTIONS))}, 'auto' or None, "
            f"got {correction!r}"
        )
    return str(correction)


def _pair_blocks(n_pairs: int, n_metrics: int, n_queries: int) -> Iterable[slice]:
    per_block = max(1, 2_000_000 // max(1, n_metrics * n_queries))
    for start in range(0, n_pairs, per_block):
        yield slice(start, min(n_pairs, start + per_block))


def compare_many(
    systems: Mapping[str, Any] | Sequence[Any],
    *,
    baseline: str | Any | None = None,
    metrics: Iterable[str] | str | None = None,
    test: Test | str = "sign-flip",
    correction: str | None = "auto",
    family: Family = "all",
    alpha: float = 0.05,
    method: Method = "auto",
    n_resamples: int = 9999,
    random_state: int | None = 0,
    confidence_level: float | None = 0.95,
    n_bootstrap: int = 9999,
    missing: Missing = "raise",
    n_threads: int | None = None,
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
        ``"sign-flip"`` (default; the paired randomisation test, exact up to 16 queries,
        ``n_resamples`` seeded sign vectors beyond, the same sign vectors for every pair and
        metric), ``"t"`` (paired t-test), ``"wilcoxon"`` (Wilcoxon signed-rank, as scipy),
        ``"bootstrap"`` (paired bootstrap test with ``n_resamples`` resamples), ``"tukey"``
        (Tukey's HSD over all pairs of each metric, as scipy and ranx: the queries are taken as
        independent samples, which is conservative for paired values).
    correction
        ``"auto"`` (default: ``"holm"``, or Tukey's own adjustment for ``test="tukey"``),
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
    n_threads
        Threads of the Rust core.

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
    if len(named) < 2:
        raise InvalidInputError(f"systems: a comparison needs at least 2 systems, got {len(named)}")
    baseline_name: str | None
    if baseline is None or isinstance(baseline, str):
        baseline_name = baseline
    else:
        # The baseline's results themselves: found among the systems as given.
        originals = list(systems.values()) if isinstance(systems, Mapping) else list(systems)
        matches = [n for n, r in zip(named, originals, strict=True) if r is baseline]
        if len(matches) != 1:
            raise InvalidInputError(
                "baseline: these results are not among the systems; pass the name of one"
            )
        baseline_name = matches[0]
    if baseline_name is not None and baseline_name not in named:
        raise InvalidInputError(
            f"baseline: {baseline_name!r} is not one of the systems {list(named)}"
        )
    test_name = _check_test(test)
    correction_name = _check_correction(correction, test_name)
    if family not in ("all", "metric"):
        raise InvalidInputError(f"family: must be 'all' or 'metric', got {family!r}")
    alpha = check_level("alpha", alpha)
    level = None if confidence_level is None else check_level("confidence_level", confidence_level)
    n_bootstrap = resample_count("n_bootstrap", n_bootstrap, allow_zero=True)
    resamples = resample_count("n_resamples", n_resamples)
    if method not in ("auto", "exact", "sampled"):
        raise InvalidInputError(f"method: must be 'auto', 'exact' or 'sampled', got {method!r}")
    threads = check_n_threads(n_threads)
    seed = check_seed(random_state)
    names = list(named)
    chosen, query_ids, values, excluded = _align(named, metrics, missing)
    pairs = _pairs(names, baseline_name)
    n_pairs, n_metrics, n_queries = len(pairs), len(chosen), len(query_ids)
    shape = (n_pairs, n_metrics)

    # Per pair and metric: counts, means, differences' moments, and the t-test's rows.
    stats: dict[str, np.ndarray] = {
        key: np.full(shape, math.nan)
        for key in ("delta", "cand", "base", "p", "low", "high", "size", "statistic")
    }
    counts = {key: np.zeros(shape, dtype=np.int64) for key in ("wins", "ties", "losses", "n")}
    methods = np.full(shape, "", dtype=object)
    index = np.array(pairs, dtype=np.intp)
    for block in _pair_blocks(n_pairs, n_metrics, n_queries):
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
        rows = d.reshape(-1, n_queries)
        t_level = level if test_name == "t" else None
        _n, mean, t, p, low, high, size = t_rows(rows, t_level)
        stats["delta"][block] = mean.reshape(-1, n_metrics)
        stats["size"][block] = size.reshape(-1, n_metrics)
        if test_name == "t":
            stats["p"][block] = p.reshape(-1, n_metrics)
            stats["statistic"][block] = t.reshape(-1, n_metrics)
            stats["low"][block] = low.reshape(-1, n_metrics)
            stats["high"][block] = high.reshape(-1, n_metrics)
            methods[block] = "t"
        elif test_name == "wilcoxon":
            outcomes = [wilcoxon_one(row[~np.isnan(row)]) for row in rows]
            stats["statistic"][block] = np.array([o[0] for o in outcomes]).reshape(-1, n_metrics)
            stats["p"][block] = np.array([o[1] for o in outcomes]).reshape(-1, n_metrics)
            methods[block] = np.array([o[2] for o in outcomes], dtype=object).reshape(-1, n_metrics)

    undefined = counts["n"] == 0
    pair_array = np.ascontiguousarray(np.array(pairs, dtype=np.uint64).reshape(-1, 2))
    n_examined = 0
    method_name = {"t": "t", "wilcoxon": "auto", "tukey": "tukey"}.get(test_name, "sampled")
    if test_name == "sign-flip":
        exact = method == "exact" or (method == "auto" and n_queries <= EXACT_MAX_PAIRS)
        if exact and n_queries > EXACT_LIMIT:
            raise InvalidInputError(
                f"method='exact' enumerates 2**n sign vectors and is limited to {EXACT_LIMIT} "
                f"queries, got {n_queries}; use method='sampled' or 'auto'"
            )
        p_values, _, n_examined = _core.sign_flip_pairs(
            values, pair_array, exact=exact, n_resamples=resamples, seed=seed, n_threads=threads
        )
        stats["p"] = np.where(undefined, math.nan, p_values)
        stats["statistic"] = stats["delta"].copy()
        method_name = "exact" if exact else "sampled"
        methods[:] = method_name
    elif test_name == "bootstrap":
        low, high, extreme, valid = _core.bootstrap_pairs(
            values,
            pair_array,
            n_resamples=resamples,
            seed=seed ^ BOOTSTRAP_STREAM,
            confidence_level=level if level is not None else 0.95,
            n_threads=threads,
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            stats["p"] = np.where(valid > 0, (extreme + 1.0) / (valid + 1.0), math.nan)
        if level is not None:
            stats["low"], stats["high"] = low, high
        stats["statistic"] = stats["delta"].copy()
        n_examined = resamples
        methods[:] = "sampled"
    elif test_name == "tukey":
        for m in range(n_metrics):
            result = tukey_hsd(list(values[:, m, :]), confidence_level=level or 0.95)
            for row, (a_index, b_index) in enumerate(pairs):
                stats["p"][row, m] = result.p_value[a_index, b_index]
                stats["statistic"][row, m] = result.statistic[a_index, b_index]
                if level is not None:
                    stats["low"][row, m] = result.ci_low[a_index, b_index]
                    stats["high"][row, m] = result.ci_high[a_index, b_index]
        methods[:] = "tukey"
    elif test_name == "wilcoxon":
        found = {str(x) for x in methods.ravel() if x not in ("", "none")}
        method_name = found.pop() if len(found) == 1 else "mixed"

    bootstrap_ci = level is not None and n_bootstrap > 0 and test_name in ("sign-flip", "wilcoxon")
    if bootstrap_ci and level is not None:
        low, high, _, _ = _core.bootstrap_pairs(
            values,
            pair_array,
            n_resamples=n_bootstrap,
            seed=seed ^ BOOTSTRAP_STREAM,
            confidence_level=level,
            n_threads=threads,
        )
        stats["low"], stats["high"] = low, high
    interval = test_name in ("t", "tukey", "bootstrap") or bootstrap_ci
    confidence = level if level is not None and interval else None

    adjusted = np.full(shape, math.nan)
    if correction_name == "tukey":
        adjusted = stats["p"].copy()
    elif correction_name is not None:
        if family == "all":
            adjusted = adjust_p_values(stats["p"], correction_name)  # type: ignore[arg-type]
        else:
            for m in range(n_metrics):
                adjusted[:, m] = adjust_p_values(stats["p"][:, m], correction_name)  # type: ignore[arg-type]

    results: dict[tuple[str, str], list[MetricComparison]] = {}
    for row, (a_index, b_index) in enumerate(pairs):
        items = []
        for m, metric in enumerate(chosen):

            def value(key: str, r: int = row, c: int = m) -> float:
                """One statistic of this pair and metric."""
                return float(stats[key][r, c])

            items.append(
                MetricComparison(
                    metric=metric,
                    delta=value("delta"),
                    wins=int(counts["wins"][row, m]),
                    ties=int(counts["ties"][row, m]),
                    losses=int(counts["losses"][row, m]),
                    p_value=value("p"),
                    n_pairs=int(counts["n"][row, m]),
                    candidate_mean=value("cand"),
                    baseline_mean=value("base"),
                    ci_low=value("low") if confidence is not None else None,
                    ci_high=value("high") if confidence is not None else None,
                    p_value_adjusted=None if correction_name is None else float(adjusted[row, m]),
                    statistic=value("statistic"),
                    effect_size=value("size"),
                    p_value_method=str(methods[row, m])
                    if methods[row, m] not in ("", "none")
                    else None,
                )
            )
        results[names[a_index], names[b_index]] = items
    failed = {
        name: {m: tuple(q for q in r.failed.get(m, ()) if q in set(query_ids)) for m in chosen}
        for name, r in named.items()
        if r.failed
    }
    failed = {n: {m: ids for m, ids in f.items() if ids} for n, f in failed.items()}
    failed = {n: f for n, f in failed.items() if f}
    return MultipleComparison(
        systems=names,
        baseline=baseline_name,
        metrics=chosen,
        query_ids=query_ids,
        values=values,
        results=results,
        test=test_name,
        method=method_name,
        correction=correction_name,
        family=family,
        alpha=alpha,
        confidence_level=confidence,
        n_resamples=int(n_examined),
        n_bootstrap=n_bootstrap if bootstrap_ci else 0,
        random_state=seed if test_name in ("sign-flip", "bootstrap") or bootstrap_ci else None,
        excluded=excluded,
        failed=failed,
    )


def compare(
    candidate: Any,
    baseline: Any,
    *,
    metrics: Iterable[str] | str | None = None,
    test: Test | str = "sign-flip",
    correction: str | None = None,
    alpha: float = 0.05,
    method: Method = "auto",
    n_resamples: int = 9999,
    random_state: int | None = 0,
    confidence_level: float | None = 0.95,
    n_bootstrap: int = 9999,
    missing: Missing = "raise",
    n_threads: int | None = None,
) -> Comparison:
    """Compare a candidate with a baseline on the same queries, paired by query id.

    ``candidate`` and ``baseline`` are any per-query results
    (:func:`~ragmeter.per_query_results`). For every metric (default: those both have, in the
    candidate's order) the per-query differences ``d_q = candidate_q - baseline_q`` give
    ``delta = mean(d)``, wins (``d > 0``), ties (``d == 0``) and losses (``d < 0``), Cohen's
    ``d_z``, the two-sided p-value of ``test`` (default: the paired sign-flip test, exact up
    to 16 queries, ``n_resamples`` seeded sign vectors beyond, the same sign vectors for every
    metric) and a confidence interval of ``delta`` at ``confidence_level`` (None or, for the
    bootstrap intervals, ``n_bootstrap=0`` skips it). Queries where a value is undefined (NaN)
    are left out of that metric.

    Parameters
    ----------
    candidate, baseline
        Per-query results of the two systems (named by their own names, else
        ``"candidate"`` and ``"baseline"``).
    metrics
        The metrics to compare (default: those both have).
    test
        ``"sign-flip"`` (default), ``"t"``, ``"wilcoxon"``, ``"bootstrap"`` or ``"tukey"``
        (see :func:`compare_many`).
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
    n_threads
        Threads of the Rust core.

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
    campaign = compare_many(
        {cand_name: cand, base_name: base},
        baseline=base_name,
        metrics=metrics,
        test=test,
        correction=correction,
        family="all",
        alpha=alpha,
        method=method,
        n_resamples=n_resamples,
        random_state=random_state,
        confidence_level=confidence_level,
        n_bootstrap=n_bootstrap,
        missing=missing,
        n_threads=n_threads,
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
