"""A provider of ir_measures that computes with ragmeter's core: ``install()`` once, and
``ir_measures.calc_aggregate``, ``ir_measures.iter_calc`` and PyTerrier's ``pt.Experiment``
(which evaluates through ``ir_measures.iter_calc``) compute the measures ragmeter supports in
Rust, the others as before.

ir_measures evaluates through ``ir_measures.DefaultPipeline``, a ``FallbackProvider`` that
gives each measure to the first of its providers that supports it. :func:`install` registers
:class:`RagmeterProvider` (``ir_measures.providers.registry["ragmeter"]``) and puts it first
in that list; :func:`uninstall` takes it out. ir_measures has no discovery of providers by
entry point; ragmeter declares one (group ``ir_measures.providers``, name ``ragmeter``) ready
for it.

Which measures (the rule, :meth:`RagmeterProvider.supports`): a measure is taken when

1. ragmeter reads its name as one measure (:func:`ragmeter.ranking.parse_measures`), of a
   family whose declaration (:mod:`ragmeter.ranking.declarations`) states the semantics of an
   ir_measures provider (``ir_measures_provider``), and
2. that provider is the one ``DefaultPipeline`` would have chosen without ragmeter (the first
   of its other providers that supports the measure, installed or not), and is one of
   :data:`PROVIDERS_TAKEN_OVER`.

So every measure keeps the semantics ir_measures gives it by default; every other measure
(``RR@10``, which ir_measures gives to its ``msmarco`` provider; gdeval's ``ERR@20`` and
``nDCG(dcg='exp-log2')``, which ir_measures reads from gdeval's output rounded to 5 decimals;
the diversity measures, which read subtopic judgments; ``Accuracy``; measures defined at run
time) falls back to the provider ir_measures chose before.

As ir_measures does: judged queries the run does not rank get the measure's default (0), run
queries without judgments are not evaluated, a document ranked twice keeps its last score (as
``pytrec_eval`` reads a run) and ties in scores are broken by document id, descending
(trec_eval's rule, which ``pytrec_eval`` applies). A value trec_eval leaves undefined is 0.
Tables (pandas DataFrames, Arrow tables, with ir_measures' columns ``query_id``, ``doc_id``,
``relevance`` / ``score``) are read from their Arrow buffers by the Rust core without a Python
object per row; dicts and iterables of ``Qrel``/``ScoredDoc`` are read as ir_measures reads
them.

Example::

    import ir_measures
    from ragmeter.integrations import ir_measures as rm_ir_measures

    rm_ir_measures.install()
    ir_measures.calc_aggregate([ir_measures.nDCG @ 10, ir_measures.AP], qrels, run)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from .._inputs import is_table
from .._optional import import_optional
from ..exceptions import InvalidInputError, MissingDependencyError
from ..io import evaluation_values
from ..options import EvaluationOptions
from ..ranking.names import Measure, parse_measures

ir_measures = import_optional(
    "ir_measures", extra="pyterrier", purpose="ragmeter.integrations.ir_measures"
)

_Evaluator: Any = ir_measures.providers.Evaluator
_Provider: Any = ir_measures.providers.Provider

__all__ = [
    "NAME",
    "PROVIDERS_TAKEN_OVER",
    "RagmeterEvaluator",
    "RagmeterProvider",
    "install",
    "installed",
    "uninstall",
]

#: The provider's name in ``ir_measures.providers.registry``.
NAME = "ragmeter"
#: The ir_measures providers whose measures ragmeter takes over (those whose semantics its
#: declarations state and whose values ir_measures reads at full precision).
PROVIDERS_TAKEN_OVER = ("pytrec_eval", "cwl_eval", "compat", "judged")
#: trec_eval's semantics, every judged query ranked by the run evaluated, the others left to
#: ir_measures' defaults.
_OPTIONS = EvaluationOptions(missing="skip", zero_division=math.nan)


def _default_choice(measure: Any) -> str | None:
    """The name of the provider ``DefaultPipeline`` gives ``measure`` without ragmeter."""
    for provider in ir_measures.DefaultPipeline.providers:
        if isinstance(provider, RagmeterProvider):
            continue
        try:
            if provider.supports(measure):
                return str(provider.NAME)
        except Exception:  # a provider's own check of parameters it does not take
            continue
    return None


def _ragmeter_measure(measure: Any) -> Measure | None:
    """ragmeter's measure for an ir_measures measure, or None when it takes none."""
    try:
        parsed = parse_measures(str(measure))
    except (ValueError, TypeError):
        return None
    if len(parsed) != 1:
        return None
    family = parsed[0].family
    if family.subtopic_judgments or family.name == "accuracy":
        return None
    if family.ir_measures_provider not in PROVIDERS_TAKEN_OVER:
        return None
    if _default_choice(measure) != family.ir_measures_provider:
        return None
    return parsed[0]


class RagmeterEvaluator(_Evaluator):  # type: ignore[misc]
    """Measures and judgments read once; each run evaluated by ragmeter's core.

    Parameters
    ----------
    measures
        ir_measures measures the provider supports.
    qrels
        Judgments in any form ir_measures takes (a DataFrame or Arrow table, a dict, an
        iterable of ``Qrel``).
    """

    def __init__(self, measures: Iterable[Any], qrels: Any) -> None:
        """See the class documentation."""
        wanted = list(measures)
        self._names = [str(m) for m in wanted]
        self._qrels = _judgments(qrels)
        super().__init__(wanted, _judged_ids(self._qrels))

    def _iter_calc(self, run: Any) -> Iterator[Any]:
        if not self._names:
            return
        ranked = _ranking(run)
        if ranked is None:
            return
        try:
            values = evaluation_values(self._qrels, ranked, self._names, _OPTIONS, allow_empty=True)
        except InvalidInputError:
            if isinstance(ranked, Mapping):
                raise
            # A document ranked twice: pytrec_eval keeps its last score (a dict); so do we.
            values = evaluation_values(
                self._qrels, _run_dict(run), self._names, _OPTIONS, allow_empty=True
            )
        numbers = np.nan_to_num(values.numbers, nan=0.0)  # undefined: trec_eval's 0
        metric = ir_measures.Metric
        measures = list(self.measures)
        for query_id, row in zip(values.queries.query_ids, numbers.tolist(), strict=True):
            for measure, value in zip(measures, row, strict=True):
                yield metric(query_id=query_id, measure=measure, value=value)


def _arrow_ready(table: Any) -> bool:
    """Whether a table can be read through Arrow (pyarrow installed for pandas)."""
    try:
        import_optional("pyarrow", extra="arrow", purpose="reading a DataFrame")
    except MissingDependencyError:
        return False
    return is_table(table)


def _judgments(qrels: Any) -> Any:
    if isinstance(qrels, Mapping) or _arrow_ready(qrels):
        return qrels
    return ir_measures.util.QrelsConverter(qrels).as_dict_of_dict()


def _judged_ids(qrels: Any) -> list[Any]:
    if isinstance(qrels, Mapping):
        return list(qrels)
    column = qrels["query_id"]
    unique = getattr(column, "unique", None)
    if callable(unique):
        return list(unique())
    return list(dict.fromkeys(column.to_pylist()))


def _run_dict(run: Any) -> dict[Any, Any]:
    converted: dict[Any, Any] = ir_measures.util.RunConverter(run).as_dict_of_dict()
    return converted


def _ranking(run: Any) -> Any:
    """The run as the core reads it, or None when it ranks nothing."""
    if isinstance(run, Mapping):
        return run or None
    if _arrow_ready(run):
        return run if len(run) else None
    return _run_dict(run) or None


class RagmeterProvider(_Provider):  # type: ignore[misc]
    """ir_measures' provider of ragmeter: the measures of :data:`PROVIDERS_TAKEN_OVER` that
    ragmeter computes with their semantics (the rule is in the module documentation).

    ``SUPPORTED_MEASURES`` lists the measures of those providers whose names ragmeter reads
    (what ir_measures' documentation and ``--provider`` show); :meth:`supports` decides
    measure by measure.
    """

    NAME = NAME

    def __init__(self) -> None:
        """A provider (ir_measures' providers take no arguments)."""
        super().__init__()
        self._supported: dict[str, bool] = {}

    @property
    def SUPPORTED_MEASURES(self) -> list[Any]:
        """The measure templates of the providers taken over that ragmeter reads."""
        registry = ir_measures.providers.registry
        found = []
        for name in PROVIDERS_TAKEN_OVER:
            for template in registry[name].SUPPORTED_MEASURES:
                try:
                    parse_measures(template.NAME)
                except (ValueError, TypeError):
                    continue
                found.append(template)
        return found

    def supports(self, measure: Any) -> bool:
        """Whether ragmeter computes ``measure`` with the semantics ir_measures gives it.

        Parameters
        ----------
        measure
            An ir_measures measure.

        Returns
        -------
        bool
            True when the rule of the module documentation takes it.
        """
        key = repr(measure)
        if key not in self._supported:
            self._supported[key] = _ragmeter_measure(measure) is not None
        return self._supported[key]

    def _evaluator(self, measures: Iterable[Any], qrels: Any) -> RagmeterEvaluator:
        wanted = list(measures)
        refused = [m for m in wanted if not self.supports(m)]
        if refused:
            raise ValueError(f"the ragmeter provider does not compute {refused}")
        return RagmeterEvaluator(wanted, qrels)

    def is_available(self) -> bool:
        """Always: ragmeter computes in its own core."""
        return True


def _provider() -> RagmeterProvider:
    registry = ir_measures.providers.registry
    existing = registry.get(NAME)
    if isinstance(existing, RagmeterProvider):
        return existing
    provider = RagmeterProvider()
    ir_measures.providers.register(provider)
    return provider


def install() -> RagmeterProvider:
    """Register ragmeter's provider with ir_measures and put it first in
    ``ir_measures.DefaultPipeline`` (idempotent).

    Returns
    -------
    RagmeterProvider
        The provider (``ir_measures.providers.registry["ragmeter"]``).

    Examples
    --------
    >>> import ir_measures
    >>> provider = install()
    >>> ir_measures.DefaultPipeline.providers[0] is provider
    True
    >>> provider.supports(ir_measures.nDCG @ 10), provider.supports(ir_measures.RR @ 10)
    (True, False)
    >>> uninstall()
    """
    provider = _provider()
    pipeline = ir_measures.DefaultPipeline.providers
    pipeline[:] = [p for p in pipeline if not isinstance(p, RagmeterProvider)]
    pipeline.insert(0, provider)
    return provider


def uninstall() -> None:
    """Take ragmeter's provider out of ``ir_measures.DefaultPipeline`` (it stays registered,
    for ``ir_measures.providers.registry["ragmeter"]``)."""
    pipeline = ir_measures.DefaultPipeline.providers
    pipeline[:] = [p for p in pipeline if not isinstance(p, RagmeterProvider)]


def installed() -> bool:
    """Whether ragmeter's provider is first in ``ir_measures.DefaultPipeline``."""
    pipeline = ir_measures.DefaultPipeline.providers
    return bool(pipeline) and isinstance(pipeline[0], RagmeterProvider)
