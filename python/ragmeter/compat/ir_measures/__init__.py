"""ir_measures' evaluation API on ragmeter's core: change ``import ir_measures`` to
``from ragmeter.compat import ir_measures``.

Measures are written as in ir_measures, as objects (``nDCG@10``, ``P(rel=2)@5``, ``AP``, from
this module: every family's ir_measures name, see :data:`ragmeter.ranking.FAMILIES`) or as
strings (``"nDCG@10"``, :func:`parse_measure`, :func:`parse_trec_measure`);
``calc_aggregate(measures, qrels, run)`` gives ``{measure: mean}`` and ``iter_calc`` yields
``Metric(query_id, measure, value)``. Judgments and runs are dicts ``{query_id: {doc_id:
value}}``, DataFrames or Arrow tables (``query_id``, ``doc_id``, ``relevance`` / ``score``),
or iterables of ir_measures' ``Qrel``/``ScoredDoc`` namedtuples (``read_trec_qrels`` and
``read_trec_run`` give them); diversity measures read ``Qrel`` rows or a table with an
``iteration`` column as subtopic judgments. ``from ragmeter.compat.ir_measures import *``
defines the measure objects (and ir_measures' aliases: ``MAP``, ``MRR``, ``SetRelP``...);
``ir_measures.measures``, the providers (``ir_measures.pytrec_eval``,
``ir_measures.providers.PytrecEvalProvider()``) and ``evaluator`` are there too.

As in ir_measures, a judged query the run lacks scores 0 for every measure and counts in the
mean (``Accuracy`` leaves it out, and the queries where it is undefined); run queries
without judgments are not evaluated. Each measure has the semantics of its
ir_measures provider (the family's page says which); ties in scores are broken as trec_eval
breaks them. Deliberate difference: ``NumQ`` counts the queries evaluated (ir_measures' counts
those in the run only, though its means include the others). Not provided, with an error
naming the part: ``define``/``define_byquery`` (custom Python measures), ``CwlMetric``, and
``util``'s converters.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ...exceptions import InvalidInputError
from ...ranking.declarations import FAMILIES, NICKNAMES
from ...ranking.names import parse_measures
from .._unsupported import unsupported
from . import measures, providers
from ._calc import (
    CalcResults,
    Metric,
    Qrel,
    ScoredDoc,
    aggregate,
    calculate,
    per_query,
    read_trec_qrels,
    read_trec_run,
)
from .measures import ALIASES, MEASURES, Measure
from .providers import REGISTRY, Evaluator, Provider, define, define_byquery

__all__ = [
    "CalcResults",
    "CwlMetric",
    "Evaluator",
    "Measure",
    "Metric",
    "Provider",
    "Qrel",
    "ScoredDoc",
    "calc",
    "calc_aggregate",
    "define",
    "define_byquery",
    "evaluator",
    "iter_calc",
    "measures",
    "parse_measure",
    "parse_trec_measure",
    "providers",
    "read_trec_qrels",
    "read_trec_run",
    *MEASURES,
    *ALIASES,
    *REGISTRY,
]

globals().update(MEASURES)
globals().update(ALIASES)
# ir_measures.pytrec_eval, ir_measures.ranx...: the providers by name.
globals().update(REGISTRY)


class CwlMetric:
    """ir_measures' ``CwlMetric`` (a cwl_eval value with its expected utility, cost, number of
    documents and depth): not provided; constructing one raises naming the part."""

    def __init__(self, *args: Any, **kwargs: Any):
        raise unsupported(
            "ir_measures",
            "CwlMetric (cwl_eval's expected utility, cost, documents and depth per value)",
            "the cwl_eval provider gives Metric(query_id, measure, value) rows",
        )


def __getattr__(name: str) -> Any:
    if name in ("util", "DefaultPipeline", "lazylibs"):
        raise unsupported(
            "ir_measures",
            f"ir_measures.{name}",
            "its internals are not part of the drop-in (measures, providers, iter_calc, "
            "calc_aggregate, evaluator, parse_measure and the readers are)",
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def parse_measure(text: str | Measure) -> Measure:
    """A measure from its ir_measures name (checked: an unknown name raises).

    Examples
    --------
    >>> parse_measure("nDCG@10")
    nDCG@10
    """
    if isinstance(text, Measure):
        return text
    return Measure.from_text(text)


def parse_trec_measure(text: str) -> list[Measure]:
    """The measures a trec_eval name stands for, in ir_measures' syntax where the family has
    an ir_measures name (``P_5,10`` is ``P@5``, ``P@10``; ``ndcg_cut.10`` is ``nDCG@10``), else
    as trec_eval prints them.

    Examples
    --------
    >>> parse_trec_measure("P_5,10"), parse_trec_measure("ndcg_cut.10")
    ([P@5, P@10], [nDCG@10])
    """
    if text in NICKNAMES:
        # As ir_measures: the group's names sorted, those without an ir_measures measure left
        # out (runid, gm_map, utility...).
        result: list[Measure] = []
        for name in sorted(NICKNAMES[text]):
            try:
                result += parse_trec_measure(name)
            except ValueError:
                continue
        return result
    head, _, values = (
        text.replace("_", ".", 1).partition(".") if text.startswith("set_F") else ("", "", "")
    )
    if head == "set" and "," in values:
        # set_F.1.0,0.5: ir_measures reads one SetF per beta (trec_eval takes one).
        return [
            m
            for value in values.removeprefix("F.").split(",")
            for m in parse_trec_measure(f"set_F.{value}")
        ]
    measures = parse_measures(text)
    spelled = [_ir_spelling(m) for m in measures]
    missing = [m.name for m, name in zip(measures, spelled, strict=True) if name is None]
    if missing:
        raise InvalidInputError(
            f"metrics: {text!r}: trec_eval's {', '.join(missing)} has no ir_measures measure "
            f"(ir_measures refuses it too)"
        )
    return [Measure.from_text(name) for name in spelled if name is not None]


def _ir_spelling(measure: Any) -> str | None:
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
    if family.name == "set_relative_precision":
        return "SetRelP"
    if ir_name is None:
        return None
    if measure.gains is not None or measure.relevance_threshold is not None:
        return str(measure.name)
    if measure.cutoff is not None:
        return f"{ir_name}@{measure.cutoff}"
    if family.trec_parameters == "levels" and measure.params:
        return f"{ir_name}@{float(measure.params[0])!r}"
    if not measure.params:
        result: str | None = ir_name
        return result
    if len(family.parameters) == 1 and len(measure.params) == 1:
        # SetF(beta=0.5); the default (set_F's beta 1) is the bare name, as in ir_measures.
        (key, default), value = family.parameters[0], measure.params[0]
        return ir_name if value == default else f"{ir_name}({key}={value:g})"
    return str(measure.name)


def _measures(measures: Iterable[Measure | str]) -> list[Measure]:
    return [m if isinstance(m, Measure) else parse_measure(m) for m in measures]


def iter_calc(measures: Iterable[Measure | str], qrels: Any, run: Any) -> Iterator[Metric]:
    """``Metric(query_id, measure, value)`` for every judged query and measure (see the
    module: a judged query the run lacks scores 0).

    Examples
    --------
    >>> list(iter_calc(["RR"], {"q1": {"d1": 1}}, {"q1": {"d2": 2.0, "d1": 1.0}}))
    [Metric(query_id='q1', measure=RR, value=0.5)]
    """
    return per_query(_measures(measures), qrels, run)


def calc_aggregate(measures: Iterable[Measure | str], qrels: Any, run: Any) -> dict[Measure, float]:
    """``{measure: value over the judged queries}``, formed as each measure's family forms it
    (means; sums for counts such as NumRet; geometric means for gm_map).

    Examples
    --------
    >>> calc_aggregate(["RR", "NumRet"], {"q1": {"d1": 1}, "q2": {"d3": 1}}, {"q1": {"d1": 1.0}})
    {RR: 0.5, NumRet: 1.0}
    """
    return aggregate(_measures(measures), qrels, run)


def calc(measures: Iterable[Measure | str], qrels: Any, run: Any) -> CalcResults:
    """ir_measures' ``calc``: ``CalcResults({measure: value}, [Metric, ...])``."""
    return calculate(_measures(measures), qrels, run)


def evaluator(measures: Iterable[Measure | str], qrels: Any) -> Evaluator:
    """ir_measures' ``evaluator``: the measures and judgments once, then
    ``.iter_calc(run)`` / ``.calc_aggregate(run)``."""
    return Evaluator(measures, qrels)
