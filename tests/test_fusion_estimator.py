"""FusionEstimator: the scikit-learn protocol, cross-validated tuning of a fusion whose scores
are checked against ragmeter.fuse on each held-out fold evaluated by pytrec_eval, trained
methods learning from the training folds only, and scikit-learn's estimator checks."""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
import pytrec_eval
from sklearn.base import clone
from sklearn.exceptions import NotFittedError, SkipTestWarning
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.utils.estimator_checks import estimator_checks_generator, parametrize_with_checks

import ragmeter
from ragmeter import InvalidInputError, fuse, get_corpus_scorer
from ragmeter.fusion import METHODS, FusionEstimator
from ragmeter.fusion._estimator import METHOD_PARAMETERS


def make_runs(seed=0, n_queries=24, n_docs=30, depth=15):
    """Three runs over a shared pool; each has a different amount of signal (grade 2 and 1
    documents get a boost of 2.0, 0.8 and 0.2 standard deviations), so the weights matter."""
    rng = np.random.default_rng(seed)
    queries = [f"q{i:02d}" for i in range(n_queries)]
    qrels = []
    for _ in queries:
        relevant = rng.choice(n_docs, size=5, replace=False)
        qrels.append({f"d{relevant[0]}": 2, **{f"d{j}": 1 for j in relevant[1:]}})
    runs = {}
    for name, signal in (("bm25", 2.0), ("dense", 0.8), ("noise", 0.2)):
        run = {}
        for query, judged in zip(queries, qrels, strict=True):
            scores = {
                f"d{j}": float(rng.normal() + signal * judged.get(f"d{j}", 0))
                for j in range(n_docs)
            }
            top = sorted(scores, key=lambda d: -scores[d])[:depth]
            run[query] = {d: round(scores[d], 6) for d in top}
        runs[name] = run
    return runs, queries, qrels


RUNS, QUERIES, QRELS = make_runs()


def oracle_ndcg10(qrels_by_query, run):
    """pytrec_eval's mean ndcg_cut.10 over the queries of qrels_by_query (absent from the run:
    0)."""
    results = pytrec_eval.RelevanceEvaluator(qrels_by_query, {"ndcg_cut.10"}).evaluate(run)
    return float(np.mean([results.get(q, {}).get("ndcg_cut_10", 0.0) for q in qrels_by_query]))


def take(sequence, indices):
    return [sequence[i] for i in indices]


def held_out_scores(cv, params, *, method, norm="min-max", n_segments=None):
    """Per fold: ragmeter.fuse of the runs (trained methods learning from the training fold's
    judgments only), the held-out queries' fused run evaluated by pytrec_eval."""
    scores = []
    for train, test in cv.split(QUERIES):
        training = dict(zip(take(QUERIES, train), take(QRELS, train), strict=True))
        extra = {"qrels": training, "n_segments": n_segments} if n_segments else {}
        fused = fuse(
            list(RUNS.values()), method=method, norm=norm, names=list(RUNS), **params, **extra
        ).to_dict()
        held = dict(zip(take(QUERIES, test), take(QRELS, test), strict=True))
        scores.append(oracle_ndcg10(held, {q: fused[q] for q in held}))
    return scores


# -- parameters ---------------------------------------------------------------------------------


def test_parameters_are_the_declared_method_parameters():
    declared = {p for m in METHODS.values() for p in m.parameters}
    assert set(METHOD_PARAMETERS) == declared
    params = FusionEstimator().get_params()
    assert set(params) == {"runs", "method", "norm", "missing", "measure", "n_threads", *declared}


def test_clone_shares_the_runs_and_drops_the_fit():
    estimator = FusionEstimator(RUNS, method="rrf", k=20).fit(QUERIES)
    twin = clone(estimator)
    assert twin.runs is RUNS and twin.get_params() == estimator.get_params()
    assert not hasattr(twin, "run_names_")
    assert (
        repr(estimator) == "FusionEstimator(k=20, method='rrf', runs=<['bm25', 'dense', 'noise']>)"
    )


def test_import_ragmeter_does_not_import_scikit_learn_and_the_error_names_the_extra():
    code = textwrap.dedent(
        """
        import sys
        import ragmeter
        from ragmeter.fusion import *
        assert "sklearn" not in sys.modules
        assert ragmeter.FusionEstimator.__name__ == "FusionEstimator"
        assert "sklearn" in sys.modules
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
    code = textwrap.dedent(
        """
        import sys
        sys.modules["sklearn"] = None
        import ragmeter.fusion
        try:
            ragmeter.fusion.FusionEstimator
        except ragmeter.MissingDependencyError as exc:
            assert "ragmeter[sklearn]" in str(exc), exc
            print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
    assert ragmeter.FusionEstimator is FusionEstimator


# -- fit, predict, score ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("wsum", {"weights": [0.6, 0.3, 0.1]}),
        ("rrf", {"k": 10}),
        ("mnz", {}),
        ("rbc", {"phi": 0.8}),
    ],
)
def test_predict_is_fuse_and_score_is_pytrec_eval(method, params):
    estimator = FusionEstimator(RUNS, method=method, **params).fit(QUERIES, QRELS)
    predicted = estimator.predict(QUERIES)
    assert predicted.dtype == object and predicted.shape == (len(QUERIES),)
    fused = fuse(list(RUNS.values()), method=method, names=list(RUNS), **params).to_dict()
    assert predicted.tolist() == [list(fused[q]) for q in QUERIES]
    # A subset of the queries is fused as in the whole (normalisation is per query).
    assert estimator.predict(QUERIES[3:6]).tolist() == predicted.tolist()[3:6]
    expected = oracle_ndcg10(dict(zip(QUERIES, QRELS, strict=True)), fused)
    assert estimator.score(QUERIES, QRELS) == pytest.approx(expected, abs=1e-12)
    assert get_corpus_scorer("ndcg@10")(estimator, QUERIES, QRELS) == pytest.approx(
        expected, abs=1e-12
    )


def test_inputs_that_cannot_be_right_are_refused_naming_them():
    with pytest.raises(InvalidInputError, match="runs: FusionEstimator needs the runs"):
        FusionEstimator().fit(QUERIES)
    with pytest.raises(InvalidInputError, match="at least 2 runs"):
        FusionEstimator({"bm25": RUNS["bm25"]}).fit(QUERIES)
    with pytest.raises(InvalidInputError, match="method: unknown fusion method 'rff'"):
        FusionEstimator(RUNS, method="rff").fit(QUERIES)
    with pytest.raises(InvalidInputError, match="k: the fusion method 'wsum' takes weights"):
        FusionEstimator(RUNS, k=60).fit(QUERIES)
    with pytest.raises(InvalidInputError, match="y: the trained method 'posfuse'"):
        FusionEstimator(RUNS, method="posfuse").fit(QUERIES)
    with pytest.raises(InvalidInputError, match="y: 2 judgments for 24 query ids"):
        FusionEstimator(RUNS, method="posfuse").fit(QUERIES, QRELS[:2])
    with pytest.raises(InvalidInputError, match="item 1 is a int"):
        FusionEstimator(RUNS).fit(["q00", 1])
    fitted = FusionEstimator(RUNS).fit(QUERIES)
    with pytest.raises(InvalidInputError, match="'q99'"):
        fitted.predict(["q00", "q99"])
    assert FusionEstimator(RUNS, missing="empty").fit(QUERIES).predict(["q99"]).tolist() == [[]]
    with pytest.raises(InvalidInputError, match="weights: 2 weights for 3 runs"):
        FusionEstimator(RUNS, weights=[0.5, 0.5]).fit(QUERIES).predict(QUERIES)
    with pytest.raises(NotFittedError):
        FusionEstimator(RUNS).predict(QUERIES)


def test_fitted_estimator_pickles():
    estimator = FusionEstimator(RUNS, method="posfuse").fit(QUERIES[:12], QRELS[:12])
    back = pickle.loads(pickle.dumps(estimator))
    assert back.predict(QUERIES).tolist() == estimator.predict(QUERIES).tolist()


# -- model selection ----------------------------------------------------------------------------

WEIGHTS = [[0.8, 0.1, 0.1], [0.4, 0.4, 0.2], [0.1, 0.1, 0.8]]


def test_grid_search_over_weights_and_k_scores_the_held_out_folds():
    cv = KFold(n_splits=4, shuffle=True, random_state=3)
    search = GridSearchCV(
        FusionEstimator(RUNS),
        [{"method": ["wsum"], "weights": WEIGHTS}, {"method": ["rrf"], "k": [5, 60]}],
        scoring=get_corpus_scorer("ndcg@10"),
        cv=cv,
    ).fit(QUERIES, QRELS)
    expected = []
    for candidate in search.cv_results_["params"]:
        params = dict(candidate)
        method = params.pop("method")
        expected.append(np.mean(held_out_scores(cv, params, method=method)))
    assert search.cv_results_["mean_test_score"] == pytest.approx(expected, abs=1e-12)
    assert len(set(np.round(expected, 12))) == len(expected)  # the grid points differ
    best = int(np.argmax(expected))
    assert search.best_params_ == search.cv_results_["params"][best]
    # The signal is in bm25: the weights favouring it win.
    assert search.best_params_ == {"method": "wsum", "weights": [0.8, 0.1, 0.1]}


@pytest.mark.parametrize(
    ("method", "n_segments"), [("posfuse", None), ("probfuse", 3), ("mapfuse", None)]
)
def test_trained_methods_learn_from_the_training_folds_only(method, n_segments):
    cv = KFold(n_splits=3)
    estimator = FusionEstimator(RUNS, method=method, n_segments=n_segments)
    result = cross_validate(estimator, QUERIES, QRELS, cv=cv, scoring=get_corpus_scorer("ndcg@10"))
    expected = held_out_scores(cv, {}, method=method, n_segments=n_segments or 1)
    if n_segments is None:
        # posfuse and mapfuse take no n_segments: learn from the training fold as fuse does.
        expected = []
        for train, test in cv.split(QUERIES):
            training = dict(zip(take(QUERIES, train), take(QRELS, train), strict=True))
            fused = fuse(
                list(RUNS.values()), method=method, names=list(RUNS), qrels=training
            ).to_dict()
            held = dict(zip(take(QUERIES, test), take(QRELS, test), strict=True))
            expected.append(oracle_ndcg10(held, {q: fused[q] for q in held}))
    assert result["test_score"] == pytest.approx(expected, abs=1e-12)
    # Learning from every query (held-out ones included) gives other, optimistic numbers.
    everything = fuse(
        list(RUNS.values()),
        method=method,
        names=list(RUNS),
        qrels=dict(zip(QUERIES, QRELS, strict=True)),
        **({"n_segments": n_segments} if n_segments else {}),
    ).to_dict()
    leaked = [
        oracle_ndcg10(dict(zip(take(QUERIES, t), take(QRELS, t), strict=True)), everything)
        for _, t in cv.split(QUERIES)
    ]
    assert result["test_score"].tolist() != pytest.approx(leaked, abs=1e-12)


# -- scikit-learn's estimator checks ------------------------------------------------------------


def test_scikit_learn_runs_only_the_clone_check_on_a_text_estimator():
    with pytest.warns(SkipTestWarning, match="Can't test estimator FusionEstimator"):
        checks = list(estimator_checks_generator(FusionEstimator(RUNS)))
    assert [check.func.__name__ for _, check in checks] == ["check_estimator_cloneable"]


with warnings.catch_warnings():
    warnings.simplefilter("ignore", SkipTestWarning)
    TEXT_ESTIMATOR_CHECKS = parametrize_with_checks([FusionEstimator(RUNS)], xfail_strict=True)


@TEXT_ESTIMATOR_CHECKS
def test_estimator_checks_for_a_text_estimator(estimator, check):
    check(estimator)


class ClaimsNumericInput(FusionEstimator):
    """The same estimator with tags claiming a 2-D numeric X, so that scikit-learn generates
    every check; the checks that then fit or predict on its numeric matrices fail, for the one
    reason given in NUMERIC_X."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.two_d_array = True
        tags.input_tags.one_d_array = False
        tags.input_tags.string = False
        return tags


NUMERIC_X = (
    "feeds X as a numeric matrix, but a fusion's X is a list of query ids (str): it raises "
    "InvalidInputError"
)


def numeric_checks():
    """Every check scikit-learn generates for a numeric estimator (check_array_api_input left
    out: it needs SCIPY_ARRAY_API set before SciPy is imported, and array namespaces are no
    input of a fusion); each fails only for NUMERIC_X, and xfail_strict says so per check."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SkipTestWarning)
        decorator = parametrize_with_checks(
            [ClaimsNumericInput(RUNS)],
            expected_failed_checks=lambda estimator: {
                **dict.fromkeys(NUMERIC_X_CHECKS, NUMERIC_X),
                **WORDING_CHECKS,
            },
            xfail_strict=True,
        )
    mark = decorator.mark
    kept = [
        param
        for param in mark.args[1]
        if "check_array_api_input" not in repr(getattr(param, "values", param))
    ]
    return pytest.mark.parametrize(mark.args[0], kept, **mark.kwargs)


NUMERIC_X_CHECKS = [
    "check_fit_score_takes_y",
    "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self",
    "check_readonly_memmap_input",
    "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit",
    "check_estimators_dtypes",
    "check_dtype_object",
    "check_pipeline_consistency",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_dict_unchanged",
    "check_fit_idempotent",
    "check_fit_check_is_fitted",
    "check_n_features_in",
    "check_fit2d_predict1d",
]
# Checks whose numeric X is meant to be refused, but with scikit-learn's wording for numeric
# arrays, which a list of query ids has no reason to use.
WORDING_CHECKS = {
    "check_complex_data": "expects the words 'Complex data not supported' for a complex matrix",
    "check_estimators_empty_data_messages": "expects the message of check_array for 0 features",
    "check_estimators_nan_inf": "expects a message about NaN or infinity in a numeric matrix",
    "check_fit2d_1sample": "expects check_array's message for one sample of a numeric matrix",
    "check_fit2d_1feature": "expects check_array's message for one feature of a numeric matrix",
}


@numeric_checks()
def test_estimator_checks_claiming_numeric_input(estimator, check):
    # Passing: cloning, repr, tags, no attributes set in __init__, nothing raised by __init__ or
    # set_params, predict before fit raises NotFittedError, get/set_params invariance, the
    # default constructor, a 1-D numeric X refused, sparse input refused naming "sparse".
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)
