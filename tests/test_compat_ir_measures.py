"""ragmeter.compat.ir_measures against ir_measures itself, the oracle: the same per-query
values and aggregates, measure objects and names, on random judgments and runs (judged
queries missing from the run and run queries without judgments included)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmeter import InvalidInputError
from ragmeter.compat import ir_measures as compat

ir_measures = pytest.importorskip("ir_measures")

# Measures ir_measures computes with its pytrec_eval provider (the one ragmeter's families
# with these names follow); written the same way in both libraries.
NAMES = [
    "nDCG@10", "nDCG", "P@5", "P(rel=2)@3", "R@10", "AP", "AP(rel=2)", "RR", "Rprec", "Bpref",
    "NumRet", "NumRel", "NumRelRet", "SetP", "Success@3", "infAP", "IPrec@0.5",
]  # fmt: skip
doc_ids = st.sampled_from([f"d{i}" for i in range(12)])


@st.composite
def evaluation(draw):
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 5))):
        judged = draw(st.dictionaries(doc_ids, st.integers(0, 3), min_size=1, max_size=8))
        judged[draw(doc_ids)] = 1
        qrels[f"q{q}"] = judged
        if draw(st.booleans()) or q == 0:  # some judged queries have no ranking
            ranked = draw(st.lists(doc_ids, unique=True, min_size=1, max_size=10))
            rng = random.Random(draw(st.integers(0, 2**32)))
            run[f"q{q}"] = {d: float(rng.randrange(5)) for d in ranked}  # ties too
    if draw(st.booleans()):
        run["unjudged"] = {"d1": 1.0}
    return qrels, run


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=evaluation())
def test_the_same_values_as_ir_measures(data):
    qrels, run = data
    theirs_measures = [ir_measures.parse_measure(n) for n in NAMES]
    # ir_measures writes some names its own way (NumRelRet is NumRet(rel=1)).
    written = {str(m): n for m, n in zip(theirs_measures, NAMES, strict=True)}
    theirs = {
        (m.query_id, written[str(m.measure)]): m.value
        for m in ir_measures.iter_calc(theirs_measures, qrels, run)
    }
    ours = {(m.query_id, str(m.measure)): m.value for m in compat.iter_calc(NAMES, qrels, run)}
    assert ours.keys() == theirs.keys()
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(value, abs=1e-12), key
    aggregate = ir_measures.calc_aggregate(theirs_measures, qrels, run)
    ours_aggregate = compat.calc_aggregate(NAMES, qrels, run)
    for measure, value in aggregate.items():
        assert ours_aggregate[written[str(measure)]] == pytest.approx(value, abs=1e-12), measure


def test_measure_objects_are_written_as_ir_measures_writes_them():
    from ragmeter.compat.ir_measures import AP, RR, P, nDCG

    for ours, theirs in [
        (nDCG @ 10, ir_measures.nDCG @ 10),
        (P(rel=2) @ 5, ir_measures.P(rel=2) @ 5),
        (AP, ir_measures.AP),
        (RR, ir_measures.RR),
    ]:
        assert str(ours) == str(theirs)
    qrels, run = {"q1": {"d1": 1}}, {"q1": {"d2": 2.0, "d1": 1.0}}
    results = compat.calc_aggregate([nDCG @ 10, RR], qrels, run)
    assert (
        results[RR]
        == results["RR"]
        == ir_measures.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR]
    )
    for name in ["P_5,10", "ndcg_cut.5,10", "map_cut.10", "iprec_at_recall.0.1,0.5", "set_P"]:
        assert [str(m) for m in compat.parse_trec_measure(name)] == [
            str(m) for m in ir_measures.parse_trec_measure(name)
        ], name


def test_rows_and_tables_as_ir_measures_takes_them():
    pd = pytest.importorskip("pandas")
    qrels_rows = [ir_measures.Qrel("q1", "d1", 1), ir_measures.Qrel("q1", "d2", 0)]
    run_rows = [ir_measures.ScoredDoc("q1", "d1", 0.5), ir_measures.ScoredDoc("q1", "d2", 1.5)]
    want = ir_measures.calc_aggregate([ir_measures.AP], qrels_rows, run_rows)[ir_measures.AP]
    assert compat.calc_aggregate(["AP"], qrels_rows, run_rows)["AP"] == want == 0.5
    frames = (pd.DataFrame(qrels_rows), pd.DataFrame(run_rows))
    assert compat.calc_aggregate(["AP"], *frames)["AP"] == 0.5


def test_aggregates_are_formed_as_each_family_forms_them():
    # By hand: q1's one relevant document at rank 4 (AP 1/4), q2's first (AP 1); gm_map is
    # trec_eval's exp(mean(log AP)) = sqrt(1/4) = 1/2, map the mean 5/8, num_ret the sum 5.
    qrels = {"q1": {"d4": 1}, "q2": {"d1": 1}}
    run = {"q1": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}, "q2": {"d1": 1.0}}
    got = compat.calc_aggregate(["gm_map", "map", "num_ret"], qrels, run)
    assert got == {"gm_map": pytest.approx(0.5), "map": pytest.approx(0.625), "num_ret": 5.0}


def test_unknown_names_are_refused():
    with pytest.raises(InvalidInputError, match="unknown metric"):
        compat.parse_measure("NotAMeasure@10")
    with pytest.raises(AttributeError):
        compat.NotAMeasure  # noqa: B018


@pytest.mark.parametrize("provider", ["gdeval", "pytrec_eval", "cwl_eval"])
def test_nothing_to_average_is_nan_as_in_ir_measures(provider):
    # No judged query: ir_measures' MeanAgg has nothing to add and returns its default, NaN
    # (its own pytrec_eval provider gives {nDCG@10: nan} for these inputs); gdeval gave 0.0.
    ir_measures = pytest.importorskip("ir_measures")
    run_rows = [ir_measures.ScoredDoc("2", "d1", 1.0)]
    want = ir_measures.pytrec_eval.calc_aggregate([ir_measures.nDCG @ 10], [], run_rows)
    assert math.isnan(want[ir_measures.nDCG @ 10])
    assert math.isnan((ir_measures.nDCG @ 10).aggregator().result())
    got = compat.REGISTRY[provider].calc_aggregate(
        [compat.nDCG @ 10], [], [compat.ScoredDoc("2", "d1", 1.0)]
    )
    assert math.isnan(got[compat.nDCG @ 10])
