"""ragmeter.compat.pytrec_eval against pytrec_eval itself (pytrec-eval-terrier), the oracle:
the same queries, measure names and values, on random judgments and runs, and pytrec_eval's
own tests run as they are written (only the import changed)."""

from __future__ import annotations

import io
import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmeter.compat import pytrec_eval as compat

pytrec_eval = pytest.importorskip("pytrec_eval")

# Measures whose values agree with pytrec_eval by declaration; iprec_at_recall and 11pt_avg
# round recall levels as trec_eval 10 does, pytrec_eval as trec_eval 9 (docs: semantics).
MEASURES = {
    "map", "ndcg", "P.5,10", "recall_10", "recip_rank", "bpref", "ndcg_cut.3,10", "set_F",
    "gm_map", "num_ret", "num_rel", "num_rel_ret", "Rprec", "success.1,5", "map_cut.5",
    "set_P", "set_recall", "infAP", "ndcg_rel", "Rndcg", "binG", "G", "utility",
}  # fmt: skip

doc_ids = st.sampled_from([f"d{i}" for i in range(12)])


@st.composite
def evaluation(draw):
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 5))):
        qrels[f"q{q}"] = draw(st.dictionaries(doc_ids, st.integers(0, 3), max_size=8))
        # At least one ranked document: pytrec_eval-terrier 0.5.11 crashes (a segmentation
        # fault) evaluating bpref with Rprec on an empty ranking.
        ranked = draw(st.lists(doc_ids, unique=True, min_size=1, max_size=10))
        rng = random.Random(draw(st.integers(0, 2**32)))
        # Distinct scores, and some equal ones: ties are broken as trec_eval breaks them.
        run[f"q{q}"] = {d: float(rng.randrange(6)) for d in ranked}
    return qrels, run


def assert_same(ours, theirs):
    assert set(ours) == set(theirs)
    for q, values in theirs.items():
        expected = {m: v for m, v in values.items() if m != "runid"}
        assert set(ours[q]) == set(expected), q
        for m, v in expected.items():
            assert ours[q][m] == pytest.approx(v, abs=1e-12), (q, m)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=evaluation(),
    level=st.sampled_from([1, 2]),
    judged_only=st.booleans(),
)
def test_the_same_values_as_pytrec_eval(data, level, judged_only):
    qrels, run = data
    options = {"relevance_level": level, "judged_docs_only_flag": judged_only}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, MEASURES, **options).evaluate(run)
    ours = compat.RelevanceEvaluator(qrels, MEASURES, **options).evaluate(run)
    assert_same(ours, theirs)
    for m in ["map", "gm_map", "num_ret", "P_5"]:
        want = pytrec_eval.compute_aggregated_measure(m, [theirs[q][m] for q in theirs])
        got = compat.compute_aggregated_measure(m, [ours[q][m] for q in ours])
        assert got == pytest.approx(want, abs=1e-12) or (math.isnan(got) and not theirs)


@pytest.mark.parametrize(
    "measures",
    [
        # pytrec_eval's test_measure_params: a family's parameters merged, bare defaults only
        # for a family given no parameters.
        ["ndcg_cut", "ndcg_cut.1,4", "ndcg_cut.20,4", "ndcg_cut_15", "recall.1000", "P"],
        # test_nicknames: groups sharing measures.
        {"official", "set", "ndcg"},
        {"all_trec"},
    ],
    ids=["params", "nicknames", "all_trec"],
)
def test_measure_names_combine_as_pytrec_eval_combines_them(measures):
    qrels = {"q1": {"d1": 0, "d2": 1, "d3": 0}, "q2": {"d2": 1, "d3": 1}, "q3": {}}
    run = {"q1": {"d1": 1.0, "d2": 0.0, "d3": 1.5}, "q2": {}, "q3": {"d1": 1.0}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    ours = compat.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert set(ours) == set(theirs) == {"q1", "q2"}  # q3 has no judgment: left out
    # all_trec is pytrec_eval's (trec_eval 9's: no rbp, rbp_resid, unj_*); runid 0.0 as there.
    for q in theirs:
        assert set(ours[q]) == set(theirs[q])
        if "runid" in theirs[q]:
            assert ours[q]["runid"] == theirs[q]["runid"] == 0.0


def test_an_empty_ranking_is_evaluated_where_pytrec_eval_crashes():
    # pytrec_eval-terrier 0.5.11 ends the process on this input (bpref with Rprec, an empty
    # ranking); by hand: nothing retrieved, so bpref 0 and Rprec 0.
    ours = compat.RelevanceEvaluator({"q0": {"d1": 1}}, {"bpref", "Rprec"}).evaluate({"q0": {}})
    assert ours == {"q0": {"bpref": 0.0, "Rprec": 0.0}}


def test_no_common_query_or_no_run_gives_nothing():
    qrels = {"q1": {"d1": 1}}
    assert compat.RelevanceEvaluator(qrels, {"map"}).evaluate({}) == {}
    assert compat.RelevanceEvaluator(qrels, {"map"}).evaluate({"q9": {"d1": 1.0}}) == {}
    assert pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate({"q9": {"d1": 1.0}}) == {}


def test_files_read_as_pytrec_eval_reads_them(tmp_path):
    qrels_text, run_text = "q1 0 d1 2\nq1 0 d2 0\n", "q1 Q0 d1 1 0.5 t\nq1 Q0 d2 2 1.5 t\n"
    path = tmp_path / "run.txt"
    path.write_text(run_text)
    assert compat.parse_qrel(io.StringIO(qrels_text)) == pytrec_eval.parse_qrel(
        io.StringIO(qrels_text)
    )
    with open(path) as run_file:
        assert compat.parse_run(run_file) == pytrec_eval.parse_run(io.StringIO(run_text))
    assert compat.parse_run(path) == pytrec_eval.parse_run(io.StringIO(run_text))
    # pytrec_eval also names trec_eval's preference groups (prefs, all_prefs, qrels_jg), which
    # read preference judgments ragmeter does not compute (docs: semantics).
    assert set(compat.supported_nicknames) <= set(pytrec_eval.supported_nicknames)
    assert compat.supported_measures >= set(pytrec_eval.supported_measures)


def test_refusals_name_the_problem():
    with pytest.raises(ValueError, match="unknown metric"):
        compat.RelevanceEvaluator({"q": {"d": 1}}, {"not_a_measure"})
    with pytest.raises(ValueError, match="relevance_threshold"):
        compat.RelevanceEvaluator({"q": {"d": 1}}, {"map"}, relevance_level=0)
    with pytest.raises(TypeError, match="query_relevance"):
        compat.RelevanceEvaluator([("q", "d")], {"map"})  # type: ignore[arg-type]
