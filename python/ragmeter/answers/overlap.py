"""Answer metrics from shared words and n-grams: ROUGE (as ``rouge-score``) and BLEU (as
``sacrebleu``), with the reference implementations' tokenisation (see :mod:`ragmeter.answers`
for the rules they share)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import NDArray

from .. import _core
from .._text import check_n_threads
from ..exceptions import InputTypeError, InvalidInputError
from ._common import prepare, summarize
from .declarations import ROUGE_TYPES, SACREBLEU_VERSION

__all__ = [
    "BleuScore",
    "bleu_signature",
    "corpus_bleu",
    "rouge_score",
    "rouge_scores",
    "sentence_bleu_score",
]

_MEASURES = ("precision", "recall", "fmeasure")
_SMOOTH_DEFAULTS: dict[str, float | None] = {"exp": None, "none": None, "floor": 0.1, "add-k": 1.0}
_TOKENIZERS = ("13a", "none")


def _check_flag(value: object, argument: str) -> bool:
    if not isinstance(value, bool):
        raise InputTypeError(f"{argument} must be True or False, got {type(value).__name__}")
    return value


def _check_rouge_types(rouge_types: object) -> list[str]:
    if isinstance(rouge_types, str) or not isinstance(rouge_types, Sequence):
        raise InputTypeError(
            f"rouge_types: expected a list of ROUGE types such as ['rouge1', 'rougeL'], got "
            f"{rouge_types!r}"
        )
    types = list(rouge_types)
    if not types:
        raise InvalidInputError("rouge_types: give at least one ROUGE type")
    return types


def rouge_scores(
    references: Any,
    answers: Any,
    *,
    rouge_types: Sequence[str] = ROUGE_TYPES[:3],
    use_stemmer: bool = False,
    n_threads: int | None = None,
) -> dict[str, NDArray[np.float64]]:
    """ROUGE precision, recall and F-measure of every answer, several types in one pass.

    The values of :func:`rouge_score` for every type and measure at once (each answer and its
    references are tokenised once): ``{"rouge1_precision": array, "rouge1_recall": array,
    "rouge1": array (the F-measure), ...}``, one value per answer in each.

    Parameters
    ----------
    references
        One entry per answer: a string, or a list of references (the one with the highest
        F-measure counts, for each type).
    answers
        The answers, one string each, as many as ``references``.
    rouge_types
        ``"rouge1"`` to ``"rouge9"``, ``"rougeL"``, ``"rougeLsum"`` (rouge-score's names);
        default ``("rouge1", "rouge2", "rougeL")``.
    use_stemmer
        Replace the tokens longer than three letters by their Porter stem (NLTK's).
    n_threads
        Threads of the Rust core (default ``RAGMETER_NUM_THREADS`` or all cores).

    Returns
    -------
    dict of str to numpy.ndarray
        For each type ``t``: ``t`` (the F-measure), ``t + "_precision"`` and ``t + "_recall"``,
        float64 arrays of one value per answer.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: references and answers of different lengths, an empty list of
        references, an unknown ROUGE type, a bad ``n_threads``.
    InputTypeError
        A ``TypeError``: an answer or reference that is not a string, a single string given as
        the list of answers or references, ``rouge_types`` not a list of names.

    Examples
    --------
    >>> values = rouge_scores(["The quick brown fox"], ["the quick fox"],
    ...                       rouge_types=["rouge1", "rouge2"])
    >>> values["rouge1_precision"], values["rouge1_recall"], values["rouge2_recall"]
    (array([1.]), array([0.75]), array([0.33333333]))
    """
    types = _check_rouge_types(rouge_types)
    stem = _check_flag(use_stemmer, "use_stemmer")
    threads = check_n_threads(n_threads)
    reference_list, answer_list, _ = prepare(references, answers, None, None)
    table = _core.rouge_scores(reference_list, answer_list, types, stem, threads)
    out: dict[str, NDArray[np.float64]] = {}
    for k, rouge_type in enumerate(types):
        out[rouge_type] = table[:, 3 * k + 2].copy()
        out[f"{rouge_type}_precision"] = table[:, 3 * k].copy()
        out[f"{rouge_type}_recall"] = table[:, 3 * k + 1].copy()
    return out


@overload
def rouge_score(
    references: Any,
    answers: Any,
    *,
    rouge_type: str = ...,
    measure: Literal["precision", "recall", "fmeasure"] = ...,
    use_stemmer: bool = ...,
    average: Literal["mean"] = ...,
    n_threads: int | None = ...,
) -> float: ...
@overload
def rouge_score(
    references: Any,
    answers: Any,
    *,
    rouge_type: str = ...,
    measure: Literal["precision", "recall", "fmeasure"] = ...,
    use_stemmer: bool = ...,
    average: None,
    n_threads: int | None = ...,
) -> NDArray[np.float64]: ...
def rouge_score(
    references: Any,
    answers: Any,
    *,
    rouge_type: str = "rougeL",
    measure: Literal["precision", "recall", "fmeasure"] = "fmeasure",
    use_stemmer: bool = False,
    average: Literal["mean"] | None = "mean",
    n_threads: int | None = None,
) -> float | NDArray[np.float64]:
    r"""ROUGE of each answer against its references, as ``rouge-score`` computes it.

    Tokens are ``rouge-score``'s: the text lower-cased (``str.lower``), every run of
    characters other than ``a-z0-9`` a separator (so only ASCII letters and digits count:
    ``"café"`` gives ``"caf"``, Chinese text no token), and with ``use_stemmer`` each token
    longer than three letters replaced by its Porter stem (NLTK's ``PorterStemmer``, its
    default mode). The answer is the prediction, the reference the target:

    * ``rouge1``, ``rouge2``, ... ``rouge9``: with ``c`` the n-grams the two share (as
      multisets), ``P = c / max(#answer n-grams, 1)``, ``R = c / max(#reference n-grams, 1)``;
    * ``rougeL``: with ``l`` the length of a longest common subsequence of the tokens,
      ``P = l / #answer tokens``, ``R = l / #reference tokens`` (0 when either has none);
    * ``rougeLsum``: the summary-level LCS of ROUGE-1.5.5 over sentences split at ``\n``;
    * ``F = 2PR / (P + R)``, 0 when ``P + R = 0``.

    With several references, the one with the highest F-measure counts, for P and R as well
    (``rouge-score``'s ``score_multi``; the first one on a tie). The values are
    ``rouge-score``'s to the bit (fractions in [0, 1], not percentages).

    Reference: Lin (2004), "ROUGE: A Package for Automatic Evaluation of Summaries";
    ``rouge-score`` 0.1.2 (Google Research), ``rouge_scorer.py`` and ``tokenize.py``.

    Parameters
    ----------
    references
        One entry per answer: a string, or a list of references (the best one counts).
    answers
        The answers, one string each, as many as ``references``.
    rouge_type
        ``"rouge1"`` to ``"rouge9"``, ``"rougeL"`` (default) or ``"rougeLsum"``.
    measure
        ``"fmeasure"`` (default), ``"precision"`` or ``"recall"``.
    use_stemmer
        Porter-stem the tokens longer than three letters (default ``False``, as rouge-score).
    average
        ``"mean"`` (default): the mean over answers; ``None``: one value per answer.
    n_threads
        Threads of the Rust core (default ``RAGMETER_NUM_THREADS`` or all cores).

    Returns
    -------
    float or numpy.ndarray
        The mean in [0, 1] (a :class:`~ragmeter.MeanScore`), or with ``average=None`` a float64
        array of one value per answer.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: references and answers of different lengths, an empty list of
        references, no answers with ``average="mean"``, an unknown ``rouge_type``,
        ``measure`` or ``average``, a bad ``n_threads``.
    InputTypeError
        A ``TypeError``: an answer or reference that is not a string, a single string given as
        the list of answers or references.

    Examples
    --------
    rouge-score's own example, with the stemmer (8 answer tokens, 9 reference tokens, a
    longest common subsequence of 5):

    >>> rouge_score(["The quick brown fox jumps over the lazy dog"],
    ...             ["The quick brown dog jumps on the log."], use_stemmer=True)
    0.5882352941176471
    >>> rouge_score(["The quick brown fox"], ["the fox"], rouge_type="rouge1",
    ...             measure="precision")
    1.0
    """
    if measure not in _MEASURES:
        raise InvalidInputError(
            f"measure: must be 'precision', 'recall' or 'fmeasure', got {measure!r}"
        )
    if not isinstance(rouge_type, str):
        raise InputTypeError(f"rouge_type: expected a name such as 'rougeL', got {rouge_type!r}")
    stem = _check_flag(use_stemmer, "use_stemmer")
    threads = check_n_threads(n_threads)
    reference_list, answer_list, _ = prepare(references, answers, None, average)
    table = _core.rouge_scores(reference_list, answer_list, [rouge_type], stem, threads)
    scores = table[:, _MEASURES.index(measure)].copy()
    name = rouge_type if measure == "fmeasure" else f"{rouge_type}_{measure}"
    return summarize(scores, average, name)


def _bleu_options(
    lowercase: object, tokenize: object, smooth_method: object, smooth_value: object
) -> tuple[bool, str, str, float | None]:
    case = _check_flag(lowercase, "lowercase")
    if tokenize not in _TOKENIZERS:
        raise InvalidInputError(
            f"tokenize: must be '13a' (sacrebleu's default) or 'none', got {tokenize!r} "
            "(sacrebleu's other tokenizers are not implemented)"
        )
    if smooth_method not in _SMOOTH_DEFAULTS:
        raise InvalidInputError(
            "smooth_method: must be 'exp' (sacrebleu's default), 'floor', 'add-k' or 'none', "
            f"got {smooth_method!r}"
        )
    if smooth_value is not None and (
        isinstance(smooth_value, bool) or not isinstance(smooth_value, (int, float))
    ):
        raise InputTypeError(f"smooth_value must be a number or None, got {smooth_value!r}")
    value = None if smooth_value is None else float(smooth_value)
    return case, str(tokenize), str(smooth_method), value


def bleu_signature(
    *,
    nrefs: int | str,
    lowercase: bool = False,
    tokenize: str = "13a",
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = False,
) -> str:
    """sacrebleu's signature of a BLEU score, which says how it was computed.

    The fields of ``sacrebleu.BLEU.get_signature()``: the number of references per answer
    (``"var"`` when it varies), the case, the effective order, the tokenizer, the smoothing
    (with its value for ``floor`` and ``add-k``), and the version of sacrebleu whose scores
    ragmeter's equal (:data:`~ragmeter.answers.declarations.SACREBLEU_VERSION`).

    Parameters
    ----------
    nrefs
        The number of references of every answer, or ``"var"``.
    lowercase, tokenize, smooth_method, smooth_value, use_effective_order
        As for :func:`corpus_bleu`.

    Returns
    -------
    str
        ``"nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0"`` for the defaults.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: an unknown tokenizer or smoothing.

    Examples
    --------
    >>> bleu_signature(nrefs=1)
    'nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0'
    >>> bleu_signature(nrefs="var", smooth_method="floor", use_effective_order=True)
    'nrefs:var|case:mixed|eff:yes|tok:13a|smooth:floor[0.10]|version:2.6.0'
    """
    case, tokenizer, method, value = _bleu_options(lowercase, tokenize, smooth_method, smooth_value)
    smooth = method
    default = _SMOOTH_DEFAULTS[method]
    if default is not None:
        smooth += f"[{(default if value is None else value):.2f}]"
    effective = "yes" if _check_flag(use_effective_order, "use_effective_order") else "no"
    return (
        f"nrefs:{nrefs}|case:{'lc' if case else 'mixed'}|eff:{effective}|tok:{tokenizer}|"
        f"smooth:{smooth}|version:{SACREBLEU_VERSION}"
    )


def _nrefs(references: list[Any]) -> int | str:
    counts = {len(r) if isinstance(r, (list, tuple)) else 1 for r in references}
    return counts.pop() if len(counts) == 1 else "var"


@overload
def sentence_bleu_score(
    references: Any,
    answers: Any,
    *,
    lowercase: bool = ...,
    tokenize: Literal["13a", "none"] = ...,
    smooth_method: Literal["exp", "floor", "add-k", "none"] = ...,
    smooth_value: float | None = ...,
    use_effective_order: bool = ...,
    average: Literal["mean"] = ...,
    n_threads: int | None = ...,
) -> float: ...
@overload
def sentence_bleu_score(
    references: Any,
    answers: Any,
    *,
    lowercase: bool = ...,
    tokenize: Literal["13a", "none"] = ...,
    smooth_method: Literal["exp", "floor", "add-k", "none"] = ...,
    smooth_value: float | None = ...,
    use_effective_order: bool = ...,
    average: None,
    n_threads: int | None = ...,
) -> NDArray[np.float64]: ...
def sentence_bleu_score(
    references: Any,
    answers: Any,
    *,
    lowercase: bool = False,
    tokenize: Literal["13a", "none"] = "13a",
    smooth_method: Literal["exp", "floor", "add-k", "none"] = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = True,
    average: Literal["mean"] | None = "mean",
    n_threads: int | None = None,
) -> float | NDArray[np.float64]:
    """Sentence-level BLEU of each answer, as ``sacrebleu.sentence_bleu`` with its defaults.

    Each answer is a hypothesis, its references the references; the score is on sacrebleu's
    0-100 scale (not a fraction). With ``average="mean"`` it is the mean of the sentence
    scores, which is not corpus BLEU (:func:`corpus_bleu` pools the n-gram counts of all
    answers first); the per-answer values (``average=None``) are what :func:`compare
    <ragmeter.compare>` and the gate pair between systems.

    See :func:`corpus_bleu` for the tokenization, the statistics and the formula. The
    defaults are sacrebleu's ``sentence_bleu``: ``13a`` tokens, case kept, ``exp``
    smoothing, effective order (n-gram orders the answer is too short to have are left out).
    The signature of the scores is :func:`bleu_signature` with the same options.

    Reference: Papineni et al. (2002), "BLEU: a Method for Automatic Evaluation of Machine
    Translation"; Post (2018), "A Call for Clarity in Reporting BLEU Scores" (sacrebleu).

    Parameters
    ----------
    references
        One entry per answer: a string, or a list of references.
    answers
        The answers, one string each, as many as ``references``.
    lowercase, tokenize, smooth_method, smooth_value, use_effective_order
        As sacrebleu's ``sentence_bleu`` (``tokenize`` ``"13a"`` or ``"none"``).
    average
        ``"mean"`` (default): the mean over answers; ``None``: one score per answer.
    n_threads
        Threads of the Rust core (default ``RAGMETER_NUM_THREADS`` or all cores).

    Returns
    -------
    float or numpy.ndarray
        The mean in [0, 100] (a :class:`~ragmeter.MeanScore`), or with ``average=None`` a
        float64 array of one score per answer.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: references and answers of different lengths, an empty list of
        references, no answers with ``average="mean"``, an unknown tokenizer or smoothing, a
        negative ``smooth_value``, a bad ``n_threads``.
    InputTypeError
        A ``TypeError``: an answer or reference that is not a string, a single string given as
        the list of answers or references, a flag that is not a bool.

    Examples
    --------
    >>> round(sentence_bleu_score(["The cat sat on the mat."], ["The cat sat on a mat."]), 4)
    48.8923
    """
    case, tokenizer, method, value = _bleu_options(lowercase, tokenize, smooth_method, smooth_value)
    effective = _check_flag(use_effective_order, "use_effective_order")
    threads = check_n_threads(n_threads)
    reference_list, answer_list, _ = prepare(references, answers, None, average)
    scores = _core.sentence_bleu(
        reference_list, answer_list, case, tokenizer, method, value, effective, threads
    )
    return summarize(scores, average, "bleu")


@dataclass(frozen=True)
class BleuScore:
    """Corpus BLEU with its parts, as sacrebleu's ``BLEUScore``.

    Attributes
    ----------
    score
        BLEU, 0-100.
    counts
        The matching n-grams of the corpus, n = 1..4 (clipped by the references). With
        ``add-k`` smoothing these are the counts themselves; sacrebleu's ``counts`` then hold
        the counts plus k for n > 1 (it adds k in place).
    totals
        The n-grams of the answers, n = 1..4 (with ``add-k``, sacrebleu's hold them plus k for
        n > 1, as ``counts``).
    precisions
        ``100 * counts / totals`` with the smoothing, n = 1..4.
    bp
        The brevity penalty.
    sys_len
        The number of answer tokens.
    ref_len
        The number of reference tokens (the closest reference length of each answer).
    signature
        sacrebleu's signature of the settings (:func:`bleu_signature`).
    n_answers
        How many answers the corpus has.
    """

    score: float
    counts: tuple[int, int, int, int]
    totals: tuple[int, int, int, int]
    precisions: tuple[float, float, float, float]
    bp: float
    sys_len: int
    ref_len: int
    signature: str
    n_answers: int

    def __float__(self) -> float:
        """The score."""
        return self.score

    def format(self, width: int = 2) -> str:
        """The score as sacrebleu prints it.

        Parameters
        ----------
        width
            Decimals of the score.

        Returns
        -------
        str
            ``"BLEU|<signature> = 34.21 60.0/40.0/30.0/20.0 (BP = 1.000 ratio = 1.000
            hyp_len = 9 ref_len = 9)"``.
        """
        ratio = self.sys_len / self.ref_len if self.ref_len else 0
        precisions = "/".join(f"{p:.1f}" for p in self.precisions)
        return (
            f"BLEU|{self.signature} = {self.score:.{width}f} {precisions} (BP = {self.bp:.3f} "
            f"ratio = {ratio:.3f} hyp_len = {self.sys_len:d} ref_len = {self.ref_len:d})"
        )

    def __str__(self) -> str:
        """:meth:`format`."""
        return self.format()


def corpus_bleu(
    references: Any,
    answers: Any,
    *,
    lowercase: bool = False,
    tokenize: Literal["13a", "none"] = "13a",
    smooth_method: Literal["exp", "floor", "add-k", "none"] = "exp",
    smooth_value: float | None = None,
    use_effective_order: bool = False,
    n_threads: int | None = None,
) -> BleuScore:
    r"""Corpus BLEU of the answers, as ``sacrebleu.corpus_bleu`` with its defaults.

    Each text is lower-cased if ``lowercase`` (``str.lower``), stripped of trailing white
    space, and tokenized by ``13a`` (mteval-v13a's: ``<skipped>`` removed, a ``-`` at a line
    break joined, line breaks to spaces, ``&quot; &amp; &lt; &gt;`` decoded, then spaces put
    around the ASCII symbols other than ``' , - .``, around a ``.`` or ``,`` not between
    digits, and after a digit's ``-``) or ``none`` (white space only). For each answer: its
    length ``c``, the reference length closest to it ``r`` (the shorter on a tie), and for
    n = 1..4 its n-grams ``total_n`` and those also in a reference ``correct_n`` (each n-gram
    clipped at its largest count in any one reference). Summed over the answers:

    ``BLEU = BP * exp(sum_n log p_n / N)``, ``p_n = 100 correct_n / total_n``,
    ``BP = exp(1 - r / c)`` if ``c < r`` (0 if ``c = 0``) else 1, 0 when no n-gram matches.
    ``N`` is 4, or with ``use_effective_order`` the largest ``n`` with ``total_n > 0``; a
    zero ``p_n`` counts as ``log = -9999999999`` (so BLEU is 0 without smoothing). Smoothing
    of a zero ``correct_n`` (Chen and Cherry, 2014): ``exp`` (default, mteval's) makes the
    k-th zero precision ``100 / (2^k total_n)``; ``floor`` makes it ``100 smooth_value /
    total_n`` (default 0.1); ``add-k`` adds ``smooth_value`` (default 1) to ``correct_n`` and
    ``total_n`` for n > 1; ``none`` leaves it 0.

    The score, counts and precisions are sacrebleu's to the bit; answers may have different
    numbers of references (sacrebleu's signature then says ``nrefs:var``).

    Reference: Papineni et al. (2002), "BLEU: a Method for Automatic Evaluation of Machine
    Translation"; Post (2018), "A Call for Clarity in Reporting BLEU Scores" (sacrebleu
    ``metrics/bleu.py``, ``tokenizers/tokenizer_13a.py``).

    Parameters
    ----------
    references
        One entry per answer: a string, or a list of references.
    answers
        The answers (hypotheses), one string each, as many as ``references``.
    lowercase
        Lower-case every text first (sacrebleu's ``lowercase``; signature ``case:lc``).
    tokenize
        ``"13a"`` (default) or ``"none"``.
    smooth_method
        ``"exp"`` (default), ``"floor"``, ``"add-k"`` or ``"none"``.
    smooth_value
        The value of ``floor`` (default 0.1) and ``add-k`` (default 1).
    use_effective_order
        Leave out the n-gram orders no answer has (default ``False``, as corpus_bleu).
    n_threads
        Threads of the Rust core (default ``RAGMETER_NUM_THREADS`` or all cores).

    Returns
    -------
    BleuScore
        The score, its counts, precisions, brevity penalty, lengths and signature.

    Raises
    ------
    InvalidInputError
        A ``ValueError``: references and answers of different lengths, no answers, an empty
        list of references, an unknown tokenizer or smoothing, a bad ``n_threads``.
    InputTypeError
        A ``TypeError``: an answer or reference that is not a string, a single string given as
        the list of answers or references, a flag that is not a bool.

    Examples
    --------
    >>> bleu = corpus_bleu([["The cat sat on the mat.", "A cat was on the mat."]],
    ...                    ["The cat sat on a mat."])
    >>> round(bleu.score, 4), bleu.counts, bleu.totals
    (48.8923, (6, 4, 2, 1), (7, 6, 5, 4))
    >>> bleu.signature
    'nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0'
    """
    case, tokenizer, method, value = _bleu_options(lowercase, tokenize, smooth_method, smooth_value)
    effective = _check_flag(use_effective_order, "use_effective_order")
    threads = check_n_threads(n_threads)
    reference_list, answer_list, _ = prepare(references, answers, None, "mean")
    stats = _core.bleu_stats(reference_list, answer_list, case, tokenizer, threads)
    totals = [int(x) for x in stats.sum(axis=0, dtype=np.uint64)]
    score, precisions, bp = _core.bleu_from_stats(totals, method, value, effective)
    signature = bleu_signature(
        nrefs=_nrefs(reference_list),
        lowercase=case,
        tokenize=tokenizer,
        smooth_method=method,
        smooth_value=value,
        use_effective_order=effective,
    )
    return BleuScore(
        score=score,
        counts=(totals[2], totals[3], totals[4], totals[5]),
        totals=(totals[6], totals[7], totals[8], totals[9]),
        precisions=(precisions[0], precisions[1], precisions[2], precisions[3]),
        bp=bp,
        sys_len=totals[0],
        ref_len=totals[1],
        signature=signature,
        n_answers=len(answer_list),
    )
