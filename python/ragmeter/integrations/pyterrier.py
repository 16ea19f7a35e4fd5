"""PyTerrier: ragmeter's significance tests for ``pt.Experiment(test=...)``, and
``pt.Experiment(..., perquery=True)`` output as :class:`~ragmeter.PerQueryResults`.

``pt.Experiment(systems, topics, qrels, measures, baseline=0, test=fn)`` calls
``fn(system_values, baseline_values)`` with the per-query values of each system and of the
baseline, aligned by the baseline's queries, and reads the p-value at index 1. The callables
here are thin wrappers over :func:`ragmeter.compare`: the test is the one declared in
:data:`ragmeter.stats.TESTS`, with :func:`~ragmeter.compare`'s defaults, and a query whose value
is undefined (NaN: PyTerrier gives NaN to topics without judgments) is left out of the pair.

========================  =====================================================================
callable                  test
========================  =====================================================================
:data:`sign_flip`         two-sided paired sign-flip (randomisation) test: exact over every
                          sign vector up to 16 queries, 9,999 seeded sign vectors beyond (seed 0)
:data:`sign_flip_exact`   the same, exact (every sign vector; at most 24 queries)
:data:`sign_flip_sampled` the same, always 9,999 sampled sign vectors (seed 0)
:data:`t_test`            two-sided paired t-test (``scipy.stats.ttest_rel``'s, PyTerrier's
                          default ``test="t"``)
:data:`wilcoxon`          two-sided Wilcoxon signed-rank test (``scipy.stats.wilcoxon``'s,
                          PyTerrier's ``test="wilcoxon"``)
========================  =====================================================================

:meth:`PairedTest.with_options` makes another (``sign_flip.with_options(n_resamples=99_999,
random_state=7)``). Each returns a :class:`SignificanceOutcome`: ``(statistic, pvalue,
comparison)``, the statistic as the test defines it (the mean difference for the sign-flip
test, t, Wilcoxon's ``min(W+, W-)``) and the whole
:class:`~ragmeter.stats.MetricComparison` (without an interval: no bootstrap is drawn for
PyTerrier's column).

:func:`per_query_results` reads ``pt.Experiment(..., perquery=True)``'s table (``name``,
``qid``, ``measure``, ``value``) through :func:`ragmeter.io.per_item_values` into one
:class:`~ragmeter.PerQueryResults` per system, for :func:`~ragmeter.compare_many`, the report
and the gate.

Example::

    import pyterrier as pt
    from ragmeter.integrations import ir_measures, pyterrier as rm_pt

    ir_measures.install()                 # optional: the measures computed by ragmeter
    pt.Experiment([bm25, dense], topics, qrels, ["map", "ndcg_cut_10"],
                  baseline=0, test=rm_pt.sign_flip)
    table = pt.Experiment([bm25, dense], topics, qrels, ["map"], names=["bm25", "dense"],
                          perquery=True)
    ragmeter.compare_many(rm_pt.per_query_results(table), baseline="bm25")
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from ..exceptions import InputTypeError, InvalidInputError
from ..io import Records, per_item_values
from ..manifest import Manifest
from ..per_query import PerQueryResults
from ..stats import MetricComparison, compare
from ..stats.registry import find_test

__all__ = [
    "PRODUCER",
    "PairedTest",
    "SignificanceOutcome",
    "per_query_results",
    "sign_flip",
    "sign_flip_exact",
    "sign_flip_sampled",
    "t_test",
    "wilcoxon",
]

#: What the manifest of values read from ``pt.Experiment`` calls their producer.
PRODUCER = "pyterrier.Experiment"
_METRIC = "value"


class SignificanceOutcome(NamedTuple):
    """What a test callable returns (PyTerrier reads ``[1]``, the p-value, as from scipy)."""

    statistic: float
    pvalue: float
    comparison: MetricComparison


@dataclass(frozen=True)
class PairedTest:
    """A paired test of :data:`ragmeter.stats.TESTS` as a PyTerrier test callable.

    Parameters
    ----------
    test
        The test's name (or alias): ``"sign-flip"``, ``"t"``, ``"wilcoxon"``, ``"bootstrap"``.
    options
        Options of :func:`ragmeter.compare` (``method``, ``n_resamples``, ``random_state``,
        ``n_threads``); every other is ``compare``'s default, and no interval is drawn.

    Examples
    --------
    >>> result = t_test([0.5, 0.75, 1.0, 0.25], [0.25, 0.5, 0.5, 0.25])
    >>> round(result.statistic, 6), round(result.pvalue, 6)
    (2.44949, 0.091721)
    >>> sign_flip([0.5, 0.75, 1.0, 0.25], [0.25, 0.5, 0.5, 0.25]).pvalue
    0.25
    """

    test: str
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Check the test's name and options once."""
        object.__setattr__(self, "test", find_test(self.test).name)
        allowed = {"method", "n_resamples", "random_state", "n_threads"}
        unknown = sorted(set(self.options) - allowed)
        if unknown:
            raise InvalidInputError(
                f"options: {unknown} are not options of a PyTerrier test; give {sorted(allowed)}"
            )

    def with_options(self, **options: Any) -> PairedTest:
        """The same test with other options.

        Parameters
        ----------
        options
            ``method``, ``n_resamples``, ``random_state``, ``n_threads`` (see
            :func:`ragmeter.compare`).

        Returns
        -------
        PairedTest
            The new callable.
        """
        return replace(self, options={**self.options, **options})

    def __call__(self, system: Any, baseline: Any) -> SignificanceOutcome:
        """Test ``system`` against ``baseline`` (per-query values aligned by query).

        Parameters
        ----------
        system, baseline
            Per-query values of one measure, aligned (NaN: undefined, left out of the pair).

        Returns
        -------
        SignificanceOutcome
            The statistic, the two-sided p-value and the comparison.

        Raises
        ------
        InvalidInputError
            Arrays of different lengths, not one-dimensional, or holding an infinite value.
        """
        ours = _column(system, "system")
        theirs = _column(baseline, "baseline")
        if ours.shape != theirs.shape:
            raise InvalidInputError(
                f"system and baseline: per-query values aligned by query, got {ours.size} and "
                f"{theirs.size} values"
            )
        ids = list(range(ours.size))
        comparison = compare(
            PerQueryResults({_METRIC: ours}, ids, name="system"),
            PerQueryResults({_METRIC: theirs}, ids, name="baseline"),
            test=self.test,
            confidence_level=None,
            n_bootstrap=0,
            **self.options,
        )
        item = comparison[_METRIC]
        statistic = math.nan if item.statistic is None else float(item.statistic)
        return SignificanceOutcome(statistic, float(item.p_value), item)


def _column(values: Any, argument: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidInputError(
            f"{argument}: expected per-query numbers, got {type(values).__name__}"
        ) from None
    if array.ndim != 1:
        raise InvalidInputError(f"{argument}: expected one value per query, got {array.shape}")
    return array


#: The sign-flip test with compare's defaults (exact up to 16 queries, sampled beyond).
sign_flip = PairedTest("sign-flip")
#: The exact sign-flip test (every sign vector; at most 24 queries).
sign_flip_exact = PairedTest("sign-flip", {"method": "exact"})
#: The sampled sign-flip test (9,999 seeded sign vectors).
sign_flip_sampled = PairedTest("sign-flip", {"method": "sampled"})
#: The paired t-test (scipy.stats.ttest_rel's).
t_test = PairedTest("t")
#: The Wilcoxon signed-rank test (scipy.stats.wilcoxon's defaults).
wilcoxon = PairedTest("wilcoxon")


def per_query_results(
    table: Any, *, names: Sequence[str] | None = None
) -> dict[str, PerQueryResults]:
    """``pt.Experiment(..., perquery=True)``'s table as one :class:`~ragmeter.PerQueryResults`
    per system.

    Parameters
    ----------
    table
        The DataFrame (columns ``name``, ``qid``, ``measure``, ``value``, one row per system,
        query and measure), or its records.
    names
        The systems to read, in this order (default: every system, in the table's order).

    Returns
    -------
    dict
        ``{system name: PerQueryResults}``; NaN values (topics without judgments) are
        undefined; each manifest records the producer ``"pyterrier.Experiment"`` and the
        measures' definitions read from their names, and no setting (PyTerrier's table does
        not say which provider computed them).

    Raises
    ------
    InvalidInputError
        A table without those columns, a query given twice for one system and measure, a
        value that is not a number, an unknown system.

    Examples
    --------
    >>> rows = [{"name": "bm25", "qid": "1", "measure": "AP", "value": 0.5},
    ...         {"name": "bm25", "qid": "2", "measure": "AP", "value": 0.25}]
    >>> per_query_results(rows)["bm25"]["AP"]
    {'1': 0.5, '2': 0.25}
    """
    records = _records(table)
    present = list(dict.fromkeys(row["system"] for row in records.rows))
    chosen = present if names is None else list(names)
    results = {}
    for name in chosen:
        values = per_item_values(records, "pt.Experiment's table", system=name)
        manifest = Manifest.unrecorded(PRODUCER, values.metric_names)
        results[name] = values.with_manifest(manifest).renamed(name)
    return results


def _records(table: Any) -> Records:
    to_dict = getattr(table, "to_dict", None)
    if callable(to_dict):
        rows = to_dict("records")
    elif isinstance(table, Sequence) and not isinstance(table, str | bytes):
        rows = list(table)
    else:
        raise InputTypeError(
            f"table: expected pt.Experiment(..., perquery=True)'s DataFrame, got "
            f"{type(table).__name__}"
        )
    converted, where = [], []
    for number, row in enumerate(rows, 1):
        location = f"pt.Experiment's table: row {number}"
        if not isinstance(row, dict) or not {"name", "qid", "measure", "value"} <= set(row):
            got = sorted(row) if isinstance(row, dict) else repr(row)
            raise InvalidInputError(
                f"{location}: expected the columns name, qid, measure and value of "
                f"pt.Experiment(..., perquery=True), got {got}"
            )
        value = row["value"]
        converted.append(
            {
                "system": str(row["name"]),
                "query_id": row["qid"],
                "metric": str(row["measure"]),
                "value": float(value) if isinstance(value, np.floating | np.integer) else value,
            }
        )
        where.append(location)
    if not converted:
        raise InvalidInputError("table: pt.Experiment's table holds no row")
    return Records(converted, where, table=True, text=False)
