"""Answer metrics: generated answers against reference answers (or reference claims).

Each function takes ``references`` and ``answers`` aligned by position (as ``y_true`` and
``y_pred`` in scikit-learn). A reference is one ``str`` or a list (or tuple) of acceptable
``str``; the best-scoring one counts. Each answer is one ``str``. The normalisation and the
arithmetic run in ragmeter's Rust core, in parallel and without the GIL (inputs under 16 KiB of
text run on the calling thread).

* Exact match, SQuAD token F1 and substring match (FlashRAG's ``Sub_ExactMatch``, BERGEN's
  ``Match``), with regular-expression gold answers (CuratedTREC): :mod:`.matching`;
* ANLS and edit similarity: :mod:`.edit`;
* ROUGE (as ``rouge-score``) and BLEU (as ``sacrebleu``): :mod:`.overlap`;
* no-answer detection (per answer, and against the questions' answerability) and claim
  recall: :mod:`.abstention`;
* several metrics of one system as per-sample values for :func:`~ragmeter.compare` and the
  gate: :func:`answer_metrics` (:mod:`.table`);
* the normalisations: :mod:`.normalize`; every metric's name, default normalisation, formula
  and reference implementation, and the no-answer patterns: :mod:`.declarations`.

Rules shared by every function:

* ``references`` and ``answers`` must have the same length; a bare ``str``, ``None``, a
  mapping or a set in their place is refused with a :class:`TypeError`, a non-``str`` item with
  a :class:`TypeError` naming its position, an empty list of acceptable references with a
  :class:`ValueError`.
* ``normalize`` is ``"squad"``, ``"bergen"``, ``"basic"``, ``None`` (compare as given) or a
  callable ``str -> str`` applied to both sides (in Python, so it is slower than the named
  ones). ROUGE and BLEU have their reference implementations' own tokenisation instead.
* ``average="mean"`` returns the mean over all answers as a ``float`` that says how many
  answers it averaged (:class:`~ragmeter.MeanScore`; a mean over zero answers is undefined and
  raises :class:`ValueError`); ``average=None`` returns one score per answer as a float64
  NumPy array.
* ``n_threads`` is the number of threads, the calling thread included (default:
  ``RAGMETER_NUM_THREADS`` or all cores): the calling thread reads the next chunk of strings,
  which needs the GIL, while the others score the current one, then scores with them without
  the GIL. ``n_threads=1`` does everything on the calling thread. The result does not depend
  on it.
"""

from __future__ import annotations

from . import declarations
from .abstention import AbstentionScores, abstention_scores, claim_recall_score, no_answer_score
from .declarations import ANSWER_METRICS, NO_ANSWER_PATTERNS
from .edit import anls_score, edit_similarity_score
from .matching import exact_match_score, substring_match_score, token_f1_score
from .normalize import normalize_basic, normalize_bergen, normalize_squad
from .overlap import (
    BleuScore,
    bleu_signature,
    corpus_bleu,
    rouge_score,
    rouge_scores,
    sentence_bleu_score,
)
from .table import answer_metrics

__all__ = [
    "ANSWER_METRICS",
    "NO_ANSWER_PATTERNS",
    "AbstentionScores",
    "BleuScore",
    "abstention_scores",
    "anls_score",
    "answer_metrics",
    "bleu_signature",
    "claim_recall_score",
    "corpus_bleu",
    "declarations",
    "edit_similarity_score",
    "exact_match_score",
    "no_answer_score",
    "normalize_basic",
    "normalize_bergen",
    "normalize_squad",
    "rouge_score",
    "rouge_scores",
    "sentence_bleu_score",
    "substring_match_score",
    "token_f1_score",
]
