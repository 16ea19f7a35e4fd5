"""Every ranking measure, declared once.

A :class:`MeasureFamily` holds everything about one family of measures: its names in every
spelling (ragmeter's, trec_eval's, ir_measures' and ranx's), how it takes parameters, when it
is undefined and why, how a mean over queries is formed, its formula, its citation, and the
reference implementation its values are tested against. The name parser, the evaluation, the
``ragmeter`` command, the scikit-learn scorers, the generated documentation and the tests all
read :data:`FAMILIES`; adding a measure is one entry here (and its kernel in the Rust core,
``rust/core/src/ranking/``, when it needs a new one).

:data:`FAMILIES` is in trec_eval's order (its measure table), which is also the order in which
``ragmeter evaluate`` prints measures, as trec_eval does.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "ANY_VALUE",
    "DEFAULT_DECIMAL_LEVELS",
    "DEFAULT_TREC_CUTOFFS",
    "FAMILIES",
    "GRADE_RULES",
    "NICKNAMES",
    "GradeRule",
    "MeasureFamily",
    "ParameterStyle",
    "Summary",
    "family",
    "not_read",
]

#: How trec_eval reads the parameters after ``NAME.``: ``cutoffs`` (``P.5,10``: one value per
#: positive integer, sorted), ``levels`` (``iprec_at_recall.0.1,0.5``: one value per number,
#: sorted), ``values`` (``set_F.0.5``, ``utility.1,-1,0,0``: one value from all numbers),
#: ``pairs`` (``ndcg.1=3,2=7``, ``rbp.p=0.8``: one value, gains of relevance levels and
#: named values) or ``none``.
ParameterStyle = Literal["cutoffs", "levels", "values", "pairs", "none"]

#: How the value over all queries is formed: ``mean`` (added in trec_eval's query order, then
#: divided), ``geometric`` (trec_eval's gm_*: exp of the mean of log(max(value, 0.00001))),
#: ``sum`` (counts), ``count`` (the number of queries), ``run`` (the run's tag) or ``none``.
Summary = Literal["mean", "geometric", "sum", "count", "run", "none"]

#: How a family reads grades, fractional ones included (:attr:`MeasureFamily.grades`); the
#: rule of each, in words, is :data:`GRADE_RULES`. trec_eval reads integer grades only; ragmeter
#: reads any finite grade from mappings and tables (a TREC qrels file with ``float_grades``).
GradeRule = Literal["relevance", "gain", "gain_table", "scaled", "judged", "text", "none"]

#: Each :data:`GradeRule` in words (the measure pages show the rule of each family). An integer
#: grade is read as it always was: these rules only say what a fractional one means.
GRADE_RULES: dict[str, str] = {
    "relevance": "A document is relevant when its grade is at least the relevance threshold (1 "
    "by default), whatever the grade: 0.4 is not relevant at the default threshold, 1.0 and 2.5 "
    "are (lower the threshold, e.g. relevance_threshold=0.5, for grades in [0, 1]). A grade "
    "below 0 is in the pool but unjudged, 0 <= grade < threshold judged non-relevant.",
    "gain": "The grade is the gain (or its exponent, as the formula says), fractional or not: "
    "0.4 gains 0.4; grades <= 0 gain nothing. The relevance threshold does not change the gains "
    "unless the formula says so.",
    "gain_table": "Without gain pairs the grade is the gain, fractional or not. Gain pairs "
    "(trec_eval's ndcg.1=3,2=7, ir_measures' gains={...}) map integer grades to gains, so with "
    "gain pairs a judgment with a fractional grade is refused: it has no level to map.",
    "scaled": "The grade is clamped to [min_rel, max_rel] and scaled to [0, 1], fractional or not.",
    "judged": "Only whether a document is judged counts, not its grade.",
    "text": "A grade is shown as trec_eval would read it from a file, by its integer part (0.4 "
    "and 0.9 are 0, 2.5 is 2).",
    "none": "The grades are not read.",
}

#: trec_eval's default cutoffs of P, recall, map_cut, ndcg_cut and relative_P.
DEFAULT_TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: trec_eval's default recall levels of iprec_at_recall and 11pt_avg.
DEFAULT_DECIMAL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

_TREC = "trec_eval 10.0 (NIST, https://github.com/usnistgov/trec_eval)"
_BUCKLEY_VOORHEES = (
    "C. Buckley and E. M. Voorhees, 'Retrieval System Evaluation', in TREC: Experiment and "
    "Evaluation in Information Retrieval, MIT Press, 2005"
)
_JARVELIN = (
    "K. Järvelin and J. Kekäläinen, 'Cumulated gain-based evaluation of IR techniques', "
    "ACM TOIS 20(4), 2002"
)
#: In :attr:`MeasureFamily.ir_measures_variant`: the parameter may have any value.
ANY_VALUE = "<any value>"

_MOFFAT_ZOBEL = (
    "A. Moffat and J. Zobel, 'Rank-biased precision for measurement of retrieval "
    "effectiveness', ACM TOIS 27(1), 2008"
)
_GDEVAL = "gdeval.pl 1.2a (TREC Web track) through ir_measures 0.4 (provider gdeval)"
_CWL = "cwl_eval 1.0.12 through ir_measures 0.4 (provider cwl_eval)"
_CWL_CITATION = (
    "L. Azzopardi, P. Thomas and A. Moffat, 'cwl_eval: An Evaluation Tool for Information "
    "Retrieval', SIGIR 2019"
)
_NERR = (
    "L. Azzopardi, J. Mackenzie and A. Moffat, 'ERR is not C/W/L: Exploring the Relationship "
    "Between Expected Reciprocal Rank and Other Metrics', ICTIR 2021"
)
_CWL_FORMULA = (
    "the C/W/L expected utility sum over i <= 1000 of W_i g_i, W_i = C_1...C_(i-1) / (sum over "
    "m <= 1000 of C_1...C_(m-1)), g_i = (clamp(grade, min_rel, max_rel) - min_rel) / (max_rel "
    "- min_rel) (negative grades as 0; 0 unjudged and past the ranking)"
)
_CWL_DIFFERENCES = (
    "cwl_eval (as ir_measures runs it) reads the first 1000 ranks, and so does ragmeter; "
    "ir_measures breaks ties in scores by run order, ragmeter as trec_eval (doc id descending)."
)
_NDEVAL = "ndeval 4.5 (TREC Web track) as pyndeval 0.0.8 runs it, through ir_measures 0.4"
_CLARKE_2008 = (
    "C. L. A. Clarke, M. Kolla, G. V. Cormack, O. Vechtomova, A. Ashkan, S. Büttcher and I. "
    "MacKinnon, 'Novelty and Diversity in Information Retrieval Evaluation', SIGIR 2008"
)
_AGRAWAL = (
    "R. Agrawal, S. Gollapudi, A. Halverson and S. Ieong, 'Diversifying Search Results', WSDM 2009"
)
_DIVERSITY_UNDEFINED = "no judged document is relevant to any subtopic (ndeval then reports 0)"
_NOVELTY = (
    "the subtopics of a document are those it is judged relevant to (grade >= rel, default "
    "1); A counts the subtopics some document is relevant to; the novelty score of rank i is "
    "the sum over its subtopics s of (1 - alpha)^(documents above i relevant to s)"
)
_DIVERSITY_DIFFERENCES = (
    "pyndeval orders tied scores by doc id ascending, ragmeter as trec_eval (descending); "
    "pyndeval takes cutoffs up to 20, ragmeter any; ir_measures 0.4.3's pyndeval provider fails "
    "with judged_only=True (it indexes a generator), ragmeter removes the unjudged documents."
)
_RANX = (
    "E. Bassani, 'ranx: A Blazing-Fast Python Library for Ranking Evaluation and Comparison', "
    "ECIR 2022"
)
_RANX_TIES = (
    "ranx breaks ties in scores by insertion order, ragmeter as trec_eval (doc id descending)"
)
_MCSHERRY_NAJORK = (
    "F. McSherry and M. Najork, 'Computing Information Retrieval Performance Measures "
    "Efficiently in the Presence of Tied Scores', ECIR 2008"
)
_TIE_AWARE = (
    "the mean of the measure over every order of the documents with tied scores (McSherry and "
    "Najork's closed form, not an enumeration); the ranking is cut at max_docs first (in "
    "trec_eval's order), then the ties among the retrieved documents are averaged"
)
_TIE_AWARE_REFERENCE = (
    "the mean of the measure over every order of the tied documents, enumerated (up to 8 tied "
    "documents, random cases in cargo test and pytest)"
)
_BEIR = (
    "N. Thakur, N. Reimers, A. Rücklé, A. Srivastava and I. Gurevych, 'BEIR: A Heterogeneous "
    "Benchmark for Zero-shot Evaluation of Information Retrieval Models', NeurIPS 2021 "
    "(Datasets and Benchmarks)"
)
_R_ZERO = "the query has no relevant judged document (R = 0)"
_IDEAL_ZERO = "no judged document has a positive gain (ideal DCG = 0)"
_EMPTY = "nothing was retrieved"


@dataclass(frozen=True)
class MeasureFamily:
    """One family of ranking measures (see the module documentation).

    ``cutoff`` says whether ``name@k`` is ``required`` (a measure at a depth), ``optional``
    (the whole ranking without it) or refused (``none``). ``trec_defaults`` are the parameters
    trec_eval uses when the family is named bare (``-m P`` is ``-m P.5,10,...,1000``).

    Frozen; the families are declared once, in :data:`FAMILIES`.

    Parameters
    ----------
    name
        The canonical name (``"precision"``, ``"ndcg_cut"``), the family's key.
    title
        A title for people (``"Precision at k"``).
    kernel
        The Rust core's kernel that computes it, or None for the measures that are not
        numbers computed per ranking (``runid``, ``num_q``, ``relstring``).
    formula
        The definition, in plain text.
    undefined
        When a query leaves the measure undefined, and why (``"the query has no relevant
        judged document (R = 0)"``); None: always defined.
    cutoff
        ``"required"``, ``"optional"`` or ``"none"`` (default), as above.
    trec_name
        trec_eval's name (``"P"``), or None when trec_eval does not compute it.
    trec_parameters
        How trec_eval reads the parameters after ``NAME.`` (see :data:`ParameterStyle`);
        default ``"none"``.
    trec_defaults
        trec_eval's parameters when the family is named bare.
    aliases
        Other spellings ragmeter accepts (``"p"``, ``"prec"``).
    ir_measures_name
        ir_measures' name (``"P"``, ``"nDCG"``), or None.
    ranx_name
        ranx's name (``"precision"``), or None.
    ranx_whole_ranking
        For a family that needs a cutoff: the family ranx's name alone (without ``@k``) is a
        measure of, over the whole ranking as ranx computes it (``hits`` alone is ``hits`` over
        the ranking; ``precision`` alone is ``set_precision``); None: the name alone needs a
        cutoff, as the family's other names do.
    ranx_persistence_name
        ranx's name of the family with its persistence after a dot or ``@`` (``rbp.95`` and
        ``rbp@95`` are ``p=0.95``), ``-lN`` then leaving out the grades below N; None.
    value_type
        ``"float"`` (default), ``"int"`` (counts) or ``"str"`` (``runid``, ``relstring``).
    summary
        How the value over all queries is formed (see :data:`Summary`); default ``"mean"``.
    per_query
        Printed per query by ``ragmeter evaluate -q`` (trec_eval prints gm_*, num_q and runid
        only in the summary); default True.
    reset_if_missing
        trec_eval ``-c`` scores a judged topic missing from the run as a ranking of one
        unjudged document, then resets a few measures to 0 (or ``""``): ``"always"``, or
        ``"unparameterized"`` only when named without parameters (trec_eval compares the
        printed name with strcmp); None (default): no reset.
    complete_summary_kernel
        The kernel whose per-query values add up to the summary under ``missing="zero"``
        (trec_eval ``-c``), where that differs from the family's own; None (default).
    trec_eval_undefined
        What trec_eval prints for an undefined value (``zero_division="trec_eval"``): 0
        (default), or NaN where it divides 0 by 0.
    citation
        Where the measure is defined (default: trec_eval 10.0).
    reference
        The reference implementation its values are tested against.
    differences
        How ir_measures or ranx differ, in one place; default empty.
    threshold_unused
        The relevance threshold changes nothing: the gains are the grades (trec_eval's nDCG,
        where ranx would set those below its relevance level to 0) or come from the family's
        own parameters (min_rel/max_rel). ``rel=`` is refused, and ranx's ``-lN`` unless the
        family has a ranx name. Default False.
    subtopic_judgments
        Reads diversity judgments ``{query: {doc: {subtopic: grade}}}`` (and only those);
        default False.
    ir_measures_variant
        ir_measures' spelling when the family is another family's ir_measures name with a
        parameter value: ``(name, parameter, value)`` (``nDCG(dcg='exp-log2')``); with
        :data:`ANY_VALUE` any value selects it and is read as usual (``NumRet(rel=2)``).
        None (default) otherwise.
    parameters
        Named parameters (ir_measures' syntax ``NAME(p=0.8)``), in the order the kernel reads
        them: ``(name, default)``; a default of None makes the parameter required.
    fixed_parameters
        Parameters accepted with one value only, which changes nothing (ir_measures'
        defaults, such as ``dcg='log2'`` of nDCG): ``(name, value)``.
    ir_measures_examples
        Measures in ir_measures' syntax that name this family; each is tested per query
        against ``ir_measures_provider`` (pinned), so they are also the documented examples.
    ir_measures_provider
        The ir_measures provider whose semantics this family has, or None.
    grades
        How the family reads a grade, fractional ones included (see :data:`GRADE_RULES`):
        ``"relevance"`` (default: relevant when grade >= the relevance threshold),
        ``"gain"`` (the grade is the gain), ``"gain_table"`` (trec_eval's gain tables: with
        gain pairs, fractional grades are refused), ``"scaled"`` (cwl_eval's gains),
        ``"judged"`` (only whether a document is judged), ``"text"`` (``relstring``) or
        ``"none"``.
    beir_name
        BEIR's key prefix (``"NDCG"`` for ``NDCG@10``), for :mod:`ragmeter.compat.beir`; None.
    mteb_name
        mteb's key prefix (``"ndcg"`` for ``ndcg_at_10``), for :mod:`ragmeter.compat.mteb`;
        None.

    Examples
    --------
    >>> precision = family("precision")
    >>> precision.trec_name, precision.cutoff, precision.trec_defaults[:3]
    ('P', 'required', (5, 10, 15))
    >>> precision.names
    ('precision', 'p', 'prec', 'P')
    """

    name: str
    title: str
    kernel: str | None
    formula: str
    undefined: str | None = None
    cutoff: Literal["required", "optional", "none"] = "none"
    trec_name: str | None = None
    trec_parameters: ParameterStyle = "none"
    trec_defaults: tuple[float, ...] = ()
    aliases: tuple[str, ...] = ()
    ir_measures_name: str | None = None
    ranx_name: str | None = None
    ranx_whole_ranking: str | None = None
    ranx_persistence_name: str | None = None
    value_type: Literal["float", "int", "str"] = "float"
    summary: Summary = "mean"
    per_query: bool = True
    reset_if_missing: Literal["always", "unparameterized"] | None = None
    complete_summary_kernel: str | None = None
    trec_eval_undefined: float = 0.0
    citation: str = _TREC
    reference: str = "trec_eval 10.0 (the binary built from its sources) and pytrec_eval"
    differences: str = ""
    threshold_unused: bool = False
    subtopic_judgments: bool = False
    ir_measures_variant: tuple[str, str, object] | None = None
    parameters: tuple[tuple[str, float | None], ...] = ()
    fixed_parameters: tuple[tuple[str, object], ...] = ()
    ir_measures_examples: tuple[str, ...] = ()
    ir_measures_provider: str | None = None
    grades: GradeRule = "relevance"
    beir_name: str | None = None
    mteb_name: str | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """Every spelling, the canonical name first."""
        spellings = [self.name, *self.aliases]
        for extra in (self.trec_name, self.ir_measures_name, self.ranx_name):
            if extra is not None:
                spellings.append(extra)
        return tuple(dict.fromkeys(spellings))


FAMILIES: tuple[MeasureFamily, ...] = (
    MeasureFamily(
        name="runid",
        grades="none",
        title="Run tag",
        kernel=None,
        formula="the run tag (6th column) of the last line of the run file",
        trec_name="runid",
        value_type="str",
        summary="run",
        per_query=False,
    ),
    MeasureFamily(
        name="num_q",
        grades="none",
        title="Number of queries",
        kernel=None,
        formula="the number of queries evaluated (with missing='zero', every judged query)",
        trec_name="num_q",
        ir_measures_name="NumQ",
        ir_measures_examples=("NumQ",),
        ir_measures_provider="pytrec_eval",
        value_type="int",
        summary="count",
        per_query=False,
    ),
    MeasureFamily(
        name="num_ret",
        grades="none",
        title="Documents retrieved",
        kernel="num_ret",
        formula="|ranking| after the max_docs cut (with judged_docs_only, judged documents only)",
        trec_name="num_ret",
        ir_measures_name="NumRet",
        ir_measures_examples=("NumRet",),
        ir_measures_provider="pytrec_eval",
        value_type="int",
        summary="sum",
        reset_if_missing="always",
    ),
    MeasureFamily(
        name="num_rel",
        title="Relevant documents",
        kernel="num_rel",
        formula="R = |judged documents with grade >= relevance_threshold|",
        trec_name="num_rel",
        ir_measures_name="NumRel",
        ir_measures_examples=("NumRel",),
        ir_measures_provider="pytrec_eval",
        value_type="int",
        summary="sum",
        complete_summary_kernel="num_judged_positive",
        differences="With missing='zero' (-c) trec_eval's summary counts the judgments with a "
        "grade > 0 over all judged queries, whatever the relevance threshold; ragmeter does "
        "the same.",
    ),
    MeasureFamily(
        name="num_rel_ret",
        title="Relevant documents retrieved",
        kernel="num_rel_ret",
        formula="|relevant ∩ ranking|",
        trec_name="num_rel_ret",
        ir_measures_name="NumRelRet",
        ir_measures_variant=("NumRet", "rel", ANY_VALUE),
        ir_measures_examples=("NumRelRet", "NumRet(rel=2)"),
        ir_measures_provider="pytrec_eval",
        value_type="int",
        summary="sum",
    ),
    MeasureFamily(
        name="map",
        title="Average precision",
        kernel="average_precision",
        formula="AP@k = (1/R) * sum over relevant documents d ranked at r_d <= k of "
        "|relevant in top r_d| / r_d; the mean over queries is MAP",
        undefined=_R_ZERO,
        cutoff="optional",
        trec_name="map",
        aliases=("ap", "average_precision", "mean_average_precision"),
        ir_measures_name="AP",
        ranx_name="map",
        ir_measures_examples=("AP", "AP@5", "AP(rel=2)"),
        ir_measures_provider="pytrec_eval",
        citation=_BUCKLEY_VOORHEES,
        differences="map@k and ir_measures' AP@k are trec_eval's map_cut.k. ranx gives 0 "
        "where R = 0 (ragmeter: undefined, see zero_division); " + _RANX_TIES + ".",
    ),
    MeasureFamily(
        name="gm_map",
        title="Geometric mean average precision",
        kernel="average_precision",
        formula="per query AP; over queries exp(mean(log(max(AP, 0.00001))))",
        undefined=_R_ZERO,
        trec_name="gm_map",
        summary="geometric",
        per_query=False,
        citation="E. M. Voorhees, 'Overview of the TREC 2004 Robust Retrieval Track', TREC 2004",
    ),
    MeasureFamily(
        name="r_precision",
        title="R-precision",
        kernel="r_precision",
        formula="|relevant in top R| / R",
        undefined=_R_ZERO,
        trec_name="Rprec",
        aliases=("rprec", "r-precision"),
        ir_measures_name="Rprec",
        ranx_name="r-precision",
        ir_measures_examples=("Rprec", "Rprec(rel=2)"),
        ir_measures_provider="pytrec_eval",
        citation=_BUCKLEY_VOORHEES,
        differences="ranx gives 0 where R = 0 (ragmeter: undefined); " + _RANX_TIES + ".",
    ),
    MeasureFamily(
        name="bpref",
        title="Binary preference",
        kernel="bpref",
        formula="(1/R) * sum over retrieved relevant d of (1 - min(n_d, R) / min(N, R)), n_d "
        "the judged non-relevant documents ranked above d, N all judged non-relevant "
        "(the term is 1 when n_d = 0)",
        undefined=_R_ZERO,
        trec_name="bpref",
        ir_measures_name="Bpref",
        ranx_name="bpref",
        ir_measures_examples=("Bpref", "Bpref(rel=2)"),
        ir_measures_provider="pytrec_eval",
        differences="ranx counts documents judged with a negative grade as non-relevant "
        "(trec_eval: in the pool, not judged) and gives NaN (0/0) for a query without a judged "
        "non-relevant document (trec_eval: each retrieved relevant document counts 1); "
        + _RANX_TIES
        + ".",
        citation="C. Buckley and E. M. Voorhees, 'Retrieval Evaluation with Incomplete "
        "Information', SIGIR 2004",
    ),
    MeasureFamily(
        name="mrr",
        beir_name="MRR",
        mteb_name="mrr",
        title="Reciprocal rank",
        kernel="reciprocal_rank",
        formula="1 / rank of the first relevant document (within the top k if given), 0 if "
        "none; the mean over queries is MRR",
        cutoff="optional",
        trec_name="recip_rank",
        aliases=("rr", "reciprocal_rank", "mean_reciprocal_rank"),
        ir_measures_name="RR",
        ranx_name="mrr",
        ir_measures_examples=("RR", "RR(rel=2)"),
        ir_measures_provider="pytrec_eval",
        citation="E. M. Voorhees, 'The TREC-8 Question Answering Track Report', TREC 1999",
        differences="mrr@k is trec_eval's recip_rank after -M k (ir_measures' RR@k, whose "
        "provider is msmarco). " + _RANX_TIES + ".",
    ),
    MeasureFamily(
        name="iprec_at_recall",
        title="Interpolated precision at a recall level",
        kernel="iprec_at_recall",
        formula="max over ranks i with recall(i) >= level of precision(i), where the recall "
        "level is rounded to round(level * R) relevant documents (0 when R = 0)",
        undefined=_EMPTY,
        trec_eval_undefined=math.nan,
        trec_name="iprec_at_recall",
        trec_parameters="levels",
        trec_defaults=DEFAULT_DECIMAL_LEVELS,
        ir_measures_name="IPrec",
        parameters=(),
        ir_measures_examples=("IPrec@0.0", "IPrec@1.0"),
        ir_measures_provider="pytrec_eval",
        citation=_BUCKLEY_VOORHEES,
        differences="ir_measures' provider, pytrec_eval-terrier 0.5.11, rounds level * R to "
        "(long) (level * R + 0.9) relevant documents as trec_eval 9 did; ragmeter rounds to the "
        "nearest as trec_eval 10 does (the same at the levels 0 and 1).",
    ),
    MeasureFamily(
        name="precision",
        beir_name="P",
        mteb_name="precision",
        title="Precision at k",
        kernel="precision",
        formula="|relevant in top k| / k (k even when fewer than k documents were ranked)",
        cutoff="required",
        trec_name="P",
        trec_parameters="cutoffs",
        trec_defaults=DEFAULT_TREC_CUTOFFS,
        aliases=("p", "prec"),
        ir_measures_name="P",
        ranx_name="precision",
        ranx_whole_ranking="set_precision",
        ir_measures_examples=("P@5", "P(rel=2)@3", "P(judged_only=True)@5"),
        ir_measures_provider="pytrec_eval",
        citation=_BUCKLEY_VOORHEES,
        differences=_RANX_TIES + ".",
    ),
    MeasureFamily(
        name="relstring",
        grades="text",
        title="Relevance string",
        kernel=None,
        formula="one character per rank of the first n (default 10): the grade (> above 9), "
        "'-' not judged, '.' judged with a negative grade",
        trec_name="relstring",
        trec_parameters="values",
        trec_defaults=(10,),
        value_type="str",
        summary="none",
        reset_if_missing="unparameterized",
    ),
    MeasureFamily(
        name="recall",
        beir_name="Recall",
        mteb_name="recall",
        title="Recall at k",
        kernel="recall",
        formula="|relevant in top k| / R",
        undefined=_R_ZERO,
        cutoff="required",
        trec_name="recall",
        trec_parameters="cutoffs",
        trec_defaults=DEFAULT_TREC_CUTOFFS,
        aliases=("r",),
        ir_measures_name="R",
        ranx_name="recall",
        ir_measures_examples=("R@5", "R@100"),
        ir_measures_provider="pytrec_eval",
        citation=_BUCKLEY_VOORHEES,
        differences="ranx gives 0 where R = 0 (ragmeter: undefined); " + _RANX_TIES + ".",
    ),
    MeasureFamily(
        name="infap",
        title="Inferred average precision",
        kernel="infap",
        formula="(1/R) * sum over retrieved relevant d at 0-based index j of 1/(j+1) + "
        "(j/(j+1)) * ((rel + nonrel + unjudged above d) / j) * ((rel above d + ε) / (rel + "
        "nonrel above d + 2ε)), ε = 0.00001; documents judged -1 are in the pool, unjudged",
        undefined=_R_ZERO,
        trec_name="infAP",
        aliases=("inf_ap",),
        ir_measures_name="infAP",
        ir_measures_examples=("infAP", "infAP(rel=2)"),
        ir_measures_provider="pytrec_eval",
        citation="E. Yilmaz and J. A. Aslam, 'Estimating Average Precision with Incomplete and "
        "Imperfect Judgments', CIKM 2006",
    ),
    MeasureFamily(
        name="gm_bpref",
        title="Geometric mean bpref",
        kernel="bpref",
        formula="per query bpref; over queries exp(mean(log(max(bpref, 0.00001))))",
        undefined=_R_ZERO,
        trec_name="gm_bpref",
        summary="geometric",
        per_query=False,
    ),
    MeasureFamily(
        name="r_precision_mult",
        title="Precision at multiples of R",
        kernel="r_precision_mult",
        formula="precision at floor(m * R + 0.9) documents",
        undefined=_R_ZERO,
        trec_name="Rprec_mult",
        trec_parameters="levels",
        trec_defaults=(0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
    ),
    MeasureFamily(
        name="utility",
        title="Set utility",
        kernel="utility",
        formula="a * rel_ret + b * nonrel_ret + c * rel_not_ret + d * nonrel_not_ret with "
        "coefficients a,b,c,d (default 1,-1,0,0) and collection_size (trec_eval -N) for the "
        "documents not retrieved",
        trec_name="utility",
        trec_parameters="values",
        trec_defaults=(1.0, -1.0, 0.0, 0.0),
        reset_if_missing="unparameterized",
    ),
    MeasureFamily(
        name="11pt_avg",
        title="11-point interpolated average precision",
        kernel="eleven_point_average",
        formula="mean of iprec_at_recall over the recall levels (default 0.0, 0.1, ..., 1.0)",
        undefined=_EMPTY,
        trec_eval_undefined=math.nan,
        trec_name="11pt_avg",
        trec_parameters="values",
        trec_defaults=DEFAULT_DECIMAL_LEVELS,
        aliases=("eleven_point_average",),
        citation=_BUCKLEY_VOORHEES,
    ),
    MeasureFamily(
        name="bin_g",
        title="Binary G",
        kernel="bin_g",
        formula="(1/R) * sum over retrieved relevant d of 1 / log2(2 + judged-or-not "
        "non-relevant documents ranked above d)",
        undefined=_R_ZERO,
        trec_name="binG",
    ),
    MeasureFamily(
        name="g",
        grades="gain_table",
        title="Normalized gain",
        kernel="g",
        formula="trec_eval's G: gains discounted by log2(2 + ideal cost - gain so far), "
        "divided by the total ideal gain",
        undefined=_IDEAL_ZERO,
        trec_name="G",
        trec_parameters="pairs",
    ),
    MeasureFamily(
        name="dcg",
        grades="gain_table",
        threshold_unused=True,
        title="Discounted cumulative gain",
        kernel="dcg",
        formula="sum over ranks i of gain(grade_i) / log2(i + 1), gains from the gain table "
        "(default: the grade)",
        cutoff="optional",
        trec_name="dcg",
        trec_parameters="pairs",
        ranx_name="dcg",
        citation=_JARVELIN,
        differences="dcg@k cuts the ranking at k (trec_eval's dcg has no cutoff). ranx's dcg "
        "sets the gain of grades below its relevance level to 0; ragmeter's gains ignore the "
        "threshold, as trec_eval's; " + _RANX_TIES + ".",
    ),
    MeasureFamily(
        name="ideal_dcg",
        grades="gain_table",
        threshold_unused=True,
        title="Ideal discounted cumulative gain",
        kernel="ideal_dcg",
        formula="the DCG of the judged documents sorted by decreasing gain",
        trec_name="ideal_dcg",
        trec_parameters="pairs",
        citation=_JARVELIN,
    ),
    MeasureFamily(
        name="ndcg",
        grades="gain_table",
        threshold_unused=True,
        title="Normalized discounted cumulative gain",
        kernel="ndcg",
        formula="DCG@k / IDCG@k with DCG@k = sum over ranks i <= k of gain_i / log2(i + 1), "
        "gain the grade (grades <= 0 add nothing) or trec_eval's gain table, IDCG the DCG of "
        "all judged documents by decreasing gain, cut at k",
        undefined=_IDEAL_ZERO,
        cutoff="optional",
        trec_name="ndcg",
        trec_parameters="pairs",
        ir_measures_name="nDCG",
        ranx_name="ndcg",
        fixed_parameters=(("dcg", "log2"),),
        ir_measures_examples=(
            "nDCG",
            "nDCG@5",
            "nDCG(dcg='log2')@10",
            "nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7, 4: 15})@10",
            "nDCG(judged_only=True)@5",
        ),
        ir_measures_provider="pytrec_eval",
        citation=_JARVELIN,
        differences="The gains ignore the relevance threshold (trec_eval); ranx's ndcg sets "
        "the gain of documents below its relevance level to 0 and gives 0 where the ideal DCG "
        "is 0 (ragmeter: undefined); " + _RANX_TIES + ". ir_measures' nDCG(dcg='exp-log2') is "
        "gdeval's (see ndcg_exp).",
    ),
    MeasureFamily(
        name="ndcg_rel",
        grades="gain_table",
        title="nDCG averaged over the relevant documents",
        kernel="ndcg_rel",
        formula="the mean of nDCG at the rank of each relevant document (missing ones count "
        "at the end)",
        undefined=_IDEAL_ZERO,
        trec_name="ndcg_rel",
        trec_parameters="pairs",
    ),
    MeasureFamily(
        name="rndcg",
        grades="gain_table",
        title="nDCG averaged at the R levels",
        kernel="rndcg",
        formula="the mean of nDCG at the ranks where the ideal gain changes",
        undefined=_R_ZERO,
        trec_name="Rndcg",
        trec_parameters="pairs",
    ),
    MeasureFamily(
        name="ndcg_cut",
        beir_name="NDCG",
        mteb_name="ndcg",
        grades="gain",
        threshold_unused=True,
        title="nDCG at cutoffs (trec_eval)",
        kernel="ndcg",
        formula="nDCG@k with linear gains (see ndcg)",
        undefined=_IDEAL_ZERO,
        cutoff="required",
        trec_name="ndcg_cut",
        trec_parameters="cutoffs",
        trec_defaults=DEFAULT_TREC_CUTOFFS,
        citation=_JARVELIN,
    ),
    MeasureFamily(
        name="map_cut",
        beir_name="MAP",
        mteb_name="map",
        title="Average precision at cutoffs (trec_eval)",
        kernel="average_precision",
        formula="AP@k (see map)",
        undefined=_R_ZERO,
        cutoff="required",
        trec_name="map_cut",
        trec_parameters="cutoffs",
        trec_defaults=DEFAULT_TREC_CUTOFFS,
        citation=_BUCKLEY_VOORHEES,
    ),
    MeasureFamily(
        name="relative_precision",
        beir_name="R_cap",
        mteb_name="R_cap",
        title="Relative precision at k",
        kernel="relative_precision",
        formula="|relevant in top k| / min(k, R)",
        undefined=_R_ZERO,
        cutoff="required",
        trec_name="relative_P",
        trec_parameters="cutoffs",
        trec_defaults=DEFAULT_TREC_CUTOFFS,
        aliases=("r_cap", "capped_recall"),
        differences="BEIR's R_cap@k (capped recall, its custom_metrics.recall_cap) is this "
        "measure with relevant = grade > 0; BEIR divides by zero where R = 0 (ragmeter: "
        "undefined), and mteb's recall_cap gives None there.",
    ),
    MeasureFamily(
        name="hit_rate",
        beir_name="Accuracy",
        mteb_name="hit_rate",
        title="Hit rate (success) at k",
        kernel="success",
        formula="1 if a relevant document is in the top k, else 0",
        cutoff="required",
        trec_name="success",
        trec_parameters="cutoffs",
        trec_defaults=(1, 5, 10),
        aliases=("hitrate", "top_k_accuracy"),
        ir_measures_name="Success",
        ranx_name="hit_rate",
        ranx_whole_ranking="hit_rate",
        ir_measures_examples=("Success@1", "Success(rel=2)@5"),
        ir_measures_provider="pytrec_eval",
        citation="S. Tomlinson, trec_eval's success measure",
        differences="'hits@k' is ranx's count of relevant documents in the top k (see hits), "
        "not this. BEIR's Accuracy@k (custom_metrics.top_k_accuracy) is this measure with "
        "relevant = grade > 0, its ties in the order of the run's dict; mteb's HitRate@k is "
        "pytrec_eval's success. " + _RANX_TIES + ".",
    ),
    MeasureFamily(
        name="hits",
        title="Relevant documents in the top k",
        kernel="hits",
        formula="|relevant in top k| (a count per query; the mean over queries)",
        cutoff="required",
        ranx_name="hits",
        ranx_whole_ranking="hits",
        citation="ranx (E. Bassani, 'ranx: A Blazing-Fast Python Library for Ranking "
        "Evaluation and Comparison', ECIR 2022)",
        reference="ranx 0.3",
        differences=_RANX_TIES + ".",
    ),
    MeasureFamily(
        name="set_precision",
        title="Set precision",
        kernel="set_precision",
        formula="|relevant retrieved| / |retrieved|",
        undefined=_EMPTY,
        trec_name="set_P",
        ir_measures_name="SetP",
        fixed_parameters=(("relative", False),),
        ir_measures_examples=("SetP", "SetP(rel=2)"),
        ir_measures_provider="pytrec_eval",
    ),
    MeasureFamily(
        name="set_relative_precision",
        title="Set relative precision",
        kernel="set_relative_precision",
        formula="|relevant retrieved| / min(|retrieved|, R)",
        undefined=f"{_EMPTY}, or {_R_ZERO}",
        trec_name="set_relative_P",
        aliases=("SetRelP",),
        ir_measures_variant=("SetP", "relative", True),
        ir_measures_examples=("SetP(relative=True)", "SetRelP"),
        ir_measures_provider="pytrec_eval",
    ),
    MeasureFamily(
        name="set_recall",
        title="Set recall",
        kernel="set_recall",
        formula="|relevant retrieved| / R",
        undefined=_R_ZERO,
        trec_name="set_recall",
        ir_measures_name="SetR",
        ir_measures_examples=("SetR",),
        ir_measures_provider="pytrec_eval",
    ),
    MeasureFamily(
        name="set_map",
        title="Set average precision",
        kernel="set_map",
        formula="|relevant retrieved|² / (|retrieved| * R)",
        undefined=f"{_EMPTY}, or {_R_ZERO}",
        trec_name="set_map",
        ir_measures_name="SetAP",
        ir_measures_examples=("SetAP",),
        ir_measures_provider="pytrec_eval",
    ),
    MeasureFamily(
        name="set_f",
        title="Set F measure",
        kernel="set_f",
        formula="(β + 1) P R / (β P + R) over the retrieved set, β the relevance of recall "
        "to precision (default 1); 0 when nothing relevant is retrieved",
        undefined=_R_ZERO,
        trec_name="set_F",
        trec_parameters="values",
        trec_defaults=(1.0,),
        ir_measures_name="SetF",
        parameters=(("beta", 1.0),),
        ir_measures_examples=("SetF", "SetF(beta=0.5)"),
        ir_measures_provider="pytrec_eval",
        citation="C. J. van Rijsbergen, Information Retrieval, Butterworths, 1979",
    ),
    MeasureFamily(
        name="num_nonrel_judged_ret",
        title="Judged non-relevant documents retrieved",
        kernel="num_nonrel_judged_ret",
        formula="|retrieved documents judged with 0 <= grade < relevance_threshold|",
        trec_name="num_nonrel_judged_ret",
        value_type="int",
        summary="sum",
    ),
    MeasureFamily(
        name="rbp",
        grades="gain_table",
        title="Rank-biased precision",
        kernel="rbp",
        formula="(1 - p) * sum over ranks i of gain_i * p^(i-1), p the persistence (default "
        "0.9), gains from the gain table rescaled to [0, 1] when outside it",
        trec_name="rbp",
        trec_parameters="pairs",
        parameters=(("p", 0.9),),
        differences="ir_measures' RBP is another family: see rbp_graded and rbp_binary.",
        citation="A. Moffat and J. Zobel, 'Rank-biased precision for measurement of retrieval "
        "effectiveness', ACM TOIS 27(1), 2008",
        reference="trec_eval 10.0 on binary judgments (its graded rbp reads uninitialised "
        "variables and varies between builds)",
    ),
    MeasureFamily(
        name="rbp_resid",
        grades="judged",
        title="Residual of rank-biased precision",
        kernel="rbp_residual",
        formula="p^n + (1 - p) * sum over unjudged ranks i of p^(i-1) for a ranking of n "
        "documents, 0 when no retrieved document is unjudged (trec_eval)",
        trec_name="rbp_resid",
        trec_parameters="pairs",
        parameters=(("p", 0.9),),
        reset_if_missing="unparameterized",
        citation="A. Moffat and J. Zobel, 'Rank-biased precision for measurement of retrieval "
        "effectiveness', ACM TOIS 27(1), 2008",
    ),
    MeasureFamily(
        name="unjudged",
        grades="judged",
        title="Unjudged documents at k",
        kernel="unjudged",
        formula="|documents in the top k without a judgment (or judged negative)| / k",
        cutoff="required",
        trec_name="unj",
        trec_parameters="cutoffs",
        trec_defaults=(5, 10, 20),
        aliases=("unj",),
        reset_if_missing="always",
    ),
    # ---- ir_measures' families beyond trec_eval, with their provider's semantics ----
    MeasureFamily(
        name="err",
        grades="gain",
        threshold_unused=True,
        title="Expected reciprocal rank (gdeval)",
        kernel="err",
        formula="sum over ranks i <= k of (r_i / i) * prod over j < i of (1 - r_j), with "
        "r_i = (2^g_i - 1) / 2^4 for the grade g_i (0 when unjudged or not positive, 4 at most)",
        undefined="the query has no judged document with a grade > 0 (gdeval leaves it out; "
        "ir_measures then reports 0)",
        cutoff="optional",
        ir_measures_name="ERR",
        ir_measures_examples=("ERR@20", "ERR@5", "ERR@1"),
        ir_measures_provider="gdeval",
        citation="O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan, 'Expected Reciprocal Rank "
        "for Graded Relevance', CIKM 2009",
        reference=_GDEVAL,
        differences="gdeval refuses grades above 4 and query ids that are not numbers, and "
        "prints 5 decimals; ragmeter counts grades above 4 as 4 and keeps every digit. "
        "Without @k, the whole ranking.",
    ),
    MeasureFamily(
        name="ndcg_exp",
        grades="gain",
        threshold_unused=True,
        title="nDCG with exponential gains (gdeval)",
        kernel="ndcg_exp",
        formula="DCG@k / IDCG@k with DCG@k = sum over ranks i <= k of (2^g_i - 1) / ln(i + 1), "
        "grades <= 0 gaining nothing, IDCG the DCG of the positive grades in decreasing order, "
        "cut at k",
        undefined=_IDEAL_ZERO + " (gdeval leaves the query out; ir_measures then reports 0)",
        cutoff="optional",
        ir_measures_variant=("nDCG", "dcg", "exp-log2"),
        ir_measures_examples=("nDCG(dcg='exp-log2')@10", "nDCG(dcg='exp-log2')@3"),
        ir_measures_provider="gdeval",
        citation="C. Burges, T. Shaked, E. Renshaw, A. Lazier, M. Deeds, N. Hamilton and G. "
        "Hullender, 'Learning to Rank using Gradient Descent', ICML 2005",
        reference=_GDEVAL,
        differences="gdeval refuses grades above 4 and prints 5 decimals; ragmeter takes any "
        "grade and keeps every digit. The gains ignore the relevance threshold.",
    ),
    MeasureFamily(
        name="rbp_graded",
        grades="gain",
        threshold_unused=True,
        title="Rank-biased precision, graded (ir_measures' RBP)",
        kernel="rbp_graded",
        formula="(1 - p) * sum over ranks i <= k of g_i * p^(i-1), g_i the grade of a document "
        "judged with a grade > 0 (not rescaled; with ranx's rbp.95-lN, a grade >= N), else 0; "
        "p the persistence (default 0.8)",
        cutoff="optional",
        ir_measures_name="RBP",
        ranx_persistence_name="rbp",
        parameters=(("p", 0.8),),
        ir_measures_examples=("RBP", "RBP(p=0.8)", "RBP(p=0.5)@10"),
        ir_measures_provider="trectools",
        citation=_MOFFAT_ZOBEL,
        reference="trectools 0.0.50 (TrecEval.get_rbp, binary_topical_relevance=False) through "
        "ir_measures 0.4 (provider trectools, which ir_measures' default pipeline does not "
        "include: pin it)",
        differences="trectools averages the weights of documents with tied scores "
        "(average_ties); ragmeter breaks ties as trec_eval does. ir_measures' RBP(rel=...) is "
        "cwl_eval's binary RBP (rbp_binary); trec_eval's rbp rescales graded gains. ranx's "
        "rbp.95 is this family with p = 0.95 (tested against ranx 0.3); " + _RANX_TIES + ".",
    ),
    MeasureFamily(
        name="rbp_graded_residual",
        grades="judged",
        threshold_unused=True,
        title="Residual of graded rank-biased precision",
        kernel="rbp_graded_residual",
        formula="(1 - p) * sum over unjudged ranks i <= d of p^(i-1), plus p^d: d = k, or the "
        "length of the ranking without @k; unjudged means absent from the judgments",
        cutoff="optional",
        aliases=("RBP_residual",),
        parameters=(("p", 0.8),),
        citation=_MOFFAT_ZOBEL,
        reference="trectools 0.0.50 (the second value of TrecEval.get_rbp) on binary grades",
        differences="trectools' residual adds the weight of the documents with a grade > 0 "
        "minus the graded RBP (negative for grades above 1) and, without a depth, no tail "
        "(p^d = 0); ragmeter's is the weight of the unjudged ranks plus the tail after the "
        "ranking (Moffat and Zobel), equal to trectools' on binary grades with @k. "
        "trec_eval's rbp_resid is 0 when every retrieved document is judged.",
    ),
    MeasureFamily(
        name="rbp_binary",
        title="Rank-biased precision, binary (cwl_eval)",
        kernel="rbp_binary",
        formula="sum over ranks i <= 1000 of p^(i-1) * [g_i >= rel] / sum over i <= 1000 of "
        "p^(i-1) (cwl_eval's C/W/L form; (1 - p) * sum of p^(i-1) to 15 digits)",
        ir_measures_variant=("RBP", "rel", ANY_VALUE),
        parameters=(("p", 0.8),),
        ir_measures_examples=("RBP(rel=1)", "RBP(rel=2, p=0.9)"),
        ir_measures_provider="cwl_eval",
        citation=_MOFFAT_ZOBEL,
        reference=_CWL,
        differences="cwl_eval reads the first 1000 ranks (ir_measures' max_n); so does ragmeter.",
    ),
    MeasureFamily(
        name="judged",
        grades="judged",
        threshold_unused=True,
        title="Judged documents at k",
        kernel="judged",
        formula="|documents in the top min(k, retrieved) with a judgment (any grade)| / "
        "min(k, retrieved); the whole ranking without @k",
        undefined=_EMPTY,
        cutoff="optional",
        ir_measures_name="Judged",
        ir_measures_examples=("Judged@10", "Judged@1", "Judged"),
        ir_measures_provider="judged",
        citation="S. MacAvaney, OpenNIR's judged@k (ir_measures' judged provider)",
        reference="ir_measures 0.4 (provider judged)",
        differences="ir_measures breaks ties in scores by doc id ascending, ragmeter as "
        "trec_eval (descending).",
    ),
    MeasureFamily(
        name="accuracy",
        title="Accuracy (relevant above non-relevant)",
        kernel="accuracy",
        formula="1 - (sum over retrieved relevant d of the non-relevant documents above d) / "
        "(|non-relevant retrieved| * |relevant retrieved|) within the top k; unjudged "
        "documents are non-relevant",
        undefined="no relevant, or no non-relevant, document is retrieved (within the top k): "
        "ir_measures leaves the first out and divides by zero on the second",
        cutoff="optional",
        ir_measures_name="Accuracy",
        ir_measures_examples=("Accuracy", "Accuracy@10", "Accuracy(rel=2)"),
        ir_measures_provider="accuracy",
        citation="ir_measures' accuracy provider (B. Piwowarski)",
        reference="ir_measures 0.4 (provider accuracy)",
    ),
    MeasureFamily(
        name="sdcg",
        grades="scaled",
        threshold_unused=True,
        title="Scaled DCG (cwl_eval)",
        kernel="sdcg",
        formula="sum over ranks i <= k of g_i / log2(i + 1), divided by sum over i <= k of "
        "1 / log2(i + 1); g_i = (clamp(grade, min_rel, max_rel) - min_rel) / (max_rel - "
        "min_rel), 0 unjudged",
        cutoff="required",
        ir_measures_name="SDCG",
        parameters=(("min_rel", 0.0), ("max_rel", None)),
        fixed_parameters=(("dcg", "log2"),),
        ir_measures_examples=("SDCG(max_rel=4)@10", "SDCG(min_rel=1, max_rel=3)@5"),
        ir_measures_provider="cwl_eval",
        citation=_CWL_CITATION,
        reference=_CWL,
        differences=_CWL_DIFFERENCES,
    ),
    MeasureFamily(
        name="nerr8",
        grades="scaled",
        threshold_unused=True,
        title="Nearly expected reciprocal rank, eq. 8 (cwl_eval)",
        kernel="nerr8",
        formula=_CWL_FORMULA + "; C_i = 1 - g_i for i < k, 0 from k on",
        cutoff="required",
        ir_measures_name="NERR8",
        parameters=(("min_rel", 0.0), ("max_rel", None)),
        ir_measures_examples=("NERR8(max_rel=4)@10", "NERR8(min_rel=1, max_rel=2)@3"),
        ir_measures_provider="cwl_eval",
        citation=_NERR,
        reference=_CWL,
        differences=_CWL_DIFFERENCES,
    ),
    MeasureFamily(
        name="nerr9",
        grades="scaled",
        threshold_unused=True,
        title="Nearly expected reciprocal rank, eq. 9 (cwl_eval)",
        kernel="nerr9",
        formula=_CWL_FORMULA + "; C_i = (i / (i + 1)) * (1 - g_i) for i < k, 0 from k on",
        cutoff="required",
        ir_measures_name="NERR9",
        parameters=(("min_rel", 0.0), ("max_rel", None)),
        ir_measures_examples=("NERR9(max_rel=4)@10", "NERR9(max_rel=3)@5"),
        ir_measures_provider="cwl_eval",
        citation=_NERR,
        reference=_CWL,
        differences=_CWL_DIFFERENCES,
    ),
    MeasureFamily(
        name="nerr10",
        grades="scaled",
        threshold_unused=True,
        title="Nearly expected reciprocal rank, eq. 10 (cwl_eval)",
        kernel="nerr10",
        formula=_CWL_FORMULA + "; C_i = p * (1 - g_i), p the persistence (default 0.9)",
        ir_measures_name="NERR10",
        parameters=(("p", 0.9), ("min_rel", 0.0), ("max_rel", None)),
        ir_measures_examples=("NERR10(max_rel=4)", "NERR10(p=0.5, max_rel=3)"),
        ir_measures_provider="cwl_eval",
        citation=_NERR,
        reference=_CWL,
        differences=_CWL_DIFFERENCES,
    ),
    MeasureFamily(
        name="nerr11",
        grades="scaled",
        threshold_unused=True,
        title="Nearly expected reciprocal rank, eq. 11 (cwl_eval)",
        kernel="nerr11",
        formula=_CWL_FORMULA + "; C_i = ((i + 2T - 1) / (i + 2T))^2 * (1 - g_i), T the "
        "desired gain (default 1)",
        ir_measures_name="NERR11",
        parameters=(("T", 1.0), ("min_rel", 0.0), ("max_rel", None)),
        ir_measures_examples=("NERR11(max_rel=4)", "NERR11(T=2.0, max_rel=3)"),
        ir_measures_provider="cwl_eval",
        citation=_NERR,
        reference=_CWL,
        differences=_CWL_DIFFERENCES,
    ),
    MeasureFamily(
        name="inst",
        grades="scaled",
        threshold_unused=True,
        title="INST (cwl_eval)",
        kernel="inst",
        formula=_CWL_FORMULA + "; C_i = ((i + T + T_i - 1) / (i + T + T_i))^2 with T_i = T - "
        "(g_1 + ... + g_i), T the desired gain (default 1)",
        ir_measures_name="INST",
        parameters=(("T", 1.0), ("min_rel", 0.0), ("max_rel", None)),
        ir_measures_examples=("INST(max_rel=4)", "INST(T=2.0, max_rel=3)"),
        ir_measures_provider="cwl_eval",
        citation="P. Bailey, A. Moffat, F. Scholer and P. Thomas, 'User Variability and IR "
        "System Evaluation', SIGIR 2015",
        reference=_CWL,
        differences=_CWL_DIFFERENCES,
    ),
    MeasureFamily(
        name="insq",
        grades="scaled",
        threshold_unused=True,
        title="INSQ (cwl_eval)",
        kernel="insq",
        formula=_CWL_FORMULA + "; C_i = ((i + 2T - 1) / (i + 2T))^2, T the desired gain "
        "(default 1)",
        ir_measures_name="INSQ",
        parameters=(("T", 1.0), ("min_rel", 0.0), ("max_rel", None)),
        ir_measures_examples=("INSQ(max_rel=4)", "INSQ(T=3.0, max_rel=2)"),
        ir_measures_provider="cwl_eval",
        citation="A. Moffat, F. Scholer and P. Thomas, 'Models and Metrics: IR Evaluation as a "
        "User Process', ADCS 2012",
        reference=_CWL,
        differences=_CWL_DIFFERENCES,
    ),
    MeasureFamily(
        name="bpm",
        grades="scaled",
        threshold_unused=True,
        title="Bejeweled player model (cwl_eval)",
        kernel="bpm",
        formula=_CWL_FORMULA + "; C_i = 1 while g_1 + ... + g_i < T and i < k (the cost "
        "budget, one per document), else 0",
        cutoff="required",
        ir_measures_name="BPM",
        parameters=(("T", 1.0), ("min_rel", 0.0), ("max_rel", None)),
        ir_measures_examples=("BPM(max_rel=4)@10", "BPM(T=2.0, max_rel=3)@5"),
        ir_measures_provider="cwl_eval",
        citation="F. Zhang, Y. Liu, X. Li, M. Zhang, Y. Xu and S. Ma, 'Evaluating Web Search "
        "with a Bejeweled Player Model', SIGIR 2017",
        reference=_CWL,
        differences=_CWL_DIFFERENCES,
    ),
    MeasureFamily(
        name="compat",
        grades="gain",
        threshold_unused=True,
        title="Compatibility (rank-biased overlap with an ideal ranking)",
        kernel="compat",
        formula="RBO(ranking, ideal) = sum over d <= D of p^(d-1) * |ranking[:d] ∩ ideal[:d]| / "
        "d, divided by sum over d <= D of p^(d-1), D the longer of the two; ideal: the "
        "documents with a grade > 0 by decreasing grade, ties in ranking order, those not "
        "retrieved last; normalize=True divides by RBO(ideal, ideal)",
        ir_measures_name="Compat",
        aliases=("compatibility",),
        parameters=(("p", 0.95), ("normalize", 1.0)),
        ir_measures_examples=("Compat", "Compat(p=0.8)", "Compat(p=0.9, normalize=False)"),
        ir_measures_provider="compat",
        citation="C. L. A. Clarke, A. Vtyurina and M. D. Smucker, 'Assessing Top-k "
        "Preferences', ACM TOIS 39(3), 2021",
        reference="ir_measures 0.4 (provider compat)",
        differences="ir_measures breaks ties in scores by doc id ascending, and orders the "
        "ideal ranking's ties by run score with 0 for documents not retrieved (so they go "
        "before retrieved documents with a negative score); ragmeter breaks ties as trec_eval "
        "and puts them last. The grades ignore the relevance threshold.",
    ),
    # ---- ir_measures' diversity families (pyndeval), over subtopic judgments ----
    MeasureFamily(
        name="alpha_ndcg",
        title="alpha-nDCG (diversity)",
        kernel="alpha_ndcg",
        formula=_NOVELTY + "; alpha-DCG@k = sum over i <= k of score_i / log2(i + 1), divided "
        "by that of ndeval's greedy ideal ranking (at each rank the judged document with the "
        "highest score, ties to the greatest doc id); 0 when the run's alpha-DCG@k is 0",
        undefined=_DIVERSITY_UNDEFINED,
        cutoff="required",
        aliases=("α_nDCG",),
        ir_measures_name="alpha_nDCG",
        parameters=(("alpha", 0.5),),
        ir_measures_examples=("alpha_nDCG@10", "alpha_nDCG(alpha=0.8)@5", "alpha_nDCG(rel=2)@20"),
        ir_measures_provider="pyndeval",
        subtopic_judgments=True,
        citation=_CLARKE_2008,
        reference=_NDEVAL,
        differences=_DIVERSITY_DIFFERENCES,
    ),
    MeasureFamily(
        name="alpha_dcg",
        title="alpha-DCG (diversity)",
        kernel="alpha_dcg",
        formula=_NOVELTY + "; sum over i <= k of score_i / log2(i + 1), divided (for k >= 2, "
        "as ndeval) by the same sum for A subtopics at every rank",
        undefined=_DIVERSITY_UNDEFINED,
        cutoff="required",
        aliases=("α_DCG",),
        ir_measures_name="alpha_DCG",
        parameters=(("alpha", 0.5),),
        ir_measures_examples=("alpha_DCG@10", "alpha_DCG(alpha=0.3)@1"),
        ir_measures_provider="pyndeval",
        subtopic_judgments=True,
        citation=_CLARKE_2008,
        reference=_NDEVAL,
        differences=_DIVERSITY_DIFFERENCES,
    ),
    MeasureFamily(
        name="err_ia",
        title="Intent-aware ERR (diversity)",
        kernel="err_ia",
        formula=_NOVELTY + "; sum over i <= k of score_i / i, divided (for k >= 2, as ndeval) "
        "by the same sum for A subtopics at every rank",
        undefined=_DIVERSITY_UNDEFINED,
        cutoff="required",
        ir_measures_name="ERR_IA",
        parameters=(("alpha", 0.5),),
        ir_measures_examples=("ERR_IA@10", "ERR_IA(rel=2)@5"),
        ir_measures_provider="pyndeval",
        subtopic_judgments=True,
        citation="O. Chapelle, S. Ji, C. Liao, E. Velipasaoglu, L. Lai and S.-L. Wu, "
        "'Intent-based diversification of web search results', Information Retrieval 14, 2011",
        reference=_NDEVAL,
        differences=_DIVERSITY_DIFFERENCES,
    ),
    MeasureFamily(
        name="nerr_ia",
        title="Intent-aware ERR, normalized (diversity)",
        kernel="nerr_ia",
        formula="ERR-IA@k divided by that of ndeval's greedy ideal ranking (see alpha_ndcg); 0 "
        "when the run's alpha-DCG@k is 0",
        undefined=_DIVERSITY_UNDEFINED,
        cutoff="required",
        ir_measures_name="nERR_IA",
        parameters=(("alpha", 0.5),),
        ir_measures_examples=("nERR_IA@10", "nERR_IA@3"),
        ir_measures_provider="pyndeval",
        subtopic_judgments=True,
        citation="O. Chapelle et al., Information Retrieval 14, 2011; ndeval",
        reference=_NDEVAL,
        differences=_DIVERSITY_DIFFERENCES,
    ),
    MeasureFamily(
        name="p_ia",
        title="Intent-aware precision (diversity)",
        kernel="p_ia",
        formula="(sum over the top k documents of the number of subtopics each is relevant to) "
        "/ (k * A)",
        undefined=_DIVERSITY_UNDEFINED,
        cutoff="required",
        ir_measures_name="P_IA",
        ir_measures_examples=("P_IA@10", "P_IA(rel=2)@5"),
        ir_measures_provider="pyndeval",
        subtopic_judgments=True,
        citation=_AGRAWAL,
        reference=_NDEVAL,
        differences=_DIVERSITY_DIFFERENCES,
    ),
    MeasureFamily(
        name="st_recall",
        title="Subtopic recall (diversity)",
        kernel="st_recall",
        formula="|subtopics some top-k document is relevant to| / A",
        undefined=_DIVERSITY_UNDEFINED,
        cutoff="required",
        aliases=("strec",),
        ir_measures_name="StRecall",
        ir_measures_examples=("StRecall@10", "StRecall@2"),
        ir_measures_provider="pyndeval",
        subtopic_judgments=True,
        citation="C. Zhai, W. W. Cohen and J. Lafferty, 'Beyond Independent Relevance', SIGIR 2003",
        reference=_NDEVAL,
        differences=_DIVERSITY_DIFFERENCES,
    ),
    MeasureFamily(
        name="ap_ia",
        title="Intent-aware average precision (diversity)",
        kernel="ap_ia",
        formula="the mean over the A subtopics of AP with the documents relevant to the "
        "subtopic as relevant (over the whole ranking)",
        undefined=_DIVERSITY_UNDEFINED,
        aliases=("MAP_IA",),
        ir_measures_name="AP_IA",
        ir_measures_examples=("AP_IA", "AP_IA(rel=2)"),
        ir_measures_provider="pyndeval",
        subtopic_judgments=True,
        citation=_AGRAWAL,
        reference=_NDEVAL,
        differences=_DIVERSITY_DIFFERENCES,
    ),
    MeasureFamily(
        name="nrbp",
        title="Novelty- and rank-biased precision (diversity)",
        kernel="nrbp",
        formula=_NOVELTY + "; (1 - (1 - alpha) beta) / A * sum over all ranks i of score_i * "
        "beta^(i-1), beta the patience",
        undefined=_DIVERSITY_UNDEFINED,
        ir_measures_name="NRBP",
        parameters=(("alpha", 0.5), ("beta", 0.5)),
        ir_measures_examples=("NRBP", "NRBP(alpha=0.3, beta=0.8)"),
        ir_measures_provider="pyndeval",
        subtopic_judgments=True,
        citation="C. L. A. Clarke, M. Kolla and O. Vechtomova, 'An Effectiveness Measure for "
        "Ambiguous and Underspecified Queries', ICTIR 2009",
        reference=_NDEVAL,
        differences=_DIVERSITY_DIFFERENCES,
    ),
    MeasureFamily(
        name="nnrbp",
        title="Normalized NRBP (diversity)",
        kernel="nnrbp",
        formula="NRBP divided by that of ndeval's greedy ideal ranking (see alpha_ndcg)",
        undefined=_DIVERSITY_UNDEFINED + "; pyndeval divides 0 by 0 there",
        ir_measures_name="nNRBP",
        parameters=(("alpha", 0.5), ("beta", 0.5)),
        ir_measures_examples=("nNRBP", "nNRBP(beta=0.9)"),
        ir_measures_provider="pyndeval",
        subtopic_judgments=True,
        citation="C. L. A. Clarke, M. Kolla and O. Vechtomova, ICTIR 2009",
        reference=_NDEVAL,
        differences=_DIVERSITY_DIFFERENCES,
    ),
    # ---- the tie-aware measures: the mean over every order of tied scores ----
    MeasureFamily(
        name="ndcg_ta",
        grades="gain",
        threshold_unused=True,
        title="nDCG, tie-aware",
        kernel="ndcg_ta",
        formula="E[DCG@k] / IDCG@k, E[DCG@k] = sum over groups of tied documents (a group "
        "after position a, of n documents) of (the group's gains / n) * sum over its positions "
        "a + i <= k of 1 / log2(a + i + 1); gains the grades (grades <= 0 add nothing), IDCG as "
        "ndcg's. That is " + _TIE_AWARE,
        undefined=_IDEAL_ZERO,
        cutoff="optional",
        aliases=("ndcg_tie_aware",),
        citation=_MCSHERRY_NAJORK,
        reference=_TIE_AWARE_REFERENCE + "; scikit-learn's ndcg_score (ignore_ties=False) "
        "where every judged document is ranked; mteb PR 5516's float-gain nDCG (group-mean "
        "ties)",
        differences="Equal to ndcg (trec_eval's ndcg_cut) on a ranking without ties; "
        "trec_eval breaks ties by doc id, so its value depends on how the tied documents are "
        "named. scikit-learn's ndcg_score computes the same mean, with an ideal DCG over the "
        "documents scored only; mteb PR 5516's ndcg_float_at_k is this measure.",
    ),
    MeasureFamily(
        name="map_ta",
        title="Average precision, tie-aware",
        kernel="average_precision_ta",
        formula="(1/R) * sum over the positions p <= k of a group of tied documents (after "
        "position a, n documents, r relevant, c relevant documents ranked above it; p = a + i) "
        "of (r/n) * (c + 1 + (i - 1)(r - 1)/(n - 1)) / p. That is " + _TIE_AWARE,
        undefined=_R_ZERO,
        cutoff="optional",
        aliases=("ap_ta", "average_precision_ta"),
        citation=_MCSHERRY_NAJORK,
        reference=_TIE_AWARE_REFERENCE,
        differences="Equal to map (map_cut with @k) on a ranking without ties.",
    ),
    MeasureFamily(
        name="precision_ta",
        title="Precision at k, tie-aware",
        kernel="precision_ta",
        formula="E[|relevant in top k|] / k, E[...] = sum over groups of tied documents "
        "(after position a, n documents, r relevant) of r * |positions a + i <= k| / n. That "
        "is " + _TIE_AWARE,
        cutoff="required",
        aliases=("p_ta",),
        citation=_MCSHERRY_NAJORK,
        reference=_TIE_AWARE_REFERENCE,
        differences="Equal to precision on a ranking without ties.",
    ),
    MeasureFamily(
        name="recall_ta",
        title="Recall at k, tie-aware",
        kernel="recall_ta",
        formula="E[|relevant in top k|] / R (see precision_ta). That is " + _TIE_AWARE,
        undefined=_R_ZERO,
        cutoff="required",
        aliases=("r_ta",),
        citation=_MCSHERRY_NAJORK,
        reference=_TIE_AWARE_REFERENCE,
        differences="Equal to recall on a ranking without ties.",
    ),
    MeasureFamily(
        name="mrr_ta",
        title="Reciprocal rank, tie-aware",
        kernel="reciprocal_rank_ta",
        formula="sum over the positions j of the first group of tied documents holding a "
        "relevant one (after position a, n documents, r relevant) with a + j <= k of "
        "C(n - j, r - 1) / C(n, r) / (a + j): the probability that its first relevant "
        "document is at its j-th position, over the rank; 0 if none. That is " + _TIE_AWARE,
        cutoff="optional",
        aliases=("rr_ta", "reciprocal_rank_ta"),
        citation=_MCSHERRY_NAJORK,
        reference=_TIE_AWARE_REFERENCE,
        differences="Equal to mrr on a ranking without ties.",
    ),
    # ---- BEIR's measures beyond trec_eval ----
    MeasureFamily(
        name="hole",
        grades="judged",
        threshold_unused=True,
        title="Hole at k (unjudged documents, BEIR)",
        kernel="hole",
        formula="|documents in the top k absent from the judgments (a judgment of any grade, "
        "negative ones too, makes a document judged)| / k (k even when fewer than k documents "
        "were ranked)",
        cutoff="required",
        reset_if_missing="always",
        beir_name="Hole",
        mteb_name="Hole",
        citation=_BEIR,
        reference="BEIR's custom_metrics.hole (beir-cellar/beir), ported",
        differences="BEIR counts a document judged for any query as judged (its 'annotated "
        "corpus'); ragmeter.compat.beir and ragmeter.compat.mteb pass the judgments that way, "
        "the measure itself reads each query's own. trec_eval's unj counts a document judged "
        "with a negative grade as unjudged; this measure does not.",
    ),
    # ---- ranx's measures that trec_eval lacks, with ranx's semantics ----
    MeasureFamily(
        name="f1",
        title="F1 at k",
        kernel="f1",
        formula="2 P R / (P + R) with P = |relevant in top k| / k and R = |relevant in top k| "
        "/ |relevant|; 0 when nothing relevant is in the top k; the whole ranking without @k",
        undefined=_R_ZERO,
        cutoff="optional",
        ranx_name="f1",
        citation=_RANX,
        reference="ranx 0.3",
        differences="ranx gives 0 where R = 0 (ragmeter: undefined); " + _RANX_TIES + ".",
    ),
    MeasureFamily(
        name="dcg_burges",
        grades="gain",
        title="DCG with exponential gains (ranx)",
        kernel="dcg_burges",
        formula="sum over ranks i <= k of (2^g_i - 1) / log2(i + 1), g_i the grade when >= the "
        "relevance threshold, else 0",
        cutoff="optional",
        ranx_name="dcg_burges",
        citation="C. Burges et al., 'Learning to Rank using Gradient Descent', ICML 2005; ranx",
        reference="ranx 0.3",
        differences="As ranx, grades below the relevance threshold gain nothing (ragmeter's "
        "dcg and ndcg ignore the threshold, as trec_eval's). " + _RANX_TIES + ".",
    ),
    MeasureFamily(
        name="ndcg_burges",
        grades="gain",
        title="nDCG with exponential gains (ranx)",
        kernel="ndcg_burges",
        formula="dcg_burges@k / the dcg_burges@k of the judged grades >= the relevance threshold "
        "in decreasing order",
        undefined="no judged document reaches the relevance threshold (ideal DCG = 0)",
        cutoff="optional",
        ranx_name="ndcg_burges",
        citation="C. Burges et al., 'Learning to Rank using Gradient Descent', ICML 2005; ranx",
        reference="ranx 0.3",
        differences="ranx gives 0 where the ideal DCG is 0 (ragmeter: undefined); as ranx, "
        "grades below the relevance threshold gain nothing; " + _RANX_TIES + ".",
    ),
)


#: trec_eval's measure groups (``-m official``, ``-m set``, ``-m all_trec``), in trec_eval's
#: order. (trec_eval's ``prefs``, ``all_prefs`` and ``qrels_jg`` groups read preference and
#: judgment-group files, which ragmeter does not read.)
NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
    ),
    "set": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ),
    "all_trec": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
        "relstring",
        "recall",
        "unj",
        "rbp",
        "rbp_resid",
        "infAP",
        "gm_bpref",
        "utility",
        "11pt_avg",
        "ndcg",
        "relative_P",
        "Rprec_mult",
        "success",
        "map_cut",
        "ndcg_cut",
        "ndcg_rel",
        "Rndcg",
        "binG",
        "G",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
        "num_nonrel_judged_ret",
    ),
}


@functools.cache
def not_read() -> dict[str, str]:
    """trec_eval's names that need another input format than qrels and a run (its ``-R prefs``
    and ``-R qrels_jg`` files), each with the reason it is refused.

    Built on first use (a name that is no measure of qrels, for its error message): the
    modules that declare those measures are imported then, not by every program that names a
    measure.

    >>> not_read()["yaap"]
    "trec_eval 10's yaap (Robertson's smoothed AP) is not computed by ragmeter"
    """
    from .judgment_groups import JG_GROUPS, JG_MEASURES
    from .prefs import PREFS_GROUPS, PREFS_MEASURES

    return {
        **{
            name: "it reads trec_eval's preference files: `ragmeter evaluate -R prefs` (or -R "
            "qrels_prefs) computes it as trec_eval does (ragmeter.ranking.prefs); the Python "
            "functions that read qrels do not"
            for name in (*PREFS_GROUPS, *(m.name for m in PREFS_MEASURES))
        },
        **{
            name: "it reads trec_eval's judgment-group qrels: `ragmeter evaluate -R qrels_jg` "
            "computes it as trec_eval does (ragmeter.ranking.judgment_groups); the Python "
            "functions that read qrels do not"
            for name in (*JG_GROUPS, *JG_MEASURES)
        },
        "yaap": "trec_eval 10's yaap (Robertson's smoothed AP) is not computed by ragmeter",
    }


_BY_NAME = {f.name: f for f in FAMILIES}


def family(name: str) -> MeasureFamily:
    """The family whose canonical name is ``name``.

    Parameters
    ----------
    name
        A canonical name (:attr:`MeasureFamily.name`), not an alias nor another syntax's
        spelling (:func:`~ragmeter.parse_metric` reads those).

    Returns
    -------
    MeasureFamily
        The family's declaration.

    Raises
    ------
    KeyError
        No family has that canonical name.

    Examples
    --------
    >>> family("ndcg_cut").trec_name
    'ndcg_cut'
    """
    return _BY_NAME[name]
