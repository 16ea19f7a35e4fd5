"""ir_measures' providers (``ir_measures.pytrec_eval``, ``ir_measures.providers.
PytrecEvalProvider()``...): each evaluates with ragmeter's core, which computes every family
with the semantics of the ir_measures provider declared for it
(:attr:`ragmeter.ranking.MeasureFamily.ir_measures_provider`); a provider supports the
measures whose family declares it. ``define``/``define_byquery`` (ir_measures' runtime
provider, custom Python measures) are not provided: they raise naming the part."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ...ranking.evaluation import summary_value
from ...ranking.names import parse_measures
from .._unsupported import unsupported
from ._calc import CalcResults, Metric, calculate, per_query
from .measures import Measure

__all__ = [
    "REGISTRY",
    "Evaluator",
    "Provider",
    "define",
    "define_byquery",
]


def _measures(measures: Iterable[Any]) -> list[Any]:
    return [m if isinstance(m, Measure) else Measure.from_text(str(m)) for m in measures]


class Evaluator:
    """ir_measures' evaluator: measures and judgments once, then runs."""

    def __init__(self, measures: Iterable[Any], qrels: Any, provider: Provider | None = None):
        self._measures = _measures(measures)
        self._qrels = qrels
        self._provider = provider or REGISTRY["pytrec_eval"]

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """``Metric`` rows of the measures for every judged query."""
        return self._provider.iter_calc(self._measures, self._qrels, run)

    def calc_aggregate(self, run: Any) -> dict[Any, float]:
        """``{measure: value over the judged queries}``."""
        return self.calc(run).aggregated  # type: ignore[no-any-return]

    def calc(self, run: Any) -> CalcResults:
        """``CalcResults({measure: value}, [Metric, ...])``."""
        return self._provider.calc(self._measures, self._qrels, run)


class Provider:
    """One of ir_measures' providers, by its name (``pytrec_eval``, ``cwl_eval``...)."""

    def __init__(self, name: str):
        self.NAME = name

    def __repr__(self) -> str:
        return f"Provider({self.NAME!r})"

    def supports(self, measure: Any) -> bool:
        """Whether ragmeter computes ``measure`` (every provider computes every measure
        ragmeter reads, each with the semantics of the provider its family declares)."""
        try:
            parse_measures(str(measure))
        except ValueError:
            return False
        return True

    def evaluator(self, measures: Iterable[Any], qrels: Any) -> Evaluator:
        """An :class:`Evaluator` of ``measures`` against ``qrels``."""
        return Evaluator(measures, qrels, self)

    def iter_calc(self, measures: Iterable[Any], qrels: Any, run: Any) -> Iterator[Metric]:
        """``Metric`` rows of ``measures`` for every judged query."""
        if self.NAME != "gdeval":
            return per_query(_measures(measures), qrels, run)
        return self._gdeval(_measures(measures), qrels, run)

    def _gdeval(self, measures: list[Any], qrels: Any, run: Any) -> Iterator[Metric]:
        # gdeval's nDCG is nDCG(dcg='exp-log2'), and ir_measures reads gdeval's printed
        # values: 5 decimal places.
        computed = [
            Measure.from_text(str(m).replace("nDCG", "nDCG(dcg='exp-log2')", 1))
            if m.NAME == "nDCG"
            else m
            for m in measures
        ]
        original = dict(zip(computed, measures, strict=True))
        for metric in per_query(computed, qrels, run):
            yield Metric(metric.query_id, original[metric.measure], round(metric.value, 5))

    def calc_aggregate(self, measures: Iterable[Any], qrels: Any, run: Any) -> dict[Any, float]:
        """``{measure: value over the judged queries}``."""
        return self.calc(measures, qrels, run).aggregated  # type: ignore[no-any-return]

    def calc(self, measures: Iterable[Any], qrels: Any, run: Any) -> CalcResults:
        """``CalcResults({measure: value}, [Metric, ...])``."""
        wanted = _measures(measures)
        if self.NAME != "gdeval":
            return calculate(wanted, qrels, run)
        rows = list(self._gdeval(wanted, qrels, run))
        # Formed as every other provider forms its values over queries (summary_value): NaN
        # when no query was evaluated, as ir_measures' MeanAgg gives.
        means = {
            m: summary_value(parse_measures(str(m))[0], [r.value for r in rows if r.measure == m])
            for m in wanted
        }
        return CalcResults(means, rows)


#: ir_measures' provider registry, by name (``registry`` in ir_measures).
REGISTRY: dict[str, Provider] = {
    name: Provider(name)
    for name in (
        "accuracy",
        "compat",
        "cwl_eval",
        "gdeval",
        "judged",
        "msmarco",
        "pyndeval",
        "pytrec_eval",
        "ranx",
        "trectools",
    )
}

# ir_measures' provider classes (``ir_measures.providers.PytrecEvalProvider()``).


class AccuracyProvider(Provider):
    """ir_measures' ``AccuracyProvider``: the ``accuracy`` provider."""

    def __init__(self) -> None:
        super().__init__("accuracy")


class CompatProvider(Provider):
    """ir_measures' ``CompatProvider``: the ``compat`` provider."""

    def __init__(self) -> None:
        super().__init__("compat")


class CwlEvalProvider(Provider):
    """ir_measures' ``CwlEvalProvider``: the ``cwl_eval`` provider."""

    def __init__(self) -> None:
        super().__init__("cwl_eval")


class GdevalProvider(Provider):
    """ir_measures' ``GdevalProvider``: the ``gdeval`` provider."""

    def __init__(self) -> None:
        super().__init__("gdeval")


class JudgedProvider(Provider):
    """ir_measures' ``JudgedProvider``: the ``judged`` provider."""

    def __init__(self) -> None:
        super().__init__("judged")


class MsMarcoProvider(Provider):
    """ir_measures' ``MsMarcoProvider``: the ``msmarco`` provider."""

    def __init__(self) -> None:
        super().__init__("msmarco")


class PyNdEvalProvider(Provider):
    """ir_measures' ``PyNdEvalProvider``: the ``pyndeval`` provider."""

    def __init__(self) -> None:
        super().__init__("pyndeval")


class PytrecEvalProvider(Provider):
    """ir_measures' ``PytrecEvalProvider``: the ``pytrec_eval`` provider."""

    def __init__(self) -> None:
        super().__init__("pytrec_eval")


class RanxProvider(Provider):
    """ir_measures' ``RanxProvider``: the ``ranx`` provider."""

    def __init__(self) -> None:
        super().__init__("ranx")


class TrectoolsProvider(Provider):
    """ir_measures' ``TrectoolsProvider``: the ``trectools`` provider."""

    def __init__(self) -> None:
        super().__init__("trectools")


__all__ += [
    "AccuracyProvider",
    "CompatProvider",
    "CwlEvalProvider",
    "GdevalProvider",
    "JudgedProvider",
    "MsMarcoProvider",
    "PyNdEvalProvider",
    "PytrecEvalProvider",
    "RanxProvider",
    "TrectoolsProvider",
]


def define(*args: Any, **kwargs: Any) -> Any:
    """ir_measures' ``define`` (a custom measure from a Python function): not provided."""
    raise unsupported(
        "ir_measures",
        "define (ir_measures' runtime provider: custom measures from Python functions)",
        "compute the per-query values with your function and summarise them yourself",
    )


def define_byquery(*args: Any, **kwargs: Any) -> Any:
    """ir_measures' ``define_byquery``: not provided (see :func:`define`)."""
    raise unsupported(
        "ir_measures",
        "define_byquery (ir_measures' runtime provider: custom measures from Python functions)",
        "compute the per-query values with your function and summarise them yourself",
    )


registry = REGISTRY
__all__ += ["registry"]
