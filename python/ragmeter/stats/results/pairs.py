"""The compared pairs of a :class:`~ragmeter.MultipleComparison` as arrays: :class:`PairTable`.

One row per compared ``(candidate, baseline)`` pair, one column per metric, one
``(n_pairs, n_metrics)`` array per field of :class:`~ragmeter.stats.MetricComparison`. All
pairs of 300 systems over 5 metrics are 224,250 comparisons: as arrays they take about 20 MB
and no Python object each; a :class:`MetricComparison` is made only when one is asked for (a
pair's comparison, iteration, the saved form). :func:`~ragmeter.compare_many` builds the table
straight from the engine's arrays; a comparison read back from a file builds it from the
file's comparisons (:meth:`PairTable.from_results`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from .comparison import MetricComparison

__all__ = ["COUNTS", "FLOATS", "OPTIONAL", "PairTable"]

#: The float fields of a :class:`MetricComparison`, in the table as float64 (NaN where an
#: optional field is None).
FLOATS = (
    "delta",
    "p_value",
    "candidate_mean",
    "baseline_mean",
    "ci_low",
    "ci_high",
    "p_value_adjusted",
    "statistic",
    "effect_size",
)
#: The optional float fields (None in a :class:`MetricComparison` where the table holds NaN).
OPTIONAL = ("ci_low", "ci_high", "p_value_adjusted", "statistic", "effect_size")
#: The count fields, in the table as int64.
COUNTS = ("wins", "ties", "losses", "n_pairs")


class PairTable:
    """Every compared pair's statistics as ``(n_pairs, n_metrics)`` arrays (read-only).

    Parameters
    ----------
    systems, metrics
        The systems' and metrics' names.
    index
        ``(n_pairs, 2)``: the positions in ``systems`` of each pair's candidate and baseline,
        in the order of the comparison.
    columns
        Every field of :data:`FLOATS` and :data:`COUNTS` as an ``(n_pairs, n_metrics)``
        array.
    methods
        How each p-value was computed (``p_value_method``): an ``(n_pairs, n_metrics)`` array
        of strings, ``""`` or ``"none"`` (or None) where there is none.

    Raises
    ------
    ValueError
        A column of another shape, a pair of unknown systems, a pair given twice.
    """

    def __init__(
        self,
        systems: Sequence[str],
        metrics: Sequence[str],
        index: np.ndarray | Sequence[tuple[int, int]],
        columns: Mapping[str, np.ndarray],
        methods: np.ndarray | Sequence[Sequence[str | None]],
    ) -> None:
        self.systems = tuple(systems)
        self.metrics = tuple(metrics)
        self.index = np.array(index, dtype=np.int64).reshape(-1, 2)
        n_systems = len(self.systems)
        if self.index.size and (self.index.min() < 0 or self.index.max() >= n_systems):
            raise ValueError("index: a pair names a system that is not one of the systems")
        shape = (len(self.index), len(self.metrics))
        self.columns: dict[str, np.ndarray] = {}
        for name, dtype in [*((f, np.float64) for f in FLOATS), *((c, np.int64) for c in COUNTS)]:
            array = np.array(columns[name], dtype=dtype)
            if array.shape != shape:
                raise ValueError(f"columns: {name} has shape {array.shape}, expected {shape}")
            array.setflags(write=False)
            self.columns[name] = array
        # The methods as codes into a short tuple of names (None: no method).
        names = np.array(methods, dtype=object).reshape(shape)
        labels: dict[str | None, int] = {}
        codes = np.empty(shape, dtype=np.int16)
        flat = codes.reshape(-1)
        for position, value in enumerate(names.reshape(-1).tolist()):
            key = None if value in (None, "", "none") else str(value)
            flat[position] = labels.setdefault(key, len(labels))
        codes.setflags(write=False)
        self.method_codes = codes
        self.method_names: tuple[str | None, ...] = tuple(labels)
        # Each pair's key (candidate * n + baseline), sorted, for the lookup of a pair.
        keys = self.index[:, 0] * max(n_systems, 1) + self.index[:, 1]
        self._order = np.argsort(keys, kind="stable")
        self._keys = keys[self._order]
        if len(self._keys) > 1 and (np.diff(self._keys) == 0).any():
            raise ValueError("index: a pair is given twice")
        self._position = {name: i for i, name in enumerate(self.systems)}
        self._pairs: tuple[tuple[str, str], ...] | None = None

    @classmethod
    def from_results(
        cls,
        systems: Sequence[str],
        metrics: Sequence[str],
        results: Mapping[tuple[str, str], Sequence[MetricComparison]],
    ) -> PairTable:
        """The table of ``{(candidate, baseline): one MetricComparison per metric}``.

        Parameters
        ----------
        systems, metrics
            The systems' and metrics' names.
        results
            Every pair's comparisons, in the order of ``metrics``.

        Returns
        -------
        PairTable
            The same comparisons as arrays.
        """
        position = {name: i for i, name in enumerate(systems)}
        items = [(pair, tuple(found)) for pair, found in results.items()]
        shape = (len(items), len(metrics))
        index = np.array([(position[a], position[b]) for (a, b), _ in items], np.int64)
        columns: dict[str, np.ndarray] = {}
        for name in FLOATS:
            columns[name] = np.array(
                [[_float(getattr(item, name)) for item in found] for _, found in items],
                dtype=np.float64,
            ).reshape(shape)
        for name in COUNTS:
            columns[name] = np.array(
                [[getattr(item, name) for item in found] for _, found in items], dtype=np.int64
            ).reshape(shape)
        methods = [[item.p_value_method for item in found] for _, found in items]
        return cls(systems, metrics, index.reshape(-1, 2), columns, methods)

    def __len__(self) -> int:
        return len(self.index)

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        """The compared ``(candidate, baseline)`` names, in order (made on first use)."""
        if self._pairs is None:
            names = self.systems
            self._pairs = tuple((names[a], names[b]) for a, b in self.index.tolist())
        return self._pairs

    def row(self, candidate: str, baseline: str) -> int | None:
        """The row of the pair compared in this order, or None when it was not.

        Parameters
        ----------
        candidate, baseline
            Two systems' names.

        Returns
        -------
        int or None
            The pair's row.
        """
        a, b = self._position.get(candidate), self._position.get(baseline)
        if a is None or b is None:
            return None
        key = a * max(len(self.systems), 1) + b
        found = int(np.searchsorted(self._keys, key))
        if found < len(self._keys) and self._keys[found] == key:
            return int(self._order[found])
        return None

    def items(self, row: int) -> tuple[MetricComparison, ...]:
        """The comparisons of every metric of the pair in ``row`` (made now).

        Parameters
        ----------
        row
            A row of the table.

        Returns
        -------
        tuple of MetricComparison
            One per metric, in order.
        """
        columns = self.columns
        floats = {name: columns[name][row].tolist() for name in FLOATS}
        counts = {name: columns[name][row].tolist() for name in COUNTS}
        methods = self.method_codes[row].tolist()
        return tuple(
            MetricComparison(
                metric=metric,
                **{name: floats[name][m] for name in FLOATS},
                **{name: counts[name][m] for name in COUNTS},
                p_value_method=self.method_names[methods[m]],
            )
            for m, metric in enumerate(self.metrics)
        )

    def __iter__(self) -> Iterator[tuple[tuple[str, str], tuple[MetricComparison, ...]]]:
        """Every pair with its comparisons, in order (made one pair at a time)."""
        for row, pair in enumerate(self.pairs):
            yield pair, self.items(row)

    def significant(self, alpha: float) -> np.ndarray:
        """Whether each test rejects at ``alpha``, as :meth:`MetricComparison.significant`:
        the adjusted p-value where there is one, else the p-value; never when undefined.

        Parameters
        ----------
        alpha
            The significance level.

        Returns
        -------
        numpy.ndarray
            ``(n_pairs, n_metrics)`` booleans.
        """
        adjusted = self.columns["p_value_adjusted"]
        p = np.where(np.isnan(adjusted), self.columns["p_value"], adjusted)
        with np.errstate(invalid="ignore"):
            found: np.ndarray = ~np.isnan(p) & (p <= alpha)
        return found

    def matrix(self, field: str, metric: int) -> np.ndarray:
        """One field of one metric as a systems x systems matrix: ``out[a, b]`` is the value
        of ``a`` against ``b``; a pair compared the other way round is mirrored (a difference,
        interval bound, statistic or effect negated, the bounds swapped, wins and losses
        swapped); NaN where the pair was not compared.

        Parameters
        ----------
        field
            A field of :data:`FLOATS` or :data:`COUNTS` but ``statistic`` (whose mirror
            depends on the test).
        metric
            The metric's position.

        Returns
        -------
        numpy.ndarray
            ``(n_systems, n_systems)`` float64.

        Raises
        ------
        ValueError
            ``statistic`` or a name that is not a field.
        """
        if field == "statistic" or field not in self.columns:
            raise ValueError(f"field: {field!r} has no matrix (one of {sorted(self.columns)})")
        mirror = {"ci_low": "ci_high", "ci_high": "ci_low", "wins": "losses", "losses": "wins"}
        mirror.update({"candidate_mean": "baseline_mean", "baseline_mean": "candidate_mean"})
        sign = -1.0 if field in ("delta", "ci_low", "ci_high", "effect_size") else 1.0
        n = len(self.systems)
        out = np.full((n, n), math.nan)
        a, b = self.index[:, 0], self.index[:, 1]
        out[a, b] = self.columns[field][:, metric]
        out[b, a] = sign * self.columns[mirror.get(field, field)][:, metric]
        return out


def _float(value: Any) -> float:
    """A field as the table holds it: None as NaN."""
    return math.nan if value is None else float(value)
