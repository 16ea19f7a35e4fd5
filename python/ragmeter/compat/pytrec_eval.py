"""pytrec_eval's API on ragmeter's core: change ``import pytrec_eval`` to
``from ragmeter.compat import pytrec_eval``.

``RelevanceEvaluator(qrels, measures).evaluate(run)`` gives pytrec_eval's
``{query_id: {measure: value}}`` for the queries both judged and ranked, with trec_eval's
values where a measure is undefined (``zero_division="trec_eval"``). Measure names are read as
:func:`ragmeter.parse_measures` reads them (trec_eval's, ``P_5,10`` and the groups included); a
measure two names give (``official`` and ``set`` share ``num_q``...) is computed once, as
pytrec_eval does.

As pytrec_eval: ``runid`` is 0.0 (a dict has no run tag); ``all_trec`` is trec_eval 9's group
(without ``rbp``, ``rbp_resid`` and ``unj_*``, which trec_eval 10 added; named alone they are
computed); a measure list that is empty gives an empty dict per query; ``iprec_at_recall``
and ``11pt_avg`` are 0.0 where trec_eval 10 leaves them undefined (a query without relevant
documents: trec_eval 10 prints -nan, pytrec_eval 0), so a mean over queries stays a number.

Deliberate differences from pytrec_eval (pytrec-eval-terrier 0.5): ``relstring`` is its text
(pytrec_eval gives 0.0); a ``relevance_level`` that is not > 0 is refused (pytrec_eval reads
0 and -1 as "every judged document is relevant"); an unknown measure, or a judgment or score
that is not a number, raises a :class:`~ragmeter.InvalidInputError` naming it (pytrec_eval
ignores the measure or fails in C); ties are broken as trec_eval 10 breaks them (pytrec_eval
too), and ``iprec_at_recall``/``11pt_avg`` round recall levels as trec_eval 10 does
(pytrec_eval as 9).
"""

from __future__ import annotations

import io
import math
import os
import tempfile
from collections.abc import Iterable, Mapping
from typing import IO, Any

from ..exceptions import InputTypeError
from ..io.trec import read_trec_qrels, read_trec_run
from ..options import EvaluationOptions
from ..ranking.columns import MIN_GEO_MEAN
from ..ranking.declarations import FAMILIES, NICKNAMES
from ..ranking.functions import ranking_metrics
from ..ranking.names import parse_measures

__all__ = [
    "RelevanceEvaluator",
    "compute_aggregated_measure",
    "parse_qrel",
    "parse_run",
    "supported_measures",
    "supported_nicknames",
]

#: trec_eval's measure names (as ``-m`` takes them), as pytrec_eval's ``supported_measures``.
supported_measures: frozenset[str] = frozenset(
    f.trec_name for f in FAMILIES if f.trec_name is not None
)
#: trec_eval's groups, as pytrec_eval's ``supported_nicknames``.
supported_nicknames: frozenset[str] = frozenset(NICKNAMES)


class RelevanceEvaluator:
    """pytrec_eval's evaluator: the judgments and measures once, then ``evaluate(run)``.

    Parameters
    ----------
    query_relevance
        ``{query_id: {doc_id: grade}}``.
    measures
        Measure names (a set, as pytrec_eval takes them, or any iterable of names).
    relevance_level
        The grade from which a document is relevant (trec_eval ``-l``; > 0).
    judged_docs_only_flag
        Remove the unjudged documents from the rankings first (trec_eval ``-J``).

    Raises
    ------
    InvalidInputError
        A ``ValueError``: an unknown measure name or a ``relevance_level`` that is not > 0.

    Examples
    --------
    >>> evaluator = RelevanceEvaluator({"q1": {"d1": 1, "d2": 0}}, {"map", "P.1"})
    >>> evaluator.evaluate({"q1": {"d1": 0.5, "d2": 1.0}, "q9": {"d1": 1.0}})
    {'q1': {'P_1': 0.0, 'map': 0.5}}
    """

    def __init__(
        self,
        query_relevance: Mapping[Any, Mapping[Any, Any]],
        measures: Iterable[str],
        relevance_level: float = 1,
        judged_docs_only_flag: bool = False,
    ):
        if not isinstance(query_relevance, Mapping):
            raise InputTypeError(
                f"query_relevance must be a dict {{query_id: {{doc_id: grade}}}}, got "
                f"{type(query_relevance).__name__}"
            )
        if isinstance(measures, str):
            measures = [measures]
        measures = list(measures)
        self._runid = any("runid" in (NICKNAMES.get(name) or (name,)) for name in measures)
        self._measures = _combined(measures)
        # pytrec_eval leaves out the queries without any judgment (its issue 57).
        self._qrels = {q: judged for q, judged in query_relevance.items() if len(judged) > 0}
        # Checked now, as pytrec_eval checks at construction.
        self._options = EvaluationOptions(
            relevance_threshold=relevance_level, judged_docs_only=judged_docs_only_flag
        )

    def evaluate(self, scores: Mapping[Any, Mapping[Any, float]]) -> dict[Any, dict[str, Any]]:
        """``{query_id: {measure: value}}`` for the queries both judged and in ``scores``.

        Parameters
        ----------
        scores
            The run, ``{query_id: {doc_id: score}}``.

        Returns
        -------
        dict
            Per query (in the order of ``scores``), each measure's value: a float, or a str
            for ``relstring``. Empty when no query is both judged and ranked, or no measure
            has a value.
        """
        if not scores:
            return {}
        if not isinstance(scores, Mapping):
            raise InputTypeError(
                f"scores must be a dict {{query_id: {{doc_id: score}}}}, got "
                f"{type(scores).__name__}"
            )
        common = [q for q in scores if q in self._qrels]
        if not common:
            return {}
        if not self._measures:
            # pytrec_eval: an empty dict for each query both judged and ranked.
            return {q: {} for q in common}
        values = ranking_metrics(
            {q: self._qrels[q] for q in common},
            {q: scores[q] for q in common},
            metrics=self._measures,
            average=None,
            zero_division="trec_eval",
            relevance_threshold=self._options.relevance_threshold,
            judged_docs_only=self._options.judged_docs_only,
        )
        geometric = {m.name for m in self._measures if m.family.summary == "geometric"}
        per_query = {
            q: {name: _value(values[name][q], name in geometric) for name in values}
            for q in values.query_ids
        }
        if self._runid:
            for query_values in per_query.values():
                query_values["runid"] = 0.0
        return per_query


def _combined(measures: Iterable[str]) -> list[Any]:
    """The measures of ``measures`` combined as pytrec_eval combines them: groups expanded,
    the parameters a family is given merged (``ndcg_cut.1,4`` and ``ndcg_cut_15`` are
    ndcg_cut at 1, 4 and 15), a family named bare adding trec_eval's defaults only when it is
    given no parameters elsewhere, each measure once; ``runid`` left out (a dict has no run
    tag). Names in other syntaxes (``nDCG@10``) are measures of their own."""
    names = [
        n
        for name in measures
        for n in (NICKNAMES.get(name) or (name,))
        if not (name == "all_trec" and n in _NOT_IN_TREC_EVAL_9)
    ]
    bare: dict[str, list[Any]] = {}
    given: dict[str, list[Any]] = {}
    for name in sorted(set(names)):
        parsed = parse_measures(name)
        table = bare if name in supported_measures else given
        table.setdefault(parsed[0].family.name, []).extend(parsed)
    chosen = [m for family in given.values() for m in family]
    chosen += [m for name, family in bare.items() if name not in given for m in family]
    by_name: dict[str, Any] = {}
    for measure in chosen:
        by_name.setdefault(measure.name, measure)
    return [m for m in by_name.values() if m.family.name != "runid"]


#: The measures trec_eval 10 added to ``all_trec``, which pytrec_eval's (trec_eval 9's) lacks.
_NOT_IN_TREC_EVAL_9 = frozenset({"rbp", "rbp_resid", "unj"})


def _value(value: Any, geometric: bool) -> Any:
    if isinstance(value, str):
        return value
    if math.isnan(value):
        # trec_eval 10's -nan (iprec_at_recall, 11pt_avg without relevant documents):
        # pytrec_eval's trec_eval 9 gives 0.
        return 0.0
    if geometric:
        # trec_eval keeps log(max(value, MIN_GEO_MEAN)) per query for gm_*, and pytrec_eval
        # gives that (compute_aggregated_measure takes exp of the mean).
        return math.log(max(float(value), MIN_GEO_MEAN))
    return float(value)


def compute_aggregated_measure(measure: str, values: Iterable[float]) -> float:
    """pytrec_eval's ``compute_aggregated_measure``: the value over queries of ``measure``
    from its per-query ``values`` (as :meth:`RelevanceEvaluator.evaluate` gives them).

    The rule is the measure's (see its page): a sum for counts (``num_ret``, ``num_q``), the
    exp of the mean for the per-query logs of ``gm_map`` and ``gm_bpref``, else the mean.

    Examples
    --------
    >>> compute_aggregated_measure("map", [0.5, 1.0]), compute_aggregated_measure("num_ret", [2, 3])
    (0.75, 5.0)
    """
    numbers = [float(v) for v in values]
    summary = parse_measures(measure)[0].family.summary
    if summary in ("sum", "count"):
        return math.fsum(numbers)
    if not numbers:
        return math.nan
    mean = math.fsum(numbers) / len(numbers)
    return math.exp(mean) if summary == "geometric" else mean


def _read(reader: Any, source: str | os.PathLike[str] | IO[str]) -> Any:
    """Read a TREC file given as a path or an open text file (pytrec_eval takes the latter)."""
    if isinstance(source, str | os.PathLike):
        return reader(source)
    if not isinstance(source, io.IOBase) and not hasattr(source, "read"):
        raise InputTypeError(f"expected a path or an open file, got {type(source).__name__}")
    text = source.read()
    data = text.encode("utf-8") if isinstance(text, str) else text
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, os.path.basename(getattr(source, "name", "trec.txt")))
        with open(path, "wb") as copy:
            copy.write(data)
        return reader(path)


def parse_qrel(f_qrel: str | os.PathLike[str] | IO[str]) -> dict[str, dict[str, int]]:
    """pytrec_eval's ``parse_qrel``: a qrels file (path or open file) as
    ``{query_id: {doc_id: grade}}``.

    Examples
    --------
    >>> parse_qrel(io.StringIO("q1 0 d1 2\\n"))
    {'q1': {'d1': 2}}
    """
    return _read(read_trec_qrels, f_qrel)  # type: ignore[no-any-return]


def parse_run(f_run: str | os.PathLike[str] | IO[str]) -> dict[str, dict[str, float]]:
    """pytrec_eval's ``parse_run``: a run file (path or open file) as
    ``{query_id: {doc_id: score}}``.

    Examples
    --------
    >>> parse_run(io.StringIO("q1 Q0 d1 1 0.5 tag\\n"))
    {'q1': {'d1': 0.5}}
    """
    return _read(read_trec_run, f_run)  # type: ignore[no-any-return]
