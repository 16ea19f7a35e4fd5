"""Measure names in every syntax, parsed in one place.

One string names one or several measures (:class:`Measure`, one value per query each):

* ragmeter's names: ``ndcg@10``, ``recall@100``, ``precision@5``, ``hit_rate@1``, ``mrr``,
  ``mrr@10``, ``map``, ``map@100``, ``r_precision``, ``ndcg``, ``bpref``, ...;
* trec_eval's (as ``trec_eval -m`` takes them): a family with parameters after a dot
  (``P.5,10,30``, ``ndcg_cut.5,10``, ``iprec_at_recall.0.1,0.5``, ``set_F.0.5``,
  ``ndcg.1=3,2=7``, ``utility.1,-1,0,0``, ``rbp.p=0.8``), a family alone with trec_eval's
  default parameters (``P`` is P_5 ... P_1000, ``success`` is success_1, _5 and _10; the name
  as trec_eval spells it, case included), the groups ``official`` and ``all_trec``, and the
  column names trec_eval prints (``P_5``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``);
* ir_measures' (``nDCG@10``, ``P(rel=2)@5``, ``AP(rel=2)``, ``RBP(p=0.8)``, ``IPrec@0.5``,
  ``nDCG(dcg='exp-log2')@10``, ``SDCG(max_rel=3)@10``, ``Judged@10``): parameters in
  parentheses as ``name=value`` (the family's :attr:`~MeasureFamily.parameters`, ``rel=`` a
  relevance threshold for that measure only, ``judged_only=``, ``gains=``, ``cutoff=``), and a
  parameter value that selects another family (:attr:`~MeasureFamily.ir_measures_variant`:
  ``nDCG(dcg='exp-log2')`` is gdeval's nDCG, ``NumRet(rel=1)`` is NumRelRet,
  ``RBP(rel=1)`` cwl_eval's binary RBP);
* ranx's (``ndcg@10``, ``map@100-l2``, ``hits@10``): ``-lN`` a relevance threshold for that
  measure only; ``hits``, ``hit_rate`` and ``precision`` alone are over the whole ranking
  (:attr:`~MeasureFamily.ranx_whole_ranking`), ``rbp.95`` is graded RBP with p = 0.95
  (:attr:`~MeasureFamily.ranx_persistence_name`). ranx's ``recall`` alone is trec_eval's
  ``recall`` (recall_5 ... recall_1000), as trec_eval names it; ranx's is ``set_recall``.

Names are matched case-insensitively, except trec_eval's bare families and groups, which are
exactly as trec_eval spells them, and an ir_measures name that another family spells the same
but for case (ir_measures' ``RBP`` is graded RBP as trectools computes it; ``rbp`` is
trec_eval's), which is matched as ir_measures spells it. A string that trec_eval would expand
(a family alone, with dot parameters, or a group) gives trec_eval's column names; any other
string is the name of its one measure, as written.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..exceptions import InputTypeError, InvalidInputError
from ..options import MAX_INDEX, EvaluationOptions, shorten
from .declarations import ANY_VALUE, FAMILIES, NICKNAMES, MeasureFamily, family, not_read

__all__ = [
    "METRIC_NAMES",
    "Measure",
    "MetricSpec",
    "check_metric_names",
    "measure_named",
    "parse_measures",
    "parse_metric",
]

#: ragmeter's own names of the common measures (``@k`` a positive integer cutoff). Every
#: other family and spelling is in :data:`ragmeter.ranking.FAMILIES`.
METRIC_NAMES = (
    "precision@k",
    "recall@k",
    "hit_rate@k",
    "mrr",
    "mrr@k",
    "map",
    "map@k",
    "r_precision",
    "ndcg",
    "ndcg@k",
)


@dataclass(frozen=True)
class Measure:
    """One measure: a family with its parameters; ``name`` is its key in results.

    Made by :func:`parse_metric` and :func:`parse_measures` from a name, which check it
    against the family's rules; the constructor itself checks nothing. Frozen.

    Parameters
    ----------
    name
        The measure's key in results, as written (``"ndcg@10"``, ``"P_5"``).
    family
        The :class:`~ragmeter.ranking.MeasureFamily` it belongs to.
    cutoff
        The depth k (None: the whole ranking).
    params
        The family's numeric parameters, in the order of its
        :attr:`~MeasureFamily.parameters` (recall level, multiple of R, β, coefficients,
        persistence, length...); empty for families without any.
    gains
        trec_eval's gain table, ``(level, gain)`` pairs (``ndcg.1=3,2=7``), or None: the
        grades are the gains.
    relevance_threshold
        The grade from which a document is relevant for this measure only
        (``"P(rel=2)@5"``, ``"map@100-l2"``); None: the evaluation's.
    judged_only
        Remove unjudged documents for this measure only (``"P(judged_only=True)@5"``); None:
        the evaluation's.
    trec_syntax
        Written in trec_eval's syntax (the ``ragmeter`` command merges those as trec_eval
        does).
    group
        The trec_eval group it was named through (``"official"``, ``"all_trec"``, ``"set"``),
        or None. A group's ``runid`` is left out where there is no run tag (mappings, tables).

    Examples
    --------
    >>> m = parse_metric("P(rel=2)@5")
    >>> m.name, m.kind, m.cutoff, m.relevance_threshold
    ('P(rel=2)@5', 'precision', 5, 2.0)
    """

    name: str
    family: MeasureFamily
    cutoff: int | None = None
    params: tuple[float, ...] = ()
    gains: tuple[tuple[int, float], ...] | None = None
    relevance_threshold: float | None = None
    judged_only: bool | None = None
    trec_syntax: bool = False
    group: str | None = None

    @property
    def kind(self) -> str:
        """The family's canonical name (``"ndcg"``, ``"precision"``, ...)."""
        return self.family.name

    @property
    def k(self) -> int | None:
        """The cutoff (an alias of ``cutoff``)."""
        return self.cutoff

    def can_be_undefined(self) -> bool:
        """Whether some queries can leave the measure undefined (see the family's rule).

        Returns
        -------
        bool
            True when the family declares when it is undefined (:attr:`MeasureFamily.undefined`);
            such values follow ``zero_division``.

        Examples
        --------
        >>> parse_metric("recall@10").can_be_undefined()  # R = 0 divides by zero
        True
        >>> parse_metric("precision@10").can_be_undefined()  # divides by k
        False
        """
        return self.family.undefined is not None

    def kernel_args(self, options: EvaluationOptions) -> tuple[Any, ...]:
        """The measure as the Rust core takes it.

        Parameters
        ----------
        options
            The evaluation's options (``utility`` reads their ``collection_size``).

        Returns
        -------
        tuple
            ``(kernel, cutoff, params, gains, relevance_threshold)``: the kernel's name, the
            cutoff or None, the parameters as a tuple of floats, the gain table as a tuple of
            pairs or None, and the measure's own relevance threshold or None (hashable: the
            measures built from it are cached, see ``columns.kernel_measures``).

        Examples
        --------
        >>> from ragmeter.options import EvaluationOptions
        >>> parse_metric("ndcg@10").kernel_args(EvaluationOptions())
        ('ndcg', 10, (), None, None)
        """
        params = tuple(float(p) for p in self.params)
        if self.family.kernel == "utility":
            params += (float(options.collection_size),)
        gains = None if self.gains is None else tuple(tuple(pair) for pair in self.gains)
        return (self.family.kernel, self.cutoff, params, gains, self.relevance_threshold)


#: The old name of :class:`Measure`.
MetricSpec = Measure


def _alias_table() -> dict[str, MeasureFamily]:
    """Every spelling, lower case. ir_measures' names come last and only where the lower-case
    spelling is free (the others are matched exactly, see :data:`_BY_IR_NAME`)."""
    table: dict[str, MeasureFamily] = {}
    for fam in FAMILIES:
        for spelling in fam.names:
            if spelling == fam.ir_measures_name:
                continue
            key = spelling.lower()
            other = table.setdefault(key, fam)
            if other is not fam:
                raise RuntimeError(f"measure name {spelling!r} names {other.name} and {fam.name}")
    for fam in FAMILIES:
        if fam.ir_measures_name is not None:
            table.setdefault(fam.ir_measures_name.lower(), fam)
    return table


def _ir_name_table() -> dict[str, MeasureFamily]:
    table: dict[str, MeasureFamily] = {}
    for fam in FAMILIES:
        if fam.ir_measures_name is not None:
            other = table.setdefault(fam.ir_measures_name, fam)
            if other is not fam:
                raise RuntimeError(f"ir_measures name {fam.ir_measures_name!r} names two families")
    return table


_BY_ALIAS = _alias_table()
_BY_IR_NAME = _ir_name_table()
_BY_TREC_NAME = {f.trec_name: f for f in FAMILIES if f.trec_name is not None}


def _variant_table() -> dict[str, list[tuple[str, object, MeasureFamily]]]:
    """By the name of the family whose ir_measures name a variant extends: (parameter, value,
    variant family)."""
    table: dict[str, list[tuple[str, object, MeasureFamily]]] = {}
    for fam in FAMILIES:
        if fam.ir_measures_variant is not None:
            name, parameter, value = fam.ir_measures_variant
            base = _BY_IR_NAME[name]
            table.setdefault(base.name, []).append((parameter, value, fam))
    return table


_VARIANTS = _variant_table()

# The patterns of the syntaxes, as text: `re` compiles each on first use and keeps it (its
# cache), so a program that names only trec_eval's groups (the evaluate command's default)
# does not compile them at import (~0.5 ms).
_GENERAL = (
    r"^(?P<name>[\w\-]+?)"
    r"(?:\((?P<params>.*)\))?"
    r"(?:@(?P<cutoff>[0-9.eE+]+))?"
    r"(?:-l(?P<level>[0-9]+(?:\.[0-9]+)?))?$"
)
_RANX_PERSISTENCE = r"^(?P<name>[a-z_]+)[.@](?P<p>[0-9]+)(?:-l(?P<level>[0-9]+(?:\.[0-9]+)?))?$"
_BY_RANX_PERSISTENCE = {
    f.ranx_persistence_name: f for f in FAMILIES if f.ranx_persistence_name is not None
}
_TREC_COLUMN_LIST = r"^(?P<head>.+?)_(?P<params>[0-9.]+(?:,[0-9.]+)+)$"
_COLUMN = r"^(?P<name>.+?)_(?P<param>[0-9]+(?:\.[0-9]+)?)$"


def _unknown(text: str) -> InvalidInputError:
    head = text.partition(".")[0]
    reason = not_read().get(head)
    if reason is not None:
        return InvalidInputError(
            f"metrics: {shorten(text)} is not a measure of these judgments: {reason}"
        )
    # Imported for this message only (difflib costs ~1 ms at import).
    import difflib

    close = difflib.get_close_matches(text.lower(), list(_BY_ALIAS), n=1, cutoff=0.75)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return InvalidInputError(
        f"metrics: unknown metric {shorten(text)}; {hint}valid metrics: "
        f"{', '.join(METRIC_NAMES)} (k a positive integer, e.g. 'ndcg@10'), every trec_eval "
        f"measure ('P.5,10', 'ndcg_cut_10', 'bpref', 'all_trec', ...), ir_measures' "
        f"('nDCG@10', 'P(rel=2)@5') and ranx's ('map@100-l2'); ragmeter.ranking.FAMILIES "
        f"lists them all"
    )


def _cutoff_value(text: str, measure: str) -> int:
    if not re.fullmatch(r"[0-9]+", text):
        raise InvalidInputError(
            f"metrics: {shorten(measure)}: the cutoff k must be a positive integer, got "
            f"{shorten(text)}"
        )
    # More digits than MAX_INDEX has cannot be in range (and int() refuses very long texts).
    k = int(text) if len(text.lstrip("0")) <= len(str(MAX_INDEX)) else MAX_INDEX + 1
    if not 1 <= k <= MAX_INDEX:
        raise InvalidInputError(
            f"metrics: {shorten(measure)}: the cutoff k must be a positive integer from 1 to "
            f"{MAX_INDEX}, got {shorten(text, 40)}"
        )
    return k


def _trec_cutoff(text: str, measure: str) -> int:
    """A cutoff of trec_eval's parameter list (``P.5,10``) read as trec_eval reads it, with
    C's ``atol``: the leading integer, the rest ignored (``ndcg_cut.23.4`` is ``ndcg_cut_23``,
    as trec_eval prints it); a text without a leading integer is 0, which trec_eval refuses
    as ragmeter does."""
    leading = re.match(r"[ \t\n\v\f\r]*\+?([0-9]+)", text)
    if leading is None:
        raise InvalidInputError(
            f"metrics: {shorten(measure)}: the cutoff k must be a positive integer, got "
            f"{shorten(text)} (trec_eval reads it as 0 and refuses it)"
        )
    return _cutoff_value(leading[1], measure)


def _number(text: str, measure: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InvalidInputError(
            f"metrics: {shorten(measure)}: {what} must be a number, got {shorten(text)}"
        ) from None
    if not math.isfinite(value):
        raise InvalidInputError(
            f"metrics: {shorten(measure)}: {what} must be finite, got {shorten(text)}"
        )
    return value


def _threshold(value: object, measure: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInputError(
            f"metrics: {shorten(measure)}: rel must be a number > 0, got {shorten(value)}"
        )
    if not (math.isfinite(value) and value > 0):
        raise InvalidInputError(
            f"metrics: {shorten(measure)}: rel must be a finite number > 0 (the grade from "
            f"which a document is relevant), got {value!r}"
        )
    return float(value)


def _single(fam: MeasureFamily, text: str, whole_ranking: bool = False, **fields: Any) -> Measure:
    """A measure of ``fam`` named ``text``, checked against the family's rules
    (``whole_ranking``: ranx's name alone, which needs no cutoff)."""
    cutoff = fields.get("cutoff")
    if fam.cutoff == "required" and cutoff is None and not whole_ranking:
        # ranx writes its relevance level last: hits@10-l2.
        example = re.sub(r"(-l[0-9.]+)?$", lambda m: "@10" + (m[1] or ""), text, count=1)
        raise InvalidInputError(
            f"metrics: {shorten(text)} needs a cutoff, e.g. {example!r} (k a positive integer)"
        )
    if fam.cutoff == "none" and cutoff is not None:
        reason = " (it is precision at R)" if fam.name == "r_precision" else ""
        raise InvalidInputError(
            f"metrics: {shorten(text)}: {fam.title} has no cutoff{reason}; name it without @k"
        )
    if fam.kernel is None and (fields.get("relevance_threshold") or fields.get("judged_only")):
        raise InvalidInputError(f"metrics: {shorten(text)}: {fam.name} takes no parameters")
    if "params" not in fields:
        named = _named_parameters(fam, {}, text)
        if named is not None:
            fields["params"] = named
    return Measure(name=text, family=fam, **fields)


def _trec_values(fam: MeasureFamily, params: str, text: str) -> list[str]:
    items = params.split(",")
    if any(item.strip() == "" for item in items):
        raise InvalidInputError(
            f"metrics: {shorten(text)}: empty parameter; trec_eval parameters are comma "
            f"separated, e.g. {fam.trec_name}.{_example(fam)}"
        )
    return [item.strip() for item in items]


def _example(fam: MeasureFamily) -> str:
    return {
        "cutoffs": "5,10",
        "levels": "0.1,0.5",
        "values": ",".join(f"{v:g}" for v in fam.trec_defaults) or "1",
        "pairs": "p=0.8" if fam.name.startswith("rbp") else "1=1,2=3",
        "none": "",
    }[fam.trec_parameters]


def _trec_expansion(fam: MeasureFamily, params: str | None, text: str) -> list[Measure]:
    """trec_eval's measures for ``NAME`` (params None: its defaults) or ``NAME.params``."""
    name = fam.trec_name or fam.name
    style = fam.trec_parameters
    if params is not None and style == "none":
        raise InvalidInputError(f"metrics: {shorten(text)}: trec_eval's {name} takes no parameters")
    if style == "cutoffs":
        if params is None:
            cutoffs = [int(c) for c in fam.trec_defaults]
        else:
            cutoffs = sorted(_trec_cutoff(v, text) for v in _trec_values(fam, params, text))
            if len(set(cutoffs)) != len(cutoffs):
                raise InvalidInputError(
                    f"metrics: {shorten(text)}: a cutoff is repeated (trec_eval refuses "
                    f"duplicate cutoffs)"
                )
        return [
            Measure(f"{name}_{k}", fam, cutoff=k, trec_syntax=True)
            for k in cutoffs  # trec_eval's column names
        ]
    if style == "levels":
        if params is None:
            levels = list(fam.trec_defaults)
        else:
            levels = sorted(_number(v, text, "a level") for v in _trec_values(fam, params, text))
            if len(set(levels)) != len(levels):
                raise InvalidInputError(
                    f"metrics: {shorten(text)}: a level is repeated (trec_eval refuses "
                    f"duplicate cutoffs)"
                )
        return [
            Measure(f"{name}_{level:3.2f}", fam, params=(level,), trec_syntax=True)
            for level in levels
        ]
    column = name if params is None else f"{name}_{params}"
    if style == "values":
        values = (
            list(fam.trec_defaults)
            if params is None
            else [_number(v, text, "a parameter") for v in _trec_values(fam, params, text)]
        )
        return [Measure(column, fam, params=_checked_values(fam, values, text), trec_syntax=True)]
    if style == "pairs":
        gains, named = _pairs(fam, params, text)
        measure_params: tuple[float, ...] = ()
        if fam.kernel in ("rbp", "rbp_residual"):
            measure_params = (named.pop("p", 0.9),)
        if named:
            raise InvalidInputError(
                f"metrics: {shorten(text)}: unknown parameter {sorted(named)[0]!r} of "
                f"{name}; it takes {'p= and ' if fam.kernel == 'rbp' else ''}gains as "
                f"level=gain pairs, e.g. {name}.{_example(fam)}"
            )
        if fam.kernel == "rbp_residual" and gains:
            raise InvalidInputError(f"metrics: {shorten(text)}: rbp_resid takes no gains (only p=)")
        gains_value: tuple[tuple[int, float], ...] | None = tuple(gains)
        if fam.kernel == "rbp_residual" or (fam.kernel == "ndcg" and not gains):
            # rbp_resid has no gains; ndcg's default gains are the grades (the linear kernel).
            gains_value = None
        return [Measure(column, fam, params=measure_params, gains=gains_value, trec_syntax=True)]
    return [Measure(name, fam, trec_syntax=True)]


def _checked_values(fam: MeasureFamily, values: list[float], text: str) -> tuple[float, ...]:
    if fam.kernel == "utility" and len(values) != 4:
        raise InvalidInputError(
            f"metrics: {shorten(text)}: utility takes exactly 4 coefficients (relevant "
            f"retrieved, non-relevant retrieved, relevant not retrieved, non-relevant not "
            f"retrieved), e.g. utility.1,-1,0,0"
        )
    if fam.kernel == "set_f" and len(values) != 1:
        raise InvalidInputError(
            f"metrics: {shorten(text)}: set_F takes one parameter (the weight of recall), e.g. "
            f"set_F.0.5"
        )
    _check_beta(fam, values, text)
    if fam.name == "relstring" and (len(values) != 1 or values[0] < 0 or values[0] % 1 != 0):
        raise InvalidInputError(
            f"metrics: {shorten(text)}: relstring takes one length, a whole number >= 0, "
            f"e.g. relstring.20"
        )
    return tuple(values)


def _check_beta(fam: MeasureFamily, values: Sequence[float], text: str) -> None:
    """set_F's β weighs recall against precision: a negative one gives no F measure (its
    denominator ``β P + R`` can be 0, and the value negative or infinite)."""
    if fam.kernel == "set_f" and values and values[0] < 0:
        raise InvalidInputError(
            f"metrics: {shorten(text)}: the weight of recall beta must be >= 0 (1 weighs "
            f"recall and precision equally), got {values[0]!r}"
        )


def _pairs(
    fam: MeasureFamily, params: str | None, text: str
) -> tuple[list[tuple[int, float]], dict[str, float]]:
    gains: list[tuple[int, float]] = []
    named: dict[str, float] = {}
    if params is None:
        return gains, named
    for item in _trec_values(fam, params, text):
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise InvalidInputError(
                f"metrics: {shorten(text)}: malformed pair {shorten(item)}; trec_eval's "
                f"{fam.trec_name} takes name=value pairs, e.g. {fam.trec_name}.{_example(fam)}"
            )
        number = _number(value, text, f"the value of {key!r}")
        if re.fullmatch(r"[+-]?[0-9]+", key.strip()):
            digits = key.strip().lstrip("+-").lstrip("0")
            if key.strip().startswith("-"):
                raise InvalidInputError(
                    f"metrics: {shorten(text)}: gain for level {shorten(key.strip())}: levels "
                    f"are judged grades >= 0"
                )
            if len(digits) > len(str(MAX_INDEX)) or int(digits or "0") > MAX_INDEX:
                raise InvalidInputError(
                    f"metrics: {shorten(text)}: gain for level {shorten(key.strip(), 40)}: "
                    f"levels are judged grades from 0 to {MAX_INDEX}"
                )
            level = int(digits or "0")
            if any(level == known for known, _ in gains):
                raise InvalidInputError(
                    f"metrics: {shorten(text)}: the gain of level {level} is given twice; "
                    f"give each level one gain"
                )
            gains.append((level, number))
        else:
            if key.strip() in named:
                raise InvalidInputError(
                    f"metrics: {shorten(text)}: {key.strip()!r} is given twice; give it once"
                )
            named[key.strip()] = number
    return gains, named


def _ir_params(params: str, text: str) -> dict[str, Any]:
    try:
        call = ast.parse(f"f({params})", mode="eval").body
    except SyntaxError:
        raise InvalidInputError(
            f"metrics: {shorten(text)}: cannot read the parameters {shorten(params)}; write "
            f"them as name=value, e.g. P(rel=2)@5"
        ) from None
    # f(rel=2)(rel=3) parses as a call of a call: one pair of parentheses only.
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise InvalidInputError(
            f"metrics: {shorten(text)}: the parameters are one list in parentheses, e.g. "
            f"P(rel=2, judged_only=True)@5"
        )
    if call.args:
        raise InvalidInputError(
            f"metrics: {shorten(text)}: parameters are name=value pairs, e.g. P(rel=2)@5"
        )
    values: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise InvalidInputError(f"metrics: {shorten(text)}: ** is not a parameter")
        if keyword.arg in values:
            raise InvalidInputError(
                f"metrics: {shorten(text)}: the parameter {keyword.arg} is given twice; give "
                f"it once"
            )
        try:
            values[keyword.arg] = ast.literal_eval(keyword.value)
        except ValueError:
            raise InvalidInputError(
                f"metrics: {shorten(text)}: the value of {keyword.arg} must be a literal "
                f"(a number, a string, True/False or a dict), got "
                f"{shorten(ast.unparse(keyword.value))}"
            ) from None
        if isinstance(keyword.value, ast.Dict) and len(values[keyword.arg]) != len(
            keyword.value.keys
        ):
            # A literal dict keeps the last of repeated keys silently.
            raise InvalidInputError(
                f"metrics: {shorten(text)}: a key of {keyword.arg} is given twice; give each "
                f"key once"
            )
    return values


def _family_named(name: str) -> MeasureFamily | None:
    return _BY_IR_NAME.get(name) or _BY_ALIAS.get(name.lower())


def _variant(fam: MeasureFamily, params: dict[str, Any], text: str) -> MeasureFamily:
    """The family that a parameter value selects (ir_measures' ``nDCG(dcg='exp-log2')``)."""
    for parameter, value, variant in _VARIANTS.get(fam.name, ()):
        if parameter not in params:
            continue
        if value == ANY_VALUE:
            return variant
        if params[parameter] == value and type(params[parameter]) is type(value):
            del params[parameter]
            return variant
    return fam


def _fixed(fam: MeasureFamily, params: dict[str, Any], text: str) -> None:
    for parameter, value in fam.fixed_parameters:
        if parameter in params:
            given = params.pop(parameter)
            if given != value or type(given) is not type(value):
                others = [
                    f"{p}={v!r} ({f.name})"
                    for p, v, f in _VARIANTS.get(fam.name, ())
                    if p == parameter and v != ANY_VALUE
                ]
                hint = f"; {', '.join(others)}" if others else ""
                raise InvalidInputError(
                    f"metrics: {shorten(text)}: {parameter} must be {value!r} for "
                    f"{fam.title}, got {shorten(given)}{hint}"
                )


def _named_parameters(
    fam: MeasureFamily, params: dict[str, Any], text: str
) -> tuple[float, ...] | None:
    """The family's named parameters in kernel order (their defaults where not given), or
    None for a family without them."""
    if not fam.parameters:
        return None
    values = []
    for name, default in fam.parameters:
        value = params.pop(name, default)
        if value is None:
            example = ", ".join(f"{n}={'3' if d is None else repr(d)}" for n, d in fam.parameters)
            raise InvalidInputError(
                f"metrics: {shorten(text)}: {fam.title} needs {name}=, e.g. "
                f"{fam.ir_measures_name or fam.name}({example})"
            )
        if isinstance(value, bool):
            value = float(value)
        if not isinstance(value, int | float):
            raise InvalidInputError(
                f"metrics: {shorten(text)}: {name} must be a number, got {shorten(value)}"
            )
        values.append(_number(str(value), text, name))
    _check_beta(fam, values, text)
    return tuple(values)


def _general(text: str) -> Measure | None:
    match = re.match(_GENERAL, text)
    if match is None:
        return None
    fam = _family_named(match["name"])
    if fam is None:
        return None
    fields: dict[str, Any] = {}
    params = _ir_params(match["params"], text) if match["params"] is not None else {}
    fam = _variant(fam, params, text)
    _fixed(fam, params, text)
    if "cutoff" in params:
        params["cutoff"] = str(params["cutoff"])
    if fam.trec_parameters == "levels" and "recall" in params:
        # ir_measures' IPrec(recall=0.5).
        params.setdefault("cutoff", str(params.pop("recall")))
    if match["cutoff"] is not None and "cutoff" in params:
        what = "recall level" if fam.trec_parameters == "levels" else "cutoff"
        raise InvalidInputError(
            f"metrics: {shorten(text)}: the {what} is given twice (in the parentheses and after "
            f"@); give it once"
        )
    cutoff_text = match["cutoff"] or params.pop("cutoff", None)
    if cutoff_text is not None:
        if fam.trec_parameters == "levels":
            # ir_measures' IPrec@0.5: the recall level after @.
            fields["params"] = (_number(cutoff_text, text, "the recall level"),)
        else:
            fields["cutoff"] = _cutoff_value(cutoff_text, text)
    elif fam.trec_parameters == "levels":
        raise InvalidInputError(
            f"metrics: {shorten(text)} needs a level, e.g. '{match['name']}@0.5'"
        )
    whole_ranking = False
    if (
        cutoff_text is None
        and fam.ranx_whole_ranking is not None
        and match["name"].lower() == fam.ranx_name
    ):
        # ranx's name alone is its k = 0: the whole ranking.
        fam = family(fam.ranx_whole_ranking)
        whole_ranking = True
    if match["level"] is not None:
        if fam.threshold_unused and fam.ranx_name is None:
            raise _unused_threshold(fam, text, "-l")
        fields["relevance_threshold"] = _threshold(float(match["level"]), text)
    if "rel" in params:
        if "relevance_threshold" in fields:
            raise InvalidInputError(f"metrics: {shorten(text)}: rel= and -l both given")
        if fam.threshold_unused:
            raise _unused_threshold(fam, text, "rel=")
        fields["relevance_threshold"] = _threshold(params.pop("rel"), text)
    if "judged_only" in params:
        judged_only = params.pop("judged_only")
        if not isinstance(judged_only, bool):
            raise InvalidInputError(f"metrics: {shorten(text)}: judged_only must be True or False")
        fields["judged_only"] = judged_only
    named = _named_parameters(fam, params, text)
    if named is not None:
        fields["params"] = named
    if "gains" in params:
        fields["gains"] = _gains_param(params.pop("gains"), text)
    if fam.trec_parameters == "values" and fam.kernel is not None and named is None:
        fields["params"] = _checked_values(fam, list(fam.trec_defaults), text)
    if fam.name == "relstring":
        fields["params"] = tuple(fam.trec_defaults)
    if params:
        accepted = [n for n, _ in fam.parameters] + [n for n, _ in fam.fixed_parameters]
        hint = f" ({fam.title} takes {', '.join(accepted)})" if accepted else ""
        raise InvalidInputError(
            f"metrics: {shorten(text)}: unknown parameter {sorted(params)[0]!r}{hint}"
        )
    return _single(fam, text, whole_ranking, **fields)


def _ranx_persistence(text: str) -> Measure | None:
    """ranx's ``rbp.95`` / ``rbp@95`` (p = 0.95, as ranx reads ``0.`` + the digits), with
    ranx's ``-lN`` (grades below N left out)."""
    match = re.match(_RANX_PERSISTENCE, text)
    if match is None:
        return None
    fam = _BY_RANX_PERSISTENCE.get(match["name"])
    if fam is None:
        return None
    persistence = float("0." + match["p"])
    if persistence == 0.0:
        raise InvalidInputError(
            f"metrics: {shorten(text)}: ranx's persistence p = 0.{match['p']} must be above 0, "
            f"e.g. '{match['name']}.95' (p = 0.95)"
        )
    level = match["level"]
    return Measure(
        name=text,
        family=fam,
        params=(persistence,),
        relevance_threshold=None if level is None else _threshold(float(level), text),
    )


def _unused_threshold(fam: MeasureFamily, text: str, given: str) -> InvalidInputError:
    scaled = [n for n, _ in fam.parameters if n in ("min_rel", "max_rel")]
    how = (
        "its gains are scaled from min_rel and max_rel"
        if scaled
        else "it does not read a relevance threshold (its gains are the grades)"
    )
    return InvalidInputError(
        f"metrics: {shorten(text)}: {fam.title} takes no {given}: {how}; drop {given}"
    )


def _gains_param(gains: object, text: str) -> tuple[tuple[int, float], ...]:
    if not isinstance(gains, dict) or not gains:
        raise InvalidInputError(
            f"metrics: {shorten(text)}: gains must be a dict {{grade: gain}}, e.g. "
            f"gains={{0: 0, 1: 1, 2: 3}}"
        )
    pairs = []
    for level, gain in gains.items():
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= MAX_INDEX:
            raise InvalidInputError(
                f"metrics: {shorten(text)}: gains are keyed by grades from 0 to {MAX_INDEX}, "
                f"got {shorten(level, 40)}"
            )
        if isinstance(gain, bool) or not isinstance(gain, int | float) or not math.isfinite(gain):
            raise InvalidInputError(
                f"metrics: {shorten(text)}: the gain of grade {level} must be a finite number"
            )
        pairs.append((level, float(gain)))
    return tuple(pairs)


def _column(text: str) -> Measure | None:
    """trec_eval's printed column names (``P_5``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``)
    and ragmeter's old ``name_k`` spelling."""
    match = re.match(_COLUMN, text)
    if match is None:
        return None
    fam = _BY_ALIAS.get(match["name"].lower())
    if fam is None:
        return None
    if fam.trec_parameters == "levels":
        level = _number(match["param"], text, "the level")
        return Measure(text, fam, params=(level,))
    if fam.cutoff == "none":
        return None
    return _single(fam, text, cutoff=_cutoff_value(match["param"], text))


def parse_measures(text: str) -> list[Measure]:
    """The measures a name stands for (one, or several for trec_eval groups and families).

    Parameters
    ----------
    text
        A name in ragmeter's, trec_eval's, ir_measures' or ranx's syntax (see the module
        documentation); white space around it is ignored.

    Returns
    -------
    list of Measure
        One measure, or those of a trec_eval family with parameters (``"P.5,10"``), named
        bare (``"P"``: trec_eval's default cutoffs) or a group (``"official"``,
        ``"all_trec"``), named as trec_eval prints them.

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``text`` is not a ``str``.
    InvalidInputError
        A ``ValueError``: an unknown name (the message lists the syntaxes), a cutoff that
        is not a positive integer, a parameter the family does not take or out of its range.

    Examples
    --------
    >>> [m.name for m in parse_measures("P.5,10")]
    ['P_5', 'P_10']
    >>> parse_measures("ndcg@10")[0].cutoff
    10
    >>> parse_measures("P(rel=2)@5")[0].relevance_threshold
    2.0
    """
    if not isinstance(text, str):
        raise InputTypeError(
            f"metrics: a measure name must be a str such as 'ndcg@10', got {shorten(text)} of "
            f"type {type(text).__name__}"
        )
    text = text.strip()
    if not text:
        raise _unknown(text)
    if text in NICKNAMES:
        measures: list[Measure] = []
        for name in NICKNAMES[text]:
            expansion = _trec_expansion(_BY_TREC_NAME[name], None, text)
            measures.extend(dataclasses.replace(m, group=text) for m in expansion)
        return measures
    persistence = _ranx_persistence(text)
    if persistence is not None:
        return [persistence]
    listed = re.match(_TREC_COLUMN_LIST, text)
    if listed is not None and listed["head"] in _BY_TREC_NAME:
        # pytrec_eval's and ir_measures' P_5,10: trec_eval's P.5,10 written as its columns.
        return _trec_expansion(_BY_TREC_NAME[listed["head"]], listed["params"], text)
    head, dot, params = text.partition(".")
    if dot and head in _BY_TREC_NAME and not re.fullmatch(r"[0-9]+", head):
        return _trec_expansion(_BY_TREC_NAME[head], params, text)
    if text in _BY_TREC_NAME:
        return _trec_expansion(_BY_TREC_NAME[text], None, text)
    for parser in (_general, _column):
        measure = parser(text)
        if measure is not None:
            return [measure]
    raise _unknown(text)


def parse_metric(name: str) -> Measure:
    """Parse one measure name (see :func:`parse_measures` for names that stand for several).

    ragmeter's names (``precision@k``, ``recall@k``, ``hit_rate@k``, ``mrr``, ``mrr@k``,
    ``map``, ``map@k``, ``r_precision``, ``ndcg``, ``ndcg@k``, ``bpref``, ...), trec_eval's
    (``P_5``, ``recall_100``, ``success_1``, ``recip_rank``, ``map_cut_10``, ``Rprec``,
    ``ndcg_cut_10``, ``set_F.0.5``), ir_measures' (``nDCG@10``, ``P(rel=2)@5``) and ranx's
    (``map@100-l2``) are accepted.

    Parameters
    ----------
    name
        The name of one measure.

    Returns
    -------
    Measure
        The parsed measure.

    Raises
    ------
    InputTypeError
        A ``TypeError``: ``name`` is not a ``str``.
    InvalidInputError
        A ``ValueError``: as for :func:`parse_measures`, and a name that stands for several
        measures (``"P.5,10"``, ``"official"``).

    Examples
    --------
    >>> m = parse_metric("ndcg_cut_10")
    >>> (m.kind, m.k)
    ('ndcg_cut', 10)
    >>> parse_metric("map@100-l2").relevance_threshold  # ranx's -l2: grades >= 2 relevant
    2.0
    """
    measures = parse_measures(name)
    if len(measures) != 1:
        raise InvalidInputError(
            f"metrics: {shorten(name)} stands for {len(measures)} measures "
            f"({', '.join(m.name for m in measures[:4])}{', ...' if len(measures) > 4 else ''}); "
            f"name one of them"
        )
    return measures[0]


def measure_named(name: Any) -> Measure:
    """The measure whose result name is ``name``: the key of a value in results and in saved
    files (``P_5``, ``ndcg@10``, ``relstring_10``).

    Every result name is one :func:`parse_metric` reads, except those of trec_eval's families
    whose parameters no column name spells alone (``relstring_10``, the column of
    ``relstring.10``), which are read back through their family's dot syntax.

    Parameters
    ----------
    name
        A measure's result name.

    Returns
    -------
    Measure
        The measure, whose :attr:`~Measure.name` is ``name``.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: not the result name of one measure.

    Examples
    --------
    >>> measure_named("relstring_10").family.name
    'relstring'
    >>> measure_named("ndcg@10").name
    'ndcg@10'
    """
    if not isinstance(name, str):
        raise InvalidInputError(f"metrics: a measure's name must be a str, got {shorten(name)}")
    try:
        measure = parse_metric(name)
    except (TypeError, ValueError):
        measure = None
    if measure is None or measure.name != name:
        head, _, params = name.partition("_")
        while params:
            if head in _BY_TREC_NAME:
                try:
                    found = parse_measures(f"{head}.{params}")
                except (TypeError, ValueError):
                    found = []
                if len(found) == 1 and found[0].name == name:
                    return found[0]
            more, _, params = params.partition("_")
            head = f"{head}_{more}"
    if measure is None:
        parse_metric(name)  # raises the parser's own message, with its suggestions
        raise AssertionError(name)
    if measure.name != name:
        raise InvalidInputError(
            f"metrics: {shorten(name)} is not a result name; the measure's name is {measure.name!r}"
        )
    return measure


def check_metric_names(names: Any, field: str) -> tuple[str, ...]:
    """A list of distinct, known metric names (a single string is refused: ``"mrr"`` is not
    the metrics ``m``, ``r``, ``r``), as a report being read must hold them.

    Parameters
    ----------
    names
        What the report holds.
    field
        The report's field, named in errors.

    Returns
    -------
    tuple of str
        The names.

    Raises
    ------
    InvalidInputError
        Not a non-empty list, an unknown name, a name given twice.

    Examples
    --------
    >>> check_metric_names(["mrr", "ndcg@10"], "metrics")
    ('mrr', 'ndcg@10')
    """
    if not isinstance(names, list | tuple) or not names:
        raise InvalidInputError(
            f"{field}: expected a non-empty list of metric names, got {shorten(names)}"
        )
    for name in names:
        try:
            parse_metric(name)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"{field}: {exc}") from None
    if len(set(names)) != len(names):
        raise InvalidInputError(f"{field}: {list(names)} names a metric more than once")
    return tuple(names)


def measures_of(metrics: Iterable[str | Measure] | str) -> list[Measure]:
    """Every measure of ``metrics`` (names, or measures already parsed), with distinct result
    names."""
    if isinstance(metrics, str | Measure):
        metrics = [metrics]
    elif not isinstance(metrics, Iterable):
        raise InputTypeError(
            f"metrics: must be a name or a list of names such as ['ndcg@10', 'map'], got "
            f"{shorten(metrics)}"
        )
    if type(metrics) in (list, tuple) and all(type(item) is str for item in metrics):
        # The commonest call, names only: parsed once per distinct list (a scorer called
        # per fold or per query names the same measures every time).
        return list(_parsed_names(tuple(metrics)))
    return _measures_of_items(metrics)


@functools.lru_cache(maxsize=256)
def _parsed_names(names: tuple[str, ...]) -> tuple[Measure, ...]:
    # Measures are frozen, so the cached tuple can be shared; errors are not cached.
    return tuple(_measures_of_items(names))


def _measures_of_items(metrics: Iterable[str | Measure]) -> list[Measure]:
    measures = [
        m
        for item in metrics
        for m in ([item] if isinstance(item, Measure) else parse_measures(item))
    ]
    if not measures:
        raise InvalidInputError("metrics: empty; name at least one metric, e.g. ['ndcg@10', 'mrr']")
    names = [m.name for m in measures]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InvalidInputError(f"metrics: {repeated} named more than once; name each measure once")
    return measures
