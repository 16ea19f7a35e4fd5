"""Every input rule of the spec's "Inputs" section, and bad input of every kind."""

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import given
from hypothesis import strategies as st

import ragmeter
from ragmeter import mean_reciprocal_rank, ndcg_at_k, parse_metric, ranking_metrics, recall_at_k


def test_str_and_int_ids_are_never_mixed():
    with pytest.raises(TypeError, match=r"document id 1 is int but earlier ids are str"):
        mean_reciprocal_rank({"q": ["1"]}, {"q": [1]})
    with pytest.raises(TypeError, match="one id type per evaluation"):
        mean_reciprocal_rank({"q": {1: 1}, "p": {"2": 1}}, {"q": [1], "p": ["2"]})
    # One type throughout is fine, int or str.
    assert mean_reciprocal_rank({"q": [7]}, {"q": [3, 7]}) == 0.5


@pytest.mark.parametrize("bad_id", [1.5, None, True, b"d1", ("d", 1)])
def test_ids_must_be_str_or_int(bad_id):
    with pytest.raises(TypeError, match="document ids must be str or int"):
        mean_reciprocal_rank({"q": ["d1"]}, {"q": ["d1", bad_id]})


def test_a_numpy_integer_id_is_refused_with_the_conversion_to_make():
    import numpy as np

    with pytest.raises(TypeError, match=r"np.int64\(1\) of type int64; convert .*int\(doc_id\)"):
        mean_reciprocal_rank({"q": {np.int64(1): 1}}, {"q": {np.int64(1): 1.0}})


def test_a_str_is_never_a_collection():
    with pytest.raises(TypeError, match=r"wrap a single relevant id in a list, \['d1'\]"):
        mean_reciprocal_rank({"q": "d1"}, {"q": ["d1"]})
    with pytest.raises(TypeError, match=r"wrap a single id in a list, \['d1'\]"):
        mean_reciprocal_rank({"q": ["d1"]}, {"q": "d1"})
    with pytest.raises(TypeError, match="got a str"):
        mean_reciprocal_rank("d1", ["d1"])


def test_judgments_as_collections_or_grades():
    run = {"q": ["a", "b", "c"]}
    for judged in (["b"], ("b",), {"b"}, frozenset({"b"}), {"b": 1}, np.array(["b"])):
        assert mean_reciprocal_rank({"q": judged}, run) == 0.5


def test_a_set_is_not_a_ranking():
    with pytest.raises(TypeError, match="a set has no order"):
        mean_reciprocal_rank({"q": ["a"]}, {"q": {"a", "b"}})


def test_rankings_from_tuples_arrays_and_generators():
    qrels = {"q": ["b"]}
    for ranking in (("a", "b"), np.array(["a", "b"]), (d for d in ["a", "b"])):
        assert mean_reciprocal_rank(qrels, {"q": ranking}) == 0.5


def test_series_refused_as_one_query():
    grades = pd.Series({"d1": 2, "d2": 0})
    with pytest.raises(TypeError, match=r"Series is refused as one query's judgments.*to_dict\(\)"):
        ndcg_at_k({"q": grades}, {"q": ["d1"]})
    with pytest.raises(TypeError, match=r"Series is refused as one query's ranking.*tolist\(\)"):
        ndcg_at_k({"q": ["d1"]}, {"q": pd.Series(["d1", "d2"])})


def test_whole_series_align_by_position():
    y_true = pd.Series([["d1"], ["d2"]], index=["a", "b"])
    y_pred = pd.Series([["d1"], ["x", "d2"]], index=["a", "b"])
    per_query = mean_reciprocal_rank(y_true, y_pred, average=None)
    assert per_query.tolist() == [1.0, 0.5]
    assert mean_reciprocal_rank(y_true, [["d1"], ["x", "d2"]]) == 0.75
    with pytest.raises(ValueError, match="different indexes"):
        mean_reciprocal_rank(y_true, pd.Series([["d1"], ["x", "d2"]], index=["b", "a"]))


def test_sequences_align_by_position_and_must_match_in_length():
    assert recall_at_k([["d1"], ["d2"]], [["d1"], ["d3"]], k=1) == 0.5
    with pytest.raises(ValueError, match="y_true has 2 queries and y_pred has 1"):
        recall_at_k([["d1"], ["d2"]], [["d1"]], k=1)


def test_mapping_and_sequence_cannot_be_mixed():
    with pytest.raises(TypeError, match="two mappings keyed by query id or two sequences"):
        recall_at_k({"q": ["d1"]}, [["d1"]], k=1)


def test_dataframe_is_refused():
    frame = pd.DataFrame({"doc": ["d1"]})
    with pytest.raises(TypeError, match="DataFrame"):
        recall_at_k(frame, [["d1"]], k=1)


def test_query_id_type_mismatch_gets_a_hint():
    with pytest.raises(
        ValueError, match=r"query ids of y_true are int and those of y_pred are str"
    ):
        recall_at_k({1: ["d1"]}, {"1": ["d1"]}, k=1)


def test_grades_and_scores_must_be_numbers():
    with pytest.raises(TypeError, match="the grade of document 'd1' must be a number"):
        ndcg_at_k({"q": {"d1": "high"}}, {"q": ["d1"]})
    with pytest.raises(ValueError, match="the grade of document 'd1' is NaN"):
        ndcg_at_k({"q": {"d1": float("nan")}}, {"q": ["d1"]})
    with pytest.raises(ValueError, match="the score of document 'd2' is NaN"):
        ndcg_at_k({"q": {"d1": 1}}, {"q": {"d1": 1.0, "d2": float("nan")}})
    with pytest.raises(TypeError, match="the score of document 'd1' must be a number"):
        ndcg_at_k({"q": {"d1": 1}}, {"q": {"d1": None}})
    # numpy scalars are numbers.
    assert ndcg_at_k({"q": {"d1": np.int64(2)}}, {"q": {"d1": np.float32(0.5)}}) == 1.0


def test_judged_twice_in_a_list_is_refused():
    with pytest.raises(ValueError, match="'d1' is judged twice"):
        recall_at_k({"q": ["d1", "d1"]}, {"q": ["d1"]}, k=1)


def test_error_names_the_query():
    with pytest.raises(ValueError, match=r"query 'second': document 'x' appears more than once"):
        mean_reciprocal_rank(
            {"first": ["a"], "second": ["a"]}, {"first": ["a"], "second": ["x", "x"]}
        )


@pytest.mark.parametrize(
    ("name", "kind", "k"),
    [
        ("ndcg@10", "ndcg", 10),
        ("NDCG_cut_10", "ndcg_cut", 10),
        ("ndcg", "ndcg", None),
        ("recall@100", "recall", 100),
        ("recall_100", "recall", 100),
        ("precision@5", "precision", 5),
        ("P_5", "precision", 5),
        ("hit_rate@1", "hit_rate", 1),
        ("success_1", "hit_rate", 1),
        ("mrr", "mrr", None),
        ("recip_rank", "mrr", None),
        ("mrr@10", "mrr", 10),
        ("map", "map", None),
        ("map@100", "map", 100),
        ("map_cut_100", "map_cut", 100),
        ("r_precision", "r_precision", None),
        ("Rprec", "r_precision", None),
    ],
)
def test_metric_names(name, kind, k):
    spec = parse_metric(name)
    assert (spec.name, spec.kind, spec.k) == (name, kind, k)


@pytest.mark.parametrize(
    # "precision" alone is ranx's (the whole ranking); "prec" alone needs a cutoff.
    "name",
    ["ndgc@10", "bleu", "Recall", "prec", "ndcg@0", "r_precision@5", ""],
)
def test_bad_metric_names(name):
    with pytest.raises(ValueError, match=r"ndcg@k|needs a cutoff|positive integer|no cutoff"):
        ranking_metrics({"q": ["a"]}, {"q": ["a"]}, metrics=[name])


def test_trec_eval_syntax_names_trec_eval_columns():
    # trec_eval's NAME.params and bare family names give trec_eval's column names.
    assert [m.name for m in ragmeter.parse_measures("P.5")] == ["P_5"]
    assert [m.name for m in ragmeter.parse_measures("recall")] == [
        f"recall_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    ]
    assert [m.name for m in ragmeter.parse_measures("iprec_at_recall.0.5,0.1")] == [
        "iprec_at_recall_0.10",
        "iprec_at_recall_0.50",
    ]
    assert [m.name for m in ragmeter.parse_measures("set_F.0.5")] == ["set_F_0.5"]
    with pytest.raises(ValueError, match="stands for 9 measures"):
        parse_metric("P")


def test_unknown_metric_lists_the_valid_ones():
    with pytest.raises(ValueError, match=r"valid metrics: precision@k, recall@k, hit_rate@k, mrr"):
        ranking_metrics({"q": ["a"]}, {"q": ["a"]}, metrics=["bleu"])


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"k": 0}, ValueError, "k: must be a positive integer"),
        ({"k": 2.5}, TypeError, "k: must be a positive integer"),
        ({"k": 10**30}, ValueError, "k: must be a positive integer from 1 to"),
        (
            {"relevance_threshold": 0},
            ValueError,
            "relevance_threshold: must be a finite number > 0",
        ),
        ({"relevance_threshold": "1"}, TypeError, "relevance_threshold: must be a number"),
        (
            {"zero_division": "ignore"},
            ValueError,
            'zero_division: must be "warn", "trec_eval", 0.0, 1.0 or np.nan',
        ),
        ({"zero_division": 0.5}, ValueError, "zero_division: must be"),
        ({"duplicates": "last"}, ValueError, "duplicates: must be one of 'raise', 'first'"),
        ({"missing": "ignore"}, ValueError, "missing: must be one of 'raise', 'zero', 'skip'"),
        ({"average": "macro"}, ValueError, "average: must be one of 'mean', None"),
        (
            {"n_threads": 2**64},
            ValueError,
            "n_threads: must be a positive integer from 1 to 256 or None",
        ),
        ({"n_threads": 1.0}, TypeError, "n_threads: must be a positive integer"),
        ({"n_threads": 0}, ValueError, "n_threads"),
    ],
)
def test_bad_arguments(kwargs, error, pattern):
    # Every argument error is a RagmeterError as well as a ValueError or TypeError.
    with pytest.raises(error, match=pattern) as info:
        recall_at_k({"q": ["a"]}, {"q": ["a"]}, **kwargs)
    assert isinstance(info.value, ragmeter.RagmeterError)


def test_results_do_not_depend_on_thread_count():
    rng = np.random.default_rng(0)
    qrels = {f"q{i}": {f"d{j}": int(rng.integers(0, 4)) for j in range(30)} for i in range(300)}
    runs = {f"q{i}": {f"d{j}": float(rng.random()) for j in range(60)} for i in range(300)}
    metrics = ["ndcg@10", "map", "recall@20", "mrr", "precision@5"]
    one = ranking_metrics(
        qrels, runs, metrics=metrics, average=None, n_threads=1, zero_division=0.0
    )
    two = ranking_metrics(
        qrels, runs, metrics=metrics, average=None, n_threads=2, zero_division=0.0
    )
    assert one == two


def test_max_docs_cuts_the_ranking():
    qrels = {"q": ["c"]}
    assert ranking_metrics(qrels, {"q": ["a", "b", "c"]}, metrics=["mrr"], max_docs=2)["mrr"] == 0.0
    with pytest.raises(ValueError, match="max_docs: must be a positive integer"):
        ranking_metrics(qrels, {"q": ["a"]}, metrics=["mrr"], max_docs=0)


def test_mean_score_pickles_with_its_context():
    import pickle

    mean = recall_at_k({"q": ["a"], "p": ["b"]}, {"q": ["a"], "p": ["x"]}, k=1)
    back = pickle.loads(pickle.dumps(mean))
    assert back == 0.5 and back.n_queries == 2 and back.metric == "recall@1"
    assert isinstance(mean, float) and isinstance(back, ragmeter.MeanScore)


def test_ids_with_equal_python_hashes_are_told_apart():
    # hash(-1) == hash(-2) in CPython: the join by hash must confirm equality.
    assert hash(-1) == hash(-2)
    qrels = {"q": {-2: 2, 5: 0}}
    run = {"q": {-1: 0.9, -2: 0.5, 5: 0.7}}
    result = ranking_metrics(qrels, run, metrics=["mrr", "ndcg"])
    assert result["mrr"] == pytest.approx(1 / 3)
    assert result["ndcg"] == pytest.approx(0.5)
    both = ranking_metrics({"q": {-1: 1, -2: 3}}, run, metrics=["ndcg"])["ndcg"]
    ideal = 3 + 1 / np.log2(3)
    assert both == pytest.approx((1 + 3 / np.log2(4)) / ideal)


class _CaseInsensitive(str):
    """A str subclass equal to other strs regardless of case (hashed as its lower case)."""

    def __eq__(self, other):
        return isinstance(other, str) and self.lower() == other.lower()

    def __hash__(self):
        return hash(self.lower())


def test_a_judged_id_equal_to_a_run_id_of_another_text_ranks_as_the_run_id():
    # CaseInsensitive("D1") == "d1": the document is the run's "d1", tied at 0.5 with "x",
    # and ranked after it ("x" > "d1" byte-wise), third. As "D1" it would rank fourth.
    run = {"q": {"d1": 0.5, "x": 0.5, "a": 0.9}}
    ours = ranking_metrics({"q": {_CaseInsensitive("D1"): 1}}, run, metrics=["mrr"])
    evaluator = pytrec_eval.RelevanceEvaluator({"q": {"d1": 1}}, {"recip_rank"})
    assert ours["mrr"] == evaluator.evaluate(run)["q"]["recip_rank"] == pytest.approx(1 / 3)


def test_ints_beyond_64_bits_and_number_subclasses_are_read_as_float_reads_them():
    class Score(float):
        pass

    run = {"q": {"d1": 2**80, "d2": 2**79, "d3": Score(1e30), "d4": 1}}
    plain = {"q": {doc: float(score) for doc, score in run["q"].items()}}
    qrels = {"q": {"d2": 2**70, "d4": 1}}
    evaluator = pytrec_eval.RelevanceEvaluator({"q": {"d2": 1, "d4": 1}}, {"map", "recip_rank"})
    expected = evaluator.evaluate(plain)["q"]
    ours = ranking_metrics(qrels, run, metrics=["map", "mrr"])
    assert ours["map"] == pytest.approx(expected["map"])
    assert ours["mrr"] == pytest.approx(expected["recip_rank"]) == pytest.approx(1 / 3)
    with pytest.raises(ValueError, match="the grade of document 'd1' is inf"):
        ranking_metrics({"q": {"d1": float("inf")}}, run, metrics=["map"])


@pytest.mark.parametrize(
    ("call", "n_threads", "error"),
    [
        (lambda n: recall_at_k({"q": ["a"]}, {"q": ["a"]}, n_threads=n), -1, ValueError),
        (lambda n: recall_at_k({"q": ["a"]}, {"q": ["a"]}, n_threads=n), 1.5, TypeError),
        (lambda n: ragmeter.sign_flip_test([[0.1], [0.2]], n_threads=n), -1, ValueError),
    ],
)
def test_n_threads_is_checked_before_the_core(call, n_threads, error):
    with pytest.raises(error, match=r"n_threads:? must be a positive"):
        call(n_threads)


# -- issue 10: what used to be silently wrong or a bare Python error -----------------------


@pytest.mark.parametrize(
    ("y_true", "y_pred"),
    [({}, {}), ([], []), ({"q1": ["a"]}, {"q2": ["a"]})],
)
def test_nothing_to_evaluate_is_an_error(y_true, y_pred):
    # recall_at_k({}, {}) was nan without a word; as scikit-learn does for empty input, it is
    # an error (with missing="skip", disjoint queries leave nothing either).
    with pytest.raises(ragmeter.InvalidInputError, match="no query to evaluate"):
        recall_at_k(y_true, y_pred, k=1, missing="skip")


@pytest.mark.parametrize(
    ("y_true", "y_pred", "what"),
    [
        ({"q": {"a": True}}, {"q": ["a"]}, "grade"),
        ({"q": ["a"]}, {"q": {"a": True, "b": 0.5}}, "score"),
        ({"q": {"a": np.bool_(True)}}, {"q": ["a"]}, "grade"),
    ],
)
def test_bools_are_not_grades_or_scores(y_true, y_pred, what):
    with pytest.raises(
        TypeError, match=rf"query 'q': the {what} of document 'a' is a bool"
    ) as info:
        ranking_metrics(y_true, y_pred, metrics=["mrr"])
    assert isinstance(info.value, ragmeter.InputTypeError)


def test_a_lone_surrogate_in_a_document_id_names_the_query():
    with pytest.raises(ValueError, match=r"query 'q': document id .* lone surrogate"):
        ranking_metrics({"q": ["a"]}, {"q": ["\ud800"]}, metrics=["mrr"])


@pytest.mark.parametrize("n_threads", [257, 10**12, 2**64])
def test_n_threads_is_bounded(n_threads):
    with pytest.raises(
        ragmeter.InvalidInputError, match="n_threads: must be a positive integer from 1 to 256"
    ):
        ranking_metrics({"q": ["a"]}, {"q": ["a"]}, metrics=["mrr"], n_threads=n_threads)


def test_the_thread_variable_is_checked(monkeypatch):
    monkeypatch.setenv("RAGMETER_NUM_THREADS", "100000")
    with pytest.raises(ragmeter.InvalidInputError, match="RAGMETER_NUM_THREADS"):
        ranking_metrics({"q": ["a"]}, {"q": ["a"]}, metrics=["mrr"])


def test_many_relevant_documents_retrieved_rank_in_n_log_n():
    # One query with 80,000 relevant documents retrieved took 8.6-53 s (ranks counted over
    # every score for each document); this runs in well under a second. Checked against
    # pytrec_eval.
    import pytrec_eval

    n = 80_000
    qrels = {"q": {f"d{i}": 1 for i in range(n)}}
    run = {"q": {f"d{i}": float(i % 1000) for i in range(n)}}
    ours = ragmeter.ranking_metrics(qrels, run, metrics=["map", "P_100"], average=None)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.100"}).evaluate(run)["q"]
    assert ours["map"]["q"] == pytest.approx(theirs["map"], abs=1e-12)
    assert ours["P_100"]["q"] == pytest.approx(theirs["P_100"], abs=1e-12)


@pytest.mark.parametrize("max_docs", [2**64, 10**30])
def test_huge_max_docs_is_an_input_error_not_an_overflow(max_docs):
    with pytest.raises(ragmeter.InvalidInputError, match="max_docs: must be a positive integer"):
        ranking_metrics({"q": ["a"]}, {"q": ["a"]}, metrics=["mrr"], max_docs=max_docs)


@pytest.mark.parametrize("name", ["prefs", "prefs_simp", "map_avgjg", "P_avgjg.5", "qrels_jg"])
def test_trec_eval_measures_of_other_formats_are_refused_with_the_reason(name):
    with pytest.raises(ValueError, match=r"ragmeter evaluate -R (prefs|qrels_jg)"):
        ranking_metrics({"q": ["a"]}, {"q": ["a"]}, metrics=[name])


@given(
    st.lists(
        st.one_of(st.text(st.characters(exclude_categories=())), st.integers()),
        unique_by=str,
        max_size=30,
    )
)
def test_query_ids_are_added_up_in_the_byte_order_of_their_text(ids):
    # trec_eval adds topics in the byte order of their ids: the UTF-8 of str ids (lone
    # surrogates included), the decimal text of int ids, whatever their size.
    from ragmeter.ranking.evaluation import trec_order

    def text(q):
        return str(q).encode("utf-8", "surrogatepass")

    by_bytes = sorted(range(len(ids)), key=lambda i: text(ids[i]))
    assert [text(ids[i]) for i in trec_order(ids, True).tolist()] == [
        text(ids[i]) for i in by_bytes
    ]


def test_float_scores_are_read_to_the_last_bit():
    # Scores one ulp apart rank in their order; -0.0 and 0.0 tie (broken by id, descending);
    # inf, subnormals and float subclasses are scores like any other.
    import math

    class Score(float):
        pass

    tiny = 5e-324
    above = math.nextafter(0.1, 1.0)
    run = {
        "q": {
            "a": 0.1,
            "b": above,
            "c": -0.0,
            "d": 0.0,
            "e": math.inf,
            "f": tiny,
            "g": Score(0.05),
        }
    }
    # e (inf), b, a, g (0.05), f (tiny), then d and c tied at zero: d before c.
    order = ["e", "b", "a", "g", "f", "d", "c"]
    for rank, doc in enumerate(order, start=1):
        got = ranking_metrics({"q": {doc: 1}}, run, metrics=["mrr"])["mrr"]
        assert got == 1 / rank, doc


def test_dicts_pair_by_query_id_whatever_their_order():
    # The same queries in the same order are paired as the core reads them; in another order,
    # with equal ids that are other objects, or with values to convert first, they are paired
    # by id all the same: every form gives pytrec_eval's values.
    qrels = {f"q{i}": {f"d{j}": (i + j) % 3 for j in range(6)} for i in range(40)}
    run = {f"q{i}": {f"d{j}": ((i * 7 + j * 5) % 11) / 4 for j in range(8)} for i in range(40)}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map", "recip_rank"}).evaluate(run)
    other_objects = {"".join(["q", str(i)]): run[f"q{i}"] for i in range(40)}
    reversed_run = dict(reversed(list(run.items())))
    as_arrays = {q: np.array(sorted(docs, key=docs.get, reverse=True)) for q, docs in run.items()}
    for form in (run, other_objects, reversed_run):
        ours = ranking_metrics(qrels, form, metrics=["map", "mrr"], average=None)
        for q in qrels:
            assert ours["map"][q] == pytest.approx(expected[q]["map"]), q
            assert ours["mrr"][q] == pytest.approx(expected[q]["recip_rank"]), q
    # Rankings as arrays (best first; the scores above are distinct) are converted first.
    ranked = ranking_metrics(qrels, as_arrays, metrics=["mrr"], average=None)["mrr"]
    assert ranked == {q: pytest.approx(expected[q]["recip_rank"]) for q in qrels}


def test_unpaired_queries_are_reported_before_a_bad_value():
    # q1's grade is not a number, but the queries do not pair (q2 is unjudged, q3 has no
    # ranking): that is the error, as it would be for queries in any order.
    qrels = {"q1": {"d1": "high"}, "q3": {"d1": 1}}
    run = {"q1": {"d1": 1.0}, "q2": {"d1": 1.0}}
    with pytest.raises(ValueError, match=r"missing from y_pred: 'q3'.*without judgments.*'q2'"):
        ranking_metrics(qrels, run, metrics=["map"])
    with pytest.raises(TypeError, match=r"query 'q1': the grade of document 'd1'"):
        ranking_metrics(qrels, run, metrics=["map"], missing="skip")
