"""ir_measures' own tests, ported to ragmeter.

Source: https://github.com/terrierteam/ir_measures, commit
dc04a88f49b181a4fc5e7a35e4410735ea4470bd, tests/: test_measures.py, test_providers.py,
test_accuracy.py, test_aggregate.py, test_compat.py (with compat.qrels and compat.run),
test_cwl_eval.py (with cwl.qrels and cwl.run), test_gdeval.py, test_judged.py,
test_pyndeval.py, test_pytrec_eval.py, test_ranx.py, test_runtime.py and test_util.py.

Not ported: test_runtime.py's test_non_doc_qrels (a measure defined on answer strings) and
test_run_qrel_inputs (which columns a provider asks for): ir_measures' own machinery. Its
converters' round trips (test_util.py) are ported as: each input form ragmeter reads gives the
same values, the others are refused.

How ir_measures' calls read here:

- ``provider.iter_calc([measure], qrels, run)`` is ``ranking_metrics(qrels, run,
  metrics=[str(measure)], average=None)``, ``calc_aggregate`` its mean (a sum for NumQ,
  NumRet, NumRel); the qrels and runs are the source's TREC texts, read as
  ir_measures.read_trec_qrels / read_trec_run read them (``qrels`` / ``run`` below).
- A measure asked of one provider is named as ragmeter names that provider's measure: gdeval's
  nDCG@k is ``nDCG(dcg='exp-log2')@k``, the measure ir_measures sends to gdeval.
- Judged queries without a ranking score as ir_measures scores them (the measure's default,
  0): ``missing="zero"``. Where a provider leaves a query out (accuracy, pyndeval), ragmeter's
  value is undefined: ``zero_division=nan``.
- assertAlmostEqual(a, b, places=p) is ``round(abs(a - b), p) == 0``; gdeval prints 5
  decimals, so its values hold to 5e-6.

Values the source only compares between providers (test_measures.py) or prints are computed
by hand from the measures' definitions, the arithmetic beside them. No score ties occur in
these runs, so the tie rule plays no part.
"""

from __future__ import annotations

import math

import ir_measures
import pandas as pd
import pytest
from vendored import TREC_EVAL_TESTS

import ragmeter
from ragmeter.ranking import parse_metric

NAN = math.nan
LOG2_3 = math.log2(3)
LOG2_5 = math.log2(5)
GDEVAL = 5e-6  # gdeval prints 5 decimals


def qrels(text, subtopics=False):
    """ir_measures.read_trec_qrels of a text: {query: {doc: grade}}; with subtopics, the
    iteration column is the subtopic (as ir_measures gives it to pyndeval)."""
    judged = {}
    for line in text.strip().splitlines():
        if not line.strip():
            continue
        query, iteration, doc, grade = line.split()
        if subtopics:
            judged.setdefault(query, {}).setdefault(doc, {})[iteration] = int(grade)
        else:
            judged.setdefault(query, {})[doc] = int(grade)
    return judged


def run(text):
    """ir_measures.read_trec_run of a text: {query: {doc: score}}."""
    ranked = {}
    for line in text.strip().splitlines():
        if not line.strip():
            continue
        query, _, doc, _, score, *_ = line.split()
        ranked.setdefault(query, {})[doc] = float(score)
    return ranked


def per_query(judged, ranked, measure, **options):
    return ragmeter.ranking_metrics(judged, ranked, metrics=[measure], average=None, **options)[
        measure
    ]


def aggregate(judged, ranked, measure, **options):
    return ragmeter.ranking_metrics(judged, ranked, metrics=[measure], **options)[measure]


def assert_almost_equal(first, second, places=7, msg=None):
    """unittest's assertAlmostEqual."""
    assert round(abs(float(first) - float(second)), places) == 0, (first, second, msg)


# The qrels and run of test_measures.py, test_ranx.py, and query 0 of the others.
QRELS_1 = qrels("""
0 0 D0 0
0 0 D1 1
0 0 D2 1
0 0 D3 2
0 0 D4 0
""")
RUN_1 = run("""
0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
""")
# Ranked by score: D0 (0), D2 (1), D3 (2), D1 (1), D4 (0); rel=1: 3 relevant at ranks 2, 3, 4;
# rel=2: D3 alone, at rank 3.

# The two queries of test_providers.py, test_gdeval.py, test_judged.py, test_pytrec_eval.py.
QRELS_2 = qrels("""
0 0 D0 0
0 0 D1 1
0 0 D2 1
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 0 D5 2
""")
RUN_2 = run("""
0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
1 0 D1 1 0.8 run
1 0 D3 2 0.7 run
1 0 D4 3 0.3 run
1 0 D2 4 0.4 run
""")
# Query 1 ranked D1 (unjudged), D3 (2), D2, D4 (unjudged).

# nDCG's DCG of query 0 (gains = grades, trec_eval's) and its ideal (2, 1, 1).
DCG = 1 / LOG2_3 + 2 / 2 + 1 / LOG2_5
IDCG = 2 + 1 / LOG2_3 + 1 / 2
# Gains 2^g - 1 (exp-log2): 0, 1, 3, 1, 0; ideal 3, 1, 1.
EXP_DCG = 1 / LOG2_3 + 3 / 2 + 1 / LOG2_5
EXP_IDCG = 3 + 1 / LOG2_3 + 1 / 2
# gdeval's ERR: stop probability (2^g - 1) / 2^4 (gdeval's maximum grade 4): 1/16 at rank 2,
# 3/16 at rank 3, 1/16 at rank 4:
# 1/2 * 1/16 + 1/3 * 3/16 * 15/16 + 1/4 * 1/16 * 15/16 * 13/16
#   = (1536 + 2880 + 585) / 49152 = 5001 / 49152.
ERR_0 = 5001 / 49152

# test_measures.py's TestMeasures.test_measures (values the source compares between every
# provider that supports them) and TestMeasures.test_P (values it prints), query 0.
MEASURES = {
    # P: 0 relevant in the top 1; 3 (rel=1) or 1 (rel=2) in every longer cutoff, over k.
    **{f"P(rel=1)@{k}": (0.0 if k == 1 else 3 / k) for k in [1, 5, 10, 20, 50, 100]},
    **{f"P(rel=2)@{k}": (0.0 if k == 1 else 1 / k) for k in [1, 5, 10, 20, 50, 100]},
    "P@5": 3 / 5,
    # R: nothing in the top 1, every relevant document in the top 5.
    **{
        f"R(rel={r})@{k}": (0.0 if k == 1 else 1.0) for r in [1, 2] for k in [1, 5, 10, 20, 50, 100]
    },
    "R@2": 1 / 3,  # D2 of D1, D2, D3
    "R(rel=2)@2": 0.0,
    # RR: first relevant at rank 2 (rel=1) or 3 (rel=2); none in the top 1.
    "RR": 1 / 2,
    "RR(rel=1)": 1 / 2,
    "RR(rel=2)": 1 / 3,
    **{f"RR(rel=1)@{k}": (0.0 if k == 1 else 1 / 2) for k in [1, 5, 10, 20, 50, 100]},
    **{f"RR(rel=2)@{k}": (0.0 if k == 1 else 1 / 3) for k in [1, 5, 10, 20, 50, 100]},
    # Rprec: the top R = 3 hold D2, D3 (rel=1); the top 1 = D0 nothing (rel=2).
    "Rprec": 2 / 3,
    "Rprec(rel=1)": 2 / 3,
    "Rprec(rel=2)": 0.0,
    # AP: (1/2 + 2/3 + 3/4) / 3 = 23/36 (rel=1); (1/3) / 1 (rel=2); @k sums the precisions
    # of the top k only, over R: 0 at k = 1, (1/2) / 3 at k = 2.
    "AP": 23 / 36,
    "AP(rel=1)": 23 / 36,
    "AP(rel=2)": 1 / 3,
    **{f"AP(rel=1)@{k}": (0.0 if k == 1 else 23 / 36) for k in [1, 5, 10, 20, 50, 100]},
    **{f"AP(rel=2)@{k}": (0.0 if k == 1 else 1 / 3) for k in [1, 5, 10, 20, 50, 100]},
    "AP@2": (1 / 2) / 3,
    "AP(rel=2)@2": 0.0,
    # nDCG: DCG / IDCG; at k = 1 D0 has no gain; at k = 2: (1 / log2 3) / (2 + 1 / log2 3).
    "nDCG": DCG / IDCG,
    "nDCG(dcg='log2')": DCG / IDCG,
    "nDCG(dcg='exp-log2')": EXP_DCG / EXP_IDCG,
    **{f"nDCG(dcg='log2')@{k}": (0.0 if k == 1 else DCG / IDCG) for k in [1, 5, 10, 20, 50, 100]},
    **{
        f"nDCG(dcg='exp-log2')@{k}": (0.0 if k == 1 else EXP_DCG / EXP_IDCG)
        for k in [1, 5, 10, 20, 50, 100]
    },
    "nDCG@2": (1 / LOG2_3) / (2 + 1 / LOG2_3),
    "nDCG(dcg='exp-log2')@2": (1 / LOG2_3) / (3 + 1 / LOG2_3),
    # Bpref: rel=1: R = 3, judged non-relevant N = 2 (D0, D4); each relevant document has D0
    # above it: (1 - 1/min(3, 2)) * 3 / 3 = 1/2. rel=2: R = 1, N = 4; D3 has D0 and D2 above
    # it: 1 - min(2, 1) / min(1, 4) = 0.
    "Bpref": 1 / 2,
    "Bpref(rel=1)": 1 / 2,
    "Bpref(rel=2)": 0.0,
    # Judged: every retrieved document is judged: 5 / 5 (or 1 / 1).
    **{f"Judged@{k}": 1.0 for k in [1, 5, 10, 20, 50, 100]},
    # ERR: nothing in the top 1; 1/2 * 1/16 in the top 2; ERR_0 from the top 4 on.
    **{f"ERR@{k}": (0.0 if k == 1 else ERR_0) for k in [1, 5, 10, 20, 50, 100]},
    "ERR@2": 1 / 32,
}


# From test_measures.py: TestMeasures.test_measures and TestMeasures.test_P.
@pytest.mark.parametrize(("measure", "expected"), MEASURES.items(), ids=list(MEASURES))
def test_measures(measure, expected):
    assert per_query(QRELS_1, RUN_1, measure) == {"0": pytest.approx(expected, abs=1e-12)}


PARTIAL_RUN_2 = {"0": RUN_2["0"]}
PARTIAL_QRELS_2 = {"0": QRELS_2["0"]}
# test_providers.py's measures, each as the provider it is asked of: P@5 (the default,
# pytrec_eval; trectools and cwl_eval agree), ERR@5 (gdeval), Judged@5, RR@5 (msmarco),
# Compat(p=0.8), Accuracy.
PROVIDER_MEASURES = ["P@5", "ERR@5", "Judged@5", "RR@5", "Compat(p=0.8)", "Accuracy"]


# From test_providers.py, TestPytrecEval.test_empty: "qrels but no run" (iter_calc 0 for each
# judged query, accuracy none; calc_aggregate 0, accuracy NaN).
def test_providers_qrels_but_no_run():
    for measure in PROVIDER_MEASURES:
        values = per_query(QRELS_2, {}, measure, missing="zero", zero_division=NAN)
        mean = aggregate(QRELS_2, {}, measure, missing="zero", zero_division=NAN)
        if measure == "Accuracy":  # the provider leaves both queries out
            assert all(math.isnan(v) for v in values.values()) and math.isnan(mean)
        else:
            assert values == {"0": 0.0, "1": 0.0}, measure
            assert mean == 0.0, measure


# From test_providers.py, TestPytrecEval.test_empty: "qrels but partial run".
@pytest.mark.parametrize(
    ("measure", "expected", "mean", "tolerance"),
    [
        # cwl_eval's: 0.6000000000000001 and 0.30000000000000004, 3/5 and 3/10 rounded.
        ("P@5", {"0": 0.6, "1": 0.0}, 0.3, 1e-12),
        ("ERR@5", {"0": 0.10175, "1": 0.0}, 0.050875, GDEVAL),
        ("Judged@5", {"0": 1.0, "1": 0.0}, 0.5, 1e-12),
        ("RR@5", {"0": 0.5, "1": 0.0}, 0.25, 1e-12),
        ("Compat(p=0.8)", {"0": 0.4744431703672816, "1": 0.0}, 0.2372215851836408, 1e-12),
    ],
)
def test_providers_qrels_but_partial_run(measure, expected, mean, tolerance):
    values = per_query(QRELS_2, PARTIAL_RUN_2, measure, missing="zero", zero_division=NAN)
    assert values == pytest.approx(expected, abs=tolerance)
    got = aggregate(QRELS_2, PARTIAL_RUN_2, measure, missing="zero", zero_division=NAN)
    assert got == pytest.approx(mean, abs=tolerance)


# From test_providers.py, TestPytrecEval.test_empty: accuracy with a partial run scores query
# 0 only ({Metric('0', Accuracy(), 0.5)}, aggregate 0.5).
def test_providers_accuracy_qrels_but_partial_run():
    values = per_query(QRELS_2, PARTIAL_RUN_2, "Accuracy", missing="zero", zero_division=NAN)
    assert values["0"] == 0.5 and math.isnan(values["1"])
    assert aggregate(QRELS_2, PARTIAL_RUN_2, "Accuracy", missing="zero", zero_division=NAN) == 0.5


# From test_providers.py, TestPytrecEval.test_empty: "run but partial qrels" (only query 0 is
# judged: only it is scored). Query 1 of the run has no judgment: ragmeter never evaluates it
# and lists it in ``unjudged``; missing="zero" as above.
@pytest.mark.parametrize(
    ("measure", "expected", "tolerance"),
    [
        ("P@5", 0.6, 1e-12),
        ("ERR@5", 0.10175, GDEVAL),
        ("Judged@5", 1.0, 1e-12),
        ("RR@5", 0.5, 1e-12),
        ("Compat(p=0.8)", 0.4744431703672816, 1e-12),
        ("Accuracy", 0.5, 1e-12),
    ],
)
def test_providers_run_but_partial_qrels(measure, expected, tolerance):
    results = ragmeter.ranking_metrics(
        PARTIAL_QRELS_2, RUN_2, metrics=[measure], average=None, missing="zero"
    )
    assert results[measure] == {"0": pytest.approx(expected, abs=tolerance)}
    assert results.unjudged == ["1"]
    mean = aggregate(PARTIAL_QRELS_2, RUN_2, measure, missing="zero")
    assert mean == pytest.approx(expected, abs=tolerance)


# From test_providers.py, TestPytrecEval.test_empty: "run but partial qrels", with ragmeter's
# default missing="raise". ir_measures evaluates the judged query only; ragmeter's default
# refuses a pair of mappings whose queries differ (docs/semantics.md, "Missing queries": two
# inputs that share no query are often the wrong pair), naming the unjudged query, and
# missing="skip" gives ir_measures' values (test above: missing="zero").
def test_providers_run_but_partial_qrels_default_missing():
    with pytest.raises(ValueError, match="y_pred queries without judgments in y_true: '1'"):
        ragmeter.ranking_metrics(PARTIAL_QRELS_2, RUN_2, metrics=["P@5"], average=None)
    results = ragmeter.ranking_metrics(
        PARTIAL_QRELS_2, RUN_2, metrics=["P@5"], average=None, missing="skip"
    )
    assert results["P@5"] == {"0": pytest.approx(0.6, abs=1e-12)}
    assert results.unjudged == ["1"]


# From test_providers.py, TestPytrecEval.test_empty: "run but no qrels" and "both no run and no
# qrels". ir_measures yields no value (iter_calc []) and a NaN aggregate; ragmeter refuses an
# evaluation without a judged query, a ValueError (ranking_metrics' Raises: "nothing to
# evaluate"), a documented difference.
@pytest.mark.parametrize("measure", PROVIDER_MEASURES)
@pytest.mark.parametrize(("judged", "ranked"), [({}, RUN_2), ({}, {})], ids=["run", "empty"])
def test_providers_no_qrels_is_refused(measure, judged, ranked):
    with pytest.raises(ValueError, match="there is no query to evaluate"):
        ragmeter.ranking_metrics(judged, ranked, metrics=[measure], missing="zero")


# From test_accuracy.py, TestMeasures.test_accuracy.
def test_accuracy():
    judged = qrels("""
0 0 C0_1 0
0 0 B0_1 1
0 0 A0_1 2

1 0 A1_1 2
1 0 A1_2 2
1 0 B1_1 1
1 0 C1_2 0

2 0 B1_1 1
""")
    ranked = run("""
0 0 C0_1 1 0.4 run
0 0 A0_1 2 0.3 run
0 0 C0_2 3 0.2 run
0 0 C0_3 4 0.1 run

1 0 C1_1 1 0.8 run
1 0 A1_1 2 0.7 run
1 0 C1_2 3 0.6 run
1 0 B1_1 4 0.5 run
1 0 C1_3 5 0.4 run

2 0 B1_1 2 0.2 run
2 0 C1_1 3 0.1 run
""")
    results_1 = {"0": 2.0 / 3.0, "1": 0.5 * (2 / 3.0 + 1.0 / 3), "2": 1.0}
    values = per_query(judged, ranked, "Accuracy(rel=1)", zero_division=NAN)
    assert values == pytest.approx(results_1, abs=1e-9)
    # rel=2: query 2 has no document of grade 2; the provider leaves it out.
    values = per_query(judged, ranked, "Accuracy(rel=2)", zero_division=NAN)
    assert {q: v for q, v in values.items() if q != "2"} == pytest.approx(
        {"0": 2.0 / 3, "1": 0.75}, abs=1e-9
    )
    assert math.isnan(values["2"])
    expected = sum(results_1.values()) / len(results_1)
    assert aggregate(judged, ranked, "Accuracy(rel=1)", zero_division=NAN) == pytest.approx(
        expected, abs=1e-9
    )


# From test_aggregate.py, TestMeasures.test_P.
def test_aggregate():
    ranked = {**RUN_2, "1": {**RUN_2["1"], "D0": 0.1}}  # the source's run adds "1 0 D0 5 0.1"
    results = ragmeter.ranking_metrics(QRELS_2, ranked, metrics=["P@5"])
    assert results["P@5"] == 0.5  # (3/5 + 2/5) / 2
    assert len(ragmeter.ranking_metrics(QRELS_2, ranked, metrics=["P@5"], average=None)["P@5"]) == 2


# tests/compat.qrels and tests/compat.run, written as the only thing Compat reads of them: for
# each query, the rank (by score; every score distinct) and grade of each judged document the
# run retrieves, the grades of the judged documents it does not retrieve, and the run's length.
# Compat compares the run with the ideal ranking (grade > 0 by decreasing grade, ties in run
# order, documents not retrieved last): document ids play no other part, so compat_inputs(),
# with ids made from ranks, gives Compat the same input as the files (checked when this was
# written: every Compat value of the files, to the last bit).
COMPAT_DATA = {
    "31_1": (
        980,
        """
        1:4 2:4 3:4 4:4 5:4 6:3 7:4 8:4 9:30 10:50 11:4 12:30 13:4 15:4 16:4 17:3 18:10 19:4
        20:4 21:4 22:4 23:3 27:3 33:50 35:3 37:1 40:3 51:4 53:3 54:2 59:2 62:2 63:3 72:2 73:2
        77:3 87:2 90:2 102:2 105:2 114:3 120:1 142:2 165:2 166:2 168:3 177:2 193:2 198:2 199:4
        212:2 231:2 250:1 263:1 275:2 276:4 278:3 279:2 281:1 290:2 302:3 320:3 321:2 325:3
        326:1 349:2 360:1 367:2 389:1 423:2 458:1 476:0 481:2 486:0 531:0 540:3 558:0 586:2
        597:1 604:2 609:2 636:0 657:0 680:0 696:0 708:2 720:0 737:2 752:1 940:1
        """,
        "3 3 3 2 2 1 1 1 0 0 0 0 0 0 0 0",
    ),
    "31_2": (
        947,
        """
        1:0 2:0 3:0 4:0 5:0 6:0 7:0 8:0 9:0 10:0 18:0 21:0 22:0 24:0 25:0 26:3 27:3 28:0 29:0
        30:0 35:1 37:0 38:1 40:0 48:0 49:1 58:0 59:0 60:0 61:1 62:2 64:0 80:4 81:0 94:2 98:1
        103:0 112:1 132:0 133:0 137:4 150:0 177:0 180:4 182:0 183:0 187:0 196:2 208:3 216:0
        220:0 222:1 231:0 250:0 252:0 259:0 262:20 264:0 265:0 268:1 274:0 277:1 279:2 283:0
        297:0 299:0 301:0 338:0 342:0 352:4 363:0 403:2 417:0 420:0 438:1 452:3 460:40 481:3
        485:0 491:0 497:0 525:2 530:0 531:2 575:2 582:1 592:0 593:0 608:3 613:0 618:0 625:3
        627:1 659:4 679:4 690:3 697:0 701:1 702:0 706:1 716:0 717:0 749:2 761:50 794:4 802:3
        809:40 814:2 827:2 843:0 867:20
        """,
        "4 4 4 3 3 3 3 3 3 3 3 3 2 2 2 2 2 2 1 1 1 1 1 1 1 1 1 1 1 1 1" + " 0" * 63,
    ),
}


def compat_inputs():
    judged, ranked = {}, {}
    for query, (length, retrieved, not_retrieved) in COMPAT_DATA.items():
        grades = {int(r): int(g) for r, g in (item.split(":") for item in retrieved.split())}
        ranked[query] = {
            (f"judged{rank}" if rank in grades else f"unjudged{rank}"): float(length + 1 - rank)
            for rank in range(1, length + 1)
        }
        judged[query] = {f"judged{rank}": grade for rank, grade in grades.items()} | {
            f"not-retrieved{i}": int(g) for i, g in enumerate(not_retrieved.split())
        }
    return judged, ranked


# From test_compat.py, TestCompat.test_measures ("based on a manual execution of
# https://github.com/claclark/Compatibility").
@pytest.mark.parametrize(
    ("measure", "expected"),
    [
        ("Compat(p=0.95)", {"31_1": 0.51779512165509, "31_2": 0.018400100569017922}),
        ("Compat(p=0.9)", {"31_1": 0.3761334522946854, "31_2": 0.004344079941789211}),
        ("Compat(p=0.8)", {"31_1": 0.16723008845234535, "31_2": 0.00022806427320561776}),
    ],
)
def test_compat(measure, expected):
    judged, ranked = compat_inputs()
    assert (len(judged["31_1"]), len(judged["31_2"])) == (106, 205)  # compat.qrels' 311 lines
    assert per_query(judged, ranked, measure) == pytest.approx(expected, abs=1e-9)
    if measure == "Compat(p=0.95)":
        assert aggregate(judged, ranked, measure) == pytest.approx(0.268097611, abs=1e-9)


# tests/cwl.qrels and tests/cwl.run, verbatim (the run's second column, E1/E2/E3, is not read).
CWL_QRELS = qrels("""
T1   00  D1   1
T1   00  D2   0
T1   00  D3   1
T1   00  D4   1
T1   00  D7   1
T1   00  D8   0
T1   00  D9   1
T1   00  D10  0
T2   00  D1   1
T2   00  D2   1
T2   00  D5   1
T2   00  D6   0
T2   00  D7   1
T2   00  D8   1
T2   00  D9   1
T2   00  D10  0
T3   00  D4   0
T3   00  D5   0
T3   00  D6   1
T3   00  D7   1
T3   00  D8   1
T3   00  D9   0
T3   00  D10  1
""")
CWL_RUN = run("""
T1  E2  D1  1   4.3 R1
T1  E2  D2  2   4.2 R1
T1  E1  D3  3   4.1 R1
T1  E2  D4  4   3.9 R1
T1  E3  D5  5   3.8 R1
T1  E1  D6  6   3.7 R1
T1  E2  D7  7   3.6 R1
T1  E1  D8  8   3.5 R1
T1  E2  D9  9   3.4 R1
T1  E3  D10  10  3.3 R1
T2  E1  D1  1   4.3 R1
T2  E1  D2  2   4.2 R1
T2  E1  D3  3   4.1 R1
T2  E2  D4  4   3.9 R1
T2  E2  D5  5   3.8 R1
T2  E1  D6  6   3.7 R1
T2  E2  D7  7   3.6 R1
T2  E1  D8  8   3.5 R1
T2  E2  D9  9   3.4 R1
T2  E3  D10  10  3.3 R1
T3  E3  D1  1   4.3 R1
T3  E2  D2  2   4.2 R1
T3  E1  D3  3   4.1 R1
T3  E2  D4  4   3.9 R1
T3  E2  D5  5   3.8 R1
T3  E1  D6  6   3.7 R1
T3  E2  D7  7   3.6 R1
T3  E1  D8  8   3.5 R1
T3  E2  D9  9   3.4 R1
T3  E3  D10  10  3.3 R1
""")


# From test_cwl_eval.py, TestCwlEval.test_measures ("based on a manual execution of cwl-eval").
@pytest.mark.parametrize(
    ("measure", "expected"),
    [
        ("AP", [0.7087, 0.7438, 0.3068]),
        ("BPM(T=1.0, max_rel=1)@20", [1.0000, 1.0000, 0.1667]),
        ("BPM(T=2.0, max_rel=1)@10", [0.6667, 1.0000, 0.2857]),
        ("INSQ(T=1.0, max_rel=1)", [0.5872, 0.6629, 0.0880]),
        ("INSQ(T=2.0, max_rel=1)", [0.4513, 0.5068, 0.1292]),
        ("INST(T=1.0, max_rel=1)", [0.7934, 0.9226, 0.0888]),
        ("INST(T=2.0, max_rel=1)", [0.5994, 0.6924, 0.1397]),
        ("SDCG(max_rel=1)@10", [0.5645, 0.6531, 0.2848]),
        ("NERR8(max_rel=1)@10", [1.0000, 1.0000, 0.1667]),
        ("NERR9(max_rel=1)@10", [1.0000, 1.0000, 0.0680]),
        ("NERR10(p=0.8, max_rel=1)", [1.0000, 1.0000, 0.0888]),
        ("NERR11(T=2.0, max_rel=1)", [1.0000, 1.0000, 0.0691]),
        ("P@1", [1.0000, 1.0000, 0.0000]),
        ("P@10", [0.5000, 0.6000, 0.4000]),
        ("P@20", [0.2500, 0.3000, 0.2000]),
        ("P@5", [0.6000, 0.6000, 0.0000]),
        ("RBP(p=0.9, rel=1)", [0.3501, 0.3996, 0.1988]),
        ("RR", [1.0000, 1.0000, 0.1667]),
    ],
)
def test_cwl_eval(measure, expected):
    values = per_query(CWL_QRELS, CWL_RUN, measure)
    assert values == pytest.approx(dict(zip(["T1", "T2", "T3"], expected, strict=True)), abs=1e-4)


# From test_gdeval.py, TestPytrecEval.test_nDCG: gdeval's nDCG (gains 2^g - 1), which ragmeter
# names nDCG(dcg='exp-log2'); to gdeval's 5 decimals.
@pytest.mark.parametrize(
    ("measure", "expected", "mean"),
    [
        ("nDCG(dcg='exp-log2')@20", {"0": 0.6201, "1": 0.35099}, 0.485545),
        ("nDCG(dcg='exp-log2')@2", {"0": 0.17377, "1": 0.38685}, 0.28031),
    ],
)
def test_gdeval_ndcg(measure, expected, mean):
    assert per_query(QRELS_2, RUN_2, measure) == pytest.approx(expected, abs=GDEVAL)
    assert aggregate(QRELS_2, RUN_2, measure) == pytest.approx(mean, abs=GDEVAL)


# From test_gdeval.py, TestPytrecEval.test_nDCG: both cutoffs from one evaluator, evaluated
# twice.
def test_gdeval_ndcg_together_twice():
    expected = {"nDCG(dcg='exp-log2')@20": 0.485545, "nDCG(dcg='exp-log2')@2": 0.28031}
    for _ in range(2):
        res = ragmeter.ranking_metrics(QRELS_2, RUN_2, metrics=list(expected))
        assert res == pytest.approx(expected, abs=GDEVAL)


# From test_gdeval.py, TestPytrecEval.test_ERR.
@pytest.mark.parametrize(
    ("measure", "expected", "mean"),
    [
        ("ERR@20", {"0": 0.10175, "1": 0.09375}, 0.09775),
        ("ERR@2", {"0": 0.03125, "1": 0.09375}, 0.0625),
    ],
)
def test_gdeval_err(measure, expected, mean):
    assert per_query(QRELS_2, RUN_2, measure) == pytest.approx(expected, abs=GDEVAL)
    assert aggregate(QRELS_2, RUN_2, measure) == pytest.approx(mean, abs=GDEVAL)


# From test_judged.py, TestMeasures.test_judged.
@pytest.mark.parametrize(
    ("measure", "expected"),
    [
        ("Judged", [1.0, 1.0 / 4.0]),
        ("Judged@1000", [1.0, 1.0 / 4.0]),  # Judged(cutoff=1000)
        ("Judged@10", [1.0, 1.0 / 4.0]),
        ("Judged@3", [1.0, 1.0 / 3.0]),
        ("Judged@1", [1.0, 0.0]),
    ],
)
def test_judged(measure, expected):
    values = per_query(QRELS_2, RUN_2, measure)
    assert values == pytest.approx(dict(zip(["0", "1"], expected, strict=True)), abs=1e-4)


# test_pyndeval.py's qrels: the iteration column is the subtopic.
PYNDEVAL_QRELS = qrels(
    """
0 0 D0 0
0 0 D1 1
0 0 D2 1
0 1 D2 1
0 1 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 1 D5 2
""",
    subtopics=True,
)


# From test_pyndeval.py, TestPynedvalEval.test_ERR_IA.
def test_pyndeval_err_ia():
    values = per_query(PYNDEVAL_QRELS, RUN_2, "ERR_IA@20")
    assert_almost_equal(values["0"], 0.4659, places=4)
    assert_almost_equal(values["1"], 0.1803, places=4)
    assert_almost_equal(aggregate(PYNDEVAL_QRELS, RUN_2, "ERR_IA@20"), 0.3231, places=4)


PYNDEVAL_MEASURES = [
    "ERR_IA@5",
    "ERR_IA(rel=2)@10",
    "nERR_IA@5",
    "nERR_IA(rel=2)@10",
    "alpha_DCG@5",
    "alpha_nDCG@5",
    "NRBP",
    "NRBP(rel=2)",
    "nNRBP",
    "nNRBP(rel=2)",
    "AP_IA",
    "AP_IA(rel=2)",
    "P_IA@5",
    "P_IA(rel=2)@10",
    "StRecall@5",
    "StRecall(rel=2)@10",
]


# From test_pyndeval.py, TestPynedvalEval.test_measures: the source computes the aggregates in
# one call and asserts nothing more; the values of P_IA and StRecall are computed by hand.
def test_pyndeval_measures():
    results = ragmeter.ranking_metrics(PYNDEVAL_QRELS, RUN_2, metrics=PYNDEVAL_MEASURES)
    assert list(results) == PYNDEVAL_MEASURES
    assert all(math.isfinite(v) and v >= 0 for v in results.values())
    # Query 0 ranks D0, D2, D3, D1, D4; its subtopic 0 has D1 and D2 (grade 1), its subtopic 1
    # D2 (grade 1) and D3 (grade 2). Query 1 ranks D1, D3, D2, D4; its subtopic 0 has D0
    # (grade 1, not ranked) and D3 (grade 2), its subtopic 1 D5 (grade 2, not ranked).
    # StRecall@5: q0 covers both subtopics, q1 one of two: (1 + 1/2) / 2.
    assert results["StRecall@5"] == pytest.approx(3 / 4, abs=1e-12)
    # StRecall(rel=2)@10: q0 has one subtopic with a grade-2 document (1, D3, ranked); q1 two
    # (0: D3 ranked, 1: D5 not): (1 + 1/2) / 2.
    assert results["StRecall(rel=2)@10"] == pytest.approx(3 / 4, abs=1e-12)
    # P_IA@5, the mean over a query's subtopics of P@5: q0 (2/5 + 2/5) / 2, q1 (1/5 + 0) / 2.
    assert results["P_IA@5"] == pytest.approx((2 / 5 + 1 / 10) / 2, abs=1e-12)
    # P_IA(rel=2)@10 over the subtopics with a grade-2 document: q0 1/10; q1 (1/10 + 0) / 2.
    assert results["P_IA(rel=2)@10"] == pytest.approx((1 / 10 + 1 / 20) / 2, abs=1e-12)


# From test_pytrec_eval.py, TestPytrecEval.test_NumRet.
@pytest.mark.parametrize(
    ("measure", "expected", "total"),
    [
        ("NumRet", {"0": 5, "1": 4}, 9),
        ("NumRet(rel=1)", {"0": 3, "1": 1}, 4),
        ("NumRet(rel=2)", {"0": 1, "1": 1}, 2),
        ("NumRet(rel=3)", {"0": 0, "1": 0}, 0),
    ],
)
def test_pytrec_eval_numret(measure, expected, total):
    assert per_query(QRELS_2, RUN_2, measure) == expected
    assert aggregate(QRELS_2, RUN_2, measure) == total


# From test_pytrec_eval.py, TestPytrecEval.test_NumQ.
def test_pytrec_eval_numq():
    assert per_query(QRELS_2, RUN_2, "NumQ") == {"0": 1, "1": 1}
    assert aggregate(QRELS_2, RUN_2, "NumQ") == 2


# From test_pytrec_eval.py, TestPytrecEval.test_NumRel (query 1's D5 judged 0 there).
def test_pytrec_eval_numrel():
    judged = {"0": QRELS_2["0"], "1": {"D0": 1, "D3": 2, "D5": 0}}
    assert per_query(judged, RUN_2, "NumRel") == {"0": 3, "1": 2}
    assert aggregate(judged, RUN_2, "NumRel") == 5


# The qrels and run of test_pytrec_eval.py's test_Success, test_SetP, test_SetR, test_SetAP,
# test_SetF.
SET_QRELS = qrels("""
0 0 D0 0
0 0 D1 1
0 0 D2 2
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 0 D5 0
""")
SET_RUN = run("""
0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
1 0 D1 1 0.8 run
1 0 D4 2 0.7 run
1 0 D3 3 0.3 run
1 0 D2 4 0.4 run
""")


# From test_pytrec_eval.py, TestPytrecEval.test_Success, test_SetP, test_SetR, test_SetAP and
# test_SetF (pytrec_eval's values: zero_division="trec_eval", 0 where trec_eval prints 0).
@pytest.mark.parametrize(
    ("measure", "expected", "mean", "places"),
    [
        ("Success@2", {"0": 1, "1": 0}, 0.5, None),
        ("Success(rel=2)@2", {"0": 1, "1": 0}, 0.5, None),
        ("Success(rel=3)@2", {"0": 0, "1": 0}, 0, None),
        ("SetP(rel=1)", {"0": 0.6, "1": 0.25}, 0.425, None),
        ("SetRelP(rel=1)", {"0": 1.0, "1": 0.5}, 0.75, None),
        ("SetP(rel=2)", {"0": 0.4, "1": 0.25}, 0.325, None),
        ("SetRelP(rel=2)", {"0": 1.0, "1": 1.0}, 1.0, None),
        ("SetP(rel=3)", {"0": 0, "1": 0}, 0, None),
        ("SetR(rel=1)", {"0": 1.0, "1": 0.5}, 0.75, None),
        ("SetR(rel=2)", {"0": 1.0, "1": 1.0}, 1.0, None),
        ("SetR(rel=3)", {"0": 0, "1": 0}, 0, None),
        ("SetAP(rel=1)", {"0": 0.6, "1": 0.125}, 0.3625, None),
        ("SetAP(rel=2)", {"0": 0.4, "1": 0.25}, 0.325, None),
        ("SetAP(rel=3)", {"0": 0, "1": 0}, 0, None),
        ("SetF(rel=1)", {"0": 0.75, "1": 0.33333}, 0.5417, 4),
        ("SetF(rel=1, beta=0.5)", {"0": 0.6923, "1": 0.3}, 0.49615, 4),
        ("SetF(rel=1, beta=2.0)", {"0": 0.81818, "1": 0.375}, 0.59659, 4),
        ("SetF(rel=3)", {"0": 0, "1": 0}, 0, None),
    ],
)
def test_pytrec_eval_success_and_set_measures(measure, expected, mean, places):
    values = per_query(SET_QRELS, SET_RUN, measure, zero_division="trec_eval")
    got = aggregate(SET_QRELS, SET_RUN, measure, zero_division="trec_eval")
    if places is None:  # assertEqual in the source
        assert values == expected
        assert got == mean
    else:
        for query, value in expected.items():
            assert_almost_equal(values[query], value, places=places, msg=query)
        assert_almost_equal(got, mean, places=places)


# From test_pytrec_eval.py, TestPytrecEval.test_SetF: the values it asserts with assertEqual
# (query 1 retrieves 4 documents, 1 relevant of R = 2: P = 1/4, R = 1/2;
# (1 + b^2) P R / (b^2 P + R): 0.3 for b = 0.5, 0.375 for b = 2).
def test_pytrec_eval_setf_exact_values():
    assert per_query(SET_QRELS, SET_RUN, "SetF(rel=1, beta=0.5)")["1"] == 0.3
    assert per_query(SET_QRELS, SET_RUN, "SetF(rel=1, beta=2.0)")["1"] == 0.375


# From test_pytrec_eval.py, TestPytrecEval.test_SetF: several SetF in one call ("make sure the
# multiple invocations hapen correctly").
def test_pytrec_eval_setf_together():
    measures = ["SetF(rel=1)", "SetF(rel=1, beta=0.5)", "SetF(rel=1, beta=2.0)", "SetF(rel=3)"]
    res = ragmeter.ranking_metrics(SET_QRELS, SET_RUN, metrics=measures, zero_division="trec_eval")
    assert_almost_equal(res["SetF(rel=1)"], 0.5417, places=4)
    assert_almost_equal(res["SetF(rel=1, beta=0.5)"], 0.49615, places=4)
    assert_almost_equal(res["SetF(rel=1, beta=2.0)"], 0.59659, places=4)
    assert res["SetF(rel=3)"] == 0


# From test_pytrec_eval.py, TestPytrecEval.test_IPrec (query 0's D0 judged 1 there).
@pytest.mark.parametrize(
    ("measure", "expected", "mean", "places"),
    [
        ("IPrec@0.25", {"0": 1.0, "1": 0.25}, 0.625, None),
        ("IPrec@0.5", {"0": 1.0, "1": 0.25}, 0.625, None),
        ("IPrec@0.75", {"0": 1.0, "1": 0}, 0.5, None),
        ("IPrec(rel=2)@0.1", {"0": 0.6666666, "1": 0.25}, 0.4583, 4),
        ("IPrec(rel=2)@0.25", {"0": 0.6666666, "1": 0.25}, 0.4583, 4),
        ("IPrec(rel=2)@0.5", {"0": 0.6666666, "1": 0.25}, 0.4583, 4),
        ("IPrec(rel=2)@0.75", {"0": 0.6666666, "1": 0.25}, 0.4583, 4),
    ],
)
def test_pytrec_eval_iprec(measure, expected, mean, places):
    judged = {**SET_QRELS, "0": {**SET_QRELS["0"], "D0": 1}}
    values = per_query(judged, SET_RUN, measure, zero_division="trec_eval")
    got = aggregate(judged, SET_RUN, measure, zero_division="trec_eval")
    if places is None:
        assert values == expected
        assert got == mean
    else:
        for query, value in expected.items():
            assert_almost_equal(values[query], value, places=places, msg=query)
        assert_almost_equal(got, mean, places=places)


# The qrels of test_pytrec_eval.py's test_infAP and test_nDCG (with -1 grades), and SET_RUN.
NEGATIVE_QRELS = qrels("""
0 0 D0 1
0 0 D1 -1
0 0 D2 0
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 2
1 0 D4 -1
1 0 D5 0
""")


# From test_pytrec_eval.py, TestPytrecEval.test_infAP.
@pytest.mark.parametrize(
    ("measure", "expected", "mean"),
    [
        ("AP", {"0": 0.8333, "1": 0.125}, 0.47916666666666663),
        ("infAP", {"0": 0.8333, "1": 0.1875}, 0.510416),
        ("AP(rel=2)", {"0": 0.33333, "1": 0.25}, 0.2917),
        ("infAP(rel=2)", {"0": 0.33333, "1": 0.375}, 0.3542),
    ],
)
def test_pytrec_eval_infap(measure, expected, mean):
    values = per_query(NEGATIVE_QRELS, SET_RUN, measure, zero_division="trec_eval")
    for query, value in expected.items():
        assert_almost_equal(values[query], value, places=4, msg=query)
    got = aggregate(NEGATIVE_QRELS, SET_RUN, measure, zero_division="trec_eval")
    assert_almost_equal(got, mean, places=4)


# From test_pytrec_eval.py, TestPytrecEval.test_nDCG (assertMetrics: places=4).
@pytest.mark.parametrize(
    ("measure", "expected"),
    [
        ("nDCG", {"0": 0.76018, "1": 0.32739}),
        ("nDCG@3", {"0": 0.76018, "1": 0.0}),
        ("nDCG(gains={0:1,1:4})", {"0": 0.97177, "1": 0.14949}),
    ],
)
def test_pytrec_eval_ndcg(measure, expected):
    values = per_query(NEGATIVE_QRELS, SET_RUN, measure, zero_division="trec_eval")
    assert sorted(values) == sorted(expected)
    for query, value in expected.items():
        assert_almost_equal(values[query], value, places=4, msg=query)


JUDGED_QRELS = qrels("""
0 0 D0 -1
0 0 D1 1
0 0 D3 2
0 0 D4 1
1 0 D0 1
1 0 D3 0
1 0 D4 -1
""")
JUDGED_RUN = run("""
0 0 D0 1 0.8 run
0 0 D2 2 0.7 run
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
1 0 D1 1 0.8 run
1 0 D0 2 0.7 run
1 0 D3 3 0.3 run
1 0 D2 4 0.4 run
""")


# From test_pytrec_eval.py, TestPytrecEval.test_P.
@pytest.mark.parametrize(
    ("measure", "expected"),
    [
        ("P@4", {"0": 0.5, "1": 0.25}),
        ("P(judged_only=True)@4", {"0": 0.75, "1": 0.25}),
    ],
)
def test_pytrec_eval_p(measure, expected):
    values = per_query(JUDGED_QRELS, JUDGED_RUN, measure, zero_division="trec_eval")
    assert sorted(values) == sorted(expected)
    for query, value in expected.items():
        assert_almost_equal(values[query], value, places=4, msg=query)


JUDGED_ONLY_MEASURES = [
    "P@4",
    "RR",
    "Rprec",
    "AP",
    "AP@4",
    "nDCG",
    "nDCG@4",
    "R@2",
    "SetP",
    "SetAP",
    "SetF",
    "Success@2",
    "IPrec@0.5",
]


def judged_only(measure):
    """measure(judged_only=True), as ir_measures writes it."""
    base, at, cutoff = measure.partition("@")
    return f"{base}(judged_only=True){at}{cutoff}"


# From test_pytrec_eval.py, TestPytrecEval.test_judged_only: measure(judged_only=True) on the
# run equals measure on the run without its unjudged documents and without D0, judged -1
# ("trec_eval considers negative labels as unjudged", trec_eval's -J), and differs from
# measure on the whole run.
@pytest.mark.parametrize("measure", JUDGED_ONLY_MEASURES)
def test_pytrec_eval_judged_only(measure):
    judged = {"0": JUDGED_QRELS["0"]}
    ranked = {"0": JUDGED_RUN["0"]}
    unjudged_removed = run("""
0 0 D1 3 0.3 run
0 0 D3 4 0.4 run
0 0 D4 5 0.1 run
""")
    with_flag = per_query(judged, ranked, judged_only(measure), zero_division="trec_eval")
    removed = per_query(judged, unjudged_removed, measure, zero_division="trec_eval")
    whole = per_query(judged, ranked, measure, zero_division="trec_eval")
    assert_almost_equal(with_flag["0"], removed["0"], places=4)
    assert round(abs(with_flag["0"] - whole["0"]), 7) != 0  # assertNotAlmostEqual
    # ragmeter's option for every measure of a call: judged_docs_only=True (trec_eval -J).
    option = per_query(judged, ranked, measure, zero_division="trec_eval", judged_docs_only=True)
    assert_almost_equal(option["0"], removed["0"], places=4)


# From test_ranx.py, TestRanx.test_P (assertEqual on ranx's floats: here to 1e-12, the same
# numbers up to the rounding of the order of the sums).
RANX = {
    "P@5": 0.6,
    "P(rel=2)@5": 0.2,
    "SetP": 0.6,
    "R@5": 1.0,
    "R(rel=2)@5": 1.0,
    "R@2": 0.3333333333333333,
    "R(rel=2)@2": 0.0,
    "SetR": 1.0,
    "RR": 0.5,
    "RR(rel=2)": 0.3333333333333333,
    "RR@10": 0.5,
    "RR(rel=2)@10": 0.3333333333333333,
    "RR@2": 0.5,
    "RR(rel=2)@2": 0.0,
    "AP": 0.6388888888888888,
    "AP(rel=2)": 0.3333333333333333,
    "AP@10": 0.6388888888888888,
    "AP(rel=2)@10": 0.3333333333333333,
    "AP@2": 0.16666666666666666,
    "AP(rel=2)@2": 0.0,
    "Success@10": 1.0,
    "Success(rel=2)@10": 1.0,
    "Success@2": 1.0,
    "Success(rel=2)@2": 0.0,
    "NumRet(rel=1)": 3.0,
    "nDCG": 0.6584645692843067,
    "nDCG@5": 0.6584645692843067,
    "nDCG@2": 0.23981246656813146,
    "nDCG(dcg='exp-log2')": 0.6201040599710453,
    "nDCG(dcg='exp-log2')@5": 0.6201040599710453,
    "nDCG(dcg='exp-log2')@2": 0.17376534287144002,
    "Rprec": 0.6666666666666666,
    "Rprec(rel=2)": 0.0,
    # The source's SetP(rel=2)@5 and SetR(rel=2)@5: the ranx provider drops the cutoff of a
    # set measure (ir_measures' own validation refuses it: test_names_ir_measures_refuses), so
    # these are SetP(rel=2) and SetR(rel=2).
    "SetP(rel=2)": 0.2,
    "SetR(rel=2)": 1.0,
}


@pytest.mark.parametrize(("measure", "expected"), RANX.items(), ids=list(RANX))
def test_ranx(measure, expected):
    assert per_query(QRELS_1, RUN_1, measure) == {"0": pytest.approx(expected, abs=1e-12)}


# From test_ranx.py, TestRanx.test_P: NumRet(rel=2) is computed there without an assertion;
# by hand, D3 is the only document of grade >= 2 retrieved.
def test_ranx_numret_rel_2():
    assert per_query(QRELS_1, RUN_1, "NumRet(rel=2)") == {"0": 1}


RUNTIME_QRELS = qrels("""
0 0 D0 0
0 0 D1 1
0 0 D2 1
0 0 D3 2
0 0 D4 0
1 0 D0 1
1 0 D3 0
1 0 D5 2
""")


# From test_runtime.py, TestRuntime.test_define_byquery and test_define: the measures defined
# there, my_p ((relevance > 0) summed over the documents of the run cut at k, over their number)
# and my_s (1 if one of them has relevance > 0), are P@k and Success@k on these runs (every
# query has at least 3 documents), with the values the source asserts.
@pytest.mark.parametrize(
    ("measure", "expected", "mean"),
    [
        ("P@1", {"0": 0.0, "1": 0.0}, 0.0),
        ("P@2", {"0": 0.5, "1": 0.0}, 0.25),
        ("P@3", {"0": 0.6666666666666666, "1": 0.0}, 0.3333333333333333),
        ("Success@2", {"0": 1.0, "1": 0.0}, 0.5),
    ],
)
def test_runtime_define(measure, expected, mean):
    assert per_query(RUNTIME_QRELS, RUN_2, measure) == pytest.approx(expected, abs=1e-15)
    assert aggregate(RUNTIME_QRELS, RUN_2, measure) == pytest.approx(mean, abs=1e-15)


# test_util.py, TestUtil.test_parse_trec_measure: what ir_measures reads each trec_eval name as.
# ragmeter must read the trec_eval name as the same measures: compared on the values of
# trec_eval's own test files (third_party/trec_eval/test), per query, in order (official:
# trec_eval orders it otherwise, so as a multiset). ragmeter's official also holds runid and
# gm_map, trec_eval's, for which ir_measures has no measure: they are set aside.
ORACLE = TREC_EVAL_TESTS
CUTOFFS = [5, 10, 15, 20, 30, 100, 200, 500, 1000]
PARSE_TREC_MEASURE = {
    "map": ["AP"],
    "P_5": ["P@5"],
    "P_5,10": ["P@5", "P@10"],
    "P.5": ["P@5"],
    "P.5,10": ["P@5", "P@10"],
    "P": [f"P@{k}" for k in CUTOFFS],
    "ndcg": ["nDCG"],
    "ndcg_cut.10": ["nDCG@10"],
    "ndcg_cut.5,10": ["nDCG@5", "nDCG@10"],
    "ndcg_cut_10": ["nDCG@10"],
    "ndcg_cut_5,10": ["nDCG@5", "nDCG@10"],
    "ndcg_cut": [f"nDCG@{k}" for k in CUTOFFS],
    "set_P": ["SetP"],
    "set_recall": ["SetR"],
    "set_F": ["SetF"],
    "set_relative_P": ["SetRelP"],
    "set_map": ["SetAP"],
    "official": [f"P@{k}" for k in CUTOFFS]
    + ["Rprec", "Bpref"]
    + [f"IPrec@{level / 10}" for level in range(11)]
    + ["AP", "NumQ", "NumRel", "NumRelRet", "NumRet", "RR"],
}


def trec_values(metrics, run_file, **options):
    results = ragmeter.evaluate_trec(
        ORACLE / "qrels.test", ORACLE / run_file, metrics=metrics, per_query=True, **options
    )
    return {name: tuple(sorted(by_query.items())) for name, by_query in results.items()}


@pytest.mark.parametrize(
    ("trec_name", "ir_names"),
    [pytest.param(name, names) for name, names in PARSE_TREC_MEASURE.items()],
    ids=list(PARSE_TREC_MEASURE),
)
@pytest.mark.parametrize(
    ("run_file", "options"),
    [("results.test", {}), ("results.trunc", {"complete": True})],
    ids=["results.test", "results.trunc-c"],
)
def test_parse_trec_measure(trec_name, ir_names, run_file, options):
    ours = trec_values([trec_name], run_file, **options)
    theirs = trec_values(ir_names, run_file, **options)
    if trec_name == "official":
        assert {"runid", "gm_map"} <= set(ours)
        ours = {n: v for n, v in ours.items() if n not in ("runid", "gm_map")}
        assert sorted(ours.values()) == sorted(theirs.values())
    else:
        assert list(ours.values()) == list(theirs.values())
    assert len(ours) == len(ir_names)


# From test_util.py, TestUtil.test_parse_trec_measure: 'set_F.1.0,0.5,2.4', which ir_measures
# reads as [SetF, SetF(beta=0.5), SetF(beta=2.4)]. trec_eval takes one beta for set_F (it
# would use 1.0 and ignore the others); ragmeter refuses what trec_eval would read in a way its
# author did not mean (docs/migration/trec_eval.md), naming the problem.
def test_parse_trec_measure_set_f_with_several_betas_is_refused():
    with pytest.raises(ValueError, match="set_F takes one parameter"):
        ragmeter.parse_measures("set_F.1.0,0.5,2.4")
    assert [m.params for m in ragmeter.parse_measures("set_F.0.5")] == [(0.5,)]


def meaning(name):
    """What a name stands for: family, cutoff, parameters, gains, threshold, judged_only."""
    m = parse_metric(name)
    gains = None if m.gains is None else dict(m.gains)
    return (m.family.name, m.cutoff, m.params, gains, m.relevance_threshold, m.judged_only)


# From test_util.py, TestUtil.test_parse_measure: the string cases (the others pass ir_measures'
# measure objects).
@pytest.mark.parametrize(
    ("text", "same_as"),
    [
        ("AP", "AP"),
        ("MAP", "AP"),
        ("P@10", "P@10"),
        ("nDCG@10", "nDCG@10"),
        ("P(rel=2)@10", "P(rel=2)@10"),
        ('nDCG(dcg="exp-log2")@10', "nDCG(dcg='exp-log2')@10"),
        ('nDCG(dcg="exp-log2", cutoff=20)', "nDCG(dcg='exp-log2')@20"),
        ("nDCG(gains={0:1,1:2})", "nDCG(gains={0:1,1:2})"),
        ("nDCG(gains={1: 2, 0: 1})", "nDCG(gains={0:1,1:2})"),
        ("nDCG(gains={0:1,1:2})@5", "nDCG(gains={0:1,1:2})@5"),
        ("IPrec@0.2", "IPrec@0.2"),
        ("IPrec(rel=2)@0.2", "IPrec(rel=2)@0.2"),
        ("IPrec(rel=2, recall=0.4)", "IPrec(rel=2)@0.4"),
    ],
)
def test_parse_measure(text, same_as):
    assert meaning(text) == meaning(same_as)
    # The same values too (graded judgments, every measure defined).
    judged = {"q1": {"a": 2, "b": 1, "c": 0, "d": 1}, "q2": {"a": 1, "e": 2}}
    ranked = {"q1": ["c", "a", "x", "d", "b"], "q2": ["y", "e", "a"]}
    assert per_query(judged, ranked, text) == per_query(judged, ranked, same_as)


# From test_util.py, TestUtil.test_parse_measure: a cutoff given both as a parameter and after
# "@" ('nDCG(dcg="exp-log2", cutoff=20)@10' is nDCG(dcg='exp-log2')@10 for ir_measures, "@"
# winning; 'IPrec(rel=2, recall=0.4)@0.2' is IPrec(rel=2)@0.2). ragmeter refuses a parameter
# given twice, a documented deviation (docs/semantics.md, "Deliberate differences": "a
# parameter or a gain level given twice ... refused").
@pytest.mark.parametrize(
    "text", ['nDCG(dcg="exp-log2", cutoff=20)@10', "IPrec(rel=2, recall=0.4)@0.2"]
)
def test_parse_measure_cutoff_given_twice_is_refused(text):
    with pytest.raises(ValueError, match="metrics"):
        parse_metric(text)


# From test_util.py, TestUtil.test_qrels_converter and test_run_converter: the same judgments
# and rankings as a dict of dicts, a DataFrame (with and without the iteration column) and an
# out-of-order DataFrame give the same values.
def test_qrels_and_run_converters():
    qrels_list = [
        ir_measures.Qrel("1", "A", 1),
        ir_measures.Qrel("1", "B", 0),
        ir_measures.Qrel("2", "A", 0),
        ir_measures.Qrel("2", "C", 1),
    ]
    qrels_df = pd.DataFrame(qrels_list)
    qrels_dict = {"1": {"A": 1, "B": 0}, "2": {"A": 0, "C": 1}}
    run_list = [
        ir_measures.ScoredDoc("1", "A", 1.2),
        ir_measures.ScoredDoc("1", "B", 0.9),
        ir_measures.ScoredDoc("2", "A", 3.5),
        ir_measures.ScoredDoc("2", "C", 0.3),
    ]
    run_dict = {"1": {"A": 1.2, "B": 0.9}, "2": {"A": 3.5, "C": 0.3}}
    out_of_order = [run_list[0], run_list[2], run_list[3], run_list[1]]
    measures = ["P@1", "RR", "NumRel", "NumRet", "nDCG"]
    # By hand: q1 ranks A (relevant), B; q2 ranks A, C (relevant).
    expected = {
        "P@1": {"1": 1.0, "2": 0.0},
        "RR": {"1": 1.0, "2": 0.5},
        "NumRel": {"1": 1, "2": 1},
        "NumRet": {"1": 2, "2": 2},
        "nDCG": {"1": 1.0, "2": 1 / LOG2_3},
    }
    qrels_sources = {
        "qrels_df": qrels_df,
        "qrels_df_noit": qrels_df.drop(columns="iteration"),
        "qrels_dict": qrels_dict,
    }
    run_sources = {
        "run_df": pd.DataFrame(run_list),
        "run_dict": run_dict,
        "out_of_order_df": pd.DataFrame(out_of_order),
    }
    for qrels_source in qrels_sources.values():
        for run_source in run_sources.values():
            values = ragmeter.ranking_metrics(
                qrels_source, run_source, metrics=measures, average=None
            )
            for measure, by_query in expected.items():
                assert values[measure] == pytest.approx(by_query, abs=1e-12), measure


# From test_util.py, TestUtil.test_qrels_converter and test_run_converter: a DataFrame without
# a doc_id column ("docno" instead) is refused with a ValueError naming the missing column.
@pytest.mark.parametrize("side", ["qrels", "run"])
def test_converters_missing_doc_id_column(side):
    good_qrels, good_run = {"0": {"A": 1}}, {"0": {"A": 1.2}}
    if side == "qrels":
        bad = pd.DataFrame([{"query_id": "0", "docno": "A", "relevance": 1}])
        arguments = (bad, good_run)
    else:
        bad = pd.DataFrame([{"query_id": "0", "docno": "A", "score": 1.2}])
        arguments = (good_qrels, bad)
    with pytest.raises(ValueError, match="there is no column 'doc_id'"):
        ragmeter.ranking_metrics(*arguments, metrics=["P@1"])


# From test_util.py, TestUtil.test_qrels_converter and test_run_converter: ir_measures' message
# lists the columns found ("found ['query_id', 'docno', 'relevance']"); ragmeter's says "its
# columns are ...", every one of them, the misnamed "docno" included.
@pytest.mark.parametrize("side", ["qrels", "run"])
def test_converters_missing_doc_id_column_lists_the_columns(side):
    good_qrels, good_run = {"0": {"A": 1}}, {"0": {"A": 1.2}}
    if side == "qrels":
        bad = pd.DataFrame([{"query_id": "0", "docno": "A", "relevance": 1}])
        arguments = (bad, good_run)
        columns = "'query_id', 'docno', 'relevance'"
    else:
        bad = pd.DataFrame([{"query_id": "0", "docno": "A", "score": 1.2}])
        arguments = (good_qrels, bad)
        columns = "'query_id', 'docno', 'score'"
    with pytest.raises(ValueError, match=f"its columns are {columns}"):
        ragmeter.ranking_metrics(*arguments, metrics=["P@1"])


# From test_util.py, TestUtil.test_qrels_converter and test_run_converter: object() is refused
# (ir_measures: ValueError "unknown qrels format"). ragmeter refuses a type it cannot read with
# an InputTypeError, a TypeError (ranking_metrics' Raises), as it does the namedtuple lists
# ir_measures also reads (not among ragmeter's inputs: mappings, sequences per query, tables).
@pytest.mark.parametrize(
    ("judged", "ranked"),
    [
        (object(), {"1": {"A": 1.2}}),
        ({"1": {"A": 1}}, object()),
        ([ir_measures.Qrel("1", "A", 1)], [ir_measures.ScoredDoc("1", "A", 1.2)]),
    ],
    ids=["qrels object", "run object", "namedtuples"],
)
def test_converters_unreadable_inputs(judged, ranked):
    with pytest.raises(TypeError):
        ragmeter.ranking_metrics(judged, ranked, metrics=["P@1"])


def ir_measures_refuses(name):
    """ir_measures refuses a name when parse_measure fails or its parameters do not validate
    (what provider.supports checks)."""
    try:
        ir_measures.parse_measure(name).validate_params()
    except (ValueError, NameError, AssertionError):
        return True
    return False


# Names ir_measures refuses, made from the measures of the tests above: a cutoff on a measure
# without one (test_ranx.py's SetP(rel=2)@5, SetR(rel=2)@5), parameters a measure does not
# take or values out of its choices, a missing required parameter, malformed strings. Each
# must be refused by ragmeter with a ValueError, at parsing or when evaluated.
REFUSED = [
    "SetP(rel=2)@5",
    "SetR(rel=2)@5",
    "SetF@10",
    "SetAP@5",
    "Bpref@10",
    "Rprec@5",
    "infAP@10",
    "NumQ@5",
    "NumRel@5",
    "IPrec",
    "Success",
    "SDCG@10",
    "NERR10",
    "nDCG(dcg='exp')@10",
    "ERR(p=0.5)@10",
    "ERR(rel=2)@20",
    "RBP(q=0.5)",
    "Judged(rel=2)@10",
    "alpha_nDCG(foo=1)@5",
    "P(judged_only=1)@5",
    "P(rel=2)@5.5",
    "Compat(p=2)",
    "P(rel=2",
    "P@5@10",
    "P@",
    "nDCG@ten",
    "NotAMeasure@10",
]


@pytest.mark.parametrize(
    "name",
    [
        *REFUSED,
        "RR(rel=2)(rel=3)",
        "P(rel=2)(rel=3)@5",
    ],
)
def test_names_ir_measures_refuses(name):
    assert ir_measures_refuses(name)
    with pytest.raises(ValueError):
        ragmeter.ranking_metrics(QRELS_1, RUN_1, metrics=[name])


# ir_measures refuses a fractional rel= (its rel is an int); ragmeter's threshold is a number
# (relevance_threshold: float; relevant means grade >= threshold, docs/semantics.md), so on
# integer grades AP(rel=2.5) is AP(rel=3).
def test_fractional_rel_is_a_threshold():
    assert ir_measures_refuses("AP(rel=2.5)")
    judged = {"0": {**QRELS_1["0"], "D2": 2, "D3": 3}}
    # Ranked D0 (0), D2 (2), D3 (3), D1 (1), D4 (0): D3 alone has a grade >= 2.5, at rank 3:
    # AP = (1/3) / 1 (rel=2 would count D2 too: (1/2 + 2/3) / 2).
    assert per_query(judged, RUN_1, "AP(rel=2.5)") == {"0": pytest.approx(1 / 3, abs=1e-12)}
    assert per_query(judged, RUN_1, "AP(rel=2)") == {"0": pytest.approx(7 / 12, abs=1e-12)}
