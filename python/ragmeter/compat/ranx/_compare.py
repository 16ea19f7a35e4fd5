"""ranx's ``compare`` (re-exported by :mod:`ragmeter.compat.ranx`): several runs evaluated on
the same judgments and every pair tested, by ragmeter's :func:`~ragmeter.compare_many`, shown
as ranx's :class:`~ragmeter.compat.ranx.data_structures.Report`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...exceptions import InputTypeError, InvalidInputError
from ...per_query import PerQueryResults
from ...stats import compare_many
from ...stats._arguments import SEED_LIMIT, check_level, positive_int, resample_count
from ._data import Run
from ._evaluate import metric_names, per_query_values, save_in_run
from .data_structures.report import STAT_TESTS, Report

__all__ = ["compare"]


def compare(
    qrels: Any,
    runs: Iterable[Any],
    metrics: str | Iterable[str],
    stat_test: str = "student",
    n_permutations: int = 1000,
    max_p: float = 0.01,
    random_seed: int = 42,
    threads: int = 0,
    rounding_digits: int = 3,
    show_percentages: bool = False,
    make_comparable: bool = False,
) -> Report:
    """ranx's ``compare``: evaluate every run as :func:`evaluate` does (ranx's metric names,
    an undefined value 0) and test every pair of runs on every metric.

    The tests are ragmeter's (:func:`~ragmeter.compare_many`, no correction but Tukey's own):
    ``"student"`` is the paired t-test (scipy's ``ttest_rel``, as ranx), ``"tukey"`` Tukey's
    HSD of independent groups (scipy's ``tukey_hsd``, as ranx) and ``"fisher"`` the paired
    randomisation (sign-flip) test: exact over every sign vector up to 16 queries, else
    ``n_permutations`` sign vectors drawn from ``random_seed`` with p = (count + 1) /
    (n_permutations + 1), where ranx always draws and takes count / n_permutations (so its
    p-values differ by the draws and can be 0).

    Parameters
    ----------
    qrels
        The judgments (a :class:`Qrels` or a dict).
    runs
        The runs (:class:`Run`, named by their ``name``, else ``run_1``, ``run_2``...; or
        dicts); each keeps its per-query scores, as ranx's ``evaluate`` keeps them.
    metrics
        One ranx metric name, or several.
    stat_test
        ``"student"`` (default), ``"fisher"`` or ``"tukey"``.
    n_permutations, random_seed
        The sign vectors of ``"fisher"`` and their seed.
    max_p
        The significance level of the report's marks.
    threads
        Threads of the core (0: all).
    rounding_digits, show_percentages
        How the report shows the scores.
    make_comparable
        Evaluate the judged queries only, a missing ranking being empty.

    Returns
    -------
    Report
        ranx's report; its ``multiple_comparison`` is ragmeter's result.

    Raises
    ------
    InvalidInputError
        Fewer than 2 runs, two runs with one name, an unknown ``stat_test``, a ``max_p``
        outside (0, 1), the errors of :func:`evaluate`.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}}
    >>> bm25 = Run({"q1": {"d1": 2.0, "d9": 1.0}, "q2": {"d9": 2.0, "d2": 1.0},
    ...             "q3": {"d9": 2.0, "d3": 1.0}}, name="bm25")
    >>> dense = Run({"q1": {"d1": 2.0}, "q2": {"d2": 2.0}, "q3": {"d9": 2.0, "d3": 1.0}},
    ...             name="dense")
    >>> report = compare(qrels, [bm25, dense], "mrr", max_p=0.05)
    >>> report.results["dense"]["mrr"], report.win_tie_loss["dense", "bm25"]["mrr"]
    (0.8333333333333334, {'W': 1, 'T': 2, 'L': 0})
    """
    if stat_test not in STAT_TESTS:
        raise InvalidInputError(
            f"stat_test: ranx's tests are {', '.join(map(repr, STAT_TESTS))}, got {stat_test!r} "
            "(ragmeter's other tests: ragmeter.compare_many(..., test=...))"
        )
    names = metric_names(metrics)
    check_level("max_p", max_p)
    resample_count("n_permutations", n_permutations)
    if positive_int("random_seed", random_seed, allow_zero=True) >= SEED_LIMIT:
        raise InvalidInputError(f"random_seed: must lie in [0, 2**63), got {random_seed!r}")
    positive_int("threads", threads, allow_zero=True)
    if isinstance(runs, str | bytes | Mapping | Run) or not isinstance(runs, Iterable):
        raise InputTypeError(f"runs: expected a list of runs, got {type(runs).__name__}")
    systems: dict[str, PerQueryResults] = {}
    for position, run in enumerate(runs):
        name = run.name if isinstance(run, Run) and run.name is not None else f"run_{position + 1}"
        if not isinstance(name, str) or not name:
            raise InvalidInputError(f"runs: run {position} is named {name!r}; name it with a str")
        if name in systems:
            raise InvalidInputError(
                f"runs: two runs are named {name!r}; give each its own name (run.name = ...)"
            )
        order, values = per_query_values(qrels, run, names, threads, make_comparable)
        if isinstance(run, Run):
            save_in_run(run, order, values, return_std=False)
        systems[name] = PerQueryResults(values, order, name=name)
    if len(systems) < 2:
        raise InvalidInputError(
            f"runs: compare tests pairs of runs, got {len(systems)} run(s); evaluate one run "
            "with evaluate"
        )
    test, correction, _ = STAT_TESTS[stat_test]
    comparison = compare_many(
        systems,
        metrics=names,
        test=test,
        correction=correction,
        alpha=max_p,
        n_resamples=n_permutations,
        random_state=random_seed,
        confidence_level=None,
        n_bootstrap=0,
        n_threads=threads or None,
    )
    return Report(comparison, rounding_digits=rounding_digits, show_percentages=show_percentages)
