"""Measures as the columns of one table of per-query values, as the Rust core evaluates them
(``PreparedRankings.evaluate_columns``), read from their declarations: the kernel or the
special column (``runid``, ``num_q``, ``relstring``), trec_eval's ``-c`` rules, and how
trec_eval prints and summarises each.

Every evaluation builds its table from here: the library's
(:func:`~ragmeter.ranking.evaluation.compute_values`) and the ``ragmeter evaluate`` command's
on TREC files, which prints the table without importing numpy (it costs ~0.1 s of a small
command's start-up).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from .. import _core
from ..exceptions import InvalidInputError
from ..options import EvaluationOptions
from .names import Measure

__all__ = [
    "MIN_GEO_MEAN",
    "built_columns",
    "check_judgment_form",
    "column_args",
    "evaluated_measures",
    "judged_only",
    "kernel_measures",
    "needs_all_judged",
    "needs_ties",
    "report_columns",
]

#: trec_eval's floor of a value in a geometric mean (the core's constant).
MIN_GEO_MEAN: float = _core.MIN_GEO_MEAN


def judged_only(measure: Measure, options: EvaluationOptions) -> bool:
    """Whether ``measure`` is evaluated on the judged documents only (trec_eval ``-J``): its
    own ``judged_only``, else the evaluation's ``judged_docs_only``."""
    return options.judged_docs_only if measure.judged_only is None else measure.judged_only


def evaluated_measures(measures: Sequence[Measure], run_tag: str | None) -> list[Measure]:
    """The measures a table has: without a run tag, a group's ``runid`` (``official``,
    ``all_trec``) is left out (it has no value); ``runid`` named alone is refused.

    >>> from ragmeter.ranking import parse_measures
    >>> [m.name for m in evaluated_measures(parse_measures("official"), None)][:2]
    ['num_q', 'num_ret']
    """
    if run_tag is not None:
        return list(measures)
    for measure in measures:
        if measure.family.name == "runid" and not measure.group:
            raise InvalidInputError(
                "metrics: runid is the tag of a TREC run file; it has no value for "
                "rankings given as mappings or sequences"
            )
    return [m for m in measures if not (m.family.name == "runid" and m.group)]


def check_judgment_form(measures: Sequence[Measure], subtopics: bool) -> None:
    """Diversity measures read diversity judgments ``{doc: {subtopic: grade}}``, the others
    judgments ``{doc: grade}``: one evaluation has judgments of one form."""
    for measure in measures:
        if measure.family.subtopic_judgments and not subtopics:
            raise InvalidInputError(
                f"metrics: {measure.name} is a diversity measure: it needs judgments by "
                f"subtopic, {{query_id: {{doc_id: {{subtopic: grade}}}}}} (ir_measures' qrels "
                f"with an iteration column); these are {{doc_id: grade}}"
            )
        if subtopics and not measure.family.subtopic_judgments and measure.family.kernel:
            raise InvalidInputError(
                f"metrics: {measure.name} reads judgments {{doc_id: grade}}, but these are "
                f"diversity judgments {{doc_id: {{subtopic: grade}}}}: evaluate it in a "
                f"separate call from the diversity measures, with one grade per document (for "
                f"example the highest over the subtopics; a TREC qrels file is read that way "
                f"when no diversity measure is asked for)"
            )


def _resets_if_missing(measure: Measure) -> bool:
    reset = measure.family.reset_if_missing
    return reset == "always" or (
        reset == "unparameterized" and measure.name == measure.family.trec_name
    )


def column_args(measures: Sequence[Measure], options: EvaluationOptions) -> tuple[Any, ...]:
    """Each measure's column as the core takes it: ``(kind, kernel, length, judged_only,
    reset_if_missing, complete_summary_kernel)`` (hashable: see :func:`built_columns`).

    >>> from ragmeter.ranking import parse_metric
    >>> column_args([parse_metric("P@5")], EvaluationOptions())
    (('kernel', ('precision', 5, (), None, None), 0, False, False, None),)
    """
    columns: list[tuple[Any, ...]] = []
    for measure in measures:
        fam = measure.family
        complete = fam.complete_summary_kernel
        complete_args = None if complete is None else (complete, None, (), None, None)
        only = judged_only(measure, options)
        reset = _resets_if_missing(measure)
        if fam.name in ("runid", "num_q"):
            columns.append((fam.name, None, 0, only, reset, complete_args))
        elif fam.name == "relstring":
            columns.append(("relstring", None, int(measure.params[0]), only, reset, complete_args))
        else:
            columns.append(("kernel", measure.kernel_args(options), 0, only, reset, complete_args))
    return tuple(columns)


@functools.lru_cache(maxsize=256)
def built_columns(args: tuple[Any, ...]) -> _core.Columns:
    """The core's columns built from :func:`column_args`, once: a scorer called per query or
    per fold does not build them again (the core checks each measure against its kernel's
    declaration when it builds it). Cached by value; the built columns are immutable."""
    return _core.Columns(list(args))


def report_columns(measures: Sequence[Measure]) -> list[tuple[str, int, str, str, float, bool]]:
    """Each measure's column in trec_eval's report (``ValueTable.write_trec_report``): ``(name,
    column, shown, summary, value printed when undefined, printed per topic)``, shown
    ``"float"`` (``%6.4f``), ``"int"`` (``%ld``), ``"text"`` or ``"quoted"`` (``relstring``)."""
    columns: list[tuple[str, int, str, str, float, bool]] = []
    for column, measure in enumerate(measures):
        fam = measure.family
        if fam.value_type == "str":
            shown = "quoted" if fam.name == "relstring" else "text"
        else:
            shown = fam.value_type
        columns.append(
            (measure.name, column, shown, fam.summary, fam.trec_eval_undefined, fam.per_query)
        )
    return columns


def needs_all_judged(measures: Sequence[Measure], options: EvaluationOptions) -> bool:
    """Whether the rankings must be prepared with every judged document (not only those with
    a positive grade): the judgment-based measures and judged-only evaluation need them.

    Parameters
    ----------
    measures
        The measures to compute.
    options
        The evaluation's options (``judged_docs_only``).

    Returns
    -------
    bool
        True when ``judged_docs_only`` is set for the evaluation (or ``judged_only`` for one
        measure), for ``relstring``, and for the measures that read judged non-relevant documents
        (``bpref``, ``num_nonrel_judged_ret``...).

    Examples
    --------
    >>> from ragmeter.options import EvaluationOptions
    >>> from ragmeter.ranking import parse_metric
    >>> needs_all_judged([parse_metric("bpref")], EvaluationOptions())  # counts judged nonrel
    True
    >>> needs_all_judged([parse_metric("P@5")], EvaluationOptions())
    False
    """
    if options.judged_docs_only or any(m.judged_only for m in measures):
        return True
    if any(m.family.name == "relstring" for m in measures):
        return True
    numeric = tuple(m.kernel_args(options) for m in measures if m.family.kernel is not None)
    return bool(numeric) and kernel_measures(numeric).needs_all_judged()


def needs_ties(measures: Sequence[Measure], options: EvaluationOptions) -> bool:
    """Whether the rankings must be prepared with their groups of tied scores: the tie-aware
    measures (``ndcg_ta``, ``map_ta``, ...) read them.

    Examples
    --------
    >>> from ragmeter.options import EvaluationOptions
    >>> from ragmeter.ranking import parse_metric
    >>> needs_ties([parse_metric("ndcg_ta@10")], EvaluationOptions())
    True
    >>> needs_ties([parse_metric("ndcg@10")], EvaluationOptions())
    False
    """
    numeric = tuple(m.kernel_args(options) for m in measures if m.family.kernel is not None)
    return bool(numeric) and kernel_measures(numeric).needs_ties()


@functools.lru_cache(maxsize=256)
def kernel_measures(args: tuple[tuple[Any, ...], ...]) -> _core.Measures:
    """The core's measures built from :meth:`Measure.kernel_args` tuples, once: the same
    measures answer :func:`needs_all_judged` and evaluate the rankings (the core checks each
    against its kernel's declaration when it builds it). Cached by value; the built measures
    are immutable."""
    return _core.Measures(list(args))
