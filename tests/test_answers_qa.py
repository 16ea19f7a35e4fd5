"""The QA answer metrics of the RAG benchmarks against their reference implementations.

Oracles:

* FlashRAG's ``normalize_answer``, ``ExactMatch.calculate_em`` and
  ``Sub_ExactMatch.calculate_sub_em`` (with CuratedTREC's regular-expression gold answers),
  ported below from RUC-NLPIR/FlashRAG at commit 1ee524901aa3daf009f97b7a31e7a1b58eee8206
  (``flashrag/evaluator/utils.py``, ``flashrag/evaluator/metrics.py``; the ``print`` calls
  and the dataset switch dropped, ``is_regex`` a parameter);
* BERGEN's ``normalize``, ``em_single``, ``match_single``, ``exact_match_score`` and
  ``match_score``, ported below from naver/bergen at commit
  1b0ee2c63b2e06cbcd1c81f2daccb30b1cafdbfe (``modules/metrics.py``; it needs the
  third-party ``regex`` module, installed with ``nltk``);
* ``rouge-score`` (``RougeScorer.score_multi``) and NLTK's ``PorterStemmer``, installed;
* ``sacrebleu`` (``sentence_bleu``, ``corpus_bleu``, ``BLEU.get_signature``), installed;
* the no-answer patterns searched with Python's ``re`` and claim recall written out in plain
  Python (their definitions are ragmeter's own).

Inputs are random and Unicode-heavy (hypothesis), plus the peers' own examples.
"""

from __future__ import annotations

import re
import string
import sys
import unicodedata
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

regex_module = pytest.importorskip("regex")
rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")
sacrebleu = pytest.importorskip("sacrebleu")
porter = pytest.importorskip("nltk.stem.porter")

from test_answers import answer_text, reference_entry  # noqa: E402

from ragmeter import _core, answers, compare  # noqa: E402
from ragmeter.answers import (  # noqa: E402
    NO_ANSWER_PATTERNS,
    abstention_scores,
    answer_metrics,
    claim_recall_score,
    corpus_bleu,
    exact_match_score,
    no_answer_score,
    normalize_bergen,
    normalize_squad,
    rouge_score,
    rouge_scores,
    sentence_bleu_score,
    substring_match_score,
)
from ragmeter.answers.declarations import SACREBLEU_VERSION  # noqa: E402

# ---------------------------------------------------------------- FlashRAG (ported, see header)


def flashrag_normalize_answer(s):
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


def flashrag_calculate_em(prediction, golden_answers, is_regex=False):
    if isinstance(golden_answers, str):
        golden_answers = [golden_answers]
    normalized_prediction = flashrag_normalize_answer(prediction)
    score = 0.0
    for golden_answer in golden_answers:
        if is_regex:
            golden_answer = re.compile(golden_answer, re.IGNORECASE)
            match = re.fullmatch(golden_answer, normalized_prediction)
            if match is not None:
                score = 1.0
                break
        else:
            golden_answer = flashrag_normalize_answer(golden_answer)
            if golden_answer == normalized_prediction:
                score = 1.0
                break
    return score


def flashrag_calculate_sub_em(prediction, golden_answers, is_regex=False):
    if isinstance(golden_answers, str):
        golden_answers = [golden_answers]
    normalized_prediction = flashrag_normalize_answer(prediction)
    score = 0.0
    for golden_answer in golden_answers:
        if is_regex:
            golden_answer = re.compile(golden_answer, re.IGNORECASE)
            match = re.search(golden_answer, normalized_prediction)
            if match is not None:
                score = 1.0
                break
        else:
            golden_answer = flashrag_normalize_answer(golden_answer)
            if golden_answer in normalized_prediction:
                score = 1.0
                break
    return score


# ------------------------------------------------------------------ BERGEN (ported, see header)


def bergen_normalize(s: str) -> str:
    def remove_articles(text):
        return regex_module.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def bergen_em_single(prediction: str, ground_truth: str):
    return float(bergen_normalize(prediction) == bergen_normalize(ground_truth))


def bergen_exact_match_score(predictions: list[str], references: list[list[str]]):
    return [
        max([bergen_em_single(prediction, gt) for gt in ground_truths])
        for ground_truths, prediction in zip(references, predictions, strict=True)
    ]


def bergen_match_single(prediction: str, ground_truth: str):
    return float(bergen_normalize(ground_truth) in bergen_normalize(prediction))


def bergen_match_score(predictions, references):
    return [
        max([bergen_match_single(prediction, gt) for gt in ground_truths])
        for ground_truths, prediction in zip(references, predictions, strict=True)
    ]


# ------------------------------------------------------------------------------ strategies


def as_list(reference):
    return [reference] if isinstance(reference, str) else list(reference)


items = st.lists(st.tuples(reference_entry, answer_text), min_size=1, max_size=20)

# Words, punctuation and line breaks in many scripts: ROUGE and BLEU tokenise them differently.
word_pieces = st.sampled_from(
    ["the", "The", "cat", "cats", "running", "ran", "Paris", "1889", "3.5", "1,024", "x-ray",
     "café", "naïve", "東京", "İstanbul", "KELVIN", "\u212a", "ΟΔΟΣ", "straße", "&amp;", "&quot;",
     "<skipped>", "co-", ".", ",", "-", "!", "'s", "$", "(", ")", "€", "\n", " ", "  ", "\t",
     "\u3000", "\x1f", "\u0301", "generalizations", "happily", "flies", "dying", "controlling"]
)  # fmt: skip
overlap_text = st.lists(word_pieces | st.text(max_size=3), max_size=25).map(" ".join) | st.lists(
    word_pieces, max_size=25
).map("".join)
overlap_items = st.lists(
    st.tuples(overlap_text | st.lists(overlap_text, min_size=1, max_size=3), overlap_text),
    min_size=1,
    max_size=12,
)


# ------------------------------------------------------------- substring match and exact match


@settings(max_examples=300, deadline=None)
@given(items)
def test_substring_and_exact_match_equal_flashrag(pairs):
    references = [r for r, _ in pairs]
    predictions = [a for _, a in pairs]
    sub = substring_match_score(references, predictions, average=None)
    em = exact_match_score(references, predictions, average=None)
    assert sub.tolist() == [flashrag_calculate_sub_em(a, r) for r, a in pairs]
    assert em.tolist() == [flashrag_calculate_em(a, r) for r, a in pairs]


@settings(max_examples=300, deadline=None)
@given(items)
def test_match_and_exact_match_equal_bergen_with_its_normalisation(pairs):
    references = [as_list(r) for r, _ in pairs]
    predictions = [a for _, a in pairs]
    match = substring_match_score(references, predictions, normalize="bergen", average=None)
    em = exact_match_score(references, predictions, normalize="bergen", average=None)
    assert match.tolist() == bergen_match_score(predictions, references)
    assert em.tolist() == bergen_exact_match_score(predictions, references)


@settings(max_examples=400, deadline=None)
@given(answer_text)
def test_bergen_normalisation_equals_bergens(text):
    assert normalize_bergen(text) == bergen_normalize(text)


def test_bergen_normalisation_on_every_assigned_code_point():
    # Where `\b` falls next to each character, as the regex module decides it (Unicode's word
    # characters), and where SQuAD's (re's) differs from it.
    chars = [
        chr(i)
        for i in range(sys.maxunicode + 1)
        if unicodedata.category(chr(i)) not in ("Cn", "Cs")
    ]
    differ = [c for c in chars if normalize_bergen(f"the{c}an") != bergen_normalize(f"the{c}an")]
    assert differ == []
    squad_differs = [
        c for c in chars if bergen_normalize(f"the{c}an") != normalize_squad(f"the{c}an")
    ]
    # The two tools disagree on thousands of characters (marks, other numbers, ...), never on
    # ASCII.
    assert len(squad_differs) > 1000
    assert not [c for c in squad_differs if c.isascii()]


def test_flashrag_and_bergen_examples():
    # Substring, not words; an empty normalised reference occurs everywhere (both tools).
    assert substring_match_score(["cat"], ["concatenate"]) == 1.0
    assert substring_match_score(["The"], ["anything"]) == 1.0
    assert flashrag_calculate_sub_em("anything", ["The"]) == 1.0
    assert substring_match_score([["Barack Obama", "Obama"]], ["It was obama."]) == 1.0


# Patterns both dialects read the same way: literals, classes, \d, \s, groups, alternation and
# repetition (no \w or \b: their Unicode word characters differ between re and Rust's regex).
_atoms = st.sampled_from(
    ["a", "b", "the", "paris", "1", "9", " ", r"\d", r"\s", "[a-c]", "[0-9]", r"\.", ".", "é",
     "東", "x"]
)  # fmt: skip


def _pattern(depth: int = 0) -> st.SearchStrategy[str]:
    # Only atoms are repeated, never groups: a repeated group of repeated atoms ("(a*)*")
    # makes Python's backtracking re, the oracle, take exponential time.
    quantified = st.tuples(_atoms, st.sampled_from(["", "", "?", "*", "+", "{1,2}", "*?"])).map(
        "".join
    )
    group = st.deferred(lambda: _pattern(depth + 1)).map(lambda p: f"({p})")
    piece = quantified if depth >= 2 else quantified | group
    sequence = st.lists(piece, min_size=1, max_size=4).map("".join)
    return st.lists(sequence, min_size=1, max_size=3).map("|".join)


pattern_items = st.lists(
    st.tuples(st.lists(_pattern(), min_size=1, max_size=3), answer_text), min_size=1, max_size=12
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pattern_items)
def test_regex_gold_answers_equal_flashrag_on_curatedtrec(pairs):
    patterns = [p for p, _ in pairs]
    predictions = [a for _, a in pairs]
    searched = substring_match_score(patterns, predictions, regex=True, average=None)
    full = exact_match_score(patterns, predictions, regex=True, average=None)
    assert searched.tolist() == [flashrag_calculate_sub_em(a, p, True) for p, a in pairs]
    assert full.tolist() == [flashrag_calculate_em(a, p, True) for p, a in pairs]


def test_regex_gold_answers_of_curatedtrec_style():
    patterns = [[r"\d+ (miles|mi)"], ["(Jimmy )?Carter"], [r"Mt\.? Everest|Everest"]]
    predictions = ["About 238,900 miles away.", "President Jimmy Carter", "Mount K2"]
    pairs = list(zip(patterns, predictions, strict=True))
    expected = [flashrag_calculate_sub_em(a, p, True) for p, a in pairs]
    assert expected == [1.0, 1.0, 0.0]
    assert substring_match_score(patterns, predictions, regex=True, average=None).tolist() == (
        expected
    )
    # re.fullmatch of "president jimmy carter" against "(Jimmy )?Carter" fails.
    assert exact_match_score(patterns, predictions, regex=True, average=None).tolist() == [
        flashrag_calculate_em(a, p, True) for p, a in zip(patterns, predictions, strict=True)
    ]


@pytest.mark.parametrize(
    ("pattern", "message"),
    [(r"(\w+) \1", "backreferences"), ("(?<=a)b", "look-around"), ("a)|(b", "not a valid"),
     (r"\w{1000}{1000}", "not a valid")],
)  # fmt: skip
def test_patterns_that_the_linear_time_engine_refuses_are_errors_naming_the_item(pattern, message):
    answers_ = ["x"] * 20_000
    patterns = [["x"]] * 20_000
    patterns[12_345] = ["ok", pattern]
    with pytest.raises(ValueError, match=r"references\[12345\]\[1\]") as error:
        substring_match_score(patterns, answers_, regex=True)
    assert "not a valid pattern" in str(error.value)
    with pytest.raises(ValueError, match=r"references\[12345\]\[1\]"):
        exact_match_score(patterns, answers_, regex=True)


def test_a_hostile_pattern_does_not_backtrack():
    # (a+)+$ on "aaaa...!" takes exponential time in a backtracking engine (Python's re).
    text = "a" * 5_000 + "!"
    assert substring_match_score([["(a+)+$"]], [text], regex=True, normalize=None) == 0.0


# ------------------------------------------------------------------------------------ ROUGE


def _rouge_oracle(pairs, types, use_stemmer):
    scorer = rouge_scorer.RougeScorer(types, use_stemmer=use_stemmer)
    return [scorer.score_multi(as_list(r), a) for r, a in pairs]


@settings(max_examples=150, deadline=None)
@given(overlap_items, st.booleans())
def test_rouge_equals_rouge_score(pairs, use_stemmer):
    types = ["rouge1", "rouge2", "rouge3", "rougeL", "rougeLsum"]
    references = [r for r, _ in pairs]
    predictions = [a for _, a in pairs]
    expected = _rouge_oracle(pairs, types, use_stemmer)
    values = rouge_scores(references, predictions, rouge_types=types, use_stemmer=use_stemmer)
    for rouge_type in types:
        for measure, key in (("precision", "_precision"), ("recall", "_recall"), ("fmeasure", "")):
            got = values[rouge_type + key].tolist()
            want = [getattr(e[rouge_type], measure) for e in expected]
            assert got == want, (rouge_type, measure)
    single = rouge_score(references, predictions, rouge_type="rougeL", average=None,
                         use_stemmer=use_stemmer)  # fmt: skip
    assert single.tolist() == [e["rougeL"].fmeasure for e in expected]


def test_rouge_scores_readme_example():
    # rouge-score's README example.
    scorer = rouge_scorer.RougeScorer(["rouge1", "rougeL"], use_stemmer=True)
    target = "The quick brown fox jumps over the lazy dog"
    prediction = "The quick brown dog jumps on the log."
    expected = scorer.score(target, prediction)
    assert rouge_score([target], [prediction], rouge_type="rouge1", use_stemmer=True) == (
        expected["rouge1"].fmeasure
    )
    assert rouge_score([target], [prediction], use_stemmer=True, measure="precision") == (
        expected["rougeL"].precision
    )


def test_rouge_lsum_with_many_sentences_and_long_texts():
    # Sentences longer than a 64-bit word, repeated tokens: the union LCS and its counts.
    rng = np.random.default_rng(7)
    words = np.array(["a", "b", "c", "d", "the", "cat"])

    def text():
        return "\n".join(" ".join(rng.choice(words, size=rng.integers(0, 150))) for _ in range(4))

    pairs = [(text(), text()) for _ in range(30)]
    expected = _rouge_oracle(pairs, ["rougeL", "rougeLsum"], False)
    values = rouge_scores([r for r, _ in pairs], [a for _, a in pairs],
                          rouge_types=["rougeL", "rougeLsum"])  # fmt: skip
    assert values["rougeLsum"].tolist() == [e["rougeLsum"].fmeasure for e in expected]
    assert values["rougeL_recall"].tolist() == [e["rougeL"].recall for e in expected]


def _stdlib_words() -> list[str]:
    """The distinct lower-case words of the standard library's sources: English words in
    their inflected forms, and identifiers."""
    words: set[str] = set()
    for path in sorted(Path(string.__file__).parent.glob("*.py")):
        words.update(re.findall(r"[a-z]+", path.read_text(encoding="utf-8", errors="ignore")))
    return sorted(words)


def test_porter_stemmer_equals_nltks_on_the_words_of_the_standard_library():
    stemmer = porter.PorterStemmer()
    words = _stdlib_words()
    assert len(words) > 10_000
    differ = [(w, _core.porter_stem(w), stemmer.stem(w)) for w in words
              if _core.porter_stem(w) != stemmer.stem(w)]  # fmt: skip
    assert differ == []


_SUFFIXES = ["ies", "ied", "eed", "ing", "ed", "ational", "tional", "alli", "logi", "fulli",
             "ness", "ll", "ement", "ion", "sses"]  # fmt: skip


@settings(max_examples=2000, deadline=None)
@given(
    st.lists(st.sampled_from([*"aeiouybcdlmnrstyz0", *_SUFFIXES]), min_size=1, max_size=8).map(
        "".join
    )
)
def test_porter_stemmer_equals_nltks_on_random_words(word):
    assert _core.porter_stem(word) == porter.PorterStemmer().stem(word)


# ------------------------------------------------------------------------------------- BLEU


@settings(max_examples=300, deadline=None)
@given(overlap_text, st.booleans())
def test_13a_tokens_equal_sacrebleus(text, lowercase):
    tokenizer = sacrebleu.BLEU(lowercase=lowercase)
    expected = tokenizer._preprocess_segment(text).split()
    assert _core.bleu_tokens(text, lowercase, "13a") == expected


_SMOOTHING = st.sampled_from(
    [("exp", None), ("none", None), ("floor", None), ("floor", 0.3), ("add-k", None),
     ("add-k", 2.0)]
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(overlap_items, _SMOOTHING, st.booleans(), st.booleans(), st.sampled_from(["13a", "none"]))
def test_sentence_bleu_equals_sacrebleu(pairs, smoothing, lowercase, effective, tokenize):
    method, value = smoothing
    references = [r for r, _ in pairs]
    predictions = [a for _, a in pairs]
    scores = sentence_bleu_score(
        references, predictions, lowercase=lowercase, tokenize=tokenize, smooth_method=method,
        smooth_value=value, use_effective_order=effective, average=None,
    )  # fmt: skip
    expected = [
        sacrebleu.sentence_bleu(
            a, as_list(r), smooth_method=method, smooth_value=value, lowercase=lowercase,
            tokenize=tokenize, use_effective_order=effective,
        ).score
        for r, a in pairs
    ]  # fmt: skip
    assert scores.tolist() == expected


@settings(max_examples=200, deadline=None)
@given(overlap_items, _SMOOTHING, st.booleans(), st.booleans())
def test_corpus_bleu_equals_sacrebleu_with_any_number_of_references(
    pairs, smoothing, lowercase, effective
):
    method, value = smoothing
    references = [as_list(r) for r, _ in pairs]
    predictions = [a for _, a in pairs]
    # sacrebleu reads references as streams; an answer with fewer references has None.
    depth = max(len(r) for r in references)
    streams = [[r[k] if k < len(r) else None for r in references] for k in range(depth)]
    metric = sacrebleu.BLEU(
        lowercase=lowercase, smooth_method=method, smooth_value=value, effective_order=effective
    )
    expected = metric.corpus_score(predictions, streams)
    ours = corpus_bleu(
        references, predictions, lowercase=lowercase, smooth_method=method,
        smooth_value=value, use_effective_order=effective,
    )  # fmt: skip
    assert ours.score == expected.score
    # sacrebleu's add-k adds k to its counts and totals of n > 1 in place (so they are what
    # the precisions were computed from); ragmeter reports the counts themselves.
    # (When no n-gram matches it returns before smoothing.)
    smoothed = method == "add-k" and any(ours.counts)
    added = [0.0] + [value if value is not None else 1.0] * 3 if smoothed else [0.0] * 4
    assert [c + k for c, k in zip(ours.counts, added, strict=True)] == list(expected.counts)
    assert [t + k for t, k in zip(ours.totals, added, strict=True)] == list(expected.totals)
    assert list(ours.precisions) == list(expected.precisions)
    assert (ours.bp, ours.sys_len, ours.ref_len) == (expected.bp, expected.sys_len,
                                                    expected.ref_len)  # fmt: skip
    assert ours.signature == metric.get_signature().format()


def test_bleu_signature_and_format_equal_sacrebleus():
    assert sacrebleu.__version__ == SACREBLEU_VERSION
    hyps = ["The cat sat on a mat.", "It rained."]
    refs = [["The cat sat on the mat."], ["It was raining."]]
    options = [
        {},
        {"lowercase": True},
        {"smooth_method": "floor"},
        {"smooth_method": "add-k", "smooth_value": 2},
        {"tokenize": "none"},
    ]
    for kwargs in options:
        metric = sacrebleu.BLEU(**kwargs)
        expected = metric.corpus_score(hyps, [[r[0] for r in refs]])
        ours = corpus_bleu(refs, hyps, **kwargs)
        assert ours.signature == metric.get_signature().format()
        assert ours.format() == expected.format(signature=metric.get_signature().format())


def test_documented_bleu_examples_equal_sacrebleu():
    assert round(sacrebleu.sentence_bleu("The cat sat on a mat.",
                                         ["The cat sat on the mat."]).score, 4) == round(
        sentence_bleu_score(["The cat sat on the mat."], ["The cat sat on a mat."]), 4
    )  # fmt: skip


# -------------------------------------------------------------------------------- no answer


def _no_answer_oracle(answer: str) -> float:
    text = flashrag_normalize_answer(answer)
    return float(any(re.search(p, text, re.IGNORECASE) for p in NO_ANSWER_PATTERNS))


ascii_answers = st.lists(
    st.sampled_from(["I", "don't", "do", "not", "know", "the", "context", "does", "mention",
                     "it", "cannot", "answer", "be", "determined", "N/A", "Unknown", "no",
                     "answer.", "insufficient", "information", "Paris", ",", ".", "provided",
                     "is", "mentioned", "in", "passages", "unanswerable", "idk"]),
    max_size=10,
).map(" ".join)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(ascii_answers, min_size=1, max_size=20))
def test_no_answer_patterns_equal_pythons_re(texts):
    assert no_answer_score(texts, average=None).tolist() == [_no_answer_oracle(t) for t in texts]


def test_no_answer_examples_and_custom_patterns():
    texts = [
        "I don't know.",
        "Paris",
        "The provided context does not mention it.",
        "N/A",
        "...",
        "It is not mentioned in the passages.",
        "Unknown",
        "The unknown soldier",
    ]
    assert no_answer_score(texts, average=None).tolist() == [1, 0, 1, 1, 1, 1, 1, 0]
    rate = no_answer_score(texts)
    assert rate == 6 / 8 and rate.n_queries == 8
    assert no_answer_score(["je ne sais pas", "Paris"], patterns=[r"\bne sais pas\b"]) == 0.5
    with pytest.raises(ValueError, match=r"patterns\[1\]"):
        no_answer_score(["x"], patterns=["ok", "("])
    with pytest.raises(TypeError, match="patterns"):
        no_answer_score(["x"], patterns="^$")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(ascii_answers, st.booleans()), min_size=1, max_size=25))
def test_abstention_scores_equal_scikit_learns(samples):
    from sklearn.metrics import confusion_matrix, f1_score, precision_score, recall_score

    texts = [t for t, _ in samples]
    answerable = [a for _, a in samples]
    truth = [not a for a in answerable]  # the positive class: no answer, so declining is right
    declined = [_no_answer_oracle(t) == 1.0 for t in texts]
    scores = abstention_scores(texts, np.asarray(answerable))
    tn, fp, fn, tp = confusion_matrix(truth, declined, labels=[False, True]).ravel()
    assert (scores.declined_unanswerable, scores.declined_answerable) == (tp, fp)
    assert (scores.n_unanswerable, scores.n_answerable) == (tp + fn, tn + fp)
    nan = float("nan")
    for ours, theirs in [
        (scores.detection_rate, recall_score(truth, declined, zero_division=nan)),
        (scores.precision, precision_score(truth, declined, zero_division=nan)),
        (scores.false_refusal_rate, fp / (fp + tn) if fp + tn else nan),
    ]:
        assert ours == pytest.approx(theirs, nan_ok=True)
    if not (np.isnan(scores.precision) or np.isnan(scores.detection_rate)):
        assert scores.f1 == pytest.approx(f1_score(truth, declined, zero_division=0.0))
    else:
        assert np.isnan(scores.f1)


def test_abstention_scores_undefined_rates_and_bad_inputs():
    scores = abstention_scores(["Paris", "1889"], [True, True])
    assert scores.false_refusal_rate == 0.0 and np.isnan(scores.detection_rate)
    assert np.isnan(scores.precision) and np.isnan(scores.f1)
    assert (
        scores.describe().splitlines()[0] == "detection_rate = undefined (no unanswerable question)"
    )
    assert "undefined (nothing declined)" in scores.describe()
    with pytest.raises(ValueError, match="one flag per answer, got 1 flags and 2 answers"):
        abstention_scores(["a", "b"], [True])
    with pytest.raises(TypeError, match=r"answerable\[1\] is int"):
        abstention_scores(["a", "b"], [True, 1])
    with pytest.raises(TypeError, match="answerable"):
        abstention_scores(["a"], "yes")
    with pytest.raises(ValueError, match="no answer"):
        abstention_scores([], [])


# ----------------------------------------------------------------------------- claim recall


def _claim_recall_oracle(claims, answer, threshold=1.0):
    if not claims:
        return float("nan")
    answer_tokens = Counter(flashrag_normalize_answer(answer).split())
    covered = 0
    for claim in claims:
        tokens = Counter(flashrag_normalize_answer(claim).split())
        total = sum(tokens.values())
        common = sum((tokens & answer_tokens).values())
        covered += total == 0 or common / total >= threshold
    return covered / len(claims)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.lists(answer_text, max_size=4), answer_text), min_size=1, max_size=15),
    st.sampled_from([1.0, 0.5, 0.75, 0.3]),
)
def test_claim_recall_equals_its_definition(pairs, threshold):
    claims = [c for c, _ in pairs]
    predictions = [a for _, a in pairs]
    got = claim_recall_score(claims, predictions, threshold=threshold, average=None)
    expected = [_claim_recall_oracle(c, a, threshold) for c, a in pairs]
    np.testing.assert_array_equal(got, np.array(expected))


def test_claim_recall_mean_says_how_many_answers_had_no_claim():
    mean = claim_recall_score([["a b"], [], ["c"]], ["a b", "x", "y"])
    assert mean == 0.5 and (mean.n_queries, mean.n_undefined) == (3, 1)
    with pytest.raises(ValueError, match="undefined for every one"):
        claim_recall_score([[], []], ["x", "y"])
    with pytest.raises(ValueError, match="threshold"):
        claim_recall_score([["a"]], ["a"], threshold=0)


# ------------------------------------------------------------- per sample, compare and gate


def test_answer_metrics_are_per_sample_values_for_compare_and_the_gate():
    from ragmeter.gate import gate

    rng = np.random.default_rng(3)
    words = ["paris", "tower", "1889", "eiffel", "france", "city", "the", "built"]
    references = [" ".join(rng.choice(words, 4)) for _ in range(40)]
    ids = [f"q{i}" for i in range(40)]
    good = [r if i % 3 else r.upper() + " indeed" for i, r in enumerate(references)]
    bad = [" ".join(rng.choice(words, 3)) for _ in range(40)]
    metrics = ["substring_match", ("rougeL", {"use_stemmer": True}), "rouge1_recall", "bleu"]
    a = answer_metrics(references, good, metrics, sample_ids=ids, name="good")
    b = answer_metrics(references, bad, metrics, sample_ids=ids, name="bad")
    # Each column is the function's own per-answer values.
    rouge_l = rouge_score(references, good, use_stemmer=True, average=None)
    assert a["rougeL"] == dict(zip(ids, rouge_l.tolist(), strict=True))
    assert list(a.array("bleu")) == list(sentence_bleu_score(references, good, average=None))
    assert a.manifest.producer == "ragmeter.answer_metrics"
    assert dict(a.manifest.measures["rougeL"]) == {
        "function": "rouge_score", "measure": "fmeasure", "rouge_type": "rougeL",
        "use_stemmer": True,
    }  # fmt: skip
    comparison = compare(a, b, metrics=["rougeL"])
    good_l = rouge_score(references, good, use_stemmer=True, average=None)
    bad_l = rouge_score(references, bad, use_stemmer=True, average=None)
    assert comparison["rougeL"].delta == pytest.approx(float(np.mean(good_l - bad_l)))
    assert comparison["rougeL"].wins == int(np.sum(good_l > bad_l))
    decision = gate(a, b, metrics=["substring_match"], margin=0.05)
    assert [c.metric for c in decision.checks] == ["substring_match"]


def _lowered(text: str) -> str:
    return text.lower()


def test_answer_metrics_defined_differently_are_not_compared():
    references = ["The towers were built in Paris.", "it opened in 1889"]
    answers_ = ["tower built in paris", "opened 1889"]
    stemmed = answer_metrics(references, answers_, [("rougeL", {"use_stemmer": True})], name="a")
    plain = answer_metrics(references, answers_, ["rougeL"], name="b")
    with pytest.raises(ValueError, match="use_stemmer"):
        compare(stemmed, plain, metrics=["rougeL"])
    # A callable normaliser is recorded by its name: the same function compares.
    first = answer_metrics(references, answers_, [("exact_match", {"normalize": _lowered})])
    second = answer_metrics(references, answers_, [("exact_match", {"normalize": _lowered})])
    assert first.manifest.measures["exact_match"]["normalize"] == (f"callable {__name__}._lowered")
    assert compare(first, second, metrics=["exact_match"])["exact_match"].delta == 0.0


def test_answer_metrics_bad_inputs():
    with pytest.raises(ValueError, match="unknown answer metric 'rouge4_f'"):
        answer_metrics(["a"], ["a"], ["rouge4_f"])
    with pytest.raises(ValueError, match="listed twice"):
        answer_metrics(["a"], ["a"], ["bleu", "bleu"])
    with pytest.raises(ValueError, match="needs the claims"):
        answer_metrics(["a"], ["a"], ["claim_recall"])
    with pytest.raises(ValueError, match="one id per answer"):
        answer_metrics(["a"], ["a"], ["bleu"], sample_ids=["q1", "q2"])
    with pytest.raises(ValueError, match="part of the name"):
        answer_metrics(["a"], ["a"], [("rouge1", {"measure": "recall"})])
    values = answer_metrics(None, ["I don't know", "x"], ["no_answer"])
    assert values["no_answer"] == {0: 1.0, 1: 0.0}


def test_every_declared_metric_is_computed_by_answer_metrics():
    names = [d.name for d in answers.ANSWER_METRICS]
    values = answer_metrics(["The cat sat."], ["A cat sat down."], names, claims=[["cat sat"]])
    assert list(values.metric_names) == names


def test_the_answer_metrics_page_shows_the_reference_implementations_values():
    page = (Path(__file__).resolve().parents[1] / "docs" / "answer-metrics.md").read_text()
    references = [["Eiffel Tower", "the tower"], "1889"]
    predictions = ["It is the Eiffel tower.", "It opened in 1887."]
    sub = [flashrag_calculate_sub_em(a, r) for r, a in zip(references, predictions, strict=True)]
    assert sub == [1.0, 0.0] and "array([1., 0.])" in page
    scorer = rouge_scorer.RougeScorer(["rouge1"])
    rouge1 = np.mean(
        [
            scorer.score_multi(as_list(r), a)["rouge1"].fmeasure
            for r, a in zip(references, predictions, strict=True)
        ]
    )
    assert f"\n{round(rouge1, 4)}\n" in page
    streams = [["Eiffel Tower", "1889"], ["the tower", None]]
    metric = sacrebleu.BLEU()
    metric.corpus_score(predictions, streams)
    assert f"'{metric.get_signature().format()}'" in page
