"""The input rules of a fusion, whatever the runs are read from (dicts, tables or TREC files
read by the core): the runs' names, the queries fused under a ``missing`` policy, a method's
parameters, the normalisation, the training queries of judgments."""

from __future__ import annotations

import math
import operator
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from ..exceptions import InvalidInputError
from ..io import read_qrels
from .declarations import METHODS, NORMALIZATIONS

__all__ = [
    "MAX_SEGMENTS",
    "MAX_WINDOW",
    "MISSING_POLICIES",
    "aligned_queries",
    "check_norm",
    "check_params",
    "check_run_list",
    "check_trained",
    "complete_params",
    "relevant_ids",
    "run_names",
    "train_with",
    "whole_number",
]

MISSING_POLICIES = ("raise", "empty", "intersect")

#: The most ProbFuse segments: a ranking of up to this many documents has one document per
#: segment already, and the training loops over every segment of every ranking.
MAX_SEGMENTS = 1_000_000
#: The widest SlideFuse window counted: wider reaches past every ranking of up to this many
#: documents, and the same window is used.
MAX_WINDOW = 1 << 40


def whole_number(argument: str, value: Any, low: int, high: int) -> int:
    """``value`` as an int from ``low`` to ``high``, or an InvalidInputError naming it."""
    try:
        number = None if isinstance(value, bool) else operator.index(value)
    except TypeError:
        number = None
    if number is None:
        raise InvalidInputError(
            f"{argument}: must be a whole number from {low} to {high:,}, got "
            f"{type(value).__name__} {str(value)[:40]!r}"
        )
    if not low <= number <= high:
        digits = len(str(abs(number))) if abs(number) < 10**4300 else "over 4,300"
        shown = str(number) if abs(number) < 10**30 else f"a {digits}-digit number"
        raise InvalidInputError(
            f"{argument}: must be a whole number from {low} to {high:,}, got {shown}"
        )
    return number


def check_run_list(runs: Sequence[Any]) -> None:
    """Refuse a single run or fewer than two."""
    if isinstance(runs, Mapping | str | os.PathLike):
        raise InvalidInputError(
            "runs: expected a list of runs (dicts, paths or tables), got a single run"
        )
    if len(runs) < 2:
        raise InvalidInputError(f"runs: fusion needs at least 2 runs, got {len(runs)}")


def run_names(runs: Sequence[Any], names: Sequence[str] | None) -> list[str]:
    """The names of the runs: ``names``, else a path's text, else ``run i``."""
    if names is not None:
        if len(names) != len(runs):
            raise InvalidInputError(f"names: {len(names)} names for {len(runs)} runs")
        return [str(n) for n in names]
    return [str(r) if isinstance(r, str | os.PathLike) else f"run {i}" for i, r in enumerate(runs)]


def aligned_queries(
    query_ids: Sequence[Collection[Any]], names: list[str], missing: str
) -> list[str]:
    """The queries fused, sorted: those of every run (``missing="raise"``, which refuses runs
    that differ, naming what each lacks; or ``"intersect"``), or of any run (``"empty"``)."""
    if missing not in MISSING_POLICIES:
        raise InvalidInputError(f"missing: {missing!r} is not one of {MISSING_POLICIES}")
    for name, ids in zip(names, query_ids, strict=True):
        for q in ids:
            if not isinstance(q, str):
                raise InvalidInputError(
                    f"run {name!r}: query id {q!r} is {type(q).__name__}; fusion reads str ids "
                    "(convert them with str(query_id))"
                )
    sets = [set(ids) for ids in query_ids]
    union = set().union(*sets)
    lacking = {n: sorted(union - s) for n, s in zip(names, sets, strict=True) if union - s}
    if lacking and missing == "raise":
        detail = "; ".join(
            f"{n!r} lacks {len(qs)}: {', '.join(map(repr, qs[:5]))}{' ...' if len(qs) > 5 else ''}"
            for n, qs in lacking.items()
        )
        raise InvalidInputError(
            f"runs: the runs do not have the same queries ({detail}); pass missing='empty' to "
            "fuse a lacking query as if that run retrieved nothing, or missing='intersect' to "
            "fuse only the queries every run has"
        )
    return sorted(set.intersection(*sets)) if missing == "intersect" else sorted(union)


def check_params(method: str, params: dict[str, Any], n_runs: int) -> dict[str, Any]:
    """``params`` of ``method`` checked (names, one weight per run, finite numbers), with the
    declared defaults."""
    if method not in METHODS:
        raise InvalidInputError(
            f"method: unknown fusion method {method!r}; one of {', '.join(METHODS)}"
        )
    decl = METHODS[method]
    allowed = set(decl.parameters) | ({decl.trained_parameter} if decl.trained_parameter else set())
    allowed.discard("n_segments")
    unknown = set(params) - allowed
    if unknown:
        raise InvalidInputError(
            f"{method}: unknown parameter(s) {sorted(unknown)}; "
            f"it takes {sorted(allowed) or 'none'}"
        )
    out: dict[str, Any] = dict(decl.defaults)
    out.update({k: v for k, v in params.items() if v is not None})
    weights = out.get("weights")
    if weights is not None:
        weights = [float(w) for w in weights]
        if len(weights) != n_runs:
            raise InvalidInputError(
                f"weights: {len(weights)} weights for {n_runs} runs; give one per run, in the "
                "order of the runs"
            )
        bad = [w for w in weights if not math.isfinite(w)]
        if bad:
            raise InvalidInputError(f"weights: {bad[0]} is not a finite number")
        out["weights"] = weights
    if out.get("w") is not None:
        out["w"] = whole_number("w", out["w"], 0, MAX_WINDOW)
    for name in ("probs", "log_odds"):
        if name in out:
            out[name] = [[float(x) for x in p] for p in out[name]]
    return out


def complete_params(
    method: str,
    given: dict[str, Any],
    n_runs: int,
    qrels: Any,
    learn: Callable[[], Any],
) -> dict[str, Any]:
    """The parameters ``method`` is fused with: ``given`` checked, a trained method's
    parameter learnt (``learn()``) from ``qrels`` when not given, every required one present."""
    checked = check_params(method, given, n_runs)
    decl = METHODS[method]
    if decl.trained_parameter and decl.trained_parameter not in checked:
        if qrels is None:
            raise InvalidInputError(
                f"{method}: a trained method needs its {decl.trained_parameter} or training "
                "judgments qrels= to learn them from"
            )
        checked[decl.trained_parameter] = learn()
    for required in decl.parameters:
        if required != "n_segments" and required not in checked:
            raise InvalidInputError(f"{method}: needs the parameter {required}")
    return checked


def check_norm(norm: str | None) -> None:
    aliases = {"min_max": "min-max", "min_max_inverted": "min-max-inverted"}
    if norm is not None and aliases.get(norm, norm) not in NORMALIZATIONS:
        raise InvalidInputError(
            f"norm: unknown normalisation {norm!r}; one of {', '.join(NORMALIZATIONS)} or None"
        )


def relevant_ids(qrels: Mapping[Any, Any], queries: list[str]) -> list[list[str]]:
    """The relevant documents (grade >= 1, as ranx) of each of ``queries``."""
    return [
        [str(d) for d, g in qrels.get(q, {}).items() if g is not None and float(g) >= 1]
        for q in queries
    ]


def check_trained(method: str, norm: str | None) -> None:
    """Refuse a method that learns nothing, and an unknown normalisation."""
    if method not in METHODS or METHODS[method].training is None:
        trained = [m for m, d in METHODS.items() if d.training]
        raise InvalidInputError(f"method: {method!r} is not a trained method; one of {trained}")
    check_norm(norm)


def train_with(
    qrels: Any,
    method: str,
    n_segments: int | None,
    names: list[str],
    query_ids: Sequence[Collection[str]],
    learn: Callable[[list[str], list[list[str]]], list[list[float]]],
) -> Any:
    """What trained ``method`` learns from training judgments ``qrels`` over runs named
    ``names`` whose queries are ``query_ids``: the training queries are those of ``qrels``,
    sorted, and every run must have them; ``learn(queries, relevant)`` learns from the runs.
    ``method`` and ``norm`` are checked first (:func:`check_trained`)."""
    judgments = read_qrels(qrels)
    queries = sorted(str(q) for q in judgments)
    judgments = {str(q): v for q, v in judgments.items()}
    for name, ids in zip(names, query_ids, strict=True):
        lacking = [q for q in queries if q not in ids]
        if lacking:
            raise InvalidInputError(
                f"run {name!r} lacks {len(lacking)} training queries of qrels "
                f"({', '.join(map(repr, lacking[:5]))}); train on queries every run has"
            )
    if method == "probfuse" and n_segments is None:
        raise InvalidInputError("probfuse: training needs n_segments (ranx tries 1 to 100)")
    if n_segments is not None:
        whole_number("n_segments", n_segments, 1, MAX_SEGMENTS)
    learnt = learn(queries, relevant_ids(judgments, queries))
    if METHODS[method].trained_parameter == "map_scores":
        return [v[0] for v in learnt]
    return learnt
