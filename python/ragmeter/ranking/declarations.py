"""Every ranking measure, declared once.

A :class:`MeasureFamily` holds everything about one family of measures: its names in every
spelling (ragmeter's, trec_eval's, ir_measures' and ranx's), how it takes parameters, when it
is undefined and why, how a mean over queries is formed, its formula, its citation, and the
reference implementation its values are tested against. The name parser, the evaluation, the
``ragmeter`` command, the scikit-learn scorers, the generated documentation and the tests all
read :data:`FAMILIES`; adding a measure is one entry here (and its kernel in the Rust core,
``rust/core/src/ranking.rs``, when it needs a new one).

:data:`FAMILIES` is in trec_eval's order (its measure table), which is also the order in which
``ragmeter evaluate`` prints measures, as trec_eval does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DEFAULT_DECIMAL_LEVELS",
    "DEFAULT_TREC_CUTOFFS",
    "FAMILIES",
    "NICKNAMES",
    "MeasureFamily",
    "ParameterStyle",
    "Summary",
    "family",
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
_R_ZERO = "the query has no relevant judged document (R = 0)"
_IDEAL_ZERO = "no judged document has a positive gain (ideal DCG = 0)"
_EMPTY = "nothing was retrieved"


@dataclass(frozen=True)
class MeasureFamily:
    """One family of ranking measures (see the module documentation).

    ``cutoff`` says whether ``name@k`` is ``required`` (a measure at a depth), ``optional``
    (the whole ranking without it) or refused (``none``). ``trec_defaults`` are the parameters
    trec_eval uses when the family is named bare (``-m P`` is ``-m P.5,10,...,1000``).
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
    value_type: Literal["float", "int", "str"] = "float"
    summary: Summary = "mean"
    #: Printed per query by ``ragmeter evaluate -q`` (trec_eval prints gm_*, num_q and runid
    #: only in the summary).
    per_query: bool = True
    #: Reads the judged non-relevant and unjudged documents of the rankings (slower to prepare).
    judgment_based: bool = False
    #: trec_eval ``-c`` scores a judged topic missing from the run as a ranking of one unjudged
    #: document, then resets a few measures to 0 (or ''): ``always``, or ``unparameterized``
    #: only when named without parameters (trec_eval compares the printed name with strcmp).
    reset_if_missing: Literal["always", "unparameterized"] | None = None
    #: The kernel whose per-query values add up to the summary under missing="zero" (trec_eval
    #: ``-c``), where that differs from the family's own.
    complete_summary_kernel: str | None = None
    #: What trec_eval prints for an undefined value (zero_division="trec_eval"): 0, or NaN
    #: where it divides 0 by 0.
    trec_eval_undefined: float = 0.0
    citation: str = _TREC
    reference: str = "trec_eval 10.0 (the binary built from its sources) and pytrec_eval"
    #: How ir_measures or ranx differ, in one place.
    differences: str = ""

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
        title="Number of queries",
        kernel=None,
        formula="the number of queries evaluated (with missing='zero', every judged query)",
        trec_name="num_q",
        ir_measures_name="NumQ",
        value_type="int",
        summary="count",
        per_query=False,
    ),
    MeasureFamily(
        name="num_ret",
        title="Documents retrieved",
        kernel="num_ret",
        formula="|ranking| after the max_docs cut (with judged_only, judged documents only)",
        trec_name="num_ret",
        ir_measures_name="NumRet",
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
        citation=_BUCKLEY_VOORHEES,
        differences="map@k and ir_measures' AP@k are trec_eval's map_cut.k.",
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
        ranx_name="r_precision",
        citation=_BUCKLEY_VOORHEES,
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
        judgment_based=True,
        citation="C. Buckley and E. M. Voorhees, 'Retrieval Evaluation with Incomplete "
        "Information', SIGIR 2004",
    ),
    MeasureFamily(
        name="mrr",
        title="Reciprocal rank",
        kernel="reciprocal_rank",
        formula="1 / rank of the first relevant document (within the top k if given), 0 if "
        "none; the mean over queries is MRR",
        cutoff="optional",
        trec_name="recip_rank",
        aliases=("rr", "reciprocal_rank", "mean_reciprocal_rank"),
        ir_measures_name="RR",
        ranx_name="mrr",
        citation="E. M. Voorhees, 'The TREC-8 Question Answering Track Report', TREC 1999",
        differences="mrr@k is trec_eval's recip_rank after -M k.",
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
        citation=_BUCKLEY_VOORHEES,
    ),
    MeasureFamily(
        name="precision",
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
        citation=_BUCKLEY_VOORHEES,
    ),
    MeasureFamily(
        name="relstring",
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
        judgment_based=True,
    ),
    MeasureFamily(
        name="recall",
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
        citation=_BUCKLEY_VOORHEES,
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
        judgment_based=True,
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
        judgment_based=True,
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
        title="Discounted cumulative gain",
        kernel="dcg",
        formula="sum over ranks i of gain(grade_i) / log2(i + 1), gains from the gain table "
        "(default: the grade)",
        trec_name="dcg",
        trec_parameters="pairs",
        citation=_JARVELIN,
    ),
    MeasureFamily(
        name="ideal_dcg",
        title="Ideal discounted cumulative gain",
        kernel="ideal_dcg",
        formula="the DCG of the judged documents sorted by decreasing gain",
        trec_name="ideal_dcg",
        trec_parameters="pairs",
        citation=_JARVELIN,
    ),
    MeasureFamily(
        name="ndcg",
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
        citation=_JARVELIN,
        differences="The gains ignore the relevance threshold (trec_eval); ranx's ndcg sets "
        "the gain of documents below its relevance level to 0.",
    ),
    MeasureFamily(
        name="ndcg_rel",
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
        title="nDCG averaged at the R levels",
        kernel="rndcg",
        formula="the mean of nDCG at the ranks where the ideal gain changes",
        undefined=_R_ZERO,
        trec_name="Rndcg",
        trec_parameters="pairs",
    ),
    MeasureFamily(
        name="ndcg_cut",
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
        title="Relative precision at k",
        kernel="relative_precision",
        formula="|relevant in top k| / min(k, R)",
        undefined=_R_ZERO,
        cutoff="required",
        trec_name="relative_P",
        trec_parameters="cutoffs",
        trec_defaults=DEFAULT_TREC_CUTOFFS,
    ),
    MeasureFamily(
        name="hit_rate",
        title="Hit rate (success) at k",
        kernel="success",
        formula="1 if a relevant document is in the top k, else 0",
        cutoff="required",
        trec_name="success",
        trec_parameters="cutoffs",
        trec_defaults=(1, 5, 10),
        aliases=("hitrate",),
        ir_measures_name="Success",
        ranx_name="hit_rate",
        citation="S. Tomlinson, trec_eval's success measure",
        differences="'hits@k' is ranx's count of relevant documents in the top k (see hits), "
        "not this.",
    ),
    MeasureFamily(
        name="hits",
        title="Relevant documents in the top k",
        kernel="hits",
        formula="|relevant in top k| (a count per query; the mean over queries)",
        cutoff="required",
        ranx_name="hits",
        citation="ranx (E. Bassani, 'ranx: A Blazing-Fast Python Library for Ranking "
        "Evaluation and Comparison', ECIR 2022)",
        reference="ranx 0.3",
    ),
    MeasureFamily(
        name="set_precision",
        title="Set precision",
        kernel="set_precision",
        formula="|relevant retrieved| / |retrieved|",
        undefined=_EMPTY,
        trec_name="set_P",
        ir_measures_name="SetP",
    ),
    MeasureFamily(
        name="set_relative_precision",
        title="Set relative precision",
        kernel="set_relative_precision",
        formula="|relevant retrieved| / min(|retrieved|, R)",
        undefined=f"{_EMPTY}, or {_R_ZERO}",
        trec_name="set_relative_P",
    ),
    MeasureFamily(
        name="set_recall",
        title="Set recall",
        kernel="set_recall",
        formula="|relevant retrieved| / R",
        undefined=_R_ZERO,
        trec_name="set_recall",
        ir_measures_name="SetR",
    ),
    MeasureFamily(
        name="set_map",
        title="Set average precision",
        kernel="set_map",
        formula="|relevant retrieved|² / (|retrieved| * R)",
        undefined=f"{_EMPTY}, or {_R_ZERO}",
        trec_name="set_map",
        ir_measures_name="SetAP",
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
        judgment_based=True,
    ),
    MeasureFamily(
        name="rbp",
        title="Rank-biased precision",
        kernel="rbp",
        formula="(1 - p) * sum over ranks i of gain_i * p^(i-1), p the persistence (default "
        "0.9), gains from the gain table rescaled to [0, 1] when outside it",
        trec_name="rbp",
        trec_parameters="pairs",
        citation="A. Moffat and J. Zobel, 'Rank-biased precision for measurement of retrieval "
        "effectiveness', ACM TOIS 27(1), 2008",
        reference="trec_eval 10.0 on binary judgments (its graded rbp reads uninitialised "
        "variables and varies between builds)",
    ),
    MeasureFamily(
        name="rbp_resid",
        title="Residual of rank-biased precision",
        kernel="rbp_residual",
        formula="p^n + (1 - p) * sum over unjudged ranks i of p^(i-1) for a ranking of n "
        "documents, 0 when no retrieved document is unjudged (trec_eval)",
        trec_name="rbp_resid",
        trec_parameters="pairs",
        judgment_based=True,
        reset_if_missing="unparameterized",
        citation="A. Moffat and J. Zobel, 'Rank-biased precision for measurement of retrieval "
        "effectiveness', ACM TOIS 27(1), 2008",
    ),
    MeasureFamily(
        name="unjudged",
        title="Unjudged documents at k",
        kernel="unjudged",
        formula="|documents in the top k without a judgment (or judged negative)| / k",
        cutoff="required",
        trec_name="unj",
        trec_parameters="cutoffs",
        trec_defaults=(5, 10, 20),
        aliases=("unj",),
        judgment_based=True,
        reset_if_missing="always",
    ),
)


#: trec_eval's measure groups (``-m official``, ``-m all_trec``), in trec_eval's order.
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

_BY_NAME = {f.name: f for f in FAMILIES}


def family(name: str) -> MeasureFamily:
    """The family whose canonical name is ``name``."""
    return _BY_NAME[name]
