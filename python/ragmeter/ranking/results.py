"""What an evaluation returns: values that say what they summarise."""

from __future__ import annotations

from typing import Any

__all__ = ["CountScore", "MeanScore", "MetricResults"]


class MeanScore(float):
    """A mean over queries that remembers what it averaged.

    It is a ``float`` (prints, compares and computes like one) with three attributes, its
    keyword parameters.

    Parameters
    ----------
    value
        The mean.
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
        return (_make_mean, (float(self), self.n_queries, self.n_undefined, self.metric))

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


def _make_mean(value: float, n_queries: int, n_undefined: int, metric: str) -> MeanScore:
    return MeanScore(value, n_queries=n_queries, n_undefined=n_undefined, metric=metric)


class CountScore(int):
    """A total over queries (``num_ret``, ``num_rel``, ...) or the number of queries
    (``num_q``): an ``int`` that says over how many queries it was counted.

    Parameters
    ----------
    value
        The total.
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
        return (_make_count, (int(self), self.n_queries, self.metric))

    def describe(self) -> str:
        """The total in words.

        Returns
        -------
        str
            ``"num_ret = 1500 over 3 queries"``.
        """
        return f"{self.metric} = {int(self)} over {self.n_queries} queries"


def _make_count(value: int, n_queries: int, metric: str) -> CountScore:
    return CountScore(value, n_queries=n_queries, metric=metric)


class MetricResults(dict[str, Any]):
    """Metric name -> value over queries (:class:`MeanScore`, :class:`CountScore`, or the run
    tag for ``runid``) or per-query values, with the query set.

    A ``dict`` with three more attributes: ``query_ids`` (the evaluated queries, in order),
    ``missing_from_run`` (judged queries without a ranking: scored as empty rankings with
    ``missing="zero"``, left out with ``missing="skip"``) and ``unjudged`` (ranked queries
    without judgments, never evaluated).
    """

    query_ids: list[Any]
    missing_from_run: list[Any]
    unjudged: list[Any]
