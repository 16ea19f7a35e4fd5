"""ir_measures' evaluation API on ragmeter's core: change ``import ir_measures`` to
``from ragmeter.compat import ir_measures``.

Measures are written as in ir_measures, as objects (``nDCG@10``, ``P(rel=2)@5``, ``AP``, from
this module: every family's ir_measures name, see :data:`ragmeter.ranking.FAMILIES`) or as
strings (``"nDCG@10"``, :func:`parse_measure`, :func:`parse_trec_measure`);
``calc_aggregate(measures, qrels, run)`` gives ``{measure: mean}`` and ``iter_calc`` yields
``Metric(query_id, measure, value)``. Judgments and runs are dicts ``{query_id: {doc_id:
value}}``, DataFrames or Arrow tables (``query_id``, ``doc_id``, ``relevance`` / ``score``),
or iterables of ir_measures' ``Qrel``/``ScoredDoc`` namedtuples.

As in ir_measures, a judged query the run lacks scores 0 for every measure and counts in the
mean; run queries without judgments are not evaluated. Each measure has the semantics of its
ir_measures provider (the family's page says which); ties in scores are broken as trec_eval
breaks them. Deliberate difference: ``NumQ`` counts the queries evaluated (ir_measures' counts
those in the run only, though its means include the others).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from .._inputs import is_table
from ..exceptions import InputTypeError
from ..io import read_qrels, read_run
from ..ranking.declarations import FAMILIES
from ..ranking.evaluation import summary_value
from ..ranking.functions import ranking_metrics
from ..ranking.names import parse_measures

__all__ = [
    "Measure",
    "Metric",
    "calc_aggregate",
    "iter_calc",
    "parse_measure",
    "parse_trec_measure",
]


class Measure:
    """A measure as ir_measures writes it: ``nDCG@10``, ``P(rel=2)@5``; equal to (and hashed
    as) its name, so ``results[nDCG@10]`` and ``results["nDCG@10"]`` both work.

    Examples
    --------
    >>> nDCG = Measure("nDCG")
    >>> nDCG@10, Measure("P")(rel=2)@5
    (nDCG@10, P(rel=2)@5)
    """

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __matmul__(self, cutoff: object) -> Measure:
        return Measure(f"{self._name}@{cutoff}")

    def __call__(self, **params: Any) -> Measure:
        shown = ", ".join(f"{key}={value!r}" for key, value in params.items())
        return Measure(f"{self._name}({shown})")

    def __str__(self) -> str:
        return self._name

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Measure):
            return self._name == other._name
        return isinstance(other, str) and self._name == other

    def __hash__(self) -> int:
        return hash(self._name)


class Metric(NamedTuple):
    """One value of :func:`iter_calc`, as ir_measures' ``Metric``."""

    query_id: str
    measure: Measure
    value: float


#: ir_measures' measure objects, one per family with an ir_measures name.
_BY_NAME = {f.ir_measures_name: Measure(f.ir_measures_name) for f in FAMILIES if f.ir_measures_name}


def __getattr__(name: str) -> Measure:
    # ``from ragmeter.compat.ir_measures import nDCG, P, AP``: the families' ir_measures names.
    if name in _BY_NAME:
        return _BY_NAME[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, *_BY_NAME])


def parse_measure(text: str) -> Measure:
    """A measure from its ir_measures name (checked: an unknown name raises).

    Examples
    --------
    >>> parse_measure("nDCG@10")
    nDCG@10
    """
    parse_measures(text)
    return Measure(text)


def parse_trec_measure(text: str) -> list[Measure]:
    """The measures a trec_eval name stands for, in ir_measures' syntax where the family has
    an ir_measures name (``P_5,10`` is ``P@5``, ``P@10``; ``ndcg_cut.10`` is ``nDCG@10``), else
    as trec_eval prints them.

    Examples
    --------
    >>> parse_trec_measure("P_5,10"), parse_trec_measure("ndcg_cut.10")
    ([P@5, P@10], [nDCG@10])
    """
    return [Measure(_ir_spelling(m)) for m in parse_measures(text)]


def _ir_spelling(measure: Any) -> str:
    family = measure.family
    ir_name = family.ir_measures_name
    if ir_name is None and measure.cutoff is not None:
        # ndcg_cut and map_cut are nDCG@k and AP@k: the family of the same kernel that
        # ir_measures names and that takes a cutoff.
        ir_name = next(
            (
                f.ir_measures_name
                for f in FAMILIES
                if f.kernel == family.kernel and f.ir_measures_name and f.cutoff != "none"
            ),
            None,
        )
    if ir_name is None or measure.gains is not None or measure.relevance_threshold is not None:
        return str(measure.name)
    if measure.cutoff is not None:
        return f"{ir_name}@{measure.cutoff}"
    if family.trec_parameters == "levels" and measure.params:
        return f"{ir_name}@{measure.params[0]:g}"
    return ir_name if not measure.params else str(measure.name)


def _table(data: Any, read: Any, value: str) -> Any:
    """A dict, a table, or an iterable of namedtuples (``query_id``, ``doc_id``, ``value``)."""
    if isinstance(data, Mapping):
        return data
    if is_table(data):
        return read(data)
    if isinstance(data, Iterable) and not isinstance(data, str | bytes):
        rows: dict[Any, dict[Any, Any]] = {}
        for row in data:
            try:
                rows.setdefault(row.query_id, {})[row.doc_id] = getattr(row, value)
            except AttributeError:
                raise InputTypeError(
                    f"expected rows with query_id, doc_id and {value} (ir_measures' namedtuples), "
                    f"got {type(row).__name__}"
                ) from None
        return rows
    raise InputTypeError(
        f"expected a dict {{query_id: {{doc_id: {value}}}}}, a DataFrame or rows, got "
        f"{type(data).__name__}"
    )


def iter_calc(measures: Iterable[Measure | str], qrels: Any, run: Any) -> Iterator[Metric]:
    """``Metric(query_id, measure, value)`` for every judged query and measure (see the
    module: a judged query the run lacks scores 0).

    Examples
    --------
    >>> list(iter_calc(["RR"], {"q1": {"d1": 1}}, {"q1": {"d2": 2.0, "d1": 1.0}}))
    [Metric(query_id='q1', measure=RR, value=0.5)]
    """
    wanted = [m if isinstance(m, Measure) else parse_measure(m) for m in measures]
    judged = _table(qrels, read_qrels, "relevance")
    ranked = _table(run, read_run, "score")
    common = {q: ranked[q] for q in judged if q in ranked}
    values = None
    if common:
        values = ranking_metrics(
            {q: judged[q] for q in common},
            common,
            metrics=[str(m) for m in wanted],
            average=None,
            zero_division=0.0,
        )
    for query_id in judged:
        for measure in wanted:
            if values is not None and query_id in common:
                value = values[str(measure)][query_id]
                yield Metric(query_id, measure, float(value))
            elif str(measure) == "NumQ":
                yield Metric(query_id, measure, 1.0)
            else:
                yield Metric(query_id, measure, 0.0)


def calc_aggregate(measures: Iterable[Measure | str], qrels: Any, run: Any) -> dict[Measure, float]:
    """``{measure: value over the judged queries}``, formed as each measure's family forms it
    (means; sums for counts such as NumRet; geometric means for gm_map).

    Examples
    --------
    >>> calc_aggregate(["RR", "NumRet"], {"q1": {"d1": 1}, "q2": {"d3": 1}}, {"q1": {"d1": 1.0}})
    {RR: 0.5, NumRet: 1.0}
    """
    wanted = [m if isinstance(m, Measure) else parse_measure(m) for m in measures]
    totals: dict[Measure, list[float]] = {m: [] for m in wanted}
    for metric in iter_calc(wanted, qrels, run):
        totals[metric.measure].append(metric.value)
    return {
        measure: summary_value(parse_measures(str(measure))[0], values)
        for measure, values in totals.items()
    }
