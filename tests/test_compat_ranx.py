"""ragmeter.compat.ranx against ranx itself, the oracle: the same values, shapes and saved
scores for ranx's metric names on random judgments and runs (distinct scores: ranx breaks
ties by insertion order, ragmeter as trec_eval)."""

from __future__ import annotations

import itertools
import json
import random
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmeter import InputTypeError, InvalidInputError
from ragmeter.compat import ranx as compat

ranx = pytest.importorskip("ranx")

METRICS = [
    "hits", "hits@3", "hit_rate@2", "precision", "precision@3-l2", "recall@5", "f1@5", "mrr",
    "map", "map@3-l2", "ndcg@5", "ndcg_burges@5", "dcg@3", "r-precision", "rbp.8", "rbp.5-l2",
]  # fmt: skip
doc_ids = st.sampled_from([f"d{i}" for i in range(15)])


@st.composite
def evaluation(draw):
    qrels, run = {}, {}
    for q in range(draw(st.integers(1, 4))):
        judged = draw(st.dictionaries(doc_ids, st.integers(0, 3), min_size=1, max_size=8))
        judged[draw(doc_ids)] = 1  # ranx's bpref aside, every query has a relevant document
        qrels[f"q{q}"] = judged
        ranked = draw(st.lists(doc_ids, unique=True, min_size=1, max_size=12))
        rng = random.Random(draw(st.integers(0, 2**32)))
        scores = rng.sample(range(1, 1000), len(ranked))
        run[f"q{q}"] = {d: s / 1000 for d, s in zip(ranked, scores, strict=True)}
    return qrels, run


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=evaluation())
def test_the_same_values_as_ranx(data):
    qrels, run = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), METRICS)
        per_query = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), METRICS, return_mean=False)
    ours = compat.evaluate(compat.Qrels(qrels), compat.Run(run), METRICS)
    ours_per_query = compat.evaluate(qrels, run, METRICS, return_mean=False)
    for m in METRICS:
        assert float(ours[m]) == pytest.approx(float(theirs[m]), abs=1e-12), m
        np.testing.assert_allclose(ours_per_query[m], per_query[m], atol=1e-12, err_msg=m)


def test_one_metric_std_and_saved_scores_as_ranx():
    qrels = {"q2": {"d3": 1}, "q1": {"d1": 1, "d2": 2}}
    run = {"q1": {"d1": 0.9, "d3": 0.8, "d2": 0.7}, "q2": {"d4": 0.9, "d3": 0.5}}
    theirs_run, ours_run = ranx.Run(run), compat.Run(run)
    theirs = ranx.evaluate(ranx.Qrels(qrels), theirs_run, ["mrr", "map"], return_std=True)
    ours = compat.evaluate(compat.Qrels(qrels), ours_run, ["mrr", "map"], return_std=True)
    for m in ["mrr", "map"]:
        assert ours[m]["mean"] == pytest.approx(theirs[m]["mean"])
        assert ours[m]["std"] == pytest.approx(theirs[m]["std"])
        assert ours_run.mean_scores[m] == pytest.approx(theirs_run.mean_scores[m])
        assert ours_run.scores[m] == pytest.approx(dict(theirs_run.scores[m]))
    # One metric, as a str or a list of one: its value alone.
    assert float(compat.evaluate(qrels, run, "mrr")) == float(
        ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "mrr")
    )
    assert float(compat.evaluate(qrels, run, ["mrr"])) == 0.75


def test_make_comparable_as_ranx():
    qrels = {"q1": {"d1": 1}, "q2": {"d3": 1}}
    run = {"q1": {"d1": 0.9}, "q9": {"d3": 1.0}}
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "mrr", make_comparable=True)
    ours = compat.evaluate(compat.Qrels(qrels), compat.Run(run), "mrr", make_comparable=True)
    assert float(ours) == float(theirs) == 0.5
    assert compat.Run(run).make_comparable(compat.Qrels(qrels)).to_dict() == {
        "q1": {"d1": 0.9},
        "q2": {},
    }
    with pytest.raises(InvalidInputError, match=r"judged, not ranked: \['q2'\].*make_comparable"):
        compat.evaluate(qrels, run, "mrr")


def test_tables_and_files_read_with_ranx_column_names(tmp_path):
    pd = pytest.importorskip("pandas")
    ids = {"q_id": object, "doc_id": object}  # ranx's from_df asserts object id columns
    qrels_df = pd.DataFrame({"q_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [1, 0]})
    run_df = pd.DataFrame({"q_id": ["q1", "q1"], "doc_id": ["d1", "d2"], "score": [0.2, 0.9]})
    qrels_df, run_df = qrels_df.astype(ids), run_df.astype(ids)
    ours = compat.evaluate(compat.Qrels.from_df(qrels_df), compat.Run.from_df(run_df), "mrr")
    theirs = ranx.evaluate(ranx.Qrels.from_df(qrels_df), ranx.Run.from_df(run_df), "mrr")
    assert float(ours) == float(theirs) == 0.5
    path = tmp_path / "run.txt"
    path.write_text("q1 Q0 d1 1 0.2 t\nq1 Q0 d2 2 0.9 t\n")
    assert compat.Run.from_file(path, kind="trec").to_dict() == {"q1": {"d1": 0.2, "d2": 0.9}}


def test_add_multi_and_numpy_ids_build_the_same_run_as_ranx():
    q_ids = np.array(["q1", "q2"])
    doc_ids = [np.array(["d1", "d2", "d3"]), ["d1", "d4"]]
    scores = [np.array([0.9, 0.5, 0.1]), [np.float32(0.3), 0.7]]
    grades = [[1, 0, 2], [0, 1]]
    theirs_qrels, theirs_run = ranx.Qrels(), ranx.Run()
    theirs_qrels.add_multi(list(q_ids), [list(d) for d in doc_ids], grades)
    theirs_run.add_multi(
        list(q_ids), [list(d) for d in doc_ids], [list(map(float, s)) for s in scores]
    )
    ours_qrels, ours_run = compat.Qrels(), compat.Run()
    ours_qrels.add_multi(q_ids, doc_ids, grades)
    ours_run.add_multi(q_ids, doc_ids, scores)
    assert ours_qrels.size == 2 and ours_run.run["q2"]["d4"] == pytest.approx(0.7)
    for metric in ("ndcg@3", "map", "mrr"):
        assert float(compat.evaluate(ours_qrels, ours_run, metric)) == pytest.approx(
            float(ranx.evaluate(theirs_qrels, theirs_run, metric)), abs=1e-6
        )
    with pytest.raises(ValueError, match="add_multi: query 'q1' has 2 doc ids and 1 scores"):
        compat.Run().add_multi(["q1"], [["a", "b"]], [[1.0]])
    with pytest.raises(TypeError, match="use add_multi"):
        compat.Run({"q1": np.array([1.0, 2.0])})


def test_ranx_array_form_as_ranx_evaluates_it():
    from numba.typed import List

    rng = np.random.default_rng(3)
    qrels, run = [], []
    for _ in range(6):
        docs = rng.choice(40, size=12, replace=False)
        qrels.append(np.array([[d, rng.integers(1, 3)] for d in docs[:4]], dtype=np.float64))
        run.append(
            np.array(
                [[d, s] for d, s in zip(docs, rng.permutation(12) / 10, strict=True)],
                dtype=np.float64,
            )
        )
    # ranx's array form is sorted (judgments by grade, rankings by score, descending) and a
    # ranking is read in its row order.
    qrels = [q[np.argsort(-q[:, 1], kind="stable")] for q in qrels]
    run = [r[np.argsort(-r[:, 1])] for r in run]
    for metric in ("ndcg@5", "map", "precision@3", "recall@10", "mrr"):
        theirs = ranx.evaluate(List(qrels), List(run), metric)
        ours = compat.evaluate(qrels, run, metric)
        assert float(ours) == pytest.approx(float(theirs), abs=1e-9), metric
    per_query = compat.metrics.ndcg(qrels, run, 5)
    assert per_query.shape == (6,)
    assert float(per_query.mean()) == pytest.approx(float(compat.evaluate(qrels, run, "ndcg@5")))


def test_lz4_run_files_written_by_ranx(tmp_path):
    run = {"q1": {"d1": 0.9, "d2": 0.2}, "q2": {"d3": 0.5, "d1": 0.4}}
    qrels = {"q1": {"d2": 1}, "q2": {"d3": 2}}
    path = tmp_path / "run.lz4"
    ranx.Run(run).save(str(path))
    ours = compat.Run.from_file(str(path))
    assert ours.to_dict() == run
    assert float(compat.evaluate(qrels, ours, "map")) == pytest.approx(
        float(ranx.evaluate(ranx.Qrels(qrels), ranx.Run.from_file(str(path)), "map"))
    )
    bad = tmp_path / "bad.lz4"
    bad.write_bytes(b"not lz4")
    with pytest.raises(ValueError, match=r"is not a ranx \.lz4 file"):
        compat.Run.from_file(str(bad))


def test_lz4_without_the_extra_names_it(tmp_path, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_lz4(name, *args, **kwargs):
        if name.startswith("lz4"):
            raise ImportError("no lz4")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_lz4)
    monkeypatch.delitem(__import__("sys").modules, "lz4.frame", raising=False)
    monkeypatch.delitem(__import__("sys").modules, "lz4", raising=False)
    with pytest.raises(ImportError, match=r"ragmeter\[ranx\]"):
        compat.Run.from_file(str(tmp_path / "run.lz4"))


def test_submodules_have_ranx_fusion_and_normalization_functions():
    from ragmeter.compat.ranx import fusion, metrics, normalization

    assert callable(metrics.ndcg) and callable(fusion.fuse) and callable(normalization.norm)
    # Every public function of ranx.fusion / ranx.normalization exists in the drop-in.
    for ours, theirs in ((fusion, ranx.fusion), (normalization, ranx.normalization)):
        public = {
            n
            for n in dir(theirs)
            if not n.startswith("_")
            and callable(getattr(theirs, n))
            and getattr(getattr(theirs, n), "__module__", "").startswith("ranx")
            and n not in {"Qrels", "Run"}
        }
        assert public <= set(ours.__all__), public - set(ours.__all__)


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("comb_sum", {}),
        ("comb_mnz", {}),
        ("comb_gmnz", {"gamma": 0.5}),
        ("wsum", {"weights": [0.3, 0.7]}),
        ("mixed", {"weights": [0.6, 0.4]}),
        ("rrf", {"k": 10}),
        ("logn_isr", {"sigma": 0.1}),
        ("bordafuse", {}),
        ("weighted_bordafuse", {"weights": [0.2, 0.8]}),
        ("rbc", {"phi": 0.8}),
    ],
)
def test_per_method_fusion_functions_equal_ranx(name, params):
    # Condorcet is compared where the majority relation is a total order, in test_fusion_ranx.
    from ragmeter.compat.ranx import fusion

    rng = np.random.default_rng(len(name))
    runs = [
        {
            f"q{q}": {f"d{d}": float(rng.random()) for d in rng.choice(30, 12, replace=False)}
            for q in range(5)
        }
        for _ in range(2)
    ]
    ours = getattr(fusion, name)([compat.Run(r) for r in runs], **params)
    theirs = getattr(ranx.fusion, name)([ranx.Run(r) for r in runs], **params)
    assert ours.name == theirs.name
    theirs_dict = theirs.to_dict()
    assert set(ours.to_dict()) == set(theirs_dict)
    for q, docs in ours.to_dict().items():
        assert set(docs) == set(theirs_dict[q])
        for d, v in docs.items():
            assert v == pytest.approx(theirs_dict[q][d], rel=1e-9, abs=1e-12)


def test_per_method_fusion_functions_name_a_missing_parameter():
    from ragmeter.compat.ranx import fusion

    run = compat.Run({"q1": {"d1": 1.0}})
    with pytest.raises(TypeError, match="weights"):
        fusion.wsum([run, run])
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
        fusion.rrf([run, run], alpha=1)


def test_recall_without_a_cutoff_is_ranx_recall_over_the_ranking():
    qrels = {"q1": {"d1": 1, "d2": 1, "d9": 1}, "q2": {"d3": 1}}
    run = {"q1": {"d1": 0.9, "d5": 0.8, "d2": 0.1}, "q2": {"d4": 0.9, "d3": 0.5}}
    assert float(compat.evaluate(qrels, run, "recall")) == pytest.approx(
        float(ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "recall"))
    )


def _random_runs(seed, n_queries=6, n_docs=40):
    rng = np.random.default_rng(seed)
    qrels = {
        f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in rng.choice(n_docs, 10, replace=False)}
        for q in range(n_queries)
    }
    runs = [
        {
            f"q{q}": {
                f"d{d}": float(s)
                for d, s in zip(
                    rng.choice(n_docs, int(rng.integers(1, 30)), replace=False),
                    rng.permutation(1000)[:30] / 1000 + 0.001,
                    strict=False,
                )
            }
            for q in range(n_queries)
        }
        for _ in range(3)
    ]
    return qrels, runs


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("k", "rel_lvl"), [(0, 1), (5, 1), (100, 2)])
def test_get_hit_lists_as_ranx(seed, k, rel_lvl):
    from ragmeter.compat.ranx.metrics import get_hit_lists

    qrels, runs = _random_runs(seed)
    theirs = ranx.metrics.get_hit_lists(
        ranx.Qrels(qrels).to_typed_list(), ranx.Run(runs[0]).to_typed_list(), k, rel_lvl
    )
    arrays = get_hit_lists(
        compat.Qrels(qrels).to_typed_list(), compat.Run(runs[0]).to_typed_list(), k, rel_lvl
    )
    dicts = get_hit_lists(qrels, runs[0], k, rel_lvl)
    assert len(arrays) == len(dicts) == len(theirs)
    for ours_a, ours_d, hits in zip(arrays, dicts, theirs, strict=True):
        assert ours_a.tolist() == ours_d.tolist() == list(hits)


def test_get_hit_lists_names_a_bad_k():
    from ragmeter.compat.ranx.metrics import get_hit_lists

    with pytest.raises(InvalidInputError, match="k: "):
        get_hit_lists({"q": {"d": 1}}, {"q": {"d": 1.0}}, k=-1)
    with pytest.raises(InvalidInputError, match="rel_lvl: "):
        get_hit_lists({"q": {"d": 1}}, {"q": {"d": 1.0}}, rel_lvl=1.5)


@pytest.mark.parametrize("seed", range(5))
def test_estimate_log_odds_as_ranx(seed):
    from numba.typed import List as TypedList
    from ranx.fusion.bayesfuse import _estimate_log_odds as theirs

    from ragmeter.compat.ranx.fusion.bayesfuse import _KERNEL_CUT_OFFS, _estimate_log_odds

    rng = np.random.default_rng(seed)
    # Lists of every length up to beyond the last segment, sparse and dense hits.
    lists = [
        (rng.random(int(rng.integers(0, 1200))) < rng.uniform(0, 1)).astype(float)
        for _ in range(int(rng.integers(1, 12)))
    ]
    expected = theirs(TypedList(lists), TypedList(list(_KERNEL_CUT_OFFS)))
    ours = _estimate_log_odds(lists, list(_KERNEL_CUT_OFFS))
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-15)


def test_estimate_log_odds_segments_are_the_kernels():
    # The cut-offs the drop-in declares are where the kernel's log-odds change: one list with
    # a different precision in every segment gives a different value in each, constant within.
    from ragmeter.compat.ranx.fusion.bayesfuse import _KERNEL_CUT_OFFS, _estimate_log_odds

    bounds = list(_KERNEL_CUT_OFFS)
    hits = np.zeros(bounds[-1])
    for i, (start, end) in enumerate(itertools.pairwise(bounds)):
        hits[start : start + min(end - start, i + 1)] = 1.0  # 1/5, 2/5, 3/5, 4/5, 5/10, ...
    odds = _estimate_log_odds([hits], bounds)
    assert odds.shape == (bounds[-1],)
    changes = [0, *(int(i) + 1 for i in np.flatnonzero(np.diff(odds))), bounds[-1]]
    assert changes == bounds


def test_estimate_log_odds_refuses_other_cut_offs_and_hits():
    from ragmeter.compat.ranx.fusion.bayesfuse import _estimate_log_odds

    with pytest.raises(InvalidInputError, match=r"cut_offs: \[0, 10, 20\]"):
        _estimate_log_odds([np.ones(3)], [0, 10, 20])
    with pytest.raises(InvalidInputError, match="hit_lists: list 1"):
        _estimate_log_odds(
            [np.ones(3), np.array([0.0, 2.0])], [0, 5, 10, 15, 20, 30, 100, 200, 500, 1000]
        )


def test_condorcet_helpers_as_ranx():
    # ranx's condorcet_test.py data (its test_get_candidates and test_get_results build a numba
    # List of ranx's run.run, which the drop-in's dicts cannot be: see tests/ported_ranx).
    from numba.typed import List as TypedList
    from ranx.fusion.condorcet import get_candidates as their_candidates
    from ranx.fusion.condorcet import get_results as their_results

    from ragmeter.compat.ranx.fusion.condorcet import get_candidates, get_results

    runs = [
        {"q1": {"d1": 1, "d2": 2, "d3": 3}, "q2": {"d1": 1, "d2": 2}},
        {"q1": {"d1": 2, "d2": 3}, "q2": {"d1": 1, "d3": 3}},
        {"q1": {"d3": 3}, "q2": {"d2": 2, "d3": 3}},
        {"q1": {"d7": 1.5}, "q2": {}},
    ]
    theirs = [ranx.Run(r).run for r in runs]
    ours = [compat.Run(r).run for r in runs]
    for query, candidates in enumerate(get_candidates(ours)):
        assert set(candidates) == set(their_candidates(TypedList(theirs))[query])
    assert get_candidates([*ours[:2], compat.Run(runs[2])]) == get_candidates(ours[:3])
    results = get_results(ours)
    for query, rankings in enumerate(their_results(TypedList(theirs))):
        for run, ranking in enumerate(rankings):
            assert results[query][run] == ranking  # a numba TypedList
            assert results[query][run] == list(ranking)
    assert results[0][0] == ["d3", "d2", "d1"] and results[0][0] != ["d1", "d2", "d3"]


def test_condorcet_helpers_name_a_missing_query():
    from ragmeter.compat.ranx.fusion.condorcet import get_candidates, get_results

    with pytest.raises(InvalidInputError, match=r"runs\[1\]: lacks 1 queries of runs\[0\]"):
        get_results([{"q1": {}, "q2": {}}, {"q1": {}}])
    with pytest.raises(InputTypeError, match=r"runs\[0\]: expected a run's"):
        get_candidates([[("d1", 1.0)]])


# -- compare and Report ------------------------------------------------------------------------

REPORT_METRICS = ["map@100", "mrr@100", "ndcg@10", "precision@5-l2", "rbp.8"]


def _campaign(seed, n_queries, n_runs=3, shift=0.0):
    """Judgments and runs with distinct scores (ranx breaks ties by insertion order), the
    later runs better by ``shift``: ranks of relevant documents pulled up."""
    rng = np.random.default_rng(seed)
    qrels = {
        f"q{q}": {f"d{d}": int(rng.integers(1, 3)) for d in rng.choice(50, 6, replace=False)}
        for q in range(n_queries)
    }
    runs = []
    for r in range(n_runs):
        run = {}
        for q, judged in qrels.items():
            docs = rng.choice(50, 30, replace=False)
            scores = rng.random(30)  # continuous: no tie, even after the shift
            run[q] = {
                f"d{d}": float(s + (shift * r if f"d{d}" in judged else 0.0))
                for d, s in zip(docs, scores, strict=True)
            }
        runs.append(run)
    return qrels, runs


def _both_reports(qrels, runs, names, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.compare(
            ranx.Qrels(qrels), [ranx.Run(r, name=n) for r, n in zip(runs, names, strict=True)],
            REPORT_METRICS, **options,
        )  # fmt: skip
    ours = compat.compare(
        compat.Qrels(qrels),
        [compat.Run(r, name=n) for r, n in zip(runs, names, strict=True)],
        REPORT_METRICS,
        **options,
    )
    return ours, theirs


def _same_dicts(ours, theirs, p_tolerance):
    assert ours.keys() == theirs.keys()
    for key in ("stat_test", "metrics", "model_names"):
        assert ours[key] == theirs[key]
    for model in ours["model_names"]:
        assert ours[model]["scores"] == pytest.approx(theirs[model]["scores"], abs=1e-12)
        assert ours[model]["win_tie_loss"] == theirs[model]["win_tie_loss"]
        for other, p_values in ours[model]["comparisons"].items():
            expected = theirs[model]["comparisons"][other]
            assert p_values.keys() == expected.keys()
            for metric, p in p_values.items():
                assert abs(p - expected[metric]) <= p_tolerance, (model, other, metric)


@pytest.mark.parametrize(
    ("seed", "n_queries", "shift", "stat_test", "max_p"),
    [
        (0, 40, 0.3, "student", 0.01),
        (1, 60, 0.2, "student", 0.05),
        (2, 25, 0.0, "student", 0.01),  # nothing significant: ranx's tabulate drops zeros
        (3, 50, 0.4, "tukey", 0.05),
        (4, 30, 0.25, "tukey", 0.01),
    ],
)
def test_compare_report_as_ranx(seed, n_queries, shift, stat_test, max_p):
    # The t-test and Tukey's test are scipy's in ranx and agree with ragmeter's to 1e-12, so
    # the marks, the table, the LaTeX and the dict are ranx's.
    qrels, runs = _campaign(seed, n_queries, shift=shift)
    names = ["bm25", "dense_v2", "hybrid"]
    ours, theirs = _both_reports(qrels, runs, names, stat_test=stat_test, max_p=max_p)
    _same_dicts(ours.to_dict(), theirs.to_dict(), 1e-9)
    assert ours.stat_test == theirs.stat_test == stat_test
    assert ours.model_names == theirs.model_names and ours.metrics == theirs.metrics
    assert str(ours) == str(theirs)
    assert repr(ours) == repr(theirs)
    assert ours.to_latex() == theirs.to_latex()
    for pair in itertools.permutations(names, 2):
        for metric in REPORT_METRICS:
            assert (
                ours.comparisons[pair][metric]["significant"]
                == theirs.comparisons[pair][metric]["significant"]
            )
    for digits, percentages in [(4, False), (2, True), (5, True)]:
        ours.rounding_digits = theirs.rounding_digits = digits
        ours.show_percentages = theirs.show_percentages = percentages
        assert str(ours) == str(theirs)
        assert ours.to_latex() == theirs.to_latex()


def test_compare_fisher_is_the_sign_flip_test():
    # ranx's "fisher" draws n_permutations sign vectors with numba's generator in parallel
    # threads, which np.random.seed does not all seed: its p-values depend on what ran before
    # in the process (one pair: 0.11 alone, 0.0625 after this file's other tests). So the
    # scores and wins, ties and losses are compared with ranx's, and the p-values with
    # scipy's permutation test of the same differences, to sampling error.
    qrels, runs = _campaign(5, 60, shift=0.15)
    names = ["a", "b", "c"]
    ours, theirs = _both_reports(qrels, runs, names, stat_test="fisher", n_permutations=4000)
    _same_dicts(ours.to_dict(), theirs.to_dict(), 1.0)
    scipy_stats = pytest.importorskip("scipy.stats")
    values = ours.multiple_comparison.values
    for a, b in itertools.combinations(range(3), 2):
        for m, metric in enumerate(REPORT_METRICS):
            differences = values[a, m] - values[b, m]
            reference = scipy_stats.permutation_test(
                (differences,), np.mean, permutation_type="samples", n_resamples=20000,
                random_state=0,
            ).pvalue  # fmt: skip
            p = ours.comparisons[names[a], names[b]][metric]["p_value"]
            assert abs(p - reference) < 0.03, (names[a], names[b], metric)
    assert ours.multiple_comparison.test == "sign-flip"
    assert ours.multiple_comparison.n_resamples == 4000
    assert "Fisher's randomization test" in ours.to_latex()
    # Up to 16 queries ragmeter's test is exact (every sign vector), whatever n_permutations.
    small = compat.compare(qrels, [compat.Run(r) for r in runs], "mrr", stat_test="fisher")
    assert small.model_names == ["run_1", "run_2", "run_3"]
    qrels12 = dict(list(qrels.items())[:12])
    runs12 = [
        compat.Run({q: r[q] for q in qrels12}, name=n) for r, n in zip(runs, names, strict=True)
    ]
    exact = compat.compare(qrels12, runs12, "mrr", stat_test="fisher", n_permutations=10)
    assert exact.multiple_comparison.method == "exact"


def test_report_save_dataframe_and_scores_kept_in_runs(tmp_path):
    qrels, runs = _campaign(6, 20, shift=0.3)
    names = ["x", "y", "z"]
    ours_runs = [compat.Run(r, name=n) for r, n in zip(runs, names, strict=True)]
    ours = compat.compare(qrels, ours_runs, REPORT_METRICS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = ranx.compare(
            ranx.Qrels(qrels),
            [ranx.Run(r, name=n) for r, n in zip(runs, names, strict=True)],
            REPORT_METRICS,
        )
    ours.save(tmp_path / "ours.json")
    theirs.save(str(tmp_path / "theirs.json"))
    saved = (tmp_path / "ours.json").read_text()
    assert saved.startswith('{\n    "stat_test": "student"')  # ranx's indent of 4
    _same_dicts(json.loads(saved), json.loads((tmp_path / "theirs.json").read_text()), 1e-9)
    frame, their_frame = ours.to_dataframe(), theirs.to_dataframe()
    assert frame.columns.tolist() == their_frame.columns.tolist()
    assert frame["model_names"].tolist() == names
    np.testing.assert_allclose(frame[REPORT_METRICS], their_frame[REPORT_METRICS], atol=1e-12)
    # As ranx's compare (through its evaluate), each run keeps its per-query scores.
    assert ours_runs[0].mean_scores["map@100"] == pytest.approx(ours.results["x"]["map@100"])
    assert set(ours_runs[1].scores["mrr@100"]) == set(qrels)


def test_report_labels_and_the_frozenset_pairs():
    from ragmeter.compat.ranx.data_structures import FrozensetDict, Report

    qrels, runs = _campaign(7, 20, shift=0.3)
    report = compat.compare(qrels, [compat.Run(r, name=f"m{i}") for i, r in enumerate(runs)], "map")
    assert isinstance(report, Report)
    assert isinstance(report.comparisons, FrozensetDict)
    assert report.comparisons["m0", "m1"] is report.comparisons[{"m1", "m0"}]
    assert ("m1", "m0") in report.comparisons and "m0" not in report.comparisons
    with pytest.raises(InputTypeError, match="collection of names"):
        report.comparisons["m0"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pair = [ranx.Run(runs[0], name="a"), ranx.Run(runs[1], name="b")]
        their = ranx.compare(ranx.Qrels(qrels), pair, "map")
    for metric in ["ndcg@10-l2", "map", "rbp.95", "hits@5", "bpref-l3", "mrr@100"]:
        assert report.get_metric_label(metric) == their.get_metric_label(metric)
    assert report.get_metric_label("P_10") == "P_10"  # no ranx label: the name itself
    for name in ["student", "fisher", "tukey"]:
        assert report.get_stat_test_label(name) == their.get_stat_test_label(name)


def test_compare_names_its_bad_arguments():
    qrels, runs = _campaign(8, 5)
    two = [compat.Run(runs[0], name="a"), compat.Run(runs[1], name="b")]
    with pytest.raises(InvalidInputError, match="stat_test: ranx's tests are"):
        compat.compare(qrels, two, "map", stat_test="wilcoxon")
    with pytest.raises(InvalidInputError, match="max_p: "):
        compat.compare(qrels, two, "map", max_p=1.5)
    with pytest.raises(InvalidInputError, match="n_permutations: "):
        compat.compare(qrels, two, "map", n_permutations=0)
    with pytest.raises(InvalidInputError, match="random_seed: "):
        compat.compare(qrels, two, "map", random_seed=-1)
    with pytest.raises(InvalidInputError, match="runs: compare tests pairs"):
        compat.compare(qrels, two[:1], "map")
    with pytest.raises(InvalidInputError, match="two runs are named 'a'"):
        compat.compare(qrels, [two[0], two[0]], "map")
    with pytest.raises(InvalidInputError, match="metrics: "):
        compat.compare(qrels, two, 5)
    with pytest.raises(InputTypeError, match="runs: expected a list"):
        compat.compare(qrels, two[0], "map")
    report = compat.compare(qrels, two, "map")
    report.show_percentages, report.rounding_digits = True, 1
    with pytest.raises(InvalidInputError, match="rounding_digits: 1 with show_percentages"):
        str(report)


def test_report_over_compare_many_and_its_limits():
    from ragmeter import compare_many
    from ragmeter.compat.ranx.data_structures import Report

    values = {
        name: {"map": {f"q{q}": (q * (i + 3)) % 7 / 7 for q in range(10)}}
        for i, name in enumerate(["a", "b", "c"])
    }
    holm = Report(compare_many(values, test="t", correction="holm", alpha=0.05))
    comparison = holm.multiple_comparison["b", "a"]["map"]
    assert holm.comparisons["a", "b"]["map"]["p_value"] == comparison.p_value_adjusted
    with pytest.raises(InvalidInputError, match="baseline 'a'"):
        Report(compare_many(values, baseline="a", test="t"))
    with pytest.raises(InvalidInputError, match="test 'wilcoxon', which ranx"):
        Report(compare_many(values, test="wilcoxon"))
    many = {
        f"s{i}": {"map": {f"q{q}": ((q + 1) * (i + 1)) % 11 / 11 for q in range(5)}}
        for i in range(27)
    }
    wide = Report(compare_many(many, test="t", correction=None))
    assert len(wide.to_dict()["model_names"]) == 27
    with pytest.raises(InvalidInputError, match="labels its models a to z"):
        wide.to_table()


def test_report_table_is_tabulate_simple():
    # ranx prints its table with tabulate: a column of plain numbers is reformatted ("g":
    # 0.530 -> 0.53) and aligned on the point; a column with a mark is text, as given.
    tabulate = pytest.importorskip("tabulate").tabulate
    from ragmeter.compat.ranx.data_structures.report import _simple_table

    headers = ["#", "Model", "MAP@100", "NDCG", "X", "Y"]
    rows = [
        ["a", "7", "0.530", "0.500ᵇ", "nan", "True"],
        ["b", "12", "10.500", "0.250", "1e5", "False"],
        ["c", "003", "0.000", "1.000ᵃᵇ", "-0.000", "x y"],
    ]
    assert _simple_table(headers, rows) == tabulate(rows, headers=headers)
    for column in range(2, 6):
        sub = [[row[0], row[column]] for row in rows]
        assert _simple_table(["#", "M"], sub) == tabulate(sub, headers=["#", "M"])
