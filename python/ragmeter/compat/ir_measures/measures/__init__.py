"""ir_measures' measure objects (``ir_measures.measures``): one per family with an
ir_measures name (:data:`ragmeter.ranking.FAMILIES`), and ir_measures' aliases (``MAP`` is
``AP``, ``MRR`` is ``RR``, ``SetRelP`` is ``SetP(relative=True)``...)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import Any

from ....ranking.declarations import FAMILIES
from ....ranking.names import parse_measures
from .._calc import CalcResults, Metric, aggregate, calculate, per_query

__all__ = [
    "ALIASES",
    "MEASURES",
    "Measure",
]


class Measure:
    """A measure as ir_measures writes it: a name, parameters and a cutoff (``nDCG@10``,
    ``P(rel=2)@5``); calling it with parameters adds them before the cutoff, as ir_measures
    normalises them (``(IPrec@0.5)(judged_only=True)`` is ``IPrec(judged_only=True)@0.5``).
    Equal to (and hashed as) its name, so ``results[nDCG@10]`` and ``results["nDCG@10"]``
    both work.

    Examples
    --------
    >>> nDCG = Measure("nDCG")
    >>> nDCG@10, Measure("P")(rel=2)@5, (Measure("IPrec")@0.5)(judged_only=True)
    (nDCG@10, P(rel=2)@5, IPrec(judged_only=True)@0.5)
    """

    __slots__ = ("_base", "_cutoff", "_name", "_params")

    def __init__(
        self, name: str, params: dict[str, Any] | None = None, cutoff: object | None = None
    ):
        params = dict(params or {})
        # ir_measures' normal form: the cutoff (IPrec's recall level) is the @ part, a
        # cutoff after @ winning over one among the parameters.
        for key in ("cutoff", "recall") if name == "IPrec" else ("cutoff",):
            if key in params:
                given = params.pop(key)
                cutoff = given if cutoff is None else cutoff
        self._base = name
        self._params = params
        self._cutoff = cutoff
        shown = ", ".join(f"{key}={_shown(value)}" for key, value in self._params.items())
        self._name = (
            name + (f"({shown})" if shown else "") + (f"@{cutoff}" if cutoff is not None else "")
        )

    @classmethod
    def from_text(cls, text: str) -> Measure:
        """A measure of its ir_measures name (checked: an unknown name raises); its name,
        parameters and cutoff read as ir_measures reads them where they are literals."""
        parts = _parts(text)
        if parts is not None:
            base, params, cutoff = parts
            alias = ALIASES.get(base)
            if alias is not None:
                # MAP is AP, SetRelP is SetP(relative=True): ir_measures' aliases.
                base, params = alias._base, {**alias._params, **params}
            measure = cls(base, params, cutoff)
            parse_measures(str(measure))
            return measure
        parse_measures(text)
        measure = cls.__new__(cls)
        measure._base, measure._params, measure._cutoff, measure._name = text, {}, None, text
        return measure

    def __matmul__(self, cutoff: object) -> Measure:
        return Measure(self._base, self._params, cutoff)

    def __call__(self, **params: Any) -> Measure:
        return Measure(self._base, {**self._params, **params}, self._cutoff)

    def __str__(self) -> str:
        return self._name

    __repr__ = __str__

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Measure):
            return self._name == other._name
        return isinstance(other, str) and self._name == other

    def __hash__(self) -> int:
        return hash(self._name)

    def __lt__(self, other: Measure) -> bool:
        return self._name < str(other)

    @property
    def NAME(self) -> str:
        """The family's ir_measures name (``nDCG``)."""
        return self._base

    @property
    def params(self) -> dict[str, Any]:
        """The parameters, the cutoff as ``cutoff``."""
        return {**self._params, **({"cutoff": self._cutoff} if self._cutoff is not None else {})}

    def iter_calc(self, qrels: Any, run: Any) -> Iterable[Metric]:
        """``Metric`` rows of this measure for every judged query."""
        return per_query([self], qrels, run)

    def calc(self, qrels: Any, run: Any) -> CalcResults:
        """``CalcResults(value over the judged queries, per-query rows)``, as ir_measures'."""
        results = calculate([self], qrels, run)
        return CalcResults(results.aggregated[self], results.per_query)

    def calc_aggregate(self, qrels: Any, run: Any) -> float:
        """The value over the judged queries."""
        return aggregate([self], qrels, run)[self]


def _shown(value: Any) -> str:
    """A parameter value as written in the name; a dict (nDCG's gains) with sorted keys, so
    that equal parameters give equal names."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in sorted(value.items())) + "}"
    return repr(value)


_SYNTAX = re.compile(r"^(?P<base>[A-Za-z_]\w*)(?:\((?P<params>.*)\))?(?:@(?P<cutoff>[^()@]+))?$")


def _parts(text: str) -> tuple[str, dict[str, Any], object | None] | None:
    """``(name, parameters, cutoff)`` of ``Name(k=v, ...)@c`` with literal values, else None."""
    match = _SYNTAX.match(text.strip())
    if match is None:
        return None
    params: dict[str, Any] = {}
    if match["params"]:
        try:
            call = ast.parse(f"f({match['params']})", mode="eval").body
            assert isinstance(call, ast.Call) and not call.args
            params = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords if kw.arg}
        except (SyntaxError, ValueError, AssertionError):
            return None
    cutoff: object | None = None
    if match["cutoff"] is not None:
        try:
            cutoff = ast.literal_eval(match["cutoff"])
        except (SyntaxError, ValueError):
            return None
    return match["base"], params, cutoff


#: The families' ir_measures names as measure objects.
MEASURES: dict[str, Measure] = {
    f.ir_measures_name: Measure(f.ir_measures_name) for f in FAMILIES if f.ir_measures_name
}
#: ir_measures' other names of the same measures (``ir_measures.measures``' aliases).
ALIASES: dict[str, Measure] = {
    "MAP": MEASURES["AP"],
    "MRR": MEASURES["RR"],
    "NDCG": MEASURES["nDCG"],
    "BPref": MEASURES["Bpref"],
    "RPrec": MEASURES["Rprec"],
    "Precision": MEASURES["P"],
    "Recall": MEASURES["R"],
    "MAP_IA": MEASURES["AP_IA"],
    "α_DCG": MEASURES["alpha_DCG"],
    "α_nDCG": MEASURES["alpha_nDCG"],
    "SetRelP": MEASURES["SetP"](relative=True),
}

globals().update(MEASURES)
globals().update(ALIASES)
__all__ += [*MEASURES, *ALIASES]
