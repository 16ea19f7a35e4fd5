"""ir_measures' and ranx's measure syntax, and diversity judgments as input: what each string
names, and the errors for what it cannot name. Values are checked against the providers in
test_ir_measures_oracle.py and test_ranx_oracle.py."""

from __future__ import annotations

import contextlib
import io
import math
import warnings

import ir_measures
import pytest
from doc_pages import DOCS, python_blocks, run_examples

import ragmeter
from ragmeter.exceptions import InvalidInputError
from ragmeter.ranking import FAMILIES, parse_metric


def test_every_ir_measures_example_parses_to_its_family_and_its_name():
    for fam in FAMILIES:
        for example in fam.ir_measures_examples:
            measure = parse_metric(example)
            assert (measure.family, measure.name) == (fam, example)


@pytest.mark.parametrize(
    ("text", "family", "cutoff", "params", "threshold"),
    [
        ("RBP", "rbp_graded", None, (0.8,), None),
        ("RBP(p=0.5)@10", "rbp_graded", 10, (0.5,), None),
        ("RBP(rel=2, p=0.9)", "rbp_binary", None, (0.9,), 2.0),
        ("rbp.p=0.8", "rbp", None, (0.8,), None),  # trec_eval's
        ("rbp(p=0.8)", "rbp", None, (0.8,), None),  # lower case: trec_eval's family
        ("nDCG(dcg='exp-log2')@10", "ndcg_exp", 10, (), None),
        ("nDCG(dcg='log2')@10", "ndcg", 10, (), None),
        ("NumRet(rel=2)", "num_rel_ret", None, (), 2.0),
        ("SetP(relative=True)", "set_relative_precision", None, (), None),
        ("SetP(relative=False)", "set_precision", None, (), None),
        ("SDCG(max_rel=4)@10", "sdcg", 10, (0.0, 4.0), None),
        ("INST(T=2.0, max_rel=3)", "inst", None, (2.0, 0.0, 3.0), None),
        ("Compat(p=0.9, normalize=False)", "compat", None, (0.9, 0.0), None),
        ("SetF(beta=0.5)", "set_f", None, (0.5,), None),
        ("IPrec(recall=0.5)", "iprec_at_recall", None, (0.5,), None),
        ("alpha_nDCG(alpha=0.3)@5", "alpha_ndcg", 5, (0.3,), None),
        ("α_nDCG@5", "alpha_ndcg", 5, (0.5,), None),
        ("ndcg_burges@10-l2", "ndcg_burges", 10, (), 2.0),
        ("dcg@5", "dcg", 5, (), None),
        ("r-precision", "r_precision", None, (), None),
    ],
)
def test_what_a_string_names(text, family, cutoff, params, threshold):
    measure = parse_metric(text)
    assert (measure.family.name, measure.cutoff, measure.params) == (family, cutoff, params)
    assert measure.relevance_threshold == threshold


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("SDCG@10", r"needs max_rel="),
        ("NERR10", r"needs max_rel="),
        ("nDCG(dcg='exp')@10", r"dcg must be 'log2'.*dcg='exp-log2' \(ndcg_exp\)"),
        ("ERR(p=0.5)@10", r"unknown parameter 'p'"),
        ("RBP(q=0.5)", r"unknown parameter 'q'.*takes p"),
        ("SDCG(max_rel='x')@10", r"max_rel must be a number"),
        ("Judged@0", r"positive integer"),
        ("NRBP@10", r"no cutoff"),
        ("ERR(rel=2)@20", r"takes no rel=: it does not read a relevance threshold"),
        ("SDCG(rel=2, max_rel=3)@10", r"takes no rel=: its gains are scaled from min_rel"),
        ("nDCG(rel=2)@10", r"takes no rel="),
        ("Judged@10-l2", r"takes no -l"),
    ],
)
def test_errors_name_the_problem(text, message):
    with pytest.raises(InvalidInputError, match=message):
        parse_metric(text)


def test_out_of_range_parameters_are_refused_by_the_core():
    qrels, run = {"q": {"a": 1}}, {"q": ["a"]}
    for text in ["RBP(p=1.5)", "SDCG(min_rel=3, max_rel=1)@5", "INST(T=0.0, max_rel=2)"]:
        with pytest.raises(ValueError, match="metrics"):
            ragmeter.ranking_metrics(qrels, run, metrics=[text])


DIVERSITY = {"q1": {"a": {"s1": 1, "s2": 0}, "b": {"s2": 2}}, "q2": {"c": {"x": 1}}}
RUN = {"q1": ["b", "z", "a"], "q2": {"c": 0.5, "d": 0.7}}


def test_diversity_judgments_by_subtopic():
    values = ragmeter.ranking_metrics(
        DIVERSITY, RUN, metrics=["StRecall@1", "StRecall@3", "P_IA@2"], average=None
    )
    # q1: b covers s2 (1 of 2 subtopics), a adds s1; q2: c at rank 2 covers x.
    assert values["StRecall@1"] == {"q1": 0.5, "q2": 0.0}
    assert values["StRecall@3"] == {"q1": 1.0, "q2": 1.0}
    assert values["P_IA@2"] == {"q1": 1 / 4, "q2": 1 / 2}
    # rel=2: only b's judgment for s2 counts; q2 has no subtopic left (undefined).
    strict = ragmeter.ranking_metrics(
        DIVERSITY, RUN, metrics=["StRecall(rel=2)@1"], average=None, zero_division=math.nan
    )["StRecall(rel=2)@1"]
    assert strict["q1"] == 1.0 and math.isnan(strict["q2"])


def test_diversity_and_grade_judgments_do_not_mix():
    with pytest.raises(InvalidInputError, match=r"P@5 reads judgments \{doc_id: grade\}"):
        ragmeter.ranking_metrics(DIVERSITY, RUN, metrics=["P@5"])
    with pytest.raises(InvalidInputError, match=r"alpha_nDCG@5 is a diversity measure"):
        ragmeter.ranking_metrics({"q": {"a": 1}}, {"q": ["a"]}, metrics=["alpha_nDCG@5"])
    mixed = {"q1": {"a": {"s": 1}}, "q2": {"a": 1}}
    with pytest.raises(TypeError, match=r"query 'q2': its judgments are \{doc_id: grade\}"):
        ragmeter.ranking_metrics(mixed, {"q1": ["a"], "q2": ["a"]}, metrics=["alpha_nDCG@5"])
    with pytest.raises(TypeError, match=r"judgment of document 'b' is 1 of type int"):
        ragmeter.ranking_metrics({"q": {"a": {"s": 1}, "b": 1}}, {"q": ["a"]}, metrics=["P_IA@1"])
    with pytest.raises(TypeError, match=r"subtopic ids must be str or int"):
        ragmeter.ranking_metrics({"q": {"a": {1.5: 1}}}, {"q": ["a"]}, metrics=["P_IA@1"])


def test_queries_without_judgments_before_the_first_diversity_judgment():
    # q0 has no judgment at all; its row is empty, and it is undefined (no subtopic).
    qrels = {"q0": {}, "q1": {"a": {"s": 1}}}
    run = {"q0": ["a"], "q1": ["a"]}
    values = ragmeter.ranking_metrics(
        qrels, run, metrics=["alpha_nDCG@5"], average=None, zero_division=math.nan
    )["alpha_nDCG@5"]
    assert math.isnan(values["q0"]) and values["q1"] == 1.0


def test_the_guide_diversity_example_equals_pyndeval():
    # The ranking guide's example shows StRecall@1 = 0.5 and alpha_nDCG@3 = 0.9197; pyndeval
    # (through ir_measures) gives the same values on the same judgments.
    page = DOCS / "guides" / "ranking-metrics.md"
    namespace = {"ranking_metrics": ragmeter.ranking_metrics}
    run_examples(python_blocks(page, "## Diversity measures"), namespace, name="diversity")
    qrels, run = namespace["qrels"], namespace["run"]
    judged = [
        ir_measures.Qrel(q, doc, grade, subtopic)
        for q, docs in qrels.items()
        for doc, by_subtopic in docs.items()
        for subtopic, grade in by_subtopic.items()
    ]
    scored = {
        q: {doc: float(len(docs) - i) for i, doc in enumerate(docs)} for q, docs in run.items()
    }
    measures = [ir_measures.parse_measure(name) for name in ("StRecall@1", "alpha_nDCG@3")]
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")  # pyndeval's chatter about single-subtopic queries
        expected = {
            str(m.measure): m.value
            for m in ir_measures.pyndeval.iter_calc(measures, judged, scored)
        }
    ours = ragmeter.ranking_metrics(qrels, run, metrics=["StRecall@1", "alpha_nDCG@3"])
    assert ours == pytest.approx(expected, abs=1e-12)
    assert (expected["StRecall@1"], round(expected["alpha_nDCG@3"], 4)) == (0.5, 0.9197)
