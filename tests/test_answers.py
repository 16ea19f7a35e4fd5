"""Answer metrics against the published definitions, written out here as oracles:

* SQuAD v1.1 exact match and F1: the official ``evaluate-v1.1.py`` (Rajpurkar et al., 2016),
  with the SQuAD v2.0 rule for empty token lists that ragmeter documents.
* ANLS: Biten et al. (2019) / DocVQA: ``1 - NL`` if ``NL < threshold`` else 0, best over the
  references, averaged; texts lower-cased and white space collapsed as the DocVQA evaluation
  does. Levenshtein distances of the oracle come from rapidfuzz.
"""

from __future__ import annotations

import doctest
import re
import string
import sys
import unicodedata
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ragmeter
from ragmeter import (
    anls_score,
    edit_similarity_score,
    exact_match_score,
    normalize_basic,
    normalize_squad,
    token_f1_score,
)

pytest.importorskip("rapidfuzz")
from rapidfuzz.distance import Levenshtein as RF

SPEC_REFERENCES = ["The Eiffel Tower", ["Paris", "City of Paris"]]
SPEC_ANSWERS = ["eiffel tower.", "Paris, France"]


# ---------------------------------------------------------------- oracles (published code)


def squad_normalize_answer(s):
    """evaluate-v1.1.py: lower text and remove punctuation, articles and extra whitespace."""

    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def squad_f1_score(prediction, ground_truth):
    prediction_tokens = squad_normalize_answer(prediction).split()
    ground_truth_tokens = squad_normalize_answer(ground_truth).split()
    # SQuAD v2.0's rule for empty answers (v1.1 returned 0 for an empty pair).
    if not prediction_tokens or not ground_truth_tokens:
        return float(prediction_tokens == ground_truth_tokens)
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1


def squad_exact_match_score(prediction, ground_truth):
    return squad_normalize_answer(prediction) == squad_normalize_answer(ground_truth)


def metric_max_over_ground_truths(metric_fn, prediction, ground_truths):
    scores_for_ground_truths = []
    for ground_truth in ground_truths:
        score = metric_fn(prediction, ground_truth)
        scores_for_ground_truths.append(score)
    return max(scores_for_ground_truths)


def docvqa_anls(prediction, ground_truths, threshold=0.5):
    """Biten et al. (2019), eq. 1, with the DocVQA text preparation."""
    values = []
    for answer in ground_truths:
        gt = " ".join(answer.strip().lower().split())
        det = " ".join(prediction.strip().lower().split())
        length = max(len(gt), len(det))
        nl = 0.0 if length == 0 else RF.distance(gt, det) / length
        values.append(1.0 - nl if nl < threshold else 0.0)
    return max(values)


def as_list(reference):
    return [reference] if isinstance(reference, str) else list(reference)


# ------------------------------------------------------------------------------ strategies

# Valid text of Python's Unicode database (no unassigned code points, whose case mapping and
# category differ across Unicode versions, and no lone surrogates).
unicode_chars = st.characters(exclude_categories=("Cs", "Cn"))
fragments = st.sampled_from(
    ["a", "an", "the", "The", "A", "AN", "An", " ", "  ", "\t", "\n", "\x1f", "\u3000", ".", ",",
     "-", "'", "_", "!", "Σ", "İ", "é", "\u0301", "\u0903", "Ⓐ", "1", "x"]
)  # fmt: skip
answer_text = st.lists(fragments | st.text(unicode_chars, max_size=3), max_size=12).map("".join)
reference_entry = answer_text | st.lists(answer_text, min_size=1, max_size=3)
items = st.lists(st.tuples(reference_entry, answer_text), max_size=25)


# ----------------------------------------------------------------------------------- tests


def test_spec_examples_are_exact():
    assert exact_match_score(SPEC_REFERENCES, SPEC_ANSWERS) == 0.5
    assert round(token_f1_score(SPEC_REFERENCES, SPEC_ANSWERS), 3) == 0.833
    assert round(anls_score(SPEC_REFERENCES, SPEC_ANSWERS), 3) == 0.344
    # Per answer: "the eiffel tower" vs "eiffel tower." is 5 edits over 16 code points;
    # "paris, france" is 8 edits from "paris" over 13 (NL >= 0.5, so 0).
    anls = anls_score(SPEC_REFERENCES, SPEC_ANSWERS, average=None)
    assert anls.tolist() == [1 - 5 / 16, 0.0]
    assert token_f1_score(SPEC_REFERENCES, SPEC_ANSWERS, average=None).tolist() == [1.0, 2 / 3]


def test_docstring_examples_run_as_written():
    attempted = 0
    for module in (
        ragmeter.answers.normalize,
        ragmeter.answers.matching,
        ragmeter.answers.edit,
        ragmeter.answers.overlap,
        ragmeter.answers.abstention,
        ragmeter.answers.table,
        ragmeter.answers.declarations,
    ):
        result = doctest.testmod(module, raise_on_error=False)
        assert result.failed == 0, module.__name__
        attempted += result.attempted
    assert attempted >= 20


@settings(max_examples=400, deadline=None)
@given(answer_text)
def test_normalisers_equal_the_reference_definitions(text):
    assert normalize_squad(text) == squad_normalize_answer(text)
    assert normalize_basic(text) == " ".join(text.lower().split())


def test_normalisers_agree_with_python_on_every_assigned_code_point():
    # Lower case and white space of every character, and whether it is a word character for
    # `\b` (an article next to it stays or goes). Characters that Python's Unicode database
    # does not know yet are left out: their properties depend on the Unicode version.
    chars = [
        chr(i)
        for i in range(sys.maxunicode + 1)
        if unicodedata.category(chr(i)) not in ("Cn", "Cs")
    ]
    lower_and_space = [
        c for c in chars if normalize_basic(f"x{c}X") != " ".join(f"x{c}X".lower().split())
    ]
    assert lower_and_space == []
    words = [
        c for c in chars if normalize_squad(f"the{c}an") != squad_normalize_answer(f"the{c}an")
    ]
    assert words == []


@settings(max_examples=200, deadline=None)
@given(items)
def test_exact_match_and_f1_equal_official_squad(pairs):
    references = [r for r, _ in pairs]
    answers = [a for _, a in pairs]
    em = exact_match_score(references, answers, average=None)
    f1 = token_f1_score(references, answers, average=None)
    expected_em = [
        float(metric_max_over_ground_truths(squad_exact_match_score, a, as_list(r)))
        for r, a in pairs
    ]
    expected_f1 = [
        float(metric_max_over_ground_truths(squad_f1_score, a, as_list(r))) for r, a in pairs
    ]
    assert em.tolist() == expected_em
    assert f1.tolist() == expected_f1  # bit for bit: the same float operations
    if pairs:
        assert exact_match_score(references, answers) == pytest.approx(np.mean(expected_em))
        assert token_f1_score(references, answers) == pytest.approx(np.mean(expected_f1))


@settings(max_examples=200, deadline=None)
@given(items, st.sampled_from([0.5, 0.25, 0.75, 1.0]))
def test_anls_equals_the_docvqa_definition(pairs, threshold):
    references = [r for r, _ in pairs]
    answers = [a for _, a in pairs]
    scores = anls_score(references, answers, threshold=threshold, average=None)
    expected = [docvqa_anls(a, as_list(r), threshold) for r, a in pairs]
    assert scores.tolist() == expected
    if pairs:
        assert anls_score(references, answers, threshold=threshold) == pytest.approx(
            np.mean(expected)
        )


@settings(max_examples=200, deadline=None)
@given(items)
def test_edit_similarity_is_the_best_unthresholded_similarity(pairs):
    references = [r for r, _ in pairs]
    answers = [a for _, a in pairs]
    expected = [max(RF.normalized_similarity(a, x) for x in as_list(r)) for r, a in pairs]
    assert edit_similarity_score(references, answers, average=None).tolist() == expected


def test_anls_threshold_is_exclusive_and_settable():
    # "ab" vs "ax": NL = 1/2 exactly, which is not < 0.5.
    assert anls_score(["ab"], ["ax"]) == 0.0
    assert anls_score(["ab"], ["ax"], threshold=0.51) == 0.5
    assert anls_score(["abcd"], ["abcx"], threshold=0.25) == 0.0
    assert anls_score(["abcd"], ["abcx"], threshold=1.0) == 0.75


def test_empty_texts():
    assert token_f1_score([""], [""]) == 1.0
    assert token_f1_score(["the"], ["a"]) == 1.0  # both normalise to no tokens
    assert token_f1_score([""], ["x"]) == 0.0
    assert exact_match_score([""], [""]) == 1.0
    assert anls_score([""], [" "]) == 1.0
    assert anls_score(["x"], [""]) == 0.0
    assert edit_similarity_score([""], [""]) == 1.0


def test_defaults_follow_the_spec():
    # EM/F1: SQuAD normalisation; ANLS: basic (punctuation kept); edit similarity: none.
    assert exact_match_score(["The cat!"], ["cat"]) == 1.0
    assert exact_match_score(["The cat!"], ["cat"], normalize=None) == 0.0
    assert anls_score(["Cat"], ["cat."]) == 0.75
    assert anls_score(["Cat"], ["cat."], normalize="squad") == 1.0
    assert edit_similarity_score(["Cat"], ["cat"]) == pytest.approx(2 / 3)
    assert edit_similarity_score(["Cat"], ["cat"], normalize="basic") == 1.0


def test_normalize_callable_and_best_reference():
    assert exact_match_score([["x", "Yes"]], ["YES"], normalize=str.upper) == 1.0
    assert exact_match_score([("no", "yes")], ["yes"], normalize=None) == 1.0
    assert token_f1_score([["a b c", "b c"]], ["b c"], normalize=None) == 1.0


def test_accepts_tuples_arrays_and_iterators():
    refs = np.array(["Paris", "Rome"])
    answers = iter(["paris", "rome"])
    assert exact_match_score(refs, answers) == 1.0
    assert anls_score(("Paris",), ("paris",)) == 1.0


def test_large_batch_equals_item_by_item_and_ignores_thread_count():
    # More items than one chunk of the bindings (8192), so chunks are stitched together.
    rng = np.random.default_rng(3)
    words = np.array(["the", "Eiffel", "tower", "paris", "a", "city", "of", "é", "😀", "."])
    refs = [" ".join(rng.choice(words, size=rng.integers(0, 6))) for _ in range(20_000)]
    answers = [" ".join(rng.choice(words, size=rng.integers(0, 6))) for _ in range(20_000)]
    one = anls_score(refs, answers, average=None, n_threads=1)
    two = anls_score(refs, answers, average=None, n_threads=2)
    assert np.array_equal(one, two)
    assert one.tolist() == [docvqa_anls(a, [r]) for r, a in zip(refs, answers, strict=True)]
    f1 = token_f1_score(refs, answers, average=None, n_threads=2)
    assert f1.tolist() == [float(squad_f1_score(a, r)) for r, a in zip(refs, answers, strict=True)]


def test_large_batch_with_several_references_per_answer():
    # Answers are scored in blocks of 512 shared between threads; each block's lists of
    # acceptable references must stay with their answers.
    rng = np.random.default_rng(5)
    words = np.array(["the", "Eiffel", "tower", "paris", "a", "city", "é", "😀", "."])

    def phrase() -> str:
        return " ".join(rng.choice(words, size=rng.integers(1, 5)))

    refs: list[object] = [
        phrase() if i % 3 else [phrase() for _ in range(int(rng.integers(1, 4)))]
        for i in range(20_000)
    ]
    answers = [phrase() for _ in range(20_000)]
    expected = [
        docvqa_anls(a, r if isinstance(r, list) else [r])
        for r, a in zip(refs, answers, strict=True)
    ]
    for n_threads in (1, 2, 3):
        assert anls_score(refs, answers, average=None, n_threads=n_threads).tolist() == expected


def test_errors_name_the_position_in_the_whole_list():
    answers = ["x"] * 20_000
    answers[17_000] = None
    with pytest.raises(TypeError, match=r"answers\[17000\] is None"):
        anls_score(["x"] * 20_000, answers)
    references: list[object] = ["x"] * 20_000
    references[9_000] = []
    with pytest.raises(ValueError, match=r"references\[9000\] is an empty list"):
        exact_match_score(references, ["x"] * 20_000)


def test_average_none_of_nothing_is_an_empty_array():
    scores = anls_score([], [], average=None)
    assert isinstance(scores, np.ndarray)
    assert scores.shape == (0,)


# ----------------------------------------------------------------------------------- errors

ALL_METRICS = [exact_match_score, token_f1_score, anls_score, edit_similarity_score]


@pytest.mark.parametrize("metric", ALL_METRICS)
@pytest.mark.parametrize(
    ("references", "answers", "error", "message"),
    [
        (["a", "b"], ["a"], ValueError, r"same length.*got 2 references and 1 answers"),
        (["a"], [1], TypeError, r"answers\[0\] is int"),
        (["a", "b"], ["a", None], TypeError, r"answers\[1\] is None"),
        ([None], ["a"], TypeError, r"references\[0\] is None"),
        ([["a", None]], ["a"], TypeError, r"references\[0\]\[1\] is None"),
        ([3.5], ["a"], TypeError, r"references\[0\] is float"),
        (["a"], [["a", "b"]], TypeError, "each answer must be one str"),
        ([[]], ["a"], ValueError, r"references\[0\] is an empty list"),
        ("paris", ["paris"], TypeError, "references is a single str"),
        (["paris"], "paris", TypeError, "answers is a single str"),
        (None, ["a"], TypeError, "references is None"),
        (["a"], None, TypeError, "answers is None"),
        ({"q1": "a"}, ["a"], TypeError, "references is a mapping"),
        (["a"], {"a"}, TypeError, "answers is a set"),
        (["a"], 5, TypeError, "answers is int"),
        ([], [], ValueError, "mean over 0 answers is undefined"),
        (["a"], ["x\ud800"], ValueError, "lone surrogate"),
    ],
)
def test_bad_inputs(metric, references, answers, error, message):
    with pytest.raises(error, match=message):
        metric(references, answers)


@pytest.mark.parametrize("metric", ALL_METRICS)
@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"normalize": "lower"}, ValueError, "unknown normaliser 'lower'"),
        ({"normalize": 3}, TypeError, "normalize: got int"),
        ({"normalize": lambda s: None}, TypeError, "normalize returned None"),
        ({"average": "macro"}, ValueError, "average: must be 'mean' or None"),
        ({"n_threads": 0}, ValueError, "n_threads"),
        ({"n_threads": "2"}, TypeError, "n_threads"),
    ],
)
def test_bad_options(metric, kwargs, error, message):
    with pytest.raises(error, match=message):
        metric(["a"], ["a"], **kwargs)


@pytest.mark.parametrize(
    ("threshold", "error"),
    [(0.0, ValueError), (1.5, ValueError), (float("nan"), ValueError), (-1, ValueError),
     (True, TypeError), ("0.5", TypeError), (None, TypeError)],
)  # fmt: skip
def test_bad_anls_threshold(threshold, error):
    with pytest.raises(error, match="threshold"):
        anls_score(["a"], ["a"], threshold=threshold)


def test_normalisers_refuse_non_text():
    with pytest.raises(TypeError, match="text is None"):
        normalize_squad(None)
    with pytest.raises(TypeError, match="text is list"):
        normalize_basic(["a"])


def test_answer_metrics_as_corpus_scorers():
    class EchoAnswers:
        def predict(self, questions):
            return list(questions)

    def score(name, **kwargs):
        scorer = ragmeter.get_corpus_scorer(name, **kwargs)
        return scorer(EchoAnswers(), SPEC_ANSWERS, SPEC_REFERENCES)

    assert score("exact_match") == 0.5
    assert round(score("token_f1"), 3) == 0.833
    assert score("anls") == (1 - 5 / 16) / 2
    # "paris, france" is 8 edits from "paris" over 13 code points: kept under threshold 0.7.
    assert score("anls", threshold=0.7) == pytest.approx((1 - 5 / 16 + 1 - 8 / 13) / 2)


def test_mean_says_how_many_answers_it_averaged():
    import ragmeter

    mean = ragmeter.exact_match_score(["a", "b", "c"], ["a", "x", "c"])
    assert isinstance(mean, ragmeter.MeanScore)
    assert mean == pytest.approx(2 / 3)
    assert (mean.n_queries, mean.n_undefined, mean.metric) == (3, 0, "exact_match")
