"""ragmeter.compat.beir and ragmeter.compat.mteb against BEIR and mteb themselves, installed in
the test environment, on random cases.

The oracles are the installed packages' own files, imported as their users import them and run
unmodified on pytrec_eval, numpy, pandas and scikit-learn: ``beir==2.2.0``
(``beir.retrieval.evaluation.EvaluateRetrieval`` and ``beir.retrieval.custom_metrics``) and
``mteb-core==2.26.24`` (``mteb._evaluators.retrieval_metrics`` and
``mteb._evaluators.retrieval_evaluator.RetrievalEvaluator``). No module is stubbed:

* beir is installed without its dependencies (``tests/requirements-nodeps.txt``, installed by
  ``.ci/run`` with ``pip install --no-deps``): its metadata requires sentence-transformers (so
  torch) and datasets, and its evaluation code imports neither: ``beir`` imports tqdm,
  ``beir.retrieval.evaluation`` pytrec_eval and beir's own ``custom_metrics`` and
  ``search.base`` (an abstract class).
* mteb-core is the mteb package (the same files as the ``mteb`` distribution of the same
  version) without torch, transformers and sentence-transformers among its dependencies;
  ``import mteb`` runs without them (asserted below), so it comes with its dependencies from
  the ``test`` extra.

The drop-ins' outputs are compared key for key (same keys in the same order) to 1e-12, rounded
means exactly, with the same inputs changed in place the same way. Where the drop-ins differ
on purpose (docs/migration/beir_mteb.md), the test states the difference and asserts it:
fractional grades (pytrec_eval refuses them), scores compared as doubles (pytrec_eval-terrier
compares floats), an InvalidInputError naming the input where the tools fail with a KeyError,
ZeroDivisionError or IndexError, and p-MRR's means taken exactly (mteb's through pandas).
"""

from __future__ import annotations

import copy
import math
import re
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pytest
from beir.retrieval import custom_metrics as beir_custom
from beir.retrieval.evaluation import EvaluateRetrieval as BeirEvaluateRetrieval
from hypothesis import given, settings
from hypothesis import strategies as st
from mteb._evaluators import retrieval_metrics as mteb_metrics
from mteb._evaluators.retrieval_evaluator import RetrievalEvaluator as MtebRetrievalEvaluator

from ragmeter import ranking_metrics
from ragmeter.compat import mteb
from ragmeter.compat.beir import EvaluateRetrieval
from ragmeter.exceptions import InvalidInputError

ROOT = Path(__file__).resolve().parents[1]

#: What the tools raise on inputs the drop-ins refuse with an InvalidInputError: a query of
#: results without judgments (KeyError), nothing to divide by (ZeroDivisionError), no query
#: (IndexError), p-MRR without a changed document in both runs (pandas' ValueError on an
#: empty frame).
TOOL_FAILURES = (KeyError, ZeroDivisionError, IndexError, ValueError)


def _pins() -> dict[str, str]:
    """``{distribution: version}`` pinned in tests/requirements-nodeps.txt and the test extra."""
    lines = (ROOT / "tests" / "requirements-nodeps.txt").read_text(encoding="utf-8").splitlines()
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]["test"]
    pins = {}
    for requirement in [line.split("#")[0].strip() for line in lines] + extra:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^\s;]+)", requirement)
        if match:
            pins[match[1].lower().replace("_", "-")] = match[2]
    return pins


def test_the_installed_tools_are_the_pinned_versions_without_torch():
    pins = _pins()
    assert version("beir") == pins["beir"] == "2.2.0"
    assert version("mteb-core") == pins["mteb-core"] == "2.26.24"
    assert sys.modules["mteb"].__version__ == pins["mteb-core"]
    # The installed files are the oracles: not a ported copy.
    assert Path(mteb_metrics.__file__).parts[-3:] == ("mteb", "_evaluators", "retrieval_metrics.py")
    assert "site-packages" in Path(beir_custom.__file__).parts
    assert "site-packages" in Path(mteb_metrics.__file__).parts
    for heavy in ("torch", "sentence_transformers", "transformers"):
        assert heavy not in sys.modules


def _same(got, want, path="") -> None:
    """Equal key for key (dict keys in the same order, except a query's measures in
    ``all_scores``: pytrec_eval gives them in the order of the Python set of measure names mteb
    passes it, which changes with the hash seed), NaN equal to NaN, floats to 1e-12."""
    if isinstance(want, dict):
        assert isinstance(got, dict), path
        if path.count("/") >= 2 and "/all_scores/" in path:
            assert sorted(got) == sorted(want), path
        else:
            assert list(got) == list(want), path
        for key in want:
            _same(got[key], want[key], f"{path}/{key}")
    elif isinstance(want, list | tuple):
        assert len(got) == len(want), path
        for i, (a, b) in enumerate(zip(got, want, strict=True)):
            _same(a, b, f"{path}[{i}]")
    elif want is None:
        assert got is None, path
    elif isinstance(want, float | np.floating) and math.isnan(want):
        assert math.isnan(got), path
    elif isinstance(want, float | np.floating | int):
        assert not isinstance(got, bool), path
        assert abs(got - float(want)) <= 1e-12, (path, got, want)
    else:
        assert got == want, path


def _outcome(ours, theirs):
    """The tool's value, or the type of its failure: the drop-in raises an InvalidInputError
    where the tool fails (the documented difference)."""
    try:
        want = theirs()
    except TOOL_FAILURES:
        with pytest.raises(InvalidInputError):
            ours()
        return None
    got = ours()
    return got, want


# ---- random cases ----

QUERY_IDS = ["0", "1", "2", "q", "q_1", "q_2", "r_1"]
#: Documents: some named as queries are (ignore_identical_ids), some that sort differently as
#: strings and as numbers (ties are broken by id), and many numbered ones for long rankings.
DOC_IDS = st.one_of(
    st.sampled_from(["0", "1", "2", "q", "q_1", "a", "b", "d1", "d10", "d9", "x"]),
    st.integers(0, 60).map(lambda i: f"n{i}"),
)
#: Scores exactly representable as float32 (pytrec_eval-terrier compares floats: the documented
#: difference is tested on its own), with many ties.
SCORES = st.one_of(
    st.sampled_from([-1.5, 0.0, 0.25, 0.5, 1.0, 1.0, 2.0]),
    st.floats(min_value=-4, max_value=4, width=32),
)
#: Cutoffs from 1 to 1000, beyond the rankings' lengths too, in any order.
K_VALUES = st.lists(
    st.one_of(st.integers(1, 12), st.sampled_from([100, 1000]), st.integers(1, 1000)),
    min_size=1,
    max_size=5,
    unique=True,
)


@st.composite
def cases(draw, judged_results=False, judgments_min=0):
    """``(qrels, results)``: binary or graded judgments (grades 0 and -1 too, so queries
    without a relevant document), rankings with tied scores, and queries on one side only
    (unless ``judged_results``: then every query of results is judged, as mteb requires)."""
    grade_set = draw(st.sampled_from([(0, 1), (-1, 0, 1, 2, 3)]))
    qrels = draw(
        st.dictionaries(
            st.sampled_from(QUERY_IDS),
            st.dictionaries(
                DOC_IDS, st.sampled_from(grade_set), min_size=judgments_min, max_size=8
            ),
            min_size=1,
            max_size=5,
        )
    )
    pool = sorted(qrels) if judged_results else QUERY_IDS
    ranked = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=5, unique=True))
    results = {q: draw(st.dictionaries(DOC_IDS, SCORES, max_size=30)) for q in ranked}
    return qrels, results


# ---- BEIR ----


@settings(max_examples=400, deadline=None)
@given(cases(), K_VALUES, st.booleans())
def test_beir_evaluate_equals_installed_beir(case, ks, ignore):
    qrels, results = case
    mine, theirs = copy.deepcopy(results), copy.deepcopy(results)
    outcome = _outcome(
        lambda: EvaluateRetrieval.evaluate(qrels, mine, ks, ignore_identical_ids=ignore),
        lambda: BeirEvaluateRetrieval.evaluate(qrels, theirs, ks, ignore_identical_ids=ignore),
    )
    if outcome:
        _same(*outcome)
    # The query's own document removed in place, as BEIR removes it.
    assert mine == theirs


@settings(max_examples=400, deadline=None)
@given(
    cases(),
    K_VALUES,
    st.sampled_from(
        [
            *("mrr", "MRR@k", "mrr_cut", "r_cap", "recall_cap", "R_CAP@K", "hole", "Hole@k"),
            *("acc", "top_k_acc", "accuracy", "Accuracy@k", "top_k_accuracy"),
        ]
    ),
)
def test_beir_custom_metrics_equal_installed_beir(case, ks, metric):
    qrels, results = case
    outcome = _outcome(
        lambda: EvaluateRetrieval.evaluate_custom(qrels, results, ks, metric),
        lambda: BeirEvaluateRetrieval.evaluate_custom(qrels, results, ks, metric),
    )
    if outcome:
        _same(*outcome)


def test_beir_functions_are_its_custom_metrics():
    # evaluate_custom's names lead to custom_metrics' functions, each checked above.
    qrels = {"q": {"a": 1, "b": 0}}
    results = {"q": {"b": 0.5, "a": 0.5, "c": 0.7}}
    for name, function in [
        ("mrr", beir_custom.mrr),
        ("r_cap", beir_custom.recall_cap),
        ("hole", beir_custom.hole),
        ("acc", beir_custom.top_k_accuracy),
    ]:
        want = function(qrels, results, [1, 2, 3])
        assert EvaluateRetrieval.evaluate_custom(qrels, results, [1, 2, 3], name) == want


# ---- mteb ----


def _mteb_evaluate(qrels, results, ks, ignore, skip_first):
    evaluator = MtebRetrievalEvaluator(
        corpus=None,
        queries=None,
        task_metadata=None,
        hf_split="test",
        hf_subset="default",
        top_k=max(ks),
        timer=None,
    )
    return evaluator.evaluate(qrels, results, ks, ignore, skip_first)


@settings(max_examples=300, deadline=None)
@given(cases(judged_results=True), K_VALUES, st.booleans(), st.booleans())
def test_mteb_retrieval_evaluator_equals_installed_mteb(case, ks, ignore, skip_first):
    qrels, results = case
    mine, theirs = copy.deepcopy(results), copy.deepcopy(results)
    outcome = _outcome(
        lambda: mteb.RetrievalEvaluator().evaluate(qrels, mine, ks, ignore, skip_first),
        lambda: _mteb_evaluate(qrels, theirs, ks, ignore, skip_first),
    )
    if outcome:
        got, want = outcome
        assert type(want).__name__ == type(got).__name__ == "RetrievalEvaluationResult"
        assert got._fields == want._fields
        _same(got._asdict(), want._asdict())
    assert mine == theirs


@settings(max_examples=150, deadline=None)
@given(cases(judged_results=True), K_VALUES.map(lambda ks: [1, *(k for k in ks if k != 1)]))
def test_mteb_score_dict_equals_installed_mteb(case, ks):
    qrels, results = case

    def theirs():
        result = mteb_metrics.calculate_retrieval_scores(copy.deepcopy(results), qrels, ks)
        fields = result._asdict()
        del fields["all_scores"]
        fields["_map"] = fields.pop("map")
        return mteb_metrics.make_score_dict(**fields, task_scores={"main_score": 0.5})

    outcome = _outcome(
        lambda: mteb.retrieval_scores(
            qrels, copy.deepcopy(results), ks, task_scores={"main_score": 0.5}
        ),
        theirs,
    )
    if outcome:
        _same(*outcome)


@settings(max_examples=300, deadline=None)
@given(cases(judged_results=True), K_VALUES)
def test_mteb_custom_metrics_equal_installed_mteb(case, ks):
    qrels, results = case
    for name in ("mrr", "recall_cap", "hole", "top_k_accuracy"):
        outcome = _outcome(
            lambda name=name: getattr(mteb, name)(qrels, results, ks),
            lambda name=name: dict(getattr(mteb_metrics, name)(qrels, results, ks)),
        )
        if outcome:
            _same(*outcome, path=name)


def test_mteb_top_k_accuracy_keys_come_in_mtebs_order():
    # mteb adds a key at the first query with a hit within its k, query by query: "q0" hits
    # at k = 2 and 402 (not 1), "q1" at every k. (Found by the random cases above.)
    qrels = {"q0": {"a": 1}, "q1": {"b": 1}}
    results = {"q0": {"a": -1.5, "z": 1.0}, "q1": {"b": 1.0}}
    want = dict(mteb_metrics.top_k_accuracy(qrels, results, [2, 1, 402]))
    assert list(want) == ["Accuracy@2", "Accuracy@402", "Accuracy@1"]
    got = mteb.top_k_accuracy(qrels, results, [2, 1, 402])
    assert list(got.items()) == list(want.items())


def test_mteb_per_query_metrics_of_no_query():
    for name in ("mrr", "recall_cap", "hole", "top_k_accuracy"):
        want = dict(getattr(mteb_metrics, name)({"q": {"a": 1}}, {}, [1, 3]))
        assert getattr(mteb, name)({"q": {"a": 1}}, {}, [1, 3]) == want, name


@settings(max_examples=300, deadline=None)
@given(st.lists(SCORES, max_size=12))
def test_mteb_confidence_scores_equal_installed_mteb(scores):
    _same(mteb.confidence_scores(scores), mteb_metrics.confidence_scores(scores))


#: Confidences and metric values with ties (mteb averages the metric over tied confidences).
TIED = st.sampled_from([0.0, 0.1, 0.5, 0.5, 1.0])


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(st.one_of(TIED, st.floats(0, 1)), st.one_of(TIED, st.floats(0, 1))),
        min_size=1,
        max_size=40,
    )
)
def test_mteb_nauc_equals_installed_mteb(pairs):
    confidences = np.array([c for c, _ in pairs])
    values = np.array([v for _, v in pairs])
    _same(mteb.nauc(confidences, values), float(mteb_metrics.nauc(confidences, values)))


@settings(max_examples=300, deadline=None)
@given(cases(judged_results=True, judgments_min=1), K_VALUES)
def test_mteb_evaluate_abstention_equals_installed_mteb(case, ks):
    qrels, results = case
    per_query = mteb_metrics.mrr(qrels, results, ks)
    _same(
        mteb.evaluate_abstention(results, per_query),
        mteb_metrics.evaluate_abstention(results, per_query),
    )


@settings(max_examples=150, deadline=None)
@given(cases(judged_results=True, judgments_min=1), K_VALUES)
def test_mteb_max_over_subqueries_equals_installed_mteb(case, ks):
    qrels, results = case
    results = {q: results.get(q, {"x": 1.0}) for q in qrels}
    outcome = _outcome(
        lambda: mteb.max_over_subqueries(qrels, results, ks),
        lambda: mteb_metrics.max_over_subqueries(qrels, results, ks),
    )
    if outcome:
        _same(*outcome)


@st.composite
def followir_cases(draw):
    """FollowIR's inputs: each query twice (``<id>-og``, ``<id>-changed``), the documents
    whose relevance the changed instruction changed, runs with tied scores."""
    bases = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, unique=True))
    qrels, results, changed = {}, {}, {}
    for base in bases:
        for suffix in ("-og", "-changed"):
            qrels[base + suffix] = draw(
                st.dictionaries(DOC_IDS, st.sampled_from([0, 1, 2]), min_size=1, max_size=6)
            )
            if draw(st.integers(0, 5)):  # now and then a query without a run
                results[base + suffix] = draw(st.dictionaries(DOC_IDS, SCORES, max_size=12))
        changed[base] = draw(st.lists(DOC_IDS, min_size=1, max_size=4, unique=True))
    return qrels, results, changed


@settings(max_examples=200, deadline=None)
@given(followir_cases())
def test_mteb_p_mrr_equals_installed_mteb(case):
    _, results, changed = case
    original = {q: d for q, d in results.items() if q.endswith("-og")}
    new = {q: d for q, d in results.items() if not q.endswith("-og")}
    present = [q for q in changed if q + "-og" in original and q + "-changed" in new]
    if not present:
        # mteb fails in pandas (an empty frame): a named error here.
        with pytest.raises(ValueError):
            mteb_metrics.calculate_pmrr(original, new, changed)
        with pytest.raises(InvalidInputError, match="no changed document"):
            mteb.calculate_pmrr(original, new, changed)
        return
    # mteb's means go through pandas, the drop-in's are exact: equal to 1e-12.
    _same(
        mteb.calculate_pmrr(original, new, changed),
        float(mteb_metrics.calculate_pmrr(original, new, changed)),
    )


@settings(max_examples=100, deadline=None)
@given(followir_cases(), K_VALUES.map(lambda ks: [1, *(k for k in ks if k != 1)]))
def test_mteb_p_mrr_change_scores_equal_installed_mteb(case, ks):
    qrels, results, changed = case
    outcome = _outcome(
        lambda: mteb.evaluate_p_mrr_change(qrels, copy.deepcopy(results), changed, ks),
        lambda: dict(mteb_metrics.evaluate_p_mrr_change(qrels, results, changed, ks)),
    )
    if outcome:
        _same(*outcome)


@st.composite
def instance_cases(draw):
    """Queries grouped in instances (``<key>_q1`` and ``<key>_q2``, NevIR's pairs; or
    ``<key>_<n>``, InstructIR's instructions), judged and ranked, with ties."""
    keys = draw(st.lists(st.sampled_from(["a", "b", "c", "d10", "d9"]), min_size=1, unique=True))
    suffixes = draw(st.sampled_from([("q1", "q2"), ("1", "2", "3")]))
    qrels, results = {}, {}
    for key in keys:
        for suffix in suffixes[: draw(st.integers(2 if suffixes[0] == "q1" else 1, 3))]:
            query = f"{key}_{suffix}"
            qrels[query] = draw(
                st.dictionaries(DOC_IDS, st.sampled_from([0, 1, 2]), min_size=1, max_size=6)
            )
            results[query] = draw(st.dictionaries(DOC_IDS, SCORES, max_size=12))
    return qrels, results


@settings(max_examples=200, deadline=None)
@given(instance_cases(), st.lists(st.sampled_from([1, 3, 10]), min_size=1, unique=True))
def test_mteb_task_scores_equal_installed_mteb(case, ks):
    qrels, results = case
    # Each function reads its measure from the per-query scores (recall_1, ndcg_cut_10): with
    # other cutoffs, mteb fails with a KeyError and the drop-in names the missing measure.
    scores = mteb_metrics.calculate_retrieval_scores(results, qrels, ks).all_scores
    for name in ("paired_accuracy", "robustness_at_10"):
        outcome = _outcome(
            lambda name=name: getattr(mteb, name)(qrels, results, scores),
            lambda name=name: getattr(mteb_metrics, name)(qrels, results, scores),
        )
        if outcome:
            _same(*outcome, path=name)


# ---- the documented differences, asserted ----


def test_ties_are_broken_as_each_tool_breaks_them_and_the_tie_aware_measure_is_ragmeters():
    # Every document tied. pytrec_eval (so BEIR's evaluate and mteb) ranks ties by doc id
    # descending: "b" before "a". BEIR's custom metrics keep the dict's order (a stable sort):
    # "a" first. The drop-ins follow each rule; ragmeter's tie-aware MRR (mrr_ta, the expected
    # value over the orders of the tie) is neither, and is not what either tool reports.
    qrels = {"q": {"a": 1}}
    results = {"q": {"a": 0.5, "b": 0.5}}
    by_id = BeirEvaluateRetrieval.evaluate(qrels, copy.deepcopy(results), [1])
    assert by_id[3] == {"P@1": 0.0}
    assert EvaluateRetrieval.evaluate(qrels, copy.deepcopy(results), [1]) == by_id
    by_dict = BeirEvaluateRetrieval.evaluate_custom(qrels, results, [1], "mrr")
    assert by_dict == {"MRR@1": 1.0}
    assert EvaluateRetrieval.evaluate_custom(qrels, results, [1], "mrr") == by_dict
    assert mteb_metrics.mrr(qrels, results, [2])["MRR@2"] == [0.5]
    assert mteb.mrr(qrels, results, [2]) == {"MRR@2": [0.5]}
    assert ranking_metrics(qrels, results, metrics=["mrr_ta@2"]) == {"mrr_ta@2": 0.75}


def test_scores_are_compared_as_doubles_where_pytrec_eval_compares_floats():
    # 1 + 1e-9 and 1 are one float32: pytrec_eval ties them and ranks "z" first (doc id
    # descending); the drop-in ranks the higher double first.
    qrels = {"q": {"a": 1}}
    results = {"q": {"a": 1.0 + 1e-9, "z": 1.0}}
    assert BeirEvaluateRetrieval.evaluate(qrels, copy.deepcopy(results), [1])[3] == {"P@1": 0.0}
    assert EvaluateRetrieval.evaluate(qrels, copy.deepcopy(results), [1])[3] == {"P@1": 1.0}
    want = mteb_metrics.calculate_retrieval_scores(results, qrels, [1])
    got = mteb.calculate_retrieval_scores(results, qrels, [1])
    assert (want.precision, got.precision) == ({"P@1": 0.0}, {"P@1": 1.0})
    # mteb's own MRR sorts doubles: there the two agree.
    assert got.mrr == want.mrr == {"MRR@1": 1.0}


def test_fractional_grades_are_read_where_pytrec_eval_refuses_them():
    qrels = {"q": {"a": 0.5, "b": 2.0}}
    results = {"q": {"a": 2.0, "b": 1.0}}
    with pytest.raises(TypeError, match="integer"):
        BeirEvaluateRetrieval.evaluate(qrels, copy.deepcopy(results), [2])
    with pytest.raises(TypeError, match="integer"):
        mteb_metrics.calculate_retrieval_scores(results, qrels, [2])
    dcg = 0.5 + 2.0 / math.log2(3)
    ideal = 2.0 + 0.5 / math.log2(3)
    ndcg = EvaluateRetrieval.evaluate(qrels, copy.deepcopy(results), [2])[0]
    assert ndcg == {"NDCG@2": round(dcg / ideal, 5)}
    assert mteb.calculate_retrieval_scores(results, qrels, [2]).ndcg == ndcg
