"""ranx's ``ranx.fusion.condorcet``: Condorcet fusion (Montague and Aslam, CIKM 2002) on
ragmeter's fusion kernel, and the helpers ranx's tests import: ``get_candidates(runs)`` (per
query, the documents any run ranks) and ``get_results(runs)`` (per query, each run's ranking).

Both take ranx's ``[run.run for run in runs]`` (``{query_id: {doc_id: score}}`` dicts, or the
drop-in's :class:`Run`), in the queries of the first run, and order each ranking as
ragmeter's kernel ranks it: score descending, ties by doc id descending (trec_eval), where
ranx keeps the order of insertion."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...._inputs import trec_order
from ....exceptions import InputTypeError, InvalidInputError
from .._data import Run
from ._methods import method_function

__all__ = ["condorcet", "get_candidates", "get_results"]

condorcet = method_function("condorcet")


class _Ranking(list[Any]):
    """One run's doc ids for one query, best first: a list that also equals ranx's numba
    ``TypedList`` of the same ids (a plain list never does: numba answers False), so that
    code comparing ranx's results keeps working."""

    def __eq__(self, other: object) -> bool:
        if hasattr(other, "_numba_type_") and isinstance(other, Iterable):
            return list(self) == list(other)
        return super().__eq__(other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # a list: unhashable


def _runs(runs: Any) -> list[Mapping[Any, Mapping[Any, Any]]]:
    """The runs' ``{query_id: {doc_id: score}}``, checked: every run ranks the queries of the
    first."""
    if isinstance(runs, str | bytes | Mapping) or not isinstance(runs, Iterable):
        raise InputTypeError(
            f"runs: expected a list of runs ([run.run for run in runs]), got {type(runs).__name__}"
        )
    read = []
    for position, run in enumerate(runs):
        data = run.run if isinstance(run, Run) else run
        if not isinstance(data, Mapping) or not all(isinstance(d, Mapping) for d in data.values()):
            raise InputTypeError(
                f"runs[{position}]: expected a run's {{query_id: {{doc_id: score}}}} (run.run), "
                f"got {type(run).__name__}"
            )
        read.append(data)
    if not read:
        raise InvalidInputError("runs: give at least one run")
    for position, data in enumerate(read[1:], start=1):
        lacking = [q for q in read[0] if q not in data]
        if lacking:
            raise InvalidInputError(
                f"runs[{position}]: lacks {len(lacking)} queries of runs[0] "
                f"({', '.join(map(repr, lacking[:5]))}); every run must have the first run's "
                "queries (an empty ranking {} for a query it retrieved nothing for)"
            )
    return read


def get_candidates(runs: Any) -> list[list[Any]]:
    """ranx's ``get_candidates(runs)``: per query of the first run (in its order), the doc ids
    that any run ranks, each once (in the order first seen, where ranx's is a set's).

    Raises
    ------
    InvalidInputError
        No run, a run lacking a query of the first.
    """
    read = _runs(runs)
    return [list(dict.fromkeys(d for run in read for d in run[q])) for q in read[0]]


def get_results(runs: Any) -> list[list[_Ranking]]:
    """ranx's ``get_results(runs)``: per query of the first run (in its order), each run's
    ranking, best first (``results[query][run]``, a list of doc ids).

    Raises
    ------
    InvalidInputError
        No run, a run lacking a query of the first.
    """
    read = _runs(runs)
    return [[_Ranking(trec_order(run[q])) for run in read] for q in read[0]]
