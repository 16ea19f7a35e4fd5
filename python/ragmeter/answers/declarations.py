"""Every answer metric and every answer normalisation, declared once.

An :class:`AnswerMetricDeclaration` holds what one answer metric is: the names
:func:`~ragmeter.answers.answer_metrics` knows it by, the function that computes it, its
default normalisation, its scale, its formula, when it is undefined, and the reference
implementation its values are tested against. :data:`NORMALIZATIONS` says what each
normalisation does; :data:`NO_ANSWER_PATTERNS` are the patterns of an answer that declines to
answer. The functions of :mod:`ragmeter.answers`, :func:`~ragmeter.answers.answer_metrics` and
the documentation read them from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exceptions import InvalidInputError

__all__ = [
    "ANSWER_METRICS",
    "NORMALIZATIONS",
    "NO_ANSWER_PATTERNS",
    "ROUGE_TYPES",
    "SACREBLEU_VERSION",
    "AnswerMetricDeclaration",
    "declaration",
]

#: What each ``normalize=`` name does to a text before it is compared (``None``: nothing).
NORMALIZATIONS: dict[str | None, str] = {
    "squad": (
        "SQuAD v1.1's normalize_answer (also FlashRAG's): str.lower(), ASCII punctuation "
        "(string.punctuation) removed, the whole words a/an/the replaced by a space "
        "(re.sub(r'\\b(a|an|the)\\b', ' ', s), where a word character is a Unicode letter or "
        "number), white space collapsed (' '.join(s.split()))"
    ),
    "bergen": (
        "BERGEN's normalize: SQuAD's steps with the articles removed by the regex module, "
        "whose word characters are Unicode's (UTS #18: Alphabetic, marks, decimal numbers, "
        "connector punctuation, join controls); the same as 'squad' on ASCII text"
    ),
    "basic": (
        "the DocVQA/ST-VQA evaluation's: str.lower() and white space collapsed "
        "(' '.join(s.lower().split())), punctuation kept"
    ),
    None: "none: the texts are compared as given",
}

#: The ROUGE variants of ``rouge-score``.
ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")

#: The version of sacrebleu whose BLEU ragmeter's equals (tested against it), written in the
#: ``version:`` field of the BLEU signature.
SACREBLEU_VERSION = "2.6.0"

#: An answer that declines to answer, as regular expressions (Rust ``regex`` syntax, searched
#: case-insensitively) over the answer after its normalisation (SQuAD's by default: lower
#: case, no punctuation, no articles, single spaces, so "I don't know." reads "i dont know";
#: the apostrophes are optional, for answers normalised without removing punctuation).
#: English only; pass your own ``patterns=`` for other languages or phrasings.
NO_ANSWER_PATTERNS: tuple[str, ...] = (
    # Nothing left: an empty answer, or only punctuation and articles.
    r"^$",
    # The whole answer is a no-answer token (SQuAD 2.0's "noanswer", "N/A", ...).
    r"^(no ?answer|unanswerable|not answerable|unknown|n ?a)$",
    r"\bi (do not|don'?t|did not|didn'?t) know\b",
    r"\b(cannot|can'?t|can not|unable to|not able to|could not|couldn'?t) "
    r"(answer|be answered|determine|be determined|find (the )?answer)\b",
    r"\b(not enough|insufficient|no relevant) (information|context|evidence|data)\b",
    r"\b(context|passages?|documents?|sources?|texts?|information) (provided )?"
    r"(does not|doesn'?t|do not|don'?t) (contain|provide|mention|include|specify|state|say)\b",
    r"\bnot (mentioned|provided|specified|stated|given) in (context|passages?|documents?|"
    r"sources?|texts?)\b",
)


@dataclass(frozen=True)
class AnswerMetricDeclaration:
    """One answer metric (see the module documentation).

    Attributes
    ----------
    name
        Its name in :func:`~ragmeter.answers.answer_metrics` and in results.
    function
        The function of :mod:`ragmeter.answers` that computes it.
    options
        The options :func:`~ragmeter.answers.answer_metrics` passes to ``function`` for this
        name (``{"rouge_type": "rouge1", "measure": "precision"}``...).
    normalize
        Its default normalisation (a key of :data:`NORMALIZATIONS`).
    scale
        The range of its per-answer values.
    formula
        What a per-answer value is.
    undefined
        When a per-answer value is undefined (NaN), or ``None`` when it never is.
    reference
        The implementation its values are tested against, equal to the bit unless said.
    citation
        Where it comes from.
    inputs
        What it reads beside the answers: ``"references"``, ``"claims"`` or ``"none"``.
    """

    name: str
    function: str
    formula: str
    reference: str
    citation: str
    options: tuple[tuple[str, object], ...] = ()
    normalize: str | None = "squad"
    scale: tuple[float, float] = (0.0, 1.0)
    undefined: str | None = None
    inputs: str = "references"


_SQUAD = (
    "P. Rajpurkar, J. Zhang, K. Lopyrev and P. Liang, 'SQuAD: 100,000+ Questions for Machine "
    "Comprehension of Text', EMNLP 2016"
)
_FLASHRAG = (
    "J. Jin, Y. Zhu, X. Yang, C. Zhang and Z. Dou, 'FlashRAG: A Modular Toolkit for Efficient "
    "Retrieval-Augmented Generation Research', WWW 2025 (flashrag/evaluator/metrics.py)"
)
_BERGEN = (
    "D. Rau, H. Déjean, N. Chirkova, T. Formal, S. Wang, V. Nikoulina and S. Clinchant, "
    "'BERGEN: A Benchmarking Library for Retrieval-Augmented Generation', EMNLP 2024 Findings "
    "(modules/metrics.py)"
)
_ANLS = (
    "A. F. Biten, R. Tito, A. Mafla, L. Gomez, M. Rusiñol, E. Valveny, C. V. Jawahar and D. "
    "Karatzas, 'Scene Text Visual Question Answering', ICCV 2019"
)
_LIN = "C.-Y. Lin, 'ROUGE: A Package for Automatic Evaluation of Summaries', ACL Workshop 2004"
_ROUGE_SCORE = "rouge-score 0.1.2 (Google Research), with NLTK's Porter stemmer"
_BLEU = (
    "K. Papineni, S. Roukos, T. Ward and W.-J. Zhu, 'BLEU: a Method for Automatic Evaluation of "
    "Machine Translation', ACL 2002; M. Post, 'A Call for Clarity in Reporting BLEU Scores', "
    "WMT 2018"
)

_ROUGE_FORMULAS = {
    "rouge1": "shared unigrams (multisets) c: P = c / max(|answer unigrams|, 1), R = c / "
    "max(|reference unigrams|, 1)",
    "rouge2": "shared bigrams (multisets) c: P = c / max(|answer bigrams|, 1), R = c / "
    "max(|reference bigrams|, 1)",
    "rougeL": "l = length of a longest common subsequence of the tokens: P = l / |answer|, R = "
    "l / |reference| (0 when either has no token)",
    "rougeLsum": "hits = tokens of the union LCS of each reference sentence with the answer's "
    "sentences (split at newlines), each counted at most as often as on both sides: P = hits "
    "/ |answer|, R = hits / |reference|",
}
_MEASURES = {
    "precision": "P",
    "recall": "R",
    "fmeasure": "F = 2PR / (P + R) (0 when P + R = 0)",
}


def _rouge(rouge_type: str, measure: str) -> AnswerMetricDeclaration:
    name = rouge_type if measure == "fmeasure" else f"{rouge_type}_{measure}"
    return AnswerMetricDeclaration(
        name=name,
        function="rouge_score",
        options=(("rouge_type", rouge_type), ("measure", measure)),
        normalize=None,
        formula=(
            f"{_ROUGE_FORMULAS[rouge_type]}; the value is {_MEASURES[measure]}, of the reference "
            "with the highest F (rouge-score's score_multi); tokens are the runs of a-z0-9 of "
            "the lower-cased text (rouge-score's tokenizer), Porter stems with use_stemmer"
        ),
        reference=_ROUGE_SCORE,
        citation=_LIN,
    )


#: Every answer metric, in the order of the documentation.
ANSWER_METRICS: tuple[AnswerMetricDeclaration, ...] = (
    AnswerMetricDeclaration(
        name="exact_match",
        function="exact_match_score",
        formula="max over references r of [norm(answer) == norm(r)]; with regex, [the pattern "
        "matches all of norm(answer)]",
        reference="the official SQuAD v1.1 evaluate-v1.1.py; FlashRAG's ExactMatch; BERGEN's "
        "EM (normalize='bergen')",
        citation=_SQUAD,
    ),
    AnswerMetricDeclaration(
        name="token_f1",
        function="token_f1_score",
        formula="max over references of 2PR / (P + R), P and R over the shared words "
        "(multisets) of the normalised texts; two empty texts score 1 (SQuAD v2.0)",
        reference="the official SQuAD v1.1 evaluate-v1.1.py (v2.0's rule for empty texts)",
        citation=_SQUAD,
    ),
    AnswerMetricDeclaration(
        name="substring_match",
        function="substring_match_score",
        formula="max over references r of [norm(r) occurs in norm(answer)]; with regex, [the "
        "pattern matches somewhere in norm(answer)]",
        reference="FlashRAG's Sub_ExactMatch ('acc'); BERGEN's Match ('M', normalize='bergen')",
        citation=f"{_FLASHRAG}; {_BERGEN}",
    ),
    AnswerMetricDeclaration(
        name="anls",
        function="anls_score",
        options=(("threshold", 0.5),),
        normalize="basic",
        formula="max over references of 1 - NL if NL < threshold else 0, NL = Levenshtein "
        "distance / the longer length, in code points",
        reference="the DocVQA/ST-VQA definition, distances from rapidfuzz",
        citation=_ANLS,
    ),
    AnswerMetricDeclaration(
        name="edit_similarity",
        function="edit_similarity_score",
        normalize=None,
        formula="max over references of 1 - Levenshtein distance / the longer length",
        reference="rapidfuzz's Levenshtein.normalized_similarity",
        citation=_ANLS,
    ),
    *(_rouge(t, m) for t in ROUGE_TYPES for m in ("fmeasure", "precision", "recall")),
    AnswerMetricDeclaration(
        name="bleu",
        function="sentence_bleu_score",
        normalize=None,
        scale=(0.0, 100.0),
        formula="sentence BLEU = BP exp(mean of log p_n, n = 1..4), p_n = 100 clipped matching "
        "n-grams / answer n-grams (exp smoothing of zero counts), BP = exp(1 - r/c) if c < r; "
        "13a tokens, effective order (orders with no answer n-gram left out)",
        reference=f"sacrebleu {SACREBLEU_VERSION}'s sentence_bleu (its defaults)",
        citation=_BLEU,
    ),
    AnswerMetricDeclaration(
        name="no_answer",
        function="no_answer_score",
        formula="1 if a no-answer pattern (NO_ANSWER_PATTERNS) matches norm(answer), else 0; "
        "its mean is the no-answer rate",
        reference="the patterns themselves, searched with Python's re in the tests",
        citation="ragmeter; SQuAD 2.0's no-answer (Rajpurkar, Jia and Liang, ACL 2018)",
        inputs="none",
    ),
    AnswerMetricDeclaration(
        name="claim_recall",
        function="claim_recall_score",
        options=(("threshold", 1.0),),
        formula="covered claims / claims; a claim is covered when at least threshold of its "
        "normalised words (as a multiset) are words of the normalised answer",
        reference="a plain-Python definition in the tests",
        citation="ragmeter (a deterministic claim recall; judged recall: ragmeter.judges)",
        undefined="the answer has no reference claim",
        inputs="claims",
    ),
)

_BY_NAME = {d.name: d for d in ANSWER_METRICS}


def declaration(name: str) -> AnswerMetricDeclaration:
    """The declaration of the answer metric ``name``.

    Parameters
    ----------
    name
        An answer metric's name (``"exact_match"``, ``"rougeL_precision"``, ``"bleu"``...).

    Returns
    -------
    AnswerMetricDeclaration
        Its declaration.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: no answer metric has that name.

    Examples
    --------
    >>> declaration("rouge2_recall").options
    (('rouge_type', 'rouge2'), ('measure', 'recall'))
    """
    found = _BY_NAME.get(name) if isinstance(name, str) else None
    if found is None:
        raise InvalidInputError(
            f"metrics: unknown answer metric {name!r}; the answer metrics are "
            + ", ".join(_BY_NAME)
        )
    return found
