"""Citation scores of RAG answers: how well the segments an answer cites support its sentences.

Each (sentence, cited segment) pair is judged ``full`` (weight 1), ``partial`` (0.5) or
``none`` (0) (:class:`~ragmeter.judges.metrics.nuggets.CitationSupportMetric`, the support
assessment of the TREC 2024 RAG track, arXiv:2504.15205). Per answer:

* ``citation_precision`` = Σ_pairs w / #pairs (undefined without a citation);
* ``citation_recall`` = Σ_sentences (mean w of its pairs, 0 for an uncited sentence) /
  #sentences (undefined without a sentence);
* ``citation_f1`` = 2 P R / (P + R), 0 when P = R = 0 (undefined when P or R is);
* ``argue_sentence_precision`` = #sentences some cited segment fully supports / #sentences
  (ARGUE: an uncited sentence is not supported);
* ``argue_nugget_recall`` = the nuggets the answer supports (``support`` only) / |N|, i.e.
  ``nugget_all_strict``;
* ``argue_f1`` = the harmonic mean of the two ARGUE scores.

Weighted precision and recall follow open-rag-eval's citation metric; ARGUE's are after
Mayfield et al., "On the Evaluation of Machine-Generated Reports", SIGIR 2024, with binary
support (``full`` only). An answer that cites nothing (no reference, or sentences that cite
no segment) has ``citation_precision`` undefined (``no_citations``) and recall 0: its sentences
are not supported. A sample without citations (``Sample.citations`` None) has every
citation score ``undefined`` (``missing_citations``); a failed judgement makes them ``error``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from .._core import __version__
from ..exceptions import InvalidInputError
from ..judges import evaluate
from ..judges.metrics.nuggets import CitationSupportMetric
from ..judges.score import Score
from ..manifest import Manifest, judge_identity_of
from ..per_query import PerQueryResults
from .answers import RagAnswer

__all__ = ["CITATION_METRICS", "CitationScores", "citation_scores", "evaluate_citations"]

#: The citation scores (the ARGUE nugget recall and F1 need nugget scores too).
CITATION_METRICS: tuple[str, ...] = (
    "citation_precision",
    "citation_recall",
    "citation_f1",
    "argue_sentence_precision",
)
_WEIGHT = {"full": 1.0, "partial": 0.5, "none": 0.0}


def _f1(p: Score, r: Score) -> Score:
    if p.value is None or r.value is None:
        bad = p if p.value is None else r
        return Score(None, bad.status, bad.reason_code, bad.message)
    if p.value + r.value == 0:
        return Score.ok(0.0)
    return Score.ok(2 * p.value * r.value / (p.value + r.value))


def citation_scores(
    n_sentences: int | None, pairs: Sequence[tuple[int, int, str]]
) -> dict[str, Score]:
    """The citation scores of one answer (see the module documentation).

    Parameters
    ----------
    n_sentences
        The answer's sentences (None: the sample has no citations field).
    pairs
        ``(sentence, cited segment, support)`` for every citation, support ``full``,
        ``partial`` or ``none``.

    Examples
    --------
    >>> scores = citation_scores(3, [(0, 0, "full"), (0, 1, "none"), (1, 1, "partial")])
    >>> scores["citation_precision"].value, scores["citation_recall"].value
    (0.5, 0.3333333333333333)
    >>> scores["argue_sentence_precision"].value
    0.3333333333333333
    """
    if n_sentences is None:
        return {
            m: Score.undefined("missing_citations", "the answer gives no citations")
            for m in CITATION_METRICS
        }
    bad = [s for _, _, s in pairs if s not in _WEIGHT]
    if bad:
        raise InvalidInputError(f"pairs: {bad[0]!r} is not a support label (full, partial, none)")
    if pairs:
        precision = Score.ok(sum(_WEIGHT[s] for _, _, s in pairs) / len(pairs))
    else:
        precision = Score.undefined("no_citations", "no sentence cites a segment")
    if n_sentences == 0:
        no = Score.undefined("no_sentences", "the answer has no sentence")
        return {
            "citation_precision": precision,
            "citation_recall": no,
            "citation_f1": no,
            "argue_sentence_precision": no,
        }
    by_sentence: dict[int, list[float]] = {}
    for sentence, _, support in pairs:
        by_sentence.setdefault(sentence, []).append(_WEIGHT[support])
    recall = Score.ok(sum(sum(w) / len(w) for w in by_sentence.values()) / n_sentences)
    supported = sum(1 for w in by_sentence.values() if 1.0 in w)
    return {
        "citation_precision": precision,
        "citation_recall": recall,
        "citation_f1": _f1(precision, recall),
        "argue_sentence_precision": Score.ok(supported / n_sentences),
    }


def _definitions() -> dict[str, dict[str, Any]]:
    formulas = {
        "citation_precision": "sum_pairs w / #pairs",
        "citation_recall": "sum_sentences mean_w / #sentences",
        "citation_f1": "2PR / (P + R)",
        "argue_sentence_precision": "#sentences fully supported by a cited segment / #sentences",
        "argue_nugget_recall": "nugget_all_strict",
        "argue_f1": "harmonic mean of argue_sentence_precision and argue_nugget_recall",
    }
    return {m: {"name": m, "formula": f, "weights": dict(_WEIGHT)} for m, f in formulas.items()}


class CitationScores:
    """Every answer's citation scores, with each run's values as
    :class:`~ragmeter.PerQueryResults` (built by :func:`evaluate_citations`)."""

    def __init__(
        self,
        answers: Sequence[tuple[str, str, Mapping[str, tuple[Score, ...]]]],
        manifest: Manifest,
    ) -> None:
        self._answers = tuple(answers)
        self.manifest = manifest

    @property
    def runs(self) -> tuple[str, ...]:
        """The runs, in order."""
        return tuple(dict.fromkeys(run for run, _, _ in self._answers))

    def per_query_results(
        self, run_id: str | None = None, *, nugget_scores: Any = None
    ) -> PerQueryResults:
        """One run's citation values per topic; with ``nugget_scores``
        (:class:`~ragmeter.nuggets.NuggetScores` of the same answers, 2 or 3 grades), ARGUE's
        nugget recall (their ``nugget_all_strict``) and F1 too."""
        runs = self.runs
        if run_id is None:
            if len(runs) != 1:
                raise InvalidInputError(f"run_id: these scores hold {len(runs)} runs; name one")
            run_id = runs[0]
        mine = [(t, s) for r, t, s in self._answers if r == run_id]
        if not mine:
            raise InvalidInputError(f"run_id: no answer of run {run_id!r}")
        metrics = list(CITATION_METRICS)
        columns: dict[str, dict[str, tuple[Score, ...]]] = {
            m: {t: s[m] for t, s in mine} for m in metrics
        }
        if nugget_scores is not None:
            recall = {t: nugget_scores.score(run_id, t, "nugget_all_strict") for t, _ in mine}
            precision = columns["argue_sentence_precision"]
            columns["argue_nugget_recall"] = recall
            columns["argue_f1"] = {
                t: tuple(_f1(p, r) for p, r in zip(precision[t], recall[t], strict=False))
                for t in recall
            }
        values: dict[str, dict[str, Any]] = {}
        failed: dict[str, list[str]] = {}
        for metric, column in columns.items():
            values[metric] = {}
            for topic, scores in column.items():
                numbers = [math.nan if s.value is None else s.value for s in scores]
                values[metric][topic] = numbers[0] if len(numbers) == 1 else numbers
                if any(s.status == "error" for s in scores):
                    failed.setdefault(metric, []).append(topic)
        definitions = _definitions()
        return PerQueryResults(
            values,
            name=run_id,
            manifest=self.manifest.replace(measures={m: definitions[m] for m in columns}),
            failed=failed,
        )


def _uncited(score: Score, sample: Any) -> bool:
    """Whether an undefined support score means the answer cites nothing: its sentences cite
    no segment, or it gives no reference at all (the engine then finds no context). Its
    citation scores are then computed with no pair (recall 0, precision undefined)."""
    if score.reason_code == "no_citations":
        return True
    return (
        score.reason_code == "no_contexts"
        and sample.contexts == ()
        and sample.citations is not None
        and not any(s.citations for s in sample.citations)
    )


def evaluate_citations(
    answers: Sequence[RagAnswer],
    queries: Mapping[str, str],
    segments: Mapping[str, str],
    *,
    judge: Any = None,
    per_call: int = 10,
    **options: Any,
) -> CitationScores:
    """Judge the support of every (sentence, cited segment) pair of every answer and score
    each answer (see the module documentation), through the judge engine.

    Parameters
    ----------
    answers
        :class:`~ragmeter.nuggets.RagAnswer` objects.
    queries
        ``{topic id: query}``.
    segments
        ``{segment id: text}`` of every segment the answers cite (a missing one leaves that
        answer's scores ``undefined``, ``missing_contexts``).
    judge, per_call, **options
        As for :func:`ragmeter.nuggets.assign`.
    """
    samples = []
    keys = []
    for answer in answers:
        if answer.topic_id not in queries:
            raise InvalidInputError(f"queries: no query for topic {answer.topic_id!r}")
        samples.append(answer.sample(queries[answer.topic_id], segments))
        keys.append((answer.run_id, answer.topic_id))
    results = evaluate(samples, [CitationSupportMetric(per_call=per_call)], judge=judge, **options)
    scored = []
    for (run_id, topic_id), sample, row in zip(keys, samples, results.rows, strict=True):
        per_repeat = []
        for score in row.repeats if row.repeats is not None else (row.score,):
            if score.status == "error":
                per_repeat.append(
                    {
                        m: Score.error(score.reason_code or "judge_error", score.message or "")
                        for m in CITATION_METRICS
                    }
                )
            elif score.status == "undefined" and not _uncited(score, sample):
                per_repeat.append(
                    {
                        m: Score.undefined(score.reason_code or "", score.message or "")
                        for m in CITATION_METRICS
                    }
                )
            else:
                pairs = [
                    (p["sentence"], p["citation"], p["support"])
                    for p in score.evidence.get("pairs", [])
                ]
                n = None if sample.citations is None else len(sample.citations)
                per_repeat.append(citation_scores(n, pairs))
        scored.append(
            (run_id, topic_id, {m: tuple(r[m] for r in per_repeat) for m in CITATION_METRICS})
        )
    manifest = results.manifest
    repeats = int(manifest.get("repeats") or 1)
    made = Manifest(
        "ragmeter.nuggets.citations",
        __version__,
        {},
        {
            "judge_value": "one judgement" if repeats <= 1 else f"mean of {repeats} repeats",
            "temperature": (manifest.get("settings") or {}).get("temperature"),
            "language": (manifest.get("settings") or {}).get("language"),
        },
        judge_identity_of(manifest),
    )
    return CitationScores(scored, made)
