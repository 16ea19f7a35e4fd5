"""Values over items that say what they summarise: :class:`MeanScore` (a mean that says over
how many items it is and how many were undefined) and :class:`CountScore` (a total that says
over how many items it was counted). Every result type returns them (ranking evaluations,
:class:`~ragmeter.PerQueryResults`, retrieval evaluations); :mod:`ragmeter.ranking.results`
re-exports them.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CountScore", "MeanScore", "make_count_score", "make_mean_score"]


class MeanScore(float):
    """A mean over queries that remembers what it averaged.

    It is a ``float`` (prints, compares and computes like one): ``MeanScore(value,
    n_queries=..., n_undefined=..., metric=...)``, with three attributes.

    Attributes
    ----------
    n_queries
        The number of queries (answers, for the answer metrics) in the mean.
    n_undefined
        The number of queries whose value was undefined (scored by ``zero_division``, or
        excluded when it is NaN).
    metric
        The metric's name.

    Examples
    --------
    >>> m = MeanScore(0.5, n_queries=4, n_undefined=1, metric="map")
    >>> m.describe()
    'map = 0.5000 over 4 queries (1 undefined)'
    """

    n_queries: int
    n_undefined: int
    metric: str

    def __new__(cls, value: float, *, n_queries: int, n_undefined: int, metric: str) -> MeanScore:
        self = super().__new__(cls, value)
        self.n_queries = n_queries
        self.n_undefined = n_undefined
        self.metric = metric
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (make_mean_score, (float(self), self.n_queries, self.n_undefined, self.metric))

    def describe(self) -> str:
        """The mean in words.

        Returns
        -------
        str
            ``"ndcg@10 = 0.6956 over 2 queries (0 undefined)"``.
        """
        return (
            f"{self.metric} = {float(self):.4f} over {self.n_queries} queries "
            f"({self.n_undefined} undefined)"
        )


def make_mean_score(value: float, n_queries: int, n_undefined: int, metric: str) -> MeanScore:
    """A :class:`MeanScore` from its parts (what a pickle holds)."""
    return MeanScore(value, n_queries=n_queries, n_undefined=n_undefined, metric=metric)


class CountScore(int):
    """A total over queries (``num_ret``, ``num_rel``, ...) or the number of queries
    (``num_q``): an ``int`` that says over how many queries it was counted:
    ``CountScore(value, n_queries=..., metric=...)``.

    Attributes
    ----------
    n_queries
        The number of queries it was counted over.
    metric
        The measure's name.

    Examples
    --------
    >>> CountScore(1500, n_queries=3, metric="num_ret").describe()
    'num_ret = 1500 over 3 queries'
    """

    n_queries: int
    metric: str

    def __new__(cls, value: int, *, n_queries: int, metric: str) -> CountScore:
        self = super().__new__(cls, value)
        self.n_queries = n_queries
        self.metric = metric
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (make_count_score, (int(self), self.n_queries, self.metric))

    def describe(self) -> str:
        """The total in words.

        Returns
        -------
        str
            ``"num_ret = 1500 over 3 queries"``.
        """
        return f"{self.metric} = {int(self)} over {self.n_queries} queries"


def make_count_score(value: int, n_queries: int, metric: str) -> CountScore:
    """A :class:`CountScore` from its parts (what a pickle holds)."""
    return CountScore(value, n_queries=n_queries, metric=metric)
