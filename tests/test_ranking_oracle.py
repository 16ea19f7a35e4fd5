"""Property tests: ragmeter equals pytrec_eval (trec_eval's C code) on random graded judgments
and scored runs, for every measure family pytrec_eval has, read from the declarations.

Scores are multiples of 1/1024, exact in float32 (pytrec_eval compares float32 scores), drawn
from few values so that ties are frequent: both break them by document id, byte-wise,
descending.
"""

import math

import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ragmeter
from ragmeter.ranking import FAMILIES

# Left to the tests against the trec_eval 10 binary (test_trec_eval_dropin.py): runid and
# relstring, which pytrec_eval gives as 0.0 (it has no text values), and iprec_at_recall and
# 11pt_avg, where pytrec_eval-terrier 0.5.11 keeps trec_eval 9's rounding of recall levels to
# documents, (long) (level * R + 0.9), and trec_eval 10 rounds to the nearest, lround(level * R).
NOT_COMPARED = ("runid", "relstring", "iprec_at_recall", "11pt_avg")
PYTREC_FAMILIES = [
    f
    for f in FAMILIES
    if f.trec_name in pytrec_eval.supported_measures and f.trec_name not in NOT_COMPARED
]
# Other parameters than trec_eval's defaults, in trec_eval's syntax, where pytrec_eval names
# the values as ragmeter does.
PARAMETERS = {"cutoffs": ".2,3,7,12", "levels": ".0.05,0.35,0.45"}


def pytrec_names(fam):
    base = [fam.trec_name]
    if fam.trec_parameters in PARAMETERS:
        base.append(fam.trec_name + PARAMETERS[fam.trec_parameters])
    return base


REQUESTS = [name for fam in PYTREC_FAMILIES for name in pytrec_names(fam)]


def test_every_pytrec_eval_measure_is_declared():
    declared = {f.trec_name for f in FAMILIES}
    assert set(pytrec_eval.supported_measures) <= declared


doc_ids = st.sampled_from([f"d{i}" for i in range(25)] + ["D2", "a-b", "d100"])


@st.composite
def query(draw, ties=True):
    # pytrec_eval reads uninitialised memory (wrong values, or a hang) when a query's judgments
    # are empty or all negative, or its ranking is empty (cvangysel/pytrec_eval#49); those
    # cases are pinned by E4, E10 and E13 and by the tests against the trec_eval binary.
    # Here every query has a judgment >= 0 and a ranked document.
    judged = draw(st.dictionaries(doc_ids, st.integers(-1, 4), min_size=1, max_size=14))
    judged[draw(doc_ids)] = draw(st.integers(0, 4))
    ranked = draw(st.lists(doc_ids, unique=True, min_size=1, max_size=22))
    if ties and draw(st.booleans()):
        scores = [draw(st.sampled_from([0.5, 1.0, 1.5, 2.0])) for _ in ranked]
    else:
        ticks = draw(st.permutations(range(len(ranked) * 4 + 1)))[: len(ranked)]
        scores = [tick / 1024 for tick in ticks]
    return judged, dict(zip(ranked, scores, strict=True))


def _compare(qrels, run, threshold, judged_only):
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(REQUESTS), relevance_level=threshold, judged_docs_only_flag=judged_only
    )
    expected = evaluator.evaluate(run)
    ours = ragmeter.ranking_metrics(
        qrels,
        run,
        metrics=REQUESTS,
        relevance_threshold=threshold,
        judged_docs_only=judged_only,
        zero_division="trec_eval",
        average=None,
    )
    assert sorted(expected) == sorted(qrels)
    geometric = {f.trec_name for f in PYTREC_FAMILIES if f.summary == "geometric"}
    for query_id, values in expected.items():
        for key, want in values.items():
            got = ours[key][query_id]
            if key in geometric:
                # pytrec_eval gives trec_eval's per-query log(max(value, 0.00001)).
                got = math.log(max(got, 0.00001))
            context = (query_id, key, qrels[query_id], run[query_id])
            if math.isnan(want):
                assert math.isnan(got), context
            else:
                assert got == pytest.approx(want, abs=1e-12), context


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    queries=st.lists(query(), min_size=1, max_size=6),
    threshold=st.sampled_from([1, 2, 3]),
    judged_only=st.booleans(),
)
def test_matches_pytrec_eval(queries, threshold, judged_only):
    qrels = {f"q{i}": judged for i, (judged, _) in enumerate(queries)}
    run = {f"q{i}": ranked for i, (_, ranked) in enumerate(queries)}
    _compare(qrels, run, threshold, judged_only)


# The common measures, by their ragmeter names and pytrec_eval's.
MEASURES = [
    ("map", "map", "map"),
    ("map@3", "map_cut.3", "map_cut_3"),
    ("precision@5", "P.5", "P_5"),
    ("recall@10", "recall.10", "recall_10"),
    ("mrr", "recip_rank", "recip_rank"),
    ("r_precision", "Rprec", "Rprec"),
    ("ndcg", "ndcg", "ndcg"),
    ("ndcg@5", "ndcg_cut.5", "ndcg_cut_5"),
    ("hit_rate@1", "success.1", "success_1"),
    ("hit_rate@3", "success.3", "success_3"),
]


@settings(max_examples=60, deadline=None)
@given(queries=st.lists(query(), min_size=1, max_size=6))
def test_mean_is_the_mean_of_per_query_values(queries):
    qrels = {f"q{i}": judged for i, (judged, _) in enumerate(queries)}
    run = {f"q{i}": ranked for i, (_, ranked) in enumerate(queries)}
    names = [m[0] for m in MEASURES]
    per_query = ragmeter.ranking_metrics(qrels, run, metrics=names, zero_division=0.0, average=None)
    means = ragmeter.ranking_metrics(qrels, run, metrics=names, zero_division=0.0)
    for name in names:
        values = list(per_query[name].values())
        assert means[name] == pytest.approx(sum(values) / len(values), abs=1e-12)
        assert means[name].n_queries == len(values)


def test_means_add_in_trec_eval_order():
    # Four topics listed 4, 3, 2, 1 with P_200 values 0.035, 0.005, 0.005, 0: trec_eval adds
    # them in its topic order (1, 2, 3, 4) and prints 0.0113; adding in the order given, or
    # pairwise, gives 0.0112.
    grades = {"4": 7, "3": 1, "2": 1, "1": 0}
    qrels = {q: {f"r{i}": 1 for i in range(max(n, 1))} for q, n in grades.items()}
    run = {q: [f"r{i}" for i in range(n)] for q, n in grades.items()}
    mean = ragmeter.ranking_metrics(qrels, run, metrics=["P_200"])["P_200"]
    assert f"{mean:.4f}" == "0.0113"
    assert f"{(0.035 + 0.005 + 0.005 + 0.0) / 4:.4f}" == "0.0112"


def _large_run(
    n_queries: int,
    docs_per_query: int,
    seed: int,
    *,
    judged_per_query: int = 40,
    score_values: int | None = None,
):
    """Judgments and scored runs large enough that the core reads and prepares them in
    several batches (it works in batches of 2**18 documents). Scores are distinct, or drawn
    from ``score_values`` values (ties between judged and unjudged documents everywhere)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(n_queries):
        docs = [f"d{q}_{i}" for i in range(docs_per_query)]
        # Multiples of 2**-12, exact in float32 (pytrec_eval compares float32).
        if score_values is None:
            ticks = rng.permutation(docs_per_query * 4)[:docs_per_query].tolist()
        else:
            ticks = rng.integers(0, score_values, docs_per_query).tolist()
        run[f"q{q}"] = {doc: tick / 4096 for doc, tick in zip(docs, ticks, strict=True)}
        judged = rng.choice(docs_per_query, size=judged_per_query, replace=False).tolist()
        grades = rng.integers(0, 4, judged_per_query).tolist()
        qrels[f"q{q}"] = {docs[i]: g for i, g in zip(judged, grades, strict=True)}
        qrels[f"q{q}"][f"unranked{q}"] = 2
    return qrels, run


def test_many_batches_match_pytrec_eval_per_query():
    qrels, run = _large_run(n_queries=700, docs_per_query=1000, seed=7)  # 700,000 ranked docs
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {m[1] for m in MEASURES})
    expected = evaluator.evaluate(run)
    for n_threads in (1, 2):
        ours = ragmeter.ranking_metrics(
            qrels, run, metrics=[m[0] for m in MEASURES], average=None, n_threads=n_threads
        )
        for name, _, key in MEASURES:
            for q in qrels:
                assert ours[name][q] == pytest.approx(expected[q][key], abs=1e-12), (name, q)


@pytest.mark.parametrize(
    ("docs_per_query", "judged_per_query"),
    [
        (1000, 60),  # about 45 relevant documents found per ranking
        (60, 12),  # a few (each found score counted over the ranking)
    ],
)
def test_ties_across_many_batches_match_pytrec_eval_per_query(docs_per_query, judged_per_query):
    # Scores from 7 values: every found document ties with unjudged ones, whose ids decide
    # the order (byte-wise, descending), in every batch.
    n_queries = 300_000 // docs_per_query
    qrels, run = _large_run(
        n_queries,
        docs_per_query,
        seed=11,
        judged_per_query=judged_per_query,
        score_values=7,
    )
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {m[1] for m in MEASURES})
    expected = evaluator.evaluate(run)
    ours = ragmeter.ranking_metrics(qrels, run, metrics=[m[0] for m in MEASURES], average=None)
    for name, _, key in MEASURES:
        for q in qrels:
            assert ours[name][q] == pytest.approx(expected[q][key], abs=1e-12), (name, q)


def test_error_in_a_later_batch_names_its_query():
    qrels, run = _large_run(n_queries=400, docs_per_query=1000, seed=8)
    run["q350"]["bad"] = "high"  # in the second batch of 2**18 documents
    with pytest.raises(
        TypeError, match=r"query 'q350': the score of document 'bad' must be a number"
    ):
        ragmeter.ranking_metrics(qrels, run, metrics=["map"])
    del run["q350"]["bad"]
    run["q390"] = [*run["q390"], "d390_0"]  # a ranking that repeats a document
    with pytest.raises(ValueError, match=r"'q390'.*'d390_0'"):
        ragmeter.ranking_metrics(qrels, run, metrics=["map"])


def test_the_first_bad_query_in_input_order_is_reported():
    # q100's repeated document is found while its batch is prepared in the pool; q350's bad
    # score while the next batch is read. The error names q100, the first in input order.
    qrels, run = _large_run(n_queries=400, docs_per_query=1000, seed=9)
    run["q100"] = [*run["q100"], "d100_0"]
    run["q350"]["bad"] = "high"
    with pytest.raises(ValueError, match=r"'q100'.*'d100_0'"):
        ragmeter.ranking_metrics(qrels, run, metrics=["map"])
